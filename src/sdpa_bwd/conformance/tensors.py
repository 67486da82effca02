"""Build a problem's tensors in real memory, with poisoned guard regions.

Each buffer (tensors that share a ``TensorSpec.buffer`` name share one) is one
flat allocation: ``GUARD`` elements of poison, the tensors' storage, ``GUARD``
more. Everything that is not a logical element of some tensor - the guards, the
gaps of padded rows, the holes of a head-dim stride of 2 - holds a signalling
NaN bit pattern. Inputs get fresh seeded random values; O and stats come from
the float64 oracle's forward on those inputs, so they are consistent.

After the engine ran, :func:`check_outputs` finds writes outside the logical
tensors (poison overwritten) and logical elements left unwritten (poison
still there).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Optional

import torch

from ..problem import oracle, ragged_oracle
from ..backends.base import Tensors
from ..problem import INPUTS, OUTPUTS, TENSORS, Problem, TensorSpec
from ..problem.ragged import RaggedProblem

GUARD = 256  # elements of poison before and after every buffer
GUARD_CHUNK = 1 << 26  # buffer elements checked for lost poison at a time

TORCH_DTYPE = {"float16": torch.float16, "bfloat16": torch.bfloat16, "float32": torch.float32,
               "float64": torch.float64}
_INT_VIEW = {2: torch.int16, 4: torch.int32, 8: torch.int64}
# Quiet-NaN patterns with a payload no arithmetic produces, so "still poison"
# is told apart from "the engine wrote a NaN".
POISON_BITS = {"float16": 0x7E5A, "bfloat16": 0x7FA5, "float32": 0x7FA5A5A5, "float64": 0x7FF5A5A5A5A5A5A5}


def _signed(bits: int, nbytes: int) -> int:
    return bits - (1 << (8 * nbytes)) if bits >= 1 << (8 * nbytes - 1) else bits


@dataclass
class Buffer:
    name: str
    dtype: str
    flat: torch.Tensor                       # the whole allocation, guards included
    members: list[str] = field(default_factory=list)


@dataclass
class Materialized:
    problem: Problem
    tensors: Tensors
    buffers: dict[str, Buffer]

    def view(self, name: str) -> torch.Tensor:
        return getattr(self.tensors, name)


def _footprint(spec: TensorSpec, device) -> torch.Tensor:
    """Flat element indices (in its buffer, guard included) of every logical element."""
    idx = torch.full((1,), GUARD + spec.offset, dtype=torch.int64, device=device)
    for d, s in zip(spec.dims, spec.strides):
        idx = (idx[..., None] + torch.arange(d, device=device, dtype=torch.int64) * s)
    return idx.reshape(-1)


def _disjoint(spec: TensorSpec) -> bool:
    """Is every logical element of ``spec`` at its own storage element? (Sufficient test: with the
    dims sorted by stride, each stride passes everything the smaller ones reach.) A broadcast
    (zero-stride) or otherwise self-overlapping tensor is not."""
    reach = 0
    for stride, dim in sorted((s, d) for d, s in zip(spec.dims, spec.strides) if d > 1):
        if stride <= reach:
            return False
        reach += (dim - 1) * stride
    return True


def _logical(flat: torch.Tensor, spec: TensorSpec) -> torch.Tensor:
    return flat.as_strided(spec.dims, spec.strides, GUARD + spec.offset)


def _mark(mask: torch.Tensor, spec: TensorSpec) -> None:
    """Set ``mask`` (a buffer-sized bool tensor) at every logical element of ``spec``: through the
    strided view where the tensor does not overlap itself (no index list: a 2^31-element tensor's
    would take 16 GiB), through flat indices where it does."""
    if _disjoint(spec):
        _logical(mask, spec).fill_(True)
    else:
        mask[_footprint(spec, mask.device)] = True


def poison_(flat: torch.Tensor, dtype: str) -> None:
    flat.view(_INT_VIEW[flat.element_size()]).fill_(_signed(POISON_BITS[dtype], flat.element_size()))


def is_poison(values: torch.Tensor, dtype: str) -> torch.Tensor:
    n = values.element_size()
    return values.contiguous().view(_INT_VIEW[n]) == _signed(POISON_BITS[dtype], n)


def _allocate(problem: Problem, device, *, poison: bool) -> tuple[dict, dict]:
    """(buffers, views): one flat allocation a buffer (the tensor's storage plus ``GUARD`` elements each side),
    each tensor a strided view into it at its offset."""
    specs = problem.tensors()
    groups: dict[str, list[str]] = {}
    for name in TENSORS:
        groups.setdefault(specs[name].buffer or name, []).append(name)
    buffers: dict[str, Buffer] = {}
    for bname, members in groups.items():
        dtypes = {specs[m].dtype for m in members}
        if len(dtypes) != 1:
            raise ValueError(f"buffer {bname!r} holds {members} with dtypes {sorted(dtypes)}: the harness "
                             "allocates one dtype per buffer - put tensors of other dtypes in their own buffer")
        dtype = dtypes.pop()
        size = max(specs[m].storage_size() for m in members)
        flat = torch.empty(size + 2 * GUARD, dtype=TORCH_DTYPE[dtype], device=device)
        if poison:
            poison_(flat, dtype)
        buffers[bname] = Buffer(bname, dtype, flat, members)

    views = {}
    for name in TENSORS:
        spec = specs[name]
        buf = buffers[spec.buffer or name]
        views[name] = buf.flat.as_strided(spec.dims, spec.strides, GUARD + spec.offset)

    return buffers, views


def layout_twin(problem: Problem, device) -> Tensors:
    """Tensors laid out as ``materialize`` lays out the problem's (the same allocations, offsets and strides, so
    the same pointer alignments), their values left as the allocator gives them: what an engine compiles its
    kernels on ahead of a case (``Engine.compile_ahead``) without touching the case's own tensors."""
    return Tensors(**_allocate(problem, device, poison=False)[1])


def materialize(problem: Problem, *, seed: int, device="cpu", forward: bool = True) -> Materialized:
    """Allocate, poison and fill the problem's tensors on ``device``.

    Inputs Q, K, V, dO: standard normal from ``seed`` (never zeros). O and stats:
    the oracle's forward in float64, stored in the problem's dtypes (a ``RaggedProblem``'s
    from the per-sequence oracle, stats in its form, padding NaN).
    """
    specs = problem.tensors()
    buffers, views = _allocate(problem, device, poison=True)

    # Drawn on the device that holds the tensors (a CUDA generator gives other values than the CPU
    # one for a seed, but the same ones on every run): a 2^31-element input drawn on one CPU thread
    # took tens of seconds.
    gen = torch.Generator(device=device).manual_seed(int(seed))
    for name in ("q", "k", "v", "do"):
        spec = specs[name]
        values = torch.randn(spec.dims, generator=gen, dtype=torch.float32, device=device)
        # Through flat indices, not view.copy_: a broadcast (zero-stride) input
        # overlaps itself, which copy_ refuses; the last write wins and the
        # oracle reads the view afterwards, so everyone sees the same values.
        _write(buffers[spec.buffer or name].flat, spec, values)
    if forward and isinstance(problem, RaggedProblem):
        o, stats = ragged_oracle.forward(views["q"], views["k"], views["v"], problem)
    elif forward:
        o, stats = oracle.forward(views["q"], views["k"], views["v"], scale=problem.effective_scale,
                                  left_bound=problem.left_bound, right_bound=problem.right_bound,
                                  alignment=problem.alignment)
    if forward:
        _write(buffers[specs["o"].buffer or "o"].flat, specs["o"], o)
        _write(buffers[specs["stats"].buffer or "stats"].flat, specs["stats"], stats)
    return Materialized(problem, Tensors(**views), buffers)


def _write(flat: torch.Tensor, spec: TensorSpec, values: torch.Tensor) -> None:
    values = values.to(device=flat.device, dtype=flat.dtype)
    if _disjoint(spec):
        _logical(flat, spec).copy_(values.reshape(spec.dims))
    else:  # overlapping: through flat indices, the last write wins
        flat[_footprint(spec, flat.device)] = values.reshape(-1)


def repoison_outputs(m: Materialized) -> None:
    """Poison every buffer that holds an output again (before a rerun)."""
    for buf in m.buffers.values():
        if any(n in OUTPUTS for n in buf.members):
            inside = torch.zeros(buf.flat.numel(), dtype=torch.bool, device=buf.flat.device)
            for n in buf.members:
                if n not in OUTPUTS:
                    _mark(inside, m.problem.tensor(n))
            keep = buf.flat[inside].clone()
            poison_(buf.flat, buf.dtype)
            buf.flat[inside] = keep


@dataclass
class GuardReport:
    written_outside: dict[str, int]    # buffer -> elements outside every tensor that lost their poison
    first_outside: dict[str, int]      # buffer -> first such flat index (relative to the tensor storage)
    unwritten: dict[str, int]          # output -> logical elements still holding poison
    inputs_modified: dict[str, int]    # input -> logical elements the engine changed

    @property
    def clean(self) -> bool:
        return not (any(self.written_outside.values()) or any(self.unwritten.values())
                    or any(self.inputs_modified.values()))


def snapshot_inputs(m: Materialized) -> dict[str, torch.Tensor]:
    return {n: m.view(n).clone() for n in INPUTS}


def check_outputs(m: Materialized, inputs_before: Optional[dict] = None) -> GuardReport:
    """Poison lost outside the tensors, outputs left unwritten, inputs changed: every count is kept on
    the device and read back once (each read waits for the device; see compare.check_tensor)."""
    counts: dict[tuple, torch.Tensor] = {}   # (kind, name) -> device scalar
    for buf in m.buffers.values():
        inside = torch.zeros(buf.flat.numel(), dtype=torch.bool, device=buf.flat.device)
        for n in buf.members:
            _mark(inside, m.problem.tensor(n))
        count = first = None
        for start in range(0, buf.flat.numel(), GUARD_CHUNK):  # a 2^31-element buffer: no 2 GiB temporaries
            piece = slice(start, start + GUARD_CHUNK)
            lost = ~is_poison(buf.flat[piece], buf.dtype) & ~inside[piece]
            n_lost = lost.sum()
            # the first lost element of the first chunk that has one (argmax: the first True)
            at = torch.where(n_lost > 0, torch.argmax(lost.to(torch.uint8)) + start, -1)
            first = at if first is None else torch.where(first >= 0, first, at)
            count = n_lost if count is None else count + n_lost
        if count is not None:
            counts["outside", buf.name] = count
            counts["first", buf.name] = first
    for n in OUTPUTS:
        counts["unwritten", n] = is_poison(m.view(n), m.problem.tensor(n).dtype).sum()
    for n, before in (inputs_before or {}).items():
        now = m.view(n)
        same = (now == before) | (torch.isnan(now) & torch.isnan(before))
        counts["modified", n] = (~same).sum()
    values = dict(zip(counts, torch.stack([c.to(torch.int64) for c in counts.values()]).tolist())) if counts else {}
    written_outside = {b: values.get(("outside", b), 0) for b in m.buffers}
    first_outside = {b: values[("first", b)] - GUARD for b in m.buffers if written_outside[b]}
    unwritten = {n: values[("unwritten", n)] for n in OUTPUTS}
    modified = {n: values[("modified", n)] for n in (inputs_before or {})}
    return GuardReport(written_outside, first_outside, unwritten, modified)
