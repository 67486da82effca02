"""sdpa-bwd: the backward pass of scaled-dot-product attention, right on every layout.

Packages, as data flows through them (docs/architecture.md): ``problem`` (tensor
specs, the problem and its validation, storage orders, the float64 oracle, test
cases as data), ``engine`` (our engine: the PyTorch API, the launcher, the
kernels), ``backends`` (the engine protocol, the registry, one adapter per
engine), ``conformance`` (the plan, poisoned tensors, judging against the oracle,
the runners, reports, the diagnoser), and the ``cli`` module.
"""

from .problem.layout import Storage, strided_empty
from .problem import Problem, TensorSpec, make_problem, problem_of


def __getattr__(name):
    # The PyTorch API (Triton kernels behind torch.library custom ops) loads on
    # first use, so the problem model and runner import without Triton.
    # Kept as a module attribute once loaded: a training step resolves ``sdpa_bwd.attention`` every call, and
    # this function ran each time (~1.5-2.6 us a call, CPU, 2026-12-06).
    if name in ("attention", "forward", "backward"):
        from .engine import api as ops

        value = globals()[name] = getattr(ops, name)
        return value
    raise AttributeError(f"module 'sdpa_bwd' has no attribute {name!r}")


__version__ = "0.1.0"

__all__ = ["attention", "forward", "backward", "Problem", "Storage", "TensorSpec", "make_problem", "problem_of", "strided_empty", "__version__"]
