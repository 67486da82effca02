"""check_tensor judges in chunks (a 2^31-element gradient must not need seven float64 copies of
itself); a chunked judgement must equal the one-chunk judgement exactly, NaN, Inf and ties included."""

import math

import torch
from hypothesis import given, settings
from hypothesis import strategies as st

from sdpa_bwd.conformance.compare import check_tensor


@settings(max_examples=60, deadline=None)
@given(seed=st.integers(0, 2**31 - 1), shape=st.sampled_from([(3, 5), (2, 3, 7), (1, 1, 1), (4, 1, 6, 2)]),
       chunk=st.integers(1, 9), specials=st.integers(0, 4), strided=st.booleans())
def test_chunked_judgement_equals_the_one_chunk_judgement(seed, shape, chunk, specials, strided):
    g = torch.Generator().manual_seed(seed)
    want = torch.randn(shape, dtype=torch.float64, generator=g)
    got = (want + 1e-3 * torch.randn(shape, dtype=torch.float64, generator=g)).to(torch.bfloat16)
    ref = (want + 1e-3 * torch.randn(shape, dtype=torch.float64, generator=g)).to(torch.bfloat16)
    flat_got, flat_want = got.view(-1), want.view(-1)
    n = got.numel()
    for j in range(specials):      # NaN, matching and mismatching infinities, a tie for the worst error
        i = int(torch.randint(n, (1,), generator=g))
        kind = j % 4
        if kind == 0:
            flat_got[i] = math.nan
        elif kind == 1:
            flat_got[i] = flat_want[i] = math.inf
        elif kind == 2:
            flat_got[i] = -math.inf
        else:
            flat_got[i] = float(flat_want[i]) + 0.5
            flat_got[(i + 1) % n] = float(flat_want[(i + 1) % n]) + 0.5
    if strided:  # judged through a non-contiguous view, as the runner judges strided outputs
        big = torch.zeros(shape[:-1] + (2 * shape[-1],), dtype=got.dtype)
        big[..., ::2] = got
        got = big[..., ::2]
    kw = dict(dtype="bfloat16", k=2.0, floor_ulps=4.0, magnitude=0.5, reduction=16)
    one = check_tensor("x", got, want, ref, chunk=1 << 30, **kw)
    many = check_tensor("x", got, want, ref, chunk=chunk, **kw)
    for field in ("max_abs_err", "ref_err", "tolerance", "mismatches", "numel", "worst_index", "nan", "inf"):
        assert getattr(many, field) == getattr(one, field), field
    for field in ("worst_got", "worst_want"):
        a, b = getattr(many, field), getattr(one, field)
        assert a == b or (a != a and b != b), field
    assert many.rel_l2 == one.rel_l2 or math.isclose(many.rel_l2, one.rel_l2, rel_tol=1e-12)
    assert many.passed == one.passed


def test_a_wrong_element_in_the_last_chunk_is_found():
    want = torch.randn(1000, dtype=torch.float64)
    got = want.to(torch.bfloat16)
    got[997] += 1.0
    c = check_tensor("x", got, want, want.to(torch.bfloat16), "bfloat16", 2.0, 4.0, chunk=64)
    assert not c.passed and c.mismatches == 1 and c.worst_index == (997,)
