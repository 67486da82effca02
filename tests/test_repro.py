"""``sdpa-bwd repro``: the standalone file it writes reproduces a case's verdict.

On the CPU: torch-math's file for a passing case exits 0 and imports no sdpa_bwd; a seeded defect's
file (which imports sdpa_bwd, saying so) exits 1 on its pinned failing case, and the untouched
``triton`` engine's file exits 0 on the same case. Each file runs in a fresh Python process.
"""

import ast
import subprocess
import sys

import pytest

from sdpa_bwd.cli import main
from sdpa_bwd.conformance import repro
from sdpa_bwd.conformance.plan import load_level

pytestmark = pytest.mark.xdist_group("repro")


def _write(tmp_path, monkeypatch, case_id, engine, *extra):
    out = tmp_path / f"{engine.replace(':', '-')}-{case_id}.py"
    if engine.startswith("triton-defect:"):
        monkeypatch.setenv("SDPA_BWD_DEFECTS", "1")
    try:
        assert main(["repro", case_id, "--engine", engine, "--level", "quick", "-o", str(out), *extra]) == 0
    finally:
        from sdpa_bwd.conformance import defects

        defects.unregister_defects()
    return out


def _run(path, env_extra=None):
    import os

    env = {k: v for k, v in os.environ.items() if not k.startswith("SDPA_BWD_")}
    env.update(env_extra or {})
    return subprocess.run([sys.executable, str(path)], capture_output=True, text=True, timeout=600, env=env)


def _imports(path) -> set[str]:
    tree = ast.parse(path.read_text())
    names = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names |= {a.name.split(".")[0] for a in node.names}
        elif isinstance(node, ast.ImportFrom) and node.module:
            names.add(node.module.split(".")[0])
    return names


def test_torch_math_repro_needs_only_pytorch_and_passes(tmp_path, monkeypatch):
    path = _write(tmp_path, monkeypatch, "reg-misaligned-base", "torch-math")
    assert "sdpa_bwd" not in _imports(path), "a torch-* repro must run where sdpa_bwd is not installed"
    assert "Needs PyTorch only" in path.read_text()
    done = _run(path)
    assert done.returncode == 0, done.stdout + done.stderr
    assert "torch-math on reg-misaligned-base: passes" in done.stdout
    for n in ("dq", "dk", "dv"):
        assert f"  {n}: max error" in done.stdout and "against bound" in done.stdout


@pytest.mark.parametrize("defect, case_id", [
    ("stale-plan-cache", "reg-stale-state-between-cases-dq-2-bshd"),   # needs the case before it
    ("aliased-outputs", "reg-aliased-outputs-fused-dqkv"),             # one allocation for three outputs
    ("stats-batch-head-swapped", "reg-stats-batch-head-strides-swapped"),  # rank-4 stats, permuted
])
def test_a_seeded_defects_repro_fails_and_the_real_engines_passes(tmp_path, monkeypatch, defect, case_id):
    bad = _write(tmp_path, monkeypatch, case_id, f"triton-defect:{defect}")
    assert "Imports sdpa_bwd" in bad.read_text()
    done = _run(bad)
    assert done.returncode == 1, f"the repro of {defect} on {case_id} did not fail:\n{done.stdout}{done.stderr}"
    assert "FAILS" in done.stdout
    good = _write(tmp_path, monkeypatch, case_id, "triton")
    done = _run(good)
    assert done.returncode == 0, f"the untouched engine's repro of {case_id} failed:\n{done.stdout}{done.stderr}"


def test_the_stale_failure_needs_the_case_before_it(tmp_path, monkeypatch):
    """The plan's same-size neighbour runs first by default; alone (--alone) the stale plan cache is
    filled by the case itself and it passes: the repro of an order-dependent failure must carry the
    case before it."""
    alone = _write(tmp_path, monkeypatch, "reg-stale-state-between-cases-dq-2-bshd",
                   "triton-defect:stale-plan-cache", "--alone")
    done = _run(alone)
    assert done.returncode == 0, done.stdout + done.stderr
    assert "run before it" not in done.stdout


def test_neighbours_before_are_the_chunk_the_runner_keeps_together():
    quick = load_level("quick")
    byid = {c.id: c for c in quick}
    before = repro.neighbours_before(byid["reg-stale-state-between-cases-dq-4-pad-rows"], quick)
    assert [c.id for c in before] == [f"reg-stale-state-between-cases-dq-{s}" for s in ("1-packed", "2-bshd", "3-packed")]
    before = repro.neighbours_before(byid["reg-stale-state-between-cases-dtype-2-float16"], quick)
    assert [c.id for c in before] == ["reg-stale-state-between-cases-dtype-1-bfloat16"]
    assert repro.neighbours_before(byid["reg-stale-state-between-cases-q-1-packed"], quick) == []


def test_report_names_the_previous_case_of_an_order_dependent_result(tmp_path, monkeypatch):
    import json

    report = tmp_path / "run.json"
    report.write_text(json.dumps({"schema": "sdpa-bwd.run/1", "results": [
        {"case": "reg-stale-state-between-cases-dq-2-bshd", "engine": "torch-math", "verdict": "order-dependent",
         "previous_case": "reg-stale-state-between-cases-q-3-packed"}]}))
    path = _write(tmp_path, monkeypatch, "reg-stale-state-between-cases-dq-2-bshd", "torch-math",
                  "--report", str(report))
    text = path.read_text()
    assert "'id': 'reg-stale-state-between-cases-q-3-packed'" in text
    assert "'id': 'reg-stale-state-between-cases-dq-1-packed'" not in text


def test_large_inputs_are_drawn_from_the_seed_not_embedded(monkeypatch):
    """Over EMBED_LIMIT the file draws the inputs itself; on the CPU the draws equal the harness's."""
    quick = {c.id: c for c in load_level("quick")}
    case = quick["reg-misaligned-base"]
    assert repro.case_record(case, judged=False)["inputs"] is not None
    monkeypatch.setattr(repro, "EMBED_LIMIT", 16)
    assert repro.case_record(case, judged=False)["inputs"] is None
    from sdpa_bwd.conformance.tensors import materialize

    m = materialize(case.to_problem(), seed=case.seed, forward=False)
    drawn = repro._inputs(case)
    for n in ("q", "k", "v", "do"):
        assert (m.view(n).float() == drawn[n].to(m.view(n).dtype).float()).all(), n
