"""Triton kernels of the engine (``@triton.jit`` only; launch code is in ``sdpa_bwd.engine.launch``)."""

from .attention_bwd import (
    attention_bwd_convert_all_kernel,
    attention_bwd_dkdv_kernel,
    attention_bwd_dkdv_kernel_any_len,
    attention_bwd_dq_convert_kernel,
    attention_bwd_dq_kernel,
    attention_bwd_dq_kernel_any_len,
    attention_bwd_fused_kernel,
    attention_bwd_fused_kernel_any_len,
    attention_bwd_preprocess_kernel,
)
from .attention_fwd import attention_fwd_kernel, attention_fwd_kernel_any_len
from .varlen_offsets import varlen_offsets_check_kernel, varlen_outside_fill_kernel

__all__ = [
    "attention_fwd_kernel",
    "attention_fwd_kernel_any_len",
    "attention_bwd_dkdv_kernel_any_len",
    "attention_bwd_dq_kernel_any_len",
    "attention_bwd_preprocess_kernel",
    "attention_bwd_dkdv_kernel",
    "attention_bwd_dq_kernel",
    "attention_bwd_dq_convert_kernel",
    "attention_bwd_convert_all_kernel",
    "attention_bwd_fused_kernel",
    "attention_bwd_fused_kernel_any_len",
    "varlen_offsets_check_kernel",
    "varlen_outside_fill_kernel",
]



def jit_callees(fn) -> list:
    """The jitted functions ``fn``'s body names (through its module's globals)."""
    from triton.runtime.jit import JITFunction

    code = getattr(getattr(fn, "fn", None), "__code__", None)
    scope = getattr(fn, "__globals__", {})
    return [scope[n] for n in (code.co_names if code else ()) if isinstance(scope.get(n), JITFunction)]


def callees_first(functions) -> list:
    """``functions`` and everything they call, each after all of its callees (depth-first)."""
    order: list = []
    seen: set[int] = set()

    def visit(fn) -> None:
        if id(fn) in seen:
            return
        seen.add(id(fn))
        for callee in jit_callees(fn):
            visit(callee)
        order.append(fn)

    for fn in functions:
        visit(fn)
    return order


def package_jit_functions() -> list:
    from triton.runtime.jit import JITFunction

    from . import attention_bwd, attention_fwd, varlen_offsets

    return [v for m in (attention_fwd, attention_bwd, varlen_offsets) for v in vars(m).values()
            if isinstance(v, JITFunction)]


def _settle_cache_keys() -> None:
    """Hash every jitted function of this package, callees first, once, at import.

    Triton 3.6 merges a called function's globals into the caller's cache key before it hashes
    the callee (fixed upstream by triton-lang/triton#10494, in Triton 3.9), so a kernel's
    disk-cache key depended on which kernels the process had hashed first: a DKDV or DQ kernel
    first reached through its ``_any_len`` twin, or after the forward, got another key. The
    runner's workers start with different cases, so warm runs of the full level compiled 22-128
    kernels again (2026-12-01, H200, docs/data/h200-2026-12-01d: each recompile's key differed from its cold
    compile's in the function's part alone). Callees first gives every process, on any Triton,
    the key Triton 3.9 computes in any order. Under TRITON_INTERPRET there is nothing to hash."""
    try:
        functions = package_jit_functions()
    except ImportError:
        return
    for fn in callees_first(functions):
        fn.cache_key  # noqa: B018 - computing it is the point


_settle_cache_keys()
