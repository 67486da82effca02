"""``torch-flash-cpu-op``: PyTorch's CPU flash backward operator fed the caller's O and stats (issue 56), on the CPU."""

import pytest
import torch

from sdpa_bwd.backends import get_engine
from sdpa_bwd.conformance.plan import load_level
from sdpa_bwd.conformance.runner import run_case
from sdpa_bwd.conformance.tensors import materialize

# quick-level cases whose O or stats are not packed BHSD: the axes only an operator-level adapter lets reach the
# backend (2026-12-06, torch 2.13: each passed)
STRIDED_FORWARD = ("reg-stats-batch-head-strides-swapped", "reg-stats-strides-honoured-bsh-seq-stride-2",
                   "reg-stats-strides-honoured-head-stride-padded", "reg-stale-state-between-cases-o-2-bshd",
                   "reg-side-buffer-base-from-batch-stride-do-sbhd-only", "pair-014")


@pytest.mark.parametrize("case_id", STRIDED_FORWARD)
def test_the_operator_takes_the_callers_o_and_stats_in_their_layouts(case_id):
    case = next(c for c in load_level("quick") if c.id == case_id)
    result = run_case(get_engine("torch-flash-cpu-op"), case)
    assert result.verdict == "passed", result.message


def test_its_gradients_follow_the_callers_o_not_a_forward_of_its_own():
    """Scaling one query row of the caller's O changes delta = rowsum(dO * O) for that row: the adapter's dQ for
    the row must change, and no other row's."""
    case = next(c for c in load_level("quick") if c.id == "reg-stats-batch-head-strides-swapped")
    problem = case.to_problem()
    engine = get_engine("torch-flash-cpu-op")
    m = materialize(problem, seed=case.seed)
    t = m.tensors
    engine.backward(problem, t)
    before = t.dq.clone()
    t.o[0, 0, 3] *= 1.5
    engine.backward(problem, t)
    changed = (t.dq != before).any(dim=-1)
    assert changed[0, 0, 3] and changed.sum() == 1


def test_it_declines_what_pytorchs_cpu_choice_gives_another_kernel_and_says_which():
    from sdpa_bwd.problem import make_problem

    engine = get_engine("torch-flash-cpu-op")
    assert any("D_qk = 32 != D_v = 16" in r for r in engine.not_supported_reasons(
        make_problem(B=1, H_q=2, S_q=8, D_qk=32, D_v=16, dtype="float32")))
    assert engine.not_supported_reasons(make_problem(B=1, H_q=2, S_q=8, D_qk=16, dtype="float32")) == []
