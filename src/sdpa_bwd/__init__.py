"""sdpa-bwd: the backward pass of scaled-dot-product attention, right on every layout.

Modules, by concept: ``problem`` (tensor specs, the problem, validation),
``layout`` (storage orders), ``oracle`` (float64 forward and backward),
``engines`` (the protocol and one module per engine), ``cases`` (test cases as
data), ``tensors`` (poisoned buffers), ``compare`` and ``tolerance`` (judging
against the oracle), ``runner`` and ``report``, ``cli``.
"""

from .problem.layout import Storage, strided_empty
from .problem import Problem, TensorSpec, make_problem, problem_of


def __getattr__(name):
    # The PyTorch API (Triton kernels behind torch.library custom ops) loads on
    # first use, so the problem model and runner import without Triton.
    if name in ("attention", "forward", "backward"):
        from .engine import api as ops

        return getattr(ops, name)
    raise AttributeError(f"module 'sdpa_bwd' has no attribute {name!r}")


__version__ = "0.1.0"

__all__ = ["attention", "forward", "backward", "Problem", "Storage", "TensorSpec", "make_problem", "problem_of", "strided_empty", "__version__"]
