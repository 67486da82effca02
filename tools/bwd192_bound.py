"""Where the D_qk 192 / D_v 128 Gluon backward's time goes (stop 30), on the H200:

    PYTHONPATH=src python3 tools/bwd192_bound.py --out $OUT                 # as launched
    PYTHONPATH=src python3 tools/bwd192_bound.py --out $OUT --no-dq-reduce  # a diagnostic build, wrong dQ

At (1,16,4096) bf16, causal and not: each kernel's device time in one backward call (torch.profiler, the mean
over 20 calls: ODO, the accumulators' zero fill, the column-split kernel, DQ_CONVERT), the whole call's time
(``triton.testing.do_bench``) under the causal mask's head groups 1, 4, 8 (the launcher's) and 16, and cuDNN's
beside it. ``--no-dq-reduce`` compiles the kernel with its dQ bulk reduces taken out (``_tma_reduce_add`` a
no-op, dQ wrong): what is left is the time of everything but those reduces, a bound the reduces' L2 traffic
sets (64 x 192 fp32 per tile, 1.6 GB a causal call) if the two differ by much. One JSON per run in ``--out``.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from collections import defaultdict


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--out", default=None)
    ap.add_argument("--no-dq-reduce", action="store_true")
    args = ap.parse_args()
    import torch
    import triton

    from sdpa_bwd import launch, launch_cache
    from sdpa_bwd.kernels import attention_bwd_gluon_192 as g

    sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
    from gluon_probe_common import cudnn_backward

    if args.no_dq_reduce:  # before the kernel's first compile in this process, so that the build takes it
        @g.gluon.jit
        def _no_reduce(desc, offsets, src):
            pass
        g._tma_reduce_add = _no_reduce
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
        call()
        torch.cuda.synchronize()
        with torch.profiler.profile(activities=[torch.profiler.ProfilerActivity.CUDA]) as prof:
            for _ in range(20):
                call()
            torch.cuda.synchronize()
        per = defaultdict(float)
        for e in prof.events():
            if e.device_type == torch.autograd.DeviceType.CUDA:
                per[e.name[:60]] += e.device_time_total / 20 / 1000  # ms a call
        row = dict(causal=causal, no_dq_reduce=args.no_dq_reduce, kernels_ms=dict(per))
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
        name = "bwd192_bound_noreduce.json" if args.no_dq_reduce else "bwd192_bound.json"
        with open(os.path.join(args.out, name), "w") as f:
            json.dump(rows, f, indent=1)


if __name__ == "__main__":
    main()
