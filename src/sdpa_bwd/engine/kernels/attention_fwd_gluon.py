"""The forward on Hopper in Gluon: FlashAttention-3's schedule, for 16-bit Q, K, V read through TMA.

Launch code and the rule for when it runs are in ``sdpa_bwd.engine.launch`` (``gluon_forward_reasons``); the
Triton kernel in ``attention_fwd`` does every other problem and everything under CI's interpreter (Gluon
has none). One program owns 128 query rows of one (batch, query head), 192 at head dim 64 (three consumers,
``CONSUMERS_BY_HEAD_DIM``):

- a loader partition (1 warp, 40 registers) loads this head's Q once and streams K, V tiles of 128 keys
  through two stages, each with a "ready" mbarrier (TMA byte count) and an "empty" one both consumers arrive
  on, through TMA descriptors the launcher made on the host (``planner.plan_forward``: Q, K, V and O
  as (B, H, S, D) through their own strides, any layout whose head-dim stride is 1 and whose rows and bases
  are 16-byte aligned: BHSD, BSHD, SBHD, padded rows, GQA heads, broadcasts; made on the device, each cost
  its program a global round trip before its first load, 2026-12-02, H200);
- two consumer partitions (4 warps each, 64 query rows each, 232 registers; three of 160-168 at hd64) never wait
  for each other, only for their tiles. Each issues S_j = Q K_j^T and P_{j-1} V_{j-1} back to back, waits for S_j
  alone and runs the softmax of S_j while P_{j-1} V_{j-1} is still on the tensor cores.

Rows past S_q and keys past S_kv come in as TMA's zero fill; keys past S_kv and (causal, the diagonal at 0)
keys past the query are masked in the last key tile only, the one tile they can be in, which is peeled out
of the loop (a mask branch inside it cost 12%: 0.473 against 0.422 ms, 2026-12-01, H200,
docs/data/h200-2026-12-01m/run63 and run64). O leaves through the Q tile's buffer by TMA store where its rows are
TMA-addressable, through its own four strides elsewhere; the natural-log LSE through the stats' three strides. The scale
is folded into exp2's argument (the launcher sends only scale > 0 here: max(s x) = s max(x) needs it).

Worker partitions take no constexpr arguments in Triton 3.6: they read their tile sizes off the shared
buffers' shapes and the O path off O's argument type (a descriptor or a pointer); the causal flag is a
runtime value.

Measured on the H200 (2026-12-01, docs/data/h200-2026-12-01m/run64, ``benchmarks/bench_forward.py`` with
``$SDPA_BWD_GLUON_FWD`` on and off, bf16): (2,16,4096,128) 0.422 ms non-causal against the Triton kernel's 0.509 and
cuDNN's 0.408, 0.262 causal against 0.291 and 0.255; (1,32/8,8192,128) 1.689 against 1.905 and 1.683. At hd64 with two
consumers it was slower than the Triton kernel (0.194 against 0.178 ms at (4,16,2048,64)): a 64 x 128 tile's
exponentials take as long as its two products there, and two consumers leave the softmax exposed. With three
(FlashAttention-3's hd64 forward; 2026-12-03, H200, docs/data/h200-2026-12-03g/run2, ``tools/ab_forward.py``) it is 3-6%
faster than the Triton kernel at (4,16,2048,64) and 12-14% at GQA 32/8 (1,32/8,8192,64): 0.92-0.97 and 1.06-1.12 of
cuDNN's forward. The launcher takes it at hd128, hd64 and 192 / 128 (``launch.GLUON_HEAD_DIMS``). Under the causal mask
a consumer's rows may end their diagonal a key tile before the program's (192 rows against 128-key tiles): that consumer
stops there and only gives the remaining stages back (``_consumer``'s ``n_own``).
"""

from __future__ import annotations

try:
    from triton.experimental import gluon
    from triton.experimental.gluon import language as gl
    from triton.experimental.gluon.language.nvidia.hopper import (
        fence_async_shared,
        mbarrier,
        tma,
        warpgroup_mma,
        warpgroup_mma_wait,
    )

    # Triton 3.6 names the TMA copies async_copy_global_to_shared / async_copy_shared_to_global; 3.9 calls
    # them async_load / async_store and raises on the old names.
    _tma_load = getattr(tma, "async_load", None) or tma.async_copy_global_to_shared
    _tma_store = getattr(tma, "async_store", None) or tma.async_copy_shared_to_global
    AVAILABLE = True
except ImportError:  # a Triton without Gluon's Hopper module: the launcher never picks this kernel
    AVAILABLE = False

BLOCK_ROWS = 64  # query rows a consumer partition owns; a program owns two such blocks
BLOCK_KEYS = 128
STAGES = 2  # K/V buffers; 3 stages ran 1-8% slower (2026-12-01, H200; and 229 KB of shared memory at hd128)
MAX_REGS = 168  # the kernel's budget before the partitions resize theirs
# Consumer partitions a program, by head dim (D_qk = D_v): three at 64 (FlashAttention-3's hd64 forward, 192 query
# rows a program), where a 64 x 128 tile's exponentials take as long as its two products and two consumers left the
# softmax exposed (0.194 ms at (4,16,2048,64) against the Triton kernel's 0.178, 2026-12-01, H200,
# docs/data/h200-2026-12-01m/run66); two elsewhere.
CONSUMERS_BY_HEAD_DIM = {64: 3}
# The kernel's register budget by consumers: the register file (64K) over the program's warpgroups (the loader's
# warp is padded to one), so that the partitions' setmaxnreg budgets (232 / 40 with two, 160 / 24 and the default
# consumer's 168 with three) can be met
MAX_REGS_BY_CONSUMERS = {2: MAX_REGS, 3: 128}


def consumers(d_qk: int, d_v: int) -> int:
    """Consumer partitions (64 query rows each) a program of the kernel has for these head dims."""
    return CONSUMERS_BY_HEAD_DIM.get(d_qk, 2) if d_qk == d_v else 2


# Heads a group of the causal start order spans (``program_tile``), both Gluon kernels' default
# (``launch.GLUON_HEAD_GROUP``): a simulation of greedy dispatch put groups of 4-16 at 0.99-1.00 of ideal
# (docs/perf-log.md, 2026-12-01).
CAUSAL_HEAD_GROUP = 8


def qk_chunks(d_qk: int) -> tuple:
    """(first chunk, second chunk or 0) of D_qk in the kernel's Q and K buffers, whose widths are powers of
    two: 192 = 128 + 64 (DeepSeek-V3's D_qk), a power of two in one piece."""
    return (128, d_qk - 128) if 128 < d_qk < 256 else (d_qk, 0)


def has_buffers_for(d_qk: int, d_v: int) -> bool:
    """Whether the kernel's shared buffers can hold these head dims: each chunk of D_qk and D_v a power of two
    from 16 (the wgmma k-step) to 128 (the accumulator's registers)."""
    return all(d == 0 or (16 <= d <= 128 and d & (d - 1) == 0) for d in (*qk_chunks(d_qk), d_v)) and d_v > 0


def kernel_head_dims(d_qk: int, d_v: int) -> tuple:
    """The head dims of the kernel that runs (``d_qk``, ``d_v``): the same where its buffers hold them, else (D_qk =
    D_v only) both padded to the power of two above (hd80 and hd96 as hd128): the descriptors give the tensors' true
    width, so the bulk copies fill the columns past it with zeros on the way in (they add nothing to S or O) and drop
    them on the way out (O's store, which must then be a bulk copy), with no copy of any tensor."""
    if has_buffers_for(d_qk, d_v) or d_qk != d_v or d_qk < 16:
        return d_qk, d_v
    pad = 1 << (d_qk - 1).bit_length()
    return pad, pad


if AVAILABLE:
    ROWS = gl.constexpr(BLOCK_ROWS)

    @gluon.constexpr_function
    def same_swizzle(a, b):
        """Whether shared layouts ``a`` and ``b`` put a row's bytes in the same places (swizzle and element
        width; the rank may differ)."""
        return a.swizzle_byte_width == b.swizzle_byte_width and a.element_bitwidth == b.element_bitwidth

    @gluon.constexpr_function
    def is_pointer(ty):
        return ty.is_ptr()

    @gluon.jit
    def as_box(smem, desc):
        """``smem`` (a [rows, D] buffer, or a rank-1 one) seen in the shape of ``desc``'s block ([1, 1, rows, D]
        for the launchers' four-dimensional descriptors): the same bytes. The descriptor's layout is the
        launcher's (``host_layout`` here and in the backward); a swizzle other than the buffer's would put the
        rows in the wrong bytes, which nothing else checks (Triton compiles the mismatch silently)."""
        gl.static_assert(same_swizzle(smem.type.layout, desc.layout),
                         "the launcher's descriptor layout differs from the buffer's: see host_layout")
        return smem.reshape(desc.block_shape)

    def host_layout(rows: int, d: int, dtype):
        """The rank-4 shared layout of the launcher's descriptor of [1, 1, ``rows``, ``d``] blocks: the kernel's
        [rows, d] buffer's (``as_box`` checks they agree)."""
        two = gl.NVMMASharedLayout.get_default_for([rows, d], dtype)
        return gl.NVMMASharedLayout(swizzle_byte_width=two.swizzle_byte_width, element_bitwidth=two.element_bitwidth,
                                    rank=4)

    @gluon.constexpr_function
    def wgmma_layout(n):
        """The accumulator layout of a warpgroup's (64 x n) products: one warpgroup, 16-row wgmma steps."""
        return gl.NVMMADistributedLayout(version=[3, 0], warps_per_cta=[4, 1], instr_shape=[16, n, 16])

    @gluon.jit
    def program_tile(HEAD_GROUP: gl.constexpr, COSTLIEST_FIRST_IS_LAST: gl.constexpr):
        """(tile, head) of this program of a (tiles, heads) grid, started in groups of HEAD_GROUP heads, costliest
        tile first across each group's heads (longest-processing-time first): the Triton kernels' start order
        (``attention_fwd.program_tile``, whose docstring has the why), written again here because a Gluon kernel
        cannot call a Triton function. Under a causal band the tiles of a head differ in cost (the forward's last
        query block sees every key, the backward's first key block every query); HEAD_GROUP = 1 is the plain
        head-by-head order, costliest tile first within each head, read off the grid's own ids: the group
        arithmetic there moved Triton 3.6's spills into the backward's hd64 loop (11% slower, 2026-12-02, H200,
        docs/data/h200-2026-12-02c/run4)."""
        n_tiles = gl.num_programs(0)
        pid = gl.program_id(0)
        if HEAD_GROUP == 1:
            rank = pid
            if COSTLIEST_FIRST_IS_LAST:
                rank = n_tiles - 1 - rank
            return rank, gl.program_id(1)
        return program_tile_at(gl.program_id(1) * n_tiles + pid, n_tiles, gl.num_programs(1), HEAD_GROUP,
                          COSTLIEST_FIRST_IS_LAST)

    @gluon.jit
    def program_tile_at(lin, n_tiles, n_heads, head_group, costliest_first_is_last):
        """(tile, head) of the ``lin``-th program in ``program_tile``'s start order over ``n_tiles`` tiles of
        ``n_heads`` heads, in groups of ``head_group`` heads. Its arguments may be runtime values: the 192
        backward's persistent form walks the order by a counter (``attention_bwd_gluon_192``, ``PERSIST``)."""
        per_group = head_group * n_tiles
        group = lin // per_group
        first = group * head_group
        size = gl.minimum(n_heads - first, head_group)
        r = lin - group * per_group
        rank = r // size
        head = first + r - rank * size
        if costliest_first_is_last:
            rank = n_tiles - 1 - rank
        return rank, head

    @gluon.jit
    def stage_barriers(STAGES: gl.constexpr, CONSUMERS: gl.constexpr = 2):
        """(once, a_ready, b_ready, a_empty, b_empty): the mbarrier a loader fills a program's once-loaded tiles
        under, and a ready / empty pair per stage for each of two streamed tensors; an empty one takes an arrival
        from each of the ``CONSUMERS`` consumers. (The Gluon backward probes in tools/ use these too.)"""
        once = gl.allocate_shared_memory(gl.int64, [1], mbarrier.MBarrierLayout())
        a_ready = gl.allocate_shared_memory(gl.int64, [STAGES, 1], mbarrier.MBarrierLayout())
        b_ready = gl.allocate_shared_memory(gl.int64, [STAGES, 1], mbarrier.MBarrierLayout())
        a_empty = gl.allocate_shared_memory(gl.int64, [STAGES, 1], mbarrier.MBarrierLayout())
        b_empty = gl.allocate_shared_memory(gl.int64, [STAGES, 1], mbarrier.MBarrierLayout())
        mbarrier.init(once, count=1)
        for i in gl.static_range(STAGES):
            mbarrier.init(a_ready.index(i), count=1)
            mbarrier.init(b_ready.index(i), count=1)
            mbarrier.init(a_empty.index(i), count=CONSUMERS)
            mbarrier.init(b_empty.index(i), count=CONSUMERS)
        return once, a_ready, b_ready, a_empty, b_empty

    @gluon.jit
    def _loader(q_desc, qb_desc, k_desc, kb_desc, v_desc, b, h, hk, hv, m0, n_tiles,
                q_smem, qb_smem, k_smem, kb_smem, v_smem, q_bar, k_ready, v_ready, k_empty, v_empty):
        """Q's 64 rows a consumer from ``m0`` once, then K and V a tile of ``BLOCK_N`` keys at a time through the
        stages. The descriptors are (B, H, S, D) ones (``planner.plan_forward``), a dimension of one or of
        stride 0 given as one: batch ``b`` and heads ``h`` (Q's), ``hk``, ``hv`` are coordinates, ``% shape``.
        Where D_qk is split (192 = 128 + 64), ``qb_desc`` and ``kb_desc`` are Q's and K's second column chunk
        (blocks of D_B columns at column D_A); else Q's and K's own, not read."""
        STAGES_: gl.constexpr = k_smem.type.shape[0]
        BLOCK_N: gl.constexpr = k_smem.type.shape[1]
        NC: gl.constexpr = q_smem.type.shape[0]  # consumers, a Q block each
        D_A: gl.constexpr = q_smem.type.shape[2]
        D_B: gl.constexpr = qb_smem.type.shape[2]
        SPLIT: gl.constexpr = D_B != D_A  # see attention_fwd_gluon_kernel: qb is q itself for one chunk
        qb = b % q_desc.shape[0]
        qh = h % q_desc.shape[1]
        kb = b % k_desc.shape[0]
        kh = hk % k_desc.shape[1]
        vb = b % v_desc.shape[0]
        vh = hv % v_desc.shape[1]
        if SPLIT:  # columns D_A.. of Q and K: their second descriptors
            mbarrier.expect(q_bar, NC * (q_desc.block_type.nbytes + qb_desc.block_type.nbytes))
            for c in gl.static_range(NC):
                _tma_load(qb_desc, [qb, qh, m0 + c * ROWS, D_A], q_bar, as_box(qb_smem.index(c), qb_desc))
        else:
            mbarrier.expect(q_bar, NC * q_desc.block_type.nbytes)
        for c in gl.static_range(NC):
            _tma_load(q_desc, [qb, qh, m0 + c * ROWS, 0], q_bar, as_box(q_smem.index(c), q_desc))
        for j in range(n_tiles):
            s = j % STAGES_
            phase = (j // STAGES_) & 1
            # mbarriers start with phase 1 complete: the first STAGES waits pass at once
            mbarrier.wait(k_empty.index(s), phase ^ 1)
            if SPLIT:
                mbarrier.expect(k_ready.index(s), k_desc.block_type.nbytes + kb_desc.block_type.nbytes)
                _tma_load(kb_desc, [kb, kh, j * BLOCK_N, D_A], k_ready.index(s), as_box(kb_smem.index(s), kb_desc))
            else:
                mbarrier.expect(k_ready.index(s), k_desc.block_type.nbytes)
            _tma_load(k_desc, [kb, kh, j * BLOCK_N, 0], k_ready.index(s), as_box(k_smem.index(s), k_desc))
            mbarrier.wait(v_empty.index(s), phase ^ 1)
            mbarrier.expect(v_ready.index(s), v_desc.block_type.nbytes)
            _tma_load(v_desc, [vb, vh, j * BLOCK_N, 0], v_ready.index(s), as_box(v_smem.index(s), v_desc))

    @gluon.jit
    def _scores(q_tile, qb_tile, k_tile, kb_tile, zero_s):
        """S = Q K^T, issued and not waited for: one product, or two chained over D_qk's chunks (128 + 64)."""
        s_tok = warpgroup_mma(q_tile, k_tile.permute((1, 0)), zero_s, use_acc=False, is_async=True)
        if qb_tile.type.shape[1] != q_tile.type.shape[1]:
            s_tok = warpgroup_mma(qb_tile, kb_tile.permute((1, 0)), s_tok, is_async=True)
        return s_tok

    @gluon.jit
    def _softmax_step(s, m_i, l_i, qk_scale_log2, rows, j, S_kv, causal, BLOCK_N: gl.constexpr,
                      s_layout: gl.constexpr, MASKED: gl.constexpr):
        """One key tile's online-softmax step: (p in fp32, new row max, alpha, new row sum), max and exponent
        in log2 units with the scale folded in. Only the last tile can hold keys past S_kv or past the
        diagonal (the launcher sends causal problems with the diagonal at 0 only): it alone is MASKED."""
        if MASKED:
            cols = j * BLOCK_N + gl.arange(0, BLOCK_N, layout=gl.SliceLayout(0, s_layout))
            keep = (cols[None, :] < S_kv) & ((causal == 0) | (cols[None, :] <= rows[:, None]))
            s = gl.where(keep, s, float("-inf"))
        m_new = gl.maximum(m_i, gl.max(s, 1) * qk_scale_log2)
        p = gl.exp2(s * qk_scale_log2 - m_new[:, None])
        alpha = gl.exp2(m_i - m_new)
        l_new = l_i * alpha + gl.sum(p, 1)
        return p, m_new, alpha, l_new

    @gluon.jit
    def _tile(j, q_tile, qb_tile, p_op, acc, m_i, l_i, rows, qk_scale_log2, S_kv, causal,
              k_smem, kb_smem, v_smem, k_ready, v_ready, k_empty, v_empty, s_layout: gl.constexpr,
              o_layout: gl.constexpr, p_layout: gl.constexpr, MASKED: gl.constexpr):
        """Key tile j >= 1: S_j = Q K_j^T and P_{j-1} V_{j-1} issued back to back, S_j waited for alone and its
        softmax run while P_{j-1} V_{j-1} is still on the tensor cores; then acc rescaled."""
        STAGES_: gl.constexpr = k_smem.type.shape[0]
        BLOCK_N: gl.constexpr = k_smem.type.shape[1]
        st = j % STAGES_
        prev = (j - 1) % STAGES_
        mbarrier.wait(k_ready.index(st), (j // STAGES_) & 1)
        zero_s = gl.zeros([ROWS, BLOCK_N], gl.float32, s_layout)
        s_tok = _scores(q_tile, qb_tile, k_smem.index(st), kb_smem.index(st), zero_s)
        mbarrier.wait(v_ready.index(prev), ((j - 1) // STAGES_) & 1)
        acc_tok = warpgroup_mma(p_op, v_smem.index(prev), acc, is_async=True)
        s = warpgroup_mma_wait(1, deps=(s_tok,))  # S_j done (its products were committed first); P V may run
        mbarrier.arrive(k_empty.index(st), count=1)
        p, m_new, alpha, l_i = _softmax_step(s, m_i, l_i, qk_scale_log2, rows, j, S_kv, causal, BLOCK_N, s_layout,
                                             MASKED)
        acc = warpgroup_mma_wait(0, deps=(acc_tok,))
        mbarrier.arrive(v_empty.index(prev), count=1)
        acc = acc * gl.convert_layout(alpha, gl.SliceLayout(1, o_layout))[:, None]
        p_op = gl.convert_layout(p.to(v_smem.dtype), p_layout)
        return p_op, acc, m_new, l_i

    @gluon.jit
    def _consumer(q_tile, qb_tile, row0, o_out, b, h, lse_ptr, so_s, so_d, sl_s, S_q, S_kv, n_tiles, qk_scale_log2,
                  causal, k_smem, kb_smem, v_smem, q_bar, k_ready, v_ready, k_empty, v_empty):
        """64 query rows from ``row0``: O and the LSE over every key tile, P_{j-1} V_{j-1} under the softmax
        of S_j. ``n_tiles``: the key tiles the loader streams for the program; under the causal mask this
        consumer's rows may need fewer (``n_own``: with three consumers, 192 rows, the first consumer's diagonal
        ends a tile before the program's), and it takes the rest's stages only to give them back, so that its
        last tile is still the one the masks can reach. O leaves through the Q tile's buffer and a TMA store
        where ``o_out`` is a descriptor (O's rows TMA-addressable, D_v = D_qk's first chunk; batch ``b`` and head
        ``h`` its coordinates), through its four strides from the head's first element where it is a pointer."""
        STAGES_: gl.constexpr = k_smem.type.shape[0]
        BLOCK_N: gl.constexpr = k_smem.type.shape[1]
        D_V: gl.constexpr = v_smem.type.shape[2]
        s_layout: gl.constexpr = wgmma_layout(BLOCK_N)
        o_layout: gl.constexpr = wgmma_layout(D_V)
        p_layout: gl.constexpr = gl.DotOperandLayout(operand_index=0, parent=o_layout, k_width=2)
        rows = row0 + gl.arange(0, ROWS, layout=gl.SliceLayout(1, s_layout))
        acc = gl.zeros([ROWS, D_V], gl.float32, o_layout)
        m_i = gl.full([ROWS], float("-inf"), gl.float32, gl.SliceLayout(1, s_layout))
        l_i = gl.zeros([ROWS], gl.float32, gl.SliceLayout(1, s_layout))
        n_own = n_tiles
        if causal != 0:  # keys up to the last row's (the diagonal at 0)
            n_own = gl.minimum(n_tiles, gl.cdiv(row0 + ROWS, BLOCK_N))
        mbarrier.wait(q_bar, 0)

        mbarrier.wait(k_ready.index(0), 0)
        zero_s = gl.zeros([ROWS, BLOCK_N], gl.float32, s_layout)
        s_tok = _scores(q_tile, qb_tile, k_smem.index(0), kb_smem.index(0), zero_s)
        s = warpgroup_mma_wait(0, deps=(s_tok,))
        mbarrier.arrive(k_empty.index(0), count=1)
        if n_own == 1:
            p, m_i, alpha, l_i = _softmax_step(s, m_i, l_i, qk_scale_log2, rows, 0, S_kv, causal, BLOCK_N,
                                               s_layout, True)
        else:
            p, m_i, alpha, l_i = _softmax_step(s, m_i, l_i, qk_scale_log2, rows, 0, S_kv, causal, BLOCK_N,
                                               s_layout, False)
        p_op = gl.convert_layout(p.to(v_smem.dtype), p_layout)
        for j in range(1, n_own - 1):
            p_op, acc, m_i, l_i = _tile(j, q_tile, qb_tile, p_op, acc, m_i, l_i, rows, qk_scale_log2, S_kv,
                                        causal, k_smem, kb_smem, v_smem, k_ready, v_ready, k_empty, v_empty,
                                        s_layout, o_layout, p_layout, False)
        if n_own > 1:  # the last tile, the one the masks can reach
            p_op, acc, m_i, l_i = _tile(n_own - 1, q_tile, qb_tile, p_op, acc, m_i, l_i, rows, qk_scale_log2,
                                        S_kv, causal, k_smem, kb_smem, v_smem, k_ready, v_ready, k_empty, v_empty,
                                        s_layout, o_layout, p_layout, True)
        last = (n_own - 1) % STAGES_
        mbarrier.wait(v_ready.index(last), ((n_own - 1) // STAGES_) & 1)
        acc_tok = warpgroup_mma(p_op, v_smem.index(last), acc, is_async=True)
        acc = warpgroup_mma_wait(0, deps=(acc_tok,))
        mbarrier.arrive(v_empty.index(last), count=1)
        for j in range(n_own, n_tiles):  # stages this consumer's rows do not need: waited for, given back
            st = j % STAGES_
            mbarrier.wait(k_ready.index(st), (j // STAGES_) & 1)
            mbarrier.arrive(k_empty.index(st), count=1)
            mbarrier.wait(v_ready.index(st), (j // STAGES_) & 1)
            mbarrier.arrive(v_empty.index(st), count=1)

        O_PTR: gl.constexpr = is_pointer(o_out.dtype)
        if O_PTR:
            o = (acc / gl.convert_layout(l_i, gl.SliceLayout(1, o_layout))[:, None]).to(o_out.dtype.element_ty)
            orow = row0 + gl.arange(0, ROWS, layout=gl.SliceLayout(1, o_layout))
            ocol = gl.arange(0, D_V, layout=gl.SliceLayout(0, o_layout))
            gl.store(o_out + orow.to(gl.int64)[:, None] * so_s + ocol.to(gl.int64)[None, :] * so_d, o,
                     mask=orow[:, None] < S_q)
        else:  # no product reads the Q tile any more: O goes out through its buffer
            o = (acc / gl.convert_layout(l_i, gl.SliceLayout(1, o_layout))[:, None]).to(o_out.dtype)
            q_tile.store(o)
            fence_async_shared()
            _tma_store(o_out, [b % o_out.shape[0], h % o_out.shape[1], row0, 0], as_box(q_tile, o_out))
            tma.store_wait(0)
        gl.store(lse_ptr + rows.to(gl.int64) * sl_s, (m_i + gl.log2(l_i)) * 0.6931471805599453, mask=rows < S_q)

    # Triton makes an integer argument equal to 1 a constexpr, and worker partitions take none: every
    # argument that reaches a partition stays a runtime value.
    @gluon.jit(do_not_specialize=["so_b", "so_h", "so_s", "so_d", "sl_s", "S_q", "S_kv", "causal"])
    def attention_fwd_gluon_kernel(
        q_desc, qb_desc, k_desc, kb_desc, v_desc, o_out, lse_ptr,
        so_b, so_h, so_s, so_d, sl_b, sl_h, sl_s,
        H_q, S_q, S_kv, G_K, G_V, qk_scale_log2, causal,
        D_QK: gl.constexpr, D_QK_B: gl.constexpr, D_V: gl.constexpr, BLOCK_N: gl.constexpr,
        STAGES_: gl.constexpr, CAUSAL: gl.constexpr, HEAD_GROUP: gl.constexpr, CONSUMERS: gl.constexpr = 2,
    ):
        """D_QK: the head dim of Q and K, or its first chunk where D_QK_B > 0 (D_qk 192 = 128 + 64: shared
        buffers have power-of-two widths). The partitions cannot take D_QK_B as a constexpr: with one chunk
        they get the first chunk's buffers twice, and tell the cases apart by the buffers' widths. The
        descriptors are the launcher's (``planner.plan_forward``, layouts ``host_layout``): Q, K, V
        (B, H, S, D) in [1, 1, rows, chunk] blocks, ``qb_desc`` and ``kb_desc`` their second chunks' (Q's
        and K's own without a split); ``o_out`` O's descriptor where O's rows are TMA-addressable and D_v is
        D_qk's first chunk, else O's pointer (stored through ``so_*``)."""
        # causal: costliest query block (the last) first, across groups of HEAD_GROUP heads (1 without the mask)
        pid_m, bh = program_tile(HEAD_GROUP, CAUSAL)
        b = bh // H_q  # int32: the descriptors' coordinates
        h = bh % H_q
        m0 = pid_m * (CONSUMERS * ROWS)
        n_tiles = gl.cdiv(S_kv, BLOCK_N)
        if CAUSAL:
            n_tiles = gl.minimum(n_tiles, gl.cdiv(m0 + CONSUMERS * ROWS, BLOCK_N))
        if is_pointer(o_out.dtype):  # O stored through its strides from the head's first element
            o_at = o_out + b.to(gl.int64) * so_b + h.to(gl.int64) * so_h
        else:
            o_at = o_out
        lse_base = lse_ptr + b.to(gl.int64) * sl_b + h.to(gl.int64) * sl_h

        dt: gl.constexpr = q_desc.dtype
        q_layout: gl.constexpr = gl.NVMMASharedLayout.get_default_for([ROWS, D_QK], dt)
        k_layout: gl.constexpr = gl.NVMMASharedLayout.get_default_for([BLOCK_N, D_QK], dt)
        v_layout: gl.constexpr = gl.NVMMASharedLayout.get_default_for([BLOCK_N, D_V], dt)
        q_smem = gl.allocate_shared_memory(dt, [CONSUMERS, ROWS, D_QK], q_layout)
        k_smem = gl.allocate_shared_memory(dt, [STAGES_, BLOCK_N, D_QK], k_layout)
        if D_QK_B > 0:
            qb_layout: gl.constexpr = gl.NVMMASharedLayout.get_default_for([ROWS, D_QK_B], dt)
            kb_layout: gl.constexpr = gl.NVMMASharedLayout.get_default_for([BLOCK_N, D_QK_B], dt)
            qb_smem = gl.allocate_shared_memory(dt, [CONSUMERS, ROWS, D_QK_B], qb_layout)
            kb_smem = gl.allocate_shared_memory(dt, [STAGES_, BLOCK_N, D_QK_B], kb_layout)
        else:
            qb_smem = q_smem
            kb_smem = k_smem
        v_smem = gl.allocate_shared_memory(dt, [STAGES_, BLOCK_N, D_V], v_layout)
        q_bar, k_ready, v_ready, k_empty, v_empty = stage_barriers(STAGES_, CONSUMERS)
        bars = (k_smem, kb_smem, v_smem, q_bar, k_ready, v_ready, k_empty, v_empty)
        tail = (o_at, b, h, lse_base, so_s, so_d, sl_s, S_q, S_kv, n_tiles, qk_scale_log2, causal) + bars
        loader = (q_desc, qb_desc, k_desc, kb_desc, v_desc, b, h, h // G_K, h // G_V, m0, n_tiles, q_smem,
                  qb_smem) + bars
        # The default partition (these 4 warps) is consumer 0; the worker consumers take the next 64 rows each.
        if CONSUMERS == 3:  # head dim 64 (``CONSUMERS_BY_HEAD_DIM``)
            gl.warp_specialize(
                [(_consumer, (q_smem.index(0), qb_smem.index(0), m0) + tail),
                 (_consumer, (q_smem.index(1), qb_smem.index(1), m0 + ROWS) + tail),
                 (_consumer, (q_smem.index(2), qb_smem.index(2), m0 + 2 * ROWS) + tail),
                 (_loader, loader)],
                [4, 4, 1], [160, 160, 24])  # the workers' warps and register budgets (setmaxnreg)
        else:
            gl.warp_specialize(
                [(_consumer, (q_smem.index(0), qb_smem.index(0), m0) + tail),
                 (_consumer, (q_smem.index(1), qb_smem.index(1), m0 + ROWS) + tail),
                 (_loader, loader)],
                [4, 1], [232, 40])  # the workers' warps and register budgets (setmaxnreg)
