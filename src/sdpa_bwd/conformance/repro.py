"""``sdpa-bwd repro CASE --engine NAME``: a standalone Python file that reproduces one case's failure.

The file builds the case's tensors as the harness does (one flat buffer per allocation, filled with
NaN so that unwritten outputs show, each tensor a strided view at its dims, strides and storage
offset; Q, K, V, dO from the case's values; O and stats from a float64 forward), calls the engine the
way its adapter does, compares dQ, dK, dV (and O, where the adapter's call makes its own: the torch-*
adapters; and the stats the operator adapters' forward makes) with an inline float64 reference, which holds
``REF_BLOCK`` score elements at a time, and prints, per tensor, the max error and the bound used.
Exit status: 0 when the case passes, 1 when it fails, 2 when the engine declines it.

Values: the inputs Q, K, V, dO are embedded (base64 of float32, the harness's draws) when they take
under ``EMBED_LIMIT`` bytes together; otherwise the file draws them with ``torch.Generator`` from the
case's seed in the harness's order (on the CPU the same values; a CUDA generator gives others, which
reproduces a failure of the engine, not the harness's bits).

Bounds: the harness's own tolerance for each gradient (k x the same-dtype reference's error + a
rounding floor, ``conformance.compare``), computed on the CPU when the file is written, where the
case fits ``BOUND_LIMIT`` bytes; otherwise a rounding floor of the dtype, said in the file.

Engines: the ``torch-math``, ``torch-flash``, ``torch-efficient`` and ``torch-cudnn`` adapters are
written out (``scaled_dot_product_attention`` under ``sdpa_kernel`` and ``torch.autograd.grad``, as
``backends/torch_sdpa.py`` calls it), and so are the operator-level ``torch-cudnn-op``, ``torch-flash-op``
and ``torch-efficient-op`` (the backend's forward operator for its logsumexp container, the caller's stats
written into it, then its backward operator on the caller's Q, K, V, O, dO, as ``backends/torch_cuda_ops.py``
calls them; a CPU test holds the two to the same calls): the file needs PyTorch only. Any other engine
(``triton``, ``triton-api``, ``triton-defect:<class>``, third-party) is called through ``sdpa_bwd`` (the file
imports it and says so).

Varlen probes (malformed cumulative offsets that an engine must refuse): the file hands the offsets to the engine
as its adapter does (``torch-flash-varlen`` written out: FlashAttention-2's varlen forward operator, PyTorch only;
others through ``sdpa_bwd``'s ``ragged_offset_reasons``) and exits 1 when the engine takes them, 0 when it refuses
them (2 without the CUDA device it needs). Other varlen cases have no standalone file yet: the command says how to rerun them.

Order: the cases that run before the failing one in the same process are run first in the file (not
judged, reported): those a run report names (``--report``: the cases an ``order-dependent`` result's
worker ran right before it, ``ran_before``), those given with ``--after``, or else the plan's neighbours of the same sizes
right before the case (``schedule.keep_together``; ``--alone`` drops them).
"""

from __future__ import annotations

import base64
import math
import pprint
from pathlib import Path
from typing import Optional, Sequence

import torch

from ..problem.cases import Case
from ..problem import TENSORS

EMBED_LIMIT = 1 << 20          # bytes of embedded float32 inputs, all four together
BOUND_LIMIT = 256 << 20        # a case the harness's bounds are computed for on the CPU when writing
SDPA_BACKENDS = {"torch-math": "MATH", "torch-flash": "FLASH_ATTENTION", "torch-efficient": "EFFICIENT_ATTENTION",
                 "torch-cudnn": "CUDNN_ATTENTION"}
SDPA_OPS = {"torch-cudnn-op": "cudnn", "torch-flash-op": "flash", "torch-efficient-op": "efficient"}


# ----------------------------------------------------------------------------
# What the file embeds


def _inputs(case: Case) -> dict[str, torch.Tensor]:
    """Q, K, V, dO as the harness draws them on the CPU (float32, before rounding to the dtype)."""
    specs = case.to_problem().tensors()
    gen = torch.Generator(device="cpu").manual_seed(int(case.seed))
    return {n: torch.randn(specs[n].dims, generator=gen, dtype=torch.float32) for n in ("q", "k", "v", "do")}


def _bounds(case: Case) -> Optional[dict[str, float]]:
    """The harness's tolerance per gradient (from a reference-engine run on the CPU), or None when the
    case is too large to judge here."""
    from .plan.cost import case_cost
    from ..backends.reference import ReferenceEngine
    from .judge import run_case

    if case_cost(case).bytes > BOUND_LIMIT:
        return None
    r = run_case(ReferenceEngine(), case, reruns=1)
    if not r.checks:
        return None
    return {n: float(r.checks[n].tolerance) for n in ("dq", "dk", "dv", "o", "stats") if n in r.checks}


def case_record(case: Case, *, judged: bool) -> dict:
    p = case.to_problem()
    specs = p.tensors()
    rec = {"id": case.id, "case": case.to_dict(), "dtype": case.dtype, "seed": int(case.seed),
           "scale": p.effective_scale, "left_bound": p.left_bound, "right_bound": p.right_bound,
           "alignment": p.alignment, "deterministic": p.deterministic,
           "tensors": {n: {"dims": list(s.dims), "strides": list(s.strides), "offset": s.offset, "dtype": s.dtype,
                           "buffer": s.buffer or n} for n, s in specs.items()},
           "inputs": None, "bounds": None}
    if 4 * sum(math.prod(specs[n].dims) for n in ("q", "k", "v", "do")) <= EMBED_LIMIT:
        rec["inputs"] = {n: base64.b64encode(x.contiguous().numpy().tobytes()).decode()
                         for n, x in _inputs(case).items()}
    if judged:
        rec["bounds"] = _bounds(case)
    return rec


# ----------------------------------------------------------------------------
# The file


_HEADER = '''#!/usr/bin/env python3
"""Standalone reproduction of {case_id!r}
on engine {engine!r}, written by `sdpa-bwd repro`.

{needs}
Builds the case's tensors (dims, strides, storage offsets, dtype, values) as the harness did;
runs{sequence}; calls the engine's backward, compares dQ, dK, dV (and O and the stats, where the engine's
call makes its own) with the float64 reference below and prints the max error of each against the bound used.
Exit status: 0 the case passes, 1 it fails, 2 the engine declines it.
Run: python {filename} [--device cpu|cuda] [--repeat N]{repeat_note}
"""
'''

_RUN_SDPA = r'''
SDPA_BACKEND = @SDPA@   # the torch.nn.attention.SDPBackend member the adapter pins


def run_engine(c, views):
    """The engine's backward into the dQ, dK, dV views; None, or the reasons it declines."""
    # As sdpa_bwd's torch-* adapters call it: the caller's strided Q, K, V, dO, the backend pinned.
    import torch.nn.functional as F
    from torch.nn.attention import SDPBackend, sdpa_kernel

    q, k, v = (views[n].detach().requires_grad_() for n in ("q", "k", "v"))
    S_q, S_kv = q.shape[2], k.shape[2]
    masked = c["left_bound"] is not None or c["right_bound"] is not None
    causal = (c["left_bound"] is None and c["right_bound"] == 0
              and (c["alignment"] == "top_left" or S_q == S_kv))
    kwargs = dict(attn_mask=band_keep(S_q, S_kv, c["left_bound"], c["right_bound"], c["alignment"], q.device)
                  if masked and not causal else None, is_causal=causal, scale=c["scale"])
    if k.shape[1] != q.shape[1]:
        kwargs["enable_gqa"] = True
    with sdpa_kernel([getattr(SDPBackend, SDPA_BACKEND)]):
        out = F.scaled_dot_product_attention(q, k, v, **kwargs)
        FORWARD["o"] = out.detach()  # the backend's own O, judged beside the gradients
        grads = torch.autograd.grad(out, (q, k, v), views["do"])
    for n, g in zip(("dq", "dk", "dv"), grads):
        views[n].copy_(g)
    return None


'''

_RUN_OP = r'''
OP = @OP@   # which of PyTorch's attention operators: _scaled_dot_product_{OP}_attention[_backward]


def run_engine(c, views):
    """The engine's backward into the dQ, dK, dV views; None, or the reasons it declines."""
    # As sdpa_bwd's torch-*-op adapters call it: the backend's forward operator on the caller's Q, K, V
    # gives the logsumexp container its backward reads (and the extra outputs it takes: with dropout 0
    # they carry no data); the caller's stats go into it (rows without keys keep the backend's value);
    # then the backward operator on the caller's strided Q, K, V, O, dO.
    aten = torch.ops.aten
    q, k, v, o, do = (views[n] for n in ("q", "k", "v", "o", "do"))
    B, H, S_q, S_kv = q.shape[0], q.shape[1], q.shape[2], k.shape[2]
    masked = c["left_bound"] is not None or c["right_bound"] is not None
    causal = (c["left_bound"] is None and c["right_bound"] == 0
              and (c["alignment"] == "top_left" or S_q == S_kv))
    bias = None
    if masked and not causal:  # the band as the additive mask PyTorch's front door hands this operator
        keep = band_keep(S_q, S_kv, c["left_bound"], c["right_bound"], c["alignment"], q.device)
        fill = -65504.0 if OP == "cudnn" else float("-inf")  # cuDNN: the front door's finite fill
        align = 16 if OP == "efficient" else 1               # efficient: rows padded, then sliced
        row = -(-S_kv // align) * align
        bias = torch.zeros(S_q, row, dtype=q.dtype, device=q.device)[:, :S_kv].masked_fill_(~keep, fill)
        if OP == "efficient":
            bias = bias.expand(B, H, S_q, S_kv)
    scale = c["scale"]
    if OP == "cudnn":
        out, lse, cum_q, cum_k, max_q, max_k, seed, offset, _ = aten._scaled_dot_product_cudnn_attention(
            q, k, v, bias, True, 0.0, causal, False, scale=scale)
    elif OP == "flash":
        out, lse, cum_q, cum_k, max_q, max_k, seed, offset, _ = aten._scaled_dot_product_flash_attention(
            q, k, v, 0.0, causal, False, scale=scale)
    else:
        out, lse, seed, offset = aten._scaled_dot_product_efficient_attention(
            q, k, v, bias, True, 0.0, causal, scale=scale)
    FORWARD["o"] = out  # the forward operator's own O, judged beside the gradients
    rows = (lse.select(-1, 0) if lse.dim() == 4 else lse)[..., :S_q]
    FORWARD["stats"] = rows.clone()  # and its own stats (the adapter's forward writes them), before ours go in
    ours = views["stats"].select(-1, 0) if views["stats"].dim() == 4 else views["stats"]
    rows.copy_(torch.where(torch.isneginf(ours), rows, ours))
    if OP == "cudnn":
        grads = aten._scaled_dot_product_cudnn_attention_backward(
            do, q, k, v, o, lse, seed, offset, bias, cum_q, cum_k, max_q, max_k, 0.0, causal, scale=scale)
    elif OP == "flash":
        grads = aten._scaled_dot_product_flash_attention_backward(
            do, q, k, v, o, lse, cum_q, cum_k, max_q, max_k, 0.0, causal, seed, offset, scale=scale)
    else:
        grads = aten._scaled_dot_product_efficient_attention_backward(
            do, q, k, v, bias, o, lse, seed, offset, 0.0, [True, True, True, False], causal, scale=scale)
    for n, g in zip(("dq", "dk", "dv"), grads[:3]):
        views[n].copy_(g)
    return None


'''

_RUN_SDPA_BWD = r'''
def run_engine(c, views):
    """The engine's backward into the dQ, dK, dV views; None, or the reasons it declines."""
    # Through sdpa_bwd: this engine has no PyTorch-only form. Without CUDA, Triton's kernels run
    # under its interpreter, which must be switched on before triton is first imported.
    import os
    if not torch.cuda.is_available():
        os.environ.setdefault("TRITON_INTERPRET", "1")
    from sdpa_bwd.backends import get_engine
    from sdpa_bwd.backends.base import Tensors
    from sdpa_bwd.problem.cases import Case

    if ENGINE.startswith("triton-defect:"):
        from sdpa_bwd.conformance.defects import register_defects
        register_defects()
    else:  # engines in files named by SDPA_BWD_ENGINE_IMPORTS, loaded as the runner's workers load them
        from sdpa_bwd.conformance.worker import import_engine_modules
        import_engine_modules()
    engine = get_engine(ENGINE)
    problem = Case.from_dict(c["case"]).to_problem()
    reasons = engine.not_supported_reasons(problem)
    if reasons:
        return reasons
    engine.backward(problem, Tensors(**{n: views[n] for n in NAMES}))
    return None


'''

_BODY = r'''
import argparse
import base64
import math
import sys

import torch

ENGINE = @ENGINE@
DTYPES = {"float16": torch.float16, "bfloat16": torch.bfloat16, "float32": torch.float32}
NAMES = ("q", "k", "v", "o", "do", "stats", "dq", "dk", "dv")
FORWARD = {}  # the engine's own forward outputs where its call makes them (O), judged beside the gradients
REFERENCES = {}  # the judged case's float64 reference (O, stats, gradients): its inputs are the same every run


def judged_reference(c, views):
    """The float64 reference of the judged (last) case, computed once for every run of it (--repeat); the cases
    before it get theirs afresh, so no reference of theirs stays in memory beside the next case."""
    if c["id"] not in REFERENCES:
        REFERENCES[c["id"]] = reference(c, views["q"], views["k"], views["v"], views["do"])
    return REFERENCES[c["id"]]


def element_index(dims, strides, offset, device):
    """Flat storage index of each logical element, shaped dims."""
    idx = torch.full((), int(offset), dtype=torch.int64, device=device)
    for d, s in zip(dims, strides):
        idx = idx[..., None] + torch.arange(int(d), dtype=torch.int64, device=device) * int(s)
    return idx


def band_keep(S_q, S_kv, left, right, alignment, device, rows=None):
    """cuDNN's band semantics: query i keeps key j where 1 - left <= j - i - shift <= right (the query rows
    in range(*rows) only, where given)."""
    shift = S_kv - S_q if alignment == "bottom_right" else 0
    first, last = rows if rows is not None else (0, S_q)
    i = torch.arange(first, last, device=device)[:, None]
    j = torch.arange(S_kv, device=device)[None, :]
    keep = torch.ones(last - first, S_kv, dtype=torch.bool, device=device)
    if left is not None:
        keep &= (j - i) >= 1 - left + shift
    if right is not None:
        keep &= (j - i) <= right + shift
    return keep


def expand_heads(t, H_q):
    return t.repeat_interleave(H_q // t.shape[1], dim=1)


def reduce_heads(t, H):
    B, H_q, S, D = t.shape
    return t.reshape(B, H, H_q // H, S, D).sum(dim=2)


# Score elements the reference holds at once (float64: 512 MiB a block): it walks the query rows in blocks
# of that size, so a long case's reference fits beside the case (S 32768 x 32 heads whole: 256 GiB).
REF_BLOCK = 1 << 26


def reference(c, q, k, v, do):
    """float64: O, stats (natural-log LSE, -inf for a row without keys), dQ, dK, dV."""
    q, k, v, do = (x.double() for x in (q, k, v, do))
    B, H_q, S_q, S_kv = q.shape[0], q.shape[1], q.shape[2], k.shape[2]
    kk, vv = expand_heads(k, H_q), expand_heads(v, H_q)
    o = q.new_empty(B, H_q, S_q, vv.shape[-1])
    lse = q.new_empty(B, H_q, S_q)
    dq, dkk, dvv = torch.empty_like(q), torch.zeros_like(kk), torch.zeros_like(vv)
    step = max(1, REF_BLOCK // max(1, B * H_q * S_kv))
    for first in range(0, S_q, step):
        rows = slice(first, min(S_q, first + step))
        keep = band_keep(S_q, S_kv, c["left_bound"], c["right_bound"], c["alignment"], q.device,
                         rows=(rows.start, rows.stop))
        s = (q[:, :, rows] @ kk.transpose(-1, -2)) * c["scale"]
        s = s.masked_fill(~keep, float("-inf"))
        lse[:, :, rows] = torch.logsumexp(s, dim=-1)
        p = torch.exp(s - lse[:, :, rows].masked_fill(torch.isinf(lse[:, :, rows]), 0.0)[..., None])
        p = p.masked_fill(~keep, 0.0)
        o[:, :, rows] = p @ vv
        dp = do[:, :, rows] @ vv.transpose(-1, -2)
        ds = p * (dp - (p * dp).sum(-1, keepdim=True))
        dq[:, :, rows] = ds @ kk * c["scale"]
        dkk += ds.transpose(-1, -2) @ q[:, :, rows] * c["scale"]
        dvv += p.transpose(-1, -2) @ do[:, :, rows]
    return o, lse, {"dq": dq, "dk": reduce_heads(dkk, k.shape[1]), "dv": reduce_heads(dvv, v.shape[1])}


def build(c, device):
    """One NaN-filled flat buffer per allocation, each tensor a strided view into it; inputs written."""
    specs = c["tensors"]
    sizes = {}
    for n in NAMES:
        sp = specs[n]
        span = sum((d - 1) * st for d, st in zip(sp["dims"], sp["strides"])) + 1
        sizes[sp["buffer"]] = max(sizes.get(sp["buffer"], 0), sp["offset"] + span)
    flats = {b: torch.full((size,), float("nan"), dtype=DTYPES[next(specs[n]["dtype"] for n in NAMES
                                                                   if specs[n]["buffer"] == b)], device=device)
             for b, size in sizes.items()}
    views = {n: flats[specs[n]["buffer"]].as_strided(specs[n]["dims"], specs[n]["strides"], specs[n]["offset"])
             for n in NAMES}

    def write(n, values):
        sp = specs[n]
        idx = element_index(sp["dims"], sp["strides"], sp["offset"], device).reshape(-1)
        flats[sp["buffer"]][idx] = values.reshape(-1).to(device=device, dtype=flats[sp["buffer"]].dtype)

    if c["inputs"] is not None:   # the harness's own draws, embedded
        for n in ("q", "k", "v", "do"):
            raw = base64.b64decode(c["inputs"][n])
            write(n, torch.frombuffer(bytearray(raw), dtype=torch.float32).reshape(specs[n]["dims"]))
    else:                         # drawn as the harness draws them (same values on the CPU)
        gen = torch.Generator(device=device).manual_seed(c["seed"])
        for n in ("q", "k", "v", "do"):
            write(n, torch.randn(specs[n]["dims"], generator=gen, dtype=torch.float32, device=device))
    o, lse, _ = (judged_reference(c, views) if c is CASES[-1]
                 else reference(c, views["q"], views["k"], views["v"], views["do"]))
    write("o", o)
    write("stats", lse.reshape(specs["stats"]["dims"]))
    return flats, views


def outside_writes(c, flats, device):
    """Per buffer holding an output: elements outside every tensor of it that lost their NaN."""
    out = {}
    for b, flat in flats.items():
        members = [n for n in NAMES if c["tensors"][n]["buffer"] == b]
        if not any(n in ("dq", "dk", "dv") for n in members):
            continue
        inside = torch.zeros(flat.numel(), dtype=torch.bool, device=device)
        for n in members:
            sp = c["tensors"][n]
            inside[element_index(sp["dims"], sp["strides"], sp["offset"], device).reshape(-1)] = True
        lost = int((~torch.isnan(flat) & ~inside).sum())
        if lost:
            out[b] = lost
    return out


@RUN_ENGINE@def check(c, views, flats, device):
    """Max error per gradient (and of O and the stats where the engine's call made them) against the float64
    reference and the bound used; True when all pass."""
    o, lse, want = judged_reference(c, views)
    want = dict(want, o=o, stats=lse)
    ok = True
    for n in ("dq", "dk", "dv") + tuple(FORWARD):
        got = (FORWARD[n] if n in FORWARD else views[n]).double()
        # equal infinities (the -inf stats of a row without keys) are no error
        err = torch.where(got == want[n], 0.0, (got - want[n]).abs())
        worst = float(err.nan_to_num(float("inf")).max()) if err.numel() else 0.0
        if c["bounds"] is not None and n in c["bounds"]:
            bound, how = c["bounds"][n], "the harness's tolerance (k x same-dtype reference error + floor)"
        else:
            dtype = "float32" if n == "stats" else c["dtype"]
            eps = {"float16": 2.0 ** -10, "bfloat16": 2.0 ** -7, "float32": 2.0 ** -23}[dtype]
            reduction = max(views["q"].shape[2], views["k"].shape[2])
            size = float(want[n].abs().nan_to_num(0.0, posinf=0.0).max()) if want[n].numel() else 0.0
            bound = 8 * eps * size * math.sqrt(reduction)
            how = "8 ulps x max|ref| x sqrt(S) (the harness's tolerance was not computed: case too large)"
        nan = int(torch.isnan(got).sum())
        bad = int((err.nan_to_num(float("inf")) > bound).sum())
        fine = worst <= bound
        ok &= fine
        print(f"  {n}: max error {worst:.3e} against bound {bound:.3e} [{how}]: "
              f"{'ok' if fine else 'FAILS'} ({bad} of {err.numel()} elements over, {nan} NaN: unwritten or NaN read)")
    stray = outside_writes(c, flats, device)
    if stray:
        ok = False
        print(f"  writes outside the tensors (elements of the allocation no tensor holds): {stray}: FAILS")
    return ok


# The cases, in the order they run (the failing one last): the harness's description, each tensor's
# dims, strides, offset, dtype and allocation, the inputs (base64 float32, or None: drawn from the
# seed) and, for the last, the bound per gradient (None: a rounding floor, see check()).
CASES = @CASES@
REPEAT = @REPEAT@
REPEAT_WHY = @REPEAT_WHY@


def run_once(device):
    """Every case in order, in this process; 0 the last passes, 1 it fails, 2 the engine declines it."""
    for i, c in enumerate(CASES):
        last = i == len(CASES) - 1
        print(("case " if last else "run before it, same process: ") + c["id"])
        flats, views = build(c, device)
        FORWARD.clear()
        reasons = run_engine(c, views)
        if reasons:
            print("  the engine declines it: " + "; ".join(reasons))
            if last:
                return 2
            continue
        if last:
            return 0 if check(c, views, flats, device) else 1
    return 0


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--device", default="cuda" if torch.cuda.is_available() else "cpu")
    ap.add_argument("--repeat", type=int, default=REPEAT,
                    help=f"run the sequence up to this many times, fresh tensors each, stopping at the first "
                         f"failure (default {REPEAT}: {REPEAT_WHY})")
    args = ap.parse_args()
    last = CASES[-1]["id"]
    for attempt in range(1, max(1, args.repeat) + 1):
        if args.repeat > 1:
            print(f"attempt {attempt} of {args.repeat}")
        status = run_once(args.device)
        if status:
            break
    if status == 0:
        print(f"{ENGINE} on {last}: passes" + (f" ({args.repeat} attempts)" if args.repeat > 1 else ""))
    elif status == 1:
        print(f"{ENGINE} on {last}: FAILS" + (f" at attempt {attempt} of {args.repeat}" if args.repeat > 1 else "")
              + ": a gradient or O is off by more than its bound (see above); diagnose with "
              f"`sdpa-bwd diagnose {last} --engine {ENGINE}`")
    return status


if __name__ == "__main__":
    sys.exit(main())
'''


def render(engine: str, case: Case, before: Sequence[Case] = (), filename: str = "repro.py", repeat: int = 1,
           repeat_why: str = "one run") -> str:
    """The standalone file's text for ``case`` on ``engine``, with ``before`` run first; the sequence runs up to
    ``repeat`` times by default (the file's ``--repeat``), stopping at the first failure."""
    sdpa, op = SDPA_BACKENDS.get(engine), SDPA_OPS.get(engine)
    needs = ("Needs PyTorch only." if sdpa or op else
             f"Imports sdpa_bwd: {engine!r} has no PyTorch-only form here\n(install the project, "
             "e.g. `pip install -e .`)." + ("\nThe seeded defects are test-only variants of our engine."
                                             if engine.startswith("triton-defect:") else ""))
    sequence = ("\n    " + "\n    ".join(c.id for c in before) + "\nfirst (the cases run before it in the same "
                "process: an order-dependent failure shows only after them),\nthen the case" if before
                else " the case alone")
    records = [case_record(c, judged=False) for c in before] + [case_record(case, judged=True)]
    # Python literals (pprint splits the long base64 strings into adjacent pieces); placeholders, not
    # str.format, so that the body's own braces stay as they are.
    run = _RUN_SDPA if sdpa else _RUN_OP if op else _RUN_SDPA_BWD
    body = (_BODY.replace("@RUN_ENGINE@", run)
            .replace("@ENGINE@", repr(engine)).replace("@SDPA@", repr(sdpa)).replace("@OP@", repr(op))
            .replace("@CASES@", pprint.pformat(records, width=110, sort_dicts=False)))
    body = body.replace("@REPEAT@", str(int(repeat))).replace("@REPEAT_WHY@", repr(repeat_why))
    note = f"\nBy default the sequence runs up to {repeat} times ({repeat_why})." if repeat > 1 else ""
    return _HEADER.format(case_id=case.id, engine=engine, needs=needs, sequence=sequence, filename=filename,
                          repeat_note=note) + body


# ----------------------------------------------------------------------------
# Varlen probes: offsets an engine must refuse


_PROBE = r'''#!/usr/bin/env python3
"""Standalone reproduction of the varlen probe @ID@
on engine @ENGINE@, written by `sdpa-bwd repro`.

@NEEDS@
Hands the engine cumulative offsets that break a rule (@RULE@) over tensors of
@TOKENS@ tokens, as its adapter does; an engine must refuse them before it reads or writes by them.
Exit status: 0 the engine refuses them, 1 it takes them, 2 it cannot run here.
Run: python @FILENAME@
"""
import sys

import torch

ENGINE = @ENGINE@
NEEDS_CUDA = @NEEDS_CUDA@
CU_SEQLENS_Q = @CU_Q@
CU_SEQLENS_KV = @CU_KV@
TOTAL_TOKENS = @TOKENS@

@CALL@

def main():
    print(f"cu_seqlens_q = {CU_SEQLENS_Q}, cu_seqlens_kv = {CU_SEQLENS_KV}, tokens {TOTAL_TOKENS}: @RULE@")
    if NEEDS_CUDA and not torch.cuda.is_available():
        print(f"{ENGINE} runs on CUDA only: run this file on a machine with a CUDA device")
        return 2
    refusal = refuses()
    if refusal:
        print(f"{ENGINE} refuses them: {refusal}")
        return 0
    print(f"{ENGINE} TAKES them: it ran without a word on offsets that @RULE_VERB@ - it must check cu_seqlens "
          "before it reads or writes by them")
    return 1


if __name__ == "__main__":
    sys.exit(main())
'''

def _probe_flash_varlen() -> str:
    """The adapter's own offset check (``torch_flash_varlen.offsets_refusal``, PyTorch only), as the file's."""
    import inspect

    from ..backends import torch_flash_varlen

    return (inspect.getsource(torch_flash_varlen.offsets_refusal) + "\n\ndef refuses():\n"
            "    return offsets_refusal(CU_SEQLENS_Q, CU_SEQLENS_KV, TOTAL_TOKENS)\n")


_PROBE_SDPA_BWD = r'''
def refuses():
    """The engine's own offset check, through sdpa_bwd (this engine has no PyTorch-only form here)."""
    import os
    if not torch.cuda.is_available():
        os.environ.setdefault("TRITON_INTERPRET", "1")
    from sdpa_bwd.backends import get_engine

    reasons = get_engine(ENGINE).ragged_offset_reasons(CU_SEQLENS_Q, CU_SEQLENS_KV, TOTAL_TOKENS)
    return "; ".join(reasons) if reasons else None
'''


def render_probe(engine: str, case, filename: str = "repro.py") -> str:
    """The standalone file for a varlen probe ``case`` (``plan.ragged.RaggedCase`` with raw offsets)."""
    flash = engine == "torch-flash-varlen"
    needs = ("Needs PyTorch only (and a CUDA device)." if flash else
             f"Imports sdpa_bwd: {engine!r} has no PyTorch-only form here (install the project).")
    rule = case.expected_rejection or "malformed offsets"
    return (_PROBE.replace("@CALL@", (_probe_flash_varlen() if flash else _PROBE_SDPA_BWD).strip("\n") + "\n")
            .replace("@ID@", repr(case.id)).replace("@ENGINE@", repr(engine)).replace("@NEEDS@", needs)
            .replace("@NEEDS_CUDA@", repr(flash))
            .replace("@RULE_VERB@", f"break a rule ({rule})").replace("@RULE@", rule)
            .replace("@CU_Q@", repr(list(case.cu_seqlens_q))).replace("@CU_KV@", repr(list(case.cu_seqlens_kv)))
            .replace("@TOKENS@", str(int(case.total_tokens or 0))).replace("@FILENAME@", filename))


# ----------------------------------------------------------------------------
# Which cases run before it


def neighbours_before(case: Case, pool: Sequence[Case]) -> list[Case]:
    """The plan's cases right before ``case`` that the runner keeps in its chunk (same sizes, or an
    order probe's group): what ran before it in the same worker process."""
    from .schedule import keep_together

    ids = [c.id for c in pool]
    if case.id not in ids:
        return []
    i = ids.index(case.id)
    start = i
    while start > 0 and keep_together(pool[start - 1], pool[start]):
        start -= 1
    return list(pool[start:i])


def ran_before(results: Sequence[dict], r: dict, find) -> list[Case]:
    """The cases ``r``'s worker ran right before it (a run report's ``results``, by their ``worker`` and
    ``started``), oldest first, back as far as the runner keeps cases together with it (``schedule.keep_together``)
    and no further than a ``fault`` (that process ended there); ``find`` turns a case id into its case. State an
    engine keeps may build up over several calls: on an H100 (2026-12-07h) cuDNN's backward operator failed the
    2^31-element dQ batch-stride case after six such cases in one worker, and a file running only the one case
    before it passed three runs. Without the worker's record, the report's ``previous_case`` alone."""
    from .schedule import keep_together

    prev = r.get("previous_case")
    mine = sorted((x for x in results if x.get("engine") == r.get("engine") and x.get("worker") is not None
                   and x.get("worker") == r.get("worker") and x.get("started") is not None),
                  key=lambda x: x["started"])
    ids = [x["case"] for x in mine]
    i = ids.index(r["case"]) if r["case"] in ids else 0
    if not prev or i == 0 or ids[i - 1] != prev:
        return [find(prev)] if prev else []
    chain = [find(r["case"])]
    for x in reversed(mine[:i]):
        c = find(x["case"])
        if x.get("verdict") == "fault" or not keep_together(c, chain[0]):
            break
        chain.insert(0, c)
    return chain[:-1] or [find(prev)]


def _before_from_report(path: str, engine: str, case_id: str, find) -> list[Case]:
    from .report import load_report

    results = load_report(path).get("results", [])
    for r in results:
        if r.get("case") == case_id and r.get("engine") == engine:
            return ran_before(results, r, find) if r.get("verdict") == "order-dependent" else []
    raise SystemExit(f"sdpa-bwd repro: {path} has no result of {case_id} on {engine}: "
                     "give the report of a run of that engine, or leave --report out")


def cmd_repro(args) -> int:
    from ..backends import require_engines
    from .diagnose.command import find_case

    require_engines([args.engine], "repro")
    case = find_case(args.case_id, cases_path=args.cases, level=args.level)
    out = Path(args.output or f"repro-{case.id}-{args.engine.replace(':', '-')}.py")
    if getattr(case, "ragged", False):
        if case.purpose != "probe":
            raise SystemExit(f"sdpa-bwd repro: {case.id} is a varlen case; only varlen probes get a standalone file "
                             f"yet - rerun it with: {case.repro(args.engine)}")
        out.write_text(render_probe(args.engine, case, filename=out.name), encoding="utf-8")
        print(f"wrote {out} ({case.id} on {args.engine}): python {out}")
        return 0

    def pool() -> list[Case]:
        from .plan import load_level
        from ..problem.cases import load_cases

        if args.cases:
            return load_cases(args.cases)
        return list(load_level(args.level or case.level or "quick")) if (args.level or case.level) else []

    if args.report:
        before = _before_from_report(args.report, args.engine, case.id,
                                     lambda i: find_case(i, cases_path=args.cases, level=args.level))
    elif args.after:
        before = [find_case(i, cases_path=args.cases, level=args.level) for i in args.after]
    elif args.alone:
        before = []
    else:
        before = neighbours_before(case, pool())
    repeat, why = (args.repeat, "--repeat given to sdpa-bwd repro") if args.repeat else (1, "one run")
    out.write_text(render(args.engine, case, before, filename=out.name, repeat=repeat, repeat_why=why),
                   encoding="utf-8")
    print(f"wrote {out} ({case.id} on {args.engine}"
          + (f", after {', '.join(c.id for c in before)}" if before else ", alone") + f"): python {out}")
    return 0


def add_commands(subparsers) -> None:
    from . import defects

    if defects.switch_on():
        defects.register_defects()
    p = subparsers.add_parser("repro", help="write a standalone Python file reproducing one case on one engine")
    p.add_argument("case_id", help="the case's id")
    p.add_argument("--engine", required=True, help="engine name (torch-* adapters, the -op ones too: PyTorch only; others import sdpa_bwd)")
    p.add_argument("--level", help="a level of the generated plan holding the case (its neighbours run first)")
    p.add_argument("--cases", help="JSON file of cases holding the case")
    p.add_argument("--report", help="a run report: an order-dependent result's worker's cases before it run first "
                                    "(those the runner kept together with it: ran_before)")
    p.add_argument("--after", action="append", metavar="CASE", help="run this case first (repeatable, in order)")
    p.add_argument("--alone", action="store_true", help="run the case alone, not after its plan neighbours")
    p.add_argument("--repeat", type=int, help="the file runs its sequence up to N times by default, stopping at "
                                              "the first failure (for a race or state that builds up)")
    p.add_argument("-o", "--output", help="the file to write (default repro-CASE-ENGINE.py)")
    p.set_defaults(func=cmd_repro)
