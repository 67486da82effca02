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
with half the programs loading). The forms with an exchange keep two stages (their shared memory is spent).

Registers: consumer 0 holds dK 64 + dQ 64, consumer 1 dK 32 + dV 64 + dQ 32 (a thread's fp32 accumulators);
shared memory 206 KB at two stages, 231,600 B at three; ptxas spills nothing (``tests/test_gluon_backward.py`` checks
it in CI). Measured (2026-12-03, H200, docs/data/h200-2026-12-03e/run1, ``tools/ab192.py``): the kernel 0.570 ms
causal at (1,16,4096) bf16, the earlier form (S and dP for 32 keys in each consumer) 0.612; the whole call 0.633
against cuDNN's 0.603. Deterministic mode is the persistent form's (``DET`` or ``NO_DQ``, below); the launcher sends it
to the Triton kernels unless ``launch.GLUON_BWD192_DETERMINISTIC`` or ``launch.GLUON_BWD192_DET_SPLIT`` lets it in.

The pair form (``PAIR``; ``launch.GLUON_BWD192_PAIR``, off by default): programs launched as clusters of
two (key blocks 2j and 2j + 1 of one head; ``launch._as_clusters_of_two``) halve the dQ reduce bytes. Each consumer
splits its tile's dQ part into column halves; cluster rank r sends half 1 - r to its partner's mailbox by
asynchronous remote stores (``st.async``, counted into the partner's mbarrier), and under the next tile's first
product adds the partner's half r to its own and bulk-reduces that ([64, 64] and [64, 32] blocks): ``_pair_send``,
``_pair_finish``. Under the mask both start at the even block's diagonal tile, which the odd block takes fully
masked (its second tile is its own diagonal). A block past S_kv (an odd count of blocks) runs as a partner whose K and
V rows are TMA's zeros. The mailboxes (two a consumer, by tile parity) and their mbarriers live in ``PAIR_EXTRA``
bytes the launcher asks past the kernel's own shared memory; every partition takes the cluster barrier at its start
(the partner's mbarriers are set up) and end (no partner writes into an exited program), so the loader runs as a
whole warpgroup: an idle padding warp would never arrive. Measured (2026-12-03, H200, docs/data/h200-2026-12-03i,
``tools/ab192.py --switch gluon_bwd192_pair``, (1,16,4096) bf16): the kernel 0.582 ms causal against 0.571, 1.067
non-causal against 1.085 (run6/). With the exchange left out (wrong sums, a timing probe) it is 0.483 causal: the
halved reduces are worth 15%, and the remote stores of 24 KB a tile take most of it back (run3/: blocking stores and
a release 0.18 ms, run4/: ``st.async`` 0.076).

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

The dS exchange (``SHARE_DS``; ``launch.GLUON_BWD192_SHARE_DS``, off by default): clusters of two programs as
the pair form's, which send each other their 16-bit dS tile (8 KB, against the pair form's 24 KB of fp32) from
consumer 0's registers (``_ds_send``); each also loads its partner block's K. A tile later, the consumer that owns a
column chunk takes dQ over both key blocks, its own dS from the shared tile and the partner's from the mailbox as a
register operand, and reduces it (``_ds_finish``: rank 0's consumer 0 columns 0-127, rank 1's consumer 1 columns
128-191), then frees the mailbox by a remote arrival (``free``), which the partner's next send into it waits for. The
reduce bytes halve over the cluster, but not per program (rank 0 still reduces 32 KB a tile), and the owning
consumer's chain per tile grows by the second key block's dQ product. Measured (2026-12-03, H200,
docs/data/h200-2026-12-03j/run3 and run4, (1,16,4096) bf16): 0.681 ms causal against 0.571 (0.707 with the finish under
the next tile's first product, where it held up the other consumer), 1.273 non-causal against 1.083.

Deterministic mode (``DET``; persistent form only, heads with K and V of their own; ``launch
.GLUON_BWD192_DETERMINISTIC``, off by default): dQ's partials go into the accumulator in ascending key blocks for
every query tile, FlashAttention-3's order, as ``attention_bwd_gluon``'s deterministic mode at hd64 / hd128.
Each consumer hands its tile's dQ columns to a dQ writer warp of its own (``_dq_writer``) with a note of the
accumulator row and the block's turn (``_dq_stage``); the writer spins until the tile's counter for its column part
reaches the turn, bulk-reduces, gives the staging buffer back once read, waits for the reduce's writes and passes
the turn on. The counters are the fused conversion's (one per batch and head, query tile, column part). A block's
tiles run from the last down (the loader's ``stream_q_do(down=1)``, the consumers' peeled first tile, loop, and the
diagonal's last, masked under the causal mask), so that every block of a head reaches a tile at the same point of
its life, and a block waits for the blocks below it, which the start order claimed before it: the earliest unfinished
block waits for nobody, whatever the number of resident programs. Compiled for sm_90a with Triton 3.6 and 3.9
(231,780 B of shared memory, 24 / 28 B of spills, none in the tile loops). Measured (2026-12-05, an H100,
docs/data/h100-2026-12-05a/run1, run4, run5; ``tools/det_perf.py``): right and bitwise repeatable, but 1.38-1.40x of the
default's time at (1,16,4096) bf16, where the Triton kernels' deterministic path takes 1.03-1.10x, so it stays off.
The writers' probes (``DET`` 2-4) put 0.19-0.23 of the default's time in the turn spins and 0.13-0.16 in the wait for
a reduce's writes: a writer's serial cycle per tile outlasts a consumer's tile. Passing a tile's turn on a tile later
(the wait overlapped with the next reduce; run5/ there, its diff kept) was slower still, 1.49-1.50x.

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
        _bulk_wait_written,
        _dq_signal,
        _dq_wait_turn,
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
# The pair form (``PAIR``): two programs of a cluster (key blocks 2j, 2j+1 of one head) sum their dQ partials
# in each other's shared memory, each bulk-reducing one column half of the tile. Each consumer has two mailboxes (by
# tile parity) for the [64, NQ / 2] fp32 half its partner sends (16 KB and 8 KB each), then an mbarrier a mailbox
# (``full``), in bytes the launcher asks beyond the kernel's own shared memory (``PAIR_EXTRA``, at the end of the
# dynamic shared memory: ``_pair_base``).
PAIR_MAIL = 2 * (64 * 64 + 64 * 32) * 4
PAIR_EXTRA = PAIR_MAIL + 128
# The dS exchange (``SHARE_DS``): the two programs of a cluster send each other their 16-bit dS tile (8 KB)
# instead of fp32 dQ halves; a mailbox a tile parity and its mbarrier, past the kernel's shared memory (``_ds_base``).
DS_EXTRA = 2 * 64 * 64 * 2 + 128  # two 8 KB mailboxes, then four mbarriers (``_ds_base``)
if AVAILABLE:  # the kernel's globals must be constexprs
    D_QK, D_V, KEYS, ROWS, HALF = (gl.constexpr(n) for n in (192, 128, 64, 64, 32))
    COLS0 = gl.constexpr(COLS0_)
    # a shared buffer seen as another shape: Triton 3.6's ``_reinterpret``, renamed ``reinterpret`` since
    REINTERPRET_NAMED = gl.constexpr(hasattr(gl.shared_memory_descriptor, "reinterpret"))

    def host_layout(kind: str, dtype):
        """The shared layout of the launcher's descriptor ``kind`` (``planner._plan_gluon192``): the
        kernel's buffer's own, in the descriptor's rank (``as_box`` checks they agree). ``dtype``: Gluon's, of the
        tensor. "qa" / "qb" (Q's two column chunks, 128 and 64, of a [1, 1, 64, cols] block; K's likewise: 64
        rows), "v" (V and dO: [1, 1, 64, 128]), "dq0" / "dq1" (the fp32 accumulator's [64, 128] and [64, 64]
        blocks; "dq0h" / "dq1h" the pair form's halves of them), "side" (lse2 and delta: [64] boxes)."""
        if kind in ("qa", "qb", "v"):
            return _rank4_layout(64, {"qa": COLS0_, "qb": 192 - COLS0_, "v": 128}[kind], dtype)
        if kind in ("dq0", "dq1", "dq0h", "dq1h"):  # "h": the pair form's column halves, [64, 64] and [64, 32]
            cols = (COLS0_ if kind.startswith("dq0") else 192 - COLS0_) // (2 if kind.endswith("h") else 1)
            return gl.NVMMASharedLayout.get_default_for([64, cols], gl.float32)
        if kind == "side":
            return gl.NVMMASharedLayout(swizzle_byte_width=0, element_bitwidth=32, rank=1)
        raise ValueError(f"descriptor kind {kind!r}: one of qa, qb, v, dq0, dq1, dq0h, dq1h, side")

    @gluon.jit
    def _loader(q_desc, qb_desc, do_desc, k_desc, kb_desc, v_desc, b, h, hk, hv, key0, m0, n_tiles, k_smem, kb_smem,
                v_smem, q_smem, qb_smem, do_smem, kv_bar, q_ready, do_ready, q_empty, do_empty, lse_desc, dlt_desc,
                side0, lse_smem, dlt_smem, dq_smem, kp_smem, kbp_smem):
        """K's and V's 64 rows once, then each query tile's Q rows with its lse2 rows and dO rows with its delta
        rows through the stages (``attention_bwd_gluon._loader``'s protocol, one 64-key block). Q's and K's two
        column chunks come from descriptors over the same tensor, the second loaded at column 128. Batch and head
        coordinates are taken ``% shape``: 0 where the launcher gave a broadcast dimension as one. ``dq_smem``
        (consumer 0's staging buffer) says whether the kernel is the pair form, whose cluster barriers every
        thread of the program takes; ``kp_smem`` / ``kbp_smem`` (two dims: the dS exchange, ``SHARE_DS``) take the
        partner block's K rows in the same two chunks, for this program's dQ columns of the partner's dS."""
        DS: gl.constexpr = len(kp_smem.type.shape) == 2
        CLUSTER: gl.constexpr = (len(dq_smem.type.shape) == 3) or DS
        if CLUSTER:
            _cluster_sync()
        _gdc_launch_dependents()
        if DS:  # and the partner block's K (key block 2j + 1 - r), under the same barrier and its one arrival
            pkey0 = key0 + KEYS - 2 * KEYS * (gl.program_id(0) % 2)
            mbarrier.expect(kv_bar, 2 * (k_desc.block_type.nbytes + kb_desc.block_type.nbytes)
                            + v_desc.block_type.nbytes)
            _load_kv(k_desc, kb_desc, v_desc, b, hk, hv, key0, k_smem, kb_smem, v_smem, kv_bar, False)
            _tma_load(k_desc, [b % k_desc.shape[0], hk % k_desc.shape[1], pkey0, 0], kv_bar, as_box(kp_smem, k_desc))
            _tma_load(kb_desc, [b % k_desc.shape[0], hk % k_desc.shape[1], pkey0, COLS0], kv_bar,
                      as_box(kbp_smem, kb_desc))
        else:
            _load_kv(k_desc, kb_desc, v_desc, b, hk, hv, key0, k_smem, kb_smem, v_smem, kv_bar)
        _gdc_wait()  # ODO's lse2 and delta (and, where it zeroes it, the dQ accumulator) are written
        stream_q_do(q_desc, qb_desc, do_desc, b % q_desc.shape[0], h % q_desc.shape[1], b % do_desc.shape[0],
                    h % do_desc.shape[1], m0, n_tiles, q_smem, qb_smem, do_smem, q_ready, do_ready, q_empty, do_empty,
                    lse_desc, dlt_desc, side0, lse_smem, dlt_smem)
        if CLUSTER:
            _cluster_sync()

    @gluon.jit
    def _load_kv(k_desc, kb_desc, v_desc, b, hk, hv, key0, k_smem, kb_smem, v_smem, kv_bar,
                 EXPECT: gl.constexpr = True):
        """The key block's K rows (two column chunks) and V rows under ``kv_bar``, batch and head coordinates taken
        ``% shape`` (0 where the launcher gave a broadcast dimension as one); ``EXPECT``: this call arms ``kv_bar``
        for their bytes (else the caller has, with more)."""
        kb_ = b % k_desc.shape[0]
        kh = hk % k_desc.shape[1]
        vb = b % v_desc.shape[0]
        vh = hv % v_desc.shape[1]
        if EXPECT:
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
        form's earlier blocks); ``down`` (1: deterministic mode's walk, ``DET``): the tiles from the last down to
        the one at row ``m0``. (``tools/gluon_bwd192_k96_probe.py`` streams through it too.)"""
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
    def _pair_base():
        """The pair form's exchange region (``PAIR_EXTRA`` bytes at the end of the dynamic shared memory the
        launcher gave, past the kernel's own): its shared::cta address. Consumer c's mailbox of tile parity b is
        at + 24576 b + 16384 c, its mbarrier at + 49152 + 16 c + 8 b."""
        return gl.inline_asm_elementwise(
            "{ .reg .u32 d; mov.u32 $0, global_smem; mov.u32 d, %dynamic_smem_size; add.u32 $0, $0, d; "
            "sub.u32 $0, $0, 49280; }", "=r", [], dtype=gl.int32, is_pure=True, pack=1)

    @gluon.jit
    def _pair_init(base):
        """Thread 0 sets up the exchange's four mbarriers (one arrival each: the partner consumer's first thread)
        and fences their initialisation for the cluster; ``_cluster_sync`` then makes it visible before any remote
        arrival."""
        gl.inline_asm_elementwise(
            "{ .reg .pred p; .reg .u32 t; mov.u32 t, %tid.x; setp.eq.u32 p, t, 0; "
            "@p mbarrier.init.shared::cta.b64 [$1+49152], 1; @p mbarrier.init.shared::cta.b64 [$1+49160], 1; "
            "@p mbarrier.init.shared::cta.b64 [$1+49168], 1; @p mbarrier.init.shared::cta.b64 [$1+49176], 1; "
            "@p fence.mbarrier_init.release.cluster; mov.b32 $0, 0; }",
            "=r,r", [base], dtype=gl.int32, is_pure=False, pack=1)

    @gluon.jit
    def _cluster_sync():
        """Every thread of both programs of the cluster here (release, then acquire): after the exchange's
        barriers are set up, and before a program exits while its partner may still write into it."""
        gl.inline_asm_elementwise("barrier.cluster.arrive.release; barrier.cluster.wait.acquire; mov.b32 $0, 0;",
                                  "=r", [], dtype=gl.int32, is_pure=False, pack=1)

    @gluon.jit
    def _pair_wait(bar, parity):
        """Spin on this program's exchange mbarrier at ``bar`` until the phase of ``parity`` completed, acquiring
        at cluster scope what the partner's arrivals released."""
        gl.inline_asm_elementwise(
            "{ .reg .pred p; waitp: mbarrier.try_wait.parity.acquire.cluster.shared::cta.b64 p, [$1], $2; "
            "@!p bra waitp; mov.b32 $0, 0; }", "=r,r,r", [bar, parity], dtype=gl.int32, is_pure=False, pack=1)

    @gluon.jit
    def _mail_slots(x):
        """Byte offsets in a mailbox of the elements of ``x`` ([64, n], a column half of a warpgroup's
        accumulator), the same for the sender and the receiver (their layouts are the same): a thread's four
        elements of one 8-column group (two columns, rows r and r + 8, which ``inline_asm_elementwise`` packs
        together) take one 16-byte slot, the warp's 32 slots consecutive, so that its stores and loads meet no bank
        conflict. Each element has its own word (a bijection onto the mailbox)."""
        L: gl.constexpr = x.type.layout
        r = gl.arange(0, x.type.shape[0], layout=gl.SliceLayout(1, L))[:, None]
        c = gl.arange(0, x.type.shape[1], layout=gl.SliceLayout(0, L))[None, :]
        lane = (r % 8) * 4 + (c % 8) // 2
        return ((((c // 8) * 128 + (r // 16) * 32 + lane) * 2 + (r % 16) // 8) * 2 + c % 2) * 4

    @gluon.jit
    def _mail_send(x, raddr, rbar):
        """``x`` into the partner's mailbox (shared::cluster addresses ``raddr``), a 16-byte slot an asynchronous
        store (``st.async``: the thread does not wait for it) whose bytes count into the partner's mbarrier at
        ``rbar`` (complete_tx), which the partner armed with the half's size."""
        gl.inline_asm_elementwise(
            "st.async.shared::cluster.mbarrier::complete_tx::bytes.v4.f32 [$4], {$8, $9, $10, $11}, [$12]; "
            "mov.b32 $0, 0; mov.b32 $1, 0; mov.b32 $2, 0; mov.b32 $3, 0;", "=r,=r,=r,=r,r,r,r,r,f,f,f,f,r,r,r,r",
            [raddr, x, rbar], dtype=gl.int32, is_pure=False, pack=4)

    @gluon.jit
    def _mail_expect(bar, nbytes):
        """The consumer's first thread arrives on this program's mbarrier at ``bar``, arming it for ``nbytes``
        of the partner's asynchronous stores: its phase completes once they have all landed."""
        gl.inline_asm_elementwise(
            "{ .reg .pred p; .reg .u32 t; mov.u32 t, %tid.x; and.b32 t, t, 127; setp.eq.u32 p, t, 0; "
            "@p mbarrier.arrive.expect_tx.shared::cta.b64 _, [$1], $2; mov.b32 $0, 0; }",
            "=r,r,r", [bar, nbytes], dtype=gl.int32, is_pure=False, pack=1)

    @gluon.jit
    def _mail_read(addr):
        """This program's mailbox at shared::cta addresses ``addr``, a 16-byte slot a load."""
        return gl.inline_asm_elementwise("ld.shared.v4.f32 {$0, $1, $2, $3}, [$4];", "=f,=f,=f,=f,r,r,r,r", [addr],
                                         dtype=gl.float32, is_pure=False, pack=4)

    @gluon.jit
    def _mailbox(t, cid):
        """(mailbox, its mbarrier): consumer ``cid``'s for tile ``t``'s parity, shared::cta addresses in the
        exchange region (``_pair_base`` gives the layout)."""
        base = _pair_base()
        return base + (t % 2) * 24576 + cid * 16384, base + 49152 + cid * 16 + (t % 2) * 8

    @gluon.jit
    def _pair_send(dq, t, cid):
        """The pair form's first half of a tile's dQ exchange: the tile's part ``dq`` ([64, NQ]) split into column
        halves, the one the partner (cluster rank 1 - r) reduces sent to its mailbox of the tile's parity, this
        consumer's (``cid``) own mailbox of that parity armed for the partner's half. Returns this program's
        half (rank r's), which ``_pair_finish`` sums and reduces during the next tile. Nothing says a mailbox is
        free again: the partner writes one two tiles on, after its mailbox of the tile between has filled, which
        follows this consumer's reads of the first (``_pair_finish`` runs before the next send)."""
        rank = gl.program_id(0) % 2
        peer = 1 - rank
        lo, hi = gl.split(gl.permute(gl.reshape(dq, [dq.type.shape[0], 2, dq.type.shape[1] // 2]), (0, 2, 1)))
        keep = gl.where(rank == 0, lo, hi)
        send = gl.where(rank == 0, hi, lo)
        mail, full = _mailbox(t, cid)
        rmail = gl.inline_asm_elementwise("mapa.shared::cluster.u32 $0, $1, $2;", "=r,r,r", [mail, peer],
                                          dtype=gl.int32, is_pure=True, pack=1)
        rfull = gl.inline_asm_elementwise("mapa.shared::cluster.u32 $0, $1, $2;", "=r,r,r", [full, peer],
                                          dtype=gl.int32, is_pure=True, pack=1)
        _mail_send(send, rmail + _mail_slots(send), rfull)
        _mail_expect(full, send.type.shape[0] * send.type.shape[1] * 4)
        return keep

    @gluon.jit
    def _pair_finish(keep, t, cid, dq_smem, dq_desc, row, C0: gl.constexpr):
        """The exchange's second half for tile ``t``, whose query rows start at ``row``: wait for the partner's
        half in this consumer's mailbox, add it to ``keep`` (``_pair_send``'s), and bulk-reduce the sum into the
        accumulator at columns ``C0`` + r NQ / 2 from the staging buffer. Run a tile later, under the next tile's
        first product: the partner's stores land meanwhile (waiting for them at once cost 0.095 ms at
        (1,16,4096) causal, 2026-12-03, H200, docs/data/h200-2026-12-03i/run4)."""
        mail, full = _mailbox(t, cid)
        _pair_wait(full, (t // 2) & 1)
        dq = keep + _mail_read(mail + _mail_slots(keep))
        tma.store_wait(0)  # the previous reduce has read the staging buffer
        dq_smem.index(0).store(dq)
        fence_async_shared()
        _tma_reduce_add(dq_desc, [row, C0 + (gl.program_id(0) % 2) * keep.type.shape[1]], dq_smem.index(0))

    @gluon.jit
    def _ds_base():
        """The dS exchange's region (``DS_EXTRA`` bytes at the end of the dynamic shared memory, past the kernel's
        own): its shared::cta address. The mailbox of tile parity b is at + 8192 b, its ``full`` mbarrier at + 16384 +
        8 b (the partner's bytes landed) and its ``free`` one at + 16400 + 8 b (the partner has read what this
        program sent it in its mailbox of that parity)."""
        return gl.inline_asm_elementwise(
            "{ .reg .u32 d; mov.u32 $0, global_smem; mov.u32 d, %dynamic_smem_size; add.u32 $0, $0, d; "
            "sub.u32 $0, $0, 16512; }", "=r", [], dtype=gl.int32, is_pure=True, pack=1)

    @gluon.jit
    def _ds_init(base):
        """Thread 0 sets up the dS exchange's four mbarriers (one arrival each: ``full`` the receiving consumer's
        first thread, arming it for the partner's bytes; ``free`` the partner's receiving consumer's, remotely) and
        fences them for the cluster (``_pair_init``'s way)."""
        gl.inline_asm_elementwise(
            "{ .reg .pred p; .reg .u32 t; mov.u32 t, %tid.x; setp.eq.u32 p, t, 0; "
            "@p mbarrier.init.shared::cta.b64 [$1+16384], 1; @p mbarrier.init.shared::cta.b64 [$1+16392], 1; "
            "@p mbarrier.init.shared::cta.b64 [$1+16400], 1; @p mbarrier.init.shared::cta.b64 [$1+16408], 1; "
            "@p fence.mbarrier_init.release.cluster; mov.b32 $0, 0; }",
            "=r,r", [base], dtype=gl.int32, is_pure=False, pack=1)

    @gluon.jit
    def _ds_mailbox(t):
        """(mailbox, its ``full`` mbarrier, its ``free`` one) for tile ``t``'s parity, shared::cta addresses
        (``_ds_base``)."""
        base = _ds_base()
        return base + (t % 2) * 8192, base + 16384 + (t % 2) * 8, base + 16400 + (t % 2) * 8

    @gluon.jit
    def _ds_slots(x):
        """Byte offsets in a dS mailbox for ``x``'s layout (a warpgroup's [64, 64] accumulator layout): a thread's
        eight elements of two neighbouring 8-column groups (16-bit: one 16-byte slot, the first element's offset
        the slot's), the warp's 32 slots consecutive; the sender's and the receiver's layouts are the same."""
        L: gl.constexpr = x.type.layout
        r = gl.arange(0, x.type.shape[0], layout=gl.SliceLayout(1, L))[:, None]
        c = gl.arange(0, x.type.shape[1], layout=gl.SliceLayout(0, L))[None, :]
        return ((c // 16) * 128 + (r // 16) * 32 + (r % 8) * 4 + (c % 8) // 2) * 16

    @gluon.jit
    def _ds_send(ds, t):
        """This program's 16-bit dS tile ``ds`` (consumer 0's registers) into the partner's mailbox of tile ``t``'s
        parity by asynchronous remote stores (16-byte slots), counted into the partner's mbarrier (complete_tx),
        once the partner has read what this program sent there two tiles before (``free``)."""
        peer = 1 - gl.program_id(0) % 2
        mail, full, free = _ds_mailbox(t)
        if t >= 2:
            _pair_wait(free, ((t // 2) & 1) ^ 1)
        rmail = gl.inline_asm_elementwise("mapa.shared::cluster.u32 $0, $1, $2;", "=r,r,r", [mail, peer],
                                          dtype=gl.int32, is_pure=True, pack=1)
        rfull = gl.inline_asm_elementwise("mapa.shared::cluster.u32 $0, $1, $2;", "=r,r,r", [full, peer],
                                          dtype=gl.int32, is_pure=True, pack=1)
        gl.inline_asm_elementwise(  # Triton hands 16-bit operands two to a 32-bit register: $16-$19 are 8 of dS
            "st.async.shared::cluster.mbarrier::complete_tx::bytes.v4.b32 [$8], {$16, $17, $18, $19}, [$20]; "
            "mov.b32 $0, 0; mov.b32 $1, 0; mov.b32 $2, 0; mov.b32 $3, 0; mov.b32 $4, 0; mov.b32 $5, 0; "
            "mov.b32 $6, 0; mov.b32 $7, 0;",
            "=r,=r,=r,=r,=r,=r,=r,=r,r,r,r,r,r,r,r,r,r,r,r,r,r,r,r,r,r,r,r,r",
            [rmail + _ds_slots(ds), ds, rfull], dtype=gl.int32, is_pure=False, pack=8)

    @gluon.jit
    def _ds_arm(t, OWNER: gl.constexpr):
        """In the program of cluster rank ``OWNER`` (the one whose consumer calls this reads the mailbox), arm the
        mailbox of tile ``t``'s parity for the partner's dS bytes (its ``full`` mbarrier)."""
        if gl.program_id(0) % 2 == OWNER:
            mail, full, free = _ds_mailbox(t)
            _mail_expect(full, ROWS * KEYS * 2)

    @gluon.jit
    def _ds_finish(t, ds_prev, k_own, k_peer, dq_smem, dq_desc, row, C0: gl.constexpr):
        """The dS exchange's dQ for tile ``t``, whose query rows start at ``row``, in the consumer that owns its
        columns ``C0`` on (rank 0's consumer 0: 0-127, rank 1's consumer 1: 128-191): wait for the partner's dS in
        this program's mailbox, read it into registers, and take dQ = dS K + dS' K' over both key blocks (this
        program's dS ``ds_prev`` from its shared tile, still there a tile on; ``k_own`` / ``k_peer`` the two blocks'
        K columns), then bulk-reduce it. Run a tile later, where the single form takes its dQ (after dS, before dK):
        the partner's dS has long landed; the mailbox is freed for the partner's next send as soon as it is read.
        (Under the next tile's first product, before dS, it held up the other consumer each tile: 0.707 ms causal
        against the single form's 0.575; 2026-12-03, H200, docs/data/h200-2026-12-03j/run3.)"""
        mail, full, free = _ds_mailbox(t)
        _pair_wait(full, (t // 2) & 1)
        s_layout: gl.constexpr = wgmma_layout(KEYS)
        NQ: gl.constexpr = dq_smem.type.shape[1]
        dq_layout: gl.constexpr = wgmma_layout(NQ)
        where = mail + _ds_slots(gl.zeros([ROWS, KEYS], gl.int32, s_layout))
        peer_ds = gl.inline_asm_elementwise(  # eight 16-bit values a slot, two to each of $0-$3 (as _ds_send's)
            "ld.shared.v4.b32 {$0, $1, $2, $3}, [$4];", "=r,=r,=r,=r,r,r,r,r,r,r,r,r", [where],
            dtype=ds_prev.dtype, is_pure=False, pack=8)
        _thread_barrier()  # every thread has read the mailbox: its first thread frees it for the partner
        gl.inline_asm_elementwise(
            "{ .reg .pred p; .reg .u32 t, r; mov.u32 t, %tid.x; and.b32 t, t, 127; setp.eq.u32 p, t, 0; "
            "mapa.shared::cluster.u32 r, $1, $2; @p mbarrier.arrive.release.cluster.shared::cluster.b64 _, [r]; "
            "mov.b32 $0, 0; }", "=r,r,r", [free, 1 - gl.program_id(0) % 2], dtype=gl.int32, is_pure=False, pack=1)
        a = gl.convert_layout(peer_ds, gl.DotOperandLayout(operand_index=0, parent=dq_layout, k_width=2))
        tok = warpgroup_mma(ds_prev, k_own, gl.zeros([ROWS, NQ], gl.float32, dq_layout), use_acc=False,
                            is_async=True)
        tok = warpgroup_mma(a, k_peer, tok, is_async=True)
        dq = warpgroup_mma_wait(0, deps=(tok,))
        tma.store_wait(0)  # the previous reduce has read the staging buffer
        dq_smem.store(dq)
        fence_async_shared()
        _tma_reduce_add(dq_desc, [row, C0], dq_smem)

    @gluon.jit
    def _tile(t, i, key0, q_smem, qb_smem, do_smem, k_smem, kb_smem, v_smem, p_smem, ds_smem, dq_smem, dq_desc,
              q_ready, do_ready, q_empty, do_empty, p_full, ds_full, lse_smem, dlt_smem, dq_row0, S_q, qk_scale_log2,
              dk, dv, masked, pend=None, t0=0, kp_smem=None, kbp_smem=None, info_smem=None, dq_bars=None, turn=0,
              NO_DQ: gl.constexpr = False):
        """Query tile ``i`` (the program's t-th) for consumer ``CID``. Consumer 1 computes S = Q K^T for the
        block's 64 keys, P (masked where ``masked``) into ``p_smem`` (``p_full``), its dV = P^T dO, then, once dS
        is in, its dK and dQ columns 128-191. Consumer 0 computes dP = dO V^T, dS = P (dP - delta) from P's
        shared tile into ``ds_smem`` (``ds_full``), then its dQ columns 0-127 from dS in registers and its dK
        columns 0-127. Returns (dk in flight, dv). ``CID`` is read off its dQ staging buffer's width (128 or 64
        columns): an argument that reaches a partition arrives as a runtime value, even one passed as a constexpr.
        ``t``: the stages' and P / dS buffers' count of tiles; ``t0``: its value at the block's first tile (the
        persistent form's earlier blocks), whose tile has no previous stage of the block to release. ``kp_smem`` /
        ``kbp_smem`` (the dS exchange, ``SHARE_DS``): the partner block's K chunks; this tile's dS goes to the partner,
        and the previous tile's dQ columns of this program's consumer (``_ds_finish``) are taken here. ``info_smem``,
        ``dq_bars``, ``turn`` (deterministic mode, ``DET``): the tile's dQ columns go to this consumer's dQ writer
        (``_dq_stage``) with the block's turn, instead of a bulk reduce of its own. ``NO_DQ`` (deterministic mode's
        split form): no dQ at all, only dK and dV (the Triton kernels' dQ pass computes dQ after the pass)."""
        DS: gl.constexpr = kp_smem is not None
        PAIR: gl.constexpr = len(dq_smem.type.shape) == 3
        CID: gl.constexpr = 2 - dq_smem.type.shape[-1] * (1 + PAIR) // 64
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
            if pend is not None:  # the pair form: the previous tile's dQ half, under S's product
                _pair_finish(pend, t - 1, CID, dq_smem, dq_desc, dq_row0 + (i - 1) * ROWS, C0)
            if DS:  # rank 1 owns columns 128-191: its mailbox armed for this tile's dS from the partner
                _ds_arm(t, 1)
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
            if DS:  # rank 1: the previous tile's dQ (columns 128-191) here
                if (gl.program_id(0) % 2 == 1) & (t > t0):
                    _ds_finish(t - 1, ds_smem.index((t - 1) % 2), kb_smem, kbp_smem, dq_smem, dq_desc,
                               dq_row0 + (i - 1) * ROWS, C0)
                dk_tok = warpgroup_mma(ds_smem.index(b).permute((1, 0)), qb_smem.index(s), dk, is_async=True)
                dv = warpgroup_mma_wait(1, deps=(dv_tok,))
            elif NO_DQ:  # dK's columns 128-191 only
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
            if pend is not None:  # the pair form: the previous tile's dQ half, under dP's product
                _pair_finish(pend, t - 1, CID, dq_smem, dq_desc, dq_row0 + (i - 1) * ROWS, C0)
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
            if DS:  # dS to the partner; rank 0 arms its own mailbox for the partner's
                _ds_send(ds, t)
                _ds_arm(t, 0)
            mbarrier.wait(q_ready.index(s), phase)  # passed already (consumer 1's S read the tile): Q's bytes seen here
            if DS:  # rank 0: the previous tile's dQ (columns 0-127) here
                if (gl.program_id(0) % 2 == 0) & (t > t0):
                    _ds_finish(t - 1, ds_smem.index((t - 1) % 2), k_smem, kp_smem, dq_smem, dq_desc,
                               dq_row0 + (i - 1) * ROWS, C0)
                dk_tok = warpgroup_mma(ds_smem.index(b).permute((1, 0)), q_smem.index(s), dk, is_async=True)
            elif NO_DQ:  # dK's columns 0-127 only
                dk_tok = warpgroup_mma(ds_smem.index(b).permute((1, 0)), q_smem.index(s), dk, is_async=True)
            else:
                dq_layout: gl.constexpr = wgmma_layout(NQ)
                ds_op = gl.convert_layout(ds, gl.DotOperandLayout(operand_index=0, parent=dq_layout, k_width=2))
                dq_tok = warpgroup_mma(ds_op, k_smem, gl.zeros([ROWS, NQ], gl.float32, dq_layout), use_acc=False,
                                       is_async=True)
                dk_tok = warpgroup_mma(ds_smem.index(b).permute((1, 0)), q_smem.index(s), dk, is_async=True)
                dq = warpgroup_mma_wait(1, deps=(dq_tok,))
        if PAIR:  # the partner's half sent; this program's half (cluster rank r: half r) summed a tile later
            return dk_tok, dv, _pair_send(dq, t, CID)
        elif DS or NO_DQ:  # dQ is the owning consumer's, a tile later (_ds_finish), or no dQ at all
            return dk_tok, dv
        elif info_smem is not None:  # deterministic mode: the dQ writer reduces it in the block's turn
            _dq_stage(dq, t, dq_smem, info_smem, dq_bars, dq_row0 + i * ROWS, turn)
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
                       CID: gl.constexpr, free=None):
        """``_block_out`` by the bulk-copy engine (the persistent form's): its last dK product waited for,
        the block's last stage released, then its dK columns (scaled) and, for consumer 1, dV staged as 16 bits in
        this consumer's dQ staging buffer (free once the block's last reduce has read it) and stored through the
        launcher's descriptors of dK's two column chunks and of dV, which stop at S_kv rows. Consumer 0's dK
        ([64, 128], 16 KB) takes half its 32 KB; consumer 1's 16 KB holds its dV ([64, 128]), then its dK ([64, 64])
        once the first copy has read it. Nobody waits for these copies but the next reduce from the buffer (``_tile``'s
        ``tma.store_wait``). Pointer stores here (``_block_out``) held the consumers ~8 us a block: a timing probe
        without them was 11% faster (2026-12-04, H200, docs/data/h200-2026-12-04d/run3). ``free`` (deterministic mode,
        ``DET``): the dQ writer's mbarrier that gives the buffer back, whose reduce of the block's last tile is waited
        for instead of this consumer's own."""
        NST: gl.constexpr = q_empty.type.shape[0]
        out_t: gl.constexpr = dka_out.dtype
        dk = warpgroup_mma_wait(0, deps=(dk,))
        last = last_t % NST
        mbarrier.arrive(q_empty.index(last), count=1)
        mbarrier.arrive(do_empty.index(last), count=1)
        if free is not None:  # the writer's reduce of the block's last tile has read the staging buffer
            mbarrier.wait(free, last_t & 1)
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
    def _info_put(info_smem, row, turn):
        """A consumer's note to its dQ writer of the tile it stages (deterministic mode, ``DET``): the accumulator
        row its tile starts at and its key block's turn (-1: no more tiles), two int32s every thread writes alike."""
        L: gl.constexpr = gl.BlockedLayout([1], [32], [4], [0])
        k = gl.arange(0, 2, layout=L)
        info_smem.store(gl.where(k == 0, row, turn))

    @gluon.jit
    def _info_get(info_smem):
        """The dQ writer's read of ``_info_put``'s note: (row, turn)."""
        L: gl.constexpr = gl.BlockedLayout([1], [32], [1], [0])
        k = gl.arange(0, 2, layout=L)
        v = info_smem.load(L)
        return gl.max(gl.where(k == 0, v, -2147483647), axis=0), gl.max(gl.where(k == 1, v, -2147483647), axis=0)

    @gluon.jit
    def _dq_stage(dq, t, dq_smem, info_smem, dq_bars, row, turn):
        """Deterministic mode's end of a consumer's tile ``t`` (its count of tiles, ``_tile``'s): once its dQ writer
        has given the staging buffer back from the previous tile (``dq_bars`` 1, ``free``) and this consumer's own
        bulk copies of a block's dK and dV (``_block_out_tma``) have read it, the tile's dQ columns are staged, with
        the note of where they go and in which turn (``_info_put``), and the writer told (``dq_bars`` 0, ``staged``).
        The consumer never waits for a turn, only for its buffer."""
        if t > 0:
            mbarrier.wait(dq_bars.index(1), (t - 1) & 1)
        tma.store_wait(0)
        dq_smem.store(dq)
        _info_put(info_smem, row, turn)
        fence_async_shared()
        _thread_barrier()  # every thread's part is stored (and fenced) before the writer is told
        mbarrier.arrive(dq_bars.index(0), count=1)

    @gluon.jit
    def _dq_writer(dq_smem, dq_desc, info_smem, dq_bars, ctr_ptr, S_q, DET: gl.constexpr = 1):
        """Deterministic mode's dQ writer of one consumer (``DET``; one warp, FlashAttention-3's dQ warp, as
        ``attention_bwd_gluon._dq_writer``): for each tile its consumer stages (``dq_bars`` 0, ``staged``), it reads
        the note (``_info_get``: the accumulator row, the key block's turn), waits until the tile's counter for this
        consumer's columns has reached the turn (``_dq_wait_turn``: an acquire spin, then a generic-to-async proxy
        fence), issues the bulk reduce from the staging buffer, gives the buffer back once read (``dq_bars`` 1,
        ``free``), waits until the reduce's writes are made (``_bulk_wait_written``) and passes the turn on (a
        release add, ``_dq_signal``); until a note's turn is -1. Counters: the launcher's zeroed int32s past the
        claim counter, one per (batch and head, query tile, column part): 1 + ((b H_q + h) n_tiles + i) 2 + part,
        as the fused conversion's. The consumer (its column part) is read off the staging buffer's width. ``DET``
        2-4 are timing probes (sums right but bits free to vary, or dQ never added): 2 skips the turn spin,
        3 also the written-wait and the release add, 4 also the reduce (the buffer is given back once staged)."""
        CID: gl.constexpr = 2 - dq_smem.type.shape[1] // 64
        n_qt = gl.cdiv(S_q, ROWS)
        _gdc_wait()  # the accumulator ODO may have zeroed
        t = 0
        mbarrier.wait(dq_bars.index(0), 0)
        row, turn = _info_get(info_smem)
        while turn >= 0:
            bh = row // S_q
            ctr = ctr_ptr + 1 + (bh * n_qt + (row - bh * S_q) // ROWS) * 2 + CID
            if DET < 2:
                _dq_wait_turn(ctr, turn)
            if DET < 4:
                _tma_reduce_add(dq_desc, [row, CID * COLS0], dq_smem)
                tma.store_wait(0)  # the reduce has read the buffer: the consumer may stage its next tile
            mbarrier.arrive(dq_bars.index(1), count=1)
            if DET < 3:
                _bulk_wait_written()
                _thread_barrier()  # the issuing thread's wait has passed before lane 0 signals
                _dq_signal(ctr, 1)
            t += 1
            mbarrier.wait(dq_bars.index(0), t & 1)
            row, turn = _info_get(info_smem)

    @gluon.jit
    def _consumer(q_smem, qb_smem, do_smem, k_smem, kb_smem, v_smem, p_smem, ds_smem, dq_smem, dq_desc, kv_bar,
                  q_ready, do_ready, q_empty, do_empty, p_full, ds_full, lse_smem, dlt_smem, dq_row0, key0, i_start,
                  n_tiles, S_q, S_kv, qk_scale_log2, scale, causal, dk_base, dk_ss, dk_sd, dv_base, dv_ss, dv_sd,
                  kp_smem, kbp_smem):
        """Consumer ``CID``'s query tiles (the diagonal's, masked under ``causal``, peeled), then its dK columns
        (scaled) and, for consumer 1, dV (``_store_rows``). ``CID``: read off the dQ staging buffer, as in
        ``_tile``; the dS exchange (``SHARE_DS``) off ``kp_smem``'s two dims (the other forms pass a stand-in)."""
        PAIR: gl.constexpr = len(dq_smem.type.shape) == 3
        DS: gl.constexpr = len(kp_smem.type.shape) == 2
        CID: gl.constexpr = 2 - dq_smem.type.shape[-1] * (1 + PAIR) // 64
        NQ: gl.constexpr = COLS0 - CID * (2 * COLS0 - D_QK)
        C0: gl.constexpr = CID * COLS0
        NV: gl.constexpr = 16 + CID * (D_V - 16)  # consumer 0 carries a token dV it never uses
        if PAIR or DS:
            _cluster_sync()  # the partner's exchange barriers are set up
        dk = gl.zeros([KEYS, NQ], gl.float32, wgmma_layout(NQ))
        dv = gl.zeros([KEYS, NV], gl.float32, wgmma_layout(NV))
        _gdc_wait()  # before this consumer's first reduce into the accumulator ODO may have zeroed
        mbarrier.wait(kv_bar, 0)
        if PAIR:  # each tile's dQ half finished under the next tile's first product, the last one's after the loop
            dk, dv, pend = _tile(0, i_start, key0, q_smem, qb_smem, do_smem, k_smem, kb_smem, v_smem, p_smem, ds_smem,
                                 dq_smem, dq_desc, q_ready, do_ready, q_empty, do_empty, p_full, ds_full, lse_smem,
                                 dlt_smem, dq_row0, S_q, qk_scale_log2, dk, dv, causal != 0)
            if n_tiles > 1:  # the odd block of a pair starts a tile above its diagonal, which is its second tile
                dk, dv, pend = _tile(1, i_start + 1, key0, q_smem, qb_smem, do_smem, k_smem, kb_smem, v_smem, p_smem,
                                     ds_smem, dq_smem, dq_desc, q_ready, do_ready, q_empty, do_empty, p_full, ds_full,
                                     lse_smem, dlt_smem, dq_row0, S_q, qk_scale_log2, dk, dv,
                                     (causal != 0) & (gl.program_id(0) % 2 == 1), pend)
            for t in range(2, n_tiles):
                dk, dv, pend = _tile(t, i_start + t, key0, q_smem, qb_smem, do_smem, k_smem, kb_smem, v_smem, p_smem,
                                     ds_smem, dq_smem, dq_desc, q_ready, do_ready, q_empty, do_empty, p_full, ds_full,
                                     lse_smem, dlt_smem, dq_row0, S_q, qk_scale_log2, dk, dv, False, pend)
            _pair_finish(pend, n_tiles - 1, CID, dq_smem, dq_desc, dq_row0 + (i_start + n_tiles - 1) * ROWS, C0)
        elif DS:  # as the pair form's tiles; the last tile's dQ after the loop, in its owner (rank 0: 0, rank 1: 1)
            dk, dv = _tile(0, i_start, key0, q_smem, qb_smem, do_smem, k_smem, kb_smem, v_smem, p_smem, ds_smem,
                           dq_smem, dq_desc, q_ready, do_ready, q_empty, do_empty, p_full, ds_full, lse_smem, dlt_smem,
                           dq_row0, S_q, qk_scale_log2, dk, dv, causal != 0, None, 0, kp_smem, kbp_smem)
            if n_tiles > 1:
                dk, dv = _tile(1, i_start + 1, key0, q_smem, qb_smem, do_smem, k_smem, kb_smem, v_smem, p_smem,
                               ds_smem, dq_smem, dq_desc, q_ready, do_ready, q_empty, do_empty, p_full, ds_full,
                               lse_smem, dlt_smem, dq_row0, S_q, qk_scale_log2, dk, dv,
                               (causal != 0) & (gl.program_id(0) % 2 == 1), None, 0, kp_smem, kbp_smem)
            for t in range(2, n_tiles):
                dk, dv = _tile(t, i_start + t, key0, q_smem, qb_smem, do_smem, k_smem, kb_smem, v_smem, p_smem,
                               ds_smem, dq_smem, dq_desc, q_ready, do_ready, q_empty, do_empty, p_full, ds_full,
                               lse_smem, dlt_smem, dq_row0, S_q, qk_scale_log2, dk, dv, False, None, 0, kp_smem,
                               kbp_smem)
            if gl.program_id(0) % 2 == CID:
                last_t = n_tiles - 1
                if CID == 0:
                    _ds_finish(last_t, ds_smem.index(last_t % 2), k_smem, kp_smem, dq_smem, dq_desc,
                               dq_row0 + (i_start + last_t) * ROWS, C0)
                else:
                    _ds_finish(last_t, ds_smem.index(last_t % 2), kb_smem, kbp_smem, dq_smem, dq_desc,
                               dq_row0 + (i_start + last_t) * ROWS, C0)
        else:
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
        if PAIR or DS:
            _cluster_sync()  # the partner has made its last arrival here

    @gluon.jit
    def _block_coords(pid_n, bh, H, G_k, G_v, S_q, causal, PAIR: gl.constexpr = False):
        """(b, h, K head, V head, first key, first query tile, tiles) of key block ``pid_n`` of batch-and-head
        ``bh``: under ``causal`` the block starts at its diagonal tile (the pair form's at its even block's)."""
        b = bh // H
        h = bh % H
        key0 = pid_n * KEYS
        i_start = (key0 // ROWS - PAIR * (pid_n % 2)) * causal
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
        and released with K and V (``kv_bar``); its Q and dO tiles go on through the same stages, from the last down
        where ``down`` (deterministic mode, ``DET``). Past the last block, the count ``n_items`` tells the consumers
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
    def _bulk_wait_but_last():
        """``cp.async.bulk.wait_group 1``: every bulk reduce this thread issued but the latest has completed, its
        writes made (``_bulk_wait_written``'s form, one group left pending)."""
        gl.inline_asm_elementwise("cp.async.bulk.wait_group 1; mov.b32 $0, 0;", "=r", [], dtype=gl.int32,
                                  is_pure=False, pack=1)

    @gluon.jit
    def _dq_convert_part(bh, i, dqa_ptr, dqo_ptr, dqo_sb, dqo_sh, dqo_ss, H, S_q, scale, C0: gl.constexpr,
                         NQ: gl.constexpr):
        """Query tile ``i`` of batch-and-head ``bh``, columns ``C0`` .. ``C0`` + ``NQ`` - 1: the fp32 accumulator
        at ``dqa_ptr`` ((B H_q S_q, 192), read past L1), scaled, into dQ at ``dqo_ptr`` through its strides (its
        head dim packed: the launcher's condition), 64 columns at a time, four to a thread's 16-byte load."""
        layout: gl.constexpr = gl.BlockedLayout([1, 4], [2, 16], [4, 1], [1, 0])
        rows = i * ROWS + gl.arange(0, ROWS, layout=gl.SliceLayout(1, layout))
        keep = (rows < S_q)[:, None]
        src = dqa_ptr + (bh.to(gl.int64) * S_q + rows.to(gl.int64))[:, None] * D_QK
        # each row's start, a multiple of 8 elements (the launcher's condition), so that a thread's four columns go
        # out in one 8-byte store
        at = gl.multiple_of((bh // H).to(gl.int64) * dqo_sb + (bh % H).to(gl.int64) * dqo_sh
                            + rows.to(gl.int64) * dqo_ss, 8)
        dst = dqo_ptr + at[:, None]
        for ch in gl.static_range(NQ // 64):
            cols = C0 + ch * 64 + gl.arange(0, 64, layout=gl.SliceLayout(0, layout))
            acc = gl.load(src + cols[None, :], mask=keep, other=0.0, cache_modifier=".cg")
            gl.store(dst + cols[None, :], (acc * scale).to(dqo_ptr.dtype.element_ty), mask=keep)

    @gluon.jit
    def _conv_args(ctr_ptr, dqa_ptr, dqo_ptr, dqo_sb, dqo_sh, dqo_ss, LEVEL: gl.constexpr):
        """The fused conversion's addresses in shared memory, written before the partitions start: the counters,
        the fp32 accumulator, dQ and its strides (batch, head, row), as int64. The consumers read them at a block's
        end (``_dq_landed``) instead of holding them in registers through their tiles. ``LEVEL`` (``FUSED_DQ``) is
        told to the consumers by the table's length, 8 << (``LEVEL`` - 1)."""
        L: gl.constexpr = gl.BlockedLayout([1], [32], [4], [0])
        k = gl.arange(0, 8, layout=L)
        zero = gl.zeros([8], gl.int64, L)  # a stride the launcher specialised (1) arrives as a constexpr
        v = gl.where(k == 0, ctr_ptr.to(gl.int64), gl.where(k == 1, dqa_ptr.to(gl.int64), gl.where(
            k == 2, dqo_ptr.to(gl.int64), gl.where(k == 3, zero + dqo_sb, gl.where(k == 4, zero + dqo_sh,
                                                                                     zero + dqo_ss)))))
        conv_smem = gl.allocate_shared_memory(gl.int64, [8 << (LEVEL - 1)], gl.SwizzledSharedLayout(1, 1, 1, [0]))
        conv_smem.slice(0, 8).store(v)
        return conv_smem

    @gluon.jit
    def _conv_arg(table, j: gl.constexpr):
        """Entry ``j`` of ``_conv_args``'s table, loaded into ``table``."""
        return gl.max(gl.where(gl.arange(0, 8, layout=table.type.layout) == j, table, -9223372036854775807), axis=0)

    @gluon.jit
    def _dq_landed(conv_smem, item, prev, n_items, n_blocks, head_group, H, S_q, scale, causal, CID: gl.constexpr,
                   C0: gl.constexpr, NQ: gl.constexpr, dt: gl.constexpr, LEVEL: gl.constexpr = 1):
        """The fused conversion's count (``FUSED_DQ``), after this consumer's reduces have completed but
        its latest (``item``'s last tile's): one more key block has landed in each of block ``item``'s query tiles
        but its last, and in block ``prev``'s last tile (``n_items``: no block). Each thread adds one to a tile's
        counter for column part ``CID`` (zeroed by the launcher, past the claim counter: 1 + (bh n_qt + i) 2 +
        CID), acq_rel at GPU scope after a partition barrier, so that the release covers the reduces the issuing
        thread saw complete (as ``_dq_signal``'s); 128 at a time. The add that brings a tile's count to its number
        of key blocks (``_block_coords``'s: min(i + 1, blocks) under the causal mask, else all) converts its part
        (``_dq_convert_part``; not at ``LEVEL`` 2, a timing probe): the reductions that find it pass through shared
        memory behind a barrier, which orders the acquiring thread's add before every thread's loads. Counting a
        block as soon as it ends, rather than a block later, keeps each tile's conversion with the block that
        finishes it (under the mask, about one a block): counted a block late, a head's first block was the last
        count of most of its tiles and one program converted them all (2026-12-04, H200,
        docs/data/h200-2026-12-04c/run4)."""
        L: gl.constexpr = gl.BlockedLayout([1], [32], [4], [0])
        n_qt = gl.cdiv(S_q, ROWS)
        n_bh = n_items // n_blocks
        pid_n, bh = program_tile_at(gl.minimum(item, n_items - 1), n_blocks, n_bh, head_group, False)
        b, h, hk, hv, key0, i0, n = _block_coords(pid_n, bh, H, 1, 1, S_q, causal)
        m = (n - 1) * (item < n_items).to(gl.int32)  # this block's tiles counted now
        p_pid, p_bh = program_tile_at(gl.minimum(prev, n_items - 1), n_blocks, n_bh, head_group, False)
        total = m + (prev < n_items).to(gl.int32)  # and the previous block's last tile
        table = conv_smem.slice(0, 8).load(L)
        # the alignment the launcher checks (16 bytes), which the table's int64s do not carry
        ctr_ptr = _conv_arg(table, 0).to(gl.pointer_type(gl.int32))
        dqa_ptr = gl.multiple_of(_conv_arg(table, 1).to(gl.pointer_type(gl.float32)), 16)
        dqo_ptr = gl.multiple_of(_conv_arg(table, 2).to(gl.pointer_type(dt)), 16)
        dqo_sb = _conv_arg(table, 3)
        dqo_sh = _conv_arg(table, 4)
        dqo_ss = _conv_arg(table, 5)
        for c0 in range(0, total, 128):
            v = c0 + gl.arange(0, 128, layout=L)
            ok = v < total
            tiles = gl.where(v < m, i0 + v, n_qt - 1)
            bhs = gl.where(v < m, bh, p_bh)
            old = gl.atomic_add(ctr_ptr + 1 + (bhs * n_qt + tiles) * 2 + CID, gl.full([128], 1, gl.int32, L),
                                mask=ok, sem="acq_rel", scope="gpu")
            if LEVEL == 1:
                need = gl.where(causal != 0, gl.minimum(tiles + 1, n_blocks), n_blocks)
                last = ok & (old == need - 1)
                for _ in range(gl.sum(last.to(gl.int32), axis=0)):
                    key = gl.min(gl.where(last, v, 2147483647), axis=0)
                    pick = v == key
                    _dq_convert_part(gl.sum(gl.where(pick, bhs, 0), axis=0),
                                     gl.sum(gl.where(pick, tiles, 0), axis=0), dqa_ptr, dqo_ptr, dqo_sb, dqo_sh,
                                     dqo_ss, H, S_q, scale, C0, NQ)
                    last = last & (v != key)

    @gluon.jit
    def _consumer_persist(q_smem, qb_smem, do_smem, k_smem, kb_smem, v_smem, p_smem, ds_smem, dq_smem, dq_desc, kv_bar,
                          kv_empty, item_smem, q_ready, do_ready, q_empty, do_empty, p_full, ds_full, lse_smem,
                          dlt_smem, n_items, n_blocks, head_group, H, G_k, G_v, S_q, S_kv, qk_scale_log2, scale,
                          causal, dk_ptr, dk_sb, dk_sh, dk_ss, dk_sd, dv_ptr, dv_sb, dv_sh, dv_ss, dv_sd, conv_smem,
                          dka_out, dkb_out, dvo_out, info_smem, dq_bars):
        """The persistent form's consumer ``CID``: ``_consumer``'s work for each block the loader hands over
        (``_get_item`` after ``kv_bar``), its tiles counted on through the stages and the P / dS buffers; after a
        block's last products it frees K and V (``kv_empty``), then stores its dK (and dV) while the next block's
        K and V come in: by pointer stores (``_block_out``), or, given the launcher's descriptors ``dka_out``,
        ``dkb_out``, ``dvo_out``, by the bulk-copy engine (``_block_out_tma``). The fused conversion
        (``FUSED_DQ``: ``conv_smem`` holds its addresses, ``_conv_args``; the
        other forms pass a stand-in of another dtype): at the end of each block, once its accumulators are stored and
        their registers free, the block's tiles but its last and the previous block's last tile are counted
        (``_dq_landed``: their reduces have completed, all but the latest) and the tiles they complete converted; the
        program's last tile after its loop. Only the previous block's number is carried through the loop: every
        register held through the tiles costs spills there. Deterministic mode (``DET``: ``info_smem`` holds two
        int32s, the note to this consumer's dQ writer; the other forms pass a stand-in of one, and of ``dq_bars``):
        a block's tiles run from the last down, the diagonal's (masked under the causal mask) last, so that every
        block of a head reaches a tile at the same point of its life; each tile's dQ columns go to the writer
        (``_dq_stage``) in the block's turn, its key block number (``_dq_writer``); after the last block a note of
        turn -1 tells the writer to stop."""
        CID: gl.constexpr = 2 - dq_smem.type.shape[-1] // 64
        NQ: gl.constexpr = COLS0 - CID * (2 * COLS0 - D_QK)
        C0: gl.constexpr = CID * COLS0
        NV: gl.constexpr = 16 + CID * (D_V - 16)  # consumer 0 carries a token dV it never uses
        FUSED: gl.constexpr = conv_smem.dtype == gl.int64
        # dK and dV by the bulk-copy engine (``_block_out_tma``): the launcher's descriptors, else stand-ins whose
        # blocks are 128 columns wide where dK's second chunk's are 64
        TMA_OUT: gl.constexpr = dkb_out.block_type.shape[3] == D_QK - COLS0
        gl.static_assert(not (FUSED and TMA_OUT), "the fused conversion counts the block's reduces as its last groups")
        DET: gl.constexpr = info_smem.type.shape[0] == 2
        NO_DQ: gl.constexpr = info_smem.type.shape[0] == 4  # deterministic mode's split form: dK and dV only
        gl.static_assert(not (FUSED and DET), "deterministic mode's counters are the fused conversion's")
        LEVEL: gl.constexpr = 1 + (conv_smem.type.shape[0] >= 16) + (conv_smem.type.shape[0] >= 32)  # _conv_args
        n_bh = n_items // n_blocks
        prev = n_items  # the previous block (none yet)
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
            if DET:  # from the last tile down, the diagonal's last; the first peeled (its dK comes from zeros)
                i_last = i_start + n_tiles - 1
                dk, dv = _tile(t0, i_last, key0, q_smem, qb_smem, do_smem, k_smem, kb_smem, v_smem, p_smem, ds_smem,
                               dq_smem, dq_desc, q_ready, do_ready, q_empty, do_empty, p_full, ds_full, lse_smem,
                               dlt_smem, bh * S_q, S_q, qk_scale_log2, dk, dv, (causal != 0) & (n_tiles == 1), None,
                               t0, None, None, info_smem, dq_bars, pid_n)
                for t in range(t0 + 1, t0 + n_tiles - 1):
                    dk, dv = _tile(t, i_last - (t - t0), key0, q_smem, qb_smem, do_smem, k_smem, kb_smem, v_smem,
                                   p_smem, ds_smem, dq_smem, dq_desc, q_ready, do_ready, q_empty, do_empty, p_full,
                                   ds_full, lse_smem, dlt_smem, bh * S_q, S_q, qk_scale_log2, dk, dv, False, None, t0,
                                   None, None, info_smem, dq_bars, pid_n)
                if n_tiles > 1:
                    dk, dv = _tile(t0 + n_tiles - 1, i_start, key0, q_smem, qb_smem, do_smem, k_smem, kb_smem, v_smem,
                                   p_smem, ds_smem, dq_smem, dq_desc, q_ready, do_ready, q_empty, do_empty, p_full,
                                   ds_full, lse_smem, dlt_smem, bh * S_q, S_q, qk_scale_log2, dk, dv, causal != 0,
                                   None, t0, None, None, info_smem, dq_bars, pid_n)
            else:
                dk, dv = _tile(t0, i_start, key0, q_smem, qb_smem, do_smem, k_smem, kb_smem, v_smem, p_smem, ds_smem,
                               dq_smem, dq_desc, q_ready, do_ready, q_empty, do_empty, p_full, ds_full, lse_smem,
                               dlt_smem, bh * S_q, S_q, qk_scale_log2, dk, dv, causal != 0, None, t0, NO_DQ=NO_DQ)
                for t in range(t0 + 1, t0 + n_tiles):
                    dk, dv = _tile(t, i_start + t - t0, key0, q_smem, qb_smem, do_smem, k_smem, kb_smem, v_smem,
                                   p_smem, ds_smem, dq_smem, dq_desc, q_ready, do_ready, q_empty, do_empty, p_full,
                                   ds_full, lse_smem, dlt_smem, bh * S_q, S_q, qk_scale_log2, dk, dv, False, None, t0,
                                   NO_DQ=NO_DQ)
            mbarrier.arrive(kv_empty, count=1)  # the block's products that read K and V are done
            if TMA_OUT:
                if DET:  # the writer, not this consumer, issued the block's last reduce from the buffer
                    _block_out_tma(dk, dv, t0 + n_tiles - 1, q_empty, do_empty, b, hk, hv, key0, scale, dq_smem,
                                   dka_out, dkb_out, dvo_out, CID, dq_bars.index(1))
                else:
                    _block_out_tma(dk, dv, t0 + n_tiles - 1, q_empty, do_empty, b, hk, hv, key0, scale, dq_smem,
                                   dka_out, dkb_out, dvo_out, CID)
            else:
                _block_out(dk, dv, t0 + n_tiles - 1, q_empty, do_empty, key0, S_kv, scale,
                           dk_ptr + b.to(gl.int64) * dk_sb + hk.to(gl.int64) * dk_sh, dk_ss, dk_sd,
                           dv_ptr + b.to(gl.int64) * dv_sb + hv.to(gl.int64) * dv_sh, dv_ss, dv_sd, CID, C0)
            if FUSED:  # every reduce of this block but its last tile's has completed, and the block before's last
                _bulk_wait_but_last()
                _thread_barrier()  # the issuing thread's wait has passed before the adds
                if LEVEL < 3:
                    _dq_landed(conv_smem, item, prev, n_items, n_blocks, head_group, H, S_q, scale, causal, CID, C0,
                               NQ, p_smem.dtype, LEVEL)
                prev = item
            t0 += n_tiles
            k += 1
            mbarrier.wait(kv_bar, k & 1)
            item = _get_item(item_smem)
        if DET:  # the writer's last note: no more tiles (once it has read the last tile's, and given the buffer back)
            if t0 > 0:
                mbarrier.wait(dq_bars.index(1), (t0 - 1) & 1)
            _info_put(info_smem, 0, -1)
            _thread_barrier()
            mbarrier.arrive(dq_bars.index(0), count=1)
        tma.store_wait(0)
        if FUSED:  # the program's last block's last tile: every reduce completed
            _bulk_wait_written()
            _thread_barrier()
            if LEVEL < 3:
                _dq_landed(conv_smem, n_items, prev, n_items, n_blocks, head_group, H, S_q, scale, causal, CID, C0, NQ,
                           p_smem.dtype, LEVEL)

    @gluon.jit(do_not_specialize=["H", "G_k", "G_v", "S_q", "S_kv", "S_side", "causal", "n_bh"])
    def attention_bwd_gluon_192_kernel(q_desc, qb_desc, k_desc, kb_desc, v_desc, do_desc, dq0_desc, dq1_desc,
                                       lse_desc, dlt_desc, dk_ptr, dv_ptr, dk_sb, dk_sh, dk_ss, dk_sd, dv_sb, dv_sh,
                                       dv_ss, dv_sd, H, G_k, G_v, S_q, S_kv, S_side, qk_scale_log2, scale, causal,
                                       ctr_ptr, n_bh, dqa_ptr, dqo_ptr, dqo_sb, dqo_sh, dqo_ss, dka_out, dkb_out,
                                       dvo_out, HEAD_GROUP: gl.constexpr, PAIR: gl.constexpr = False,
                                       PERSIST: gl.constexpr = False, SHARE_DS: gl.constexpr = False,
                                       STAGES: gl.constexpr = 2, FUSED_DQ: gl.constexpr = 0, DET: gl.constexpr = False,
                                       NO_DQ: gl.constexpr = False):
        """Grid (cdiv(S_kv, 64), B H_q): a program per (batch, query head, 64-key block), in ``program_tile``'s
        start order (``HEAD_GROUP``: the causal mask's groups, costliest key block first). Query head h reads K
        head h // ``G_k`` and V head h // ``G_v``; dK and dV (from ``dk_ptr`` / ``dv_ptr``, each through its four
        strides) are that K's and V's (fp32 accumulators where heads are shared). ``dq0_desc`` / ``dq1_desc``: the
        zeroed fp32 accumulator (B H_q S_q, 192) in [64, 128] and [64, 64] blocks; ``lse_desc`` / ``dlt_desc``: the
        side buffers, ``S_side`` rows a head. ``PERSIST``: a grid of (at most one program an SM, 1)
        whose programs take the same blocks in the same order one after another (``_loader_persist``), the next
        claimed through the zeroed int32 counter at ``ctr_ptr``; ``n_bh``: B H_q. ``FUSED_DQ`` (persistent
        form only): the pass converts dQ itself, so no DQ_CONVERT follows it: past the claim counter, ``ctr_ptr``
        holds a zeroed counter per (batch and head, query tile, column part), and the consumer whose count completes
        a tile's part writes it from the accumulator at ``dqa_ptr``, scaled, into dQ at ``dqo_ptr`` (16 bits, batch,
        head and row strides ``dqo_s*``, its head dim packed); without it ``dqa_ptr`` / ``dqo_ptr`` are not read.
        ``FUSED_DQ`` 2 and 3 are timing probes (dQ never written): the count without the conversion, and only the wait
        and barrier a block. ``dka_out`` / ``dkb_out`` / ``dvo_out`` (persistent form only): the launcher's
        descriptors of dK's two column chunks ([64, 128] and [64, 64] blocks) and of dV, which the consumers store a
        block's dK and dV through (``_block_out_tma``); else stand-ins with 128-column blocks (Q's), not read, and
        ``dk_ptr`` / ``dv_ptr`` take pointer stores. ``DET`` (deterministic mode, persistent form only, heads
        with K and V of their own): dQ's partials are added in a fixed order, ascending key blocks for every query
        tile, by a dQ writer warp a consumer (``_dq_writer``) over the same counters as ``FUSED_DQ``'s (zeroed by the
        launcher); the blocks' tiles run from the last down (``_consumer_persist``). ``NO_DQ`` (deterministic mode's
        split form, persistent form only): dK and dV only, no dQ product and no reduce; the launcher runs
        the Triton kernels' dQ pass after it."""
        gl.static_assert(q_desc.block_type.shape[3] == COLS0, "Q's first chunk: 128 columns")
        gl.static_assert(qb_desc.block_type.shape[3] == D_QK - COLS0, "Q's second chunk: 64 columns")
        gl.static_assert(not (PAIR and PERSIST), "the pair form is not persistent")
        gl.static_assert(PERSIST or not FUSED_DQ, "the fused conversion is the persistent form's")
        gl.static_assert(PERSIST or not DET, "deterministic mode is the persistent form's")
        gl.static_assert(not (DET and FUSED_DQ), "deterministic mode takes the fused conversion's counters")
        gl.static_assert(PERSIST or not NO_DQ, "the split form is the persistent form's")
        gl.static_assert(not (NO_DQ and (DET or FUSED_DQ)), "the split form writes no dQ: no turns, no conversion")
        gl.static_assert(not (SHARE_DS and (PAIR or PERSIST)), "the dS exchange is a form of its own")
        CLUSTER: gl.constexpr = PAIR or SHARE_DS
        gl.static_assert((STAGES == 2) or ((STAGES == 3) and not CLUSTER),
                         "two Q / dO stages, or three in the forms without an exchange")
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
        if PAIR:  # a column half each, [1, 64, n] (the rank says the form to the partitions)
            dq0_smem = gl.allocate_shared_memory(gl.float32, [1, ROWS, COLS0 // 2],
                                                 gl.NVMMASharedLayout.get_default_for([ROWS, COLS0 // 2], gl.float32))
            dq1_smem = gl.allocate_shared_memory(gl.float32, [1, ROWS, (D_QK - COLS0) // 2], gl.NVMMASharedLayout
                                                 .get_default_for([ROWS, (D_QK - COLS0) // 2], gl.float32))
            _pair_init(_pair_base())
        elif SHARE_DS:  # one staging buffer: rank 0's consumer 0 stages [64, 128], rank 1's consumer 1 [64, 64]
            dq0_smem = gl.allocate_shared_memory(gl.float32, [ROWS, COLS0],
                                                 gl.NVMMASharedLayout.get_default_for([ROWS, COLS0], gl.float32))
            dq1_layout: gl.constexpr = gl.NVMMASharedLayout.get_default_for([ROWS, D_QK - COLS0], gl.float32)
            if REINTERPRET_NAMED:
                dq1_smem = dq0_smem.reinterpret(gl.float32, [ROWS, D_QK - COLS0], dq1_layout)
            else:
                dq1_smem = dq0_smem._reinterpret(gl.float32, [ROWS, D_QK - COLS0], dq1_layout)
            _ds_init(_ds_base())
        else:
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
            if FUSED_DQ:
                conv_smem = _conv_args(ctr_ptr, dqa_ptr, dqo_ptr, dqo_sb, dqo_sh, dqo_ss, FUSED_DQ)
            else:  # a stand-in of another dtype, which says "not this form" to the consumers
                conv_smem = item_smem
            tail = (kv_bar, kv_empty, item_smem, q_ready, do_ready, q_empty, do_empty, p_full, ds_full, lse_smem,
                    dlt_smem, n_items, n_blocks, HEAD_GROUP, H, G_k, G_v, S_q, S_kv, qk_scale_log2, scale, causal,
                    dk_ptr, dk_sb, dk_sh, dk_ss, dk_sd, dv_ptr, dv_sb, dv_sh, dv_ss, dv_sd, conv_smem, dka_out, dkb_out,
                    dvo_out)
            loader = (q_desc, qb_desc, do_desc, k_desc, kb_desc, v_desc, k_smem, kb_smem, v_smem, q_smem, qb_smem,
                      do_smem, kv_bar, kv_empty, item_smem, q_ready, do_ready, q_empty, do_empty, lse_desc, dlt_desc,
                      lse_smem, dlt_smem, ctr_ptr, n_items, n_blocks, HEAD_GROUP, H, G_k, G_v, S_q, S_side, causal,
                      1 if DET else 0)
            if DET:  # each consumer's note to its dQ writer and (staged, free) mbarriers with it
                info_layout: gl.constexpr = gl.SwizzledSharedLayout(1, 1, 1, [0])
                info0 = gl.allocate_shared_memory(gl.int32, [2], info_layout)
                info1 = gl.allocate_shared_memory(gl.int32, [2], info_layout)
                bars0 = gl.allocate_shared_memory(gl.int64, [2, 1], mbarrier.MBarrierLayout())
                bars1 = gl.allocate_shared_memory(gl.int64, [2, 1], mbarrier.MBarrierLayout())
                for j in gl.static_range(2):
                    mbarrier.init(bars0.index(j), count=1)
                    mbarrier.init(bars1.index(j), count=1)
                gl.warp_specialize([(_consumer_persist, common + (dq0_smem, dq0_desc) + tail + (info0, bars0)),
                                    (_consumer_persist, common + (dq1_smem, dq1_desc) + tail + (info1, bars1)),
                                    (_loader_persist, loader),
                                    (_dq_writer, (dq0_smem, dq0_desc, info0, bars0, ctr_ptr, S_q, DET)),
                                    (_dq_writer, (dq1_smem, dq1_desc, info1, bars1, ctr_ptr, S_q, DET))],
                                   [4, 1, 1, 1], [240, 24, 24, 24])
            elif NO_DQ:  # a stand-in of four elements for the note, which says "the split form: no dQ"
                nodq = gl.allocate_shared_memory(gl.int32, [4], gl.SwizzledSharedLayout(1, 1, 1, [0]))
                gl.warp_specialize([(_consumer_persist, common + (dq0_smem, dq0_desc) + tail + (nodq, kv_empty)),
                                    (_consumer_persist, common + (dq1_smem, dq1_desc) + tail + (nodq, kv_empty)),
                                    (_loader_persist, loader)],
                                   [4, 1], [240, 24])
            else:  # stand-ins of one element for the note and the mbarriers, which say "not this form"
                gl.warp_specialize([(_consumer_persist, common + (dq0_smem, dq0_desc) + tail + (item_smem, kv_empty)),
                                    (_consumer_persist, common + (dq1_smem, dq1_desc) + tail + (item_smem, kv_empty)),
                                    (_loader_persist, loader)],
                                   [4, 1], [240, 24])
            return
        if CLUSTER:  # clusters of two programs: key blocks 2j and 2j + 1 of one head, in the pairs' start order
            pair_n, bh = program_tile(HEAD_GROUP, False, 2)
            pid_n = 2 * pair_n + gl.program_id(0) % 2
        else:
            pid_n, bh = program_tile(HEAD_GROUP, False)
        b, h, hk, hv, key0, i_start, n_tiles = _block_coords(pid_n, bh, H, G_k, G_v, S_q, causal, CLUSTER)
        if SHARE_DS:  # the partner block's K, in the same two chunks
            kp_smem = gl.allocate_shared_memory(dt, [KEYS, COLS0], gl.NVMMASharedLayout.get_default_for([KEYS, COLS0],
                                                                                                       dt))
            kbp_smem = gl.allocate_shared_memory(dt, [KEYS, D_QK - COLS0],
                                                 gl.NVMMASharedLayout.get_default_for([KEYS, D_QK - COLS0], dt))
        else:  # a stand-in of three dims, which says "not this form" to the partitions
            kp_smem = p_smem
            kbp_smem = p_smem
        dk_base = dk_ptr + b.to(gl.int64) * dk_sb + hk.to(gl.int64) * dk_sh
        dv_base = dv_ptr + b.to(gl.int64) * dv_sb + hv.to(gl.int64) * dv_sh
        tail = (kv_bar, q_ready, do_ready, q_empty, do_empty, p_full, ds_full, lse_smem, dlt_smem, bh * S_q, key0,
                i_start, n_tiles, S_q, S_kv, qk_scale_log2, scale, causal, dk_base, dk_ss, dk_sd, dv_base, dv_ss,
                dv_sd, kp_smem, kbp_smem)
        loader = (q_desc, qb_desc, do_desc, k_desc, kb_desc, v_desc, b, h, hk, hv, key0, i_start * ROWS, n_tiles,
                  k_smem, kb_smem, v_smem, q_smem, qb_smem, do_smem, kv_bar, q_ready, do_ready, q_empty, do_empty,
                  lse_desc, dlt_desc, bh * S_side, lse_smem, dlt_smem, dq0_smem, kp_smem, kbp_smem)
        # the pair form's loader is a whole warpgroup: no idle padding warp misses the cluster barriers
        gl.warp_specialize([(_consumer, common + (dq0_smem, dq0_desc) + tail),
                            (_consumer, common + (dq1_smem, dq1_desc) + tail), (_loader, loader)],
                           [4, 4 if CLUSTER else 1], [240, 24])
