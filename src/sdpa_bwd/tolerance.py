"""Tolerance classes: how far an output may sit from the float64 oracle.

A class gives ``k`` (multiple of the same-dtype reference's error) and
``floor_ulps`` (rounding floor, in units in the last place of the output's
largest magnitude, scaled by sqrt of the reduction length because the
summation order of a long reduction is free). See ``compare`` for the rule.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from .problem import Problem


@dataclass(frozen=True)
class ToleranceClass:
    name: str
    k: float
    floor_ulps: float
    why: str

    def floor_for(self, reduction: int) -> float:
        return self.floor_ulps * math.sqrt(max(reduction, 1))


# Measured on the CPU with torch-math and the reference: a same-dtype
# reference's error is dominated by rounding P and dS to the dtype, which a
# kernel accumulating in fp32 does not do, so k = 2 leaves room for a
# different-but-honest rounding order while any addressing defect (errors of
# the order of the values themselves) fails by orders of magnitude.
_DEFAULT = {
    "float16": ToleranceClass("half-default", 2.0, 1.0, "fp16/bf16: FlashAttention's factor 2"),
    "bfloat16": ToleranceClass("half-default", 2.0, 1.0, "fp16/bf16: FlashAttention's factor 2"),
    "float32": ToleranceClass("fp32-default", 4.0, 8.0, "fp32: tiny reference error, order-of-summation floor"),
}


def tolerance_class(problem: Problem, tensor: str) -> ToleranceClass:
    return _DEFAULT[problem.dtype]


def reduction_length(problem: Problem, tensor: str) -> int:
    """Terms summed into one element: keys for dQ/O, query rows x shared heads for dK/dV."""
    if tensor in ("dq", "o", "stats", "delta"):
        return problem.S_kv
    group = problem.H_q // (problem.H_k if tensor == "dk" else problem.H_v)
    return problem.S_q * group
