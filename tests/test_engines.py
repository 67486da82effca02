"""The engine protocol: registry, third-party plug-ins, and honest declines."""

import sys
import textwrap
import warnings

import pytest
import torch

from sdpa_bwd.problem.cases import BUILTIN_CASES
from sdpa_bwd.backends import engine_names, get_engine
from sdpa_bwd.problem import make_problem
from sdpa_bwd.conformance.runner import run_case


def test_builtin_engines_are_registered():
    assert {"reference", "triton", "torch-math", "torch-flash", "torch-efficient", "torch-cudnn",
            "torch-flex"} <= set(engine_names())


def test_unknown_engine_lists_the_known_ones():
    with pytest.raises(ValueError, match="no engine named 'nope'; registered engines: reference"):
        get_engine("nope")


def test_third_party_engine_plugs_in_through_an_entry_point(tmp_path, monkeypatch):
    # A package installed beside us, declaring an engine in the sdpa_bwd.backends group.
    (tmp_path / "my_engine.py").write_text(textwrap.dedent('''
        from sdpa_bwd.backends.reference import ReferenceEngine

        class MyEngine(ReferenceEngine):
            name = "my-engine"
            description = "a third party's engine"
    '''))
    dist = tmp_path / "my_engine-1.0.dist-info"
    dist.mkdir()
    (dist / "METADATA").write_text("Metadata-Version: 2.1\nName: my-engine\nVersion: 1.0\n")
    (dist / "entry_points.txt").write_text("[sdpa_bwd.backends]\nmy-engine = my_engine:MyEngine\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    assert "my-engine" in engine_names()
    engine = get_engine("my-engine")
    assert run_case(engine, BUILTIN_CASES[0]).verdict == "passed"


@pytest.mark.skipif(torch.cuda.is_available(), reason="checks the declines of a machine without CUDA")
@pytest.mark.parametrize("name", ["torch-flash", "torch-efficient", "torch-cudnn", "torch-flex"])
def test_gpu_adapters_decline_without_cuda(name):
    reasons = get_engine(name).not_supported_reasons(make_problem(B=1, H_q=2, S_q=16, D_qk=64))
    assert any("no CUDA device is available" in r for r in reasons)


@pytest.mark.parametrize("name,kw,needle", [
    ("torch-flash", dict(D_v=32), "D_qk = 64 != D_v = 32"),
    ("torch-cudnn", dict(dtype="float32"), "dtype float32"),
])
def test_adapters_decline_what_their_backend_cannot_express(name, kw, needle):
    reasons = get_engine(name).not_supported_reasons(make_problem(B=1, H_q=4, S_q=16, D_qk=64, **kw))
    assert any(needle in r for r in reasons), reasons


@pytest.mark.parametrize("name", ["torch-cudnn", "torch-flash", "torch-efficient"])
@pytest.mark.parametrize("kw", [dict(left_bound=4, right_bound=0), dict(right_bound=0, alignment="bottom_right",
                                                                          S_kv=24)], ids=["band", "bottom-right"])
def test_sdpa_adapters_leave_bands_to_the_backends_own_check(name, kw, monkeypatch):
    """No hand-written decline of a band: the band goes to PyTorch's own dispatch check as the boolean attn_mask the
    call would pass, and that check's answer (its warning the reason) decides (issue 56: cuDNN takes masks)."""
    from sdpa_bwd.problem.oracle import band_mask

    engine = get_engine(name)
    problem = make_problem(B=1, H_q=4, S_q=16, D_qk=64, dtype="float16", **kw)
    assert not [r for r in engine.not_supported_reasons(problem) if "mask" in r or "alignment" in r]
    seen = []

    def check(params, debug=False):
        seen.append(params.attn_mask)
        warnings.warn("attn_mask is not supported here (the fake check's reason)")
        return False

    monkeypatch.setattr(torch.backends.cuda, engine.can_use, check)
    reasons = engine._backend_check(problem, device="cpu")
    want = band_mask(problem.S_q, problem.S_kv, problem.left_bound, problem.right_bound, problem.alignment, "cpu")
    assert len(seen) == 1 and seen[0] is not None and torch.equal(seen[0], want), "the check saw another mask"
    assert reasons == [f"PyTorch's {engine.can_use} says no: attn_mask is not supported here (the fake check's "
                       "reason)"]


def test_the_math_backend_takes_k_and_v_heads_of_their_own():
    """SDPA's enable_gqa takes H_k != H_v on the math backend (torch 2.13, 2026-12-06): no hand-written decline."""
    from sdpa_bwd.problem.cases import Case

    case = Case("kv-heads-apart", B=1, H_q=4, H_k=2, H_v=1, S_q=12, D_qk=16, seed=3)
    assert run_case(get_engine("torch-math"), case).verdict == "passed"


def test_malformed_problem_is_rejected_not_declined():
    with pytest.raises(ValueError, match="do not divide"):
        get_engine("torch-math").not_supported_reasons(make_problem(B=1, H_q=4, S_q=8, D_qk=16, H_k=3))
