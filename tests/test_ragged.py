"""The ragged (packed variable-length) problem model and its float64 oracle.

The model: every malformed problem or cumulative-offset array is refused with the rule it broke;
cumulative offsets round-trip. The oracle: equal-length sequences agree with the dense oracle on the
(B, H, S, D) problem; per-sequence bands, S_q != S_kv and zero-length sequences agree with the dense
oracle run per sequence and with torch.autograd through an explicit masked softmax over the whole
packed token axis; the three stats forms hold the same values; and a sequence's gradients are
bit-identical whatever the other sequences hold (the property a kernel that indexes its side buffers
with the offset's base left in breaks).
"""

import math

import pytest
import torch
from hypothesis import given, settings
from hypothesis import strategies as st

from sdpa_bwd.problem import (STATS_FORMS, RaggedProblem, TensorSpec, from_cu_seqlens, make_ragged_problem,
                              oracle, packed_strides, ragged_problem_of)
from sdpa_bwd.problem import ragged_oracle
from sdpa_bwd.problem.ragged import INT32_MAX, lengths_of

F64 = torch.float64


def offsets(lengths):
    """Cumulative offsets from 0, computed here rather than by the model under test."""
    out = [0]
    for n in lengths:
        out.append(out[-1] + n)
    return out


def inputs(problem, seed=0):
    """Random float64 Q, K, V and dO with the problem's dims."""
    g = torch.Generator().manual_seed(seed)
    return [torch.randn(problem.tensor(n).dims, generator=g, dtype=F64) for n in ("q", "k", "v", "do")]


def run(problem, q, k, v, do):
    o, stats = ragged_oracle.forward(q, k, v, problem)
    return (o, stats) + ragged_oracle.backward(q, k, v, o, do, stats, problem)


def small_problem(**kw):
    base = dict(H_q=4, H_k=2, H_v=1, D_qk=3, D_v=2, dtype="float32")
    base.update(kw)
    lengths = base.pop("lengths", ([3, 1, 4], [5, 2, 2]))
    return make_ragged_problem(*lengths, **base)


# ---------------------------------------------------------------------------
# Validation: each malformed input is refused with the rule it broke.
# ---------------------------------------------------------------------------

def _with_spec(name, dims=None, strides=None, **fields):
    """A small valid problem with tensor ``name`` changed."""
    p = small_problem()
    spec = p.tensor(name)
    dims = spec.dims if dims is None else dims
    strides = strides if strides is not None else packed_strides(dims)
    changed = TensorSpec(dims, strides, fields.pop("dtype", spec.dtype), fields.pop("offset", spec.offset),
                         fields.pop("buffer", spec.buffer))
    return p.with_(**{name: changed})


MALFORMED = {
    "no sequences": (lambda: small_problem(lengths=([], [])), "no sequences"),
    "negative length": (lambda: small_problem(lengths=([2, -1], [1, 1])), r"seqlens_q\[1\] = -1.*>= 0"),
    "negative key length": (lambda: small_problem(lengths=([2, 1], [-2, 1])), r"seqlens_kv\[0\] = -2"),
    "non-integer length": (lambda: small_problem().with_(seqlens_q=(1.5, 2)), "must be an integer"),
    "different B": (lambda: small_problem(lengths=([2, 1], [1, 1, 1])), "2 sequences but seqlens_kv has 3"),
    "negative token offset": (lambda: small_problem(token_offset_q=-1), "token_offset_q = -1"),
    "offset beyond int32": (lambda: small_problem(token_offset_kv=INT32_MAX), "exceeds int32"),
    "H_k does not divide H_q": (lambda: small_problem(H_q=3, H_k=2, H_v=1), "2 heads do not divide H_q = 3"),
    "H_v does not divide H_q": (lambda: small_problem(H_q=4, H_k=2, H_v=3), "v: 3 heads do not divide"),
    "q tokens differ from the lengths": (lambda: _with_spec("q", dims=(9, 4, 3)),
                                         "q: 9 tokens but the sequence lengths sum to 8"),
    "k tokens differ from the lengths": (lambda: _with_spec("k", dims=(8, 2, 3)),
                                         "k: 8 tokens but the sequence lengths sum to 9"),
    "o head dim": (lambda: _with_spec("o", dims=(8, 4, 3)), "O must be"),
    "rank 4 q": (lambda: _with_spec("q", dims=(1, 8, 4, 3)), "rank 4"),
    "stats dims for the form": (lambda: small_problem(stats_form="t_h").with_(stats=small_problem().stats),
                                "stats_form 't_h' needs"),
    "unknown stats form": (lambda: small_problem().with_(stats_form="bht"), "stats_form = 'bht'"),
    "dtype differs": (lambda: _with_spec("dv", dtype="float16"), "dv: dtype 'float16' differs"),
    "stats dtype": (lambda: _with_spec("stats", dtype="float16"), "logsumexp is float32"),
    "negative stride": (lambda: _with_spec("k", strides=(6, -3, 1)), "strides must be >= 0"),
    "overlapping output": (lambda: _with_spec("dk", strides=(0, 3, 1)), "dk: .* the same element"),
    "output shares an input's memory": (
        lambda: _with_spec("dq", buffer="x").with_(q=_with_spec("q", buffer="x").q), "dq: shares memory with q"),
    "outputs share memory": (
        lambda: _with_spec("dv", buffer="x", offset=4).with_(dk=_with_spec("dk", buffer="x").dk),
        "dk: shares memory with dv"),
    "left_bound 0": (lambda: small_problem(left_bound=0), "left_bound = 0: must be >= 1"),
    "alignment": (lambda: small_problem(alignment="center"), "alignment = 'center'"),
    "scale": (lambda: small_problem(scale=math.inf), "scale = inf"),
}


@pytest.mark.parametrize("case", sorted(MALFORMED))
def test_validation_names_the_rule(case):
    build, message = MALFORMED[case]
    with pytest.raises(ValueError, match=message):
        build().validate()


MALFORMED_OFFSETS = {
    "empty": (([], [0, 1]), {}, "0 entries but cumulative offsets have B \\+ 1 >= 2"),
    "one entry": (([0], [0]), {}, "1 entries"),
    "not at the base": (([1, 3], [0, 2]), dict(token_offset_q=0), r"cu_seqlens_q\[0\] = 1 but the token offset is 0"),
    "negative start": (([-1, 3], [0, 2]), {}, "must be >= 0"),
    "decreasing": (([0, 3, 2], [0, 1, 2]), {}, "entry 2 = 2 is below entry 1 = 3.*never decrease"),
    "decreasing keys": (([0, 1, 2], [0, 4, 1]), {}, "cu_seqlens_kv: entry 2 = 1 is below"),
    "not summing to T": (([0, 3], [0, 2]), dict(total_q=4), "cu_seqlens_q spans 3 tokens .* but total_q = 4"),
    "keys not summing to T": (([5, 8], [2, 4]), dict(total_kv=3), "cu_seqlens_kv spans 2 tokens"),
    "different B": (([0, 1, 2], [0, 2]), {}, "2 sequences\\) but cu_seqlens_kv has 2"),
    "beyond int32": (([0, 1], [0, INT32_MAX + 1]), {}, "exceeds int32"),
    "float entries": ((torch.tensor([0.0, 2.0]), [0, 2]), {}, "dtype torch.float32 but offsets"),
    "2-D offsets": ((torch.tensor([[0, 2]]), [0, 2]), {}, "shape \\(1, 2\\) but expected a 1-D"),
    "bool entry": (([0, True], [0, 2]), {}, "must be an integer"),
}


@pytest.mark.parametrize("case", sorted(MALFORMED_OFFSETS))
def test_from_cu_seqlens_rejects_malformed_offsets(case):
    (cu_q, cu_kv), extra, message = MALFORMED_OFFSETS[case]
    with pytest.raises(ValueError, match=message):
        from_cu_seqlens(cu_q, cu_kv, H_q=2, D_qk=4, dtype="float16", **extra)


def test_ragged_problem_of_a_view_into_a_larger_buffer():
    """Tokens 3..8 of a 10-token batch: offsets from 3, Q's spec offset 3 tokens in, same storage."""
    H, D = 2, 4
    full = {n: torch.zeros(10, H, D) for n in ("q", "k", "v", "o", "do", "dq", "dk", "dv")}
    view = {n: t[3:8] for n, t in full.items()}
    stats = torch.zeros(H, 5)
    p = ragged_problem_of(*(view[n] for n in ("q", "k", "v", "o", "do")), stats,
                          *(view[n] for n in ("dq", "dk", "dv")),
                          cu_seqlens_q=torch.tensor([3, 5, 8], dtype=torch.int32), cu_seqlens_kv=[3, 4, 8])
    assert (p.seqlens_q, p.seqlens_kv, p.token_offset_q, p.T_q) == ((2, 3), (1, 4), 3, 5)
    assert p.q.offset == 3 * H * D and p.cu_seqlens_q == (3, 5, 8)
    assert p.tokens(1) == (slice(2, 5), slice(1, 5))
    with pytest.raises(ValueError, match="dk: shares memory with q"):
        ragged_problem_of(view["q"], view["k"], view["v"], view["o"], view["do"], stats, view["dq"], full["q"][2:7],
                          view["dv"], cu_seqlens_q=[3, 5, 8], cu_seqlens_kv=[3, 4, 8])


@given(lq=st.lists(st.integers(0, 6), min_size=1, max_size=5), data=st.data())
@settings(max_examples=30, deadline=None)
def test_cu_seqlens_round_trip(lq, data):
    lk = data.draw(st.lists(st.integers(0, 6), min_size=len(lq), max_size=len(lq)))
    base_q, base_kv = data.draw(st.integers(0, 100)), data.draw(st.integers(0, 100))
    p = make_ragged_problem(lq, lk, H_q=2, D_qk=4, token_offset_q=base_q, token_offset_kv=base_kv).validate()
    assert p.cu_seqlens_q == tuple(base_q + c for c in offsets(lq))
    assert p.cu_seqlens_kv == tuple(base_kv + c for c in offsets(lk))
    assert (p.T_q, p.T_kv, p.max_seqlen_q, p.max_seqlen_kv) == (sum(lq), sum(lk), max(lq), max(lk))
    assert p.cu_seqlens_q[-1] - p.cu_seqlens_q[0] == p.T_q
    for as_array in (list, lambda c: torch.tensor(c, dtype=torch.int32)):
        back = from_cu_seqlens(as_array(p.cu_seqlens_q), as_array(p.cu_seqlens_kv), total_q=p.T_q, total_kv=p.T_kv,
                               H_q=2, D_qk=4)
        assert back == p
    assert lengths_of("cu", p.cu_seqlens_q) == (tuple(lq), base_q)


# ---------------------------------------------------------------------------
# The oracle against the dense oracle.
# ---------------------------------------------------------------------------

MASKS = {"none": {}, "causal-tl": dict(right_bound=0), "causal-br": dict(right_bound=0, alignment="bottom_right"),
         "band-br": dict(left_bound=2, right_bound=1, alignment="bottom_right")}


@pytest.mark.parametrize("mask", sorted(MASKS))
def test_equal_lengths_match_the_dense_oracle(mask):
    """B sequences of one (S_q, S_kv) are the dense (B, H, S, D) problem, GQA with H_k != H_v."""
    B, S_q, S_kv, H_q, H_k, H_v, D_qk, D_v = 3, 4, 6, 4, 2, 1, 3, 2
    attrs = dict(MASKS[mask], scale=0.7)
    g = torch.Generator().manual_seed(1)
    q, do = (torch.randn(B, H_q, S_q, d, generator=g, dtype=F64) for d in (D_qk, D_v))
    k = torch.randn(B, H_k, S_kv, D_qk, generator=g, dtype=F64)
    v = torch.randn(B, H_v, S_kv, D_v, generator=g, dtype=F64)
    o, stats = oracle.forward(q, k, v, **attrs)
    dq, dk, dv, _ = oracle.backward(q, k, v, o, do, stats, **attrs)

    def pack(t):  # (B, H, S, D) -> (B * S, H, D)
        return t.permute(0, 2, 1, 3).reshape(-1, t.shape[1], t.shape[3])

    p = make_ragged_problem([S_q] * B, [S_kv] * B, H_q=H_q, H_k=H_k, H_v=H_v, D_qk=D_qk, D_v=D_v,
                            stats_form="padded", **attrs).validate()
    ro, rstats, rdq, rdk, rdv = run(p, pack(q), pack(k), pack(v), pack(do))
    tight = dict(rtol=1e-13, atol=1e-13)
    torch.testing.assert_close(ro, pack(o), **tight)
    torch.testing.assert_close(rstats, stats, **tight)   # padded (B, H, max S_q) is the dense stats here
    for got, want in ((rdq, dq), (rdk, dk), (rdv, dv)):
        torch.testing.assert_close(got, pack(want), **tight)


def test_bottom_right_band_per_sequence_matches_the_dense_oracle_per_sequence():
    """Each sequence's band lines its own last query up with its own last key (S_q != S_kv, both ways)."""
    lq, lk = [3, 1, 5, 2], [5, 2, 2, 2]
    attrs = dict(left_bound=2, right_bound=0, alignment="bottom_right")
    p = small_problem(lengths=(lq, lk), stats_form="t_h", token_offset_q=7, token_offset_kv=11, **attrs).validate()
    q, k, v, do = inputs(p, seed=2)
    o, stats, dq, dk, dv = run(p, q, k, v, do)
    cq, ck = offsets(lq), offsets(lk)
    for b in range(len(lq)):
        rows, keys = slice(cq[b], cq[b + 1]), slice(ck[b], ck[b + 1])

        def dense(t, tokens):
            return t[tokens].permute(1, 0, 2).unsqueeze(0)

        o_b, lse_b = oracle.forward(dense(q, rows), dense(k, keys), dense(v, keys), **attrs)
        dq_b, dk_b, dv_b, _ = oracle.backward(dense(q, rows), dense(k, keys), dense(v, keys), o_b, dense(do, rows),
                                              lse_b, **attrs)
        assert torch.equal(dense(o, rows), o_b) and torch.equal(stats[rows].T, lse_b[0])
        assert torch.equal(dense(dq, rows), dq_b)
        assert torch.equal(dense(dk, keys), dk_b) and torch.equal(dense(dv, keys), dv_b)
    # Sequence 2 (S_q = 5 > S_kv = 2, bottom right): its first 3 rows keep no key.
    assert torch.isinf(stats[cq[2]:cq[2] + 3]).all() and (o[cq[2]:cq[2] + 3] == 0).all()


def test_zero_length_sequences():
    """S_q = 0: nothing, its keys get zero dK/dV; S_kv = 0: O = 0, stats = -inf, dQ = 0; both 0: nothing."""
    lq, lk = [0, 3, 2, 0, 2], [2, 0, 3, 0, 3]
    p = small_problem(lengths=(lq, lk), causal=True, alignment="bottom_right").validate()
    q, k, v, do = inputs(p, seed=3)
    o, stats, dq, dk, dv = run(p, q, k, v, do)
    assert (dk[0:2] == 0).all() and (dv[0:2] == 0).all()              # sequence 0's keys: no queries
    assert (o[0:3] == 0).all() and (dq[0:3] == 0).all()               # sequence 1's queries: no keys
    assert torch.isneginf(stats[:, 0:3]).all()
    assert torch.isfinite(stats[:, 3:]).all() and (dk[2:] != 0).any()  # the others still compute
    empty = make_ragged_problem([0], [0], H_q=2, D_qk=4, stats_form="padded").validate()
    o, stats, dq, dk, dv = run(empty, *inputs(empty))
    assert [tuple(t.shape) for t in (o, stats, dq, dk, dv)] == [(0, 2, 4), (1, 2, 0), (0, 2, 4), (0, 2, 4), (0, 2, 4)]


def test_three_stats_forms_hold_the_same_values():
    lq, lk = [3, 0, 4, 1], [2, 3, 4, 0]
    results = {}
    for form in STATS_FORMS:
        p = small_problem(lengths=(lq, lk), stats_form=form, right_bound=1).validate()
        q, k, v, do = inputs(p, seed=4)
        results[form] = run(p, q, k, v, do)
    h_t, t_h, padded = (results[f][1] for f in ("h_t", "t_h", "padded"))
    assert h_t.shape == (4, 8) and t_h.shape == (8, 4) and padded.shape == (4, 4, 4)
    assert torch.equal(h_t, t_h.T)
    cq = offsets(lq)
    for b, n in enumerate(lq):
        assert torch.equal(padded[b, :, :n], h_t[:, cq[b]:cq[b + 1]])
        assert torch.isnan(padded[b, :, n:]).all()   # no query row: poison, so a read of it shows
    for form in ("t_h", "padded"):                   # the backward reads each form to the same gradients
        for got, want in zip(results[form][2:], results["h_t"][2:]):
            assert torch.equal(got, want)


# ---------------------------------------------------------------------------
# Properties over random ragged problems.
# ---------------------------------------------------------------------------

@st.composite
def ragged_problems(draw):
    B = draw(st.integers(1, 3))
    lq = draw(st.lists(st.integers(0, 4), min_size=B, max_size=B))
    lk = draw(st.lists(st.integers(0, 4), min_size=B, max_size=B))
    H_k, H_v = draw(st.sampled_from([1, 2])), draw(st.sampled_from([1, 2]))
    H_q = 2 * draw(st.sampled_from([1, 2]))
    left = draw(st.one_of(st.none(), st.integers(1, 4)))
    right = draw(st.one_of(st.none(), st.integers(0, 3)))
    return make_ragged_problem(
        lq, lk, H_q=H_q, H_k=H_k, H_v=H_v, D_qk=draw(st.integers(1, 3)), D_v=draw(st.integers(1, 3)),
        dtype="float32", stats_form=draw(st.sampled_from(STATS_FORMS)), left_bound=left, right_bound=right,
        alignment=draw(st.sampled_from(["top_left", "bottom_right"])), scale=draw(st.sampled_from([None, 0.5])),
        token_offset_q=draw(st.integers(0, 5)), token_offset_kv=draw(st.integers(0, 5))).validate()


def packed_keep(p: RaggedProblem) -> torch.Tensor:
    """(T_q, T_kv): query token t keeps key token u iff same sequence and inside that sequence's band.

    Written from the band definition on local indices, not through the model's key_range.
    """
    keep = torch.zeros(p.T_q, p.T_kv, dtype=torch.bool)
    cq, ck = offsets(p.seqlens_q), offsets(p.seqlens_kv)
    for b in range(p.B):
        S_q, S_kv = p.seqlens_q[b], p.seqlens_kv[b]
        shift = S_kv - S_q if p.alignment == "bottom_right" else 0
        i = torch.arange(S_q)[:, None]
        j = torch.arange(S_kv)[None, :]
        local = torch.ones(S_q, S_kv, dtype=torch.bool)
        if p.left_bound is not None:
            local &= j - i >= 1 - p.left_bound + shift
        if p.right_bound is not None:
            local &= j - i <= p.right_bound + shift
        keep[cq[b]:cq[b + 1], ck[b]:ck[b + 1]] = local
    return keep


def autograd_reference(p, q, k, v, do):
    """O, logsumexp (H, T_q) and the gradients of a plain masked softmax over the whole packed batch."""
    q, k, v = (t.detach().clone().requires_grad_() for t in (q, k, v))
    ke = k.repeat_interleave(p.H_q // p.H_k, dim=1).transpose(0, 1)   # (H_q, T_kv, D)
    ve = v.repeat_interleave(p.H_q // p.H_v, dim=1).transpose(0, 1)
    keep = packed_keep(p)
    scores = (q.transpose(0, 1) @ ke.transpose(-1, -2)) * p.effective_scale
    scores = scores.masked_fill(~keep, -math.inf)
    has_key = keep.any(-1)[:, None]
    lse = torch.logsumexp(torch.where(has_key, scores, torch.zeros_like(scores)), dim=-1)
    lse = lse.masked_fill(~has_key[:, 0], -math.inf)
    probs = torch.softmax(torch.where(has_key, scores, torch.zeros_like(scores)), dim=-1) * keep
    o = (probs @ ve).transpose(0, 1)
    dq, dk, dv = torch.autograd.grad(o, (q, k, v), do) if o.numel() else (torch.zeros_like(q),) * 3
    return o.detach(), lse.detach(), keep, dq, dk, dv


@given(p=ragged_problems(), seed=st.integers(0, 2**16))
@settings(max_examples=30, deadline=None)
def test_oracle_matches_autograd_of_a_packed_masked_softmax(p, seed):
    q, k, v, do = inputs(p, seed)
    o, stats, dq, dk, dv = run(p, q, k, v, do)
    ro, rlse, keep, rdq, rdk, rdv = autograd_reference(p, q, k, v, do)
    close = dict(rtol=1e-10, atol=1e-12)
    torch.testing.assert_close(o, ro, **close)
    torch.testing.assert_close(ragged_oracle.stats_from_form(stats, p), rlse, **close)
    if p.T_q and p.T_kv:
        torch.testing.assert_close(dq, rdq, **close)
        torch.testing.assert_close(dk, rdk, **close)
        torch.testing.assert_close(dv, rdv, **close)
    assert p.kept_pairs() == int(keep.sum())


def _scramble_others(p, b, tensors, seed):
    """Copies of packed tensors with every token outside sequence b replaced by new random values."""
    g = torch.Generator().manual_seed(seed)
    rows, keys = p.tokens(b)
    out = []
    for name, t in tensors:
        mine = rows if name in ("q", "o", "do") else keys
        new = torch.randn(t.shape, generator=g, dtype=t.dtype) * 3
        new[mine] = t[mine]
        out.append(new)
    return out


@given(p=ragged_problems(), data=st.data())
@settings(max_examples=30, deadline=None)
def test_a_sequence_gradients_do_not_depend_on_other_sequences(p, data):
    """Change every other sequence's Q, K, V, O, dO and stats: sequence b's dQ, dK, dV stay bit-identical."""
    b = data.draw(st.integers(0, p.B - 1))
    q, k, v, do = inputs(p, data.draw(st.integers(0, 2**16)))
    o, stats = ragged_oracle.forward(q, k, v, p)
    lse = ragged_oracle.stats_from_form(stats, p)
    grads = ragged_oracle.backward(q, k, v, o, do, stats, p)
    q2, k2, v2, o2, do2 = _scramble_others(p, b, (("q", q), ("k", k), ("v", v), ("o", o), ("do", do)), seed=9)
    lse2 = _scramble_others(p, b, (("o", lse.T),), seed=10)[0].T
    grads2 = ragged_oracle.backward(q2, k2, v2, o2, do2, ragged_oracle.stats_to_form(lse2, p), p)
    rows, keys = p.tokens(b)
    for name, g1, g2 in zip(("dq", "dk", "dv"), grads, grads2):
        mine = rows if name == "dq" else keys
        assert torch.equal(g1[mine], g2[mine]), f"sequence {b}'s {name} changed with other sequences' inputs"


def _backward_with_absolute_stats_offsets(q, k, v, o, do, stats, p):
    """The side-buffer-base defect, modelled: row t's logsumexp read at ``t + token_offset_q`` of the
    packed (H, T) buffer (the kernel's cu_seqlens offset with its base left in), -inf past its end."""
    lse = ragged_oracle.stats_from_form(stats, p)
    base = p.token_offset_q
    shifted = torch.full_like(lse, -math.inf)
    shifted[:, : max(0, p.T_q - base)] = lse[:, base:]
    return ragged_oracle.backward(q, k, v, o, do, ragged_oracle.stats_to_form(shifted, p), p)


def test_the_independence_check_catches_the_side_buffer_base_defect():
    """The property test above fails for a backward that indexes stats with the offsets' base left in."""
    p = small_problem(lengths=([2, 3, 2], [2, 3, 2]), token_offset_q=2, token_offset_kv=2).validate()
    q, k, v, do = inputs(p, seed=5)
    o, stats = ragged_oracle.forward(q, k, v, p)
    rows, _ = p.tokens(0)
    dq = _backward_with_absolute_stats_offsets(q, k, v, o, do, stats, p)[0]
    lse2 = ragged_oracle.stats_from_form(stats, p).clone()
    lse2[:, 2:] += 1.0   # other sequences' stats only (sequence 0 owns tokens 0 and 1)
    dq2 = _backward_with_absolute_stats_offsets(q, k, v, o, do, ragged_oracle.stats_to_form(lse2, p), p)[0]
    assert not torch.equal(dq[rows], dq2[rows])
    right = ragged_oracle.backward(q, k, v, o, do, ragged_oracle.stats_to_form(lse2, p), p)[0]
    assert torch.equal(right[rows], ragged_oracle.backward(q, k, v, o, do, stats, p)[0][rows])


def test_oracle_refuses_tensors_the_problem_does_not_describe():
    p = small_problem(stats_form="padded").validate()
    q, k, v, do = inputs(p)
    with pytest.raises(ValueError, match=r"k: shape \(9, 2, 4\) but the problem's k has dims \(9, 2, 3\)"):
        ragged_oracle.forward(q, torch.zeros(9, 2, 4, dtype=F64), v, p)
    o, stats = ragged_oracle.forward(q, k, v, p)
    with pytest.raises(ValueError, match="stats: shape .*stats_form 'padded'"):
        ragged_oracle.backward(q, k, v, o, do, stats[:, :, :2], p)
