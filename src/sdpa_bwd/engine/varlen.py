"""Packed variable-length sequences ("THD" with cumulative lengths), as FlashAttention's varlen functions take them.

Q is (T_q, H_q, D_qk), K (T_kv, H_k, D_qk), V (T_kv, H_v, D_v), any strides; ``cu_seqlens_q`` and ``cu_seqlens_kv``
hold B + 1 non-decreasing token offsets: sequence b's queries are tokens ``cu_seqlens_q[b]:cu_seqlens_q[b + 1]`` and
attend only to its keys ``cu_seqlens_kv[b]:cu_seqlens_kv[b + 1]``, under the mask applied per sequence (the
bottom-right alignment aligns each sequence's own last query with its own last key). O is (T_q, H_q, D_v); the
stats are packed (H_q, T_q), natural-log LSE, as FlashAttention's varlen forward returns them. Tokens outside every
sequence (before ``cu_seqlens[0]`` or after ``cu_seqlens[-1]``) attend to nothing: O 0, stats -inf, and their
gradients 0.

How it runs: each run of consecutive sequences with the same lengths is a dense (n, H, S, D) problem over views of
the packed tensors (the token axis is the S axis, its stride the token stride; n sequences of S tokens apart), and
the dense launcher runs it, side buffers included (a run's stats are a view of the packed or padded stats, so no
row of the stats is addressed from a dense stride). That is right on every layout the dense kernels take, and
costs one forward launch and one backward call a run: a batch of equal lengths is one call, but the host time of a
batch of many different lengths grows with their number, so many short sequences of mixed lengths are host-bound. A kernel whose programs
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


def _runs(cu_q: Sequence[int], cu_kv: Sequence[int]) -> list[tuple[int, int, int, int, int, int]]:
    """(first sequence, count, first query token, S_q, first key token, S_kv) of each run of consecutive sequences
    with the same lengths: its tokens lie back to back, so one (count, H, S, D) view holds the run and one launch
    computes it (a packed batch of equal lengths is one launch, not one a sequence)."""
    out: list = []
    for b in range(len(cu_q) - 1):
        s_q, s_kv = cu_q[b + 1] - cu_q[b], cu_kv[b + 1] - cu_kv[b]
        if out and (out[-1][3], out[-1][5]) == (s_q, s_kv):
            b0, n, s0, _, k0, _ = out[-1]
            out[-1] = (b0, n + 1, s0, s_q, k0, s_kv)
        else:
            out.append((b, 1, cu_q[b], s_q, cu_kv[b], s_kv))
    return out


def _run(t: torch.Tensor, start: int, n: int, length: int) -> torch.Tensor:
    """Tokens start:start + n * length of a (T, H, D) tensor as an (n, H, length, D) view."""
    return t[start:start + n * length].unflatten(0, (n, length)).permute(0, 2, 1, 3)


def _run_stats(stats: torch.Tensor, b0: int, n: int, start: int, length: int) -> torch.Tensor:
    """A run's stats as an (n, H, length) view: of a packed (H, T) tensor (any strides, so a (T, H) one passed
    transposed too) the run's columns, of a padded (B, H, max_S) one its rows' first ``length`` entries."""
    if stats.dim() == 3:
        return stats[b0:b0 + n, :, :length]
    return stats[:, start:start + n * length].unflatten(1, (n, length)).permute(1, 0, 2)


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
    for b0, n, s0, s_q, k0, s_kv in _runs(cu_q, cu_kv):
        if s_q == 0:
            continue
        launch.attention_forward(_run(q, s0, n, s_q), _run(k, k0, n, s_kv), _run(v, k0, n, s_kv), scale=scale,
                                 left_bound=left_bound, right_bound=right_bound, alignment=alignment,
                                 o=_run(o, s0, n, s_q), stats=_run_stats(stats, b0, n, s0, s_q))
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
    for b0, n, s0, s_q, k0, s_kv in _runs(cu_q, cu_kv):
        if s_q == 0:
            if s_kv:  # keys no query reads: their gradients are 0
                dk[k0:k0 + n * s_kv].zero_()
                dv[k0:k0 + n * s_kv].zero_()
            continue
        launch.attention_backward(_run(q, s0, n, s_q), _run(k, k0, n, s_kv), _run(v, k0, n, s_kv),
                                  _run(o, s0, n, s_q), _run(do, s0, n, s_q), _run_stats(stats, b0, n, s0, s_q),
                                  scale=scale, left_bound=left_bound, right_bound=right_bound, alignment=alignment,
                                  deterministic=deterministic, dq=_run(dq, s0, n, s_q), dk=_run(dk, k0, n, s_kv),
                                  dv=_run(dv, k0, n, s_kv))
    return dq, dk, dv
