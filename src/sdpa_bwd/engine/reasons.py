"""The routing rules the planner applies (issue 52, 2026-12-06: out of ``launch.py``, unchanged): what it reads of a
tensor (``TensorMeta``) and of the device (``Target``), when the bulk-copy engine addresses a tensor (``_tma_ok``),
the band offsets, and why each Gluon kernel does or does not take a call (``gluon_forward_reasons``,
``gluon_backward_reasons``) with the 192 / 128 pass's forms."""

from __future__ import annotations

import functools
import os
from dataclasses import dataclass
from typing import Optional

import torch

from . import switches as sw
from .configs import _cdiv
from .kernels import attention_bwd_gluon, attention_bwd_gluon_192, attention_fwd_gluon

# Tile offsets are formed in int32 unless a stride times the largest tile edge
# (256) could pass 2^31; then the kernels form them in int64 (WIDE).
_INT32_SAFE = (1 << 31) // 256
_HAS_TMA = sw._HAS_TMA


# ----------------------------------------------------------------------------
# The problem's data


@dataclass(frozen=True)
class TensorMeta:
    """What the planner reads of a tensor; duck-types the few tensor methods the rules call."""
    shape: tuple
    strides: tuple
    dtype: torch.dtype
    device: torch.device
    aligned: bool = True  # base 16-byte aligned
    sm90: Optional[bool] = None  # the device is an sm_90 GPU outside the interpreter (None: ask the device)

    @classmethod
    def of(cls, t) -> Optional["TensorMeta"]:
        if t is None:
            return None
        return cls(tuple(t.shape), tuple(t.stride()), t.dtype, t.device, t.data_ptr() % 16 == 0)

    @classmethod
    def packed(cls, shape, dtype, device, sm90=None) -> "TensorMeta":
        strides, n = [], 1
        for d in reversed(shape):
            strides.insert(0, n)
            n *= d
        return cls(tuple(shape), tuple(strides), dtype, torch.device(device) if isinstance(device, str) else device,
                   True, sm90)

    def stride(self, i=None):
        return self.strides if i is None else self.strides[i]

    def element_size(self) -> int:
        return self.dtype.itemsize

    def data_ptr(self) -> int:
        return 0 if self.aligned else 2

    def numel(self) -> int:
        n = 1
        for d in self.shape:
            n *= d
        return n

    def dim(self) -> int:
        return len(self.shape)


@dataclass(frozen=True)
class Target:
    """The device beyond the tensors' metadata: Triton's interpreter on, and the SM count (None: ask the GPU)."""
    interpreter: bool
    sm_count: Optional[int] = None


def interpreter_active() -> bool:
    return os.environ.get("TRITON_INTERPRET", "0") not in ("", "0")


@functools.lru_cache(maxsize=None)
def _is_sm90(index: int) -> bool:
    return torch.cuda.get_device_capability(index) == (9, 0)


def _gluon_device_ok(q) -> bool:
    sm90 = getattr(q, "sm90", None)
    if sm90 is not None:
        return q.device.type == "cuda" and sm90
    return q.device.type == "cuda" and not interpreter_active() and _is_sm90(q.device.index or 0)


@functools.lru_cache(maxsize=None)
def _sm_count(index: int) -> int:
    return torch.cuda.get_device_properties(index).multi_processor_count


def _device_sm_count(q, target: Optional[Target]) -> int:
    if target is not None and target.sm_count is not None:
        return target.sm_count
    return _sm_count(q.device.index if q.device.index is not None else torch.cuda.current_device())


def _tma_ok(t) -> bool:
    """Can the bulk-copy engine read one head of ``t`` (B, H, S, D) as a [S, D] matrix?

    It needs the head-dim stride 1, every used base (data pointer plus batch and head
    offsets) and the row pitch 16-byte aligned, rows that do not overlap, and a row
    pitch below 2^40 bytes. The rest of the layouts keep the pointer path.
    """
    if not _HAS_TMA or sw.TMA_MODE == "off" or (sw.TMA_MODE == "auto" and t.device.type != "cuda"):
        return False
    B, H, S, D = t.shape
    sb, sh, sm, sd = t.stride()
    es = t.element_size()
    if S < 2 or (sd != 1 and D > 1) or t.data_ptr() % 16:
        return False
    if sm < D or (sm * es) % 16 or sm * es >= (1 << 40):
        return False
    return all((n == 1 or (s * es) % 16 == 0) for n, s in ((B, sb), (H, sh)))


def causal_key_ranges(S_q: int, S_kv: int, hi_off: int, causal: bool) -> tuple:
    """(prefix, diagonal, tail): how the keys of a causal problem with its diagonal at ``hi_off`` >= 0 (key j kept
    for query row i where j <= i + hi_off) fall apart. Keys [0, prefix) are kept for every row (no mask), keys
    [prefix, prefix + diagonal) and the rows form a square under the causal mask with its diagonal at 0, and the
    last ``tail`` keys no row keeps. Top-left causal with S_q < S_kv has a tail (S_kv - S_q), bottom-right with
    S_q < S_kv a prefix (S_kv - S_q); without the mask, or with a square at 0, it is (0, S_kv, 0)."""
    if not causal:
        return 0, S_kv, 0
    diagonal = min(S_q, S_kv - hi_off)
    return hi_off, diagonal, S_kv - hi_off - diagonal


def _narrowed(m, start: int, length: int):
    """The metadata of ``m`` (B, H, S, D) narrowed to rows [start, start + length) of its S dim."""
    shape = tuple(m.shape[:2]) + (length,) + tuple(m.shape[3:])
    aligned = m.data_ptr() % 16 == 0 and (start * m.stride(2) * m.element_size()) % 16 == 0
    return TensorMeta(shape, tuple(m.stride()), m.dtype, m.device, aligned, getattr(m, "sm90", None))


def _use_tma(*tensors) -> bool:
    return all(_tma_ok(t) for t in tensors)


def _dq_reduce_tma(dq_accum_aligned: bool, S_q: int, D_qk: int, device_type: str, interpreter: bool) -> bool:
    """Can the DKDV pass add its dQ partials into the packed fp32 ``dq_accum`` by bulk
    reduce (TMA) rather than one atomic per element? Only on a GPU: Triton's interpreter
    has no descriptor reduce, so the CPU tests take the per-element atomics."""
    if not _HAS_TMA or sw.TMA_MODE == "off" or device_type != "cuda" or interpreter:
        return False
    return S_q >= 2 and (D_qk * 4) % 16 == 0 and dq_accum_aligned


def _kernel(specialised: str, any_len: str, S_q: int, S_kv: int) -> str:
    if sw.SPECIALIZE_LENGTHS and S_q != 1 and S_kv != 1:
        return specialised
    return any_len


def _offsets(S_q: int, S_kv: int, left_bound, right_bound, alignment: str):
    if alignment not in ("top_left", "bottom_right"):
        raise ValueError(f"alignment = {alignment!r}: expected 'top_left' or 'bottom_right' (where query row 0 "
                         "meets key 0, or the last query row the last key) - pass one of those")
    if left_bound is not None and left_bound < 1:
        raise ValueError(f"left_bound = {left_bound}: must be >= 1 (a query keeps the left_bound - 1 keys before "
                         "its diagonal and its own) - pass 1 or more, or None for no left bound")
    if right_bound is not None and right_bound < 0:
        raise ValueError(f"right_bound = {right_bound}: must be >= 0 (a query keeps right_bound keys past its "
                         "diagonal; 0 is causal) - pass 0 or more, or None for no right bound")
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


def gluon_side_rows(S_q: int) -> int:
    """Rows a head of the Gluon backward's delta and lse2 buffers: S_q rounded up to a multiple of 4, so that
    each head's rows start on 16 bytes, where the kernel's one-dimensional TMA boxes of them must start (every
    S_q not a multiple of 4 faulted with an illegal instruction at the box's load: 2026-12-02, H200,
    docs/data/h200-2026-12-02d/run1)."""
    return _cdiv(S_q, 4) * 4


# ----------------------------------------------------------------------------
# Reasons


def _span(t: torch.Tensor) -> tuple:
    """(storage, first byte, one past the last byte) of the memory ``t`` can touch."""
    if t.numel() == 0:
        return (t.untyped_storage().data_ptr(), 0, 0)
    last = sum((n - 1) * abs(st) for n, st in zip(t.shape, t.stride()))
    start = t.data_ptr()
    return (t.untyped_storage().data_ptr(), start, start + (last + 1) * t.element_size())


def restage_forward_stream(device_type: str, aligned: bool, interpreter: bool) -> bool:
    """Must the forward read this K or V from a 16-byte-aligned copy rather than the caller's storage?

    Yes on a GPU where its base is not 16-byte aligned. Triton 3.6 compiled the two-stage pipelined float32
    forward (64 x 32 tiles, 4 warps, head dim 96 padded to 128, both band sides) over a K at element offset 1
    into code that returned O off by up to 1.09 and stats by 0.48 whenever O's base was 16-byte aligned, as
    every O the public API allocates is (fuzz seed 738250793; H100, Triton 3.6, 2026-12-06: 3 stages, 8 warps,
    or 64 x 64 tiles were right, and so was the same config over an aligned K). K and V are the operands the
    forward's pipelined loops stream through asynchronous copies, and an aligned base is what every other
    call gives them, so the copy takes such a call onto the code the plan checks. It costs one copy of K or V,
    for bases users rarely pass (a view at an odd element offset). The interpreter compiles nothing and
    keeps reading the caller's storage, so the CPU tests still check the kernels' addressing at any offset."""
    return device_type == "cuda" and not interpreter and not aligned


def _outputs_apart(outs, ins) -> bool:
    """True when no output the caller handed in can touch memory of an input or of another output (outputs the
    launcher allocates are apart by construction). The one-launch backward runs DKDV and dQ programs at once:
    one pass's writes must not reach what the other reads or writes. Conservative: views of one storage whose
    byte ranges interleave (a packed dQKV's columns) count as touching."""
    outs = [t for t in outs if t is not None]
    if not outs:
        return True
    # Outputs on storages of their own (what the API allocates) are apart without their byte ranges: 7 us of
    # the 11 that the spans took a backward call (development machine's CPU, 2026-12-06).
    storages = [t.untyped_storage().data_ptr() for t in outs]
    if len(set(storages)) == len(outs) and not set(storages) & {t.untyped_storage().data_ptr() for t in ins}:
        return True
    given = [_span(t) for t in outs]
    spans = given + [_span(t) for t in ins]
    # each output against the outputs after it and every input
    return not any(s == s2 and a < b2 and a2 < b
                   for i, (s, a, b) in enumerate(given) for s2, a2, b2 in spans[i + 1:])



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
                          config=None, apart: Optional[bool] = None) -> list:
    """Why the Gluon forward (``kernels.attention_fwd_gluon``) does not take this call; empty: it does.

    It runs on the H200 (sm_90) only, outside Triton's interpreter, for 16-bit Q, K, V of the head dims in
    ``GLUON_HEAD_DIMS`` (hd80 and hd96 as hd128, ``attention_fwd_gluon.kernel_head_dims``, O then TMA-addressable),
    every row and base of which the bulk-copy engine can read (``_tma_ok``: head-dim
    stride 1, 16-byte aligned bases and row pitches, rows that do not overlap), scale > 0, no band but the
    causal one with its diagonal at 0, and outputs that touch no input (``apart``; None: worked out from the
    tensors). The Triton forward takes the rest."""
    reasons = _gluon_reasons(q, sw.GLUON_FORWARD, "GLUON_FORWARD / $SDPA_BWD_GLUON_FWD", config, "forward")
    kernel_dims = attention_fwd_gluon.kernel_head_dims(q.shape[3], v.shape[3])
    if (q.shape[3], v.shape[3]) not in sw.GLUON_HEAD_DIMS:
        reasons.append(f"head dims {(q.shape[3], v.shape[3])}: not in {sorted(sw.GLUON_HEAD_DIMS)}")
    elif not attention_fwd_gluon.has_buffers_for(*kernel_dims):
        reasons.append(f"head dims {(q.shape[3], v.shape[3])}: not in power-of-two chunks of 16 to 128 (the "
                       "kernel's buffers), nor D_qk = D_v below 128 (padded); take them out of "
                       "$SDPA_BWD_GLUON_HEAD_DIMS")
    elif kernel_dims[1] != v.shape[3] and o is not None and not _tma_ok(o):
        reasons.append(f"head dim {v.shape[3]} runs as the kernel's {kernel_dims[1]}, whose O must leave by the "
                       "bulk-copy engine (it drops the padded columns; the pointer stores would write them): O is "
                       "not TMA-addressable (see _tma_ok)")
    if not scale > 0:
        reasons.append(f"scale {scale}: the exp2 fold needs scale > 0")
    if banded and not (causal and hi_off == 0):
        reasons.append("a band other than the causal one with its diagonal at 0")
    if q.shape[0] * q.shape[1] > 65535:
        reasons.append(f"B * H_q = {q.shape[0] * q.shape[1]}: over the grid's 65535")
    if not all(_tma_ok(t) for t in (q, k, v)):
        reasons.append("Q, K or V is not TMA-addressable (see _tma_ok)")
    if apart is None:
        apart = _outputs_apart((o, stats), (q, k, v))
    if not apart:
        reasons.append("O or the stats touch an input or each other")
    return reasons


def _bwd192_det_split(q) -> bool:
    """Whether a deterministic 192 / 128 call in the Gluon pass takes its split form (``GLUON_BWD192_DET_SPLIT``:
    dK and dV in the pass, dQ by the Triton kernels' dQ pass): the switch, and S_q's rows packed in the pass's side
    buffers (``gluon_side_rows``), which the dQ pass reads packed."""
    return sw.GLUON_BWD192_DET_SPLIT and gluon_side_rows(q.shape[2]) == q.shape[2]


def _bwd192_persist(q) -> bool:
    """Whether the 192 / 128 pass runs in its persistent form for Q's device (``GLUON_BWD192_PERSIST``, CUDA only)."""
    return bool(sw.GLUON_BWD192_PERSIST and q.device.type == "cuda")


def gluon_backward_reasons(q, k, v, do, *, scale: float, causal: bool, hi_off: int, banded: bool,
                           deterministic: bool, apart: bool, config=None, dk=None, dv=None) -> list:
    """Why the Gluon backward (``kernels.attention_bwd_gluon``) does not take this call; empty: it does.

    It runs on the H200 (sm_90) only, outside Triton's interpreter, for 16-bit Q, K, V, dO of a head dim in
    ``GLUON_BWD_HEAD_DIMS`` (D_qk = D_v: 64, 80, 96, 128; under the causal mask those in
    ``GLUON_BWD_CAUSAL_HEAD_DIMS``, all four; 80 and 96 run as the hd128 kernel,
    ``attention_bwd_gluon.kernel_head_dim``, with dK and dV (``dk``, ``dv``; None: laid out as K and V) written by
    the bulk-copy engine, which drops the padded columns), or of D_qk 192 / D_v 128
    (``kernels.attention_bwd_gluon_192``, under the masks in ``GLUON_BWD_192``; in deterministic mode only where
    ``GLUON_BWD192_DET_SPLIT`` (S_q a multiple of 4) lets it in, in its persistent form, with K and V heads of their
    own), that the bulk-copy engine can read (``_tma_ok``), any K/V head sharing (GQA, MQA: dK and dV bulk-reduced
    into fp32 accumulators; at 192 / 128 added by atomics), scale > 0, no band but the causal one with its diagonal
    at 0 or past it (with S_q < S_kv the pass runs on the keys' causal square and on the prefix every row keeps
    apart, ``causal_key_ranges``, each part of K and V TMA-addressable), in deterministic mode where
    ``GLUON_BWD_DETERMINISTIC`` lets it in (on by
    default since 2026-12-02: dQ's reduces, and GQA's dK and dV reduces, then take turns), with outputs that touch
    no input. The Triton kernels take the rest."""
    reasons = _gluon_reasons(q, sw.GLUON_BACKWARD, "GLUON_BACKWARD / $SDPA_BWD_GLUON_BWD", config, "backward")
    B, H_q, S_q, D_qk = q.shape
    S_kv, D_v = k.shape[2], v.shape[3]
    H_k, H_v = k.shape[1], v.shape[1]
    split192 = (D_qk, D_v) == attention_bwd_gluon_192.HEAD_DIMS
    if split192:
        mask = "causal" if causal else "nc"
        if mask not in sw.GLUON_BWD_192:
            reasons.append(f"head dims (192, 128) {'under the causal mask' if causal else 'without a mask'}: "
                           f"{mask!r} is not in GLUON_BWD_192 {sorted(sw.GLUON_BWD_192)} ($SDPA_BWD_GLUON_BWD_192)")
        split = _bwd192_det_split(q)
        if deterministic and not split:
            reasons.append("deterministic mode at head dims (192, 128): GLUON_BWD192_DET_SPLIT "
                           + ("(the switch gluon_bwd192_det_split) is off" if not sw.GLUON_BWD192_DET_SPLIT else
                              f"takes S_q a multiple of 4 only (S_q = {S_q}: its dQ pass reads the side buffers "
                              "packed)") + ", so the Triton kernels' deterministic path takes it")
        elif deterministic and not _bwd192_persist(q):
            reasons.append("deterministic mode at head dims (192, 128): its split form is the persistent form's "
                           "(GLUON_BWD192_PERSIST on, a CUDA device), so the Triton kernels' deterministic path "
                           "takes it")
        elif deterministic and (H_k != H_q or H_v != H_q):
            reasons.append(f"deterministic mode at head dims (192, 128) with shared K/V heads (H_q, H_k, H_v = "
                           f"{(H_q, H_k, H_v)}): the column-split kernel adds their dK, dV partials by atomics in no "
                           "order, so the Triton kernels' deterministic path takes it")
    elif D_qk != D_v or D_qk not in sw.GLUON_BWD_HEAD_DIMS:
        reasons.append(f"head dims {(D_qk, D_v)}: not D_qk = D_v in {sorted(sw.GLUON_BWD_HEAD_DIMS)}")
    elif (kernel_dim := attention_bwd_gluon.kernel_head_dim(D_qk)) is None:
        reasons.append(f"head dims {(D_qk, D_v)}: the kernel's registers and buffers are sized for D_qk = D_v up to "
                       f"{max(attention_bwd_gluon.HEAD_DIMS)}; take it out of $SDPA_BWD_GLUON_BWD_HEAD_DIMS")
    elif (kernel_dim != D_qk and H_k == H_q and H_v == H_q
          and not (_tma_ok(k if dk is None else dk) and _tma_ok(v if dv is None else dv))):
        reasons.append(f"head dim {D_qk} runs as the kernel's {kernel_dim}, whose dK "
                       "and dV must leave by the bulk-copy engine (it drops the padded columns; the pointer stores "
                       "would write them): dK or dV is not TMA-addressable (see _tma_ok)")
    if not scale > 0:
        reasons.append(f"scale {scale}: the exp2 fold needs scale > 0")
    if banded and not causal:
        reasons.append("a band other than the causal one")
    elif causal and hi_off < 0:
        reasons.append(f"bottom-right causal with S_q {S_q} > S_kv {S_kv}: the first {S_q - S_kv} query rows keep no "
                       "key")
    elif causal:
        prefix, diagonal, _ = causal_key_ranges(S_q, S_kv, hi_off, causal)
        ranges = [(prefix, diagonal)] + ([(0, prefix)] if prefix else [])
        # a part of a TMA-addressable tensor is one where it holds two keys or more (its base and pitch are the
        # whole's), so K's and V's parts decide; dK's and dV's follow theirs
        pairs = S_q * prefix + diagonal * (diagonal + 1) // 2 + (S_q - diagonal) * diagonal  # kept, a head
        if (prefix, diagonal) != (0, S_kv) and pairs < sw.GLUON_BWD_KEY_PARTS_MIN_PAIRS:
            reasons.append(f"causal with S_q {S_q} < S_kv {S_kv}: {pairs} kept pairs a head, under "
                           f"GLUON_BWD_KEY_PARTS_MIN_PAIRS {sw.GLUON_BWD_KEY_PARTS_MIN_PAIRS}: the pass on the keys' "
                           "parts costs more host time than the Triton kernels lose there")
        elif (prefix, diagonal) != (0, S_kv) and not all(_tma_ok(_narrowed(m, a, n)) for a, n in ranges
                                                          for m in (k, v)):
            reasons.append(f"causal with S_q {S_q} < S_kv {S_kv}: the pass runs on the keys {ranges} (start, count) "
                           "apart, and K's or V's part there is not TMA-addressable (see _tma_ok; a part of one key "
                           "is not)")
    if causal and D_qk in sw.GLUON_BWD_HEAD_DIMS and D_qk not in sw.GLUON_BWD_CAUSAL_HEAD_DIMS:
        reasons.append(f"head dim {D_qk} under the causal mask: not in GLUON_BWD_CAUSAL_HEAD_DIMS "
                       f"{sorted(sw.GLUON_BWD_CAUSAL_HEAD_DIMS)} (measured slower there than the Triton kernels)")
    if deterministic and not sw.GLUON_BWD_DETERMINISTIC and not split192:
        reasons.append("deterministic mode: GLUON_BWD_DETERMINISTIC is off (the switch gluon_bwd_deterministic), "
                       "so the Triton kernels' deterministic path takes it")
    if (deterministic and sw.GLUON_BWD_DETERMINISTIC and not split192 and (H_k != H_q or H_v != H_q)
            and not sw.GLUON_BWD_DETERMINISTIC_GQA):
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
