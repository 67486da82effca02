"""Every kernel launch the launcher makes, for a broad table of problems, with the kernels stubbed out (no GPU).

    PYTHONPATH=src TRITON_INTERPRET=1 python3 tools/launch_record.py --write tests/data/launch_golden.json.gz
    PYTHONPATH=src TRITON_INTERPRET=1 python3 tools/launch_record.py --check tests/data/launch_golden.json.gz

Each kernel object (the Triton kernels the launcher names, the Gluon kernels on their modules) is replaced by a
stub whose ``[grid](*args, **kwargs)`` writes down the launch instead of running it (as
``tools/host_overhead.py --python-only`` stubs them): the kernel's name, the grid, every scalar argument, every
keyword (constexprs, warps, stages, PDL), and for a tensor argument which of the call's tensors it is (``q``, ``dk``,
...) or, for one the launcher allocated, its dims, strides and dtype; a host TMA descriptor by its base (as a tensor
argument), dims, strides, block shape and layout. Every problem runs twice with the launch cache on (the second call a
replay) and the two records are kept apart. The record of the launcher before the planner / executor split (issue 52,
2026-12-06) is the golden one; ``tests/test_launch_golden.py`` asserts the launcher still makes it, launch for launch.
"""

from __future__ import annotations

import argparse
import contextlib
import gzip
import json
import os
import sys

os.environ.setdefault("TRITON_INTERPRET", "1")

import torch  # noqa: E402

from sdpa_bwd.engine import launch, launch_cache  # noqa: E402
from sdpa_bwd.engine.kernels import attention_bwd_gluon, attention_bwd_gluon_192, attention_fwd_gluon  # noqa: E402

GLUON_KERNELS = ((attention_fwd_gluon, "attention_fwd_gluon_kernel"),
                 (attention_bwd_gluon, "attention_bwd_gluon_kernel"),
                 (attention_bwd_gluon_192, "attention_bwd_gluon_192_kernel"))


class _Stub:
    def __init__(self, name, log):
        self.name, self.log = name, log

    def __getitem__(self, grid):
        def run(*args, **kwargs):
            self.log.append((self.name, grid, args, kwargs))
        return run


def _describe(a, names):
    if isinstance(a, torch.Tensor):
        if id(a) in names:
            return {"tensor": names[id(a)]}
        return {"side": [list(a.shape), list(a.stride()), str(a.dtype)]}
    if hasattr(a, "block_shape") and isinstance(getattr(a, "base", None), torch.Tensor):
        return {"desc": [_describe(a.base, names), list(a.shape), list(a.strides), list(a.block_shape),
                         repr(getattr(a, "layout", None))]}
    if isinstance(a, float):
        return {"float": repr(a)}
    if isinstance(a, (bool, int, str)) or a is None:
        return a
    return {"other": repr(a)}


@contextlib.contextmanager
def stubbed(log):
    """Every kernel the launcher can launch replaced by a recording stub, in every engine module that names it."""
    saved = []
    mods = [m for n, m in list(sys.modules.items())
            if n.startswith("sdpa_bwd.engine") and not n.startswith("sdpa_bwd.engine.kernels") and m is not None]
    for mod in mods:
        for name in list(vars(mod)):
            if name.startswith("attention_") and name.endswith(("_kernel", "_kernel_any_len")):
                saved.append((mod, name, vars(mod)[name]))
                setattr(mod, name, _Stub(name, log))
    for mod, name in GLUON_KERNELS:
        saved.append((mod, name, getattr(mod, name)))
        setattr(mod, name, _Stub(name, log))
    try:
        yield
    finally:
        for mod, name, value in reversed(saved):
            setattr(mod, name, value)


def _bhsd(B, H, S, D, dtype, layout, gen):
    """(B, H, S, D) in the named storage layout: bhsd, bshd, sbhd, padded (D padded to D + 8 in storage),
    offset (one element into its storage: not 16-byte aligned)."""
    if layout == "bshd":
        return torch.randn(B, S, H, D, generator=gen).to(dtype).permute(0, 2, 1, 3)
    if layout == "sbhd":
        return torch.randn(S, B, H, D, generator=gen).to(dtype).permute(1, 2, 0, 3)
    if layout == "padded":
        return torch.randn(B, H, S, D + 8, generator=gen).to(dtype)[..., :D]
    if layout == "offset":
        return torch.randn(B * H * S * D + 1, generator=gen).to(dtype)[1:].view(B, H, S, D)
    return torch.randn(B, H, S, D, generator=gen).to(dtype)


def problems():
    """(name, problem dict): the table. Keys: B, H, H_k, H_v, S, S_kv, D, Dv, dtype, layout, mask (None, "causal",
    "causal-br", "window", "right", "band"), det, h200 (the Gluon routing as on the H200), switches, config."""
    out = []

    def add(**p):
        base = dict(B=1, H=2, H_k=None, H_v=None, S=32, S_kv=None, D=64, Dv=None, dtype="bf16", layout="bhsd",
                    mask=None, det=False, h200=False, switches={}, config=None, outs=False, gpu_forms=False)
        base.update(p)
        name = ",".join(f"{k}={v}" for k, v in sorted(p.items()))
        out.append((name, base))

    for h200 in (False, True):
        for dtype in ("fp16", "bf16", "fp32"):
            for D, Dv in ((16, 16), (32, 32), (64, 64), (80, 80), (128, 128), (192, 128), (192, 192), (256, 256),
                          (64, 32)):
                for mask in (None, "causal"):
                    add(D=D, Dv=Dv, dtype=dtype, mask=mask, h200=h200)
        for D, Dv in ((64, 64), (128, 128), (192, 128)):
            for mask in (None, "causal", "causal-br", "window", "right", "band"):
                for det in (False, True):
                    add(D=D, Dv=Dv, mask=mask, det=det, h200=h200, S=48, S_kv=32)
                    add(D=D, Dv=Dv, mask=mask, det=det, h200=h200, S=32, S_kv=48)
            for H, H_k, H_v in ((4, 2, 2), (4, 2, 1), (4, 1, 1)):
                for mask in (None, "causal"):
                    for det in (False, True):
                        add(D=D, Dv=Dv, H=H, H_k=H_k, H_v=H_v, mask=mask, det=det, h200=h200)
            for layout in ("bshd", "sbhd", "padded", "offset"):
                for mask in (None, "causal"):
                    add(D=D, Dv=Dv, layout=layout, mask=mask, h200=h200)
            for S, S_kv in ((1, 32), (32, 1), (1, 1), (30, 30), (33, 17)):
                add(D=D, Dv=Dv, S=S, S_kv=S_kv, h200=h200)
                add(D=D, Dv=Dv, S=S, S_kv=S_kv, h200=h200, mask="causal", det=True)
            add(D=D, Dv=Dv, h200=h200, outs=True)
            # the forms the launcher takes on a GPU only (the 192 / 128 pass's persistent form)
            for mask in (None, "causal"):
                for det in (False, True):
                    for H_k in (2, 1):
                        add(D=D, Dv=Dv, h200=h200, gpu_forms=True, mask=mask, det=det, H=2, H_k=H_k, H_v=H_k,
                            switches={}, S=64)
            add(D=D, Dv=Dv, h200=h200, outs=True, mask="causal", det=True)
            for cfg in ("fused", "split", "atomic", "separate"):
                add(D=D, Dv=Dv, h200=h200, config=cfg)
                add(D=D, Dv=Dv, h200=h200, config=cfg, mask="causal")
            for sw in (dict(gluon_backward=False), dict(gluon_forward=False), dict(gluon_bwd_deterministic=False),
                       dict(gluon_bwd192_det_split=False), dict(head_group=2), dict(dv_after_dp=False), dict(gluon_bwd_hd64_rows=64),
                       dict(gluon_bwd_tma_epilogue=False), dict(gluon_bwd_dq_rows=False), dict(gluon_pdl=False),
                       dict(gluon_bwd_192=()), dict(gluon_bwd_causal_head_dims=(128,)), dict(gluon_bwd_det_up=())):
                for mask in (None, "causal"):
                    for det in (False, True):
                        add(D=D, Dv=Dv, h200=h200, switches=sw, mask=mask, det=det, H=4, H_k=2, H_v=2)
    return out


_DTYPES = {"fp16": torch.float16, "bf16": torch.bfloat16, "fp32": torch.float32}
_MASKS = {None: dict(), "causal": dict(right_bound=0), "causal-br": dict(right_bound=0, alignment="bottom_right"),
          "window": dict(left_bound=8, right_bound=0), "right": dict(right_bound=5),
          "band": dict(left_bound=6, right_bound=3, alignment="bottom_right")}


def _config(name, D, Dv, dtype):
    if name is None:
        return None
    B = launch.BackwardConfig
    return {"fused": B(16, 16, 16, 16, 4, 1, "separate", fused_dq=True, dv_after_dp=True),
            "split": B(16, 16, 16, 16, 4, 1, "separate", split_dkdv=True),
            "atomic": B(16, 16, 16, 32, 4, 1, "atomic", head_group=2),
            "separate": B(16, 32, 32, 16, 4, 1, "separate", dq_num_warps=2, dq_num_stages=1)}[name]


@contextlib.contextmanager
def _gpu_forms(on):
    """The 192 / 128 pass's persistent form and its program count as on a 132-SM GPU, on CPU tensors."""
    if not on:
        yield
        return
    saved = {n: getattr(launch, n) for n in ("_bwd192_persist", "_sm_count")}
    device = torch.cuda.current_device
    launch._bwd192_persist = lambda q: True
    launch._sm_count = lambda index: 132
    torch.cuda.current_device = lambda: 0
    try:
        yield
    finally:
        torch.cuda.current_device = device
        for n, v in saved.items():
            setattr(launch, n, v)


@contextlib.contextmanager
def _routing(h200):
    if not h200:
        yield
        return
    saved = {n: getattr(launch, n) for n in ("_gluon_device_ok", "TMA_MODE", "GLUON_FORWARD", "GLUON_BACKWARD")}
    launch._gluon_device_ok = lambda q: True
    launch.TMA_MODE = "on"
    launch.GLUON_FORWARD = "auto"
    launch.GLUON_BACKWARD = "auto"
    try:
        yield
    finally:
        for n, v in saved.items():
            setattr(launch, n, v)


def record_one(p):
    gen = torch.Generator().manual_seed(0)
    dtype = _DTYPES[p["dtype"]]
    H, S = p["H"], p["S"]
    H_k, H_v = p["H_k"] or H, p["H_v"] or H
    S_kv, Dv = p["S_kv"] or S, p["Dv"] or p["D"]
    B, D, lay = p["B"], p["D"], p["layout"]
    q, k, v = _bhsd(B, H, S, D, dtype, lay, gen), _bhsd(B, H_k, S_kv, D, dtype, lay, gen), \
        _bhsd(B, H_v, S_kv, Dv, dtype, lay, gen)
    o, do = _bhsd(B, H, S, Dv, dtype, lay, gen), _bhsd(B, H, S, Dv, dtype, lay, gen)
    stats = torch.randn(B, H, S, generator=gen)
    outs = dict(dq=torch.empty_like(q), dk=torch.empty_like(k), dv=torch.empty_like(v)) if p["outs"] else {}
    fo = dict(o=torch.empty(B, H, S, Dv, dtype=dtype), stats=torch.empty(B, H, S)) if p["outs"] else {}
    mask = _MASKS[p["mask"]]
    cfg = _config(p["config"], D, Dv, dtype)
    result = {}
    log = []
    with _routing(p["h200"]), _gpu_forms(p["gpu_forms"]), launch.switches(**p["switches"]), stubbed(log):
        for attempt in ("first", "replay"):
            for direction in ("fwd", "bwd"):
                log.clear()
                try:
                    if direction == "fwd":
                        o_out, st_out = launch.attention_forward(q, k, v, **mask, **fo)
                        names = {id(q): "q", id(k): "k", id(v): "v", id(o_out): "o", id(st_out): "stats"}
                    else:
                        res = launch.attention_backward(q, k, v, o, do, stats, **mask, deterministic=p["det"],
                                                        config=cfg, **outs)
                        names = {id(q): "q", id(k): "k", id(v): "v", id(o): "o", id(do): "do", id(stats): "stats",
                                 id(res[0]): "dq", id(res[1]): "dk", id(res[2]): "dv"}
                except Exception as e:  # noqa: BLE001 - a decline is part of the record
                    result[f"{direction}-{attempt}"] = {"error": f"{type(e).__name__}: {e}"}
                    continue
                result[f"{direction}-{attempt}"] = [
                    [name, list(grid), [_describe(a, names) for a in args],
                     {kk: _describe(vv, names) for kk, vv in sorted(kwargs.items())}]
                    for name, grid, args, kwargs in log]
    for direction in ("fwd", "bwd"):  # a replay that launched what the first call did is written as such
        if result[f"{direction}-replay"] == result[f"{direction}-first"]:
            result[f"{direction}-replay"] = "same"
    return result


# The experiment forms removed on 2026-12-06 (issue 52; their figures in docs/perf-log.md): the golden record, written
# before, holds problems that turned them on and the keywords that selected them off in every launch of their kernels.
# ``golden_now`` leaves both out of it; every other problem and keyword is compared as recorded.
REMOVED_SWITCHES = ("gluon_bwd_head_loop", "gluon_bwd192_deterministic")
REMOVED_KEYWORDS = {  # kernel name -> {keyword: its recorded (off) value}
    "attention_bwd_fused_kernel": {"PDL": False}, "attention_bwd_fused_kernel_any_len": {"PDL": False},
    "attention_bwd_gluon_192_kernel": {"PAIR": False, "SHARE_DS": False, "FUSED_DQ": 0, "DET": False},
}


def golden_now(gold: dict) -> dict:
    """The golden record less what the removed forms alone made (``REMOVED_SWITCHES``, ``REMOVED_KEYWORDS``); a
    removed keyword recorded at another value than its off one is kept, so that the comparison fails."""
    def launch_(entry):
        name, grid, args, kwargs = entry
        off = REMOVED_KEYWORDS.get(name, {})
        return [name, grid, args, {k: v for k, v in kwargs.items() if not (k in off and off[k] == v)}]

    out = {}
    for name, rec in gold.items():
        if any(f"'{s}'" in name.partition("switches=")[2] for s in REMOVED_SWITCHES):
            continue
        out[name] = {part: [launch_(e) for e in r] if isinstance(r, list) else r for part, r in rec.items()}
    return out


def record_all():
    launch_cache.clear()
    return {name: record_one(p) for name, p in problems()}


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--write")
    ap.add_argument("--check")
    args = ap.parse_args(argv)
    rec = record_all()
    if args.write:
        with gzip.open(args.write, "wt") as f:
            json.dump(rec, f, sort_keys=True, separators=(",", ":"))
        print(f"{len(rec)} problems, {sum(len(x) for r in rec.values() for x in r.values())} entries -> {args.write}")
    if args.check:
        with gzip.open(args.check, "rt") as f:
            gold = golden_now(json.load(f))
        rec = json.loads(json.dumps(rec))
        bad = [n for n in gold if gold[n] != rec.get(n)] + [n for n in rec if n not in gold]
        print(f"{len(bad)} of {len(gold)} problems differ" + "".join(f"\n  {n}" for n in bad[:20]))
        return 1 if bad else 0
    return 0


if __name__ == "__main__":
    sys.exit(main())
