"""``torch-flex``: compiled FlexAttention (Triton-generated backward) with a block mask for bands.

Packed variable-length problems (the varlen level) run as FlexAttention users run them: the (T, H, D) tensors
viewed as one (1, H, T, D) batch, and a document mask (``document_mask_mod``) keeping query and key only within one
sequence, the band applied to positions within it (bottom-right alignment shifted per sequence by its own
S_kv - S_q). FlexAttention takes no offsets: the mask is built from them here, so the varlen level's probes of
malformed offsets test this construction's checks (``problem.ragged.lengths_of``), not FlexAttention.
"""

from __future__ import annotations

import functools

import torch

from ..problem import Problem
from ..problem.ragged import cumulative, lengths_of
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


def document_mask_mod(problem, device):
    """FlexAttention's ``mask_mod`` for a packed problem over (1, H, T_q, D) and (1, H, T_kv, D) views: query token
    i keeps key token j iff both lie in one sequence b and their positions in it, p and r, keep the band
    (``r - p >= 1 - left_bound + shift_b``, ``r - p <= right_bound + shift_b``, ``shift_b = S_kv_b - S_q_b`` for
    bottom-right alignment, else 0), as the oracle masks each sequence."""
    lens_q = torch.tensor(problem.seqlens_q, dtype=torch.int64, device=device)
    lens_kv = torch.tensor(problem.seqlens_kv, dtype=torch.int64, device=device)
    seqs = torch.arange(len(problem.seqlens_q), device=device)
    seq_q, seq_kv = torch.repeat_interleave(seqs, lens_q), torch.repeat_interleave(seqs, lens_kv)
    start_q = torch.tensor(cumulative(problem.seqlens_q)[:-1], dtype=torch.int64, device=device)
    start_kv = torch.tensor(cumulative(problem.seqlens_kv)[:-1], dtype=torch.int64, device=device)
    pos_q = torch.arange(problem.T_q, device=device) - start_q[seq_q]
    pos_kv = torch.arange(problem.T_kv, device=device) - start_kv[seq_kv]
    shift = (lens_kv - lens_q)[seq_q] if problem.alignment == "bottom_right" else torch.zeros_like(pos_q)
    lo = None if problem.left_bound is None else 1 - problem.left_bound + shift
    hi = None if problem.right_bound is None else problem.right_bound + shift

    def mask_mod(b, h, q_idx, kv_idx):
        keep = seq_q[q_idx] == seq_kv[kv_idx]
        offset = pos_kv[kv_idx] - pos_q[q_idx]
        if lo is not None:
            keep = keep & (offset >= lo[q_idx])
        if hi is not None:
            keep = keep & (offset <= hi[q_idx])
        return keep

    return mask_mod


def _one_batch(t: torch.Tensor) -> torch.Tensor:
    """A packed (T, H, D) tensor as a (1, H, T, D) view (no copy: FlexAttention reads the case's strides)."""
    return t.permute(1, 0, 2).unsqueeze(0)


class TorchFlexEngine(Engine):
    name = "torch-flex"
    compiles_triton = True
    description = "torch.nn.attention.flex_attention under torch.compile, band masks as a BlockMask"
    capabilities = Capabilities(dtypes=("float16", "bfloat16", "float32"), devices=("cuda",),
                                distinct_kv_heads=False, deterministic=False, forward=False,
                                reads_caller_forward=False, ragged=True,
                                notes="compiles per dtype/head dim/mask kind, shapes dynamic; GQA via enable_gqa needs "
                                      "H_k == H_v; packed sequences through a document mask")

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
        t.take_grads(dq, dk, dv)
        return None

    # -- packed variable-length sequences ------------------------------------------------------------------
    def ragged_not_supported_reasons(self, problem) -> list[str]:
        reasons = super().ragged_not_supported_reasons(problem)
        if not torch.cuda.is_available():
            reasons.append(f"{self.name} runs on CUDA only (FlexAttention has no CPU backward in torch "
                           f"{torch.__version__}) and no CUDA device is available here - run it on a GPU machine")
        return reasons

    def ragged_offset_reasons(self, cu_seqlens_q, cu_seqlens_kv, total_tokens) -> list[str]:
        """FlexAttention takes no offsets: these are the checks of the document mask's construction."""
        reasons = []
        for name, cu in (("cu_seqlens_q", cu_seqlens_q), ("cu_seqlens_kv", cu_seqlens_kv)):
            try:
                lengths, base = lengths_of(name, cu)
            except ValueError as exc:
                reasons.append(str(exc))
                continue
            if base < 0 or base + sum(lengths) > int(total_tokens or 0):
                reasons.append(f"{name} = {list(cu)} spans tokens {base}..{base + sum(lengths)}, outside the "
                               f"tensors' {total_tokens}")
        if not reasons and len(cu_seqlens_q) != len(cu_seqlens_kv):
            reasons.append(f"{len(cu_seqlens_q) - 1} query sequences but {len(cu_seqlens_kv) - 1} key sequences")
        return reasons

    def ragged_backward(self, problem, t: Tensors):
        from torch.nn.attention.flex_attention import create_block_mask

        block_mask = create_block_mask(document_mask_mod(problem, t.q.device), None, None, problem.T_q,
                                       problem.T_kv, device=t.q.device)
        q, k, v = (x.detach().requires_grad_() for x in (t.q, t.k, t.v))
        out = _compiled_flex()(_one_batch(q), _one_batch(k), _one_batch(v), block_mask=block_mask,
                               scale=problem.effective_scale, enable_gqa=problem.H_k != problem.H_q)
        dq, dk, dv = torch.autograd.grad(out, (q, k, v), _one_batch(t.do))
        t.take_grads(dq, dk, dv)
        return None
