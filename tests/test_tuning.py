"""The autotuner's choice and cache (sdpa_bwd.engine.tuning), with a fake timer: the logic, not the speed."""

import dataclasses
import json

import pytest
import torch

from sdpa_bwd.engine import launch, tuning


@pytest.fixture
def cache(tmp_path, monkeypatch):
    path = tmp_path / "tuning.json"
    monkeypatch.setenv("SDPA_BWD_TUNE_CACHE", str(path))
    tuning.forget()
    yield path
    tuning.forget()


CANDIDATES = launch.backward_candidates(128, 128, torch.bfloat16, deterministic=False)


def test_picks_the_fastest_times_each_candidate_once_and_remembers(cache):
    speed = {c: 3.0 - i * 0.5 for i, c in enumerate(CANDIDATES)}  # the last is fastest
    timed = []

    def timer(fn):
        return fn()

    def run(cfg):
        timed.append(cfg)
        return speed[cfg]

    best = tuning.choose("k1", CANDIDATES, run, launch.BackwardConfig, timer=timer)
    assert best == CANDIDATES[-1] and timed == list(CANDIDATES)
    assert tuning.choose("k1", CANDIDATES, run, launch.BackwardConfig, timer=timer) == best
    assert len(timed) == len(CANDIDATES), "a cached key must not be timed again"
    tuning.forget()  # a new process: the file answers
    assert tuning.choose("k1", CANDIDATES, run, launch.BackwardConfig, timer=timer) == best
    assert len(timed) == len(CANDIDATES)
    entry = json.loads(cache.read_text())["entries"]["k1"]
    assert [t["ms"] for t in entry["timings"]] == sorted((t["ms"] for t in entry["timings"]), reverse=True)


def test_candidates_that_fail_are_recorded_and_all_failing_gives_none(cache):
    def run(cfg):
        if cfg.block_m1 == 32:
            raise RuntimeError("out of shared memory")
        return 1.0

    best = tuning.choose("k2", CANDIDATES, run, launch.BackwardConfig, timer=lambda fn: fn())
    assert best is not None and best.block_m1 != 32
    failures = json.loads(cache.read_text())["entries"]["k2"]["failures"]
    assert failures and all("out of shared memory" in f["error"] for f in failures)

    def broken(cfg):
        raise RuntimeError("no")

    assert tuning.choose("k3", CANDIDATES, broken, launch.BackwardConfig, timer=lambda fn: fn()) is None


def test_candidate_lists_start_with_the_table_and_have_no_repeats():
    for dqk, dv in ((16, 16), (64, 64), (128, 128), (256, 128), (256, 256)):
        for dtype in (torch.float16, torch.bfloat16, torch.float32):
            for det, causal in ((False, False), (True, False), (False, True), (True, True)):
                cands = launch.backward_candidates(dqk, dv, dtype, det, causal)
                assert cands[0] == launch.backward_config(dqk, dv, dtype, "cuda", det, causal)
                assert launch.backward_config(dqk, dv, dtype, "cuda", det, not causal) in cands, (
                    "the other mask class's table entry is a candidate too")
                assert len(set(cands)) == len(cands)
                assert all(c.dq_mode == "separate" for c in cands) or not det
            for causal in (False, True):
                fwd = launch.forward_candidates(dqk, dv, dtype, causal)
                table = launch.forward_config(dqk, dv, dtype, "cuda", causal)
                assert fwd[0] == table and len(set(fwd)) == len(fwd)
                assert launch.forward_config(dqk, dv, dtype, "cuda", not causal) in fwd
                assert dataclasses.replace(table, fused_softmax=not table.fused_softmax) in fwd


def test_key_separates_what_changes_the_best_config():
    base = dict(device="H200", dtype=torch.bfloat16, d_qk_pad=128, d_v_pad=128, band="none", gqa=False,
                deterministic=False, seq=4096)
    key = tuning.make_key("bwd", **base)
    for change in (dict(dtype=torch.float16), dict(d_qk_pad=256), dict(band="right-only"), dict(gqa=True),
                   dict(deterministic=True), dict(seq=8192)):
        assert tuning.make_key("bwd", **{**base, **change}) != key, change
    assert tuning.make_key("bwd", **{**base, "seq": 3000}) == key  # same power-of-two bucket


def test_off_by_default_and_never_on_the_cpu(monkeypatch, cache):
    monkeypatch.delenv("SDPA_BWD_AUTOTUNE", raising=False)
    tuning.enable(None)
    assert not tuning.enabled()
    tuning.enable(True)
    try:
        q = torch.randn(1, 1, 8, 16)
        called = []
        monkeypatch.setattr(tuning, "choose", lambda *a, **k: called.append(a))
        try:
            o, st = launch.attention_forward(q, q, q)
            launch.attention_backward(q, q, q, o, q, st)
        except NotImplementedError:  # CPU tensors without the interpreter: declined before any tuning
            assert not launch.interpreter_active()
        assert not called, "CPU tensors never tune (times under the interpreter mean nothing)"
    finally:
        tuning.enable(None)
