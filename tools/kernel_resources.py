"""Registers, stack (spills) and shared memory of the engine's main kernels for sm_90a, without a GPU.

    TRITON_DEFAULT_FP_FUSION=1 python tools/kernel_resources.py

Compiles the DKDV and DQ kernels with this machine's Triton and its ptxas for an
H100/H200 target (GPUTarget cuda 90) with the launch's specialisations (pointers,
row/batch/head strides and lengths divisible by 16, head-dim stride 1), then reads
``cuobjdump -res-usage``. The GPU's Triton (3.6) may allocate differently: compare
variants with each other, not with the card's numbers.
"""

import os
import re
import subprocess
import sys
import tempfile

import triton
from triton.backends.compiler import GPUTarget

from sdpa_bwd.engine.kernels import attention_bwd_dkdv_kernel, attention_bwd_dq_kernel

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from ptx_diff import sm90_source  # noqa: E402

TARGET = GPUTarget("cuda", 90, 32)


def resources(fn, consts, num_warps, num_stages):
    """(registers, stack bytes, shared bytes) of ``fn`` compiled with ``consts`` (the signature as
    ``ptx_diff.sm90_source`` types it; constexprs the row leaves out keep their defaults)."""
    k = triton.compile(sm90_source(fn, consts), target=TARGET,
                       options=dict(num_warps=num_warps, num_stages=num_stages))
    with tempfile.NamedTemporaryFile(suffix=".cubin") as f:
        f.write(k.asm["cubin"])
        f.flush()
        cuobjdump = os.path.join(os.path.dirname(triton.__file__), "backends", "nvidia", "bin", "cuobjdump")
        out = subprocess.run([cuobjdump, "-res-usage", f.name], capture_output=True, text=True).stdout
    return int(re.search(r"REG:(\d+)", out).group(1)), int(re.search(r"STACK:(\d+)", out).group(1)), \
        k.metadata.shared


def report(kernel_name, fn, rows, extra):
    for tma in (False, True):
        for block_m, block_n, warps, stages, d_qk_pad, d_qk, d_v, tag, *split in rows:
            consts = dict(BLOCK_M=block_m, BLOCK_N=block_n, D_QK=d_qk, D_QK_PAD=d_qk_pad, D_V=d_v, D_V_PAD=d_v,
                          HAS_LEFT=False, HAS_RIGHT=False, DOT_PRECISION="tf32", WIDE=False, TMA=tma,
                          D_QK_SPLIT=split[0] if split else 0, **extra)
            consts.update({n: 1 for n in fn.arg_names if n.startswith("stride_") and n.endswith("d")})
            try:
                regs, stack, smem = resources(fn, consts, warps, stages)
                print(f"{kernel_name:4} {tag:20} TMA={tma!s:5} regs {regs} stack {stack} B smem {smem} B",
                      flush=True)
            except Exception as exc:
                print(f"{kernel_name:4} {tag:20} TMA={tma!s:5} {type(exc).__name__}: {str(exc)[:200]}", flush=True)


if __name__ == "__main__":
    # A row: (BLOCK_M, BLOCK_N, warps, stages, D_QK_PAD, D_QK, D_V, tag[, D_QK_SPLIT]); 192/128 runs as a
    # 128 + 64 split (launch.d_qk_chunks), the "padded" rows as one chunk of 256.
    report("DKDV", attention_bwd_dkdv_kernel, [
        (64, 128, 8, 3, 128, 128, 128, "hd128 table"),
        (32, 128, 4, 4, 64, 64, 64, "hd64 table"),
        (32, 64, 4, 3, 128, 192, 128, "192/128 table", 64),
        (64, 64, 8, 2, 128, 192, 128, "192/128 64/64 8w", 64),
        (64, 64, 8, 2, 256, 192, 128, "192/128 padded"),
    ], dict(COMPUTE_DK=True, COMPUTE_DV=True, ATOMIC_DQ=False, DQ_TMA=False))
    report("DQ", attention_bwd_dq_kernel, [
        (128, 64, 8, 3, 128, 128, 128, "hd128 table"),
        (64, 64, 4, 3, 64, 64, 64, "hd64 table"),
        (64, 32, 4, 3, 128, 192, 128, "192/128 table", 64),
    ], {})
