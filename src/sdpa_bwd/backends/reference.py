"""The ``reference`` engine: the float64 oracle behind the engine protocol.

It exercises the harness end to end (strided inputs, caller-given outputs with
any strides, guard regions) with arithmetic that cannot be wrong, so a failure
of this engine is a harness bug, not a kernel bug.
"""

from __future__ import annotations

from ..problem import oracle
from ..problem import Problem
from .base import Capabilities, Engine, Tensors


class ReferenceEngine(Engine):
    name = "reference"
    description = "float64 oracle (sdpa_bwd.problem.oracle) computing on the tensors' device"
    capabilities = Capabilities(forward=True, ragged=True, notes="exact up to float64 rounding; slow")

    def device(self) -> str:
        import torch

        return "cuda" if torch.cuda.is_available() else "cpu"

    @staticmethod
    def _attrs(problem: Problem) -> dict:
        return dict(scale=problem.effective_scale, left_bound=problem.left_bound,
                    right_bound=problem.right_bound, alignment=problem.alignment)

    def backward(self, problem: Problem, t: Tensors):
        dq, dk, dv, delta = oracle.backward(t.q, t.k, t.v, t.o, t.do, t.stats, **self._attrs(problem))
        t.take_grads(dq, dk, dv)
        return {"delta": delta.float()}

    def forward(self, problem: Problem, t: Tensors) -> None:
        o, stats = oracle.forward(t.q, t.k, t.v, **self._attrs(problem))
        t.o.copy_(o)
        t.stats.copy_(stats.reshape(t.stats.shape))

    # -- packed variable-length sequences: the per-sequence oracle (problem.ragged_oracle) -------------------
    def ragged_offset_reasons(self, cu_seqlens_q, cu_seqlens_kv, total_tokens) -> list[str]:
        from ..problem.ragged import from_cu_seqlens

        try:
            from_cu_seqlens(cu_seqlens_q, cu_seqlens_kv, total_q=total_tokens, total_kv=total_tokens, H_q=1, D_qk=1)
        except ValueError as exc:
            return [str(exc)]
        return []

    def ragged_backward(self, problem, t: Tensors):
        from ..problem import ragged_oracle

        dq, dk, dv = ragged_oracle.backward(t.q, t.k, t.v, t.o, t.do, t.stats, problem)
        t.take_grads(dq, dk, dv)
        return None

    def ragged_forward(self, problem, t: Tensors) -> None:
        from ..problem import ragged_oracle

        o, stats = ragged_oracle.forward(t.q, t.k, t.v, problem)
        t.o.copy_(o)
        t.stats.copy_(stats)
