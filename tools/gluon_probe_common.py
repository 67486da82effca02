"""What the Gluon compile reports (``gluon_bwd_compile.py``, ``gluon_fwd_compile.py``) and A/B tools (``ab192.py``,
``ab_forward.py``) share: descriptors, the compile-only report (ptxas -v included), and GPU helpers (inputs, checks
against PyTorch's fp32 autograd, interleaved timings, cuDNN's backward). The wgmma layout and the stage barriers come from the engine's Gluon
forward (``sdpa_bwd.engine.kernels.attention_fwd_gluon``), the loader partition from its backward
(``sdpa_bwd.engine.kernels.attention_bwd_gluon.load_pairs``)."""

from __future__ import annotations

import json
import math
import os
import re

import triton
from triton.experimental.gluon import language as gl


def desc(t, rows):
    """A TMA descriptor over BHSD ``t`` as a (B H S, D) matrix, blocks of ``rows`` rows."""
    from triton.experimental.gluon.nvidia.hopper import TensorDescriptor

    B, H, S, D = t.shape
    lay = gl.NVMMASharedLayout.get_default_for([rows, D], gl.bfloat16)
    return TensorDescriptor(t.view(B * H * S, D), [B * H * S, D], [D, 1], [rows, D], lay)


def desc_signature(rows: int, dtype: str = "bfloat16", block_shape=None, layout=None) -> str:
    """The signature string of a descriptor, for compiling without tensors: by default a bf16 D-128 one of
    ``rows``-row blocks; else of ``dtype`` (torch's name: "bfloat16", "float16", "float32") in blocks of
    ``block_shape`` with ``layout`` (of the block's rank)."""
    from triton.experimental.gluon.nvidia.hopper import TensorDescriptor
    from triton.runtime.jit import mangle_type

    class _Base:  # what mangle_type reads of a tensor: its dtype name and its address
        def data_ptr(self):
            return 0

    base = _Base()
    base.dtype = dtype
    if block_shape is None:
        block_shape, layout = [rows, 128], gl.NVMMASharedLayout.get_default_for([rows, 128], gl.bfloat16)
    # dims and strides are not in the signature; any the constructor accepts (16-byte strides, the last 1)
    shape = list(block_shape)
    strides = [1 << 10] * (len(block_shape) - 1) + [1]
    return mangle_type(TensorDescriptor(base, shape, strides, list(block_shape), layout))


def signature_of(kernel, dtype: str, fp32_ptrs=(), floats=()) -> dict:
    """A Gluon kernel's compile signature from its parameters: constexprs by name, ``*_ptr`` as ``*dtype`` (those
    in ``fp32_ptrs`` as ``*fp32``), the names in ``floats`` fp32, every other argument i32."""
    sig = {}
    for p in kernel.params:
        if p.is_constexpr:
            sig[p.name] = "constexpr"
        elif p.name.endswith("_ptr"):
            sig[p.name] = "*fp32" if p.name in fp32_ptrs else f"*{dtype}"
        else:
            sig[p.name] = "fp32" if p.name in floats else "i32"
    return sig


def compile_report(kernel, signature: dict, constexprs: dict, maxnreg: int = 168, with_ptx: bool = False) -> dict:
    """Compile ``kernel`` for sm_90a without a GPU or torch: shared memory, products, their waits, register
    budgets, and ptxas -v's verdict (``with_ptx``: the PTX too, under "ptx")."""
    from triton.backends.compiler import GPUTarget
    from triton.experimental.gluon._runtime import GluonASTSource

    k = triton.compile(GluonASTSource(kernel, signature, constexprs), target=GPUTarget("cuda", 90, 32),
                       options=dict(num_warps=4, maxnreg=maxnreg))
    ptx = k.asm["ptx"]
    # the budget every thread starts with, over all warps Triton launches (partitions padded to whole warpgroups):
    # over the SM's 65,536 the launch fails, and a default partition's setmaxnreg then over-asks
    threads = k.metadata.num_warps * 32
    return dict(**constexprs, shared=k.metadata.shared, threads=threads, register_file=k.metadata.maxnreg * threads,
                wgmma=ptx.count("wgmma.mma_async"),
                waits=[int(n) for n in re.findall(r"wgmma\.wait_group\.sync\.aligned\s+(\d+)", ptx)],
                setmaxnreg=re.findall(r"setmaxnreg\.(\w+)\.sync\.aligned\.u32\s+(\d+);", ptx), **ptxas_report(ptx),
                **(dict(ptx=ptx) if with_ptx else {}))


def ptxas_report(ptx: str) -> dict:
    """What ptxas -v says of the PTX: registers, spill bytes, and whether it serialises the wgmma: for want of
    registers (C7512), which the DKDV probe's first version did, or because registers of an accumulator in flight were
    set by other instructions (C7515), which the Gluon backward's first deterministic loop (2026-12-02) did (an
    accumulator of zeros carried into a loop of products: every wgmma of the loop waited for, 18% slower)."""
    import subprocess
    import tempfile

    from triton.backends.nvidia.compiler import get_ptxas

    ptxas = get_ptxas(90).path  # the one Triton compiles sm_90a with (3.9 ships two)
    with tempfile.TemporaryDirectory() as tmp:
        src = os.path.join(tmp, "k.ptx")
        with open(src, "w") as f:
            f.write(ptx)
        run = subprocess.run([ptxas, "-arch=sm_90a", "-v", src, "-o", os.path.join(tmp, "k.cubin")],
                             capture_output=True, text=True)
    log = run.stderr
    regs = re.search(r"Used (\d+) registers", log)
    spill = re.search(r"(\d+) bytes spill stores, (\d+) bytes spill loads", log)
    return dict(registers=int(regs.group(1)) if regs else None,
                spill_bytes=[int(spill.group(1)), int(spill.group(2))] if spill else None,
                wgmma_serialized="C7512" in log or "C7515" in log)


def fp32_grads(q, k, v, do, causal: bool) -> dict:
    """dq, dk, dv of softmax(Q K^T / sqrt(D_qk)) V by fp32 autograd (the causal diagonal at 0), for S small enough
    that the score matrix fits."""
    import torch

    S_q, S_kv = q.shape[2], k.shape[2]
    qf, kf, vf = (t.float().requires_grad_() for t in (q, k, v))
    sc = qf @ kf.transpose(-1, -2) / math.sqrt(q.shape[3])
    if causal:
        sc = sc.masked_fill(torch.ones(S_q, S_kv, device=q.device, dtype=torch.bool).triu(1), float("-inf"))
    return dict(zip(("dq", "dk", "dv"), torch.autograd.grad(torch.softmax(sc, -1) @ vf, (qf, kf, vf), do.float())))


def rel_err(mine, ref) -> float:
    """Relative L2 error of ``mine`` against ``ref``, both taken in fp32."""
    return ((mine.float() - ref.float()).norm() / ref.float().norm()).item()


def save_rows(out, name: str, rows: list) -> None:
    """An A/B tool's JSON rows (``tools/ab192.py``, ``tools/ab_forward.py``) as ``name`` under ``out``; nothing
    without ``out``."""
    if out:
        os.makedirs(out, exist_ok=True)
        with open(os.path.join(out, name), "w") as f:
            json.dump(rows, f, indent=1)


def cudnn_backward(q, k, v, do, causal: bool):
    """A function running cuDNN's backward (PyTorch's SDPA, its cuDNN backend) of one forward on these inputs."""
    import torch
    from torch.nn.attention import SDPBackend, sdpa_kernel

    q_, k_, v_ = (t.detach().requires_grad_() for t in (q, k, v))
    with sdpa_kernel(SDPBackend.CUDNN_ATTENTION):
        out = torch.nn.functional.scaled_dot_product_attention(q_, k_, v_, is_causal=causal,
                                                               enable_gqa=k.shape[1] != q.shape[1])
    return lambda: torch.autograd.grad(out, (q_, k_, v_), do, retain_graph=True)


def inputs192(dtype_name: str = "bfloat16", causal: bool = True, seed: int = 41):
    """The 192 / 128 problem of the power-cap study (h200-2026-12-04a) on the GPU: (q, k, v, o, do, stats, band) at
    (1, 16, 4096), D_qk 192 / D_v 128, BHSD, fresh normal inputs from ``seed`` (Q, K, then V, dO), O and the stats
    from our forward, ``band`` the causal mask's keyword (or none)."""
    import torch

    from sdpa_bwd.engine import launch

    dt = getattr(torch, dtype_name)
    gen = torch.Generator(device="cuda").manual_seed(seed)
    B, H, S = 1, 16, 4096
    q, k = (torch.randn(B, H, S, 192, device="cuda", dtype=dt, generator=gen) for _ in range(2))
    v, do = (torch.randn(B, H, S, 128, device="cuda", dtype=dt, generator=gen) for _ in range(2))
    band = dict(right_bound=0) if causal else {}
    o, stats = launch.attention_forward(q, k, v, **band)
    return q, k, v, o, do, stats, band


def interleaved_ms(fns: dict, rounds: int = 2, rep: int = 40) -> dict:
    """Each function's ``triton.testing.do_bench`` median (ms), ``rounds`` times, the functions interleaved."""
    ms = {n: [] for n in fns}
    for _ in range(rounds):
        for n, fn in fns.items():
            ms[n].append(triton.testing.do_bench(fn, warmup=10, rep=rep))
    return ms
