"""Can the backward's DKDV pass run faster in Gluon, on FA3's producer/consumer structure? (GPU probe)

    PYTHONPATH=src python3 tools/gluon_dkdv_probe.py [--out DIR] [--stages N] [--compile-only]

Written 2026-12-01 (h200-2026-12-01m), when the engine's forward had just moved to Gluon
(``kernels/attention_fwd_gluon.py``: a TMA loader warp, two consumer warpgroups, products waited for one at a time) at
0.92-1.09 of cuDNN's time, where Triton's ``tl.dot`` kernel was at 0.75-0.97. The backward is still Triton's: its DKDV
pass runs 4 products at ~550 TFLOP/s (the h200-2026-12-01i to -01k profiles, one 8-warp program an SM, the
product-softmax-product chain serial) and its dQ pass 3 at ~660. This probe is the DKDV pass in the forward's Gluon
shape, for BHSD, D 128, bf16, S a multiple of 128, H_q = H_kv, no mask or the causal one (top left):

- a loader partition (1 warp) loads this program's 128 keys of K and V once, then streams Q_i and dO_i tiles of
  64 query rows through two stages ("ready" mbarriers with TMA byte counts, "empty" ones both consumers
  arrive on);
- two consumer partitions (4 warps each) own 64 keys each and never wait for each other. Per query tile:
  S = Q K^T and dP = dO V^T (64 query rows x 64 keys) issued back to back; S waited for with dP (and nothing
  else) in flight, P = exp2(S scale log2e - LSE log2e) computed under dP and stored to shared memory; dS =
  P (dP - delta) stored beside it; then dV += P^T dO and dK += dS^T Q issued (A operands: the stored tiles,
  transposed) and *not* waited for: they run under the next tile's S and dP issue and are waited for
  (releasing the tile's stage and the P, dS buffers) only once the next S is needed.

dK is scaled by the softmax scale at the end and both are stored through pointers. LSE (natural log) and
delta = rowsum(dO O) are read per tile from global memory (L2).

The 5-product pass (``--dq`` here) became the engine's backward the same day (h200-2026-12-01n),
``sdpa_bwd/engine/kernels/attention_bwd_gluon.py`` (its probe form, which waited for each reduce:
``git show 48d301a:tools/gluon_dkdv_probe.py``).
This 4-product pass stays as the DKDV half of a deterministic Gluon backward (with ``gluon_dq_probe.py``).

Under the causal mask a program starts at the first query tile that sees its keys and masks its first two
tiles (the diagonal of its 128 keys) in two peeled steps; the loop has no mask. On a GPU it checks dK and dV
against PyTorch's fp32 autograd (small shapes first, so a wrong mbarrier phase shows as a hang there and not in
the timings), then times itself against cuDNN's whole backward and ours at (2,16,4096) and (1,16,8192), both
masks; TFLOP/s counts its 4 products over the kept pairs. ``--compile-only`` compiles for sm_90a without a
GPU or torch and prints the shared memory, the wgmma count, each product wait's outstanding count and the
partitions' register budgets (Triton 3.6 or 3.9; not under TRITON_INTERPRET).

Measured (2026-12-01, H200, h200-2026-12-01n): at (2,16,4096,128) 0.884 ms non-causal (622 TFLOP/s
on its 4 products), 0.503 causal (547); at (1,16,8192,128) 1.680 (654), 0.924 (595). Predicted 600-700: met.
The first version kept P^T and dS^T in registers as the dV and dK products' A operands (S^T = K Q^T with key
rows): ptxas serialised its wgmma (C7512) at 168, 232 and 255 registers. Query rows (LSE and delta 2 values a
thread) and P, dS through shared memory fit in 168 (164,240 B of shared memory on 2 stages, no spill).
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
from gluon_probe_common import (  # noqa: E402
    LOG2E,
    compile_report,
    desc,
    desc_signature,
    main,
)

from sdpa_bwd.engine.kernels.attention_bwd_gluon import load_pairs  # noqa: E402
from sdpa_bwd.engine.kernels.attention_fwd_gluon import stage_barriers, wgmma_layout  # noqa: E402

KEYS_ = 64  # keys a consumer partition owns; a program owns two such blocks
QROWS_ = 64  # query rows a streamed tile holds
KEYS = gl.constexpr(KEYS_)


@gluon.jit
def _probs(t, i_start, key0, q_smem, do_smem, k_tile, v_tile, p_smem, ds_smem, q_ready, do_ready, lse_ptr,
           delta_ptr, row_q, qk_scale_log2, s_layout: gl.constexpr, dv_tok, dk_tok, masked, FIRST: gl.constexpr):
    """Query tile i: S = Q K^T and dP = dO V^T issued; S waited for (with the previous tile's dV and dK products,
    issued before it, which read P and dS from shared memory: only then may they be overwritten); P under dP;
    dS; both stored to shared memory for this tile's dV and dK products. Query rows are the tiles' rows, so
    LSE and delta are 2 values a thread. ``masked`` (the causal mask's first two tiles; the literal False
    in the loop, which compiles the mask away): keys past the query row get no probability."""
    STAGES: gl.constexpr = q_smem.type.shape[0]
    QROWS: gl.constexpr = q_smem.type.shape[1]
    s = t % STAGES
    phase = (t // STAGES) & 1
    zero = gl.zeros([QROWS, KEYS], gl.float32, s_layout)
    qpos = (i_start + t) * QROWS + gl.arange(0, QROWS, layout=gl.SliceLayout(1, s_layout))
    rows = row_q + qpos
    lse2 = gl.load(lse_ptr + rows) * 1.4426950408889634
    delta = gl.load(delta_ptr + rows)
    mbarrier.wait(q_ready.index(s), phase)
    s_tok = warpgroup_mma(q_smem.index(s), k_tile.permute((1, 0)), zero, use_acc=False, is_async=True)
    mbarrier.wait(do_ready.index(s), phase)
    dp_tok = warpgroup_mma(do_smem.index(s), v_tile.permute((1, 0)), zero, use_acc=False, is_async=True)
    if FIRST:
        s_t = warpgroup_mma_wait(1, deps=(s_tok,))
    else:
        # pending: dV_{i-1}, dK_{i-1}, S_i, dP_i; one left in flight means all but dP_i are done
        s_t, dv_tok, dk_tok = warpgroup_mma_wait(1, deps=(s_tok, dv_tok, dk_tok))
    if masked:
        kpos = key0 + gl.arange(0, KEYS, layout=gl.SliceLayout(0, s_layout))
        s_t = gl.where(kpos[None, :] <= qpos[:, None], s_t, float("-inf"))
    p = gl.exp2(s_t * qk_scale_log2 - lse2[:, None])
    p_smem.store(p.to(p_smem.dtype))
    dp = warpgroup_mma_wait(0, deps=(dp_tok,))
    ds_smem.store((p * (dp - delta[:, None])).to(ds_smem.dtype))
    fence_async_shared()
    return dv_tok, dk_tok


@gluon.jit
def _products(t, q_smem, do_smem, p_smem, ds_smem, dv_tok, dk_tok, FIRST: gl.constexpr):
    """Tile t's products from the stored P and dS: dV += P^T dO and dK += dS^T Q, issued and left in flight."""
    STAGES: gl.constexpr = q_smem.type.shape[0]
    s = t % STAGES
    dv_tok = warpgroup_mma(p_smem.permute((1, 0)), do_smem.index(s), dv_tok, use_acc=not FIRST, is_async=True)
    dk_tok = warpgroup_mma(ds_smem.permute((1, 0)), q_smem.index(s), dk_tok, use_acc=not FIRST, is_async=True)
    return dv_tok, dk_tok


@gluon.jit
def _step(t, i_start, key0, q_smem, do_smem, k_tile, v_tile, p_smem, ds_smem, q_ready, do_ready, q_empty, do_empty,
          lse_ptr, delta_ptr, row_q, qk_scale_log2, s_layout: gl.constexpr, dv_tok, dk_tok, masked):
    """Tile t >= 1: its probabilities (which waits for tile t-1's products), tile t-1's stage released, tile t's
    products issued."""
    STAGES: gl.constexpr = q_smem.type.shape[0]
    dv_tok, dk_tok = _probs(t, i_start, key0, q_smem, do_smem, k_tile, v_tile, p_smem, ds_smem, q_ready, do_ready,
                            lse_ptr, delta_ptr, row_q, qk_scale_log2, s_layout, dv_tok, dk_tok, masked, False)
    prev = (t - 1) % STAGES
    mbarrier.arrive(q_empty.index(prev), count=1)  # tile t-1's dK and dV products are done with it
    mbarrier.arrive(do_empty.index(prev), count=1)
    return _products(t, q_smem, do_smem, p_smem, ds_smem, dv_tok, dk_tok, False)


@gluon.jit
def _store_dkdv(dv_tok, dk_tok, dk_ptr, dv_ptr, row_k, scale, q_empty, do_empty, n_tiles, D: gl.constexpr):
    """The last tile's products waited for, its stage released, dV and dK (scaled) stored through pointers."""
    STAGES: gl.constexpr = q_empty.type.shape[0]
    acc_layout: gl.constexpr = wgmma_layout(D)
    dv, dk = warpgroup_mma_wait(0, deps=(dv_tok, dk_tok))
    last = (n_tiles - 1) % STAGES
    mbarrier.arrive(q_empty.index(last), count=1)
    mbarrier.arrive(do_empty.index(last), count=1)
    rows = row_k + gl.arange(0, KEYS, layout=gl.SliceLayout(1, acc_layout))
    cols = gl.arange(0, D, layout=gl.SliceLayout(0, acc_layout))
    offs = rows.to(gl.int64)[:, None] * D + cols[None, :]
    gl.store(dv_ptr + offs, dv.to(gl.bfloat16))
    gl.store(dk_ptr + offs, (dk * scale).to(gl.bfloat16))


@gluon.jit
def _consumer(k_tile, v_tile, p_smem, ds_smem, dk_ptr, dv_ptr, lse_ptr, delta_ptr, row_q, row_k, i_start, n_tiles,
              qk_scale_log2, scale, causal, q_smem, do_smem, kv_bar, q_ready, do_ready, q_empty, do_empty):
    D: gl.constexpr = q_smem.type.shape[2]
    s_layout: gl.constexpr = wgmma_layout(KEYS)
    key0 = row_k - row_q  # this consumer's first key, counted from the head's first row
    mbarrier.wait(kv_bar, 0)
    zero_acc = gl.zeros([KEYS, D], gl.float32, wgmma_layout(D))
    _probs(0, i_start, key0, q_smem, do_smem, k_tile, v_tile, p_smem, ds_smem, q_ready, do_ready, lse_ptr,
           delta_ptr, row_q, qk_scale_log2, s_layout, zero_acc, zero_acc, causal != 0, True)
    dv_tok, dk_tok = _products(0, q_smem, do_smem, p_smem, ds_smem, zero_acc, zero_acc, True)
    # under the causal mask the program's first two query tiles hold its 128 keys' diagonal (n_tiles >= 2)
    dv_tok, dk_tok = _step(1, i_start, key0, q_smem, do_smem, k_tile, v_tile, p_smem, ds_smem, q_ready, do_ready,
                           q_empty, do_empty, lse_ptr, delta_ptr, row_q, qk_scale_log2, s_layout, dv_tok, dk_tok,
                           causal != 0)
    for t in range(2, n_tiles):
        dv_tok, dk_tok = _step(t, i_start, key0, q_smem, do_smem, k_tile, v_tile, p_smem, ds_smem, q_ready,
                               do_ready, q_empty, do_empty, lse_ptr, delta_ptr, row_q, qk_scale_log2, s_layout,
                               dv_tok, dk_tok, False)
    _store_dkdv(dv_tok, dk_tok, dk_ptr, dv_ptr, row_k, scale, q_empty, do_empty, n_tiles, D)


@gluon.jit
def _buffers(q_desc, k_desc, v_desc, do_desc, STAGES: gl.constexpr, DS_TILES: gl.constexpr):
    """Shared memory of a DKDV program: Q and dO stages, its 128 keys of K and V (a 64-key block a consumer),
    P (one tile a consumer) and dS (``DS_TILES`` tiles a consumer)."""
    D: gl.constexpr = q_desc.block_type.shape[1]
    QROWS: gl.constexpr = q_desc.block_type.shape[0]
    q_smem = gl.allocate_shared_memory(q_desc.dtype, [STAGES, QROWS, D], q_desc.layout)
    do_smem = gl.allocate_shared_memory(do_desc.dtype, [STAGES, QROWS, D], do_desc.layout)
    k_smem = gl.allocate_shared_memory(k_desc.dtype, [2, KEYS, D], k_desc.layout)
    v_smem = gl.allocate_shared_memory(v_desc.dtype, [2, KEYS, D], v_desc.layout)
    pd_layout: gl.constexpr = gl.NVMMASharedLayout.get_default_for([QROWS, KEYS], gl.bfloat16)
    p_smem = gl.allocate_shared_memory(gl.bfloat16, [2, QROWS, KEYS], pd_layout)
    ds_smem = gl.allocate_shared_memory(gl.bfloat16, [2 * DS_TILES, QROWS, KEYS], pd_layout)
    return q_smem, do_smem, k_smem, v_smem, p_smem, ds_smem


@gluon.jit(do_not_specialize=["S", "qk_scale_log2", "scale", "causal"])
def gluon_dkdv_kernel(q_desc, k_desc, v_desc, do_desc, dk_ptr, dv_ptr, lse_ptr, delta_ptr, S, qk_scale_log2, scale,
                      causal, STAGES: gl.constexpr):
    QROWS: gl.constexpr = q_desc.block_type.shape[0]
    pid_n = gl.program_id(0)
    bh = gl.program_id(1)
    row_q = bh * S
    row_kv = bh * S + pid_n * (2 * KEYS)
    # causal (keys up to the query row): query tiles before the program's first key see none of its keys
    i_start = pid_n * (2 * KEYS // QROWS) * causal
    n_tiles = S // QROWS - i_start
    q_smem, do_smem, k_smem, v_smem, p_smem, ds_smem = _buffers(q_desc, k_desc, v_desc, do_desc, STAGES, 1)
    kv_bar, q_ready, do_ready, q_empty, do_empty = stage_barriers(STAGES)
    bars = (q_smem, do_smem, kv_bar, q_ready, do_ready, q_empty, do_empty)
    tail = (dk_ptr, dv_ptr, lse_ptr, delta_ptr, row_q)
    scalars = (i_start, n_tiles, qk_scale_log2, scale, causal)
    args0 = (k_smem.index(0), v_smem.index(0), p_smem.index(0), ds_smem.index(0)) + tail + (row_kv,) + scalars + bars
    args1 = (k_smem.index(1), v_smem.index(1), p_smem.index(1), ds_smem.index(1)) + tail + (row_kv + KEYS,) + scalars \
        + bars
    # the loader: K and V of the program's 128 keys once, then Q and dO from the first query tile that sees them
    loader = (k_desc, v_desc, row_kv, q_desc, do_desc, row_q + i_start * QROWS, n_tiles, k_smem, v_smem, q_smem,
              do_smem, kv_bar, q_ready, do_ready, q_empty, do_empty)
    gl.warp_specialize([(_consumer, args0), (_consumer, args1), (load_pairs, loader)], [4, 1], [240, 24])


def launch(q, k, v, do, lse, delta, stages=2, causal=False):
    """dK, dV of BHSD q, k, v, do (bf16, D 128, S a multiple of 128) from the forward's natural-log LSE and
    delta = rowsum(dO O) (fp32, B H S)."""
    import torch

    B, H, S, D = q.shape
    assert D == 128 and S % 128 == 0 and all(t.is_contiguous() for t in (q, k, v, do, lse, delta))
    dk, dv = torch.empty_like(k), torch.empty_like(v)
    scale = 1 / math.sqrt(D)
    gluon_dkdv_kernel[(S // (2 * KEYS_), B * H)](desc(q, QROWS_), desc(k, KEYS_), desc(v, KEYS_), desc(do, QROWS_),
                                                  dk, dv, lse, delta, S, scale * LOG2E, scale, int(causal), stages,
                                                  num_warps=4, maxnreg=168)
    return dk, dv


def compile_only(stages=2):
    sig = dict(q_desc=desc_signature(QROWS_), k_desc=desc_signature(KEYS_), v_desc=desc_signature(KEYS_),
               do_desc=desc_signature(QROWS_), dk_ptr="*bf16", dv_ptr="*bf16", lse_ptr="*fp32",
               delta_ptr="*fp32", S="i32", qk_scale_log2="fp32", scale="fp32", causal="i32", STAGES="constexpr")
    return compile_report(gluon_dkdv_kernel, sig, dict(STAGES=stages))


if __name__ == "__main__":
    main("gluon_dkdv", compile_only, launch, ("dk", "dv"), 4)
