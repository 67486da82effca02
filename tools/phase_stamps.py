"""Where a Gluon backward program's time goes: its phases from the kernel's own global-timer stamps.

    PYTHONPATH=src python3 tools/phase_stamps.py [--shape B,H,S_q,S_kv,D ...] [--causal] [--out DIR]

Runs ``launch.attention_backward`` on fresh random BHSD bf16 inputs with ``launch.GLUON_BWD_STAMPS`` set (the kernel's
diagnostic build: each program writes ``attention_bwd_gluon.STAMP_SLOTS`` global-timer values, see that constant), the
launch cache off, once to compile and once stamped. Per program, from its start: K and V in (both consumers past
``kv_bar``), the first tile done, the last product done, the epilogue done; per tile of the loop in between; and per
SM the gap from one program's end to the next one's start. The medians are a program's fixed cost split into its parts
(h200-2026-12-02d, the since-removed ``tools/program_cost.py``: ~10 us a program, 17% of the hd64 kernel at
(4,16,2048,64)). The stamped build is not the timed one (its stores and timer reads move the schedule a little); the
split is what it is for. Needs a GPU with the Gluon backward (the H200).
"""

from __future__ import annotations

import argparse
import json
import os

import numpy as np
import torch

from sdpa_bwd.engine import launch, launch_cache
from sdpa_bwd.engine.kernels import attention_bwd_gluon as g


def phases(stamps: np.ndarray, n_tiles: np.ndarray) -> dict:
    """Per-program phase lengths (us) and per-SM gaps from the (programs, STAMP_SLOTS) stamps."""
    s = stamps.astype(np.float64) / 1000.0
    start = s[:, 15]
    kv_in = np.maximum(s[:, 5], s[:, 9])
    first = np.maximum(s[:, 6], s[:, 10])
    last = np.maximum(s[:, 7], s[:, 11])
    end = np.maximum(s[:, 12], s[:, 13])
    out = {
        "loader: K and V issued": s[:, 1] - start,
        "loader: the first tile's four loads issued": s[:, 2] - start,
        "K and V in (both consumers)": kv_in - start,
        "the first tile (after K and V in)": first - kv_in,
        "a loop tile": (last - first) / np.maximum(n_tiles - 1, 1),
        "the epilogue (last product to dK, dV out)": end - last,
        "the program, start to end": end - start,
    }
    gaps = []
    sm = stamps[:, 14]
    for m in np.unique(sm):
        idx = np.where(sm == m)[0]
        order = idx[np.argsort(start[idx])]
        gaps += list(start[order[1:]] - end[order[:-1]])
    out["per SM: one program's end to the next one's start"] = np.array(gaps) if gaps else np.zeros(1)
    out["kernel: first start to last end"] = np.array([end.max() - start.min()])
    out["per SM: idle after its last program (tail)"] = np.array(
        [end.max() - end[sm == m].max() for m in np.unique(sm)])
    return out


def run_shape(B: int, H: int, S_q: int, S_kv: int, D: int, causal: bool) -> dict:
    gen = torch.Generator(device="cuda").manual_seed(S_q + S_kv + D)
    q, do = (torch.randn(B, H, S_q, D, device="cuda", dtype=torch.bfloat16, generator=gen) for _ in range(2))
    k, v = (torch.randn(B, H, S_kv, D, device="cuda", dtype=torch.bfloat16, generator=gen) for _ in range(2))
    rb = 0 if causal else None
    o, stats = launch.attention_forward(q, k, v, right_bound=rb)
    blocks = -(-S_kv // (2 * g.KEYS_PER_CONSUMER))
    stamps = torch.zeros(B * H * blocks, g.STAMP_SLOTS, dtype=torch.int64, device="cuda")
    reasons = launch.gluon_backward_reasons(q, k, v, do, scale=D ** -0.5, causal=causal, hi_off=0, banded=causal,
                                            deterministic=False, apart=True)
    if reasons:
        raise SystemExit(f"the Gluon backward does not take {(B, H, S_q, S_kv, D, causal)}: {reasons}")
    before = (launch.GLUON_BWD_STAMPS, launch_cache.ENABLED)
    launch.GLUON_BWD_STAMPS, launch_cache.ENABLED = stamps, False
    try:
        for _ in range(2):  # the first compiles the stamped build
            stamps.zero_()
            launch.attention_backward(q, k, v, o, do, stats, right_bound=rb)
        torch.cuda.synchronize()
    finally:
        launch.GLUON_BWD_STAMPS, launch_cache.ENABLED = before
    st = stamps.cpu().numpy()
    if (st[:, [0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 15]] == 0).any():
        raise SystemExit("some program wrote no stamp in a slot: the stamped build did not run as expected")
    rows = 128 if D == 64 and launch.GLUON_BWD_HD64_ROWS == 128 else 64
    pid_n = np.tile(np.arange(blocks), B * H)
    i_start = (pid_n * 128 // rows) * int(causal)
    n_tiles = np.maximum(-(-S_q // rows) - i_start, 2)
    ph = phases(st, n_tiles)
    summary = {name: dict(median=float(np.median(x)), mean=float(np.mean(x)), p90=float(np.percentile(x, 90)))
               for name, x in ph.items()}
    return dict(shape=dict(B=B, H=H, S_q=S_q, S_kv=S_kv, D=D, causal=causal), rows=rows, programs=len(st),
                sms=int(len(np.unique(st[:, 14]))), phases_us=summary)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--shape", action="append", default=None, help="B,H,S_q,S_kv,D (repeatable)")
    ap.add_argument("--causal", action="store_true")
    ap.add_argument("--out", default="/tmp/phase_stamps")
    args = ap.parse_args()
    shapes = args.shape or ["4,16,2048,2048,64", "2,16,4096,4096,128"]
    os.makedirs(args.out, exist_ok=True)
    results = []
    for sh in shapes:
        B, H, S_q, S_kv, D = (int(x) for x in sh.split(","))
        r = run_shape(B, H, S_q, S_kv, D, args.causal)
        results.append(r)
        print(f"{r['shape']} ({r['programs']} programs on {r['sms']} SMs, {r['rows']}-row tiles), us:", flush=True)
        for name, m in r["phases_us"].items():
            print(f"  {name:55s} median {m['median']:9.2f}  mean {m['mean']:9.2f}  p90 {m['p90']:9.2f}", flush=True)
    with open(os.path.join(args.out, "phase_stamps.json"), "w") as f:
        json.dump(results, f, indent=1)


if __name__ == "__main__":
    main()
