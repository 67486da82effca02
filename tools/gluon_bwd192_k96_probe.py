"""A probe of the D_qk 192 / D_v 128 Gluon backward in FlashAttention-3's hdim-192 shape: programs of 96 keys,
three consumer warpgroups, dK and dV computed transposed.

    TRITON_INTERPRET=0 PYTHONPATH=src python3 tools/gluon_bwd192_k96_probe.py --compile-only   # no GPU: ptxas
    PYTHONPATH=src python3 tools/gluon_bwd192_k96_probe.py --out $OUT                          # on the H200

Why (docs/perf-log.md, 2026-12-03, h200-2026-12-03b): the engine's 192 / 128 kernel
(``kernels.attention_bwd_gluon_192``, 64-key programs, two consumers) runs at 0.91 of cuDNN under the causal mask, and
its build without dQ's bulk reduces ran 13% faster: each 64 keys stream every Q and dO tile and bulk-reduce a 64 x 192
fp32 dQ tile into L2. FlashAttention-3 (``run_mha_bwd_hdim192`` on sm90: kBlockM 64, kBlockN 96, three MMA warpgroups,
dKV_swapAB) serves 96 keys with each tile and each reduce, a third less traffic a key. Here, per 64-row query tile,
consumer ``c`` (0, 1, 2):

- S = Q K^T and dP = dO V^T for keys 32c .. 32c + 31 of the program's 96 (N = 32), its rows of P^T and dS^T
  ([keys, rows]) stored into single shared tiles all three read (``ds_full`` once all have stored; ``ds_free`` once
  all are done reading the last tile's, before any stores the next: one buffer each, for shared memory);
- dK^T = Q^T dS for dK's columns 64c .. 64c + 63 (M over the head dim, N = 96 keys: 48 registers a thread), and
  for c < 2 dV^T = dO^T P for dV's columns 64c .. 64c + 63; dQ's columns 64c .. 64c + 63 = dS K (K over 96 keys),
  staged and bulk-reduced into the packed fp32 accumulator each tile;
- the loader (1 warp) brings K's 96 rows (as 128 + 64 column chunks and 64 + 32 rows, a TMA block's dims being
  powers of two) and V's once, then Q (two chunks) with its lse2 rows and dO with its delta rows through two
  stages.

Under the causal mask (the diagonal at 0) a program starts at query tile key0 // 64 and its first two tiles, the
ones its 96 keys' diagonal crosses, are masked and peeled; a program is given at least two tiles (a tile past S_q
adds exact zeros). dK (scaled) and dV leave transposed by pointer stores through their strides (atomic adds into
the launcher's fp32 accumulators where K or V heads are shared).
Shared memory 219 KB; registers: consumers of 160 (168 the default one), the loader 24.

Status (2026-12-03): runs right on the H200 (docs/data/h200-2026-12-03c: against fp32 autograd at bf16 rounding, dK
and dV bitwise the engine's, GQA 4/2 and BSHD included), but **slower than the engine's 64-key kernel**: (1,16,4096)
causal kernel 0.658 ms against 0.615, call 0.714 against 0.660 (cuDNN 0.604); non-causal kernel 1.35 ms against the
Triton kernels' call 1.19-1.21. The prediction of h200-2026-12-03b (0.50) missed: about half the tile's multiply-adds
are N = 32 products (S, dP, and dK^T's, dV^T's keys 64-95) whose operands both come from shared memory, while the
single-buffered P^T / dS^T handshake costs nothing measurable (``--diag no_ds_free`` 0.657 ms) and without dQ's
reduces it runs 0.579 against the 64-key kernel's 0.534 (``--diag no_dq_reduce``): the loss is in the tile body
(perf-log, h200-2026-12-03c). Compiles for sm_90a with Triton 3.6 at 128 registers a thread (Triton pads the 13 warps
to 16; the first build's 152 was over the register file): 218,860 B of shared memory, 354 wgmma
(``tests/test_gluon_backward_probes.py``), each consumer waits for S with dP in flight in every tile body, not
serialised, spills 596 / 852 B (wgmma descriptors reloaded in the loop) at 160 registers for the worker consumers (168
for the default one; ``$PROBE_WORKER_REGS``, ``$PROBE_MAX_REGS``). What Gluon imposed: every register tensor's and
shared buffer's dims are powers of two, and a TMA load cannot land in a slice of a buffer, so the 96 keys are held as
64 + 32 (K, V, P^T, dS^T buffers, dK^T and dV^T accumulators, two products each). The GPU run checks it against fp32
autograd and the engine, then times the whole call (the engine's ODO, zero fill and DQ_CONVERT around the kernel)
beside the engine's backward and cuDNN's at (1,16,4096).
"""

from __future__ import annotations

import argparse
import json
import math
import os
import sys

from sdpa_bwd.engine.kernels.attention_bwd_gluon import AVAILABLE

if AVAILABLE:
    from sdpa_bwd.engine.kernels.attention_bwd_gluon import (
        _thread_barrier,
        _tma_load,
        _tma_reduce_add,
        as_box,
        fence_async_shared,
        gl,
        gluon,
        mbarrier,
        program_tile,
        tma,
        warpgroup_mma,
        warpgroup_mma_wait,
        wgmma_layout,
    )
    from sdpa_bwd.engine.kernels.attention_bwd_gluon_192 import stream_q_do
    from sdpa_bwd.engine.kernels.attention_fwd_gluon import host_layout

# The kernel's register budget ($PROBE_MAX_REGS): Triton pads the 13 warps to whole warpgroups (16 warps: the
# loader's with three idle ones), so 16 x 32 threads x 128 fill the 65,536 of an SM; the partitions then resize
# theirs (setmaxnreg): the workers to WREG, the loader's warpgroup to 24 and the default consumer to what is left
# (168 at WREG 160). The first build's 152 over-asked: 16 warps of 152 do not fit, and the default read 256.
MAX_REGS = int(os.environ.get("PROBE_MAX_REGS", "128"))
D_QK_, D_V_, KEYS_, ROWS_, COLS0_ = 192, 128, 96, 64, 128
KV_ROWS_ = (64, 32)  # K's and V's 96 rows as two blocks (a block's dims and a buffer's are powers of two)
if AVAILABLE:  # the kernel's globals must be constexprs
    D_QK, D_V, KEYS, ROWS, SUB, DC = (gl.constexpr(n) for n in (192, 128, 96, 64, 32, 64))
    COLS0 = gl.constexpr(COLS0_)
    # the worker consumers' register budget ($PROBE_WORKER_REGS, for trying others: see the docstring's status)
    WREG = gl.constexpr(int(os.environ.get("PROBE_WORKER_REGS", "160")))
    # a diagnostic build (--diag no_ds_free: P^T and dS^T rewritten without waiting for the last tile's readers,
    # wrong results): what the single-buffered handshake costs
    WAIT_DS_FREE = gl.constexpr(True)
# ((B, H_q, S), causal, H_kv, storage): tails, the mask, shared K/V heads (fp32 accumulators), BSHD strides, then
# the timed shapes
CASES = [((1, 2, 300), False, 2, "bhsd"), ((2, 3, 777), True, 3, "bhsd"), ((1, 2, 1024), True, 2, "bhsd"),
         ((1, 4, 500), True, 2, "bhsd"), ((2, 2, 640), False, 2, "bshd"), ((1, 16, 4096), True, 16, "bhsd"),
         ((1, 16, 4096), False, 16, "bhsd"), ((1, 16, 4096), True, 16, "bshd")]

if AVAILABLE:
    @gluon.jit
    def _loader(q_desc, qb_desc, do_desc, kv_descs, b, h, hk, hv, key0, m0, n_tiles, kv, q_smem, qb_smem, do_smem,
                kv_bar, q_ready, do_ready, q_empty, do_empty, lse_desc, dlt_desc, side0, lse_smem, dlt_smem):
        """K's and V's 96 rows once (``kv``: K's two column chunks and V, each as its keys 0-63 and 64-95, a
        buffer's dims being powers of two, through descriptors of 64- and 32-row blocks, ``kv_descs``: a load
        cannot land in a slice of a buffer), then each query tile's Q rows (two column chunks) with its lse2 rows
        and its dO rows with its delta rows through the stages (the engine's loader protocol; the empties take
        three arrivals, one a consumer). K is head ``hk``'s, V head ``hv``'s."""
        mbarrier.expect(kv_bar, kv_descs[0].block_type.nbytes + kv_descs[1].block_type.nbytes
                        + kv_descs[2].block_type.nbytes + kv_descs[3].block_type.nbytes
                        + kv_descs[4].block_type.nbytes + kv_descs[5].block_type.nbytes)
        for j in gl.static_range(6):  # K 0-63, K 64-95, K's second chunk (at column 128) likewise, V likewise
            _tma_load(kv_descs[j], [b, hk if j < 4 else hv, key0 + (j % 2) * (KEYS - SUB), (j // 2 == 1) * COLS0],
                      kv_bar, as_box(kv[j], kv_descs[j]))
        stream_q_do(q_desc, qb_desc, do_desc, b, h, b, h, m0, n_tiles, q_smem, qb_smem, do_smem, q_ready, do_ready,
                    q_empty, do_empty, lse_desc, dlt_desc, side0, lse_smem, dlt_smem)

    @gluon.jit
    def _tile(t, i, key0, tag, q_smem, qb_smem, do_smem, kv, pds, dq_smem, dq_desc, q_ready, do_ready, q_empty,
              do_empty, ds_full, ds_free, lse_smem, dlt_smem, dq_row0, S_q, qk_scale_log2, dk, dk2, dv, dv2, masked):
        """Query tile ``i`` (the program's t-th) for consumer ``CID`` (read off ``tag``'s shape: an argument that
        reaches a partition arrives as a runtime value): S and dP for its 32 keys, its rows of P^T and dS^T
        (``pds``: the program's keys 0-63 and 64-95, transposed) stored once all consumers are done with the last
        tile's (``ds_free``), then (all in, ``ds_full``) its dQ columns, its dV^T rows (consumers 0 and 1) and its
        dK^T rows, each over keys 0-63 and 64-95 (``dk``, ``dk2``; ``dv``, ``dv2``: a register tensor's dims are
        powers of two). Returns the four, in flight."""
        CID: gl.constexpr = tag.type.shape[0] - 1
        NST: gl.constexpr = q_smem.type.shape[0]
        s_layout: gl.constexpr = wgmma_layout(SUB)
        k_lo, k_hi, kb_lo, kb_hi, v_lo, v_hi = kv
        p_lo, p_hi, ds_lo, ds_hi = pds
        if CID == 2:  # this consumer's 32 keys
            k_m = k_hi
            kb_m = kb_hi
            v_m = v_hi
            p_m = p_hi
            ds_m = ds_hi
        else:
            k_m = k_lo.slice(CID * SUB, SUB, dim=0)
            kb_m = kb_lo.slice(CID * SUB, SUB, dim=0)
            v_m = v_lo.slice(CID * SUB, SUB, dim=0)
            p_m = p_lo.slice(CID * SUB, SUB, dim=0)
            ds_m = ds_lo.slice(CID * SUB, SUB, dim=0)
        s = t % NST
        phase = (t // NST) & 1
        qpos = i * ROWS + gl.arange(0, ROWS, layout=gl.SliceLayout(1, s_layout))
        row_ok = qpos < S_q
        zero = gl.zeros([ROWS, SUB], gl.float32, s_layout)
        mbarrier.wait(q_ready.index(s), phase)
        s_tok = warpgroup_mma(q_smem.index(s), k_m.permute((1, 0)), zero, use_acc=False, is_async=True)
        s_tok = warpgroup_mma(qb_smem.index(s), kb_m.permute((1, 0)), s_tok, is_async=True)
        lse2 = gl.where(row_ok, lse_smem.index(s).load(gl.SliceLayout(1, s_layout)), float("inf"))
        mbarrier.wait(do_ready.index(s), phase)
        dp_tok = warpgroup_mma(do_smem.index(s), v_m.permute((1, 0)), zero, use_acc=False, is_async=True)
        delta = gl.where(row_ok, dlt_smem.index(s).load(gl.SliceLayout(1, s_layout)), 0.0)
        # the last tile's dK^T, dV^T are done too
        s_t, dk, dk2, dv, dv2 = warpgroup_mma_wait(1, deps=(s_tok, dk, dk2, dv, dv2))
        if t > 0:  # the last tile's products are done with its stage, and with P and dS
            prev = (t - 1) % NST
            mbarrier.arrive(q_empty.index(prev), count=1)
            mbarrier.arrive(do_empty.index(prev), count=1)
            mbarrier.arrive(ds_free, count=1)
        if masked:
            kpos = key0 + CID * SUB + gl.arange(0, SUB, layout=gl.SliceLayout(0, s_layout))
            s_t = gl.where(kpos[None, :] <= qpos[:, None], s_t, float("-inf"))
        p = gl.exp2(s_t * qk_scale_log2 - lse2[:, None])
        if WAIT_DS_FREE:
            if t > 0:
                mbarrier.wait(ds_free, (t - 1) & 1)
        p_m.permute((1, 0)).store(p.to(p_m.dtype))
        dp = warpgroup_mma_wait(0, deps=(dp_tok,))
        ds_m.permute((1, 0)).store((p * (dp - delta[:, None])).to(ds_m.dtype))
        fence_async_shared()
        _thread_barrier()
        mbarrier.arrive(ds_full, count=1)
        mbarrier.wait(ds_full, t & 1)
        if CID == 2:  # dQ's, dK's columns 128-191: K's and Q's second chunk
            kc_lo = kb_lo
            kc_hi = kb_hi
            q_t = qb_smem.index(s).permute((1, 0))
        else:
            kc_lo = k_lo.slice(CID * DC, DC, dim=1)
            kc_hi = k_hi.slice(CID * DC, DC, dim=1)
            q_t = q_smem.index(s).slice(CID * DC, DC, dim=1).permute((1, 0))
        dq_tok = warpgroup_mma(ds_lo.permute((1, 0)), kc_lo, gl.zeros([ROWS, DC], gl.float32, wgmma_layout(DC)),
                               use_acc=False, is_async=True)
        dq_tok = warpgroup_mma(ds_hi.permute((1, 0)), kc_hi, dq_tok, is_async=True)
        if CID < 2:
            do_t = do_smem.index(s).slice(CID * DC, DC, dim=1).permute((1, 0))
            dv = warpgroup_mma(do_t, p_lo.permute((1, 0)), dv, is_async=True)
            dv2 = warpgroup_mma(do_t, p_hi.permute((1, 0)), dv2, is_async=True)
        dk = warpgroup_mma(q_t, ds_lo.permute((1, 0)), dk, is_async=True)
        dk2 = warpgroup_mma(q_t, ds_hi.permute((1, 0)), dk2, is_async=True)
        if CID < 2:
            dq = warpgroup_mma_wait(4, deps=(dq_tok,))  # dV^T's and dK^T's four products still in flight
        else:
            dq = warpgroup_mma_wait(2, deps=(dq_tok,))
        tma.store_wait(0)  # the previous tile's reduce has read the staging buffer
        dq_smem.store(dq)
        fence_async_shared()
        _tma_reduce_add(dq_desc, [dq_row0 + i * ROWS, CID * DC], dq_smem)
        return dk, dk2, dv, dv2

    @gluon.jit
    def _store_t(base, acc_t, key0, S_kv, stride_s, stride_d, C0: gl.constexpr):
        """``acc_t`` (a [columns, keys] accumulator of dK^T or dV^T) stored transposed into the (S_kv, D) head from
        ``base`` through its strides: its keys from ``key0`` (those below S_kv), its columns from ``C0``; added
        where ``base`` is fp32 (the launcher's accumulators of shared K/V heads, which several query heads'
        programs add into)."""
        layout: gl.constexpr = acc_t.type.layout
        keys = key0 + gl.arange(0, acc_t.type.shape[1], layout=gl.SliceLayout(0, layout))
        cols = C0 + gl.arange(0, acc_t.type.shape[0], layout=gl.SliceLayout(1, layout))
        ptrs = base + keys.to(gl.int64)[None, :] * stride_s + (cols * stride_d)[:, None]
        keep = (keys < S_kv)[None, :]
        if base.dtype.element_ty == gl.float32:
            gl.atomic_add(ptrs, acc_t, mask=keep, sem="relaxed")
        else:
            gl.store(ptrs, acc_t.to(base.dtype.element_ty), mask=keep)

    @gluon.jit
    def _consumer(tag, q_smem, qb_smem, do_smem, kv, pds, dq_smem, dq_desc, kv_bar, q_ready, do_ready, q_empty,
                  do_empty, ds_full, ds_free, lse_smem, dlt_smem, dq_row0, key0, i_start, n_tiles, S_q, S_kv,
                  qk_scale_log2, scale, causal, dk_base, dk_ss, dk_sd, dv_base, dv_ss, dv_sd):
        """Consumer ``CID``'s query tiles (the first two, masked under ``causal``, peeled), then its dK^T rows
        (scaled) and, for consumers 0 and 1, its dV^T rows, stored transposed through dK's and dV's strides."""
        CID: gl.constexpr = tag.type.shape[0] - 1
        NST: gl.constexpr = q_smem.type.shape[0]
        LO: gl.constexpr = KEYS - SUB
        NV: gl.constexpr = LO if CID < 2 else 8  # consumer 2 carries token dV^T accumulators it never uses
        NV2: gl.constexpr = SUB if CID < 2 else 8
        dk = gl.zeros([DC, LO], gl.float32, wgmma_layout(LO))
        dk2 = gl.zeros([DC, SUB], gl.float32, wgmma_layout(SUB))
        dv = gl.zeros([DC, NV], gl.float32, wgmma_layout(NV))
        dv2 = gl.zeros([DC, NV2], gl.float32, wgmma_layout(NV2))
        mbarrier.wait(kv_bar, 0)
        args = (tag, q_smem, qb_smem, do_smem, kv, pds, dq_smem, dq_desc, q_ready, do_ready, q_empty, do_empty,
                ds_full, ds_free, lse_smem, dlt_smem, dq_row0, S_q, qk_scale_log2)
        dk, dk2, dv, dv2 = _tile(0, i_start, key0, *args, dk, dk2, dv, dv2, causal != 0)
        dk, dk2, dv, dv2 = _tile(1, i_start + 1, key0, *args, dk, dk2, dv, dv2, causal != 0)
        for t in range(2, n_tiles):
            dk, dk2, dv, dv2 = _tile(t, i_start + t, key0, *args, dk, dk2, dv, dv2, False)
        dk, dk2, dv, dv2 = warpgroup_mma_wait(0, deps=(dk, dk2, dv, dv2))
        last = (n_tiles - 1) % NST
        mbarrier.arrive(q_empty.index(last), count=1)
        mbarrier.arrive(do_empty.index(last), count=1)
        _store_t(dk_base, dk * scale, key0, S_kv, dk_ss, dk_sd, CID * DC)
        _store_t(dk_base, dk2 * scale, key0 + LO, S_kv, dk_ss, dk_sd, CID * DC)
        if CID < 2:
            _store_t(dv_base, dv, key0, S_kv, dv_ss, dv_sd, CID * DC)
            _store_t(dv_base, dv2, key0 + LO, S_kv, dv_ss, dv_sd, CID * DC)
        tma.store_wait(0)

    @gluon.jit(do_not_specialize=["H", "G_k", "G_v", "S_q", "S_kv", "S_side", "causal"])
    def bwd192_k96_kernel(q_desc, qb_desc, k_desc, k2_desc, kb_desc, kb2_desc, v_desc, v2_desc, do_desc, dq_desc,
                          lse_desc, dlt_desc, dk_ptr, dv_ptr, dk_sb, dk_sh, dk_ss, dk_sd, dv_sb, dv_sh, dv_ss, dv_sd,
                          H, G_k, G_v, S_q, S_kv, S_side, qk_scale_log2, scale, causal, HEAD_GROUP: gl.constexpr):
        """Grid (cdiv(S_kv, 96), B H_q); query head h reads K head h // ``G_k`` and V head h // ``G_v``; dK and
        dV (from ``dk_ptr`` / ``dv_ptr``, each through its four strides) are that K's and V's (fp32 accumulators
        where heads are shared); ``dq_desc``: the zeroed fp32 accumulator (B H_q S_q, 192) in [64, 64] blocks."""
        pid_n, bh = program_tile(HEAD_GROUP, False)
        b = bh // H
        h = bh % H
        hk = h // G_k
        hv = h // G_v
        key0 = pid_n * KEYS
        i_start = key0 // ROWS * causal
        n_tiles = gl.maximum(gl.cdiv(S_q, ROWS) - i_start, 2)  # past-S_q tiles add exact zeros
        dt: gl.constexpr = q_desc.dtype
        LO: gl.constexpr = KEYS - SUB
        q_smem = gl.allocate_shared_memory(dt, [2, ROWS, COLS0], gl.NVMMASharedLayout.get_default_for([ROWS, COLS0], dt))
        qb_smem = gl.allocate_shared_memory(dt, [2, ROWS, D_QK - COLS0],
                                            gl.NVMMASharedLayout.get_default_for([ROWS, D_QK - COLS0], dt))
        do_smem = gl.allocate_shared_memory(dt, [2, ROWS, D_V], gl.NVMMASharedLayout.get_default_for([ROWS, D_V], dt))
        kv = (gl.allocate_shared_memory(dt, [LO, COLS0], gl.NVMMASharedLayout.get_default_for([LO, COLS0], dt)),
              gl.allocate_shared_memory(dt, [SUB, COLS0], gl.NVMMASharedLayout.get_default_for([SUB, COLS0], dt)),
              gl.allocate_shared_memory(dt, [LO, D_QK - COLS0],
                                        gl.NVMMASharedLayout.get_default_for([LO, D_QK - COLS0], dt)),
              gl.allocate_shared_memory(dt, [SUB, D_QK - COLS0],
                                        gl.NVMMASharedLayout.get_default_for([SUB, D_QK - COLS0], dt)),
              gl.allocate_shared_memory(dt, [LO, D_V], gl.NVMMASharedLayout.get_default_for([LO, D_V], dt)),
              gl.allocate_shared_memory(dt, [SUB, D_V], gl.NVMMASharedLayout.get_default_for([SUB, D_V], dt)))
        # P^T and dS^T ([keys, rows]: each consumer stores its 32 keys' rows), keys 0-63 and 64-95
        pds = (gl.allocate_shared_memory(dt, [LO, ROWS], gl.NVMMASharedLayout.get_default_for([LO, ROWS], dt)),
               gl.allocate_shared_memory(dt, [SUB, ROWS], gl.NVMMASharedLayout.get_default_for([SUB, ROWS], dt)),
               gl.allocate_shared_memory(dt, [LO, ROWS], gl.NVMMASharedLayout.get_default_for([LO, ROWS], dt)),
               gl.allocate_shared_memory(dt, [SUB, ROWS], gl.NVMMASharedLayout.get_default_for([SUB, ROWS], dt)))
        dq_layout: gl.constexpr = gl.NVMMASharedLayout.get_default_for([ROWS, DC], gl.float32)
        dq0_smem = gl.allocate_shared_memory(gl.float32, [ROWS, DC], dq_layout)
        dq1_smem = gl.allocate_shared_memory(gl.float32, [ROWS, DC], dq_layout)
        dq2_smem = gl.allocate_shared_memory(gl.float32, [ROWS, DC], dq_layout)
        bars = gl.allocate_shared_memory(gl.int64, [3, 1], mbarrier.MBarrierLayout())
        kv_bar = bars.index(0)
        ds_full = bars.index(1)
        ds_free = bars.index(2)
        mbarrier.init(kv_bar, count=1)
        mbarrier.init(ds_full, count=3)
        mbarrier.init(ds_free, count=3)
        q_ready = gl.allocate_shared_memory(gl.int64, [2, 1], mbarrier.MBarrierLayout())
        do_ready = gl.allocate_shared_memory(gl.int64, [2, 1], mbarrier.MBarrierLayout())
        q_empty = gl.allocate_shared_memory(gl.int64, [2, 1], mbarrier.MBarrierLayout())
        do_empty = gl.allocate_shared_memory(gl.int64, [2, 1], mbarrier.MBarrierLayout())
        for j in gl.static_range(2):
            mbarrier.init(q_ready.index(j), count=1)
            mbarrier.init(do_ready.index(j), count=1)
            mbarrier.init(q_empty.index(j), count=3)
            mbarrier.init(do_empty.index(j), count=3)
        # the consumers' ids, as types: never-initialised barrier arrays of 1, 2 and 3 entries, never touched
        tag0 = gl.allocate_shared_memory(gl.int64, [1, 1], mbarrier.MBarrierLayout())
        tag1 = gl.allocate_shared_memory(gl.int64, [2, 1], mbarrier.MBarrierLayout())
        tag2 = gl.allocate_shared_memory(gl.int64, [3, 1], mbarrier.MBarrierLayout())
        side_layout: gl.constexpr = gl.NVMMASharedLayout(swizzle_byte_width=0, element_bitwidth=32, rank=1)
        lse_smem = gl.allocate_shared_memory(gl.float32, [2, ROWS], side_layout)
        dlt_smem = gl.allocate_shared_memory(gl.float32, [2, ROWS], side_layout)
        dk_base = dk_ptr + b.to(gl.int64) * dk_sb + hk.to(gl.int64) * dk_sh
        dv_base = dv_ptr + b.to(gl.int64) * dv_sb + hv.to(gl.int64) * dv_sh
        common = (q_smem, qb_smem, do_smem, kv, pds)
        tail = (kv_bar, q_ready, do_ready, q_empty, do_empty, ds_full, ds_free, lse_smem, dlt_smem, bh * S_q, key0,
                i_start, n_tiles, S_q, S_kv, qk_scale_log2, scale, causal, dk_base, dk_ss, dk_sd, dv_base, dv_ss,
                dv_sd)
        kv_descs = (k_desc, k2_desc, kb_desc, kb2_desc, v_desc, v2_desc)
        loader = (q_desc, qb_desc, do_desc, kv_descs, b, h, hk, hv, key0, i_start * ROWS, n_tiles, kv, q_smem,
                  qb_smem, do_smem, kv_bar, q_ready, do_ready, q_empty, do_empty, lse_desc, dlt_desc, bh * S_side,
                  lse_smem, dlt_smem)
        gl.warp_specialize([(_consumer, (tag0,) + common + (dq0_smem, dq_desc) + tail),
                            (_consumer, (tag1,) + common + (dq1_smem, dq_desc) + tail),
                            (_consumer, (tag2,) + common + (dq2_smem, dq_desc) + tail), (_loader, loader)],
                           [4, 4, 1], [WREG, WREG, 24])


def _signature(dtype="bf16"):
    sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
    from gluon_probe_common import desc_signature

    name = {"bf16": "bfloat16", "fp16": "float16"}[dtype]
    gdt = {"bf16": gl.bfloat16, "fp16": gl.float16}[dtype]
    side = gl.NVMMASharedLayout(swizzle_byte_width=0, element_bitwidth=32, rank=1)

    def four(rows, cols):
        return desc_signature(rows, name, [1, 1, rows, cols], host_layout(rows, cols, gdt))

    lo, hi = KV_ROWS_
    return dict(q_desc=four(ROWS_, COLS0_), qb_desc=four(ROWS_, D_QK_ - COLS0_), k_desc=four(lo, COLS0_),
                k2_desc=four(hi, COLS0_), kb_desc=four(lo, D_QK_ - COLS0_), kb2_desc=four(hi, D_QK_ - COLS0_),
                v_desc=four(lo, D_V_), v2_desc=four(hi, D_V_), do_desc=four(ROWS_, D_V_),
                dq_desc=desc_signature(ROWS_, "float32", [ROWS_, 64],
                                       gl.NVMMASharedLayout.get_default_for([ROWS_, 64], gl.float32)),
                lse_desc=desc_signature(ROWS_, "float32", [ROWS_], side),
                dlt_desc=desc_signature(ROWS_, "float32", [ROWS_], side),
                dk_ptr=f"*{dtype}", dv_ptr=f"*{dtype}", **{f"d{t}_s{x}": "i32" for t in "kv" for x in "bhsd"},
                H="i32", G_k="i32", G_v="i32", S_q="i32", S_kv="i32", S_side="i32",
                qk_scale_log2="fp32", scale="fp32", causal="i32", HEAD_GROUP="constexpr")


def compile_only() -> dict:
    sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
    from gluon_probe_common import compile_report

    return compile_report(bwd192_k96_kernel, _signature(), dict(HEAD_GROUP=8), maxnreg=MAX_REGS)


def launch(q, k, v, o, do, stats, causal: bool, kernel_only: bool = False):
    """The probe's backward through the engine's side kernels: ODO (delta, lse2), the zeroed fp32 accumulators
    (dQ's; dK's and dV's where K or V heads are shared), the kernel, DQ_CONVERT. ``kernel_only``: a function that
    launches the kernel alone on the buffers made here (for timing; it adds into the same accumulators each
    call)."""
    import torch
    from triton.experimental.gluon.nvidia.hopper import TensorDescriptor

    from sdpa_bwd.engine import launch as engine
    from sdpa_bwd.engine import launch_cache

    B, H, S_q, _ = q.shape
    S_kv = k.shape[2]
    scale = 1.0 / math.sqrt(D_QK_)
    rec = launch_cache.Recorder(None)
    side = engine.gluon_side_rows(S_q)
    delta, lse2, dq_acc = engine._side_buffers(B, H, S_q, D_QK_, True, q.device, side)
    st = engine._stats_strides(stats, B, H, S_q)
    engine._launch_odo(rec, o, do, stats, st, delta, lse2, D_V_, False, side)
    dq, dk, dv = (torch.empty_like(t) for t in (q, k, v))
    kv_acc = engine._kv_accumulators(q, k, v)
    dk_out, dv_out = kv_acc or (dk, dv)
    gdt = gl.bfloat16 if q.dtype == torch.bfloat16 else gl.float16

    def four(t, rows, cols):
        return engine._bhsd_descriptor(TensorDescriptor, t, rows, host_layout(rows, cols, gdt), cols)

    side_layout = gl.NVMMASharedLayout(swizzle_byte_width=0, element_bitwidth=32, rank=1)
    lo, hi = KV_ROWS_
    descs = (four(q, ROWS_, COLS0_), four(q, ROWS_, D_QK_ - COLS0_), four(k, lo, COLS0_), four(k, hi, COLS0_),
             four(k, lo, D_QK_ - COLS0_), four(k, hi, D_QK_ - COLS0_), four(v, lo, D_V_), four(v, hi, D_V_),
             four(do, ROWS_, D_V_),
             TensorDescriptor(dq_acc, [dq_acc.numel() // D_QK_, D_QK_], [D_QK_, 1], [ROWS_, 64],
                              gl.NVMMASharedLayout.get_default_for([ROWS_, 64], gl.float32)),
             TensorDescriptor(lse2, [lse2.numel()], [1], [ROWS_], side_layout),
             TensorDescriptor(delta, [delta.numel()], [1], [ROWS_], side_layout))
    grid = ((S_kv + KEYS_ - 1) // KEYS_, B * H)

    def run():
        bwd192_k96_kernel[grid](*descs, dk_out, dv_out, *dk_out.stride(), *dv_out.stride(), H, H // k.shape[1],
                                H // v.shape[1], S_q, S_kv, side, scale * math.log2(math.e), scale, int(causal),
                                HEAD_GROUP=8 if causal else 1, num_warps=4, maxnreg=MAX_REGS)
    if kernel_only:
        return run
    run()
    engine._launch_dq_convert(rec, dq_acc, dq, scale, 128, 64, False)
    if kv_acc:  # dK's partials were scaled in the kernel
        engine._launch_dq_convert(rec, kv_acc[0], dk, 1.0, 128, 64, False)
        engine._launch_dq_convert(rec, kv_acc[1], dv, 1.0, D_V_, 0, False)
    return dq, dk, dv


def _inputs(B, H, S, H_kv, layout, gen):
    """Q, K, V, dO of the case in BHSD, or in BSHD storage (a (B, S, H, D) tensor, permuted to (B, H, S, D))."""
    import torch

    def make(h, d):
        if layout == "bshd":
            return torch.randn(B, S, h, d, device="cuda", dtype=torch.bfloat16, generator=gen).transpose(1, 2)
        return torch.randn(B, h, S, d, device="cuda", dtype=torch.bfloat16, generator=gen)
    return make(H, D_QK_), make(H_kv, D_QK_), make(H_kv, D_V_), make(H, D_V_)


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--out", default=None)
    ap.add_argument("--compile-only", action="store_true")
    ap.add_argument("--diag", choices=("no_ds_free", "no_dq_reduce"), default=None,
                    help="time a diagnostic build (wrong results) on the timed shapes only: no_ds_free, the P^T/dS^T "
                         "handshake's wait taken out; no_dq_reduce, dQ's bulk reduces taken out")
    args = ap.parse_args()
    if args.compile_only:
        print(json.dumps(compile_only()), flush=True)
        return
    import torch

    if args.diag == "no_ds_free":  # before the kernel's first compile in this process, so that the build takes it
        globals()["WAIT_DS_FREE"] = gl.constexpr(False)
    elif args.diag == "no_dq_reduce":
        @gluon.jit
        def _no_reduce(desc, offsets, src):
            pass
        globals()["_tma_reduce_add"] = _no_reduce

    from sdpa_bwd.engine import launch as engine

    sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
    from gluon_probe_common import cudnn_backward, fp32_grads, interleaved_ms, rel_err

    rows = []
    for (B, H, S), causal, H_kv, layout in CASES:  # small shapes first: a wrong mbarrier phase shows as a hang there
        if args.diag and (S < 4096 or layout != "bhsd"):
            continue
        gen = torch.Generator(device="cuda").manual_seed(S + H_kv)
        q, k, v, do = _inputs(B, H, S, H_kv, layout, gen)
        band = dict(right_bound=0) if causal else {}
        o, stats = engine.attention_forward(q, k, v, **band)
        tag = f"({B},{H}/{H_kv},{S},192/128) {layout} {'causal' if causal else 'nc'}"
        row = dict(shape=[B, H, S], h_kv=H_kv, layout=layout, causal=causal, diag=args.diag)
        try:
            ours = launch(q, k, v, o, do, stats, causal)
            torch.cuda.synchronize()
        except Exception as exc:  # noqa: BLE001 - a probe reports what failed and goes on
            row["error"] = f"{type(exc).__name__}: {str(exc)[:600]}"
            print(f"{tag}: FAILED {row['error']}", flush=True)
            rows.append(row)
            continue
        ref = engine.attention_backward(q, k, v, o, do, stats, **band)
        if S <= 1024 and H_kv == H:
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
        print(tag, json.dumps(row), flush=True)
        rows.append(row)
    if args.out:
        os.makedirs(args.out, exist_ok=True)
        with open(os.path.join(args.out, f"bwd192_k96_probe{'_' + args.diag if args.diag else ''}.json"), "w") as f:
            json.dump(rows, f, indent=1)


if __name__ == "__main__":
    main()
