"""``torch-flash-varlen``: PyTorch's FlashAttention-2 varlen operators on the caller's packed tensors (issue 53).

``aten._flash_attention_forward`` / ``_flash_attention_backward`` with cumulative offsets are FlashAttention's
``*_varlen_*`` functions as PyTorch ships them (what nested jagged tensors reach on CUDA when SDPA picks flash).
This adapter calls them directly: Q (T_q, H_q, D), K and V (T_kv, H_k, D), O and dO in the case's layouts, the
offsets as int32 device tensors, and the caller's O and stats in the backward, so the varlen level's O, dO and
stats axes reach the backend (``reads_caller_forward``).

The offsets passed are relative to the case's tensors (``cumulative(seqlens)``, starting at 0), as for our
engine's ``triton`` column: the tensors are the sequences' own views.

Stats: the backend's own forward on the same tensors gives the form its backward reads (packed (H_q, T_q) in
FlashAttention >= 2.4's varlen functions, (B, H_q, max_seqlen_q) in older ones); the caller's stats, in whichever of
the plan's forms, are written into it by sequence, and rows that keep no key keep the backend's own value (ours are
-inf there).

Masks: FlashAttention's causal mask and windows are aligned bottom-right per sequence (the last query with the
last key). A band is passed as ``window_size_left = left_bound - 1`` and ``window_size_right = right_bound``
(-1 for an open side), where the case's alignment is bottom-right or every sequence has as many queries as keys;
a top-left band on sequences with S_q != S_kv is declined (no window expresses it). Head dims not a multiple of 8,
D_qk != D_v and H_k != H_v are declined with the operator's own rules (FlashAttention-2 takes head dims up to 256,
padded by the caller to 8; one head dim; K and V heads the same).
"""

from __future__ import annotations

from typing import Optional

import torch

from ..problem.ragged import cumulative
from .base import Capabilities, Engine, Tensors


def _accepts(op, name: str) -> bool:
    return any(a.name == name for a in op.default._schema.arguments)



def offsets_refusal(cu_seqlens_q, cu_seqlens_kv, total_tokens):
    """What FlashAttention-2's varlen forward operator says to these offsets (lists of ints) over tensors of
    ``total_tokens`` tokens (one head, D 16, fp16 on CUDA): the error it raises, or None when it runs. PyTorch only:
    ``sdpa-bwd repro`` writes this function as it is into a varlen probe's standalone file."""
    x = torch.zeros(max(0, int(total_tokens or 0)), 1, 16, device="cuda", dtype=torch.float16)
    try:
        cu_q = torch.tensor(cu_seqlens_q, dtype=torch.int32, device="cuda")
        cu_kv = torch.tensor(cu_seqlens_kv, dtype=torch.int32, device="cuda")
        longest = lambda cu: max([b - a for a, b in zip(cu, cu[1:])] or [0])  # noqa: E731
        torch.ops.aten._flash_attention_forward(x, x, x, cu_q, cu_kv, longest(cu_seqlens_q), longest(cu_seqlens_kv),
                                                0.0, False, False)
        torch.cuda.synchronize()
    except (RuntimeError, ValueError, IndexError, OverflowError) as exc:
        return f"{type(exc).__name__}: {exc}"
    return None

class TorchFlashVarlenEngine(Engine):
    name = "torch-flash-varlen"
    description = ("aten._flash_attention_backward with cumulative offsets on the caller's packed Q, K, V, O, dO "
                   "and stats (FlashAttention-2's varlen operators)")
    capabilities = Capabilities(dtypes=("float16", "bfloat16"), max_head_dim=256, devices=("cuda",),
                                distinct_kv_heads=False, distinct_head_dims=False, deterministic=False,
                                forward=True, reads_caller_forward=True, ragged=True,
                                notes="packed variable-length problems only; stats written into the form of its "
                                      "own forward's logsumexp; bands as bottom-right windows")
    # Declines written in code rather than in the capabilities (tests/test_adapter_declines.py).
    hand_declines = ("head_dim_multiple_of_8", "top_left_band_on_unequal_lengths", "head_dim_stride_1")

    def not_supported_reasons(self, problem) -> list[str]:
        return [f"{self.name} takes packed variable-length problems only (sdpa-bwd run --level varlen); dense "
                "ones are the torch-flash and torch-flash-op columns'"]

    @staticmethod
    def _windows(problem) -> Optional[tuple[int, int]]:
        """(window_size_left, window_size_right) expressing the band, or None where no window does."""
        if not problem.has_mask:
            return -1, -1
        same = all(a == b for a, b in zip(problem.seqlens_q, problem.seqlens_kv))
        if problem.alignment != "bottom_right" and not same:
            return None
        left = -1 if problem.left_bound is None else problem.left_bound - 1
        right = -1 if problem.right_bound is None else problem.right_bound
        if (problem.left_bound is not None and left < 0) or (problem.right_bound is not None and right < 0):
            return None  # FlashAttention reads a negative window as an open side
        return left, right

    def ragged_not_supported_reasons(self, problem) -> list[str]:
        reasons = super().ragged_not_supported_reasons(problem)
        if not torch.cuda.is_available():
            reasons.append(f"{self.name} runs on CUDA only (FlashAttention-2's kernels) and no CUDA device is "
                           "available here - run it on a GPU machine")
        if problem.D_qk % 8:
            reasons.append(f"D_qk = {problem.D_qk} is not a multiple of 8: FlashAttention-2's operator takes head "
                           "dims padded to 8 by its caller, which would copy the caller's tensors")
        windows = self._windows(problem)
        if windows is None:
            reasons.append(f"band left_bound={problem.left_bound}, right_bound={problem.right_bound}, alignment="
                           f"{problem.alignment} with S_q != S_kv in some sequence: FlashAttention's windows are "
                           "aligned bottom-right per sequence and are >= 0, so no window expresses it")
        elif windows != (-1, -1) and windows != (-1, 0) and not _accepts(
                torch.ops.aten._flash_attention_backward, "window_size_left"):
            reasons.append(f"band left_bound={problem.left_bound}: this PyTorch ({torch.__version__})'s "
                           "_flash_attention_backward takes no window size")
        for n in ("q", "k", "v", "o", "do", "dq", "dk", "dv"):
            if problem.tensor(n).strides[2] != 1 and problem.tensor(n).dims[2] > 1:
                reasons.append(f"{n}: head-dim stride {problem.tensor(n).strides[2]}: FlashAttention-2's varlen "
                               "operators take the head dim contiguous (stride 1)")
                break
        return reasons

    def ragged_offset_reasons(self, cu_seqlens_q, cu_seqlens_kv, total_tokens) -> list[str]:
        refusal = offsets_refusal(list(cu_seqlens_q), list(cu_seqlens_kv), total_tokens)
        return [refusal] if refusal else []

    def _args(self, problem, device) -> dict:
        cu_q = torch.tensor(cumulative(problem.seqlens_q), dtype=torch.int32, device=device)
        cu_kv = torch.tensor(cumulative(problem.seqlens_kv), dtype=torch.int32, device=device)
        left, right = self._windows(problem)
        kw = dict(scale=problem.effective_scale)
        causal = right == 0 and left == -1
        if not causal and (left, right) != (-1, -1):
            kw.update(window_size_left=left, window_size_right=right)
        return dict(cu_q=cu_q, cu_kv=cu_kv, max_q=max(problem.seqlens_q), max_k=max(problem.seqlens_kv),
                    causal=causal, kw=kw)

    def _forward(self, problem, t: Tensors, a: dict):
        return torch.ops.aten._flash_attention_forward(t.q, t.k, t.v, a["cu_q"], a["cu_kv"], a["max_q"],
                                                       a["max_k"], 0.0, a["causal"], False, **a["kw"])

    @staticmethod
    def _ours_by_sequence(problem, stats: torch.Tensor):
        """The caller's stats as (H_q, S_b) rows, one per sequence, whatever its form."""
        starts = cumulative(problem.seqlens_q)
        for b, n in enumerate(problem.seqlens_q):
            if problem.stats_form == "padded":
                yield b, stats[b, :, :n]
            elif problem.stats_form == "t_h":
                yield b, stats[starts[b]:starts[b] + n].transpose(0, 1)
            else:
                yield b, stats[:, starts[b]:starts[b] + n]

    def _row_pairs(self, problem, ours: torch.Tensor, theirs: torch.Tensor):
        """(sequence, our (H_q, S_b) rows, the backend's) for each sequence: theirs packed (H, T) or padded
        (B, H, max_S)."""
        starts = cumulative(problem.seqlens_q)
        for b, rows in self._ours_by_sequence(problem, ours):
            n = rows.shape[1]
            yield b, rows, (theirs[:, starts[b]:starts[b] + n] if theirs.dim() == 2 else theirs[b, :, :n])

    def _write_stats(self, problem, ours: torch.Tensor, theirs: torch.Tensor) -> None:
        """Our stats into the backend's form, sequence by sequence (its own value where ours is -inf)."""
        for _, rows, dst in self._row_pairs(problem, ours, theirs):
            dst.copy_(torch.where(torch.isneginf(rows), dst, rows))

    def _read_stats(self, problem, theirs: torch.Tensor, ours: torch.Tensor) -> None:
        """The backend's stats into the caller's form. A query row that keeps no key is +inf in FlashAttention's
        convention (its ``normalize_softmax_lse``: so that the backward's exp(s - lse) is 0) and -inf in ours;
        there, and only there, +inf is read as -inf: any other value, or +inf on a row that keeps a key, is
        passed on for the judge to see."""
        for b, rows, src in self._row_pairs(problem, ours, theirs):
            rows.copy_(src)
            n = rows.shape[1]
            empty = torch.tensor([lo >= hi for lo, hi in (problem.key_range(b, i) for i in range(n))],
                                 dtype=torch.bool, device=rows.device)
            if empty.any():
                rows.masked_fill_(empty[None, :] & torch.isposinf(rows), float("-inf"))

    def ragged_backward(self, problem, t: Tensors):
        a = self._args(problem, t.q.device)
        _, lse, rng_state, unused, _ = self._forward(problem, t, a)
        self._write_stats(problem, t.stats, lse)
        dq, dk, dv = torch.ops.aten._flash_attention_backward(
            t.do, t.q, t.k, t.v, t.o, lse, a["cu_q"], a["cu_kv"], a["max_q"], a["max_k"], 0.0, a["causal"],
            rng_state, unused, **a["kw"])
        t.take_grads(dq, dk, dv)
        return None

    def ragged_forward(self, problem, t: Tensors) -> None:
        a = self._args(problem, t.q.device)
        o, lse, _, _, _ = self._forward(problem, t, a)
        t.o.copy_(o)
        self._read_stats(problem, lse, t.stats)
