"""Forward attention kernel, plus the band-mask helpers shared with the backward.

Every tensor is addressed through its own (batch, head, seq, dim) strides.
Block-level offsets are 64-bit (batch/head/row-start products can pass 2^31);
offsets inside a tile stay 32-bit unless ``WIDE`` is set by the launcher
(a stride so large that ``BLOCK x stride`` would overflow int32).

Triton specialises an integer argument equal to 1 into a constant, and marks
one divisible by 16 as such, so the same pointer arithmetic compiles to
16-byte vector loads when the head-dim stride is 1 and rows are aligned (the
fast path), and to correct element loads for any other strides (the general
path). No layout is declined.

Head dim D_qk in column chunks: ``D_QK_PAD`` is the width of the first (or
only) chunk, a power of two; its columns at or past ``D_QK`` are masked, and
none are when ``D_QK >= D_QK_PAD`` (the chunk is full). ``D_QK_SPLIT`` is the
width of a second chunk, columns ``D_QK_PAD .. D_QK_PAD + D_QK_SPLIT - 1``, or 0
for none. The launcher splits D_qk = 192 into 128 + 64 rather than padding it
to 256: the pad made a quarter of every product over D_qk (QK^T, dK, dQ)
multiply zeros. Each product over D_qk becomes two (``S = q_a k_a^T + q_b k_b^T``
through the MMA's accumulator; ``dK_a += dS^T q_a``, ``dK_b += dS^T q_b``), and
every second-chunk tile is addressed through the tensor's own head-dim stride.
With ``D_QK_SPLIT = 0`` the kernels compile to the code they had before it
existed (the ``*_b`` values are then placeholders that nothing reads).

Band semantics (cuDNN): query i keeps key j iff
``lo_off <= j - i`` (when ``HAS_LEFT``) and ``j - i <= hi_off`` (when
``HAS_RIGHT``), with ``lo_off = 1 - left_bound + shift`` and
``hi_off = right_bound + shift``; the launcher folds the alignment shift in.
"""

import inspect

import triton
import triton.language as tl

# Sentinel for "no bound on this side": far outside any int32 tile index we
# form, yet small enough that adding a block size cannot overflow int32.
BIG = tl.constexpr(1 << 30)

# With S_q or S_kv equal to 1 Triton turns the length into a constant, and ptxas
# (Triton 3.6, sm_90a) died with SIGSEGV compiling the DKDV kernel for
# S_q = S_kv = 1 (device run 2026-11-30). Each main kernel therefore has an
# ``*_any_len`` twin that never specialises the lengths; the launcher uses it
# when a length is 1. Specialisation matters: without it (lengths lose their
# divisible-by-16 mark) the backward at (2,16,4096,128) bf16 took 2.51 ms
# instead of 1.99 ms on the H200 (A/B of 2026-11-30, benchmarks/results/h200/ab_2026-11-30.log).
_NO_SPECIALIZE = ["S_q", "S_kv"]
# Integer arguments Triton would otherwise specialise (divisible by 16, equal to 1) that only
# index heads or bound a band: their divisibility buys no vectorisation or alignment, but every
# pattern of them was a separate compile. The full plan asked for 1422 specialisations on a cold
# cache, 37% of the compile time in such patterns (docs/data/compile-times-sm90.md as of c1a2ba6).
_RUNTIME_ONLY = ["H_q", "H_owner", "ratio_k", "ratio_v", "lo_off", "hi_off", "n_batch"]


def kernel_jit(*extra: str):
    """``triton.jit`` for a launched kernel: no specialisation on ``_RUNTIME_ONLY`` and ``extra``."""
    def wrap(fn):
        names = list(inspect.signature(fn).parameters)
        return triton.jit(do_not_specialize=[n for n in names if n in _RUNTIME_ONLY or n in extra])(fn)
    return wrap


@triton.jit
def mma(a, b, DOT_PRECISION: tl.constexpr):
    """tl.dot with an fp32 accumulator.

    DOT_PRECISION "upcast" is for the Triton 3.9 interpreter only: its bf16 dot
    multiplies the raw uint16 bit patterns (seen 2026-11-30: errors of 1e10 on
    randn inputs), so the launcher asks for an exact upcast to fp32 there.
    """
    if DOT_PRECISION == "upcast":
        return tl.dot(a.to(tl.float32), b.to(tl.float32), input_precision="ieee")
    else:
        return tl.dot(a, b, input_precision=DOT_PRECISION)


@triton.jit
def mma_acc(acc, a, b, DOT_PRECISION: tl.constexpr):
    """acc + a @ b through tl.dot's accumulator (one MMA chain, no separate add); see mma."""
    if DOT_PRECISION == "upcast":
        return tl.dot(a.to(tl.float32), b.to(tl.float32), acc=acc, input_precision="ieee")
    else:
        return tl.dot(a, b, acc=acc, input_precision=DOT_PRECISION)


@triton.jit
def second_chunk_cols(D_QK_PAD: tl.constexpr, D_QK_SPLIT: tl.constexpr, WIDE: tl.constexpr):
    """Column indices of the D_qk axis's second chunk: D_QK_PAD .. D_QK_PAD + D_QK_SPLIT - 1."""
    offs = D_QK_PAD + tl.arange(0, D_QK_SPLIT)
    if WIDE:
        offs = offs.to(tl.int64)
    return offs


@triton.jit
def load_rows(ptrs, row_ok, offs_d, D: tl.constexpr, D_END: tl.constexpr):
    """A [rows, cols] tile: rows where row_ok, columns offs_d (which end at D_END) below D, zeros elsewhere."""
    if D >= D_END:
        return tl.load(ptrs, mask=row_ok[:, None], other=0.0)
    else:
        return tl.load(ptrs, mask=row_ok[:, None] & (offs_d[None, :] < D), other=0.0)


@triton.jit
def row_tiles(base, rows, stride_row, D: tl.constexpr, BLOCK: tl.constexpr, D_PAD: tl.constexpr):
    """A tensor descriptor (TMA) over one head's [rows, D] matrix, read BLOCK x D_PAD at a time.

    The bulk-copy engine fills rows >= ``rows`` and columns >= D with zeros, so
    tiles read through it need no masks. A D_qk split into two chunks takes one
    descriptor per chunk width over the same [rows, D] matrix; the second chunk
    is read at column D_QK_PAD. The launcher uses it only where TMA can
    address the tensor: head-dim stride 1, base and row stride multiples of 16
    bytes (``launch._tma_ok``); every other layout takes the pointer path.
    """
    return tl.make_tensor_descriptor(base, shape=[rows, D], strides=[stride_row, 1], block_shape=[BLOCK, D_PAD])


@triton.jit
def program_tile(HEAD_GROUP: tl.constexpr, COSTLIEST_FIRST_IS_LAST: tl.constexpr):
    """(tile, head) of this program: which block of one (b, h) row axis it takes, and which (b, h).

    The grid is (tiles, heads) and the hardware starts programs in the order of
    ``program_id(1) * tiles + program_id(0)``. Under a band the tiles of one head
    differ in cost (a causal DKDV key block 0 visits every query tile, the last
    one a single tile), so a head-by-head order leaves the last heads' costliest
    programs to start last: a simulation of greedy dispatch on 132 SMs gives 0.87
    of ideal for (2, 16, 4096, 128) causal, where cuDNN's causal ratio to its
    non-causal time is 0.62 and ours was 0.70 (docs/perf-log.md, 2026-12-01, H200).
    Programs are therefore started in groups of HEAD_GROUP heads, and inside a
    group costliest tile first across its heads (longest-processing-time first:
    0.99-1.00 of ideal in the same simulation for groups of 4-16). Grouping keeps
    the concurrently running programs on a few heads, so the tiles they stream
    (one head's Q/dO, K/V) stay shared in L2 as with the head-by-head order.
    ``COSTLIEST_FIRST_IS_LAST``: the costliest tile is the highest-numbered one
    (a right bound for query tiles, a left bound for key tiles); else tile 0.
    HEAD_GROUP = 1 is the plain head-by-head order.
    """
    n_tiles = tl.num_programs(0)
    n_heads = tl.num_programs(1)
    return program_tile_at(tl.program_id(1) * n_tiles + tl.program_id(0), n_tiles, n_heads, HEAD_GROUP,
                           COSTLIEST_FIRST_IS_LAST)


@triton.jit
def program_tile_at(lin, n_tiles, n_heads, HEAD_GROUP: tl.constexpr, COSTLIEST_FIRST_IS_LAST: tl.constexpr):
    """``program_tile`` for the program at start rank ``lin`` of a (n_tiles, n_heads) grid; the fused backward
    launch (``attention_bwd_fused_kernel``) maps two such grids onto one axis."""
    per_group = HEAD_GROUP * n_tiles
    group = lin // per_group
    first = group * HEAD_GROUP
    size = tl.minimum(n_heads - first, HEAD_GROUP)
    r = lin - group * per_group
    rank = r // size
    head = first + r - rank * size
    if COSTLIEST_FIRST_IS_LAST:
        tile = n_tiles - 1 - rank
    else:
        tile = rank
    return tile, head


@triton.jit
def varlen_sequence(cu_q_ptr, cu_kv_ptr, s, lo_off, hi_off, BOTTOM_RIGHT: tl.constexpr):
    """(first query token, S_q, first key token, S_kv, lo_off, hi_off) of sequence ``s`` of a packed batch (the
    ``VARLEN`` form of the kernels): its lengths from the int32 offsets ``cu_q`` / ``cu_kv`` (B + 1 entries each),
    and the band offsets with the sequence's own bottom-right shift S_kv - S_q added where ``BOTTOM_RIGHT`` (the
    launcher passes them unshifted: each sequence aligns its own last query with its own last key)."""
    tok_q = tl.load(cu_q_ptr + s)
    S_q = tl.load(cu_q_ptr + s + 1) - tok_q
    tok_kv = tl.load(cu_kv_ptr + s)
    S_kv = tl.load(cu_kv_ptr + s + 1) - tok_kv
    if BOTTOM_RIGHT:
        lo_off = lo_off + (S_kv - S_q)
        hi_off = hi_off + (S_kv - S_q)
    return tok_q.to(tl.int64), S_q, tok_kv.to(tl.int64), S_kv, lo_off, hi_off


@triton.jit
def band_keep(offs_q, offs_k, lo_off, hi_off, HAS_LEFT: tl.constexpr, HAS_RIGHT: tl.constexpr):
    """[len(offs_q), len(offs_k)] bool: query offs_q[i] keeps key offs_k[j]."""
    diff = offs_k[None, :] - offs_q[:, None]
    keep = diff == diff
    if HAS_LEFT:
        keep = keep & (diff >= lo_off)
    if HAS_RIGHT:
        keep = keep & (diff <= hi_off)
    return keep


@triton.jit
def band_keep_t(offs_k, offs_q, lo_off, hi_off, HAS_LEFT: tl.constexpr, HAS_RIGHT: tl.constexpr):
    """Transposed predicate: [len(offs_k), len(offs_q)] bool."""
    diff = offs_k[:, None] - offs_q[None, :]
    keep = diff == diff
    if HAS_LEFT:
        keep = keep & (diff >= lo_off)
    if HAS_RIGHT:
        keep = keep & (diff <= hi_off)
    return keep


@triton.jit
def tile_bounds(lo, hi, full_first, full_last, limit, BLOCK: tl.constexpr):
    """Tiles of BLOCK along one axis covering [max(lo, 0), min(hi, limit)).

    Returns (start, mid_lo, mid_hi, stop): tiles start at start, start+BLOCK, ...
    below stop; those starting in [mid_lo, mid_hi) need no mask (their start x
    satisfies full_first <= x <= full_last), the others do. Tiles outside the
    band are never visited: that is the skip of fully masked tiles.
    """
    lo = tl.maximum(lo, 0)
    hi = tl.minimum(hi, limit)
    start = (lo // BLOCK) * BLOCK
    stop = start + tl.cdiv(tl.maximum(hi - start, 0), BLOCK) * BLOCK
    mid_lo = start + tl.cdiv(tl.maximum(full_first - start, 0), BLOCK) * BLOCK
    mid_hi = start + (tl.maximum(full_last - start + BLOCK, 0) // BLOCK) * BLOCK
    mid_lo = tl.minimum(mid_lo, stop)
    mid_hi = tl.minimum(tl.maximum(mid_hi, mid_lo), stop)
    return start, mid_lo, mid_hi, stop


@triton.jit
def key_tile_bounds(m0, S_q, S_kv, lo_off, hi_off,
                    BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr,
                    HAS_LEFT: tl.constexpr, HAS_RIGHT: tl.constexpr):
    """Key tiles a query block [m0, m0 + BLOCK_M) must visit (forward, dQ)."""
    m_last = tl.minimum(m0 + BLOCK_M, S_q) - 1
    zero = m0 - m0  # a scalar tensor, so every branch below yields one type
    lo = zero
    full_first = zero - BIG
    if HAS_LEFT:
        lo = m0 + lo_off
        full_first = m0 + BLOCK_M - 1 + lo_off
    hi = zero + S_kv
    # A key tile is mask-free only if it also lies wholly below S_kv.
    full_last = zero + S_kv - BLOCK_N
    if HAS_RIGHT:
        hi = m_last + hi_off + 1
        full_last = tl.minimum(full_last, m0 + hi_off - BLOCK_N + 1)
    return tile_bounds(lo, hi, full_first, full_last, S_kv, BLOCK_N)


@triton.jit
def query_tile_bounds(n0, S_q, S_kv, lo_off, hi_off,
                      BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr,
                      HAS_LEFT: tl.constexpr, HAS_RIGHT: tl.constexpr):
    """Query tiles a key block [n0, n0 + BLOCK_N) must visit (dK, dV)."""
    n_last = tl.minimum(n0 + BLOCK_N, S_kv) - 1
    zero = n0 - n0  # a scalar tensor, so every branch below yields one type
    lo = zero
    full_first = zero - BIG
    if HAS_RIGHT:
        lo = n0 - hi_off
        full_first = n0 + BLOCK_N - 1 - hi_off
    hi = zero + S_q
    full_last = zero + BIG
    if HAS_LEFT:
        hi = n_last - lo_off + 1
        full_last = n0 - lo_off - BLOCK_M + 1
    # A key block that runs past S_kv needs its padding keys masked on every tile.
    full_first = tl.where(n0 + BLOCK_N > S_kv, BIG, full_first)
    return tile_bounds(lo, hi, full_first, full_last, S_q, BLOCK_M)


@triton.jit
def _fwd_tiles(acc, m_i, l_i, q, q_b, k_ptr, v_ptr, k_desc, k_b_desc, v_desc,
               stride_kn, stride_kd, stride_vn, stride_vd,
               offs_m, n_begin, n_end, S_kv, lo_off, hi_off, qk_scale_log2,
               BLOCK_N: tl.constexpr, D_QK: tl.constexpr, D_QK_PAD: tl.constexpr, D_QK_SPLIT: tl.constexpr,
               D_V: tl.constexpr, D_V_PAD: tl.constexpr, MASK: tl.constexpr,
               HAS_LEFT: tl.constexpr, HAS_RIGHT: tl.constexpr, DOT_PRECISION: tl.constexpr,
               WIDE: tl.constexpr, TMA: tl.constexpr, FUSED_SOFTMAX: tl.constexpr = False,
               PV_ACC: tl.constexpr = False):
    """Key tiles [n_begin, n_end) into the online softmax; q_b / k_b_desc are the second D_qk chunk's.

    FUSED_SOFTMAX (the launcher sets it only for a scale > 0): the row max is taken on the unscaled
    scores and scaled once a row, so each score's scale and max subtraction are one FMA inside exp2's
    argument (a multiply an element fewer). PV_ACC: P V accumulates into the rescaled acc through the
    product's own accumulator (an add an element fewer; the product then waits for the rescale).
    ForwardConfig.fused_softmax sets both."""
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
        if not FUSED_SOFTMAX:
            qk = qk * qk_scale_log2
        if MASK:
            keep = band_keep(offs_m, offs_n, lo_off, hi_off, HAS_LEFT, HAS_RIGHT) & key_ok[None, :]
            qk = tl.where(keep, qk, float("-inf"))
        if FUSED_SOFTMAX:
            # max(s * x) = s * max(x) for s > 0; masked scores stay -inf (s * -inf = -inf)
            m_new = tl.maximum(m_i, tl.max(qk, 1) * qk_scale_log2)
        else:
            m_new = tl.maximum(m_i, tl.max(qk, 1))
        # A row with no key kept so far has m_new = -inf; subtracting 0 instead keeps
        # exp2(-inf - m) at 0 rather than NaN.
        m_safe = tl.where(m_new == float("-inf"), 0.0, m_new)
        if FUSED_SOFTMAX:
            p = tl.math.exp2(qk * qk_scale_log2 - m_safe[:, None])
        else:
            p = tl.math.exp2(qk - m_safe[:, None])
        alpha = tl.math.exp2(m_i - m_safe)
        l_i = l_i * alpha + tl.sum(p, 1)
        if PV_ACC:
            acc = mma_acc(acc * alpha[:, None], p.to(v.dtype), v, DOT_PRECISION)
        else:
            acc = acc * alpha[:, None] + mma(p.to(v.dtype), v, DOT_PRECISION)
        m_i = m_new
        k_ptrs += BLOCK_N * stride_kn
        if D_QK_SPLIT:
            k_b_ptrs += BLOCK_N * stride_kn
        v_ptrs += BLOCK_N * stride_vn
    return acc, m_i, l_i


@kernel_jit()
def attention_fwd_kernel(
    q_ptr, k_ptr, v_ptr, o_ptr, stats_ptr,
    stride_qb, stride_qh, stride_qm, stride_qd,
    stride_kb, stride_kh, stride_kn, stride_kd,
    stride_vb, stride_vh, stride_vn, stride_vd,
    stride_ob, stride_oh, stride_om, stride_od,
    stride_sb, stride_sh, stride_sm,
    H_q, S_q, S_kv, ratio_k, ratio_v,
    qk_scale_log2, lo_off, hi_off,
    BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr,
    D_QK: tl.constexpr, D_QK_PAD: tl.constexpr, D_V: tl.constexpr, D_V_PAD: tl.constexpr,
    HAS_LEFT: tl.constexpr, HAS_RIGHT: tl.constexpr, DOT_PRECISION: tl.constexpr,
    WIDE: tl.constexpr, TMA: tl.constexpr = False, D_QK_SPLIT: tl.constexpr = 0, HEAD_GROUP: tl.constexpr = 1,
    FUSED_SOFTMAX: tl.constexpr = False, PV_ACC: tl.constexpr = False,
    cu_q_ptr=None, cu_kv_ptr=None, VARLEN: tl.constexpr = False, BOTTOM_RIGHT: tl.constexpr = False,
):
    """O and stats (natural-log LSE) for one block of BLOCK_M query rows of one (b, h).

    ``VARLEN``: one launch over a packed batch of B sequences (``engine.varlen``). The tensors are (1, H, T, D)
    views of the packed (T, H, D) ones, their batch strides passed as 0, and the stats a (1, H_q, T_q) view of
    the packed ones; ``b`` is the sequence, whose tokens and lengths come from ``cu_q`` / ``cu_kv``
    (``varlen_sequence``; the S_q and S_kv arguments are then unused). From there on the program is the dense
    one of a (1, H, S_q, D) problem whose bases are advanced to the sequence's first tokens."""
    # Costliest query blocks first (the highest under a right bound, the lowest under a left one).
    pid_m, pid_bh = program_tile(HEAD_GROUP, not (HAS_LEFT and not HAS_RIGHT))
    b = (pid_bh // H_q).to(tl.int64)
    h = (pid_bh % H_q).to(tl.int64)
    hk = h // ratio_k
    hv = h // ratio_v
    m0 = pid_m * BLOCK_M
    if VARLEN:
        tok_q, S_q, tok_kv, S_kv, lo_off, hi_off = varlen_sequence(cu_q_ptr, cu_kv_ptr, b, lo_off, hi_off,
                                                                   BOTTOM_RIGHT)
        if m0 >= S_q:  # the grid covers the longest sequence
            return
        q_ptr += tok_q * stride_qm
        o_ptr += tok_q * stride_om
        stats_ptr += tok_q * stride_sm
        k_ptr += tok_kv * stride_kn
        v_ptr += tok_kv * stride_vn

    offs_m = m0 + tl.arange(0, BLOCK_M)
    row_ok = offs_m < S_q
    offs_m_local = tl.arange(0, BLOCK_M)
    offs_dqk = tl.arange(0, D_QK_PAD)
    offs_dv = tl.arange(0, D_V_PAD)
    if WIDE:
        offs_m_local = offs_m_local.to(tl.int64)
        offs_dqk = offs_dqk.to(tl.int64)
        offs_dv = offs_dv.to(tl.int64)
    row0 = m0.to(tl.int64)

    q_ptrs = q_ptr + b * stride_qb + h * stride_qh + row0 * stride_qm \
        + offs_m_local[:, None] * stride_qm + offs_dqk[None, :] * stride_qd
    if D_QK >= D_QK_PAD:
        q = tl.load(q_ptrs, mask=row_ok[:, None], other=0.0)
    else:
        q = tl.load(q_ptrs, mask=row_ok[:, None] & (offs_dqk[None, :] < D_QK), other=0.0)
    q_b = q  # placeholder: read only when D_QK_SPLIT
    if D_QK_SPLIT:
        offs_dqk_b = second_chunk_cols(D_QK_PAD, D_QK_SPLIT, WIDE)
        q_b = load_rows(q_ptr + b * stride_qb + h * stride_qh + row0 * stride_qm
                        + offs_m_local[:, None] * stride_qm + offs_dqk_b[None, :] * stride_qd,
                        row_ok, offs_dqk_b, D_QK, D_QK_PAD + D_QK_SPLIT)

    k_base = k_ptr + b * stride_kb + hk * stride_kh
    v_base = v_ptr + b * stride_vb + hv * stride_vh
    if TMA:
        k_desc = row_tiles(k_base, S_kv, stride_kn, D_QK, BLOCK_N, D_QK_PAD)
        v_desc = row_tiles(v_base, S_kv, stride_vn, D_V, BLOCK_N, D_V_PAD)
    else:
        k_desc = k_base
        v_desc = v_base
    k_b_desc = k_desc  # placeholder: read only when D_QK_SPLIT
    if TMA:
        if D_QK_SPLIT:
            k_b_desc = row_tiles(k_base, S_kv, stride_kn, D_QK, BLOCK_N, D_QK_SPLIT)

    m_i = tl.full([BLOCK_M], float("-inf"), tl.float32)
    l_i = tl.zeros([BLOCK_M], tl.float32)
    acc = tl.zeros([BLOCK_M, D_V_PAD], tl.float32)

    start, mid_lo, mid_hi, stop = key_tile_bounds(m0, S_q, S_kv, lo_off, hi_off, BLOCK_M, BLOCK_N,
                                                  HAS_LEFT, HAS_RIGHT)
    acc, m_i, l_i = _fwd_tiles(acc, m_i, l_i, q, q_b, k_base, v_base, k_desc, k_b_desc, v_desc,
                               stride_kn, stride_kd, stride_vn, stride_vd,
                               offs_m, start, mid_lo, S_kv, lo_off, hi_off, qk_scale_log2,
                               BLOCK_N, D_QK, D_QK_PAD, D_QK_SPLIT, D_V, D_V_PAD, True, HAS_LEFT, HAS_RIGHT,
                               DOT_PRECISION, WIDE, TMA, FUSED_SOFTMAX, PV_ACC)
    acc, m_i, l_i = _fwd_tiles(acc, m_i, l_i, q, q_b, k_base, v_base, k_desc, k_b_desc, v_desc,
                               stride_kn, stride_kd, stride_vn, stride_vd,
                               offs_m, mid_lo, mid_hi, S_kv, lo_off, hi_off, qk_scale_log2,
                               BLOCK_N, D_QK, D_QK_PAD, D_QK_SPLIT, D_V, D_V_PAD, False, HAS_LEFT, HAS_RIGHT,
                               DOT_PRECISION, WIDE, TMA, FUSED_SOFTMAX, PV_ACC)
    acc, m_i, l_i = _fwd_tiles(acc, m_i, l_i, q, q_b, k_base, v_base, k_desc, k_b_desc, v_desc,
                               stride_kn, stride_kd, stride_vn, stride_vd,
                               offs_m, mid_hi, stop, S_kv, lo_off, hi_off, qk_scale_log2,
                               BLOCK_N, D_QK, D_QK_PAD, D_QK_SPLIT, D_V, D_V_PAD, True, HAS_LEFT, HAS_RIGHT,
                               DOT_PRECISION, WIDE, TMA, FUSED_SOFTMAX, PV_ACC)

    # A row that kept no key: O = 0 and stats = -inf (the oracle's convention).
    empty = l_i == 0.0
    o = acc / tl.where(empty, 1.0, l_i)[:, None]
    stats = tl.where(empty, float("-inf"), (m_i + tl.math.log2(tl.where(empty, 1.0, l_i))) * 0.6931471805599453)

    o_ptrs = o_ptr + b * stride_ob + h * stride_oh + row0 * stride_om \
        + offs_m_local[:, None] * stride_om + offs_dv[None, :] * stride_od
    if D_V == D_V_PAD:
        tl.store(o_ptrs, o.to(o_ptr.dtype.element_ty), mask=row_ok[:, None])
    else:
        tl.store(o_ptrs, o.to(o_ptr.dtype.element_ty), mask=row_ok[:, None] & (offs_dv[None, :] < D_V))
    s_ptrs = stats_ptr + b * stride_sb + h * stride_sh + row0 * stride_sm + offs_m_local * stride_sm
    tl.store(s_ptrs, stats, mask=row_ok)


attention_fwd_kernel_any_len = kernel_jit(*_NO_SPECIALIZE)(attention_fwd_kernel.fn)
