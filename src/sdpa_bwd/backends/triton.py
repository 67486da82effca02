"""``triton``: our engine. Triton kernels (``sdpa_bwd.engine.kernels``) launched by
``sdpa_bwd.engine.launch``, addressing each of the eight tensors through its own
strides; the decline rules are the launcher's own (``triton_not_supported_reasons``),
so the runner, the PyTorch API and the tests ask the same function.

On a machine without CUDA it runs its kernels on CPU tensors under Triton's
interpreter (``TRITON_INTERPRET=1``, set before Triton is imported); that is
how CI tests it, at small sizes.
"""

from __future__ import annotations

import os

import torch

from ..problem import Problem
from .base import Capabilities, Engine, Tensors


def _ensure_interpreter_without_cuda() -> None:
    if not torch.cuda.is_available():
        os.environ.setdefault("TRITON_INTERPRET", "1")


class TritonEngine(Engine):
    name = "triton"
    description = "sdpa-bwd's Triton kernels (ODO, DQDKDV, DQ_CONVERT; forward), strides everywhere"
    capabilities = Capabilities(dtypes=("float16", "bfloat16", "float32"), max_head_dim=256,
                                devices=("cuda", "cpu"), deterministic=True, forward=True,
                                notes="CPU only under TRITON_INTERPRET=1 (slow; small sizes)")

    def __init__(self) -> None:
        _ensure_interpreter_without_cuda()

    def device(self) -> str:
        return "cuda" if torch.cuda.is_available() else "cpu"

    def not_supported_reasons(self, problem: Problem) -> list[str]:
        from ..engine.launch import triton_not_supported_reasons

        reasons = super().not_supported_reasons(problem)
        return reasons + triton_not_supported_reasons(device_type=self.device(), dtype=problem.dtype,
                                                      d_qk=problem.D_qk, d_v=problem.D_v)

    @staticmethod
    def _attrs(problem: Problem) -> dict:
        return dict(scale=problem.effective_scale, left_bound=problem.left_bound,
                    right_bound=problem.right_bound, alignment=problem.alignment)

    def backward(self, problem: Problem, t: Tensors):
        from ..engine.launch import attention_backward

        *_, delta = attention_backward(t.q, t.k, t.v, t.o, t.do, t.stats, deterministic=problem.deterministic,
                                       dq=t.dq, dk=t.dk, dv=t.dv, return_delta=True, **self._attrs(problem))
        return {"delta": delta}

    def forward(self, problem: Problem, t: Tensors) -> None:
        from ..engine.launch import attention_forward

        attention_forward(t.q, t.k, t.v, o=t.o, stats=t.stats, **self._attrs(problem))
