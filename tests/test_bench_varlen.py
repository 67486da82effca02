"""The varlen benchmark's batches (``benchmarks/bench_varlen.py``: it runs on a GPU only; its lengths are drawn here)."""

import os
import sys

from hypothesis import given, settings
from hypothesis import strategies as st

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "benchmarks"))

import bench_varlen  # noqa: E402


@settings(max_examples=50, deadline=None)
@given(st.integers(1, 70000), st.integers(0, 2**31))
def test_lengths_fill_the_budget_exactly_within_bounds_and_repeat_with_the_seed(total, seed):
    lengths = bench_varlen.draw_lengths(total, seed)
    assert sum(lengths) == total
    assert all(1 <= n <= bench_varlen.LENGTH_MAX for n in lengths)
    assert all(n >= bench_varlen.LENGTH_MIN for n in lengths[:-1]), "only the last, cut to fit, may be shorter"
    assert lengths == bench_varlen.draw_lengths(total, seed)


def test_a_budget_of_16k_tokens_is_many_documents_of_mixed_lengths():
    lengths = bench_varlen.draw_lengths(16384, 16384)
    assert 10 <= len(lengths) <= 100 and len(set(lengths)) > len(lengths) // 2
