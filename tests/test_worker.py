"""Process isolation: an engine that aborts, exits, hangs or poisons its CUDA context costs
one case its verdict (``fault``, with what the process said), never the run."""

from pathlib import Path

import pytest

from sdpa_bwd.problem.cases import Case
from sdpa_bwd.conformance.runner import run_isolated
from sdpa_bwd.conformance.worker import IMPORTS_ENV, Worker, import_engine_modules

FAULT_ENGINES = str(Path(__file__).with_name("fault_engines.py"))
# S_q == 13 is the marker the fault engines misbehave on.
CASES = [Case("before", S_q=8, D_qk=16, seed=1), Case("crash", S_q=13, D_qk=16, seed=2),
         Case("after", S_q=9, D_qk=16, seed=3)]


@pytest.fixture(autouse=True)
def fault_engines(monkeypatch):
    monkeypatch.setenv(IMPORTS_ENV, FAULT_ENGINES)
    import_engine_modules()


def verdicts(results):
    return {r.case_id: r.verdict for r in results}


def test_abort_is_a_fault_with_the_signal_and_stderr_and_the_run_goes_on():
    results = run_isolated("test-aborts", CASES, progress=False, replay=False)
    assert verdicts(results) == {"before": "passed", "crash": "fault", "after": "passed"}
    crash = results[1]
    assert crash.fault["exit"] == "killed by signal SIGABRT (6)"
    assert crash.fault["stderr_tail"] == ["kernel: misaligned address at 0x7f00dead"]
    assert "misaligned address" in crash.message and crash.failing
    assert crash.previous_case == "before"
    assert results[2].previous_case is None  # ran in the replacement worker


def test_exit_code_is_reported():
    with Worker(timeout=60) as w:
        r = w.run("test-exits", CASES[1])
    assert r.verdict == "fault" and r.fault["exit_code"] == 7 and "exited with code 7" in r.message


def test_hang_past_the_time_limit_is_killed():
    # 4 s: the healthy cases take ~0.2 s, but CI shares 2 cores with other jobs
    results = run_isolated("test-hangs", CASES, progress=False, replay=False, timeout=4)
    assert verdicts(results) == {"before": "passed", "crash": "fault", "after": "passed"}
    assert results[1].fault["kind"] == "timeout" and "no answer within 4 s" in results[1].message


def test_poisoned_cuda_context_faults_and_the_next_case_gets_a_fresh_worker():
    # Without the fresh worker, "after" would fail with the sticky error from "crash".
    results = run_isolated("test-poisons-context", CASES, progress=False, replay=False)
    assert verdicts(results) == {"before": "passed", "crash": "fault", "after": "passed"}
    assert results[1].message.startswith("CUDA context poisoned")


def test_worker_is_replaced_only_when_it_dies():
    with Worker(timeout=60) as w:
        first = w.run("test-aborts", CASES[0], reruns=1)
        pid = w.pid
        w.run("test-aborts", CASES[2], reruns=1)
        assert w.pid == pid and w.started == 1 and first.verdict == "passed"
        assert w.run("test-aborts", CASES[1]).verdict == "fault" and not w.alive
        assert w.run("test-aborts", CASES[2]).verdict == "passed" and w.started == 2


def test_unknown_engine_is_the_callers_error_not_a_fault():
    from sdpa_bwd.conformance.worker import WorkerError

    with Worker(timeout=60) as w, pytest.raises(WorkerError, match="no engine named 'nope'"):
        w.run("nope", CASES[0])


@pytest.mark.gpu
def test_real_device_side_assert_poisons_the_context_and_only_that_case_faults():
    results = run_isolated("test-device-assert", CASES, progress=False, replay=False)
    assert verdicts(results) == {"before": "passed", "crash": "fault", "after": "passed"}
    assert results[1].message.startswith("CUDA context poisoned")


def test_one_gpu_per_worker_when_there_are_enough(monkeypatch):
    from sdpa_bwd.conformance.runner import _gpu_env

    monkeypatch.setenv("CUDA_VISIBLE_DEVICES", "3,5")
    assert _gpu_env(2) == [{"CUDA_VISIBLE_DEVICES": "3"}, {"CUDA_VISIBLE_DEVICES": "5"}]
    assert _gpu_env(3) == [{"CUDA_VISIBLE_DEVICES": g} for g in ("3", "5", "3")]  # round robin
    monkeypatch.setenv("CUDA_VISIBLE_DEVICES", "4")
    assert _gpu_env(3) == [{}, {}, {}]  # one GPU: every worker shares it
    assert _gpu_env(1) == [{}]


def test_prestarted_workers_are_the_ones_that_run_the_cases(monkeypatch):
    """The CLI starts its workers before it loads the plan (runner.prestart_workers); the run must
    take those over instead of starting its own, and close them when it is done."""
    from sdpa_bwd.conformance import runner

    pool = runner.prestart_workers(2, "test-aborts", timeout=60)
    pids = {w.pid for w in pool}
    spawned = []
    real_spawn = Worker.spawn
    monkeypatch.setattr(Worker, "spawn", lambda self: spawned.append(self) or real_spawn(self))
    seen = []
    real_run = Worker.run
    monkeypatch.setattr(Worker, "run", lambda self, *a, **k: seen.append(self.pid) or real_run(self, *a, **k))
    ok = [CASES[0], CASES[2]]
    results = run_isolated("test-aborts", ok, workers=2, pool=pool, progress=False, replay=False)
    assert verdicts(results) == {"before": "passed", "after": "passed"}
    assert spawned == [], "the run started processes of its own beside the prestarted ones"
    assert set(seen) <= pids and seen, (seen, pids)
    assert all(w.proc is None for w in pool), "the run left prestarted workers open"


def test_a_warm_up_that_fails_leaves_the_worker_usable(monkeypatch):
    from sdpa_bwd.conformance.worker import WARM_ENV

    with Worker(env={WARM_ENV: "no-such-engine"}, timeout=60) as w:
        assert w.run("test-aborts", CASES[0]).verdict == "passed"


def test_out_of_memory_beside_other_cases_runs_again_with_the_device_to_itself():
    # The full level on an H100 (2026-12-06) ended with 18 out-of-memory errors, 13 of them called order-dependent,
    # where each case passed alone: the run's memory, not the engine's fault.
    results = run_isolated("test-oom-once", CASES, progress=False, replay=False, memory_limit=1 << 30)
    assert verdicts(results) == {"before": "passed", "crash": "passed", "after": "passed"}
    assert results[1].memory_retry.startswith("out of memory beside other cases (OutOfMemoryError: CUDA out of memory")
    assert results[1].memory_retry.endswith("to itself: passed") and results[1].to_dict()["memory_retry"]
    assert results[0].memory_retry is None and results[2].memory_retry is None


def test_out_of_memory_alone_too_stays_an_error_and_is_no_order_effect():
    results = run_isolated("test-oom-always", CASES, progress=False, replay=True, memory_limit=1 << 30)
    crash = results[1]
    assert crash.verdict == "error" and crash.failing, crash.message
    assert crash.message.startswith("OutOfMemoryError") and crash.memory_retry.endswith("to itself: error")
    assert crash.replay["conclusion"] == "fails alone too"


def test_out_of_memory_in_sequence_that_passes_alone_takes_the_verdict_alone():
    from sdpa_bwd.conformance.runner import _replay

    first = run_isolated("test-oom-once", CASES[:2], progress=False, replay=False)[1]  # no gate: no rerun
    assert first.verdict == "error" and first.memory_retry is None and first.previous_case == "before"
    with Worker(timeout=60) as w:
        _replay("test-oom-once", CASES[1], first, source=None, reruns=2, controls=True, worker=w)
    assert first.verdict == "passed" and not first.failing, first.message
    assert first.replay["conclusion"].startswith("out of memory in its worker, passes alone")
    assert first.message.startswith("passed alone in a fresh process, after running out of memory")
