"""The backward on Hopper in Gluon for D_qk 192 / D_v 128 (DeepSeek-V3's head dims): FlashAttention-3's hdim-192
split, programs of 64 keys whose two consumer warpgroups split the key block's columns instead of its keys.

Launch code and the rule for when it runs are in ``sdpa_bwd.engine.launch`` (``gluon_backward_reasons``,
``_gluon_backward``): ODO before (delta, lse2), DQ_CONVERT after, as for ``attention_bwd_gluon``, whose loader,
stage barriers and dQ bulk reduce this kernel shares. Why a form of its own (docs/perf-log.md, 2026-12-03):
``attention_bwd_gluon`` gives each consumer 64 of a program's 128 keys, so at 192 / 128 a consumer would hold dV
(64 registers a thread), dK (96), S and dP (32 each) at once against 240, and its buffers would take 256 KB of
shared memory against 227. Here a program owns 64 keys of one (batch, query head) and streams 64-row query tiles
(three stages by default, lse2 and delta riding with Q and dO):

- a loader partition (1 warp) brings K's and V's 64 rows once, then each tile's Q and dO rows through TMA
  descriptors the launcher made on the host over Q, K, V, dO through their own strides (any layout ``_tma_ok``
  passes; a dimension of one or of stride 0, a broadcast, is given as one and addressed at coordinate 0). Q and
  K come in two column chunks, 128 and 64 (a TMA block's dims are powers of two), each into a buffer of its own;
- the products are split between the two consumer warpgroups (since 2026-12-03; before, each computed S and dP for 32 of
  the 64 keys, N = 32 products whose operands both come from shared memory): consumer 1 computes S = Q K^T for all
  64 keys and P into a shared tile (``p_full``), then dV = P^T dO; consumer 0 computes dP = dO V^T, reads P back,
  and writes dS = P (dP - delta) into a shared tile (``ds_full``). P and dS are double-buffered by tile: a buffer
  is rewritten two tiles on, after the other consumer's handshake of the tile between has shown it done with it.
  dS is computed from P as the 16-bit value the products take, not from fp32 P;
- the column work is split so that each does about the same number of product columns: consumer 0 owns dK's and
  dQ's columns 0-127 (its dQ from dS in registers, so that only K's tile is read from shared memory); consumer 1
  dK's and dQ's columns 128-191 (3.1 and 3.7 M multiply-adds a tile);
- dQ's partials leave each tile by a TMA bulk reduce into the packed fp32 accumulator (two descriptors, blocks
  of [64, 128] and [64, 64]); dK (scaled) and dV by pointer stores through their strides at the end (the persistent
  form, where the launcher can make descriptors of them: by bulk copies staged in the dQ staging buffers,
  ``_block_out_tma``: 7% faster than its pointer stores, 2026-12-04, H200, docs/data/h200-2026-12-04d/run4), or, where
  K or V heads are shared (GQA, MQA: dK's and dV's pointers are then fp32, the launcher's zeroed accumulators),
  by atomic adds that the launcher's DQ_CONVERT writes out.

Tails need no mask: Q and dO rows past S_q and K and V rows past S_kv come in as TMA's zero fill and lse2 past
S_q is taken as +inf, so those rows' P and dS are 0; a key past S_kv has K and V rows of zero, so it adds nothing
to dQ, and its own dK, dV rows are not stored. Under the causal mask (the diagonal at 0, S_q >= S_kv) a program
starts at its diagonal tile (64 keys against 64 rows: one tile), masked and peeled out of the loop.

Stages (``STAGES``; ``launch.GLUON_BWD192_THREE_STAGES``, on by default): three Q / dO stages, so that the
loader runs two tiles ahead, in the bytes of the second P / dS buffer. One buffer of each is enough: consumer 1
writes the next P after its wait for this tile's dS (consumer 0 has read P) and after its dV product is waited for;
consumer 0 writes the next dS after its wait for the next P (consumer 1 has passed its wait for the dK product that
read dS) and after its own dK product is waited for. Measured (2026-12-03, H200, docs/data/h200-2026-12-03k/run3):
the kernel 0.565 ms causal at (1,16,4096) bf16 against 0.574 with two stages and two buffers, 1.066 against 1.091
non-causal; probes the same day put ~9% of the kernel on the stage loads (run2/ there: 0.521 ms with none, 0.548
with half the programs loading).

Registers: consumer 0 holds dK 64 + dQ 64, consumer 1 dK 32 + dV 64 + dQ 32 (a thread's fp32 accumulators);
shared memory 206 KB at two stages, 231,600 B at three; ptxas spills nothing (``tests/test_gluon_backward.py`` checks
it in CI). Measured (2026-12-03, H200, docs/data/h200-2026-12-03e/run1, ``tools/ab192.py``): the kernel 0.570 ms
causal at (1,16,4096) bf16, the earlier form (S and dP for 32 keys in each consumer) 0.612; the whole call 0.633
against cuDNN's 0.603. Deterministic mode is the persistent form's split form (``NO_DQ``, below); the launcher sends
it to the Triton kernels unless ``launch.GLUON_BWD192_DET_SPLIT`` lets it in.

The persistent form (``PERSIST``; ``launch.GLUON_BWD192_PERSIST``, on by default since 2026-12-04): a grid of one
program an SM whose loader walks the blocks in the same start order, the grid's own first, then each next one claimed
through a zeroed counter once its last block's tiles are loaded (``_loader_persist``); it hands each block's number to
the consumers with its K and V (``kv_bar``), loads them once both consumers are done with the last block's
(``kv_empty``), and streams the Q and dO tiles on through the same stages (``_consumer_persist``). Measured (2026-12-03,
H200, docs/data/h200-2026-12-03j/run2): the kernel 0.567 ms causal against 0.570, 1.081 non-causal against 1.086 (bf16;
fp16 1.091 against 1.082): a program's start and end cost next to nothing here. (``tools/program_cost.py``'s
straight-line fit had put 12-13 us a program on them, in both forms: its intercept is not a program's fixed cost at this
kernel.) At three stages it is 1.0-1.5% faster than one program a block (docs/data/h200-2026-12-03l/run2: 0.557 ms
causal against 0.565, 1.056 non-causal against 1.066, bf16), hence the default.

Measured and removed (2026-12-06; their figures in docs/perf-log.md, their code in git history): clusters of two
programs summing dQ's halves in each other's shared memory (the pair form), clusters exchanging their 16-bit dS tile,
dQ converted inside the persistent pass, and deterministic mode with dQ writers taking turns.

Deterministic mode's split form (``NO_DQ``; persistent form only, heads with K and V of their own;
``launch.GLUON_BWD192_DET_SPLIT``, on by default since 2026-12-06): the pass computes dK and dV only (no dQ product, no
reduce, no turn), and the launcher runs the Triton kernels' dQ pass after it; nothing is added in an order that could
vary. 64 wgmma against the default form's 80, no spills; on the H200 1.09-1.12x of the default call at (1,16,4096)
(2026-12-06, docs/data/h200-2026-12-06a), where the Triton kernels' deterministic path took 1.16-1.22x.
"""

from __future__ import annotations


from .attention_bwd_gluon import AVAILABLE

if AVAILABLE:
    from .attention_bwd_gluon import (
        _gdc_launch_dependents,
        _gdc_wait,
        _reinterpret,
        _thread_barrier,
        _tma_load,
        _tma_reduce_add,
        _tma_store,
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
    from .attention_fwd_gluon import host_layout as _rank4_layout
    from .attention_fwd_gluon import program_tile_at

HEAD_DIMS = (192, 128)  # (D_qk, D_v): the only pair the buffers and the column split are written for
KEYS_PER_PROGRAM = 64
QUERY_ROWS = 64  # a streamed tile's rows
COLS0_ = 128  # D_qk's first column chunk: dK's and dQ's columns consumer 0 owns
MAX_REGS = 168  # the kernel's budget before the partitions resize theirs
if AVAILABLE:  # the kernel's globals must be constexprs
    D_QK, D_V, KEYS, ROWS = (gl.constexpr(n) for n in (192, 128, 64, 64))
    COLS0 = gl.constexpr(COLS0_)

    def host_layout(kind: str, dtype):
        """The shared layout of the launcher's descriptor ``kind`` (``planner._plan_gluon192``): the
        kernel's buffer's own, in the descriptor's rank (``as_box`` checks they agree). ``dtype``: Gluon's, of the
        tensor. "qa" / "qb" (Q's two column chunks, 128 and 64, of a [1, 1, 64, cols] block; K's likewise: 64
        rows), "v" (V and dO: [1, 1, 64, 128]), "dq0" / "dq1" (the fp32 accumulator's [64, 128] and [64, 64]
        blocks), "side" (lse2 and delta: [64] boxes)."""
        if kind in ("qa", "qb", "v"):
            return _rank4_layout(64, {"qa": COLS0_, "qb": 192 - COLS0_, "v": 128}[kind], dtype)
        if kind in ("dq0", "dq1"):
            cols = COLS0_ if kind == "dq0" else 192 - COLS0_
            return gl.NVMMASharedLayout.get_default_for([64, cols], gl.float32)
        if kind == "side":
            return gl.NVMMASharedLayout(swizzle_byte_width=0, element_bitwidth=32, rank=1)
        raise ValueError(f"descriptor kind {kind!r}: one of qa, qb, v, dq0, dq1, side")

    @gluon.jit
    def _loader(q_desc, qb_desc, do_desc, k_desc, kb_desc, v_desc, b, h, hk, hv, key0, m0, n_tiles, k_smem, kb_smem,
                v_smem, q_smem, qb_smem, do_smem, kv_bar, q_ready, do_ready, q_empty, do_empty, lse_desc, dlt_desc,
                side0, lse_smem, dlt_smem):
        """K's and V's 64 rows once, then each query tile's Q rows with its lse2 rows and dO rows with its delta
        rows through the stages (``attention_bwd_gluon._loader``'s protocol, one 64-key block). Q's and K's two
        column chunks come from descriptors over the same tensor, the second loaded at column 128. Batch and head
        coordinates are taken ``% shape``: 0 where the launcher gave a broadcast dimension as one."""
        _gdc_launch_dependents()
        _load_kv(k_desc, kb_desc, v_desc, b, hk, hv, key0, k_smem, kb_smem, v_smem, kv_bar)
        _gdc_wait()  # ODO's lse2 and delta (and, where it zeroes it, the dQ accumulator) are written
        stream_q_do(q_desc, qb_desc, do_desc, b % q_desc.shape[0], h % q_desc.shape[1], b % do_desc.shape[0],
                    h % do_desc.shape[1], m0, n_tiles, q_smem, qb_smem, do_smem, q_ready, do_ready, q_empty, do_empty,
                    lse_desc, dlt_desc, side0, lse_smem, dlt_smem)

    @gluon.jit
    def _load_kv(k_desc, kb_desc, v_desc, b, hk, hv, key0, k_smem, kb_smem, v_smem, kv_bar):
        """The key block's K rows (two column chunks) and V rows under ``kv_bar``, batch and head coordinates taken
        ``% shape`` (0 where the launcher gave a broadcast dimension as one)."""
        kb_ = b % k_desc.shape[0]
        kh = hk % k_desc.shape[1]
        vb = b % v_desc.shape[0]
        vh = hv % v_desc.shape[1]
        mbarrier.expect(kv_bar, k_desc.block_type.nbytes + kb_desc.block_type.nbytes + v_desc.block_type.nbytes)
        _tma_load(k_desc, [kb_, kh, key0, 0], kv_bar, as_box(k_smem, k_desc))
        _tma_load(kb_desc, [kb_, kh, key0, COLS0], kv_bar, as_box(kb_smem, kb_desc))
        _tma_load(v_desc, [vb, vh, key0, 0], kv_bar, as_box(v_smem, v_desc))

    @gluon.jit
    def stream_q_do(q_desc, qb_desc, do_desc, qb_, qh, dob, doh, m0, n_tiles, q_smem, qb_smem, do_smem, q_ready,
                    do_ready, q_empty, do_empty, lse_desc, dlt_desc, side0, lse_smem, dlt_smem, t0=0, down=0):
        """The loader's stream: each query tile's Q rows (two column chunks, the second at column 128) with its lse2
        rows under ``q_ready``, and its dO rows with its delta rows under ``do_ready``, through the stages, each
        stage's load waiting for the consumers' arrivals on its ``empty`` barrier. ``qb_, qh`` / ``dob, doh``: Q's
        and dO's batch and head coordinates; ``t0``: the stages' count of tiles before this block's (the persistent
        form's earlier blocks); ``down`` (1: the tiles from the last down to the one at row ``m0``) is 0 in every form
        the launcher has: the walk down was the turn-taking deterministic form's (removed 2026-12-06), and the
        persistent loader still passes its 0 as a runtime argument, whose slot in shared memory the compiled default
        code's layout includes. (The 96-key probe of 2026-12-03, in git history, streamed through it too.)"""
        NST: gl.constexpr = q_smem.type.shape[0]
        SIDE_BYTES: gl.constexpr = q_smem.type.shape[1] * 4
        for t in range(0, n_tiles):
            s = (t0 + t) % NST
            phase = ((t0 + t) // NST) & 1
            row = m0 + (t + down * (n_tiles - 1 - 2 * t)) * ROWS
            mbarrier.wait(q_empty.index(s), phase ^ 1)
            mbarrier.expect(q_ready.index(s), q_desc.block_type.nbytes + qb_desc.block_type.nbytes + SIDE_BYTES)
            _tma_load(q_desc, [qb_, qh, row, 0], q_ready.index(s), as_box(q_smem.index(s), q_desc))
            _tma_load(qb_desc, [qb_, qh, row, COLS0], q_ready.index(s), as_box(qb_smem.index(s), qb_desc))
            _tma_load(lse_desc, [side0 + row], q_ready.index(s), lse_smem.index(s))
            mbarrier.wait(do_empty.index(s), phase ^ 1)
            mbarrier.expect(do_ready.index(s), do_desc.block_type.nbytes + SIDE_BYTES)
            _tma_load(do_desc, [dob, doh, row, 0], do_ready.index(s), as_box(do_smem.index(s), do_desc))
            _tma_load(dlt_desc, [side0 + row], do_ready.index(s), dlt_smem.index(s))

    @gluon.jit
    def _tile(t, i, key0, q_smem, qb_smem, do_smem, k_smem, kb_smem, v_smem, p_smem, ds_smem, dq_smem, dq_desc,
              q_ready, do_ready, q_empty, do_empty, p_full, ds_full, lse_smem, dlt_smem, dq_row0, S_q, qk_scale_log2,
              dk, dv, masked, t0=0, NO_DQ: gl.constexpr = False):
        """Query tile ``i`` (the program's t-th) for consumer ``CID``. Consumer 1 computes S = Q K^T for the
        block's 64 keys, P (masked where ``masked``) into ``p_smem`` (``p_full``), its dV = P^T dO, then, once dS
        is in, its dK and dQ columns 128-191. Consumer 0 computes dP = dO V^T, dS = P (dP - delta) from P's
        shared tile into ``ds_smem`` (``ds_full``), then its dQ columns 0-127 from dS in registers and its dK
        columns 0-127. Returns (dk in flight, dv). ``CID`` is read off its dQ staging buffer's width (128 or 64
        columns): an argument that reaches a partition arrives as a runtime value, even one passed as a constexpr.
        ``t``: the stages' and P / dS buffers' count of tiles; ``t0``: its value at the block's first tile (the
        persistent form's earlier blocks), whose tile has no previous stage of the block to release. ``NO_DQ``
        (deterministic mode's split form): no dQ at all, only dK and dV (the Triton kernels' dQ pass computes dQ after
        the pass)."""
        CID: gl.constexpr = 2 - dq_smem.type.shape[-1] // 64
        NST: gl.constexpr = q_smem.type.shape[0]
        NB: gl.constexpr = p_smem.type.shape[0]  # P / dS buffers: two, or one beside three stages
        s_layout: gl.constexpr = wgmma_layout(KEYS)
        NQ: gl.constexpr = COLS0 - CID * (2 * COLS0 - D_QK)  # 128 or 64
        C0: gl.constexpr = CID * COLS0
        s = t % NST
        phase = (t // NST) & 1
        b = t % NB
        qpos = i * ROWS + gl.arange(0, ROWS, layout=gl.SliceLayout(1, s_layout))
        row_ok = qpos < S_q
        zero = gl.zeros([ROWS, KEYS], gl.float32, s_layout)
        if CID == 1:  # S, P, dV; then dK's and dQ's columns 128-191
            mbarrier.wait(q_ready.index(s), phase)
            s_tok = warpgroup_mma(q_smem.index(s), k_smem.permute((1, 0)), zero, use_acc=False, is_async=True)
            s_tok = warpgroup_mma(qb_smem.index(s), kb_smem.permute((1, 0)), s_tok, is_async=True)
            lse2 = gl.where(row_ok, lse_smem.index(s).load(gl.SliceLayout(1, s_layout)), float("inf"))
            s_t, dk = warpgroup_mma_wait(0, deps=(s_tok, dk))
            if t > t0:  # the previous tile's products are done with its stage
                prev = (t - 1) % NST
                mbarrier.arrive(q_empty.index(prev), count=1)
                mbarrier.arrive(do_empty.index(prev), count=1)
            if masked:
                kpos = key0 + gl.arange(0, KEYS, layout=gl.SliceLayout(0, s_layout))
                s_t = gl.where(kpos[None, :] <= qpos[:, None], s_t, float("-inf"))
            p = gl.exp2(s_t * qk_scale_log2 - lse2[:, None])
            p_smem.index(b).store(p.to(p_smem.dtype))
            fence_async_shared()
            _thread_barrier()  # every thread's P is stored (and fenced) before consumer 0 is told
            mbarrier.arrive(p_full.index(b), count=1)
            mbarrier.wait(do_ready.index(s), phase)
            dv_tok = warpgroup_mma(p_smem.index(b).permute((1, 0)), do_smem.index(s), dv, is_async=True)
            mbarrier.wait(ds_full.index(b), (t // NB) & 1)
            if NO_DQ:  # dK's columns 128-191 only
                dk_tok = warpgroup_mma(ds_smem.index(b).permute((1, 0)), qb_smem.index(s), dk, is_async=True)
                dv = warpgroup_mma_wait(1, deps=(dv_tok,))
            else:
                dq_tok = warpgroup_mma(ds_smem.index(b), kb_smem,
                                       gl.zeros([ROWS, NQ], gl.float32, wgmma_layout(NQ)), use_acc=False,
                                       is_async=True)
                dk_tok = warpgroup_mma(ds_smem.index(b).permute((1, 0)), qb_smem.index(s), dk, is_async=True)
                dq, dv = warpgroup_mma_wait(1, deps=(dq_tok, dv_tok))
        else:  # dP, dS; then dQ's and dK's columns 0-127
            mbarrier.wait(do_ready.index(s), phase)
            dp_tok = warpgroup_mma(do_smem.index(s), v_smem.permute((1, 0)), zero, use_acc=False, is_async=True)
            delta = gl.where(row_ok, dlt_smem.index(s).load(gl.SliceLayout(1, s_layout)), 0.0)
            dp, dk = warpgroup_mma_wait(0, deps=(dp_tok, dk))
            if t > t0:
                prev = (t - 1) % NST
                mbarrier.arrive(q_empty.index(prev), count=1)
                mbarrier.arrive(do_empty.index(prev), count=1)
            mbarrier.wait(p_full.index(b), (t // NB) & 1)
            p = p_smem.index(b).load(s_layout).to(gl.float32)
            ds = (p * (dp - delta[:, None])).to(ds_smem.dtype)
            ds_smem.index(b).store(ds)
            fence_async_shared()
            _thread_barrier()  # every thread's dS is stored (and fenced) before consumer 1 is told
            mbarrier.arrive(ds_full.index(b), count=1)
            mbarrier.wait(q_ready.index(s), phase)  # passed already (consumer 1's S read the tile): Q's bytes seen here
            if NO_DQ:  # dK's columns 0-127 only
                dk_tok = warpgroup_mma(ds_smem.index(b).permute((1, 0)), q_smem.index(s), dk, is_async=True)
            else:
                dq_layout: gl.constexpr = wgmma_layout(NQ)
                ds_op = gl.convert_layout(ds, gl.DotOperandLayout(operand_index=0, parent=dq_layout, k_width=2))
                dq_tok = warpgroup_mma(ds_op, k_smem, gl.zeros([ROWS, NQ], gl.float32, dq_layout), use_acc=False,
                                       is_async=True)
                dk_tok = warpgroup_mma(ds_smem.index(b).permute((1, 0)), q_smem.index(s), dk, is_async=True)
                dq = warpgroup_mma_wait(1, deps=(dq_tok,))
        if NO_DQ:  # no dQ at all
            return dk_tok, dv
        else:
            tma.store_wait(0)  # the previous tile's reduce has read the staging buffer
            dq_smem.store(dq)
            fence_async_shared()
            _tma_reduce_add(dq_desc, [dq_row0 + i * ROWS, C0], dq_smem)
            return dk_tok, dv

    @gluon.jit
    def _store_rows(base, acc, row0, n_rows, stride_s, stride_d, C0: gl.constexpr, layout: gl.constexpr):
        """``acc``'s rows (``row0`` on, those below ``n_rows``) at columns ``C0`` on of a (S, D) head from
        ``base``, through its strides: stored as the output's dtype, or added where ``base`` is fp32 (the
        launcher's accumulators of shared K/V heads, which several query heads' programs add into)."""
        R: gl.constexpr = acc.type.shape[0]
        N: gl.constexpr = acc.type.shape[1]
        rows = row0 + gl.arange(0, R, layout=gl.SliceLayout(1, layout))
        cols = C0 + gl.arange(0, N, layout=gl.SliceLayout(0, layout))
        ptrs = base + rows.to(gl.int64)[:, None] * stride_s + (cols * stride_d)[None, :]
        keep = (rows < n_rows)[:, None]
        if base.dtype.element_ty == gl.float32:
            gl.atomic_add(ptrs, acc, mask=keep, sem="relaxed")
        else:
            gl.store(ptrs, acc.to(base.dtype.element_ty), mask=keep)

    @gluon.jit
    def _block_out(dk, dv, last_t, q_empty, do_empty, key0, S_kv, scale, dk_base, dk_ss, dk_sd, dv_base, dv_ss, dv_sd,
                   CID: gl.constexpr, C0: gl.constexpr):
        """A consumer's end of a key block: its last dK product waited for, the block's last stage (tile ``last_t``)
        released, its dK columns from ``C0`` (scaled) and, for consumer 1, dV stored (``_store_rows``)."""
        NST: gl.constexpr = q_empty.type.shape[0]
        dk = warpgroup_mma_wait(0, deps=(dk,))
        last = last_t % NST
        mbarrier.arrive(q_empty.index(last), count=1)
        mbarrier.arrive(do_empty.index(last), count=1)
        _store_rows(dk_base, dk * scale, key0, S_kv, dk_ss, dk_sd, C0, wgmma_layout(dk.type.shape[1]))
        if CID == 1:
            _store_rows(dv_base, dv, key0, S_kv, dv_ss, dv_sd, 0, wgmma_layout(dv.type.shape[1]))

    @gluon.jit
    def _block_out_tma(dk, dv, last_t, q_empty, do_empty, b, hk, hv, key0, scale, dq_smem, dka_out, dkb_out, dvo_out,
                       CID: gl.constexpr):
        """``_block_out`` by the bulk-copy engine (the persistent form's): its last dK product waited for,
        the block's last stage released, then its dK columns (scaled) and, for consumer 1, dV staged as 16 bits in
        this consumer's dQ staging buffer (free once the block's last reduce has read it) and stored through the
        launcher's descriptors of dK's two column chunks and of dV, which stop at S_kv rows. Consumer 0's dK
        ([64, 128], 16 KB) takes half its 32 KB; consumer 1's 16 KB holds its dV ([64, 128]), then its dK ([64, 64])
        once the first copy has read it. Nobody waits for these copies but the next reduce from the buffer (``_tile``'s
        ``tma.store_wait``). Pointer stores here (``_block_out``) held the consumers ~8 us a block: a timing probe
        without them was 11% faster (2026-12-04, H200, docs/data/h200-2026-12-04d/run3)."""
        NST: gl.constexpr = q_empty.type.shape[0]
        out_t: gl.constexpr = dka_out.dtype
        dk = warpgroup_mma_wait(0, deps=(dk,))
        last = last_t % NST
        mbarrier.arrive(q_empty.index(last), count=1)
        mbarrier.arrive(do_empty.index(last), count=1)
        tma.store_wait(0)  # the block's last dQ reduce has read the staging buffer
        if CID == 1:
            v_buf = _reinterpret(dq_smem, out_t, [KEYS, D_V], gl.NVMMASharedLayout.get_default_for([KEYS, D_V], out_t))
            v_buf.store(dv.to(out_t))
            fence_async_shared()
            _tma_store(dvo_out, [b % dvo_out.shape[0], hv % dvo_out.shape[1], key0, 0], as_box(v_buf, dvo_out))
            tma.store_wait(0)  # dV's copy has read the buffer
            kb_buf = _reinterpret(dq_smem, out_t, [KEYS, D_QK - COLS0],
                                  gl.NVMMASharedLayout.get_default_for([KEYS, D_QK - COLS0], out_t))
            kb_buf.store((dk * scale).to(out_t))
            fence_async_shared()
            _tma_store(dkb_out, [b % dkb_out.shape[0], hk % dkb_out.shape[1], key0, COLS0], as_box(kb_buf, dkb_out))
        else:
            ka_buf = _reinterpret(dq_smem, out_t, [KEYS, COLS0], gl.NVMMASharedLayout.get_default_for([KEYS, COLS0],
                                                                                                       out_t))
            ka_buf.store((dk * scale).to(out_t))
            fence_async_shared()
            _tma_store(dka_out, [b % dka_out.shape[0], hk % dka_out.shape[1], key0, 0], as_box(ka_buf, dka_out))

    @gluon.jit
    def _consumer(q_smem, qb_smem, do_smem, k_smem, kb_smem, v_smem, p_smem, ds_smem, dq_smem, dq_desc, kv_bar,
                  q_ready, do_ready, q_empty, do_empty, p_full, ds_full, lse_smem, dlt_smem, dq_row0, key0, i_start,
                  n_tiles, S_q, S_kv, qk_scale_log2, scale, causal, dk_base, dk_ss, dk_sd, dv_base, dv_ss, dv_sd):
        """Consumer ``CID``'s query tiles (the diagonal's, masked under ``causal``, peeled), then its dK columns
        (scaled) and, for consumer 1, dV (``_store_rows``). ``CID``: read off the dQ staging buffer, as in
        ``_tile``."""
        CID: gl.constexpr = 2 - dq_smem.type.shape[-1] // 64
        NQ: gl.constexpr = COLS0 - CID * (2 * COLS0 - D_QK)
        C0: gl.constexpr = CID * COLS0
        NV: gl.constexpr = 16 + CID * (D_V - 16)  # consumer 0 carries a token dV it never uses
        dk = gl.zeros([KEYS, NQ], gl.float32, wgmma_layout(NQ))
        dv = gl.zeros([KEYS, NV], gl.float32, wgmma_layout(NV))
        _gdc_wait()  # before this consumer's first reduce into the accumulator ODO may have zeroed
        mbarrier.wait(kv_bar, 0)
        dk, dv = _tile(0, i_start, key0, q_smem, qb_smem, do_smem, k_smem, kb_smem, v_smem, p_smem, ds_smem,
                       dq_smem, dq_desc, q_ready, do_ready, q_empty, do_empty, p_full, ds_full, lse_smem, dlt_smem,
                       dq_row0, S_q, qk_scale_log2, dk, dv, causal != 0)
        for t in range(1, n_tiles):
            dk, dv = _tile(t, i_start + t, key0, q_smem, qb_smem, do_smem, k_smem, kb_smem, v_smem, p_smem,
                           ds_smem, dq_smem, dq_desc, q_ready, do_ready, q_empty, do_empty, p_full, ds_full,
                           lse_smem, dlt_smem, dq_row0, S_q, qk_scale_log2, dk, dv, False)
        _block_out(dk, dv, n_tiles - 1, q_empty, do_empty, key0, S_kv, scale, dk_base, dk_ss, dk_sd, dv_base, dv_ss,
                   dv_sd, CID, C0)
        tma.store_wait(0)

    @gluon.jit
    def _block_coords(pid_n, bh, H, G_k, G_v, S_q, causal):
        """(b, h, K head, V head, first key, first query tile, tiles) of key block ``pid_n`` of batch-and-head
        ``bh``: under ``causal`` the block starts at its diagonal tile."""
        b = bh // H
        h = bh % H
        key0 = pid_n * KEYS
        i_start = key0 // ROWS * causal
        return b, h, h // G_k, h // G_v, key0, i_start, gl.cdiv(S_q, ROWS) - i_start

    @gluon.jit
    def _claim(ctr_ptr):
        """The persistent form's next unclaimed block: lane 0 of the loader's warp adds one to the zeroed counter at
        ``ctr_ptr`` and every lane takes the count before the add (the grid's own first blocks are not counted)."""
        return gl.inline_asm_elementwise(
            "{ .reg .pred p; .reg .u32 l; mov.u32 l, %laneid; setp.eq.u32 p, l, 0; "
            "@p atom.global.add.u32 $0, [$1], 1; shfl.sync.idx.b32 $0, $0, 0, 31, -1; }",
            "=r,l", [ctr_ptr], dtype=gl.int32, is_pure=False, pack=1)

    @gluon.jit
    def _put_item(item_smem, item):
        """The loader's warp writes the block it is loading into ``item_smem`` for the consumers, before the
        arrival on ``kv_bar`` that releases it to them."""
        item_smem.store(gl.full([1], item, gl.int32, gl.BlockedLayout([1], [32], [1], [0])))
        _thread_barrier()

    @gluon.jit
    def _get_item(item_smem):
        """A consumer's read of the block in ``item_smem`` (after its wait on ``kv_bar``)."""
        return gl.max(item_smem.load(gl.BlockedLayout([1], [32], [4], [0])), axis=0)

    @gluon.jit
    def _loader_persist(q_desc, qb_desc, do_desc, k_desc, kb_desc, v_desc, k_smem, kb_smem, v_smem, q_smem, qb_smem,
                        do_smem, kv_bar, kv_empty, item_smem, q_ready, do_ready, q_empty, do_empty, lse_desc, dlt_desc,
                        lse_smem, dlt_smem, ctr_ptr, n_items, n_blocks, head_group, H, G_k, G_v, S_q, S_side, causal,
                        down):
        """The persistent form's loader: this program's blocks, the grid's first ``gl.num_programs(0)`` in the start
        order, then the next unclaimed one (``_claim``, once a block's tiles are all loaded) until ``n_items``
        (``program_tile_at`` over ``n_blocks`` key blocks a head in groups of ``head_group`` heads, costliest
        first). A block's K and V are loaded once
        both consumers are done with the last block's (``kv_empty``), its number written for them (``_put_item``)
        and released with K and V (``kv_bar``); its Q and dO tiles go on through the same stages (``down``: 0, see
        ``stream_q_do``). Past the last block, the count ``n_items`` tells the consumers
        to stop."""
        n_bh = n_items // n_blocks
        item = gl.program_id(0)
        k = 0
        t0 = 0
        while item < n_items:
            pid_n, bh = program_tile_at(item, n_blocks, n_bh, head_group, False)
            b, h, hk, hv, key0, i_start, n_tiles = _block_coords(pid_n, bh, H, G_k, G_v, S_q, causal)
            if k > 0:
                mbarrier.wait(kv_empty, (k - 1) & 1)
            _put_item(item_smem, item)
            _load_kv(k_desc, kb_desc, v_desc, b, hk, hv, key0, k_smem, kb_smem, v_smem, kv_bar)
            if k == 0:
                _gdc_wait()  # ODO's lse2 and delta (and, where it zeroes it, the dQ accumulator) are written
            stream_q_do(q_desc, qb_desc, do_desc, b % q_desc.shape[0], h % q_desc.shape[1], b % do_desc.shape[0],
                        h % do_desc.shape[1], i_start * ROWS, n_tiles, q_smem, qb_smem, do_smem, q_ready, do_ready,
                        q_empty, do_empty, lse_desc, dlt_desc, bh * S_side, lse_smem, dlt_smem, t0, down)
            t0 += n_tiles
            k += 1
            # claimed once this block's last tile is loaded (its consumers two tiles from its end), not earlier: the
            # program that frees up first takes the next block, as the hardware hands out programs
            item = gl.num_programs(0) + _claim(ctr_ptr)
        _gdc_launch_dependents()  # every block claimed: DQ_CONVERT's programs may start
        mbarrier.wait(kv_empty, (k - 1) & 1)
        _put_item(item_smem, n_items)
        mbarrier.arrive(kv_bar, count=1)

    @gluon.jit
    def _consumer_persist(q_smem, qb_smem, do_smem, k_smem, kb_smem, v_smem, p_smem, ds_smem, dq_smem, dq_desc, kv_bar,
                          kv_empty, item_smem, q_ready, do_ready, q_empty, do_empty, p_full, ds_full, lse_smem,
                          dlt_smem, n_items, n_blocks, head_group, H, G_k, G_v, S_q, S_kv, qk_scale_log2, scale,
                          causal, dk_ptr, dk_sb, dk_sh, dk_ss, dk_sd, dv_ptr, dv_sb, dv_sh, dv_ss, dv_sd, dka_out,
                          dkb_out, dvo_out, form_smem):
        """The persistent form's consumer ``CID``: ``_consumer``'s work for each block the loader hands over
        (``_get_item`` after ``kv_bar``), its tiles counted on through the stages and the P / dS buffers; after a
        block's last products it frees K and V (``kv_empty``), then stores its dK (and dV) while the next block's
        K and V come in: by pointer stores (``_block_out``), or, given the launcher's descriptors ``dka_out``,
        ``dkb_out``, ``dvo_out``, by the bulk-copy engine (``_block_out_tma``). ``form_smem`` says the form (a
        partition takes no constexpr): four int32s, deterministic mode's split form (``NO_DQ``: dK and dV only); one,
        the default."""
        CID: gl.constexpr = 2 - dq_smem.type.shape[-1] // 64
        NQ: gl.constexpr = COLS0 - CID * (2 * COLS0 - D_QK)
        C0: gl.constexpr = CID * COLS0
        NV: gl.constexpr = 16 + CID * (D_V - 16)  # consumer 0 carries a token dV it never uses
        # dK and dV by the bulk-copy engine (``_block_out_tma``): the launcher's descriptors, else stand-ins whose
        # blocks are 128 columns wide where dK's second chunk's are 64
        TMA_OUT: gl.constexpr = dkb_out.block_type.shape[3] == D_QK - COLS0
        NO_DQ: gl.constexpr = form_smem.type.shape[0] == 4  # deterministic mode's split form: dK and dV only
        n_bh = n_items // n_blocks
        _gdc_wait()  # before this consumer's first reduce into the accumulator ODO may have zeroed
        mbarrier.wait(kv_bar, 0)
        item = _get_item(item_smem)
        k = 0
        t0 = 0
        while item < n_items:
            pid_n, bh = program_tile_at(item, n_blocks, n_bh, head_group, False)
            b, h, hk, hv, key0, i_start, n_tiles = _block_coords(pid_n, bh, H, G_k, G_v, S_q, causal)
            dk = gl.zeros([KEYS, NQ], gl.float32, wgmma_layout(NQ))
            dv = gl.zeros([KEYS, NV], gl.float32, wgmma_layout(NV))
            dk, dv = _tile(t0, i_start, key0, q_smem, qb_smem, do_smem, k_smem, kb_smem, v_smem, p_smem, ds_smem,
                           dq_smem, dq_desc, q_ready, do_ready, q_empty, do_empty, p_full, ds_full, lse_smem,
                           dlt_smem, bh * S_q, S_q, qk_scale_log2, dk, dv, causal != 0, t0, NO_DQ=NO_DQ)
            for t in range(t0 + 1, t0 + n_tiles):
                dk, dv = _tile(t, i_start + t - t0, key0, q_smem, qb_smem, do_smem, k_smem, kb_smem, v_smem,
                               p_smem, ds_smem, dq_smem, dq_desc, q_ready, do_ready, q_empty, do_empty, p_full,
                               ds_full, lse_smem, dlt_smem, bh * S_q, S_q, qk_scale_log2, dk, dv, False, t0,
                               NO_DQ=NO_DQ)
            mbarrier.arrive(kv_empty, count=1)  # the block's products that read K and V are done
            if TMA_OUT:
                _block_out_tma(dk, dv, t0 + n_tiles - 1, q_empty, do_empty, b, hk, hv, key0, scale, dq_smem,
                               dka_out, dkb_out, dvo_out, CID)
            else:
                _block_out(dk, dv, t0 + n_tiles - 1, q_empty, do_empty, key0, S_kv, scale,
                           dk_ptr + b.to(gl.int64) * dk_sb + hk.to(gl.int64) * dk_sh, dk_ss, dk_sd,
                           dv_ptr + b.to(gl.int64) * dv_sb + hv.to(gl.int64) * dv_sh, dv_ss, dv_sd, CID, C0)
            t0 += n_tiles
            k += 1
            mbarrier.wait(kv_bar, k & 1)
            item = _get_item(item_smem)
        tma.store_wait(0)

    @gluon.jit(do_not_specialize=["H", "G_k", "G_v", "S_q", "S_kv", "S_side", "causal", "n_bh"])
    def attention_bwd_gluon_192_kernel(q_desc, qb_desc, k_desc, kb_desc, v_desc, do_desc, dq0_desc, dq1_desc,
                                       lse_desc, dlt_desc, dk_ptr, dv_ptr, dk_sb, dk_sh, dk_ss, dk_sd, dv_sb, dv_sh,
                                       dv_ss, dv_sd, H, G_k, G_v, S_q, S_kv, S_side, qk_scale_log2, scale, causal,
                                       ctr_ptr, n_bh, dqa_ptr, dqo_ptr, dqo_sb, dqo_sh, dqo_ss, dka_out, dkb_out,
                                       dvo_out, HEAD_GROUP: gl.constexpr, PERSIST: gl.constexpr = False,
                                       STAGES: gl.constexpr = 2, NO_DQ: gl.constexpr = False):
        """Grid (cdiv(S_kv, 64), B H_q): a program per (batch, query head, 64-key block), in ``program_tile``'s
        start order (``HEAD_GROUP``: the causal mask's groups, costliest key block first). Query head h reads K
        head h // ``G_k`` and V head h // ``G_v``; dK and dV (from ``dk_ptr`` / ``dv_ptr``, each through its four
        strides) are that K's and V's (fp32 accumulators where heads are shared). ``dq0_desc`` / ``dq1_desc``: the
        zeroed fp32 accumulator (B H_q S_q, 192) in [64, 128] and [64, 64] blocks; ``lse_desc`` / ``dlt_desc``: the
        side buffers, ``S_side`` rows a head. ``PERSIST``: a grid of (at most one program an SM, 1)
        whose programs take the same blocks in the same order one after another (``_loader_persist``), the next
        claimed through the zeroed int32 counter at ``ctr_ptr``; ``n_bh``: B H_q. ``dqa_ptr``, ``dqo_ptr`` and
        ``dqo_sb`` / ``dqo_sh`` / ``dqo_ss`` are not read: the arguments of dQ's conversion inside the pass (removed
        2026-12-06), kept so that the launch and the compiled code stay the same. ``dka_out`` / ``dkb_out`` /
        ``dvo_out`` (persistent form only): the launcher's descriptors of dK's two column chunks ([64, 128] and [64, 64]
        blocks) and of dV, which the consumers store a block's dK and dV through (``_block_out_tma``); else stand-ins
        with 128-column blocks (Q's), not read, and ``dk_ptr`` / ``dv_ptr`` take pointer stores. ``NO_DQ``
        (deterministic mode's split form, persistent form only): dK and dV only, no dQ product and no reduce; the
        launcher runs the Triton kernels' dQ pass after it."""
        gl.static_assert(q_desc.block_type.shape[3] == COLS0, "Q's first chunk: 128 columns")
        gl.static_assert(qb_desc.block_type.shape[3] == D_QK - COLS0, "Q's second chunk: 64 columns")
        gl.static_assert(PERSIST or not NO_DQ, "the split form is the persistent form's")
        gl.static_assert((STAGES == 2) or (STAGES == 3), "two Q / dO stages, or three")
        NB: gl.constexpr = 2 if STAGES == 2 else 1  # P / dS buffers (three stages take the second's bytes)
        dt: gl.constexpr = q_desc.dtype
        q_layout: gl.constexpr = gl.NVMMASharedLayout.get_default_for([ROWS, COLS0], dt)
        qb_layout: gl.constexpr = gl.NVMMASharedLayout.get_default_for([ROWS, D_QK - COLS0], dt)
        do_layout: gl.constexpr = gl.NVMMASharedLayout.get_default_for([ROWS, D_V], dt)
        pd_layout: gl.constexpr = gl.NVMMASharedLayout.get_default_for([ROWS, KEYS], dt)  # P and dS
        q_smem = gl.allocate_shared_memory(dt, [STAGES, ROWS, COLS0], q_layout)
        qb_smem = gl.allocate_shared_memory(dt, [STAGES, ROWS, D_QK - COLS0], qb_layout)
        do_smem = gl.allocate_shared_memory(dt, [STAGES, ROWS, D_V], do_layout)
        k_smem = gl.allocate_shared_memory(dt, [KEYS, COLS0], gl.NVMMASharedLayout.get_default_for([KEYS, COLS0], dt))
        kb_smem = gl.allocate_shared_memory(dt, [KEYS, D_QK - COLS0],
                                            gl.NVMMASharedLayout.get_default_for([KEYS, D_QK - COLS0], dt))
        v_smem = gl.allocate_shared_memory(dt, [KEYS, D_V], gl.NVMMASharedLayout.get_default_for([KEYS, D_V], dt))
        p_smem = gl.allocate_shared_memory(dt, [NB, ROWS, KEYS], pd_layout)
        ds_smem = gl.allocate_shared_memory(dt, [NB, ROWS, KEYS], pd_layout)
        dq0_smem = gl.allocate_shared_memory(gl.float32, [ROWS, COLS0],
                                             gl.NVMMASharedLayout.get_default_for([ROWS, COLS0], gl.float32))
        dq1_smem = gl.allocate_shared_memory(gl.float32, [ROWS, D_QK - COLS0],
                                             gl.NVMMASharedLayout.get_default_for([ROWS, D_QK - COLS0], gl.float32))
        kv_bar, q_ready, do_ready, q_empty, do_empty = stage_barriers(STAGES)
        p_full = gl.allocate_shared_memory(gl.int64, [NB, 1], mbarrier.MBarrierLayout())
        ds_full = gl.allocate_shared_memory(gl.int64, [NB, 1], mbarrier.MBarrierLayout())
        for j in gl.static_range(NB):
            mbarrier.init(p_full.index(j), count=1)
            mbarrier.init(ds_full.index(j), count=1)
        side_layout: gl.constexpr = gl.NVMMASharedLayout(swizzle_byte_width=0, element_bitwidth=32, rank=1)
        lse_smem = gl.allocate_shared_memory(gl.float32, [STAGES, ROWS], side_layout)
        dlt_smem = gl.allocate_shared_memory(gl.float32, [STAGES, ROWS], side_layout)
        common = (q_smem, qb_smem, do_smem, k_smem, kb_smem, v_smem, p_smem, ds_smem)
        if PERSIST:
            kv_empty = gl.allocate_shared_memory(gl.int64, [1], mbarrier.MBarrierLayout())
            mbarrier.init(kv_empty, count=2)  # both consumers done with a block's K and V
            item_smem = gl.allocate_shared_memory(gl.int32, [1], gl.SwizzledSharedLayout(1, 1, 1, [0]))
            n_blocks = gl.cdiv(S_kv, KEYS)
            n_items = n_blocks * n_bh
            tail = (kv_bar, kv_empty, item_smem, q_ready, do_ready, q_empty, do_empty, p_full, ds_full, lse_smem,
                    dlt_smem, n_items, n_blocks, HEAD_GROUP, H, G_k, G_v, S_q, S_kv, qk_scale_log2, scale, causal,
                    dk_ptr, dk_sb, dk_sh, dk_ss, dk_sd, dv_ptr, dv_sb, dv_sh, dv_ss, dv_sd, dka_out, dkb_out, dvo_out)
            loader = (q_desc, qb_desc, do_desc, k_desc, kb_desc, v_desc, k_smem, kb_smem, v_smem, q_smem, qb_smem,
                      do_smem, kv_bar, kv_empty, item_smem, q_ready, do_ready, q_empty, do_empty, lse_desc, dlt_desc,
                      lse_smem, dlt_smem, ctr_ptr, n_items, n_blocks, HEAD_GROUP, H, G_k, G_v, S_q, S_side, causal, 0)
            if NO_DQ:  # a stand-in of four elements for the note, which says "the split form: no dQ"
                nodq = gl.allocate_shared_memory(gl.int32, [4], gl.SwizzledSharedLayout(1, 1, 1, [0]))
                gl.warp_specialize([(_consumer_persist, common + (dq0_smem, dq0_desc) + tail + (nodq,)),
                                    (_consumer_persist, common + (dq1_smem, dq1_desc) + tail + (nodq,)),
                                    (_loader_persist, loader)],
                                   [4, 1], [240, 24])
            else:  # a stand-in of one element, which says "not the split form"
                gl.warp_specialize([(_consumer_persist, common + (dq0_smem, dq0_desc) + tail + (item_smem,)),
                                    (_consumer_persist, common + (dq1_smem, dq1_desc) + tail + (item_smem,)),
                                    (_loader_persist, loader)],
                                   [4, 1], [240, 24])
            return
        pid_n, bh = program_tile(HEAD_GROUP, False)
        b, h, hk, hv, key0, i_start, n_tiles = _block_coords(pid_n, bh, H, G_k, G_v, S_q, causal)
        dk_base = dk_ptr + b.to(gl.int64) * dk_sb + hk.to(gl.int64) * dk_sh
        dv_base = dv_ptr + b.to(gl.int64) * dv_sb + hv.to(gl.int64) * dv_sh
        tail = (kv_bar, q_ready, do_ready, q_empty, do_empty, p_full, ds_full, lse_smem, dlt_smem, bh * S_q, key0,
                i_start, n_tiles, S_q, S_kv, qk_scale_log2, scale, causal, dk_base, dk_ss, dk_sd, dv_base, dv_ss,
                dv_sd)
        loader = (q_desc, qb_desc, do_desc, k_desc, kb_desc, v_desc, b, h, hk, hv, key0, i_start * ROWS, n_tiles,
                  k_smem, kb_smem, v_smem, q_smem, qb_smem, do_smem, kv_bar, q_ready, do_ready, q_empty, do_empty,
                  lse_desc, dlt_desc, bh * S_side, lse_smem, dlt_smem)
        gl.warp_specialize([(_consumer, common + (dq0_smem, dq0_desc) + tail),
                            (_consumer, common + (dq1_smem, dq1_desc) + tail), (_loader, loader)], [4, 1], [240, 24])
