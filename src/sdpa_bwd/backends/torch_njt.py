"""``torch-njt``: PyTorch's ``scaled_dot_product_attention`` on nested jagged tensors, a varlen peer.

The case's packed (T, H, D) tensors become nested jagged tensors (``torch.nested.nested_tensor_from_jagged``, the
values the case's own storage, the offsets its cumulative lengths) viewed (B, H, j, D), and PyTorch picks the kernel
as it does for a user: flash, efficient or cuDNN on CUDA, math on the CPU. The gradients come back through autograd
and are copied into the case's dQ, dK, dV. Dense problems are not this adapter's (the other SDPA columns take them).

Declines come from PyTorch's own choice of kernel for nested tensors (``torch.nested._internal.sdpa.
_select_sdp_backend`` on the case's tensors, its log lines the reasons), not from a list written here: on the
CPU (torch 2.13, 2026-12-06) it refuses ``is_causal`` and values whose token axis is not outermost, and GQA fails
inside the call. The one decline written here is the band: SDPA on nested tensors takes no ``attn_mask`` argument
form that would express one. Offsets are checked by the call itself (the varlen level's probes).
"""

from __future__ import annotations

import logging
from typing import Optional

import torch
import torch.nn.functional as F

from ..problem.ragged import cumulative
from .base import Capabilities, Engine, Tensors

_TORCH_DTYPES = {"float16": torch.float16, "bfloat16": torch.bfloat16, "float32": torch.float32}


class _Lines(logging.Handler):
    def __init__(self):
        super().__init__(logging.DEBUG)
        self.lines: list[str] = []

    def emit(self, record):
        self.lines.append(record.getMessage().strip())


def _njt(values: torch.Tensor, offsets: torch.Tensor) -> torch.Tensor:
    """(T, H, D) values and B + 1 offsets as a (B, H, j, D) nested jagged tensor."""
    return torch.nested.nested_tensor_from_jagged(values, offsets).transpose(1, 2)


class TorchNjtEngine(Engine):
    name = "torch-njt"
    description = ("scaled_dot_product_attention on nested jagged tensors (PyTorch picks flash / efficient / "
                   "cuDNN on CUDA, math on the CPU)")
    capabilities = Capabilities(devices=("cpu", "cuda"), deterministic=False, forward=False,
                                reads_caller_forward=False, ragged=True,
                                notes="packed variable-length problems only; its own forward makes O and the "
                                      "logsumexp; gradients copied into the caller's buffers")

    def device(self) -> str:
        return "cuda" if torch.cuda.is_available() else "cpu"

    def not_supported_reasons(self, problem) -> list[str]:
        return [f"{self.name} takes packed variable-length problems only (sdpa-bwd run --level varlen); dense "
                "ones are the other SDPA columns'"]

    @staticmethod
    def _is_causal(problem) -> Optional[bool]:
        """True / False where SDPA's ``is_causal`` expresses the mask, None where nothing does (a band)."""
        if not problem.has_mask:
            return False
        same_lengths = all(a == b for a, b in zip(problem.seqlens_q, problem.seqlens_kv))
        if problem.is_causal and (problem.alignment == "top_left" or same_lengths):
            return True
        return None

    def _offsets(self, problem, device) -> tuple[torch.Tensor, torch.Tensor]:
        return (torch.tensor(cumulative(problem.seqlens_q), dtype=torch.int64, device=device),
                torch.tensor(cumulative(problem.seqlens_kv), dtype=torch.int64, device=device))

    def ragged_not_supported_reasons(self, problem) -> list[str]:
        reasons = super().ragged_not_supported_reasons(problem)
        causal = self._is_causal(problem)
        if causal is None:
            reasons.append(f"band left_bound={problem.left_bound}, right_bound={problem.right_bound}, "
                           f"alignment={problem.alignment}: SDPA on nested tensors takes is_causal only (no "
                           "band-shaped attn_mask)")
        if reasons:
            return reasons
        from torch.nested._internal import sdpa as njt_sdpa

        device, dtype = self.device(), _TORCH_DTYPES[problem.dtype]
        like = lambda n: torch.empty_strided(problem.tensor(n).dims, problem.tensor(n).strides,  # noqa: E731
                                             dtype=dtype, device=device)
        off_q, off_kv = self._offsets(problem, device)
        q, k, v = _njt(like("q"), off_q), _njt(like("k"), off_kv), _njt(like("v"), off_kv)
        handler, log = _Lines(), logging.getLogger(njt_sdpa.__name__)
        log.addHandler(handler)
        try:
            chosen = njt_sdpa._select_sdp_backend(q, k, v, None, 0.0, causal, problem.H_k != problem.H_q)
        except RuntimeError as exc:
            return [f"PyTorch's kernel choice for nested tensors raised: {exc}"]
        finally:
            log.removeHandler(handler)
        if chosen == torch.nn.attention.SDPBackend.ERROR:
            said = [line for line in handler.lines if line and not line.endswith("because:")]
            return ["PyTorch has no kernel for these nested tensors: " + (" | ".join(said) or "(no reason given)")]
        return []

    def ragged_offset_reasons(self, cu_seqlens_q, cu_seqlens_kv, total_tokens) -> list[str]:
        """What SDPA on nested tensors says to these offsets over ``total_tokens`` tokens (one head, D 16)."""
        device = self.device()
        x = torch.zeros(max(0, int(total_tokens or 0)), 1, 16, device=device)
        try:
            q = _njt(x, torch.tensor(list(cu_seqlens_q), dtype=torch.int64, device=device))
            k = _njt(x, torch.tensor(list(cu_seqlens_kv), dtype=torch.int64, device=device))
            F.scaled_dot_product_attention(q, k, k)
        except (RuntimeError, ValueError, IndexError) as exc:
            return [f"{type(exc).__name__}: {exc}"]
        return []

    def ragged_backward(self, problem, t: Tensors):
        off_q, off_kv = self._offsets(problem, t.q.device)
        q, k, v = (x.detach().requires_grad_() for x in (t.q, t.k, t.v))
        out = F.scaled_dot_product_attention(_njt(q, off_q), _njt(k, off_kv), _njt(v, off_kv),
                                             is_causal=bool(self._is_causal(problem)),
                                             scale=problem.effective_scale, enable_gqa=problem.H_k != problem.H_q)
        dq, dk, dv = torch.autograd.grad(out, (q, k, v), _njt(t.do, off_q))
        t.take_grads(dq, dk, dv)
        return None
