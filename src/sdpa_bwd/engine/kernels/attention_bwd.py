"""Backward attention kernels: ODO, DKDV (the main pass, optionally with dQ atomics),
DQ (a separate deterministic dQ pass), the two as one launch (``attention_bwd_fused_kernel``)
and DQ_CONVERT.

Side buffers (``delta``, ``lse2``, ``dq_accum``) are packed and addressed from the
problem's dims alone: row (b, h, i) lives at ``(b * H_q + h) * S_q + i``. Never
from a layout stride -- a side-buffer base taken from Q's batch stride is the
exact defect of the AMD seeds. The caller's stats, and the eight tensors, are
read and written through their own strides. In the ``VARLEN`` form (one launch
over a packed batch, ``engine.varlen``) delta and lse2 are packed (H_q, T_q):
token t of head h at ``h * T_q + t``.

``lse2`` holds the caller's stats in log2 units, with a row that kept no key
(stats = -inf) stored as +inf so that P = exp2(S * scale * log2(e) - lse2) is 0
on such a row and it contributes no gradient. Query rows past S_q are read as
+inf too, so they need no mask in the score tiles.

A D_qk of 192 runs as two column chunks, 128 + 64 (``D_QK_PAD``, ``D_QK_SPLIT``;
see kernels.attention_fwd): K, Q, dK, dQ and the dQ partials each come as an
``_a`` tile (the first chunk, the only one when ``D_QK_SPLIT = 0``) and a ``_b``
tile. ODO reads only O and dO (D_v) and needs no split.
"""

import triton
import triton.language as tl
from triton.language.extra.cuda import gdc_launch_dependents, gdc_wait

from .attention_fwd import (_NO_SPECIALIZE, kernel_jit, band_keep, band_keep_t, key_tile_bounds, load_rows, mma,
                            mma_acc, program_tile, program_tile_at, query_tile_bounds, row_tiles, second_chunk_cols,
                            varlen_sequence)

LOG2E = tl.constexpr(1.4426950408889634)


@kernel_jit()
def attention_bwd_preprocess_kernel(
    o_ptr, do_ptr, stats_ptr, delta_ptr, lse2_ptr,
    stride_ob, stride_oh, stride_om, stride_od,
    stride_dob, stride_doh, stride_dom, stride_dod,
    stride_sb, stride_sh, stride_sm,
    H_q, S_q, S_side, acc_ptr,
    BLOCK_M: tl.constexpr, D_V: tl.constexpr, D_V_PAD: tl.constexpr, WIDE: tl.constexpr,
    ZERO_D: tl.constexpr = 0, PDL: tl.constexpr = False,
):
    """ODO: delta = rowsum(dO * O) in fp32, and the stats in log2 units, both (B H_q, S_side): S_side = S_q
    (packed) for the Triton kernels, S_q rounded up to 4 for the Gluon backward's TMA loads of them. Where
    ``ZERO_D`` (columns) is set, also zeroes the block's rows of the packed fp32 dQ accumulator at
    ``acc_ptr`` ((B H_q S_q, ZERO_D)), which the launcher then allocates without its own zero fill. ``PDL``: the
    next kernel, launched as a programmatic dependent, may start once every program has begun (it waits for this
    one's writes with ``griddepcontrol.wait``)."""
    if PDL:
        gdc_launch_dependents()
    pid_m = tl.program_id(0)
    pid_bh = tl.program_id(1)
    b = (pid_bh // H_q).to(tl.int64)
    h = (pid_bh % H_q).to(tl.int64)
    m0 = pid_m * BLOCK_M
    row0 = m0.to(tl.int64)
    offs_m = m0 + tl.arange(0, BLOCK_M)
    row_ok = offs_m < S_q
    offs_local = tl.arange(0, BLOCK_M)
    offs_d = tl.arange(0, D_V_PAD)
    if WIDE:
        offs_local = offs_local.to(tl.int64)
        offs_d = offs_d.to(tl.int64)
    if D_V == D_V_PAD:
        mask = row_ok[:, None]
    else:
        mask = row_ok[:, None] & (offs_d[None, :] < D_V)
    o = tl.load(o_ptr + b * stride_ob + h * stride_oh + row0 * stride_om
                + offs_local[:, None] * stride_om + offs_d[None, :] * stride_od, mask=mask, other=0.0)
    do = tl.load(do_ptr + b * stride_dob + h * stride_doh + row0 * stride_dom
                 + offs_local[:, None] * stride_dom + offs_d[None, :] * stride_dod, mask=mask, other=0.0)
    delta = tl.sum(o.to(tl.float32) * do.to(tl.float32), 1)
    stats = tl.load(stats_ptr + b * stride_sb + h * stride_sh + row0 * stride_sm + offs_local * stride_sm,
                    mask=row_ok, other=0.0)
    lse2 = tl.where(stats == float("-inf"), float("inf"), stats * LOG2E)
    side = (b * H_q + h) * S_side + offs_m
    tl.store(delta_ptr + side, delta, mask=row_ok)
    tl.store(lse2_ptr + side, lse2, mask=row_ok)
    if ZERO_D:
        acc_rows = (b * H_q + h) * S_q + offs_m
        cols = tl.arange(0, 64)
        for c in tl.static_range(0, ZERO_D, 64):
            if ZERO_D % 64 == 0:
                tl.store(acc_ptr + acc_rows[:, None] * ZERO_D + c + cols[None, :],
                         tl.zeros([BLOCK_M, 64], tl.float32), mask=row_ok[:, None])
            else:  # a padded head dim's accumulator (hd80, hd96): the last chunk's columns masked
                tl.store(acc_ptr + acc_rows[:, None] * ZERO_D + c + cols[None, :],
                         tl.zeros([BLOCK_M, 64], tl.float32), mask=row_ok[:, None] & (c + cols < ZERO_D)[None, :])


@triton.jit
def _dkdv_tiles(dk, dk_b, dv, k, k_b, v, q_ptr, do_ptr, q_desc, q_b_desc, do_desc, lse2_ptr, delta_ptr,
                dq_acc_ptr, dq_desc, dq_b_desc,
                stride_qm, stride_qd, stride_dom, stride_dod,
                offs_n, m_begin, m_end, S_q, S_kv, lo_off, hi_off, qk_scale_log2,
                BLOCK_M: tl.constexpr, D_QK: tl.constexpr, D_QK_PAD: tl.constexpr, D_QK_SPLIT: tl.constexpr,
                D_V: tl.constexpr, D_V_PAD: tl.constexpr, MASK: tl.constexpr,
                HAS_LEFT: tl.constexpr, HAS_RIGHT: tl.constexpr,
                COMPUTE_DK: tl.constexpr, COMPUTE_DV: tl.constexpr, ATOMIC_DQ: tl.constexpr,
                DOT_PRECISION: tl.constexpr, WIDE: tl.constexpr, TMA: tl.constexpr, DQ_TMA: tl.constexpr,
                DV_AFTER_DP: tl.constexpr):
    """Accumulate one key block's dK/dV over query tiles [m_begin, m_end) of one q head.

    Pointers q_ptr/do_ptr/dq_acc_ptr point at row 0 of that head; lse2_ptr and
    delta_ptr at the head's packed rows. With DQ_TMA the dQ partials are added
    through ``dq_desc`` (a bulk reduce-add of the whole tile) instead of one
    atomic per element. ``dk_b``, ``k_b``, ``q_b_desc`` and ``dq_b_desc`` are
    the second D_qk chunk's (placeholders when D_QK_SPLIT = 0).
    """
    offs_m_local = tl.arange(0, BLOCK_M)
    offs_dqk = tl.arange(0, D_QK_PAD)
    offs_dv = tl.arange(0, D_V_PAD)
    if WIDE:
        offs_m_local = offs_m_local.to(tl.int64)
        offs_dqk = offs_dqk.to(tl.int64)
        offs_dv = offs_dv.to(tl.int64)
    # Pointer tiles advanced by a scalar each step. Tried: int32 offset tiles plus a
    # moving scalar base (less register pressure on paper, 896 -> 736 B of ptxas stack
    # locally) -- measured slower on the H200: DKDV 1.382 vs 1.303 ms at
    # (2,16,4096,128) bf16 (A/B of 2026-11-30, benchmarks/results/h200/ab_2026-11-30.log).
    row0 = m_begin.to(tl.int64)
    q_ptrs = q_ptr + row0 * stride_qm + offs_m_local[:, None] * stride_qm + offs_dqk[None, :] * stride_qd
    do_ptrs = do_ptr + row0 * stride_dom + offs_m_local[:, None] * stride_dom + offs_dv[None, :] * stride_dod
    dq_ptrs = dq_acc_ptr + (row0 + offs_m_local[:, None]) * D_QK + offs_dqk[None, :]
    if D_QK_SPLIT:
        offs_dqk_b = second_chunk_cols(D_QK_PAD, D_QK_SPLIT, WIDE)
        q_b_ptrs = q_ptr + row0 * stride_qm + offs_m_local[:, None] * stride_qm + offs_dqk_b[None, :] * stride_qd
        dq_b_ptrs = dq_acc_ptr + (row0 + offs_m_local[:, None]) * D_QK + offs_dqk_b[None, :]
    for m0 in range(m_begin, m_end, BLOCK_M):
        offs_m = m0 + tl.arange(0, BLOCK_M)
        row_ok = offs_m < S_q
        if TMA:
            q = q_desc.load([m0, 0])
            if D_QK_SPLIT:
                q_b = q_b_desc.load([m0, D_QK_PAD])
            do = do_desc.load([m0, 0])
        else:
            if D_QK >= D_QK_PAD:
                q = tl.load(q_ptrs, mask=row_ok[:, None], other=0.0)
            else:
                q = tl.load(q_ptrs, mask=row_ok[:, None] & (offs_dqk[None, :] < D_QK), other=0.0)
            if D_QK_SPLIT:
                q_b = load_rows(q_b_ptrs, row_ok, offs_dqk_b, D_QK, D_QK_PAD + D_QK_SPLIT)
            if D_V == D_V_PAD:
                do = tl.load(do_ptrs, mask=row_ok[:, None], other=0.0)
            else:
                do = tl.load(do_ptrs, mask=row_ok[:, None] & (offs_dv[None, :] < D_V), other=0.0)
        lse2 = tl.load(lse2_ptr + offs_m, mask=row_ok, other=float("inf"))
        qk_t = mma(k, tl.trans(q), DOT_PRECISION)
        if D_QK_SPLIT:
            qk_t = mma_acc(qk_t, k_b, tl.trans(q_b), DOT_PRECISION)
        p_t = tl.math.exp2(qk_t * qk_scale_log2 - lse2[None, :])
        if MASK:
            keep = band_keep_t(offs_n, offs_m, lo_off, hi_off, HAS_LEFT, HAS_RIGHT) \
                & (offs_n < S_kv)[:, None]
            p_t = tl.where(keep, p_t, 0.0)
        if COMPUTE_DV and not DV_AFTER_DP:
            dv += mma(p_t.to(do.dtype), do, DOT_PRECISION)
        if COMPUTE_DK:
            delta = tl.load(delta_ptr + offs_m, mask=row_ok, other=0.0)
            # Triton 3.6 waits for every MMA in flight right after a product whose result is used in
            # the iteration (dP here), but not after the dK/dV accumulations: with DV_AFTER_DP the dV
            # product is issued after that wait and runs under the dS arithmetic below.
            dp_t = mma(v, tl.trans(do), DOT_PRECISION)
        if COMPUTE_DV and DV_AFTER_DP:
            dv += mma(p_t.to(do.dtype), do, DOT_PRECISION)
        if COMPUTE_DK:
            ds_t = (p_t * (dp_t - delta[None, :])).to(q.dtype)
            dk += mma(ds_t, q, DOT_PRECISION)
            if D_QK_SPLIT:
                dk_b += mma(ds_t, q_b, DOT_PRECISION)
            if ATOMIC_DQ:
                dq = mma(tl.trans(ds_t), k, DOT_PRECISION)
                if D_QK_SPLIT:
                    dq_b = mma(tl.trans(ds_t), k_b, DOT_PRECISION)
                if DQ_TMA:
                    # Rows >= S_q and columns >= D_QK fall outside the descriptor and are dropped.
                    dq_desc.atomic_add([m0, 0], dq)
                    if D_QK_SPLIT:
                        dq_b_desc.atomic_add([m0, D_QK_PAD], dq_b)
                else:
                    if D_QK >= D_QK_PAD:
                        tl.atomic_add(dq_ptrs, dq, mask=row_ok[:, None], sem="relaxed")
                    else:
                        tl.atomic_add(dq_ptrs, dq, mask=row_ok[:, None] & (offs_dqk[None, :] < D_QK),
                                      sem="relaxed")
                    if D_QK_SPLIT:
                        if D_QK >= D_QK_PAD + D_QK_SPLIT:
                            tl.atomic_add(dq_b_ptrs, dq_b, mask=row_ok[:, None], sem="relaxed")
                        else:
                            tl.atomic_add(dq_b_ptrs, dq_b, mask=row_ok[:, None] & (offs_dqk_b[None, :] < D_QK),
                                          sem="relaxed")
        q_ptrs += BLOCK_M * stride_qm
        do_ptrs += BLOCK_M * stride_dom
        dq_ptrs += BLOCK_M * D_QK
        if D_QK_SPLIT:
            q_b_ptrs += BLOCK_M * stride_qm
            dq_b_ptrs += BLOCK_M * D_QK
    return dk, dk_b, dv


@triton.jit
def _dkdv_program(
    pid_n, pid_bh,
    q_ptr, k_ptr, v_ptr, do_ptr, dk_ptr, dv_ptr, lse2_ptr, delta_ptr, dq_acc_ptr,
    stride_qb, stride_qh, stride_qm, stride_qd,
    stride_kb, stride_kh, stride_kn, stride_kd,
    stride_vb, stride_vh, stride_vn, stride_vd,
    stride_dob, stride_doh, stride_dom, stride_dod,
    stride_dkb, stride_dkh, stride_dkn, stride_dkd,
    stride_dvb, stride_dvh, stride_dvn, stride_dvd,
    H_q, H_owner, ratio_k, ratio_v, S_q, S_kv,
    qk_scale_log2, scale, lo_off, hi_off,
    BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr,
    D_QK: tl.constexpr, D_QK_PAD: tl.constexpr, D_V: tl.constexpr, D_V_PAD: tl.constexpr,
    HAS_LEFT: tl.constexpr, HAS_RIGHT: tl.constexpr,
    COMPUTE_DK: tl.constexpr, COMPUTE_DV: tl.constexpr, ATOMIC_DQ: tl.constexpr,
    DOT_PRECISION: tl.constexpr, WIDE: tl.constexpr, TMA: tl.constexpr = False, DQ_TMA: tl.constexpr = False,
    D_QK_SPLIT: tl.constexpr = 0, DV_AFTER_DP: tl.constexpr = False,
    cu_q_ptr=None, cu_kv_ptr=None, VARLEN: tl.constexpr = False, BOTTOM_RIGHT: tl.constexpr = False,
):
    """The DKDV pass's program for key block ``pid_n`` of owner row ``pid_bh`` (b * H_owner + owner).

    ``VARLEN`` (see ``attention_fwd_kernel``): ``b`` is a sequence of the packed batch, the tensors' batch strides
    are 0, and the side buffers are packed (H_q, T_q), T_q given as the S_q argument: row i of the sequence's
    head h at ``h * T_q + tok_q + i``."""
    b = (pid_bh // H_owner).to(tl.int64)
    owner = (pid_bh % H_owner).to(tl.int64)
    group = H_q // H_owner
    n0 = pid_n * BLOCK_N
    if VARLEN:
        T_side = S_q
        tok_q, S_q, tok_kv, S_kv, lo_off, hi_off = varlen_sequence(cu_q_ptr, cu_kv_ptr, b, lo_off, hi_off,
                                                                   BOTTOM_RIGHT)
        if n0 >= S_kv:  # the grid covers the longest sequence
            return
        q_ptr += tok_q * stride_qm
        do_ptr += tok_q * stride_dom
        k_ptr += tok_kv * stride_kn
        v_ptr += tok_kv * stride_vn
        dk_ptr += tok_kv * stride_dkn
        dv_ptr += tok_kv * stride_dvn
    offs_n = n0 + tl.arange(0, BLOCK_N)
    key_ok = offs_n < S_kv
    offs_n_local = tl.arange(0, BLOCK_N)
    offs_dqk = tl.arange(0, D_QK_PAD)
    offs_dv = tl.arange(0, D_V_PAD)
    if WIDE:
        offs_n_local = offs_n_local.to(tl.int64)
        offs_dqk = offs_dqk.to(tl.int64)
        offs_dv = offs_dv.to(tl.int64)
    key0 = n0.to(tl.int64)
    if D_QK >= D_QK_PAD:
        kmask = key_ok[:, None]
    else:
        kmask = key_ok[:, None] & (offs_dqk[None, :] < D_QK)
    if D_QK_SPLIT:
        offs_dqk_b = second_chunk_cols(D_QK_PAD, D_QK_SPLIT, WIDE)
        if D_QK >= D_QK_PAD + D_QK_SPLIT:
            kmask_b = key_ok[:, None]
        else:
            kmask_b = key_ok[:, None] & (offs_dqk_b[None, :] < D_QK)
    if D_V == D_V_PAD:
        vmask = key_ok[:, None]
    else:
        vmask = key_ok[:, None] & (offs_dv[None, :] < D_V)

    start, mid_lo, mid_hi, stop = query_tile_bounds(n0, S_q, S_kv, lo_off, hi_off, BLOCK_M, BLOCK_N,
                                                    HAS_LEFT, HAS_RIGHT)

    dk = tl.zeros([BLOCK_N, D_QK_PAD], tl.float32)
    dk_b = dk  # placeholder: an accumulator only when D_QK_SPLIT
    if D_QK_SPLIT:
        dk_b = tl.zeros([BLOCK_N, D_QK_SPLIT], tl.float32)
    dv = tl.zeros([BLOCK_N, D_V_PAD], tl.float32)
    for h_in_group in range(0, group):
        h = owner * group + h_in_group
        hk = h // ratio_k
        hv = h // ratio_v
        k = tl.load(k_ptr + b * stride_kb + hk * stride_kh + key0 * stride_kn
                    + offs_n_local[:, None] * stride_kn + offs_dqk[None, :] * stride_kd, mask=kmask, other=0.0)
        k_b = k  # placeholder
        if D_QK_SPLIT:
            k_b = tl.load(k_ptr + b * stride_kb + hk * stride_kh + key0 * stride_kn
                          + offs_n_local[:, None] * stride_kn + offs_dqk_b[None, :] * stride_kd,
                          mask=kmask_b, other=0.0)
        v = tl.load(v_ptr + b * stride_vb + hv * stride_vh + key0 * stride_vn
                    + offs_n_local[:, None] * stride_vn + offs_dv[None, :] * stride_vd, mask=vmask, other=0.0)
        q_head = q_ptr + b * stride_qb + h * stride_qh
        do_head = do_ptr + b * stride_dob + h * stride_doh
        if VARLEN:
            side = h * T_side + tok_q
        else:
            side = (b * H_q + h) * S_q
        lse2_head = lse2_ptr + side
        delta_head = delta_ptr + side
        dq_head = dq_acc_ptr + side * D_QK
        if TMA:
            q_desc = row_tiles(q_head, S_q, stride_qm, D_QK, BLOCK_M, D_QK_PAD)
            do_desc = row_tiles(do_head, S_q, stride_dom, D_V, BLOCK_M, D_V_PAD)
        else:
            q_desc = q_head
            do_desc = do_head
        if DQ_TMA:
            dq_desc = row_tiles(dq_head, S_q, D_QK, D_QK, BLOCK_M, D_QK_PAD)
        else:
            dq_desc = dq_head
        q_b_desc = q_desc  # placeholders, read only when D_QK_SPLIT
        dq_b_desc = dq_desc
        if D_QK_SPLIT:
            if TMA:
                q_b_desc = row_tiles(q_head, S_q, stride_qm, D_QK, BLOCK_M, D_QK_SPLIT)
            if DQ_TMA:
                dq_b_desc = row_tiles(dq_head, S_q, D_QK, D_QK, BLOCK_M, D_QK_SPLIT)
        dk, dk_b, dv = _dkdv_tiles(dk, dk_b, dv, k, k_b, v, q_head, do_head, q_desc, q_b_desc, do_desc, lse2_head,
                                   delta_head, dq_head, dq_desc, dq_b_desc,
                                   stride_qm, stride_qd, stride_dom, stride_dod,
                                   offs_n, start, mid_lo, S_q, S_kv, lo_off, hi_off, qk_scale_log2,
                                   BLOCK_M, D_QK, D_QK_PAD, D_QK_SPLIT, D_V, D_V_PAD, True, HAS_LEFT, HAS_RIGHT,
                                   COMPUTE_DK, COMPUTE_DV, ATOMIC_DQ, DOT_PRECISION, WIDE, TMA, DQ_TMA,
                                   DV_AFTER_DP)
        dk, dk_b, dv = _dkdv_tiles(dk, dk_b, dv, k, k_b, v, q_head, do_head, q_desc, q_b_desc, do_desc, lse2_head,
                                   delta_head, dq_head, dq_desc, dq_b_desc,
                                   stride_qm, stride_qd, stride_dom, stride_dod,
                                   offs_n, mid_lo, mid_hi, S_q, S_kv, lo_off, hi_off, qk_scale_log2,
                                   BLOCK_M, D_QK, D_QK_PAD, D_QK_SPLIT, D_V, D_V_PAD, False, HAS_LEFT, HAS_RIGHT,
                                   COMPUTE_DK, COMPUTE_DV, ATOMIC_DQ, DOT_PRECISION, WIDE, TMA, DQ_TMA,
                                   DV_AFTER_DP)
        dk, dk_b, dv = _dkdv_tiles(dk, dk_b, dv, k, k_b, v, q_head, do_head, q_desc, q_b_desc, do_desc, lse2_head,
                                   delta_head, dq_head, dq_desc, dq_b_desc,
                                   stride_qm, stride_qd, stride_dom, stride_dod,
                                   offs_n, mid_hi, stop, S_q, S_kv, lo_off, hi_off, qk_scale_log2,
                                   BLOCK_M, D_QK, D_QK_PAD, D_QK_SPLIT, D_V, D_V_PAD, True, HAS_LEFT, HAS_RIGHT,
                                   COMPUTE_DK, COMPUTE_DV, ATOMIC_DQ, DOT_PRECISION, WIDE, TMA, DQ_TMA,
                                   DV_AFTER_DP)

    if COMPUTE_DK:
        dk_ptrs = dk_ptr + b * stride_dkb + owner * stride_dkh + key0 * stride_dkn \
            + offs_n_local[:, None] * stride_dkn + offs_dqk[None, :] * stride_dkd
        tl.store(dk_ptrs, (dk * scale).to(dk_ptr.dtype.element_ty), mask=kmask)
        if D_QK_SPLIT:
            dk_b_ptrs = dk_ptr + b * stride_dkb + owner * stride_dkh + key0 * stride_dkn \
                + offs_n_local[:, None] * stride_dkn + offs_dqk_b[None, :] * stride_dkd
            tl.store(dk_b_ptrs, (dk_b * scale).to(dk_ptr.dtype.element_ty), mask=kmask_b)
    if COMPUTE_DV:
        dv_ptrs = dv_ptr + b * stride_dvb + owner * stride_dvh + key0 * stride_dvn \
            + offs_n_local[:, None] * stride_dvn + offs_dv[None, :] * stride_dvd
        tl.store(dv_ptrs, dv.to(dv_ptr.dtype.element_ty), mask=vmask)


@kernel_jit()
def attention_bwd_dkdv_kernel(
    q_ptr, k_ptr, v_ptr, do_ptr, dk_ptr, dv_ptr, lse2_ptr, delta_ptr, dq_acc_ptr,
    stride_qb, stride_qh, stride_qm, stride_qd,
    stride_kb, stride_kh, stride_kn, stride_kd,
    stride_vb, stride_vh, stride_vn, stride_vd,
    stride_dob, stride_doh, stride_dom, stride_dod,
    stride_dkb, stride_dkh, stride_dkn, stride_dkd,
    stride_dvb, stride_dvh, stride_dvn, stride_dvd,
    H_q, H_owner, ratio_k, ratio_v, S_q, S_kv,
    qk_scale_log2, scale, lo_off, hi_off,
    BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr,
    D_QK: tl.constexpr, D_QK_PAD: tl.constexpr, D_V: tl.constexpr, D_V_PAD: tl.constexpr,
    HAS_LEFT: tl.constexpr, HAS_RIGHT: tl.constexpr,
    COMPUTE_DK: tl.constexpr, COMPUTE_DV: tl.constexpr, ATOMIC_DQ: tl.constexpr,
    DOT_PRECISION: tl.constexpr, WIDE: tl.constexpr, TMA: tl.constexpr = False, DQ_TMA: tl.constexpr = False,
    D_QK_SPLIT: tl.constexpr = 0, HEAD_GROUP: tl.constexpr = 1, DV_AFTER_DP: tl.constexpr = False,
    cu_q_ptr=None, cu_kv_ptr=None, VARLEN: tl.constexpr = False, BOTTOM_RIGHT: tl.constexpr = False,
):
    """DQDKDV main pass for one key block of one owner head.

    The owner is a K head (COMPUTE_DK), a V head (COMPUTE_DV) or both when
    H_k == H_v. The program loops over the owner's q heads in a fixed order and
    owns its dK/dV rows, so dK/dV need no atomics and are bitwise reproducible.
    With ATOMIC_DQ it also adds scale-free dQ partials into the fp32 dq_accum.
    """
    # Costliest key blocks first (the lowest under a right bound, the highest under a left one).
    pid_n, pid_bh = program_tile(HEAD_GROUP, HAS_LEFT and not HAS_RIGHT)
    _dkdv_program(
        pid_n, pid_bh,
        q_ptr, k_ptr, v_ptr, do_ptr, dk_ptr, dv_ptr, lse2_ptr, delta_ptr, dq_acc_ptr, stride_qb, stride_qh,
        stride_qm, stride_qd, stride_kb, stride_kh, stride_kn, stride_kd, stride_vb, stride_vh, stride_vn, stride_vd,
        stride_dob, stride_doh, stride_dom, stride_dod, stride_dkb, stride_dkh, stride_dkn, stride_dkd, stride_dvb,
        stride_dvh, stride_dvn, stride_dvd, H_q, H_owner, ratio_k, ratio_v, S_q, S_kv, qk_scale_log2, scale, lo_off,
        hi_off, BLOCK_M, BLOCK_N, D_QK, D_QK_PAD, D_V, D_V_PAD, HAS_LEFT, HAS_RIGHT, COMPUTE_DK, COMPUTE_DV,
        ATOMIC_DQ, DOT_PRECISION, WIDE, TMA, DQ_TMA, D_QK_SPLIT, DV_AFTER_DP, cu_q_ptr, cu_kv_ptr, VARLEN,
        BOTTOM_RIGHT,
    )



@triton.jit
def _dq_tiles(dq, dq_b, q, q_b, do, lse2, delta, k_ptr, v_ptr, k_desc, k_b_desc, v_desc,
              stride_kn, stride_kd, stride_vn, stride_vd,
              offs_m, n_begin, n_end, S_kv, lo_off, hi_off, qk_scale_log2,
              BLOCK_N: tl.constexpr, D_QK: tl.constexpr, D_QK_PAD: tl.constexpr, D_QK_SPLIT: tl.constexpr,
              D_V: tl.constexpr, D_V_PAD: tl.constexpr, MASK: tl.constexpr,
              HAS_LEFT: tl.constexpr, HAS_RIGHT: tl.constexpr, DOT_PRECISION: tl.constexpr,
              WIDE: tl.constexpr, TMA: tl.constexpr):
    """Key tiles [n_begin, n_end) into dQ; dq_b, q_b, k_b_desc are the second D_qk chunk's."""
    offs_n_local = tl.arange(0, BLOCK_N)
    offs_dqk = tl.arange(0, D_QK_PAD)
    offs_dv = tl.arange(0, D_V_PAD)
    if WIDE:
        offs_n_local = offs_n_local.to(tl.int64)
        offs_dqk = offs_dqk.to(tl.int64)
        offs_dv = offs_dv.to(tl.int64)
    k_ptrs = k_ptr + n_begin.to(tl.int64) * stride_kn + offs_n_local[:, None] * stride_kn \
        + offs_dqk[None, :] * stride_kd
    v_ptrs = v_ptr + n_begin.to(tl.int64) * stride_vn + offs_n_local[:, None] * stride_vn \
        + offs_dv[None, :] * stride_vd
    if D_QK_SPLIT:
        offs_dqk_b = second_chunk_cols(D_QK_PAD, D_QK_SPLIT, WIDE)
        k_b_ptrs = k_ptr + n_begin.to(tl.int64) * stride_kn + offs_n_local[:, None] * stride_kn \
            + offs_dqk_b[None, :] * stride_kd
    for n0 in range(n_begin, n_end, BLOCK_N):
        offs_n = n0 + tl.arange(0, BLOCK_N)
        key_ok = offs_n < S_kv
        if TMA:
            k = k_desc.load([n0, 0])
            if D_QK_SPLIT:
                k_b = k_b_desc.load([n0, D_QK_PAD])
            v = v_desc.load([n0, 0])
        else:
            if D_QK >= D_QK_PAD:
                k = tl.load(k_ptrs, mask=key_ok[:, None], other=0.0)
            else:
                k = tl.load(k_ptrs, mask=key_ok[:, None] & (offs_dqk[None, :] < D_QK), other=0.0)
            if D_QK_SPLIT:
                k_b = load_rows(k_b_ptrs, key_ok, offs_dqk_b, D_QK, D_QK_PAD + D_QK_SPLIT)
            if D_V == D_V_PAD:
                v = tl.load(v_ptrs, mask=key_ok[:, None], other=0.0)
            else:
                v = tl.load(v_ptrs, mask=key_ok[:, None] & (offs_dv[None, :] < D_V), other=0.0)
        qk = mma(q, tl.trans(k), DOT_PRECISION)
        if D_QK_SPLIT:
            qk = mma_acc(qk, q_b, tl.trans(k_b), DOT_PRECISION)
        p = tl.math.exp2(qk * qk_scale_log2 - lse2[:, None])
        if MASK:
            keep = band_keep(offs_m, offs_n, lo_off, hi_off, HAS_LEFT, HAS_RIGHT) & key_ok[None, :]
            p = tl.where(keep, p, 0.0)
        dp = mma(do, tl.trans(v), DOT_PRECISION)
        ds = (p * (dp - delta[:, None])).to(k.dtype)
        dq += mma(ds, k, DOT_PRECISION)
        if D_QK_SPLIT:
            dq_b += mma(ds, k_b, DOT_PRECISION)
        k_ptrs += BLOCK_N * stride_kn
        if D_QK_SPLIT:
            k_b_ptrs += BLOCK_N * stride_kn
        v_ptrs += BLOCK_N * stride_vn
    return dq, dq_b


@triton.jit
def _dq_program(
    pid_m, pid_bh,
    q_ptr, k_ptr, v_ptr, do_ptr, dq_ptr, lse2_ptr, delta_ptr,
    stride_qb, stride_qh, stride_qm, stride_qd,
    stride_kb, stride_kh, stride_kn, stride_kd,
    stride_vb, stride_vh, stride_vn, stride_vd,
    stride_dob, stride_doh, stride_dom, stride_dod,
    stride_dqb, stride_dqh, stride_dqm, stride_dqd,
    H_q, ratio_k, ratio_v, S_q, S_kv,
    qk_scale_log2, scale, lo_off, hi_off,
    BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr,
    D_QK: tl.constexpr, D_QK_PAD: tl.constexpr, D_V: tl.constexpr, D_V_PAD: tl.constexpr,
    HAS_LEFT: tl.constexpr, HAS_RIGHT: tl.constexpr,
    DOT_PRECISION: tl.constexpr, WIDE: tl.constexpr, TMA: tl.constexpr = False, D_QK_SPLIT: tl.constexpr = 0,
    cu_q_ptr=None, cu_kv_ptr=None, VARLEN: tl.constexpr = False, BOTTOM_RIGHT: tl.constexpr = False,
):
    """The dQ pass's program for query block ``pid_m`` of row ``pid_bh`` (b * H_q + h); ``VARLEN`` as
    ``_dkdv_program`` takes it."""
    b = (pid_bh // H_q).to(tl.int64)
    h = (pid_bh % H_q).to(tl.int64)
    hk = h // ratio_k
    hv = h // ratio_v
    m0 = pid_m * BLOCK_M
    if VARLEN:
        T_side = S_q
        tok_q, S_q, tok_kv, S_kv, lo_off, hi_off = varlen_sequence(cu_q_ptr, cu_kv_ptr, b, lo_off, hi_off,
                                                                   BOTTOM_RIGHT)
        if m0 >= S_q:  # the grid covers the longest sequence
            return
        q_ptr += tok_q * stride_qm
        do_ptr += tok_q * stride_dom
        dq_ptr += tok_q * stride_dqm
        k_ptr += tok_kv * stride_kn
        v_ptr += tok_kv * stride_vn
    row0 = m0.to(tl.int64)
    offs_m = m0 + tl.arange(0, BLOCK_M)
    row_ok = offs_m < S_q
    offs_m_local = tl.arange(0, BLOCK_M)
    offs_dqk = tl.arange(0, D_QK_PAD)
    offs_dv = tl.arange(0, D_V_PAD)
    if WIDE:
        offs_m_local = offs_m_local.to(tl.int64)
        offs_dqk = offs_dqk.to(tl.int64)
        offs_dv = offs_dv.to(tl.int64)
    if D_QK >= D_QK_PAD:
        qmask = row_ok[:, None]
    else:
        qmask = row_ok[:, None] & (offs_dqk[None, :] < D_QK)
    if D_QK_SPLIT:
        offs_dqk_b = second_chunk_cols(D_QK_PAD, D_QK_SPLIT, WIDE)
        if D_QK >= D_QK_PAD + D_QK_SPLIT:
            qmask_b = row_ok[:, None]
        else:
            qmask_b = row_ok[:, None] & (offs_dqk_b[None, :] < D_QK)
    if D_V == D_V_PAD:
        domask = row_ok[:, None]
    else:
        domask = row_ok[:, None] & (offs_dv[None, :] < D_V)
    q = tl.load(q_ptr + b * stride_qb + h * stride_qh + row0 * stride_qm
                + offs_m_local[:, None] * stride_qm + offs_dqk[None, :] * stride_qd, mask=qmask, other=0.0)
    q_b = q  # placeholder
    if D_QK_SPLIT:
        q_b = tl.load(q_ptr + b * stride_qb + h * stride_qh + row0 * stride_qm
                      + offs_m_local[:, None] * stride_qm + offs_dqk_b[None, :] * stride_qd, mask=qmask_b, other=0.0)
    do = tl.load(do_ptr + b * stride_dob + h * stride_doh + row0 * stride_dom
                 + offs_m_local[:, None] * stride_dom + offs_dv[None, :] * stride_dod, mask=domask, other=0.0)
    if VARLEN:
        side = h * T_side + tok_q
    else:
        side = (b * H_q + h) * S_q
    lse2 = tl.load(lse2_ptr + side + offs_m, mask=row_ok, other=float("inf"))
    delta = tl.load(delta_ptr + side + offs_m, mask=row_ok, other=0.0)
    k_base = k_ptr + b * stride_kb + hk * stride_kh
    v_base = v_ptr + b * stride_vb + hv * stride_vh
    if TMA:
        k_desc = row_tiles(k_base, S_kv, stride_kn, D_QK, BLOCK_N, D_QK_PAD)
        v_desc = row_tiles(v_base, S_kv, stride_vn, D_V, BLOCK_N, D_V_PAD)
    else:
        k_desc = k_base
        v_desc = v_base
    k_b_desc = k_desc  # placeholder
    if TMA:
        if D_QK_SPLIT:
            k_b_desc = row_tiles(k_base, S_kv, stride_kn, D_QK, BLOCK_N, D_QK_SPLIT)

    start, mid_lo, mid_hi, stop = key_tile_bounds(m0, S_q, S_kv, lo_off, hi_off, BLOCK_M, BLOCK_N,
                                                  HAS_LEFT, HAS_RIGHT)
    dq = tl.zeros([BLOCK_M, D_QK_PAD], tl.float32)
    dq_b = dq  # placeholder: an accumulator only when D_QK_SPLIT
    if D_QK_SPLIT:
        dq_b = tl.zeros([BLOCK_M, D_QK_SPLIT], tl.float32)
    dq, dq_b = _dq_tiles(dq, dq_b, q, q_b, do, lse2, delta, k_base, v_base, k_desc, k_b_desc, v_desc,
                         stride_kn, stride_kd, stride_vn, stride_vd,
                         offs_m, start, mid_lo, S_kv, lo_off, hi_off, qk_scale_log2, BLOCK_N,
                         D_QK, D_QK_PAD, D_QK_SPLIT, D_V, D_V_PAD, True, HAS_LEFT, HAS_RIGHT, DOT_PRECISION, WIDE, TMA)
    dq, dq_b = _dq_tiles(dq, dq_b, q, q_b, do, lse2, delta, k_base, v_base, k_desc, k_b_desc, v_desc,
                         stride_kn, stride_kd, stride_vn, stride_vd,
                         offs_m, mid_lo, mid_hi, S_kv, lo_off, hi_off, qk_scale_log2, BLOCK_N,
                         D_QK, D_QK_PAD, D_QK_SPLIT, D_V, D_V_PAD, False, HAS_LEFT, HAS_RIGHT, DOT_PRECISION, WIDE, TMA)
    dq, dq_b = _dq_tiles(dq, dq_b, q, q_b, do, lse2, delta, k_base, v_base, k_desc, k_b_desc, v_desc,
                         stride_kn, stride_kd, stride_vn, stride_vd,
                         offs_m, mid_hi, stop, S_kv, lo_off, hi_off, qk_scale_log2, BLOCK_N,
                         D_QK, D_QK_PAD, D_QK_SPLIT, D_V, D_V_PAD, True, HAS_LEFT, HAS_RIGHT, DOT_PRECISION, WIDE, TMA)
    dq_ptrs = dq_ptr + b * stride_dqb + h * stride_dqh + row0 * stride_dqm \
        + offs_m_local[:, None] * stride_dqm + offs_dqk[None, :] * stride_dqd
    tl.store(dq_ptrs, (dq * scale).to(dq_ptr.dtype.element_ty), mask=qmask)
    if D_QK_SPLIT:
        dq_b_ptrs = dq_ptr + b * stride_dqb + h * stride_dqh + row0 * stride_dqm \
            + offs_m_local[:, None] * stride_dqm + offs_dqk_b[None, :] * stride_dqd
        tl.store(dq_b_ptrs, (dq_b * scale).to(dq_ptr.dtype.element_ty), mask=qmask_b)


@kernel_jit()
def attention_bwd_dq_kernel(
    q_ptr, k_ptr, v_ptr, do_ptr, dq_ptr, lse2_ptr, delta_ptr,
    stride_qb, stride_qh, stride_qm, stride_qd,
    stride_kb, stride_kh, stride_kn, stride_kd,
    stride_vb, stride_vh, stride_vn, stride_vd,
    stride_dob, stride_doh, stride_dom, stride_dod,
    stride_dqb, stride_dqh, stride_dqm, stride_dqd,
    H_q, ratio_k, ratio_v, S_q, S_kv,
    qk_scale_log2, scale, lo_off, hi_off,
    BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr,
    D_QK: tl.constexpr, D_QK_PAD: tl.constexpr, D_V: tl.constexpr, D_V_PAD: tl.constexpr,
    HAS_LEFT: tl.constexpr, HAS_RIGHT: tl.constexpr,
    DOT_PRECISION: tl.constexpr, WIDE: tl.constexpr, TMA: tl.constexpr = False, D_QK_SPLIT: tl.constexpr = 0,
    HEAD_GROUP: tl.constexpr = 1,
    cu_q_ptr=None, cu_kv_ptr=None, VARLEN: tl.constexpr = False, BOTTOM_RIGHT: tl.constexpr = False,
):
    """dQ for one block of query rows of one (b, h), looping over its key blocks.

    No atomics: this is the deterministic dQ (it recomputes P and dP).
    """
    # Costliest query blocks first (the highest under a right bound, the lowest under a left one),
    # so the long programs start early and the short ones fill the tail.
    pid_m, pid_bh = program_tile(HEAD_GROUP, not (HAS_LEFT and not HAS_RIGHT))
    _dq_program(
        pid_m, pid_bh,
        q_ptr, k_ptr, v_ptr, do_ptr, dq_ptr, lse2_ptr, delta_ptr, stride_qb, stride_qh, stride_qm, stride_qd,
        stride_kb, stride_kh, stride_kn, stride_kd, stride_vb, stride_vh, stride_vn, stride_vd, stride_dob,
        stride_doh, stride_dom, stride_dod, stride_dqb, stride_dqh, stride_dqm, stride_dqd, H_q, ratio_k, ratio_v,
        S_q, S_kv, qk_scale_log2, scale, lo_off, hi_off, BLOCK_M, BLOCK_N, D_QK, D_QK_PAD, D_V, D_V_PAD, HAS_LEFT,
        HAS_RIGHT, DOT_PRECISION, WIDE, TMA, D_QK_SPLIT, cu_q_ptr, cu_kv_ptr, VARLEN, BOTTOM_RIGHT,
    )


@kernel_jit()
def attention_bwd_fused_kernel(
    q_ptr, k_ptr, v_ptr, do_ptr, dq_ptr, dk_ptr, dv_ptr, lse2_ptr, delta_ptr,
    stride_qb, stride_qh, stride_qm, stride_qd,
    stride_kb, stride_kh, stride_kn, stride_kd,
    stride_vb, stride_vh, stride_vn, stride_vd,
    stride_dob, stride_doh, stride_dom, stride_dod,
    stride_dqb, stride_dqh, stride_dqm, stride_dqd,
    stride_dkb, stride_dkh, stride_dkn, stride_dkd,
    stride_dvb, stride_dvh, stride_dvn, stride_dvd,
    n_batch, H_q, H_owner, ratio_k, ratio_v, S_q, S_kv,
    qk_scale_log2, scale, lo_off, hi_off,
    BLOCK_M1: tl.constexpr, BLOCK_N1: tl.constexpr, BLOCK_M2: tl.constexpr, BLOCK_N2: tl.constexpr,
    D_QK: tl.constexpr, D_QK_PAD: tl.constexpr, D_V: tl.constexpr, D_V_PAD: tl.constexpr,
    HAS_LEFT: tl.constexpr, HAS_RIGHT: tl.constexpr, DOT_PRECISION: tl.constexpr, WIDE: tl.constexpr,
    TMA_QDO: tl.constexpr = False, TMA_KV: tl.constexpr = False, D_QK_SPLIT: tl.constexpr = 0,
    HEAD_GROUP: tl.constexpr = 1, DV_AFTER_DP: tl.constexpr = False,
):
    """The DKDV pass and the separate dQ pass as one launch, on one axis of programs.

    For the separate dQ mode with one DKDV pass owning both dK and dV (H_k == H_v, so H_owner = H_k). The
    first cdiv(S_kv, BLOCK_N1) * n_batch * H_owner programs are the DKDV pass's, in that pass's start order;
    the rest are the dQ pass's, in its own. The hardware starts programs in order, so the dQ programs take
    the SMs that the DKDV pass's last wave leaves idle, as a dQ pass on a second stream would, without a
    stream switch and with one launch fewer. Each program writes only its own
    rows, so the result is the two kernels' bit for bit. ``TMA_QDO``: the DKDV programs stream Q and dO
    through descriptors; ``TMA_KV``: the dQ programs stream K and V so.
    """
    lin = tl.program_id(0)
    n_key_tiles = tl.cdiv(S_kv, BLOCK_N1)
    n_dkdv = n_key_tiles * (n_batch * H_owner)
    if lin >= n_dkdv:
        pid_m, pid_bh = program_tile_at(lin - n_dkdv, tl.cdiv(S_q, BLOCK_M2), n_batch * H_q, HEAD_GROUP,
                                        not (HAS_LEFT and not HAS_RIGHT))
        _dq_program(
            pid_m, pid_bh,
            q_ptr, k_ptr, v_ptr, do_ptr, dq_ptr, lse2_ptr, delta_ptr, stride_qb, stride_qh, stride_qm, stride_qd,
            stride_kb, stride_kh, stride_kn, stride_kd, stride_vb, stride_vh, stride_vn, stride_vd, stride_dob,
            stride_doh, stride_dom, stride_dod, stride_dqb, stride_dqh, stride_dqm, stride_dqd, H_q, ratio_k,
            ratio_v, S_q, S_kv, qk_scale_log2, scale, lo_off, hi_off, BLOCK_M2, BLOCK_N2, D_QK, D_QK_PAD, D_V,
            D_V_PAD, HAS_LEFT, HAS_RIGHT, DOT_PRECISION, WIDE, TMA_KV, D_QK_SPLIT,
        )
    else:
        pid_n, pid_bh = program_tile_at(lin, n_key_tiles, n_batch * H_owner, HEAD_GROUP,
                                        HAS_LEFT and not HAS_RIGHT)
        _dkdv_program(
            pid_n, pid_bh,
            q_ptr, k_ptr, v_ptr, do_ptr, dk_ptr, dv_ptr, lse2_ptr, delta_ptr, delta_ptr, stride_qb, stride_qh,
            stride_qm, stride_qd, stride_kb, stride_kh, stride_kn, stride_kd, stride_vb, stride_vh, stride_vn,
            stride_vd, stride_dob, stride_doh, stride_dom, stride_dod, stride_dkb, stride_dkh, stride_dkn,
            stride_dkd, stride_dvb, stride_dvh, stride_dvn, stride_dvd, H_q, H_owner, ratio_k, ratio_v, S_q, S_kv,
            qk_scale_log2, scale, lo_off, hi_off, BLOCK_M1, BLOCK_N1, D_QK, D_QK_PAD, D_V, D_V_PAD, HAS_LEFT,
            HAS_RIGHT, True, True, False, DOT_PRECISION, WIDE, TMA_QDO, False, D_QK_SPLIT, DV_AFTER_DP,
        )


@triton.jit
def convert_rows(acc_ptr, out_ptr, stride_b, stride_h, stride_m, stride_d, H, S, scale, pid_m, pid_bh,
                 BLOCK_M: tl.constexpr, D: tl.constexpr, D_PAD: tl.constexpr, WIDE: tl.constexpr,
                 D_SPLIT: tl.constexpr):
    """Rows [pid_m BLOCK_M, +BLOCK_M) of head ``pid_bh`` (b H + h) of a packed fp32 accumulator of dims (B, H, S, D),
    times ``scale``, into ``out`` in its dtype through its strides; D in chunks of D_PAD (+ D_SPLIT)."""
    b = (pid_bh // H).to(tl.int64)
    h = (pid_bh % H).to(tl.int64)
    m0 = pid_m * BLOCK_M
    row0 = m0.to(tl.int64)
    offs_m = m0 + tl.arange(0, BLOCK_M)
    row_ok = offs_m < S
    offs_local = tl.arange(0, BLOCK_M)
    offs_d = tl.arange(0, D_PAD)
    if WIDE:
        offs_local = offs_local.to(tl.int64)
        offs_d = offs_d.to(tl.int64)
    if D >= D_PAD:
        mask = row_ok[:, None]
    else:
        mask = row_ok[:, None] & (offs_d[None, :] < D)
    side = (b * H + h) * S + row0
    acc = tl.load(acc_ptr + (side + offs_local[:, None]) * D + offs_d[None, :], mask=mask, other=0.0)
    tl.store(out_ptr + b * stride_b + h * stride_h + row0 * stride_m + offs_local[:, None] * stride_m
             + offs_d[None, :] * stride_d, (acc * scale).to(out_ptr.dtype.element_ty), mask=mask)
    if D_SPLIT:
        offs_d_b = second_chunk_cols(D_PAD, D_SPLIT, WIDE)
        acc_b = load_rows(acc_ptr + (side + offs_local[:, None]) * D + offs_d_b[None, :], row_ok, offs_d_b,
                          D, D_PAD + D_SPLIT)
        if D >= D_PAD + D_SPLIT:
            mask_b = row_ok[:, None]
        else:
            mask_b = row_ok[:, None] & (offs_d_b[None, :] < D)
        tl.store(out_ptr + b * stride_b + h * stride_h + row0 * stride_m + offs_local[:, None] * stride_m
                 + offs_d_b[None, :] * stride_d, (acc_b * scale).to(out_ptr.dtype.element_ty), mask=mask_b)


@kernel_jit()
def attention_bwd_dq_convert_kernel(
    dq_acc_ptr, dq_ptr,
    stride_dqb, stride_dqh, stride_dqm, stride_dqd,
    H_q, S_q, scale,
    BLOCK_M: tl.constexpr, D_QK: tl.constexpr, D_QK_PAD: tl.constexpr, WIDE: tl.constexpr,
    D_QK_SPLIT: tl.constexpr = 0, PDL: tl.constexpr = False,
):
    """DQ_CONVERT: packed fp32 dq_accum (scale-free) -> dQ in its dtype, through dQ's strides. ``PDL``: launched
    as a programmatic dependent of the kernel that added into dq_accum, so first wait for its writes."""
    if PDL:
        gdc_wait()
    convert_rows(dq_acc_ptr, dq_ptr, stride_dqb, stride_dqh, stride_dqm, stride_dqd, H_q, S_q, scale,
                 tl.program_id(0), tl.program_id(1), BLOCK_M, D_QK, D_QK_PAD, WIDE, D_QK_SPLIT)


@kernel_jit()
def attention_bwd_convert_all_kernel(
    dq_acc_ptr, dq_ptr,
    stride_dqb, stride_dqh, stride_dqm, stride_dqd,
    H_q, S_q, scale, n_q,
    kv_acc_ptr, dk_ptr, dv_ptr,
    stride_dkb, stride_dkh, stride_dkn, stride_dkd,
    stride_dvb, stride_dvh, stride_dvn, stride_dvd,
    H_k, H_v, S_kv, n_k, v_offset,
    BLOCK_M: tl.constexpr, WIDE: tl.constexpr,
    D_QK: tl.constexpr, D_QK_PAD: tl.constexpr, D_QK_SPLIT: tl.constexpr,
    D_V: tl.constexpr, D_V_PAD: tl.constexpr, PDL: tl.constexpr = False,
):
    """DQ_CONVERT where K or V heads are shared (GQA, MQA) and dK's and dV's partials were added up too: dQ's packed
    fp32 accumulator (times ``scale``) and dK's and dV's (one buffer, dV's from element ``v_offset``; their partials
    were scaled where they were added) into dQ, dK and dV in their dtypes through their strides, in one launch.
    Programs (row block, head): dQ's ``n_q`` = B H_q heads, then dK's ``n_k`` = B H_k, then dV's B H_v; a row block
    past its tensor's length stores nothing. ``PDL``: as DQ_CONVERT's."""
    if PDL:
        gdc_wait()
    pid_m = tl.program_id(0)
    pid = tl.program_id(1)
    if pid < n_q:
        if pid_m * BLOCK_M < S_q:
            convert_rows(dq_acc_ptr, dq_ptr, stride_dqb, stride_dqh, stride_dqm, stride_dqd, H_q, S_q, scale, pid_m,
                         pid, BLOCK_M, D_QK, D_QK_PAD, WIDE, D_QK_SPLIT)
    elif pid_m * BLOCK_M < S_kv:
        if pid < n_q + n_k:
            convert_rows(kv_acc_ptr, dk_ptr, stride_dkb, stride_dkh, stride_dkn, stride_dkd, H_k, S_kv, 1.0, pid_m,
                         pid - n_q, BLOCK_M, D_QK, D_QK_PAD, WIDE, D_QK_SPLIT)
        else:
            convert_rows(kv_acc_ptr + v_offset, dv_ptr, stride_dvb, stride_dvh, stride_dvn, stride_dvd, H_v, S_kv,
                         1.0, pid_m, pid - n_q - n_k, BLOCK_M, D_V, D_V_PAD, WIDE, 0)


attention_bwd_dkdv_kernel_any_len = kernel_jit(*_NO_SPECIALIZE)(attention_bwd_dkdv_kernel.fn)
attention_bwd_dq_kernel_any_len = kernel_jit(*_NO_SPECIALIZE)(attention_bwd_dq_kernel.fn)
attention_bwd_fused_kernel_any_len = kernel_jit(*_NO_SPECIALIZE)(attention_bwd_fused_kernel.fn)
