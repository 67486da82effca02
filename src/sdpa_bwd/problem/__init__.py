"""The problem: tensor specs, the problem and its validation (``model``), storage orders
(``layout``), the float64 oracle (``oracle``) and test cases as data (``cases``); packed
variable-length problems (``ragged``) and their oracle (``ragged_oracle``).

Imports nothing from the engine, the backends, the conformance harness or the CLI."""

from .model import (
    ALIGNMENTS,
    DTYPES,
    INPUTS,
    ITEMSIZE,
    OUTPUTS,
    TENSORS,
    Problem,
    TensorSpec,
    make_problem,
    packed_strides,
    problem_of,
    self_overlap,
    specs_overlap,
)
from .ragged import STATS_FORMS, RaggedProblem, from_cu_seqlens, make_ragged_problem, ragged_problem_of

__all__ = ["ALIGNMENTS", "DTYPES", "INPUTS", "ITEMSIZE", "OUTPUTS", "TENSORS", "Problem", "TensorSpec",
           "make_problem", "packed_strides", "problem_of", "self_overlap", "specs_overlap",
           "STATS_FORMS", "RaggedProblem", "from_cu_seqlens", "make_ragged_problem", "ragged_problem_of"]
