"""The launcher's module switches: the A/B and diagnostic settings the planner reads (kernel choices, forms, start
orders), each with the measurements that set its default, and ``switches()`` to set them for a block. Moved out of
``launch.py`` unchanged (issue 52, 2026-12-06); ``sdpa_bwd.engine.launch`` re-exports every name, and setting one
there (a test's monkeypatch) sets it here."""

from __future__ import annotations

import contextlib
import os
from typing import Optional

import torch
import triton

from .configs import BackwardConfig
from .kernels import attention_bwd_gluon, attention_fwd_gluon


# Specialise kernels on the lengths (divisibility by 16) except where a length is 1
# (see kernels.attention_fwd._NO_SPECIALIZE for the ptxas crash that rule avoids).
SPECIALIZE_LENGTHS = True


# Streamed tiles (K/V in the forward and the dQ pass, Q/dO in the DKDV pass) are read
# through TMA tensor descriptors where the tensor allows it (``_tma_ok``), and through
# per-element pointers everywhere else. "auto": on CUDA devices; "off": never; "on":
# wherever the tensor allows it, the interpreter included (tests use it to check the
# descriptor path on the CPU).
TMA_MODE = os.environ.get("SDPA_BWD_TMA", "auto")
_TMA_MODES = ("auto", "on", "off")
_HAS_TMA = hasattr(triton.language, "make_tensor_descriptor")  # device-side descriptors (Triton >= 3.4)


# Overrides of the configs' ``head_group`` and ``dv_after_dp`` for A/B runs and tests
# (tools/ab_perf.py); None: the config's own. $SDPA_BWD_HEAD_GROUP sets the first.
HEAD_GROUP: Optional[int] = int(os.environ["SDPA_BWD_HEAD_GROUP"]) if os.environ.get("SDPA_BWD_HEAD_GROUP") else None
DV_AFTER_DP: Optional[bool] = None


def set_head_group(n: Optional[int]) -> None:
    """Start order of the programs for every launch: groups of ``n`` heads, costliest tile
    first (1: head by head); None: each config's own ``head_group``."""
    global HEAD_GROUP
    if n is not None and (not isinstance(n, int) or isinstance(n, bool) or n < 1):
        raise ValueError(f"head group {n!r}: expected an integer >= 1, or None for the config's own")
    HEAD_GROUP = n


# The forward in Gluon (kernels.attention_fwd_gluon, FA3's schedule) where ``gluon_forward_reasons`` finds
# nothing against it; the Triton forward everywhere else. "auto": on; "off": never ($SDPA_BWD_GLUON_FWD=off),
# for A/B runs and to compare the two kernels' results.
GLUON_FORWARD = os.environ.get("SDPA_BWD_GLUON_FWD", "auto")
# (D_qk, D_v) where the Gluon forward was measured faster than the Triton one on the H200 (benchmarks/
# bench_forward.py, docs/perf-log.md; 2026-12-01, docs/data/h200-2026-12-01m), bf16 BHSD: hd128 (run64/,
# $SDPA_BWD_GLUON_FWD on and off) (2,16,4096) 0.509 -> 0.422 ms non-causal, 0.291 -> 0.262 causal; (1,32/8,8192)
# 1.905 -> 1.689, 1.066 -> 0.863; D_qk 192 / D_v 128 as 128 + 64 (run65/) (1,16,4096) 0.358 -> 0.255, 0.194 -> 0.174.
# hd64 with two consumers lost (run64/, run66/: (4,16,2048,64) 0.178 -> 0.194 non-causal, 0.113 -> 0.139 causal);
# with three a program (2026-12-03, docs/data/h200-2026-12-03g/run2, tools/ab_forward.py, in alternation) it wins on
# every hd64 row: bf16 (4,16,2048) 0.182 -> 0.175 ms non-causal, 0.112 -> 0.109 causal, (1,32/8,8192) 1.295 -> 1.120,
# 0.670 -> 0.590. hd80 and hd96 as hd128 (``attention_fwd_gluon.kernel_head_dims``: the bulk copies pad the columns)
# since 2026-12-06, where the Triton forward padded them to 128 in registers: 1.31-1.51x faster on the sweep's tuning
# rows (1.00-1.14 of cuDNN against 0.73-0.81, one outlier 0.35; H100, docs/data/h100-2026-12-06g, ab_perf --table s47).
# $SDPA_BWD_GLUON_HEAD_DIMS (e.g. "128/128") replaces the set for A/B runs.
GLUON_HEAD_DIMS = frozenset(tuple(int(d) for d in pair.split("/")) for pair in
                            os.environ.get("SDPA_BWD_GLUON_HEAD_DIMS",
                                           "128/128,192/128,64/64,80/80,96/96").split(",") if pair)

# The backward in Gluon (kernels.attention_bwd_gluon: dK, dV and dQ in one pass, dQ by TMA bulk reduce) where
# ``gluon_backward_reasons`` finds nothing against it: "auto", or "off" for the Triton kernels everywhere.
GLUON_BACKWARD = os.environ.get("SDPA_BWD_GLUON_BWD", "auto")
# The head dims (D_qk = D_v) it takes, of those its buffers are written for (attention_bwd_gluon.HEAD_DIMS): where
# it was measured faster than the Triton kernels on the H200. hd64 since its 128-row query tiles (2026-12-02,
# docs/data/h200-2026-12-02c/run1, tools/ab_perf.py --table s25): (4,16,2048,64) bf16 0.505-0.516 ms against the
# Triton kernels' 0.527-0.537 non-causal (at 64-row tiles, docs/data/h200-2026-12-02b: 0.538 against 0.528). Under
# the causal mask only the head dims in GLUON_BWD_CAUSAL_HEAD_DIMS. $SDPA_BWD_GLUON_BWD_HEAD_DIMS (e.g. "128")
# replaces the set for A/B runs. hd80 and hd96 run as the hd128 kernel (``attention_bwd_gluon.kernel_head_dim``: the
# bulk copies pad the columns, no tensor is copied) since 2026-12-06, where the Triton kernels padded them to 128 in
# registers: on the sweep's tuning rows 1.31-1.63x faster than them (0.93-1.54 of cuDNN against 0.65-1.11; H100,
# docs/data/h100-2026-12-06g, ab_perf --table s47), and the held-out hd80 row B1-H16/4-S6257 at 0.98 of cuDNN
# against 0.42.
GLUON_BWD_HEAD_DIMS = frozenset(int(d) for d in os.environ.get("SDPA_BWD_GLUON_BWD_HEAD_DIMS",
                                                               "64,80,96,128").split(",") if d)
# Of those, the head dims it takes under the causal mask: both since 2026-12-02 (H200, docs/data/h200-2026-12-02d,
# ab_perf --table s26, each row interleaved): with lse2 and delta brought in by TMA, (4,16,2048,64) bf16 causal
# 0.331-0.333 ms in Gluon against the Triton kernels' 0.335-0.336 (run3/), and 0.327 / 0.327 against 0.338 / 0.336
# with each load issued as soon as its descriptor exists (run5/). Before (lse2 and delta by loads from global memory,
# docs/data/h200-2026-12-02c/run2): 0.357-0.359 against 0.338-0.339. $SDPA_BWD_GLUON_BWD_CAUSAL_HEAD_DIMS replaces it
# (e.g. "128" for the Triton kernels at hd64).
GLUON_BWD_CAUSAL_HEAD_DIMS = frozenset(
    int(d) for d in os.environ.get("SDPA_BWD_GLUON_BWD_CAUSAL_HEAD_DIMS", "64,80,96,128").split(",") if d)

# D_qk 192 / D_v 128 (DeepSeek-V3's head dims) in the Gluon backward (kernels.attention_bwd_gluon_192),
# under the masks named here: "causal" (the diagonal at 0) and "nc" (no mask). Both by default since the kernel's
# form with S and dP split between the consumers (N = 64 products) took the whole call at (1,16,4096) bf16 to 0.633
# ms causal (the form before 0.672, cuDNN 0.603) and 1.166 without the mask (the form before 1.226, the Triton
# kernels' 1.254, cuDNN 1.532; 2026-12-03, H200, docs/data/h200-2026-12-03e/run1, tools/ab192.py). Without the mask it
# holds a 50 MB fp32 dQ accumulator the Triton kernels' separate dQ pass does not (peak memory about 1.00 of cuDNN's
# against 0.58). $SDPA_BWD_GLUON_BWD_192 (e.g. "causal", or "" for the Triton kernels) replaces the set; the switch
# gluon_bwd_192.
GLUON_BWD_192 = frozenset(m for m in os.environ.get("SDPA_BWD_GLUON_BWD_192", "causal,nc").split(",") if m)

# The 192 / 128 Gluon backward's call as three kernels chained by programmatic dependent launch: ODO zeroes
# the fp32 dQ accumulator itself (no zero fill of its own) and lets the next kernel start once its programs have
# begun; the column-split kernel, launched as its dependent, loads K and V before it waits for ODO's writes
# (``griddepcontrol.wait``), and DQ_CONVERT, launched as the kernel's dependent, waits for the kernel's. On by
# default: the whole call at (1,16,4096) 0.627 against 0.633 ms causal bf16, 0.638 / 0.645 fp16, 1.150 / 1.154 and
# 1.179 / 1.182 without the mask (2026-12-03, H200, docs/data/h200-2026-12-03e/run3, tools/ab192.py --switch
# gluon_pdl, in alternation). The hd64 / hd128 Gluon backward's call is chained the same way (docs/data/
# h200-2026-12-03g/run1, tools/ab192.py --switch gluon_pdl --shape ..., bf16, chained against not): (4,16,2048,64)
# 0.459 against 0.467 ms non-causal (fp16 0.467 / 0.473), causal 0.281 / 0.291 fp16 (bf16's pair too noisy to
# read); GQA 32/8 hd64 and (2,16,4096,128) within the runs' spread either way (0.991-1.014). The switch gluon_pdl;
# $SDPA_BWD_GLUON_PDL (1 or 0).
GLUON_PDL = os.environ.get("SDPA_BWD_GLUON_PDL", "1") == "1"

# Deterministic calls in the Gluon backward, its dQ reduces taken in turn by a dQ writer warp a consumer
# (``DETERMINISTIC``; GQA's dK, dV reduces in turn in the epilogue, lower query heads first): bitwise repeatable,
# and with dQ writer warps (2026-12-02, H200, docs/data/h200-2026-12-02f/run3, tools/det_perf.py) 1.00-1.07x of the
# default at hd128 and 1.06-1.16x at hd64, against the Triton kernels' deterministic path's 1.15-1.43x. The form
# before (the consumer took the turn itself and passed it on a tile late, docs/data/h200-2026-12-02c) was 1.29-1.57x.
# False (the switch gluon_bwd_deterministic, or $SDPA_BWD_GLUON_BWD_DET=0) sends them to the Triton kernels.
GLUON_BWD_DETERMINISTIC = os.environ.get("SDPA_BWD_GLUON_BWD_DET", "1") != "0"
# Of those, calls whose K or V heads are shared (GQA, MQA: their dK, dV reduces take turns in the epilogue);
# False ($SDPA_BWD_GLUON_BWD_DET_GQA=0) leaves them to the Triton kernels.
GLUON_BWD_DETERMINISTIC_GQA = os.environ.get("SDPA_BWD_GLUON_BWD_DET_GQA", "1") != "0"
# Deterministic calls under the causal mask at these head dims walk their query tiles up from the diagonal's and
# take each tile's dQ turns in descending key blocks, the programs started highest key block first (the kernel's
# ``DET_UP``, ``attention_bwd_gluon._dq_writer``), so that a head's programs reach each tile one after another
# instead of all at once; elsewhere the walk down with ascending turns. hd64 only: measured (2026-12-03, H200,
# docs/data/h200-2026-12-03c/run2, tools/det_perf.py --orders, bf16), it timed (4,16,2048,64) causal at 1.090x of the
# default against the walk down's 1.144x, but hd128 slower (1.088 / 1.237 / 1.214x at (2,16,4096), (1,16,8192),
# GQA 32/8 against 1.038 / 1.064 / 1.073x: the reversed start order puts a head's longest programs last).
# $SDPA_BWD_GLUON_BWD_DET_UP (e.g. "64,128", or "" for none) or the switch gluon_bwd_det_up (an iterable of head
# dims) replaces the set.
GLUON_BWD_DET_UP = frozenset(int(d) for d in os.environ.get("SDPA_BWD_GLUON_BWD_DET_UP", "64").split(",") if d)
# Where an int64 tensor of (programs, attention_bwd_gluon.STAMP_SLOTS) (tools/phase_stamps.py), the Gluon backward's
# programs write their phase stamps into it (a diagnostic build of the kernel; None: the stamps compile away).
GLUON_BWD_STAMPS: Optional[torch.Tensor] = None

# dK and dV of a Gluon backward call leave by TMA stores where the bulk-copy engine addresses them (``_tma_ok``),
# else by pointer stores through their strides; False: pointer stores always (for A/B runs). Shared K/V heads'
# accumulators are always added in by the bulk-copy engine.
GLUON_BWD_TMA_EPILOGUE = True

# The start order of both Gluon kernels' programs under the causal mask: groups of this many heads, costliest
# tile first across each group (kernels.attention_fwd_gluon.program_tile); ``HEAD_GROUP`` (the head_group
# switch) overrides it. Without the mask every tile costs the same, and they start head by head.
GLUON_HEAD_GROUP = attention_fwd_gluon.CAUSAL_HEAD_GROUP

# Query rows a streamed tile of the Gluon backward holds at hd64 (hd128: 64, the most its shared memory holds):
# 128 as FlashAttention-3's hd64 backward tiles it, which halves the per-tile handshakes and waits a product's
# worth of work; 64 for A/B runs.
GLUON_BWD_HD64_ROWS = 128

# How the two consumers of a 128-row tile (hd64) share its dQ (``attention_bwd_gluon.dq_block``): True, each the
# tile's row half over all columns (products of N = 64 that read half of each dS tile, where a column half's are
# N = 32 and read all of both: the kernel 7-9% faster, 2026-12-03, H200, docs/data/h200-2026-12-03h/run1); False, each a
# column half over all rows, as 64-row tiles always do. $SDPA_BWD_GLUON_BWD_DQ_ROWS=0 or the switch gluon_bwd_dq_rows
# sets it.
GLUON_BWD_DQ_ROWS = os.environ.get("SDPA_BWD_GLUON_BWD_DQ_ROWS", "1") != "0"

# The 192 / 128 backward as a persistent kernel (``attention_bwd_gluon_192``'s ``PERSIST``): one program an
# SM, each taking key blocks in the start order one after another (the next claimed through a zeroed counter), so that
# a block's K and V load under the last block's dK / dV stores and its Q and dO tiles stream on through the same stages.
# At two stages it was even (kernel 0.567 against 0.570 ms causal bf16 at (1,16,4096); 2026-12-03, H200,
# docs/data/h200-2026-12-03j/run2). At three stages it is 1.3-1.5% faster than one program a block:
# docs/data/h200-2026-12-03k/run5 0.555 against 0.563, docs/data/h200-2026-12-03l/run2 (tools/ab192.py --switch
# gluon_bwd192_persist) 0.557 / 0.565 causal bf16, 0.561 / 0.567 fp16, 1.056 / 1.066 non-causal; the same gradients
# (dK, dV bit for bit, dQ within 3e-5). On by default since 2026-12-04, after the full plan on it (run7/ there).
# $SDPA_BWD_GLUON_BWD192_PERSIST=0 or the switch gluon_bwd192_persist turns it off.
GLUON_BWD192_PERSIST = os.environ.get("SDPA_BWD_GLUON_BWD192_PERSIST", "1") != "0"

# The 192 / 128 backward's Q / dO stages (``attention_bwd_gluon_192``'s ``STAGES``): three, so that the loader
# runs two tiles ahead of the consumers, in the bytes of the second P / dS buffer (the handshakes a tile already takes
# order a single buffer's reuse) and the shared memory left (231,600 B of 232,448); or two, as before (the forms with
# an exchange, pair and dS, since removed, kept two). On by default: the kernel 0.565 against 0.574 ms causal at
# (1,16,4096) bf16, 1.066 against 1.091 non-causal, the same gradients bit for bit (2026-12-03, H200, docs/data/h200-2026-12-03k/run3,
# tools/ab192.py --switch gluon_bwd192_three_stages); the full plan on it as before (run6/). The tile-ahead first
# product (docs/data/h200-2026-12-03f), which the third stage was to allow, is still 8% slower (run4/).
# $SDPA_BWD_GLUON_BWD192_THREE_STAGES=0 or the switch gluon_bwd192_three_stages sets it.
GLUON_BWD192_THREE_STAGES = os.environ.get("SDPA_BWD_GLUON_BWD192_THREE_STAGES", "1") != "0"

# The persistent 192 / 128 pass storing each key block's dK and dV by the bulk-copy engine, staged in the consumers'
# dQ staging buffers (``attention_bwd_gluon_192._block_out_tma``), where dK and dV have Q's dtype and the
# engine can address them and no K or V head is shared; the rest keep pointer stores. A timing probe without the
# pointer stores was 11% faster (2026-12-04, H200, docs/data/h200-2026-12-04d/run3).
# $SDPA_BWD_GLUON_BWD192_TMA_EPILOGUE=0 or the switch gluon_bwd192_tma_epilogue turns it off.
GLUON_BWD192_TMA_EPILOGUE = os.environ.get("SDPA_BWD_GLUON_BWD192_TMA_EPILOGUE", "1") == "1"

# Deterministic mode at 192 / 128 as the persistent Gluon pass's split form (``attention_bwd_gluon_192``'s ``NO_DQ``):
# the pass computes dK and dV only (no dQ product, no reduce, no turn), then the Triton kernels' dQ pass
# computes dQ; heads with K and V of their own, S_q a multiple of 4 (the dQ pass reads the side buffers packed, the
# pass in rows of gluon_side_rows). Written because the turn-taking form (dQ writers taking turns; removed 2026-12-06)
# ran 1.38-1.40x of the default on an H100 and the Triton path's DKDV pass is about what the Gluon pass takes without
# dQ: on the H200, where the Gluon pass is the faster of the two, predicted 1.03-1.11x causal, 1.06-1.15x non-causal
# (docs/perf-log.md, 2026-12-05). On since 2026-12-06: right and bitwise repeatable (GPU tests 14/14), 1.095-1.122x of
# the default causal and 1.091-1.100x non-causal at (1,16,4096) bf16 / fp16 on the H200, where the Triton path took
# 1.16-1.22x (docs/data/h200-2026-12-06a). $SDPA_BWD_GLUON_BWD192_DET_SPLIT=0 or the switch gluon_bwd192_det_split
# turns it off.
GLUON_BWD192_DET_SPLIT = os.environ.get("SDPA_BWD_GLUON_BWD192_DET_SPLIT", "1") == "1"

# The Gluon backward on a causal problem with S_q < S_kv runs on parts of its keys (``planner.causal_key_ranges``): a
# second pass launch (bottom-right) and views of K, V, dK and dV a call. That host time is more than the Triton
# kernels lose where the work is short: with fewer kept (query, key) pairs a (batch, head) than this, the Triton
# kernels take the call. On an H100 (2026-12-07, tuning rows, sweep through the API): 328k and 317k pairs a head went
# 0.81 -> 0.71 and 0.88 -> 0.81 of cuDNN, 1.58M to 153M went 0.47 -> 0.53, 1.59 -> 1.97, 1.41 -> 2.21, 1.16 -> 2.12.
# $SDPA_BWD_GLUON_BWD_KEY_PARTS_MIN_PAIRS or the switch gluon_bwd_key_parts_min_pairs sets it (0: always).
GLUON_BWD_KEY_PARTS_MIN_PAIRS = int(os.environ.get("SDPA_BWD_GLUON_BWD_KEY_PARTS_MIN_PAIRS", str(1 << 20)))

_SWITCHES = ("head_group", "dv_after_dp", "gluon_forward", "gluon_head_dims", "gluon_backward",
             "gluon_bwd_tma_epilogue", "gluon_bwd_head_dims", "gluon_bwd_causal_head_dims", "gluon_bwd_hd64_rows",
             "gluon_bwd_deterministic", "gluon_bwd_192", "gluon_bwd_det_up", "gluon_pdl", "gluon_bwd_dq_rows",
             "gluon_bwd192_persist", "gluon_bwd192_three_stages", "gluon_bwd192_tma_epilogue",
             "gluon_bwd192_det_split", "gluon_bwd_key_parts_min_pairs")


@contextlib.contextmanager
def switches(**values):
    """Set the launch-level A/B switches for a block and put them back after it (tools/ab_perf.py, tests):
    ``head_group`` (``set_head_group``), ``dv_after_dp`` (``DV_AFTER_DP``; None: each config's own),
    ``gluon_forward`` (``GLUON_FORWARD`` "auto" or "off"), ``gluon_head_dims`` (``GLUON_HEAD_DIMS``, an iterable of
    (D_qk, D_v) pairs), ``gluon_backward`` (``GLUON_BACKWARD``, likewise),
    ``gluon_bwd_tma_epilogue`` (``GLUON_BWD_TMA_EPILOGUE``), ``gluon_bwd_head_dims`` (``GLUON_BWD_HEAD_DIMS``, an
    iterable of head dims), ``gluon_bwd_causal_head_dims`` (``GLUON_BWD_CAUSAL_HEAD_DIMS``, likewise),
    ``gluon_bwd_hd64_rows`` (``GLUON_BWD_HD64_ROWS``), ``gluon_bwd_deterministic`` (``GLUON_BWD_DETERMINISTIC``),
    ``gluon_bwd_192`` (``GLUON_BWD_192``, an iterable of "causal" and "nc"), ``gluon_bwd_det_up``
    (``GLUON_BWD_DET_UP``, an iterable of head dims), ``gluon_pdl`` (``GLUON_PDL``), ``gluon_bwd_dq_rows``
    (``GLUON_BWD_DQ_ROWS``), ``gluon_bwd192_persist`` (``GLUON_BWD192_PERSIST``), ``gluon_bwd192_three_stages``
    (``GLUON_BWD192_THREE_STAGES``), ``gluon_bwd192_tma_epilogue`` (``GLUON_BWD192_TMA_EPILOGUE``),
    ``gluon_bwd192_det_split`` (``GLUON_BWD192_DET_SPLIT``), ``gluon_bwd_key_parts_min_pairs``
    (``GLUON_BWD_KEY_PARTS_MIN_PAIRS``). A switch not named keeps its value."""
    global HEAD_GROUP, DV_AFTER_DP, GLUON_FORWARD, GLUON_BACKWARD, GLUON_BWD_TMA_EPILOGUE, GLUON_BWD_HEAD_DIMS
    global GLUON_BWD_CAUSAL_HEAD_DIMS, GLUON_BWD_HD64_ROWS, GLUON_BWD_DETERMINISTIC, GLUON_BWD_192
    global GLUON_BWD_DET_UP, GLUON_PDL, GLUON_BWD_DQ_ROWS, GLUON_BWD192_PERSIST, GLUON_BWD192_THREE_STAGES
    global GLUON_BWD192_TMA_EPILOGUE, GLUON_BWD192_DET_SPLIT, GLUON_HEAD_DIMS, GLUON_BWD_KEY_PARTS_MIN_PAIRS
    unknown = sorted(set(values) - set(_SWITCHES))
    if unknown:
        raise ValueError(f"unknown launch switch(es) {unknown}: the switches are {list(_SWITCHES)}")
    rows = values.get("gluon_bwd_hd64_rows", GLUON_BWD_HD64_ROWS)
    if rows not in attention_bwd_gluon.QUERY_ROWS[64]:
        raise ValueError(f"gluon_bwd_hd64_rows {rows!r}: the Gluon backward streams hd64 query tiles of "
                         f"{attention_bwd_gluon.QUERY_ROWS[64]} rows; pass one of those")
    masks = values.get("gluon_bwd_192", GLUON_BWD_192)
    masks = frozenset(masks.split(",") if isinstance(masks, str) else masks) - {""}
    if not masks <= {"causal", "nc"}:
        raise ValueError(f"gluon_bwd_192 {sorted(masks)}: the masks are 'causal' and 'nc' (none); pass a subset")
    det_up = frozenset(int(d) for d in values.get("gluon_bwd_det_up", GLUON_BWD_DET_UP))
    if not det_up <= set(attention_bwd_gluon.HEAD_DIMS):
        raise ValueError(f"gluon_bwd_det_up {sorted(det_up)}: the Gluon backward's deterministic orders are for head "
                         f"dims {attention_bwd_gluon.HEAD_DIMS}; pass a subset")
    before = (HEAD_GROUP, DV_AFTER_DP, GLUON_FORWARD, GLUON_BACKWARD, GLUON_BWD_TMA_EPILOGUE, GLUON_BWD_HEAD_DIMS,
              GLUON_BWD_CAUSAL_HEAD_DIMS, GLUON_BWD_HD64_ROWS, GLUON_BWD_DETERMINISTIC, GLUON_BWD_192,
              GLUON_BWD_DET_UP, GLUON_PDL, GLUON_BWD_DQ_ROWS, GLUON_BWD192_PERSIST, GLUON_BWD192_THREE_STAGES,
              GLUON_BWD192_TMA_EPILOGUE, GLUON_BWD192_DET_SPLIT, GLUON_HEAD_DIMS, GLUON_BWD_KEY_PARTS_MIN_PAIRS)
    try:
        if "gluon_forward" in values:
            GLUON_FORWARD = "auto" if values["gluon_forward"] else "off"
        if "gluon_head_dims" in values:
            GLUON_HEAD_DIMS = frozenset((int(a), int(b)) for a, b in values["gluon_head_dims"])
        if "gluon_backward" in values:
            GLUON_BACKWARD = "auto" if values["gluon_backward"] else "off"
        if "head_group" in values:
            set_head_group(values["head_group"])
        if "dv_after_dp" in values:
            DV_AFTER_DP = None if values["dv_after_dp"] is None else bool(values["dv_after_dp"])
        if "gluon_bwd_tma_epilogue" in values:
            GLUON_BWD_TMA_EPILOGUE = bool(values["gluon_bwd_tma_epilogue"])
        if "gluon_bwd_head_dims" in values:
            GLUON_BWD_HEAD_DIMS = frozenset(int(d) for d in values["gluon_bwd_head_dims"])
        if "gluon_bwd_causal_head_dims" in values:
            GLUON_BWD_CAUSAL_HEAD_DIMS = frozenset(int(d) for d in values["gluon_bwd_causal_head_dims"])
        if "gluon_bwd_hd64_rows" in values:
            GLUON_BWD_HD64_ROWS = rows
        if "gluon_bwd_deterministic" in values:
            GLUON_BWD_DETERMINISTIC = bool(values["gluon_bwd_deterministic"])
        if "gluon_bwd_192" in values:
            GLUON_BWD_192 = masks
        if "gluon_bwd_det_up" in values:
            GLUON_BWD_DET_UP = det_up
        if "gluon_pdl" in values:
            GLUON_PDL = bool(values["gluon_pdl"])
        if "gluon_bwd_dq_rows" in values:
            GLUON_BWD_DQ_ROWS = bool(values["gluon_bwd_dq_rows"])
        if "gluon_bwd192_persist" in values:
            GLUON_BWD192_PERSIST = bool(values["gluon_bwd192_persist"])
        if "gluon_bwd192_three_stages" in values:
            GLUON_BWD192_THREE_STAGES = bool(values["gluon_bwd192_three_stages"])
        if "gluon_bwd192_tma_epilogue" in values:
            GLUON_BWD192_TMA_EPILOGUE = bool(values["gluon_bwd192_tma_epilogue"])
        if "gluon_bwd192_det_split" in values:
            GLUON_BWD192_DET_SPLIT = bool(values["gluon_bwd192_det_split"])
        if "gluon_bwd_key_parts_min_pairs" in values:
            GLUON_BWD_KEY_PARTS_MIN_PAIRS = int(values["gluon_bwd_key_parts_min_pairs"])
        yield
    finally:
        (HEAD_GROUP, DV_AFTER_DP, GLUON_FORWARD, GLUON_BACKWARD, GLUON_BWD_TMA_EPILOGUE, GLUON_BWD_HEAD_DIMS,
         GLUON_BWD_CAUSAL_HEAD_DIMS, GLUON_BWD_HD64_ROWS, GLUON_BWD_DETERMINISTIC, GLUON_BWD_192, GLUON_BWD_DET_UP,
         GLUON_PDL, GLUON_BWD_DQ_ROWS, GLUON_BWD192_PERSIST, GLUON_BWD192_THREE_STAGES, GLUON_BWD192_TMA_EPILOGUE,
         GLUON_BWD192_DET_SPLIT, GLUON_HEAD_DIMS, GLUON_BWD_KEY_PARTS_MIN_PAIRS) = before


def set_tma_mode(mode: str) -> None:
    """Choose how streamed tiles are read: "auto" (CUDA only), "on" or "off" (see TMA_MODE)."""
    global TMA_MODE
    if mode not in _TMA_MODES:
        raise ValueError(f"TMA mode {mode!r}: expected one of {', '.join(_TMA_MODES)}")
    TMA_MODE = mode


# Config overrides for tuning runs (benchmarks/bench_backward.py sets these).
_BWD_OVERRIDE: Optional[BackwardConfig] = None


def set_backward_config_override(cfg: Optional[BackwardConfig]) -> None:
    global _BWD_OVERRIDE
    _BWD_OVERRIDE = cfg
