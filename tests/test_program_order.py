"""The order programs start in (kernels.attention_fwd.program_tile): every (tile, head) exactly once,
costliest tile first inside each group of heads, and the same gradients whatever the grouping (and
whichever of the DKDV pass's dV and dP products is issued first, launch.DV_AFTER_DP).

Runs the kernels under TRITON_INTERPRET=1 on the CPU (tests/conftest.py sets it).
"""

import os

import torch

if not torch.cuda.is_available():
    os.environ.setdefault("TRITON_INTERPRET", "1")

import pytest  # noqa: E402
import triton  # noqa: E402
import triton.language as tl  # noqa: E402
from hypothesis import given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402

from sdpa_bwd.engine import launch  # noqa: E402
from sdpa_bwd.problem import oracle  # noqa: E402
from sdpa_bwd.engine.kernels.attention_fwd import program_tile  # noqa: E402

DEVICE = "cuda" if torch.cuda.is_available() else "cpu"


@triton.jit
def _record_order(out_ptr, HEAD_GROUP: tl.constexpr, COSTLIEST_FIRST_IS_LAST: tl.constexpr):
    tile, head = program_tile(HEAD_GROUP, COSTLIEST_FIRST_IS_LAST)
    lin = tl.program_id(1) * tl.num_programs(0) + tl.program_id(0)
    tl.store(out_ptr + 2 * lin, tile)
    tl.store(out_ptr + 2 * lin + 1, head)


def start_order(tiles: int, heads: int, group: int, last_first: bool) -> list[tuple[int, int]]:
    """(tile, head) of each program, in the order the hardware starts them."""
    out = torch.full((tiles * heads * 2,), -1, dtype=torch.int32, device=DEVICE)
    _record_order[(tiles, heads)](out, HEAD_GROUP=group, COSTLIEST_FIRST_IS_LAST=last_first)
    pairs = out.view(-1, 2).tolist()
    return [(t, h) for t, h in pairs]


@settings(max_examples=40, deadline=None)
@given(tiles=st.integers(1, 9), heads=st.integers(1, 13), group=st.integers(1, 16), last_first=st.booleans())
def test_every_tile_of_every_head_starts_exactly_once(tiles, heads, group, last_first):
    order = start_order(tiles, heads, group, last_first)
    assert sorted(order) == [(t, h) for t in range(tiles) for h in range(heads)], (
        f"program_tile with {tiles} tiles x {heads} heads, HEAD_GROUP={group}: {order} is not a permutation of "
        "the grid - some (tile, head) would be computed twice and another never (unwritten gradient rows)")


@settings(max_examples=30, deadline=None)
@given(tiles=st.integers(1, 9), heads=st.integers(1, 13), group=st.integers(1, 16), last_first=st.booleans())
def test_groups_of_heads_start_costliest_tile_first(tiles, heads, group, last_first):
    order = start_order(tiles, heads, group, last_first)
    rank = [(tiles - 1 - t) if last_first else t for t, _ in order]   # 0 = the costliest tile
    for g0 in range(0, heads, group):
        members = [i for i, (_, h) in enumerate(order) if g0 <= h < g0 + group]
        # a group's programs are contiguous in start order, and their heads are its heads only
        assert members == list(range(members[0], members[0] + len(members))), (order, group)
        ranks = [rank[i] for i in members]
        assert ranks == sorted(ranks), (
            f"group of heads {g0}..{min(heads, g0 + group) - 1}: tile ranks {ranks} start out of cost order "
            f"(HEAD_GROUP={group}, COSTLIEST_FIRST_IS_LAST={last_first}); expected the costliest tiles first")


def test_head_group_one_is_the_plain_head_by_head_order():
    assert start_order(4, 3, 1, False) == [(t, h) for h in range(3) for t in range(4)]
    assert start_order(4, 3, 1, True) == [(3 - t, h) for h in range(3) for t in range(4)]


def test_set_head_group_rejects_nonsense():
    for bad in (0, -2, 1.5, "8"):
        with pytest.raises(ValueError, match="head group"):
            launch.set_head_group(bad)


# Bands whose tiles differ in cost both ways (right bound only, left bound only), GQA with H_k != H_v
# (two DKDV passes over different owner heads), and a head count no group size divides.
BANDS = [dict(right_bound=0), dict(left_bound=4), dict(left_bound=3, right_bound=2, alignment="bottom_right"), {}]


@pytest.mark.parametrize("band", BANDS, ids=["causal", "left-only", "band-br", "none"])
def test_gradients_do_not_depend_on_the_start_order(band):
    gen = torch.Generator().manual_seed(7)
    B, H_q, H_k, H_v, S_q, S_kv, D = 1, 6, 3, 2, 37, 29, 16
    q, do = (torch.randn(B, H_q, S_q, D, generator=gen).to(DEVICE, torch.float16) for _ in range(2))
    k = torch.randn(B, H_k, S_kv, D, generator=gen).to(DEVICE, torch.float16)
    v = torch.randn(B, H_v, S_kv, D, generator=gen).to(DEVICE, torch.float16)
    runs = {}
    for group, late in ((1, False), (4, True), (8, False), (8, True)):
        with launch.switches(head_group=group, dv_after_dp=late):
            o, stats = launch.attention_forward(q, k, v, **band)
            grads = launch.attention_backward(q, k, v, o, do, stats, deterministic=True, **band)
        runs[group, late] = (o, stats) + tuple(grads)
    names = ("o", "stats", "dq", "dk", "dv")
    base = runs[1, False]
    for key, outs in runs.items():
        for name, a, b in zip(names, base, outs):
            assert torch.equal(a.nan_to_num(), b.nan_to_num()), (
                f"{name} with HEAD_GROUP, DV_AFTER_DP = {key} differs from the head-by-head order with dV before "
                f"dP (max diff {(a.double() - b.double()).abs().max().item():.3e}): a program's (tile, head) "
                "mapping, or the DKDV pass's products, differ")
    # and the order-independent result is the right one
    want = oracle.backward(q, k, v, base[0], do, base[1], **band)
    for name, got, ref in zip(("dq", "dk", "dv"), runs[8, True][2:], want[:3]):
        err = (got.double() - ref).abs().max().item()
        assert err < 0.05, f"{name}: max error {err:.3e} against the float64 oracle with HEAD_GROUP=8"
