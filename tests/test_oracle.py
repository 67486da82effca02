"""The float64 oracle against torch.autograd through an explicit masked softmax."""

import math

import pytest
import torch

from sdpa_bwd import oracle
from sdpa_bwd.layout import strided_empty


def autograd_reference(q, k, v, do, scale, left_bound, right_bound, alignment):
    """O = softmax(masked scale*QK^T) V in float64; rows without keys forced to zero."""
    q, k, v = (x.detach().double().requires_grad_() for x in (q, k, v))
    H_q = q.shape[1]
    ke = k.repeat_interleave(H_q // k.shape[1], dim=1)
    ve = v.repeat_interleave(H_q // v.shape[1], dim=1)
    keep = oracle.band_mask(q.shape[2], k.shape[2], left_bound, right_bound, alignment)
    s = (q @ ke.transpose(-1, -2)) * scale
    s = s.masked_fill(~keep, -math.inf)
    has_key = keep.any(-1)[:, None]
    p = torch.softmax(torch.where(has_key, s, torch.zeros_like(s)), dim=-1) * keep
    o = p @ ve
    dq, dk, dv = torch.autograd.grad(o, (q, k, v), do.double())
    return o.detach(), dq, dk, dv


def fill(dims, order="bhsd", seed=0, **kw):
    t = strided_empty(dims, order, dtype=torch.float32, **kw)
    g = torch.Generator().manual_seed(seed)
    t.copy_(torch.randn(dims, generator=g))
    return t


CASES = [
    dict(name="plain", B=2, H_q=2, H_k=2, H_v=2, S_q=7, S_kv=7, D_qk=8, D_v=8),
    dict(name="gqa-hk!=hv", B=1, H_q=4, H_k=2, H_v=1, S_q=5, S_kv=9, D_qk=8, D_v=4),
    dict(name="causal-tl", B=1, H_q=2, H_k=2, H_v=2, S_q=9, S_kv=6, D_qk=8, D_v=8, right_bound=0),
    dict(name="causal-br-empty-rows", B=1, H_q=2, H_k=1, H_v=1, S_q=9, S_kv=4, D_qk=8, D_v=8, right_bound=0,
         alignment="bottom_right"),
    dict(name="window", B=2, H_q=1, H_k=1, H_v=1, S_q=11, S_kv=11, D_qk=4, D_v=6, left_bound=3, right_bound=1),
    dict(name="window-br", B=1, H_q=2, H_k=2, H_v=2, S_q=5, S_kv=12, D_qk=4, D_v=4, left_bound=2, right_bound=0,
         alignment="bottom_right"),
    dict(name="left-only", B=1, H_q=1, H_k=1, H_v=1, S_q=8, S_kv=8, D_qk=4, D_v=4, left_bound=2),
    dict(name="negative-scale", B=1, H_q=1, H_k=1, H_v=1, S_q=6, S_kv=5, D_qk=8, D_v=8, scale=-0.7),
]


@pytest.mark.parametrize("c", CASES, ids=[c["name"] for c in CASES])
def test_oracle_matches_autograd(c):
    B, H_q, H_k, H_v, S_q, S_kv, D_qk, D_v = (c[k] for k in ("B", "H_q", "H_k", "H_v", "S_q", "S_kv", "D_qk", "D_v"))
    attrs = dict(scale=c.get("scale", 1 / math.sqrt(D_qk)), left_bound=c.get("left_bound"),
                 right_bound=c.get("right_bound"), alignment=c.get("alignment", "top_left"))
    q = fill((B, H_q, S_q, D_qk), "sbhd", 1)
    k = fill((B, H_k, S_kv, D_qk), "bshd", 2, pad={"s": 3})
    v = fill((B, H_v, S_kv, D_v), "bhsd", 3, inner_stride=2)
    do = fill((B, H_q, S_q, D_v), "hsbd", 4)
    o, stats = oracle.forward(q, k, v, **attrs)
    o_ref, dq_ref, dk_ref, dv_ref = autograd_reference(q, k, v, do, **attrs)
    torch.testing.assert_close(o, o_ref, rtol=1e-12, atol=1e-12)
    keep = oracle.band_mask(S_q, S_kv, attrs["left_bound"], attrs["right_bound"], attrs["alignment"])
    empty = ~keep.any(-1)
    assert torch.isneginf(stats[..., empty]).all()
    assert (o[..., empty, :] == 0).all()
    dq, dk, dv, delta = oracle.backward(q, k, v, o, do, stats, **attrs)
    torch.testing.assert_close(delta, (do.double() * o).sum(-1), rtol=1e-12, atol=1e-12)
    for got, want in ((dq, dq_ref), (dk, dk_ref), (dv, dv_ref)):
        torch.testing.assert_close(got, want, rtol=1e-10, atol=1e-10)
    assert (dq[..., empty, :] == 0).all()


def test_oracle_reads_stats_through_rank4_and_strides():
    q, k, v, do = (fill((1, 2, 6, 8), seed=s) for s in range(4))
    o, stats = oracle.forward(q, k, v)
    padded = torch.full((1, 2 * 16, 1), float("nan"), dtype=torch.float32).as_strided((1, 2, 6, 1), (32, 16, 1, 1))
    padded.copy_(stats.reshape(1, 2, 6, 1))
    a = oracle.backward(q, k, v, o, do, stats)
    b = oracle.backward(q, k, v, o, do, padded)
    for x, y in zip(a, b):
        torch.testing.assert_close(x, y, rtol=1e-6, atol=1e-6)


def test_oracle_chunking_matches_unchunked(monkeypatch):
    q, k, v, do = (fill((2, 3, 9, 8), seed=s) for s in range(4))
    o, stats = oracle.forward(q, k, v, right_bound=0)
    full = oracle.backward(q, k, v, o, do, stats, right_bound=0)
    monkeypatch.setattr(oracle, "_CHUNK_ELEMENTS", 1)
    o2, stats2 = oracle.forward(q, k, v, right_bound=0)
    chunked = oracle.backward(q, k, v, o2, do, stats2, right_bound=0)
    torch.testing.assert_close(o, o2)
    for x, y in zip(full, chunked):
        torch.testing.assert_close(x, y)


def test_gradient_magnitudes_bound_the_gradients_and_survive_cancellation():
    # One key per row: dP == delta exactly, so dQ and dK are 0 by cancellation,
    # but their magnitude (what rounding error scales with) is not.
    q, k, v, do = (fill(d, seed=s) for s, d in enumerate([(1, 2, 5, 8), (1, 2, 1, 8), (1, 2, 1, 8), (1, 2, 5, 8)]))
    o, stats = oracle.forward(q, k, v, scale=-0.5)
    dq, dk, dv, _ = oracle.backward(q, k, v, o, do, stats, scale=-0.5)
    mags = oracle.gradient_magnitudes(q, k, v, o, do, stats, scale=-0.5)
    assert float(dq.abs().max()) < 1e-12 and mags["dq"] > 0.1
    for name, g in (("dq", dq), ("dk", dk), ("dv", dv)):
        assert float(g.abs().max()) <= mags[name] * (1 + 1e-12)
