"""Compare an engine's outputs with the float64 oracle, FlashAttention's way.

For each output the bar is relative to what the dtype allows:

    max |engine - oracle|  <=  k * max |same_dtype_reference - oracle|  +  floor

where the same-dtype reference is the oracle's algorithm run in the inputs'
dtype (``oracle.backward(..., compute_dtype=dtype)``) and ``floor`` is a
rounding floor of ``floor_ulps`` units in the last place of the output's
largest magnitude (or its magnitude before cancellation, where larger). ``k`` and ``floor_ulps`` come from the case's tolerance
class (``sdpa_bwd.tolerance``). The margin is ``bound / error``: 1 is the edge,
``inf`` an exact match.
"""

from __future__ import annotations

import math
from dataclasses import asdict, dataclass
from typing import Optional

import numpy as np
import torch

EPS = {"float16": 2.0 ** -10, "bfloat16": 2.0 ** -7, "float32": 2.0 ** -23}


@dataclass
class TensorCheck:
    name: str
    max_abs_err: float
    ref_err: float
    tolerance: float
    margin: float
    rel_l2: float
    mismatches: int
    numel: int
    worst_index: Optional[tuple]
    worst_got: Optional[float]
    worst_want: Optional[float]
    nan: int
    inf: int

    @property
    def passed(self) -> bool:
        return self.mismatches == 0 and self.nan == 0 and self.inf == 0

    def to_dict(self) -> dict:
        out = asdict(self)
        out["passed"] = self.passed
        for key in ("margin", "max_abs_err", "rel_l2"):
            if isinstance(out[key], float) and not math.isfinite(out[key]):
                out[key] = str(out[key])
        return out

    def summary(self) -> str:
        if self.passed:
            return f"{self.name} ok (err {self.max_abs_err:.2e}, margin {self.margin:.1f})"
        census = f", {self.nan} NaN, {self.inf} Inf" if self.nan or self.inf else ""
        return (f"{self.name}: {self.mismatches}/{self.numel} elements off by more than {self.tolerance:.2e}"
                f"{census}; worst at {self.worst_index}: got {self.worst_got!r}, want {self.worst_want!r} "
                f"(max err {self.max_abs_err:.3g}, same-dtype reference err {self.ref_err:.3g})")


CHUNK_ELEMENTS = 1 << 26   # compared at a time: 7 float64 temporaries of this size = 3.5 GiB, not 7 x the tensor


def check_tensor(name: str, got: torch.Tensor, want: torch.Tensor, ref: Optional[torch.Tensor],
                 dtype: str, k: float, floor_ulps: float, magnitude: Optional[float] = None,
                 reduction: int = 1, chunk: int = CHUNK_ELEMENTS) -> TensorCheck:
    """The rounding floor is ``floor_ulps * eps * max(max|oracle| * sqrt(reduction), magnitude)``.

    ``magnitude`` is the sum of |terms| of the output's largest element
    (``oracle.gradient_magnitudes``): Higham's bound on the rounding error of a
    sum is eps times it, so where the true value is ~0 by cancellation (one key
    per row: dP == delta) the floor does not collapse to 0 with the value. For
    random data it is about max|oracle| * sqrt(reduction), the usual floor.

    The tensors are compared ``chunk`` elements at a time (flattened in ``got``'s
    index order), in two passes: the first finds the error, the oracle's largest
    value and the same-dtype reference's error, which fix the tolerance; the
    second counts mismatches against it. A 2^31-element gradient would otherwise
    need seven float64 copies of itself (112 GiB) just to be judged.
    """
    shape = tuple(got.shape)
    n = got.numel()
    got_flat = got.reshape(-1)            # a copy in got's dtype only where got is strided
    want_flat = want.reshape(-1)
    ref_flat = ref.reshape(-1) if ref is not None else None
    nan = inf = 0
    max_err, worst_flat, want_max, ref_err = 0.0, None, 0.0, 0.0
    worst_key = -1.0
    err_sq = want_sq = 0.0

    def pieces():
        for lo in range(0, n, chunk):
            hi = min(n, lo + chunk)
            got64 = got_flat[lo:hi].to(torch.float64)
            want64 = want_flat[lo:hi].to(torch.float64)
            # An infinite stat is right where the oracle says so (rows with no key).
            both_inf = torch.isinf(got64) & torch.isinf(want64) & (torch.sign(got64) == torch.sign(want64))
            err = (got64 - want64).abs()
            err = torch.where(both_inf, torch.zeros_like(err), err)
            err = torch.where(torch.isnan(err), torch.full_like(err, math.inf), err)
            yield lo, got64, want64, both_inf, err

    for lo, got64, want64, both_inf, err in pieces():
        nan += int(torch.isnan(got64).sum())
        inf += int(torch.isinf(got64).sum()) - int(both_inf.sum())
        finite_want = torch.where(torch.isinf(want64), torch.zeros_like(want64), want64)
        want_max = max(want_max, float(finite_want.abs().max()))
        want_sq += float(torch.linalg.vector_norm(finite_want)) ** 2
        err_sq += float(torch.linalg.vector_norm(torch.where(torch.isinf(err), torch.zeros_like(err), err))) ** 2
        max_err = max(max_err, float(err.max()))
        keyed = torch.where(torch.isinf(err), torch.full_like(err, 1e300), err)
        at = int(torch.argmax(keyed))
        if float(keyed[at]) > worst_key:   # strictly: the first occurrence wins, as one argmax would
            worst_key, worst_flat = float(keyed[at]), lo + at
        if ref_flat is not None:
            ref_err_t = (ref_flat[lo:lo + err.numel()].to(torch.float64) - want64).abs()
            ref_err_t = torch.where(torch.isnan(ref_err_t) | both_inf, torch.zeros_like(ref_err_t), ref_err_t)
            ref_err = max(ref_err, float(ref_err_t.max()))
    scale = max(want_max * math.sqrt(max(reduction, 1)), magnitude or 0.0)
    floor = floor_ulps * EPS.get(dtype, EPS["float32"]) * max(scale, 1e-6)
    tolerance = k * ref_err + floor
    mismatches = 0
    if n:
        mismatches = sum(int((err > tolerance).sum()) for _, _, _, _, err in pieces())
    worst = wg = ww = None
    if worst_flat is not None:
        # numpy's, not torch.unravel_index: torch's first call imports sympy (torch.fx's symbolic
        # shapes), 0.3 s on one idle core and seconds in 16 workers starting at once
        worst = tuple(int(i) for i in np.unravel_index(int(worst_flat), tuple(shape)))
        wg, ww = float(got_flat[worst_flat]), float(want_flat[worst_flat])
    margin = math.inf if max_err == 0 else tolerance / max_err
    rel = math.sqrt(err_sq) / (math.sqrt(want_sq) or 1.0)
    if nan or inf:
        rel = math.inf
    return TensorCheck(name, max_err, ref_err, tolerance, margin, rel, mismatches, n,
                       worst, wg, ww, nan, inf)
