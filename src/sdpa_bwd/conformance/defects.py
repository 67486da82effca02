"""Seeded defects: test-only variants of our Triton engine, one per defect class
of the seeds and the peers, each making exactly the addressing (or arithmetic)
mistake of its class. They prove that the test plan catches each class and that
``sdpa-bwd diagnose`` names it.

Never reachable from the default path: nothing here registers itself on import.
A test instantiates the classes in ``DEFECTS`` directly; the command line sees
them as engines named ``triton-defect:<class>`` only when ``SDPA_BWD_DEFECTS=1``
is set (``sdpa_bwd.conformance.diagnose.add_commands`` then calls :func:`register_defects`, and so
does importing this module, which is how the runner's worker processes get them:
``SDPA_BWD_ENGINE_IMPORTS=sdpa_bwd.conformance.defects``).

The kernels and the launcher are untouched. Each variant subclasses
:class:`~sdpa_bwd.backends.triton.TritonEngine` and hands
``launch.attention_backward`` what the defective kernel would have read, or
writes what it would have written:

* an input read through wrong addresses is gathered from the tensor's own
  storage at those addresses (out of the storage: NaN, like reading garbage);
* an output written through wrong addresses is computed into a packed scratch
  tensor and scattered into the caller's storage at those addresses (writes that
  fall out of the storage are dropped), so the harness's poisoned guards and
  gaps see the stray writes and the unwritten elements.
"""

from __future__ import annotations

import math
import os
from dataclasses import replace
from typing import ClassVar, Optional, Sequence

import torch

from ..problem.cases import Case
from ..backends.base import Tensors
from ..backends.triton import TritonEngine
from ..problem.layout import Storage
from ..problem import Problem, packed_strides

ENV_SWITCH = "SDPA_BWD_DEFECTS"
PREFIX = "triton-defect:"


# ----------------------------------------------------------------------------
# Addressing helpers: what a kernel with wrong strides reads and writes.


def _flat(t: torch.Tensor) -> torch.Tensor:
    """The whole storage under ``t`` as a 1-D tensor of its dtype."""
    n = t.untyped_storage().nbytes() // t.element_size()
    return t.new_empty(0).set_(t.untyped_storage(), 0, (n,), (1,))


def element_index(dims: Sequence[int], strides: Sequence[int], offset: int, device=None) -> torch.Tensor:
    """Flat storage index of each logical element, shaped ``dims``."""
    idx = torch.full((), int(offset), dtype=torch.int64, device=device)
    for d, s in zip(dims, strides):
        idx = idx[..., None] + torch.arange(int(d), dtype=torch.int64, device=device) * int(s)
    return idx


def read_at(t: torch.Tensor, index: torch.Tensor, keep: Optional[torch.Tensor] = None) -> torch.Tensor:
    """The values a kernel reads at ``index`` in ``t``'s storage (NaN outside it, 0 where not ``keep``)."""
    flat = _flat(t)
    inside = (index >= 0) & (index < flat.numel())
    values = flat[index.clamp(0, max(flat.numel() - 1, 0))]
    values = torch.where(inside, values, torch.full_like(values, math.nan))
    if keep is not None:
        values = torch.where(keep, values, torch.zeros_like(values))
    return values


def write_at(t: torch.Tensor, index: torch.Tensor, values: torch.Tensor,
             keep: Optional[torch.Tensor] = None) -> None:
    """Store ``values`` at ``index`` in ``t``'s storage; writes outside it (or not ``keep``) are dropped."""
    flat = _flat(t)
    ok = (index >= 0) & (index < flat.numel())
    if keep is not None:
        ok &= keep
    flat[index[ok]] = values.to(flat.dtype)[ok]


def own_index(t: torch.Tensor) -> torch.Tensor:
    return element_index(t.shape, t.stride(), t.storage_offset(), t.device)


def scratch_like(t: torch.Tensor, dims=None) -> torch.Tensor:
    return torch.empty(tuple(t.shape) if dims is None else tuple(dims), dtype=t.dtype, device=t.device)


# ----------------------------------------------------------------------------
# The variants


class DefectiveTriton(TritonEngine):
    """Base of the seeded variants: the Triton engine with a ``tamper`` hook.

    The forward is not checked (``forward=False``): the defects are in the
    backward, and skipping the forward halves the time of a case.
    """

    defect: ClassVar[str] = "none"
    symptom: ClassVar[str] = ""
    # The diagnoser's class (conformance.diagnose.decision) that names this defect: its own name,
    # except where one class of the table covers several variants (stale state).
    diagnosed_as: ClassVar[str] = ""
    capabilities = replace(TritonEngine.capabilities, forward=False,
                           notes="seeded defect, test only (sdpa_bwd.conformance.defects)")

    def backward(self, problem: Problem, t: Tensors):
        self._delta = None
        self.tamper(problem, t)
        # ODO's delta, as the defective launch computed it: the stage split's first stage
        # (a side-buffer defect of the seeds leaves it right: "D passes").
        return {"delta": self._delta} if self._delta is not None else None

    def _launch(self, problem: Problem, q, k, v, o, do, stats, dq, dk, dv, **override) -> None:
        from ..engine.launch import attention_backward

        attrs = dict(self._attrs(problem), **override)
        *_, self._delta = attention_backward(q, k, v, o, do, stats, deterministic=problem.deterministic,
                                             dq=dq, dk=dk, dv=dv, return_delta=True, **attrs)

    def tamper(self, problem: Problem, t: Tensors) -> None:
        self._launch(problem, t.q, t.k, t.v, t.o, t.do, t.stats, t.dq, t.dk, t.dv)

    @classmethod
    def reset(cls) -> None:
        """Forget any state kept between calls (only the stale-state variants keep some)."""

    def _launch_reading_stats_with(self, problem: Problem, t: Tensors, strides) -> None:
        """The correct launch, except that the stats are read at the given (wrong) strides."""
        stats = read_at(t.stats, element_index(t.stats.shape, strides, t.stats.storage_offset(), t.stats.device))
        self._launch(problem, t.q, t.k, t.v, t.o, t.do, stats, t.dq, t.dk, t.dv)


class LseBaseFromLayout(DefectiveTriton):
    defect = "lse-base-from-layout"
    symptom = ("the stats (LSE/D side buffer) batch base comes from Q's batch stride: q.stride(0) // D_qk is "
               "right for BHSD and BSHD, wrong for SBHD (and padded Q rows): SBHD fails, BSHD and BHSD pass, D passes")

    def tamper(self, problem, t):
        st = list(t.stats.stride())
        st[0] = t.q.stride(0) // t.q.shape[3]
        self._launch_reading_stats_with(problem, t, st)


class DqAccumBatchTerm(DefectiveTriton):
    defect = "dq-accum-batch-term"
    symptom = ("the fp32 dQ accumulator has its own batch term, Q's batch stride: batches overlap (SBHD) or "
               "leave holes (padded Q) in the packed accumulator; only dQ is wrong")

    def tamper(self, problem, t):
        dq = scratch_like(t.dq)
        self._launch(problem, t.q, t.k, t.v, t.o, t.do, t.stats, dq, t.dk, t.dv)
        B = dq.shape[0]
        per_batch = dq[0].numel()
        wrong_batch = t.q.stride(0)
        accum = torch.zeros(max((B - 1) * wrong_batch + per_batch, B * per_batch), dtype=torch.float32,
                            device=dq.device)
        values = dq.float().reshape(B, per_batch)
        for b in range(B):
            accum[b * wrong_batch: b * wrong_batch + per_batch] += values[b]
        # DQ_CONVERT reads the accumulator packed, as it should.
        t.dq.copy_(accum[: B * per_batch].reshape(dq.shape).to(t.dq.dtype))


class HeadDimStrideIgnored(DefectiveTriton):
    defect = "head-dim-stride-ignored"
    symptom = "every tensor's head-dim (innermost) stride is read as 1: a stride-2 input gives garbage, a stride-2 output leaves holes"

    @staticmethod
    def _unit_inner(x):
        return element_index(x.shape, x.stride()[:-1] + (1,), x.storage_offset(), x.device)

    def tamper(self, problem, t):
        ins = [read_at(x, self._unit_inner(x)) for x in (t.q, t.k, t.v, t.o, t.do)]
        outs = [scratch_like(x) for x in (t.dq, t.dk, t.dv)]
        self._launch(problem, *ins, t.stats, *outs)
        for dst, val in zip((t.dq, t.dk, t.dv), outs):
            write_at(dst, self._unit_inner(dst), val)


def _short_row_keep(x: torch.Tensor) -> torch.Tensor:
    """True where an element lies within S x (sequence stride) of its (batch, head) slice."""
    S, D = x.shape[2], x.shape[3]
    ss, sd = x.stride(2), x.stride(3)
    rel = (torch.arange(S, device=x.device)[:, None] * ss + torch.arange(D, device=x.device)[None, :] * sd)
    return (rel < S * ss).expand(x.shape)


class ShortRowsCut(DefectiveTriton):
    defect = "short-rows-cut"
    symptom = ("each (batch, head) slice is a buffer of S x (sequence stride) elements: with a sequence stride "
               "below the row's span the end of the last row reads as 0 and writes there are dropped")

    def tamper(self, problem, t):
        ins = [read_at(x, own_index(x), _short_row_keep(x)) for x in (t.q, t.k, t.v, t.o, t.do)]
        outs = [scratch_like(x) for x in (t.dq, t.dk, t.dv)]
        self._launch(problem, *ins, t.stats, *outs)
        for dst, val in zip((t.dq, t.dk, t.dv), outs):
            write_at(dst, own_index(dst), val, _short_row_keep(dst))


def _record_index(x: torch.Tensor, with_head: bool) -> torch.Tensor:
    """Addresses when the row offset (sequence term, and head term when ``with_head``) is taken in
    4-byte records: for 2-byte elements an odd offset is rounded down one element."""
    B, H, S, D = x.shape
    sb, sh, ss, sd = x.stride()
    dev = x.device
    b = torch.arange(B, device=dev)[:, None, None, None] * sb
    h = torch.arange(H, device=dev)[None, :, None, None] * sh
    s = torch.arange(S, device=dev)[None, None, :, None] * ss
    d = torch.arange(D, device=dev)[None, None, None, :] * sd
    if x.element_size() != 2:
        return x.storage_offset() + b + h + s + d
    if with_head:
        return x.storage_offset() + b + (h + s) // 2 * 2 + d
    return x.storage_offset() + b + h + s // 2 * 2 + d


class OddStride4Byte(DefectiveTriton):
    defect = "odd-stride-4byte"
    symptom = ("DQDKDV indexes rows in 4-byte records: with 2-byte elements an odd sequence stride of Q, K, V, "
               "dO, dK, dV (or an odd head stride of dK, dV) puts every other row one element early")

    def tamper(self, problem, t):
        ins = {n: read_at(x, _record_index(x, False)) for n, x in (("q", t.q), ("k", t.k), ("v", t.v), ("do", t.do))}
        dk, dv = scratch_like(t.dk), scratch_like(t.dv)
        self._launch(problem, ins["q"], ins["k"], ins["v"], t.o, ins["do"], t.stats, t.dq, dk, dv)
        write_at(t.dk, _record_index(t.dk, True), dk)
        write_at(t.dv, _record_index(t.dv, True), dv)


class StatsStridesIgnored(DefectiveTriton):
    defect = "stats-strides-ignored"
    symptom = "the stats are read as packed [B, H_q, S_q] whatever their strides: padded or permuted stats give wrong gradients"

    def tamper(self, problem, t):
        self._launch_reading_stats_with(problem, t, packed_strides(t.stats.shape))


class StatsBatchHeadSwapped(DefectiveTriton):
    defect = "stats-batch-head-swapped"
    symptom = "the stats' batch and head strides are swapped: only B = H = 1 passes; slice (0, 0) is always right"

    def tamper(self, problem, t):
        st = list(t.stats.stride())
        st[0], st[1] = st[1], st[0]
        self._launch_reading_stats_with(problem, t, st)


class VWithKHeads(DefectiveTriton):
    defect = "v-with-k-heads"
    symptom = ("V and dV are addressed with K's head count: with H_k != H_v the wrong V heads are read and dV "
               "heads past H_v are written past dV's slice (H_k = H_q > H_v writes past dV's buffer)")

    def tamper(self, problem, t):
        H_k = t.k.shape[1]
        if t.v.shape[1] == H_k:
            return super().tamper(problem, t)
        dims = (t.v.shape[0], H_k) + tuple(t.v.shape[2:])
        v = read_at(t.v, element_index(dims, t.v.stride(), t.v.storage_offset(), t.v.device))
        dv = scratch_like(t.dv, dims)
        self._launch(problem, t.q, t.k, v, t.o, t.do, t.stats, t.dq, t.dk, dv)
        write_at(t.dv, element_index(dims, t.dv.stride(), t.dv.storage_offset(), t.dv.device), dv)


class AliasedOutputs(DefectiveTriton):
    defect = "aliased-outputs"
    symptom = "dK is stored through dV's pointer when their dims agree: dV holds dK's values and dK is never written"

    def tamper(self, problem, t):
        if t.dk.shape != t.dv.shape:
            return super().tamper(problem, t)
        dk = scratch_like(t.dk)
        self._launch(problem, t.q, t.k, t.v, t.o, t.do, t.stats, t.dq, dk, t.dv)
        write_at(t.dv, own_index(t.dv), dk)


class DoWithOStrides(DefectiveTriton):
    defect = "do-with-o-strides"
    symptom = "dO is addressed with O's strides: any case whose dO is stored unlike O fails; dO like O passes"

    def tamper(self, problem, t):
        do = read_at(t.do, element_index(t.do.shape, t.o.stride(), t.do.storage_offset(), t.do.device))
        self._launch(problem, t.q, t.k, t.v, t.o, do, t.stats, t.dq, t.dk, t.dv)


class OReadAsBshd(DefectiveTriton):
    defect = "o-read-as-bshd"
    diagnosed_as = "layout-assumed"
    symptom = ("O is read at a token stride of H x D_v whatever its strides (its batch and head strides honoured), "
               "as PyTorch's memory-efficient backward operator reads it: every O not stored BSHD fails, packed "
               "BHSD too (H > 1); O stored BSHD passes")

    def tamper(self, problem, t):
        B, H, S, D = t.o.shape
        strides = (t.o.stride(0), t.o.stride(1), H * D, t.o.stride(3))
        o = read_at(t.o, element_index(t.o.shape, strides, t.o.storage_offset(), t.o.device))
        self._launch(problem, t.q, t.k, t.v, o, t.do, t.stats, t.dq, t.dk, t.dv)


class DqWithQStrides(DefectiveTriton):
    defect = "dq-with-q-strides"
    symptom = "dQ is written with Q's strides: any case whose dQ is stored unlike Q fails (only dQ); dQ like Q passes"

    def tamper(self, problem, t):
        dq = scratch_like(t.dq)
        self._launch(problem, t.q, t.k, t.v, t.o, t.do, t.stats, dq, t.dk, t.dv)
        write_at(t.dq, element_index(t.dq.shape, t.q.stride(), t.dq.storage_offset(), t.dq.device), dq)


class NonPositiveScale(DefectiveTriton):
    defect = "non-positive-scale"
    symptom = "a scale <= 0 is not honoured: a negative scale is used as |scale|, a zero scale as 1/sqrt(D_qk)"

    def tamper(self, problem, t):
        scale = problem.effective_scale
        if scale > 0:
            return super().tamper(problem, t)
        wrong = -scale if scale < 0 else 1.0 / math.sqrt(problem.D_qk)
        self._launch(problem, t.q, t.k, t.v, t.o, t.do, t.stats, t.dq, t.dk, t.dv, scale=wrong)


def to_low_truncating(x: torch.Tensor, low: torch.dtype) -> torch.Tensor:
    """``x`` converted to ``low`` rounding toward zero, as a conversion that drops mantissa bits does."""
    y = x.to(low)
    over = y.float().abs() > x.abs()
    return torch.where(over, torch.nextafter(y, torch.zeros_like(y)), y)


def low_precision_dv(problem: Problem, t: Tensors, tile: int = 1) -> torch.Tensor:
    """dV with its running sum over query rows (``tile`` rows per step) kept in the inputs' 16-bit
    dtype, each partial sum converted by dropping mantissa bits (round toward zero)."""
    from ..problem.oracle import band_mask

    low = t.q.dtype
    B, H_q, S_q, _ = t.q.shape
    H_v = t.v.shape[1]
    q = t.q.float()
    k = t.k.float().repeat_interleave(H_q // t.k.shape[1], dim=1)
    do = t.do.float()
    lse = t.stats.reshape(B, H_q, S_q).float()
    keep = band_mask(S_q, t.k.shape[2], problem.left_bound, problem.right_bound, problem.alignment, q.device)
    p = torch.exp(q @ k.transpose(-1, -2) * problem.effective_scale - lse.masked_fill(~torch.isfinite(lse), 0)[..., None])
    p = p.masked_fill(~(keep & torch.isfinite(lse)[..., None]), 0.0)
    acc = torch.zeros(B, H_q, t.v.shape[2], t.v.shape[3], dtype=low, device=q.device)
    for i0 in range(0, S_q, tile):
        part = p[:, :, i0:i0 + tile].transpose(-1, -2) @ do[:, :, i0:i0 + tile]
        acc = to_low_truncating(acc.float() + part, low)
    group = H_q // H_v
    heads = acc.reshape(B, H_v, group, *acc.shape[2:])
    out = heads[:, :, 0]
    for g in range(1, group):
        out = to_low_truncating(out.float() + heads[:, :, g].float(), low)
    return out


class LowPrecisionAccumulator(DefectiveTriton):
    defect = "low-precision-accumulator"
    symptom = ("dV is accumulated in the inputs' 16-bit dtype with truncating conversions (an a16 accumulator): "
               "small, biased errors over every element of dV in fp16/bf16, none in fp32")

    def tamper(self, problem, t):
        super().tamper(problem, t)
        if t.q.element_size() == 2:
            t.dv.copy_(low_precision_dv(problem, t))


class UnwrittenTailTile(DefectiveTriton):
    defect = "unwritten-tail-tile"
    symptom = "the last, partial key tile of the DKDV pass is not stored: dK and dV rows past the last full tile stay unwritten"

    def tamper(self, problem, t):
        from ..engine.launch import backward_config, head_dim_pad

        cfg = backward_config(head_dim_pad(problem.D_qk), head_dim_pad(problem.D_v), t.q.dtype, t.q.device.type,
                              problem.deterministic, problem.is_causal)
        dk, dv = scratch_like(t.dk), scratch_like(t.dv)
        self._launch(problem, t.q, t.k, t.v, t.o, t.do, t.stats, t.dq, dk, dv)
        full = problem.S_kv // cfg.block_n1 * cfg.block_n1
        t.dk[:, :, :full] = dk[:, :, :full]
        t.dv[:, :, :full] = dv[:, :, :full]


class WrongCausalAlignment(DefectiveTriton):
    defect = "wrong-causal-alignment"
    symptom = "the band's alignment is swapped (top-left <-> bottom-right): masked cases with S_q != S_kv fail"

    def tamper(self, problem, t):
        if not problem.has_mask:
            return super().tamper(problem, t)
        other = "bottom_right" if problem.alignment == "top_left" else "top_left"
        self._launch(problem, t.q, t.k, t.v, t.o, t.do, t.stats, t.dq, t.dk, t.dv, alignment=other)


class StaleState(DefectiveTriton):
    defect = "stale-state"
    symptom = ("a stats workspace cached per shape and never refreshed: a case that follows another case of the same "
               "(B, H_q, S_q) reads the earlier case's stats; alone in a fresh process it passes")

    _workspace: ClassVar[dict] = {}

    def tamper(self, problem, t):
        key = (tuple(t.stats.shape), t.stats.device.type)
        stats = StaleState._workspace.setdefault(key, t.stats.clone())
        self._launch(problem, t.q, t.k, t.v, t.o, t.do, stats, t.dq, t.dk, t.dv)

    @classmethod
    def reset(cls) -> None:
        cls._workspace.clear()


_NINE = ("q", "k", "v", "o", "do", "stats", "dq", "dk", "dv")
_INPUTS = ("q", "k", "v", "o", "do", "stats")


class StalePlanCache(DefectiveTriton):
    defect = "stale-plan-cache"
    diagnosed_as = "stale-state"
    symptom = ("a launch plan cached on the problem's dims and dtype alone: the first call with those dims fixes "
               "every tensor's strides, and later calls with the same dims read and write their tensors through "
               "those strides; a case whose strides differ from an earlier same-dims case fails, alone it passes")

    _plans: ClassVar[dict] = {}

    def tamper(self, problem, t):
        got = {n: getattr(t, n) for n in _NINE}
        key = (tuple(tuple(x.shape) for x in got.values()), t.q.dtype, t.q.device.type)
        plan = StalePlanCache._plans.setdefault(key, {n: tuple(x.stride()) for n, x in got.items()})

        def stale_index(x, name):
            return element_index(x.shape, plan[name], x.storage_offset(), x.device)

        stale = {n for n, x in got.items() if tuple(x.stride()) != plan[n]}
        args = {n: read_at(got[n], stale_index(got[n], n)) if n in stale else got[n] for n in _INPUTS}
        outs = {n: scratch_like(got[n]) if n in stale else got[n] for n in ("dq", "dk", "dv")}
        self._launch(problem, *(args[n] for n in _INPUTS), *(outs[n] for n in ("dq", "dk", "dv")))
        for n in ("dq", "dk", "dv"):
            if n in stale:
                write_at(got[n], stale_index(got[n], n), outs[n])

    @classmethod
    def reset(cls) -> None:
        cls._plans.clear()


_CLASSES = (LseBaseFromLayout, DqAccumBatchTerm, HeadDimStrideIgnored, ShortRowsCut, OddStride4Byte,
            StatsStridesIgnored, StatsBatchHeadSwapped, VWithKHeads, AliasedOutputs, DoWithOStrides, OReadAsBshd,
            DqWithQStrides, NonPositiveScale, LowPrecisionAccumulator, UnwrittenTailTile, WrongCausalAlignment,
            StaleState, StalePlanCache)
for _cls in _CLASSES:
    _cls.name = PREFIX + _cls.defect
    _cls.diagnosed_as = _cls.diagnosed_as or _cls.defect
    _cls.description = "seeded defect (test only): " + _cls.symptom

DEFECTS: dict[str, type[DefectiveTriton]] = {c.defect: c for c in _CLASSES}


def register_defects() -> list[str]:
    """Register every variant as an engine ``triton-defect:<class>``; returns the names."""
    from ..backends import register

    for cls in _CLASSES:
        register(cls)
    return [cls.name for cls in _CLASSES]


def unregister_defects() -> None:
    from ..backends import _REGISTERED

    for cls in _CLASSES:
        _REGISTERED.pop(cls.name, None)


def switch_on() -> bool:
    return os.environ.get(ENV_SWITCH, "") == "1"


# Behind the debug switch only: a worker or replay process that imports this module
# (SDPA_BWD_ENGINE_IMPORTS=sdpa_bwd.conformance.defects) with SDPA_BWD_DEFECTS=1 sees the variants.
if switch_on():
    register_defects()


# ----------------------------------------------------------------------------
# Cases that reproduce the published symptoms the built-in list lacks (used
# until, and beside, the generated plan's quick level).


def _all(order: str = "bhsd", **extra) -> dict:
    return {n: Storage(order=order, **extra) for n in ("q", "k", "v", "o", "do", "dq", "dk", "dv")}


SYMPTOM_CASES: tuple[Case, ...] = (
    Case("diag-inner-stride-2", B=1, H_q=2, S_q=16, D_qk=16, storage=_all(inner_stride=2), seed=21,
         covers=("layout:inner-stride",)),
    # cuDNN's rule only asks a length-1 axis for a stride; 1 is legal and no kernel may read past it.
    Case("diag-short-row-s1", B=2, H_q=2, S_q=1, S_kv=16, D_qk=16, strides={"q": [32, 16, 1, 1]}, seed=22,
         covers=("layout:short-row",)),
    Case("diag-sbhd-pad-even", B=2, H_q=2, S_q=16, D_qk=16, storage=_all("sbhd", pad={"s": 2}), seed=23,
         covers=("layout:sbhd", "layout:row-pad-even")),
)
