"""``torch-flash-cpu-op``: PyTorch's CPU flash-attention backward operator, called directly on the caller's tensors.

The autograd adapters (``torch_sdpa``) differentiate through a backend's own forward, so the caller's O and stats
never reach its backward. This one calls ``aten._scaled_dot_product_flash_attention_for_cpu_backward`` with the
case's own Q, K, V, O, dO and stats, in the plan's layouts, so the O and stats axes test the backend (issue 56);
it runs where CI runs, on the CPU. The CUDA operators (cuDNN's, flash's, the efficient kernel's) take the same
approach with their own stats forms and extra outputs; they are not built yet.

What it converts, and how it learned the form:

* stats: the operator's ``logsumexp`` is the natural-log LSE of the scaled scores, (B, H, S_q) float32, as ours
  (its own forward agrees with ours to 5e-7 on random inputs, torch 2.13, 2026-12-06); a rank-4 (B, H, S_q, 1)
  stats is viewed as rank 3. Where a row keeps no key our stats are -inf; there the value the operator's own
  forward gives that row is passed instead.
* a band: the operator takes ``is_causal`` (top-left) or an additive ``attn_mask`` of Q's dtype (a boolean one it
  refuses: "Attention mask is the same data type as query"), so a band becomes 0 / -inf in Q's dtype.

Declines: the shape the operator raises on (D_qk != D_v: "Q/K/V should have the same head size") is in the
capabilities; anything else goes to PyTorch's own CPU kernel choice (``torch._fused_sdp_choice``, asked with
``enable_gqa`` where K or V has fewer heads than Q), and where that would not take its flash kernel the case is
declined with the kernel it would take. The operator itself takes GQA (K and V heads dividing Q's) and is right
there; given H_k != H_v, which the choice sends to the math kernel, it returns values of 1e35 without a word (torch
2.13, 2026-12-06), so that form is only reachable by calling the operator past PyTorch's routing.
"""

from __future__ import annotations

from typing import Optional

import torch

from ..problem import Problem
from .base import Capabilities, Engine, Tensors
from .torch_sdpa import additive_mask

_TORCH_DTYPES = {"float16": torch.float16, "bfloat16": torch.bfloat16, "float32": torch.float32}


class TorchFlashCpuOpEngine(Engine):
    name = "torch-flash-cpu-op"
    description = ("aten._scaled_dot_product_flash_attention_for_cpu_backward on the caller's Q, K, V, O, dO and "
                   "stats (PyTorch's CPU flash kernel, operator level)")
    capabilities = Capabilities(devices=("cpu",), distinct_head_dims=False,
                                forward=True, reads_caller_forward=True,
                                notes="our stats passed as its logsumexp (same form; rows with no key take its "
                                      "forward's value); bands as an additive mask in Q's dtype")

    def device(self) -> str:
        return "cpu"

    @staticmethod
    def _mask(problem: Problem, dtype) -> tuple[Optional[torch.Tensor], bool]:
        """(additive attn_mask or None, is_causal) expressing the problem's band."""
        if not problem.has_mask:
            return None, False
        if problem.is_causal and (problem.alignment == "top_left" or problem.S_q == problem.S_kv):
            return None, True
        from ..problem.oracle import band_mask

        keep = band_mask(problem.S_q, problem.S_kv, problem.left_bound, problem.right_bound, problem.alignment,
                         "cpu")
        return additive_mask(keep, dtype), False

    def not_supported_reasons(self, problem: Problem) -> list[str]:
        reasons = super().not_supported_reasons(problem)
        if reasons:
            return reasons
        dtype = _TORCH_DTYPES[problem.dtype]
        like = lambda n: torch.empty_strided(problem.tensor(n).dims, problem.tensor(n).strides,  # noqa: E731
                                             dtype=dtype)
        mask, causal = self._mask(problem, dtype)
        chosen = torch._fused_sdp_choice(like("q"), like("k"), like("v"), mask, 0.0, causal,
                                         scale=problem.effective_scale,
                                         enable_gqa=problem.H_k != problem.H_q or problem.H_v != problem.H_q)
        flash = int(torch.nn.attention.SDPBackend.FLASH_ATTENTION)
        if chosen != flash:
            name = torch.nn.attention.SDPBackend(chosen).name
            return [f"PyTorch's CPU kernel choice (torch._fused_sdp_choice) takes {name}, not its flash kernel, "
                    "for these tensors"]
        return []

    def _call(self, problem: Problem, t: Tensors) -> tuple[dict, bool]:
        mask, causal = self._mask(problem, t.q.dtype)
        return dict(attn_mask=mask, scale=problem.effective_scale), causal

    def backward(self, problem: Problem, t: Tensors):
        kw, causal = self._call(problem, t)
        lse = t.stats.view(t.stats.shape[:3]) if t.stats.dim() == 4 else t.stats
        empty = torch.isneginf(lse)
        if empty.any():  # rows that keep no key: the value the operator's own forward gives them
            _, own = torch.ops.aten._scaled_dot_product_flash_attention_for_cpu(t.q, t.k, t.v, 0.0, causal, **kw)
            lse = torch.where(empty, own, lse)
        dq, dk, dv = torch.ops.aten._scaled_dot_product_flash_attention_for_cpu_backward(
            t.do, t.q, t.k, t.v, t.o, lse, 0.0, causal, **kw)
        t.take_grads(dq, dk, dv)
        return None

    def forward(self, problem: Problem, t: Tensors) -> None:
        kw, causal = self._call(problem, t)
        o, lse = torch.ops.aten._scaled_dot_product_flash_attention_for_cpu(t.q, t.k, t.v, 0.0, causal, **kw)
        t.o.copy_(o)
        t.stats.copy_(lse.view(t.stats.shape))
