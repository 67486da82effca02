"""The diagnoser's parts: controls, localisation, the decision table, the command.

The seeded Triton variants are proven in test_defects.py; these tests use the
reference engine (fast) with defects made by subclassing, as test_runner does.
"""

import json

import pytest
import torch

from sdpa_bwd.conformance import defects
from sdpa_bwd.problem.cases import Case
from sdpa_bwd.conformance.diagnose import (CLASS_NAMES, DECISION_TABLE, THRESHOLD, _ranges, classify, diagnose,
                               feature_variants, gather_evidence, like_case, localise, only_case, packed_case,
                               run_once)
from sdpa_bwd.backends import engine_names
from sdpa_bwd.backends.reference import ReferenceEngine
from sdpa_bwd.problem.layout import Storage


class OneElementOff(ReferenceEngine):
    """No known class: a single dQ element is off by one."""

    name = "test-one-element-off"

    def backward(self, problem, t):
        super().backward(problem, t)
        t.dq[0, 0, 0, 0] += 1.0


class SwapsStatsStrides(ReferenceEngine):
    """The stats-batch-head-swapped class on the reference engine."""

    name = "test-swaps-stats-strides"

    def backward(self, problem, t):
        st = list(t.stats.stride())
        st[0], st[1] = st[1], st[0]
        index = defects.element_index(t.stats.shape, st, t.stats.storage_offset())
        t.stats = defects.read_at(t.stats, index)
        return super().backward(problem, t)


def small(**kw):
    kw = dict(dict(B=2, H_q=2, S_q=12, D_qk=16, seed=5), **kw)
    return Case("t", **kw)


def test_decision_table_holds_every_seeded_class_and_unclassified():
    # Every class has a seeded variant and every variant a class; several variants may share one
    # (stale-state and stale-plan-cache are both diagnosed as stale-state: their `diagnosed_as`).
    assert set(CLASS_NAMES) == {cls.diagnosed_as for cls in defects.DEFECTS.values()} | {"unclassified"}
    assert len({c.name for c in DECISION_TABLE}) == len(DECISION_TABLE)
    assert all(c.next_step and c.symptom for c in DECISION_TABLE)


def test_controls_change_one_tensor_at_a_time():
    c = small(storage={"q": Storage("sbhd", pad={"s": 3}), "do": Storage("bshd")}, strides={"k": [384, 16, 32, 1]})
    assert packed_case(c).storage == () and packed_case(c).strides == ()
    only_q = only_case(c, "q")
    assert only_q.storage_of("q") == c.storage_of("q") and only_q.storage_of("do") == Storage()
    assert only_q.strides == ()
    assert dict(only_case(c, "k").strides) == {"k": (384, 16, 32, 1)}
    like = like_case(c, "do", "o")
    assert like.storage_of("do") == Storage() and like.storage_of("q") == c.storage_of("q")
    labels = [label for label, _ in feature_variants(c, "q")]
    assert labels == ["order SBHD -> BHSD", "pad s+3 removed", "pad s+3 -> s+4 (parity flipped)"]
    assert [label for label, _ in feature_variants(c, "k")] == ["explicit strides [384, 16, 32, 1] removed"]


def test_ranges_compress_indices():
    assert _ranges([0, 1, 2, 5, 7, 8]) == "0-2,5,7-8"
    assert _ranges([]) == "-"


def test_localisation_names_batches_rows_and_patterns():
    r = run_once(SwapsStatsStrides(), small())
    assert r.verdict == "failed"
    loc = localise(r, "dq")
    assert 0 not in loc.batches or loc.heads != [0]
    assert "every slice after the first" in loc.patterns
    assert loc.bad and loc.rows


def test_swapped_stats_strides_on_another_engine_are_named():
    d = diagnose(SwapsStatsStrides(), small(), replay=False)
    assert d.best.name == "stats-batch-head-swapped", d.to_dict()["ranking"][:2]
    assert d.runner_up.name != d.best.name
    assert any("slice (batch 0, head 0) is right" in line for line in d.best.evidence)


def test_an_unknown_defect_is_unclassified_with_its_evidence():
    d = diagnose(OneElementOff(), small(B=1, H_q=1), replay=False)
    assert d.best.name == "unclassified", d.to_dict()["ranking"][:3]
    assert any("failing outputs" in line for line in d.best.evidence)


def test_a_passing_case_is_not_classified():
    e = gather_evidence(ReferenceEngine(), small(), replay=False)
    assert e.repro.verdict == "passed"
    assert classify(e)[0].name == "unclassified"


def test_heatmap_png(tmp_path):
    from sdpa_bwd.conformance.diagnose import heatmap

    r = run_once(SwapsStatsStrides(), small())
    path = heatmap(r, tmp_path / "h.png")
    assert path.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_command_diagnoses_a_report_failure_with_the_debug_switch(tmp_path, monkeypatch, capsys):
    from sdpa_bwd.cli import main

    case = Case("swapped", B=2, H_q=2, S_q=12, D_qk=16, seed=3)
    cases = tmp_path / "cases.json"
    from sdpa_bwd.problem.cases import dump_cases

    dump_cases([case], cases)
    engine = "triton-defect:stats-batch-head-swapped"
    report = tmp_path / "run.json"
    report.write_text(json.dumps({"schema": "sdpa-bwd.run/1", "results": [{"case": "swapped", "engine": engine, "verdict": "failed"}]}))
    monkeypatch.setenv("SDPA_BWD_DEFECTS", "1")
    try:
        rc = main(["diagnose", "--engine", engine, "--report", str(report), "--cases", str(cases), "--no-replay",
                   "--png", str(tmp_path / "h.png"), "--json", str(tmp_path / "d.json")])
    finally:
        defects.unregister_defects()
    assert rc == 0
    out = capsys.readouterr().out
    assert "most likely: stats-batch-head-swapped" in out
    assert (tmp_path / "h.png").exists()
    data = json.loads((tmp_path / "d.json").read_text())
    assert data[0]["ranking"][0]["class"] == "stats-batch-head-swapped"
    assert not any(n.startswith("triton-defect:") for n in engine_names())


def test_command_needs_a_case_or_a_report():
    from sdpa_bwd.cli import main

    with pytest.raises(SystemExit, match="give a CASE_ID or --report"):
        main(["diagnose", "--engine", "reference"])


def test_a_report_failure_that_passes_alone_is_order_dependent():
    e = gather_evidence(ReferenceEngine(), small(), replay=False, report_verdict="order-dependent")
    e.fresh_verdict = "passed"  # what replay_fresh answers for a case that passes alone
    ranking = classify(e)
    assert ranking[0].name == "stale-state"
    assert ranking[0].score >= THRESHOLD


def test_report_failures_include_the_runners_failing_verdicts(tmp_path):
    from sdpa_bwd.conformance.diagnose import failures_in_report

    report = tmp_path / "r.json"
    report.write_text(json.dumps({"schema": "sdpa-bwd.run/1", "results": [
        {"case": "a", "engine": "e", "verdict": "passed"}, {"case": "b", "engine": "e", "verdict": "order-dependent"},
        {"case": "c", "engine": "e", "verdict": "fault"}, {"case": "d", "engine": "x", "verdict": "failed"}]}))
    assert [r["case"] for r in failures_in_report(str(report), "e")] == ["b", "c"]
