"""The Gluon forward (``kernels.attention_fwd_gluon``) on the H200: taken where ``gluon_forward_reasons`` finds
nothing against it, and right there, on fresh random inputs, against the float64 oracle (``run_case``: poisoned
outputs, same-dtype tolerance, the backward from its O and stats), on every layout the bulk-copy engine reads,
with tails in S_q and S_kv, GQA heads, the causal mask, and outputs of any strides.

Run on the device machine: ``PYTHONPATH=src python -m pytest -m gpu tests/gpu/test_gluon_forward_gpu.py``.
"""

import os
import sys

import pytest
import torch

sys.path.insert(0, os.path.join(os.path.dirname(__file__), ".."))

from test_fused_backward import launched as spy_launches  # noqa: E402
from test_triton_kernels import BSHD, SBHD, SBHD_DSTEP, TMA_PAD, Case, Layout, run_case  # noqa: E402

from sdpa_bwd.engine import launch, launch_cache  # noqa: E402
from sdpa_bwd.engine.kernels import attention_fwd_gluon  # noqa: E402

pytestmark = [pytest.mark.gpu,
              pytest.mark.skipif(not torch.cuda.is_available(), reason="needs a CUDA device"),
              pytest.mark.skipif(not attention_fwd_gluon.AVAILABLE, reason="this Triton has no Gluon Hopper module")]

PAD, DSTEP = TMA_PAD, SBHD_DSTEP


@pytest.fixture(autouse=True)
def padded_head_dims_let_in(monkeypatch):
    """hd80 and hd96 as hd128 (``attention_fwd_gluon.kernel_head_dims``), let in here whatever
    ``GLUON_HEAD_DIMS`` says, so that the padded form is checked."""
    monkeypatch.setattr(launch, "GLUON_HEAD_DIMS", launch.GLUON_HEAD_DIMS | {(80, 80), (96, 96)})

GLUON_CASES = [
    Case(B=2, H_q=4, H_k=4, H_v=4, S_q=1024, S_kv=1024, D_qk=128, D_v=128, dtype="bf16", seed=300),
    Case(B=2, H_q=4, H_k=4, H_v=4, S_q=777, S_kv=1500, D_qk=128, D_v=128, dtype="fp16",
         q=BSHD, k=SBHD, v=PAD, o=DSTEP, do=BSHD, stats=Layout("sbhd", row_gap=1), seed=301),
    Case(B=2, H_q=8, H_k=2, H_v=4, S_q=1531, S_kv=999, D_qk=128, D_v=128, dtype="bf16", right_bound=0, seed=302),
    Case(B=1, H_q=4, H_k=1, H_v=1, S_q=130, S_kv=2049, D_qk=128, D_v=128, dtype="bf16", right_bound=0,
         q=SBHD, k=BSHD, v=BSHD, o=BSHD, seed=303),
    Case(B=3, H_q=2, H_k=2, H_v=2, S_q=2, S_kv=5, D_qk=128, D_v=128, dtype="fp16", seed=304),
    Case(B=2, H_q=2, H_k=2, H_v=2, S_q=128, S_kv=256, D_qk=128, D_v=128, dtype="bf16", right_bound=0, seed=307),
    # D_qk 192 as 128 + 64 (two chained S products), GQA, tails, layouts, both O paths
    Case(B=2, H_q=8, H_k=2, H_v=4, S_q=1531, S_kv=2048, D_qk=192, D_v=128, dtype="bf16", right_bound=0, seed=308),
    Case(B=1, H_q=4, H_k=4, H_v=4, S_q=777, S_kv=900, D_qk=192, D_v=128, dtype="fp16",
         q=BSHD, k=SBHD, v=PAD, o=DSTEP, do=BSHD, seed=309),
    Case(B=2, H_q=4, H_k=4, H_v=4, S_q=333, S_kv=333, D_qk=128, D_v=128, dtype="bf16",
         q=Layout(broadcast="b"), k=Layout("bshd", broadcast="h"), v=Layout(broadcast="bh"), scale=0.03, seed=305),
    Case(B=1, H_q=2, H_k=2, H_v=2, S_q=4096, S_kv=4096, D_qk=128, D_v=128, dtype="bf16", right_bound=0,
         alignment="bottom_right", q=BSHD, k=BSHD, v=BSHD, o=BSHD, seed=306),
    # broadcast inputs at D_qk 192 with GQA (the launcher's descriptors give a stride-0 dim as one; the second
    # column chunk's descriptors too)
    Case(B=2, H_q=4, H_k=2, H_v=2, S_q=333, S_kv=400, D_qk=192, D_v=128, dtype="bf16",
         q=Layout("bshd", broadcast="b"), k=Layout(broadcast="h"), v=Layout("sbhd", broadcast="bh"), seed=318),
    # head dims 80 and 96 as the hd128 kernel, the bulk copies padding the columns (zeros in, O's dropped out):
    # both dtypes, the mask, tails, S_q < S_kv and S_q > S_kv, GQA / MQA, layouts (O's a bulk copy writes), S below
    # one tile, broadcast inputs, and a grid of many waves
    Case(B=2, H_q=4, H_k=4, H_v=4, S_q=1024, S_kv=1024, D_qk=80, D_v=80, dtype="bf16", seed=320),
    Case(B=2, H_q=4, H_k=4, H_v=4, S_q=777, S_kv=1500, D_qk=96, D_v=96, dtype="fp16",
         q=BSHD, k=SBHD, v=PAD, o=BSHD, stats=Layout("sbhd", row_gap=1), seed=321),
    Case(B=2, H_q=8, H_k=2, H_v=4, S_q=1531, S_kv=999, D_qk=80, D_v=80, dtype="bf16", right_bound=0, o=SBHD,
         seed=322),
    Case(B=1, H_q=4, H_k=1, H_v=1, S_q=130, S_kv=2049, D_qk=96, D_v=96, dtype="bf16", right_bound=0,
         q=SBHD, k=BSHD, v=BSHD, o=PAD, seed=323),
    Case(B=3, H_q=2, H_k=2, H_v=2, S_q=2, S_kv=5, D_qk=96, D_v=96, dtype="fp16", seed=324),
    Case(B=2, H_q=4, H_k=2, H_v=2, S_q=333, S_kv=333, D_qk=80, D_v=80, dtype="fp16",
         q=Layout("bshd", broadcast="b"), k=Layout(broadcast="h"), v=Layout("sbhd", broadcast="bh"), seed=325),
    Case(B=4, H_q=16, H_k=16, H_v=16, S_q=4096, S_kv=4096, D_qk=96, D_v=96, dtype="bf16", right_bound=0,
         seed=326),
]
# Head dim 64: three consumers a program, 192 query rows (``attention_fwd_gluon.CONSUMERS_BY_HEAD_DIM``),
# let in by ``HD64``'s fixture whatever ``GLUON_HEAD_DIMS`` says: tails where the program's 192 rows and its
# consumers' causal diagonals fall in different key tiles (``n_own``), S_q past S_kv, GQA / MQA, layouts, both O paths
HD64_CASES = [
    Case(B=2, H_q=4, H_k=4, H_v=4, S_q=1024, S_kv=1024, D_qk=64, D_v=64, dtype="bf16", seed=330),
    Case(B=2, H_q=8, H_k=2, H_v=4, S_q=1531, S_kv=999, D_qk=64, D_v=64, dtype="bf16", right_bound=0, seed=331),
    Case(B=2, H_q=4, H_k=4, H_v=4, S_q=777, S_kv=1500, D_qk=64, D_v=64, dtype="fp16",
         q=BSHD, k=SBHD, v=PAD, o=DSTEP, do=BSHD, stats=Layout("sbhd", row_gap=1), seed=332),
    Case(B=1, H_q=4, H_k=1, H_v=1, S_q=130, S_kv=2049, D_qk=64, D_v=64, dtype="bf16", right_bound=0,
         q=SBHD, k=BSHD, v=BSHD, o=BSHD, seed=333),
    Case(B=3, H_q=2, H_k=2, H_v=2, S_q=2, S_kv=5, D_qk=64, D_v=64, dtype="fp16", seed=334),
    Case(B=2, H_q=2, H_k=2, H_v=2, S_q=581, S_kv=200, D_qk=64, D_v=64, dtype="bf16", right_bound=0, seed=335),
    Case(B=1, H_q=2, H_k=2, H_v=2, S_q=4096, S_kv=4096, D_qk=64, D_v=64, dtype="fp16", right_bound=0,
         alignment="bottom_right", q=BSHD, k=BSHD, v=BSHD, o=BSHD, seed=336),
    Case(B=2, H_q=4, H_k=4, H_v=4, S_q=333, S_kv=333, D_qk=64, D_v=64, dtype="bf16",
         q=Layout(broadcast="b"), k=Layout("bshd", broadcast="h"), v=Layout(broadcast="bh"), scale=0.03, seed=337),
]
# Where the Triton forward must take the call instead: head-dim stride 2, rows not 16-byte aligned, a window,
# the causal diagonal off 0, a negative scale, head dims outside GLUON_HEAD_DIMS, fp32.
TRITON_CASES = [
    Case(B=1, H_q=2, H_k=2, H_v=2, S_q=300, S_kv=300, D_qk=128, D_v=128, dtype="bf16", q=DSTEP, seed=310),
    # K's rows 524 bytes apart (not a multiple of 16) at an aligned base: a base at element offset 1 (TMA_ODD) would be
    # restaged into an aligned copy first (reasons.restage_forward_stream), which the Gluon forward then takes
    Case(B=1, H_q=2, H_k=2, H_v=2, S_q=300, S_kv=300, D_qk=128, D_v=128, dtype="bf16",
         k=Layout("bshd", row_gap=3), seed=311),
    Case(B=1, H_q=2, H_k=2, H_v=2, S_q=300, S_kv=300, D_qk=64, D_v=64, dtype="bf16", left_bound=50,
         right_bound=0, seed=312),
    Case(B=1, H_q=2, H_k=2, H_v=2, S_q=200, S_kv=300, D_qk=64, D_v=64, dtype="fp16", right_bound=0,
         alignment="bottom_right", seed=313),
    Case(B=1, H_q=2, H_k=2, H_v=2, S_q=300, S_kv=300, D_qk=128, D_v=128, dtype="bf16", scale=-0.1, seed=314),
    # hd96 runs padded to 128 only where O leaves by bulk copies: O's head-dim stride 2 sends it away
    Case(B=1, H_q=2, H_k=2, H_v=2, S_q=300, S_kv=300, D_qk=96, D_v=96, dtype="bf16", o=DSTEP, seed=315),
    Case(B=1, H_q=2, H_k=2, H_v=2, S_q=300, S_kv=300, D_qk=32, D_v=32, dtype="bf16", seed=316),
    Case(B=1, H_q=2, H_k=2, H_v=2, S_q=300, S_kv=300, D_qk=128, D_v=128, dtype="fp32", seed=317),
]


@pytest.fixture
def launched(monkeypatch):
    """The kernels the forward launched, by name: a spy on both forward kernels."""
    names = spy_launches(monkeypatch, targets=[(attention_fwd_gluon, "attention_fwd_gluon_kernel"),
                                               (launch, "attention_fwd_kernel"),
                                               (launch, "attention_fwd_kernel_any_len")])
    launch_cache.clear()
    yield names
    launch_cache.clear()


@pytest.mark.parametrize("case", GLUON_CASES, ids=[c.id() for c in GLUON_CASES])
def test_gpu_gluon_forward_case(case, launched):
    run_case(case)
    assert launched and launched[0] == "attention_fwd_gluon_kernel", (
        f"the forward launched {launched}: expected the Gluon kernel, which gluon_forward_reasons should allow "
        f"for {case.repro()}")


@pytest.mark.parametrize("case", HD64_CASES, ids=[c.id() for c in HD64_CASES])
def test_gpu_gluon_forward_hd64_with_three_consumers(case, launched, monkeypatch):
    seen = []
    spy_launches(monkeypatch, kwargs_seen=seen, targets=[(attention_fwd_gluon, "attention_fwd_gluon_kernel")])
    monkeypatch.setattr(launch, "GLUON_HEAD_DIMS", launch.GLUON_HEAD_DIMS | {(64, 64)})
    run_case(case)
    consumers = [kw["CONSUMERS"] for name, kw in seen]
    assert consumers and set(consumers) == {3}, (
        f"the forward launched the Gluon kernel with CONSUMERS {consumers} for {case.repro()}: expected 3 at head "
        "dim 64 (attention_fwd_gluon.CONSUMERS_BY_HEAD_DIM, launch.attention_forward)")


@pytest.mark.parametrize("case", TRITON_CASES, ids=[c.id() for c in TRITON_CASES])
def test_gpu_triton_forward_takes_what_the_gluon_one_cannot(case, launched):
    run_case(case)
    assert launched and "attention_fwd_gluon_kernel" not in launched, (
        f"the forward launched {launched} for {case.repro()}: the Gluon kernel does not address this call")


def test_gpu_gluon_forward_replays_with_other_tensors():
    """The launch cache replays the Gluon launch for new tensors of the same call: the result is the full
    launcher's on the same inputs, bit for bit (its descriptors are made on the device from the pointers)."""
    launch_cache.clear()
    gen = torch.Generator(device="cuda").manual_seed(7)
    mk = lambda: torch.randn(2, 4, 640, 128, device="cuda", dtype=torch.bfloat16, generator=gen)  # noqa: E731
    first = [mk() for _ in range(3)]
    launch.attention_forward(*first)
    second = [mk() for _ in range(3)]
    replayed = launch.attention_forward(*second)
    launch_cache.clear()
    full = launch.attention_forward(*second)
    for name, a, b in zip(("o", "stats"), replayed, full):
        assert torch.equal(a, b), f"{name}: the replayed Gluon forward differs from the full launcher's"
    assert not torch.equal(replayed[0], launch.attention_forward(*first)[0]), "replay reused the first tensors"


def test_gpu_gluon_and_triton_forwards_agree():
    """Both forwards on one problem: within bf16 rounding of each other (each is checked against the oracle
    above; this catches a drift between the two paths of the same engine)."""
    gen = torch.Generator(device="cuda").manual_seed(8)
    q, k, v = (torch.randn(1, 4, 2048, 128, device="cuda", dtype=torch.bfloat16, generator=gen) for _ in range(3))
    o_g, st_g = launch.attention_forward(q, k, v, right_bound=0)
    with launch.switches(gluon_forward=False):
        o_t, st_t = launch.attention_forward(q, k, v, right_bound=0)
    assert (o_g.float() - o_t.float()).abs().max().item() < 2e-2
    assert (st_g - st_t).abs().max().item() < 1e-3


@pytest.mark.parametrize("group", [1, 3, 8])
def test_gpu_gluon_forward_causal_start_order(monkeypatch, group):
    """Under the causal mask the programs start in groups of ``group`` heads, costliest query block first
    (``attention_fwd_gluon.program_tile``): every (query block, head) still taken exactly once, so right against
    the oracle, with a last group short of ``group`` heads (B H = 10) and tails in both lengths."""
    seen = []
    spy_launches(monkeypatch, kwargs_seen=seen, targets=[(attention_fwd_gluon, "attention_fwd_gluon_kernel")])
    launch_cache.clear()
    with launch.switches(head_group=group):
        run_case(Case(B=2, H_q=5, H_k=5, H_v=5, S_q=1100, S_kv=1000, D_qk=128, D_v=128, dtype="bf16",
                      right_bound=0, seed=460 + group))
    launch_cache.clear()
    assert [kw["HEAD_GROUP"] for name, kw in seen] == [group], (
        f"the Gluon forward was launched with HEAD_GROUP {[kw['HEAD_GROUP'] for name, kw in seen]} under "
        f"switches(head_group={group}), expected [{group}]: see launch.attention_forward")
