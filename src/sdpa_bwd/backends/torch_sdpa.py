"""Shared adapter for PyTorch's ``scaled_dot_product_attention`` backends.

Each backend (math, flash, efficient, cuDNN) is a thin subclass in its own
module. The adapter hands the caller's strided Q, K, V and dO to the real
backend, pinned with ``sdpa_kernel``, and differentiates through it: it never
copies the inputs into a friendlier layout, so what is tested is how the
backend treats the layout. The backend's gradients are copied into the
caller's dQ, dK, dV (PyTorch's SDPA takes no output buffers).

What the backend cannot express is declined with the reason; on CUDA the
backend's own dispatch checks (``torch.backends.cuda.can_use_*`` with
``debug=True``) are asked too and their warnings become the reasons. A band
(any bounds, either alignment) goes to the backend as a boolean ``attn_mask``
and is declined only where that check refuses the mask: a decline written here
for a form the backend takes would be a region never tested (PyTorch 2.11's
cuDNN backend takes boolean masks on an H100, where this adapter used to decline
every band).

Note: PyTorch's SDPA backward recomputes nothing from the caller's O and stats
through this public path; the backend's forward produces its own O and
logsumexp first (``reads_caller_forward=False``).
"""

from __future__ import annotations

import warnings
from typing import ClassVar, Optional

import torch
import torch.nn.functional as F
from torch.nn.attention import SDPBackend, sdpa_kernel

from ..problem import Problem
from .base import Capabilities, Engine, Tensors

_TORCH_DTYPES = {"float16": torch.float16, "bfloat16": torch.bfloat16, "float32": torch.float32}


class TorchSdpaEngine(Engine):
    backend: ClassVar[SDPBackend]
    can_use: ClassVar[Optional[str]] = None  # name of torch.backends.cuda.can_use_* for this backend

    def _mask_kind(self, problem: Problem) -> str:
        """'none', 'causal' (PyTorch's top-left is_causal) or 'band' (needs a boolean attn_mask)."""
        if not problem.has_mask:
            return "none"
        if problem.is_causal and (problem.alignment == "top_left" or problem.S_q == problem.S_kv):
            return "causal"
        return "band"

    def not_supported_reasons(self, problem: Problem) -> list[str]:
        reasons = super().not_supported_reasons(problem)
        if not reasons and self.can_use and self.device() == "cuda":
            reasons += self._backend_check(problem)
        return reasons

    def _backend_check(self, problem: Problem, device: str = "cuda") -> list[str]:
        """Ask PyTorch's own dispatch whether this backend takes these exact tensors, mask included."""
        dtype = _TORCH_DTYPES[problem.dtype]

        def like(name):
            spec = problem.tensor(name)
            return torch.empty_strided(spec.dims, spec.strides, dtype=dtype, device=device,
                                       requires_grad=True)

        q, k, v = like("q"), like("k"), like("v")
        gqa = problem.H_k != problem.H_q or problem.H_v != problem.H_q
        mask, causal = self._attn_mask(problem, device), self._mask_kind(problem) == "causal"
        try:
            params = torch.backends.cuda.SDPAParams(q, k, v, mask, 0.0, causal, gqa)
        except TypeError:  # older PyTorch without enable_gqa
            params = torch.backends.cuda.SDPAParams(q, k, v, mask, 0.0, causal)
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            ok = getattr(torch.backends.cuda, self.can_use)(params, debug=True)
        if ok:
            return []
        said = [str(w.message).strip() for w in caught] or ["(no reason given)"]
        return [f"PyTorch's {self.can_use} says no: " + " | ".join(said)]

    def _attn_mask(self, problem: Problem, device) -> Optional[torch.Tensor]:
        if self._mask_kind(problem) != "band":
            return None
        from ..problem.oracle import band_mask

        return band_mask(problem.S_q, problem.S_kv, problem.left_bound, problem.right_bound,
                         problem.alignment, device)

    def backward(self, problem: Problem, t: Tensors):
        q, k, v = (x.detach().requires_grad_() for x in (t.q, t.k, t.v))
        kwargs = dict(attn_mask=self._attn_mask(problem, q.device),
                      is_causal=self._mask_kind(problem) == "causal", scale=problem.effective_scale)
        if problem.H_k != problem.H_q or problem.H_v != problem.H_q:
            kwargs["enable_gqa"] = True
        with sdpa_kernel([self.backend]):
            out = F.scaled_dot_product_attention(q, k, v, **kwargs)
            dq, dk, dv = torch.autograd.grad(out, (q, k, v), t.do)
        t.take_grads(dq, dk, dv)
        return None


def additive_mask(keep: torch.Tensor, dtype, fill: float = float("-inf"), row_align: int = 1) -> torch.Tensor:
    """A boolean (S_q, S_kv) keep mask as the additive mask SDPA's operators take: 0 where kept, ``fill``
    elsewhere, in ``dtype``; each row stored padded to a multiple of ``row_align`` elements (the memory-efficient
    kernel's front door pads its mask's rows so), the view keep's shape."""
    S_q, S_kv = keep.shape
    row = -(-S_kv // row_align) * row_align
    return torch.zeros(S_q, row, dtype=dtype, device=keep.device)[:, :S_kv].masked_fill_(~keep, fill)


def sdpa_capabilities(**overrides) -> Capabilities:
    # Bands and the bottom-right alignment as a boolean attn_mask, K and V heads of their own through enable_gqa:
    # the backend's own check says which it takes (the math backend takes H_k != H_v: torch 2.13, CPU, 2026-12-06).
    base = dict(devices=("cuda",), band_masks=True, causal=True, alignments=("top_left", "bottom_right"),
                deterministic=False, forward=False, reads_caller_forward=False)
    base.update(overrides)
    return Capabilities(**base)
