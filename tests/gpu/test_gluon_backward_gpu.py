"""The Gluon backward (``kernels.attention_bwd_gluon``) on the H200: taken where ``gluon_backward_reasons`` finds
nothing against it, and right there, on fresh random inputs, against the float64 oracle (``run_case``: poisoned
outputs, same-dtype tolerance), on every layout the bulk-copy engine reads, with tails in S_q and S_kv, the
causal mask, and gradients of any strides; in deterministic mode (heads with K and V of their own) too, and
there bitwise the same from run to run.

Run on the device machine: ``PYTHONPATH=src python -m pytest -m gpu tests/gpu/test_gluon_backward_gpu.py``.
"""

import dataclasses
import os
import sys

import pytest
import torch

sys.path.insert(0, os.path.join(os.path.dirname(__file__), ".."))

from test_fused_backward import launched as spy_launches  # noqa: E402
from test_triton_kernels import BSHD, SBHD, SBHD_DSTEP, TMA_ODD, TMA_PAD, Case, Layout, run_case  # noqa: E402

from sdpa_bwd.engine import launch, launch_cache  # noqa: E402
from sdpa_bwd.engine.kernels import attention_bwd_gluon, attention_bwd_gluon_192  # noqa: E402

pytestmark = [pytest.mark.gpu,
              pytest.mark.skipif(not torch.cuda.is_available(), reason="needs a CUDA device"),
              pytest.mark.skipif(not attention_bwd_gluon.AVAILABLE, reason="this Triton has no Gluon Hopper module")]

PAD, ODD, DSTEP = TMA_PAD, TMA_ODD, SBHD_DSTEP  # ODD: rows not 16-byte aligned, the Triton kernels


@pytest.fixture(autouse=True)
def every_head_dim_it_is_written_for(monkeypatch):
    """The kernel at every head dim its buffers are written for (``attention_bwd_gluon.HEAD_DIMS``), with and
    without the causal mask, and in deterministic mode (``GLUON_BWD_DETERMINISTIC``, on by default,
    pinned here), and the A/B switches can leave a head dim out (``GLUON_BWD_HEAD_DIMS``,
    ``GLUON_BWD_CAUSAL_HEAD_DIMS``, ``GLUON_BWD_192``), so every form is let in here to be checked."""
    every = frozenset(attention_bwd_gluon.HEAD_DIMS) | {80, 96}  # and those it runs padded, as the hd128 kernel
    monkeypatch.setattr(launch, "GLUON_BWD_HEAD_DIMS", every)
    monkeypatch.setattr(launch, "GLUON_BWD_CAUSAL_HEAD_DIMS", every)
    monkeypatch.setattr(launch, "GLUON_BWD_DETERMINISTIC", True)
    monkeypatch.setattr(launch, "GLUON_BWD_DETERMINISTIC_GQA", True)
    monkeypatch.setattr(launch, "GLUON_BWD_192", frozenset({"causal", "nc"}))  # 192 / 128 under either mask

GLUON_CASES = [
    Case(B=2, H_q=4, H_k=4, H_v=4, S_q=1024, S_kv=1024, D_qk=128, D_v=128, dtype="bf16", seed=400),
    Case(B=2, H_q=4, H_k=4, H_v=4, S_q=1024, S_kv=1024, D_qk=128, D_v=128, dtype="fp16", right_bound=0, seed=401),
    # tails in both lengths, every input in another layout, gradients of any strides
    Case(B=2, H_q=3, H_k=3, H_v=3, S_q=777, S_kv=1500, D_qk=128, D_v=128, dtype="fp16",
         q=BSHD, k=SBHD, v=PAD, o=DSTEP, do=BSHD, dq=DSTEP, dk=BSHD, dv=SBHD,
         stats=Layout("sbhd", row_gap=1), seed=402),
    Case(B=2, H_q=4, H_k=4, H_v=4, S_q=1531, S_kv=999, D_qk=128, D_v=128, dtype="bf16", right_bound=0,
         q=SBHD, k=BSHD, v=BSHD, do=PAD, dk=DSTEP, seed=403),
    # a program whose last 128 keys need only one real query tile; S below one tile
    Case(B=1, H_q=2, H_k=2, H_v=2, S_q=138, S_kv=138, D_qk=128, D_v=128, dtype="bf16", right_bound=0, seed=404),
    Case(B=3, H_q=2, H_k=2, H_v=2, S_q=2, S_kv=5, D_qk=128, D_v=128, dtype="fp16", seed=405),
    Case(B=2, H_q=2, H_k=2, H_v=2, S_q=256, S_kv=128, D_qk=128, D_v=128, dtype="bf16", right_bound=0, seed=406),
    Case(B=2, H_q=4, H_k=4, H_v=4, S_q=333, S_kv=333, D_qk=128, D_v=128, dtype="bf16",
         q=Layout(broadcast="b"), k=Layout("bshd", broadcast="h"), v=Layout(broadcast="bh"), scale=0.03, seed=407),
    Case(B=1, H_q=2, H_k=2, H_v=2, S_q=4096, S_kv=4096, D_qk=128, D_v=128, dtype="bf16", right_bound=0,
         alignment="bottom_right", q=BSHD, k=BSHD, v=BSHD, o=BSHD, do=BSHD, seed=408),
    # shared K/V heads (dK, dV partials bulk-reduced across the group's programs): GQA, MQA with tails and
    # layouts, K shared where V is not, a long causal group (every program of a group reduces at once)
    Case(B=1, H_q=4, H_k=2, H_v=2, S_q=300, S_kv=300, D_qk=128, D_v=128, dtype="bf16", seed=410),
    Case(B=2, H_q=4, H_k=1, H_v=1, S_q=777, S_kv=650, D_qk=128, D_v=128, dtype="fp16", right_bound=0,
         q=BSHD, k=SBHD, v=PAD, do=BSHD, dk=DSTEP, dv=BSHD, seed=420),
    Case(B=2, H_q=6, H_k=3, H_v=6, S_q=500, S_kv=517, D_qk=128, D_v=128, dtype="bf16",
         k=BSHD, v=SBHD, dq=BSHD, dk=SBHD, seed=421),
    Case(B=1, H_q=8, H_k=2, H_v=2, S_q=2048, S_kv=2048, D_qk=128, D_v=128, dtype="bf16", right_bound=0, seed=422),
    Case(B=3, H_q=4, H_k=2, H_v=2, S_q=3, S_kv=70, D_qk=128, D_v=128, dtype="fp16",
         k=Layout(broadcast="h"), seed=423),
    # head dim 64 (K's swizzle spans 64 B there, so that each consumer's dQ column half is whole atoms; taken
    # where $SDPA_BWD_GLUON_BWD_HEAD_DIMS lets it in): the same schedule, layouts, tails, the mask, dK / dV by TMA
    # store and by pointer stores, GQA and MQA
    Case(B=2, H_q=4, H_k=4, H_v=4, S_q=1024, S_kv=1024, D_qk=64, D_v=64, dtype="bf16", seed=430),
    Case(B=2, H_q=3, H_k=3, H_v=3, S_q=777, S_kv=1500, D_qk=64, D_v=64, dtype="fp16",
         q=BSHD, k=SBHD, v=PAD, o=DSTEP, do=BSHD, dq=DSTEP, dk=BSHD, dv=SBHD, seed=431),
    Case(B=2, H_q=4, H_k=4, H_v=4, S_q=1531, S_kv=999, D_qk=64, D_v=64, dtype="bf16", right_bound=0,
         q=SBHD, k=BSHD, v=BSHD, do=PAD, dk=DSTEP, seed=432),
    Case(B=1, H_q=8, H_k=2, H_v=2, S_q=1000, S_kv=1000, D_qk=64, D_v=64, dtype="bf16", right_bound=0, seed=433),
    Case(B=2, H_q=4, H_k=1, H_v=1, S_q=300, S_kv=517, D_qk=64, D_v=64, dtype="fp16",
         q=BSHD, k=SBHD, v=PAD, dk=BSHD, dv=DSTEP, seed=434),
    Case(B=3, H_q=2, H_k=2, H_v=2, S_q=2, S_kv=5, D_qk=64, D_v=64, dtype="bf16", seed=435),
    # broadcast inputs (stride 0 over the batch or the heads: the launcher's descriptors give that dim as one)
    # at hd64, with GQA and the mask
    Case(B=2, H_q=4, H_k=2, H_v=2, S_q=333, S_kv=333, D_qk=64, D_v=64, dtype="bf16", right_bound=0,
         q=Layout("bshd", broadcast="b"), k=Layout(broadcast="h"), v=Layout("sbhd", broadcast="bh"), seed=436),
    # deterministic mode (dQ's reduces in turn by the dQ writers: ascending key blocks, the tiles from the last
    # down, a program of fewer than 3 tiles given past-S_q ones that add zeros first; under the causal mask the walk
    # up with descending key blocks where launch.GLUON_BWD_DET_UP names the head dim, hd64 by default, see
    # test_gpu_gluon_backward_deterministic_causal_orders): both dtypes,
    # tails in both lengths, layouts, dK / dV by TMA store and by pointer stores (dk=DSTEP), a program whose
    # second tile is past S_q, S below one tile, hd64, and grids of many waves (1024 programs)
    Case(B=1, H_q=2, H_k=2, H_v=2, S_q=300, S_kv=300, D_qk=128, D_v=128, dtype="bf16", deterministic=True,
         seed=419),
    Case(B=2, H_q=4, H_k=4, H_v=4, S_q=1024, S_kv=1024, D_qk=128, D_v=128, dtype="fp16", right_bound=0,
         deterministic=True, seed=450),
    Case(B=2, H_q=3, H_k=3, H_v=3, S_q=777, S_kv=1500, D_qk=128, D_v=128, dtype="fp16", deterministic=True,
         q=BSHD, k=SBHD, v=PAD, o=DSTEP, do=BSHD, dq=DSTEP, dk=BSHD, dv=SBHD, seed=451),
    Case(B=2, H_q=4, H_k=4, H_v=4, S_q=1531, S_kv=999, D_qk=128, D_v=128, dtype="bf16", right_bound=0,
         deterministic=True, q=SBHD, k=BSHD, v=BSHD, do=PAD, dk=DSTEP, seed=452),
    Case(B=1, H_q=2, H_k=2, H_v=2, S_q=138, S_kv=138, D_qk=128, D_v=128, dtype="bf16", right_bound=0,
         deterministic=True, seed=453),
    Case(B=3, H_q=2, H_k=2, H_v=2, S_q=2, S_kv=5, D_qk=128, D_v=128, dtype="fp16", deterministic=True, seed=454),
    Case(B=2, H_q=4, H_k=4, H_v=4, S_q=1024, S_kv=1024, D_qk=64, D_v=64, dtype="bf16", deterministic=True,
         seed=455),
    Case(B=2, H_q=4, H_k=4, H_v=4, S_q=1531, S_kv=999, D_qk=64, D_v=64, dtype="fp16", right_bound=0,
         deterministic=True, q=SBHD, k=BSHD, v=BSHD, do=PAD, dk=DSTEP, seed=456),
    Case(B=4, H_q=16, H_k=16, H_v=16, S_q=4096, S_kv=4096, D_qk=128, D_v=128, dtype="bf16", right_bound=0,
         deterministic=True, seed=457),
    Case(B=4, H_q=16, H_k=16, H_v=16, S_q=4096, S_kv=4096, D_qk=128, D_v=128, dtype="fp16", deterministic=True,
         seed=458),
    # GQA / MQA in deterministic mode (dK's and dV's reduces take turns too, H_k != H_v included): tails, layouts,
    # causal, hd64, many waves
    Case(B=1, H_q=4, H_k=1, H_v=1, S_q=300, S_kv=300, D_qk=128, D_v=128, dtype="bf16", deterministic=True,
         seed=424),
    Case(B=2, H_q=8, H_k=2, H_v=4, S_q=777, S_kv=777, D_qk=128, D_v=128, dtype="fp16", right_bound=0,
         deterministic=True, q=BSHD, k=SBHD, v=PAD, do=BSHD, seed=459),
    Case(B=2, H_q=6, H_k=3, H_v=3, S_q=1531, S_kv=999, D_qk=64, D_v=64, dtype="bf16", deterministic=True,
         q=SBHD, k=BSHD, v=BSHD, seed=460),
    Case(B=1, H_q=32, H_k=8, H_v=8, S_q=4096, S_kv=4096, D_qk=128, D_v=128, dtype="bf16", right_bound=0,
         deterministic=True, seed=461),
    # head dims 80 and 96 as the hd128 kernel, the bulk copies padding the columns (zeros in, dropped out): both
    # dtypes, the mask, tails, inputs in other layouts and gradients in others the bulk copies write, S below one
    # tile, broadcast inputs, GQA and MQA (80- and 96-wide fp32 accumulators), deterministic mode with and
    # without shared heads, and grids of many waves
    Case(B=2, H_q=4, H_k=4, H_v=4, S_q=1024, S_kv=1024, D_qk=80, D_v=80, dtype="bf16", seed=470),
    Case(B=2, H_q=4, H_k=4, H_v=4, S_q=1024, S_kv=1024, D_qk=96, D_v=96, dtype="fp16", right_bound=0, seed=471),
    Case(B=2, H_q=3, H_k=3, H_v=3, S_q=777, S_kv=1500, D_qk=96, D_v=96, dtype="bf16",
         q=BSHD, k=SBHD, v=PAD, o=DSTEP, do=BSHD, dq=DSTEP, dk=BSHD, dv=SBHD,
         stats=Layout("sbhd", row_gap=1), seed=472),
    Case(B=2, H_q=4, H_k=4, H_v=4, S_q=1531, S_kv=999, D_qk=80, D_v=80, dtype="fp16", right_bound=0,
         q=SBHD, k=BSHD, v=BSHD, do=PAD, dk=SBHD, dv=PAD, seed=473),
    Case(B=3, H_q=2, H_k=2, H_v=2, S_q=2, S_kv=5, D_qk=80, D_v=80, dtype="bf16", seed=474),
    Case(B=2, H_q=4, H_k=2, H_v=2, S_q=333, S_kv=333, D_qk=96, D_v=96, dtype="bf16", right_bound=0,
         q=Layout("bshd", broadcast="b"), k=Layout(broadcast="h"), v=Layout("sbhd", broadcast="bh"), seed=475),
    Case(B=2, H_q=6, H_k=3, H_v=6, S_q=500, S_kv=517, D_qk=80, D_v=80, dtype="bf16",
         k=BSHD, v=SBHD, dq=BSHD, dk=DSTEP, dv=SBHD, seed=476),
    Case(B=2, H_q=4, H_k=1, H_v=1, S_q=777, S_kv=650, D_qk=96, D_v=96, dtype="fp16", right_bound=0,
         q=BSHD, k=SBHD, v=PAD, do=BSHD, seed=477),
    Case(B=2, H_q=4, H_k=4, H_v=4, S_q=1531, S_kv=999, D_qk=96, D_v=96, dtype="bf16", right_bound=0,
         deterministic=True, q=SBHD, k=BSHD, v=BSHD, do=PAD, seed=478),
    Case(B=2, H_q=8, H_k=2, H_v=4, S_q=777, S_kv=777, D_qk=80, D_v=80, dtype="fp16", right_bound=0,
         deterministic=True, q=BSHD, k=SBHD, v=PAD, do=BSHD, seed=479),
    Case(B=4, H_q=16, H_k=16, H_v=16, S_q=4096, S_kv=4096, D_qk=80, D_v=80, dtype="bf16", right_bound=0, seed=497),
    Case(B=1, H_q=32, H_k=8, H_v=8, S_q=4096, S_kv=4096, D_qk=96, D_v=96, dtype="bf16", seed=498),
    # causal with S_q < S_kv (planner.causal_key_ranges): top-left (the keys no row keeps: dK, dV zeroed, or their
    # shared heads' accumulators left at zero) and bottom-right (the pass on the causal square, then on the prefix
    # every row keeps), both ranges' starts off the 128-key blocks, every head dim, shared heads, deterministic mode
    # (a turn-counter buffer each launch), layouts the bulk copies read through strides
    Case(B=1, H_q=2, H_k=2, H_v=2, S_q=200, S_kv=300, D_qk=128, D_v=128, dtype="fp16", right_bound=0,
         alignment="bottom_right", seed=414),
    Case(B=1, H_q=2, H_k=2, H_v=2, S_q=200, S_kv=300, D_qk=128, D_v=128, dtype="fp16", right_bound=0, seed=415),
    Case(B=2, H_q=3, H_k=3, H_v=3, S_q=519, S_kv=3961, D_qk=64, D_v=64, dtype="bf16", right_bound=0,
         alignment="bottom_right", q=BSHD, k=BSHD, v=SBHD, do=BSHD, dk=SBHD, dv=BSHD, seed=500),
    Case(B=2, H_q=8, H_k=2, H_v=2, S_q=128, S_kv=384, D_qk=128, D_v=128, dtype="bf16", right_bound=0,
         alignment="bottom_right", q=BSHD, k=BSHD, v=BSHD, do=BSHD, seed=501),
    Case(B=1, H_q=4, H_k=1, H_v=1, S_q=333, S_kv=1000, D_qk=96, D_v=96, dtype="fp16", right_bound=0,
         alignment="bottom_right", seed=502),
    Case(B=2, H_q=4, H_k=4, H_v=4, S_q=300, S_kv=777, D_qk=80, D_v=80, dtype="bf16", right_bound=0,
         q=SBHD, k=BSHD, v=PAD, dk=SBHD, dv=PAD, seed=503),
    Case(B=2, H_q=6, H_k=3, H_v=3, S_q=250, S_kv=700, D_qk=64, D_v=64, dtype="fp16", right_bound=0, seed=504),
    Case(B=2, H_q=4, H_k=4, H_v=4, S_q=640, S_kv=1153, D_qk=128, D_v=128, dtype="bf16", right_bound=0,
         alignment="bottom_right", deterministic=True, seed=505),
    Case(B=2, H_q=4, H_k=2, H_v=2, S_q=500, S_kv=1300, D_qk=64, D_v=64, dtype="bf16", right_bound=0,
         alignment="bottom_right", deterministic=True, q=BSHD, k=SBHD, v=BSHD, do=BSHD, seed=506),
    Case(B=1, H_q=4, H_k=4, H_v=4, S_q=300, S_kv=1000, D_qk=128, D_v=128, dtype="fp16", right_bound=0,
         deterministic=True, seed=507),
    Case(B=2, H_q=4, H_k=2, H_v=2, S_q=3, S_kv=70, D_qk=128, D_v=128, dtype="fp16", right_bound=0,
         alignment="bottom_right", seed=508),
]
# Where the Triton backward must take the call instead: a head-dim stride of 2 in dO, rows not 16-byte
# aligned, a window, bottom-right causal with S_q > S_kv or a prefix of one key, a negative scale, other head dims
# (32, and 64 / 128 unequal), hd96 with a dK the bulk copies cannot write,
# fp32.
TRITON_CASES = [
    Case(B=1, H_q=2, H_k=2, H_v=2, S_q=300, S_kv=300, D_qk=128, D_v=128, dtype="bf16", do=DSTEP, seed=411),
    Case(B=1, H_q=2, H_k=2, H_v=2, S_q=300, S_kv=300, D_qk=128, D_v=128, dtype="bf16", k=ODD, seed=412),
    Case(B=1, H_q=2, H_k=2, H_v=2, S_q=300, S_kv=300, D_qk=128, D_v=128, dtype="bf16", left_bound=50,
         right_bound=0, seed=413),
    # bottom-right causal with S_q > S_kv (rows that keep no key), and with S_q < S_kv by one key (a prefix of one
    # key: no bulk copy over it)
    Case(B=1, H_q=2, H_k=2, H_v=2, S_q=300, S_kv=200, D_qk=128, D_v=128, dtype="fp16", right_bound=0,
         alignment="bottom_right", seed=414),
    Case(B=1, H_q=2, H_k=2, H_v=2, S_q=200, S_kv=201, D_qk=64, D_v=64, dtype="bf16", right_bound=0,
         alignment="bottom_right", seed=415),
    Case(B=1, H_q=2, H_k=2, H_v=2, S_q=300, S_kv=300, D_qk=128, D_v=128, dtype="bf16", scale=-0.1, seed=416),
    Case(B=1, H_q=2, H_k=2, H_v=2, S_q=300, S_kv=300, D_qk=32, D_v=32, dtype="bf16", seed=417),
    Case(B=1, H_q=2, H_k=2, H_v=2, S_q=300, S_kv=300, D_qk=64, D_v=128, dtype="bf16", seed=425),
    # hd96 runs padded to 128 only where dK and dV leave by bulk copies: dK's head-dim stride 2 sends it away
    Case(B=1, H_q=2, H_k=2, H_v=2, S_q=300, S_kv=300, D_qk=96, D_v=96, dtype="bf16", dk=DSTEP, seed=426),
    Case(B=1, H_q=2, H_k=2, H_v=2, S_q=300, S_kv=300, D_qk=128, D_v=128, dtype="fp32", seed=418),
    # D_qk 192 / D_v 128 in deterministic mode where S_q is not a multiple of 4 (the split form, on by default,
    # needs it), and with dO's head-dim stride 2
    Case(B=1, H_q=2, H_k=2, H_v=2, S_q=302, S_kv=302, D_qk=192, D_v=128, dtype="bf16", deterministic=True,
         seed=492),
    Case(B=1, H_q=2, H_k=2, H_v=2, S_q=300, S_kv=300, D_qk=192, D_v=128, dtype="fp16", right_bound=0, do=DSTEP,
         seed=493),
]


@pytest.fixture(autouse=True)
def key_parts_at_any_size():
    """The Gluon backward on the keys' parts (causal with S_q < S_kv) at every size here, where the launcher's size
    rule (``GLUON_BWD_KEY_PARTS_MIN_PAIRS``, CPU-tested in tests/test_routing.py) would send the short ones to the
    Triton kernels: their results, not their routing, are what these cases check."""
    with launch.switches(gluon_bwd_key_parts_min_pairs=0):
        yield


@pytest.fixture
def launched(monkeypatch):
    """The backward kernels launched, by name: a spy on the Gluon kernel and the Triton DKDV kernels."""
    names = spy_launches(monkeypatch, targets=[(attention_bwd_gluon, "attention_bwd_gluon_kernel"),
                                               (attention_bwd_gluon_192, "attention_bwd_gluon_192_kernel"),
                                               (launch, "attention_bwd_dkdv_kernel"),
                                               (launch, "attention_bwd_dkdv_kernel_any_len"),
                                               (launch, "attention_bwd_fused_kernel"),
                                               (launch, "attention_bwd_fused_kernel_any_len")])
    launch_cache.clear()
    yield names
    launch_cache.clear()


@pytest.mark.parametrize("case", GLUON_CASES, ids=[c.id() for c in GLUON_CASES])
def test_gpu_gluon_backward_case(case, launched):
    run_case(case)
    assert "attention_bwd_gluon_kernel" in launched, (
        f"the backward launched {launched}: expected the Gluon kernel, which gluon_backward_reasons should allow "
        f"for {case.repro()}")


# D_qk 192 / D_v 128, the column-split kernel (``attention_bwd_gluon_192``): both dtypes, with and without the mask,
# tails in both lengths (a key block past S_kv's end, a query tile past S_q's), every input in another layout and
# gradients of any strides (dK, dV by pointer stores through them), S below one tile, S_q > S_kv under the mask,
# broadcast inputs, the diagonal at 0 by bottom-right alignment (S_q = S_kv), GQA and MQA (dK, dV added into fp32
# accumulators), K shared where V is not, and a full-size causal problem (head groups of 8, many waves)
GLUON192_CASES = [
    Case(B=2, H_q=4, H_k=4, H_v=4, S_q=1024, S_kv=1024, D_qk=192, D_v=128, dtype="bf16", seed=480),
    Case(B=2, H_q=4, H_k=4, H_v=4, S_q=1024, S_kv=1024, D_qk=192, D_v=128, dtype="fp16", right_bound=0, seed=481),
    Case(B=2, H_q=3, H_k=3, H_v=3, S_q=777, S_kv=1500, D_qk=192, D_v=128, dtype="fp16",
         q=BSHD, k=SBHD, v=PAD, o=DSTEP, do=BSHD, dq=DSTEP, dk=BSHD, dv=SBHD,
         stats=Layout("sbhd", row_gap=1), seed=482),
    Case(B=2, H_q=4, H_k=4, H_v=4, S_q=1531, S_kv=999, D_qk=192, D_v=128, dtype="bf16", right_bound=0,
         q=SBHD, k=BSHD, v=BSHD, do=PAD, dk=DSTEP, dv=ODD, seed=483),
    Case(B=3, H_q=2, H_k=2, H_v=2, S_q=2, S_kv=5, D_qk=192, D_v=128, dtype="bf16", seed=484),
    Case(B=1, H_q=2, H_k=2, H_v=2, S_q=65, S_kv=65, D_qk=192, D_v=128, dtype="fp16", right_bound=0, seed=485),
    Case(B=2, H_q=4, H_k=4, H_v=4, S_q=333, S_kv=333, D_qk=192, D_v=128, dtype="bf16",
         q=Layout(broadcast="b"), k=Layout("bshd", broadcast="h"), v=Layout(broadcast="bh"), scale=0.03, seed=486),
    Case(B=1, H_q=2, H_k=2, H_v=2, S_q=2048, S_kv=2048, D_qk=192, D_v=128, dtype="bf16", right_bound=0,
         alignment="bottom_right", q=BSHD, k=BSHD, v=BSHD, o=BSHD, do=BSHD, seed=487),
    Case(B=2, H_q=4, H_k=4, H_v=4, S_q=300, S_kv=130, D_qk=192, D_v=128, dtype="bf16", right_bound=0, seed=488),
    Case(B=1, H_q=4, H_k=2, H_v=2, S_q=300, S_kv=300, D_qk=192, D_v=128, dtype="bf16", seed=489),
    Case(B=2, H_q=4, H_k=1, H_v=1, S_q=777, S_kv=650, D_qk=192, D_v=128, dtype="fp16", right_bound=0,
         q=BSHD, k=SBHD, v=PAD, do=BSHD, dk=DSTEP, dv=BSHD, seed=490),
    Case(B=2, H_q=6, H_k=3, H_v=6, S_q=500, S_kv=517, D_qk=192, D_v=128, dtype="bf16",
         k=BSHD, v=SBHD, dq=BSHD, dk=SBHD, seed=491),
    Case(B=1, H_q=16, H_k=16, H_v=16, S_q=4096, S_kv=4096, D_qk=192, D_v=128, dtype="bf16", right_bound=0,
         seed=494),
    # over 8192 query rows (130 query tiles a key block), into padded dQ rows; then a dQ whose head dim is not
    # packed
    Case(B=1, H_q=2, H_k=2, H_v=2, S_q=8260, S_kv=8260, D_qk=192, D_v=128, dtype="fp16", right_bound=0, dq=PAD,
         seed=495),
    Case(B=2, H_q=2, H_k=2, H_v=2, S_q=333, S_kv=300, D_qk=192, D_v=128, dtype="bf16", right_bound=0, dq=DSTEP,
         seed=496),
    # causal with S_q < S_kv: the pass on the keys' causal square, then (bottom-right) on the prefix every row keeps,
    # a block counter each launch; top-left's keys no row keeps zeroed (heads of their own) or left in the zeroed
    # accumulators (shared heads); both dtypes, layouts through strides (S_q a multiple of 4: in the deterministic
    # split form too, where the Triton dQ pass takes the mask's diagonal at S_kv - S_q)
    Case(B=2, H_q=4, H_k=4, H_v=4, S_q=300, S_kv=777, D_qk=192, D_v=128, dtype="bf16", right_bound=0,
         alignment="bottom_right", q=BSHD, k=BSHD, v=BSHD, do=BSHD, seed=510),
    Case(B=2, H_q=4, H_k=4, H_v=4, S_q=300, S_kv=777, D_qk=192, D_v=128, dtype="fp16", right_bound=0,
         k=SBHD, dk=BSHD, seed=511),
    Case(B=1, H_q=6, H_k=1, H_v=1, S_q=256, S_kv=1000, D_qk=192, D_v=128, dtype="bf16", right_bound=0,
         alignment="bottom_right", seed=512),
    Case(B=1, H_q=4, H_k=2, H_v=2, S_q=500, S_kv=900, D_qk=192, D_v=128, dtype="fp16", right_bound=0, seed=513),
]


FORMS192 = ("single", "single-2st", "persist", "persist-ptr")


def _form_switches(form):
    """The launch switches of a 192 kernel form: one program a block (at three Q / dO stages, the launcher's default
    with GLUON_BWD192_PERSIST off, or two: "single-2st"), or persistent programs (``PERSIST``, three stages, dK and
    dV by bulk copies where the launcher takes them; "persist-ptr": by pointer stores)."""
    return dict(gluon_bwd192_persist=form.startswith("persist"), gluon_bwd192_three_stages=form != "single-2st",
                gluon_bwd192_tma_epilogue=form == "persist")


def _tma_out_takes(case):
    """Whether the persistent form stores this case's dK and dV by bulk copies (``planner._plan_gluon192``'s
    ``tma_out``): K and V heads of their own (shared ones add into fp32 accumulators), dK and dV with a packed head
    dim and rows on 16 bytes (``launch._tma_ok``)."""
    own = case.H_k == case.H_q and case.H_v == case.H_q
    return own and all(t.d_step == 1 and t.row_gap % 8 == 0 and t.offset % 8 == 0 for t in (case.dk, case.dv))


def _form_stages(form):
    """The Q / dO stages the launcher gives a 192 form: three unless GLUON_BWD192_THREE_STAGES is off."""
    return 2 if form == "single-2st" else 3


@pytest.mark.parametrize("form", FORMS192)
@pytest.mark.parametrize("case", GLUON192_CASES, ids=[c.id() for c in GLUON192_CASES])
def test_gpu_gluon_backward_192_case(case, form, monkeypatch):
    """Every 192 case in every form: one program a block, and persistent programs that claim blocks one after
    another (``PERSIST``: blocks of several heads and lengths through one program's stages). One program a block
    runs at three Q / dO stages with one P / dS buffer and at two."""
    seen = []
    spy_launches(monkeypatch, kwargs_seen=seen, targets=[(attention_bwd_gluon_192, "attention_bwd_gluon_192_kernel")])
    outs = []
    real_descriptor = launch._descriptor  # the executor makes every descriptor a plan names through it

    def descriptor(d, ns):
        if d.module == "attention_bwd_gluon_192" and d.tensor.split("_keys")[0] in ("dk", "dv"):  # or their parts
            outs.append(d.tensor)
        return real_descriptor(d, ns)

    monkeypatch.setattr(launch, "_descriptor", descriptor)
    launch_cache.clear()
    with launch.switches(**_form_switches(form)):
        run_case(case)
    launch_cache.clear()
    want_tma = form == "persist" and _tma_out_takes(case)
    assert bool(outs) == want_tma, (
        f"dK and dV were {'' if outs else 'not '}stored by bulk copies in the {form} form: expected "
        f"{'' if want_tma else 'not '}(planner._plan_gluon192's tma_out rule), for {case.repro()}")
    forms = [(kw.get("PERSIST"), kw.get("STAGES")) for name, kw in seen]
    want = (form.startswith("persist"), _form_stages(form))
    assert forms and set(forms) == {want}, (
        f"the 192 kernel was launched with (PERSIST, STAGES) {forms}: expected {want}, as the {form} form's switches "
        f"say, for {case.repro()}")


def _inputs192(seed, shape=(2, 4, 1000), causal=True, H_kv=None):
    B, H, S = shape
    gen = torch.Generator(device="cuda").manual_seed(seed)
    H_kv = H_kv or H
    q, do = (torch.randn(B, H, S, d, device="cuda", dtype=torch.bfloat16, generator=gen) for d in (192, 128))
    k, v = (torch.randn(B, H_kv, S, d, device="cuda", dtype=torch.bfloat16, generator=gen) for d in (192, 128))
    band = dict(right_bound=0) if causal else {}
    o, stats = launch.attention_forward(q, k, v, **band)
    return (q, k, v, o, do, stats), band


@pytest.mark.parametrize("form", FORMS192)
@pytest.mark.parametrize("H_kv,causal", [(None, True), (2, False)], ids=["heads-own-kv", "gqa"])
def test_gpu_gluon_backward_192_agrees_with_triton_and_replays(H_kv, causal, form):
    """At 192 / 128 the column-split kernel and the Triton kernels agree within bf16 rounding on one problem, and
    the launch cache's replay for new tensors matches the full launcher's result on them (GQA: the replay zeroes
    accumulators of its own), not the first call's. In each form: the persistent form's replay takes a fresh zeroed
    counter (a reused one would start past every block)."""
    with launch.switches(**_form_switches(form)):
        _agrees_with_triton_and_replays(H_kv, causal)


def _agrees_with_triton_and_replays(H_kv, causal):
    launch_cache.clear()
    first, band = _inputs192(13, causal=causal, H_kv=H_kv)
    g = launch.attention_backward(*first, **band)
    with launch.switches(gluon_bwd_192=()):
        t = launch.attention_backward(*first, **band)
    for name, a, b in zip(("dq", "dk", "dv"), g, t):
        rel = ((a.float() - b.float()).norm() / b.float().norm()).item()
        assert rel < 1e-2, f"{name}: the 192 Gluon and Triton backwards differ by {rel:.2e} (relative)"
    second, _ = _inputs192(14, causal=causal, H_kv=H_kv)
    before = launch_cache.counts["replayed"]
    replayed = launch.attention_backward(*second, **band)
    assert launch_cache.counts["replayed"] == before + 1, "the second call of the same key was not replayed"
    launch_cache.clear()
    full = launch.attention_backward(*second, **band)
    for name, a, b in zip(("dq", "dk", "dv"), replayed, full):
        assert (a.float() - b.float()).abs().max().item() < 2e-2, f"{name}: the replay differs from the launcher"
    assert not torch.allclose(replayed[0], g[0]), "replay reused tensors"
    launch_cache.clear()


# Deterministic mode's split form in the persistent 192 pass: every 192 case with K and V heads of their own, in
# deterministic mode, through run_case (the oracle, poisoned outputs, a second call bit for bit)
DET192_CASES = [dataclasses.replace(c, deterministic=True) for c in GLUON192_CASES
                if c.H_k == c.H_q and c.H_v == c.H_q]


def _five_calls_alike(monkeypatch, switches: dict, flag: str, seed: int, causal: bool) -> None:
    """Five deterministic calls at (1,16,4096) bf16 under ``switches`` (the first and fourth through the full launcher,
    the rest the launch cache's replays), each launching the 192 kernel with ``flag`` set, give bitwise the same dQ, dK
    and dV, within bf16 rounding of the Triton kernels' deterministic path."""
    seen = []
    spy_launches(monkeypatch, kwargs_seen=seen, targets=[(attention_bwd_gluon_192, "attention_bwd_gluon_192_kernel")])
    inputs, band = _inputs192(seed, shape=(1, 16, 4096), causal=causal)
    launch_cache.clear()
    runs = []
    with launch.switches(**switches):
        for i in range(5):
            if i == 3:
                launch_cache.clear()
            runs.append(launch.attention_backward(*inputs, deterministic=True, **band))
    launch_cache.clear()
    assert seen and all(kw.get(flag) for _, kw in seen), f"launched with {flag} {[kw.get(flag) for _, kw in seen]}"
    for i, run in enumerate(runs[1:], 1):
        for name, a, b in zip(("dq", "dk", "dv"), runs[0], run):
            diff = (a.float() - b.float()).abs().max().item()
            assert torch.equal(a, b), (f"{name} of deterministic call {i} ({flag}) differs from the first by up to "
                                       f"{diff:.3e}")
    with launch.switches(gluon_bwd192_det_split=False):
        triton = launch.attention_backward(*inputs, deterministic=True, **band)
    launch_cache.clear()
    for name, a, b in zip(("dq", "dk", "dv"), runs[0], triton):
        rel = ((a.float() - b.float()).norm() / b.float().norm()).item()
        assert rel < 1e-2, f"{name}: the Gluon ({flag}) and Triton deterministic backwards differ by {rel:.2e}"


def _split192_switches():
    """Deterministic mode's split form (``GLUON_BWD192_DET_SPLIT``) in the persistent pass, under both masks."""
    return dict(gluon_bwd192_det_split=True, gluon_bwd192_persist=True, gluon_bwd192_tma_epilogue=True,
                gluon_bwd_192=("causal", "nc"))


@pytest.mark.parametrize("case", DET192_CASES, ids=[c.id() for c in DET192_CASES])
def test_gpu_gluon_backward_192_split_form_case(case, monkeypatch):
    """Deterministic mode's split form at 192 / 128: the persistent pass computes dK and dV (``NO_DQ``) and the Triton
    dQ pass dQ, where S_q is a multiple of 4 (else the Triton kernels take the whole call); right against the oracle
    with poisoned outputs, bitwise the same at a second call (run_case)."""
    seen = []
    spy_launches(monkeypatch, kwargs_seen=seen, targets=[(attention_bwd_gluon_192, "attention_bwd_gluon_192_kernel")])
    launch_cache.clear()
    with launch.switches(**_split192_switches()):
        run_case(case)
    launch_cache.clear()
    no_dq = [kw.get("NO_DQ") for name, kw in seen]
    if case.S_q % 4:
        assert not seen, f"S_q = {case.S_q} (not a multiple of 4) reached the 192 pass's split form: {no_dq}"
    else:
        assert no_dq and all(no_dq), (
            f"the 192 kernel was launched with NO_DQ {no_dq}: expected the split form at every call of "
            f"{case.repro()} (gluon_backward_reasons, planner._plan_gluon192)")


@pytest.mark.parametrize("causal", [True, False], ids=["causal", "nc"])
def test_gpu_gluon_backward_192_split_form_repeats_bit_for_bit(causal, monkeypatch):
    """At (1,16,4096) bf16, five calls in the split form (the first and fourth through the full launcher, the rest
    replays) give bitwise the same dQ, dK and dV, within bf16 rounding of the Triton kernels' deterministic path."""
    _five_calls_alike(monkeypatch, _split192_switches(), "NO_DQ", 32, causal)


@pytest.mark.parametrize("case", TRITON_CASES, ids=[c.id() for c in TRITON_CASES])
def test_gpu_triton_backward_takes_what_the_gluon_one_cannot(case, launched):
    run_case(case)
    assert "attention_bwd_gluon_192_kernel" not in launched, (
        f"the backward launched {launched} for {case.repro()}: the 192 Gluon kernel does not address this call")
    assert "attention_bwd_gluon_kernel" not in launched, (
        f"the backward launched {launched} for {case.repro()}: the Gluon kernel does not address this call")


@pytest.mark.parametrize("outputs,tma", [({}, True), (dict(dk=DSTEP), False), (dict(dv=ODD), False),
                                         (dict(dk=BSHD, dv=SBHD), True)], ids=["packed", "dk-dstep", "dv-odd", "bshd-sbhd"])
@pytest.mark.parametrize("D", [64, 128])
def test_gpu_gluon_backward_stores_dk_dv_by_tma_where_it_can(monkeypatch, outputs, tma, D):
    """dK and dV leave by TMA stores where the bulk-copy engine addresses both (``_consumer_tma``), by pointer
    stores through their strides where it does not; right either way (against the oracle)."""
    seen = []
    spy_launches(monkeypatch, kwargs_seen=seen, targets=[(attention_bwd_gluon, "attention_bwd_gluon_kernel")])
    launch_cache.clear()
    run_case(Case(B=2, H_q=2, H_k=2, H_v=2, S_q=333, S_kv=400, D_qk=D, D_v=D, dtype="bf16", seed=440 + D,
                  **outputs))
    launch_cache.clear()
    flags = [kw["TMA_EPILOGUE"] for name, kw in seen]
    assert flags == [tma], (f"{outputs}: the Gluon kernel was launched with TMA_EPILOGUE {flags}, expected [{tma}]: "
                            "see planner._plan_gluon")


def _inputs(seed, shape=(2, 4, 640, 128), causal=True, H_kv=None, S_kv=None, alignment="top_left"):
    gen = torch.Generator(device="cuda").manual_seed(seed)
    kv_shape = (shape[0], H_kv or shape[1], S_kv or shape[2], shape[3])
    q, k, v, do = (torch.randn(*s, device="cuda", dtype=torch.bfloat16, generator=gen)
                   for s in (shape, kv_shape, kv_shape, shape))
    band = dict(right_bound=0, alignment=alignment) if causal else {}
    o, stats = launch.attention_forward(q, k, v, **band)
    return (q, k, v, o, do, stats), band


@pytest.mark.parametrize("H_kv,causal", [(None, True), (1, True), (2, False)], ids=["heads-own-kv", "mqa", "gqa"])
def test_gpu_gluon_backward_replays_with_other_tensors(H_kv, causal):
    """The launch cache replays the Gluon launches for new tensors of the same call: within the bulk reduce's
    summation-order noise of the full launcher's result on the same inputs, and not the first call's (MQA, GQA: the
    replay allocates zeroed dK, dV accumulators of its own)."""
    launch_cache.clear()
    first, band = _inputs(9, causal=causal, H_kv=H_kv)
    launch.attention_backward(*first, **band)
    second, _ = _inputs(10, causal=causal, H_kv=H_kv)
    replayed = launch.attention_backward(*second, **band)
    launch_cache.clear()
    full = launch.attention_backward(*second, **band)
    for name, a, b in zip(("dq", "dk", "dv"), replayed, full):
        assert (a.float() - b.float()).abs().max().item() < 2e-2, f"{name}: the replay differs from the launcher"
    assert not torch.allclose(replayed[0], launch.attention_backward(*first, **band)[0]), "replay reused tensors"


@pytest.mark.parametrize("H_kv", [None, 2], ids=["heads-own-kv", "gqa"])
@pytest.mark.parametrize("D", [64, 128])
def test_gpu_gluon_and_triton_backwards_agree(H_kv, D):
    """Both backwards on one problem agree within bf16 rounding (each is checked against the oracle above;
    this catches a drift between two paths of the same engine)."""
    args, band = _inputs(11, (1, 4, 2048, D), H_kv=H_kv)
    g = launch.attention_backward(*args, **band)
    with launch.switches(gluon_backward=False):
        t = launch.attention_backward(*args, **band)
    for name, a, b in zip(("dq", "dk", "dv"), g, t):
        rel = ((a.float() - b.float()).norm() / b.float().norm()).item()
        assert rel < 1e-2, f"{name}: Gluon and Triton backwards differ by {rel:.2e} (relative)"


HD64_CASES = [c for c in GLUON_CASES if c.D_qk == 64]


@pytest.mark.parametrize("rows,dq_rows", [(r, s) for r in attention_bwd_gluon.QUERY_ROWS[64] for s in (True, False)],
                         ids=[f"rows{r}-dq-{'rows' if s else 'cols'}" for r in attention_bwd_gluon.QUERY_ROWS[64]
                              for s in (True, False)])
@pytest.mark.parametrize("case", HD64_CASES, ids=[c.id() for c in HD64_CASES])
def test_gpu_gluon_backward_hd64_at_each_query_tile(monkeypatch, case, rows, dq_rows):
    """hd64 at every query tile the kernel is written for (``QUERY_ROWS[64]``: the launcher's 128 and the 64 of
    A/B runs) and both splits of a tile's dQ between the consumers (``launch.GLUON_BWD_DQ_ROWS``: row halves where
    the tile has 128 rows, else column halves), each launched so (the spy reads ``ROWS`` and the dQ descriptor's
    block, ``attention_bwd_gluon.dq_block``) and right against the oracle."""
    seen, args = [], []
    spy_launches(monkeypatch, kwargs_seen=seen, args_seen=args,
                 targets=[(attention_bwd_gluon, "attention_bwd_gluon_kernel")])
    launch_cache.clear()
    with launch.switches(gluon_bwd_hd64_rows=rows, gluon_bwd_dq_rows=dq_rows):
        run_case(case)
    launch_cache.clear()
    assert seen and {kw["ROWS"] for name, kw in seen} == {rows}, (  # deterministic cases run twice
        f"the Gluon kernel was launched with ROWS {[kw['ROWS'] for name, kw in seen]} under "
        f"switches(gluon_bwd_hd64_rows={rows}), expected [{rows}]: see planner._plan_gluon")
    blocks = {tuple(a[6].block_shape) for name, a in args}  # the dQ accumulator's descriptor
    expect = tuple(attention_bwd_gluon.dq_block(64, rows, dq_rows and rows >= 128))
    assert blocks == {expect}, (
        f"the dQ accumulator's descriptor had blocks {sorted(blocks)} under switches(gluon_bwd_hd64_rows={rows}, "
        f"gluon_bwd_dq_rows={dq_rows}), expected {expect}: see planner._plan_gluon")


@pytest.mark.parametrize("group", [1, 3, 8])
@pytest.mark.parametrize("D", [64, 128])
def test_gpu_gluon_backward_causal_start_order(monkeypatch, group, D):
    """Under the causal mask the programs start in groups of ``group`` heads, costliest key block first
    (``attention_fwd_gluon.program_tile``): every (key block, head) still taken exactly once, so right against
    the oracle, with a last group short of ``group`` heads (B H = 10) and tails in both lengths."""
    seen = []
    spy_launches(monkeypatch, kwargs_seen=seen, targets=[(attention_bwd_gluon, "attention_bwd_gluon_kernel")])
    launch_cache.clear()
    with launch.switches(head_group=group):
        run_case(Case(B=2, H_q=5, H_k=5, H_v=5, S_q=900, S_kv=777, D_qk=D, D_v=D, dtype="bf16", right_bound=0,
                      seed=450 + group + D))
    launch_cache.clear()
    assert [kw["HEAD_GROUP"] for name, kw in seen] == [group], (
        f"the Gluon backward was launched with HEAD_GROUP {[kw['HEAD_GROUP'] for name, kw in seen]} under "
        f"switches(head_group={group}), expected [{group}]: see planner._plan_gluon")


@pytest.mark.parametrize("up", [False, True], ids=["walk-down", "walk-up"])
@pytest.mark.parametrize("D,H_kv", [(64, 4), (128, 4), (128, 2)], ids=["hd64", "hd128", "hd128-gqa"])
def test_gpu_gluon_backward_deterministic_causal_orders(monkeypatch, up, D, H_kv):
    """Deterministic mode under the causal mask in both orders of its dQ turns (``launch.GLUON_BWD_DET_UP``, the
    kernel's ``DET_UP``): the walk down with ascending key blocks, and the walk up from the diagonal with
    descending key blocks and the programs started highest key block first. Each right against the oracle (tails
    in both lengths, S_q > S_kv, GQA's dK / dV turns too) and launched with the order asked for."""
    seen = []
    spy_launches(monkeypatch, kwargs_seen=seen, targets=[(attention_bwd_gluon, "attention_bwd_gluon_kernel")])
    launch_cache.clear()
    with launch.switches(gluon_bwd_det_up=(D,) if up else ()):
        run_case(Case(B=2, H_q=4, H_k=H_kv, H_v=H_kv, S_q=1531, S_kv=999, D_qk=D, D_v=D, dtype="bf16",
                      right_bound=0, deterministic=True, seed=470 + D + H_kv + up))
    launch_cache.clear()
    flags = [(kw["DETERMINISTIC"], kw["DET_UP"]) for name, kw in seen]
    assert flags and set(flags) == {(True, up)}, (
        f"the Gluon kernel was launched with (DETERMINISTIC, DET_UP) {flags} under gluon_bwd_det_up "
        f"{(D,) if up else ()}, expected (True, {up}): see planner._plan_gluon")


@pytest.mark.parametrize("shape,causal,H_kv", [((2, 4, 1531, 128), True, None), ((2, 3, 777, 128), False, None),
                                               ((2, 4, 1000, 64), True, None), ((4, 16, 4096, 128), True, None),
                                               ((4, 16, 2048, 64), True, None),
                                               ((4, 16, 4096, 128), False, None), ((1, 32, 4096, 128), False, 8),
                                               ((2, 8, 1000, 64), True, 2), ((2, 4, 777, 128), False, 1),
                                               ((2, 4, 500, 64, 1300), True, None), ((2, 8, 640, 128, 1153), True, 2)],
                         ids=["causal-tail", "tail", "hd64-causal", "waves-causal", "hd64-waves-causal", "waves",
                              "gqa-waves", "gqa-hd64-causal", "mqa-tail", "br-short-q-hd64", "br-short-q-gqa"])
def test_gpu_gluon_backward_deterministic_is_bitwise_repeatable(launched, monkeypatch, shape, causal, H_kv):
    """Deterministic mode, the same call three times on fresh tensors of the same values (the first recorded,
    the others replayed by the launch cache with counters of their own): dQ, dK and dV bitwise equal, through
    the Gluon kernel with DETERMINISTIC set (under the causal mask at hd64 in the walk-up order, DET_UP, the
    launcher's default). Shapes of one wave and of many (1024 programs at 4096), with K/V heads
    of their own and shared (GQA, MQA: dK's and dV's reduces in turn too)."""
    seen = []
    spy_launches(monkeypatch, kwargs_seen=seen, targets=[(attention_bwd_gluon, "attention_bwd_gluon_kernel")])
    # a fifth number: S_kv > S_q under the bottom-right mask, the pass launched on the causal square and the prefix
    S_kv = shape[4] if len(shape) == 5 else None
    args, band = _inputs(12, shape[:4], causal=causal, H_kv=H_kv, S_kv=S_kv,
                         alignment="bottom_right" if S_kv else "top_left")
    runs = [launch.attention_backward(*(t.clone() for t in args), **band, deterministic=True) for _ in range(3)]
    flags = [kw["DETERMINISTIC"] for name, kw in seen]
    assert flags and all(flags), (
        f"{shape} causal {causal}: the Gluon kernel was launched with DETERMINISTIC {flags}, expected True (once "
        "recorded, then replayed): see planner._plan_gluon")
    for i in (1, 2):
        for name, a, b in zip(("dq", "dk", "dv"), runs[0], runs[i]):
            diff = (a != b) & ~(a.isnan() & b.isnan())
            assert not diff.any(), (
                f"{shape} causal {causal}: {name} of run {i + 1} differs from run 1 in {int(diff.sum())} of "
                f"{a.numel()} elements (first at {tuple(diff.nonzero()[0].tolist())}): deterministic mode's dQ "
                "reduces are not taken in a fixed order (attention_bwd_gluon._dq_writer)")


@pytest.mark.parametrize("shape,causal,H_kv", [((4, 16, 2048, 64), False, None), ((2, 8, 1000, 64), True, 2),
                                               ((4, 16, 4096, 128), True, None), ((2, 4, 777, 128), False, 1)],
                         ids=["hd64-waves", "gqa-hd64-causal-tail", "waves-causal", "mqa-tail"])
def test_gpu_gluon_backward_pdl_chain_is_bitwise_the_unchained_call(monkeypatch, shape, causal, H_kv):
    """``GLUON_PDL`` at hd64 and hd128: ODO zeroes the dQ accumulator itself and the kernel, launched as
    its programmatic dependent, may start before ODO has finished; it waits for ODO's writes before its first load
    of lse2 and delta and before its first reduce, and DQ_CONVERT, the kernel's dependent, waits for the kernel's.
    In deterministic mode every sum comes in a fixed order, so the chained call (recorded, then replayed by the
    launch cache) must give dQ, dK and dV bitwise equal to the unchained one: a partial reduced before ODO's zeroes
    landed, or a conversion before the last reduce, would show as a difference."""
    seen = []
    spy_launches(monkeypatch, kwargs_seen=seen, targets=[(attention_bwd_gluon, "attention_bwd_gluon_kernel")])
    args, band = _inputs(15, shape, causal=causal, H_kv=H_kv)
    launch_cache.clear()
    with launch.switches(gluon_pdl=False):
        plain = launch.attention_backward(*args, **band, deterministic=True)
    with launch.switches(gluon_pdl=True):
        chained = [launch.attention_backward(*(t.clone() for t in args), **band, deterministic=True)
                   for _ in range(2)]
    launch_cache.clear()
    pdl = [kw.get("launch_pdl", False) for name, kw in seen]
    assert pdl[:2] == [False, True], (
        f"{shape}: the Gluon kernel was launched with launch_pdl {pdl} (unchained, then chained), expected False "
        "then True: see planner._plan_gluon")
    for i, run in enumerate(chained):
        for name, a, b in zip(("dq", "dk", "dv"), plain, run):
            diff = (a != b) & ~(a.isnan() & b.isnan())
            assert not diff.any(), (
                f"{shape} causal {causal}: {name} of the chained call {i + 1} differs from the unchained call in "
                f"{int(diff.sum())} of {a.numel()} elements (first at {tuple(diff.nonzero()[0].tolist())}): the "
                "kernel did not wait for ODO's zeroes, or DQ_CONVERT for the kernel's reduces (griddepcontrol in "
                "attention_bwd_gluon._loader / _main_loop, planner._plan_gluon)")


@pytest.mark.parametrize("shape", [(1, 4, 1000, 1000, 64), (1, 4, 777, 1500, 128)], ids=["hd64", "hd128"])
def test_gpu_phase_stamps_are_written_in_order_by_every_program(shape):
    """The kernel's diagnostic build (``launch.GLUON_BWD_STAMPS``, ``tools/phase_stamps.py``): every program
    writes every stamp, in the order its phases run (start, K and V in, first tile done, last product done,
    epilogue done, for each consumer), on a real SM; and the gradients match the unstamped build's."""
    sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "..", "tools"))
    import numpy as np
    import phase_stamps

    B, H, S_q, S_kv, D = shape
    gen = torch.Generator(device="cuda").manual_seed(7)
    q, do = (torch.randn(B, H, S_q, D, device="cuda", dtype=torch.bfloat16, generator=gen) for _ in range(2))
    k, v = (torch.randn(B, H, S_kv, D, device="cuda", dtype=torch.bfloat16, generator=gen) for _ in range(2))
    o, st = launch.attention_forward(q, k, v)
    plain = launch.attention_backward(q, k, v, o, do, st)
    stamps = torch.zeros(B * H * -(-S_kv // 128), attention_bwd_gluon.STAMP_SLOTS, dtype=torch.int64, device="cuda")
    with pytest.MonkeyPatch.context() as m:
        m.setattr(launch, "GLUON_BWD_STAMPS", stamps)
        m.setattr(launch_cache, "ENABLED", False)
        stamped = launch.attention_backward(q, k, v, o, do, st)
    torch.cuda.synchronize()
    for name, a, b in zip(("dq", "dk", "dv"), plain, stamped):
        torch.testing.assert_close(a.float(), b.float(), rtol=2e-2, atol=2e-2,
                                   msg=lambda s: f"{name} of the stamped build differs from the plain one: {s}")
    s = stamps.cpu().numpy()
    used = [i for i in range(attention_bwd_gluon.STAMP_SLOTS) if i != 14]
    assert (s[:, used] > 0).all(), f"programs with an unwritten stamp: {np.where((s[:, used] == 0).any(1))[0]}"
    assert (s[:, 14] < torch.cuda.get_device_properties(0).multi_processor_count).all(), "slot 14 is not an SM id"
    for c in (0, 1):
        chain = s[:, [15, 4 + 4 * c, 5 + 4 * c, 6 + 4 * c, 7 + 4 * c, 12 + c]]
        assert (np.diff(chain, axis=1) >= 0).all(), (
            f"consumer {c}'s stamps out of their phases' order (start, entry, K and V in, first tile, last "
            f"product, epilogue) in programs {np.where((np.diff(chain, axis=1) < 0).any(1))[0]}")
    ph = phase_stamps.phases(s, np.full(len(s), 2))
    assert (ph["the program, start to end"] > 0).all()
