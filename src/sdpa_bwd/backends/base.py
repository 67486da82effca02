"""The engine protocol: what every engine under test declares and does.

An engine is a class with a ``name``, declared :class:`Capabilities`, and

* ``not_supported_reasons(problem) -> list[str]``: empty means it runs the
  problem; each reason names the value seen, the rule and what to do. It raises
  ``ValueError`` for a problem that is malformed or has no well-defined result
  (the base class does that through ``Problem.validate``), so an engine that
  returns ``[]`` for such a problem has *accepted* it, and the runner fails it.
* ``backward(problem, tensors)`` writing dQ, dK, dV into the caller's
  ``tensors.dq/dk/dv`` through whatever strides they have, returning any side
  buffers it exposes (``{"delta": ...}``) for the diagnoser's stage split.
* ``forward(problem, tensors)`` writing O and stats, where the engine has one.

Subclasses extend ``not_supported_reasons`` by calling ``super()`` and
appending, as xformers' ops do; ``supports()`` is just its negation.
"""

from __future__ import annotations

from dataclasses import dataclass, fields
from typing import ClassVar, Optional

import torch

from ..problem import Problem


@dataclass(frozen=True)
class Capabilities:
    dtypes: tuple[str, ...] = ("float16", "bfloat16", "float32")
    max_head_dim: int = 1 << 30
    devices: tuple[str, ...] = ("cpu", "cuda")
    band_masks: bool = True           # arbitrary left/right bounds
    causal: bool = True               # right_bound = 0
    alignments: tuple[str, ...] = ("top_left", "bottom_right")
    gqa: bool = True                  # H_k, H_v < H_q
    distinct_kv_heads: bool = True    # H_k != H_v
    distinct_head_dims: bool = True   # D_qk != D_v
    deterministic: bool = True        # can honour deterministic=True
    forward: bool = False             # has a forward that writes O and stats
    reads_caller_forward: bool = True  # backward uses the caller's O and stats (else recomputes them)
    ragged: bool = False              # packed variable-length sequences (``ragged_backward``; the varlen level)
    notes: str = ""

    def to_dict(self) -> dict:
        return {f.name: getattr(self, f.name) for f in fields(self)}


@dataclass
class Tensors:
    """The nine torch tensors of one problem, as strided views into their buffers."""

    q: torch.Tensor
    k: torch.Tensor
    v: torch.Tensor
    o: torch.Tensor
    do: torch.Tensor
    stats: torch.Tensor
    dq: torch.Tensor
    dk: torch.Tensor
    dv: torch.Tensor

    def take_grads(self, dq: torch.Tensor, dk: torch.Tensor, dv: torch.Tensor) -> None:
        """Copy gradients an engine computed into tensors of its own into the caller's dQ, dK, dV."""
        self.dq.copy_(dq)
        self.dk.copy_(dk)
        self.dv.copy_(dv)


class Engine:
    """Base class; subclasses set ``name`` and ``capabilities`` and override the compute."""

    name: ClassVar[str] = "abstract"
    capabilities: ClassVar[Capabilities] = Capabilities()
    description: ClassVar[str] = ""
    # Does a case of this engine compile Triton kernels where Triton's disk cache lacks them? The runner then
    # estimates a cold cache's compiles into its schedule (``conformance.schedule.cold_compile_seconds``).
    compiles_triton: ClassVar[bool] = False

    def device(self) -> str:
        """Where this engine wants its tensors: 'cuda' if it can and CUDA is here, else 'cpu'."""
        if "cuda" in self.capabilities.devices and torch.cuda.is_available():
            return "cuda"
        return "cpu" if "cpu" in self.capabilities.devices else "cuda"

    def not_supported_reasons(self, problem: Problem) -> list[str]:
        problem.validate()
        caps = self.capabilities
        reasons: list[str] = []
        dev = self.device()
        if dev == "cuda" and not torch.cuda.is_available():
            reasons.append(f"{self.name} runs on CUDA only and no CUDA device is available here "
                           f"(torch {torch.__version__}) - run it on a GPU machine")
        reasons += self._shape_reasons(problem)
        if (problem.H_k != problem.H_q or problem.H_v != problem.H_q) and not caps.gqa:
            reasons.append(f"H_q = {problem.H_q}, H_k = {problem.H_k}, H_v = {problem.H_v}: "
                           "GQA/MQA is not supported - repeat the K/V heads")
        if problem.has_mask:
            if problem.is_causal and not caps.causal and not caps.band_masks:
                reasons.append("causal mask not supported")
            elif not problem.is_causal and not caps.band_masks:
                reasons.append(f"band mask left_bound={problem.left_bound}, right_bound={problem.right_bound}: "
                               "only no mask" + (" or causal (right_bound=0)" if caps.causal else "")
                               + " can be expressed")
            if (problem.alignment not in caps.alignments and problem.S_q != problem.S_kv):
                reasons.append(f"alignment {problem.alignment!r} with S_q = {problem.S_q} != S_kv = "
                               f"{problem.S_kv}: only {caps.alignments} supported")
        if problem.deterministic and not caps.deterministic:
            reasons.append("deterministic=True but this engine has no deterministic backward")
        return reasons

    # -- packed variable-length sequences (problem.ragged.RaggedProblem; the varlen level) ----------------
    def ragged_offset_reasons(self, cu_seqlens_q, cu_seqlens_kv, total_tokens) -> list[str]:
        """Why this engine refuses these cumulative offsets for tensors of ``total_tokens`` tokens (empty: it
        takes them). An engine with a ragged path checks them as its own entry point does; the varlen level's
        probes hand it malformed ones."""
        if not self.capabilities.ragged:
            return [f"{self.name} has no packed variable-length path (capabilities.ragged is False)"]
        raise NotImplementedError(f"{self.name} declares a ragged path but no ragged_offset_reasons")

    def ragged_not_supported_reasons(self, problem) -> list[str]:
        """The dense declines that apply to a ragged problem (dtype, head dims, heads, determinism), and the
        ragged path itself."""
        if not self.capabilities.ragged:
            return [f"{self.name} has no packed variable-length path (capabilities.ragged is False) - run the "
                    "varlen level on an engine that has one"]
        reasons = self._shape_reasons(problem)
        if problem.deterministic and not self.capabilities.deterministic:
            reasons.append("deterministic=True but this engine has no deterministic backward")
        return reasons

    def _shape_reasons(self, problem) -> list[str]:
        """Dtype, head dims and heads against the capabilities: the declines dense and ragged problems share."""
        caps, reasons = self.capabilities, []
        if problem.dtype not in caps.dtypes:
            reasons.append(f"dtype {problem.dtype} is not one of {caps.dtypes} - cast the inputs")
        d = max(problem.D_qk, problem.D_v)
        if d > caps.max_head_dim:
            reasons.append(f"head dim {d} (D_qk={problem.D_qk}, D_v={problem.D_v}) > {caps.max_head_dim}")
        if problem.D_qk != problem.D_v and not caps.distinct_head_dims:
            reasons.append(f"D_qk = {problem.D_qk} != D_v = {problem.D_v}: this engine needs equal head dims")
        if problem.H_k != problem.H_v and not caps.distinct_kv_heads:
            reasons.append(f"H_k = {problem.H_k} != H_v = {problem.H_v}: this engine needs K and V "
                           "to have the same head count")
        return reasons

    def ragged_backward(self, problem, tensors: Tensors) -> Optional[dict]:
        raise NotImplementedError(f"{self.name} has no ragged backward")

    def ragged_forward(self, problem, tensors: Tensors) -> None:
        raise NotImplementedError(f"{self.name} has no ragged forward")

    def supports(self, problem: Problem) -> bool:
        return not self.not_supported_reasons(problem)

    def backward(self, problem: Problem, tensors: Tensors) -> Optional[dict]:
        raise NotImplementedError

    def forward(self, problem: Problem, tensors: Tensors) -> None:
        raise NotImplementedError(f"{self.name} has no forward")

    def compile_ahead(self, problem: Problem, tensors: Tensors) -> bool:
        """Compile, without launching them, the kernels that ``backward`` and ``forward`` would launch on
        tensors laid out as ``tensors`` (a twin of the case's, whose values it may overwrite), all at once;
        True where it did. The runner calls it before a case on a GPU, so that a case's kernels compile side
        by side. Engines that compile nothing keep this default."""
        return False

    def info(self) -> dict:
        return {"name": self.name, "description": self.description, "device": self.device(),
                "capabilities": self.capabilities.to_dict()}
