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
    compiles_triton = True
    description = "sdpa-bwd's Triton kernels (ODO, DQDKDV, DQ_CONVERT; forward), strides everywhere"
    capabilities = Capabilities(dtypes=("float16", "bfloat16", "float32"), max_head_dim=256,
                                devices=("cuda", "cpu"), deterministic=True, forward=True, ragged=True,
                                notes="CPU only under TRITON_INTERPRET=1 (slow; small sizes); ragged problems "
                                      "one launch of each kernel for a batch of mixed lengths, a launcher "
                                      "call for one run of equal lengths (sdpa_bwd.engine.varlen)")

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

    def compile_ahead(self, problem: Problem, t: Tensors) -> bool:
        """The backward's and the forward's kernels compiled side by side, nothing launched
        (``launch_cache.compiling_ahead``); on the calling thread, where the autograd engine would take the
        API's backward to its device thread, out of the compile mode's reach."""
        from ..engine.launch_cache import compiling_ahead, compiling_ahead_now

        with compiling_ahead(), torch.autograd.set_multithreading_enabled(False):
            if not compiling_ahead_now():
                return False  # the interpreter, or a Triton without asynchronous compiles
            self.backward(problem, t)
            if self.capabilities.forward:
                self.forward(problem, t)
        return True

    # -- packed variable-length sequences: one launch a kernel, or the launcher a run at a time (engine.varlen) ---
    def ragged_offset_reasons(self, cu_seqlens_q, cu_seqlens_kv, total_tokens) -> list[str]:
        from ..engine import varlen

        try:
            varlen.offsets(cu_seqlens_q, total_tokens, "cu_seqlens_q")
            varlen.offsets(cu_seqlens_kv, total_tokens, "cu_seqlens_kv")
            if len(cu_seqlens_q) != len(cu_seqlens_kv):
                raise ValueError(f"cu_seqlens_q has {len(cu_seqlens_q)} entries and cu_seqlens_kv "
                                 f"{len(cu_seqlens_kv)}: both hold B + 1 offsets of the same B sequences")
        except ValueError as exc:
            return [str(exc)]
        return []

    def ragged_not_supported_reasons(self, problem) -> list[str]:
        from ..engine.launch import triton_not_supported_reasons

        reasons = super().ragged_not_supported_reasons(problem)
        return reasons + triton_not_supported_reasons(device_type=self.device(), dtype=problem.dtype,
                                                      d_qk=problem.D_qk, d_v=problem.D_v)

    @staticmethod
    def _ragged_args(problem, t: Tensors) -> tuple:
        """(cu_q, cu_kv, stats as varlen takes it): offsets into the tensors' token axes, stats (T, H) transposed."""
        from ..problem.ragged import cumulative

        stats = t.stats.transpose(0, 1) if problem.stats_form == "t_h" else t.stats
        return list(cumulative(problem.seqlens_q)), list(cumulative(problem.seqlens_kv)), stats

    def ragged_backward(self, problem, t: Tensors):
        from ..engine import varlen

        cu_q, cu_kv, stats = self._ragged_args(problem, t)
        varlen.backward(t.q, t.k, t.v, t.o, t.do, stats, cu_q, cu_kv, deterministic=problem.deterministic,
                        dq=t.dq, dk=t.dk, dv=t.dv, **self._attrs(problem))
        return None

    def ragged_forward(self, problem, t: Tensors) -> None:
        from ..engine import varlen

        cu_q, cu_kv, stats = self._ragged_args(problem, t)
        varlen.forward(t.q, t.k, t.v, cu_q, cu_kv, o=t.o, stats=stats, **self._attrs(problem))
