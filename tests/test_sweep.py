"""benchmarks/sweep.py and plot_sweep.py without a GPU: the shape generator, the ratios and the summary on
synthetic timings, the card slug, and the plot of a small synthetic JSON."""

import contextlib
import json
import math
import os
import sys

import pytest

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "benchmarks"))

import plot_sweep  # noqa: E402
import sweep  # noqa: E402

N = 120  # a sample large enough that every axis value must appear (the decks cycle every 5-10 rows)


@pytest.fixture(scope="module")
def splits():
    return {s: sweep.generate(N, sweep.SPLIT_SEEDS[s], s) for s in sweep.SPLITS}


def test_generation_is_deterministic_and_a_prefix_of_a_longer_draw():
    a = sweep.generate(30, 7, "tuning")
    b = sweep.generate(30, 7, "tuning")
    assert a == b, "generate(30, seed 7) drew different rows on two calls: the sweep must be reproducible"
    longer = sweep.generate(45, 7, "tuning")
    assert longer[:30] == a, ("generate(45) does not start with generate(30)'s rows: --rows N must take the "
                              "first N rows of one fixed sequence")
    assert sweep.generate(30, 8, "tuning") != a, "seeds 7 and 8 drew the same rows: the seed is not used"


def test_the_splits_are_disjoint_as_shapes(splits):
    tuning = {sweep.shape_key(r) for r in splits["tuning"]}
    held = {sweep.shape_key(r) for r in splits["held_out"]}
    both = tuning & held
    assert not both, f"{len(both)} shapes are in both splits, e.g. {sorted(both)[:3]}: held-out rows must be unseen"
    for split, rows in splits.items():
        keys = [sweep.shape_key(r) for r in rows]
        assert len(set(keys)) == len(keys), f"{split} repeats a shape"
        wrong = [r["label"] for r in rows if sweep.split_of_shape(r) != split]
        assert not wrong, f"{split} holds rows that split_of_shape assigns to the other split: {wrong[:3]}"


def test_same_seed_for_both_splits_still_gives_disjoint_splits():
    a = {sweep.shape_key(r) for r in sweep.generate(60, 1, "tuning")}
    b = {sweep.shape_key(r) for r in sweep.generate(60, 1, "held_out")}
    assert not a & b, "with one seed for both splits, some shapes fell in both: the split must be by shape"


@pytest.mark.parametrize("split", sweep.SPLITS)
def test_every_axis_value_appears(splits, split):
    rows = splits[split]
    seen = {
        "head dim": {(r["D_qk"], r["D_v"]) for r in rows},
        "dtype": {r["dtype"] for r in rows},
        "layout": {r["layout"] for r in rows},
        "gqa": {r["gqa"] for r in rows},
        "mask": {(r["mask"], r["alignment"]) for r in rows},
    }
    want = {
        "head dim": set(sweep.HEAD_DIM_DECK),
        "dtype": {"bf16", "fp16"},
        "layout": {"bshd", "sbhd", "bhsd", "bshd_pad"},
        "gqa": {"mha", "2:1", "4:1", "8:1", "16:1", "mqa"},
        "mask": {("none", "top_left"), ("causal", "top_left"), ("causal", "bottom_right"),
                 ("window", "top_left"), ("window", "bottom_right")},
    }
    for axis in want:
        missing = want[axis] - seen[axis]
        assert not missing, (f"{split}: {N} rows have no {axis} {sorted(missing)} (saw {sorted(seen[axis])}); "
                             "every value must be swept: check the decks in sweep.py")
    assert any(r["S_q"] < r["S_kv"] for r in rows), f"{split}: no row with S_q < S_kv"
    assert any(r["S_q"] > r["S_kv"] for r in rows), f"{split}: no row with S_q > S_kv"
    assert any(r["S_q"] % 2 and r["S_kv"] % 2 for r in rows), f"{split}: no row with odd lengths"
    assert any(r["S_q"] % 128 == 0 for r in rows), f"{split}: no row with a round length"
    assert any(r["left_bound"] is not None for r in rows), f"{split}: no sliding window"


@pytest.mark.parametrize("split", sweep.SPLITS)
def test_lengths_are_weighted_short_and_span_the_range(splits, split):
    s = [r["S_q"] for r in splits[split]]
    short = sum(x <= 512 for x in s) / len(s)
    train = sum(1024 <= x <= 4096 for x in s) / len(s)
    assert 0.15 <= short <= 0.5, f"{split}: {short:.0%} of rows at S_q <= 512; the space weights them ~30%"
    assert 0.25 <= train <= 0.6, f"{split}: {train:.0%} of rows at 1k-4k; the space weights them ~40%"
    assert min(s) >= sweep.S_MIN and max(s) <= sweep.S_MAX
    assert max(s) > 8192, f"{split}: no row beyond 8k (longest {max(s)}): the long tail is missing"


@pytest.mark.parametrize("split", sweep.SPLITS)
def test_caps_hold_on_every_row(splits, split):
    for r in splits[split]:
        heads = r["B"] * r["H_q"]
        assert sweep.MIN_HEADS <= heads <= sweep.MAX_HEADS, f"{r['label']}: B x H_q = {heads}"
        assert r["bwd_flops"] <= sweep.MAX_BWD_FLOPS, f"{r['label']}: {r['bwd_flops']:.3g} backward FLOPs"
        assert r["est_bytes"] <= sweep.MAX_ROW_BYTES, f"{r['label']}: {r['est_bytes'] / 2**30:.2f} GiB"
        assert r["H_q"] % r["H_kv"] == 0, f"{r['label']}: H_q not a multiple of H_kv"
        assert sweep.empty_query_rows(r["S_q"], r["S_kv"], r["left_bound"], r["right_bound"], r["alignment"]) == 0
        if r["alignment"] == "bottom_right":
            assert r["S_kv"] > r["S_q"], f"{r['label']}: bottom-right with S_kv <= S_q"
        if r["mask"] == "window":
            assert 1 <= r["left_bound"] < r["S_kv"], f"{r['label']}: window {r['left_bound']} vs S_kv {r['S_kv']}"
        for key in ("B", "H_q", "H_kv", "S_q", "S_kv", "D_qk", "D_v", "dtype", "layout", "mask", "alignment",
                    "left_bound", "right_bound", "causal", "gqa", "kept_pairs", "id", "label"):
            assert key in r, f"{r.get('label')}: the row does not record {key}"


def test_kept_pairs_match_the_oracles_band():
    import torch

    from sdpa_bwd.problem.oracle import band_mask

    for S_q, S_kv, left, right, align in [(37, 37, None, 0, "top_left"), (20, 53, None, 0, "bottom_right"),
                                          (53, 20, None, 0, "top_left"), (64, 64, 9, 0, "top_left"),
                                          (31, 70, 13, 0, "bottom_right"), (16, 16, None, None, "top_left")]:
        want = int(band_mask(S_q, S_kv, left, right, align).sum())
        got = sweep.kept_pairs_band(S_q, S_kv, left, right, align)
        assert got == want, f"kept_pairs_band{(S_q, S_kv, left, right, align)} = {got}, band_mask keeps {want}"
        empty = int((~band_mask(S_q, S_kv, left, right, align).any(dim=1)).sum())
        assert bool(sweep.empty_query_rows(S_q, S_kv, left, right, align)) == bool(empty), (S_q, S_kv, left, align)
    assert torch.is_tensor(band_mask(4, 4, None, 0))


def test_card_slug():
    assert sweep.card_slug("NVIDIA H100 80GB HBM3") == "h100"
    assert sweep.card_slug("NVIDIA H200") == "h200"
    assert sweep.card_slug("NVIDIA A100-SXM4-80GB") == "a100"
    assert sweep.card_slug("Some Card") == "some-card"


def _timed(r, ours, cudnn=None, flash=None, efficient=None, det=None, ours_mem=None, cudnn_mem=None, fwd=1.0):
    """r with synthetic times (ms): a peer's None means it declined."""
    r = dict(r, ours_api_bwd_ms=ours, ours_launcher_bwd_ms=ours * 0.9, ours_api_fwd_ms=ours / 2.5 * fwd,
             ours_launcher_fwd_ms=ours / 2.6)
    for name, t in (("cudnn", cudnn), ("flash", flash), ("efficient", efficient)):
        if t is not None:
            r[f"{name}_bwd_ms"], r[f"{name}_fwd_ms"] = t, t / 2.5
    if det is not None:
        r["det_over_default"] = det
    if ours_mem:
        r["ours_peak_bytes"], r["cudnn_peak_bytes"] = ours_mem, cudnn_mem
    return sweep.add_ratios(r)


@pytest.fixture
def timed_rows():
    rows = sweep.generate(6, 3, "tuning")
    return [
        _timed(rows[0], 1.0, cudnn=1.2, flash=1.5, det=1.05, ours_mem=100, cudnn_mem=100),
        _timed(rows[1], 2.0, cudnn=1.6, det=1.30, ours_mem=130, cudnn_mem=100),   # 0.8 vs cuDNN: slow
        _timed(rows[2], 1.0, cudnn=None, flash=0.95, efficient=1.1, det=1.10),      # cuDNN declines
        _timed(rows[3], 1.0, cudnn=None, efficient=0.5),                             # declines; efficient 2x
        _timed(rows[4], 1.0, cudnn=1.0, fwd=2.0),
        dict(rows[5], ours_error="RuntimeError: synthetic"),
    ]


def test_ratios_from_synthetic_times(timed_rows):
    a, b, c, d, e, _ = timed_rows
    assert a["ratio_vs_cudnn"] == pytest.approx(1.2) and a["best_peer"] == "cudnn"
    assert a["ratio_vs_best_peer"] == pytest.approx(1.2) and a["ratio_vs_best_other_peer"] == pytest.approx(1.5)
    assert a["mem_ratio_vs_cudnn"] == pytest.approx(1.0)
    assert b["ratio_vs_cudnn"] == pytest.approx(0.8)
    assert c["ratio_vs_cudnn"] is None, "cuDNN declined: ratio_vs_cudnn must be null"
    assert c["best_peer"] == "flash" and c["ratio_vs_best_peer"] == pytest.approx(0.95)
    assert d["ratio_vs_best_other_peer"] == pytest.approx(0.5)
    assert e["fwd_ratio_vs_cudnn"] == pytest.approx(0.5), "ours' forward 2x slower: forward ratio 0.5"


def test_summary_reports_the_bars(timed_rows):
    s = sweep.summarize(timed_rows)
    assert s["rows"] == 6 and s["rows_ours_ran"] == 5 and len(s["ours_failed"]) == 1
    bwd = s["bwd_vs_cudnn"]
    assert bwd["rows"] == 3
    assert bwd["geomean"] == pytest.approx((1.2 * 0.8 * 1.0) ** (1 / 3))
    assert bwd["worst"] == pytest.approx(0.8) and bwd["worst_row"] == timed_rows[1]["label"]
    assert bwd["rows_below"] == [timed_rows[1]["label"]]
    other = s["bwd_vs_best_other_where_cudnn_declines"]
    assert other["rows"] == 2 and other["geomean"] == pytest.approx(math.sqrt(0.95 * 0.5))
    assert len(other["rows_below"]) == 1, "efficient 2x faster than ours on a declined row: below 0.90"
    assert s["fwd_vs_cudnn"]["worst"] == pytest.approx(0.5)
    det = s["det_over_default"]
    assert det["rows"] == 3 and det["rows_within"] == 2 and det["worst"] == pytest.approx(1.30)
    mem = s["mem_vs_cudnn"]
    assert mem["rows"] == 2 and mem["rows_within"] == 1 and mem["rows_outside"] == [timed_rows[1]["label"]]
    assert s["cudnn_declined"] == [timed_rows[2]["label"], timed_rows[3]["label"]]
    text = "\n".join(sweep.summary_lines("tuning", s))
    for piece in ("backward vs cuDNN", "geomean(peer/ours) 0.986", "1 below 0.90", "where cuDNN declines",
                  "forward vs cuDNN", "2/3 rows within 1.15", "1/2 rows within 1.10", "OURS FAILED"):
        assert piece in text, f"the summary lacks {piece!r}:\n{text}"


def test_summary_of_no_rows_is_empty_not_an_error():
    s = sweep.summarize([])
    assert s["bwd_vs_cudnn"]["geomean"] is None and s["bwd_vs_cudnn"]["rows"] == 0
    assert sweep.summary_lines("held_out", s)


def test_record_is_json_with_the_record_fields(timed_rows):
    meta = dict(card="h100", device="NVIDIA H100 80GB HBM3", torch="2.13.0", triton="3.9.0", cudnn=91900,
                git="abc", date="2026-12-06T07:00:00Z")
    rec = json.loads(json.dumps(sweep.record("held_out", 55002, timed_rows, meta)))
    for key in ("card", "torch", "triton", "cudnn", "git", "date", "split", "seed", "summary", "rows"):
        assert key in rec, f"the record lacks {key}"
    assert rec["rows"][0]["ratio_vs_cudnn"] == pytest.approx(1.2)
    assert rec["rows"][2]["ratio_vs_cudnn"] is None


def test_interleaved_times_round_by_round_and_takes_medians():
    order = []
    times = {"ours": iter([3.0, 1.0, 2.0]), "peer": iter([5.0, 4.0, 6.0])}

    def timer(fn):
        name = fn()
        order.append(name)
        return next(times[name])

    def bad():
        raise RuntimeError("declined")

    out = sweep.interleaved({"ours": lambda: "ours", "peer": lambda: "peer", "bad": bad}, 3,
                            timer=lambda fn: timer(fn) if fn is not bad else fn())
    assert order == ["ours", "peer"] * 3, f"timing order {order}: must alternate round by round"
    assert out["ours"][0] == 2.0 and out["peer"][0] == 5.0
    assert out["bad"][0] is None and "declined" in out["bad"][1]


def test_a_mode_is_set_for_the_whole_round_not_around_each_call():
    """Deterministic mode is timed as users run it: set once, then many calls. A toggle around each call counted
    its own host time into the mode's ratio."""
    events = []

    @contextlib.contextmanager
    def mode():
        events.append("enter")
        yield
        events.append("exit")

    def timer(fn):
        for _ in range(3):  # a timer calls fn many times a round
            fn()
        return 1.0

    sweep.interleaved({"det": lambda: events.append("det"), "default": lambda: events.append("default")}, 2,
                      timer=timer, modes={"det": mode})
    assert events == (["enter", "det", "det", "det", "exit", "default", "default", "default"] * 2), events


def test_list_prints_rows_without_a_gpu(capsys):
    assert sweep.main(["--split", "held_out", "--rows", "3", "--list"]) == 0
    out = capsys.readouterr().out
    assert "held_out-000" in out and "held_out-002" in out and "tuning" not in out


def test_only_selects_rows_by_id_and_names_a_stray_one(capsys):
    assert sweep.main(["--split", "both", "--rows", "30", "--list", "--only", "held_out-023",
                       "--only", "held_out-004"]) == 0
    out = capsys.readouterr().out
    listed = [line.split()[0] for line in out.splitlines() if line.startswith("held_out-")]
    assert listed == ["held_out-004", "held_out-023"] and "tuning" not in out, out
    with pytest.raises(SystemExit, match="no row held_out-099"):
        sweep.main(["--split", "held_out", "--rows", "30", "--list", "--only", "held_out-099"])
    with pytest.raises(SystemExit, match="not a row id of held_out"):
        sweep.main(["--split", "held_out", "--list", "--only", "tuning-001"])


def test_plot_renders_a_png(tmp_path, timed_rows):
    rows = [r for r in timed_rows if not r.get("ours_error")]
    rows[0] = dict(rows[0], dtype="bf16")
    rows[1] = dict(rows[1], dtype="fp16")
    path = tmp_path / "sweep_tuning.json"
    path.write_text(json.dumps(dict(split="tuning", card="h100", rows=rows)))
    assert plot_sweep.main([str(path)]) == 0
    png = tmp_path / "sweep_tuning.png"
    assert png.exists() and png.stat().st_size > 10_000, "plot_sweep wrote no PNG (or an empty one)"
    assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


@pytest.mark.parametrize("layout,mask,alignment,H_kv,S_kv", [
    ("bshd_pad", "window", "bottom_right", 1, 41),   # MQA, a window, bottom-right, S_kv > S_q: SDPA gets a mask
    ("sbhd", "causal", "top_left", 2, 23),            # GQA 2:1, S_q > S_kv, is_causal
])
def test_run_row_on_the_cpu(monkeypatch, layout, mask, alignment, H_kv, S_kv):
    """run_row end to end on the CPU (our kernels under the Triton interpreter, SDPA's CPU kernels as peers),
    with a stand-in timer: the paths it times, the peers it tries and the fields it records."""
    import torch

    monkeypatch.setattr(sweep, "DEVICE", "cpu")
    monkeypatch.setattr(sweep, "_flex", lambda r, gqa: (_ for _ in ()).throw(RuntimeError("no compile here")))
    calls = []

    def timer(fn):
        fn()
        calls.append(fn)
        return 1.0 + 0.1 * len(calls)

    r = dict(B=1, H_q=2, H_kv=H_kv, S_q=33, S_kv=S_kv, D_qk=32, D_v=32, dtype="fp16", layout=layout, mask=mask,
             alignment=alignment, left_bound=9 if mask == "window" else None, right_bound=0, causal=True)
    r["gqa"], r["kept_pairs"] = "x", sweep.kept_pairs_band(33, S_kv, r["left_bound"], 0, alignment)
    r["label"] = sweep.row_label(r)
    torch.manual_seed(0)
    out = sweep.run_row(r, rounds=2, all_peers=False, timer=timer)
    # cuDNN has no CPU kernel: it declines and the other SDPA backends are tried (flash runs on the CPU)
    assert "cudnn_error" in out and out["ratio_vs_cudnn"] is None, out.get("cudnn_error")
    assert out["peers_tried"][:3] == ["cudnn", "flash", "efficient"], out["peers_tried"]
    ran = [p for p in ("flash", "efficient") if out.get(f"{p}_bwd_ms")]
    assert ran, f"no SDPA backend ran the row on the CPU: {[(p, out.get(p + '_error')) for p in ('flash', 'efficient')]}"
    for p in ran:
        assert out[f"{p}_rel_err_vs_ours"] < 2e-2, f"{p}'s gradients differ from ours: {out[f'{p}_rel_err_vs_ours']}"
    for key in ("ours_api_bwd_ms", "ours_launcher_bwd_ms", "ours_api_fwd_ms", "ours_launcher_fwd_ms",
                "det_over_default", "ratio_vs_best_peer", "fwd_ratio_vs_best_peer", "ours_host_ms"):
        assert out.get(key) is not None, f"run_row recorded no {key}"
    assert len(out["ours_api_bwd_ms_runs"]) == 2, "two rounds: two timings of each path"
    json.dumps(out)


def test_timing_without_cuda_says_where_to_run_it(capsys):
    import torch

    if torch.cuda.is_available():
        pytest.skip("this machine has CUDA: the timing would run")
    assert sweep.main(["--split", "tuning", "--rows", "2", "--out", "/nonexistent"]) == 2
    err = capsys.readouterr().err
    assert "no CUDA device" in err and "--list" in err, err
