"""The D_qk 192 / D_v 128 backward on Hopper in Gluon with 128 keys a program: half the L2 traffic of
``attention_bwd_gluon_192``'s 64-key programs, as cuDNN's pass has it.

Why: both engines' calls at (1,16,4096) causal bf16 were measured held by the H200's 700 W cap under sustained
load (ours reaches it ~0.1 s into a run, cuDNN's ~0.9 s; 2026-12-04), so there a call's time follows its energy;
and Nsight Compute's counters of the two passes (docs/data/h200-2026-12-04a/run5 and run6) show cuDNN's moving half our
L2 bytes: 38.9 M sectors of reductions against our 76.7 M (the pair form, which sums two key blocks' dQ partials before
one reduce, has exactly cuDNN's 38.9 M), 25.4 M sectors read against our 46.1 M (the Q and dO tiles loaded once for
128 keys). So here a program owns 128 keys of one (batch, query head) and streams 64-row query tiles through two
stages, and each consumer warpgroup owns 64 of the keys with all of their columns:

- a loader partition (1 warp) brings the block's K rows (three 64-column chunks a key half, ``kb_desc``'s [64, 64]
  blocks at columns 0, 64, 128) and V rows once, then each tile's Q rows (three chunks, the same blocks over Q)
  with lse2, and dO rows with delta, through the stages;
- consumer ``c`` computes S = Q K_c^T (three K-dim 64 products), P (masked on the block's first two tiles under
  the causal mask: the first is consumer 0's diagonal and consumer 1's fully masked one, the second consumer 1's
  diagonal) into its own shared tile, dV_c += P^T dO, dP = dO V_c^T, dS = P (dP - delta) into its own shared
  tile (``ds_full[c]``), dK_c += dS^T Q in three 64-column accumulators;
- dQ over the block's 128 keys, dS_0 K_0 + dS_1 K_1, in 64-column chunks once both dS tiles are in: consumer 0
  chunks 0 and 2, consumer 1 chunk 1, each staged and bulk-reduced into the packed fp32 accumulator through
  ``dq1_desc``'s [64, 64] blocks; a consumer gives the other's dS tile back (``ds_free``) once its dQ products
  are done with it. The chunks are uneven (consumer 0 has 0.5 M more multiply-adds a tile than consumer 1's
  3.15 M): 32-column chunks would need blocks and buffers of their own;
- dK (scaled) and dV stored through their strides at the end (``attention_bwd_gluon_192._store_rows``: fp32 atomic
  adds where K/V heads are shared).

Registers: a consumer holds dK (96 a thread) and dV (64) over the tiles, and S or dP (32), P read back from its
shared tile for dS, and one dQ chunk (32) at a time; ptxas still spills 436 B a thread (Triton 3.6; 308-344 B on
3.9): the products' shared-memory descriptors, reloaded in the loop. Shared memory 230,976 B: K 48 KB, V 32 KB, two
stages of Q and dO 80 KB, the two P and two dS tiles 32 KB, two [64, 64] fp32 staging buffers 32 KB (consumer 0's
second chunk waits for its first's reduce to have read the buffer). The launcher's switch is
``launch.GLUON_BWD192_K128``, off by default: measured (2026-12-04, H200, docs/data/h200-2026-12-04a/run7 and
run8, ``tools/ab192.py --switch gluon_bwd192_k128``), it is right (GPU tests 15/15: the 13 192 cases, agreement
and replay) and has cuDNN's L2 reduction count (38.9 M sectors against the 64-key kernel's 76.7 M), but the kernel
takes 0.697 ms causal at (1,16,4096) bf16 against the 64-key persistent kernel's 0.557 (1.26 against 1.05 non-causal),
with or without its first build's larger spills: its consumers run in lockstep (each waits for the other's dS before its
dQ, so their softmax phases coincide while the tensor cores idle), and consumer 0's extra chunk waits on its one staging
buffer. What is next for it is in docs/perf-log.md (2026-12-04, the 128-key kernel).
Tails and the causal start as ``attention_bwd_gluon_192``'s (a key half past S_kv comes in as TMA's zeros: its P
and dS add nothing to dQ through K's zero rows, and its dK, dV rows are not stored).
"""

from __future__ import annotations

from .attention_bwd_gluon import AVAILABLE
from .attention_bwd_gluon_192 import MAX_REGS, QUERY_ROWS  # noqa: F401 - the 64-key kernel's budget and tile rows

if AVAILABLE:
    from .attention_bwd_gluon import (
        _gdc_launch_dependents,
        _gdc_wait,
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
    from .attention_bwd_gluon_192 import _store_rows

KEYS_PER_PROGRAM = 128
if AVAILABLE:
    ROWS, HALF_KEYS, CHUNK, D_V = (gl.constexpr(n) for n in (64, 64, 64, 128))

    @gluon.jit
    def _loader(qb_desc, do_desc, kb_desc, v_desc, b, h, hk, hv, key0, m0, n_tiles, k_smem, v_smem, q_smem, do_smem,
                kv_bar, q_ready, do_ready, q_empty, do_empty, lse_desc, dlt_desc, side0, lse_smem, dlt_smem):
        """The block's K (two key halves of three [64, 64] chunks) and V rows once, then each query tile's Q chunks
        with lse2 under ``q_ready`` and its dO rows with delta under ``do_ready``, through the stages. Batch and
        head coordinates ``% shape``: 0 where the launcher gave a broadcast dimension as one."""
        NST: gl.constexpr = do_smem.type.shape[0]
        SIDE_BYTES: gl.constexpr = ROWS * 4
        _gdc_launch_dependents()
        kb_ = b % kb_desc.shape[0]
        kh = hk % kb_desc.shape[1]
        vb = b % v_desc.shape[0]
        vh = hv % v_desc.shape[1]
        mbarrier.expect(kv_bar, 6 * kb_desc.block_type.nbytes + 2 * v_desc.block_type.nbytes)
        for c in gl.static_range(2):
            for j in gl.static_range(3):
                _tma_load(kb_desc, [kb_, kh, key0 + c * HALF_KEYS, j * CHUNK], kv_bar,
                          as_box(k_smem.index(3 * c + j), kb_desc))
            _tma_load(v_desc, [vb, vh, key0 + c * HALF_KEYS, 0], kv_bar, as_box(v_smem.index(c), v_desc))
        _gdc_wait()  # ODO's lse2 and delta (and, where it zeroes it, the dQ accumulator) are written
        qb_ = b % qb_desc.shape[0]
        qh = h % qb_desc.shape[1]
        dob = b % do_desc.shape[0]
        doh = h % do_desc.shape[1]
        for t in range(0, n_tiles):
            s = t % NST
            phase = (t // NST) & 1
            row = m0 + t * ROWS
            mbarrier.wait(q_empty.index(s), phase ^ 1)
            mbarrier.expect(q_ready.index(s), 3 * qb_desc.block_type.nbytes + SIDE_BYTES)
            for j in gl.static_range(3):
                _tma_load(qb_desc, [qb_, qh, row, j * CHUNK], q_ready.index(s), as_box(q_smem.index(3 * s + j),
                                                                                      qb_desc))
            _tma_load(lse_desc, [side0 + row], q_ready.index(s), lse_smem.index(s))
            mbarrier.wait(do_empty.index(s), phase ^ 1)
            mbarrier.expect(do_ready.index(s), do_desc.block_type.nbytes + SIDE_BYTES)
            _tma_load(do_desc, [dob, doh, row, 0], do_ready.index(s), as_box(do_smem.index(s), do_desc))
            _tma_load(dlt_desc, [side0 + row], do_ready.index(s), dlt_smem.index(s))

    @gluon.jit
    def _dq_chunk(j, ds_smem, k_smem):
        """dQ's columns 64 j to 64 j + 63 over the block's 128 keys, dS_0 K_0 + dS_1 K_1 (both dS tiles in), issued:
        its token."""
        acc_layout: gl.constexpr = wgmma_layout(CHUNK)
        tok = warpgroup_mma(ds_smem.index(0), k_smem.index(j), gl.zeros([ROWS, CHUNK], gl.float32, acc_layout),
                            use_acc=False, is_async=True)
        tok = warpgroup_mma(ds_smem.index(1), k_smem.index(3 + j), tok, is_async=True)
        return tok

    @gluon.jit
    def _stage_reduce(dq, stage, dq_desc, row, col):
        """A dQ chunk staged in ``stage`` once the last reduce has read it, and bulk-reduced into the accumulator
        at (``row``, ``col``)."""
        tma.store_wait(0)  # the last reduce has read the staging buffer
        stage.store(dq)
        fence_async_shared()
        _tma_reduce_add(dq_desc, [row, col], stage)

    @gluon.jit
    def _consumer(q_smem, do_smem, k_smem, v_smem, p_smem, ds_smem, dq_smem, dq_desc, kv_bar, q_ready, do_ready,
                  q_empty, do_empty, ds_full, ds_free, lse_smem, dlt_smem, dq_row0, key0, i_start, n_tiles, S_q, S_kv,
                  qk_scale_log2, scale, causal, dk_base, dk_ss, dk_sd, dv_base, dv_ss, dv_sd):
        """Consumer ``CID``'s key half (keys ``key0 + 64 CID`` on) over the block's query tiles, then its dK
        (scaled) and dV rows. ``CID`` is read off its staging buffer's rank (2 for consumer 0, 3 for consumer 1):
        an argument reaching a partition arrives as a runtime value, even one passed as a constexpr."""
        CID: gl.constexpr = len(dq_smem.type.shape) - 2
        NST: gl.constexpr = do_smem.type.shape[0]
        s_layout: gl.constexpr = wgmma_layout(HALF_KEYS)
        c_layout: gl.constexpr = wgmma_layout(CHUNK)
        v_layout: gl.constexpr = wgmma_layout(D_V)
        if CID == 1:
            stage = dq_smem.index(0)
        else:
            stage = dq_smem
        dk0 = gl.zeros([HALF_KEYS, CHUNK], gl.float32, c_layout)
        dk1 = gl.zeros([HALF_KEYS, CHUNK], gl.float32, c_layout)
        dk2 = gl.zeros([HALF_KEYS, CHUNK], gl.float32, c_layout)
        dv = gl.zeros([HALF_KEYS, D_V], gl.float32, v_layout)
        kc0 = k_smem.index(3 * CID)
        kc1 = k_smem.index(3 * CID + 1)
        kc2 = k_smem.index(3 * CID + 2)
        vc = v_smem.index(CID)
        _gdc_wait()  # before this consumer's first reduce into the accumulator ODO may have zeroed
        mbarrier.wait(kv_bar, 0)
        for t in range(0, n_tiles):
            i = i_start + t
            s = t % NST
            phase = (t // NST) & 1
            qpos = i * ROWS + gl.arange(0, ROWS, layout=gl.SliceLayout(1, s_layout))
            row_ok = qpos < S_q
            qa = q_smem.index(3 * s)
            qb = q_smem.index(3 * s + 1)
            qc = q_smem.index(3 * s + 2)
            mbarrier.wait(q_ready.index(s), phase)
            # the products' zero accumulators and the key positions are made where they are used: held over the
            # loop they took registers the tile needs (the first build, 2026-12-04, spilled ~0.6 KB a thread)
            s_tok = warpgroup_mma(qa, kc0.permute((1, 0)), gl.zeros([ROWS, HALF_KEYS], gl.float32, s_layout),
                                  use_acc=False, is_async=True)
            s_tok = warpgroup_mma(qb, kc1.permute((1, 0)), s_tok, is_async=True)
            s_tok = warpgroup_mma(qc, kc2.permute((1, 0)), s_tok, is_async=True)
            lse2 = gl.where(row_ok, lse_smem.index(s).load(gl.SliceLayout(1, s_layout)), float("inf"))
            s_t, dv = warpgroup_mma_wait(0, deps=(s_tok, dv))
            if t > 0:  # the previous tile's products are done with its stage
                prev = (t - 1) % NST
                mbarrier.arrive(q_empty.index(prev), count=1)
                mbarrier.arrive(do_empty.index(prev), count=1)
            if (causal != 0) & (t < 2):  # the block's first two tiles hold its diagonal
                kpos = key0 + CID * HALF_KEYS + gl.arange(0, HALF_KEYS, layout=gl.SliceLayout(0, s_layout))
                s_t = gl.where(kpos[None, :] <= qpos[:, None], s_t, float("-inf"))
            p = gl.exp2(s_t * qk_scale_log2 - lse2[:, None]).to(p_smem.dtype)
            p_smem.index(CID).store(p)  # the last tile's dV product that read it was waited for above
            fence_async_shared()
            _thread_barrier()  # every thread's P stored (and fenced) before the product reads it
            mbarrier.wait(do_ready.index(s), phase)
            dp_tok = warpgroup_mma(do_smem.index(s), vc.permute((1, 0)),
                                   gl.zeros([ROWS, HALF_KEYS], gl.float32, s_layout), use_acc=False, is_async=True)
            dv = warpgroup_mma(p_smem.index(CID).permute((1, 0)), do_smem.index(s), dv, is_async=True)
            delta = gl.where(row_ok, dlt_smem.index(s).load(gl.SliceLayout(1, s_layout)), 0.0)
            dp = warpgroup_mma_wait(1, deps=(dp_tok,))
            p = p_smem.index(CID).load(s_layout).to(gl.float32)  # read back: not held over the dP product
            ds = (p * (dp - delta[:, None])).to(ds_smem.dtype)
            if t > 0:  # the other consumer's dQ products are done with the last tile's dS
                mbarrier.wait(ds_free.index(CID), (t - 1) & 1)
            ds_smem.index(CID).store(ds)
            fence_async_shared()
            _thread_barrier()  # every thread's dS stored (and fenced) before the other consumer is told
            mbarrier.arrive(ds_full.index(CID), count=1)
            mbarrier.wait(ds_full.index(1 - CID), t & 1)
            row = dq_row0 + i * ROWS
            dq_tok = _dq_chunk(CID, ds_smem, k_smem)
            dk0 = warpgroup_mma(ds_smem.index(CID).permute((1, 0)), qa, dk0, is_async=True)
            dk1 = warpgroup_mma(ds_smem.index(CID).permute((1, 0)), qb, dk1, is_async=True)
            dk2 = warpgroup_mma(ds_smem.index(CID).permute((1, 0)), qc, dk2, is_async=True)
            dq, dv = warpgroup_mma_wait(3, deps=(dq_tok, dv))  # dK's three products left in flight
            if CID == 1:  # dK's products run under the staging store (waited here: a loop's variables keep a type)
                mbarrier.arrive(ds_free.index(0), count=1)
                _stage_reduce(dq, stage, dq_desc, row, CHUNK)
                dk0, dk1, dk2 = warpgroup_mma_wait(0, deps=(dk0, dk1, dk2))
            else:  # and chunk 2, once chunk 0 is staged (its reduce reads the buffer before chunk 2 is stored)
                _stage_reduce(dq, stage, dq_desc, row, 0)
                dq_tok = _dq_chunk(2, ds_smem, k_smem)
                dq, dk0, dk1, dk2 = warpgroup_mma_wait(0, deps=(dq_tok, dk0, dk1, dk2))
                mbarrier.arrive(ds_free.index(1), count=1)
                _stage_reduce(dq, stage, dq_desc, row, 2 * CHUNK)
        dk0, dk1, dk2, dv = warpgroup_mma_wait(0, deps=(dk0, dk1, dk2, dv))
        row0 = key0 + CID * HALF_KEYS
        _store_rows(dk_base, dk0 * scale, row0, S_kv, dk_ss, dk_sd, 0, c_layout)
        _store_rows(dk_base, dk1 * scale, row0, S_kv, dk_ss, dk_sd, CHUNK, c_layout)
        _store_rows(dk_base, dk2 * scale, row0, S_kv, dk_ss, dk_sd, 2 * CHUNK, c_layout)
        _store_rows(dv_base, dv, row0, S_kv, dv_ss, dv_sd, 0, v_layout)
        tma.store_wait(0)

    @gluon.jit(do_not_specialize=["H", "G_k", "G_v", "S_q", "S_kv", "S_side", "causal", "n_bh"])
    def attention_bwd_gluon_192_k128_kernel(q_desc, qb_desc, k_desc, kb_desc, v_desc, do_desc, dq0_desc, dq1_desc,
                                            lse_desc, dlt_desc, dk_ptr, dv_ptr, dk_sb, dk_sh, dk_ss, dk_sd, dv_sb,
                                            dv_sh, dv_ss, dv_sd, H, G_k, G_v, S_q, S_kv, S_side, qk_scale_log2, scale,
                                            causal, ctr_ptr, n_bh, HEAD_GROUP: gl.constexpr):
        """Grid (cdiv(S_kv, 128), B H_q): a program per (batch, query head, 128-key block) in ``program_tile``'s
        start order. The arguments are ``attention_bwd_gluon_192_kernel``'s (the launcher makes the same
        descriptors); this form reads Q and K through ``qb_desc`` / ``kb_desc``'s [64, 64] blocks only and reduces
        dQ through ``dq1_desc``'s, and takes no counter (``ctr_ptr``, ``n_bh`` unused)."""
        gl.static_assert(qb_desc.block_type.shape[3] == CHUNK, "Q's and K's chunks: 64 columns")
        gl.static_assert(dq1_desc.block_type.shape[1] == CHUNK, "dQ's reduce blocks: 64 columns")
        NST: gl.constexpr = 2
        dt: gl.constexpr = qb_desc.dtype
        c_layout: gl.constexpr = gl.NVMMASharedLayout.get_default_for([ROWS, CHUNK], dt)
        do_layout: gl.constexpr = gl.NVMMASharedLayout.get_default_for([ROWS, D_V], dt)
        q_smem = gl.allocate_shared_memory(dt, [3 * NST, ROWS, CHUNK], c_layout)
        do_smem = gl.allocate_shared_memory(dt, [NST, ROWS, D_V], do_layout)
        k_smem = gl.allocate_shared_memory(dt, [6, HALF_KEYS, CHUNK], c_layout)
        v_smem = gl.allocate_shared_memory(dt, [2, HALF_KEYS, D_V], do_layout)
        p_smem = gl.allocate_shared_memory(dt, [2, ROWS, HALF_KEYS], c_layout)
        ds_smem = gl.allocate_shared_memory(dt, [2, ROWS, HALF_KEYS], c_layout)
        dq_layout: gl.constexpr = gl.NVMMASharedLayout.get_default_for([ROWS, CHUNK], gl.float32)
        dq0_smem = gl.allocate_shared_memory(gl.float32, [ROWS, CHUNK], dq_layout)
        dq1_smem = gl.allocate_shared_memory(gl.float32, [1, ROWS, CHUNK], dq_layout)
        kv_bar, q_ready, do_ready, q_empty, do_empty = stage_barriers(NST)
        ds_full = gl.allocate_shared_memory(gl.int64, [2, 1], mbarrier.MBarrierLayout())
        ds_free = gl.allocate_shared_memory(gl.int64, [2, 1], mbarrier.MBarrierLayout())
        for c in gl.static_range(2):
            mbarrier.init(ds_full.index(c), count=1)
            mbarrier.init(ds_free.index(c), count=1)
        side_layout: gl.constexpr = gl.NVMMASharedLayout(swizzle_byte_width=0, element_bitwidth=32, rank=1)
        lse_smem = gl.allocate_shared_memory(gl.float32, [NST, ROWS], side_layout)
        dlt_smem = gl.allocate_shared_memory(gl.float32, [NST, ROWS], side_layout)
        pid_n, bh = program_tile(HEAD_GROUP, False)
        b = bh // H
        h = bh % H
        hk = h // G_k
        hv = h // G_v
        key0 = pid_n * (2 * HALF_KEYS)
        i_start = (key0 // ROWS) * causal
        n_tiles = gl.cdiv(S_q, ROWS) - i_start
        dk_base = dk_ptr + b.to(gl.int64) * dk_sb + hk.to(gl.int64) * dk_sh
        dv_base = dv_ptr + b.to(gl.int64) * dv_sb + hv.to(gl.int64) * dv_sh
        common = (q_smem, do_smem, k_smem, v_smem, p_smem, ds_smem)
        tail = (dq1_desc, kv_bar, q_ready, do_ready, q_empty, do_empty, ds_full, ds_free, lse_smem, dlt_smem, bh * S_q,
                key0, i_start, n_tiles, S_q, S_kv, qk_scale_log2, scale, causal, dk_base, dk_ss, dk_sd, dv_base, dv_ss,
                dv_sd)
        loader = (qb_desc, do_desc, kb_desc, v_desc, b, h, hk, hv, key0, i_start * ROWS, n_tiles, k_smem, v_smem,
                  q_smem, do_smem, kv_bar, q_ready, do_ready, q_empty, do_empty, lse_desc, dlt_desc, bh * S_side,
                  lse_smem, dlt_smem)
        gl.warp_specialize([(_consumer, common + (dq0_smem,) + tail), (_consumer, common + (dq1_smem,) + tail),
                            (_loader, loader)], [4, 1], [240, 24])
