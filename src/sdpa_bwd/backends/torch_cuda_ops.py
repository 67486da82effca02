"""``torch-cudnn-op``, ``torch-flash-op``, ``torch-efficient-op``: PyTorch's CUDA attention backward operators,
called directly on the caller's Q, K, V, O, dO and stats.

The autograd adapters (``torch_sdpa``) differentiate through a backend's own forward, so the caller's O and stats
never reach its backward. These call ``aten._scaled_dot_product_{cudnn,flash,efficient}_attention_backward`` with
the case's own tensors in the plan's layouts, so the O and dO axes reach the backend's backward and the stats
values are the caller's (issue 56). Side by side with the autograd columns they show where a backend's operator and
its front door differ.

Each backward call first runs the backend's own forward on the caller's Q, K, V. That is how the adapter learns
the form the backward reads, without hard-coding it per PyTorch version:

* **stats**: the forward's logsumexp tensor (flash: (B, H, S_q); the efficient kernel: (B, H, S_q rounded up to
  32); cuDNN: (B, H, S_q, 1)) is the container; the caller's stats (natural-log LSE of the scaled scores, the
  same quantity) are written into its first S_q entries of each row, and the backend's own values stay in any
  padding and in rows that keep no key (ours are -inf there; what a backend keeps for such rows is its own
  convention). The conversion is a copy into the backend's layout: the caller's stats *layout* never reaches the
  backend, its *values* do.
* **extra outputs** the backward takes (cuDNN's and flash's cumulative lengths and maxima, the Philox seed and
  offset or flash's RNG state) are the forward's own: with dropout 0 they carry no data.

The mask goes in as PyTorch's front door would pass it to that operator (``aten/src/ATen/native/transformers/
attention.cpp``, ``scaled_dot_product_attention``): is_causal for the top-left causal mask; a band as an additive
mask in Q's dtype, filled with -65504 for cuDNN (the front door's ``convert_boolean_attn_mask_cudnn``, which
works around cuDNN's handling of -inf) and -inf for the efficient kernel, whose mask the front door also pads to
an aligned row and expands to (B, H, S_q, S_kv) (``preprocess_mask``). Which tensors a backend takes is its own
dispatch check's word (``can_use_*_attention``, through ``TorchSdpaEngine._backend_check``), as for the autograd
adapters; the one decline written here is flash's head dims that are not a multiple of 8, which the front door pads
by copying Q, K and V (so the caller's layout would not reach the operator; the autograd column covers them).
"""

from __future__ import annotations

from typing import ClassVar, Optional

import torch

from ..problem import Problem
from .base import Tensors
from .torch_sdpa import TorchSdpaEngine, additive_mask, sdpa_capabilities

_MASKED_CUDNN = -65504.0  # the front door's fill for cuDNN (convert_boolean_attn_mask_cudnn)


class TorchCudaOpEngine(TorchSdpaEngine):
    """Shared body: the backend's forward for its stats form, then its backward on the caller's tensors."""

    masked_fill: ClassVar[float] = float("-inf")
    bias_row_align: ClassVar[int] = 1    # the mask's rows padded in memory to a multiple of this
    bias_expanded: ClassVar[bool] = False  # the mask expanded to (B, H_q, S_q, S_kv)
    # Declines written here rather than left to the backend's check, each with why (tests/test_adapter_declines).
    hand_declines: ClassVar[tuple[str, ...]] = ()

    def _bias(self, problem: Problem, q: torch.Tensor) -> Optional[torch.Tensor]:
        """The band as the additive mask the front door hands this operator (None for no mask or is_causal)."""
        keep = self._attn_mask(problem, q.device)
        if keep is None:
            return None
        bias = additive_mask(keep, q.dtype, self.masked_fill, self.bias_row_align)
        return bias.expand(problem.B, problem.H_q, *keep.shape) if self.bias_expanded else bias

    def _op_forward(self, problem: Problem, q, k, v, bias, causal: bool) -> tuple[torch.Tensor, torch.Tensor, dict]:
        """(O, logsumexp in the backend's form, what its backward needs besides them)."""
        raise NotImplementedError

    def _op_backward(self, problem: Problem, do, q, k, v, o, lse, bias, causal: bool, extra: dict):
        """(dQ, dK, dV) from the backend's backward operator."""
        raise NotImplementedError

    def _call(self, problem: Problem, t: Tensors):
        bias = self._bias(problem, t.q)
        causal = self._mask_kind(problem) == "causal"
        return bias, causal

    @staticmethod
    def _rows(lse: torch.Tensor) -> torch.Tensor:
        """The backend's stats as a (B, H, S) view (a trailing dim of 1 dropped): writes through it reach it."""
        return lse.select(-1, 0) if lse.dim() == 4 else lse

    def backward(self, problem: Problem, t: Tensors):
        bias, causal = self._call(problem, t)
        _, lse, extra = self._op_forward(problem, t.q, t.k, t.v, bias, causal)
        rows = self._rows(lse)[..., :problem.S_q]
        ours = t.stats.select(-1, 0) if t.stats.dim() == 4 else t.stats
        keeps = ~torch.isneginf(ours)
        rows.copy_(torch.where(keeps, ours, rows))
        dq, dk, dv = self._op_backward(problem, t.do, t.q, t.k, t.v, t.o, lse, bias, causal, extra)
        t.take_grads(dq, dk, dv)
        return None

    def forward(self, problem: Problem, t: Tensors) -> None:
        bias, causal = self._call(problem, t)
        o, lse, _ = self._op_forward(problem, t.q, t.k, t.v, bias, causal)
        t.o.copy_(o)
        t.stats.copy_(self._rows(lse)[..., :problem.S_q].reshape(t.stats.shape))


def op_capabilities(**overrides):
    """The autograd twin's capabilities, with a forward and the caller's O and stats read."""
    return sdpa_capabilities(forward=True, reads_caller_forward=True, **overrides)


class TorchCudnnOpEngine(TorchCudaOpEngine):
    name = "torch-cudnn-op"
    description = ("aten._scaled_dot_product_cudnn_attention_backward on the caller's Q, K, V, O, dO and stats "
                   "(cuDNN, operator level)")
    can_use = "can_use_cudnn_attention"
    masked_fill = _MASKED_CUDNN
    capabilities = op_capabilities(dtypes=("float16", "bfloat16"), max_head_dim=256,
                                   notes="stats written into the (B, H, S_q, 1) logsumexp of cuDNN's own forward; "
                                         "bands as an additive mask filled with -65504, as the front door does")

    def _op_forward(self, problem, q, k, v, bias, causal):
        out = torch.ops.aten._scaled_dot_product_cudnn_attention(
            q, k, v, bias, True, 0.0, causal, False, scale=problem.effective_scale)
        o, lse, cum_q, cum_k, max_q, max_k, seed, offset, _ = out
        return o, lse, dict(cum_q=cum_q, cum_k=cum_k, max_q=max_q, max_k=max_k, seed=seed, offset=offset)

    def _op_backward(self, problem, do, q, k, v, o, lse, bias, causal, extra):
        return torch.ops.aten._scaled_dot_product_cudnn_attention_backward(
            do, q, k, v, o, lse, extra["seed"], extra["offset"], bias, extra["cum_q"], extra["cum_k"],
            extra["max_q"], extra["max_k"], 0.0, causal, scale=problem.effective_scale)


class TorchFlashOpEngine(TorchCudaOpEngine):
    name = "torch-flash-op"
    description = ("aten._scaled_dot_product_flash_attention_backward on the caller's Q, K, V, O, dO and stats "
                   "(FlashAttention-2, operator level)")
    can_use = "can_use_flash_attention"
    hand_declines = ("head_dim_multiple_of_8",)
    capabilities = op_capabilities(dtypes=("float16", "bfloat16"), max_head_dim=256, distinct_head_dims=False,
                                   notes="stats written into the (B, H, S_q) logsumexp of flash's own forward")

    def not_supported_reasons(self, problem: Problem) -> list[str]:
        reasons = super().not_supported_reasons(problem)
        if problem.D_qk % 8:
            reasons.append(f"D_qk = {problem.D_qk} is not a multiple of 8: PyTorch's front door pads Q, K and V to "
                           "one (copies) before calling this operator, so the caller's layout would not reach it "
                           "- the torch-flash column covers these head dims")
        return reasons

    def _op_forward(self, problem, q, k, v, bias, causal):
        out = torch.ops.aten._scaled_dot_product_flash_attention(q, k, v, 0.0, causal, False,
                                                                 scale=problem.effective_scale)
        o, lse, cum_q, cum_k, max_q, max_k, rng_state, unused, _ = out
        return o, lse, dict(cum_q=cum_q, cum_k=cum_k, max_q=max_q, max_k=max_k, seed=rng_state, offset=unused)

    def _op_backward(self, problem, do, q, k, v, o, lse, bias, causal, extra):
        return torch.ops.aten._scaled_dot_product_flash_attention_backward(
            do, q, k, v, o, lse, extra["cum_q"], extra["cum_k"], extra["max_q"], extra["max_k"], 0.0, causal,
            extra["seed"], extra["offset"], scale=problem.effective_scale)


class TorchEfficientOpEngine(TorchCudaOpEngine):
    name = "torch-efficient-op"
    description = ("aten._scaled_dot_product_efficient_attention_backward on the caller's Q, K, V, O, dO and "
                   "stats (CUTLASS memory-efficient kernel, operator level)")
    can_use = "can_use_efficient_attention"
    capabilities = op_capabilities(dtypes=("float16", "bfloat16", "float32"),
                                   notes="stats written into the (B, H, S_q rounded up to 32) logsumexp of its "
                                         "own forward; bands as an additive mask on an aligned row, expanded")
    # the front door pads the mask's rows to an aligned length, then slices, and expands it (preprocess_mask)
    bias_row_align = 16
    bias_expanded = True

    def _op_forward(self, problem, q, k, v, bias, causal):
        o, lse, seed, offset = torch.ops.aten._scaled_dot_product_efficient_attention(
            q, k, v, bias, True, 0.0, causal, scale=problem.effective_scale)
        return o, lse, dict(seed=seed, offset=offset)

    def _op_backward(self, problem, do, q, k, v, o, lse, bias, causal, extra):
        dq, dk, dv, _ = torch.ops.aten._scaled_dot_product_efficient_attention_backward(
            do, q, k, v, bias, o, lse, extra["seed"], extra["offset"], 0.0, [True, True, True, False], causal,
            scale=problem.effective_scale)
        return dq, dk, dv
