"""Backward-only time and TFLOP/s: our Triton engine beside PyTorch's cuDNN, flash and
efficient SDPA backends, in one run on one GPU.

    PYTHONPATH=src python benchmarks/bench_backward.py --out benchmarks/results
    PYTHONPATH=src python benchmarks/bench_backward.py --sweep      # config sweep first

FLOPs: backward = 2.5 x forward, forward = 2 * kept_pairs * (D_qk + D_v) per (b, h_q),
kept pairs counted exactly from the band (causal is not "half").
Times: median of ``triton.testing.do_bench``. Ours is ``launch.attention_backward``
(ODO + main pass + dQ, side-buffer allocation included); a peer is
``torch.autograd.grad`` on a retained SDPA graph under ``sdpa_kernel(backend)``.
Every row also checks our gradients against cuDNN's (relative L2 error).
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import math
import os
import platform
import sys
import time
import warnings
import zlib

import torch
import torch.nn.functional as F
import triton
from torch.nn.attention import SDPBackend, sdpa_kernel

from sdpa_bwd import launch

SHAPES = [  # (B, H_q, H_kv, S, D)
    (2, 16, 16, 4096, 128),
    (1, 16, 16, 8192, 128),
    (4, 16, 16, 2048, 64),
    (1, 32, 8, 8192, 128),
]
LAYOUTS = ["bhsd", "bshd", "sbhd", "bshd_pad"]
PEERS = {"cudnn": SDPBackend.CUDNN_ATTENTION, "flash": SDPBackend.FLASH_ATTENTION,
         "efficient": SDPBackend.EFFICIENT_ATTENTION}


def make(B, H, S, D, layout, dtype, gen):
    """A (B, H, S, D) view of random data stored in ``layout``."""
    if layout == "bhsd":
        t = torch.randn(B, H, S, D, generator=gen, device="cuda", dtype=torch.float32).to(dtype)
        return t
    if layout == "bshd":
        return torch.randn(B, S, H, D, generator=gen, device="cuda").to(dtype).transpose(1, 2)
    if layout == "sbhd":
        return torch.randn(S, B, H, D, generator=gen, device="cuda").to(dtype).permute(1, 2, 0, 3)
    if layout == "bshd_pad":
        # each row padded by 64 elements (128 bytes): still 16-byte aligned rows
        buf = torch.randn(B, S, H, D + 64, generator=gen, device="cuda").to(dtype)
        return buf[..., :D].transpose(1, 2)
    raise ValueError(layout)


def kept_pairs(S_q, S_kv, causal):
    if not causal:
        return S_q * S_kv
    i = torch.arange(S_q, dtype=torch.int64)
    return int((torch.clamp(torch.minimum(i, torch.tensor(S_kv - 1)) + 1, min=0)).sum())


def bench(fn, warmup=25, rep=100):
    return triton.testing.do_bench(fn, warmup=warmup, rep=rep, return_mode="median")


def rel_err(a, b):
    a, b = a.float(), b.float()
    return ((a - b).norm() / b.norm().clamp_min(1e-30)).item()


def run_row(shape, causal, layout, dtype, config=None, peers=True, check=True):
    B, H_q, H_kv, S, D = shape
    gen = torch.Generator(device="cuda").manual_seed(zlib.crc32(repr((shape, causal, layout)).encode()))
    q = make(B, H_q, S, D, layout, dtype, gen)
    k = make(B, H_kv, S, D, layout, dtype, gen)
    v = make(B, H_kv, S, D, layout, dtype, gen)
    do = make(B, H_q, S, D, layout, dtype, gen)
    rb = 0 if causal else None
    o, stats = launch.attention_forward(q, k, v, right_bound=rb)
    ours_fn = lambda: launch.attention_backward(q, k, v, o, do, stats, right_bound=rb, config=config)  # noqa: E731
    t_ours = bench(ours_fn)
    pairs = kept_pairs(S, S, causal)
    flops = 2.5 * B * H_q * pairs * 2 * (D + D)
    row = dict(B=B, H_q=H_q, H_kv=H_kv, S=S, D=D, causal=causal, layout=layout, dtype=str(dtype).split(".")[-1],
               flops=flops, ours_ms=t_ours, ours_tflops=flops / t_ours / 1e9)
    ours = ours_fn() if check else None
    if peers:
        for name, backend in PEERS.items():
            try:
                qg, kg, vg = (t.detach().requires_grad_() for t in (q, k, v))
                with sdpa_kernel(backend):
                    out = F.scaled_dot_product_attention(qg, kg, vg, is_causal=causal, enable_gqa=H_q != H_kv)
                    grads = torch.autograd.grad(out, (qg, kg, vg), do, retain_graph=True)
                    t = bench(lambda: torch.autograd.grad(out, (qg, kg, vg), do, retain_graph=True))
                row[f"{name}_ms"] = t
                row[f"{name}_tflops"] = flops / t / 1e9
                if name == "cudnn" and check:
                    row["rel_err_vs_cudnn"] = max(rel_err(a, b) for a, b in zip(ours, grads))
                del out, grads
            except Exception as exc:  # a peer that declines this row
                row[f"{name}_ms"] = None
                row[f"{name}_error"] = f"{type(exc).__name__}: {str(exc)[:160]}"
        if row.get("cudnn_ms"):
            row["ratio_vs_cudnn"] = row["cudnn_ms"] / t_ours
    return row


BC = launch.BackwardConfig
SWEEP = {
    # (shape, causal): candidates; the first is the current default for that head dim.
    ((2, 16, 16, 4096, 128), False): [
        BC(64, 128, 128, 64, 8, 3, "separate"),
        BC(32, 128, 128, 64, 8, 3, "separate"),
        BC(64, 128, 128, 32, 8, 3, "separate"),
        BC(64, 128, 128, 64, 8, 3, "separate", dq_num_stages=4),
    ],
    ((4, 16, 16, 2048, 64), False): [
        BC(32, 128, 128, 32, 4, 4, "separate"),
        BC(32, 128, 128, 64, 4, 4, "separate", dq_num_warps=8, dq_num_stages=3),
        BC(64, 128, 128, 64, 8, 3, "separate", dq_num_warps=4, dq_num_stages=4),
    ],
}


def sweep(results, budget_s):
    """Time each candidate; returns {D: fastest config} for --adopt."""
    t0 = time.time()
    best = {}
    for (shape, causal), cfgs in SWEEP.items():
        for cfg in cfgs:
            if time.time() - t0 > budget_s:
                print("sweep: time budget spent", flush=True)
                return best
            try:
                row = run_row(shape, causal, "bhsd", torch.bfloat16, config=cfg, peers=False, check=False)
                row["config"] = dataclasses.asdict(cfg)
                results.append(row)
                print(f"sweep {shape} causal={causal} {cfg}: {row['ours_ms']:.3f} ms "
                      f"{row['ours_tflops']:.0f} TFLOP/s", flush=True)
                d = shape[-1]
                if d not in best or row["ours_ms"] < best[d][1]:
                    best[d] = (cfg, row["ours_ms"])
            except Exception as exc:
                print(f"sweep {shape} causal={causal} {cfg}: FAILED {type(exc).__name__}: {str(exc)[:200]}",
                      flush=True)
    return best


def profile_split(shape, causal, config=None):
    """Device time per kernel of one backward call (torch.profiler), to see where time goes."""
    B, H_q, H_kv, S, D = shape
    gen = torch.Generator(device="cuda").manual_seed(1)
    q, do = (make(B, H_q, S, D, "bhsd", torch.bfloat16, gen) for _ in range(2))
    k, v = (make(B, H_kv, S, D, "bhsd", torch.bfloat16, gen) for _ in range(2))
    rb = 0 if causal else None
    o, st = launch.attention_forward(q, k, v, right_bound=rb)
    for _ in range(3):
        launch.attention_backward(q, k, v, o, do, st, right_bound=rb, config=config)
    torch.cuda.synchronize()
    with torch.profiler.profile(activities=[torch.profiler.ProfilerActivity.CUDA]) as prof:
        for _ in range(10):
            launch.attention_backward(q, k, v, o, do, st, right_bound=rb, config=config)
        torch.cuda.synchronize()
    split = {}
    for ev in prof.key_averages():
        t = getattr(ev, "device_time_total", None) or getattr(ev, "cuda_time_total", 0)
        if t:
            split[ev.key] = t / 10 / 1000.0  # ms per call
    print(f"split {shape} causal={causal}: " + ", ".join(f"{k}={v:.3f} ms" for k, v in
                                                        sorted(split.items(), key=lambda kv: -kv[1])), flush=True)
    return split


def chart(rows, path):
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    labels = [f"{r['B']},{r['H_q']}/{r['H_kv']},{r['S']},{r['D']}{' c' if r['causal'] else ''} {r['layout']}"
              for r in rows]
    series = [("ours", "ours_tflops"), ("cuDNN", "cudnn_tflops"), ("flash", "flash_tflops"),
              ("efficient", "efficient_tflops")]
    fig, ax = plt.subplots(figsize=(max(10, len(rows) * 0.55), 5))
    width = 0.2
    for i, (name, key) in enumerate(series):
        ax.bar([x + i * width for x in range(len(rows))], [r.get(key) or 0 for r in rows], width, label=name)
    ax.set_xticks([x + 1.5 * width for x in range(len(rows))])
    ax.set_xticklabels(labels, rotation=75, ha="right", fontsize=7)
    ax.set_ylabel("backward TFLOP/s (2.5 x fwd, exact mask count)")
    ax.set_title(f"SDPA backward, bf16, {torch.cuda.get_device_name()}")
    ax.legend()
    fig.tight_layout()
    fig.savefig(path, dpi=120)


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--out", default="benchmarks/results")
    ap.add_argument("--sweep", action="store_true", help="time candidate configs first")
    ap.add_argument("--sweep-budget", type=float, default=150.0)
    ap.add_argument("--no-bench", action="store_true")
    ap.add_argument("--quick", action="store_true",
                    help="only our default config on four BHSD rows, with the per-kernel split (A/B runs)")
    ap.add_argument("--adopt", action="store_true", help="run the rows with the sweep's fastest config per D")
    ap.add_argument("--layouts", default=",".join(LAYOUTS))
    args = ap.parse_args(argv)
    warnings.filterwarnings("ignore", category=UserWarning)  # peers explaining their declines
    os.makedirs(args.out, exist_ok=True)
    meta = dict(device=torch.cuda.get_device_name(), torch=torch.__version__, triton=triton.__version__,
                python=platform.python_version(), cudnn=torch.backends.cudnn.version(),
                when=time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()))
    if args.quick:
        total = 0.0
        for shape in ((2, 16, 16, 4096, 128), (4, 16, 16, 2048, 64)):
            for causal in (False, True):
                row = run_row(shape, causal, "bhsd", torch.bfloat16, peers=False, check=False)
                total += row["ours_ms"]
                print(f"quick {shape} causal={causal}: {row['ours_ms']:.3f} ms {row['ours_tflops']:.0f} TFLOP/s",
                      flush=True)
                profile_split(shape, causal)
        print(f"QUICK total={total:.4f}", flush=True)
        return
    adopted = {}
    if args.sweep:
        sweep_rows = []
        best = sweep(sweep_rows, args.sweep_budget)
        with open(os.path.join(args.out, "sweep.json"), "w") as f:
            json.dump(dict(meta=meta, rows=sweep_rows), f, indent=1)
        if args.adopt:
            adopted = {d: cfg for d, (cfg, _) in best.items()}
            print(f"adopted: {adopted}", flush=True)
    meta["adopted_configs"] = {str(d): dataclasses.asdict(c) for d, c in adopted.items()}
    try:
        meta["split_ms"] = {f"{shape}, causal={c}": profile_split(shape, c, adopted.get(shape[-1]))
                            for shape in ((2, 16, 16, 4096, 128), (4, 16, 16, 2048, 64)) for c in (False, True)}
    except Exception as exc:
        print(f"profile split failed: {exc}", flush=True)
    if args.no_bench:
        return
    rows = []
    for shape in SHAPES:
        for causal in (False, True):
            for layout in args.layouts.split(","):
                row = run_row(shape, causal, layout, torch.bfloat16, config=adopted.get(shape[-1]))
                rows.append(row)
                print(f"{shape} causal={causal!s:5} {layout:8} ours {row['ours_ms']:.3f} ms "
                      f"{row['ours_tflops']:.0f} TF | cudnn {row.get('cudnn_tflops') or 0:.0f} "
                      f"flash {row.get('flash_tflops') or 0:.0f} eff {row.get('efficient_tflops') or 0:.0f} | "
                      f"ratio {row.get('ratio_vs_cudnn') or 0:.2f} err {row.get('rel_err_vs_cudnn', -1):.1e}",
                      flush=True)
                torch.cuda.empty_cache()
    # layout spread: our time on each layout over our BHSD time for the same (shape, causal)
    base = {(r["B"], r["H_q"], r["H_kv"], r["S"], r["D"], r["causal"]): r["ours_ms"]
            for r in rows if r["layout"] == "bhsd"}
    for r in rows:
        key = (r["B"], r["H_q"], r["H_kv"], r["S"], r["D"], r["causal"])
        r["ours_vs_bhsd"] = r["ours_ms"] / base[key] if key in base else None
    ratios = [r["ratio_vs_cudnn"] for r in rows if r.get("ratio_vs_cudnn")]
    geomean = math.exp(sum(math.log(x) for x in ratios) / len(ratios)) if ratios else None
    worst_layout = max((r["ours_vs_bhsd"] for r in rows if r["ours_vs_bhsd"]), default=None)
    summary = dict(geomean_ratio_vs_cudnn=geomean, worst_layout_slowdown_vs_bhsd=worst_layout,
                   max_rel_err_vs_cudnn=max((r.get("rel_err_vs_cudnn", 0) for r in rows), default=None))
    with open(os.path.join(args.out, "bench_backward.json"), "w") as f:
        json.dump(dict(meta=meta, summary=summary, rows=rows), f, indent=1)
    try:
        chart(rows, os.path.join(args.out, "bench_backward.png"))
    except Exception as exc:
        print(f"chart failed: {exc}", file=sys.stderr)
    print("\n| B | H_q/H_kv | S | D | causal | layout | ours ms | ours TF | cuDNN TF | flash TF | eff TF | ratio | vs BHSD |")
    print("|---|---|---|---|---|---|---|---|---|---|---|---|---|")
    for r in rows:
        print(f"| {r['B']} | {r['H_q']}/{r['H_kv']} | {r['S']} | {r['D']} | {r['causal']} | {r['layout']} | "
              f"{r['ours_ms']:.3f} | {r['ours_tflops']:.0f} | {r.get('cudnn_tflops') or 0:.0f} | "
              f"{r.get('flash_tflops') or 0:.0f} | {r.get('efficient_tflops') or 0:.0f} | "
              f"{r.get('ratio_vs_cudnn') or 0:.2f} | {r['ours_vs_bhsd'] or 0:.2f} |")
    print(f"\ngeomean ratio_vs_cudnn = {geomean:.3f}; worst layout / BHSD = {worst_layout:.3f}; "
          f"max rel err vs cuDNN = {summary['max_rel_err_vs_cudnn']:.2e}")


if __name__ == "__main__":
    main()
