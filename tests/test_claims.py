"""Claims harvested from a passing run, enforced on the next; skip lists with reasons and staleness."""

import json
from pathlib import Path

import pytest

from sdpa_bwd.problem.cases import BUILTIN_CASES, dump_cases
from sdpa_bwd.conformance.claims import harvest, load_skips
from sdpa_bwd.cli import main
from sdpa_bwd.conformance.report import load_report
from sdpa_bwd.conformance.worker import IMPORTS_ENV, import_engine_modules

FAULT_ENGINES = str(Path(__file__).with_name("fault_engines.py"))
# bhsd passes on test-breaks-padded; padded-rows fails there (its dq rows are padded)
CASES = [BUILTIN_CASES[0], BUILTIN_CASES[3], BUILTIN_CASES[7]]


@pytest.fixture
def env(tmp_path, monkeypatch):
    monkeypatch.setenv(IMPORTS_ENV, FAULT_ENGINES)
    import_engine_modules()
    cases = tmp_path / "cases.json"
    dump_cases(CASES, cases)
    return tmp_path, ["run", "--in-process", "--no-progress", "--reruns", "1", "--cases", str(cases)]


def test_harvest_writes_one_claims_file_per_engine_and_arch(env):
    tmp, run = env
    assert main(run + ["--engine", "reference", "--engine", "torch-flash-cpu-op", "--json", str(tmp / "r.json")]) == 0
    assert main(["claims", "harvest", str(tmp / "r.json"), "--out", str(tmp / "claims")]) == 0
    ref = json.loads((tmp / "claims" / "reference" / "cpu.json").read_text())
    flash = json.loads((tmp / "claims" / "torch-flash-cpu-op" / "cpu.json").read_text())
    assert (ref["engine"], ref["arch"]) == ("reference", "cpu")
    assert sorted(ref["cases"]) == sorted(c.id for c in CASES)
    # H_k != H_v: PyTorch's CPU choice sends it to the math kernel, so the flash operator's adapter declines it
    assert "mqa-hk-ne-hv" not in flash["cases"] and flash["not_claimed"] == 1  # declined: no claim


def test_claimed_case_that_fails_now_is_a_broken_claim(env):
    tmp, run = env
    # The last release of test-breaks-padded passed all three (its report, engine renamed).
    assert main(run + ["--engine", "reference", "--json", str(tmp / "old.json")]) == 0
    old = json.loads((tmp / "old.json").read_text())
    for r in old["results"]:
        r["engine"] = "test-breaks-padded"
    (tmp / "old.json").write_text(json.dumps(old))
    harvest([tmp / "old.json"], tmp / "claims")
    rc = main(run + ["--engine", "test-breaks-padded", "--enforce-claims", str(tmp / "claims"),
                     "--json", str(tmp / "new.json")])
    assert rc == 1
    rows = {r["case"]: r for r in load_report(tmp / "new.json")["results"]}
    assert rows["padded-rows"]["claim_broken"].startswith("claim broken:")
    assert "now failed" in rows["padded-rows"]["claim_broken"] and rows["padded-rows"]["failing"]
    assert rows["bhsd"]["claim_broken"] is None


def test_claims_of_another_arch_are_refused(env):
    tmp, run = env
    (tmp / "c.json").write_text(json.dumps({"schema": "sdpa-bwd.claims/1", "engine": "reference", "arch": "sm_90",
                                            "cases": {}}))
    with pytest.raises(SystemExit, match="claims of reference on sm_90, but this run is reference on cpu"):
        main(run + ["--engine", "reference", "--enforce-claims", str(tmp / "c.json")])


def test_skip_list_known_failure_does_not_fail_the_run_and_stale_entries_are_reported(env, capsys):
    tmp, run = env
    skips = tmp / "skips.json"
    skips.write_text(json.dumps({"schema": "sdpa-bwd.skips/1", "entries": [
        {"case": "padded-rows", "arch": "*", "engine": "test-breaks-padded", "reason": "dq rows padded - issue 99"},
        {"case": "bhsd", "arch": "cpu", "reason": "was broken once"},
        {"case": "gone-from-the-plan", "arch": "*", "reason": "old"},
        {"case": "window", "arch": "sm_90", "reason": "another arch: not applied here"}]}))
    rc = main(run + ["--engine", "test-breaks-padded", "--skips", str(skips), "--json", str(tmp / "r.json")])
    out = capsys.readouterr().out
    assert rc == 0
    rows = {r["case"]: r for r in load_report(tmp / "r.json")["results"]}
    assert rows["padded-rows"]["verdict"] == "failed" and rows["padded-rows"]["skip_reason"] == \
        "dq rows padded - issue 99" and not rows["padded-rows"]["failing"]
    assert "stale skip entry" in out and "gone-from-the-plan" in out and "bhsd (engine test-breaks-padded" in out
    assert "window" not in out.split("stale skip entry", 1)[1]
    # the same, offline, against the report
    assert main(["skips", "check", str(skips), "--report", str(tmp / "r.json")]) == 1
    out = capsys.readouterr().out
    assert "2 stale" in out and "3 entries apply on cpu" in out


def test_skip_action_skip_does_not_run_the_case(env):
    tmp, run = env
    skips = tmp / "skips.json"
    skips.write_text(json.dumps({"schema": "sdpa-bwd.skips/1", "entries": [
        {"case": "crash", "arch": "*", "engine": "test-aborts", "action": "skip", "reason": "kills the worker"}]}))
    cases = tmp / "crash.json"
    from sdpa_bwd.problem.cases import Case

    dump_cases([Case("crash", B=1, H_q=2, S_q=13, D_qk=16)], cases)
    for mode in ([], ["--in-process"]):  # in-process, running it would kill pytest
        assert main(["run", "--engine", "test-aborts", "--cases", str(cases), "--no-progress", "--skips", str(skips),
                     "--json", str(tmp / "r.json")] + mode) == 0
        (row,) = load_report(tmp / "r.json")["results"]
        assert row["verdict"] == "skipped" and row["skip_reason"] == "kills the worker"


def test_skip_entries_need_a_reason(tmp_path):
    bad = tmp_path / "s.json"
    bad.write_text(json.dumps({"schema": "sdpa-bwd.skips/1", "entries": [{"case": "x", "arch": "*"}]}))
    with pytest.raises(ValueError, match="entry 0 \\(x\\) lacks reason"):
        load_skips(bad, "cpu")


def test_skips_harvest_quotes_the_run_and_keeps_other_entries(tmp_path):
    import json

    from sdpa_bwd.conformance.claims import harvest_skips, load_skips

    report = {"schema": "sdpa-bwd.run/1", "environment": {"arch": "sm_90", "device": "H200", "torch": "2.11"},
              "results": [
                  {"case": "a", "engine": "e", "verdict": "passed"},
                  {"case": "b", "engine": "e", "verdict": "fault", "message": "misaligned  address",
                   "replay": {"verdict": "fault"}, "layout_control": {"verdict": "passed"}},
                  {"case": "c", "engine": "e", "verdict": "failed", "message": "dq off"}]}
    path = tmp_path / "r.json"
    path.write_text(json.dumps(report))
    out = tmp_path / "skips.json"
    out.write_text(json.dumps({"schema": "sdpa-bwd.skips/1", "entries": [
        {"case": "z", "engine": "f", "arch": "*", "reason": "kept", "action": "known"}]}))
    data = harvest_skips([path], out, skip_faults=True)
    by_case = {e["case"]: e for e in data["entries"]}
    assert set(by_case) == {"b", "c", "z"}
    assert by_case["b"]["action"] == "skip" and by_case["c"]["action"] == "known"
    assert by_case["b"]["reason"] == ("fault on H200, torch 2.11 (r.json); alone in a fresh process: fault; "
                                      "packed BHSD control: passed: misaligned address")
    assert len(load_skips(out, "sm_90").entries) == 3
