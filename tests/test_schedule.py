"""The isolated runner's schedule: cost-balanced chunks, costliest first, neighbours kept together,
and a per-device memory gate that lets a large case wait instead of refusing it."""

import threading
import time

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from sdpa_bwd.cases import Case
from sdpa_bwd.schedule import CASE_OVERHEAD_S, MemoryGate, chunks, dispatch_order, same_sizes


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


def test_memory_gate_lets_a_large_request_wait_and_later_small_ones_queue_behind_it():
    gate = MemoryGate(100)
    assert gate.reserve(30)                      # a small case is running
    order = []

    def take(name, n, hold):
        assert gate.reserve(n)
        order.append(name)
        time.sleep(hold)
        gate.release(n)

    big = threading.Thread(target=take, args=("big", 90, 0.05))
    big.start()
    time.sleep(0.1)                              # big is now waiting for the 30 to be released
    small = threading.Thread(target=take, args=("small", 10, 0.0))
    small.start()
    time.sleep(0.1)
    assert order == []                           # small fits beside the 30 but waits behind big
    gate.release(30)
    big.join(5)
    small.join(5)
    assert order == ["big", "small"]
    assert gate.reserved == 0 and gate.peak == 100   # small then fitted beside big: never past the limit


def test_memory_gate_stops_waiting_when_the_run_is_stopped_and_refuses_the_impossible():
    gate = MemoryGate(100)
    assert gate.reserve(80)
    stop = threading.Event()
    got = []
    t = threading.Thread(target=lambda: got.append(gate.reserve(50, stop)))
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
    from sdpa_bwd.runner import run_isolated

    cases = [Case(f"t{i}", S_q=8 + 8 * (i % 3), D_qk=16, seed=i) for i in range(6)]
    timing = {}
    results = run_isolated("reference", cases, workers=2, progress=False, memory_limit=1 << 30, timing=timing)
    assert [r.case_id for r in results] == [c.id for c in cases]
    assert all(r.verdict == "passed" for r in results)
    assert {r.worker for r in results} <= {0, 1} and all(r.started >= 0 for r in results)
    assert timing["cases_s"] > 0 and 0 < timing["memory_peak_bytes"] <= 1 << 30
