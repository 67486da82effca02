"""Storage layouts: how a tensor with logical dims (B, H, S, D) sits in memory.

A :class:`Storage` names a storage order (``"bhsd"``, ``"bshd"``, ``"sbhd"``, any
permutation of the four letters, outermost first) and the ways real code departs
from packed storage: padded strides (row padding), an innermost stride other
than 1, broadcast (zero) strides, junk strides on size-1 axes, and a storage
offset. It turns logical dims into a :class:`~sdpa_bwd.problem.TensorSpec`, and
:func:`strided_empty` makes the torch tensor.

Stats tensors (B, H, S) use the same letters without ``d``; the rank-4 form
(B, H, S, 1) keeps ``d`` as its size-1 last axis.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Mapping, Optional, Sequence

from .model import TensorSpec

AXES = "bhsd"

# A stride for size-1 axes that no packed layout produces: odd, and larger than
# any small tensor, so an engine that multiplies it by a nonzero index reads far
# outside the tensor and the guard regions catch it.
JUNK_STRIDE = 7919


@dataclass(frozen=True)
class Storage:
    """A storage recipe for one tensor.

    order:        permutation of ``bhsd``, outermost axis first.
    pad:          extra elements added to an axis's stride over its packed
                  value, e.g. ``{"s": 3}`` pads each row by 3 elements in BHSD.
    inner_stride: the stride of the innermost axis of ``order`` (the head-dim
                  stride in BHSD/BSHD/SBHD); 1 when packed.
    zero:         axes given stride 0 (a broadcast; legal on inputs only).
    junk:         give every size-1 axis the stride ``JUNK_STRIDE``.
    offset:       storage offset in elements.
    """

    order: str = "bhsd"
    pad: tuple[tuple[str, int], ...] = ()
    inner_stride: int = 1
    zero: tuple[str, ...] = ()
    junk: bool = False
    offset: int = 0

    def __post_init__(self) -> None:
        pad = self.pad.items() if isinstance(self.pad, Mapping) else self.pad
        object.__setattr__(self, "pad", tuple(sorted((str(a), int(n)) for a, n in pad)))
        object.__setattr__(self, "zero", tuple(sorted(self.zero)))
        if sorted(self.order) != sorted(AXES):
            raise ValueError(f"storage order {self.order!r} is not a permutation of {AXES!r}")
        for axis, n in self.pad:
            if axis not in AXES or n < 0:
                raise ValueError(f"pad {axis!r}: {n} must name an axis of {AXES!r} and be >= 0")
        for axis in self.zero:
            if axis not in AXES:
                raise ValueError(f"zero-stride axis {axis!r} is not one of {AXES!r}")
        if self.inner_stride < 1:
            raise ValueError(f"inner_stride {self.inner_stride} must be >= 1 (use zero=... for a broadcast)")
        if self.offset < 0:
            raise ValueError(f"storage offset {self.offset} must be >= 0")

    @classmethod
    def packed(cls, order: str = "bhsd") -> "Storage":
        return cls(order=order)

    @property
    def is_packed_bhsd(self) -> bool:
        return self == Storage()

    def strides(self, dims: Sequence[int]) -> tuple[int, ...]:
        """Element strides for logical dims (rank 3 drops the ``d`` axis)."""
        letters = AXES[: len(dims)]
        order = [a for a in self.order if a in letters]
        extent = dict(zip(letters, dims))
        pad = dict(self.pad)
        stride: dict[str, int] = {}
        running = None
        for axis in reversed(order):
            if axis in self.zero:
                stride[axis] = 0
                continue
            base = self.inner_stride if running is None else running
            stride[axis] = base + pad.get(axis, 0)
            running = stride[axis] * max(extent[axis], 1)
        if self.junk:
            for axis in letters:
                if extent[axis] == 1 and axis not in self.zero:
                    stride[axis] = JUNK_STRIDE
        return tuple(stride[a] for a in letters)

    def spec(self, dims: Sequence[int], dtype: str, buffer: Optional[str] = None) -> TensorSpec:
        return TensorSpec(tuple(dims), self.strides(dims), dtype, self.offset, buffer)

    def describe(self) -> str:
        parts = [self.order.upper()]
        parts += [f"pad {a}+{n}" for a, n in self.pad if n]
        if self.inner_stride != 1:
            parts.append(f"inner stride {self.inner_stride}")
        if self.zero:
            parts.append("zero " + "".join(self.zero))
        if self.junk:
            parts.append("junk size-1 strides")
        if self.offset:
            parts.append(f"offset {self.offset}")
        return ", ".join(parts)

    def to_dict(self) -> dict:
        out: dict = {"order": self.order}
        if self.pad:
            out["pad"] = {a: n for a, n in self.pad}
        if self.inner_stride != 1:
            out["inner_stride"] = self.inner_stride
        if self.zero:
            out["zero"] = list(self.zero)
        if self.junk:
            out["junk"] = True
        if self.offset:
            out["offset"] = self.offset
        return out

    @classmethod
    def from_dict(cls, data: Mapping) -> "Storage":
        unknown = set(data) - {"order", "pad", "inner_stride", "zero", "junk", "offset"}
        if unknown:
            raise ValueError(f"storage {dict(data)}: unknown keys {sorted(unknown)}")
        return cls(order=data.get("order", "bhsd"), pad=tuple(dict(data.get("pad", {})).items()),
                   inner_stride=int(data.get("inner_stride", 1)), zero=tuple(data.get("zero", ())),
                   junk=bool(data.get("junk", False)), offset=int(data.get("offset", 0)))


def strided_empty(dims: Sequence[int], order: str = "bhsd", *, dtype=None, device=None,
                  pad: Mapping[str, int] | None = None, inner_stride: int = 1,
                  zero: Sequence[str] = (), junk: bool = False, offset: int = 0):
    """A torch tensor with logical ``dims`` stored as the named layout (contents undefined).

    >>> strided_empty((2, 4, 16, 64), "sbhd").stride()
    (256, 64, 512, 1)
    """
    import torch

    storage = Storage(order=order, pad=tuple((pad or {}).items()), inner_stride=inner_stride,
                      zero=tuple(zero), junk=junk, offset=offset)
    spec = storage.spec(dims, "float32")
    flat = torch.empty(max(spec.storage_size(), 1), dtype=dtype, device=device)
    return flat.as_strided(tuple(dims), spec.strides, spec.offset)


def describe_tensor(tensor) -> str:
    """The storage order of a torch tensor, outermost axis first, e.g. ``'bshd'``."""
    spec = TensorSpec.of(tensor)
    letters = AXES[: len(spec.dims)]
    ranked = sorted(range(len(letters)), key=lambda i: (-spec.strides[i], i))
    return "".join(letters[i] for i in ranked)
