"""The full runner: reruns, order effects, layout controls, shards, several workers, merge, JUnit, CLI."""

import xml.etree.ElementTree as ET
from pathlib import Path

import pytest

from sdpa_bwd.problem.cases import BUILTIN_CASES, Case, dump_cases
from sdpa_bwd.cli import main
from sdpa_bwd.backends import get_engine
from sdpa_bwd.backends.reference import ReferenceEngine
from sdpa_bwd.problem.layout import Storage
from sdpa_bwd.conformance.report import content, load_report, merge
from sdpa_bwd.conformance.runner import packed_control, parse_shard, run_case, run_cases, run_isolated, shard
from sdpa_bwd.conformance.worker import IMPORTS_ENV, import_engine_modules

FAULT_ENGINES = str(Path(__file__).with_name("fault_engines.py"))
pytest_plugins = ["pytester"]
TINY = [Case(f"tiny-{i}", B=1, H_q=2, S_q=8 + i, D_qk=16, seed=i,
             storage={"dq": Storage("sbhd")} if i % 2 else ()) for i in range(6)]


@pytest.fixture
def fault_engines(monkeypatch):
    monkeypatch.setenv(IMPORTS_ENV, FAULT_ENGINES)
    import_engine_modules()


# -- reruns -------------------------------------------------------------------------
def test_reruns_of_an_exact_engine_are_bitwise_identical():
    r = run_case(ReferenceEngine(), TINY[1], reruns=3)
    assert r.verdict == "passed" and r.runs == 3 and r.rerun_changed == {}
    d = r.to_dict()  # per tensor: error, tolerance and margin against the oracle, and the tolerance class
    assert set(d["tolerance_classes"]) >= {"dq", "dk", "dv"}
    assert {"max_abs_err", "tolerance", "margin", "mismatches"} <= set(d["checks"]["dq"])


def test_changed_bits_between_reruns_are_counted(fault_engines):
    engine = get_engine("test-noisy")
    r = run_case(engine, TINY[0], reruns=2)
    assert r.verdict == "nondeterministic" and r.rerun_changed == {"dq": 3}
    assert "dq 3 elements changed between 2 runs" in r.message
    assert not r.failing  # determinism was not asked for: reported, not a failure
    det = run_case(engine, Case("det", B=1, H_q=2, S_q=8, D_qk=16, deterministic=True), reruns=2)
    assert det.verdict == "nondeterministic" and det.failing
    assert "asked for a deterministic backward" in det.message
    assert run_case(engine, TINY[0], reruns=1).verdict == "passed"  # one run cannot tell


def test_rerun_poisons_outputs_again():
    class WritesOnlyOnce(ReferenceEngine):
        name = "test-writes-once"
        calls = 0

        def backward(self, problem, t):
            WritesOnlyOnce.calls += 1
            if WritesOnlyOnce.calls == 1:
                return super().backward(problem, t)

    r = run_case(WritesOnlyOnce(), TINY[0], reruns=2)
    # the first run is judged (and passes); the second left the outputs poison: every element changed
    assert r.rerun_changed == {"dq": 256, "dk": 256, "dv": 256}
    assert r.verdict == "nondeterministic" and r.checks["dq"].passed


# -- order effects and layout controls ---------------------------------------------------
def test_order_dependent_failure_names_the_case_before_it_and_layout_control_blames_the_layout(fault_engines):
    cases = [Case("first", B=1, H_q=2, S_q=8, D_qk=16, seed=1),
             # same sizes, other strides and values: the stale cache hands it first's dq
             Case("second", B=1, H_q=2, S_q=8, D_qk=16, seed=2, storage={"q": Storage("bshd")}),
             Case("padded", B=1, H_q=2, S_q=9, D_qk=16, seed=3, storage={"dq": Storage("bhsd", pad={"s": 2})})]
    results = {r.case_id: r for r in run_isolated("test-stale-and-padded", cases, progress=False)}
    assert results["first"].verdict == "passed" and results["first"].replay is None
    second = results["second"]
    assert second.verdict == "order-dependent" and second.previous_case == "first"
    assert "when run after first" in second.message and second.replay["verdict"] == "passed"
    assert second.layout_control is None  # it passes alone: no layout question to answer
    padded = results["padded"]
    assert padded.verdict == "failed" and padded.replay["conclusion"] == "fails alone too"
    assert padded.layout_control["verdict"] == "passed"
    assert padded.layout_control["conclusion"].startswith("the layout's")


def test_replays_go_to_the_plans_first_failures_on_any_worker_count(fault_engines):
    """Replays start beside the workers as failures appear (run_isolated), yet which failures get one
    does not depend on that timing: the first --replay-limit of them in the plan's order."""
    cases = [Case(f"p{i}", B=1, H_q=2, S_q=9 + (i % 3), D_qk=16, seed=i,
                  storage={"dq": Storage("bhsd", pad={"s": 2})} if i % 2 else ()) for i in range(8)]
    failing = [c.id for c in cases if c.storage]           # p1, p3, p5, p7 break on padded rows
    for workers in (1, 3):
        timing = {}
        results = {r.case_id: r for r in run_isolated("test-breaks-padded", cases, progress=False, workers=workers,
                                                      replay_limit=2, timing=timing)}
        assert [i for i in failing if results[i].replay and "verdict" in results[i].replay] == failing[:2]
        assert all(results[i].replay == {"skipped": "over --replay-limit 2"} for i in failing[2:])
        assert all(results[i].layout_control["verdict"] == "passed" for i in failing[:2])
        assert all(results[c.id].replay is None for c in cases if c.id not in failing)
        assert "replays_s" in timing


def test_a_replay_budget_skips_the_replays_that_would_start_after_it(fault_engines, monkeypatch):
    """--replay-budget S: once the cases have run, no replay starts after S seconds; the replays left say so and
    keep their verdict from the run (a bound in time where --replay-limit is a count: a full level's hundred
    failures on one adapter, 2026-12-07). Each replay here takes 3 s and one worker has one replay thread, so
    with a budget of 0 the failures found while the first replays are the skipped ones."""
    import time

    from sdpa_bwd.conformance import runner

    real = runner._replay

    def slow(*args, **kwargs):
        time.sleep(3.0)
        return real(*args, **kwargs)

    monkeypatch.setattr(runner, "_replay", slow)
    cases = [Case(f"p{i}", B=1, H_q=2, S_q=9 + (i % 3), D_qk=16, seed=i,
                  storage={"dq": Storage("bhsd", pad={"s": 2})} if i % 2 else ()) for i in range(8)]
    failing = [c.id for c in cases if c.storage]
    results = {r.case_id: r for r in run_isolated("test-breaks-padded", cases, progress=False, workers=1,
                                                  replay_limit=100, replay_budget=0.0)}
    replayed = [i for i in failing if "verdict" in (results[i].replay or {})]
    skipped = [i for i in failing if results[i].replay == {"skipped": "over --replay-budget 0 s"}]
    assert sorted(replayed + skipped) == sorted(failing), {i: results[i].replay for i in failing}
    assert replayed and replayed == failing[:len(replayed)], "the first failures replay while the cases run"
    assert failing[-1] in skipped, "the last failure, found while the only replay thread sleeps, must be skipped"
    assert all(results[i].verdict == "failed" for i in skipped)


def test_a_stopped_run_says_which_failures_it_did_not_replay(fault_engines):
    """A run stopped (SIGTERM, ^C, a time cap) while a failing case waits for its replay alone: the result
    the report holds says it was not replayed, instead of a replay of None (what a passing case has)."""
    cases = [Case(f"s{i}", B=1, H_q=2, S_q=13 if i == 1 else 9, D_qk=16, seed=i) for i in range(4)]
    seen = []

    def stop_at_the_fault(r):
        seen.append(r)
        if r.verdict == "fault":
            raise KeyboardInterrupt  # as the CLI's SIGTERM handler raises in the runner's thread

    with pytest.raises(KeyboardInterrupt):
        run_isolated("test-exits", cases, progress=False, workers=1, on_result=stop_at_the_fault)
    fault = next(r for r in seen if r.verdict == "fault")
    assert fault.replay == {"skipped": "the run was stopped before this case was replayed alone"}, fault.replay
    assert all(r.replay is None for r in seen if r is not fault)


def test_packed_control_keeps_values_and_drops_storage():
    c = BUILTIN_CASES[3]  # padded-rows
    p = packed_control(c)
    assert p.storage == () and (p.seed, p.sizes, p.dtype) == (c.seed, c.sizes, c.dtype)
    assert packed_control(BUILTIN_CASES[0]) is None  # already packed BHSD


# -- shards, workers, merge ------------------------------------------------------------------
def test_shards_partition_any_case_list_the_same_way_every_time():
    parts = [shard(BUILTIN_CASES, i, 3) for i in (1, 2, 3)]
    ids = [c.id for part in parts for c in part]
    assert sorted(ids) == sorted(c.id for c in BUILTIN_CASES) and len(ids) == len(set(ids))
    assert all(parts), "three shards of 14 cases: none empty"
    # a stable hash of the id alone: independent of the list's order and of the process
    assert {c.id for c in shard(list(reversed(BUILTIN_CASES)), 2, 3)} == {c.id for c in parts[1]}
    # pinned: a change of the hash would reshuffle every CI matrix's shards
    assert [c.id for c in shard(BUILTIN_CASES, 1, 3)] == ["grads-unlike-inputs", "causal-top-left",
                                                         "stats-padded-rank4", "fp16-negative-scale"]
    with pytest.raises(ValueError, match="need 1 <= i <= n"):
        parse_shard("0/3")


def test_two_workers_and_merged_shards_equal_one_worker(tmp_path):
    cases_file = tmp_path / "cases.json"
    dump_cases(TINY, cases_file)
    base = ["run", "--engine", "reference", "--cases", str(cases_file), "--no-progress"]
    assert main(base + ["--json", str(tmp_path / "one.json")]) == 0
    assert main(base + ["--workers", "2", "--json", str(tmp_path / "two.json")]) == 0
    for i in (1, 2):
        assert main(base + ["--in-process", "--shard", f"{i}/2", "--json", str(tmp_path / f"s{i}.json")]) == 0
    assert main(["merge", str(tmp_path / "s1.json"), str(tmp_path / "s2.json"), "-o", str(tmp_path / "m.json")]) == 0
    one = load_report(tmp_path / "one.json")
    assert [r["case"] for r in one["results"]] == sorted(c.id for c in TINY)
    for other in ("two.json", "m.json"):
        _assert_same_content(content(load_report(tmp_path / other)), content(one), other)


def _assert_same_content(got, want, name):
    assert len(got) == len(want), name
    for g, w in zip(got, want):
        diff = {k: (g.get(k), w.get(k)) for k in set(g) | set(w) if g.get(k) != w.get(k)}
        assert not diff, f"{name}, case {w['case']}: differs from the one-worker run in {diff}"


def test_merge_refuses_overlapping_shards(tmp_path):
    rep = {"schema": "sdpa-bwd.run/1", "results": [{"engine": "e", "case": "a", "verdict": "passed"}]}
    with pytest.raises(ValueError, match="case a of engine e is in two reports"):
        merge([rep, rep], ["x.json", "y.json"])


# -- outputs ----------------------------------------------------------------------------------
def test_junit_maps_verdicts(tmp_path, fault_engines):
    from sdpa_bwd.conformance.junit import write_junit

    results = run_cases(get_engine("test-breaks-padded"), TINY[:2], progress=False)
    # H_k != H_v: PyTorch's CPU kernel choice takes the math kernel, so the flash operator's adapter declines it
    results += run_cases(get_engine("torch-flash-cpu-op"), [BUILTIN_CASES[7]], progress=False)
    write_junit(results, tmp_path / "j.xml")
    root = ET.parse(tmp_path / "j.xml").getroot()
    suites = {s.get("name"): s for s in root}
    padded = suites["sdpa_bwd.test-breaks-padded"]
    assert (padded.get("tests"), padded.get("failures")) == ("2", "1")
    failing = padded.find("testcase[@name='tiny-1']/failure")
    assert failing is not None and "repro: sdpa-bwd run --engine test-breaks-padded --case tiny-1" in failing.text
    assert padded.find("testcase[@name='tiny-0']/failure") is None
    skipped = suites["sdpa_bwd.torch-flash-cpu-op"].find("testcase[@name='mqa-hk-ne-hv']/skipped")
    assert skipped is not None and "takes MATH, not its flash kernel" in skipped.get("message")


def test_cli_run_isolated_reports_fault_and_exit_code(tmp_path, fault_engines):
    cases_file = tmp_path / "cases.json"
    dump_cases([TINY[0], Case("crash", B=1, H_q=2, S_q=13, D_qk=16)], cases_file)
    rc = main(["run", "--engine", "test-aborts", "--cases", str(cases_file), "--no-progress", "--no-replay",
               "--reruns", "2", "--json", str(tmp_path / "r.json"), "--junit", str(tmp_path / "r.xml")])
    assert rc == 1
    rows = {r["case"]: r for r in load_report(tmp_path / "r.json")["results"]}
    assert rows["crash"]["verdict"] == "fault" and rows["crash"]["fault"]["exit"].startswith("killed by signal")
    assert rows["tiny-0"]["verdict"] == "passed" and rows["tiny-0"]["runs"] == 2
    assert ET.parse(tmp_path / "r.xml").getroot().find(".//testcase[@name='crash']/failure") is not None


def test_pytest_plugin_one_test_per_case_with_the_case_id(pytester, tmp_path):
    cases_file = tmp_path / "cases.json"
    dump_cases(BUILTIN_CASES[:3], cases_file)
    result = pytester.runpytest_subprocess("--sdpa-bwd-engine", "reference",
                                           "--sdpa-bwd-cases", str(cases_file), "-v", "-k", "not sbhd")
    result.assert_outcomes(passed=2, deselected=1)
    result.stdout.fnmatch_lines(["*sdpa_bwd*reference*::bhsd PASSED*", "*::bshd PASSED*"])


def test_pytest_plugin_collects_a_plan_level(pytester):
    from sdpa_bwd.conformance.plan import load_level

    ids = [c.id for c in load_level("quick")]
    result = pytester.runpytest_subprocess("--sdpa-bwd-engine", "reference", "--sdpa-bwd-level", "quick",
                                           "--collect-only", "-q")
    result.stdout.fnmatch_lines([f"*::{ids[0]}", f"*::{ids[-1]}", f"{len(ids)} tests collected*"])


def test_reports_kept_gzipped_load_like_plain_ones(tmp_path):
    """docs/data keeps device reports as .json.gz; matrix, merge and claims read them as they are."""
    import gzip
    import json

    rep = {"schema": "sdpa-bwd.run/1", "results": [{"engine": "e", "case": "a", "verdict": "passed"}]}
    (tmp_path / "r.json").write_text(json.dumps(rep))
    (tmp_path / "r.json.gz").write_bytes(gzip.compress(json.dumps(rep).encode()))
    assert load_report(tmp_path / "r.json.gz") == load_report(tmp_path / "r.json") == rep


def _check(name, mismatches, numel, nan=0):
    from sdpa_bwd.conformance.compare import TensorCheck
    return TensorCheck(name, 1.0, 0.0, 0.1, 0.1, 1.0, mismatches, numel, None, None, None, nan, 0)


def test_a_replay_takes_the_failure_with_the_fewest_elements_off_first():
    """A few elements off is how a race or stale state shows (the replay alone tells them apart); a tensor off
    wholesale fails alone too. Faults and errors, with no tensor checked, go first of all."""
    from sdpa_bwd.conformance.judge import CaseResult
    from sdpa_bwd.conformance.runner import _replay_priority

    def result(*checks):
        r = CaseResult(case_id="c", engine="e", verdict="failed")
        r.checks = {c.name: c for c in checks}
        return r

    few = result(_check("dq", 36, 32768), _check("dk", 4, 32768), _check("dv", 0, 32768))
    wholesale = result(_check("dq", 32768, 32768))
    nan_only = result(_check("dq", 0, 1000, nan=100))  # NaN counted where mismatches are not
    fault = result()
    order = sorted([("wholesale", wholesale), ("few", few), ("nan", nan_only), ("fault", fault)],
                   key=lambda x: _replay_priority(x[1]))
    assert [n for n, _ in order] == ["fault", "few", "nan", "wholesale"], [(n, _replay_priority(r)) for n, r in order]
    assert _replay_priority(few) == 40 / 65536, "the share over the failing tensors only"


def test_waiting_replays_go_in_priority_order(fault_engines, monkeypatch):
    """One replay thread: the first failure found is replayed at once (held there until every case has run), the
    others wait and are taken by ``_replay_priority`` (here the reverse of the plan's order), not first come first
    served."""
    import threading

    from sdpa_bwd.conformance import runner

    cases = [Case(f"p{i}", B=1, H_q=2, S_q=9 + (i % 3), D_qk=16, seed=i,
                  storage={"dq": Storage("bhsd", pad={"s": 2})} if i % 2 else ()) for i in range(8)]
    failing = [c.id for c in cases if c.storage]  # p1, p3, p5, p7
    real, taken, seen, all_run = runner._replay, [], [], threading.Event()

    def recorded(engine, case, *args, **kwargs):
        taken.append(case.id)
        assert all_run.wait(120), "the cases did not all run"
        return real(engine, case, *args, **kwargs)

    def on_result(r):
        seen.append(r.case_id)
        if len(seen) == len(cases):
            all_run.set()

    monkeypatch.setattr(runner, "_replay", recorded)
    monkeypatch.setattr(runner, "_replay_priority", lambda r: -int(r.case_id[1:]))
    results = {r.case_id: r for r in run_isolated("test-breaks-padded", cases, progress=False, workers=1,
                                                  replay_limit=100, on_result=on_result)}
    assert sorted(taken) == sorted(failing) and all("verdict" in results[i].replay for i in failing)
    assert taken == ["p1", "p7", "p5", "p3"], f"replays taken in the order {taken}"
