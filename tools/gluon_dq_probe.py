"""The backward's dQ pass in the Gluon forward's shape: does it beat the Triton dQ pass? (GPU probe)

    PYTHONPATH=src python3 tools/gluon_dq_probe.py [--out DIR] [--stages N] [--compile-only]

Written 2026-12-01 (h200-2026-12-01m), the sibling of ``tools/gluon_dkdv_probe.py``: with both, the backward's two
passes (7 products) would run in Gluon, and a DKDV pass at ~650 TFLOP/s plus this at ~700 would put the hd128 backward
near 0.87 of cuDNN (from 0.825); passing cuDNN still needs the 5-product design (dQ from the DKDV pass), which waits
for a bulk reduce (see the DKDV probe). For BHSD, D 128, bf16, S a multiple of 128, H_q = H_kv, no mask or the causal
one (top left). One program owns 128 query rows of one (batch, head):

- a loader partition (1 warp) loads the program's Q and dO rows once (two tiles of 64 each) and streams K_j,
  V_j tiles of 64 keys through STAGES buffers, "ready" and "empty" mbarriers for each;
- two consumer partitions (4 warps, 64 query rows each) never wait for each other. Per key tile: S = Q K_j^T and
  dP = dO V_j^T issued back to back; S waited for with dP in flight (and the previous tile's dQ product done,
  which releases K_{j-1}); P = exp2(S scale log2e - LSE log2e) under dP; V_j released once dP is done; dS = P
  (dP - delta) stored to shared memory; dQ += dS K_j issued and left in flight under the next tile's S and dP.

Under the causal mask the program's last two key tiles hold its diagonal and are peeled and masked; the loop
has none. dQ is scaled at the end and stored through pointers. On a GPU it checks dQ against PyTorch's fp32
autograd (small shapes first: a wrong mbarrier phase shows as a hang there) and times itself against cuDNN's
whole backward and ours; TFLOP/s counts its 3 products over the kept pairs. ``--compile-only``: shared memory,
wgmma count, each product wait's outstanding count, the partitions' register budgets and ptxas -v's verdict
(registers, spills, serialised wgmma), without a GPU (not under TRITON_INTERPRET).

Status (2026-12-01): compiles for sm_90a with Triton 3.6 and 3.9 clean (147,840 B of shared memory on 2 stages,
180,672 on 3; 120 wgmma; 168 registers, no spill, not serialised; ``tests/test_gluon_backward_probes.py``);
**not run on a GPU**. Prediction: 650-750 TFLOP/s at (2,16,4096,128) non-causal, i.e. 0.55-0.63 ms
against the Triton dQ pass's 0.63-0.66.
"""

from __future__ import annotations

import math
import os
import sys

from triton.experimental import gluon
from triton.experimental.gluon import language as gl
from triton.experimental.gluon.language.nvidia.hopper import (
    fence_async_shared,
    mbarrier,
    warpgroup_mma,
    warpgroup_mma_wait,
)

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from gluon_probe_common import LOG2E, compile_report, desc, desc_signature, main  # noqa: E402

from sdpa_bwd.engine.kernels.attention_bwd_gluon import load_pairs  # noqa: E402
from sdpa_bwd.engine.kernels.attention_fwd_gluon import stage_barriers, wgmma_layout  # noqa: E402

ROWS_ = 64  # query rows a consumer partition owns; a program owns two such blocks
KEYS_ = 64  # keys a streamed K or V tile holds
ROWS = gl.constexpr(ROWS_)


@gluon.jit
def _tile(j, q_tile, do_tile, k_smem, v_smem, ds_smem, k_ready, v_ready, k_empty, v_empty, lse2, delta, qpos,
          qk_scale_log2, s_layout: gl.constexpr, dq_tok, masked, FIRST: gl.constexpr):
    """Key tile j: S and dP issued; S waited for with dP in flight (and tile j-1's dQ product, which releases
    K_{j-1} and the dS buffer); P under dP; V_j released; dS stored; dQ += dS K_j issued and left in flight.
    ``masked`` (the causal diagonal's two tiles; the literal False in the loop compiles it away): keys past the
    query row get no probability."""
    STAGES: gl.constexpr = k_smem.type.shape[0]
    KEYS: gl.constexpr = k_smem.type.shape[1]
    s = j % STAGES
    zero = gl.zeros([ROWS, KEYS], gl.float32, s_layout)
    mbarrier.wait(k_ready.index(s), (j // STAGES) & 1)
    s_tok = warpgroup_mma(q_tile, k_smem.index(s).permute((1, 0)), zero, use_acc=False, is_async=True)
    mbarrier.wait(v_ready.index(s), (j // STAGES) & 1)
    dp_tok = warpgroup_mma(do_tile, v_smem.index(s).permute((1, 0)), zero, use_acc=False, is_async=True)
    if FIRST:
        s_t = warpgroup_mma_wait(1, deps=(s_tok,))
    else:
        # pending: dQ_{j-1}, S_j, dP_j; one left in flight means dQ_{j-1} and S_j are done
        s_t, dq_tok = warpgroup_mma_wait(1, deps=(s_tok, dq_tok))
        mbarrier.arrive(k_empty.index((j - 1) % STAGES), count=1)
    if masked:
        kpos = j * KEYS + gl.arange(0, KEYS, layout=gl.SliceLayout(0, s_layout))
        s_t = gl.where(kpos[None, :] <= qpos[:, None], s_t, float("-inf"))
    p = gl.exp2(s_t * qk_scale_log2 - lse2[:, None])
    dp = warpgroup_mma_wait(0, deps=(dp_tok,))
    mbarrier.arrive(v_empty.index(s), count=1)
    ds_smem.store((p * (dp - delta[:, None])).to(ds_smem.dtype))
    fence_async_shared()
    return warpgroup_mma(ds_smem, k_smem.index(s), dq_tok, use_acc=not FIRST, is_async=True)


@gluon.jit
def _consumer(q_tile, do_tile, ds_smem, dq_ptr, lse_ptr, delta_ptr, row0, m0, n_tiles, qk_scale_log2, scale,
              causal, k_smem, v_smem, qdo_bar, k_ready, v_ready, k_empty, v_empty):
    STAGES: gl.constexpr = k_smem.type.shape[0]
    KEYS: gl.constexpr = k_smem.type.shape[1]
    D: gl.constexpr = q_tile.type.shape[1]
    s_layout: gl.constexpr = wgmma_layout(KEYS)
    dq_layout: gl.constexpr = wgmma_layout(D)
    qpos = m0 + gl.arange(0, ROWS, layout=gl.SliceLayout(1, s_layout))  # this consumer's rows in the head
    lse2 = gl.load(lse_ptr + row0 + gl.arange(0, ROWS, layout=gl.SliceLayout(1, s_layout))) * 1.4426950408889634
    delta = gl.load(delta_ptr + row0 + gl.arange(0, ROWS, layout=gl.SliceLayout(1, s_layout)))
    mbarrier.wait(qdo_bar, 0)
    dq_tok = gl.zeros([ROWS, D], gl.float32, dq_layout)
    n_free = n_tiles - 2 * causal  # the unmasked tiles; under the causal mask the last two are the diagonal's
    dq_tok = _tile(0, q_tile, do_tile, k_smem, v_smem, ds_smem, k_ready, v_ready, k_empty, v_empty, lse2, delta,
                   qpos, qk_scale_log2, s_layout, dq_tok, n_free <= 0, True)
    for j in range(1, n_free):
        dq_tok = _tile(j, q_tile, do_tile, k_smem, v_smem, ds_smem, k_ready, v_ready, k_empty, v_empty, lse2,
                       delta, qpos, qk_scale_log2, s_layout, dq_tok, False, False)
    for j in range(gl.maximum(n_free, 1), n_tiles):  # the diagonal's tiles, masked (none without the mask)
        dq_tok = _tile(j, q_tile, do_tile, k_smem, v_smem, ds_smem, k_ready, v_ready, k_empty, v_empty, lse2,
                       delta, qpos, qk_scale_log2, s_layout, dq_tok, True, False)
    dq = warpgroup_mma_wait(0, deps=(dq_tok,))
    mbarrier.arrive(k_empty.index((n_tiles - 1) % STAGES), count=1)
    rows = row0 + gl.arange(0, ROWS, layout=gl.SliceLayout(1, dq_layout))
    cols = gl.arange(0, D, layout=gl.SliceLayout(0, dq_layout))
    gl.store(dq_ptr + rows.to(gl.int64)[:, None] * D + cols[None, :], (dq * scale).to(gl.bfloat16))


@gluon.jit(do_not_specialize=["S", "qk_scale_log2", "scale", "causal"])
def gluon_dq_kernel(q_desc, k_desc, v_desc, do_desc, dq_ptr, lse_ptr, delta_ptr, S, qk_scale_log2, scale, causal,
                    STAGES: gl.constexpr):
    D: gl.constexpr = q_desc.block_type.shape[1]
    KEYS: gl.constexpr = k_desc.block_type.shape[0]
    pid_m = gl.program_id(0)
    pid_m = pid_m + causal * (gl.num_programs(0) - 1 - 2 * pid_m)  # causal: costliest query block first
    bh = gl.program_id(1)
    m0 = pid_m * (2 * ROWS)
    row_q = bh * S + m0
    row_kv = bh * S
    n_tiles = S // KEYS - causal * (S // KEYS - (m0 + 2 * ROWS) // KEYS)
    q_smem = gl.allocate_shared_memory(q_desc.dtype, [2, ROWS, D], q_desc.layout)
    do_smem = gl.allocate_shared_memory(do_desc.dtype, [2, ROWS, D], do_desc.layout)
    k_smem = gl.allocate_shared_memory(k_desc.dtype, [STAGES, KEYS, D], k_desc.layout)
    v_smem = gl.allocate_shared_memory(v_desc.dtype, [STAGES, KEYS, D], v_desc.layout)
    ds_layout: gl.constexpr = gl.NVMMASharedLayout.get_default_for([ROWS, KEYS], gl.bfloat16)
    ds_smem = gl.allocate_shared_memory(gl.bfloat16, [2, ROWS, KEYS], ds_layout)  # one tile a consumer
    qdo_bar, k_ready, v_ready, k_empty, v_empty = stage_barriers(STAGES)
    bars = (k_smem, v_smem, qdo_bar, k_ready, v_ready, k_empty, v_empty)
    scalars = (n_tiles, qk_scale_log2, scale, causal)
    gl.warp_specialize(
        [(_consumer, (q_smem.index(0), do_smem.index(0), ds_smem.index(0), dq_ptr, lse_ptr, delta_ptr, row_q, m0)
          + scalars + bars),
         (_consumer, (q_smem.index(1), do_smem.index(1), ds_smem.index(1), dq_ptr, lse_ptr, delta_ptr,
                      row_q + ROWS, m0 + ROWS) + scalars + bars),
         (load_pairs, (q_desc, do_desc, row_q, k_desc, v_desc, row_kv, n_tiles, q_smem, do_smem, k_smem, v_smem,
                        qdo_bar, k_ready, v_ready, k_empty, v_empty))],
        [4, 1], [232, 40])


def launch(q, k, v, do, lse, delta, stages=2, causal=False):
    """(dQ,) of BHSD q, k, v, do (bf16, D 128, S a multiple of 128) from the forward's natural-log LSE and delta =
    rowsum(dO O) (fp32, B H S)."""
    import torch

    B, H, S, D = q.shape
    assert D == 128 and S % 128 == 0 and all(t.is_contiguous() for t in (q, k, v, do, lse, delta))
    dq = torch.empty_like(q)
    scale = 1 / math.sqrt(D)
    gluon_dq_kernel[(S // (2 * ROWS_), B * H)](desc(q, ROWS_), desc(k, KEYS_), desc(v, KEYS_), desc(do, ROWS_),
                                               dq, lse, delta, S, scale * LOG2E, scale, int(causal), stages,
                                               num_warps=4, maxnreg=168)
    return (dq,)


def compile_only(stages=2):
    sig = dict(q_desc=desc_signature(ROWS_), k_desc=desc_signature(KEYS_), v_desc=desc_signature(KEYS_),
               do_desc=desc_signature(ROWS_), dq_ptr="*bf16", lse_ptr="*fp32", delta_ptr="*fp32", S="i32",
               qk_scale_log2="fp32", scale="fp32", causal="i32", STAGES="constexpr")
    return compile_report(gluon_dq_kernel, sig, dict(STAGES=stages))


if __name__ == "__main__":
    main("gluon_dq", compile_only, launch, ("dq",), 3)
