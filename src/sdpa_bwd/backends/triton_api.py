"""``triton-api``: our engine through the door users use.

Where ``triton`` calls the launcher directly on the calling thread, this engine computes each case the way a
user does: ``sdpa_bwd.attention`` on the case's Q, K, V (their strides as given), then ``torch.autograd.grad``
with the case's dO as the output gradient. On CUDA the autograd engine runs that backward on its own device
thread, so this column also proves what the launcher-level one cannot (Triton's per-thread allocator, the
autograd Function's saved tensors and argument handling; torch.compile's path through the custom ops is the CPU
compile tests' and the GPU test's).

What the API cannot take, and what this engine does instead (stated in its capabilities):

* The API makes its own O and stats in its forward, so the caller's O and stats layouts never reach the
  backward (``reads_caller_forward=False``).
* The API returns fresh gradients, so they are copied into the caller's dQ, dK, dV.
* A deterministic case runs under ``torch.use_deterministic_algorithms(True)``, the API's only switch for it.

Its forward check calls the registered op ``torch.ops.sdpa_bwd.attention_forward``, the op under
``sdpa_bwd.attention``, which also returns the stats that ``attention`` keeps for its backward.
"""

from __future__ import annotations

import contextlib

import torch

from ..problem import Problem
from .base import Capabilities, Tensors
from .triton import TritonEngine


@contextlib.contextmanager
def _deterministic(on: bool):
    was, warn_only = torch.are_deterministic_algorithms_enabled(), torch.is_deterministic_algorithms_warn_only_enabled()
    if on == was:
        yield
        return
    torch.use_deterministic_algorithms(on)
    try:
        yield
    finally:
        torch.use_deterministic_algorithms(was, warn_only=warn_only)


class TritonApiEngine(TritonEngine):
    name = "triton-api"
    description = ("sdpa_bwd.attention + torch.autograd.grad, as a user calls it (our forward makes O and "
                   "stats; the gradients are copied into the caller's dQ, dK, dV)")
    capabilities = Capabilities(
        dtypes=("float16", "bfloat16", "float32"), max_head_dim=256, devices=("cuda", "cpu"),
        deterministic=True, forward=True, reads_caller_forward=False, ragged=True,
        notes="O and stats come from the API's own forward; gradients are copied into the caller's buffers; "
              "deterministic cases run under torch.use_deterministic_algorithms(True); ragged problems through "
              "attention(..., cu_seqlens_q=, cu_seqlens_kv=, max_seqlen_q=, max_seqlen_kv=) with int32 offsets "
              "on the device, as FlashAttention's callers pass them (the offsets are never read back)")

    def backward(self, problem: Problem, t: Tensors):
        from ..engine.api import attention

        q, k, v = (x.detach().requires_grad_() for x in (t.q, t.k, t.v))
        with _deterministic(problem.deterministic):
            o = attention(q, k, v, scale=problem.effective_scale, left_bound=problem.left_bound,
                          right_bound=problem.right_bound, alignment=problem.alignment)
            dq, dk, dv = torch.autograd.grad(o, (q, k, v), t.do)
        t.take_grads(dq, dk, dv)
        return None

    def forward(self, problem: Problem, t: Tensors) -> None:
        from ..engine import api  # noqa: F401  (registers the op)

        o, stats = torch.ops.sdpa_bwd.attention_forward(t.q, t.k, t.v, problem.effective_scale,
                                                        problem.left_bound, problem.right_bound,
                                                        problem.alignment)
        t.o.copy_(o)
        t.stats.copy_(stats.view(t.stats.shape))

    # -- packed variable-length sequences: attention(..., cu_seqlens_q=, cu_seqlens_kv=) ------------------------
    @staticmethod
    def _offsets(problem) -> tuple:
        from ..problem.ragged import cumulative

        return (torch.tensor(cumulative(problem.seqlens_q), dtype=torch.int32),
                torch.tensor(cumulative(problem.seqlens_kv), dtype=torch.int32))

    def ragged_offset_reasons(self, cu_seqlens_q, cu_seqlens_kv, total_tokens) -> list[str]:
        """What the API says to these offsets over tensors of ``total_tokens`` tokens (one head, D 16)."""
        from ..engine.api import attention

        x = torch.zeros(max(0, int(total_tokens or 0)), 1, 16, device=self.device())
        try:
            attention(x, x, x, cu_seqlens_q=list(cu_seqlens_q), cu_seqlens_kv=list(cu_seqlens_kv))
        except ValueError as exc:
            return [str(exc)]
        return []

    def ragged_backward(self, problem, t: Tensors):
        from ..engine.api import attention

        # FlashAttention's calling convention: int32 offsets on the device and the longest lengths, so the API
        # takes its path that never reads the offsets back (varlen.on_device)
        cu_q, cu_kv = (cu.to(t.q.device) for cu in self._offsets(problem))
        q, k, v = (x.detach().requires_grad_() for x in (t.q, t.k, t.v))
        with _deterministic(problem.deterministic):
            o = attention(q, k, v, scale=problem.effective_scale, left_bound=problem.left_bound,
                          right_bound=problem.right_bound, alignment=problem.alignment, cu_seqlens_q=cu_q,
                          cu_seqlens_kv=cu_kv, max_seqlen_q=max(problem.seqlens_q),
                          max_seqlen_kv=max(problem.seqlens_kv))
            dq, dk, dv = torch.autograd.grad(o, (q, k, v), t.do)
        t.take_grads(dq, dk, dv)
        return None

    def ragged_forward(self, problem, t: Tensors) -> None:
        from ..engine import api  # noqa: F401  (registers the op)
        from ..problem.ragged_oracle import stats_to_form

        cu_q, cu_kv = self._offsets(problem)
        o, stats = torch.ops.sdpa_bwd.varlen_attention_forward(t.q, t.k, t.v, cu_q, cu_kv, None, None,
                                                               problem.effective_scale, problem.left_bound,
                                                               problem.right_bound, problem.alignment)
        t.o.copy_(o)
        t.stats.copy_(stats_to_form(stats, problem))
