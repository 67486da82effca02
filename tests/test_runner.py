"""The runner must catch what a defective engine does; defective engines live here only."""

import json

import pytest
import torch

from sdpa_bwd.problem.cases import BUILTIN_CASES, Case
from sdpa_bwd.backends import get_engine
from sdpa_bwd.backends.reference import ReferenceEngine
from sdpa_bwd.problem.layout import Storage
from sdpa_bwd.conformance.runner import run_case, run_cases
from sdpa_bwd.conformance.tensors import GUARD


class WritesPastDq(ReferenceEngine):
    name = "test-writes-past-dq"

    def backward(self, problem, t):
        super().backward(problem, t)
        # one element after the last logical dq element, inside the guard
        end = t.dq.storage_offset() + sum((d - 1) * s for d, s in zip(t.dq.shape, t.dq.stride())) + 1
        t.dq.as_strided((1,), (1,), end).fill_(1.0)


class SkipsLastRowOfDk(ReferenceEngine):
    name = "test-skips-last-row"

    def backward(self, problem, t):
        keep = t.dk[:, :, -1].clone()
        super().backward(problem, t)
        t.dk[:, :, -1] = keep  # still poison


class ReadsDoWithOStrides(ReferenceEngine):
    """The peers' 'dO addressed with O's strides' defect."""

    name = "test-do-with-o-strides"

    def backward(self, problem, t):
        wrong = t.do.as_strided(t.do.shape, t.o.stride(), t.do.storage_offset())
        t.do = wrong
        return super().backward(problem, t)


class AcceptsAnything(ReferenceEngine):
    name = "test-accepts-anything"

    def not_supported_reasons(self, problem):
        return []


class Raises(ReferenceEngine):
    name = "test-raises"

    def backward(self, problem, t):
        raise RuntimeError("illegal memory access (simulated)")


class ScribblesOnQ(ReferenceEngine):
    name = "test-scribbles-on-q"

    def backward(self, problem, t):
        super().backward(problem, t)
        t.q.mul_(2)


def case(**kw):
    return Case("t", B=2, H_q=2, S_q=9, D_qk=16, seed=3, **kw)


def test_reference_passes_every_builtin_case():
    results = run_cases(ReferenceEngine(), BUILTIN_CASES, progress=False)
    assert [r.verdict for r in results] == ["passed"] * len(BUILTIN_CASES), [r.message for r in results]


def test_torch_math_runs_every_builtin_case():
    """H_k != H_v included: SDPA's math backend takes it through enable_gqa (torch 2.13, 2026-12-06)."""
    results = run_cases(get_engine("torch-math"), BUILTIN_CASES, progress=False)
    verdicts = {r.case_id: r.verdict for r in results}
    assert all(v == "passed" for v in verdicts.values()), verdicts


def test_write_outside_the_tensor_fails_the_case():
    r = run_case(WritesPastDq(), case())
    assert r.verdict == "failed"
    assert "outside every logical tensor were overwritten" in r.message


def test_write_into_a_padded_gap_fails_the_case():
    class WritesIntoGap(ReferenceEngine):
        name = "test-writes-gap"

        def backward(self, problem, t):
            super().backward(problem, t)
            t.dv.as_strided((1,), (1,), t.dv.storage_offset() + t.dv.shape[3]).fill_(0.5)  # the row pad

    r = run_case(WritesIntoGap(), case(storage={"dv": Storage("bhsd", pad={"s": 2})}))
    assert r.verdict == "failed" and "overwritten" in r.message


def test_unwritten_elements_fail_the_case():
    r = run_case(SkipsLastRowOfDk(), case())
    assert r.verdict == "failed"
    assert "dk: 64 logical elements were never written" in r.message


def test_do_read_with_o_strides_fails_only_when_layouts_differ():
    assert run_case(ReadsDoWithOStrides(), case()).verdict == "passed"
    r = run_case(ReadsDoWithOStrides(), case(storage={"do": Storage("sbhd")}))
    assert r.verdict == "failed"
    assert {n for n, c in r.checks.items() if not c.passed} >= {"dq", "dk", "dv"}


def test_probe_accepted_by_an_engine_fails():
    probe = Case("p", B=1, H_q=2, S_q=8, D_qk=16, purpose="probe", expected_rejection="dq overlaps itself",
                 strides={"dq": [0, 128, 16, 1]}, dims={"dq": [2, 2, 8, 16]}, )
    assert run_case(ReferenceEngine(), Case("p", B=2, H_q=2, S_q=8, D_qk=16, purpose="probe",
                                            expected_rejection="dq batch stride 0",
                                            strides={"dq": [0, 128, 16, 1]})).verdict == "rejected"
    r = run_case(AcceptsAnything(), Case("p", B=2, H_q=2, S_q=8, D_qk=16, purpose="probe",
                                         expected_rejection="dq batch stride 0", strides={"dq": [0, 128, 16, 1]}))
    assert r.verdict == "rejection-accepted"


def test_engine_exception_is_an_error_verdict_and_the_run_goes_on():
    results = run_cases(Raises(), [case(), case()], progress=False)
    assert [r.verdict for r in results] == ["error", "error"]
    assert "illegal memory access" in results[0].message


def test_modified_input_fails_the_case():
    r = run_case(ScribblesOnQ(), case())
    assert r.verdict == "failed" and "input q" in r.message


def test_every_failure_prints_its_repro_command():
    r = run_case(SkipsLastRowOfDk(), case())
    assert r.repro == "sdpa-bwd run --engine test-skips-last-row --case t"


def test_inputs_are_random_not_zero_and_gaps_are_poison():
    from sdpa_bwd.conformance.tensors import is_poison, materialize

    c = case(storage={"q": Storage("bhsd", pad={"s": 3})})
    m = materialize(c.to_problem(), seed=1)
    assert (m.tensors.q != 0).float().mean() > 0.99
    gap = m.buffers["q"].flat[GUARD + 16: GUARD + 19]
    assert is_poison(gap, "bfloat16").all()


def test_cli_run_writes_json(tmp_path):
    from sdpa_bwd.cli import main

    out = tmp_path / "r.json"
    assert main(["run", "--engine", "reference", "--case", "bhsd", "--case", "gqa", "--json", str(out),
                 "--no-progress"]) == 0
    data = json.loads(out.read_text())
    assert [r["verdict"] for r in data["results"]] == ["passed", "passed"]
    assert data["environment"]["torch"] == torch.__version__


def test_cli_unknown_case_says_what_to_do():
    from sdpa_bwd.cli import main

    with pytest.raises(SystemExit, match="no case with id nope"):
        main(["run", "--case", "nope"])


def test_a_result_says_where_its_time_went():
    """phases: wall seconds of materialize, oracle, engine, judge, reruns (and forward for engines
    with one), summing to no more than the case's own seconds."""
    from sdpa_bwd.problem.cases import Case
    from sdpa_bwd.backends import get_engine
    from sdpa_bwd.conformance.runner import run_case

    r = run_case(get_engine("reference"), Case("timed", S_q=19, D_qk=16, seed=3), reruns=2)
    assert r.verdict == "passed"
    assert {"materialize", "oracle", "engine", "judge", "reruns"} <= set(r.phases)
    assert all(v >= 0 for v in r.phases.values()) and sum(r.phases.values()) <= r.seconds + 1e-3
    assert r.to_dict()["phases"] == r.phases


class CompilesOnce(ReferenceEngine):
    """Tells Triton's compilation listener what a cold and a warm first launch would."""

    name = "test-compiles-once"

    def backward(self, problem, t):
        from types import SimpleNamespace

        from triton import knobs

        def kernel(q_ptr, stride_qm, BLOCK: "tl.constexpr"):  # noqa: F821 - only its argument names matter
            pass

        kernel.arg_names = ["q_ptr", "stride_qm", "BLOCK"]
        kernel.cache_key = "toy-source-key"
        src = SimpleNamespace(fn=kernel, name="_toy_kernel", constants={(2,): 64},
                              attrs={(0,): [["tt.divisibility", 16]], (1,): [["tt.divisibility", 16]]},
                              signature={"q_ptr": "*fp16", "stride_qm": "i32"}, hash=lambda: "toy-src-hash")
        hashed = SimpleNamespace(hash=lambda: "toy")
        import triton.compiler.compiler as cc

        cc.get_cache_key(src, hashed, hashed, {})  # what Triton's compile() asks first
        listen = knobs.compilation.listener
        listen(src=src, metadata={"hash": "0123456789abcdef"}, metadata_group={},
               times=SimpleNamespace(total=2_500_000), cache_hit=False)
        listen(src=src, metadata={}, metadata_group={}, times=SimpleNamespace(total=9_000), cache_hit=True)
        return super().backward(problem, t)


def test_a_result_counts_the_kernels_it_compiled(monkeypatch):
    """compiles: what Triton compiled from source (a cold cache: its time, the kernel and its
    specialisation) and what it loaded from its disk cache, while the case ran; the listener that
    was installed before is called too and is back afterwards."""
    pytest.importorskip("triton.knobs")
    from triton import knobs

    from sdpa_bwd.engine.compiles import compile_totals

    monkeypatch.delenv("TRITON_INTERPRET", raising=False)
    seen = []
    monkeypatch.setattr(knobs.compilation, "listener", lambda **kw: seen.append(kw["cache_hit"]))
    r = run_case(CompilesOnce(), Case("compiling", S_q=9, D_qk=16, seed=4))
    assert r.verdict == "passed", r.message
    kernels = r.compiles.pop("kernels")
    assert r.compiles == {"compiled": 1, "loaded": 1, "compile_s": 2.5}
    assert len(kernels) == 1 and kernels[0].startswith("_toy_kernel[BLOCK=64, q_ptr:16, stride_qm:16] #0123456789ab 2.5s fn:")
    assert all(f" {part}:" in kernels[0] for part in ("attrs", "sig", "const", "backend", "opts", "env"))
    import triton.compiler.compiler as cc

    assert cc.get_cache_key.__name__ == "get_cache_key", "the key recorder must be removed after the case"
    r.compiles["kernels"] = kernels
    assert seen == [False, True]
    assert knobs.compilation.listener is not None and knobs.compilation.listener.__name__ == "<lambda>"
    assert r.to_dict()["compiles"] == r.compiles
    assert compile_totals([r, r]) == {"compiled": 2, "loaded": 2, "compile_s": 5.0, "cases_compiling": 2}


def test_nothing_is_counted_under_the_interpreter(monkeypatch):
    monkeypatch.setenv("TRITON_INTERPRET", "1")
    r = run_case(get_engine("reference"), Case("interpreted", S_q=9, D_qk=16, seed=4))
    assert r.verdict == "passed" and r.compiles is None
