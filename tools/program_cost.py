"""How much of the Gluon backward's time is a program's fixed cost (descriptors made on the device, K and V loaded,
the pipeline filled and drained, dK and dV stored) against its per-tile cost: the kernel timed alone (profiler) on
the same programs, key blocks and heads with more or fewer query tiles each, then a straight-line fit.

    PYTHONPATH=src python3 tools/program_cost.py [--out DIR]

Rows: hd64 (4,16,S_q,2048) bf16 BHSD non-causal, S_q 512-4096 (128-row tiles: 4-32 a program, 1,024 programs);
hd128 (2,16,S_q,4096) S_q 1024-8192 (64-row tiles: 16-128 a program, 1,024 programs); ``--d 192`` (stop 38): the
D_qk 192 / D_v 128 kernel at (1,16,S_q,4096), S_q 512-8192 (64-row tiles: 8-128 a program, 64-key programs, 1,024 of
them). Each row also reports the other kernels of the call (ODO, the accumulator's zeroing, DQ_CONVERT) from the same
profile. The fit's intercept over the waves (1,024 / 132 SMs) is a program's fixed cost, its slope over the waves a
tile's; ``full_waves`` (stop 38) gives both over the whole waves (8), which is what equal programs take.
"""

from __future__ import annotations

import argparse
import json
import os

import numpy as np
import torch

from sdpa_bwd.engine import launch


def kernel_times(fn, reps: int = 10) -> dict:
    for _ in range(3):
        fn()
    torch.cuda.synchronize()
    with torch.profiler.profile(activities=[torch.profiler.ProfilerActivity.CUDA]) as prof:
        for _ in range(reps):
            fn()
        torch.cuda.synchronize()
    out = {}
    for ev in prof.key_averages():
        t = getattr(ev, "device_time_total", None) or getattr(ev, "cuda_time_total", 0)
        if t:
            out[ev.key[:48]] = round(t / reps / 1000.0, 4)
    return out


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--out", default="/tmp/program_cost")
    ap.add_argument("--d", default="64,128", help="head dims, of 64, 128, 192 (192: D_qk 192 / D_v 128)")
    args = ap.parse_args()
    os.makedirs(args.out, exist_ok=True)
    # D: (B, H, S_kv, query rows a tile, keys a program, S_q values)
    sets = {64: (4, 16, 2048, 128, 128, (512, 1024, 2048, 4096)), 128: (2, 16, 4096, 64, 128, (1024, 2048, 4096, 8192)),
            192: (1, 16, 4096, 64, 64, (512, 1024, 2048, 4096, 8192))}
    results = []
    for D in (int(d) for d in args.d.split(",")):
        B, H, S_kv, rows, keys, s_qs = sets[D]
        D_v = 128 if D == 192 else D
        pts = []
        for S_q in s_qs:
            gen = torch.Generator(device="cuda").manual_seed(S_q + D)
            q = torch.randn(B, H, S_q, D, device="cuda", dtype=torch.bfloat16, generator=gen)
            do = torch.randn(B, H, S_q, D_v, device="cuda", dtype=torch.bfloat16, generator=gen)
            k = torch.randn(B, H, S_kv, D, device="cuda", dtype=torch.bfloat16, generator=gen)
            v = torch.randn(B, H, S_kv, D_v, device="cuda", dtype=torch.bfloat16, generator=gen)
            o, stats = launch.attention_forward(q, k, v)
            times = kernel_times(lambda: launch.attention_backward(q, k, v, o, do, stats))
            gl = sum(t for name, t in times.items() if "gluon" in name)
            tiles = S_q // rows
            pts.append((tiles, gl))
            results.append(dict(D=D, B=B, H=H, S_q=S_q, S_kv=S_kv, tiles_per_program=tiles, kernels_ms=times))
            print(f"D {D} S_q {S_q:5d} ({tiles:3d} tiles a program): gluon kernel {gl:.4f} ms; all {times}", flush=True)
        x, y = np.array(pts, dtype=float).T
        slope, icpt = np.polyfit(x, y, 1)
        waves = B * H * (S_kv // keys) / 132
        full = -(-B * H * (S_kv // keys) // 132)
        fit = dict(D=D, ms_per_tile_all_programs=slope, intercept_ms=icpt, waves=waves,
                   us_fixed_per_program=icpt / waves * 1000, us_per_tile=slope / waves * 1000, full_waves=full,
                   us_fixed_per_program_full_waves=icpt / full * 1000, us_per_tile_full_waves=slope / full * 1000)
        results.append(dict(fit=fit))
        print(f"D {D}: fit {fit}", flush=True)
    with open(os.path.join(args.out, "program_cost.json"), "w") as f:
        json.dump(results, f, indent=1)


if __name__ == "__main__":
    main()
