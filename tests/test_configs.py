"""The launch's config table (the 192/128 configs measured on the H200 are for 16-bit dtypes only), and its
switches."""

import dataclasses

import torch

from sdpa_bwd.engine import launch


def test_fp32_192_128_keeps_the_hd256_configs_that_fit_shared_memory():
    # Device run 2026-12-01: the 16-bit 192/128 tiles asked for 272-320 KiB of shared memory in fp32
    # (the H200 has 227 KiB) on plan cases pair-025 and pair-070.
    for det in (False, True):
        assert launch.backward_config(256, 128, torch.float32, "cuda", det) == \
            launch.backward_config(256, 256, torch.float32, "cuda", det)
    assert launch.forward_config(256, 128, torch.float32, "cuda") == launch.forward_config(256, 256, torch.float32, "cuda")


def test_bf16_192_128_has_its_measured_configs():
    cfg = launch.backward_config(256, 128, torch.bfloat16, "cuda", False)
    assert (cfg.block_m1, cfg.block_n1, cfg.num_warps, cfg.num_stages) == (32, 64, 4, 3)
    assert (cfg.block_m2, cfg.block_n2, cfg.dq_num_warps, cfg.dq_num_stages) == (64, 32, 4, 3)
    assert launch.forward_config(256, 128, torch.float16, "cuda") == launch.ForwardConfig(128, 64, 8, 3, head_group=4)


# Head dims whose 16-bit configs run on tensor cores.
_TENSOR_CORE_DIMS = [(16, 16), (32, 32), (64, 64), (128, 128), (64, 128), (256, 128), (256, 256), (128, 256)]


def _mma_rows(cfg):
    """(rows of each pass's MMA results, warps of that pass): DKDV's are key rows, DQ's and the forward's query rows."""
    if isinstance(cfg, launch.ForwardConfig):
        return [(cfg.block_m, cfg.num_warps)]
    return [(cfg.block_n1, cfg.num_warps), (cfg.block_m2, cfg.dq_num_warps or cfg.num_warps)]


def test_16bit_configs_give_every_warpgroup_its_own_rows():
    """A Hopper MMA covers 64 rows a warpgroup (16 a warp). With fewer rows than 16 x warps Triton 3.6 lays
    the result over every warp anyway and each warpgroup computes the same rows: the 192/128 DKDV at 64 keys
    on 8 warps did S^T and dP^T twice (156 HGMMA against 96 at 128 keys, local sm_90a compile) and ran at
    half the hd128 pass's rate until that was found (2026-12-01, H200)."""
    for dtype in (torch.bfloat16, torch.float16):
        for d_qk, d_v in _TENSOR_CORE_DIMS:
            cfgs = [launch.forward_config(d_qk, d_v, dtype, "cuda")] + \
                [launch.backward_config(d_qk, d_v, dtype, "cuda", det, causal) for det in (False, True)
                 for causal in (False, True)]
            for cfg in cfgs:
                for rows, warps in _mma_rows(cfg):
                    assert rows >= 16 * warps, (
                        f"{dtype} D {d_qk}/{d_v}: {cfg} puts {rows}-row MMA results on {warps} warps; each "
                        f"warpgroup would compute the same rows: give it >= {16 * warps} rows or {rows // 16} warps")


def test_hd256_backward_has_its_measured_split_config():
    # ab_perf --table s9, s10 (2026-12-01, H200, docs/data/h200-2026-12-01h): the DKDV pass split into a dK and a dV
    # pass on one warpgroup each, and the dQ pass 128/32 on 8 warps, 2.4-2.8x faster than 8 warps over 64 keys; the
    # forward 128/64 on 8 warps. fp32 keeps the 8-warp config.
    for d_qk, d_v in ((256, 256), (128, 256)):
        cfg = launch.backward_config(d_qk, d_v, torch.bfloat16, "cuda", False)
        assert cfg == launch.BackwardConfig(32, 64, 128, 32, 4, 3, "separate", dq_num_warps=8, dq_num_stages=3,
                                            split_dkdv=True)
        for causal in (False, True):
            assert launch.forward_config(d_qk, d_v, torch.bfloat16, "cuda", causal) == \
                launch.ForwardConfig(128, 64, 8, 2, fused_softmax=True)
    fp32 = launch.backward_config(256, 256, torch.float32, "cuda", False)
    assert not fp32.split_dkdv and fp32.num_warps == 8


def test_fp32_forward_uses_the_small_tiles_at_every_head_dim():
    """fp32 dots are FMA loops: the 16-bit forward tiles only cost compile time (13 s a kernel at hd128)
    and shared memory (229,888 of 232,448 B); every fp32 head dim gets 64/32 on 2 stages, the
    config fp32 hd256 ran the plan with (16-bit hd256 moved to 128/64 on 8 warps, 2026-12-01), on 8 warps so that
    ptxas compiles half the unrolled FMAs a thread (hd256 20.8 -> 7.9 s, 2026-12-06)."""
    small = launch.forward_config(256, 256, torch.float32, "cuda")
    assert small == launch.ForwardConfig(64, 32, 8, 2)
    for d in (16, 32, 64, 128):
        assert launch.forward_config(d, d, torch.float32, "cuda") == small
    assert launch.forward_config(128, 128, torch.bfloat16, "cuda") == launch.ForwardConfig(128, 128, 8, 3, head_group=4)
    for causal in (False, True):
        assert not launch.forward_config(128, 128, torch.float32, "cuda", causal).fused_softmax


def test_fused_softmax_is_in_the_16bit_table_where_it_won_twice():
    """ab_perf --table s12, s13 (2026-12-01, H200): the fused softmax 2-6% faster at hd64 (either mask), hd128 causal
    and hd256; 1-4% slower at hd128 non-causal, even at 192/128. fp32 was not measured and keeps the plain one."""
    FC = launch.ForwardConfig
    for dtype in (torch.bfloat16, torch.float16):
        for causal in (False, True):
            assert launch.forward_config(64, 64, dtype, "cuda", causal) == FC(128, 64, 4, 3, head_group=16,
                                                                                fused_softmax=True)
            assert launch.forward_config(256, 128, dtype, "cuda", causal) == FC(128, 64, 8, 3, head_group=4)
            assert launch.forward_config(256, 256, dtype, "cuda", causal).fused_softmax
        assert launch.forward_config(128, 128, dtype, "cuda", True) == FC(128, 128, 8, 3, head_group=4,
                                                                            fused_softmax=True)
        assert not launch.forward_config(128, 128, dtype, "cuda", False).fused_softmax


def test_forward_takes_the_causal_entry_only_for_a_causal_mask(monkeypatch):
    """The launcher asks the table for its causal entry for right_bound 0 with no left bound (either alignment)
    and for the plain entry under any other mask, as the backward does."""
    seen = []
    table = launch.forward_config

    def spy(*args, **kwargs):
        seen.append(args[4] if len(args) > 4 else kwargs.get("causal", False))
        return table(*args, **kwargs)

    monkeypatch.setattr(launch, "forward_config", spy)
    q = torch.randn(1, 1, 8, 16)
    for bounds, causal in ((dict(right_bound=0), True), (dict(right_bound=0, alignment="bottom_right"), True),
                           (dict(), False), (dict(right_bound=1), False), (dict(left_bound=2, right_bound=0), False),
                           (dict(left_bound=3), False)):
        seen.clear()
        launch.attention_forward(q, q, q, **bounds)
        assert seen == [causal], f"{bounds}: the table was asked for causal={seen}, expected {causal}"


def test_switches_put_every_switch_back_and_reject_unknown_names():
    before = (launch.HEAD_GROUP, launch.DV_AFTER_DP, launch.GLUON_PDL)
    try:
        with launch.switches(head_group=5, dv_after_dp=True, gluon_pdl=not before[2]):
            assert (launch.HEAD_GROUP, launch.DV_AFTER_DP, launch.GLUON_PDL) == (5, True, not before[2])
            raise RuntimeError("inside the block")
    except RuntimeError:
        pass
    assert (launch.HEAD_GROUP, launch.DV_AFTER_DP, launch.GLUON_PDL) == before
    with launch.switches(dv_after_dp=False):
        assert launch.HEAD_GROUP == before[0] and launch.DV_AFTER_DP is False
    for bad in (dict(head_grup=4), dict(head_group=0), dict(gluon_bwd_hd64_rows=96)):
        try:
            with launch.switches(**bad):
                raise AssertionError(f"{bad} entered the block")
        except ValueError:
            pass
        assert (launch.HEAD_GROUP, launch.DV_AFTER_DP, launch.GLUON_PDL) == before


def test_hd128_causal_has_its_measured_config():
    """ab_perf --table s16 (2026-12-01, H200, docs/data/h200-2026-12-01k/run54): the two passes as one launch are 0-7%
    faster on the causal hd128 shapes and even or 1-3% slower non-causal, so only the causal 16-bit entry has it (the
    general entry's tiles otherwise); a window or other right bound keeps the general entry (not measured apart)."""
    for dtype in (torch.bfloat16, torch.float16):
        causal = launch.backward_config(128, 128, dtype, "cuda", False, True)
        general = launch.backward_config(128, 128, dtype, "cuda", False, False)
        assert causal == dataclasses.replace(general, fused_dq=True)
        assert not general.fused_dq
        assert (general.block_m1, general.block_n1, general.num_warps) == (64, 128, 8)
        det = launch.backward_config(128, 128, dtype, "cuda", True, True)
        assert det.dq_mode == "separate" and det.fused_dq
    assert launch.backward_config(128, 128, torch.float32, "cuda", False, True) == \
        launch.backward_config(128, 128, torch.float32, "cuda", False, False)
    for d in (64, 256):
        assert launch.backward_config(d, d, torch.bfloat16, "cuda", False, True) == \
            launch.backward_config(d, d, torch.bfloat16, "cuda", False, False)


def test_the_launch_picks_the_causal_entry_only_for_right_bound_zero(monkeypatch):
    seen = []
    real = launch.backward_config
    monkeypatch.setattr(launch, "backward_config", lambda *a, **k: seen.append(a[5:]) or real(*a, **k))
    q = torch.randn(1, 1, 8, 16)
    o, st = launch.attention_forward(q, q, q)
    for lb, rb, alignment in ((None, 0, "top_left"), (None, 0, "bottom_right"), (None, 3, "top_left"),
                              (4, 0, "top_left"), (None, None, "top_left")):
        launch.attention_backward(q, q, q, o, q, st, left_bound=lb, right_bound=rb, alignment=alignment)
    assert seen == [(True,), (True,), (False,), (False,), (False,)], seen


def test_with_dq_mode_fits_the_atomic_form_of_a_split_config():
    """The atomic mode stages a dQ partial tile in the DKDV pass: the hd256 split config on 3 stages then
    asked for 234,496 B of shared memory (232,448 on the H200; GPU test, 2026-12-01)."""
    import pytest

    split = launch.backward_config(256, 256, torch.bfloat16, "cuda", False)
    atomic = launch.with_dq_mode(split, "atomic")
    assert (atomic.dq_mode, atomic.num_stages, atomic.split_dkdv) == ("atomic", 2, True)
    assert launch.with_dq_mode(atomic, "separate").dq_mode == "separate"
    hd128 = launch.backward_config(128, 128, torch.bfloat16, "cuda", False)
    assert launch.with_dq_mode(hd128, "atomic") == launch.BackwardConfig(
        **{**hd128.__dict__, "dq_mode": "atomic"}), "configs that are not split keep their stages"
    with pytest.raises(ValueError, match="dq_mode"):
        launch.with_dq_mode(hd128, "fused")
