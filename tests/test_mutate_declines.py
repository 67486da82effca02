"""tools/mutate_declines.py: its mutants are real, change one rule each, and get killed."""

import ast
import importlib.util
import sys
import types
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


@pytest.fixture(scope="module")
def tool():
    spec = importlib.util.spec_from_file_location("mutate_declines", ROOT / "tools" / "mutate_declines.py")
    module = importlib.util.module_from_spec(spec)
    sys.modules["mutate_declines"] = module
    spec.loader.exec_module(module)
    return module


def test_mutants_cover_every_rule_family(tool):
    problem = tool.enumerate_mutants("problem")
    launch = tool.enumerate_mutants("launch")
    kinds = {m.kind.rstrip("0123456789") for m in problem + launch}
    assert {"remove", "arm", "widen", "skip-call", "drop"} <= kinds
    functions = {m.function for m in problem}
    assert functions == {"_check_spec", "_check_dims", "check_dtypes", "check_attributes",
                         "_check_outputs_well_defined", "validate"}
    assert len(problem) + len(launch) >= 29
    assert len({m.id for m in problem + launch}) == len(problem + launch)


def _load_problem(source: str):
    module = types.ModuleType("mutated_problem")
    sys.modules["mutated_problem"] = module  # dataclasses look their module up
    try:
        exec(compile(source, "mutated_problem.py", "exec"), module.__dict__)
    finally:
        del sys.modules["mutated_problem"]
    return module


def test_a_removed_rule_no_longer_fires(tool):
    source = (ROOT / "src/sdpa_bwd/problem/model.py").read_text()
    mutant = next(m for m in tool.enumerate_mutants("problem")
                  if m.kind == "remove" and "ALIGNMENTS" in m.detail)
    mutated = tool.apply_mutant(mutant, source)
    ast.parse(mutated)
    good = _load_problem(source)
    bad = _load_problem(mutated)
    with pytest.raises(ValueError, match="alignment"):
        good.make_problem(B=1, H_q=1, S_q=4, D_qk=8, alignment="center").validate()
    bad.make_problem(B=1, H_q=1, S_q=4, D_qk=8, alignment="center").validate()


def test_a_widened_bound_accepts_one_value_more(tool):
    source = (ROOT / "src/sdpa_bwd/engine/launch.py").read_text()
    mutant = next(m for m in tool.enumerate_mutants("launch") if m.kind.startswith("widen"))
    mutated = tool.apply_mutant(mutant, source)
    assert "d > MAX_HEAD_DIM + 1" in mutated


def test_a_mutant_run_reports_killed(tool, monkeypatch):
    monkeypatch.setitem(tool.TARGETS["problem"], "tests",
                        ("tests/test_problem_rules.py::test_alignment_must_be_known",))
    mutant = next(m for m in tool.enumerate_mutants("problem")
                  if m.kind == "remove" and "ALIGNMENTS" in m.detail)
    assert tool.run_mutant(mutant).status == "killed"
