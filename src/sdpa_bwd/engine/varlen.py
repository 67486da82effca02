"""Packed variable-length sequences ("THD" with cumulative lengths), as FlashAttention's varlen functions take them.

Q is (T_q, H_q, D_qk), K (T_kv, H_k, D_qk), V (T_kv, H_v, D_v), any strides; ``cu_seqlens_q`` and ``cu_seqlens_kv``
hold B + 1 non-decreasing token offsets: sequence b's queries are tokens ``cu_seqlens_q[b]:cu_seqlens_q[b + 1]`` and
attend only to its keys ``cu_seqlens_kv[b]:cu_seqlens_kv[b + 1]``, under the mask applied per sequence (the
bottom-right alignment aligns each sequence's own last query with its own last key). O is (T_q, H_q, D_v); the
stats are packed (H_q, T_q), natural-log LSE, as FlashAttention's varlen forward returns them. Tokens outside every
sequence (before ``cu_seqlens[0]`` or after ``cu_seqlens[-1]``) attend to nothing: O 0, stats -inf, and their
gradients 0.

How it runs: each sequence is a dense (1, H, S, D) problem over views of the packed tensors (the token axis is the
S axis, its stride the token stride), and the dense launcher runs it, side buffers included (a sequence's stats
are the view ``stats[:, start:end]``, so no row of the stats is addressed from a dense stride). That is right on
every layout the dense kernels take, and costs one forward launch and one backward call a sequence: the host time
grows with the number of sequences, so a batch of many short sequences is host-bound. A kernel whose programs
map to (sequence, tile) pairs is the form that removes it; this one is the reference it must match.
"""

from __future__ import annotations

from typing import Optional, Sequence

import torch

from ..problem.ragged import cumulative, lengths_of
from . import launch


def offsets(cu_seqlens, T: int, name: str) -> list[int]:
    """``cu_seqlens`` (a list, or an integer tensor of B + 1 entries on any device) as a list of ints, checked by
    the problem model's rules (``problem.ragged.lengths_of``: >= 2 entries, >= 0, never decreasing, int32) and
    ending inside the T tokens of its tensor. A CUDA tensor is read back to the host here (one synchronisation)."""
    lengths, base = lengths_of(name, cu_seqlens)
    cu = list(cumulative(lengths, base))
    if cu[-1] > T:
        raise ValueError(f"{name}[-1] = {cu[-1]} is past the {T} tokens of its tensor: the sequences must lie inside "
                         "the token axis - pass offsets that end at or before T")
    return cu


def check_batch(q, k, v, cu_q: list[int], cu_kv: list[int], max_seqlen_q: Optional[int],
                max_seqlen_kv: Optional[int]) -> None:
    """The batch's rules beyond each offset list's own: (T, H, D) tensors, one B for both lists, as many value
    tokens as key tokens, ``max_seqlen_*`` (where given) covering the longest sequence."""
    for name, t in (("q", q), ("k", k), ("v", v)):
        if t.dim() != 3:
            raise ValueError(f"{name} has dims {tuple(t.shape)}: packed sequences take (T, H, D) tensors (tokens, "
                             "heads, head dim) - pack the batch along the token axis")
    if len(cu_q) != len(cu_kv):
        raise ValueError(f"cu_seqlens_q has {len(cu_q)} entries and cu_seqlens_kv {len(cu_kv)}: both hold B + 1 "
                         "offsets of the same B sequences - pass one offset list per side for the same batch")
    if k.shape[0] != v.shape[0]:
        raise ValueError(f"k has {k.shape[0]} tokens and v {v.shape[0]}: keys and values pair up token by token")
    for name, cu, given in (("max_seqlen_q", cu_q, max_seqlen_q), ("max_seqlen_kv", cu_kv, max_seqlen_kv)):
        longest = max(cu[b + 1] - cu[b] for b in range(len(cu) - 1))
        if given is not None and int(given) < longest:
            raise ValueError(f"{name} = {given} but a sequence has {longest} tokens: the bound must cover the "
                             f"longest sequence - pass {longest} or more (or None)")


def _seq(t: torch.Tensor, start: int, end: int) -> torch.Tensor:
    """Tokens start:end of a (T, H, D) tensor as a (1, H, end - start, D) view."""
    return t[start:end].permute(1, 0, 2).unsqueeze(0)


def _seq_stats(stats: torch.Tensor, b: int, start: int, end: int) -> torch.Tensor:
    """Sequence b's stats as a (1, H, end - start) view: of a packed (H, T) tensor (any strides, so a (T, H) one
    passed transposed too) the columns start:end, of a padded (B, H, max_S) one row b's first end - start."""
    if stats.dim() == 3:
        return stats[b, :, :end - start].unsqueeze(0)
    return stats[:, start:end].unsqueeze(0)


def _covers(cu: Sequence[int], T: int) -> bool:
    return cu[0] == 0 and cu[-1] == T


def _fresh(ref: torch.Tensor, cu: Sequence[int]) -> torch.Tensor:
    """A gradient in its input's layout; zero-filled only where some token lies outside every sequence."""
    return (torch.empty_like if _covers(cu, ref.shape[0]) else torch.zeros_like)(ref)


def forward(q, k, v, cu_q: list[int], cu_kv: list[int], *, scale: Optional[float] = None, left_bound=None,
            right_bound=None, alignment: str = "top_left", o=None, stats=None):
    """(O (T_q, H_q, D_v), stats (H_q, T_q) float32) of a packed batch; ``cu_q`` / ``cu_kv`` checked offsets.
    Given ``stats`` may be packed (H_q, T_q) with any strides or padded (B, H_q, max_S_q) (``_seq_stats``)."""
    T_q, H_q, D_qk = q.shape
    D_v = v.shape[2]
    scale = 1.0 / D_qk ** 0.5 if scale is None else float(scale)
    if o is None:
        o = (torch.empty if _covers(cu_q, T_q) else torch.zeros)((T_q, H_q, D_v), dtype=q.dtype, device=q.device)
    if stats is None:
        stats = torch.empty((H_q, T_q), dtype=torch.float32, device=q.device)
        if not _covers(cu_q, T_q):
            stats.fill_(float("-inf"))
    for b in range(len(cu_q) - 1):
        (s0, s1), (k0, k1) = (cu_q[b], cu_q[b + 1]), (cu_kv[b], cu_kv[b + 1])
        if s1 == s0:
            continue
        launch.attention_forward(_seq(q, s0, s1), _seq(k, k0, k1), _seq(v, k0, k1), scale=scale,
                                 left_bound=left_bound, right_bound=right_bound, alignment=alignment,
                                 o=_seq(o, s0, s1), stats=_seq_stats(stats, b, s0, s1))
    return o, stats


def backward(q, k, v, o, do, stats, cu_q: list[int], cu_kv: list[int], *, scale: Optional[float] = None,
             left_bound=None, right_bound=None, alignment: str = "top_left", deterministic: bool = False,
             dq=None, dk=None, dv=None):
    """(dQ, dK, dV) of a packed batch, each with its input's dims; ``stats`` as ``forward`` takes it.
    Sequences own disjoint tokens, so every gradient element is written by one sequence's call alone. Given
    outputs have their sequences' tokens written; fresh ones (layout of their input) are 0 outside every sequence."""
    scale = 1.0 / q.shape[2] ** 0.5 if scale is None else float(scale)
    dq = _fresh(q, cu_q) if dq is None else dq
    dk = _fresh(k, cu_kv) if dk is None else dk
    dv = _fresh(v, cu_kv) if dv is None else dv
    for b in range(len(cu_q) - 1):
        (s0, s1), (k0, k1) = (cu_q[b], cu_q[b + 1]), (cu_kv[b], cu_kv[b + 1])
        if s1 == s0:
            if k1 > k0:  # keys no query reads: their gradients are 0
                dk[k0:k1].zero_()
                dv[k0:k1].zero_()
            continue
        launch.attention_backward(_seq(q, s0, s1), _seq(k, k0, k1), _seq(v, k0, k1), _seq(o, s0, s1),
                                  _seq(do, s0, s1), _seq_stats(stats, b, s0, s1), scale=scale,
                                  left_bound=left_bound, right_bound=right_bound, alignment=alignment,
                                  deterministic=deterministic, dq=_seq(dq, s0, s1), dk=_seq(dk, k0, k1),
                                  dv=_seq(dv, k0, k1))
    return dq, dk, dv
