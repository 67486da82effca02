"""Where the D_qk 192 / D_v 128 Gluon backward's time goes (stop 30), on the H200:

    PYTHONPATH=src python3 tools/bwd192_bound.py --out $OUT                 # as launched
    PYTHONPATH=src python3 tools/bwd192_bound.py --out $OUT --no-dq-reduce  # a diagnostic build, wrong dQ
    PYTHONPATH=src python3 tools/bwd192_bound.py --out $OUT --probe half-loads   # stop 39's probes (PROBES)

At (1,16,4096) bf16, causal and not: each kernel's device time in one backward call (torch.profiler, the mean
over 20 calls: ODO, the accumulators' zero fill, the column-split kernel, DQ_CONVERT), the whole call's time
(``triton.testing.do_bench``) under the causal mask's head groups 1, 4, 8 (the launcher's) and 16, and cuDNN's
call and its kernels beside it (stop 39). ``--no-dq-reduce`` compiles the kernel with its dQ bulk reduces taken out
(``_tma_reduce_add`` a no-op, dQ wrong): what is left is the time of everything but those reduces, a bound the
reduces' L2 traffic sets (64 x 192 fp32 per tile, 1.6 GB a causal call) if the two differ by much. ``--probe``
(stop 39, ``bwd192_probes``): the stage loads halved or gone, or the reduces halved by programs, likewise wrong
results and timings only. One JSON per run in ``--out``.
"""

from __future__ import annotations

import argparse
import json
import os
import sys


PROBES = {
    "half-loads": "programs of odd grid index load no Q or dO tile (their stages arrive without bytes): the L2 "
                  "traffic of the stage loads halved",
    "no-loads": "no program loads a Q or dO tile: the stage loads' share of the kernel",
    "half-reduces": "programs of odd grid index reduce no dQ partial: the reduce traffic halved by programs "
                    "(stop 37's pair probe halved it in every program)",
}


def _patch_probe(g, probe: str) -> None:
    """Swap the kernel's stage stream or its reduce for the ``probe``'s (``PROBES``, in ``bwd192_probes``) before
    its first compile."""
    import bwd192_probes as pr

    if probe == "half-loads":
        g.stream_q_do = pr.stream_half
    elif probe == "no-loads":
        g.stream_q_do = pr.stream_none
    elif probe == "half-reduces":
        g._tma_reduce_add = pr.reduce_half
    else:
        raise ValueError(f"probe {probe!r}: one of {sorted(PROBES)}")


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--out", default=None)
    ap.add_argument("--no-dq-reduce", action="store_true")
    ap.add_argument("--probe", choices=sorted(PROBES), default=None,
                    help="a diagnostic build (wrong results, timings only): " + "; ".join(
                        f"{k}: {v}" for k, v in sorted(PROBES.items())))
    args = ap.parse_args()
    import torch
    import triton

    from sdpa_bwd.engine import launch, launch_cache
    from sdpa_bwd.engine.kernels import attention_bwd_gluon_192 as g

    sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
    from gluon_probe_common import cudnn_backward
    from program_cost import kernel_times  # each kernel's device ms a call (torch.profiler)

    if args.no_dq_reduce:  # before the kernel's first compile in this process, so that the build takes it
        @g.gluon.jit
        def _no_reduce(desc, offsets, src):
            pass
        g._tma_reduce_add = _no_reduce
    if args.probe:
        _patch_probe(g, args.probe)
    rows = []
    for causal in (True, False):
        gen = torch.Generator(device="cuda").manual_seed(30)
        B, H, S = 1, 16, 4096
        q, k = (torch.randn(B, H, S, 192, device="cuda", dtype=torch.bfloat16, generator=gen) for _ in range(2))
        v, do = (torch.randn(B, H, S, 128, device="cuda", dtype=torch.bfloat16, generator=gen) for _ in range(2))
        band = dict(right_bound=0) if causal else {}
        o, stats = launch.attention_forward(q, k, v, **band)

        def call():
            return launch.attention_backward(q, k, v, o, do, stats, **band)
        peer = cudnn_backward(q, k, v, do, causal)
        row = dict(causal=causal, no_dq_reduce=args.no_dq_reduce, probe=args.probe,
                   kernels_ms=kernel_times(call, 20), cudnn_kernels_ms=kernel_times(peer, 20))
        groups = (1, 4, 8, 16) if causal else (None,)
        for n in groups:
            with launch.switches(head_group=n):
                launch_cache.clear()
                row[f"call_ms_group{n}"] = triton.testing.do_bench(call, warmup=10, rep=60)
        row["cudnn_ms"] = triton.testing.do_bench(cudnn_backward(q, k, v, do, causal), warmup=10, rep=60)
        print(json.dumps(row), flush=True)
        rows.append(row)
    if args.out:
        os.makedirs(args.out, exist_ok=True)
        name = ("bwd192_bound_noreduce.json" if args.no_dq_reduce else
                f"bwd192_bound_{args.probe}.json" if args.probe else "bwd192_bound.json")
        with open(os.path.join(args.out, name), "w") as f:
            json.dump(rows, f, indent=1)


if __name__ == "__main__":
    main()
