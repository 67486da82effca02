"""The forward's fused softmax (ForwardConfig.fused_softmax, kernels.attention_fwd FUSED_SOFTMAX) against the
float64 oracle on fresh random inputs, through run_case (poisoned outputs, the backward from its O and stats):
dtypes, layouts, GQA, head dims with the 128 + 64 split, odd lengths, masks with empty rows, scales. The
launcher takes it only for a scale > 0 (max(s x) = s max(x) needs s > 0); other scales keep the plain path."""

import pytest

from sdpa_bwd.engine import launch
from test_triton_kernels import CASES, Case, patched_table, run_case

FUSED_CASES = [CASES[i] for i in (0, 1, 2, 3, 7, 12, 14, 17, 19, 22, 23, 25, 26, 27, 30, 31, 34, 35, 36, 37, 38)] + [
    Case(D_qk=192, D_v=128, S_q=19, S_kv=23, B=1, H_q=2, H_k=1, H_v=2, dtype="bf16", right_bound=0, seed=60),
]


def fused_table(monkeypatch):
    return patched_table(monkeypatch, "forward_config", fused_softmax=True)


@pytest.mark.parametrize("case", FUSED_CASES, ids=[c.id() for c in FUSED_CASES])
def test_fused_softmax_forward_case(case, monkeypatch):
    seen = fused_table(monkeypatch)
    run_case(case)
    assert seen, "the launcher did not take the patched table"


def forward_flags(monkeypatch, scale, *names):
    """Run a small forward with ``scale`` through a spy on the forward kernel; (its O, the values of the
    constexprs ``names`` at each launch)."""
    import torch

    flags, real = [], launch.attention_fwd_kernel

    class Spy:
        def __getitem__(self, grid):
            def call(*args, **kwargs):
                flags.append(tuple(kwargs[n] for n in names))
                return real[grid](*args, **kwargs)
            return call

    monkeypatch.setattr(launch, "attention_fwd_kernel", Spy())
    q, k, v = (torch.randn(1, 1, 16, 16) for _ in range(3))
    o, _ = launch.attention_forward(q, k, v, scale=scale)
    return (q, k, v, o), flags


@pytest.mark.parametrize("scale,fused", [(0.3, True), (None, True), (-0.7, False), (0.0, False)])
def test_fused_softmax_is_taken_only_for_a_positive_scale(scale, fused, monkeypatch):
    fused_table(monkeypatch)
    _, seen = forward_flags(monkeypatch, scale, "FUSED_SOFTMAX")
    flags = [f for f, in seen]
    assert flags == [fused], f"scale {scale}: FUSED_SOFTMAX {flags}, expected {fused}"


# The fused softmax's two halves alone (ForwardConfig.pv_accumulate): the scale fold with the plain P V, and the
# plain scale with P V through the product's accumulator: mixed layouts with junk strides, D 16/48, a length of
# 1, causal and right bands, GQA at 192/128 (the 128 + 64 split).
HALF_CASES = [FUSED_CASES[i] for i in (0, 3, 5, 8, 11, 14, 17, 21)]


@pytest.mark.parametrize("fused,pv_acc", [(True, False), (False, True)], ids=["scale-fold-only", "pv-acc-only"])
@pytest.mark.parametrize("case", HALF_CASES, ids=[c.id() for c in HALF_CASES])
def test_fused_softmax_half_forward_case(case, fused, pv_acc, monkeypatch):
    seen = patched_table(monkeypatch, "forward_config", fused_softmax=fused, pv_accumulate=pv_acc)
    run_case(case)
    assert seen, "the launcher did not take the patched table"


@pytest.mark.parametrize("fused,pv_acc,scale,flags", [
    (True, None, 0.3, (True, True)), (True, None, -0.7, (False, False)), (False, None, 0.3, (False, False)),
    (True, False, 0.3, (True, False)), (False, True, 0.3, (False, True)), (False, True, -0.7, (False, True)),
])
def test_pv_accumulate_follows_the_fused_softmax_unless_set(fused, pv_acc, scale, flags, monkeypatch):
    """None: P V through the accumulator exactly where the scale fold is taken (so the table's fused entries
    compile as before the split, tools/ptx_diff.py); True / False: whatever the scale. Only the fold
    needs a scale > 0."""
    import torch

    patched_table(monkeypatch, "forward_config", fused_softmax=fused, pv_accumulate=pv_acc)
    (q, k, v, o), seen = forward_flags(monkeypatch, scale, "FUSED_SOFTMAX", "PV_ACC")
    assert seen == [flags], f"fused_softmax {fused}, pv_accumulate {pv_acc}, scale {scale}: {seen}, expected {flags}"
    s = torch.softmax(scale * q[0, 0].double() @ k[0, 0].double().T, -1)
    torch.testing.assert_close(o[0, 0].double(), s @ v[0, 0].double(), atol=1e-5, rtol=1e-5)

