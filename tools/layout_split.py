"""Where a layout's extra time goes: each kernel's device time (torch.profiler) of one backward and one forward
call, per storage layout, for the benchmark shapes whose layouts spread most (stop 27 run 4: (2,16,4096,128)
non-causal SBHD and padded rows 6.7% over BHSD, GQA 32/8 non-BHSD 5-8%), in rounds that interleave the layouts.

    PYTHONPATH=src python3 tools/layout_split.py [--out DIR] [--rounds 3]

Inputs and outputs both in the row's layout, as ``benchmarks/bench_backward.py`` stores them (``common.make``);
dQ, dK, dV allocated in the same layout. Per (shape, pass, layout, kernel): the median over rounds of the mean
device time of 10 calls, and each kernel's share of the layout's extra time over BHSD. Writes layout_split.json.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys

import torch

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "benchmarks"))
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import common  # noqa: E402
from program_cost import kernel_times  # noqa: E402  (each kernel's device time a call, torch.profiler)

from sdpa_bwd.engine import launch  # noqa: E402

SHAPES = [((2, 16, 16, 4096, 128), False), ((1, 32, 8, 8192, 128), False), ((1, 32, 8, 8192, 128), True)]


def _empty_like_layout(t, layout):
    B, H, S, D = t.shape
    g = torch.Generator(device="cuda").manual_seed(0)
    return common.make(B, H, S, D, layout, t.dtype, g).zero_()


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--out", default="/tmp/layout_split")
    ap.add_argument("--rounds", type=int, default=3)
    a = ap.parse_args()
    os.makedirs(a.out, exist_ok=True)
    results = []
    for shape, causal in SHAPES:
        B, H_q, H_kv, S, D = shape
        band = dict(right_bound=0) if causal else {}
        calls = {}
        for layout in common.LAYOUTS:
            gen = torch.Generator(device="cuda").manual_seed(1)
            q, do = (common.make(B, H_q, S, D, layout, torch.bfloat16, gen) for _ in range(2))
            k, v = (common.make(B, H_kv, S, D, layout, torch.bfloat16, gen) for _ in range(2))
            o, stats = launch.attention_forward(q, k, v, **band)
            o2 = _empty_like_layout(o, layout)
            grads = [_empty_like_layout(t, layout) for t in (q, k, v)]
            calls[layout] = (
                lambda q=q, k=k, v=v, o=o, do=do, st=stats, g=grads: launch.attention_backward(
                    q, k, v, o, do, st, dq=g[0], dk=g[1], dv=g[2], **band),
                lambda q=q, k=k, v=v, o2=o2: launch.attention_forward(q, k, v, o=o2, **band))
        times = {(p, lay): [] for p in ("bwd", "fwd") for lay in common.LAYOUTS}
        for _ in range(a.rounds):
            for layout, (bwd, fwd) in calls.items():
                times[("bwd", layout)].append(kernel_times(bwd))
                times[("fwd", layout)].append(kernel_times(fwd))
        for p in ("bwd", "fwd"):
            per = {}
            for layout in common.LAYOUTS:
                kernels = set().union(*times[(p, layout)])
                per[layout] = {kname: statistics.median(r.get(kname, 0.0) for r in times[(p, layout)])
                               for kname in kernels}
            base = per["bhsd"]
            total = {lay: sum(v.values()) for lay, v in per.items()}
            row = dict(shape=list(shape), causal=causal, pass_=p, ms=per, total_ms=total)
            results.append(row)
            print(f"{p} {shape} causal={causal}: " + "; ".join(
                f"{lay} {total[lay]:.3f} ms ({total[lay] / total['bhsd']:.3f}x)" for lay in common.LAYOUTS), flush=True)
            for layout in common.LAYOUTS[1:]:
                extra = {kname: per[layout].get(kname, 0.0) - base.get(kname, 0.0)
                         for kname in set(per[layout]) | set(base)}
                top = sorted(extra.items(), key=lambda kv: -abs(kv[1]))[:4]
                print(f"   {layout} over bhsd: " + ", ".join(f"{kname[:40]} {d * 1000:+.1f} us" for kname, d in top),
                      flush=True)
        with open(os.path.join(a.out, "layout_split.json"), "w") as f:
            json.dump(results, f, indent=1)
        del calls
        torch.cuda.empty_cache()


if __name__ == "__main__":
    main()
