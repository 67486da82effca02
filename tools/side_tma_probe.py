"""One call of the Gluon backward on one shape, for finding which shapes fault (stop 26, the lse2/delta-by-TMA loader).

    PYTHONPATH=src python3 tools/side_tma_probe.py B H S_q S_kv D CAUSAL TMA_EPILOGUE

Runs ``launch.attention_backward`` once on fresh random BHSD inputs (the forward's O and stats from
``launch.attention_forward``), synchronises, and prints the relative L2 error of dQ, dK, dV against PyTorch's
math backward in float32; exits 1 on a CUDA error (the process's context is then gone), 2 where an error is
over 2e-2."""

import sys

import torch

from sdpa_bwd.engine import launch


def main(argv):
    B, H, S_q, S_kv, D, causal, tma_ep = (int(a) for a in argv)
    torch.manual_seed(0)
    q, k, v = (torch.randn(B, H, s, D, device="cuda", dtype=torch.bfloat16) for s in (S_q, S_kv, S_kv))
    rb = 0 if causal else None
    o, stats = launch.attention_forward(q, k, v, right_bound=rb)
    do = torch.randn_like(o)
    try:
        with launch.switches(gluon_bwd_tma_epilogue=bool(tma_ep), gluon_bwd_head_dims=(64, 128),
                             gluon_bwd_causal_head_dims=(64, 128)):
            dq, dk, dv = launch.attention_backward(q, k, v, o, do, stats, right_bound=rb)
        torch.cuda.synchronize()
    except Exception as e:  # a CUDA error: the context is broken, nothing more can run here
        print(f"FAULT {argv}: {type(e).__name__}: {str(e)[:120]}")
        return 1
    ref = [t.detach().float().requires_grad_() for t in (q, k, v)]
    out = torch.nn.functional.scaled_dot_product_attention(*ref, is_causal=bool(causal) and S_q == S_kv)
    out.backward(do.float())
    errs = [float((a.float() - r.grad).norm() / r.grad.norm().clamp_min(1e-30)) for a, r in zip((dq, dk, dv), ref)]
    bad = (S_q == S_kv or not causal) and max(errs) > 2e-2
    print(f"{'BAD' if bad else 'ok'} {argv}: rel err dq {errs[0]:.1e} dk {errs[1]:.1e} dv {errs[2]:.1e}")
    return 2 if bad else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
