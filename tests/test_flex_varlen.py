"""The FlexAttention adapter's packed-sequence path on the CPU: its document mask against the oracle's per-sequence
masks, and its forward (FlexAttention's eager forward runs on the CPU; its backward does not, so the varlen level
runs this adapter on CUDA only) against the float64 ragged oracle."""

from __future__ import annotations

import pytest
import torch
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from sdpa_bwd.backends.torch_flex import TorchFlexEngine, _one_batch, document_mask_mod
from sdpa_bwd.problem import oracle, ragged_oracle
from sdpa_bwd.problem.ragged import make_ragged_problem

lengths = st.lists(st.integers(0, 9), min_size=1, max_size=4)
bounds = st.sampled_from([(None, None), (None, 0), (3, 0), (2, 1), (None, 2), (4, None)])


def _oracle_mask(problem) -> torch.Tensor:
    """(T_q, T_kv) bool: block-diagonal, each sequence's block the oracle's band mask."""
    keep = torch.zeros(problem.T_q, problem.T_kv, dtype=torch.bool)
    for b in range(problem.B):
        rows, keys = problem.tokens(b)
        keep[rows, keys] = oracle.band_mask(rows.stop - rows.start, keys.stop - keys.start, problem.left_bound,
                                            problem.right_bound, problem.alignment)
    return keep


@settings(max_examples=60, deadline=None)
@given(lengths, st.data(), bounds, st.sampled_from(["top_left", "bottom_right"]))
def test_the_document_mask_is_the_oracles_mask_of_each_sequence(seqlens_q, data, band, alignment):
    seqlens_kv = data.draw(st.lists(st.integers(0, 9), min_size=len(seqlens_q), max_size=len(seqlens_q)))
    problem = make_ragged_problem(seqlens_q, seqlens_kv, H_q=1, D_qk=8, left_bound=band[0], right_bound=band[1],
                                  alignment=alignment)
    mask_mod = document_mask_mod(problem, "cpu")
    got = mask_mod(0, 0, torch.arange(problem.T_q)[:, None], torch.arange(problem.T_kv)[None, :])
    assert torch.equal(got.expand(problem.T_q, problem.T_kv), _oracle_mask(problem))


@settings(max_examples=12, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(st.integers(1, 40), min_size=1, max_size=3), bounds, st.sampled_from(["top_left", "bottom_right"]),
       st.sampled_from([(4, 4, 4), (4, 2, 2), (2, 1, 1)]))
def test_flex_forward_through_the_document_mask_matches_the_oracle(seqlens, band, alignment, heads):
    from torch.nn.attention.flex_attention import create_block_mask, flex_attention

    H_q, H_k, H_v = heads
    seqlens_kv = [max(1, n + 3 - 2 * i) for i, n in enumerate(seqlens)]
    problem = make_ragged_problem(seqlens, seqlens_kv, H_q=H_q, H_k=H_k, H_v=H_v, D_qk=16, dtype="float32",
                                  left_bound=band[0], right_bound=band[1], alignment=alignment)
    g = torch.Generator().manual_seed(sum(seqlens))
    q = torch.randn(problem.T_q, H_q, 16, generator=g)
    k, v = (torch.randn(problem.T_kv, h, 16, generator=g) for h in (H_k, H_v))
    block_mask = create_block_mask(document_mask_mod(problem, "cpu"), None, None, problem.T_q, problem.T_kv,
                                   device="cpu")
    out = flex_attention(_one_batch(q), _one_batch(k), _one_batch(v), block_mask=block_mask,
                         scale=problem.effective_scale, enable_gqa=H_k != H_q)
    want, _ = ragged_oracle.forward(q, k, v, problem)
    got = out[0].permute(1, 0, 2).double()
    assert torch.allclose(got, want, atol=2e-5), (got - want).abs().max()


def test_without_cuda_the_adapter_declines_packed_problems_and_says_where_to_run():
    if torch.cuda.is_available():
        pytest.skip("this machine has CUDA")
    problem = make_ragged_problem([3, 5], H_q=2, D_qk=16)
    reasons = TorchFlexEngine().ragged_not_supported_reasons(problem)
    assert any("CUDA only" in r and "GPU machine" in r for r in reasons), reasons


@pytest.mark.parametrize("cu_q, cu_kv, total, says", [
    ([0, 9, 4, 16], [0, 4, 9, 16], 16, "never decrease"),
    ([-2, 8, 14], [-2, 8, 14], 16, ">= 0"),
    ([0, 8, 20], [0, 8, 20], 16, "outside the tensors"),
    ([0, 8, 16], [0, 16], 16, "key sequences"),
    ([0], [0], 16, "B + 1 >= 2"),
])
def test_malformed_offsets_are_refused_by_the_masks_construction(cu_q, cu_kv, total, says):
    reasons = TorchFlexEngine().ragged_offset_reasons(cu_q, cu_kv, total)
    assert any(says in r for r in reasons), reasons
    assert not TorchFlexEngine().ragged_offset_reasons([0, 8, 16], [0, 5, 16], 16)
