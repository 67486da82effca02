"""A probe of the Gluon backward for D_qk 192 / D_v 128 (DeepSeek-V3's head dims), FlashAttention-3's hdim-192 split:
programs of 64 keys whose two consumer warpgroups split the key block's columns instead of its keys.

    TRITON_INTERPRET=0 PYTHONPATH=src python3 tools/gluon_bwd192_probe.py --compile-only   # no GPU: ptxas report
    PYTHONPATH=src python3 tools/gluon_bwd192_probe.py --out $OUT                          # on the H200

Why a form of its own (docs/perf-log.md, stop 29): the engine's Gluon backward (``attention_bwd_gluon``) gives each
consumer 64 of a program's 128 keys, so at 192 / 128 a consumer would hold dV (64 registers a thread), dK (96), S and
dP (32 each) at once against 240, and its buffers would take 256 KB of shared memory against 227. Here a program owns
64 keys and streams 64-row query tiles (two stages, lse2 and delta riding with Q and dO, as the engine's loader):

- both consumers compute S = Q K^T and dP = dO V^T for 32 of the 64 keys each (N = 32 products), and store their
  column halves of P and dS into shared tiles that both read (double-buffered by tile, ``ds_full`` as in the engine:
  a consumer rewrites a buffer only after both have passed the next tile's handshake, so after the last reader);
- the column work is split so that each does the same number of product columns: consumer 0 owns dK's and dQ's
  columns 0-127; consumer 1 dK's and dQ's columns 128-191 and all of dV (2 x 128 = 64 + 64 + 128);
- dQ's partials leave each tile by a TMA bulk reduce into the packed fp32 accumulator, as in the engine; dK (scaled)
  and dV by pointer stores at the end.

Registers: consumer 0 at most dK 64 + dQ 64, consumer 1 dK 32 + dV 64 + dQ 32; shared memory ~200 KB. Not wired
into the engine: the probe's GPU run checks it against fp32 autograd and times it beside the engine's backward (the
Triton kernels at 192 / 128) and cuDNN's.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import sys

from sdpa_bwd.kernels.attention_bwd_gluon import AVAILABLE

if AVAILABLE:
    from sdpa_bwd.kernels.attention_fwd_gluon import host_layout  # a rank-4 descriptor layout of [rows, d] blocks
    from sdpa_bwd.kernels.attention_bwd_gluon import (
        _thread_barrier,
        _tma_load,
        _tma_reduce_add,
        as_box,
        fence_async_shared,
        gl,
        gluon,
        mbarrier,
        program_tile,
        stage_barriers,
        tma,
        warpgroup_mma,
        warpgroup_mma_wait,
        wgmma_layout,
    )

MAX_REGS = 168
# host-side ints (a TMA block's dims must be ints); the kernel reads the constexprs of the same names without "_"
D_QK_, D_V_, KEYS_, ROWS_, COLS0_ = 192, 128, 64, 64, 128
if AVAILABLE:  # the kernel's globals must be constexprs
    D_QK, D_V, KEYS, ROWS, HALF = (gl.constexpr(n) for n in (192, 128, 64, 64, 32))
    COLS0 = gl.constexpr(128)  # dK's and dQ's columns consumer 0 owns; consumer 1 the other 64, and dV
CASES = [((1, 2, 300), False), ((2, 3, 777), True), ((1, 2, 1024), True), ((1, 16, 4096), True),
         ((1, 16, 4096), False)]

if AVAILABLE:
    @gluon.jit
    def _loader(q_desc, qb_desc, do_desc, k_desc, kb_desc, v_desc, b, h, key0, m0, n_tiles, k_smem, kb_smem, v_smem,
                q_smem, qb_smem, do_smem, kv_bar, q_ready, do_ready, q_empty, do_empty, lse_desc, dlt_desc, side0,
                lse_smem, dlt_smem):
        """K's and V's 64 rows once, then each query tile's Q rows with its lse2 rows and dO rows with its delta
        rows through the stages (the engine's ``_loader``, one K/V block). Q and K come in two column chunks, 128
        and 64 (a TMA block's dims are powers of two), each into a buffer of its own."""
        NST: gl.constexpr = q_smem.type.shape[0]
        SIDE_BYTES: gl.constexpr = ROWS * 4
        mbarrier.expect(kv_bar, k_desc.block_type.nbytes + kb_desc.block_type.nbytes + v_desc.block_type.nbytes)
        _tma_load(k_desc, [b, h, key0, 0], kv_bar, as_box(k_smem, k_desc))
        _tma_load(kb_desc, [b, h, key0, 0], kv_bar, as_box(kb_smem, kb_desc))
        _tma_load(v_desc, [b, h, key0, 0], kv_bar, as_box(v_smem, v_desc))
        for t in range(0, n_tiles):
            s = t % NST
            phase = (t // NST) & 1
            row = m0 + t * ROWS
            mbarrier.wait(q_empty.index(s), phase ^ 1)
            mbarrier.expect(q_ready.index(s), q_desc.block_type.nbytes + qb_desc.block_type.nbytes + SIDE_BYTES)
            _tma_load(q_desc, [b, h, row, 0], q_ready.index(s), as_box(q_smem.index(s), q_desc))
            _tma_load(qb_desc, [b, h, row, 0], q_ready.index(s), as_box(qb_smem.index(s), qb_desc))
            _tma_load(lse_desc, [side0 + row], q_ready.index(s), lse_smem.index(s))
            mbarrier.wait(do_empty.index(s), phase ^ 1)
            mbarrier.expect(do_ready.index(s), do_desc.block_type.nbytes + SIDE_BYTES)
            _tma_load(do_desc, [b, h, row, 0], do_ready.index(s), as_box(do_smem.index(s), do_desc))
            _tma_load(dlt_desc, [side0 + row], do_ready.index(s), dlt_smem.index(s))

    @gluon.jit
    def _tile(t, i, key0, q_smem, qb_smem, do_smem, k_smem, kb_smem, v_smem, p_smem, ds_smem, dq_smem, dq_desc,
              q_ready, do_ready,
              q_empty, do_empty, ds_full, lse_smem, dlt_smem, side, S_q, qk_scale_log2, dk, dv, masked):
        """Query tile ``i`` (the program's t-th) for consumer ``CID``: S and dP for its 32 keys, its halves of P and
        dS stored, then (both halves in) its dK and dQ columns, and consumer 1's dV. Returns (dk in flight, dv).
        ``CID`` is read off its dQ staging buffer's width (128 or 64 columns): an argument that reaches a partition
        arrives as a runtime value, even one passed as a constexpr."""
        CID: gl.constexpr = 2 - dq_smem.type.shape[1] // 64
        NST: gl.constexpr = q_smem.type.shape[0]
        s_layout: gl.constexpr = wgmma_layout(HALF)
        NQ: gl.constexpr = COLS0 - CID * (2 * COLS0 - D_QK)  # 128 or 64
        C0: gl.constexpr = CID * COLS0
        if CID == 0:  # this consumer's dK, dQ columns: Q's and K's chunk
            q_cols = q_smem
            k_cols = k_smem
        else:
            q_cols = qb_smem
            k_cols = kb_smem
        s = t % NST
        phase = (t // NST) & 1
        b = t % 2
        qpos = i * ROWS + gl.arange(0, ROWS, layout=gl.SliceLayout(1, s_layout))
        row_ok = qpos < S_q
        zero = gl.zeros([ROWS, HALF], gl.float32, s_layout)
        k_mine = k_smem.slice(CID * HALF, HALF, dim=0)
        kb_mine = kb_smem.slice(CID * HALF, HALF, dim=0)
        v_mine = v_smem.slice(CID * HALF, HALF, dim=0)
        mbarrier.wait(q_ready.index(s), phase)
        s_tok = warpgroup_mma(q_smem.index(s), k_mine.permute((1, 0)), zero, use_acc=False, is_async=True)
        s_tok = warpgroup_mma(qb_smem.index(s), kb_mine.permute((1, 0)), s_tok, is_async=True)
        lse2 = gl.where(row_ok, lse_smem.index(s).load(gl.SliceLayout(1, s_layout)), float("inf"))
        mbarrier.wait(do_ready.index(s), phase)
        dp_tok = warpgroup_mma(do_smem.index(s), v_mine.permute((1, 0)), zero, use_acc=False, is_async=True)
        delta = gl.where(row_ok, dlt_smem.index(s).load(gl.SliceLayout(1, s_layout)), 0.0)
        s_t, dk = warpgroup_mma_wait(1, deps=(s_tok, dk))
        if t > 0:  # the previous tile's products are done with its stage
            prev = (t - 1) % NST
            mbarrier.arrive(q_empty.index(prev), count=1)
            mbarrier.arrive(do_empty.index(prev), count=1)
        if masked:
            kpos = key0 + CID * HALF + gl.arange(0, HALF, layout=gl.SliceLayout(0, s_layout))
            s_t = gl.where(kpos[None, :] <= qpos[:, None], s_t, float("-inf"))
        p = gl.exp2(s_t * qk_scale_log2 - lse2[:, None])
        p_smem.index(b).slice(CID * HALF, HALF, dim=1).store(p.to(p_smem.dtype))
        dp = warpgroup_mma_wait(0, deps=(dp_tok,))
        ds_smem.index(b).slice(CID * HALF, HALF, dim=1).store((p * (dp - delta[:, None])).to(ds_smem.dtype))
        fence_async_shared()
        _thread_barrier()
        mbarrier.arrive(ds_full.index(b), count=1)
        mbarrier.wait(ds_full.index(b), (t // 2) & 1)
        dq_tok = warpgroup_mma(ds_smem.index(b), k_cols,
                               gl.zeros([ROWS, NQ], gl.float32, wgmma_layout(NQ)), use_acc=False, is_async=True)
        if CID == 1:
            dv_tok = warpgroup_mma(p_smem.index(b).permute((1, 0)), do_smem.index(s), dv, is_async=True)
        dk_tok = warpgroup_mma(ds_smem.index(b).permute((1, 0)), q_cols.index(s), dk, is_async=True)
        if CID == 1:
            dq, dv = warpgroup_mma_wait(1, deps=(dq_tok, dv_tok))
        else:
            dq = warpgroup_mma_wait(1, deps=(dq_tok,))
        tma.store_wait(0)  # the previous tile's reduce has read the staging buffer
        dq_smem.store(dq)
        fence_async_shared()
        _tma_reduce_add(dq_desc, [side + i * ROWS, C0], dq_smem)
        return dk_tok, dv

    @gluon.jit
    def _consumer(q_smem, qb_smem, do_smem, k_smem, kb_smem, v_smem, p_smem, ds_smem, dq_smem, dq_desc, kv_bar,
                  q_ready, do_ready,
                  q_empty, do_empty, ds_full, lse_smem, dlt_smem, side0, key0, i_start, n_tiles, S_q, S_kv,
                  qk_scale_log2, scale, causal, dk_base, dv_base):
        """Consumer ``CID``'s query tiles (the diagonal's, masked under ``causal``, peeled), then its dK columns
        (scaled) and, for consumer 1, dV by pointer stores into contiguous (S_kv, D) heads from ``dk_base`` /
        ``dv_base``. ``CID``: read off the dQ staging buffer, as in ``_tile``."""
        CID: gl.constexpr = 2 - dq_smem.type.shape[1] // 64
        NST: gl.constexpr = q_smem.type.shape[0]
        NQ: gl.constexpr = COLS0 - CID * (2 * COLS0 - D_QK)
        C0: gl.constexpr = CID * COLS0
        NV: gl.constexpr = 16 + CID * (D_V - 16)  # consumer 0 carries a token dV it never uses
        dk = gl.zeros([KEYS, NQ], gl.float32, wgmma_layout(NQ))
        dv = gl.zeros([KEYS, NV], gl.float32, wgmma_layout(NV))
        mbarrier.wait(kv_bar, 0)
        dk, dv = _tile(0, i_start, key0, q_smem, qb_smem, do_smem, k_smem, kb_smem, v_smem, p_smem, ds_smem, dq_smem,
                       dq_desc, q_ready,
                       do_ready, q_empty, do_empty, ds_full, lse_smem, dlt_smem, side0, S_q, qk_scale_log2, dk, dv,
                       causal != 0)
        for t in range(1, n_tiles):
            dk, dv = _tile(t, i_start + t, key0, q_smem, qb_smem, do_smem, k_smem, kb_smem, v_smem, p_smem, ds_smem,
                           dq_smem, dq_desc,
                           q_ready, do_ready, q_empty, do_empty, ds_full, lse_smem, dlt_smem, side0, S_q,
                           qk_scale_log2, dk, dv, False)
        dk = warpgroup_mma_wait(0, deps=(dk,))
        last = (n_tiles - 1) % NST
        mbarrier.arrive(q_empty.index(last), count=1)
        mbarrier.arrive(do_empty.index(last), count=1)
        rows = key0 + gl.arange(0, KEYS, layout=gl.SliceLayout(1, wgmma_layout(NQ)))
        cols = C0 + gl.arange(0, NQ, layout=gl.SliceLayout(0, wgmma_layout(NQ)))
        keep = (rows < S_kv)[:, None]
        gl.store(dk_base + rows.to(gl.int64)[:, None] * D_QK + cols[None, :], (dk * scale).to(dk_base.dtype.element_ty),
                 mask=keep)
        if CID == 1:
            vrows = key0 + gl.arange(0, KEYS, layout=gl.SliceLayout(1, wgmma_layout(NV)))
            vcols = gl.arange(0, NV, layout=gl.SliceLayout(0, wgmma_layout(NV)))
            gl.store(dv_base + vrows.to(gl.int64)[:, None] * D_V + vcols[None, :], dv.to(dv_base.dtype.element_ty),
                     mask=(vrows < S_kv)[:, None])
        tma.store_wait(0)

    @gluon.jit(do_not_specialize=["H", "S_q", "S_kv", "S_side", "causal"])
    def bwd192_kernel(q_desc, qb_desc, k_desc, kb_desc, v_desc, do_desc, dq0_desc, dq1_desc, lse_desc, dlt_desc,
                      dk_ptr, dv_ptr,
                      H, S_q, S_kv, S_side, qk_scale_log2, scale, causal, HEAD_GROUP: gl.constexpr):
        """Grid (cdiv(S_kv, 64), B H), heads of their own, contiguous (B, H, S_kv, D) dK and dV; ``dq0_desc`` /
        ``dq1_desc``: the zeroed fp32 accumulator (B H S_q, 192) in [64, 128] and [64, 64] blocks."""
        pid_n, bh = program_tile(HEAD_GROUP, False)
        b = bh // H
        h = bh % H
        key0 = pid_n * KEYS
        i_start = key0 // ROWS * causal
        n_tiles = gl.cdiv(S_q, ROWS) - i_start
        side0 = bh * S_q
        dt: gl.constexpr = q_desc.dtype
        q_layout: gl.constexpr = gl.NVMMASharedLayout.get_default_for([ROWS, COLS0], dt)
        qb_layout: gl.constexpr = gl.NVMMASharedLayout.get_default_for([ROWS, D_QK - COLS0], dt)
        do_layout: gl.constexpr = gl.NVMMASharedLayout.get_default_for([ROWS, D_V], dt)
        # P and dS: 64 B swizzle, so that each consumer's 32-key column half is whole swizzle atoms
        pd_layout: gl.constexpr = gl.NVMMASharedLayout(swizzle_byte_width=64, element_bitwidth=16, rank=2)
        q_smem = gl.allocate_shared_memory(dt, [2, ROWS, COLS0], q_layout)
        qb_smem = gl.allocate_shared_memory(dt, [2, ROWS, D_QK - COLS0], qb_layout)
        do_smem = gl.allocate_shared_memory(dt, [2, ROWS, D_V], do_layout)
        k_smem = gl.allocate_shared_memory(dt, [KEYS, COLS0], gl.NVMMASharedLayout.get_default_for([KEYS, COLS0], dt))
        kb_smem = gl.allocate_shared_memory(dt, [KEYS, D_QK - COLS0],
                                            gl.NVMMASharedLayout.get_default_for([KEYS, D_QK - COLS0], dt))
        v_smem = gl.allocate_shared_memory(dt, [KEYS, D_V], gl.NVMMASharedLayout.get_default_for([KEYS, D_V], dt))
        p_smem = gl.allocate_shared_memory(dt, [2, ROWS, KEYS], pd_layout)
        ds_smem = gl.allocate_shared_memory(dt, [2, ROWS, KEYS], pd_layout)
        dq0_smem = gl.allocate_shared_memory(gl.float32, [ROWS, COLS0],
                                             gl.NVMMASharedLayout.get_default_for([ROWS, COLS0], gl.float32))
        dq1_smem = gl.allocate_shared_memory(gl.float32, [ROWS, D_QK - COLS0],
                                             gl.NVMMASharedLayout.get_default_for([ROWS, D_QK - COLS0], gl.float32))
        kv_bar, q_ready, do_ready, q_empty, do_empty = stage_barriers(2)
        ds_full = gl.allocate_shared_memory(gl.int64, [2, 1], mbarrier.MBarrierLayout())
        for j in gl.static_range(2):
            mbarrier.init(ds_full.index(j), count=2)
        side_layout: gl.constexpr = gl.NVMMASharedLayout(swizzle_byte_width=0, element_bitwidth=32, rank=1)
        lse_smem = gl.allocate_shared_memory(gl.float32, [2, ROWS], side_layout)
        dlt_smem = gl.allocate_shared_memory(gl.float32, [2, ROWS], side_layout)
        dk_base = dk_ptr + bh.to(gl.int64) * S_kv * D_QK
        dv_base = dv_ptr + bh.to(gl.int64) * S_kv * D_V
        common = (q_smem, qb_smem, do_smem, k_smem, kb_smem, v_smem, p_smem, ds_smem)
        tail = (kv_bar, q_ready, do_ready, q_empty, do_empty, ds_full, lse_smem, dlt_smem, side0, key0, i_start,
                n_tiles, S_q, S_kv, qk_scale_log2, scale, causal, dk_base, dv_base)
        args0 = common + (dq0_smem, dq0_desc) + tail
        args1 = common + (dq1_smem, dq1_desc) + tail
        loader = (q_desc, qb_desc, do_desc, k_desc, kb_desc, v_desc, b, h, key0, i_start * ROWS, n_tiles, k_smem,
                  kb_smem, v_smem, q_smem, qb_smem, do_smem, kv_bar, q_ready, do_ready, q_empty, do_empty, lse_desc,
                  dlt_desc, bh * S_side, lse_smem, dlt_smem)
        gl.warp_specialize([(_consumer, args0), (_consumer, args1), (_loader, loader)], [4, 1], [240, 24])


def _signature(dtype="bf16"):
    sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
    from gluon_probe_common import desc_signature

    name = {"bf16": "bfloat16", "fp16": "float16"}[dtype]
    gdt = {"bf16": gl.bfloat16, "fp16": gl.float16}[dtype]
    sig = dict(q_desc=desc_signature(ROWS_, name, [1, 1, ROWS_, COLS0_], host_layout(ROWS_, COLS0_, gdt)),
               qb_desc=desc_signature(ROWS_, name, [1, 1, ROWS_, D_QK_ - COLS0_],
                                      host_layout(ROWS_, D_QK_ - COLS0_, gdt)),
               k_desc=desc_signature(KEYS_, name, [1, 1, KEYS_, COLS0_], host_layout(KEYS_, COLS0_, gdt)),
               kb_desc=desc_signature(KEYS_, name, [1, 1, KEYS_, D_QK_ - COLS0_],
                                      host_layout(KEYS_, D_QK_ - COLS0_, gdt)),
               v_desc=desc_signature(KEYS_, name, [1, 1, KEYS_, D_V_], host_layout(KEYS_, D_V_, gdt)),
               do_desc=desc_signature(ROWS_, name, [1, 1, ROWS_, D_V_], host_layout(ROWS_, D_V_, gdt)),
               dq0_desc=desc_signature(ROWS_, "float32", [ROWS_, COLS0_],
                                       gl.NVMMASharedLayout.get_default_for([ROWS_, COLS0_], gl.float32)),
               dq1_desc=desc_signature(ROWS_, "float32", [ROWS_, D_QK_ - COLS0_],
                                       gl.NVMMASharedLayout.get_default_for([ROWS_, D_QK_ - COLS0_], gl.float32)),
               lse_desc=desc_signature(ROWS_, "float32", [ROWS_],
                                       gl.NVMMASharedLayout(swizzle_byte_width=0, element_bitwidth=32, rank=1)),
               dlt_desc=desc_signature(ROWS_, "float32", [ROWS_],
                                       gl.NVMMASharedLayout(swizzle_byte_width=0, element_bitwidth=32, rank=1)),
               dk_ptr=f"*{dtype}", dv_ptr=f"*{dtype}", H="i32", S_q="i32", S_kv="i32", S_side="i32",
               qk_scale_log2="fp32", scale="fp32", causal="i32", HEAD_GROUP="constexpr")
    return sig


def compile_only() -> dict:
    sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
    from gluon_probe_common import compile_report

    return compile_report(bwd192_kernel, _signature(), dict(HEAD_GROUP=4), maxnreg=MAX_REGS)


def launch(q, k, v, o, do, stats, causal: bool, kernel_only: bool = False):
    """The probe's backward: delta and lse2 in torch, the kernel, dQ's accumulator scaled in torch. ``kernel_only``:
    returns a function that launches the kernel alone on the buffers made here (for timing; it adds into the
    same accumulator each call)."""
    import torch
    from triton.experimental.gluon.nvidia.hopper import TensorDescriptor

    from sdpa_bwd import launch as engine

    B, H, S_q, _ = q.shape
    S_kv = k.shape[2]
    scale = 1.0 / math.sqrt(D_QK_)
    side = engine.gluon_side_rows(S_q)
    lse2 = torch.full((B, H, side), float("inf"), device=q.device)
    lse2[..., :S_q] = stats.float() * math.log2(math.e)
    delta = torch.zeros((B, H, side), device=q.device)
    delta[..., :S_q] = (do.float() * o.float()).sum(-1)
    dq_acc = torch.zeros((B * H * S_q, D_QK_), device=q.device)
    dk = torch.empty_like(k)
    dv = torch.empty_like(v)
    gdt = gl.bfloat16 if q.dtype == torch.bfloat16 else gl.float16

    def four(t, rows, c0=0, cols=None):
        cols = t.shape[3] - c0 if cols is None else cols
        part = t[..., c0:c0 + cols]
        return TensorDescriptor(part, list(part.shape), list(part.stride()), [1, 1, rows, cols],
                                host_layout(rows, cols, gdt))

    side_layout = gl.NVMMASharedLayout(swizzle_byte_width=0, element_bitwidth=32, rank=1)
    descs = (four(q, ROWS_, 0, COLS0_), four(q, ROWS_, COLS0_), four(k, KEYS_, 0, COLS0_), four(k, KEYS_, COLS0_),
             four(v, KEYS_), four(do, ROWS_),
             TensorDescriptor(dq_acc, list(dq_acc.shape), [D_QK_, 1], [ROWS_, COLS0_],
                              gl.NVMMASharedLayout.get_default_for([ROWS_, COLS0_], gl.float32)),
             TensorDescriptor(dq_acc, list(dq_acc.shape), [D_QK_, 1], [ROWS_, D_QK_ - COLS0_],
                              gl.NVMMASharedLayout.get_default_for([ROWS_, D_QK_ - COLS0_], gl.float32)),
             TensorDescriptor(lse2.view(-1), [lse2.numel()], [1], [ROWS_], side_layout),
             TensorDescriptor(delta.view(-1), [delta.numel()], [1], [ROWS_], side_layout))
    grid = (triton_cdiv(S_kv, KEYS_), B * H)

    def run():
        bwd192_kernel[grid](*descs, dk, dv, H, S_q, S_kv, side, scale * math.log2(math.e), scale, int(causal),
                            HEAD_GROUP=4 if causal else 1, num_warps=4, maxnreg=MAX_REGS)
    if kernel_only:
        return run
    run()
    dq = (dq_acc * scale).view(B, H, S_q, D_QK_).to(q.dtype)
    return dq, dk, dv


def triton_cdiv(a, b):
    return (a + b - 1) // b


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--out", default=None)
    ap.add_argument("--compile-only", action="store_true")
    args = ap.parse_args()
    if args.compile_only:
        print(json.dumps(compile_only()), flush=True)
        return
    import torch

    from sdpa_bwd import launch as engine

    sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
    from gluon_probe_common import cudnn_backward, fp32_grads, interleaved_ms, rel_err

    rows = []
    for (B, H, S), causal in CASES:
        gen = torch.Generator(device="cuda").manual_seed(S)
        q, k = (torch.randn(B, H, S, D_QK_, device="cuda", dtype=torch.bfloat16, generator=gen) for _ in range(2))
        v, do = (torch.randn(B, H, S, D_V_, device="cuda", dtype=torch.bfloat16, generator=gen) for _ in range(2))
        band = dict(right_bound=0) if causal else {}
        o, stats = engine.attention_forward(q, k, v, **band)
        tag = f"({B},{H},{S},192/128) {'causal' if causal else 'nc'}"
        row = dict(shape=[B, H, S], causal=causal)
        try:
            ours = launch(q, k, v, o, do, stats, causal)
            torch.cuda.synchronize()
        except Exception as exc:  # noqa: BLE001 - a probe reports what failed and goes on
            row["error"] = f"{type(exc).__name__}: {str(exc)[:600]}"
            print(f"{tag}: FAILED {row['error']}", flush=True)
            rows.append(row)
            continue
        ref = engine.attention_backward(q, k, v, o, do, stats, **band)
        if S <= 1024:  # fp32 autograd too
            fp32 = fp32_grads(q, k, v, do, causal)
            for g, mine in zip(("dq", "dk", "dv"), ours):
                row[f"{g}_rel_err_fp32"] = rel_err(mine, fp32[g])
        for g, mine, r in zip(("dq", "dk", "dv"), ours, ref):
            row[f"{g}_rel_err_engine"] = rel_err(mine, r)
        row["nan"] = any(bool(torch.isnan(t).any().item()) for t in ours)
        if S >= 4096:
            fns = {"probe": lambda: launch(q, k, v, o, do, stats, causal),
                   "probe_kernel": launch(q, k, v, o, do, stats, causal, kernel_only=True),
                   "engine": lambda: engine.attention_backward(q, k, v, o, do, stats, **band),
                   "cudnn": cudnn_backward(q, k, v, do, causal)}
            row.update({f"{n}_ms": ms for n, ms in interleaved_ms(fns, rep=50).items()})
            pairs = S * (S + 1) / 2 if causal else S * S
            flops = 2 * B * H * pairs * (3 * D_QK_ + 2 * D_V_)
            for n in fns:
                row[f"{n}_tflops"] = flops / min(row[f"{n}_ms"]) / 1e9
        print(tag, {k_: (round(v_, 5) if isinstance(v_, float) else
                         [round(x, 4) for x in v_] if isinstance(v_, list) else v_) for k_, v_ in row.items()},
              flush=True)
        rows.append(row)
    if args.out:
        os.makedirs(args.out, exist_ok=True)
        with open(os.path.join(args.out, "bwd192_probe.json"), "w") as f:
            json.dump(rows, f, indent=1)


if __name__ == "__main__":
    main()
