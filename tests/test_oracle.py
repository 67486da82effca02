"""The float64 oracle against torch.autograd through an explicit masked softmax."""

import math

import pytest
import torch

from sdpa_bwd.problem import oracle
from sdpa_bwd.problem.layout import strided_empty


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


# -- key chunking: a head whose S_q x S_kv block exceeds _CHUNK_ELEMENTS ---------------------------

KEY_CHUNK_CASES = [
    dict(name="gqa-hk!=hv", B=2, H_q=4, H_k=2, H_v=1, S_q=9, S_kv=29, D_qk=8, D_v=4),
    dict(name="mqa-dqk<dv", B=1, H_q=2, H_k=1, H_v=1, S_q=5, S_kv=40, D_qk=4, D_v=12, scale=-0.7),
    dict(name="causal-tl", B=1, H_q=4, H_k=2, H_v=1, S_q=12, S_kv=23, D_qk=8, D_v=8, right_bound=0),
    dict(name="causal-br-empty-rows", B=1, H_q=4, H_k=2, H_v=1, S_q=21, S_kv=9, D_qk=8, D_v=4, right_bound=0,
         alignment="bottom_right", chunk=32),
    dict(name="window-tl", B=1, H_q=2, H_k=2, H_v=1, S_q=20, S_kv=20, D_qk=4, D_v=6, left_bound=3, right_bound=1),
    dict(name="window-br-empty-rows", B=2, H_q=4, H_k=1, H_v=2, S_q=14, S_kv=10, D_qk=8, D_v=4, left_bound=2,
         right_bound=0, alignment="bottom_right", chunk=40),
    dict(name="left-only-br", B=1, H_q=2, H_k=1, H_v=2, S_q=6, S_kv=31, D_qk=4, D_v=8, left_bound=5,
         alignment="bottom_right"),
    dict(name="right-only-negative", B=1, H_q=1, H_k=1, H_v=1, S_q=7, S_kv=25, D_qk=8, D_v=8, right_bound=-3),
]


def _case_tensors(c, dtype):
    B, H_q, H_k, H_v, S_q, S_kv, D_qk, D_v = (c[k] for k in ("B", "H_q", "H_k", "H_v", "S_q", "S_kv", "D_qk", "D_v"))
    q = fill((B, H_q, S_q, D_qk), "sbhd", 11).to(dtype)
    k = fill((B, H_k, S_kv, D_qk), "bshd", 12, pad={"s": 3}).to(dtype)
    v = fill((B, H_v, S_kv, D_v), "bhsd", 13).to(dtype)
    do = fill((B, H_q, S_q, D_v), "hsbd", 14).to(dtype)
    attrs = dict(scale=c.get("scale"), left_bound=c.get("left_bound"), right_bound=c.get("right_bound"),
                 alignment=c.get("alignment", "top_left"))
    return (q, k, v, do), attrs


def _assert_rel(got, want, rtol=1e-12):
    """Elementwise |got - want| <= rtol * max|want| (same -inf positions in stats)."""
    assert got.dtype == want.dtype and got.shape == want.shape
    inf = torch.isinf(want)
    assert torch.equal(inf, torch.isinf(got)) and torch.equal(got[inf], want[inf])
    scale = float(want[~inf].abs().max()) if (~inf).any() else 0.0
    err = float((got[~inf] - want[~inf]).abs().max()) if (~inf).any() else 0.0
    assert err <= rtol * scale, (err, scale)


@pytest.mark.parametrize("dtype", [torch.float32, torch.bfloat16], ids=["f32", "bf16"])
@pytest.mark.parametrize("c", KEY_CHUNK_CASES, ids=[c["name"] for c in KEY_CHUNK_CASES])
def test_key_chunking_matches_unchunked(c, dtype, monkeypatch):
    (q, k, v, do), attrs = _case_tensors(c, dtype)
    S_q, S_kv, D_qk, D_v = c["S_q"], c["S_kv"], c["D_qk"], c["D_v"]
    assert oracle._key_chunks(S_q, S_kv, D_qk, D_v) == [slice(0, S_kv)]
    o, stats = oracle.forward(q, k, v, **attrs)
    o_in = o.to(dtype)
    full = oracle.backward(q, k, v, o_in, do, stats, **attrs)
    mags = oracle.gradient_magnitudes(q, k, v, o_in, do, stats, **attrs)

    monkeypatch.setattr(oracle, "_CHUNK_ELEMENTS", c.get("chunk", 64))
    slices = oracle._key_chunks(S_q, S_kv, D_qk, D_v)
    assert len(slices) >= 2 and slices[0].start == 0 and slices[-1].stop == S_kv
    assert all(a.stop == b.start for a, b in zip(slices, slices[1:]))
    o2, stats2 = oracle.forward(q, k, v, **attrs)
    _assert_rel(o2, o)
    _assert_rel(stats2, stats)
    keep = oracle.band_mask(S_q, S_kv, attrs["left_bound"], attrs["right_bound"], attrs["alignment"])
    empty = ~keep.any(-1)
    assert torch.isneginf(stats2[..., empty]).all() and (o2[..., empty, :] == 0).all()
    assert torch.isfinite(stats2[..., ~empty]).all()
    # Same O and stats in: key chunks change dQ's summation order (and the BLAS blocking of each product).
    chunked = oracle.backward(q, k, v, o_in, do, stats, **attrs)
    for got, want in zip(chunked, full):
        _assert_rel(got, want)
    assert torch.equal(chunked[3], full[3])  # delta does not depend on the keys
    assert (chunked[0][..., empty, :] == 0).all()
    mags2 = oracle.gradient_magnitudes(q, k, v, o_in, do, stats, **attrs)
    assert mags2.keys() == mags.keys()
    for name in mags:
        assert mags[name] > 0 and abs(mags2[name] - mags[name]) <= 1e-12 * mags[name], name

    # The same-dtype reference (compute_dtype = float32) chunks too: close at float32 precision.
    o32, stats32 = oracle.forward(q, k, v, compute_dtype=torch.float32, **attrs)
    assert o32.dtype == stats32.dtype == torch.float32
    _assert_rel(o32.double(), o, rtol=1e-5)
    _assert_rel(stats32.double(), stats, rtol=1e-5)
    g32 = oracle.backward(q, k, v, o_in, do, stats, compute_dtype=torch.float32, **attrs)
    for got, want in zip(g32, full):
        assert got.dtype == torch.float32
        _assert_rel(got.double(), want, rtol=1e-5)


def test_key_chunks_bound_the_two_to_the_31_case():
    # The plan's 2^31-element case: 8 queries against 16,777,472 keys of D = 128.
    S_q, S_kv, D = 8, 16_777_472, 128
    slices = oracle._key_chunks(S_q, S_kv, D, D)
    assert slices[0].start == 0 and slices[-1].stop == S_kv
    assert all(a.stop == b.start for a, b in zip(slices, slices[1:]))
    widest = max(s.stop - s.start for s in slices)
    assert S_q * widest <= oracle._CHUNK_ELEMENTS and widest * D <= oracle._CHUNK_ELEMENTS
    assert list(oracle._row_chunks(1, 1, S_q, S_kv)) == [(0, slice(0, 1))]


def _frozen_forward(q, k, v, scale, left_bound, right_bound, alignment, compute_dtype):
    """The oracle's forward as it was before key chunking, for problems of one chunk per head."""
    B, H_q, S_q, D_qk = q.shape
    S_kv = k.shape[2]
    keep = oracle.band_mask(S_q, S_kv, left_bound, right_bound, alignment)
    o = torch.empty(B, H_q, S_q, v.shape[3], dtype=compute_dtype)
    stats = torch.empty(B, H_q, S_q, dtype=compute_dtype)
    for b, hs in oracle._row_chunks(B, H_q, S_q, S_kv):
        qc = q[b, hs].to(compute_dtype)
        kc = _frozen_expand(k[b:b + 1], H_q)[0, hs].to(compute_dtype)
        vc = _frozen_expand(v[b:b + 1], H_q)[0, hs].to(compute_dtype)
        scores = ((qc @ kc.transpose(-1, -2)) * scale).masked_fill(~keep, float("-inf"))
        lse = torch.logsumexp(scores, dim=-1)
        p = torch.exp(scores - lse[..., None].masked_fill(torch.isinf(lse)[..., None], 0.0)).masked_fill(~keep, 0.0)
        o[b, hs] = p @ vc
        stats[b, hs] = lse
    return o, stats


def _frozen_expand(t, H_q):
    return t.repeat_interleave(H_q // t.shape[1], dim=1) if t.shape[1] != H_q else t


def _frozen_backward(q, k, v, o, do, stats, scale, left_bound, right_bound, alignment, compute_dtype, magnitude):
    """The oracle's backward as it was before key chunking (dQ, dK, dV, delta)."""
    B, H_q, S_q, D_qk = q.shape
    S_kv = k.shape[2]
    lse_all = stats.reshape(B, H_q, S_q)
    keep = oracle.band_mask(S_q, S_kv, left_bound, right_bound, alignment)
    delta = do.to(compute_dtype) * o.to(compute_dtype)
    delta = (delta.abs() if magnitude else delta).sum(-1)
    cast = (lambda t: t.to(compute_dtype).abs()) if magnitude else (lambda t: t.to(compute_dtype))
    dq = torch.zeros(B, H_q, S_q, D_qk, dtype=compute_dtype)
    dk = torch.zeros(B, H_q, S_kv, D_qk, dtype=compute_dtype)
    dv = torch.zeros(B, H_q, S_kv, v.shape[3], dtype=compute_dtype)
    gs = abs(scale) if magnitude else scale
    for b, hs in oracle._row_chunks(B, H_q, S_q, S_kv):
        qc, doc, lse = q[b, hs].to(compute_dtype), do[b, hs].to(compute_dtype), lse_all[b, hs].to(compute_dtype)
        kc = _frozen_expand(k[b:b + 1], H_q)[0, hs].to(compute_dtype)
        vc = _frozen_expand(v[b:b + 1], H_q)[0, hs].to(compute_dtype)
        scores = (qc @ kc.transpose(-1, -2)) * scale
        qc, kc, vc, doc = cast(qc), cast(kc), cast(vc), cast(doc)
        p = torch.exp(scores - lse.masked_fill(~torch.isfinite(lse), 0.0)[..., None])
        p = p.masked_fill(~(torch.isfinite(lse)[..., None] & keep), 0.0)
        dp = doc @ vc.transpose(-1, -2)
        ds = p * (dp + delta[b, hs][..., None] if magnitude else dp - delta[b, hs][..., None])
        dq[b, hs] = (ds @ kc) * gs
        dk[b, hs] = (ds.transpose(-1, -2) @ qc) * gs
        dv[b, hs] = p.transpose(-1, -2) @ doc
    reduce = lambda t, H: t.reshape(B, H, H_q // H, S_kv, -1).sum(dim=2) if H != H_q else t  # noqa: E731
    return dq, reduce(dk, k.shape[1]), reduce(dv, v.shape[1]), delta


@pytest.mark.parametrize("heads_per_chunk", [None, 1, 3])
@pytest.mark.parametrize("dtype", [torch.float32, torch.bfloat16], ids=["f32", "bf16"])
@pytest.mark.parametrize("c", KEY_CHUNK_CASES, ids=[c["name"] for c in KEY_CHUNK_CASES])
def test_one_chunk_per_head_is_bitwise_unchanged(c, dtype, heads_per_chunk, monkeypatch):
    (q, k, v, do), attrs = _case_tensors(c, dtype)
    S_q, S_kv = c["S_q"], c["S_kv"]
    if heads_per_chunk is not None:  # head chunking, still no key chunking
        monkeypatch.setattr(oracle, "_CHUNK_ELEMENTS", heads_per_chunk * S_q * S_kv)
    assert oracle._key_chunks(S_q, S_kv, c["D_qk"], c["D_v"]) == [slice(0, S_kv)]
    frozen = dict(attrs, scale=oracle._scale(attrs["scale"], c["D_qk"]))
    for cd in (torch.float64, dtype):
        o, stats = oracle.forward(q, k, v, compute_dtype=cd, **attrs)
        want_o, want_stats = _frozen_forward(q, k, v, compute_dtype=cd, **frozen)
        assert torch.equal(o, want_o) and torch.equal(stats, want_stats)
        got = oracle.backward(q, k, v, o.to(dtype), do, stats, compute_dtype=cd, **attrs)
        want = _frozen_backward(q, k, v, o.to(dtype), do, stats, compute_dtype=cd, magnitude=False, **frozen)
        for x, y in zip(got, want):
            assert x.dtype == y.dtype == cd and torch.equal(x, y)
    mags = oracle.gradient_magnitudes(q, k, v, o.to(dtype), do, stats, **attrs)
    want = _frozen_backward(q, k, v, o.to(dtype), do, stats, compute_dtype=torch.float64, magnitude=True, **frozen)
    assert {n: mags[n] for n in ("dq", "dk", "dv", "delta")} == \
        {name: float(t.max()) for name, t in zip(("dq", "dk", "dv", "delta"), want)}
    assert mags["exponent"] == pytest.approx(_exponent_magnitude(q, k, stats, **frozen), rel=1e-12)


def _exponent_magnitude(q, k, stats, *, scale, left_bound, right_bound, alignment):
    """max over kept entries of |scale| sum_d |q_d k_d| + |stats|, in one piece (no chunks)."""
    B, H_q, S_q, _ = q.shape
    kk = k.double().abs().repeat_interleave(H_q // k.shape[1], dim=1)
    lse = stats.reshape(B, H_q, S_q).double()
    terms = (q.double().abs() @ kk.transpose(-1, -2)) * abs(scale) + lse.masked_fill(~lse.isfinite(), 0).abs()[..., None]
    keep = oracle._band_keep(S_q, k.shape[2], left_bound, right_bound, alignment, q.device, slice(0, k.shape[2]))
    keep = keep & lse.isfinite()[..., None]
    return float(terms.masked_fill(~keep, 0.0).max()) if terms.numel() else 0.0
