"""The SDPA backward problem: tensors as dims + strides + dtype, and the rules
that make a problem well-formed.

Logical dims are always (B, H, S, D), as in
``torch.nn.functional.scaled_dot_product_attention``; the storage order
(BHSD, BSHD, SBHD, anything else) lives only in the strides.

Two kinds of failure are kept apart (see ../shared/STYLE.md):

* a malformed or undefined problem raises ``ValueError`` here, for every
  engine, naming the tensor, the value seen and the rule;
* a well-formed problem that some engine cannot do is that engine's
  ``not_supported_reasons`` (a decline), never an exception.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, replace
from typing import Optional, Sequence

import numpy as np

DTYPES = ("float16", "bfloat16", "float32")
ITEMSIZE = {"float16": 2, "bfloat16": 2, "float32": 4, "float64": 8}
ALIGNMENTS = ("top_left", "bottom_right")
INPUTS = ("q", "k", "v", "o", "do", "stats")
OUTPUTS = ("dq", "dk", "dv")
TENSORS = INPUTS + OUTPUTS

# Deciding overlap exactly enumerates the offsets of the part of a layout that
# interleaves; past this many offsets we refuse to guess (see _core_overlaps).
_ENUMERATION_LIMIT = 1 << 24


@dataclass(frozen=True)
class TensorSpec:
    """One tensor as the engine sees it: logical dims, element strides, dtype,
    and where it starts in its buffer.

    ``buffer`` names the allocation the tensor lives in. Tensors with different
    buffer names never overlap; tensors in the same buffer are checked element
    by element (byte by byte when their dtypes differ). ``None`` means a buffer
    of its own.
    """

    dims: tuple[int, ...]
    strides: tuple[int, ...]
    dtype: str
    offset: int = 0
    buffer: Optional[str] = None

    def __post_init__(self) -> None:
        object.__setattr__(self, "dims", tuple(int(d) for d in self.dims))
        object.__setattr__(self, "strides", tuple(int(s) for s in self.strides))

    @property
    def numel(self) -> int:
        return math.prod(self.dims)

    @property
    def itemsize(self) -> int:
        return ITEMSIZE[self.dtype]

    def span(self) -> int:
        """Elements from the first to the last one addressed, inclusive (0 if empty)."""
        if self.numel == 0:
            return 0
        return sum((d - 1) * s for d, s in zip(self.dims, self.strides)) + 1

    def storage_size(self) -> int:
        """Elements a buffer needs to hold this tensor from index 0."""
        return self.offset + self.span()

    def is_packed(self) -> bool:
        """Row-major contiguous in its logical (B, H, S, D) order."""
        return self.strides == packed_strides(self.dims)

    @classmethod
    def of(cls, tensor, buffer: Optional[str] = None) -> "TensorSpec":
        """Describe a torch tensor (its dims, strides, dtype and storage offset)."""
        dtype = str(tensor.dtype).removeprefix("torch.")
        if buffer is None:
            buffer = f"storage@{tensor.untyped_storage().data_ptr():#x}"
        return cls(tuple(tensor.shape), tuple(tensor.stride()), dtype, tensor.storage_offset(), buffer)

    def to_dict(self) -> dict:
        return {"dims": list(self.dims), "strides": list(self.strides), "dtype": self.dtype,
                "offset": self.offset, "buffer": self.buffer}


def packed_strides(dims: Sequence[int]) -> tuple[int, ...]:
    strides, running = [], 1
    for d in reversed(dims):
        strides.append(running)
        running *= max(int(d), 1)
    return tuple(reversed(strides))


# ---------------------------------------------------------------------------
# Overlap: decided exactly.
# ---------------------------------------------------------------------------

def _live_axes(dims: Sequence[int], strides: Sequence[int]) -> list[tuple[int, int]]:
    """Axes that move: extent > 1. Size-1 axes only ever multiply index 0."""
    return [(int(d), int(s)) for d, s in zip(dims, strides) if d > 1]


def self_overlap(dims: Sequence[int], strides: Sequence[int]) -> Optional[tuple[tuple[int, ...], tuple[int, ...]]]:
    """Two distinct index tuples that reach the same element, or ``None``.

    Exact: a zero stride on a moving axis overlaps; otherwise the axes are
    sorted by stride and the outermost one is peeled off while its stride covers
    the span of every axis inside it (then different indices on it can never
    meet). What remains interleaves, and its offsets are enumerated.
    """
    if any(d == 0 for d in dims):
        return None
    if any(s < 0 for s in strides):
        raise ValueError(f"negative stride in {tuple(strides)}: strides must be >= 0")
    axes = [i for i, d in enumerate(dims) if d > 1]
    for i in axes:
        if strides[i] == 0:
            a = [0] * len(dims)
            b = list(a)
            b[i] = 1
            return tuple(a), tuple(b)
    core = sorted(axes, key=lambda i: strides[i])
    while core:
        outer = core[-1]
        inner_span = sum((dims[i] - 1) * strides[i] for i in core[:-1])
        if strides[outer] > inner_span:
            core.pop()
        else:
            break
    if not core:
        return None
    return _core_overlaps(dims, strides, core)


def _core_overlaps(dims, strides, core):
    count = math.prod(dims[i] for i in core)
    if count > _ENUMERATION_LIMIT:
        raise ValueError(
            f"cannot decide whether dims {tuple(dims)} with strides {tuple(strides)} overlap: "
            f"axes {core} interleave over {count} offsets (limit {_ENUMERATION_LIMIT}); "
            "store the tensor so that each stride covers the span of the axes inside it")
    grids = np.meshgrid(*[np.arange(dims[i], dtype=np.int64) for i in core], indexing="ij")
    offsets = sum(g.ravel() * strides[i] for g, i in zip(grids, core))
    order = np.argsort(offsets, kind="stable")
    sorted_offsets = offsets[order]
    dup = np.nonzero(sorted_offsets[1:] == sorted_offsets[:-1])[0]
    if dup.size == 0:
        return None
    first, second = order[dup[0]], order[dup[0] + 1]

    def index_of(flat):
        idx = [0] * len(dims)
        for ax, v in zip(core, np.unravel_index(flat, [dims[i] for i in core])):
            idx[ax] = int(v)
        return tuple(idx)

    return index_of(first), index_of(second)


def specs_overlap(a: TensorSpec, b: TensorSpec) -> bool:
    """Whether two tensors share any byte. Exact; different buffers never do."""
    if a.numel == 0 or b.numel == 0:
        return False
    if a.buffer is None or b.buffer is None or a.buffer != b.buffer:
        return False
    a_lo, a_hi = a.offset * a.itemsize, (a.offset + a.span() - 1) * a.itemsize + a.itemsize
    b_lo, b_hi = b.offset * b.itemsize, (b.offset + b.span() - 1) * b.itemsize + b.itemsize
    if a_hi <= b_lo or b_hi <= a_lo:
        return False
    if a.itemsize == b.itemsize and a.dims == b.dims and a.strides == b.strides:
        # Same layout, shifted: the pair is disjoint iff adding an axis of
        # extent 2 whose stride is the shift keeps the layout free of overlap.
        # (Each alone is already known to be overlap-free or an input.)
        delta = abs(b.offset - a.offset)
        if delta == 0:
            return True
        if self_overlap(a.dims, a.strides) is not None:  # a broadcast input: compare bytes
            return _bytes_intersect(a, b)
        return self_overlap(a.dims + (2,), a.strides + (delta,)) is not None
    return _bytes_intersect(a, b)


def _byte_addresses(spec: TensorSpec) -> np.ndarray:
    count = spec.numel * spec.itemsize
    if count > _ENUMERATION_LIMIT:
        raise ValueError(
            f"cannot decide whether a tensor with dims {spec.dims} and strides {spec.strides} "
            f"overlaps another in buffer {spec.buffer!r}: {count} bytes to compare (limit "
            f"{_ENUMERATION_LIMIT}); give the tensors the same strides or separate buffers")
    grids = np.meshgrid(*[np.arange(d, dtype=np.int64) for d in spec.dims], indexing="ij")
    elems = spec.offset + sum(g.ravel() * s for g, s in zip(grids, spec.strides))
    return (elems[:, None] * spec.itemsize + np.arange(spec.itemsize)).ravel()


def _bytes_intersect(a: TensorSpec, b: TensorSpec) -> bool:
    return np.intersect1d(_byte_addresses(a), _byte_addresses(b)).size > 0


# ---------------------------------------------------------------------------
# The problem.
# ---------------------------------------------------------------------------

@dataclass(frozen=True)
class Problem:
    """An SDPA backward problem: nine tensors and the attention attributes.

    ``scale=None`` means 1/sqrt(D_qk). Band semantics are cuDNN's (PEERS.md):
    with ``shift = S_kv - S_q`` for bottom-right alignment and 0 for top-left,
    query i keeps key j iff ``j - i >= 1 - left_bound + shift`` (when
    ``left_bound`` is set) and ``j - i <= right_bound + shift`` (when
    ``right_bound`` is set). ``causal`` is ``right_bound = 0``.
    """

    q: TensorSpec
    k: TensorSpec
    v: TensorSpec
    o: TensorSpec
    do: TensorSpec
    stats: TensorSpec
    dq: TensorSpec
    dk: TensorSpec
    dv: TensorSpec
    scale: Optional[float] = None
    left_bound: Optional[int] = None
    right_bound: Optional[int] = None
    alignment: str = "top_left"
    deterministic: bool = False

    # -- convenient views ---------------------------------------------------
    def tensor(self, name: str) -> TensorSpec:
        return getattr(self, name)

    def tensors(self) -> dict[str, TensorSpec]:
        return {n: getattr(self, n) for n in TENSORS}

    @property
    def dtype(self) -> str:
        return self.q.dtype

    @property
    def B(self) -> int:
        return self.q.dims[0]

    @property
    def H_q(self) -> int:
        return self.q.dims[1]

    @property
    def H_k(self) -> int:
        return self.k.dims[1]

    @property
    def H_v(self) -> int:
        return self.v.dims[1]

    @property
    def S_q(self) -> int:
        return self.q.dims[2]

    @property
    def S_kv(self) -> int:
        return self.k.dims[2]

    @property
    def D_qk(self) -> int:
        return self.q.dims[3]

    @property
    def D_v(self) -> int:
        return self.v.dims[3]

    @property
    def effective_scale(self) -> float:
        return 1.0 / math.sqrt(self.D_qk) if self.scale is None else float(self.scale)

    @property
    def has_mask(self) -> bool:
        return self.left_bound is not None or self.right_bound is not None

    @property
    def is_causal(self) -> bool:
        return self.left_bound is None and self.right_bound == 0

    @property
    def shift(self) -> int:
        return self.S_kv - self.S_q if self.alignment == "bottom_right" else 0

    def with_(self, **changes) -> "Problem":
        return replace(self, **changes)

    def key_range(self, i: int) -> tuple[int, int]:
        """Keys [lo, hi) that query row i keeps (empty when lo >= hi)."""
        lo, hi = 0, self.S_kv
        if self.left_bound is not None:
            lo = max(lo, i + 1 - self.left_bound + self.shift)
        if self.right_bound is not None:
            hi = min(hi, i + self.right_bound + self.shift + 1)
        return lo, hi

    def kept_pairs(self) -> int:
        """(query, key) pairs the mask keeps, per (batch, head): FLOPs count these."""
        total = 0
        for i in range(self.S_q):
            lo, hi = self.key_range(i)
            total += max(0, hi - lo)
        return total

    def empty_rows(self) -> int:
        """Query rows that keep no key (their O is 0 and stats -inf by convention)."""
        return sum(1 for i in range(self.S_q) if self.key_range(i)[0] >= self.key_range(i)[1])

    def flops(self) -> tuple[float, float]:
        """(forward, backward) FLOPs, masks counted exactly; backward = 2.5 x forward."""
        pairs = self.kept_pairs() * self.B * self.H_q
        fwd = 2.0 * pairs * (self.D_qk + self.D_v)
        return fwd, 2.5 * fwd

    def to_dict(self) -> dict:
        return {"tensors": {n: s.to_dict() for n, s in self.tensors().items()},
                "scale": self.scale, "left_bound": self.left_bound, "right_bound": self.right_bound,
                "alignment": self.alignment, "deterministic": self.deterministic}

    # -- validation ---------------------------------------------------------
    def validate(self) -> "Problem":
        """Raise ``ValueError`` for a malformed or undefined problem; return self."""
        for name in TENSORS:
            _check_spec(name, self.tensor(name))
        self._check_dims()
        self._check_dtypes()
        self._check_attributes()
        self._check_outputs_well_defined()
        return self

    def _check_dims(self) -> None:
        for name in ("q", "k", "v", "o", "do", "dq", "dk", "dv"):
            spec = self.tensor(name)
            if len(spec.dims) != 4:
                raise ValueError(f"{name}: dims {spec.dims} have rank {len(spec.dims)}; SDPA tensors are "
                                 "4-D (B, H, S, D); add the missing axes with size 1")
        B, H_q, S_q, D_qk = self.q.dims
        _, H_k, S_kv, _ = self.k.dims
        H_v, D_v = self.v.dims[1], self.v.dims[3]
        expect = {
            "k": (B, H_k, S_kv, D_qk),
            "v": (B, H_v, S_kv, D_v),
            "o": (B, H_q, S_q, D_v),
            "do": (B, H_q, S_q, D_v),
            "dq": self.q.dims,
            "dk": self.k.dims,
            "dv": self.v.dims,
        }
        why = {
            "k": "K must be (B, H_k, S_kv, D_qk) with Q's batch and head dim",
            "v": "V must be (B, H_v, S_kv, D_v) with Q's batch and K's sequence length",
            "o": "O must be (B, H_q, S_q, D_v): Q's batch, heads and rows, V's head dim",
            "do": "dO must have O's dims (B, H_q, S_q, D_v)",
            "dq": "dQ must have Q's dims", "dk": "dK must have K's dims", "dv": "dV must have V's dims",
        }
        for name, dims in expect.items():
            if self.tensor(name).dims != tuple(dims):
                raise ValueError(f"{name}: dims {self.tensor(name).dims} but expected {tuple(dims)}: {why[name]}")
        for name, value in (("B", B), ("H_q", H_q), ("S_q", S_q), ("D_qk", D_qk), ("H_k", H_k),
                            ("S_kv", S_kv), ("H_v", H_v), ("D_v", D_v)):
            if value < 1:
                raise ValueError(f"{name} = {value}: every dimension must be >= 1")
        for name, h in (("k", H_k), ("v", H_v)):
            if H_q % h:
                raise ValueError(f"{name}: {h} heads do not divide H_q = {H_q}: GQA/MQA needs H_q % H_{name} == 0")
        sd = self.stats.dims
        if sd not in ((B, H_q, S_q), (B, H_q, S_q, 1)):
            raise ValueError(f"stats: dims {sd} but expected {(B, H_q, S_q)} or {(B, H_q, S_q, 1)}: "
                             "one logsumexp per query row of each head")

    def _check_dtypes(self) -> None:
        check_dtypes(self)

    def _check_attributes(self) -> None:
        check_attributes(self)

    def _check_outputs_well_defined(self) -> None:
        for name in OUTPUTS:
            spec = self.tensor(name)
            hit = self_overlap(spec.dims, spec.strides)
            if hit is not None:
                raise ValueError(
                    f"{name}: strides {spec.strides} with dims {spec.dims} make index {hit[0]} and {hit[1]} "
                    "the same element: an output whose elements overlap has no well-defined result; "
                    "give it strides where each covers the span of the axes inside it")
        for out in OUTPUTS:
            for other in TENSORS:
                if other == out or (other in OUTPUTS and TENSORS.index(other) < TENSORS.index(out)):
                    continue
                if specs_overlap(self.tensor(out), self.tensor(other)):
                    raise ValueError(
                        f"{out}: shares memory with {other} in buffer {self.tensor(out).buffer!r}: "
                        "an output that overlaps another output or an input has no well-defined result; "
                        "give it memory of its own")


def _check_spec(name: str, spec: TensorSpec) -> None:
    if not isinstance(spec, TensorSpec):
        raise ValueError(f"{name}: {spec!r} is not a TensorSpec")
    if len(spec.dims) != len(spec.strides):
        raise ValueError(f"{name}: {len(spec.dims)} dims {spec.dims} but {len(spec.strides)} strides "
                         f"{spec.strides}: give one stride per dim")
    if spec.dtype not in ITEMSIZE:
        raise ValueError(f"{name}: dtype {spec.dtype!r} is not one of {tuple(ITEMSIZE)}")
    for axis, (d, s) in enumerate(zip(spec.dims, spec.strides)):
        if d < 0:
            raise ValueError(f"{name}: dim {axis} is {d}: dims must be >= 0")
        if s < 0:
            raise ValueError(f"{name}: stride {axis} is {s} (strides {spec.strides}): strides must be >= 0; "
                             "store the tensor with non-negative strides (flip it with a copy)")
    if spec.offset < 0:
        raise ValueError(f"{name}: storage offset {spec.offset} must be >= 0")


def make_problem(
    *,
    B: int, H_q: int, S_q: int, D_qk: int,
    H_k: Optional[int] = None, H_v: Optional[int] = None, S_kv: Optional[int] = None, D_v: Optional[int] = None,
    dtype: str = "bfloat16",
    specs: Optional[dict[str, TensorSpec]] = None,
    scale: Optional[float] = None, causal: bool = False,
    left_bound: Optional[int] = None, right_bound: Optional[int] = None,
    alignment: str = "top_left", deterministic: bool = False, stats_rank: int = 3,
) -> Problem:
    """A problem with packed tensors, with any tensors in ``specs`` replacing those."""
    H_k = H_q if H_k is None else H_k
    H_v = H_k if H_v is None else H_v
    S_kv = S_q if S_kv is None else S_kv
    D_v = D_qk if D_v is None else D_v
    if causal:
        if right_bound not in (None, 0):
            raise ValueError(f"causal=True with right_bound={right_bound}: causal means right_bound = 0")
        right_bound = 0
    dims = {
        "q": (B, H_q, S_q, D_qk), "k": (B, H_k, S_kv, D_qk), "v": (B, H_v, S_kv, D_v),
        "o": (B, H_q, S_q, D_v), "do": (B, H_q, S_q, D_v),
        "stats": (B, H_q, S_q) if stats_rank == 3 else (B, H_q, S_q, 1),
        "dq": (B, H_q, S_q, D_qk), "dk": (B, H_k, S_kv, D_qk), "dv": (B, H_v, S_kv, D_v),
    }
    built = {n: TensorSpec(d, packed_strides(d), "float32" if n == "stats" else dtype) for n, d in dims.items()}
    built.update(specs or {})
    return Problem(**built, scale=scale, left_bound=left_bound, right_bound=right_bound,
                   alignment=alignment, deterministic=deterministic)


def problem_of(q, k, v, o, do, stats, dq, dk, dv, **attrs) -> Problem:
    """Describe torch tensors (buffers named by their storage) as a problem."""
    return Problem(**{n: TensorSpec.of(t) for n, t in zip(TENSORS, (q, k, v, o, do, stats, dq, dk, dv))}, **attrs)


def check_dtypes(problem) -> None:
    """The dtype rules shared by the dense and the ragged problem: one dtype for Q ... dV, float32 stats."""
    dtype = problem.q.dtype
    if dtype not in DTYPES:
        raise ValueError(f"q: dtype {dtype!r} is not one of {DTYPES}")
    for name in ("k", "v", "o", "do", "dq", "dk", "dv"):
        if problem.tensor(name).dtype != dtype:
            raise ValueError(f"{name}: dtype {problem.tensor(name).dtype!r} differs from q's {dtype!r}: "
                             "Q, K, V, O, dO and the gradients share one dtype")
    if problem.stats.dtype != "float32":
        raise ValueError(f"stats: dtype {problem.stats.dtype!r} but the logsumexp is float32")

def check_attributes(problem) -> None:
    """The scale, alignment, band bounds and deterministic flag, shared by the dense and the ragged problem."""
    if problem.scale is not None and not (isinstance(problem.scale, (int, float)) and math.isfinite(problem.scale)):
        raise ValueError(f"scale = {problem.scale!r}: the scale must be a finite number (or None for 1/sqrt(D_qk))")
    if problem.alignment not in ALIGNMENTS:
        raise ValueError(f"alignment = {problem.alignment!r}: must be one of {ALIGNMENTS}")
    for name, value, low in (("left_bound", problem.left_bound, 1), ("right_bound", problem.right_bound, 0)):
        if value is None:
            continue
        if isinstance(value, bool) or not isinstance(value, (int, np.integer)):
            raise ValueError(f"{name} = {value!r}: must be an integer or None")
        if value < low:
            raise ValueError(f"{name} = {value}: must be >= {low} (cuDNN's band semantics: "
                             + ("left_bound = W keeps the diagonal and W - 1 keys to its left"
                                if name == "left_bound" else "right_bound = 0 is causal")
                             + "); use None for no bound")
    if not isinstance(problem.deterministic, bool):
        raise ValueError(f"deterministic = {problem.deterministic!r}: must be a bool")
