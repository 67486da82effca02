"""Where the 128-key 192 / 128 kernel's time goes (stop 41): timing probes, wrong results by design, on the H200:

    PYTHONPATH=src python3 tools/k128_probes.py --out $OUT

Stop 41's first 128-key build (``kernels/attention_bwd_gluon_192_k128.py``) is right but 25% slower than the
64-key persistent kernel (0.697 against 0.557 ms at (1,16,4096) causal bf16). Each probe here is the module's source
with one change (``PROBES``), loaded as a module of its own and swapped in for the launcher's
(``launch.attention_bwd_gluon_192_k128``); the pass kernel's time is the mean of 20 calls (torch.profiler), beside the
unchanged build's and the launcher's default (the 64-key persistent form), each variant in a process of its own under
``--timeout``. One JSON in ``--out``.
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import os
import subprocess
import sys

# the tile's dQ products, its dS hand-backs and staging reduces, as the module has them: from the first line to (not
# including) the loop's end, the wait for the last products
_DQ_BLOCK = ("            dq_tok = _dq_chunk(CID, ds_smem, k_smem)\n",
             "        dk0, dk1, dk2, dv = warpgroup_mma_wait(0, deps=(dk0, dk1, dk2, dv))\n")
# dK's products alone where the block was, and the other's dS tile handed back after them
_DK_ONLY = (
    "            dk0 = warpgroup_mma(ds_smem.index(CID).permute((1, 0)), qa, dk0, is_async=True)\n"
    "            dk1 = warpgroup_mma(ds_smem.index(CID).permute((1, 0)), qb, dk1, is_async=True)\n"
    "            dk2 = warpgroup_mma(ds_smem.index(CID).permute((1, 0)), qc, dk2, is_async=True)\n"
    "            dk0, dk1, dk2, dv = warpgroup_mma_wait(0, deps=(dk0, dk1, dk2, dv))\n"
    "            mbarrier.arrive(ds_free.index(1 - CID), count=1)\n")
_WAIT_OTHER = "            mbarrier.wait(ds_full.index(1 - CID), t & 1)\n"
# the wait for the other's dQ products to be done with this consumer's last dS: left out with the wait for the other's
# dS, since alone it lets one consumer run two hand-backs ahead, where a parity wait never returns (stop 42 run 1:
# the first build of this probe, which dropped only the dS wait, hung the GPU until the call's time ran out)
_WAIT_FREE = ("            if t > 0:  # the other consumer's dQ products are done with the last tile's dS\n"
              "                mbarrier.wait(ds_free.index(CID), (t - 1) & 1)\n")

# (what it says, [(old, new)] source replacements). Every probe must leave the barriers' waits satisfiable: a
# wait that never returns holds the GPU for the rest of the call (each variant runs in a process of its own, with a
# timeout, for that reason)
PROBES = {
    "no-chunk2": ("consumer 0 takes no second dQ chunk (columns 128-191 missing): the cost of its extra product and "
                  "of its wait for the first chunk's reduce to read the staging buffer",
                  [("                dq_tok = _dq_chunk(2, ds_smem, k_smem)\n"
                    "                dq, dk0, dk1, dk2 = warpgroup_mma_wait(0, deps=(dq_tok, dk0, dk1, dk2))\n"
                    "                mbarrier.arrive(ds_free.index(1), count=1)\n"
                    "                _stage_reduce(dq, stage, dq_desc, row, 2 * CHUNK)\n",
                    "                dk0, dk1, dk2 = warpgroup_mma_wait(0, deps=(dk0, dk1, dk2))\n"
                    "                mbarrier.arrive(ds_free.index(1), count=1)\n")]),
    "uncoupled": ("no consumer waits for the other's dS, nor for the other to be done with its own (a race: dQ "
                  "wrong): the cost of the two consumers' coupling", [(_WAIT_OTHER, ""), (_WAIT_FREE, "")]),
    "no-dq": ("no dQ products, staging or reduces (dQ missing), the consumers still coupled by the dS hand-off: "
              "the chains without dQ", [(_DQ_BLOCK, _DK_ONLY)]),
    "no-dq-uncoupled": ("no dQ and no coupling: two independent chains of S, P, dV, dP, dS, dK; against no-dq, "
                        "what the lockstep costs", [(_DQ_BLOCK, _DK_ONLY), (_WAIT_OTHER, ""), (_WAIT_FREE, "")]),
}


def load_variant(name: str):
    """The 128-key module with ``PROBES[name]``'s replacements (or none: ``name`` "base"), as a module of its own
    beside the package's (its relative imports resolved as the package's)."""
    from sdpa_bwd.engine.kernels import attention_bwd_gluon_192_k128 as base

    src = open(base.__file__).read()
    for old, new in ([] if name == "base" else PROBES[name][1]):
        # old: a string, or (first, end): the region from first up to end (not included)
        first, end = old if isinstance(old, tuple) else (old, None)
        if first not in src or (end is not None and end not in src[src.index(first):]):
            raise ValueError(f"probe {name}: its source text is not in {base.__file__}; update PROBES")
        at = src.index(first)
        stop = at + len(first) if end is None else src.index(end, at)
        src = src[:at] + new + src[stop:]
    path = os.path.join(os.path.dirname(base.__file__), f"_probe_k128_{name.replace('-', '_')}.py")
    with open(path, "w") as f:
        f.write(src)
    spec = importlib.util.spec_from_file_location(f"sdpa_bwd.engine.kernels._probe_k128_{name.replace('-', '_')}", path)
    mod = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = mod
    spec.loader.exec_module(mod)
    return mod, path


def time_variant(name: str, causal: bool) -> dict:
    """The pass kernel's mean time (ms) over 20 calls with variant ``name`` ("default": the launcher's own form;
    "base": the 128-key module unchanged; else a probe) at stop 41's problem."""
    from sdpa_bwd.engine import launch, launch_cache

    sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
    from gluon_probe_common import inputs192
    from program_cost import kernel_times

    q, k, v, o, do, stats, band = inputs192(causal=causal)

    def call():
        return launch.attention_backward(q, k, v, o, do, stats, **band)
    if name == "default":
        return kernel_times(call, 20)
    mod, path = load_variant(name)
    try:
        launch.attention_bwd_gluon_192_k128 = mod
        launch_cache.clear()
        with launch.switches(gluon_bwd192_k128=True):
            return kernel_times(call, 20)
    finally:
        os.unlink(path)


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--out", default="/tmp/k128_probes")
    ap.add_argument("--causal-only", action="store_true", help="time the causal mask only")
    ap.add_argument("--variant", help="(internal) time this one variant and print its JSON line")
    ap.add_argument("--causal", type=int, default=1, help="(internal) with --variant: the mask")
    ap.add_argument("--timeout", type=float, default=150.0, help="seconds a variant's process may take")
    args = ap.parse_args()
    if args.variant:
        print("RESULT " + json.dumps(time_variant(args.variant, bool(args.causal))), flush=True)
        return
    # each variant in a process of its own under a timeout: a probe whose barrier wait never returns (stop 42 run 1)
    # costs its own timeout, not the call's, and the rows already timed are printed as they come
    rows = []
    os.makedirs(args.out, exist_ok=True)
    for causal in (True,) if args.causal_only else (True, False):
        row = dict(causal=causal)
        for name in ["default", "base"] + list(PROBES):
            cmd = [sys.executable, os.path.abspath(__file__), "--variant", name, "--causal", str(int(causal))]
            try:
                proc = subprocess.run(cmd, capture_output=True, text=True, timeout=args.timeout)
                got = [ln for ln in proc.stdout.splitlines() if ln.startswith("RESULT ")]
                row[name] = json.loads(got[-1][7:]) if got else dict(error=proc.stderr[-600:])
            except subprocess.TimeoutExpired:
                row[name] = dict(error=f"no result within {args.timeout:.0f} s (a wait that never returns?)")
            shown = {k: t for k, t in row[name].items() if "gluon_192" in k or k == "error"}
            print(json.dumps(dict(causal=causal, variant=name, **shown)), flush=True)
        rows.append(row)
        with open(os.path.join(args.out, "k128_probes.json"), "w") as f:
            json.dump(dict(probes={k: v[0] for k, v in PROBES.items()}, rows=rows), f, indent=1)


if __name__ == "__main__":
    main()
