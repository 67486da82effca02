"""The Triton engine on a CUDA device at realistic sizes (S up to 8k, B and H above 1),
plus hypothesis-drawn random layouts. Same checks as tests/test_triton_kernels.py
(float64 oracle, same-dtype tolerance, poisoned inputs and outputs).

Run on the device machine: ``PYTHONPATH=src python -m pytest -m gpu tests/gpu/test_triton_gpu.py``.
"""

import os
import sys

import pytest
import torch

sys.path.insert(0, os.path.join(os.path.dirname(__file__), ".."))

from test_triton_kernels import BHSD, BSHD, SBHD, Case, Layout, patched_table, run_case  # noqa: E402

from sdpa_bwd.engine import launch  # noqa: E402

pytestmark = [pytest.mark.gpu,
              pytest.mark.skipif(not torch.cuda.is_available(), reason="needs a CUDA device")]

PAD = Layout("bshd", row_gap=64, offset=8)
ODD = Layout("bshd", row_gap=3, offset=1)  # rows not 16-byte aligned: the general path
DSTEP = Layout("sbhd", d_step=2)

GPU_CASES = [
    Case(B=2, H_q=4, H_k=4, H_v=4, S_q=1024, S_kv=1024, D_qk=128, D_v=128, dtype="bf16", seed=100),
    Case(B=2, H_q=4, H_k=4, H_v=4, S_q=1024, S_kv=1024, D_qk=128, D_v=128, dtype="fp16", right_bound=0,
         q=BSHD, k=BSHD, v=BSHD, o=BSHD, do=BSHD, dq=BSHD, dk=BSHD, dv=BSHD, seed=101),
    Case(B=2, H_q=4, H_k=2, H_v=2, S_q=1000, S_kv=1000, D_qk=64, D_v=64, dtype="bf16",
         q=SBHD, k=SBHD, v=SBHD, o=SBHD, do=SBHD, dq=SBHD, dk=SBHD, dv=SBHD, seed=102),
    Case(B=2, H_q=4, H_k=4, H_v=4, S_q=777, S_kv=1500, D_qk=128, D_v=128, dtype="bf16",
         q=PAD, k=ODD, v=DSTEP, o=SBHD, do=ODD, dq=PAD, dk=DSTEP, dv=ODD, stats=Layout("sbhd", row_gap=1),
         right_bound=0, alignment="bottom_right", seed=103),
    # GQA with H_k != H_v, D_qk != D_v, S_q != S_kv
    Case(B=2, H_q=8, H_k=2, H_v=4, S_q=1531, S_kv=2048, D_qk=192, D_v=128, dtype="bf16", right_bound=0,
         alignment="bottom_right", seed=104),
    Case(B=1, H_q=8, H_k=1, H_v=8, S_q=2048, S_kv=999, D_qk=96, D_v=96, dtype="fp16", seed=105),
    # long sequence, causal, B and H > 1
    Case(B=2, H_q=2, H_k=2, H_v=2, S_q=8192, S_kv=8192, D_qk=64, D_v=64, dtype="bf16", right_bound=0, seed=106),
    Case(B=1, H_q=4, H_k=2, H_v=2, S_q=4096, S_kv=4096, D_qk=128, D_v=128, dtype="bf16", left_bound=256,
         right_bound=0, q=BSHD, k=BSHD, v=BSHD, do=BSHD, seed=107),
    # head dims at the ends, windows, empty rows, negative scale, fp32
    Case(B=2, H_q=2, H_k=2, H_v=2, S_q=600, S_kv=700, D_qk=256, D_v=256, dtype="bf16", seed=108),
    Case(B=2, H_q=2, H_k=1, H_v=1, S_q=513, S_kv=300, D_qk=16, D_v=32, dtype="fp16", right_bound=0,
         alignment="bottom_right", scale=-0.4, seed=109),
    Case(B=2, H_q=3, H_k=3, H_v=1, S_q=700, S_kv=650, D_qk=64, D_v=40, dtype="fp32", left_bound=33,
         right_bound=17, seed=110),
    Case(B=2, H_q=4, H_k=4, H_v=4, S_q=333, S_kv=333, D_qk=128, D_v=128, dtype="bf16",
         q=Layout(broadcast="b"), k=Layout("bshd", broadcast="h"), v=Layout(broadcast="bh"), seed=111),
    Case(B=2, H_q=4, H_k=2, H_v=1, S_q=2048, S_kv=2048, D_qk=128, D_v=128, dtype="bf16", right_bound=0,
         deterministic=True, seed=112),
    # D_qk 192 as two chunks, 128 + 64 (launch.d_qk_chunks; GPU_CASES[4] is one too): descriptors of
    # block widths 128 and 64 (BSHD), pointers with a head-dim stride of 2 (the second chunk's columns
    # 128..191 times it), D_v 192, and the deterministic dQ pass
    Case(B=2, H_q=4, H_k=2, H_v=2, S_q=1000, S_kv=1000, D_qk=192, D_v=128, dtype="bf16", right_bound=0,
         q=BSHD, k=BSHD, v=BSHD, o=BSHD, do=BSHD, dq=BSHD, dk=BSHD, dv=BSHD, seed=113),
    Case(B=1, H_q=4, H_k=4, H_v=4, S_q=777, S_kv=900, D_qk=192, D_v=128, dtype="fp16",
         q=DSTEP, k=DSTEP, v=ODD, o=SBHD, do=PAD, dq=DSTEP, dk=DSTEP, dv=ODD, seed=114),
    Case(B=2, H_q=2, H_k=2, H_v=2, S_q=600, S_kv=650, D_qk=192, D_v=192, dtype="bf16", left_bound=100,
         right_bound=0, deterministic=True, seed=115),
]


@pytest.mark.parametrize("case", GPU_CASES, ids=[c.id() for c in GPU_CASES])
def test_gpu_case(case):
    run_case(case)


@pytest.mark.parametrize("case", [c for c in GPU_CASES if not c.deterministic],
                         ids=[c.id() for c in GPU_CASES if not c.deterministic])
def test_gpu_atomic_dq_case(case, monkeypatch):
    """Every case again with dQ added from the DKDV pass (the "atomic" mode), whose
    partials go by TMA bulk reduce into the packed fp32 accumulator on the GPU."""
    table = launch.backward_config

    def atomic(*args, **kwargs):
        return launch.with_dq_mode(table(*args, **kwargs), "atomic")

    monkeypatch.setattr(launch, "backward_config", atomic)
    run_case(case)


@pytest.mark.parametrize("case", [GPU_CASES[4], GPU_CASES[13], GPU_CASES[14]], ids=["gqa-192-128", "bshd", "dstep"])
def test_gpu_padded_192_still_correct(case, monkeypatch):
    """split_d_qk=False, the pad to 256 that tools/ab_perf.py's "padded" variants time against the split."""
    fwd = patched_table(monkeypatch, "forward_config", split_d_qk=False)
    bwd = patched_table(monkeypatch, "backward_config", split_d_qk=False)
    run_case(case)
    assert fwd and bwd, "the launcher did not take the patched tables"


_SPLIT_DKDV = [c for c in GPU_CASES if c.H_k == c.H_v and (c.D_qk >= 192 or c.seed in (100, 103, 106))]


@pytest.mark.parametrize("case", _SPLIT_DKDV, ids=[c.id() for c in _SPLIT_DKDV])
def test_gpu_split_dkdv_case(case, monkeypatch):
    """The DKDV pass as a dK pass and a dV pass although H_k == H_v (BackwardConfig.split_dkdv, the
    hd256 A/B candidate of ab_perf --table s9), on one warpgroup with the dQ pass on one too."""
    seen = patched_table(monkeypatch, "backward_config", split_dkdv=True, num_warps=4, dq_num_warps=4)
    run_case(case)
    assert seen, "the launcher did not take the patched table"


def _bf16_problem(seed, B, H_q, H_k, H_v, S, D_qk, D_v, right_bound):
    """Fresh random BHSD bf16 Q, K, V, dO on the GPU, and our forward's O and stats for them."""
    gen = torch.Generator().manual_seed(seed)
    q = torch.randn(B, H_q, S, D_qk, generator=gen).cuda().bfloat16()
    k = torch.randn(B, H_k, S, D_qk, generator=gen).cuda().bfloat16()
    v = torch.randn(B, H_v, S, D_v, generator=gen).cuda().bfloat16()
    do = torch.randn(B, H_q, S, D_v, generator=gen).cuda().bfloat16()
    o, st = launch.attention_forward(q, k, v, right_bound=right_bound)
    return q, k, v, do, o, st


_FUSED_BWD = [c for c in GPU_CASES if c.H_k == c.H_v]


@pytest.mark.parametrize("case", _FUSED_BWD, ids=[c.id() for c in _FUSED_BWD])
def test_gpu_fused_backward_case(case, monkeypatch):
    """The DKDV and dQ passes as one launch (BackwardConfig.fused_dq, ab_perf --table s16's candidate) on every
    GPU case with H_k == H_v, each head dim's table tiles, the dQ pass on the DKDV pass's warps and stages;
    hd256's split DKDV pass and the atomic mode of the deterministic=False cases stay apart."""
    from test_fused_backward import launched
    seen = patched_table(monkeypatch, "backward_config", fused_dq=True, dq_mode="separate", dq_num_warps=None,
                         dq_num_stages=None)
    kernels = launched(monkeypatch)
    run_case(case)
    assert seen, "the launcher did not take the patched table"
    split = all(c.split_dkdv for c in seen)
    assert any(k.startswith("attention_bwd_fused") for k in kernels) != split, f"{case.id()}: launched {kernels}"


@pytest.mark.parametrize("shape", [(2, 12, 12, 1500, 128, 128, None), (2, 12, 12, 1500, 128, 128, 0),
                                   (3, 8, 8, 1000, 64, 64, 0), (1, 4, 4, 777, 192, 128, None),
                                   (2, 8, 2, 1024, 128, 128, 0)])
def test_gpu_fused_backward_changes_no_bit(shape, monkeypatch):
    """The one-launch backward against the two passes apart at the table's tiles for hd128 (non-causal and
    causal), hd64, 192/128 and GQA: every gradient bitwise equal (each of its programs is one of theirs)."""
    from test_fused_backward import launched
    B, H_q, H_kv, S, D_qk, D_v, rb = shape
    q, k, v, do, o, st = _bf16_problem(14, B, H_q, H_kv, H_kv, S, D_qk, D_v, rb)
    monkeypatch.setattr(launch, "GLUON_BACKWARD", "off")  # deterministic hd128 with heads of its own: Gluon's
    kernels = launched(monkeypatch)
    runs = {}
    for fused in (False, True):
        with monkeypatch.context() as m:
            seen = patched_table(m, "backward_config", fused_dq=fused, dq_num_warps=None, dq_num_stages=None)
            kernels.clear()
            runs[fused] = launch.attention_backward(q, k, v, o, do, st, right_bound=rb, deterministic=True)
            assert seen and any(n.startswith("attention_bwd_fused") for n in kernels) == fused, kernels
    for name, a, b in zip(("dq", "dk", "dv"), runs[False], runs[True]):
        assert torch.equal(a, b), f"{name} from the one-launch backward differs from the passes apart at {shape}"


@pytest.mark.parametrize("case", GPU_CASES, ids=[c.id() for c in GPU_CASES])
def test_gpu_fused_softmax_case(case, monkeypatch):
    """The forward's fused softmax (ForwardConfig.fused_softmax: the table's at hd64, hd128 causal and hd256) on
    every GPU case through run_case: the oracle, poisoned outputs, the backward from its O and stats."""
    from test_fused_softmax import fused_table

    seen = fused_table(monkeypatch)
    run_case(case)
    assert seen and all(c.fused_softmax for c in seen)


@pytest.mark.parametrize("case", GPU_CASES, ids=[c.id() for c in GPU_CASES])
def test_gpu_plain_softmax_case(case, monkeypatch):
    """The plain softmax on every GPU case, the head dims and masks whose table entry fuses it included, so
    that both forward paths stay checked on the GPU whichever the table picks."""
    seen = patched_table(monkeypatch, "forward_config", fused_softmax=False)
    run_case(case)
    assert seen and not any(c.fused_softmax for c in seen)


@pytest.mark.parametrize("fused,pv_acc", [(True, False), (False, True)], ids=["scale-fold-only", "pv-acc-only"])
@pytest.mark.parametrize("case", GPU_CASES[:8], ids=[c.id() for c in GPU_CASES[:8]])
def test_gpu_softmax_half_case(case, fused, pv_acc, monkeypatch):
    """The fused softmax's halves alone (ForwardConfig.pv_accumulate, ab_perf --table s15's candidates)."""
    seen = patched_table(monkeypatch, "forward_config", fused_softmax=fused, pv_accumulate=pv_acc)
    run_case(case)
    assert seen, "the launcher did not take the patched table"


@pytest.mark.parametrize("k_offset", [1, 0], ids=["k-misaligned", "k-aligned"])
def test_gpu_fp32_forward_over_a_misaligned_k(k_offset):
    """The config Triton 3.6 miscompiled over a K at element offset 1 with O 16-byte aligned (the API fuzz's seed
    738250793, 2026-12-06: O off by 1.09, stats by 0.48); the forward reads such a K from an aligned copy
    (``reasons.restage_forward_stream``)."""
    from sdpa_bwd.engine.configs import ForwardConfig
    from sdpa_bwd.problem import oracle

    gen = torch.Generator(device="cuda").manual_seed(1)
    B, H, S_q, S_kv, D = 3, 4, 102, 581, 96
    q, v = (torch.randn(B, H, n, D, generator=gen, device="cuda") for n in (S_q, S_kv))
    k = torch.randn(B * H * S_kv * D + 8, generator=gen, device="cuda")[k_offset:k_offset + B * H * S_kv * D]
    k = k.view(B, H, S_kv, D)
    band = dict(left_bound=397, right_bound=0)
    want_o, want_stats = oracle.forward(q.double(), k.double(), v.double(), **band)
    for config in (None, ForwardConfig(block_m=64, block_n=32, num_warps=4, num_stages=2)):
        o, stats = launch.attention_forward(q, k, v, config=config, **band)
        assert (o.double() - want_o).abs().max().item() < 1e-4, f"O wrong with config {config}"
        assert (stats.double() - want_stats).abs().max().item() < 1e-4, f"stats wrong with config {config}"


def test_gpu_default_backward_is_repeatable_within_rounding():
    """The default (atomic dQ, if chosen) may reorder sums; the deterministic mode may not."""
    gen = torch.Generator().manual_seed(7)
    q, k, v, do = (torch.randn(2, 8, 2048, 128, generator=gen).cuda().bfloat16() for _ in range(4))
    o, st = launch.attention_forward(q, k, v, right_bound=0)
    a = launch.attention_backward(q, k, v, o, do, st, right_bound=0, deterministic=True)
    b = launch.attention_backward(q, k, v, o, do, st, right_bound=0, deterministic=True)
    for x, y in zip(a, b):
        assert torch.equal(x, y)
    c = launch.attention_backward(q, k, v, o, do, st, right_bound=0)
    for x, y in zip(a, c):
        assert (x.float() - y.float()).abs().max().item() < 0.05 * (1 + x.float().abs().max().item())


@pytest.mark.parametrize("band", [dict(right_bound=0), dict(left_bound=300), {}], ids=["causal", "left", "none"])
def test_gpu_start_order_and_dv_after_dp_change_no_bit(band):
    """The programs' start order (launch.HEAD_GROUP) and the DKDV pass's dV-after-dP issue order
    (launch.DV_AFTER_DP) schedule the same products: every output bitwise equal, GQA and a head
    count no group divides included."""
    gen = torch.Generator().manual_seed(11)
    q, do = (torch.randn(2, 12, 1500, 128, generator=gen).cuda().bfloat16() for _ in range(2))
    k, v = (torch.randn(2, 4, 1500, 128, generator=gen).cuda().bfloat16() for _ in range(2))
    runs = {}
    for group, late in ((1, False), (8, False), (5, True), (16, True)):
        with launch.switches(head_group=group, dv_after_dp=late):
            o, st = launch.attention_forward(q, k, v, **band)
            runs[group, late] = (o, st) + tuple(launch.attention_backward(q, k, v, o, do, st, deterministic=True,
                                                                         **band))
    base = runs[1, False]
    for key, outs in runs.items():
        for name, a, b in zip(("o", "stats", "dq", "dk", "dv"), base, outs):
            assert torch.equal(a, b), f"{name} with HEAD_GROUP, DV_AFTER_DP = {key} differs from (1, False)"


try:
    from hypothesis import given, seed, settings, strategies as st
except ImportError:  # pragma: no cover
    given = None

if given is not None:
    ORDERS = ["bhsd", "bshd", "sbhd", "hbsd", "shbd", "hsbd", "dbhs", "bsdh"]

    @st.composite
    def layouts(draw):
        return Layout(order=draw(st.sampled_from(ORDERS)),
                      row_gap=draw(st.sampled_from([0, 0, 1, 8, 64])),
                      d_step=draw(st.sampled_from([1, 1, 1, 2])),
                      offset=draw(st.sampled_from([0, 0, 1, 8])),
                      junk=draw(st.sampled_from([0, 0, 7, 1 << 20])))

    @st.composite
    def cases(draw):
        h_k = draw(st.sampled_from([1, 2, 4]))
        h_v = draw(st.sampled_from([1, 2, 4]))
        B = draw(st.sampled_from([1, 2, 3]))
        band = draw(st.sampled_from(["none", "causal", "causal_br", "window"]))
        kw = {}
        if band == "causal":
            kw = dict(right_bound=0)
        elif band == "causal_br":
            kw = dict(right_bound=0, alignment="bottom_right")
        elif band == "window":
            kw = dict(left_bound=draw(st.integers(1, 200)), right_bound=draw(st.integers(0, 50)))
        return Case(B=B, H_q=4, H_k=h_k, H_v=h_v,
                    S_q=draw(st.integers(1, 700)), S_kv=draw(st.integers(1, 700)),
                    D_qk=64, D_v=64, dtype=draw(st.sampled_from(["bf16", "fp16"])),
                    q=draw(layouts()), k=draw(layouts()), v=draw(layouts()), o=draw(layouts()),
                    do=draw(layouts()), dq=draw(layouts()), dk=draw(layouts()), dv=draw(layouts()),
                    stats=draw(layouts()), seed=draw(st.integers(0, 1 << 30)), **kw)

    def _shard(n):
        # Shards so that pytest-xdist spreads the examples (each new stride pattern compiles anew).
        @seed(n)
        @settings(max_examples=5, deadline=None, database=None)
        @given(cases())
        def test(case):
            print(case.repro())
            run_case(case)
        return test

    for _n in range(4):
        globals()[f"test_gpu_random_layouts_{_n}"] = _shard(_n)


@pytest.mark.parametrize("case", [GPU_CASES[0], GPU_CASES[4], GPU_CASES[8], GPU_CASES[10]],
                         ids=["hd128", "gqa-192-128", "hd256", "fp32-band"])
def test_gpu_autotuned_configs_are_correct(case, tmp_path, monkeypatch):
    """With SDPA_BWD_AUTOTUNE on, every candidate runs once and the chosen one must pass the same checks."""
    from sdpa_bwd.engine import tuning

    monkeypatch.setenv("SDPA_BWD_TUNE_CACHE", str(tmp_path / "tuning.json"))
    monkeypatch.setattr(launch, "GLUON_BACKWARD", "off")  # the tuner tunes the Triton kernels' configs
    tuning.forget()
    tuning.enable(True)
    try:
        run_case(case)
        assert (tmp_path / "tuning.json").exists(), "the tuner should have measured and cached this key"
    finally:
        tuning.enable(None)
        tuning.forget()
