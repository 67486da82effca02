"""The float64 oracle: SDPA forward and backward, straight from the definitions.

It reads its inputs through whatever strides they have (torch does the
addressing), upcasts to ``compute_dtype`` (float64 by default) on the tensors'
own device, and works one (batch, head-group) chunk at a time so an S = 8k
problem fits in memory.

Convention for a query row that keeps no key (PEERS.md): ``O = 0``,
``stats = -inf``, and the row contributes zero gradient (dQ row = 0, nothing to
dK or dV). Scores: ``S = scale * Q K^T``; ``P = exp(S - stats)``.

Run with ``compute_dtype`` set to the inputs' own dtype it becomes the
"same-dtype reference" whose error sets the tolerance (see ``compare``).
"""

from __future__ import annotations

import math
from typing import Optional

import torch

# Elements of one (rows x keys) score block per chunk: bounds the oracle's
# memory at ~8 bytes x 4 live blocks x this = 1 GiB in float64.
_CHUNK_ELEMENTS = 1 << 25


def band_mask(S_q: int, S_kv: int, left_bound: Optional[int], right_bound: Optional[int],
              alignment: str = "top_left", device=None) -> torch.Tensor:
    """Boolean (S_q, S_kv): True where query i keeps key j (cuDNN's band semantics)."""
    shift = S_kv - S_q if alignment == "bottom_right" else 0
    i = torch.arange(S_q, device=device)[:, None]
    j = torch.arange(S_kv, device=device)[None, :]
    keep = torch.ones(S_q, S_kv, dtype=torch.bool, device=device)
    if left_bound is not None:
        keep &= (j - i) >= 1 - left_bound + shift
    if right_bound is not None:
        keep &= (j - i) <= right_bound + shift
    return keep


def _expand_heads(t: torch.Tensor, H_q: int) -> torch.Tensor:
    return t.repeat_interleave(H_q // t.shape[1], dim=1) if t.shape[1] != H_q else t


def _reduce_heads(t: torch.Tensor, H: int) -> torch.Tensor:
    B, H_q, S, D = t.shape
    return t.reshape(B, H, H_q // H, S, D).sum(dim=2) if H != H_q else t


def _scale(scale: Optional[float], D_qk: int) -> float:
    return 1.0 / math.sqrt(D_qk) if scale is None else float(scale)


def _row_chunks(B: int, H_q: int, S_q: int, S_kv: int):
    """(b, head slice) chunks of the score tensor small enough for _CHUNK_ELEMENTS."""
    heads = max(1, min(H_q, _CHUNK_ELEMENTS // max(1, S_q * S_kv)))
    for b in range(B):
        for h0 in range(0, H_q, heads):
            yield b, slice(h0, min(H_q, h0 + heads))


def forward(q, k, v, *, scale=None, left_bound=None, right_bound=None, alignment="top_left",
            compute_dtype=torch.float64):
    """(O, stats) in ``compute_dtype``; stats has dims (B, H_q, S_q)."""
    B, H_q, S_q, D_qk = q.shape
    S_kv = k.shape[2]
    s = _scale(scale, D_qk)
    keep = band_mask(S_q, S_kv, left_bound, right_bound, alignment, q.device)
    o = torch.empty(B, H_q, S_q, v.shape[3], dtype=compute_dtype, device=q.device)
    stats = torch.empty(B, H_q, S_q, dtype=compute_dtype, device=q.device)
    for b, hs in _row_chunks(B, H_q, S_q, S_kv):
        qc = q[b, hs].to(compute_dtype)
        kc = _expand_heads(k[b:b + 1], H_q)[0, hs].to(compute_dtype)
        vc = _expand_heads(v[b:b + 1], H_q)[0, hs].to(compute_dtype)
        scores = (qc @ kc.transpose(-1, -2)) * s
        scores = scores.masked_fill(~keep, float("-inf"))
        lse = torch.logsumexp(scores, dim=-1)
        p = torch.exp(scores - lse[..., None].masked_fill(torch.isinf(lse)[..., None], 0.0))
        p = p.masked_fill(~keep, 0.0)
        o[b, hs] = (p.to(compute_dtype) @ vc).to(compute_dtype)
        stats[b, hs] = lse
    return o, stats


def backward(q, k, v, o, do, stats, *, scale=None, left_bound=None, right_bound=None,
             alignment="top_left", compute_dtype=torch.float64):
    """(dQ, dK, dV, delta) in ``compute_dtype`` from the caller's O, dO and stats.

    ``stats`` may have dims (B, H_q, S_q) or (B, H_q, S_q, 1). dK and dV sum over
    the query heads that share a K or V head (GQA/MQA, H_k and H_v independent).
    """
    return _backward(q, k, v, o, do, stats, scale, left_bound, right_bound, alignment, compute_dtype, False)


def gradient_magnitudes(q, k, v, o, do, stats, *, scale=None, left_bound=None, right_bound=None,
                        alignment="top_left") -> dict[str, float]:
    """The largest |term sum| each gradient element could reach without cancellation.

    The same products as ``backward`` with every factor replaced by its absolute
    value and ``dP - delta`` by ``|dP| + |delta|``. Where the true gradient is ~0
    by cancellation (a row with one key: dP == delta exactly), rounding still
    leaves an error of eps times this, so a tolerance floor scales with it, not
    with the (zero) result.
    """
    dq, dk, dv, delta = _backward(q, k, v, o, do, stats, scale, left_bound, right_bound, alignment,
                                  torch.float64, True)
    return {"dq": float(dq.max()) if dq.numel() else 0.0, "dk": float(dk.max()) if dk.numel() else 0.0,
            "dv": float(dv.max()) if dv.numel() else 0.0,
            "delta": float(delta.max()) if delta.numel() else 0.0}


def _backward(q, k, v, o, do, stats, scale, left_bound, right_bound, alignment, compute_dtype, magnitude):
    B, H_q, S_q, D_qk = q.shape
    H_k, S_kv = k.shape[1], k.shape[2]
    H_v = v.shape[1]
    s = _scale(scale, D_qk)
    lse_all = stats.reshape(B, H_q, S_q)
    keep = band_mask(S_q, S_kv, left_bound, right_bound, alignment, q.device)
    delta = (do.to(compute_dtype) * o.to(compute_dtype))
    delta = (delta.abs() if magnitude else delta).sum(-1)
    cast = (lambda t: t.to(compute_dtype).abs()) if magnitude else (lambda t: t.to(compute_dtype))
    dq = torch.zeros(B, H_q, S_q, D_qk, dtype=compute_dtype, device=q.device)
    dk_per_q = torch.zeros(B, H_q, S_kv, D_qk, dtype=compute_dtype, device=q.device)
    dv_per_q = torch.zeros(B, H_q, S_kv, v.shape[3], dtype=compute_dtype, device=q.device)
    for b, hs in _row_chunks(B, H_q, S_q, S_kv):
        qc = q[b, hs].to(compute_dtype)
        kc = _expand_heads(k[b:b + 1], H_q)[0, hs].to(compute_dtype)
        vc = _expand_heads(v[b:b + 1], H_q)[0, hs].to(compute_dtype)
        doc = do[b, hs].to(compute_dtype)
        lse = lse_all[b, hs].to(compute_dtype)
        scores = (qc @ kc.transpose(-1, -2)) * s
        gs = abs(s) if magnitude else s
        qc, kc, vc, doc = cast(qc), cast(kc), cast(vc), cast(doc)
        finite = torch.isfinite(lse)[..., None] & keep
        p = torch.exp(scores - lse.masked_fill(~torch.isfinite(lse), 0.0)[..., None])
        p = p.masked_fill(~finite, 0.0)
        dp = doc @ vc.transpose(-1, -2)
        ds = p * (dp + delta[b, hs][..., None] if magnitude else dp - delta[b, hs][..., None])
        dq[b, hs] = (ds @ kc) * gs
        dk_per_q[b, hs] = (ds.transpose(-1, -2) @ qc) * gs
        dv_per_q[b, hs] = p.transpose(-1, -2) @ doc
    return dq, _reduce_heads(dk_per_q, H_k), _reduce_heads(dv_per_q, H_v), delta
