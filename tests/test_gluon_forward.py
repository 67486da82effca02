"""The Gluon forward (``sdpa_bwd.engine.kernels.attention_fwd_gluon``) without a GPU: the schedule it compiles to for
sm_90a, and the launcher's rule for when it runs (``launch.gluon_forward_reasons``).

Gluon has no interpreter, so its results are checked on the GPU only (tests/gpu/test_gluon_forward_gpu.py).
What is checked here is the code the compiler made, which the H200's timings rest on: each of the two
consumer partitions waits for S_j with one product still in flight (``wgmma.wait_group 1``: P_{j-1} V_{j-1}
runs under the softmax), the worker consumer got its register budget (``setmaxnreg``), and the buffers fit the
H200's shared memory. ``tools/gluon_fwd_compile.py`` runs in a child process without TRITON_INTERPRET: under it
(conftest sets it) Triton's own jit functions are interpreted ones, which a Gluon kernel cannot call.
"""

import json
import os
import subprocess
import sys

import pytest
import torch
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from sdpa_bwd.engine import launch

H200_SHARED = 232448  # bytes a program may take on the H200 (the OutOfResources limit the device reports)
ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..")
TOOL = os.path.join(ROOT, "tools", "gluon_fwd_compile.py")
VARIANTS = {"hd128-bf16": ("128,128,bf16,0", 96), "hd128-fp16-causal": ("128,128,fp16,1", 96),
            "192/128-bf16": ("192,128,bf16,0", 120)}


@pytest.fixture(scope="module")
def compiled():
    pytest.importorskip("triton.experimental.gluon.language.nvidia.hopper")
    env = {**os.environ, "TRITON_INTERPRET": "0", "PYTHONPATH": os.path.join(ROOT, "src")}
    run = subprocess.run([sys.executable, TOOL, *(spec for spec, _ in VARIANTS.values())], capture_output=True,
                         text=True, env=env, timeout=600)
    assert run.returncode == 0, f"tools/gluon_fwd_compile.py failed:\n{run.stderr[-3000:]}"
    rows = [json.loads(ln) for ln in run.stdout.splitlines() if ln.startswith("{")]
    return dict(zip(VARIANTS, rows))


# one xdist group (``--dist loadgroup``): the module fixture's compiles run on one worker, not on each
@pytest.mark.xdist_group("gluon_fwd_compile")
@pytest.mark.parametrize("variant", list(VARIANTS))
def test_gluon_forward_compiles_with_the_softmax_under_the_pv_product(compiled, variant):
    r, wgmma = compiled[variant], VARIANTS[variant][1]
    assert r["waits"].count(1) == 4, (
        f"saw product waits {r['waits']}: each of the two consumer partitions should wait for S_j with one "
        "product (P_{j-1} V_{j-1}) left in flight, in its loop and in the peeled last tile; a wait for 0 there "
        "puts the softmax back behind both products. Check the warpgroup_mma_wait(1, ...) in "
        "attention_fwd_gluon._tile")
    assert r["wgmma"] == wgmma, (
        f"saw {r['wgmma']} wgmma instructions, expected {wgmma} (2 consumers x (the first S, the loop's S and "
        "P V, the last tile's S and P V, the last P V) x the k-steps of 16, D_qk 192's S over both chunks): the "
        "kernel's loop structure changed")
    assert ["inc", "232"] in r["setmaxnreg"], (
        f"saw register budgets {r['setmaxnreg']}, none up to 232: the worker consumer partition did not get its "
        "registers (gl.warp_specialize's worker_num_regs [232, 40]), so its accumulator and score tile may spill")
    assert r["shared"] <= H200_SHARED, (
        f"the kernel asks for {r['shared']} B of shared memory, over the H200's {H200_SHARED}: lower STAGES")


def _reasons(q, k=None, v=None, o=None, stats=None, **kw):
    k = q if k is None else k
    v = q if v is None else v
    kw = dict(dict(scale=0.1, causal=False, hi_off=0, banded=False), **kw)
    return launch.gluon_forward_reasons(q, k, v, o, stats, **kw)


def _qkv(dtype=torch.bfloat16, d=128, d_step=1, S=64):
    return [torch.randn(1, 2, S, d * d_step, dtype=dtype)[..., ::d_step] for _ in range(3)]


def test_gluon_forward_declines_off_the_gpu_and_says_why():
    q, k, v = _qkv()
    reasons = _reasons(q, k, v)
    assert any("sm_90" in r for r in reasons), reasons


@pytest.mark.parametrize("d,dtype,causal", [(128, torch.bfloat16, False), (128, torch.float16, True),
                                            (64, torch.bfloat16, True), (96, torch.bfloat16, False),
                                            (80, torch.float16, True)])
def test_gluon_forward_takes_what_it_addresses(as_on_the_h200, d, dtype, causal):
    if not launch.attention_fwd_gluon.AVAILABLE:
        pytest.skip("this Triton has no Gluon Hopper module")
    q, k, v = _qkv(dtype, d)
    assert _reasons(q, k, v, causal=causal, banded=causal) == []


@pytest.mark.parametrize("change,needle", [
    (dict(dtype=torch.float32), "16-bit"),
    (dict(d=160), "head dims"),
    (dict(d=32), "head dims"),
    (dict(d=96, o_step=2), "bulk-copy"),  # hd96 runs padded to 128: O must leave by TMA stores
    (dict(scale=-0.5), "scale"),
    (dict(banded=True), "band"),
    (dict(banded=True, causal=True, hi_off=5), "band"),
    (dict(d_step=2), "TMA"),
    (dict(aliased_o=True), "touch"),
    (dict(off=True), "switched off"),
    (dict(d=160, extra_dims=(160, 160)), "power-of-two"),
])
def test_gluon_forward_reasons_name_each_thing_it_cannot_do(as_on_the_h200, monkeypatch, change, needle):
    q, k, v = _qkv(change.get("dtype", torch.bfloat16), change.get("d", 128), change.get("d_step", 1))
    if change.get("off"):
        monkeypatch.setattr(launch, "GLUON_FORWARD", "off")
    if change.get("extra_dims"):  # a head-dim pair let in by $SDPA_BWD_GLUON_HEAD_DIMS that has no buffers
        monkeypatch.setattr(launch, "GLUON_HEAD_DIMS", launch.GLUON_HEAD_DIMS | {change["extra_dims"]})
    o = q if change.get("aliased_o") else None
    if change.get("o_step"):  # O of a head-dim stride the bulk-copy engine cannot take
        o = _qkv(q.dtype, q.shape[3], change["o_step"])[0]
    kw = {n: change[n] for n in ("scale", "banded", "causal", "hi_off") if n in change}
    reasons = _reasons(q, k, v, o=o, **kw)
    assert any(needle in r for r in reasons), f"{change}: expected a reason about {needle!r}, got {reasons}"


# as_on_the_h200 holds for every example alike: the health check's concern (state between examples) is not one
@settings(max_examples=250, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(order=st.sampled_from(["bhsd", "bshd", "sbhd", "hsbd"]), row_gap=st.sampled_from([0, 3, 8, 64]),
       d_step=st.sampled_from([1, 2]), offset=st.sampled_from([0, 1, 8]),
       dtype=st.sampled_from([torch.bfloat16, torch.float16, torch.float32]),
       d_qk=st.sampled_from([64, 96, 128, 192]), scale=st.sampled_from([0.1, -0.1]), causal=st.booleans())
def test_gluon_forward_takes_a_call_exactly_when_its_kernel_addresses_it(as_on_the_h200, order, row_gap, d_step,
                                                                         offset, dtype, d_qk, scale, causal):
    """Against a rule written here from the kernel's needs (not from _tma_ok): unit head-dim stride, 16-byte
    aligned bases and batch, head and row strides (TMA), a 16-bit dtype, a head-dim pair it has buffers for and
    was measured faster at, scale > 0; nothing else may send it away, nothing less may let it in."""
    from test_triton_kernels import Layout, strided

    if not launch.attention_fwd_gluon.AVAILABLE:
        pytest.skip("this Triton has no Gluon Hopper module")
    d_v = 128 if d_qk == 192 else d_qk
    lay = Layout(order, row_gap=row_gap, d_step=d_step, offset=offset)
    q, k = (strided((2, 2, 32, d_qk), lay, dtype)[0] for _ in range(2))
    v = strided((2, 2, 32, d_v), lay, dtype)[0]
    reasons = _reasons(q, k, v, scale=scale, causal=causal, banded=causal)
    es = q.element_size()
    addressable = all(t.stride(3) == 1 and t.data_ptr() % 16 == 0 and all(s * es % 16 == 0 for s in t.stride()[:3])
                      for t in (q, k, v))
    expected = (dtype != torch.float32 and (d_qk, d_v) in launch.GLUON_HEAD_DIMS and scale > 0 and addressable)
    assert (reasons == []) == expected, (
        f"{lay} {dtype} D {d_qk}/{d_v} scale {scale}: the Gluon forward's rule says {reasons or 'take it'}, the "
        f"kernel's needs say {'take it' if expected else 'do not'}; fix gluon_forward_reasons or _tma_ok")
