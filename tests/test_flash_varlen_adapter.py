"""``torch-flash-varlen`` (issue 53) on the CPU: what the adapter converts, checked without the GPU.

FlashAttention's operators run on CUDA only; what the adapter itself decides (the window a band becomes, the
caller's stats written into and read from the backend's form) is plain tensor work, and is checked here against the
problem model's own rules. The GPU run of the varlen level checks the rest.
"""

import torch
from hypothesis import given, settings
from hypothesis import strategies as st

from sdpa_bwd.backends.torch_flash_varlen import TorchFlashVarlenEngine
from sdpa_bwd.problem.ragged import cumulative, make_ragged_problem

lengths = st.lists(st.integers(0, 9), min_size=1, max_size=4)


def _flash_keeps(left: int, right: int, shift: int, i: int, j: int) -> bool:
    """FlashAttention's window rule: query i keeps key j within [i + shift - left, i + shift + right], a negative
    size an open side (shift = S_kv - S_q: the bottom-right alignment)."""
    return (left < 0 or j >= i + shift - left) and (right < 0 or j <= i + shift + right)


@settings(max_examples=60, deadline=None)
@given(lq=lengths, lkv=lengths, left=st.one_of(st.none(), st.integers(-2, 6)),
       right=st.one_of(st.none(), st.integers(-2, 6)), bottom_right=st.booleans())
def test_a_band_becomes_the_window_that_keeps_the_same_keys_or_is_declined(lq, lkv, left, right, bottom_right):
    lkv = (lkv * len(lq))[:len(lq)]
    problem = make_ragged_problem(lq, lkv, H_q=1, D_qk=16, dtype="float16", left_bound=left, right_bound=right,
                                  alignment="bottom_right" if bottom_right else "top_left")
    windows = TorchFlashVarlenEngine._windows(problem)
    if windows is None:
        return  # declined (ragged_not_supported_reasons says why)
    for b, (n_q, n_kv) in enumerate(zip(lq, lkv)):
        for i in range(n_q):
            lo, hi = problem.key_range(b, i)
            for j in range(n_kv):
                assert _flash_keeps(*windows, n_kv - n_q, i, j) == (lo <= j < hi), (b, i, j, windows)


@settings(max_examples=40, deadline=None)
@given(lq=lengths.filter(lambda x: sum(x) > 0), form=st.sampled_from(["h_t", "t_h", "padded"]),
       packed=st.booleans())
def test_the_callers_stats_reach_the_backends_form_and_come_back(lq, form, packed):
    problem = make_ragged_problem(lq, H_q=2, D_qk=16, dtype="float16", stats_form=form)
    engine = TorchFlashVarlenEngine()
    gen = torch.Generator().manual_seed(sum(lq))
    ours = torch.randn(problem.stats_dims(), generator=gen)
    ours.view(-1)[::3] = float("-inf")  # rows that keep no key: the backend's own value stays there
    T, B, S = problem.T_q, problem.B, max(lq)
    theirs = torch.full((2, T) if packed else (B, 2, S), 7.0)
    engine._write_stats(problem, ours, theirs)
    starts = cumulative(lq)
    for b, rows in engine._ours_by_sequence(problem, ours):
        got = theirs[:, starts[b]:starts[b + 1]] if packed else theirs[b, :, :lq[b]]
        assert torch.equal(got, torch.where(torch.isneginf(rows), torch.full_like(rows, 7.0), rows))
    back = torch.zeros_like(ours)
    engine._read_stats(problem, theirs, back)
    for (_, mine), (_, rows) in zip(engine._ours_by_sequence(problem, back), engine._ours_by_sequence(problem, ours)):
        assert torch.equal(mine, torch.where(torch.isneginf(rows), torch.full_like(rows, 7.0), rows))


def test_a_row_that_keeps_no_key_reads_flashattentions_plus_inf_as_our_minus_inf_and_no_other_row():
    """Bottom-right causal, 5 queries on 2 keys: rows 0-2 keep no key. +inf there becomes -inf; +inf on a row that
    keeps a key stays, for the judge to see."""
    problem = make_ragged_problem([5, 3], [2, 3], H_q=1, D_qk=16, dtype="float16", causal=True,
                                  alignment="bottom_right")
    engine = TorchFlashVarlenEngine()
    theirs = torch.tensor([[float("inf")] * 4 + [1.0, 2.0, float("inf"), 3.0]])  # packed (H, T)
    ours = torch.zeros(problem.stats_dims())
    engine._read_stats(problem, theirs, ours)
    assert ours.tolist() == [[float("-inf")] * 3 + [float("inf"), 1.0, 2.0, float("inf"), 3.0]]
