"""The launch cache on a CUDA device: a replayed call launches through the compiled kernels' own launchers
(``launch_cache.counts["direct_launches"]``) and gives what the full launcher gives on the same fresh
inputs, bit for bit, on each path the launcher has (TMA and pointer layouts, causal and band masks, GQA with
H_k != H_v, the 128 + 64 D_qk split, fp32, atomic and deterministic dQ, delta returned, outputs given), and
on a stream other than the default one.

Run on the device machine: ``PYTHONPATH=src python -m pytest -m gpu tests/gpu/test_launch_cache_gpu.py``.
"""

import os
import sys

import pytest
import torch

sys.path.insert(0, os.path.join(os.path.dirname(__file__), ".."))

from test_launch_cache import Call, assert_same, cache_off  # noqa: E402
from test_triton_kernels import BSHD, SBHD, Layout  # noqa: E402

from sdpa_bwd.engine import launch, launch_cache  # noqa: E402

pytestmark = [pytest.mark.gpu,
              pytest.mark.skipif(not torch.cuda.is_available(), reason="needs a CUDA device")]


@pytest.fixture(autouse=True)
def _empty_cache():
    launch_cache.clear()
    yield
    launch_cache.clear()


BF, FP = torch.bfloat16, torch.float16
GPU_CALLS = [
    Call(B=2, H_q=4, H_k=4, H_v=4, S_q=1024, S_kv=1024, D_qk=128, D_v=128, dtype=BF),
    Call(B=2, H_q=4, H_k=4, H_v=4, S_q=1000, S_kv=1000, D_qk=64, D_v=64, dtype=FP, layout=BSHD, right_bound=0),
    Call(B=1, H_q=4, H_k=2, H_v=1, S_q=777, S_kv=1500, D_qk=128, D_v=128, dtype=BF,
         layout=Layout("bshd", row_gap=3, offset=1), left_bound=200, right_bound=0, alignment="bottom_right"),
    Call(B=1, H_q=8, H_k=2, H_v=4, S_q=1531, S_kv=2048, D_qk=192, D_v=128, dtype=BF, right_bound=0),
    Call(B=1, H_q=2, H_k=2, H_v=2, S_q=512, S_kv=512, D_qk=64, D_v=64, dtype=torch.float32, layout=SBHD),
    Call(B=1, H_q=4, H_k=4, H_v=4, S_q=1024, S_kv=1024, D_qk=128, D_v=128, dtype=BF, deterministic=True,
         outputs=Layout("sbhd", row_gap=8), return_delta=True),
]


def _launches(fn) -> int:
    before = launch_cache.counts["direct_launches"]
    fn()
    torch.cuda.synchronize()
    return launch_cache.counts["direct_launches"] - before


@pytest.mark.parametrize("call", GPU_CALLS, ids=[f"call{i}" for i in range(len(GPU_CALLS))])
def test_gpu_replay_launches_the_compiled_kernels_and_gives_the_full_result(call, monkeypatch):
    # bit for bit holds for the Triton backward only: the Gluon one's bulk-reduced dQ sums come in in no fixed
    # order (tests/gpu/test_gluon_backward_gpu.py checks its replay within that noise)
    monkeypatch.setattr(launch, "GLUON_BACKWARD", "off")
    call.run(*call.inputs(1))
    fresh = call.inputs(2)
    out = []
    n = _launches(lambda: out.append(call.run(*fresh)[0]))
    assert n >= 4, f"{call}: {n} direct launches in a replayed forward + backward (expected one a kernel, >= 4)"
    with cache_off():
        want, _ = call.run(*fresh)
    assert_same(out[0], want, str(call))


def test_gpu_replay_of_the_atomic_dq_mode():
    """The atomic mode zeroes a fp32 accumulator that the DKDV pass adds into: the replay allocates it
    zeroed too (a stale or unzeroed one would add two calls' partials)."""
    call = Call(B=2, H_q=4, H_k=4, H_v=4, S_q=1024, S_kv=1024, D_qk=128, D_v=128, dtype=BF, right_bound=0)
    cfg = launch.with_dq_mode(launch.backward_config(128, 128, BF, "cuda", False, True), "atomic")
    q, k, v, do = call.inputs(1)

    def run(inputs):
        q, k, v, do = inputs
        o, stats = launch.attention_forward(q, k, v, right_bound=0)
        return (o, stats, *launch.attention_backward(q, k, v, o, do, stats, right_bound=0, config=cfg))

    run((q, k, v, do))
    fresh = call.inputs(2)
    got = []
    assert _launches(lambda: got.append(run(fresh))) >= 4
    with cache_off():
        want = run(fresh)
    assert_same(got[0], want, "atomic dQ")


def test_gpu_replay_on_a_side_stream():
    """A replay launches on the caller's current stream. Its inputs here are written on a side stream behind
    a ~50 ms sleep: a replay launched on another stream would read them before they are written."""
    call = GPU_CALLS[1]
    call.run(*call.inputs(1))
    fresh = call.inputs(2)
    with cache_off():
        want, _ = call.run(*fresh)
    torch.cuda.synchronize()
    side = torch.cuda.Stream()
    before = launch_cache.counts["direct_launches"]
    with torch.cuda.stream(side):
        torch.cuda._sleep(100_000_000)
        late = [torch.empty_strided(t.shape, t.stride(), dtype=t.dtype, device=t.device).copy_(t) for t in fresh]
        got, _ = call.run(*late)
    side.synchronize()
    assert launch_cache.counts["direct_launches"] - before >= 4, "the side-stream call did not replay"
    assert_same(got, want, "replayed on a side stream")
