"""The run command's machine-dependent guard: cases too large for this machine are skipped, saying why."""

import json
import os
from pathlib import Path

import pytest

from sdpa_bwd.cli import main
from sdpa_bwd.conformance.worker import IMPORTS_ENV

# tests/fault_engines.py's engines, test-slow among them, in the runner and its workers
SLOW_ENGINE_ENV = {**os.environ, IMPORTS_ENV: str(Path(__file__).with_name("fault_engines.py"))}


def test_cases_over_the_memory_limit_are_skipped_with_the_reason(tmp_path):
    out = tmp_path / "r.json"
    code = main(["run", "--level", "full", "--engine", "reference", "--filter", "overflow", "--memory-limit", "1",
                 "--no-progress", "--in-process", "--json", str(out)])
    results = json.loads(out.read_text())["results"]
    assert code == 0 and results
    assert {r["verdict"] for r in results} == {"skipped"}
    assert all("over this machine's limit of 1.0 GiB" in r["message"] for r in results)


def test_sigterm_mid_run_leaves_a_partial_report(tmp_path):
    """A CI step or `timeout` that stops a run still gets the cases finished so far, marked as such."""
    import json
    import os
    import signal
    import subprocess
    import sys
    import time

    out = tmp_path / "partial.json"
    proc = subprocess.Popen([sys.executable, "-m", "sdpa_bwd.cli", "run", "--engine", "test-slow", "--level",
                             "standard", "--no-progress", "--json", str(out)],
                            stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, env=SLOW_ENGINE_ENV)
    deadline = time.time() + 120
    while time.time() < deadline and "cases, " not in (line := proc.stdout.readline()):
        pass
    time.sleep(10)  # some cases finish (a quarter of a second each, past the worker's start), most do not
    proc.send_signal(signal.SIGTERM)
    rest, _ = proc.communicate(timeout=120)
    assert proc.returncode == 3, rest
    report = json.loads(out.read_text())
    assert "stopped" in report["interrupted"] and "the report holds those" in report["interrupted"]
    assert 0 < len(report["results"]) < 268, report["interrupted"]


def test_sigterm_to_the_whole_process_group_leaves_no_fault_the_engine_did_not_cause(tmp_path):
    """`timeout` signals the runner's whole process group. The workers live in sessions of their
    own, so the runner stops, kills them, and the cases in flight get no verdict (a cold run of
    2026-12-01 on the H200 recorded 4 such cases as `fault`, "worker killed by signal SIGTERM")."""
    import json
    import os
    import signal
    import subprocess
    import sys
    import time

    out = tmp_path / "partial.json"
    proc = subprocess.Popen([sys.executable, "-m", "sdpa_bwd.cli", "run", "--engine", "test-slow", "--level",
                             "standard", "--workers", "2", "--no-progress", "--json", str(out)],
                            stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, start_new_session=True,
                            env=SLOW_ENGINE_ENV)
    deadline = time.time() + 120
    while time.time() < deadline and "cases, " not in (line := proc.stdout.readline()):
        pass
    time.sleep(10)  # some cases finish, two are in flight
    os.killpg(proc.pid, signal.SIGTERM)
    rest, _ = proc.communicate(timeout=120)
    assert proc.returncode == 3, rest
    report = json.loads(out.read_text())
    verdicts = [r["verdict"] for r in report["results"]]
    assert 0 < len(verdicts) < 268, report["interrupted"]
    assert "fault" not in verdicts, [r["message"] for r in report["results"] if r["verdict"] == "fault"]


def test_the_memory_limit_is_per_device_and_not_split_between_workers(monkeypatch):
    """Workers sharing a GPU share it through the runner's memory gate, so a case that fits the GPU
    runs (splitting the limit 12 ways in advance left 13 cases of the full level unrun, 2026-12-01, H200)."""
    import torch

    from sdpa_bwd.cli import _memory_limit_bytes, _over_memory
    from sdpa_bwd.conformance.plan import load_level
    from sdpa_bwd.conformance.plan.cost import case_cost

    class OnCuda:
        def device(self):
            return "cuda"

    monkeypatch.setattr(torch.cuda, "mem_get_info", lambda *a: (130 << 30, 140 << 30))
    monkeypatch.setattr(torch.cuda, "is_available", lambda: True)
    limit = _memory_limit_bytes(OnCuda(), None)
    assert limit == int(0.8 * (130 << 30))
    assert _memory_limit_bytes(OnCuda(), 3.0) == 3 << 30
    full = load_level("full")
    biggest = max(full, key=lambda c: case_cost(c).bytes)
    assert case_cost(biggest).bytes > limit // 12           # what the old split refused
    assert biggest.id not in _over_memory(full, limit)       # fits the device: runs
    assert biggest.id in _over_memory(full, case_cost(biggest).bytes - 1)


def test_timings_from_an_earlier_report_reach_the_scheduler(tmp_path, monkeypatch):
    """--timings REPORT: the measured seconds of that run (a .json.gz as docs/data keeps them, too)
    replace the cost model's for the engine being run."""
    import gzip
    import json

    from sdpa_bwd import cli
    from sdpa_bwd.conformance import runner

    report = {"schema": "sdpa-bwd.run/1", "results": [
        {"case": "bhsd", "engine": "reference", "verdict": "passed", "seconds": 4.5},
        {"case": "bhsd", "engine": "triton", "verdict": "passed", "seconds": 9.0}]}
    path = tmp_path / "earlier.json.gz"
    path.write_bytes(gzip.compress(json.dumps(report).encode()))
    seen = {}

    def fake_run_isolated(name, cases, **kw):
        seen["measured"] = kw.get("measured")
        return []

    monkeypatch.setattr(runner, "run_isolated", fake_run_isolated)
    cli.main(["run", "--engine", "reference", "--case", "bhsd", "--workers", "2", "--no-progress",
              "--timings", str(path)])
    assert seen["measured"] == {"bhsd": 4.5}
    cli.main(["run", "--engine", "reference", "--case", "bhsd", "--workers", "2", "--no-progress"])
    assert seen["measured"] is None


@pytest.mark.parametrize("cuda, given, runs", [(False, None, 1), (True, None, 2), (False, 3, 3), (True, 1, 1)])
def test_runs_per_case_default_to_two_with_cuda_and_one_without(cuda, given, runs, monkeypatch, tmp_path):
    """Without CUDA our kernels run in Triton's interpreter, one program at a time: a rerun there can only find
    state kept between calls, which the order probes look for, at 45% of a case's time (cli.default_reruns).
    --reruns N still sets it."""
    import torch

    from sdpa_bwd import cli
    from sdpa_bwd.conformance import runner

    with monkeypatch.context() as m:
        m.setattr(torch.cuda, "is_available", lambda: cuda)
        default = cli.default_reruns()
    assert default == (2 if cuda else 1)
    monkeypatch.setattr(cli, "default_reruns", lambda: default)  # the rest of the run stays on this machine
    seen = {}

    def fake_run_cases(engine, cases, **kw):
        seen["reruns"] = kw["reruns"]
        return []

    monkeypatch.setattr(runner, "run_cases", fake_run_cases)
    out = tmp_path / "r.json"
    argv = ["run", "--engine", "reference", "--in-process", "--case", "gqa", "--no-progress", "--json", str(out)]
    cli.main(argv + (["--reruns", str(given)] if given else []))
    assert seen["reruns"] == runs
    assert json.loads(out.read_text())["reruns"] == runs


def test_a_sigterm_after_the_cases_still_leaves_the_whole_report(tmp_path, monkeypatch):
    """On the H200 (2026-12-01, docs/data/h200-2026-12-01e): torch-cudnn's full level finished every case and replay,
    then the call's limit sent SIGTERM while the 585-row table printed, and the report was lost. Reports come first
    now."""
    import json
    import os
    import signal

    from sdpa_bwd import cli
    from sdpa_bwd.conformance import report

    def table_then_stop(results, console):
        os.kill(os.getpid(), signal.SIGTERM)   # delivered here, in the main thread, before this returns

    monkeypatch.setattr(report, "print_table", table_then_stop)
    out = tmp_path / "r.json"

    class Killed(Exception):
        pass

    def default(signum, frame):   # stands in for the default action (the process dies) without killing pytest
        raise Killed("SIGTERM reached the handler the runner had before: the report was not written first")

    before = signal.signal(signal.SIGTERM, default)
    try:
        code = cli.main(["run", "--engine", "reference", "--in-process", "--case", "gqa", "--no-progress",
                         "--json", str(out)])
        assert signal.getsignal(signal.SIGTERM) is default, "the runner left its SIGTERM handler installed"
    finally:
        signal.signal(signal.SIGTERM, before)
    assert code == 3
    results = json.loads(out.read_text())["results"]
    assert [r["case"] for r in results] == ["gqa"] and results[0]["verdict"] == "passed"



@pytest.mark.skipif(__import__("torch").cuda.is_available(), reason="checks a machine without CUDA")
@pytest.mark.parametrize("engine, level", [("torch-cudnn", None), ("torch-flex", "varlen")])
def test_a_cuda_only_adapter_declines_every_case_on_a_machine_without_cuda(engine, level, tmp_path):
    """The README's promise: the GPU adapters decline on a machine without CUDA. `sdpa-bwd run` crashed instead,
    asking torch.cuda for the free memory of a device this machine does not have (found 2026-12-06)."""
    report = tmp_path / "r.json"
    args = ["run", "--engine", engine, "--no-progress", "--json", str(report), "--workers", "1"]
    args += ["--level", level, "--filter", "varlen-00"] if level else ["--case", "bhsd"]
    assert main(args) == 0
    results = json.loads(report.read_text())["results"]
    assert results and {r["verdict"] for r in results} <= {"declined", "rejected"}
    assert any("GPU machine" in " ".join(r.get("reasons", [])) or "CUDA" in r.get("message", "") for r in results)


@pytest.mark.parametrize("argv, said, fix", [
    (["run", "--engine", "nosuch", "--level", "quick"], "no engine named 'nosuch'", "pass one of those"),
    (["run", "--level", "weekly"], "no level 'weekly'", "pass one of those"),
    (["repro", "pair-002", "--engine", "nosuch", "--level", "quick"], "no engine named 'nosuch'", "pass one of those"),
    (["diagnose", "pair-002", "--engine", "nosuch", "--level", "quick"], "no engine named 'nosuch'",
     "pass one of those"),
    (["matrix", "/nonexistent/run.json"], "/nonexistent/run.json: no such file", "check the path"),
    (["repros", "/nonexistent/run.json", "--out", "/tmp/unused"], "/nonexistent/run.json: no such file",
     "check the path"),
])
def test_a_mistyped_engine_level_or_path_says_so_without_a_traceback(argv, said, fix):
    """A mistyped engine, level or report path ends the command with one line naming it, the rule or choices and
    what to do, not a Python traceback (2026-12-07: `run` and `diagnose` raised the unknown engine's ValueError,
    `matrix` and `repros` a FileNotFoundError, and `repro` wrote a file for an engine that does not exist)."""
    with pytest.raises(SystemExit) as e:
        main(argv)
    msg = str(e.value.code)
    assert said in msg and fix in msg, msg
