"""The isolated runner's schedule: cost-balanced chunks, costliest first, neighbours kept together,
and a per-device memory gate that lets a large case wait instead of refusing it."""

import threading
import time

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from sdpa_bwd.problem.cases import Case
from sdpa_bwd.conformance.schedule import CASE_OVERHEAD_S, MemoryGate, chunks, dispatch_order, same_sizes


def _cases(sizes):
    return [Case(f"c{i}", S_q=s, D_qk=16) for i, s in enumerate(sizes)]


@settings(max_examples=200, deadline=None)
@given(sizes=st.lists(st.sampled_from([8, 16, 24]), min_size=0, max_size=60),
       seconds=st.lists(st.floats(0, 50), min_size=60, max_size=60), workers=st.integers(1, 16))
def test_chunks_cover_every_case_once_in_order_and_never_split_same_size_neighbours(sizes, seconds, workers):
    cases = _cases(sizes)
    parts = chunks(cases, workers, seconds[:len(cases)])
    assert [i for p in parts for i in range(p.start, p.stop)] == list(range(len(cases)))
    assert all(len(p) > 0 for p in parts)
    for p in parts[1:]:
        assert not same_sizes(cases[p.start - 1], cases[p.start]), f"split at {p.start}"
    order = dispatch_order(parts)
    assert sorted(order, key=lambda p: p.start) == parts
    assert [p.seconds for p in order] == sorted((p.seconds for p in parts), reverse=True)


def test_uniform_cases_make_about_four_chunks_per_worker_and_a_heavy_case_goes_first():
    sizes = [8 + 8 * (i % 2) for i in range(64)]   # alternating sizes: any boundary is allowed
    cases = _cases(sizes)
    seconds = [0.1] * 64
    assert len(chunks(cases, 2, seconds)) == 8
    seconds[40] = 30.0
    first = dispatch_order(chunks(cases, 2, seconds))[0]
    assert first.start <= 40 < first.stop
    assert first.seconds == pytest.approx(30.0 + sum(0.1 for _ in range(len(first) - 1))
                                          + len(first) * CASE_OVERHEAD_S)


def test_same_size_neighbours_stay_in_one_chunk_even_when_costly():
    cases = _cases([8, 16, 16, 16, 24])     # c1..c3 differ only in values/strides: an order-effect run
    parts = chunks(cases, 4, [1.0, 9.0, 9.0, 9.0, 1.0])
    assert any(p.start <= 1 and p.stop >= 4 for p in parts), parts


def test_chunks_need_one_estimate_per_case():
    with pytest.raises(ValueError, match="2 cost estimates for 3 cases"):
        chunks(_cases([8, 8, 8]), 2, [1.0, 1.0])


def _taker(gate, order, name, n, hold, stop=None):
    def run():
        assert gate.reserve(n, stop)
        order.append(name)
        time.sleep(hold)
        gate.release(n)
    t = threading.Thread(target=run, daemon=True)  # a failing test must not hang on a blocked taker
    t.start()
    return t


def test_small_cases_go_past_a_large_one_waiting_for_memory_they_do_not_need():
    gate = MemoryGate(100, slots=2)           # small: up to 100 // 8 = 12
    assert gate.reserve(70)                   # a large case is running
    order = []
    big = _taker(gate, order, "big", 40, 0.0)  # needs 40, 30 free: waits
    time.sleep(0.1)
    small = _taker(gate, order, "small", 10, 0.0)
    small.join(5)
    assert order == ["small"]                 # went although big queued first
    gate.release(70)
    big.join(5)
    assert order == ["small", "big"] and gate.reserved == 0 and gate.peak <= 100


def test_large_requests_queue_in_order_and_the_largest_drains_the_device():
    gate = MemoryGate(100, slots=1)           # small: up to 25
    assert gate.reserve(20)                   # a small case is running
    order = []
    huge = _taker(gate, order, "huge", 90, 0.05)   # more than 3/4: drains when at the head
    time.sleep(0.1)
    mid = _taker(gate, order, "mid", 30, 0.0)      # large, queued behind huge
    small = _taker(gate, order, "small", 5, 0.0)   # fits now, but the device is draining
    time.sleep(0.1)
    assert order == []
    gate.release(20)
    for t in (huge, mid, small):
        t.join(5)
    assert order[0] == "huge" and set(order) == {"huge", "mid", "small"}
    assert order.index("mid") > order.index("huge")
    assert gate.reserved == 0 and gate.peak <= 100


def test_memory_gate_stops_waiting_when_the_run_is_stopped_and_refuses_the_impossible():
    gate = MemoryGate(100)
    assert gate.reserve(80)
    stop = threading.Event()
    got = []
    t = threading.Thread(target=lambda: got.append(gate.reserve(50, stop)), daemon=True)
    t.start()
    time.sleep(0.1)
    stop.set()
    t.join(5)
    assert got == [False] and gate.reserved == 80
    with pytest.raises(ValueError, match="over the gate's whole limit"):
        gate.reserve(101)
    with pytest.raises(ValueError, match="must be positive"):
        MemoryGate(0)


def test_isolated_run_on_two_workers_records_when_and_where_each_case_ran_and_the_phase_times():
    from sdpa_bwd.conformance.runner import run_isolated

    cases = [Case(f"t{i}", S_q=8 + 8 * (i % 3), D_qk=16, seed=i) for i in range(6)]
    timing = {}
    results = run_isolated("reference", cases, workers=2, progress=False, memory_limit=1 << 30, timing=timing)
    assert [r.case_id for r in results] == [c.id for c in cases]
    assert all(r.verdict == "passed" for r in results)
    assert {r.worker for r in results} <= {0, 1} and all(r.started >= 0 for r in results)
    assert timing["cases_s"] > 0 and 0 < timing["memory_peak_bytes"] <= 1 << 30


def test_measured_seconds_take_the_median_less_compiles_for_the_one_engine():
    from sdpa_bwd.conformance.schedule import measured_seconds

    def report(*rows):
        return {"results": [dict(zip(("case", "engine", "verdict", "seconds", "compiles"), r)) for r in rows]}

    reports = [report(("a", "triton", "passed", 2.0, {"compiled": 1, "compile_s": 1.5}),
                      ("b", "triton", "failed", 1.0, None), ("c", "triton", "skipped", 0.0, None),
                      ("a", "torch-math", "passed", 9.0, None)),
               report(("a", "triton", "passed", 0.7, None), ("b", "triton", "passed", 3.0, None)),
               report(("a", "triton", "passed", 0.6, None))]
    got = measured_seconds(reports, "triton")
    assert got == {"a": pytest.approx(0.6), "b": 3.0}   # a: median of 0.5, 0.7, 0.6; c never finished


def test_measured_seconds_replace_estimates_and_make_finer_chunks():
    from sdpa_bwd.conformance.schedule import MEASURED_CHUNKS_PER_WORKER, plan_chunks

    sizes = [8 + 8 * (i % 2) for i in range(64)]
    cases = _cases(sizes)
    estimates = [0.1] * 64
    assert len(plan_chunks(cases, 2, estimates)) == len(chunks(cases, 2, estimates))
    measured = {c.id: 0.1 + CASE_OVERHEAD_S for c in cases}
    measured[cases[50].id] = 20.0    # the model thought it cheap; the last run says otherwise
    parts = plan_chunks(cases, 2, estimates, measured)
    assert len(parts) > len(chunks(cases, 2, estimates))
    assert len(parts) <= 2 * MEASURED_CHUNKS_PER_WORKER + 1
    first = dispatch_order(parts)[0]
    assert first.start <= 50 < first.stop
    assert first.seconds == pytest.approx(20.0 + (len(first) - 1) * (0.1 + CASE_OVERHEAD_S))
    # a case the report lacks keeps the model's estimate
    del measured[cases[50].id]
    assert max(p.seconds for p in plan_chunks(cases, 2, estimates, measured)) < 5


def test_on_an_empty_triton_cache_each_kernel_familys_first_case_gets_its_own_chunk():
    """The quick level's cold run on an H100 (2026-12-06) waited 62 s on one worker that held three pairwise
    cases, each compiling its own kernels: with the compile estimate each such case is a chunk of its own,
    dispatched before the cheap ones; probes compile nothing."""
    from sdpa_bwd.conformance.schedule import cold_compile_seconds, compile_seconds

    cases = [Case(f"pair-{i}", D_qk=d, dtype=t) for i, (d, t) in
             enumerate([(16, "float32"), (64, "bfloat16"), (96, "float16"), (256, "float32")])]
    cases += [Case(f"same-{i}", D_qk=64, S_q=32 + i) for i in range(12)]  # one family (bf16 hd64) again
    cases.append(Case("probe", D_qk=48, purpose="probe", expected_rejection="the dims"))
    extra = cold_compile_seconds(cases)
    assert extra[:4] == [compile_seconds(c) for c in cases[:4]] and set(extra[4:]) == {0.0}
    assert extra[3] > extra[2] > extra[1]  # float32 hd256 > fp16 hd96 > bf16 hd64: the costliest dispatched first
    assert dispatch_order(chunks(cases, workers=4, seconds=[0.05 + e for e in extra]))[0].start == 3
    parts = dispatch_order(chunks(cases, workers=4, seconds=[0.05 + e for e in extra]))
    firsts = [p for p in parts[:4]]
    assert sorted(p.start for p in firsts) == [0, 1, 2, 3] and all(len(p) == 1 for p in firsts)


def test_the_cold_cache_check_reads_tritons_cache_folder(tmp_path, monkeypatch):
    from sdpa_bwd.engine.compiles import triton_cache_dir, triton_cache_empty

    monkeypatch.setenv("TRITON_CACHE_DIR", str(tmp_path / "cache"))
    assert triton_cache_dir() == str(tmp_path / "cache")
    assert triton_cache_empty()  # missing
    (tmp_path / "cache").mkdir()
    assert triton_cache_empty()  # empty
    (tmp_path / "cache" / "ABC123").mkdir()
    assert not triton_cache_empty()
    monkeypatch.delenv("TRITON_CACHE_DIR")
    monkeypatch.setenv("TRITON_HOME", str(tmp_path))
    assert triton_cache_dir() == str(tmp_path / ".triton" / "cache")
