"""The backward on Hopper in Gluon: dK, dV and dQ in one pass, FlashAttention-3's schedule, for 16-bit Q, K,
V, dO of head dim 128 or 64 read through TMA (the launcher takes both with and without the causal mask; hd64
under it since it measured faster there than the Triton kernels, 2026-12-02, H200, docs/data/h200-2026-12-02d).

Launch code and the rule for when it runs are in ``sdpa_bwd.engine.launch`` (``gluon_backward_reasons``); the Triton
kernels in ``attention_bwd`` do every other problem and everything under CI's interpreter (Gluon has none).
The launcher's ODO kernel runs first (delta = rowsum(dO O) and the stats in log2 units, ``lse2``) and its
DQ_CONVERT after (the fp32 accumulator, scaled, into dQ through dQ's strides). One program owns 128 keys of
one (batch, query head) and runs over its query tiles, reading the K and V heads that query head uses:

- a loader partition (1 warp), through TMA descriptors the launcher made on the host (any layout whose head-dim
  stride is 1 and whose rows and bases are 16-byte aligned; made on the device they cost each program ~4 us of global
  round trips, 2026-12-02, H200), loads the program's K and V once and streams Q and dO tiles of ``ROWS`` query rows
  (64; 128 at hd64, ``QUERY_ROWS``) through two stages ("ready" mbarriers with TMA byte counts, "empty" ones both
  consumers arrive on), each tile's lse2 rows beside its Q rows and its delta rows beside its dO rows (one-dimensional
  boxes of the side buffers, whose heads the launcher pads to a multiple of 4 rows: such a box must start on 16 bytes);
- two consumer partitions (4 warps each) own 64 keys each. Per query tile: S = Q K^T and dP = dO V^T issued
  back to back; S waited for with dP in flight, P = exp2(S scale log2e - lse2) computed under dP and stored
  to shared memory, dS = P (dP - delta) beside it; dV += P^T dO issued; once both consumers' dS are stored
  (an mbarrier, ``ds_full``), this consumer's half of the tile's dQ over all 128 keys of the program (its
  ``dq_block``: 64 columns over all rows at 64-row tiles, 64 rows over all columns at 128-row ones) issued as
  two products (dS of each consumer, or its row half, times its K block or the block's column slice), then
  dK += dS^T Q. dQ is waited for
  with dK in flight, staged in the consumer's buffer and added into the packed fp32 accumulator by a TMA
  bulk reduce that nobody waits for until the buffer is written again a tile later. dK and dV stay in
  registers to the end. Then, staged through the Q and dO stage buffers (free once both consumers are past
  their last tile), they leave by the bulk-copy engine (``_consumer_tma``): stored as 16 bits where dK and dV
  are TMA-addressable, or, where K or V heads are shared (GQA, MQA), added into zeroed fp32 accumulators by
  two more bulk reduces a consumer, which the launcher converts into dK and dV. Outputs the bulk-copy engine
  cannot address take pointer stores through both strides (``_consumer``). The kernel-level constexpr
  ``TMA_EPILOGUE`` picks the consumer, and the store or the reduce is read off dK's pointer type (fp32: the
  accumulators), so the loop (``_main_loop``) is one code for all three.

At head dim 64, K's shared layout swizzles over 64 B (half a row, ``half_row_swizzled``) so that each
consumer's dQ column half of a K block, the B operand of its dQ product, starts on a swizzle atom, as the
128-B swizzle puts it at hd128; and a query tile holds 128 rows (FlashAttention-3's hd64 tile: each product's
M or K twice as long for the same per-tile handshakes and waits; 232,064 B of shared memory, ptxas spills).
There each consumer takes the tile's dQ by row halves (``launch.GLUON_BWD_DQ_ROWS``): two 64 x 64 x 64
products from its row half of each consumer's dS, where column halves were two 128 x 32 x 64 ones from all of both,
so the products run at N = 64 and read a third less shared memory (48 to 32 KB a tile); the kernel took 0.91-0.93 of
its time for it at hd64 (0.95-0.99 at (4,16,2048) causal; 2026-12-03, H200, docs/data/h200-2026-12-03h/run1).
dS's [128, 64] tiles are seen as [64, 64] row halves for it (the same bytes: the swizzle repeats every 8 rows), and
the staged [64, 64] fp32 part leaves by one bulk reduce that Triton issues as two 128-B-wide boxes, one from each of
two warps.
Programs start head by head, or under the causal mask in groups of ``HEAD_GROUP`` heads, costliest key block
first (``attention_fwd_gluon.program_tile``).

Tails need no mask: rows of Q and dO past S_q and keys past S_kv come in as TMA's zero fill, and lse2 past
S_q is taken as +inf (the rows the loader brought there are padding or the next head's), so those rows' P is
0; a key past S_kv has K and V rows of zero, so it adds nothing to dQ and its own dK, dV rows are not stored.
The causal mask (the diagonal at 0, queries up to S_q >= S_kv) is applied in the first two query tiles of each
head only, peeled out of the loop. Causal problems with S_q < S_kv reach it as parts of their keys (K, V and the
dK, dV destinations narrowed to them: ``planner.causal_key_ranges``): the causal square, and the prefix every row
keeps as a call without the mask; the key bounds above are then the part's. A query tile past S_q (a program's last
128 keys may need just one real tile)
adds exact zeros.

By default the accumulators' sums (dQ's, and GQA's dK and dV) come in in no fixed order. ``DETERMINISTIC``
(FlashAttention-3's deterministic mode, for heads with K and V of their own: their dK and dV are stored, not
summed across programs; the launcher keeps deterministic GQA on the Triton kernels, whose dK and dV reduces
would need an order too) fixes the order of dQ's: bitwise the same dQ from run to run, at 1.00-1.07x the default's
time at hd128 and 1.06-1.16x at hd64 (2026-12-02, H200, docs/data/h200-2026-12-02f/run3, ``tools/det_perf.py``).

- Counters: one zeroed int32 per (head, query tile, consumer), so each consumer's half of the tile (column or
  row half, ``dq_block``) keeps its own order and the two consumers need no handshake.
- Who: a dQ writer a consumer (``_dq_writer``, one warp each: FlashAttention-3's dQ warp). The consumer stages
  its dQ columns and tells its writer (an mbarrier), and waits only for the buffer to be read before staging the
  next tile; the writer waits for the turn (an acquire spin, then a generic-to-async proxy fence), for the staged
  tile, issues the bulk reduce, gives the buffer back once read, waits until the reduce is written
  (``cp.async.bulk.wait_group 0``; Triton 3.6's ``tma.store_wait`` waits only for the read) and passes the turn
  on (a release add). The first form (2026-12-02, H200), where the consumer spun for the turn and passed it on
  only at its next tile, ran 1.29-1.57x the default.
- Order: ascending key blocks for every query tile. The tiles run from the last down in this mode, so every
  program of a head reaches a tile the same number of tiles after its start, under the causal mask too (the
  diagonal's two tiles, masked, come last; a program of fewer than three tiles is given past-S_q ones, which add
  exact zeros, so that the first tile is peeled and the loop's dK accumulator comes from a product: carried in
  from zeros, ptxas serialised the loop's every wgmma, C7515, 18% slower). Programs start in head groups
  (``HEAD_GROUP``, the launcher's 8) with or without the mask, key block by key block across the group, so few
  programs of one head start together and wait on each other's turns. Under the causal mask (``DET_UP``, where
  ``launch.GLUON_BWD_DET_UP`` names the head dim) the tiles run up from the diagonal's instead, as by default, each
  tile's turns in descending key blocks and the programs started highest key block first: block n reaches a tile a tile
  or two of its life after block n + 1 did, so its turn has come already, where the walk down queues a head's blocks at
  every tile.
- Deadlock freedom: a program waits only for programs of its own head with lower key blocks (higher ones under
  ``DET_UP``), which the start order puts at lower linear program indices. The hardware starts a grid's programs
  in linear order of their index (x fastest; not promised by CUDA, relied on by FlashAttention-3 too), so each
  program only waits for programs started before it, resident or finished: the earliest unfinished one waits
  for nobody and finishes, and so on, whatever the number of resident programs (a grid of many waves, or SMs
  taken by other work).

Registers are the limit. The consumers hold dV and dK (64 registers each), S and dP (32 each) and half of dQ
(32) at 240 registers: Triton 3.6's ptxas spills 64 / 84 B (stores / loads) with the TMA epilogue, 68 / 80
with GQA's, 164 / 168 with pointer stores (their dK, dV strides live over the loop); at hd64 none with 64-row
tiles and 244 / 360 with 128-row ones. Deterministic mode's form (the first tile peeled, two after the loop)
takes hd128 to 356 / 360, none of it reloaded in the loop. (100 / 144 and 372 / 552 at hd128 and hd64 when the
consumers loaded each tile's lse2 and delta from global memory, before 2026-12-02.) The TMA
epilogue made the hd128 backward 5-6% faster than the pointer stores (2026-12-02, H200,
docs/data/h200-2026-12-02b/run1). A loop over a GQA group's query heads inside one program, with each head's two
diagonal tiles peeled, spilled 752 B, one mask compare in every tile 464 B: hence GQA's partials reduced across the
group's programs instead (0.90-0.99 of cuDNN, 2026-12-02, H200). Without the mask that loop is ``HEAD_LOOP``: only
the first head's first two tiles are peeled (each head has at least two), the tile and its head's first dQ row
are carried over the loop (dividing by the tiles a head every tile cost the kernel 2%), and it compiles to the
plain form's spills (hd128 TMA epilogue 8 / 13 B, one reload in the loop). Measured at parity with the
accumulators' form (kernel 0.996x, call 1.003x over seven GQA 32/8 rows, 2026-12-03, H200,
docs/data/h200-2026-12-03a/run3); its switch was removed on 2026-12-06 and the launcher passes ``HEAD_LOOP`` False.
Its branches stay in this kernel: without them (and their arguments to the partitions) Triton 3.6 lays out the default
form's shared memory 128 B smaller (every mbarrier's offset moves), so the default code would not be the same.

Measured (2026-12-02, H200, docs/data/h200-2026-12-02b/run2, ``bench_backward.py --peers cudnn --no-split``, the whole
backward with ODO, the accumulators' zeroing and the conversions): 0.90-0.99 of cuDNN's time on the hd128
rows with a K/V head a query head (e.g. (1,16,8192,128) bf16 BHSD 0.975 non-causal, 0.966 causal), and
0.91-1.07 on GQA 32/8 at 8192. Later the same day (docs/data/h200-2026-12-02c): the grouped causal start order took
the causal hd128 rows to 1.00-1.02 of cuDNN (run4/ there); at hd64 the 128-row tile runs (4,16,2048,64) bf16 in
0.505-0.516 ms against the Triton kernels' 0.527-0.537 and 64-row tiles' 0.536 (cuDNN 0.426; run1/). What bounds
hd64 (ncu, run2/): a third of the stall cycles on local-memory reloads (the spills), a third at the partition barriers;
0.26 eligible warps a scheduler.
"""

from __future__ import annotations

from .attention_fwd_gluon import AVAILABLE

if AVAILABLE:  # the Gluon names the forward imported (and its shims for Triton 3.6 and 3.9)
    from triton._C.libtriton import ir
    from triton.experimental.gluon.language import _core

    from .attention_fwd_gluon import (
        _tma_load,
        _tma_store,
        as_box,
        fence_async_shared,
        gl,
        gluon,
        mbarrier,
        program_tile,
        same_swizzle,
        stage_barriers,
        tma,
        warpgroup_mma,
        warpgroup_mma_wait,
        wgmma_layout,
    )

    # a barrier of the partition's threads: thread_barrier in Triton 3.6, barrier in 3.9
    _thread_barrier = getattr(gl, "thread_barrier", None) or gl.barrier

HEAD_DIMS = (64, 128)  # D_qk = D_v: the accumulators' registers and the shared buffers are sized for these
# Query rows a streamed tile may hold, by head dim (the launcher picks one, ``launch.GLUON_BWD_HD64_ROWS``): at hd128 the
# buffers of a 128-row tile would not fit in shared memory
QUERY_ROWS = {64: (64, 128), 128: (64,)}
KEYS_PER_CONSUMER = 64  # a program owns two such blocks, 128 keys
STAGES = 2
MAX_REGS = 168  # the kernel's budget before the partitions resize theirs
# Phase stamps a program writes where the kernel's ``stamp_ptr`` is int64 (``tools/phase_stamps.py``): global timer
# values (ns) at the loader's start (0), its K and V loads issued (1), the first tile's four loads issued (2), its
# last load issued (3); per consumer c at 4 + 4c on: its start, K and V in, its first tile done, its last product
# done; its epilogue done at 12 + c; the SM at 14, the program's start at 15.
STAMP_SLOTS = 16


def kernel_head_dim(d: int):
    """The head dim of the kernel that runs D_qk = D_v = ``d``: ``d`` itself where the buffers are sized for it, else
    the next larger of ``HEAD_DIMS`` (None past the largest). A head dim below the kernel's is run as the kernel's:
    the descriptors give the tensors' true width, so the bulk copies fill the columns past it with zeros on the way
    in (they add nothing to S, dP or the products' sums) and drop them on the way out (dQ's reduces, dK's and dV's
    stores), with no copy of any tensor; the padded columns cost their share of the products."""
    return next((k for k in HEAD_DIMS if k >= d), None)


def dq_block(D: int, rows: int, by_rows: bool) -> list:
    """[rows, columns] of one consumer's part of a query tile's dQ, the block of the launcher's descriptor of the fp32
    accumulator (which the kernel reads the split off): ``by_rows``, the tile's row half over all D columns (the
    default since 2026-12-03; only where the half is a product's 64 rows or more, a 128-row tile), else its column half
    over all rows. Each part sums both consumers' dS over the program's 128 keys; split by rows, its two products are
    64 x D x 64 (N = 64 at hd64) and read half of each dS tile, where by columns they are 128 x 32 x 64 and read all
    of both."""
    if by_rows:
        if rows // 2 < 64:
            raise ValueError(f"a dQ row half of a {rows}-row tile is {rows // 2} rows, under a product's 64: split "
                             "the tile's columns instead (by_rows=False)")
        return [rows // 2, D]
    return [rows, D // 2]


if AVAILABLE:
    KEYS = gl.constexpr(KEYS_PER_CONSUMER)
    STAGES_ = gl.constexpr(STAGES)
    STAMP_SLOTS_ = gl.constexpr(STAMP_SLOTS)

    @_core.builtin
    def _tma_reduce_add(desc, offsets, src, _semantic=None):
        """``src`` (shared memory in ``desc``'s block layout) added into ``desc``'s block at ``offsets`` by a TMA
        bulk reduce, issued and not waited for (``tma.store_wait`` before ``src`` is written again). Triton
        3.6's Gluon has the builder call but no name for it; 3.9 calls it ``tma.async_atomic_add``."""
        offsets = _semantic._convert_to_ir_values(offsets, require_i64=False)
        _semantic.builder.create_async_tma_reduce(ir.DESCRIPTOR_REDUCE_KIND.ADD, desc.handle, offsets, src.handle)

    @_core.builtin
    def _reinterpret(smem, dtype, shape, layout, _semantic=None):
        """``smem``'s bytes seen as another dtype, shape and layout: Triton 3.6 names it ``_reinterpret``, 3.9
        ``reinterpret``."""
        view = getattr(smem, "reinterpret", None) or smem._reinterpret
        return view(dtype, shape, layout, _semantic=_semantic)

    @gluon.jit
    def _bulk_wait_written():
        """Every bulk copy and reduce this thread issued has completed, its global writes made (and, by the
        implicit proxy fence at completion, visible to the generic proxy): ``cp.async.bulk.wait_group 0``.
        Triton 3.6's ``tma.store_wait`` emits the ``.read`` form, which waits only until the source buffer has
        been read. Executed by every thread (a thread with no bulk group pending passes at once)."""
        gl.inline_asm_elementwise("cp.async.bulk.wait_group 0; mov.b32 $0, 0;", "=r", [], dtype=gl.int32,
                                  is_pure=False, pack=1)

    @gluon.jit
    def _gdc_wait():
        """``griddepcontrol.wait``: where the kernel was launched as a programmatic dependent (``launch_pdl``), wait
        until the kernel before it has completed and its writes are visible; a no-op otherwise."""
        gl.inline_asm_elementwise("griddepcontrol.wait; mov.b32 $0, 0;", "=r", [], dtype=gl.int32, is_pure=False,
                                  pack=1)

    @gluon.jit
    def _gdc_launch_dependents():
        """``griddepcontrol.launch_dependents``: the next kernel, if launched as a programmatic dependent, may start
        once every program of this one has got here (it waits for this one's writes itself); a no-op otherwise."""
        gl.inline_asm_elementwise("griddepcontrol.launch_dependents; mov.b32 $0, 0;", "=r", [], dtype=gl.int32,
                                  is_pure=False, pack=1)

    @gluon.jit
    def _dq_wait_turn(counter, turn):
        """Spin until ``counter`` has reached ``turn`` (that many programs' reduces into its tile, a dQ tile half
        or, under GQA, a K or V head's key block, are written), by an acquire load of every thread, then a generic-to-async proxy fence so that the bulk
        reduce issued after it is ordered after the writes it observed. ``<`` rather than ``!=``: the counter
        never passes a waiting program's turn, and a wrong count should give wrong sums, not a hung GPU."""
        gl.inline_asm_elementwise(
            "{ .reg .pred p; .reg .b32 c; spin: ld.acquire.gpu.global.b32 c, [$1]; setp.lt.s32 p, c, $2; "
            "@p bra spin; fence.proxy.async.global; mov.b32 $0, c; }",
            "=r,l,r", [counter, turn], dtype=gl.int32, is_pure=False, pack=1)

    @gluon.jit
    def _dq_signal(counter, ok):
        """``counter`` += 1 where ``ok`` (an int, nonzero), with release semantics at GPU scope, by lane 0 of the
        (one-warp) dQ writer: called after ``_bulk_wait_written`` and a partition barrier, so the release covers the
        reduce the issuing thread saw completed (the barrier orders it before this thread's release; release is
        cumulative). ``ok`` goes into the predicate, not a branch."""
        gl.inline_asm_elementwise(
            "{ .reg .pred p, q; .reg .b32 t; mov.u32 t, %laneid; setp.eq.u32 p, t, 0; "
            "setp.ne.s32 q, $2, 0; and.pred p, p, q; @p red.release.gpu.global.add.s32 [$1], 1; mov.b32 $0, 0; }",
            "=r,l,r", [counter, ok], dtype=gl.int32, is_pure=False, pack=1)

    @gluon.jit
    def _kv_signal(counter):
        """``counter`` += 1, release at GPU scope, by thread 0 of a 128-thread consumer (``_consumer_tma``'s GQA
        epilogue in deterministic mode, after ``_bulk_wait_written`` and a partition barrier, as ``_dq_signal``)."""
        gl.inline_asm_elementwise(
            "{ .reg .pred p; .reg .b32 t; mov.u32 t, %tid.x; and.b32 t, t, 127; setp.eq.u32 p, t, 0; "
            "@p red.release.gpu.global.add.s32 [$1], 1; mov.b32 $0, 0; }",
            "=r,l", [counter], dtype=gl.int32, is_pure=False, pack=1)

    @gluon.jit
    def _dq_write(dq_smem, dq_desc, counter, turn, real, staged, free, t, row, col):
        """One query tile of a dQ writer (``_dq_writer``, ``_dq_writer_up``): the turn (the counter at ``turn``,
        or none where not ``real``), then the staged tile, its bulk reduce at (``row``, ``col``), the buffer
        given back once read, the reduce's writes waited for, the turn passed on."""
        # the turn first: its acquire load's round trip then falls under the consumer's work on the tile
        _dq_wait_turn(counter, gl.where(real, turn, -1))
        mbarrier.wait(staged, t & 1)
        _tma_reduce_add(dq_desc, [row, col], dq_smem)
        tma.store_wait(0)  # the reduce has read the buffer: the consumer may stage the next tile
        mbarrier.arrive(free, count=1)
        _bulk_wait_written()
        _thread_barrier()  # the issuing thread's wait has passed before lane 0 signals
        _dq_signal(counter, real.to(gl.int32))

    @gluon.jit
    def _dq_part(dq_smem, ROWS: gl.constexpr, cid):
        """(row, column) in a query tile of ``ROWS`` rows where consumer ``cid``'s part of its dQ (the
        [rows, columns] of ``dq_smem``, ``dq_block``) starts: a row half where the part has fewer rows than the
        tile, else a column half."""
        DQR: gl.constexpr = dq_smem.type.shape[0]
        DQC: gl.constexpr = dq_smem.type.shape[1]
        if DQR < ROWS:  # (cid * 0: a runtime zero, as the other branch's value is)
            r0 = cid * DQR
            c0 = cid * 0
        else:
            r0 = cid * 0
            c0 = cid * DQC
        return r0, c0

    @gluon.jit
    def _dq_writer(dq_smem, dq_desc, dq_sem, staged, free, side0, key0, i_last, n_tiles, S_q, side_smem):
        """Deterministic mode's dQ writer (one warp a consumer, FlashAttention-3's dQ warp): for each of the
        program's query tiles, in the consumers' order (from ``i_last`` down), it waits for the program's turn, then
        until its consumer has staged the tile's dQ columns in ``dq_smem`` (``staged``), issues the bulk
        reduce, gives the buffer back once the reduce has read it (``free``), waits until the reduce is written
        and passes the turn on (``_dq_write``). The consumer never waits for a turn, only for its buffer, and a
        turn is passed on as soon as the reduce's writes are done (a tile late when the consumer did it, before
        2026-12-02's dQ writers).

        The order: ascending key blocks for every tile (block n waits for the counter to reach n), with or without
        the causal mask: the consumers walk their query tiles from the last down, so under the
        mask every key block reaches a tile at the same time after its start, as without it, and the blocks that
        see a tile are 0 .. n_max, all below any block that sees it. Counters: one zeroed int32 per (head, query
        tile, consumer), ``dq_sem`` this consumer's first. A tile past S_q (a short program's first) adds exact
        zeros into other rows and waits for nothing (turn -1, the counter read in bounds, not bumped): x + 0 = x,
        and a sum that starts at +0 never is -0, so where those land in any order changes no bit. ``side_smem``:
        the lse2 stages ([stages, tile rows]), read for their shape only (a partition takes no constexpr)."""
        ROWS: gl.constexpr = side_smem.type.shape[1]
        cid = (key0 // KEYS) % 2
        r0, c0 = _dq_part(dq_smem, ROWS, cid)
        kb = key0 // (2 * KEYS)
        nq = gl.cdiv(S_q, ROWS)
        _gdc_wait()  # the accumulator ODO may have zeroed (``_main_loop``)
        for t in range(n_tiles):
            m = i_last - t
            _dq_write(dq_smem, dq_desc, dq_sem + cid + 2 * gl.minimum(m, nq - 1), kb, m < nq, staged, free, t,
                      side0 + m * ROWS + r0, c0)

    @gluon.jit
    def _dq_writer_up(dq_smem, dq_desc, dq_sem, staged, free, side0, key0, i_start, n_tiles, S_q, S_kv, side_smem):
        """``_dq_writer`` under the causal mask in the kernel's ``DET_UP`` order: the tiles run up from the
        diagonal's (``i_start``), as outside deterministic mode, and each tile's turns go in descending key blocks,
        the highest block that sees tile m (min((m ROWS + ROWS - 1) // 128, blocks - 1)) first. Block n then
        reaches tile m 128 / ROWS tiles of its life after block n + 1 did, so, started together, a program finds its
        turns passed already; in the walk down every block of a head reaches a tile at the same point of its life,
        and block n comes a chain of n reduces late. Deadlock-free with the start order the kernel then takes
        (highest key block first): a program waits only for higher blocks of its own head, started before it. A
        tile past S_q (a one-tile program's second) adds exact zeros and waits for nothing, as in the walk down."""
        ROWS: gl.constexpr = side_smem.type.shape[1]
        cid = (key0 // KEYS) % 2
        r0, c0 = _dq_part(dq_smem, ROWS, cid)
        kb = key0 // (2 * KEYS)
        nq = gl.cdiv(S_q, ROWS)
        top = gl.cdiv(S_kv, 2 * KEYS) - 1  # the highest key block
        _gdc_wait()  # the accumulator ODO may have zeroed (``_main_loop``)
        for t in range(n_tiles):
            m = i_start + t
            turn = gl.minimum((m * ROWS + ROWS - 1) // (2 * KEYS), top) - kb
            _dq_write(dq_smem, dq_desc, dq_sem + cid + 2 * gl.minimum(m, nq - 1), turn, m < nq, staged, free, t,
                      side0 + m * ROWS + r0, c0)

    @gluon.jit
    def _stamp(stamps, slot):
        """Phase stamps (``tools/phase_stamps.py``): where ``stamps`` is int64 (the program's ``STAMP_SLOTS``
        slots), the global timer (ns) into its ``slot``; any other pointer type compiles this away."""
        if stamps.dtype.element_ty == gl.int64:
            t = gl.inline_asm_elementwise("mov.u64 $0, %globaltimer;", "=l", [], dtype=gl.int64, is_pure=False,
                                          pack=1)
            gl.store(stamps + slot, t)

    @gluon.constexpr_function
    def half_row_swizzled(d, dtype):
        """The shared layout of a [rows, d] tile whose swizzle atom spans half a row (at most 128 B), so that either
        column half of it is a whole number of atoms: an operand the hardware can read from the half's start."""
        bits = dtype.primitive_bitwidth
        return gl.NVMMASharedLayout(swizzle_byte_width=min(128, d // 2 * bits // 8), element_bitwidth=bits, rank=2)

    @gluon.constexpr_function
    def _staging_layout(dtype, rows, d, fp32_layout):
        """The layout dK and dV are staged in, and their descriptors' (``_consumer_tma``): the fp32 staging
        buffer's own for the GQA accumulators, the default for a [rows, d] tile of 16-bit outputs."""
        return fp32_layout if dtype == gl.float32 else gl.NVMMASharedLayout.get_default_for([rows, d], dtype)

    def host_layout(kind: str, D: int, rows: int, dtype, dq_by_rows: bool = False):
        """The shared layout of the launcher's descriptor ``kind`` (``planner._plan_gluon``): the
        kernel's buffer's own, in the descriptor's rank (``as_box`` checks they agree). ``dtype``: Gluon's, of the
        tensor. "q" (Q and dO: [1, 1, rows, D] blocks of a streamed tile), "k", "v" ([1, 1, 64, D]), "out" (dK
        and dV, 16-bit or GQA's fp32 accumulators: [1, 1, 64, D]), "dq" (the fp32 accumulator: a consumer's part of
        a tile, ``dq_block(D, rows, dq_by_rows)``), "side" (lse2 and delta: [rows])."""
        if kind == "side":
            return gl.NVMMASharedLayout(swizzle_byte_width=0, element_bitwidth=32, rank=1)
        if kind == "dq":
            return gl.NVMMASharedLayout.get_default_for(dq_block(D, rows, dq_by_rows), gl.float32)
        if kind == "k":
            two = half_row_swizzled(D, dtype)
        elif kind == "out" and dtype == gl.float32:
            two = gl.NVMMASharedLayout.get_default_for([KEYS_PER_CONSUMER, D], gl.float32)
        else:
            two = gl.NVMMASharedLayout.get_default_for([rows if kind == "q" else KEYS_PER_CONSUMER, D], dtype)
        return gl.NVMMASharedLayout(swizzle_byte_width=two.swizzle_byte_width, element_bitwidth=two.element_bitwidth,
                                    rank=4)

    @gluon.jit
    def load_pairs(once_a, once_b, once_row, a_desc, b_desc, row0, n_tiles, once_a_smem, once_b_smem, a_smem, b_smem,
                   once_bar, a_ready, b_ready, a_empty, b_empty):
        """A loader's work: two tensors' rows from ``once_row`` loaded once (two blocks each, under ``once_bar``),
        then two tensors streamed a tile of rows at a time from ``row0`` through the stages. The loader partition
        of the backward probes in tools/ (which hand it host-made descriptors); this kernel's ``_loader`` has
        its own (each tile's lse2 and delta rows ride with its Q and dO rows)."""
        NST: gl.constexpr = a_smem.type.shape[0]
        ROWS: gl.constexpr = a_smem.type.shape[1]
        HALF: gl.constexpr = once_a_smem.type.shape[1]
        mbarrier.expect(once_bar, 2 * once_a.block_type.nbytes + 2 * once_b.block_type.nbytes)
        for w in gl.static_range(2):
            _tma_load(once_a, [once_row + w * HALF, 0], once_bar, once_a_smem.index(w))
            _tma_load(once_b, [once_row + w * HALF, 0], once_bar, once_b_smem.index(w))
        for t in range(n_tiles):
            s = t % NST
            phase = (t // NST) & 1
            # mbarriers start with phase 1 complete: the first STAGES waits pass at once
            mbarrier.wait(a_empty.index(s), phase ^ 1)
            mbarrier.expect(a_ready.index(s), a_desc.block_type.nbytes)
            _tma_load(a_desc, [row0 + t * ROWS, 0], a_ready.index(s), a_smem.index(s))
            mbarrier.wait(b_empty.index(s), phase ^ 1)
            mbarrier.expect(b_ready.index(s), b_desc.block_type.nbytes)
            _tma_load(b_desc, [row0 + t * ROWS, 0], b_ready.index(s), b_smem.index(s))

    @gluon.jit
    def _loader(q_desc, do_desc, k_desc, v_desc, b, h, hk, hv, key0, m0, n_tiles, dq_bars, k_smem, v_smem, q_smem,
                do_smem, kv_bar, q_ready, do_ready, q_empty, do_empty, lse_desc, dlt_desc, side0, lse_smem, dlt_smem,
                stamps, HEAD_LOOP, n_per, side_step):
        """This kernel's loader partition: K's and V's 128 rows once, then each query tile's Q rows with its lse2
        rows (under ``q_ready``) and its dO rows with its delta rows (under ``do_ready``) through the stages.
        The descriptors are the launcher's, made on the host (``planner._plan_gluon``): Q, dO, K, V as
        (B, H, S, D) through their own strides, a dimension of one or of stride 0 (broadcast) given as one, so
        that batch ``b`` and head ``h`` are coordinates (``% shape``: 0 there). Made on the device instead,
        each cost a global round trip before its first load: the loader took 4.75 us to issue the first tile's
        loads, 8% of an hd64 program (2026-12-02, H200, docs/data/h200-2026-12-02e/run1, ``tools/phase_stamps.py``).
        The side buffers are (B H ``S_side``) rows, ``S_side`` = S_q rounded up to 4, read from ``side0``, the head's
        first row: a one-dimensional box must start on 16 bytes (an illegal instruction otherwise: every S_q not a
        multiple of 4 faulted, 2026-12-02, H200, docs/data/h200-2026-12-02d/run1). Rows past S_q are padding or the next
        head's, which the consumers mask (``_tile``). ``HEAD_LOOP`` (the kernel's constexpr, which reaches a partition
        as a constant the compiler folds, so the branch not taken compiles away): the program walks n_tiles / ``n_per``
        query heads from ``h``, ``n_per`` tiles each from row 0, each head's side rows ``side_step`` (S_side) on from
        the last's; else one head (``n_per`` and ``side_step`` are not read)."""
        ROWS: gl.constexpr = q_smem.type.shape[1]
        NST: gl.constexpr = q_smem.type.shape[0]
        HALF: gl.constexpr = k_smem.type.shape[1]
        SIDE_BYTES: gl.constexpr = ROWS * 4  # a tile's fp32 lse2 or delta rows
        DOWN: gl.constexpr = dq_bars.type.shape[0] == 4  # the consumers' order (``_main_loop``)
        gl.static_assert(lse_desc.block_type.nbytes == SIDE_BYTES, "each tile's ready barrier expects these bytes")
        gl.static_assert(same_swizzle(lse_smem.type.layout, lse_desc.layout), "see host_layout")
        gl.static_assert(same_swizzle(dlt_smem.type.layout, dlt_desc.layout), "see host_layout")
        _stamp(stamps, 0)
        _gdc_launch_dependents()  # DQ_CONVERT, where launched as this kernel's dependent (``launch.GLUON_PDL``)
        kb = b % k_desc.shape[0]
        kh = hk % k_desc.shape[1]
        vb = b % v_desc.shape[0]
        vh = hv % v_desc.shape[1]
        mbarrier.expect(kv_bar, 2 * k_desc.block_type.nbytes + 2 * v_desc.block_type.nbytes)
        for w in gl.static_range(2):
            _tma_load(k_desc, [kb, kh, key0 + w * HALF, 0], kv_bar, as_box(k_smem.index(w), k_desc))
            _tma_load(v_desc, [vb, vh, key0 + w * HALF, 0], kv_bar, as_box(v_smem.index(w), v_desc))
        qb = b % q_desc.shape[0]
        qh = h % q_desc.shape[1]
        dob = b % do_desc.shape[0]
        doh = h % do_desc.shape[1]
        _stamp(stamps, 1)
        # launched as ODO's programmatic dependent: its lse2 and delta (and the dQ accumulator it zeroes) written
        _gdc_wait()
        for t in range(0, n_tiles):
            s = t % NST
            phase = (t // NST) & 1
            if not HEAD_LOOP:
                if DOWN:
                    row = m0 + (n_tiles - 1 - t) * ROWS
                else:
                    row = m0 + t * ROWS
                side = side0 + row
            else:  # the loop's t-th tile: query head h + hq, its tile t - hq n_per
                hq = t // n_per
                row = (t - hq * n_per) * ROWS
                side = side0 + hq * side_step + row
                qh = (h + hq) % q_desc.shape[1]
                doh = (h + hq) % do_desc.shape[1]
            # mbarriers start with phase 1 complete: the first STAGES waits pass at once
            mbarrier.wait(q_empty.index(s), phase ^ 1)
            mbarrier.expect(q_ready.index(s), q_desc.block_type.nbytes + SIDE_BYTES)
            _tma_load(q_desc, [qb, qh, row, 0], q_ready.index(s), as_box(q_smem.index(s), q_desc))
            _tma_load(lse_desc, [side], q_ready.index(s), lse_smem.index(s))
            mbarrier.wait(do_empty.index(s), phase ^ 1)
            mbarrier.expect(do_ready.index(s), do_desc.block_type.nbytes + SIDE_BYTES)
            _tma_load(do_desc, [dob, doh, row, 0], do_ready.index(s), as_box(do_smem.index(s), do_desc))
            _tma_load(dlt_desc, [side], do_ready.index(s), dlt_smem.index(s))
            if t == 0:
                _stamp(stamps, 2)
        _stamp(stamps, 3)

    @gluon.jit
    def _tile(t, i, key0, q_smem, do_smem, k_tile, v_tile, kq0, kq1, p_smem, ds_all, ds_dq, dq_smem, dq_desc, dq_r0,
              col0, cid, q_ready, do_ready, q_empty, do_empty, ds_full, side, S_q, qk_scale_log2, dv, dk, masked,
              dq_bars, lse_smem, dlt_smem):
        """The program's t-th query tile, query tile ``i`` of the head whose packed rows start at ``side``: see the
        module's docstring. ``masked``: the causal mask's tiles (the literal False in the loop, which
        compiles the mask away). The double buffer of dS is safe with ``ds_full`` alone: this consumer writes
        half t % 2 again at tile t + 2 only after it waited for ``ds_full`` at tile t + 1, which the other
        consumer arrived on after it had waited for its tile-t dQ product, the last reader of that half.
        ``dq_bars``: see ``_main_loop``."""
        NST: gl.constexpr = q_smem.type.shape[0]
        ROWS: gl.constexpr = q_smem.type.shape[1]
        DQR: gl.constexpr = dq_smem.type.shape[0]  # this consumer's part of the tile's dQ (``dq_block``)
        DQC: gl.constexpr = dq_smem.type.shape[1]
        s_layout: gl.constexpr = wgmma_layout(KEYS)
        s = t % NST
        phase = (t // NST) & 1
        b = t % 2
        ds_mine = ds_all.index(b * 2 + cid)
        qpos = i * ROWS + gl.arange(0, ROWS, layout=gl.SliceLayout(1, s_layout))
        row_ok = qpos < S_q
        zero = gl.zeros([ROWS, KEYS], gl.float32, s_layout)
        mbarrier.wait(q_ready.index(s), phase)
        s_tok = warpgroup_mma(q_smem.index(s), k_tile.permute((1, 0)), zero, use_acc=False, is_async=True)
        # came in with Q; rows past S_q are padding or the next head's: +inf, so P = 0 there
        lse2 = gl.where(row_ok, lse_smem.index(s).load(gl.SliceLayout(1, s_layout)), float("inf"))
        mbarrier.wait(do_ready.index(s), phase)
        dp_tok = warpgroup_mma(do_smem.index(s), v_tile.permute((1, 0)), zero, use_acc=False, is_async=True)
        delta = gl.where(row_ok, dlt_smem.index(s).load(gl.SliceLayout(1, s_layout)), 0.0)  # came in with dO
        # pending: dK of the previous tile, S, dP; one left in flight means all but dP are done
        s_t, dk = warpgroup_mma_wait(1, deps=(s_tok, dk))
        if t > 0:  # the previous tile's products are done with its stage
            prev = (t - 1) % NST
            mbarrier.arrive(q_empty.index(prev), count=1)
            mbarrier.arrive(do_empty.index(prev), count=1)
        if masked:  # causal, the diagonal at 0: keys past the query row get no probability
            kpos = key0 + gl.arange(0, KEYS, layout=gl.SliceLayout(0, s_layout))
            s_t = gl.where(kpos[None, :] <= qpos[:, None], s_t, float("-inf"))
        p = gl.exp2(s_t * qk_scale_log2 - lse2[:, None])
        p_smem.store(p.to(p_smem.dtype))
        dp = warpgroup_mma_wait(0, deps=(dp_tok,))
        ds_mine.store((p * (dp - delta[:, None])).to(ds_mine.dtype))
        fence_async_shared()
        _thread_barrier()  # every thread's dS is stored (and fenced) before the other consumer is told
        mbarrier.arrive(ds_full.index(b), count=1)
        dv_tok = warpgroup_mma(p_smem.permute((1, 0)), do_smem.index(s), dv, is_async=True)
        mbarrier.wait(ds_full.index(b), (t // 2) & 1)
        # dS of both consumers (this tile's half b), whole or this consumer's row half of each (``ds_dq``: 4 or 8 tiles)
        NH: gl.constexpr = ds_dq.type.shape[0] // 4
        dq_tok = warpgroup_mma(ds_dq.index(2 * b * NH + cid * (NH - 1)), kq0,
                               gl.zeros([DQR, DQC], gl.float32, wgmma_layout(DQC)), use_acc=False, is_async=True)
        dq_tok = warpgroup_mma(ds_dq.index((2 * b + 1) * NH + cid * (NH - 1)), kq1, dq_tok, is_async=True)
        dk_tok = warpgroup_mma(ds_mine.permute((1, 0)), q_smem.index(s), dk, is_async=True)
        # pending: dV, dQ (two), dK; one left in flight means dV and dQ are done
        dq, dv = warpgroup_mma_wait(1, deps=(dq_tok, dv_tok))
        if dq_bars.type.shape[0] < 4:  # the consumer's own reduce (``_main_loop``)
            tma.store_wait(0)  # the previous tile's reduce has read the staging buffer
            dq_smem.store(dq)
            fence_async_shared()
            _tma_reduce_add(dq_desc, [side + i * ROWS + dq_r0, col0], dq_smem)
        else:  # deterministic: staged for this consumer's dQ writer, which takes the turn and issues the reduce
            mbarrier.wait(dq_bars.index(2 + cid), (t & 1) ^ 1)  # free: its previous reduce has read the buffer
            dq_smem.store(dq)
            fence_async_shared()
            _thread_barrier()  # every thread's part is stored (and fenced) before the writer is told
            mbarrier.arrive(dq_bars.index(cid), count=1)
        return dv, dk_tok

    @gluon.jit
    def _main_loop(k_tile, v_tile, kq0, kq1, p_smem, ds_all, ds_dq, dq_smem, dq_desc, side0, dq_bars,
                   key0, i_start, n_tiles, S_q, S_kv, qk_scale_log2, causal, q_smem, do_smem, kv_bar, q_ready,
                   do_ready, q_empty, do_empty, ds_full, lse_smem, dlt_smem, stamps, HEAD_LOOP, n_per):
        """A consumer's query tiles (see ``_consumer``): returns its dV and dK (unscaled), every product waited
        for and the last stage given back. ``dq_bars``: deterministic mode's (staged, staged, free, free)
        mbarriers of the two consumers' dQ writers (``_dq_writer``), four of them; any other mbarrier array
        (the launcher's default: ``ds_full``, two) is not used, and the consumer issues its own reduces. In
        deterministic mode the tiles run from the last down, the causal mask's two last; with five (the
        kernel's ``DET_UP``: deterministic under the causal mask) in the default order, the diagonal's first.
        ``dq_desc``: the launcher's descriptor of the packed fp32 dQ accumulator, (B H_q S_q, D) in blocks of a
        consumer's part of a tile (``dq_block``): a tile's rows past its head's S_q add exact zeros. ``HEAD_LOOP``
        (the kernel's constexpr, folded as in ``_loader``; not with the mask or deterministic mode): the tiles are
        n_tiles / ``n_per`` query heads' in turn, ``n_per`` (>= 2) each from tile 0, each head's dQ rows ``S_q`` on
        from the last's; dK and dV sum over all of them."""
        D: gl.constexpr = q_smem.type.shape[2]
        ROWS: gl.constexpr = q_smem.type.shape[1]
        acc_layout: gl.constexpr = wgmma_layout(D)
        cid = (key0 // KEYS) % 2
        dq_r0, col0 = _dq_part(dq_smem, ROWS, cid)  # where this consumer's part of a tile's dQ goes
        _stamp(stamps, 4 + 4 * cid)
        gl.static_assert(same_swizzle(dq_smem.type.layout, dq_desc.layout), "see host_layout")
        DOWN: gl.constexpr = dq_bars.type.shape[0] == 4  # deterministic mode's walk down
        dv = gl.zeros([KEYS, D], gl.float32, acc_layout)
        dk = gl.zeros([KEYS, D], gl.float32, acc_layout)
        _gdc_wait()  # before this consumer's first reduce into the accumulator ODO may have zeroed
        mbarrier.wait(kv_bar, 0)
        _stamp(stamps, 5 + 4 * cid)
        if DOWN:  # the last query tile first (``_dq_writer``); the causal mask's diagonal tiles last
            # n_tiles >= 3 here: the first tile peeled, so that the loop takes dK's product in flight from a wgmma
            # (begun from registers set otherwise, ptxas serialises every wgmma of the loop: C7515, 18% slower)
            i_last = i_start + n_tiles - 1
            dv, dk = _tile(0, i_last, key0, q_smem, do_smem, k_tile, v_tile, kq0, kq1, p_smem, ds_all, ds_dq, dq_smem,
                           dq_desc, dq_r0, col0, cid, q_ready, do_ready, q_empty, do_empty, ds_full, side0, S_q,
                           qk_scale_log2, dv, dk, False, dq_bars, lse_smem, dlt_smem)
            for t in range(1, n_tiles - 2):
                dv, dk = _tile(t, i_last - t, key0, q_smem, do_smem, k_tile, v_tile, kq0, kq1, p_smem, ds_all, ds_dq,
                               dq_smem, dq_desc, dq_r0, col0, cid, q_ready, do_ready, q_empty, do_empty, ds_full, side0,
                               S_q, qk_scale_log2, dv, dk, False, dq_bars, lse_smem, dlt_smem)
            _stamp(stamps, 6 + 4 * cid)
            dv, dk = _tile(n_tiles - 2, i_start + 1, key0, q_smem, do_smem, k_tile, v_tile, kq0, kq1, p_smem, ds_all,
                           ds_dq, dq_smem, dq_desc, dq_r0, col0, cid, q_ready, do_ready, q_empty, do_empty, ds_full,
                           side0, S_q, qk_scale_log2, dv, dk, causal != 0, dq_bars, lse_smem, dlt_smem)
            dv, dk = _tile(n_tiles - 1, i_start, key0, q_smem, do_smem, k_tile, v_tile, kq0, kq1, p_smem, ds_all, ds_dq,
                           dq_smem, dq_desc, dq_r0, col0, cid, q_ready, do_ready, q_empty, do_empty, ds_full, side0,
                           S_q, qk_scale_log2, dv, dk, causal != 0, dq_bars, lse_smem, dlt_smem)
        else:
            # under the causal mask the first two query tiles hold the program's 128 keys' diagonal
            dv, dk = _tile(0, i_start, key0, q_smem, do_smem, k_tile, v_tile, kq0, kq1, p_smem, ds_all, ds_dq, dq_smem,
                           dq_desc, dq_r0, col0, cid, q_ready, do_ready, q_empty, do_empty, ds_full, side0, S_q,
                           qk_scale_log2, dv, dk, causal != 0, dq_bars, lse_smem, dlt_smem)
            _stamp(stamps, 6 + 4 * cid)
            dv, dk = _tile(1, i_start + 1, key0, q_smem, do_smem, k_tile, v_tile, kq0, kq1, p_smem, ds_all, ds_dq,
                           dq_smem, dq_desc, dq_r0, col0, cid, q_ready, do_ready, q_empty, do_empty, ds_full, side0,
                           S_q, qk_scale_log2, dv, dk, causal != 0, dq_bars, lse_smem, dlt_smem)
            # the head loop's tile and its head's first dQ row, carried over the loop (unused without it)
            i_h = i_start + 1
            side_h = side0
            for t in range(2, n_tiles):
                if not HEAD_LOOP:
                    i = i_start + t
                    side = side0
                else:  # the next tile, or the next head's first
                    i_h = i_h + 1
                    wrap = (i_h == n_per).to(gl.int32)
                    i_h = i_h - wrap * n_per
                    side_h = side_h + wrap * S_q
                    i = i_h
                    side = side_h
                dv, dk = _tile(t, i, key0, q_smem, do_smem, k_tile, v_tile, kq0, kq1, p_smem, ds_all, ds_dq, dq_smem,
                               dq_desc, dq_r0, col0, cid, q_ready, do_ready, q_empty, do_empty, ds_full, side, S_q,
                               qk_scale_log2, dv, dk, False, dq_bars, lse_smem, dlt_smem)
        dk = warpgroup_mma_wait(0, deps=(dk,))
        _stamp(stamps, 7 + 4 * cid)
        NST: gl.constexpr = q_smem.type.shape[0]
        last = (n_tiles - 1) % NST
        mbarrier.arrive(q_empty.index(last), count=1)
        mbarrier.arrive(do_empty.index(last), count=1)
        return dv, dk

    @gluon.jit
    def _consumer(k_tile, v_tile, kq0, kq1, p_smem, ds_all, ds_dq, dq_smem, kv_smem, dk_base, dv_base, b, hk, hv, sdk_s,
                  sdk_d, sdv_s, sdv_d, dq_desc, side0, dq_bars, key0, i_start, n_tiles, S_q, S_kv,
                  qk_scale_log2, scale, causal, q_smem, do_smem, kv_bar, q_ready, do_ready, q_empty, do_empty,
                  ds_full, lse_smem, dlt_smem, stamps, HEAD_LOOP, n_per):
        """64 keys from ``key0``: their dK and dV, and dQ's 64 columns from ``cid * 64`` over the program's 128
        keys (``_main_loop``). ``cid`` (0 or 1) is read off ``key0``: a partition takes no constexpr, and a
        literal 0 or 1 would be one. dK and dV leave through their strides by pointer stores (any layout), from
        ``dk_base`` and ``dv_base``, the head's first elements (``b``, ``hk``, ``hv``: ``_consumer_tma``'s)."""
        D: gl.constexpr = q_smem.type.shape[2]
        acc_layout: gl.constexpr = wgmma_layout(D)
        gl.static_assert(dk_base.dtype.element_ty != gl.float32,
                         "shared K/V heads' fp32 accumulators take the TMA epilogue (_consumer_tma): stores here "
                         "would overwrite the other query heads' partials")
        dv, dk = _main_loop(k_tile, v_tile, kq0, kq1, p_smem, ds_all, ds_dq, dq_smem, dq_desc, side0,
                            dq_bars, key0, i_start, n_tiles, S_q, S_kv, qk_scale_log2, causal, q_smem,
                            do_smem, kv_bar, q_ready, do_ready, q_empty, do_empty, ds_full, lse_smem, dlt_smem, stamps,
                            HEAD_LOOP, n_per)
        rows = key0 + gl.arange(0, KEYS, layout=gl.SliceLayout(1, acc_layout))
        cols = gl.arange(0, D, layout=gl.SliceLayout(0, acc_layout)).to(gl.int64)
        keep = (rows < S_kv)[:, None]
        r64 = rows.to(gl.int64)[:, None]
        gl.store(dv_base + r64 * sdv_s + cols[None, :] * sdv_d, dv.to(dv_base.dtype.element_ty), mask=keep)
        gl.store(dk_base + r64 * sdk_s + cols[None, :] * sdk_d, (dk * scale).to(dk_base.dtype.element_ty),
                 mask=keep)
        _stamp(stamps, 12 + (key0 // KEYS) % 2)

    @gluon.jit
    def _consumer_tma(k_tile, v_tile, kq0, kq1, p_smem, ds_all, ds_dq, dq_smem, kv_smem, dk_desc, dv_desc, b, hk, hv,
                      dk_ctr, dk_turn, dv_ctr, dv_turn, dq_desc, side0, dq_bars, key0, i_start, n_tiles, S_q, S_kv,
                      qk_scale_log2, scale, causal, q_smem, do_smem, kv_bar, q_ready, do_ready, q_empty,
                      do_empty, ds_full, lse_smem, dlt_smem, stamps, HEAD_LOOP, n_per):
        """``_consumer`` whose dK and dV leave by the bulk-copy engine, staged in ``kv_smem`` (this consumer's share of
        the Q and dO stages, free once both consumers are past their last tile: a last ``ds_full`` handshake, as for a
        tile ``n_tiles``), through the launcher's descriptors (dims as K's and V's, a dimension of one or of stride 0
        given as one: batch ``b``, heads ``hk`` and ``hv`` are coordinates), which stop at S_kv rows (keys past it,
        P's garbage, are not written). Where ``dk_desc`` and ``dv_desc`` are fp32 (a K or V head shared by several
        query heads: the head's rows of the launcher's accumulators) they are added in by bulk reduces; else (16-bit
        dK and dV the bulk-copy engine can address) stored. Read off the descriptors' type when compiling, so the loop
        and its registers are the same either way. In deterministic mode (``dq_bars``, see ``_main_loop``) the
        reduces take turns too: ``dk_ctr`` and ``dv_ctr`` are the program's K and V heads' counters for its key
        block (a consumer's at + ``cid``), and each reduce waits until as many query heads as ``dk_turn`` /
        ``dv_turn`` (this one's rank among the heads sharing the K / V head) have added theirs and are written;
        elsewhere they are not read (the kernel passes the pointer-store strides in their places)."""
        D: gl.constexpr = q_smem.type.shape[2]
        dv, dk = _main_loop(k_tile, v_tile, kq0, kq1, p_smem, ds_all, ds_dq, dq_smem, dq_desc, side0,
                            dq_bars, key0, i_start, n_tiles, S_q, S_kv, qk_scale_log2, causal, q_smem,
                            do_smem, kv_bar, q_ready, do_ready, q_empty, do_empty, ds_full, lse_smem, dlt_smem, stamps,
                            HEAD_LOOP, n_per)
        # this consumer's products are done with the Q and dO stages; the other's once this wait passes (no
        # barrier of its own, whose shared memory an unused one would hold)
        mbarrier.arrive(ds_full.index(n_tiles % 2), count=1)
        out_t: gl.constexpr = dk_desc.dtype
        out_layout: gl.constexpr = _staging_layout(out_t, KEYS, D, kv_smem.type.layout)
        dkb = b % dk_desc.shape[0]
        dkh = hk % dk_desc.shape[1]
        dvb = b % dv_desc.shape[0]
        dvh = hv % dv_desc.shape[1]
        mbarrier.wait(ds_full.index(n_tiles % 2), (n_tiles // 2) & 1)
        if out_t == gl.float32:
            DET: gl.constexpr = dq_bars.type.shape[0] >= 4
            cid = (key0 // KEYS) % 2
            kv_smem.store(dv)
            fence_async_shared()
            if DET:  # lower query heads of the group first (started before this one: deadlock-free as dQ's)
                _dq_wait_turn(dv_ctr + cid, dv_turn)
            _tma_reduce_add(dv_desc, [dvb, dvh, key0, 0], as_box(kv_smem, dv_desc))
            tma.store_wait(0)
            kv_smem.store(dk * scale)
            fence_async_shared()
            if DET:
                _dq_wait_turn(dk_ctr + cid, dk_turn)
            _tma_reduce_add(dk_desc, [dkb, dkh, key0, 0], as_box(kv_smem, dk_desc))
            if DET:  # both written before the turns are passed on, by one thread of the consumer
                _bulk_wait_written()
                _thread_barrier()
                _kv_signal(dv_ctr + cid)
                _kv_signal(dk_ctr + cid)
        else:  # the fp32 staging buffer holds both 16-bit tiles: no wait between the stores
            pair = _reinterpret(kv_smem, out_t, [2, KEYS, D], out_layout)
            pair.index(0).store(dv.to(out_t))
            pair.index(1).store((dk * scale).to(out_t))
            fence_async_shared()
            _tma_store(dv_desc, [dvb, dvh, key0, 0], as_box(pair.index(0), dv_desc))
            _tma_store(dk_desc, [dkb, dkh, key0, 0], as_box(pair.index(1), dk_desc))
        tma.store_wait(0)  # the bulk copies have read their staging buffers before the program ends
        _stamp(stamps, 12 + (key0 // KEYS) % 2)

    # Triton makes an integer argument equal to 1 a constexpr, and worker partitions take none: every
    # argument that reaches a partition stays a runtime value.
    @gluon.jit(do_not_specialize=["sdk_b", "sdk_h", "sdk_s", "sdk_d", "sdv_b", "sdv_h", "sdv_s", "sdv_d", "H", "G_k",
                                   "G_v", "S_q", "S_kv", "S_side", "causal"])
    def attention_bwd_gluon_kernel(
        q_desc, k_desc, v_desc, do_desc, dk_out, dv_out, dq_desc, lse_desc, dlt_desc, dq_sem_ptr, stamp_ptr,
        sdk_b, sdk_h, sdk_s, sdk_d, sdv_b, sdv_h, sdv_s, sdv_d,
        H, G_k, G_v, S_q, S_kv, S_side, qk_scale_log2, scale, causal, D: gl.constexpr, TMA_EPILOGUE: gl.constexpr,
        ROWS: gl.constexpr, HEAD_GROUP: gl.constexpr, DETERMINISTIC: gl.constexpr, HEAD_LOOP: gl.constexpr,
        DET_UP: gl.constexpr,
    ):
        """Grid (cdiv(S_kv, 128), B H): H query heads, H / G_k K heads, H / G_v V heads. Every tensor but dK's
        and dV's under pointer stores comes in as a TMA descriptor the launcher made on the host
        (``planner._plan_gluon``, layouts from ``host_layout``): ``q_desc``, ``k_desc``, ``v_desc``,
        ``do_desc`` (B, H, S, D) through the tensors' own strides in blocks of [1, 1, rows, D]; ``dq_desc``
        the zeroed, scale-free fp32 dQ accumulator (B H S_q, D) in blocks of a consumer's part of a tile
        (``dq_block``: [ROWS, D / 2], or [ROWS / 2, D], which splits the tile's dQ by rows); ``lse_desc``,
        ``dlt_desc`` lse2 and delta, (B H S_side) as the ODO kernel writes them, ``S_side`` S_q rounded up to a
        multiple of 4 (``launch.gluon_side_rows``: the loader's one-dimensional boxes of them start on 16
        bytes). ``TMA_EPILOGUE``: ``dk_out`` and ``dv_out`` are descriptors too, of dK and dV or, where a K or
        V head is shared (GQA), of zeroed fp32 accumulators (dims as dK's and dV's) that the group's programs
        add their partials into; else dK's and dV's pointers, stored through ``sdk_*`` and ``sdv_*``.
        ``DETERMINISTIC``: ``dq_sem_ptr`` is zeroed int32 turn counters, B H cdiv(S_q, ROWS) 2 of them, one per
        (head, query tile, consumer), which two more one-warp partitions, the consumers' dQ writers
        (``_dq_writer``), take turns by; where K or V heads are shared (GQA: the TMA epilogue's fp32 accumulators)
        then B H_k cdiv(S_kv, 128) 2 for dK's reduces and B H_v cdiv(S_kv, 128) 2 for dV's, one per (K or V head,
        key block, consumer) (``_consumer_tma``); otherwise any pointer but int32's, not read. ``stamp_ptr``:
        int64 (B H cdiv(S_kv, 128), ``STAMP_SLOTS``) for the phase stamps (``_stamp``), program (pid_n, bh) at row
        bh cdiv(S_kv, 128) + pid_n; any other pointer type (the launcher's: the fp32 dQ accumulator) compiles them
        away. ``HEAD_LOOP`` (GQA without the mask, not deterministic, ``G_k`` = ``G_v``): grid
        (cdiv(S_kv, 128), B H / G_k), a program per key block of a K/V head, walking the G_k query heads
        that share it tile by tile with its dK and dV in registers throughout, so they are stored (16-bit, as for
        heads of their own) instead of bulk-reduced into fp32 accumulators across the query heads' programs.
        ``DET_UP`` (deterministic mode under the causal mask only): the query tiles run up from the diagonal's and
        each tile's dQ turns go in descending key blocks (``_dq_writer``), the programs started highest key block
        first; the partitions read it off the writers' mbarriers, five of them (a partition takes no constexpr)."""
        gl.static_assert(ROWS == 64 or (ROWS == 128 and D == 64), "query tile rows not in QUERY_ROWS for this D")
        gl.static_assert((dq_sem_ptr.dtype.element_ty == gl.int32) == DETERMINISTIC,
                         "deterministic mode takes int32 dQ turn counters, and only it: the consumers read it off "
                         "their pointer type (a partition takes no constexpr)")
        gl.static_assert(DETERMINISTIC or not DET_UP, "DET_UP orders deterministic mode's dQ turns")
        # started in groups of HEAD_GROUP heads, costliest key block (the first, under the causal mask) first;
        # deterministic mode's turns go in the same order (ascending key blocks), so a program waits only for
        # programs started before it; DET_UP's go in descending key blocks, so its start order is reversed
        pid_n, bh = program_tile(HEAD_GROUP, DET_UP)
        if not HEAD_LOOP:
            b = bh // H  # int32: the descriptors' coordinates
            h = bh % H
            bq = bh  # the (first) query head's packed index
        else:  # bh: (batch, K/V head); h: the first of the K/V head's query heads
            gl.static_assert(not DETERMINISTIC, "a head loop's dQ reduces have no turn order")
            b = bh // (H // G_k)
            h = bh % (H // G_k) * G_k
            bq = b * H + h
        hk = h // G_k
        hv = h // G_v
        key0 = pid_n * (2 * KEYS)
        if stamp_ptr.dtype.element_ty == gl.int64:
            stamps = stamp_ptr + (bh * gl.num_programs(0) + pid_n).to(gl.int64) * STAMP_SLOTS_
            _stamp(stamps, 15)
            sm = gl.inline_asm_elementwise("mov.u32 $0, %smid;", "=r", [], dtype=gl.int32, is_pure=True, pack=1)
            gl.store(stamps + 14, sm.to(gl.int64))
        else:
            stamps = stamp_ptr
        # causal (keys up to the query row): query tiles before the program's first key see none of its keys
        i_start = key0 // ROWS * causal
        # at least the two a causal diagonal spans (three in deterministic mode's walk down: see _main_loop),
        # those past S_q adding exact zeros
        if not HEAD_LOOP:
            if DET_UP:
                n_tiles = gl.maximum(gl.cdiv(S_q, ROWS) - i_start, 2)
            else:
                n_tiles = gl.maximum(gl.cdiv(S_q, ROWS) - i_start, 3 if DETERMINISTIC else 2)
            loop = (HEAD_LOOP, gl.constexpr(0))
        else:  # no mask: i_start is 0; at least two tiles a head, so the two peeled ones are the first head's
            n_per = gl.maximum(gl.cdiv(S_q, ROWS), 2)
            n_tiles = n_per * G_k
            loop = (HEAD_LOOP, n_per)
        side0 = bq * S_q  # the head's first packed row of the dQ accumulator
        dt: gl.constexpr = q_desc.dtype
        tile_layout: gl.constexpr = gl.NVMMASharedLayout.get_default_for([ROWS, D], dt)
        pd_layout: gl.constexpr = gl.NVMMASharedLayout.get_default_for([ROWS, KEYS], dt)
        # a consumer's part of a tile's dQ, read off the launcher's descriptor (``dq_block``): a row half at 128 rows
        # (``launch.GLUON_BWD_DQ_ROWS``), else a column half
        DQR: gl.constexpr = dq_desc.block_type.shape[0]
        DQC: gl.constexpr = dq_desc.block_type.shape[1]
        gl.static_assert(2 * DQR * DQC == ROWS * D and (DQR == ROWS or (DQC == D and DQR >= 64)),
                         "a dQ part is a tile's row half (of at least a product's 64 rows) or its column half")
        dq_layout: gl.constexpr = gl.NVMMASharedLayout.get_default_for([DQR, DQC], gl.float32)
        q_smem = gl.allocate_shared_memory(dt, [STAGES_, ROWS, D], tile_layout)
        do_smem = gl.allocate_shared_memory(dt, [STAGES_, ROWS, D], tile_layout)
        # K's swizzle spans half a row (up to 128 B), so that each consumer's dQ column half of a K block
        # (the B operand of dS K, sliced below) starts on a swizzle atom: 128 B at D 128, 64 B at D 64
        k_layout: gl.constexpr = half_row_swizzled(D, dt)
        k_smem = gl.allocate_shared_memory(dt, [2, KEYS, D], k_layout)
        v_smem = gl.allocate_shared_memory(dt, [2, KEYS, D], tile_layout)
        p_smem = gl.allocate_shared_memory(dt, [2, ROWS, KEYS], pd_layout)  # one tile a consumer
        ds_all = gl.allocate_shared_memory(dt, [4, ROWS, KEYS], pd_layout)  # two tiles a consumer
        dq_smem = gl.allocate_shared_memory(gl.float32, [2, DQR, DQC], dq_layout)  # one a consumer
        kv_bar, q_ready, do_ready, q_empty, do_empty = stage_barriers(STAGES_)
        ds_full = gl.allocate_shared_memory(gl.int64, [2, 1], mbarrier.MBarrierLayout())
        for i in gl.static_range(2):
            mbarrier.init(ds_full.index(i), count=2)  # an arrival from each consumer
        # each stage's lse2 and delta rows, loaded with its Q and dO rows
        side_layout: gl.constexpr = gl.NVMMASharedLayout(swizzle_byte_width=0, element_bitwidth=32, rank=1)
        lse_smem = gl.allocate_shared_memory(gl.float32, [STAGES_, ROWS], side_layout)
        dlt_smem = gl.allocate_shared_memory(gl.float32, [STAGES_, ROWS], side_layout)
        bars = (q_smem, do_smem, kv_bar, q_ready, do_ready, q_empty, do_empty, ds_full, lse_smem, dlt_smem)
        # GQA's staging buffers for the dK, dV partials: a consumer's fp32 [64, D] is one tensor's two stages
        kv_layout: gl.constexpr = gl.NVMMASharedLayout.get_default_for([KEYS, D], gl.float32)
        kv0 = _reinterpret(q_smem, gl.float32, [KEYS, D], kv_layout)
        kv1 = _reinterpret(do_smem, gl.float32, [KEYS, D], kv_layout)
        # the epilogue's four scalars: pointer stores' strides, or (TMA epilogue, deterministic mode) the turn
        # counters of this program's K and V heads at its key block and its ranks among the query heads sharing them
        # (read only where those heads are shared: the launcher's counters for them follow dQ's)
        epi = (sdk_s, sdk_d, sdv_s, sdv_d)
        if TMA_EPILOGUE:  # descriptors, addressed by (b, hk) and (b, hv)
            dk_at = dk_out
            dv_at = dv_out
            if DETERMINISTIC:
                n_kb = gl.num_programs(0)
                kv_sem = dq_sem_ptr + gl.num_programs(1) * gl.cdiv(S_q, ROWS) * 2  # B H_q heads' dQ counters first
                B = gl.num_programs(1) // H
                H_k = H // G_k
                dk_ctr = kv_sem + ((b * H_k + hk) * n_kb + pid_n) * 2
                dv_ctr = kv_sem + B * H_k * n_kb * 2 + ((b * (H // G_v) + hv) * n_kb + pid_n) * 2
                epi = (dk_ctr, h % G_k, dv_ctr, h % G_v)
        else:  # pointers: the head's first elements
            dk_at = dk_out + b.to(gl.int64) * sdk_b + hk.to(gl.int64) * sdk_h
            dv_at = dv_out + b.to(gl.int64) * sdv_b + hv.to(gl.int64) * sdv_h
        if DETERMINISTIC:  # each consumer's (staged, free) mbarriers with its dQ writer: staged 0, 1, free 0, 1
            # (DET_UP: a fifth, never used, says the order to the partitions)
            dq_bars = gl.allocate_shared_memory(gl.int64, [5 if DET_UP else 4, 1], mbarrier.MBarrierLayout())
            for i in gl.static_range(4):
                mbarrier.init(dq_bars.index(i), count=1)
        else:  # two: not used (``_main_loop`` and ``_loader`` read deterministic mode off the count)
            dq_bars = ds_full
        tail = (dk_at, dv_at, b, hk, hv) + epi + (dq_desc, side0, dq_bars)
        scalars = (i_start, n_tiles, S_q, S_kv, qk_scale_log2, scale, causal)
        # consumer c: keys c * 64 on of the program's 128 (K, V blocks c), and dQ's part c over all 128 keys; its
        # products' buffers after K's and V's: dQ's B operands (both K blocks, or their column half), its P, dS's
        # tiles, and dQ's A operands (dS's tiles, or their row halves)
        if DQR < ROWS:  # rows c * DQR on, all columns; dS's tiles seen as row halves (the swizzle repeats every 8 rows)
            halves = _reinterpret(ds_all, dt, [8, DQR, KEYS], gl.NVMMASharedLayout.get_default_for([DQR, KEYS], dt))
            gl.static_assert(same_swizzle(halves.type.layout, pd_layout), "a row half of dS is laid out as its tile")
            ops0 = (k_smem.index(0), k_smem.index(1), p_smem.index(0), ds_all, halves)
            ops1 = (k_smem.index(0), k_smem.index(1), p_smem.index(1), ds_all, halves)
        else:  # all rows, columns c * DQC on
            ops0 = (k_smem.index(0).slice(0, DQC, dim=1), k_smem.index(1).slice(0, DQC, dim=1), p_smem.index(0),
                    ds_all, ds_all)
            ops1 = (k_smem.index(0).slice(DQC, DQC, dim=1), k_smem.index(1).slice(DQC, DQC, dim=1), p_smem.index(1),
                    ds_all, ds_all)
        args0 = (k_smem.index(0), v_smem.index(0)) + ops0 + (dq_smem.index(0), kv0) + tail \
            + (key0,) + scalars + bars + (stamps,) + loop
        args1 = (k_smem.index(1), v_smem.index(1)) + ops1 + (dq_smem.index(1), kv1) + tail \
            + (key0 + KEYS,) + scalars + bars + (stamps,) + loop
        loader = (q_desc, do_desc, k_desc, v_desc, b, h, hk, hv, key0, i_start * ROWS, n_tiles, dq_bars, k_smem, v_smem,
                  q_smem, do_smem, kv_bar, q_ready, do_ready, q_empty, do_empty, lse_desc, dlt_desc, bq * S_side,
                  lse_smem, dlt_smem, stamps) + loop + (S_side,)
        # the workers' warps and register budgets (setmaxnreg): a loader of 32 or 40 leaves the default consumer
        # 232 or 224, and the spills grow to 400 or 496 B
        if DETERMINISTIC:  # a dQ writer a consumer, one warp each, over this head's turn counters
            dq_sem = dq_sem_ptr + bh * gl.cdiv(S_q, ROWS) * 2
            if DET_UP:  # from the diagonal's tile up, turns in descending key blocks
                up0 = (dq_smem.index(0), dq_desc, dq_sem, dq_bars.index(0), dq_bars.index(2), side0, key0, i_start,
                       n_tiles, S_q, S_kv, lse_smem)
                up1 = (dq_smem.index(1), dq_desc, dq_sem, dq_bars.index(1), dq_bars.index(3), side0, key0 + KEYS,
                       i_start, n_tiles, S_q, S_kv, lse_smem)
                if TMA_EPILOGUE:
                    gl.warp_specialize([(_consumer_tma, args0), (_consumer_tma, args1), (_loader, loader),
                                        (_dq_writer_up, up0), (_dq_writer_up, up1)], [4, 1, 1, 1], [240, 24, 24, 24])
                else:
                    gl.warp_specialize([(_consumer, args0), (_consumer, args1), (_loader, loader),
                                        (_dq_writer_up, up0), (_dq_writer_up, up1)], [4, 1, 1, 1], [240, 24, 24, 24])
            else:
                i_last = i_start + n_tiles - 1
                writer0 = (dq_smem.index(0), dq_desc, dq_sem, dq_bars.index(0), dq_bars.index(2), side0, key0,
                           i_last, n_tiles, S_q, lse_smem)
                writer1 = (dq_smem.index(1), dq_desc, dq_sem, dq_bars.index(1), dq_bars.index(3), side0,
                           key0 + KEYS, i_last, n_tiles, S_q, lse_smem)
                if TMA_EPILOGUE:
                    gl.warp_specialize([(_consumer_tma, args0), (_consumer_tma, args1), (_loader, loader),
                                        (_dq_writer, writer0), (_dq_writer, writer1)], [4, 1, 1, 1], [240, 24, 24, 24])
                else:
                    gl.warp_specialize([(_consumer, args0), (_consumer, args1), (_loader, loader),
                                        (_dq_writer, writer0), (_dq_writer, writer1)], [4, 1, 1, 1], [240, 24, 24, 24])
        elif TMA_EPILOGUE:
            gl.warp_specialize([(_consumer_tma, args0), (_consumer_tma, args1), (_loader, loader)], [4, 1], [240, 24])
        else:
            gl.warp_specialize([(_consumer, args0), (_consumer, args1), (_loader, loader)], [4, 1], [240, 24])
