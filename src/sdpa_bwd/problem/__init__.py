"""The problem: tensor specs, the problem and its validation (``model``), storage orders
(``layout``), the float64 oracle (``oracle``) and test cases as data (``cases``).

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

__all__ = ["ALIGNMENTS", "DTYPES", "INPUTS", "ITEMSIZE", "OUTPUTS", "TENSORS", "Problem", "TensorSpec",
           "make_problem", "packed_strides", "problem_of", "self_overlap", "specs_overlap"]
