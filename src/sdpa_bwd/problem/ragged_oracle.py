"""The float64 oracle for ragged (packed variable-length) problems, one sequence at a time.

Each sequence is a dense problem with B = 1: its tokens are sliced out of the packed (T, H, D)
tensors, viewed as (1, H, S, D), run through the dense oracle (:mod:`.oracle`) with that sequence's
own S_q and S_kv (so a bottom-right band aligns the sequence's last query with its own last key), and
the results are written back to the sequence's tokens. Nothing one sequence computes reads another's
tokens, which is the property a varlen kernel must also have.

Conventions beyond the dense oracle's (a query row that keeps no key: O = 0, stats = -inf, no
gradient):

* a sequence with S_q = 0 contributes nothing, and its keys (if any) get dK = dV = 0;
* a sequence with S_kv = 0 has every query row empty: O = 0, stats = -inf, dQ = 0;
* in the ``"padded"`` stats form the positions past a sequence's S_q belong to no query row and hold
  NaN, so that anything reading them shows up in a comparison.
"""

from __future__ import annotations

import torch

from . import oracle
from .ragged import RaggedProblem


def _check_shapes(problem: RaggedProblem, **tensors) -> None:
    for name, t in tensors.items():
        expected = problem.stats_dims() if name == "stats" else problem.tensor(name).dims
        if tuple(t.shape) != tuple(expected):
            raise ValueError(f"{name}: shape {tuple(t.shape)} but the problem's {name} has dims {tuple(expected)}"
                             + (f" (stats_form {problem.stats_form!r})" if name == "stats" else "")
                             + ": pass the tensor the problem describes")


def _dense(t: torch.Tensor, tokens: slice) -> torch.Tensor:
    """Tokens ``tokens`` of a packed (T, H, D) tensor as a (1, H, S, D) view (no copy)."""
    return t[tokens].permute(1, 0, 2).unsqueeze(0)


def stats_to_form(lse: torch.Tensor, problem: RaggedProblem) -> torch.Tensor:
    """Packed (H_q, T_q) logsumexps in the problem's ``stats_form`` (a new tensor; padding NaN)."""
    if problem.stats_form == "h_t":
        return lse.clone()
    if problem.stats_form == "t_h":
        return lse.transpose(0, 1).contiguous()
    out = torch.full(problem.stats_dims(), float("nan"), dtype=lse.dtype, device=lse.device)
    for b in range(problem.B):
        rows, _ = problem.tokens(b)
        out[b, :, : rows.stop - rows.start] = lse[:, rows]
    return out


def stats_from_form(stats: torch.Tensor, problem: RaggedProblem) -> torch.Tensor:
    """The problem's ``stats`` (in its ``stats_form``) as a packed (H_q, T_q) view or copy."""
    if problem.stats_form == "h_t":
        return stats
    if problem.stats_form == "t_h":
        return stats.transpose(0, 1)
    out = torch.empty(problem.H_q, problem.T_q, dtype=stats.dtype, device=stats.device)
    for b in range(problem.B):
        rows, _ = problem.tokens(b)
        out[:, rows] = stats[b, :, : rows.stop - rows.start]
    return out


def _attrs(problem: RaggedProblem) -> dict:
    return dict(scale=problem.effective_scale, left_bound=problem.left_bound, right_bound=problem.right_bound,
                alignment=problem.alignment)


def forward(q, k, v, problem: RaggedProblem, *, compute_dtype=torch.float64):
    """(O, stats) in ``compute_dtype``: O is (T_q, H_q, D_v), stats is in the problem's ``stats_form``."""
    _check_shapes(problem, q=q, k=k, v=v)
    T_q, H_q, D_v = problem.T_q, problem.H_q, problem.D_v
    o = torch.zeros(T_q, H_q, D_v, dtype=compute_dtype, device=q.device)
    lse = torch.full((H_q, T_q), float("-inf"), dtype=compute_dtype, device=q.device)
    for b in range(problem.B):
        rows, keys = problem.tokens(b)
        if rows.start == rows.stop or keys.start == keys.stop:
            continue   # no queries: nothing to compute; no keys: O = 0, stats = -inf as initialised
        o_b, lse_b = oracle.forward(_dense(q, rows), _dense(k, keys), _dense(v, keys), **_attrs(problem),
                                    compute_dtype=compute_dtype)
        o[rows] = o_b[0].permute(1, 0, 2)
        lse[:, rows] = lse_b[0]
    return o, stats_to_form(lse, problem)


def backward(q, k, v, o, do, stats, problem: RaggedProblem, *, compute_dtype=torch.float64):
    """(dQ, dK, dV) in ``compute_dtype`` from the caller's O, dO and stats (in the problem's form).

    dK and dV sum over the query heads that share a K or V head (GQA/MQA), within each sequence.
    """
    _check_shapes(problem, q=q, k=k, v=v, o=o, do=do, stats=stats)
    lse = stats_from_form(stats, problem)
    dq = torch.zeros(problem.T_q, problem.H_q, problem.D_qk, dtype=compute_dtype, device=q.device)
    dk = torch.zeros(problem.T_kv, problem.H_k, problem.D_qk, dtype=compute_dtype, device=q.device)
    dv = torch.zeros(problem.T_kv, problem.H_v, problem.D_v, dtype=compute_dtype, device=q.device)
    for b in range(problem.B):
        rows, keys = problem.tokens(b)
        if rows.start == rows.stop or keys.start == keys.stop:
            continue   # no queries: dK = dV = 0 for its keys; no keys: every row empty, dQ = 0
        dq_b, dk_b, dv_b, _ = oracle.backward(
            _dense(q, rows), _dense(k, keys), _dense(v, keys), _dense(o, rows), _dense(do, rows),
            lse[:, rows].unsqueeze(0), **_attrs(problem), compute_dtype=compute_dtype)
        dq[rows] = dq_b[0].permute(1, 0, 2)
        dk[keys] = dk_b[0].permute(1, 0, 2)
        dv[keys] = dv_b[0].permute(1, 0, 2)
    return dq, dk, dv
