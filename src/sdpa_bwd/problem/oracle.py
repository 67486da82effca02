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
# memory at ~8 bytes x 4 live blocks x this = 1 GiB in float64. A head whose
# S_q x S_kv block is larger is cut into key slices (see ``_key_chunks``).
_CHUNK_ELEMENTS = 1 << 25


def band_mask(S_q: int, S_kv: int, left_bound: Optional[int], right_bound: Optional[int],
              alignment: str = "top_left", device=None) -> torch.Tensor:
    """Boolean (S_q, S_kv): True where query i keeps key j (cuDNN's band semantics)."""
    return _band_keep(S_q, S_kv, left_bound, right_bound, alignment, device, slice(0, S_kv))


def _band_keep(S_q, S_kv, left_bound, right_bound, alignment, device, keys: slice) -> torch.Tensor:
    """``band_mask(...)[:, keys]`` without building the whole (S_q, S_kv) mask."""
    shift = S_kv - S_q if alignment == "bottom_right" else 0
    i = torch.arange(S_q, device=device)[:, None]
    j = torch.arange(keys.start, keys.stop, device=device)[None, :]
    keep = torch.ones(S_q, keys.stop - keys.start, dtype=torch.bool, device=device)
    if left_bound is not None:
        keep &= (j - i) >= 1 - left_bound + shift
    if right_bound is not None:
        keep &= (j - i) <= right_bound + shift
    return keep


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


def _key_chunks(S_q: int, S_kv: int, D_qk: int, D_v: int) -> list[slice]:
    """Key slices of one head: all keys at once when its S_q x S_kv block fits _CHUNK_ELEMENTS.

    Otherwise (then ``_row_chunks`` yields one head at a time) slices of n keys
    with both the score block (S_q x n) and the K/V slices (n x D) within
    _CHUNK_ELEMENTS: a few queries against 2^24 keys keep K and V in the input
    dtype and upcast 2^25 / D keys at a time.
    """
    if S_q * S_kv <= _CHUNK_ELEMENTS:
        return [slice(0, S_kv)]
    n = max(1, _CHUNK_ELEMENTS // max(S_q, D_qk, D_v))
    return [slice(j0, min(S_kv, j0 + n)) for j0 in range(0, S_kv, n)]


def _kv_slice(t: torch.Tensor, b: int, hs: slice, keys: slice, H_q: int) -> torch.Tensor:
    """The K (or V) rows ``keys`` of the heads query heads ``hs`` read, in t's own dtype.

    Query head h reads head h // (H_q // H) of t. Only the heads and keys asked
    for are copied (GQA) or viewed (H == H_q), with the layout the former
    ``t.repeat_interleave(H_q // H, dim=1)[b, hs]`` has (same bits from the matmuls).
    """
    H = t.shape[1]
    if H == H_q:
        return t[b, hs, keys]
    heads = torch.arange(hs.start, hs.stop, device=t.device) // (H_q // H)
    return t[b, :, keys].index_select(0, heads)


def forward(q, k, v, *, scale=None, left_bound=None, right_bound=None, alignment="top_left",
            compute_dtype=torch.float64):
    """(O, stats) in ``compute_dtype``; stats has dims (B, H_q, S_q).

    A head too large for one chunk runs over key slices with an online softmax
    whose running max, sum and output (m, l, acc) stay in float64. Peak memory:
    the outputs plus one key slice's temporaries (the 2^31-element case: ~1.5
    GiB, where upcasting the whole head's K and V took ~35 GiB).
    """
    B, H_q, S_q, D_qk = q.shape
    S_kv = k.shape[2]
    s = _scale(scale, D_qk)
    o = torch.empty(B, H_q, S_q, v.shape[3], dtype=compute_dtype, device=q.device)
    stats = torch.empty(B, H_q, S_q, dtype=compute_dtype, device=q.device)
    key_slices = _key_chunks(S_q, S_kv, D_qk, v.shape[3])
    band = lambda keys: _band_keep(S_q, S_kv, left_bound, right_bound, alignment, q.device, keys)  # noqa: E731
    if len(key_slices) == 1:
        keep = band(key_slices[0])
        for b, hs in _row_chunks(B, H_q, S_q, S_kv):
            qc = q[b, hs].to(compute_dtype)
            kc = _kv_slice(k, b, hs, key_slices[0], H_q).to(compute_dtype)
            vc = _kv_slice(v, b, hs, key_slices[0], H_q).to(compute_dtype)
            scores = (qc @ kc.transpose(-1, -2)) * s
            scores = scores.masked_fill(~keep, float("-inf"))
            lse = torch.logsumexp(scores, dim=-1)
            p = torch.exp(scores - lse[..., None].masked_fill(torch.isinf(lse)[..., None], 0.0))
            p = p.masked_fill(~keep, 0.0)
            o[b, hs] = (p.to(compute_dtype) @ vc).to(compute_dtype)
            stats[b, hs] = lse
        return o, stats
    f64 = torch.float64
    for b, hs in _row_chunks(B, H_q, S_q, S_kv):
        qc = q[b, hs].to(compute_dtype)
        heads = hs.stop - hs.start
        m = torch.full((heads, S_q), float("-inf"), dtype=f64, device=q.device)
        l = torch.zeros(heads, S_q, dtype=f64, device=q.device)  # noqa: E741
        acc = torch.zeros(heads, S_q, v.shape[3], dtype=f64, device=q.device)
        for keys in key_slices:
            kc = _kv_slice(k, b, hs, keys, H_q).to(compute_dtype)
            vc = _kv_slice(v, b, hs, keys, H_q).to(compute_dtype)
            scores = (qc @ kc.transpose(-1, -2)) * s
            scores = scores.masked_fill(~band(keys), float("-inf"))
            m_new = torch.maximum(m, scores.amax(dim=-1).to(f64))
            shift = m_new.masked_fill(torch.isinf(m_new), 0.0)   # rows with no key yet: p = 0 anyway
            p = torch.exp(scores - shift.to(compute_dtype)[..., None])
            rescale = torch.exp(m - shift)                        # 0 while m = -inf
            l = l * rescale + p.sum(dim=-1).to(f64)  # noqa: E741
            acc = acc * rescale[..., None] + (p @ vc).to(f64)
            m = m_new
        # A row that kept no key: l = 0, m = -inf, so stats = -inf and O = acc = 0.
        stats[b, hs] = (m + torch.log(l)).to(compute_dtype)
        o[b, hs] = (acc / l.masked_fill(l == 0, 1.0)[..., None]).to(compute_dtype)
    return o, stats


def backward(q, k, v, o, do, stats, *, scale=None, left_bound=None, right_bound=None,
             alignment="top_left", compute_dtype=torch.float64):
    """(dQ, dK, dV, delta) in ``compute_dtype`` from the caller's O, dO and stats.

    ``stats`` may have dims (B, H_q, S_q) or (B, H_q, S_q, 1). dK and dV sum over
    the query heads that share a K or V head (GQA/MQA, H_k and H_v independent).
    """
    return _backward(q, k, v, o, do, stats, scale, left_bound, right_bound, alignment, compute_dtype, False)[:4]


def gradient_magnitudes(q, k, v, o, do, stats, *, scale=None, left_bound=None, right_bound=None,
                        alignment="top_left") -> dict[str, float]:
    """The largest |term sum| each gradient element could reach without cancellation.

    The same products as ``backward`` with every factor replaced by its absolute
    value and ``dP - delta`` by ``|dP| + |delta|``. Where the true gradient is ~0
    by cancellation (a row with one key: dP == delta exactly), rounding still
    leaves an error of eps times this, so a tolerance floor scales with it, not
    with the (zero) result.

    ``exponent`` is the largest sum of |terms| of a kept softmax exponent,
    ``|scale| sum_d |q_d k_d| + |stats|``: any fp32 evaluation of
    ``exp(scale q.k - stats)`` rounds that argument by about eps times it, so P
    carries that relative error whatever the engine (``compare.check_tensor``).
    """
    dq, dk, dv, delta, exponent = _backward(q, k, v, o, do, stats, scale, left_bound, right_bound, alignment,
                                            torch.float64, True)
    tops = {n: t.max() for n, t in (("dq", dq), ("dk", dk), ("dv", dv), ("delta", delta), ("exponent", exponent))
            if t.numel()}
    values = dict(zip(tops, torch.stack(list(tops.values())).tolist())) if tops else {}   # one read of the device
    return {n: values.get(n, 0.0) for n in ("dq", "dk", "dv", "delta", "exponent")}


def _backward(q, k, v, o, do, stats, scale, left_bound, right_bound, alignment, compute_dtype, magnitude):
    # Peak memory: the outputs (dQ and the per-query-head dK and dV in
    # compute_dtype, delta) plus one chunk's temporaries: a few score-sized
    # blocks and the upcast K/V slices and dK/dV slices, each within
    # _CHUNK_ELEMENTS elements; K and V are never upcast whole. The 2^31-element
    # case (B = H = 1, S_q = 8, S_kv = 16,777,472, D = 128, bf16) in float64:
    # dK + dV = 2 x 16 GiB plus chunks of 2^18 keys (256 MiB per K/V or dK/dV
    # slice, 16 MiB per score block), ~1.3 GiB: ~33 GiB for backward or
    # gradient_magnitudes, ~8.4 GiB for the bf16 same-dtype backward (measured
    # at 1/16 scale on the CPU; before key chunking: ~99, ~99 and ~18 GiB).
    B, H_q, S_q, D_qk = q.shape
    H_k, S_kv = k.shape[1], k.shape[2]
    H_v = v.shape[1]
    s = _scale(scale, D_qk)
    lse_all = stats.reshape(B, H_q, S_q)
    delta = (do.to(compute_dtype) * o.to(compute_dtype))
    delta = (delta.abs() if magnitude else delta).sum(-1)
    cast = (lambda t: t.to(compute_dtype).abs()) if magnitude else (lambda t: t.to(compute_dtype))
    gs = abs(s) if magnitude else s
    dq = torch.zeros(B, H_q, S_q, D_qk, dtype=compute_dtype, device=q.device)
    dk_per_q = torch.zeros(B, H_q, S_kv, D_qk, dtype=compute_dtype, device=q.device)
    dv_per_q = torch.zeros(B, H_q, S_kv, v.shape[3], dtype=compute_dtype, device=q.device)
    exponent = torch.zeros((), dtype=compute_dtype, device=q.device)  # magnitude mode: see gradient_magnitudes
    key_slices = _key_chunks(S_q, S_kv, D_qk, v.shape[3])
    whole = len(key_slices) == 1
    keep = _band_keep(S_q, S_kv, left_bound, right_bound, alignment, q.device, key_slices[0]) if whole else None
    for b, hs in _row_chunks(B, H_q, S_q, S_kv):
        qc = q[b, hs].to(compute_dtype)
        doc = do[b, hs].to(compute_dtype)
        lse = lse_all[b, hs].to(compute_dtype)
        qa, doa = cast(qc), cast(doc)
        lse_finite = torch.isfinite(lse)[..., None]
        lse_shift = lse.masked_fill(~torch.isfinite(lse), 0.0)[..., None]
        d = delta[b, hs][..., None]
        # Key slices: dQ sums over them in float64, then rounds once to compute_dtype.
        dq_acc = None if whole else torch.zeros(hs.stop - hs.start, S_q, D_qk, dtype=torch.float64, device=q.device)
        for keys in key_slices:
            kc = _kv_slice(k, b, hs, keys, H_q).to(compute_dtype)
            vc = _kv_slice(v, b, hs, keys, H_q).to(compute_dtype)
            scores = (qc @ kc.transpose(-1, -2)) * s
            kc, vc = cast(kc), cast(vc)
            band = keep if whole else _band_keep(S_q, S_kv, left_bound, right_bound, alignment, q.device, keys)
            finite = lse_finite & band
            p = torch.exp(scores - lse_shift)
            p = p.masked_fill(~finite, 0.0)
            if magnitude:
                terms = (qa @ cast(kc).transpose(-1, -2)) * gs + lse_shift.abs()
                exponent = torch.maximum(exponent, terms.masked_fill(~finite, 0.0).max())
            dp = doa @ vc.transpose(-1, -2)
            ds = p * (dp + d if magnitude else dp - d)
            if whole:
                dq[b, hs] = (ds @ kc) * gs
            else:
                dq_acc += ((ds @ kc) * gs).to(torch.float64)
            dk_per_q[b, hs, keys] = (ds.transpose(-1, -2) @ qa) * gs
            dv_per_q[b, hs, keys] = p.transpose(-1, -2) @ doa
        if not whole:
            dq[b, hs] = dq_acc.to(compute_dtype)
    return dq, _reduce_heads(dk_per_q, H_k), _reduce_heads(dv_per_q, H_v), delta, exponent
