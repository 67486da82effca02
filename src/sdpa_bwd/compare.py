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


def check_tensor(name: str, got: torch.Tensor, want: torch.Tensor, ref: Optional[torch.Tensor],
                 dtype: str, k: float, floor_ulps: float, magnitude: Optional[float] = None,
                 reduction: int = 1) -> TensorCheck:
    """The rounding floor is ``floor_ulps * eps * max(max|oracle| * sqrt(reduction), magnitude)``.

    ``magnitude`` is the sum of |terms| of the output's largest element
    (``oracle.gradient_magnitudes``): Higham's bound on the rounding error of a
    sum is eps times it, so where the true value is ~0 by cancellation (one key
    per row: dP == delta) the floor does not collapse to 0 with the value. For
    random data it is about max|oracle| * sqrt(reduction), the usual floor.
    """
    got64 = got.to(torch.float64)
    want64 = want.to(torch.float64).reshape(got64.shape)
    nan = int(torch.isnan(got64).sum())
    inf = int(torch.isinf(got64).sum())
    # An infinite stat is right where the oracle says so (rows with no key).
    both_inf = torch.isinf(got64) & torch.isinf(want64) & (torch.sign(got64) == torch.sign(want64))
    inf -= int(both_inf.sum())
    err = (got64 - want64).abs()
    err = torch.where(both_inf, torch.zeros_like(err), err)
    err = torch.where(torch.isnan(err), torch.full_like(err, math.inf), err)
    finite_want = torch.where(torch.isinf(want64), torch.zeros_like(want64), want64)
    scale = float(finite_want.abs().max()) if want64.numel() else 0.0
    scale = max(scale * math.sqrt(max(reduction, 1)), magnitude or 0.0)
    if ref is not None:
        ref_err_t = (ref.to(torch.float64).reshape(got64.shape) - want64).abs()
        ref_err_t = torch.where(torch.isnan(ref_err_t) | both_inf, torch.zeros_like(ref_err_t), ref_err_t)
        ref_err = float(ref_err_t.max()) if ref_err_t.numel() else 0.0
    else:
        ref_err = 0.0
    floor = floor_ulps * EPS.get(dtype, EPS["float32"]) * max(scale, 1e-6)
    tolerance = k * ref_err + floor
    max_err = float(err.max()) if err.numel() else 0.0
    bad = err > tolerance
    mismatches = int(bad.sum())
    worst = None
    wg = ww = None
    if err.numel():
        flat = int(torch.argmax(torch.where(torch.isinf(err), torch.full_like(err, 1e300), err)))
        worst = tuple(int(i) for i in torch.unravel_index(torch.tensor(flat), tuple(got64.shape)))
        wg, ww = float(got64[worst]), float(want64[worst])
    margin = math.inf if max_err == 0 else tolerance / max_err
    denom = float(torch.linalg.vector_norm(finite_want)) or 1.0
    rel = float(torch.linalg.vector_norm(torch.where(torch.isinf(err), torch.zeros_like(err), err))) / denom
    if nan or inf:
        rel = math.inf
    return TensorCheck(name, max_err, ref_err, tolerance, margin, rel, mismatches, got64.numel(),
                       worst, wg, ww, nan, inf)
