"""``torch-flex``: compiled FlexAttention (Triton-generated backward) with a block mask for bands."""

from __future__ import annotations

import functools

import torch

from ..problem import Problem
from .base import Capabilities, Engine, Tensors


@functools.lru_cache(maxsize=1)
def _compiled_flex():
    """flex_attention compiled once, with automatic dynamic shapes.

    A run of the plan changes shapes and strides from case to case. Compiled
    with ``dynamic=False`` every case would recompile, and past Dynamo's
    recompile limit (8) torch silently falls back to an *eager*, unfused
    flex_attention -- we would be testing another engine. So shapes go dynamic
    after the first change, the band bounds travel as tensors (no recompile per
    band), the limit is raised for what does still recompile (dtype, head dim,
    GQA, mask or not) and hitting it is an error, never a silent fallback.
    """
    import torch._dynamo.config as dynamo_config
    from torch.nn.attention.flex_attention import flex_attention

    dynamo_config.recompile_limit = max(dynamo_config.recompile_limit, 64)
    dynamo_config.accumulated_recompile_limit = max(dynamo_config.accumulated_recompile_limit, 1024)
    dynamo_config.fail_on_recompile_limit_hit = True
    return torch.compile(flex_attention)


def _mask_mod(problem: Problem, device):
    lo = None if problem.left_bound is None else \
        torch.tensor(1 - problem.left_bound + problem.shift, device=device)
    hi = None if problem.right_bound is None else torch.tensor(problem.right_bound + problem.shift, device=device)

    def mask_mod(b, h, q_idx, kv_idx):
        offset = kv_idx - q_idx
        keep = offset == offset
        if lo is not None:
            keep = keep & (offset >= lo)
        if hi is not None:
            keep = keep & (offset <= hi)
        return keep

    return mask_mod


class TorchFlexEngine(Engine):
    name = "torch-flex"
    compiles_triton = True
    description = "torch.nn.attention.flex_attention under torch.compile, band masks as a BlockMask"
    capabilities = Capabilities(dtypes=("float16", "bfloat16", "float32"), devices=("cuda",),
                                distinct_kv_heads=False, deterministic=False, forward=False,
                                reads_caller_forward=False,
                                notes="compiles per dtype/head dim/mask kind, shapes dynamic; GQA via enable_gqa needs H_k == H_v")

    def backward(self, problem: Problem, t: Tensors):
        from torch.nn.attention.flex_attention import create_block_mask

        block_mask = None
        if problem.has_mask:
            block_mask = create_block_mask(_mask_mod(problem, t.q.device), None, None, problem.S_q, problem.S_kv,
                                           device=t.q.device)
        q, k, v = (x.detach().requires_grad_() for x in (t.q, t.k, t.v))
        out = _compiled_flex()(q, k, v, block_mask=block_mask, scale=problem.effective_scale,
                               enable_gqa=problem.H_k != problem.H_q)
        dq, dk, dv = torch.autograd.grad(out, (q, k, v), t.do)
        t.dq.copy_(dq)
        t.dk.copy_(dk)
        t.dv.copy_(dv)
        return None
