"""Triton kernels of the engine (``@triton.jit`` only; launch code is in ``sdpa_bwd.launch``)."""

from .attention_bwd import (
    attention_bwd_dkdv_kernel,
    attention_bwd_dkdv_kernel_any_len,
    attention_bwd_dq_convert_kernel,
    attention_bwd_dq_kernel,
    attention_bwd_dq_kernel_any_len,
    attention_bwd_preprocess_kernel,
)
from .attention_fwd import attention_fwd_kernel, attention_fwd_kernel_any_len

__all__ = [
    "attention_fwd_kernel",
    "attention_fwd_kernel_any_len",
    "attention_bwd_dkdv_kernel_any_len",
    "attention_bwd_dq_kernel_any_len",
    "attention_bwd_preprocess_kernel",
    "attention_bwd_dkdv_kernel",
    "attention_bwd_dq_kernel",
    "attention_bwd_dq_convert_kernel",
]
