"""Where the 192 / 128 backward *call* spends what its kernels do not (stop 41), on the H200:

    PYTHONPATH=src python3 tools/side192_probe.py --out $OUT

At (1,16,4096) causal bf16 BHSD:

1. the timeline of one call, ours and cuDNN's: each kernel's start (us after the call's first kernel starts) and
   its duration, the L2 flushed before each call as ``triton.testing.do_bench`` does (torch.profiler, 10 calls, the
   median of each slot); the gaps between kernels are what the call costs beyond its kernels;
2. the side kernels alone (``do_bench``, L2 flushed): ODO with the dQ accumulator's zero fill and DQ_CONVERT at the
   launcher's block (64 rows, 4 warps) and others, beside PyTorch's own fill and copy of the same bytes (what the
   memory system gives a plain streaming kernel).

One JSON in ``--out``.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys


def _timeline(fn, flush, calls: int = 10):
    """Each call's kernels as (name, start us from the call's first kernel, duration us): the medians over
    ``calls`` calls of the slot's start and duration, with the names of the first call."""
    import torch

    for _ in range(3):
        fn()
    torch.cuda.synchronize()
    with torch.profiler.profile(activities=[torch.profiler.ProfilerActivity.CUDA]) as prof:
        for _ in range(calls):
            flush()
            fn()
        torch.cuda.synchronize()
    evs = sorted((e for e in prof.events() if e.device_type == torch.autograd.DeviceType.CUDA),
                 key=lambda e: e.time_range.start)
    groups, cur = [], None
    for e in evs:
        if "flush_marker" in e.name or "MulFunctor" in e.name:  # the flush starts a call
            cur = []
            groups.append(cur)
        elif cur is not None:
            cur.append((e.name, e.time_range.start, e.time_range.end))
    n = min(len(g) for g in groups)
    out = []
    for slot in range(n):
        t0 = [g[0][1] for g in groups]
        starts = [g[slot][1] - a for g, a in zip(groups, t0)]
        durs = [g[slot][2] - g[slot][1] for g in groups]
        out.append(dict(name=groups[0][slot][0][:90], start_us=round(statistics.median(starts), 2),
                        dur_us=round(statistics.median(durs), 2)))
    ends = [max(x[2] for x in g) - g[0][1] for g in groups]
    return dict(kernels=out, span_us=round(statistics.median(ends), 2))


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--out", default=None)
    args = ap.parse_args()
    import torch
    import triton

    from sdpa_bwd.engine import launch
    from sdpa_bwd.engine.kernels.attention_bwd import attention_bwd_dq_convert_kernel, attention_bwd_preprocess_kernel

    sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
    from gluon_probe_common import cudnn_backward, inputs192

    q, k, v, o, do, stats, band = inputs192()
    B, H, S = q.shape[:3]
    gen = torch.Generator(device="cuda").manual_seed(42)  # the side kernels' accumulator (its values time alike)
    cache = torch.empty(256 * 1024 * 1024 // 4, dtype=torch.float32, device="cuda")

    def flush():
        cache.mul_(0.5)

    res = {}
    res["ours"] = _timeline(lambda: launch.attention_backward(q, k, v, o, do, stats, **band), flush)
    res["cudnn"] = _timeline(cudnn_backward(q, k, v, do, True), flush)
    for who in ("ours", "cudnn"):
        print(who, "span", res[who]["span_us"], "us")
        for kk in res[who]["kernels"]:
            print(f"  {kk['start_us']:9.2f} {kk['dur_us']:9.2f}  {kk['name']}")

    def bench(fn):
        return round(triton.testing.do_bench(fn, warmup=25, rep=100), 5)

    acc = torch.randn(B * H * S, 192, device="cuda", dtype=torch.float32, generator=gen)
    dq = torch.empty(B, H, S, 192, device="cuda", dtype=torch.bfloat16)
    side = launch.gluon_side_rows(S)
    delta = torch.empty(B * H * side, device="cuda", dtype=torch.float32)
    lse2 = torch.empty_like(delta)
    zacc = torch.empty_like(acc)
    side_ms = {}
    side_ms["torch_fill_acc"] = bench(lambda: zacc.zero_())
    side_ms["torch_copy_acc_to_bf16"] = bench(lambda: dq.view(-1, 192).copy_(acc))
    for bm, w in ((64, 4), (64, 8), (128, 4), (128, 8), (32, 4), (32, 2)):
        side_ms[f"dq_convert_m{bm}_w{w}"] = bench(lambda bm=bm, w=w: attention_bwd_dq_convert_kernel[(S // bm, B * H)](
            acc, dq, *dq.stride(), H, S, 0.07, BLOCK_M=bm, D_QK=192, D_QK_PAD=128, D_QK_SPLIT=64, WIDE=False,
            PDL=False, num_warps=w))
        side_ms[f"odo_zero_m{bm}_w{w}"] = bench(lambda bm=bm, w=w: attention_bwd_preprocess_kernel[(S // bm, B * H)](
            o, do, stats, delta, lse2, *o.stride(), *do.stride(), *stats.stride(), H, S, side, zacc,
            BLOCK_M=bm, D_V=128, D_V_PAD=128, WIDE=False, ZERO_D=192, PDL=False, num_warps=w))
        side_ms[f"odo_only_m{bm}_w{w}"] = bench(lambda bm=bm, w=w: attention_bwd_preprocess_kernel[(S // bm, B * H)](
            o, do, stats, delta, lse2, *o.stride(), *do.stride(), *stats.stride(), H, S, side, delta,
            BLOCK_M=bm, D_V=128, D_V_PAD=128, WIDE=False, ZERO_D=0, PDL=False, num_warps=w))
    for kk, t in side_ms.items():
        print(f"{kk:28s} {t * 1000:8.2f} us")
    res["side_ms"] = side_ms
    if args.out:
        os.makedirs(args.out, exist_ok=True)
        with open(os.path.join(args.out, "side192_probe.json"), "w") as f:
            json.dump(res, f, indent=1)


if __name__ == "__main__":
    main()
