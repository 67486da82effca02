"""The benchmarks' host-time helpers (benchmarks/common.py), which run without a GPU given a sync."""

import os
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "benchmarks"))

import common  # noqa: E402
import torch  # noqa: E402


def test_host_ms_times_the_call_and_syncs_before_each():
    events = []

    def fn():
        events.append("call")
        time.sleep(0.002)

    ms = common.host_ms(fn, calls=3, sync=lambda: events.append("sync"))
    assert 2.0 <= ms < 50.0, f"host_ms = {ms} ms for a 2 ms call"
    assert events == ["sync", "call"] * 3 + ["sync"], events


def _row(host_over_ms, S=2048, layout="bhsd"):
    return dict(B=4, H_q=16, H_kv=16, S=S, D_qk=64, D_v=64, causal=True, layout=layout, dtype="bfloat16",
                ratio_vs_cudnn=0.9, ours_ms=0.33, ours_host_over_ms=host_over_ms)


def test_summary_names_the_host_bound_rows():
    rows = [_row(0.95), _row(0.2, layout="bshd"), _row(None, layout="sbhd")]
    common.add_layout_spread(rows)
    s = common.summarize(rows, ["bf16"])
    assert s["host_bound_rows_bf16"] == [common.row_label(rows[0])]
    line = common.summary_lines(s, ["bf16"])[0]
    assert "host-bound" in line and common.row_label(rows[0]) in line
    assert "host-bound" not in common.summary_lines(common.summarize(rows[1:], ["bf16"]), ["bf16"])[0]


def _scripted_timer(script: dict):
    """(timer, order): a stand-in for do_bench that returns each function's next scripted time, by name, and
    records the order it was called in."""
    order = []
    times = {name: iter(ts) for name, ts in script.items()}

    def timer(fn):
        order.append(fn.__name__)
        return next(times[fn.__name__])

    return timer, order


def test_retime_interleaved_times_ours_then_the_peer_and_keeps_the_faster_of_each():
    timer, order = _scripted_timer({"ours": [1.5], "peer": [0.7]})

    def ours():
        pass

    def peer():
        pass

    t_ours, t_peer, ours_runs, peer_runs = common.retime_interleaved(ours, peer, 1.2, 0.9, timer=timer)
    assert order == ["ours", "peer"], "the second timing must run ours, then the peer, as the first did"
    assert (t_ours, t_peer) == (1.2, 0.7)
    assert ours_runs == [1.2, 1.5] and peer_runs == [0.9, 0.7]


def test_layout_twin_alternates_the_layout_and_bhsd_and_keeps_the_faster_of_each():
    timer, order = _scripted_timer({"lay": [1.30, 1.10], "bhsd": [1.00, 1.05]})

    def lay():
        pass

    def bhsd():
        pass

    ratio, runs = common.layout_twin(lay, bhsd, timer=timer)
    assert order == ["lay", "bhsd", "lay", "bhsd"], "the two sides must be timed in alternation"
    assert abs(ratio - 1.10) < 1e-12 and runs == {"layout": [1.30, 1.10], "bhsd": [1.00, 1.05]}, (ratio, runs)


def test_twin_timing_alternates_the_two_calls_and_divides_the_faster_of_each():
    timer, order = _scripted_timer({"det": [5.31, 5.20], "default": [4.51, 5.03]})

    def det():
        pass

    def default():
        pass

    ratio, (det_runs, default_runs) = common.twin_timing(det, default, timer=timer)
    assert order == ["det", "default", "det", "default"], "the two calls must be timed in alternation"
    assert abs(ratio - 5.20 / 4.51) < 1e-12 and det_runs == [5.31, 5.20] and default_runs == [4.51, 5.03]


def test_the_warm_up_reaches_past_the_power_caps_onset():
    # tools/drift_probe.py (2026-12-03, H200, docs/data/h200-2026-12-03d/run2): the cap engaged 150-200 ms into an
    # hd128 backward; a shorter warm-up lets a row's first timing run at the boost clock and its later ones ~10% slower
    assert common.WARMUP_MS >= 200, f"WARMUP_MS = {common.WARMUP_MS}: timings would straddle the power cap's onset"


def test_layout_spread_takes_the_twin_timing_over_the_rows_own():
    rows = [_row(0.2), _row(0.2, layout="sbhd"), _row(0.2, layout="bshd")]
    rows[1]["ours_ms"], rows[1]["ours_vs_bhsd_twin"] = 0.36, 1.01  # its own time says 1.09
    rows[2]["ours_ms"] = 0.363  # no twin: the rows' own times
    common.add_layout_spread(rows)
    assert rows[1]["ours_vs_bhsd"] == 1.01 and abs(rows[1]["ours_vs_bhsd_rows"] - 0.36 / 0.33) < 1e-12
    assert abs(rows[2]["ours_vs_bhsd"] - 1.1) < 1e-12 and rows[0]["ours_vs_bhsd"] == 1.0


def test_the_benchmarks_write_to_their_cards_folder_unless_told(monkeypatch):
    """One record per card (issue 55): bench_backward.py / bench_forward.py without --out write to
    benchmarks/results/<card>/, where the H100's and the H200's records are kept apart."""
    monkeypatch.setattr(torch.cuda, "get_device_name", lambda *a: "NVIDIA H100 80GB HBM3")
    assert common.results_dir(None) == os.path.join(os.path.dirname(os.path.abspath(common.__file__)), "results", "h100")
    assert common.results_dir("/tmp/x") == "/tmp/x"
