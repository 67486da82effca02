"""The engine's allocations: ``torch.empty`` / ``torch.empty_like`` without deterministic mode's fill.

Under ``torch.use_deterministic_algorithms(True)`` PyTorch fills every ``torch.empty`` with NaN (integers with their
largest value) so that a kernel reading memory it never wrote reads the same values each run
(``torch.utils.deterministic.fill_uninitialized_memory``). Each fill is a kernel launch over the whole buffer: a
forward + backward through ``sdpa_bwd.attention`` made 9 of them against the default mode's 1 (CPU profile,
2026-12-06), on a short problem as much host time as the call's own launches, on a long one a pass over each
output's bytes. The buffers allocated here are the ones the launches write whole before anything reads them (O
and the stats, dQ, dK and dV: the runner's output guards check it case by case) or whose unwritten part no
output depends on (the side buffers' padded rows, Triton's scratch for device-side descriptors): exactly what the
default mode runs on, where they are never filled. Buffers a kernel accumulates into are zeroed (``zeros``: one
fill, where ``torch.zeros`` in deterministic mode fills twice). Deterministic mode promises the same bits run to
run; its kernels give that on the default mode's memory.
"""

from __future__ import annotations

import math

import torch


def _filling() -> bool:
    return torch.are_deterministic_algorithms_enabled() and torch.utils.deterministic.fill_uninitialized_memory


def _unfilled(shape, stride, dtype, device) -> torch.Tensor:
    # A storage of its own is allocated by the caching allocator without the fill; the tensor over it is set up
    # from an empty one (a 0-element fill launches nothing).
    size = 0 if 0 in shape else 1 + sum((n - 1) * s for n, s in zip(shape, stride))
    storage = torch.UntypedStorage(size * dtype.itemsize, device=device)
    return torch.empty(0, dtype=dtype, device=device).set_(storage, 0, tuple(shape), tuple(stride))


def empty(shape, dtype: torch.dtype, device) -> torch.Tensor:
    """``torch.empty(shape, dtype=dtype, device=device)``, never filled (see the module's docstring)."""
    if not _filling():
        return torch.empty(shape, dtype=dtype, device=device)
    shape = (shape,) if isinstance(shape, int) else tuple(shape)
    # set_ without strides lays the tensor out contiguously (3.8 us a call against 5.9 with the strides computed
    # here, CPU, 2026-12-06)
    storage = torch.UntypedStorage(math.prod(shape) * dtype.itemsize, device=device)
    return torch.empty(0, dtype=dtype, device=device).set_(storage, 0, shape)


def empty_like(t: torch.Tensor) -> torch.Tensor:
    """``torch.empty_like(t)`` (its strides: ``t``'s own where ``t`` is dense, else in ``t``'s order), never
    filled."""
    if not _filling():
        return torch.empty_like(t)
    if t.is_contiguous():  # dense: torch keeps its strides (a size-1 dim's odd stride included)
        return _unfilled(t.shape, t.stride(), t.dtype, t.device)
    like = torch.empty_like(t, device="meta")  # PyTorch's own rule for the strides, at no allocation
    return _unfilled(like.shape, like.stride(), t.dtype, t.device)


def zeros(shape, dtype: torch.dtype, device) -> torch.Tensor:
    """``torch.zeros``: one fill (``zero_``), not deterministic mode's NaN fill before it."""
    return empty(shape, dtype, device).zero_()
