"""Does Triton 3.6's Hopper warp specialisation make an attention forward faster? A probe, not an engine.

    PYTHONPATH=src python3 tools/ws_forward_probe.py [--out DIR]

A local sm_90a compile (session 9) found the conditions under which Triton 3.6 splits a loop
``tl.range(..., warp_specialize=True)`` into a TMA producer warp group (40 registers) and two consumer
warp groups of 64 query rows each (232 registers, ``setmaxnreg``): exactly 4 warps, every operand of a
``tl.dot`` loaded through a tensor descriptor, one loop, no runtime if/else in the function. Our forward
(``kernels.attention_fwd``) breaks each of those, so it is left as is; this file times a minimal kernel
that meets them - packed BHSD, 16-bit, D 128, the causal mask as ``tl.where`` on every tile of one loop -
with and without the specialisation, beside our forward and cuDNN's, and checks O against cuDNN's.
It does not write stats the way the engine does (a log2 LSE is stored, unchecked) and handles no other
layout, band, GQA or length not a multiple of the tiles: what it answers is whether a specialised fast
path is worth building for the layouts TMA can read.
"""

import argparse
import json
import os
import time

import torch
import torch.nn.functional as F
import triton
import triton.language as tl
from torch.nn.attention import SDPBackend, sdpa_kernel

from sdpa_bwd.engine import launch


@triton.jit
def ws_probe_fwd(Q, K, V, O, LSE, qk_scale, BH, S, HEAD_DIM: tl.constexpr, BLOCK_M: tl.constexpr,
                 BLOCK_N: tl.constexpr, CAUSAL: tl.constexpr, WS: tl.constexpr):
    start_m = tl.program_id(0)
    bh = tl.program_id(1)
    row0 = bh * S
    qrow = row0 + start_m * BLOCK_M
    offs_m = start_m * BLOCK_M + tl.arange(0, BLOCK_M)
    total = BH * S
    dq = tl.make_tensor_descriptor(Q, shape=[total, HEAD_DIM], strides=[HEAD_DIM, 1], block_shape=[BLOCK_M, HEAD_DIM])
    dk = tl.make_tensor_descriptor(K, shape=[total, HEAD_DIM], strides=[HEAD_DIM, 1], block_shape=[BLOCK_N, HEAD_DIM])
    dv = tl.make_tensor_descriptor(V, shape=[total, HEAD_DIM], strides=[HEAD_DIM, 1], block_shape=[BLOCK_N, HEAD_DIM])
    do = tl.make_tensor_descriptor(O, shape=[total, HEAD_DIM], strides=[HEAD_DIM, 1], block_shape=[BLOCK_M, HEAD_DIM])
    q = dq.load([qrow, 0])
    hi = (start_m + 1) * BLOCK_M if CAUSAL else S
    m_i = tl.full([BLOCK_M], float("-inf"), tl.float32)
    l_i = tl.zeros([BLOCK_M], tl.float32) + 1.0
    acc = tl.zeros([BLOCK_M, HEAD_DIM], tl.float32)
    for start_n in tl.range(0, hi, BLOCK_N, warp_specialize=WS):
        k = dk.load([row0 + start_n, 0]).T
        qk = tl.dot(q, k)
        if CAUSAL:
            offs_n = start_n + tl.arange(0, BLOCK_N)
            qk = qk + tl.where(offs_m[:, None] >= offs_n[None, :], 0.0, -1.0e6)
        m_ij = tl.maximum(m_i, tl.max(qk, 1) * qk_scale)
        qk = qk * qk_scale - m_ij[:, None]
        p = tl.math.exp2(qk)
        alpha = tl.math.exp2(m_i - m_ij)
        l_ij = tl.sum(p, 1)
        acc = acc * alpha[:, None]
        v = dv.load([row0 + start_n, 0])
        acc = tl.dot(p.to(v.dtype), v, acc)
        l_i = l_i * alpha + l_ij
        m_i = m_ij
    tl.store(LSE + row0 + offs_m, m_i + tl.math.log2(l_i))
    do.store([qrow, 0], (acc / l_i[:, None]).to(O.dtype.element_ty))


def kernel_facts(kern) -> dict:
    """Registers, spills, shared bytes and warps of a launched kernel (12 warps: the loop was specialised)."""
    md = getattr(kern, "metadata", None)
    return dict(n_regs=getattr(kern, "n_regs", None), n_spills=getattr(kern, "n_spills", None),
                shared=getattr(md, "shared", None), total_warps=getattr(md, "num_warps", None))


def facts_line(r: dict) -> str:
    return f"regs {r['n_regs']} spills {r['n_spills']} warps {r['total_warps']} smem {r['shared']}"


def failed(tag: str, name: str, exc: Exception) -> dict:
    r = dict(row=tag, variant=name, error=f"{type(exc).__name__}: {str(exc)[:300]}")
    print(f"  {name}: FAILED {r['error']}", flush=True)
    return r


def save(out_dir: str, file_name: str, results: list) -> None:
    with open(os.path.join(out_dir, file_name), "w") as f:
        json.dump(dict(meta=dict(device=torch.cuda.get_device_name(), triton=triton.__version__,
                                 torch=torch.__version__), results=results), f, indent=1)


VARIANTS = [  # name, BLOCK_N, num_warps, num_stages, WS
    ("ws 4w 128/64 s2", 64, 4, 2, True), ("ws 4w 128/64 s3", 64, 4, 3, True),
    ("ws 4w 128/128 s2", 128, 4, 2, True),
    ("plain 8w 128/128 s3", 128, 8, 3, False), ("plain 8w 128/64 s3", 64, 8, 3, False),
]
ROWS = [(2, 16, 4096, False), (2, 16, 4096, True), (1, 16, 8192, False), (1, 16, 8192, True)]


def probe_args(doc: str):
    """(args, dtype) of a probe's command line, its output folder made and the descriptors' allocator set."""
    ap = argparse.ArgumentParser(description=doc, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--out", default="/tmp/ws_probe")
    ap.add_argument("--dtype", default="bfloat16")
    args = ap.parse_args()
    os.makedirs(args.out, exist_ok=True)
    triton.set_allocator(lambda size, align, stream: torch.empty(size, dtype=torch.int8, device="cuda"))
    return args, getattr(torch, args.dtype)


def bench(fn):
    return triton.testing.do_bench(fn, warmup=10, rep=50, return_mode="median")


def main():
    args, dtype = probe_args(__doc__)
    results, D = [], 128
    for B, H, S, causal in ROWS:
        gen = torch.Generator(device="cuda").manual_seed(S + causal)
        q, k, v = (torch.randn(B, H, S, D, device="cuda", generator=gen).to(dtype) for _ in range(3))
        flops = 4 * B * H * S * S * D * (0.5 if causal else 1.0)
        with sdpa_kernel(SDPBackend.CUDNN_ATTENTION):
            ref = F.scaled_dot_product_attention(q, k, v, is_causal=causal)
            t_cudnn = bench(lambda: F.scaled_dot_product_attention(q, k, v, is_causal=causal))
        t_ours = bench(lambda: launch.attention_forward(q, k, v, right_bound=0 if causal else None))
        tag = f"({B},{H},{S},{D}) {'causal' if causal else 'nc'} {args.dtype}"
        print(f"{tag}: cuDNN {t_cudnn:.3f} ms ({flops / t_cudnn / 1e9:.0f} TF), ours {t_ours:.3f} ms "
              f"({flops / t_ours / 1e9:.0f} TF)", flush=True)
        results.append(dict(row=tag, variant="ours", ms=t_ours, cudnn_ms=t_cudnn))
        o = torch.empty_like(q)
        lse = torch.empty(B * H * S, device="cuda", dtype=torch.float32)
        scale = D ** -0.5 * 1.4426950408889634
        for name, bn, nw, ns, ws in VARIANTS:
            grid = (S // 128, B * H)
            fn = lambda: ws_probe_fwd[grid](q, k, v, o, lse, scale, B * H, S, HEAD_DIM=D, BLOCK_M=128,  # noqa: E731
                                           BLOCK_N=bn, CAUSAL=causal, WS=ws, num_warps=nw, num_stages=ns)
            try:
                t0 = time.time()
                kern = fn()
                torch.cuda.synchronize()
                compile_s = time.time() - t0
                err = ((o.float() - ref.float()).norm() / ref.float().norm()).item()
                t = bench(fn)
                r = dict(row=tag, variant=name, ms=t, cudnn_ms=t_cudnn, ratio=t_cudnn / t, err_vs_cudnn=err,
                         compile_s=compile_s, **kernel_facts(kern))
                print(f"  {name:20} {t:.3f} ms ({flops / t / 1e9:.0f} TF) ratio {t_cudnn / t:.3f} vs ours "
                      f"{t_ours / t:.3f} err {err:.1e} {facts_line(r)}", flush=True)
            except Exception as exc:
                r = failed(tag, name, exc)
            results.append(r)
        save(args.out, "ws_forward_probe.json", results)


if __name__ == "__main__":
    main()
