"""Packed variable-length sequences ("THD" with cumulative lengths), as FlashAttention's varlen functions take them.

Q is (T_q, H_q, D_qk), K (T_kv, H_k, D_qk), V (T_kv, H_v, D_v), any strides; ``cu_seqlens_q`` and ``cu_seqlens_kv``
hold B + 1 non-decreasing token offsets: sequence b's queries are tokens ``cu_seqlens_q[b]:cu_seqlens_q[b + 1]`` and
attend only to its keys ``cu_seqlens_kv[b]:cu_seqlens_kv[b + 1]``, under the mask applied per sequence (the
bottom-right alignment aligns each sequence's own last query with its own last key). O is (T_q, H_q, D_v); the
stats are packed (H_q, T_q), natural-log LSE, as FlashAttention's varlen forward returns them. Tokens outside every
sequence (before ``cu_seqlens[0]`` or after ``cu_seqlens[-1]``) attend to nothing: O 0, stats -inf, and their
gradients 0.

How it runs. A batch of more than one run of equal lengths takes the one-launch path (``_one_launch``): one launch
of each Triton kernel covers the whole batch, its programs mapped to (tile, (sequence, head)) pairs over a grid of
(cdiv(longest sequence, tile), B * heads). The kernels' ``VARLEN`` form takes (1, H, T, D) views of the packed
tensors (batch strides passed as 0) and the offsets as int32 device tensors; each program reads its sequence's first
tokens and lengths from them, returns at once when its tile starts past its sequence's end, adds the sequence's own
bottom-right shift to the band (``BOTTOM_RIGHT``) and from there runs the dense program of a (1, H, S, D) problem
whose bases are advanced to the sequence's first tokens. The forward is one launch; the backward is ODO as one dense
(1, H_q, T_q) problem (delta and the log2 stats are per token, packed (H_q, T_q) side buffers), one DKDV launch (two
where dK and dV have passes of their own: H_k != H_v, or the config's split_dkdv) and one dQ launch: the separate dQ
form, with no atomics, so deterministic by construction. The configs are the dense tables' for the head dims (tiles
the same for every sequence); the Triton kernels always (no Gluon kernel, no TMA descriptors, no fused backward
launch: their descriptors and forms assume one S per launch).

Offsets left on the device (``on_device``, ``forward_on_device``, ``backward_on_device``): given as int32 tensors
on q's device with ``max_seqlen_*``, as FlashAttention's callers give them, the offsets are never read back to the
host (a read waits for every kernel queued before it, so each forward of each layer serialised the host's work
with the GPU's; on an H100, 2026-12-06, the one-launch path with the read ran at 0.34 of FlashAttention's varlen
speed at 16k tokens, where a step takes ~1 ms, and 0.62-0.77 at 64k, where the kernels dominate). The grids come from
``max_seqlen_*`` and B, the offsets are checked on the device (a device-side assertion stops the stream for a
malformed batch), and the tokens outside every sequence are filled by a kernel that reads the offsets. Always the
one-launch path.

The per-run path takes the rest (and every batch with ``ONE_LAUNCH`` off): each run of consecutive sequences with
the same lengths is a dense (n, H, S, D) problem over views of the packed tensors (the token axis is the S axis,
its stride the token stride; n sequences of S tokens apart), and the dense launcher runs it, side buffers included
(a run's stats are a view of the packed or padded stats, so no row of the stats is addressed from a dense stride).
It runs where one run holds the batch (one dense call, with the dense path's Gluon kernels, TMA and fused backward
where they apply), where the stats are padded (B, H_q, max_S_q) (the one-launch kernels address the stats by
token), and where no sequence has a query or a key token, or D_v is 0 (nothing to launch). It costs one forward
launch and one backward call a run, so it is also the reference the one-launch path is tested against
(tests/test_varlen_kernel.py).
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from dataclasses import dataclass
from typing import Optional, Sequence

import torch

from ..problem.ragged import cumulative, lengths_of
from . import alloc, launch, planner
from .configs import _cdiv, backward_config, forward_config, head_dim_pad, with_dq_mode
from .kernels import varlen_offsets_check_kernel, varlen_outside_fill_kernel
from .launch_cache import Recorder
from .reasons import _offsets, _wide

# The one-launch path for a batch of more than one run of equal lengths (``_one_launch``); False: every batch by
# runs, through the dense launcher (the reference the one-launch path is tested against).
ONE_LAUNCH = True


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
        raise ValueError(f"k has {k.shape[0]} tokens and v {v.shape[0]}: keys and values pair up token by token - "
                         "pass a v with k's token count")
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


def _one_launch(cu_q: Sequence[int], cu_kv: Sequence[int], v, stats) -> bool:
    """Whether the batch takes the one-launch path; the cases it leaves to the per-run path, and why:
    one run (a single dense launcher call, with the dense path's Gluon kernels, TMA and fused backward where
    they apply, is as few launches); padded stats (B, H_q, max_S_q) (the one-launch kernels address the stats
    by token, as ODO's dense (1, H_q, T_q) view of them does); no query or no key token in any sequence, or
    D_v 0 (nothing to launch: the per-run path's early returns fill the outputs)."""
    return (ONE_LAUNCH and len(_runs(cu_q, cu_kv)) > 1 and (stats is None or stats.dim() == 2)
            and cu_q[-1] > cu_q[0] and cu_kv[-1] > cu_kv[0] and v.shape[2] > 0)


def _bhsd(t: torch.Tensor) -> torch.Tensor:
    """A packed (T, H, D) tensor as the (1, H, T, D) view the one-launch kernels take."""
    return t.permute(1, 0, 2).unsqueeze(0)


def _strides(t: torch.Tensor) -> tuple:
    """A (1, H, T, D) view's strides with the batch stride 0: the one-launch kernels' batch index is the
    sequence, whose first token the kernel adds through the token stride."""
    return (0, *t.stride()[1:])


_OFFSETS: "OrderedDict[tuple, torch.Tensor]" = OrderedDict()
_OFFSETS_KEPT = 64  # batches whose device offsets are kept (a training step reuses one batch's across its layers)
_OFFSETS_LOCK = threading.Lock()


def device_offsets(cu_q: Sequence[int], cu_kv: Sequence[int], device: torch.device) -> torch.Tensor:
    """The (2, B + 1) int32 offsets the one-launch kernels read, on ``device``: uploaded once a batch and stream,
    then kept (the most recent ``_OFFSETS_KEPT``). ``torch.tensor(..., device="cuda")`` copies from pageable memory
    and waits for the stream, so every forward and backward of every layer would have stalled the host behind the
    GPU's queued work; a copy from pinned memory with ``non_blocking`` does not, and a kept tensor is not copied
    again. Keyed by the stream too: a tensor uploaded on one stream is read only by launches on that stream."""
    stream = torch.cuda.current_stream(device).cuda_stream if device.type == "cuda" else None
    key = (device, stream, tuple(cu_q), tuple(cu_kv))
    with _OFFSETS_LOCK:
        kept = _OFFSETS.get(key)
        if kept is not None:
            _OFFSETS.move_to_end(key)
            return kept
    host = torch.tensor([list(cu_q), list(cu_kv)], dtype=torch.int32)
    if device.type == "cuda":
        uploaded = host.pin_memory().to(device, non_blocking=True)
    else:
        uploaded = host.to(device)
    with _OFFSETS_LOCK:
        _OFFSETS[key] = uploaded
        while len(_OFFSETS) > _OFFSETS_KEPT:
            _OFFSETS.popitem(last=False)
    return uploaded


@dataclass(frozen=True)
class _Offsets:
    """A batch's offsets as the one-launch kernels take them: int32 device tensors of B + 1 entries, and the
    longest lengths (the grids' tile counts; an upper bound is enough: programs past their sequence return)."""

    cu_q: torch.Tensor
    cu_kv: torch.Tensor
    B: int
    max_q: int
    max_kv: int

    @staticmethod
    def of_lists(cu_q: Sequence[int], cu_kv: Sequence[int], device) -> "_Offsets":
        cu = device_offsets(cu_q, cu_kv, device)
        B = len(cu_q) - 1
        return _Offsets(cu[0], cu[1], B, max(cu_q[b + 1] - cu_q[b] for b in range(B)),
                        max(cu_kv[b + 1] - cu_kv[b] for b in range(B)))


class _Batch:
    """What the one-launch kernels of a packed batch share: the (1, H, T, D) views' dims (checked as the dense
    launcher checks them), the offsets on the device, the longest lengths (the grid's tile count), the band's
    offsets unshifted (each program adds its sequence's bottom-right shift, ``BOTTOM_RIGHT``) and the keywords
    that select the VARLEN form."""

    def __init__(self, q4, k4, v4, offs: _Offsets, left_bound, right_bound, alignment):
        _, self.H_q, self.H_k, self.H_v, self.T_q, self.T_kv, self.D_qk, self.D_v = launch._dims(q4, k4, v4)
        launch._raise_unsupported(q4, self.D_qk, self.D_v)
        self.B, self.max_q, self.max_kv = offs.B, offs.max_q, offs.max_kv
        # Offsets clamped to +-(max_q + max_kv + 1) mean the same band in every sequence, its shift added too.
        self.lo_off, self.hi_off, self.has_left, self.has_right = _offsets(self.max_q, self.max_kv, left_bound,
                                                                           right_bound, "top_left")
        self.causal = left_bound is None and right_bound == 0
        self.varlen = dict(cu_q_ptr=offs.cu_q, cu_kv_ptr=offs.cu_kv, VARLEN=True,
                           BOTTOM_RIGHT=alignment == "bottom_right")

    def kernel(self, specialised: str, any_len: str):
        """A kernel by the planner's rule on the lengths its S_q and S_kv arguments carry (T_q, T_kv here)."""
        return getattr(launch, planner._kernel(specialised, any_len, self.T_q, self.T_kv))


def _launch_forward(q, k, v, o, stats, offs: _Offsets, scale, left_bound, right_bound, alignment) -> None:
    """One launch of ``attention_fwd_kernel`` over the whole batch: programs (query tile, (sequence, head))."""
    q4, k4, v4, o4 = (_bhsd(t) for t in (q, k, v, o))
    st = stats.unsqueeze(0)
    n = _Batch(q4, k4, v4, offs, left_bound, right_bound, alignment)
    launch._check_output("o", o4, (1, n.H_q, n.T_q, n.D_v), q.dtype)
    launch._stats_strides(st, 1, n.H_q, n.T_q)
    cfg = forward_config(head_dim_pad(n.D_qk), head_dim_pad(n.D_v), q.dtype, q.device.type, n.causal)
    kw = planner.triton_fwd_constexprs(cfg, q4, n.D_v, scale, n.has_left, n.has_right, _wide(q4, k4, v4, o4, st),
                                       False)
    Recorder(None).launch(
        n.kernel("attention_fwd_kernel", "attention_fwd_kernel_any_len"), (_cdiv(n.max_q, cfg.block_m), n.B * n.H_q),
        q4, k4, v4, o4, st, *_strides(q4), *_strides(k4), *_strides(v4), *_strides(o4), *_strides(st),
        n.H_q, n.T_q, n.T_kv, n.H_q // n.H_k, n.H_q // n.H_v, scale * planner.LOG2E, n.lo_off, n.hi_off,
        **kw, **n.varlen)


def _launch_backward(q, k, v, o, do, stats, dq, dk, dv, offs: _Offsets, scale, left_bound, right_bound, alignment,
                     deterministic) -> None:
    """The separate backward over the whole batch in three launches: ODO as one dense (1, H_q, T_q) problem (delta
    and the log2 stats are per token), then one DKDV launch (programs (key tile, (sequence, owner head)); two where
    dK and dV have their own passes, as the dense planner runs them) and one dQ launch (programs (query tile,
    (sequence, head))). No atomics: every program owns its rows, so the result is deterministic."""
    q4, k4, v4, o4, do4, dq4, dk4, dv4 = (_bhsd(t) for t in (q, k, v, o, do, dq, dk, dv))
    st = stats.unsqueeze(0)
    n = _Batch(q4, k4, v4, offs, left_bound, right_bound, alignment)
    for name, t in (("o", o4), ("do", do4)):  # inputs here: read through their strides, a broadcast one too
        if tuple(t.shape) != (1, n.H_q, n.T_q, n.D_v) or t.dtype != q.dtype:
            raise ValueError(f"{name} has dims {tuple(t.shape)[1:]} and dtype {t.dtype}: expected (T_q, H_q, D_v) = "
                             f"{(n.T_q, n.H_q, n.D_v)} and q's {q.dtype} - pass the forward's O and a gradient of its "
                             "dims and dtype")
    for name, t, ref in (("dq", dq4, q4), ("dk", dk4, k4), ("dv", dv4, v4)):
        launch._check_output(name, t, ref.shape)
    launch._stats_strides(st, 1, n.H_q, n.T_q)
    cfg = backward_config(head_dim_pad(n.D_qk), head_dim_pad(n.D_v), q.dtype, q.device.type, deterministic,
                          n.causal)
    cfg = with_dq_mode(cfg, "separate")  # the dQ pass: no atomics, and no accumulator to convert
    wide = _wide(q4, k4, v4, o4, do4, st, dq4, dk4, dv4)
    common = planner._triton_bwd_constexprs(q4, n.D_v, cfg, n.has_left, n.has_right, wide)
    delta = alloc.empty(n.H_q * n.T_q, torch.float32, q.device)
    lse2 = alloc.empty(n.H_q * n.T_q, torch.float32, q.device)
    rec = Recorder(None)  # launches, records nothing: these calls are not in the launch cache
    launch._launch_odo(rec, o4, do4, st, st.stride(), delta, lse2, head_dim_pad(n.D_v), wide, n.T_q)
    qk_scale_log2 = scale * planner.LOG2E
    dkdv = n.kernel("attention_bwd_dkdv_kernel", "attention_bwd_dkdv_kernel_any_len")
    passes = (((n.H_k, True, True),) if n.H_k == n.H_v and not cfg.split_dkdv
              else ((n.H_k, True, False), (n.H_v, False, True)))
    for owner_heads, compute_dk, compute_dv in passes:
        rec.launch(dkdv, (_cdiv(n.max_kv, cfg.block_n1), n.B * owner_heads),
                   q4, k4, v4, do4, dk4, dv4, lse2, delta, delta,
                   *_strides(q4), *_strides(k4), *_strides(v4), *_strides(do4), *_strides(dk4), *_strides(dv4),
                   n.H_q, owner_heads, n.H_q // n.H_k, n.H_q // n.H_v, n.T_q, n.T_kv, qk_scale_log2, scale,
                   n.lo_off, n.hi_off,
                   **planner.dkdv_pass_constexprs(cfg, compute_dk, compute_dv, False, False, False, common),
                   **n.varlen)
    rec.launch(n.kernel("attention_bwd_dq_kernel", "attention_bwd_dq_kernel_any_len"),
               (_cdiv(n.max_q, cfg.block_m2), n.B * n.H_q),
               q4, k4, v4, do4, dq4, lse2, delta,
               *_strides(q4), *_strides(k4), *_strides(v4), *_strides(do4), *_strides(dq4),
               n.H_q, n.H_q // n.H_k, n.H_q // n.H_v, n.T_q, n.T_kv, qk_scale_log2, scale, n.lo_off, n.hi_off,
               **planner.dq_pass_constexprs(cfg, False, common), **n.varlen)


def _covers(cu: Sequence[int], T: int) -> bool:
    return cu[0] == 0 and cu[-1] == T


def _fresh(ref: torch.Tensor, cu: Sequence[int]) -> torch.Tensor:
    """A gradient in its input's layout; zero-filled only where some token lies outside every sequence."""
    grad = alloc.empty_like(ref)
    return grad if _covers(cu, ref.shape[0]) else grad.zero_()


def forward(q, k, v, cu_q: list[int], cu_kv: list[int], *, scale: Optional[float] = None, left_bound=None,
            right_bound=None, alignment: str = "top_left", o=None, stats=None):
    """(O (T_q, H_q, D_v), stats (H_q, T_q) float32) of a packed batch; ``cu_q`` / ``cu_kv`` checked offsets.
    Given ``stats`` may be packed (H_q, T_q) with any strides or padded (B, H_q, max_S_q) (``_seq_stats``)."""
    T_q, H_q, D_qk = q.shape
    D_v = v.shape[2]
    scale = 1.0 / D_qk ** 0.5 if scale is None else float(scale)
    if o is None:
        o = (alloc.empty if _covers(cu_q, T_q) else alloc.zeros)((T_q, H_q, D_v), q.dtype, q.device)
    if stats is None:
        stats = alloc.empty((H_q, T_q), torch.float32, q.device)
        if not _covers(cu_q, T_q):
            stats.fill_(float("-inf"))
    if _one_launch(cu_q, cu_kv, v, stats):
        _launch_forward(q, k, v, o, stats, _Offsets.of_lists(cu_q, cu_kv, q.device), scale, left_bound,
                        right_bound, alignment)
        return o, stats
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
    if _one_launch(cu_q, cu_kv, v, stats):
        _launch_backward(q, k, v, o, do, stats, dq, dk, dv, _Offsets.of_lists(cu_q, cu_kv, q.device), scale,
                         left_bound, right_bound, alignment, deterministic)
        return dq, dk, dv
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


# ----------------------------------------------------------------------------
# Offsets left on the device: the path that never waits for the GPU


_CHECK_BLOCK = 1024
_FILL_BLOCK_T = 64
# The device-side assertion's message: a constant (no formatting on every call) and shorter than the 255 bytes
# CUDA's assertion takes (a longer one raised "Message length must be smaller than 255" on every call: H100,
# torch 2.11, 2026-12-06). The offsets' values stay on the device; the host path names them.
DEVICE_CHECK_MESSAGE = (
    "sdpa_bwd: malformed cu_seqlens_q/cu_seqlens_kv (checked on the GPU): offsets must start >= 0, never decrease, "
    "end inside the tokens; no sequence longer than max_seqlen_*. Leave max_seqlen_* out for a host check naming "
    "the values")


def on_device(q, k, v, cu_seqlens_q, cu_seqlens_kv, max_seqlen_q, max_seqlen_kv) -> Optional[_Offsets]:
    """The batch as the one-launch kernels take it, without reading the offsets back to the host, where the call
    allows it: both offsets int32 tensors of one length (B + 1 >= 2) on q's device and both ``max_seqlen_*``
    given (as FlashAttention's callers give them), some query and key token and D_v > 0. Else None: the caller
    reads the offsets (``offsets``), which waits for the GPU's queued work and checks them with the values named.

    Here the offsets are checked on the device instead (``varlen_offsets_check_kernel``: >= 0, non-decreasing,
    inside the tokens, no sequence longer than its ``max_seqlen``), and a batch that breaks a rule stops the
    stream with a device-side assertion (``torch._assert_async``): a CUDA error at the next synchronisation,
    after which the process's CUDA context is unusable; on the CPU a RuntimeError at once."""
    if not (ONE_LAUNCH and isinstance(cu_seqlens_q, torch.Tensor) and isinstance(cu_seqlens_kv, torch.Tensor)
            and max_seqlen_q is not None and max_seqlen_kv is not None):
        return None
    cus = (cu_seqlens_q, cu_seqlens_kv)
    if any(t.dim() != 3 for t in (q, k, v)):
        return None
    if any(cu.device != q.device or cu.dtype != torch.int32 or cu.dim() != 1 for cu in cus):
        return None
    if cu_seqlens_q.numel() < 2 or cu_seqlens_q.numel() != cu_seqlens_kv.numel():
        return None
    if not all(isinstance(m, int) and not isinstance(m, bool) for m in (max_seqlen_q, max_seqlen_kv)):
        return None  # the host path converts and checks other forms
    max_q, max_kv = max_seqlen_q, max_seqlen_kv
    if min(max_q, max_kv, q.shape[0], k.shape[0], v.shape[2]) <= 0 or k.shape[0] != v.shape[0]:
        return None
    if launch.triton_not_supported_reasons(device_type=q.device.type, dtype=q.dtype, d_qk=q.shape[2],
                                           d_v=v.shape[2]):
        return None  # the host path raises with the reasons, before any launch
    cu_q, cu_kv = (cu.contiguous() for cu in cus)
    B = cu_q.numel() - 1
    flags = alloc.empty(1, torch.int32, q.device)
    launch.ensure_allocator()
    varlen_offsets_check_kernel[(1,)](cu_q, cu_kv, B, q.shape[0], k.shape[0], max_q, max_kv, flags,
                                             BLOCK=_CHECK_BLOCK)
    try:
        torch._assert_async(flags == 0, DEVICE_CHECK_MESSAGE)
    except TypeError:  # a PyTorch without the message overload
        torch._assert_async(flags == 0)
    return _Offsets(cu_q, cu_kv, B, max_q, max_kv)


def _fill_outside(x: torch.Tensor, cu: torch.Tensor, B: int, value: float) -> None:
    """``value`` into the tokens of a (T, H, D) tensor that lie outside every sequence (before ``cu[0]``, from
    ``cu[B]`` on), read from the device offsets by the kernel: no host read, one small launch."""
    T, H, D = x.shape
    if T == 0 or H == 0 or D == 0:
        return
    varlen_outside_fill_kernel[(_cdiv(T, _FILL_BLOCK_T), H)](
        x, cu, B, T, D, *x.stride(), value, BLOCK_T=_FILL_BLOCK_T, BLOCK_D=head_dim_pad(D))


def forward_on_device(q, k, v, offs: _Offsets, *, scale: Optional[float] = None, left_bound=None,
                      right_bound=None, alignment: str = "top_left"):
    """``forward`` for a batch whose offsets stay on the device (``on_device``): (O (T_q, H_q, D_v), stats (H_q,
    T_q)), one launch, tokens outside every sequence O 0 and stats -inf."""
    T_q, H_q, D_qk = q.shape
    scale = 1.0 / D_qk ** 0.5 if scale is None else float(scale)
    o = alloc.empty((T_q, H_q, v.shape[2]), q.dtype, q.device)
    stats = alloc.empty((H_q, T_q), torch.float32, q.device)
    _fill_outside(o, offs.cu_q, offs.B, 0.0)
    _fill_outside(stats.t().unsqueeze(2), offs.cu_q, offs.B, float("-inf"))
    _launch_forward(q, k, v, o, stats, offs, scale, left_bound, right_bound, alignment)
    return o, stats


def backward_on_device(q, k, v, o, do, stats, offs: _Offsets, *, scale: Optional[float] = None, left_bound=None,
                       right_bound=None, alignment: str = "top_left", deterministic: bool = False):
    """``backward`` for a batch whose offsets stay on the device: (dQ, dK, dV) in their inputs' layouts, 0 on
    tokens outside every sequence; ``stats`` packed (H_q, T_q)."""
    scale = 1.0 / q.shape[2] ** 0.5 if scale is None else float(scale)
    dq, dk, dv = (alloc.empty_like(t) for t in (q, k, v))
    _fill_outside(dq, offs.cu_q, offs.B, 0.0)
    _fill_outside(dk, offs.cu_kv, offs.B, 0.0)
    _fill_outside(dv, offs.cu_kv, offs.B, 0.0)
    _launch_backward(q, k, v, o, do, stats, dq, dk, dv, offs, scale, left_bound, right_bound, alignment,
                     deterministic)
    return dq, dk, dv
