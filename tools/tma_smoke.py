"""GPU smoke check of the TMA (tensor descriptor) path against the pointer path.

    PYTHONPATH=src python3 tools/tma_smoke.py    # exit 0: the two paths agree everywhere

Runs the forward and the backward (default and deterministic) with TMA "on" and
"off" on a few shapes, dtypes, bands and GQA, and compares O, stats, dQ, dK, dV.
Both paths compute the same sums in the same order, so they should agree to the
last bit; anything above 1e-6 relative, a NaN, or an exception fails.
"""

import sys

import torch

from sdpa_bwd.engine import launch


def main() -> int:
    bad = 0
    bf16, fp16, fp32 = torch.bfloat16, torch.float16, torch.float32
    combos = [  # dtype, (B, H_q, H_k, H_v, S_q, S_kv, D_qk, D_v), right_bound, left_bound
        (bf16, (2, 4, 4, 4, 300, 300, 128, 128), None, None),
        (bf16, (2, 4, 4, 4, 300, 300, 128, 128), 0, None),
        (bf16, (1, 4, 2, 1, 257, 190, 64, 64), 3, 40),
        (bf16, (1, 2, 1, 1, 200, 333, 96, 192), 0, None),
        (fp16, (2, 2, 2, 2, 64, 64, 256, 256), None, None),
        (fp32, (1, 4, 2, 1, 257, 190, 64, 64), None, None),
    ]
    for dtype, (B, Hq, Hk, Hv, S_q, S_kv, Dqk, Dv), rb, lb in combos:
        g = torch.Generator(device="cuda").manual_seed(S_q + Dqk)
        q = torch.randn(B, S_q, Hq, Dqk, device="cuda", generator=g).to(dtype).transpose(1, 2)  # BSHD
        k = torch.randn(B, Hk, S_kv, Dqk, device="cuda", generator=g).to(dtype)
        v = torch.randn(S_kv, B, Hv, Dv, device="cuda", generator=g).to(dtype).permute(1, 2, 0, 3)
        do = torch.randn(B, Hq, S_q, Dv, device="cuda", generator=g).to(dtype)
        out = {}
        for mode in ("off", "on"):
            launch.set_tma_mode(mode)
            try:
                o, st = launch.attention_forward(q, k, v, right_bound=rb, left_bound=lb)
                gr = launch.attention_backward(q, k, v, o, do, st, right_bound=rb, left_bound=lb)
                gd = launch.attention_backward(q, k, v, o, do, st, right_bound=rb, left_bound=lb,
                                               deterministic=True)
                out[mode] = (o, st) + tuple(gr) + tuple(gd)
            except Exception as exc:
                print(f"FAIL {mode} {dtype} {(B, Hq, Hk, Hv, S_q, S_kv, Dqk, Dv)} rb={rb} lb={lb}: "
                      f"{type(exc).__name__}: {str(exc)[:400]}", flush=True)
                bad += 1
                out[mode] = None
        launch.set_tma_mode("auto")
        if out["off"] is None or out["on"] is None:
            continue
        worst = 0.0
        for a, b in zip(out["off"], out["on"]):
            fin = torch.isfinite(a)
            if not torch.equal(fin, torch.isfinite(b)):
                worst = float("inf")
                continue
            if fin.any():
                d = (a[fin].double() - b[fin].double()).abs().max().item()
                worst = max(worst, d / max(a[fin].double().abs().max().item(), 1e-30))
        tag = f"{str(dtype)[6:]} {(B, Hq, Hk, Hv, S_q, S_kv, Dqk, Dv)} rb={rb} lb={lb}"
        if not worst <= 1e-6:
            bad += 1
            print(f"MISMATCH {tag}: TMA vs pointers relative {worst:.2e}", flush=True)
        else:
            print(f"ok {tag}: relative {worst:.1e}", flush=True)
    print(f"tma_smoke: {bad} failures", flush=True)
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
