"""Does Triton 3.6's Hopper warp specialisation make the backward's DKDV pass faster? A probe, not an engine.

    PYTHONPATH=src python3 tools/ws_dkdv_probe.py [--out DIR]

The forward's probe (tools/ws_forward_probe.py, run 36) found the specialised loop (a TMA producer warp
group and two consumer warp groups, ``setmaxnreg`` 40 / 232) 13-24% faster than the same kernel on 8
plain warps. The DKDV pass is two thirds of our backward and sits at the 255-register ceiling on 8 warps;
FlashAttention-3's answer to that is this structure. Here a minimal DKDV pass that meets Triton 3.6's
conditions (4 warps, Q and dO through tensor descriptors, one loop, LSE and delta as 64-wide pointer
loads, no runtime branch): 128 keys a program, so each consumer owns 64 key rows of dK and dV. Packed
BHSD, 16-bit, D 128, no mask, S a multiple of the tiles. dK and dV are checked against cuDNN's; the time
is set beside our DKDV kernel's (profiler) and our whole backward, and cuDNN's whole backward.
"""

import math
import os
import sys

import torch
import torch.nn.functional as F
import triton
import triton.language as tl
from torch.nn.attention import SDPBackend, sdpa_kernel

from sdpa_bwd.engine import launch

sys.path.insert(0, os.path.dirname(__file__))
from ab_perf import rel, split  # noqa: E402  (relative L2 error; the profiler's per-kernel split)
from ws_forward_probe import bench, facts_line, failed, kernel_facts, probe_args, save  # noqa: E402


@triton.jit
def ws_probe_dkdv(Q, K, V, DO, LSE2, DELTA, DK, DV, qk_scale, sm_scale, BH, S, HEAD_DIM: tl.constexpr,
                  BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, WS: tl.constexpr):
    start_n = tl.program_id(0)
    bh = tl.program_id(1)
    row0 = bh * S
    krow = row0 + start_n * BLOCK_N
    total = BH * S
    d_q = tl.make_tensor_descriptor(Q, shape=[total, HEAD_DIM], strides=[HEAD_DIM, 1], block_shape=[BLOCK_M, HEAD_DIM])
    d_do = tl.make_tensor_descriptor(DO, shape=[total, HEAD_DIM], strides=[HEAD_DIM, 1], block_shape=[BLOCK_M, HEAD_DIM])
    d_k = tl.make_tensor_descriptor(K, shape=[total, HEAD_DIM], strides=[HEAD_DIM, 1], block_shape=[BLOCK_N, HEAD_DIM])
    d_v = tl.make_tensor_descriptor(V, shape=[total, HEAD_DIM], strides=[HEAD_DIM, 1], block_shape=[BLOCK_N, HEAD_DIM])
    d_dk = tl.make_tensor_descriptor(DK, shape=[total, HEAD_DIM], strides=[HEAD_DIM, 1], block_shape=[BLOCK_N, HEAD_DIM])
    d_dv = tl.make_tensor_descriptor(DV, shape=[total, HEAD_DIM], strides=[HEAD_DIM, 1], block_shape=[BLOCK_N, HEAD_DIM])
    k = d_k.load([krow, 0])
    v = d_v.load([krow, 0])
    dk = tl.zeros([BLOCK_N, HEAD_DIM], tl.float32)
    dv = tl.zeros([BLOCK_N, HEAD_DIM], tl.float32)
    for start_m in tl.range(0, S, BLOCK_M, warp_specialize=WS):
        offs_m = row0 + start_m + tl.arange(0, BLOCK_M)
        q = d_q.load([row0 + start_m, 0])
        lse = tl.load(LSE2 + offs_m)
        p_t = tl.math.exp2(tl.dot(k, q.T) * qk_scale - lse[None, :])
        do = d_do.load([row0 + start_m, 0])
        dv = tl.dot(p_t.to(do.dtype), do, dv)
        delta = tl.load(DELTA + offs_m)
        dp_t = tl.dot(v, do.T)
        ds_t = p_t * (dp_t - delta[None, :])
        dk = tl.dot(ds_t.to(q.dtype), q, dk)
    d_dk.store([krow, 0], (dk * sm_scale).to(DK.dtype.element_ty))
    d_dv.store([krow, 0], dv.to(DV.dtype.element_ty))


VARIANTS = [  # name, BLOCK_M (query rows an iteration), BLOCK_N (keys a program), num_warps, num_stages, WS
    ("ws 4w 64/128 s2", 64, 128, 4, 2, True), ("ws 4w 32/128 s2", 32, 128, 4, 2, True),
    ("ws 4w 64/128 s3", 64, 128, 4, 3, True),
    ("plain 8w 64/128 s3", 64, 128, 8, 3, False), ("plain 8w 64/128 s2", 64, 128, 8, 2, False),
]
ROWS = [(2, 16, 4096), (1, 16, 8192)]


def dkdv_ms(fn):
    """Device ms of our DKDV kernel in one backward call (ab_perf's profiler split, mean of 5 calls)."""
    return split(fn).get("bwd_dkdv_kernel", float("nan"))


def main():
    args, dtype = probe_args(__doc__)
    results, D = [], 128
    sm_scale = D ** -0.5
    for B, H, S in ROWS:
        gen = torch.Generator(device="cuda").manual_seed(S)
        q, k, v, do = (torch.randn(B, H, S, D, device="cuda", generator=gen).to(dtype) for _ in range(4))
        flops = 8 * B * H * S * S * D  # the DKDV pass's four products
        qg, kg, vg = (t.detach().requires_grad_() for t in (q, k, v))
        with sdpa_kernel(SDPBackend.CUDNN_ATTENTION):
            out = F.scaled_dot_product_attention(qg, kg, vg)
            _, ref_dk, ref_dv = torch.autograd.grad(out, (qg, kg, vg), do, retain_graph=True)
            t_cudnn = bench(lambda: torch.autograd.grad(out, (qg, kg, vg), do, retain_graph=True))
        o, stats = launch.attention_forward(q, k, v)
        ours = lambda: launch.attention_backward(q, k, v, o, do, stats)  # noqa: E731
        t_ours, t_ours_dkdv = bench(ours), dkdv_ms(ours)
        lse2 = (stats.float() * math.log2(math.e)).reshape(-1).contiguous()   # natural-log LSE -> log2
        delta = (do.float() * o.float()).sum(-1).reshape(-1).contiguous()
        tag = f"({B},{H},{S},{D}) nc {args.dtype}"
        print(f"{tag}: cuDNN backward {t_cudnn:.3f} ms; ours {t_ours:.3f} ms, its DKDV {t_ours_dkdv:.3f} ms "
              f"({flops / t_ours_dkdv / 1e9:.0f} TF)", flush=True)
        results.append(dict(row=tag, variant="ours", ms=t_ours, dkdv_ms=t_ours_dkdv, cudnn_ms=t_cudnn))
        dk, dv = torch.empty_like(k), torch.empty_like(v)
        for name, bm, bn, nw, ns, ws in VARIANTS:
            grid = (S // bn, B * H)
            fn = lambda: ws_probe_dkdv[grid](q, k, v, do, lse2, delta, dk, dv, sm_scale * math.log2(math.e),  # noqa: E731
                                            sm_scale, B * H, S, HEAD_DIM=D, BLOCK_M=bm, BLOCK_N=bn, WS=ws,
                                            num_warps=nw, num_stages=ns)
            try:
                kern = fn()
                torch.cuda.synchronize()
                err = max(rel(dk, ref_dk), rel(dv, ref_dv))
                t = bench(fn)
                r = dict(row=tag, variant=name, ms=t, vs_ours_dkdv=t_ours_dkdv / t, err_vs_cudnn=err,
                         **kernel_facts(kern))
                print(f"  {name:20} {t:.3f} ms ({flops / t / 1e9:.0f} TF) ours' DKDV / this {t_ours_dkdv / t:.3f} "
                      f"err {err:.1e} {facts_line(r)}", flush=True)
            except Exception as exc:
                r = failed(tag, name, exc)
            results.append(r)
        save(args.out, "ws_dkdv_probe.json", results)
        del out, qg, kg, vg
        torch.cuda.empty_cache()


if __name__ == "__main__":
    main()
