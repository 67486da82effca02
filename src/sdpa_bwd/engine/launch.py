"""Host launch code for the Triton engine: config choice, grids, side buffers, declines.

Public functions (the engine adapter and ``sdpa_bwd.engine.api`` call these):

* ``triton_not_supported_reasons(*, device_type, dtype, d_qk, d_v, interpreter=None) -> list[str]``
* ``attention_forward(q, k, v, *, scale=None, left_bound=None, right_bound=None,
  alignment="top_left", o=None, stats=None) -> (o, stats)``
* ``attention_backward(q, k, v, o, do, stats, *, scale=None, left_bound=None,
  right_bound=None, alignment="top_left", deterministic=False, dq=None, dk=None,
  dv=None) -> (dq, dk, dv)``

All tensors have logical dims (B, H, S, D); any strides (zero strides on inputs
included) and any storage offset. Outputs given by the caller are written
through their own strides; every element of them is written, nothing else.
"""

from __future__ import annotations

import contextlib
import dataclasses
import functools
import math
import os
from dataclasses import dataclass
from typing import Optional

import torch
import triton

from . import launch_cache, tuning
from .kernels import (
    attention_bwd_dkdv_kernel,
    attention_bwd_dkdv_kernel_any_len,
    attention_bwd_dq_convert_kernel,
    attention_bwd_dq_kernel,
    attention_bwd_dq_kernel_any_len,
    attention_bwd_fused_kernel,
    attention_bwd_fused_kernel_any_len,
    attention_bwd_preprocess_kernel,
    attention_fwd_kernel,
    attention_fwd_kernel_any_len,
)
from .kernels import attention_bwd_gluon, attention_bwd_gluon_192, attention_bwd_gluon_192_k128, attention_fwd_gluon

LOG2E = 1.4426950408889634
MAX_HEAD_DIM = 256
SUPPORTED_DTYPES = (torch.float16, torch.bfloat16, torch.float32)
_DTYPE_NAMES = {"float16": torch.float16, "bfloat16": torch.bfloat16, "float32": torch.float32,
                "fp16": torch.float16, "bf16": torch.bfloat16, "fp32": torch.float32}
# Tile offsets are formed in int32 unless a stride times the largest tile edge
# (256) could pass 2^31; then the kernels form them in int64 (WIDE).
_INT32_SAFE = (1 << 31) // 256


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
# The dQ pass on a second stream, beside the DKDV pass (both need only ODO's side buffers): its
# programs fill the SMs the DKDV pass's last wave leaves idle. Measured 2026-12-01 on the H200 (ab_perf
# --table s7c, docs/data/h200-2026-12-01f): hd64 rows 3.5-4.5% faster, the rest within +-2% (geomean 1.0095
# over the ten BHSD bf16 shapes); every output bitwise equal (tests/gpu); the full plan with it on gives the
# sequential order's verdicts (546 passed, 38 rejected, pair-015; docs/data/h200-2026-12-01g). Off by default all
# the same ($SDPA_BWD_CONCURRENT_DQ=1 turns it on): it costs 41-77 us of host time a call (tools/host_overhead.py:
# 252-296 against 211-219 us), and with it on the benchmark's hd64 rows (0.32 ms of GPU time) came out host-bound in
# half their timings (0.32 or 0.55 ms for the same row; one det/default of 1.28; docs/data/h200-2026-12-01g). Never
# where dQ shares storage with another tensor of the call (the order would then decide the result; the
# problem model rejects such calls, the launcher may be handed them directly).
CONCURRENT_DQ: bool = os.environ.get("SDPA_BWD_CONCURRENT_DQ", "0") == "1"
_SIDE_STREAMS: dict = {}


def _side_stream(device: torch.device) -> torch.cuda.Stream:
    key = device.index if device.index is not None else torch.cuda.current_device()
    if key not in _SIDE_STREAMS:
        _SIDE_STREAMS[key] = torch.cuda.Stream(device=key)
    return _SIDE_STREAMS[key]


def _storage_apart(t: torch.Tensor, others) -> bool:
    """True when ``t``'s storage is none of ``others``' (a cheap, conservative aliasing test)."""
    base = t.untyped_storage().data_ptr()
    return all(o.untyped_storage().data_ptr() != base for o in others)


def _span(t: torch.Tensor) -> tuple:
    """(storage, first byte, one past the last byte) of the memory ``t`` can touch."""
    if t.numel() == 0:
        return (t.untyped_storage().data_ptr(), 0, 0)
    last = sum((n - 1) * abs(st) for n, st in zip(t.shape, t.stride()))
    start = t.data_ptr()
    return (t.untyped_storage().data_ptr(), start, start + (last + 1) * t.element_size())


def _outputs_apart(outs, ins) -> bool:
    """True when no output the caller handed in can touch memory of an input or of another output (outputs the
    launcher allocates are apart by construction). The one-launch backward runs DKDV and dQ programs at once:
    one pass's writes must not reach what the other reads or writes. Conservative: views of one storage whose
    byte ranges interleave (a packed dQKV's columns) count as touching."""
    given = [_span(t) for t in outs if t is not None]
    if not given:
        return True
    spans = given + [_span(t) for t in ins]
    # each output against the outputs after it and every input
    return not any(s == s2 and a < b2 and a2 < b
                   for i, (s, a, b) in enumerate(given) for s2, a2, b2 in spans[i + 1:])


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
# 0.670 -> 0.590. $SDPA_BWD_GLUON_HEAD_DIMS (e.g. "128/128") replaces the set for A/B runs.
GLUON_HEAD_DIMS = frozenset(tuple(int(d) for d in pair.split("/")) for pair in
                            os.environ.get("SDPA_BWD_GLUON_HEAD_DIMS", "128/128,192/128,64/64").split(",") if pair)

# The backward in Gluon (kernels.attention_bwd_gluon: dK, dV and dQ in one pass, dQ by TMA bulk reduce) where
# ``gluon_backward_reasons`` finds nothing against it: "auto", or "off" for the Triton kernels everywhere.
GLUON_BACKWARD = os.environ.get("SDPA_BWD_GLUON_BWD", "auto")
# The head dims (D_qk = D_v) it takes, of those its buffers are written for (attention_bwd_gluon.HEAD_DIMS): where
# it was measured faster than the Triton kernels on the H200. hd64 since its 128-row query tiles (2026-12-02,
# docs/data/h200-2026-12-02c/run1, tools/ab_perf.py --table s25): (4,16,2048,64) bf16 0.505-0.516 ms against the
# Triton kernels' 0.527-0.537 non-causal (at 64-row tiles, docs/data/h200-2026-12-02b: 0.538 against 0.528). Under
# the causal mask only the head dims in GLUON_BWD_CAUSAL_HEAD_DIMS. $SDPA_BWD_GLUON_BWD_HEAD_DIMS (e.g. "128")
# replaces the set for A/B runs.
GLUON_BWD_HEAD_DIMS = frozenset(int(d) for d in os.environ.get("SDPA_BWD_GLUON_BWD_HEAD_DIMS", "64,128").split(",")
                                if d)
# Of those, the head dims it takes under the causal mask: both since 2026-12-02 (H200, docs/data/h200-2026-12-02d,
# ab_perf --table s26, each row interleaved): with lse2 and delta brought in by TMA, (4,16,2048,64) bf16 causal
# 0.331-0.333 ms in Gluon against the Triton kernels' 0.335-0.336 (run3/), and 0.327 / 0.327 against 0.338 / 0.336
# with each load issued as soon as its descriptor exists (run5/). Before (lse2 and delta by loads from global memory,
# docs/data/h200-2026-12-02c/run2): 0.357-0.359 against 0.338-0.339. $SDPA_BWD_GLUON_BWD_CAUSAL_HEAD_DIMS replaces it
# (e.g. "128" for the Triton kernels at hd64).
GLUON_BWD_CAUSAL_HEAD_DIMS = frozenset(
    int(d) for d in os.environ.get("SDPA_BWD_GLUON_BWD_CAUSAL_HEAD_DIMS", "64,128").split(",") if d)

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

# The Triton kernels' fused launch (``BackwardConfig.fused_dq``) chained to ODO the same way: ODO lets it
# start once its programs have begun, and each of its programs waits for ODO's writes (``griddepcontrol.wait``) before
# anything else. Deterministic calls at 192 / 128 take the Triton kernels, 1.16-1.17 of the default's time
# (2026-12-04, H200), whose side kernels' boundaries cost ~1% of the Gluon call (GLUON_PDL above). Off: measured
# (2026-12-05, an H100, docs/data/h100-2026-12-05a/run2, tools/ab_perf.py --table s45) the fused launch there is 10-20%
# slower than the two passes apart (0.755-0.773 against 0.686-0.698 ms causal, 1.446-1.456 against 1.225-1.227
# non-causal), and PDL gains it 0-1%; bitwise the unchained launch (GPU tests). $SDPA_BWD_TRITON_BWD_PDL=1 or the switch
# triton_bwd_pdl turns it on.
TRITON_BWD_PDL = os.environ.get("SDPA_BWD_TRITON_BWD_PDL", "0") == "1"

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
# GQA without the mask and outside deterministic mode, K and V heads shared alike (H_k = H_v < H_q): a program per
# (batch, K/V head, key block) walks the query heads sharing them (the kernel's ``HEAD_LOOP``), its dK and dV in
# registers throughout and stored once, in place of a program per query head adding dK, dV partials into zeroed
# fp32 accumulators that a conversion writes out; only where those programs fill the GPU at least
# GLUON_BWD_HEAD_LOOP_MIN_WAVES times over (fewer, larger programs leave SMs idle on small problems: MQA's one K/V
# head). Off by default ($SDPA_BWD_GLUON_BWD_HEAD_LOOP=1 or the switch gluon_bwd_head_loop turns it on): measured
# (2026-12-03, H200, docs/data/h200-2026-12-03a/run2 and run3, tools/ab_perf.py --table s29, seven GQA 32/8 rows,
# interleaved) at parity, not the 2-5% predicted: the kernel 0.996x of the accumulators' form (2.2% slower while each
# tile divided by the tiles a head to find its head, run2/), the call 1.003x; what it saves is memory (the two fp32
# accumulators of K's and V's size, 67 MB at (1,32/8,8192,128)) and the conversions' ~0.03 ms.
GLUON_BWD_HEAD_LOOP = os.environ.get("SDPA_BWD_GLUON_BWD_HEAD_LOOP", "0") == "1"
GLUON_BWD_HEAD_LOOP_MIN_WAVES = 2
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

# The 192 / 128 backward as clusters of two programs (``attention_bwd_gluon_192``'s ``PAIR``): key blocks
# 2j and 2j + 1 of a head sum their dQ partials in each other's shared memory (asynchronous remote stores, summed and
# reduced under the next tile's first product) and each bulk-reduces a column half, halving the kernel's reduce bytes
# into L2 (48 KB of fp32 a 64-key tile, which bound it: docs/data/h200-2026-12-03f). Under the mask the odd block of a
# pair takes one more tile, its partner's diagonal, fully masked. Off by default: it is even with one program each, not
# faster (kernel (1,16,4096) bf16 causal 0.582 against 0.571 ms, non-causal 1.067 against 1.085; 2026-12-03, H200,
# docs/data/h200-2026-12-03i/run6; the halved reduces alone would give 0.483, run3/, and the remote stores take most
# of that back). $SDPA_BWD_GLUON_BWD192_PAIR=1 or the switch gluon_bwd192_pair turns it on.
GLUON_BWD192_PAIR = os.environ.get("SDPA_BWD_GLUON_BWD192_PAIR", "0") == "1"

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

# The 192 / 128 backward's dS exchange (``attention_bwd_gluon_192``'s ``SHARE_DS``): clusters of two programs
# (key blocks 2j, 2j + 1, as the pair form) that send each other their 16-bit dS tile (8 KB a tile, a third of the pair
# form's fp32 halves) and each take dQ over both key blocks for its own columns (rank 0: 0-127, rank 1: 128-191), so
# each program bulk-reduces half the bytes on average. Off by default: it is correct (GPU tests 62/62 over four forms)
# but slower (2026-12-03, H200, docs/data/h200-2026-12-03j/run4: kernel 0.681 against 0.571 ms causal bf16, 1.273
# against 1.083 non-causal), rank 0 still reducing 32 KB a tile and its owning consumer taking both blocks' dQ products
# in its chain. $SDPA_BWD_GLUON_BWD192_SHARE_DS=1 or the switch gluon_bwd192_share_ds turns it on.
GLUON_BWD192_SHARE_DS = os.environ.get("SDPA_BWD_GLUON_BWD192_SHARE_DS", "0") == "1"

# The 192 / 128 backward's Q / dO stages (``attention_bwd_gluon_192``'s ``STAGES``): three, so that the loader
# runs two tiles ahead of the consumers, in the bytes of the second P / dS buffer (the handshakes a tile already takes
# order a single buffer's reuse) and the shared memory left (231,600 B of 232,448); or two, as before. The forms with
# an exchange (pair, dS) keep two. On by default: the kernel 0.565 against 0.574 ms causal at (1,16,4096) bf16, 1.066
# against 1.091 non-causal, the same gradients bit for bit (2026-12-03, H200, docs/data/h200-2026-12-03k/run3,
# tools/ab192.py --switch gluon_bwd192_three_stages); the full plan on it as before (run6/). The tile-ahead first
# product (docs/data/h200-2026-12-03f), which the third stage was to allow, is still 8% slower (run4/).
# $SDPA_BWD_GLUON_BWD192_THREE_STAGES=0 or the switch gluon_bwd192_three_stages sets it.
GLUON_BWD192_THREE_STAGES = os.environ.get("SDPA_BWD_GLUON_BWD192_THREE_STAGES", "1") != "0"

# The 192 / 128 backward with 128 keys a program (``kernels.attention_bwd_gluon_192_k128``): each consumer
# warpgroup owns 64 keys with all their columns, and the Q / dO tiles and dQ's reduces serve 128 keys, half the L2
# traffic of the 64-key programs (cuDNN's pass moves half our L2 bytes, by Nsight Compute's counters, 2026-12-04,
# docs/data/h200-2026-12-04a; and under the card's power cap a call's time follows its energy). Not persistent, two
# stages; the other 192 forms' switches do not apply to it. Off by default until measured faster.
# $SDPA_BWD_GLUON_BWD192_K128=1 or the switch gluon_bwd192_k128 turns it on.
GLUON_BWD192_K128 = os.environ.get("SDPA_BWD_GLUON_BWD192_K128", "0") == "1"

# The 192 / 128 backward's dQ converted inside its persistent pass (``attention_bwd_gluon_192``'s ``FUSED_DQ``):
# a zeroed counter per (batch and head, query tile, column part) after the claim counter; at the end of each key
# block a consumer counts the tiles whose reduces have landed and converts those whose count it completed, so no
# DQ_CONVERT follows the pass (leaving it out made the call 3.1% faster sustained: 2026-12-04, H200,
# docs/data/h200-2026-12-04b). Causal calls only, into a dQ whose head dim is packed; the rest keep DQ_CONVERT.
# $SDPA_BWD_GLUON_BWD192_FUSED_DQ=1 or the switch gluon_bwd192_fused_dq turns it on; 2 and 3 are the kernel's timing
# probes (dQ never written: the count alone, the wait alone), for tools/sustained192.py.
GLUON_BWD192_FUSED_DQ = int(os.environ.get("SDPA_BWD_GLUON_BWD192_FUSED_DQ", "0"))

# The persistent 192 / 128 pass storing each key block's dK and dV by the bulk-copy engine, staged in the consumers'
# dQ staging buffers (``attention_bwd_gluon_192._block_out_tma``), where dK and dV have Q's dtype and the
# engine can address them and no K or V head is shared; the rest keep pointer stores. A timing probe without the
# pointer stores was 11% faster (2026-12-04, H200, docs/data/h200-2026-12-04d/run3).
# $SDPA_BWD_GLUON_BWD192_TMA_EPILOGUE=0 or the switch gluon_bwd192_tma_epilogue turns it off.
GLUON_BWD192_TMA_EPILOGUE = os.environ.get("SDPA_BWD_GLUON_BWD192_TMA_EPILOGUE", "1") == "1"

# Deterministic mode at 192 / 128 in the persistent Gluon pass (``attention_bwd_gluon_192``'s ``DET``): dQ's
# partials bulk-reduced in ascending key blocks for every query tile by a dQ writer warp a consumer, over a zeroed turn
# counter per (batch and head, query tile, column part), the blocks' tiles walked from the last down, the blocks
# started in head groups (GLUON_HEAD_GROUP) with or without the mask; heads with K and V of their own only (shared
# heads' dK and dV are added by atomics in no order). Without it, deterministic calls at 192 / 128 take the Triton
# kernels: 1.16-1.17 of the default's time (2026-12-04, H200; bar 1.15). Off: right and bitwise repeatable (GPU
# tests, 2026-12-05, an H100) but slower, 1.38-1.40x of the default against the Triton path's 1.03-1.10x there
# (docs/data/h100-2026-12-05a/run1, tools/det_perf.py --shapes 8,9). $SDPA_BWD_GLUON_BWD192_DET=1 or the switch
# gluon_bwd192_deterministic turns it on.
# 2-4 are the dQ writers' timing probes (the kernel's DET: no turn spin; nor written-wait and release add;
# nor reduce), which tools/det_perf.py --det-probes times: their bits may vary, probe 4's dQ is never added. On the
# H100 (docs/data/h100-2026-12-05a/run4): 1.15-1.21x, 1.02-1.05x, 0.82x of the default (the form 1.38-1.39x): each
# writer's serial cycle (acquire spin, reduce, wait for its writes, release add) is longer than a consumer's tile.
GLUON_BWD192_DETERMINISTIC = int(os.environ.get("SDPA_BWD_GLUON_BWD192_DET", "0"))

# Deterministic mode at 192 / 128 as the persistent Gluon pass's split form (``attention_bwd_gluon_192``'s ``NO_DQ``):
# the pass computes dK and dV only (no dQ product, no reduce, no turn), then the Triton kernels' dQ pass
# computes dQ; heads with K and V of their own, S_q a multiple of 4 (the dQ pass reads the side buffers packed, the
# pass in rows of gluon_side_rows). Written because the turn-taking form ran 1.38-1.40x of the default on an H100 and
# the Triton path's DKDV pass is about what the Gluon pass takes without dQ: on the H200, where the Gluon pass is the
# faster of the two, predicted 1.03-1.11x causal, 1.06-1.15x non-causal (docs/perf-log.md, 2026-12-05). On since
# 2026-12-06: right and bitwise repeatable (GPU tests 14/14), 1.095-1.122x of the default causal and 1.091-1.100x
# non-causal at (1,16,4096) bf16 / fp16 on the H200, where the Triton path took 1.16-1.22x (docs/data/h200-2026-12-06a).
# Taken before the turn-taking form where both are on. $SDPA_BWD_GLUON_BWD192_DET_SPLIT=0 or the switch
# gluon_bwd192_det_split turns it off.
GLUON_BWD192_DET_SPLIT = os.environ.get("SDPA_BWD_GLUON_BWD192_DET_SPLIT", "1") == "1"

_SWITCHES = ("head_group", "dv_after_dp", "concurrent_dq", "gluon_forward", "gluon_backward",
             "gluon_bwd_tma_epilogue", "gluon_bwd_head_dims", "gluon_bwd_causal_head_dims", "gluon_bwd_hd64_rows",
             "gluon_bwd_deterministic", "gluon_bwd_head_loop", "gluon_bwd_192", "gluon_bwd_det_up", "gluon_pdl",
             "gluon_bwd_dq_rows", "gluon_bwd192_pair", "gluon_bwd192_persist", "gluon_bwd192_share_ds",
             "gluon_bwd192_three_stages", "gluon_bwd192_k128", "gluon_bwd192_fused_dq",
             "gluon_bwd192_tma_epilogue", "triton_bwd_pdl", "gluon_bwd192_deterministic", "gluon_bwd192_det_split")


@contextlib.contextmanager
def switches(**values):
    """Set the launch-level A/B switches for a block and put them back after it (tools/ab_perf.py, tests):
    ``head_group`` (``set_head_group``), ``dv_after_dp`` (``DV_AFTER_DP``; None: each config's own),
    ``concurrent_dq`` (``CONCURRENT_DQ``), ``gluon_forward`` (``GLUON_FORWARD`` "auto" or "off"),
    ``gluon_backward`` (``GLUON_BACKWARD``, likewise), ``gluon_bwd_tma_epilogue`` (``GLUON_BWD_TMA_EPILOGUE``),
    ``gluon_bwd_head_dims`` (``GLUON_BWD_HEAD_DIMS``, an iterable of head dims), ``gluon_bwd_causal_head_dims``
    (``GLUON_BWD_CAUSAL_HEAD_DIMS``, likewise), ``gluon_bwd_hd64_rows`` (``GLUON_BWD_HD64_ROWS``),
    ``gluon_bwd_deterministic`` (``GLUON_BWD_DETERMINISTIC``), ``gluon_bwd_head_loop`` (``GLUON_BWD_HEAD_LOOP``),
    ``gluon_bwd_192`` (``GLUON_BWD_192``, an iterable of "causal" and "nc"), ``gluon_bwd_det_up``
    (``GLUON_BWD_DET_UP``, an iterable of head dims), ``gluon_pdl`` (``GLUON_PDL``), ``gluon_bwd_dq_rows``
    (``GLUON_BWD_DQ_ROWS``), ``gluon_bwd192_pair`` (``GLUON_BWD192_PAIR``), ``gluon_bwd192_persist``
    (``GLUON_BWD192_PERSIST``), ``gluon_bwd192_share_ds`` (``GLUON_BWD192_SHARE_DS``), ``gluon_bwd192_three_stages``
    (``GLUON_BWD192_THREE_STAGES``), ``gluon_bwd192_k128`` (``GLUON_BWD192_K128``), ``gluon_bwd192_fused_dq``
    (``GLUON_BWD192_FUSED_DQ``), ``gluon_bwd192_tma_epilogue`` (``GLUON_BWD192_TMA_EPILOGUE``), ``triton_bwd_pdl``
    (``TRITON_BWD_PDL``), ``gluon_bwd192_deterministic`` (``GLUON_BWD192_DETERMINISTIC``), ``gluon_bwd192_det_split``
    (``GLUON_BWD192_DET_SPLIT``). A switch not named keeps
    its value."""
    global HEAD_GROUP, DV_AFTER_DP, CONCURRENT_DQ, GLUON_FORWARD, GLUON_BACKWARD, GLUON_BWD_TMA_EPILOGUE
    global GLUON_BWD_HEAD_DIMS, GLUON_BWD_CAUSAL_HEAD_DIMS, GLUON_BWD_HD64_ROWS, GLUON_BWD_DETERMINISTIC
    global GLUON_BWD_HEAD_LOOP, GLUON_BWD_192, GLUON_BWD_DET_UP, GLUON_PDL, GLUON_BWD_DQ_ROWS, GLUON_BWD192_PAIR
    global GLUON_BWD192_PERSIST, GLUON_BWD192_SHARE_DS, GLUON_BWD192_THREE_STAGES, GLUON_BWD192_K128
    global GLUON_BWD192_FUSED_DQ, GLUON_BWD192_TMA_EPILOGUE, TRITON_BWD_PDL, GLUON_BWD192_DETERMINISTIC
    global GLUON_BWD192_DET_SPLIT
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
    before = (HEAD_GROUP, DV_AFTER_DP, CONCURRENT_DQ, GLUON_FORWARD, GLUON_BACKWARD, GLUON_BWD_TMA_EPILOGUE,
              GLUON_BWD_HEAD_DIMS, GLUON_BWD_CAUSAL_HEAD_DIMS, GLUON_BWD_HD64_ROWS, GLUON_BWD_DETERMINISTIC,
              GLUON_BWD_HEAD_LOOP, GLUON_BWD_192, GLUON_BWD_DET_UP, GLUON_PDL, GLUON_BWD_DQ_ROWS, GLUON_BWD192_PAIR,
              GLUON_BWD192_PERSIST, GLUON_BWD192_SHARE_DS, GLUON_BWD192_THREE_STAGES, GLUON_BWD192_K128,
              GLUON_BWD192_FUSED_DQ, GLUON_BWD192_TMA_EPILOGUE, TRITON_BWD_PDL, GLUON_BWD192_DETERMINISTIC,
              GLUON_BWD192_DET_SPLIT)
    try:
        if "gluon_forward" in values:
            GLUON_FORWARD = "auto" if values["gluon_forward"] else "off"
        if "gluon_backward" in values:
            GLUON_BACKWARD = "auto" if values["gluon_backward"] else "off"
        if "head_group" in values:
            set_head_group(values["head_group"])
        if "dv_after_dp" in values:
            DV_AFTER_DP = None if values["dv_after_dp"] is None else bool(values["dv_after_dp"])
        if "concurrent_dq" in values:
            CONCURRENT_DQ = bool(values["concurrent_dq"])
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
        if "gluon_bwd_head_loop" in values:
            GLUON_BWD_HEAD_LOOP = bool(values["gluon_bwd_head_loop"])
        if "gluon_bwd_192" in values:
            GLUON_BWD_192 = masks
        if "gluon_bwd_det_up" in values:
            GLUON_BWD_DET_UP = det_up
        if "gluon_pdl" in values:
            GLUON_PDL = bool(values["gluon_pdl"])
        if "gluon_bwd_dq_rows" in values:
            GLUON_BWD_DQ_ROWS = bool(values["gluon_bwd_dq_rows"])
        if "gluon_bwd192_pair" in values:
            GLUON_BWD192_PAIR = bool(values["gluon_bwd192_pair"])
        if "gluon_bwd192_persist" in values:
            GLUON_BWD192_PERSIST = bool(values["gluon_bwd192_persist"])
        if "gluon_bwd192_share_ds" in values:
            GLUON_BWD192_SHARE_DS = bool(values["gluon_bwd192_share_ds"])
        if "gluon_bwd192_three_stages" in values:
            GLUON_BWD192_THREE_STAGES = bool(values["gluon_bwd192_three_stages"])
        if "gluon_bwd192_k128" in values:
            GLUON_BWD192_K128 = bool(values["gluon_bwd192_k128"])
        if "gluon_bwd192_fused_dq" in values:
            GLUON_BWD192_FUSED_DQ = int(values["gluon_bwd192_fused_dq"])
        if "gluon_bwd192_tma_epilogue" in values:
            GLUON_BWD192_TMA_EPILOGUE = bool(values["gluon_bwd192_tma_epilogue"])
        if "triton_bwd_pdl" in values:
            TRITON_BWD_PDL = bool(values["triton_bwd_pdl"])
        if "gluon_bwd192_deterministic" in values:
            GLUON_BWD192_DETERMINISTIC = int(values["gluon_bwd192_deterministic"])
        if "gluon_bwd192_det_split" in values:
            GLUON_BWD192_DET_SPLIT = bool(values["gluon_bwd192_det_split"])
        yield
    finally:
        (HEAD_GROUP, DV_AFTER_DP, CONCURRENT_DQ, GLUON_FORWARD, GLUON_BACKWARD, GLUON_BWD_TMA_EPILOGUE,
         GLUON_BWD_HEAD_DIMS, GLUON_BWD_CAUSAL_HEAD_DIMS, GLUON_BWD_HD64_ROWS, GLUON_BWD_DETERMINISTIC,
         GLUON_BWD_HEAD_LOOP, GLUON_BWD_192, GLUON_BWD_DET_UP, GLUON_PDL, GLUON_BWD_DQ_ROWS, GLUON_BWD192_PAIR,
         GLUON_BWD192_PERSIST, GLUON_BWD192_SHARE_DS, GLUON_BWD192_THREE_STAGES, GLUON_BWD192_K128,
         GLUON_BWD192_FUSED_DQ, GLUON_BWD192_TMA_EPILOGUE, TRITON_BWD_PDL, GLUON_BWD192_DETERMINISTIC,
         GLUON_BWD192_DET_SPLIT) = before


def set_tma_mode(mode: str) -> None:
    """Choose how streamed tiles are read: "auto" (CUDA only), "on" or "off" (see TMA_MODE)."""
    global TMA_MODE
    if mode not in _TMA_MODES:
        raise ValueError(f"TMA mode {mode!r}: expected one of {', '.join(_TMA_MODES)}")
    TMA_MODE = mode


def _tma_ok(t: torch.Tensor) -> bool:
    """Can the bulk-copy engine read one head of ``t`` (B, H, S, D) as a [S, D] matrix?

    It needs the head-dim stride 1, every used base (data pointer plus batch and head
    offsets) and the row pitch 16-byte aligned, rows that do not overlap, and a row
    pitch below 2^40 bytes. The rest of the layouts keep the pointer path.
    """
    if not _HAS_TMA or TMA_MODE == "off" or (TMA_MODE == "auto" and t.device.type != "cuda"):
        return False
    B, H, S, D = t.shape
    sb, sh, sm, sd = t.stride()
    es = t.element_size()
    if S < 2 or (sd != 1 and D > 1) or t.data_ptr() % 16:
        return False
    if sm < D or (sm * es) % 16 or sm * es >= (1 << 40):
        return False
    return all((n == 1 or (s * es) % 16 == 0) for n, s in ((B, sb), (H, sh)))


try:  # Triton >= 3.3 keeps the allocator in a ContextVar: one value per thread (and per asyncio task)
    from triton.runtime._allocation import NullAllocator as _NullAllocator
    from triton.runtime._allocation import _allocator as _triton_allocator
except ImportError:  # a Triton without the variable: set ours on every call (a ContextVar.set, ~0.1 us)
    _NullAllocator, _triton_allocator = None, None


def _torch_allocator(size: int, alignment: int, stream):
    """Scratch memory for a kernel that asks for some at launch (device-side TMA descriptors), from torch's
    caching allocator, so it is freed with the call's other temporaries."""
    device = "cuda" if stream is not None and torch.cuda.is_available() else "cpu"
    return torch.empty(size, dtype=torch.int8, device=device)


def ensure_allocator() -> None:
    """Give Triton an allocator on the thread that is about to launch, unless that thread has one.

    Triton reads its allocator from a context variable, so a value set on one thread is not seen on another;
    autograd runs CUDA backward passes on its own device thread, and data loaders and users run calls on
    theirs. Called at the top of every forward and backward call, before any launch (replayed ones too): a
    context-variable read, well under a microsecond. An allocator the caller set on the thread is kept.
    """
    if _triton_allocator is None:
        triton.set_allocator(_torch_allocator)
    elif isinstance(_triton_allocator.get(), _NullAllocator):
        triton.set_allocator(_torch_allocator)


def _use_tma(*tensors) -> bool:
    return all(_tma_ok(t) for t in tensors)


def _dq_reduce_tma(dq_accum: torch.Tensor, S_q: int, D_qk: int) -> bool:
    """Can the DKDV pass add its dQ partials into the packed fp32 ``dq_accum`` by bulk
    reduce (TMA) rather than one atomic per element? Only on a GPU: Triton's interpreter
    has no descriptor reduce, so the CPU tests take the per-element atomics."""
    if not _HAS_TMA or TMA_MODE == "off" or dq_accum.device.type != "cuda" or interpreter_active():
        return False
    return S_q >= 2 and (D_qk * 4) % 16 == 0 and dq_accum.data_ptr() % 16 == 0


def _kernel(specialised, any_len, S_q: int, S_kv: int):
    if SPECIALIZE_LENGTHS and S_q != 1 and S_kv != 1:
        return specialised
    return any_len


def interpreter_active() -> bool:
    return os.environ.get("TRITON_INTERPRET", "0") not in ("", "0")


@functools.lru_cache(maxsize=None)
def _globals_read() -> tuple:
    """Every module-level name of this file that the two launchers read, directly or through the functions
    here that they call (found in their code objects, nested functions included), whose value can be a dict
    key: the switches, the config tables, the kernels. A call key holds their values, so a switch flipped
    or a function replaced (``switches``, a test's monkeypatch, ab_perf's config tables) is a new key, and the
    key's references keep a replaced function alive, so its id is never reused by another."""
    g = globals()
    names, seen, todo = set(), set(), [attention_forward.__code__, attention_backward.__code__]
    while todo:
        code = todo.pop()
        if code in seen:
            continue
        seen.add(code)
        todo.extend(c for c in code.co_consts if hasattr(c, "co_names"))
        for n in code.co_names:
            if n in g and n not in ("_call_key", "launch_cache"):
                names.add(n)
                fn = getattr(g[n], "__wrapped__", g[n])
                if getattr(fn, "__module__", None) == __name__ and hasattr(fn, "__code__"):
                    todo.append(fn.__code__)
    keep = []
    for n in sorted(names):
        try:
            hash(g[n])
        except TypeError:
            continue  # state such as the side streams' dict: read only off the cached paths
        keep.append(n)
    return tuple(keep)


def _call_key(kind: str, tensors, scalars):
    """The launch cache's key for a call (``sdpa_bwd.engine.launch_cache``), or None where a call must take the
    full path: the cache off, the autotuner on (its choice may change between calls), or the dQ pass on a
    second stream. Besides the tensors and the call's scalars it holds the value of every module-level name
    the launcher reads (``_globals_read``) and the current CUDA device (Triton launches there)."""
    if not launch_cache.ENABLED or CONCURRENT_DQ or tuning.enabled():
        return None
    device = torch.cuda.current_device() if tensors[0].device.type == "cuda" else interpreter_active()
    g = globals()
    return (kind, tuple(map(launch_cache.tensor_key, tensors)), launch_cache.alias_pattern(tensors), scalars,
            device, tuple([g[n] for n in _globals_read()]))


# ----------------------------------------------------------------------------
# Declines


def triton_not_supported_reasons(*, device_type: str, dtype, d_qk: int, d_v: int,
                                 interpreter: Optional[bool] = None) -> list[str]:
    """Why this engine cannot run a well-formed problem; [] when it can.

    Layout never appears here: every stride pattern is addressed (general path).
    """
    if interpreter is None:
        interpreter = interpreter_active()
    reasons = []
    if device_type != "cuda" and not (interpreter and device_type == "cpu"):
        reasons.append(f"device is {device_type!r}: the Triton engine runs on CUDA devices, or on CPU "
                       "tensors only under TRITON_INTERPRET=1 - move the tensors to a CUDA device")
    if isinstance(dtype, str):
        dtype = _DTYPE_NAMES.get(dtype, dtype)
    if dtype not in SUPPORTED_DTYPES:
        reasons.append(f"dtype is {dtype}: supported are float16, bfloat16 and float32 - cast the inputs")
    for name, d in (("D_qk", d_qk), ("D_v", d_v)):
        if d > MAX_HEAD_DIM:
            reasons.append(f"{name} = {d} > {MAX_HEAD_DIM}: the kernels keep a head-dim row of K/V and of "
                           "the dK/dV accumulators in registers up to 256 - use another engine")
    return reasons


# ----------------------------------------------------------------------------
# Configs


@dataclass(frozen=True)
class ForwardConfig:
    block_m: int
    block_n: int
    num_warps: int
    num_stages: int
    # Cover D_qk with two power-of-two column chunks where ``d_qk_chunks`` says so (192 = 128 + 64)
    # rather than padding it to the next power of two; False forces the pad (the A/B baseline).
    split_d_qk: bool = True
    # Programs start in groups of this many heads, costliest tile first inside a group
    # (kernels.attention_fwd.program_tile); 1 is the plain head-by-head order.
    head_group: int = 8
    # The softmax with the score scale folded into exp2's argument (one FMA) and P V accumulated through the
    # product's accumulator (kernels.attention_fwd._fwd_tiles, FUSED_SOFTMAX); taken only where scale > 0.
    # In the 16-bit table for hd64, hd128 causal and hd256, where it won in both of two A/Bs (2026-12-01, H200;
    # ``forward_config``); hd128 non-causal and 192/128 keep the plain softmax.
    fused_softmax: bool = False
    # Its second half alone (kernel constexpr PV_ACC): P V through the product's accumulator. None: with
    # fused_softmax (where that is taken); True / False: on or off whatever fused_softmax says, so that the
    # scale fold and the accumulation can be timed apart. Measured (2026-12-01, H200, ab_perf --table s15,
    # docs/data/h200-2026-12-01j/run52): the fold alone gives the fused path's time on every row, wins and losses; the
    # accumulation alone is within 1% of plain everywhere.
    pv_accumulate: Optional[bool] = None


@dataclass(frozen=True)
class BackwardConfig:
    # DKDV pass: BLOCK_N1 keys stay resident, BLOCK_M1 query rows stream.
    block_m1: int
    block_n1: int
    # DQ pass: BLOCK_M2 query rows stay resident, BLOCK_N2 keys stream.
    block_m2: int
    block_n2: int
    num_warps: int
    num_stages: int
    # "atomic": dQ partials added from the DKDV pass into a fp32 dq_accum, then converted;
    # "separate": a DQ pass that recomputes P (deterministic, no atomics).
    dq_mode: str
    # The DQ pass's own warps/stages (None: same as the DKDV pass).
    dq_num_warps: Optional[int] = None
    dq_num_stages: Optional[int] = None
    # As ForwardConfig.split_d_qk, for every backward kernel.
    split_d_qk: bool = True
    # As ForwardConfig.head_group, for the DKDV and DQ passes.
    head_group: int = 8
    # DKDV issues the dV product after the dP product's wait, so that it runs under the dS
    # arithmetic (kernels.attention_bwd._dkdv_tiles); False: dV, then dP.
    dv_after_dp: bool = False
    # The DKDV pass as two passes even when H_k == H_v, one owning dK and one dV (as for H_k != H_v):
    # one accumulator a pass, so hd256's fits one warpgroup (64 x 256 fp32 = 128 registers a thread)
    # at the price of S^T and P computed in both. The hd256 16-bit entry (ab_perf --table s9, 2026-12-01, H200,
    # docs/data/h200-2026-12-01h/run33).
    split_dkdv: bool = False
    # The DKDV pass and the dQ pass as one launch (kernels.attention_bwd_fused_kernel): the dQ programs start
    # after the DKDV pass's and fill the SMs its last wave leaves idle. Needs one warp count and stage count
    # for both passes (dq_num_warps / dq_num_stages None or equal). Taken where the call has one DKDV pass
    # owning dK and dV (H_k == H_v, no split_dkdv) in the separate dQ mode, and no output handed in touches an
    # input or another output (_outputs_apart: the passes run at once); else the two kernels run apart.
    fused_dq: bool = False
    # The dQ pass streams K and V through tensor descriptors where the layout allows it (False: through
    # pointers always). In the fused launch, descriptors in the dQ branch cost the DKDV branch registers: local
    # sm_90a compile, hd128, its unmasked loop reloads 7 spilled values an iteration with them, 4 without,
    # 3 in the DKDV kernel alone. Measured (2026-12-01, H200, ab_perf --table s16c, docs/data/h200-2026-12-01k/run60):
    # pointers cost the dQ programs more than the reloads, fused or apart: (2,16,4096,128) nc fused 1.713 / 1.755 ->
    # 1.773 / 1.775 ms, apart 1.681 / 1.696 -> 1.731; causal fused 1.007 / 0.996 -> 1.083 / 1.078. So every table entry
    # keeps True.
    dq_kv_tma: bool = True

    def __post_init__(self):
        if self.fused_dq and (self.dq_num_warps not in (None, self.num_warps)
                              or self.dq_num_stages not in (None, self.num_stages)):
            raise ValueError(
                f"BackwardConfig(fused_dq=True) with num_warps={self.num_warps}, num_stages={self.num_stages} but "
                f"dq_num_warps={self.dq_num_warps}, dq_num_stages={self.dq_num_stages}: one launch has one warp "
                f"count and stage count for both passes; set the dQ pass's to None (or equal) or fused_dq=False")


_INTERPRETER_FWD = ForwardConfig(block_m=16, block_n=16, num_warps=4, num_stages=1)
# dV after dP as on the GPU's hd <= 128 configs; tests/test_program_order.py checks the other order too.
_INTERPRETER_BWD = BackwardConfig(16, 16, 16, 16, num_warps=4, num_stages=1, dq_mode="atomic", dv_after_dp=True)


def head_dim_pad(d: int) -> int:
    """The power of two (at least 16) a head dim's tiles are padded to. Plain int arithmetic, as
    ``_cdiv``: ``triton.next_power_of_2`` / ``triton.cdiv`` are constexpr functions, a few us of
    host time a call each (``tools/host_overhead.py --python-only``)."""
    return 16 if d <= 16 else 1 << (d - 1).bit_length()


def _cdiv(a: int, b: int) -> int:
    """ceil(a / b) for ints, b > 0: a launch grid's tile count."""
    return -(-a // b)


def d_qk_chunks(d_qk: int, dtype: torch.dtype, split: bool = True) -> tuple[int, int]:
    """(D_QK_PAD, D_QK_SPLIT): the column chunks the kernels cover D_qk with.

    For 16-bit dtypes a D_qk in (128, 192] runs as a full 128-column chunk plus a
    second one of pad(D_qk - 128) columns (192 = 128 + 64, DeepSeek-V3's D_qk), not
    as one chunk padded to 256: the pad made a quarter of every product over D_qk
    multiply zeros (QK^T and dK in the DKDV pass, QK^T and dQ in the dQ pass: 4 of
    the backward's 7 products; QK^T: 1 of the forward's 2). Everything else: one chunk, pad(D_qk), and
    D_QK_SPLIT = 0, which compiles to the kernels' code from before the split
    (same PTX for sm_90a on Triton 3.6 and 3.9, local compile).
    fp32 keeps the pad: its dots are FMA loops, not tensor-core MMAs, and ptxas
    (Triton 3.6, sm_90a) compiles the split fp32 forward at its 64/32 config to 32
    registers and 9.9 KB of stack per thread (padded: 255 registers, 464 B).
    """
    if split and dtype != torch.float32 and 128 < d_qk <= 192:
        return 128, head_dim_pad(d_qk - 128)
    return head_dim_pad(d_qk), 0


@functools.lru_cache(maxsize=None)
def forward_config(d_qk_pad: int, d_v_pad: int, dtype: torch.dtype, device_type: str,
                   causal: bool = False) -> ForwardConfig:
    """The measured config for a head-dim class; ``causal`` (right_bound 0, no left bound, either alignment)
    picks the hd128 16-bit entry with the fused softmax, the one mask where it wins at hd128.

    The fused softmax (``ForwardConfig.fused_softmax``), H200 bf16 BHSD, plain -> fused, ms, 2026-12-01: one
    timing each (ab_perf --table s12, docs/data/h200-2026-12-01i/run45), then two each, interleaved, the faster
    kept (--table s13, docs/data/h200-2026-12-01j/run46): hd64 nc 0.188 -> 0.179, 0.186 -> 0.177; hd64 causal 0.115 ->
    0.114, 0.114 -> 0.112; hd128 causal (2,16,4096) 0.307 -> 0.293, 0.309 -> 0.291, (1,32/8,8192) 1.070 -> 1.041 (the
    second); hd256 nc 0.566 -> 0.552, 0.563 -> 0.550. It loses at hd128 non-causal: (2,16,4096) 0.509 -> 0.525, 0.525 ->
    0.527; (1,16,8192) 1.074 -> 1.064, 1.011 -> 1.049; (1,32/8,8192) 2.104 -> 2.093, 2.020 -> 2.059; fp16 0.541 ->
    0.547, 0.543 -> 0.548; and 192/128 is even (nc 0.347 -> 0.343, causal 0.191 both, the second)."""
    if device_type != "cuda":
        return _INTERPRETER_FWD
    if dtype == torch.float32:
        # fp32 dots are FMA loops (no tensor cores): the 16-bit tiles only cost compile time and
        # shared memory. The hd128 one needs 229,888 B of the H200's 232,448 in fp32 and compiles in
        # 13.1 s; 64/32 on 2 stages: 73,984 B and 5.9 s (hd64: 12.8 -> 3.0 s; local ptxas, Triton
        # 3.6, sm_90a). The fp32 forward was 20% of a cold compile of the full plan
        # (docs/data/compile-times-sm90.md); 64/32 s2 is the config fp32 hd256 already ran with.
        return ForwardConfig(64, 32, num_warps=4, num_stages=2)
    d = max(d_qk_pad, d_v_pad)
    # head_group: the start order's A/B, H200 bf16 (ab_perf --table s6, 2026-12-01, docs/data/h200-2026-12-01e),
    # causal rows against the head-by-head order: (4,16,2048,64) 0.132 -> 0.115 ms with groups of 16
    # (0.128 with 8); (2,16,4096,128) 0.358 -> 0.322, (1,32/8,8192,128) 1.208 -> 1.174 with 4 (0.323, 1.206
    # with 8); non-causal rows within 1%.
    if d <= 64:
        return ForwardConfig(128, 64, num_warps=4, num_stages=3, head_group=16, fused_softmax=True)
    if d <= 128:
        # 2026-12-01, H200 (ab_perf --table s7b, bf16, docs/data/h200-2026-12-01f): 128/128 on 3 stages against the
        # 128/64 of the FA2/Triton tutorial shape that every earlier number ran: (2,16,4096) 0.575 -> 0.514 ms
        # non-causal, 0.324 -> 0.306 causal, (1,32/8,8192) 2.206 -> 1.972 (4 stages need 296 KB of shared memory).
        # Later that day (--table s13, docs/data/h200-2026-12-01j/run46): 2 stages 0.527 -> 0.625 ms (fused), 256/64 on
        # 16 warps 0.706; the start order in groups of 1 / 8 / 16 heads against 4: within 2% non-causal at (2,16,4096),
        # 3-10% slower on the GQA rows (any layout) and causal.
        return ForwardConfig(128, 128, num_warps=8, num_stages=3, head_group=4, fused_softmax=causal)
    if d_qk_pad == 256 and d_v_pad <= 128 and dtype != torch.float32:
        # fp32 keeps the hd256 config: these tiles need 272-320 KiB of shared memory in fp32
        # (OutOfResources on plan cases pair-025/pair-070, device run 2026-12-01).
        # D_qk 192 / D_v 128 (DeepSeek-V3), H200 bf16 (1,16,4096) (A/B, 2026-12-01,
        # benchmarks/results/ab_perf_session3.json): 64/64 tiles, 4 warps, 3 stages 0.442 ms nc / 0.270 causal against
        # 0.623 / 0.397 for the hd256 config. Measured padded to 256; kept for the 128 + 64 split (d_qk_chunks), which
        # needs less: a K stage is 64 x 192 x 2 B = 24 KiB instead of 32, so 3 x (24 + 16 for V) + 24 for Q = 144 KiB
        # instead of 176 (ptxas, sm_90a, Triton 3.6: 145 KiB with TMA, 149-150 registers, no stack, as padded).
        # Start order: (1,16,4096,192/128) causal 0.265 -> 0.248 ms with groups of 4 (docs/data/h200-2026-12-01e).
        # ab_perf --table s7, s7b (2026-12-01, docs/data/h200-2026-12-01f): 128/64 on 8 warps, 3 stages, which the
        # split's smaller K stages let fit, 0.432 -> 0.339-0.344 ms non-causal, 0.249 -> 0.193 causal (2 stages: 0.437 /
        # 0.257).
        return ForwardConfig(128, 64, num_warps=8, num_stages=3, head_group=4)
    # hd256 (16-bit; fp32 returned above): ab_perf --table s10 (2026-12-01, H200, docs/data/h200-2026-12-01h/run34,
    # (1,16,4096,256) bf16): 128/64 on 8 warps, 2 stages, 0.676 -> 0.559 ms non-causal, 0.365 -> 0.295 causal against
    # the 64/32 4-warp s2 config it had (cuDNN 0.380 / 0.262); 128/32 8w s3 0.589 / 0.315, 64/64 4w s2 0.855 / 0.422.
    return ForwardConfig(128, 64, num_warps=8, num_stages=2, fused_softmax=True)


@functools.lru_cache(maxsize=None)
def backward_config(d_qk_pad: int, d_v_pad: int, dtype: torch.dtype, device_type: str,
                    deterministic: bool, causal: bool = False) -> BackwardConfig:
    """The measured config for a head-dim class; ``causal`` (right_bound 0, no left bound, either
    alignment) picks the hd128 16-bit table's causal entry, the one mask it was measured apart for."""
    if device_type != "cuda":
        cfg = _INTERPRETER_BWD
    else:
        d = max(d_qk_pad, d_v_pad)
        if d <= 64:
            # H200, bf16, (4,16,2048,64) BHSD, TMA on (A/B of 2026-11-30, benchmarks/results/ab_perf_run6.json):
            # a 128/64 dQ pass on 8 warps, 3 stages: 0.547 ms non-causal, 0.399 causal, against 0.590 / 0.427
            # for the 128/32 dQ pass on 4 warps that the A/B before it had kept (0.604 ms with pointers).
            # 2026-12-01 (ab_perf --table s6, (4,16,2048,64) bf16, docs/data/h200-2026-12-01e): the start order in
            # groups of 16 heads 0.435 -> 0.377 ms causal (groups of 8: 0.406), non-causal unchanged; dV after dP 0.545
            # -> 0.523 non-causal, 0.406 -> 0.395 causal (both with groups of 8).
            # ab_perf --table s7b (2026-12-01, docs/data/h200-2026-12-01f): the dQ pass on one warpgroup, 64/64 on
            # 3 stages, 0.370 -> 0.335 ms causal, 0.527 -> 0.531 non-causal (two programs an SM where the 8-warp one ran
            # one).
            cfg = BackwardConfig(32, 128, 64, 64, num_warps=4, num_stages=4, dq_mode="separate",
                                 dq_num_warps=4, dq_num_stages=3, head_group=16, dv_after_dp=True)
        elif d <= 128:
            # H200, bf16, (2,16,4096,128) non-causal BHSD, TMA on (A/B of 2026-11-30, ab_perf_run6.json): 1.786 ms,
            # DKDV 1.146, DQ 0.644; 2 or 4 stages, BLOCK_M1 32, 64/64 DKDV tiles, atomic dQ all slower.
            # Before TMA (2026-11-30, benchmarks/results/ab_run4.log): 1.99 ms (345 TFLOP/s);
            # atomic dQ 2.32 ms, 2 stages 2.27, BLOCK_M2/N2 = 64/128 2.56, all-64 tiles on
            # 4 warps 2.57, 32/128 tiles on 4 warps 4.58. Split (profiler): DKDV 1.30 ms,
            # DQ 0.65 ms, ODO 0.02 ms.
            # ab_perf --table s6 (2026-12-01, bf16, docs/data/h200-2026-12-01e): the start order in groups of 8 heads
            # and dV after dP, against the head-by-head order with dV before dP: (2,16,4096) causal 1.162 -> 1.044 ms,
            # (1,16,8192) causal 2.031 -> 1.849, (1,32/8,8192) causal 4.148 -> 3.726, (2,16,4096)
            # non-causal 1.802 -> 1.712 (DKDV 1.123 -> 1.067; dV after dP alone: 1.722).
            cfg = BackwardConfig(64, 128, 128, 64, num_warps=8, num_stages=3, dq_mode="separate",
                                 head_group=8, dv_after_dp=True)
            if causal and dtype != torch.float32:
                # Causal only: the general entry's tiles with the two passes as one launch (fused_dq). Measured
                # (2026-12-01, H200, ab_perf --table s16, docs/data/h200-2026-12-01k/run54, BHSD bf16, two
                # interleaved timings each): (1,16,8192) 1.912 / 1.811 ms
                # -> 1.766 / 1.765, (1,32/8,8192) 3.787 / 3.691 -> 3.551 / 3.552, (2,16,4096) 1.020 / 1.006 ->
                # 1.004 / 1.012; the same tiles apart 1.834, 3.651, 1.047. Non-causal the fused launch is even
                # or 1-3% slower (1.686 / 1.708 -> 1.708 / 1.758 at (2,16,4096)), so only this entry has it.
                # Before: the DKDV pass on one warpgroup (32/64, 4 warps, two programs an SM) beside the 8-warp
                # dQ pass (ab_perf --table s8b, docs/data/h200-2026-12-01g): 4-6% faster than the tiles apart on
                # every causal shape.
                cfg = BackwardConfig(64, 128, 128, 64, num_warps=8, num_stages=3, dq_mode="separate",
                                     head_group=8, dv_after_dp=True, fused_dq=True)
        elif d_qk_pad == 256 and d_v_pad <= 128 and dtype != torch.float32:  # fp32: see forward_config
            # D_qk 192 / D_v 128, H200 bf16 (1,16,4096) (A/B, 2026-12-01, benchmarks/results/ab_perf_session3.json):
            # DKDV 64/64 on 2 stages, dQ pass 128/32: 2.29 ms nc / 1.42 causal against 5.36 / 2.97 for the hd256 config.
            # The atomic dQ (TMA bulk reduce) lost here too: 2.70 / 1.61.
            # Measured padded to 256; kept for the 128 + 64 split (d_qk_chunks), which shrinks every
            # D_qk tile by a quarter. Shared memory, bf16: DKDV streams Q (64 x 192 x 2 B = 24 KiB, was 32)
            # and dO (16 KiB) on 2 stages = 80 KiB (was 96), plus K/V/dS staging: 121 KiB (was 145);
            # DQ keeps Q (48 KiB, was 64) and dO, streams K (12 KiB, was 16) and V: 120 KiB (was 144)
            # (ptxas, sm_90a, Triton 3.6, TMA on; 3 DKDV stages would fit too: 162 KiB, an A/B variant).
            # Registers a thread (256 threads): the dK accumulator 64 x 192 fp32 = 48 (was 64), the dQ
            # accumulator 128 x 192 = 96 (was 128). DKDV stays at the 255-register ceiling with spills of
            # the same order (TMA 640 B of stack, padded 552 B); the DQ pass drops 239 -> 190 registers.
            # 2026-12-01 (docs/data/h200-2026-12-01e), (1,16,4096,192/128) bf16: start order in groups of 4 heads 1.477
            # -> 1.311 ms causal, 2.122 -> 2.114 non-causal (groups of 8: 1.307 / 2.180). dV after dP costs here: 1.307
            # -> 1.501 causal (DKDV 0.909 -> 1.101), so the split keeps dV before dP.
            # Found 2026-12-01: that 64-key block on 8 warps computed S^T and dP^T twice. Triton 3.6 lays an MMA
            # result of M = 64 rows over warpsPerCTA = [8, 1], one copy per warpgroup (local sm_90a
            # compile: 156 HGMMA against 96 for 128 keys on 8 warps, S^T and dP^T at N = 32, then converted
            # to [4, 2] for dK/dV). One warpgroup per 64 keys instead (4 warps, 32 query rows, 3 stages,
            # 83 KiB of shared memory on 2 stages: two programs an SM), and the dQ pass on one warpgroup
            # too (64/32, 3 stages): ab_perf --table s7, s7b (docs/data/h200-2026-12-01f), (1,16,4096,192/128) bf16,
            # 2.094 -> 1.205 ms non-causal (DKDV 1.372 -> 0.71), 1.318 -> 0.671 causal; 128 keys on 8
            # warps: 1.50-1.69 / 0.81-0.99; dV after dP still loses (1.210 -> 1.319 non-causal).
            cfg = BackwardConfig(32, 64, 64, 32, num_warps=4, num_stages=3, dq_mode="separate",
                                 dq_num_warps=4, dq_num_stages=3, head_group=4)
        elif dtype == torch.float32:
            # fp32 hd256 keeps the 8-warp config it ran the plan with (halved by _fp32_config); the split
            # below was measured for 16-bit dtypes only.
            cfg = BackwardConfig(32, 64, 64, 32, num_warps=8, num_stages=1, dq_mode="separate")
        else:
            # hd256: dK + dV accumulators (2 x 64 x 256 fp32) are 256 registers a thread on one warpgroup,
            # and on 8 warps over 64 keys each warpgroup computed the same S^T / dP^T rows (the 192/128
            # defect above). So the DKDV pass runs as a dK pass and a dV pass (split_dkdv), one
            # accumulator and one warpgroup each, and the dQ pass on one warpgroup. Measured (2026-12-01, H200,
            # ab_perf --table s9, docs/data/h200-2026-12-01h/run33, BHSD): (1,16,4096,256) bf16 7.031 -> 2.536 ms
            # non-causal (DKDV 3.80 -> 1.72, dQ 3.21 -> 0.79), 3.564 -> 1.442 causal; (2,16,2048,256) fp16 3.584 ->
            # 1.393, 1.940 -> 0.877. 2 stages: 3.583 / 1.760 ms; the split on 8 warps: 9.347 / 4.343. cuDNN, same run:
            # 1.788 / 0.972 ms and 1.012 / 0.572 (ratios 0.25-0.30 -> 0.65-0.73). Then (--table s10,
            # docs/data/h200-2026-12-01h/run34, (1,16,4096,256) bf16): the dQ pass 128/32 on 8 warps, 3 stages, 2.547 ->
            # 2.468 ms non-causal (dQ 0.785 -> 0.709), 1.436 -> 1.398 causal; head groups of 4 / 16, 4 stages, 64/64
            # tiles within 1% or slower.
            cfg = BackwardConfig(32, 64, 128, 32, num_warps=4, num_stages=3, dq_mode="separate",
                                 dq_num_warps=8, dq_num_stages=3, split_dkdv=True)
        if dtype == torch.float32:
            cfg = _fp32_config(cfg)
    if deterministic and cfg.dq_mode != "separate":
        cfg = with_dq_mode(cfg, "separate")
    return cfg


def with_dq_mode(cfg: BackwardConfig, dq_mode: str) -> BackwardConfig:
    """``cfg`` with dQ computed the other way ("atomic" or "separate"). The atomic mode adds a dQ partial
    tile to the DKDV pass (BLOCK_M1 x D_qk, staged in shared memory for the TMA bulk reduce); the hd256
    split config's dK pass on 3 stages then asks for 234,496 B of the H200's 232,448 (the GPU test
    test_gpu_atomic_dq_case, 2026-12-01, docs/data/h200-2026-12-01h/run38), so a split config's atomic form runs
    on at most 2 stages."""
    if dq_mode not in ("atomic", "separate"):
        raise ValueError(f"dq_mode = {dq_mode!r}: expected 'atomic' or 'separate'")
    out = dataclasses.replace(cfg, dq_mode=dq_mode)
    if dq_mode == "atomic" and cfg.split_dkdv and cfg.num_stages > 2:
        out = dataclasses.replace(out, num_stages=2)
    return out


def _fp32_config(cfg: BackwardConfig) -> BackwardConfig:
    # fp32 tiles take twice the shared memory of 16-bit ones.
    return BackwardConfig(max(16, cfg.block_m1 // 2), max(16, cfg.block_n1 // 2),
                          max(16, cfg.block_m2 // 2), max(16, cfg.block_n2 // 2),
                          num_warps=cfg.num_warps, num_stages=1, dq_mode=cfg.dq_mode, split_d_qk=cfg.split_d_qk,
                          head_group=cfg.head_group, dv_after_dp=cfg.dv_after_dp, split_dkdv=cfg.split_dkdv)


def backward_candidates(d_qk_pad: int, d_v_pad: int, dtype: torch.dtype, deterministic: bool,
                        causal: bool = False) -> list:
    """Configs the autotuner times (``sdpa_bwd.engine.tuning``): the table's choice first, then the
    runners-up of the H200 A/B runs and, for head dims over 128, untried shapes."""
    table = backward_config(d_qk_pad, d_v_pad, dtype, "cuda", deterministic, causal)
    d = max(d_qk_pad, d_v_pad)
    B = BackwardConfig
    if d <= 64:
        extra = [B(32, 128, 128, 64, 4, 4, "separate", dq_num_warps=8, dq_num_stages=3, head_group=16,
                   dv_after_dp=True),
                 B(32, 128, 128, 32, 4, 4, "separate"), B(32, 128, 128, 64, 4, 3, "separate", dq_num_warps=8),
                 B(64, 128, 128, 64, 8, 3, "separate", dq_num_warps=8)]
    elif d <= 128:
        extra = [B(64, 128, 128, 64, 8, 3, "separate", dq_num_stages=4), B(64, 128, 128, 64, 8, 4, "separate"),
                 B(32, 128, 128, 64, 8, 3, "separate"),
                 B(64, 64, 128, 64, 4, 2, "separate", dq_num_warps=8, dq_num_stages=3, dv_after_dp=True),
                 # the causal entry before the fused launch took it (2026-12-01, docs/data/h200-2026-12-01k), and
                 # the fused launch for either mask
                 B(32, 64, 128, 64, 4, 3, "separate", dq_num_warps=8, dq_num_stages=3, dv_after_dp=True),
                 B(64, 128, 128, 64, 8, 3, "separate", dv_after_dp=True, fused_dq=True)]
    elif d_qk_pad == 256 and d_v_pad <= 128:
        # 192/128: the 8-warp 64-key DKDV the table had before 2026-12-01's one-warpgroup form, and the runners-up
        # of its A/Bs (docs/data/h200-2026-12-01f).
        extra = [B(64, 64, 128, 32, 8, 2, "separate", head_group=4),
                 B(32, 64, 128, 32, 4, 3, "separate", dq_num_warps=8, dq_num_stages=3, head_group=4),
                 B(32, 64, 128, 32, 4, 2, "separate", dq_num_warps=8, dq_num_stages=3, head_group=4),
                 B(32, 128, 128, 32, 8, 3, "separate", head_group=4)]
    else:
        # hd256: the split's first winner (its dQ pass on 4 warps, before the table's 8; docs/data/h200-2026-12-01h),
        # its runners-up (the split on 2 stages, in head groups of 4), the 8-warp config the table had until then, and
        # untried shapes.
        extra = [B(32, 64, 64, 32, 4, 3, "separate", dq_num_warps=4, dq_num_stages=3, split_dkdv=True),
                 B(32, 64, 64, 32, 4, 2, "separate", dq_num_warps=4, dq_num_stages=2, head_group=4, split_dkdv=True),
                 B(32, 64, 64, 32, 8, 1, "separate"),
                 B(32, 64, 64, 32, 8, 2, "separate"), B(64, 64, 64, 64, 8, 2, "separate"),
                 B(64, 64, 64, 64, 8, 1, "separate"), B(32, 128, 128, 32, 8, 1, "separate"),
                 B(64, 128, 128, 64, 8, 1, "separate")]
    if dtype == torch.float32:
        extra = [_fp32_config(c) for c in extra]
    # the table's entry for the other mask class (hd128 has a causal one), as the table made it
    extra.insert(0, backward_config(d_qk_pad, d_v_pad, dtype, "cuda", deterministic, not causal))
    out = [table]
    for c in extra:
        if c not in out:
            out.append(c)
    return out


def forward_candidates(d_qk_pad: int, d_v_pad: int, dtype: torch.dtype, causal: bool = False) -> list:
    """As ``backward_candidates``: the table's choice first, the other mask class's entry, the table's tiles with
    the other softmax (``ForwardConfig.fused_softmax``), the runners-up."""
    table = forward_config(d_qk_pad, d_v_pad, dtype, "cuda", causal)
    d = max(d_qk_pad, d_v_pad)
    F = ForwardConfig
    extra = ([F(128, 64, 4, 4), F(128, 128, 8, 3), F(128, 64, 8, 3, head_group=16)] if d <= 64 else
             [F(128, 64, 8, 3, head_group=4), F(128, 64, 8, 4), F(128, 128, 8, 2)] if d <= 128 else
             [F(64, 64, 4, 3, head_group=4), F(128, 64, 8, 4, head_group=4), F(64, 64, 4, 2), F(128, 32, 8, 2),
              F(128, 32, 8, 3), F(64, 32, 4, 3), F(64, 32, 4, 2)])
    if dtype == torch.float32:
        extra = [F(max(16, c.block_m // 2), max(16, c.block_n // 2), c.num_warps, 1) for c in extra]
    out = [table]
    other_softmax = dataclasses.replace(table, fused_softmax=not table.fused_softmax)
    for c in [forward_config(d_qk_pad, d_v_pad, dtype, "cuda", not causal), other_softmax] + extra:
        # halving the fp32 tiles can make two 16-bit candidates one
        if c not in out:
            out.append(c)
    return out


def _tune_d_qk(d_qk: int, dtype: torch.dtype) -> int:
    """The D_qk the tuning key names: the columns the kernels cover (192 for a 128 + 64 split), so that
    a choice timed on the padded kernels (key d256) is not reused for the split ones."""
    first, second = d_qk_chunks(d_qk, dtype)
    return first + second


def _band_kind(left_bound, right_bound) -> str:
    if left_bound is None and right_bound is None:
        return "none"
    return "right-only" if left_bound is None else "band"


def _tuned(kind: str, q, d_qk_pad: int, d_v_pad: int, left_bound, right_bound, *, gqa: bool,
           deterministic: bool, seq: int, candidates, run, config_type):
    """The autotuner's config for this call (``sdpa_bwd.engine.tuning``), or None when it is off,
    the tensors are not on a CUDA device, or every candidate failed.
    ``candidates`` is called only when tuning is on."""
    if q.device.type != "cuda" or not tuning.enabled():
        return None
    key = tuning.make_key(kind, device=torch.cuda.get_device_name(q.device), dtype=q.dtype, d_qk_pad=d_qk_pad,
                          d_v_pad=d_v_pad, band=_band_kind(left_bound, right_bound), gqa=gqa,
                          deterministic=deterministic, seq=seq)
    return tuning.choose(key, candidates(), run, config_type)


# Config overrides for tuning runs (benchmarks/bench_backward.py sets these).
_BWD_OVERRIDE: Optional[BackwardConfig] = None


def set_backward_config_override(cfg: Optional[BackwardConfig]) -> None:
    global _BWD_OVERRIDE
    _BWD_OVERRIDE = cfg


# ----------------------------------------------------------------------------
# Checks (malformed input is a ValueError; the lead's problem model does the full job)


def _check_rank4(name: str, t: torch.Tensor) -> None:
    if t.dim() != 4:
        raise ValueError(f"{name} has {t.dim()} dims {tuple(t.shape)}: expected 4 (B, H, S, D)")


def _check_output(name: str, t: torch.Tensor, shape, dtype=None) -> None:
    if tuple(t.shape) != tuple(shape):
        raise ValueError(f"{name} has dims {tuple(t.shape)}: expected {tuple(shape)}")
    if dtype is not None and t.dtype != dtype:
        raise ValueError(f"{name} has dtype {t.dtype}: expected {dtype}")
    for axis, (n, s) in enumerate(zip(t.shape, t.stride())):
        if s == 0 and n > 1:
            raise ValueError(f"{name}.stride({axis}) = 0 on an axis of length {n} (strides {t.stride()}): "
                             "elements of an output would share memory - pass a tensor without broadcast")


def _offsets(S_q: int, S_kv: int, left_bound, right_bound, alignment: str):
    if alignment not in ("top_left", "bottom_right"):
        raise ValueError(f"alignment = {alignment!r}: expected 'top_left' or 'bottom_right'")
    if left_bound is not None and left_bound < 1:
        raise ValueError(f"left_bound = {left_bound}: must be >= 1 (or None)")
    if right_bound is not None and right_bound < 0:
        raise ValueError(f"right_bound = {right_bound}: must be >= 0 (or None)")
    shift = S_kv - S_q if alignment == "bottom_right" else 0
    # Offsets beyond +-(S_q + S_kv) mean the same band; clamping keeps int32 tile math safe.
    lim = S_q + S_kv + 1
    lo_off = 0 if left_bound is None else max(-lim, min(lim, 1 - left_bound + shift))
    hi_off = 0 if right_bound is None else max(-lim, min(lim, right_bound + shift))
    return lo_off, hi_off, left_bound is not None, right_bound is not None


def _wide(*tensors) -> bool:
    return any(abs(s) >= _INT32_SAFE for t in tensors for s in t.stride())


def _dot_precision(dtype: torch.dtype, device_type: str = "cuda") -> str:
    # fp32 inputs get real fp32 dots (not tf32); 16-bit inputs use the tensor cores' default.
    if dtype == torch.float32:
        return "ieee"
    if device_type != "cuda" and dtype == torch.bfloat16:
        # The interpreter's bf16 dot is wrong (see kernels.attention_fwd.mma): upcast exactly.
        return "upcast"
    return "tf32"


def _dims(q, k, v):
    for name, t in (("q", q), ("k", k), ("v", v)):
        _check_rank4(name, t)
    B, H_q, S_q, D_qk = q.shape
    Bk, H_k, S_kv, Dk = k.shape
    Bv, H_v, S_v, D_v = v.shape
    if Bk != B or Bv != B:
        raise ValueError(f"batch sizes differ: q {B}, k {Bk}, v {Bv}")
    if Dk != D_qk:
        raise ValueError(f"k.shape[3] = {Dk} != q.shape[3] = {D_qk}: Q and K share D_qk")
    if S_v != S_kv:
        raise ValueError(f"v.shape[2] = {S_v} != k.shape[2] = {S_kv}: K and V share S_kv")
    for name, H in (("k", H_k), ("v", H_v)):
        if H < 1 or H_q % H != 0:
            raise ValueError(f"{name}.shape[1] = {H} does not divide q.shape[1] = {H_q} (GQA/MQA rule)")
    if not (q.dtype == k.dtype == v.dtype):
        raise ValueError(f"dtypes differ: q {q.dtype}, k {k.dtype}, v {v.dtype}")
    return B, H_q, H_k, H_v, S_q, S_kv, D_qk, D_v


def _raise_unsupported(q, D_qk, D_v):
    reasons = triton_not_supported_reasons(device_type=q.device.type, dtype=q.dtype, d_qk=D_qk, d_v=D_v)
    if reasons:
        raise NotImplementedError("Triton engine declines: " + "; ".join(reasons))


def _stats_strides(stats: torch.Tensor, B, H_q, S_q):
    if stats.dim() == 4 and stats.shape[3] == 1:
        shape3 = tuple(stats.shape[:3])
    elif stats.dim() == 3:
        shape3 = tuple(stats.shape)
    else:
        raise ValueError(f"stats has dims {tuple(stats.shape)}: expected (B, H_q, S_q) or (B, H_q, S_q, 1)")
    if shape3 != (B, H_q, S_q):
        raise ValueError(f"stats has dims {tuple(stats.shape)}: expected (B, H_q, S_q) = {(B, H_q, S_q)}")
    if stats.dtype != torch.float32:
        raise ValueError(f"stats has dtype {stats.dtype}: expected torch.float32 (natural-log LSE)")
    return stats.stride()[:3]


# ----------------------------------------------------------------------------
# Forward


@functools.lru_cache(maxsize=None)
def _is_sm90(index: int) -> bool:
    return torch.cuda.get_device_capability(index) == (9, 0)


def _gluon_device_ok(q) -> bool:
    return q.device.type == "cuda" and not interpreter_active() and _is_sm90(q.device.index or 0)


def _gluon_reasons(q, switch: str, switch_name: str, config, direction: str) -> list:
    """The reasons against either Gluon kernel: its switch, this Triton, a Triton config, the device, the dtype."""
    reasons = []
    if switch == "off":
        reasons.append(f"switched off ({switch_name})")
    if not attention_fwd_gluon.AVAILABLE:  # the backward module takes its Gluon names from the forward's
        reasons.append("this Triton has no Gluon Hopper module")
    if config is not None:
        reasons.append(f"a Triton {direction} config was given")
    if not _gluon_device_ok(q):
        reasons.append(f"device {q.device}: not an sm_90 GPU outside Triton's interpreter")
    if q.dtype not in (torch.float16, torch.bfloat16):
        reasons.append(f"dtype {q.dtype}: 16-bit only")
    return reasons


def gluon_forward_reasons(q, k, v, o, stats, *, scale: float, causal: bool, hi_off: int, banded: bool,
                          config=None) -> list:
    """Why the Gluon forward (``kernels.attention_fwd_gluon``) does not take this call; empty: it does.

    It runs on the H200 (sm_90) only, outside Triton's interpreter, for 16-bit Q, K, V of the head dims in
    ``GLUON_HEAD_DIMS``, every row and base of which the bulk-copy engine can read (``_tma_ok``: head-dim
    stride 1, 16-byte aligned bases and row pitches, rows that do not overlap), scale > 0, no band but the
    causal one with its diagonal at 0, and outputs that touch no input. The Triton forward takes the rest."""
    reasons = _gluon_reasons(q, GLUON_FORWARD, "GLUON_FORWARD / $SDPA_BWD_GLUON_FWD", config, "forward")
    if (q.shape[3], v.shape[3]) not in GLUON_HEAD_DIMS:
        reasons.append(f"head dims {(q.shape[3], v.shape[3])}: not in {sorted(GLUON_HEAD_DIMS)}")
    elif not attention_fwd_gluon.has_buffers_for(q.shape[3], v.shape[3]):
        reasons.append(f"head dims {(q.shape[3], v.shape[3])}: not in power-of-two chunks of 16 to 128 (the "
                       "kernel's buffers); take them out of $SDPA_BWD_GLUON_HEAD_DIMS")
    if not scale > 0:
        reasons.append(f"scale {scale}: the exp2 fold needs scale > 0")
    if banded and not (causal and hi_off == 0):
        reasons.append("a band other than the causal one with its diagonal at 0")
    if q.shape[0] * q.shape[1] > 65535:
        reasons.append(f"B * H_q = {q.shape[0] * q.shape[1]}: over the grid's 65535")
    if not all(_tma_ok(t) for t in (q, k, v)):
        reasons.append("Q, K or V is not TMA-addressable (see _tma_ok)")
    if not _outputs_apart((o, stats), (q, k, v)):
        reasons.append("O or the stats touch an input or each other")
    return reasons


def attention_forward(q, k, v, *, scale=None, left_bound=None, right_bound=None, alignment="top_left",
                      o=None, stats=None, config: Optional[ForwardConfig] = None):
    """(O, stats): O (B, H_q, S_q, D_v) in q's dtype, stats float32 (B, H_q, S_q) natural-log LSE."""
    ensure_allocator()
    apart = _outputs_apart((o, stats), (q, k, v))  # in the key: whether the Gluon forward may be taken
    key = _call_key("fwd", (q, k, v, o, stats), (scale, left_bound, right_bound, alignment, config, apart))
    plan = launch_cache.lookup(key)
    if plan is not None:
        # The same call, other tensors: every check passed and every choice was made when it was recorded.
        B, H_q, S_q, D_v = plan.extra
        if o is None:
            o = torch.empty((B, H_q, S_q, D_v), dtype=q.dtype, device=q.device)
        if stats is None:
            stats = torch.empty((B, H_q, S_q), dtype=torch.float32, device=q.device)
        plan.replay((q, k, v, o, stats))
        return o, stats
    rec = launch_cache.Recorder(key)
    B, H_q, H_k, H_v, S_q, S_kv, D_qk, D_v = _dims(q, k, v)
    _raise_unsupported(q, D_qk, D_v)
    scale = 1.0 / math.sqrt(D_qk) if scale is None else float(scale)
    lo_off, hi_off, has_left, has_right = _offsets(S_q, S_kv, left_bound, right_bound, alignment)
    if o is None:
        o = torch.empty((B, H_q, S_q, D_v), dtype=q.dtype, device=q.device)
    else:
        _check_output("o", o, (B, H_q, S_q, D_v), q.dtype)
    if stats is None:
        stats = torch.empty((B, H_q, S_q), dtype=torch.float32, device=q.device)
    st = _stats_strides(stats, B, H_q, S_q)
    if B * H_q * S_q == 0:
        return o, stats
    if S_kv == 0 or D_v == 0:
        o.zero_()
        stats.fill_(float("-inf"))
        return o, stats
    d_qk_pad, d_v_pad = head_dim_pad(D_qk), head_dim_pad(D_v)
    causal = left_bound is None and right_bound == 0
    if not gluon_forward_reasons(q, k, v, o, stats, scale=scale, causal=causal, hi_off=hi_off,
                                 banded=has_left or has_right, config=config):
        g = attention_fwd_gluon
        qk_a, qk_b = g.qk_chunks(D_qk)
        consumers = g.consumers(D_qk, D_v)
        rec.launch(
            g.attention_fwd_gluon_kernel, (_cdiv(S_q, consumers * g.BLOCK_ROWS), B * H_q),
            *_gluon_fwd_descriptors(q, k, v, o, qk_a, qk_b, D_v == qk_a and _tma_ok(o)), stats,
            *o.stride(), *st, H_q, S_q, S_kv, H_q // H_k, H_q // H_v, scale * LOG2E, int(causal),
            D_QK=qk_a, D_QK_B=qk_b, D_V=D_v, BLOCK_N=g.BLOCK_KEYS, STAGES_=g.STAGES, CAUSAL=causal,
            HEAD_GROUP=(HEAD_GROUP or GLUON_HEAD_GROUP) if causal else 1, CONSUMERS=consumers,
            num_warps=4, maxnreg=g.MAX_REGS_BY_CONSUMERS[consumers],
        )
        rec.finish((q, k, v, o, stats), extra=(B, H_q, S_q, D_v))
        return o, stats
    cfg = config or _tuned(
        "fwd", q, _tune_d_qk(D_qk, q.dtype), d_v_pad, left_bound, right_bound, gqa=H_k != H_q or H_v != H_q,
        deterministic=False, seq=max(S_q, S_kv), config_type=ForwardConfig,
        candidates=lambda: forward_candidates(d_qk_pad, d_v_pad, q.dtype, causal),
        run=lambda c: attention_forward(q, k, v, scale=scale, left_bound=left_bound, right_bound=right_bound,
                                        alignment=alignment, config=c),
    ) or forward_config(d_qk_pad, d_v_pad, q.dtype, q.device.type, causal)
    qk_chunk, qk_split = d_qk_chunks(D_qk, q.dtype, cfg.split_d_qk)
    fused = cfg.fused_softmax and scale > 0  # the scale fold needs max(s x) = s max(x)
    grid = (_cdiv(S_q, cfg.block_m), B * H_q)
    rec.launch(
        _kernel(attention_fwd_kernel, attention_fwd_kernel_any_len, S_q, S_kv), grid,
        q, k, v, o, stats,
        *q.stride(), *k.stride(), *v.stride(), *o.stride(), *st,
        H_q, S_q, S_kv, H_q // H_k, H_q // H_v,
        scale * LOG2E, lo_off, hi_off,
        BLOCK_M=cfg.block_m, BLOCK_N=cfg.block_n,
        D_QK=D_qk, D_QK_PAD=qk_chunk, D_QK_SPLIT=qk_split, D_V=D_v, D_V_PAD=d_v_pad,
        HAS_LEFT=has_left, HAS_RIGHT=has_right, DOT_PRECISION=_dot_precision(q.dtype, q.device.type),
        WIDE=_wide(q, k, v, o, stats), TMA=_use_tma(k, v), HEAD_GROUP=HEAD_GROUP or cfg.head_group,
        FUSED_SOFTMAX=fused, PV_ACC=fused if cfg.pv_accumulate is None else cfg.pv_accumulate,
        num_warps=cfg.num_warps, num_stages=cfg.num_stages,
    )
    rec.finish((q, k, v, o, stats), extra=(B, H_q, S_q, D_v))
    return o, stats


# ----------------------------------------------------------------------------
# Backward


def gluon_backward_reasons(q, k, v, do, *, scale: float, causal: bool, hi_off: int, banded: bool,
                           deterministic: bool, apart: bool, config=None) -> list:
    """Why the Gluon backward (``kernels.attention_bwd_gluon``) does not take this call; empty: it does.

    It runs on the H200 (sm_90) only, outside Triton's interpreter, for 16-bit Q, K, V, dO of a head dim in
    ``GLUON_BWD_HEAD_DIMS`` (D_qk = D_v: 64, 128; under the causal mask those in ``GLUON_BWD_CAUSAL_HEAD_DIMS``, both),
    or of D_qk 192 / D_v 128 (``kernels.attention_bwd_gluon_192``, under the masks in ``GLUON_BWD_192``; in
    deterministic mode only where ``GLUON_BWD192_DETERMINISTIC`` or ``GLUON_BWD192_DET_SPLIT`` (S_q a multiple of 4)
    lets it in, in its persistent form, with K and V heads
    of their own), that the bulk-copy engine can read (``_tma_ok``), any K/V head sharing (GQA, MQA: dK and
    dV bulk-reduced into fp32 accumulators; at 192 / 128 added by atomics), scale > 0, no band but the causal one
    with its diagonal at 0 (and S_q >= S_kv under it), in deterministic mode where ``GLUON_BWD_DETERMINISTIC`` lets
    it in (on by default since 2026-12-02: dQ's reduces, and GQA's dK and dV reduces, then take turns), with outputs
    that touch no input. The Triton kernels take the rest."""
    reasons = _gluon_reasons(q, GLUON_BACKWARD, "GLUON_BACKWARD / $SDPA_BWD_GLUON_BWD", config, "backward")
    B, H_q, S_q, D_qk = q.shape
    S_kv, D_v = k.shape[2], v.shape[3]
    H_k, H_v = k.shape[1], v.shape[1]
    split192 = (D_qk, D_v) == attention_bwd_gluon_192.HEAD_DIMS
    if split192:
        mask = "causal" if causal else "nc"
        if mask not in GLUON_BWD_192:
            reasons.append(f"head dims (192, 128) {'under the causal mask' if causal else 'without a mask'}: "
                           f"{mask!r} is not in GLUON_BWD_192 {sorted(GLUON_BWD_192)} ($SDPA_BWD_GLUON_BWD_192)")
        split = _bwd192_det_split(q)
        if deterministic and not (GLUON_BWD192_DETERMINISTIC or split):
            reasons.append("deterministic mode at head dims (192, 128): GLUON_BWD192_DETERMINISTIC is off (the switch "
                           "gluon_bwd192_deterministic, $SDPA_BWD_GLUON_BWD192_DET), and GLUON_BWD192_DET_SPLIT "
                           + ("(the switch gluon_bwd192_det_split) is too" if not GLUON_BWD192_DET_SPLIT else
                              f"takes S_q a multiple of 4 only (S_q = {S_q}: its dQ pass reads the side buffers "
                              "packed)") + ", so the Triton kernels' deterministic path takes it")
        elif deterministic and not _bwd192_persist(q):
            reasons.append("deterministic mode at head dims (192, 128): its forms (turns, split) are the persistent "
                           "form's (GLUON_BWD192_PERSIST on, the pair, dS-exchange and 128-key forms off), so the "
                           "Triton kernels' deterministic path takes it")
        elif deterministic and (H_k != H_q or H_v != H_q):
            reasons.append(f"deterministic mode at head dims (192, 128) with shared K/V heads (H_q, H_k, H_v = "
                           f"{(H_q, H_k, H_v)}): the column-split kernel adds their dK, dV partials by atomics in no "
                           "order, so the Triton kernels' deterministic path takes it")
    elif D_qk != D_v or D_qk not in GLUON_BWD_HEAD_DIMS:
        reasons.append(f"head dims {(D_qk, D_v)}: not D_qk = D_v in {sorted(GLUON_BWD_HEAD_DIMS)}")
    elif D_qk not in attention_bwd_gluon.HEAD_DIMS:
        reasons.append(f"head dims {(D_qk, D_v)}: the kernel's registers and buffers are sized for D_qk = D_v in "
                       f"{attention_bwd_gluon.HEAD_DIMS}; take it out of $SDPA_BWD_GLUON_BWD_HEAD_DIMS")
    if not scale > 0:
        reasons.append(f"scale {scale}: the exp2 fold needs scale > 0")
    if banded and not (causal and hi_off == 0):
        reasons.append("a band other than the causal one with its diagonal at 0")
    if causal and S_q < S_kv:
        reasons.append(f"causal with S_q {S_q} < S_kv {S_kv}: keys no query sees would need zeroed dK, dV")
    if causal and D_qk in GLUON_BWD_HEAD_DIMS and D_qk not in GLUON_BWD_CAUSAL_HEAD_DIMS:
        reasons.append(f"head dim {D_qk} under the causal mask: not in GLUON_BWD_CAUSAL_HEAD_DIMS "
                       f"{sorted(GLUON_BWD_CAUSAL_HEAD_DIMS)} (measured slower there than the Triton kernels)")
    if deterministic and not GLUON_BWD_DETERMINISTIC and not split192:
        reasons.append("deterministic mode: GLUON_BWD_DETERMINISTIC is off (the switch gluon_bwd_deterministic), "
                       "so the Triton kernels' deterministic path takes it")
    if (deterministic and GLUON_BWD_DETERMINISTIC and not split192 and (H_k != H_q or H_v != H_q)
            and not GLUON_BWD_DETERMINISTIC_GQA):
        reasons.append(f"deterministic mode with shared K/V heads (H_q, H_k, H_v = {(H_q, H_k, H_v)}): "
                       "GLUON_BWD_DETERMINISTIC_GQA is off ($SDPA_BWD_GLUON_BWD_DET_GQA=0), so the Triton kernels' "
                       "deterministic path takes it")
    if B * H_q > 65535:
        reasons.append(f"B * H = {B * H_q}: over the grid's 65535")
    if B * H_q * S_q >= 2 ** 31:
        reasons.append(f"B * H_q * S_q = {B * H_q * S_q}: over the bulk copies' int32 row coordinates")
    if not all(_tma_ok(t) for t in (q, k, v, do)):
        reasons.append("Q, K, V or dO is not TMA-addressable (see _tma_ok)")
    if not apart:
        reasons.append("dQ, dK or dV touches an input or another output")
    return reasons


def attention_backward(q, k, v, o, do, stats, *, scale=None, left_bound=None, right_bound=None,
                       alignment="top_left", deterministic=False, dq=None, dk=None, dv=None,
                       config: Optional[BackwardConfig] = None, return_delta: bool = False):
    """(dQ, dK, dV) with the dims and dtype of Q, K, V, written through the given outputs' strides.

    ``return_delta=True`` also returns ODO's side buffer, delta = rowsum(dO * O), packed
    fp32 (B, H_q, S_q): the first stage, for the diagnoser's stage split.
    """
    ensure_allocator()
    apart = _outputs_apart((dq, dk, dv), (q, k, v, do))  # in the key: whether the fused launch may be taken
    key = _call_key("bwd", (q, k, v, o, do, stats, dq, dk, dv),
                    (scale, left_bound, right_bound, alignment, deterministic, config, return_delta, apart))
    plan = launch_cache.lookup(key)
    if plan is not None:
        return _replay_backward(plan, q, k, v, o, do, stats, dq, dk, dv, return_delta)
    rec = launch_cache.Recorder(key)
    B, H_q, H_k, H_v, S_q, S_kv, D_qk, D_v = _dims(q, k, v)
    _raise_unsupported(q, D_qk, D_v)
    for name, t in (("o", o), ("do", do)):
        _check_rank4(name, t)
        if tuple(t.shape) != (B, H_q, S_q, D_v):
            raise ValueError(f"{name} has dims {tuple(t.shape)}: expected (B, H_q, S_q, D_v) = "
                             f"{(B, H_q, S_q, D_v)}")
    st = _stats_strides(stats, B, H_q, S_q)
    scale = 1.0 / math.sqrt(D_qk) if scale is None else float(scale)
    lo_off, hi_off, has_left, has_right = _offsets(S_q, S_kv, left_bound, right_bound, alignment)
    outs = []
    for name, t, ref in (("dq", dq, q), ("dk", dk, k), ("dv", dv, v)):
        if t is None:
            t = torch.empty(ref.shape, dtype=ref.dtype, device=ref.device)
        else:
            _check_output(name, t, ref.shape)
        outs.append(t)
    dq, dk, dv = outs
    if dq.numel():
        if S_kv == 0 or D_v == 0:
            dq.zero_()
    if S_q == 0 or H_q == 0 or B == 0:
        for t in (dq, dk, dv):
            t.zero_()
        return dq, dk, dv
    if S_kv == 0:
        return dq, dk, dv

    d_qk_pad, d_v_pad = head_dim_pad(D_qk), head_dim_pad(D_v)
    causal = left_bound is None and right_bound == 0
    if not gluon_backward_reasons(q, k, v, do, scale=scale, causal=causal, hi_off=hi_off,
                                  banded=has_left or has_right, deterministic=deterministic, apart=apart,
                                  config=config or _BWD_OVERRIDE):
        return _gluon_backward(rec, q, k, v, o, do, stats, st, dq, dk, dv, scale, causal, return_delta,
                               deterministic)
    cfg = config or _BWD_OVERRIDE or _tuned(
        "bwd", q, _tune_d_qk(D_qk, q.dtype), d_v_pad, left_bound, right_bound, gqa=H_k != H_q or H_v != H_q,
        deterministic=deterministic, seq=max(S_q, S_kv), config_type=BackwardConfig,
        candidates=lambda: backward_candidates(d_qk_pad, d_v_pad, q.dtype, deterministic, causal),
        run=lambda c: attention_backward(q, k, v, o, do, stats, scale=scale, left_bound=left_bound,
                                         right_bound=right_bound, alignment=alignment,
                                         deterministic=deterministic, config=c),
    ) or backward_config(d_qk_pad, d_v_pad, q.dtype, q.device.type, deterministic, causal)
    if deterministic and cfg.dq_mode != "separate":
        cfg = with_dq_mode(cfg, "separate")
    qk_chunk, qk_split = d_qk_chunks(D_qk, q.dtype, cfg.split_d_qk)
    wide = _wide(q, k, v, o, do, stats, dq, dk, dv)
    dev = q.device

    atomic = cfg.dq_mode == "atomic"
    delta, lse2, dq_accum = _side_buffers(B, H_q, S_q, D_qk, atomic, dev, S_q)
    concurrent = (not atomic and CONCURRENT_DQ and dev.type == "cuda" and torch.cuda.is_available()
                  and not torch.cuda.is_current_stream_capturing()
                  and _storage_apart(dq, (q, k, v, o, do, stats, dk, dv)))
    one_dkdv_pass = H_k == H_v and not cfg.split_dkdv
    fused = cfg.fused_dq and not atomic and not concurrent and one_dkdv_pass and apart
    pdl = fused and TRITON_BWD_PDL and dev.type == "cuda"  # the fused launch as ODO's programmatic dependent
    _launch_odo(rec, o, do, stats, st, delta, lse2, d_v_pad, wide, S_q, pdl=pdl)

    common = _triton_bwd_constexprs(q, D_v, cfg, has_left, has_right, wide)
    qk_scale_log2 = scale * LOG2E

    tma_qdo = _use_tma(q, do)  # DKDV streams Q and dO
    tma_kv = cfg.dq_kv_tma and _use_tma(k, v)  # the dQ pass streams K and V
    head_group = HEAD_GROUP or cfg.head_group
    dq_tma = atomic and _dq_reduce_tma(dq_accum, S_q, D_qk)

    def dkdv(owner_heads: int, compute_dk: bool, compute_dv: bool, atomic_dq: bool):
        grid = (_cdiv(S_kv, cfg.block_n1), B * owner_heads)
        rec.launch(
            _kernel(attention_bwd_dkdv_kernel, attention_bwd_dkdv_kernel_any_len, S_q, S_kv), grid,
            q, k, v, do, dk, dv, lse2, delta, dq_accum,
            *q.stride(), *k.stride(), *v.stride(), *do.stride(), *dk.stride(), *dv.stride(),
            H_q, owner_heads, H_q // H_k, H_q // H_v, S_q, S_kv,
            qk_scale_log2, scale, lo_off, hi_off,
            BLOCK_M=cfg.block_m1, BLOCK_N=cfg.block_n1,
            COMPUTE_DK=compute_dk, COMPUTE_DV=compute_dv, ATOMIC_DQ=atomic_dq, TMA=tma_qdo,
            DQ_TMA=atomic_dq and dq_tma, HEAD_GROUP=head_group,
            DV_AFTER_DP=cfg.dv_after_dp if DV_AFTER_DP is None else DV_AFTER_DP, **common,
        )

    def dq_pass():
        _launch_triton_dq_pass(rec, cfg, q, k, v, do, dq, lse2, delta, scale, lo_off, hi_off, tma_kv, common)

    if concurrent:
        main, side = torch.cuda.current_stream(dev), _side_stream(dev)
        side.wait_stream(main)  # after ODO
    if fused:
        # One launch: the DKDV programs (one per (b, kv head, key block), owning both dK and dV rows), then
        # the dQ pass's programs (one per (b, q head, query block)).
        n_dkdv = _cdiv(S_kv, cfg.block_n1) * B * H_k
        rec.launch(
            _kernel(attention_bwd_fused_kernel, attention_bwd_fused_kernel_any_len, S_q, S_kv),
            (n_dkdv + _cdiv(S_q, cfg.block_m2) * B * H_q,),
            q, k, v, do, dq, dk, dv, lse2, delta,
            *q.stride(), *k.stride(), *v.stride(), *do.stride(), *dq.stride(), *dk.stride(), *dv.stride(),
            B, H_q, H_k, H_q // H_k, H_q // H_v, S_q, S_kv,
            qk_scale_log2, scale, lo_off, hi_off,
            BLOCK_M1=cfg.block_m1, BLOCK_N1=cfg.block_n1, BLOCK_M2=cfg.block_m2, BLOCK_N2=cfg.block_n2,
            TMA_QDO=tma_qdo, TMA_KV=tma_kv, HEAD_GROUP=head_group,
            DV_AFTER_DP=cfg.dv_after_dp if DV_AFTER_DP is None else DV_AFTER_DP, PDL=pdl, **common,
            **(dict(launch_pdl=True) if pdl else {}),
        )
    elif one_dkdv_pass:
        # One program per (b, kv head, key block) owns both dK and dV rows.
        dkdv(H_k, True, True, atomic)
    else:
        # K and V groups differ (or the config splits the pass): one pass owns dK rows per K head,
        # one owns dV rows per V head.
        dkdv(H_k, True, False, atomic)
        dkdv(H_v, False, True, False)
    if concurrent:
        # Submitted after the DKDV pass, so that its shorter programs fill that pass's last wave.
        # The caller's stream waits for it before anything else runs there, so every tensor this call
        # touches is free for reuse on that stream afterwards (no record_stream needed).
        with torch.cuda.stream(side):
            dq_pass()
        main.wait_stream(side)

    if atomic:
        _launch_dq_convert(rec, dq_accum, dq, scale, qk_chunk, qk_split, wide)
    elif not concurrent and not fused:
        dq_pass()
    if D_v:  # D_v == 0 zeroed dQ before the launches; that call is not replayed
        rec.finish((q, k, v, o, do, stats, dq, dk, dv, delta, lse2, dq_accum),
                   extra=(B, H_q, S_q, D_qk, atomic, False, None, S_q))
    if return_delta:
        return dq, dk, dv, delta.view(B, H_q, S_q)
    return dq, dk, dv


def _gluon_backward(rec, q, k, v, o, do, stats, st, dq, dk, dv, scale: float, causal: bool, return_delta: bool,
                    deterministic: bool = False):
    """The Gluon backward's launches: ODO (delta, lse2), the one pass (dK, dV, and dQ's partials added into the
    zeroed fp32 accumulator) and DQ_CONVERT (the accumulator, scaled, into dQ through its strides). Where K or V
    heads are shared (GQA, MQA), each query head's program adds its dK, dV partials into zeroed fp32
    accumulators of K's and V's dims, and DQ_CONVERT's kernel writes them into dK and dV afterwards.
    ``deterministic``: dQ's partials (and shared heads' dK, dV partials) added in a fixed order, by turn counters
    (``_dq_turn_counters``). Where ``gluon_head_loop`` says so, a program walks all query heads of its K/V head
    instead, and dK, dV are stored as for heads of their own. D_qk 192 / D_v 128: ``_gluon_backward192``."""
    if q.shape[3] != v.shape[3]:
        return _gluon_backward192(rec, q, k, v, o, do, stats, st, dq, dk, dv, scale, causal, return_delta,
                                  deterministic)
    B, H_q, S_q, D = q.shape
    S_kv = k.shape[2]
    wide = _wide(q, k, v, o, do, stats, dq, dk, dv)
    side = gluon_side_rows(S_q)
    pdl = GLUON_PDL and q.device.type == "cuda"
    atomic = "odo" if pdl else True  # where ODO zeroes the accumulator, it is allocated without a fill
    delta, lse2, dq_accum = _side_buffers(B, H_q, S_q, D, atomic, q.device, side)
    head_loop = gluon_head_loop(q, k, v, causal, deterministic)
    kv_acc = None if head_loop else _kv_accumulators(q, k, v)
    dk_out, dv_out = kv_acc or (dk, dv)
    rows = GLUON_BWD_HD64_ROWS if D == 64 else 64  # query rows a streamed tile holds
    sems = _dq_turn_counters(q, k, v, rows) if deterministic else None
    _launch_odo(rec, o, do, stats, st, delta, lse2, D, wide, side, dq_accum if pdl else None, pdl)
    g = attention_bwd_gluon
    more = dict(launch_pdl=True) if pdl else {}
    tma_epilogue = kv_acc is not None or (GLUON_BWD_TMA_EPILOGUE and _tma_ok(dk) and _tma_ok(dv))
    rec.launch(
        g.attention_bwd_gluon_kernel, (_cdiv(S_kv, 2 * g.KEYS_PER_CONSUMER), B * (k.shape[1] if head_loop else H_q)),
        *_gluon_bwd_descriptors(q, k, v, do, dk_out, dv_out, dq_accum, lse2, delta, rows, tma_epilogue,
                                GLUON_BWD_DQ_ROWS and rows >= 128),
        dq_accum if sems is None else sems, dq_accum if GLUON_BWD_STAMPS is None else GLUON_BWD_STAMPS,
        *dk_out.stride(), *dv_out.stride(),
        H_q, H_q // k.shape[1], H_q // v.shape[1], S_q, S_kv, side, scale * LOG2E, scale, int(causal),
        D=D, TMA_EPILOGUE=tma_epilogue, ROWS=rows,
        HEAD_GROUP=(HEAD_GROUP or GLUON_HEAD_GROUP) if causal or sems is not None else 1,
        DETERMINISTIC=sems is not None, HEAD_LOOP=head_loop,
        DET_UP=sems is not None and causal and D in GLUON_BWD_DET_UP, num_warps=4, maxnreg=g.MAX_REGS, **more,
    )
    _launch_dq_convert(rec, dq_accum, dq, scale, D, 0, wide, pdl)
    if kv_acc:  # dK's partials were scaled in the kernel
        _launch_dq_convert(rec, kv_acc[0], dk, 1.0, D, 0, wide)
        _launch_dq_convert(rec, kv_acc[1], dv, 1.0, D, 0, wide)
    rec.finish((q, k, v, o, do, stats, dq, dk, dv, delta, lse2, dq_accum) + (kv_acc or ()) + (sems,),
               extra=(B, H_q, S_q, D, atomic, kv_acc is not None, rows if sems is not None else 0, side))
    if return_delta:
        return dq, dk, dv, delta.view(B, H_q, side).narrow(2, 0, S_q)
    return dq, dk, dv


def _triton_bwd_constexprs(q, D_v: int, cfg: BackwardConfig, has_left: bool, has_right: bool, wide: bool) -> dict:
    """The Triton backward kernels' shared constexprs for Q (its head dim's chunks under ``cfg``) and D_v: the band
    flags, the dot precision, WIDE, and the DKDV pass's warps and stages (the dQ pass overrides them)."""
    D_qk = q.shape[3]
    qk_chunk, qk_split = d_qk_chunks(D_qk, q.dtype, cfg.split_d_qk)
    return dict(D_QK=D_qk, D_QK_PAD=qk_chunk, D_QK_SPLIT=qk_split, D_V=D_v, D_V_PAD=head_dim_pad(D_v),
                HAS_LEFT=has_left, HAS_RIGHT=has_right, DOT_PRECISION=_dot_precision(q.dtype, q.device.type),
                WIDE=wide, num_warps=cfg.num_warps, num_stages=cfg.num_stages)


def _launch_triton_dq_pass(rec, cfg: BackwardConfig, q, k, v, do, dq, lse2, delta, scale: float, lo_off: int,
                           hi_off: int, tma: bool, common: dict) -> None:
    """The Triton kernels' dQ pass (``cfg``'s BLOCK_M2 / BLOCK_N2 tiles, its own warps and stages): dQ written
    through its strides from Q, K, V, dO and ODO's side buffers, packed S_q rows a head; ``tma``: K and V streamed
    through descriptors (``cfg.dq_kv_tma`` and ``_use_tma``). ``common``: the kernels' shared constexprs (head dims
    and their chunks, band flags, dot precision, WIDE). The Triton backward's last
    pass, and deterministic mode's dQ after the 192 / 128 Gluon pass's split form (``GLUON_BWD192_DET_SPLIT``)."""
    B, H_q, S_q, _ = q.shape
    H_k, H_v, S_kv = k.shape[1], v.shape[1], k.shape[2]
    rec.launch(
        _kernel(attention_bwd_dq_kernel, attention_bwd_dq_kernel_any_len, S_q, S_kv), (_cdiv(S_q, cfg.block_m2),
                                                                                       B * H_q),
        q, k, v, do, dq, lse2, delta,
        *q.stride(), *k.stride(), *v.stride(), *do.stride(), *dq.stride(),
        H_q, H_q // H_k, H_q // H_v, S_q, S_kv,
        scale * LOG2E, scale, lo_off, hi_off,
        BLOCK_M=cfg.block_m2, BLOCK_N=cfg.block_n2, TMA=tma,
        HEAD_GROUP=HEAD_GROUP or cfg.head_group,
        **dict(common, num_warps=cfg.dq_num_warps or cfg.num_warps, num_stages=cfg.dq_num_stages or cfg.num_stages),
    )


def _bwd192_forms(q):
    """(k128, pair, share_ds, persist): the 192 / 128 pass's form as its switches and Q's device choose it."""
    cuda = q.device.type == "cuda"
    k128 = GLUON_BWD192_K128 and cuda
    pair = GLUON_BWD192_PAIR and not k128 and cuda
    share_ds = GLUON_BWD192_SHARE_DS and not (pair or k128) and cuda
    persist = GLUON_BWD192_PERSIST and not (pair or share_ds or k128) and cuda
    return k128, pair, share_ds, persist


def _bwd192_det_split(q) -> bool:
    """Whether a deterministic 192 / 128 call in the Gluon pass takes its split form (``GLUON_BWD192_DET_SPLIT``:
    dK and dV in the pass, dQ by the Triton kernels' dQ pass): the switch, and S_q's rows packed in the pass's side
    buffers (``gluon_side_rows``), which the dQ pass reads packed."""
    return GLUON_BWD192_DET_SPLIT and gluon_side_rows(q.shape[2]) == q.shape[2]


def _bwd192_persist(q) -> bool:
    """Whether the 192 / 128 pass runs in its persistent form for Q's device (``_bwd192_forms``)."""
    return _bwd192_forms(q)[3]


def _gluon_backward192(rec, q, k, v, o, do, stats, st, dq, dk, dv, scale: float, causal: bool,
                       return_delta: bool, deterministic: bool = False):
    """The Gluon backward's launches at D_qk 192 / D_v 128 (``kernels.attention_bwd_gluon_192``): ODO, the
    column-split pass (dK and dV stored through their strides, dQ's partials bulk-reduced into the zeroed fp32
    accumulator) and DQ_CONVERT, in D_qk's 128 + 64 chunks as the Triton kernels' atomic mode. Where K or V heads
    are shared (GQA, MQA), each query head's program adds its dK and dV (dK scaled) into zeroed fp32 accumulators
    of K's and V's dims (atomic adds), which DQ_CONVERT's kernel writes into dK and dV afterwards. ``deterministic``
    (``gluon_backward_reasons`` lets it in persistent, heads of their own): dQ's reduces in turn (``DET``), over
    the counters the fused conversion would use; or, in the split form (``GLUON_BWD192_DET_SPLIT``), the pass
    computes dK and dV only (``NO_DQ``: no accumulator, no DQ_CONVERT) and the Triton kernels' dQ pass dQ."""
    B, H_q, S_q, D_qk = q.shape
    S_kv, D_v = k.shape[2], v.shape[3]
    wide = _wide(q, k, v, o, do, stats, dq, dk, dv)
    side = gluon_side_rows(S_q)
    pdl = GLUON_PDL and q.device.type == "cuda"
    kv_acc = _kv_accumulators(q, k, v)
    k128, pair, share_ds, persist = _bwd192_forms(q)
    split = deterministic and persist and kv_acc is None and _bwd192_det_split(q)
    det = deterministic and persist and kv_acc is None and not split
    # where ODO zeroes the accumulator, it is allocated without a fill; the split form has none (delta stands in)
    atomic = False if split else "odo" if pdl else True
    delta, lse2, dq_accum = _side_buffers(B, H_q, S_q, D_qk, atomic, q.device, side)
    dk_out, dv_out = kv_acc or (dk, dv)
    g = attention_bwd_gluon_192
    if deterministic and not (det or split):
        raise RuntimeError(f"deterministic 192/128 call in a form without turns (persistent {persist}, shared K/V "
                           f"heads {kv_acc is not None}): gluon_backward_reasons should have sent it to the Triton "
                           "kernels; this is a launcher bug, report it with the call's shapes")
    # converting dQ in the pass: under the causal mask only (without it every key block adds into every query tile,
    # so a head's last block to finish would convert all of its tiles alone), into a dQ of Q's dtype (the kernel
    # writes the inputs' 16 bits; a caller's dQ of another dtype goes to DQ_CONVERT, which writes dQ's own) whose head
    # dim is packed and whose rows start on 16 bytes (its stores are four columns wide)
    fused = (persist and not (det or split) and GLUON_BWD192_FUSED_DQ and causal and dq.dtype == q.dtype
             and dq.stride(3) == 1 and dq.data_ptr() % 16 == 0 and all(st % 8 == 0 for st in dq.stride()[:3]))
    # the persistent form's zeroed block counter (and, converting dQ in the pass, its tiles' counters), filled before
    # ODO (as the launch cache's replay fills it): a fill between ODO and the pass would stand in their PDL chain
    # dK and dV by the bulk-copy engine at each block's end (the persistent form's, not beside the fused conversion,
    # which counts a block's reduces as its last bulk groups): 16-bit outputs of Q's dtype it can address, and heads
    # of their own (shared ones add into the fp32 accumulators)
    tma_out = (persist and not fused and kv_acc is None and GLUON_BWD192_TMA_EPILOGUE and dk.dtype == q.dtype
               and dv.dtype == q.dtype and _tma_ok(dk) and _tma_ok(dv))
    # (deterministic mode's turns count on the fused conversion's tile counters)
    counter = _bwd192_counters(B, H_q, S_q, fused or det, q.device) if persist else None
    _launch_odo(rec, o, do, stats, st, delta, lse2, head_dim_pad(D_v), wide, side,
                dq_accum if pdl and not split else None, pdl)
    more = dict(launch_pdl=True) if pdl else {}
    blocks = _cdiv(S_kv, g.KEYS_PER_PROGRAM)
    grid = (_cdiv(blocks, 2) if pair or share_ds else blocks, B * H_q)  # clusters of two: the first dim counts them
    if persist:  # one program an SM (its shared memory holds one), the blocks claimed through a zeroed counter
        index = q.device.index if q.device.index is not None else torch.cuda.current_device()
        grid = (min(blocks * B * H_q, _sm_count(index)), 1)
    descs = _gluon_bwd192_descriptors(q, k, v, do, dq_accum, lse2, delta, pair)
    args = (*descs, dk_out, dv_out,
            *dk_out.stride(), *dv_out.stride(),
            H_q, H_q // k.shape[1], H_q // v.shape[1], S_q, S_kv, side, scale * LOG2E, scale, int(causal),
            delta if counter is None else counter, B * H_q,  # delta stands in for the counter it does not read
            dq_accum, dq if fused else dq_accum, *dq.stride()[:3])
    stages = 3 if GLUON_BWD192_THREE_STAGES and not (pair or share_ds) else 2
    # head groups under the mask, and in deterministic mode without it too: a head's key blocks then start a group's
    # width of claims apart, not together, so that few wait at once on the turns of the blocks below them
    kw = dict(HEAD_GROUP=(HEAD_GROUP or GLUON_HEAD_GROUP) if causal or det else 1, PAIR=pair, PERSIST=persist,
              SHARE_DS=share_ds, STAGES=stages, FUSED_DQ=int(GLUON_BWD192_FUSED_DQ) if fused else 0,
              DET=GLUON_BWD192_DETERMINISTIC if det and GLUON_BWD192_DETERMINISTIC > 1 else det,
              num_warps=4, maxnreg=g.MAX_REGS, **more, **(dict(NO_DQ=True) if split else {}))
    # dK's two column chunks and dV as descriptors, or Q's first chunk's three times, which the kernel reads as "no"
    outs = _gluon_bwd192_out_descriptors(dk, dv) if tma_out else (descs[0],) * 3
    if pair or share_ds:
        _as_clusters_of_two(g.attention_bwd_gluon_192_kernel, grid, args + outs, kw,
                            g.PAIR_EXTRA if pair else g.DS_EXTRA)
    if k128:  # 128 keys a program: the same arguments, no form flags
        g128 = attention_bwd_gluon_192_k128
        rec.launch(g128.attention_bwd_gluon_192_k128_kernel, (_cdiv(S_kv, g128.KEYS_PER_PROGRAM), B * H_q),
                   *args[:-5], HEAD_GROUP=kw["HEAD_GROUP"], num_warps=4, maxnreg=g128.MAX_REGS, **more)
    else:
        rec.launch(g.attention_bwd_gluon_192_kernel, grid, *args, *outs, **kw)
    qk_chunk, qk_split = d_qk_chunks(D_qk, q.dtype)
    if split:  # dQ by the Triton kernels' dQ pass, its deterministic config's tiles, from the same side buffers
        cfg = backward_config(head_dim_pad(D_qk), head_dim_pad(D_v), q.dtype, q.device.type, True, causal)
        # (the Gluon pass's masks: none, or the causal one with its diagonal at 0, so both band offsets are 0)
        _launch_triton_dq_pass(rec, cfg, q, k, v, do, dq, lse2, delta, scale, 0, 0,
                               cfg.dq_kv_tma and _use_tma(k, v),
                               _triton_bwd_constexprs(q, D_v, cfg, False, causal, wide))
    elif not fused:  # the fused pass has written dQ itself
        _launch_dq_convert(rec, dq_accum, dq, scale, qk_chunk, qk_split, wide, pdl)
    if kv_acc:  # dK's partials were scaled in the kernel
        _launch_dq_convert(rec, kv_acc[0], dk, 1.0, qk_chunk, qk_split, wide)
        _launch_dq_convert(rec, kv_acc[1], dv, 1.0, head_dim_pad(D_v), 0, wide)
    rec.finish((q, k, v, o, do, stats, dq, dk, dv, delta, lse2, dq_accum) + (kv_acc or ()) + (counter,),
               extra=(B, H_q, S_q, D_qk, atomic, kv_acc is not None,
                      0 if counter is None else -2 if fused or det else -1, side))
    if return_delta:
        return dq, dk, dv, delta.view(B, H_q, side).narrow(2, 0, S_q)
    return dq, dk, dv


def _as_clusters_of_two(fn, grid, args, kw, extra: int) -> None:
    """Compile ``fn`` for this launch (without launching it) and make its compiled kernel launch as clusters of two
    programs with ``extra`` bytes of shared memory past its own: the launcher Triton 3.6 generates launches
    ``grid[0] * num_ctas`` programs along the first dim in clusters of ``num_ctas`` and gives the kernel the
    metadata's shared bytes, which it reads from ``packed_metadata`` at each launch (its own and the launch
    cache's replays). The kernel, compiled for one CTA, addresses its partner through distributed shared memory
    and the extra bytes from the end of its dynamic shared memory (``attention_bwd_gluon_192._pair_base``)."""
    kernel = fn.warmup(*args, grid=grid, **kw)
    meta = kernel.metadata
    if meta.num_ctas != 1 or len(kernel.packed_metadata) != 3:
        raise RuntimeError(f"{meta.name}: compiled for {meta.num_ctas} CTAs with launch metadata "
                           f"{kernel.packed_metadata}; the pair form is written for one CTA a program and Triton "
                           "3.6's (num_warps, num_ctas, shared) metadata. Turn it off with gluon_bwd192_pair=False")
    kernel.packed_metadata = (meta.num_warps, 2, -(-meta.shared // 128) * 128 + extra)


def _gluon_bwd192_descriptors(q, k, v, do, dq_accum, lse2, delta, pair: bool = False):
    """The 192 / 128 kernel's first ten arguments, TMA descriptors made on the host (as ``_gluon_bwd_descriptors``):
    Q and K twice each, in blocks of D_qk's first 128 columns and of its last 64 (a block's dims are powers of two;
    the kernel loads the second at column 128), V and dO, all as (B, H, S, D) through their own strides
    (``_bhsd_descriptor``); the packed fp32 dQ accumulator as (B H S_q, 192) in [64, 128] and [64, 64] blocks
    (``pair``: the pair form's column halves of them, [64, 64] and [64, 32]); lse2 and delta as one row of all
    heads' padded rows. Layouts: ``attention_bwd_gluon_192.host_layout``."""
    from triton.experimental.gluon.nvidia.hopper import TensorDescriptor

    g = attention_bwd_gluon_192
    dt = _gl_dtype(q.dtype)
    rows, keys, a = g.QUERY_ROWS, g.KEYS_PER_PROGRAM, g.COLS0_
    D_qk = q.shape[3]
    b = D_qk - a
    four = _bwd192_four
    # (the split form of deterministic mode passes delta for the accumulator it never reads: its descriptors of it,
    # at least a row, are made but not used; NO_DQ compiles every use of them out)
    n = max(1, dq_accum.numel() // D_qk)
    side = [lse2.numel()]
    return (four(q, rows, "qa", a), four(q, rows, "qb", b), four(k, keys, "qa", a), four(k, keys, "qb", b),
            four(v, keys, "v", v.shape[3]), four(do, rows, "v", do.shape[3]),
            TensorDescriptor(dq_accum, [n, D_qk], [D_qk, 1], [rows, a // (1 + pair)],
                             g.host_layout("dq0h" if pair else "dq0", dt)),
            TensorDescriptor(dq_accum, [n, D_qk], [D_qk, 1], [rows, b // (1 + pair)],
                             g.host_layout("dq1h" if pair else "dq1", dt)),
            TensorDescriptor(lse2, side, [1], [rows], g.host_layout("side", dt)),
            TensorDescriptor(delta, side, [1], [rows], g.host_layout("side", dt)))


def _gluon_bwd192_out_descriptors(dk, dv):
    """The persistent 192 / 128 pass's descriptors of its outputs (``attention_bwd_gluon_192._block_out_tma``, stop
    44): dK in blocks of its first 128 columns and of its last 64 (the second stored at column 128), and dV, as (B, H,
    S, D) through their own strides (``_bhsd_descriptor``), in the layouts of the loads' descriptors of the same
    blocks (``attention_bwd_gluon_192.host_layout``). A replayed call rebuilds each on its own tensor."""
    g = attention_bwd_gluon_192
    keys, a = g.KEYS_PER_PROGRAM, g.COLS0_
    return (_bwd192_four(dk, keys, "qa", a), _bwd192_four(dk, keys, "qb", dk.shape[3] - a),
            _bwd192_four(dv, keys, "v", dv.shape[3]))


def _bwd192_four(t, block_rows: int, kind: str, cols: int):
    """A descriptor of (B, H, S, D) ``t`` in [1, 1, ``block_rows``, ``cols``] blocks in the 192 / 128 kernel's layout
    ``kind`` for ``t``'s dtype (``attention_bwd_gluon_192.host_layout``): the inputs' and the outputs' alike."""
    from triton.experimental.gluon.nvidia.hopper import TensorDescriptor

    layout = attention_bwd_gluon_192.host_layout(kind, _gl_dtype(t.dtype))
    return _bhsd_descriptor(TensorDescriptor, t, block_rows, layout, cols)


@functools.lru_cache(maxsize=None)
def _sm_count(index: int) -> int:
    return torch.cuda.get_device_properties(index).multi_processor_count


def gluon_head_loop(q, k, v, causal: bool, deterministic: bool) -> bool:
    """Whether the Gluon backward's programs walk a K/V head's query heads (``GLUON_BWD_HEAD_LOOP``): GQA with K
    and V heads shared alike, no mask, not deterministic, and B H_k cdiv(S_kv, 128) programs that fill the GPU's
    SMs at least ``GLUON_BWD_HEAD_LOOP_MIN_WAVES`` times."""
    B, H_q = q.shape[:2]
    H_k, H_v, S_kv = k.shape[1], v.shape[1], k.shape[2]
    if not GLUON_BWD_HEAD_LOOP or causal or deterministic or H_k != H_v or H_k == H_q:
        return False
    programs = B * H_k * _cdiv(S_kv, 2 * attention_bwd_gluon.KEYS_PER_CONSUMER)
    index = q.device.index if q.device.index is not None else torch.cuda.current_device()
    return programs >= GLUON_BWD_HEAD_LOOP_MIN_WAVES * _sm_count(index)


def _gluon_bwd_descriptors(q, k, v, do, dk_out, dv_out, dq_accum, lse2, delta, rows: int, tma_epilogue: bool,
                           dq_by_rows: bool = False):
    """The Gluon backward's first nine arguments: TMA descriptors made on the host, which the kernel takes as
    kernel parameters; made on the device, each cost its program a global round trip before its first load
    (4.75 us of an hd64 program's 58 before the first tile's loads were issued: 2026-12-02, H200,
    docs/data/h200-2026-12-02e/run1). Q, dO, K, V (and dK, dV where ``tma_epilogue``; else their tensors, stored through
    pointers) as (B, H, S, D) through their own strides (``_bhsd_descriptor``); the packed fp32 dQ accumulator as (B H
    S_q, D) in blocks of a consumer's part of a tile (``attention_bwd_gluon.dq_block``: [rows, D / 2], or [rows / 2, D]
    where ``dq_by_rows``, which the kernel reads its split off); lse2 and delta as one row of all heads' padded rows.
    Layouts: ``attention_bwd_gluon.host_layout``.
    A replayed call (``launch_cache``) rebuilds each on its own tensor."""
    from triton.experimental.gluon.nvidia.hopper import TensorDescriptor

    g = attention_bwd_gluon
    D = q.shape[3]
    dt = _gl_dtype(q.dtype)
    keys = g.KEYS_PER_CONSUMER

    def four(t, block_rows, kind):
        return _bhsd_descriptor(TensorDescriptor, t, block_rows, g.host_layout(kind, D, rows, _gl_dtype(t.dtype)))

    out = (four(dk_out, keys, "out"), four(dv_out, keys, "out")) if tma_epilogue else (dk_out, dv_out)
    side = [lse2.numel()]
    return (four(q, rows, "q"), four(k, keys, "k"), four(v, keys, "v"), four(do, rows, "q"), *out,
            TensorDescriptor(dq_accum, [dq_accum.numel() // D, D], [D, 1], g.dq_block(D, rows, dq_by_rows),
                             g.host_layout("dq", D, rows, dt, dq_by_rows)),
            TensorDescriptor(lse2, side, [1], [rows], g.host_layout("side", D, rows, dt)),
            TensorDescriptor(delta, side, [1], [rows], g.host_layout("side", D, rows, dt)))


def _gluon_fwd_descriptors(q, k, v, o, qk_a: int, qk_b: int, o_tma: bool):
    """The Gluon forward's first six arguments: TMA descriptors made on the host (made on the device, each cost
    its program a global round trip before its first load, as in the backward: ``_gluon_bwd_descriptors``).
    Q, K, V as (B, H, S, D) through their own strides (``_bhsd_descriptor``) in blocks of D_qk's first chunk
    ``qk_a`` (V: D_v), Q's and K's second chunk's (``qk_b`` columns, loaded at column ``qk_a``) where D_qk is
    split, else Q's and K's again (not read); O's where ``o_tma``, else O itself (pointer stores). Layouts:
    ``attention_fwd_gluon.host_layout``."""
    from triton.experimental.gluon.nvidia.hopper import TensorDescriptor

    g = attention_fwd_gluon
    dt = _gl_dtype(q.dtype)
    rows, keys = g.BLOCK_ROWS, g.BLOCK_KEYS

    def four(t, block_rows, cols):
        return _bhsd_descriptor(TensorDescriptor, t, block_rows, g.host_layout(block_rows, cols, dt), cols)

    qd, kd = four(q, rows, qk_a), four(k, keys, qk_a)
    qb, kb = (four(q, rows, qk_b), four(k, keys, qk_b)) if qk_b else (qd, kd)
    return qd, qb, kd, kb, four(v, keys, v.shape[3]), four(o, rows, o.shape[3]) if o_tma else o


def _gl_dtype(dtype: torch.dtype):
    """Gluon's name for a tensor dtype the Gluon kernels' descriptors are made over."""
    from triton.experimental.gluon import language as gl

    return {torch.bfloat16: gl.bfloat16, torch.float16: gl.float16, torch.float32: gl.float32}[dtype]


def _bhsd_descriptor(make, t: torch.Tensor, block_rows: int, layout, block_cols: Optional[int] = None):
    """A descriptor of (B, H, S, D) ``t`` through its own strides, blocks of [1, 1, ``block_rows``, D] (or of
    ``block_cols`` columns: a chunk of a split head dim, the Gluon forward's D_qk 192 = 128 + 64). A batch
    or head dimension of one, or of stride 0 (a broadcast), is given as one of a stride the bulk-copy engine
    takes (the kernel's coordinate there is then 0: ``b % shape``); ``_tma_ok`` has checked the rest."""
    B, H, S, D = t.shape
    sb, sh, ss, _ = t.stride()
    fill = ss * S  # any multiple of 16 bytes: the coordinate is always 0
    dims, strides = [], []
    for n, st in ((B, sb), (H, sh)):
        real = n > 1 and st != 0
        dims.append(n if real else 1)
        strides.append(st if real else fill)
    return make(t, dims + [S, D], strides + [ss, 1], [1, 1, block_rows, block_cols or D], layout)


def _launch_odo(rec, o, do, stats, st, delta, lse2, d_v_pad: int, wide: bool, side_rows: int, zero_acc=None,
                pdl: bool = False) -> None:
    """ODO, the first stage of either backward: delta = rowsum(dO O) and lse2 (the stats in log2 units, +inf
    for a row that kept no key) into the side buffers, ``side_rows`` rows a head (``_side_buffers``). ``zero_acc``:
    the packed fp32 dQ accumulator for ODO to zero (``GLUON_PDL``); ``pdl``: the next kernel is launched as its
    programmatic dependent."""
    B, H_q, S_q, D_v = o.shape
    block = 64 if o.device.type == "cuda" else 16
    zero_d = 0 if zero_acc is None else zero_acc.numel() // (B * H_q * S_q)
    if zero_d % 64:
        raise ValueError(f"ODO zeroes the dQ accumulator in 64-column chunks; it has {zero_d} columns")
    rec.launch(
        attention_bwd_preprocess_kernel, (_cdiv(S_q, block), B * H_q),
        o, do, stats, delta, lse2,
        *o.stride(), *do.stride(), *st,
        H_q, S_q, side_rows, delta if zero_acc is None else zero_acc,
        BLOCK_M=block, D_V=D_v, D_V_PAD=d_v_pad, WIDE=wide, ZERO_D=zero_d, PDL=pdl,
        num_warps=4,
    )


def _launch_dq_convert(rec, dq_accum, dq, scale: float, qk_chunk: int, qk_split: int, wide: bool,
                       pdl: bool = False) -> None:
    """DQ_CONVERT, the last stage where dQ was added up in the packed fp32 accumulator (the Triton atomic mode,
    the Gluon backward): the accumulator, scaled, into dQ through dQ's strides. The Gluon backward's GQA
    accumulators of dK and dV go the same way (``dq`` is then dK or dV, ``scale`` 1). ``pdl``: launched as the
    programmatic dependent of the kernel before it (``GLUON_PDL``), whose writes it waits for."""
    B, H_q, S_q, D_qk = dq.shape
    block = 64 if dq.device.type == "cuda" else 16
    more = dict(launch_pdl=True) if pdl else {}
    rec.launch(
        attention_bwd_dq_convert_kernel, (_cdiv(S_q, block), B * H_q),
        dq_accum, dq, *dq.stride(), H_q, S_q, scale,
        BLOCK_M=block, D_QK=D_qk, D_QK_PAD=qk_chunk, D_QK_SPLIT=qk_split, WIDE=wide, PDL=pdl, num_warps=4, **more,
    )


def _dq_turn_counters(q, k, v, rows: int):
    """Deterministic mode's zeroed int32 turn counters for the Gluon backward's reduces: one per (batch and head,
    query tile of ``rows``, consumer) for dQ's, which the kernel indexes as ((b H_q + h) n_tiles + m) 2 + c; where
    K or V heads are shared (GQA, MQA: dK and dV partials added across the query heads' programs) then one per
    (batch and K head, key block of 128, consumer) for dK's and one per (batch and V head, key block, consumer) for
    dV's. Counts only go up, so each call takes fresh zeros (a replay too)."""
    B, H_q, S_q = q.shape[:3]
    H_k, H_v, S_kv = k.shape[1], v.shape[1], k.shape[2]
    n = B * H_q * _cdiv(S_q, rows) * 2
    if H_k != H_q or H_v != H_q:
        n += B * (H_k + H_v) * _cdiv(S_kv, 2 * attention_bwd_gluon.KEYS_PER_CONSUMER) * 2
    return torch.zeros(n, dtype=torch.int32, device=q.device)


def _bwd192_counters(B: int, H_q: int, S_q: int, fused: bool, device):
    """The 192 kernel's persistent form's zeroed int32 counters: the block claim counter, then where it converts dQ
    in the pass (``FUSED_DQ``) one per (batch and head, query tile of 64 rows, column part), which the kernel indexes
    as 1 + ((b H_q + h) n_tiles + i) 2 + c. Counts only go up, so each call takes fresh zeros (a replay too)."""
    n = 1 + (B * H_q * _cdiv(S_q, attention_bwd_gluon_192.QUERY_ROWS) * 2 if fused else 0)
    return torch.zeros(n, dtype=torch.int32, device=device)


def _kv_accumulators(q, k, v):
    """The Gluon backward's zeroed fp32 dK and dV accumulators, packed in K's and V's dims, where a K or V head
    is shared by several query heads (GQA, MQA); None where none is."""
    if k.shape[1] == q.shape[1] and v.shape[1] == q.shape[1]:
        return None
    return tuple(torch.zeros(t.shape, dtype=torch.float32, device=t.device) for t in (k, v))


def gluon_side_rows(S_q: int) -> int:
    """Rows a head of the Gluon backward's delta and lse2 buffers: S_q rounded up to a multiple of 4, so that
    each head's rows start on 16 bytes, where the kernel's one-dimensional TMA boxes of them must start (every
    S_q not a multiple of 4 faulted with an illegal instruction at the box's load: 2026-12-02, H200,
    docs/data/h200-2026-12-02d/run1)."""
    return _cdiv(S_q, 4) * 4


def _side_buffers(B: int, H_q: int, S_q: int, D_qk: int, atomic: bool, device, side_rows: int):
    """(delta, lse2, dq_accum): row (b, h, i) of delta and lse2 at (b * H_q + h) * side_rows + i (``side_rows``:
    S_q, packed, for the Triton kernels; ``gluon_side_rows(S_q)`` for the Gluon backward), of dq_accum at
    (b * H_q + h) * S_q + i. The atomic dQ mode adds its partials into a zeroed fp32 dq_accum; the separate mode
    passes delta in its place (the kernels do not read it there). ``atomic`` "odo": the accumulator is allocated
    unfilled, for ODO to zero (``GLUON_PDL``)."""
    n = B * H_q * side_rows
    delta = torch.empty(n, dtype=torch.float32, device=device)
    lse2 = torch.empty(n, dtype=torch.float32, device=device)
    if atomic == "odo":
        dq_accum = torch.empty(B * H_q * S_q * D_qk, dtype=torch.float32, device=device)
    else:
        dq_accum = torch.zeros(B * H_q * S_q * D_qk, dtype=torch.float32, device=device) if atomic else delta
    return delta, lse2, dq_accum


def _replay_backward(plan, q, k, v, o, do, stats, dq, dk, dv, return_delta: bool):
    """attention_backward for a call whose key was recorded: its outputs and side buffers allocated as the
    recorded call allocated them, then its launches."""
    # kv_acc: the Gluon backward ran with shared K/V heads; turns: the query tile rows its dQ turn counters count
    # in (deterministic), 0 without them, -1 for the 192 kernel's persistent form (its block counter), -2 for it with
    # dQ converted in the pass or in deterministic mode (its tiles' counters too), None where the Triton kernels ran
    # (their tensor list stops at dq_accum);
    # side: delta's and lse2's rows a head (_side_buffers)
    B, H_q, S_q, D_qk, atomic, kv_acc, turns, side = plan.extra
    dq, dk, dv = (torch.empty(ref.shape, dtype=ref.dtype, device=ref.device) if t is None else t
                  for t, ref in ((dq, q), (dk, k), (dv, v)))
    delta, lse2, dq_accum = _side_buffers(B, H_q, S_q, D_qk, atomic, q.device, side)
    more = _kv_accumulators(q, k, v) if kv_acc else ()
    if turns is not None:  # -1, -2: the 192 kernel's persistent form, whose counters are fresh zeros a call
        more += (None if not turns else _dq_turn_counters(q, k, v, turns) if turns > 0
                 else _bwd192_counters(B, H_q, S_q, turns == -2, q.device),)
    plan.replay((q, k, v, o, do, stats, dq, dk, dv, delta, lse2, dq_accum) + more)
    if return_delta:
        return dq, dk, dv, delta.view(B, H_q, side).narrow(2, 0, S_q)
    return dq, dk, dv
