"""Backward-only time and TFLOP/s: our Triton engine beside PyTorch's cuDNN, flash and
efficient SDPA backends, in one run on one GPU (issue 7's measurements in one call).

    PYTHONPATH=src python3 benchmarks/bench_backward.py --out benchmarks/results
    PYTHONPATH=src python3 benchmarks/bench_backward.py --out /tmp/b --dtypes bf16 --layouts bhsd --rows D192
    PYTHONPATH=src python3 benchmarks/bench_backward.py --sweep      # config sweep first

Rows: every (shape, causal, layout, dtype) of SHAPES x {non-causal, causal} x --layouts x
--dtypes (bf16 and fp16 by default), --rows selecting shapes by label substring
('B2-H16/16-S4096-D128/128-nc'; e.g. --rows D192 or --rows S4096-D128,-causal).
SHAPES include GQA (32/8, at head dims 128 and 64), head dim 64 and DeepSeek-V3's D_qk = 192 / D_v = 128
(V, dO, O and dV have D_v). A peer that declines a row records its error and the run goes on.

FLOPs: backward = 2.5 x forward, forward = 2 * kept_pairs * (D_qk + D_v) per (b, h_q),
kept pairs counted exactly from the band (causal is not "half").
Times: median of ``triton.testing.do_bench`` with warm-up 250 ms and rep 40 ms (about
five timed calls on the slowest rows; --warmup / --rep change them; the warm-up puts every
timing at the card's power-capped clock: ``common``'s docstring), chosen so that both
dtypes should finish in about 6-7 minutes on an H200 (an estimate; meta.wall_s and each
row's row_wall_s record the real figure). With cuDNN among the peers, ours and cuDNN's are each timed twice,
interleaved (ours, cuDNN, ours, cuDNN), and the row keeps the faster of each (``ours_ms_runs``,
``cudnn_ms_runs`` hold both), so a slow spell of the card does not land on one row alone.
Ours is ``launch.attention_backward`` (ODO + main pass + dQ, side-buffer and output
allocation included); a peer is ``torch.autograd.grad`` on a retained SDPA graph under
``sdpa_kernel(backend)``. Every row checks our gradients against cuDNN's (relative L2).
BHSD rows also time ``deterministic=True`` against the default call in alternation
(``common.twin_timing``: ``det_over_default``, ``det_twin_ms_runs``; ``ours_det_ms`` the faster
deterministic timing) and
measure the peak device memory of one backward call, ours and cuDNN's
(``ours_peak_bytes``, ``cudnn_peak_bytes``, ``mem_ratio_vs_cudnn``; meta holds our
workspace formula and each row ``ours_formula_bytes``).
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import os
import sys
import time
import warnings

import torch
import torch.nn.functional as F
from torch.nn.attention import SDPBackend, sdpa_kernel

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import common  # noqa: E402
from common import (  # noqa: E402,F401  (make, kept_pairs, rel_err: this module's names since the first benchmark)
    DTYPES, LAYOUTS, OURS_BACKWARD_WORKSPACE_FORMULA, SHAPE_COLUMNS, SHAPES, add_layout_spread,
    backward_flops, bench, dtype_short, kept_pairs, make, markdown_table, norm_shape, ours_backward_workspace_bytes,
    host_ms, layout_twin, parse_dtypes, parse_layouts, peak_bytes, rel_err, retime_interleaved, row_seed, row_selected,
    shape_label, summarize, summary_lines,
)

from sdpa_bwd.engine import launch  # noqa: E402

PEERS = {"cudnn": SDPBackend.CUDNN_ATTENTION, "flash": SDPBackend.FLASH_ATTENTION,
         "efficient": SDPBackend.EFFICIENT_ATTENTION}


def default_dq_mode(D_qk, D_v, dtype, config=None):
    """The dq_mode our default (non-deterministic) call uses: the explicit config's, the
    override's, or launch.backward_config's. None if launch's API has moved."""
    try:
        cfg = config or getattr(launch, "_BWD_OVERRIDE", None) or launch.backward_config(
            launch.head_dim_pad(D_qk), launch.head_dim_pad(D_v), dtype, "cuda", False)
        return cfg.dq_mode
    except Exception:
        return None


def _takes_gluon(q, k, v, do, causal) -> bool:
    """Does our default call of this row run the Gluon backward (``launch.gluon_backward_reasons`` empty)?"""
    reasons = getattr(launch, "gluon_backward_reasons", None)
    return reasons is not None and not reasons(q, k, v, do, scale=1 / q.shape[-1] ** 0.5, causal=causal, hi_off=0,
                                               banded=causal, deterministic=False, apart=True)


def run_row(shape, causal, layout, dtype, config=None, peers=True, check=True, det=None, mem=None,
            peer_names=None, twin=None):
    """One benchmark row. det / mem (deterministic timing, peak memory) default to BHSD rows only; twin (our
    call on this layout against the same call on BHSD storage, timed in alternation: ``common.layout_twin``)
    to the other layouts' rows."""
    t_row = time.time()
    B, H_q, H_kv, S, D_qk, D_v = norm_shape(shape)
    det = layout == "bhsd" if det is None else det
    mem = layout == "bhsd" if mem is None else mem
    twin = layout != "bhsd" if twin is None else twin
    gen = torch.Generator(device="cuda").manual_seed(row_seed(shape, causal, layout))
    q = make(B, H_q, S, D_qk, layout, dtype, gen)
    k = make(B, H_kv, S, D_qk, layout, dtype, gen)
    v = make(B, H_kv, S, D_v, layout, dtype, gen)
    do = make(B, H_q, S, D_v, layout, dtype, gen)
    rb = 0 if causal else None
    o, stats = launch.attention_forward(q, k, v, right_bound=rb)
    ours_fn = lambda: launch.attention_backward(q, k, v, o, do, stats, right_bound=rb, config=config)  # noqa: E731
    t_ours = bench(ours_fn)
    pairs = kept_pairs(S, S, causal)
    flops = backward_flops(B, H_q, pairs, D_qk, D_v)
    row = dict(B=B, H_q=H_q, H_kv=H_kv, S=S, D=D_qk, D_qk=D_qk, D_v=D_v, causal=causal, layout=layout,
               dtype=str(dtype).split(".")[-1], flops=flops, ours_ms=t_ours, ours_tflops=flops / t_ours / 1e9)
    dq_mode = default_dq_mode(D_qk, D_v, dtype, config)
    if config is None and _takes_gluon(q, k, v, do, causal):
        dq_mode = "gluon"  # the Gluon backward: one pass, dQ bulk-reduced into an fp32 accumulator
    row["ours_dq_mode"] = dq_mode
    if twin:  # the BHSD row's data, made in the BHSD row's order
        bgen = torch.Generator(device="cuda").manual_seed(row_seed(shape, causal, "bhsd"))
        tb = [make(B, h, S, d, "bhsd", dtype, bgen) for h, d in ((H_q, D_qk), (H_kv, D_qk), (H_kv, D_v), (H_q, D_v))]
        ob, sb = launch.attention_forward(tb[0], tb[1], tb[2], right_bound=rb)
        row["ours_vs_bhsd_twin"], row["layout_twin_ms_runs"] = layout_twin(ours_fn, lambda: launch.attention_backward(
            tb[0], tb[1], tb[2], ob, tb[3], sb, right_bound=rb, config=config))
        del tb, ob, sb
    ours = ours_fn() if check else None
    if det:
        det_fn = lambda: launch.attention_backward(q, k, v, o, do, stats, right_bound=rb,  # noqa: E731
                                                   deterministic=True, config=config)
        # against the default call in the same minute (on 2026-12-03, h200-2026-12-03d, a lone deterministic call
        # timed after a default one that had run unthrottled gave GQA 1.176x, 1.056x against the default's later
        # timing)
        row["det_over_default"], row["det_twin_ms_runs"] = common.twin_timing(det_fn, ours_fn)
        t_det = row["ours_det_ms"] = min(row["det_twin_ms_runs"][0])
        row["ours_det_tflops"] = flops / t_det / 1e9
        if check:
            a, b = det_fn(), det_fn()
            row["det_bitwise_repeatable"] = all(torch.equal(x, y) for x, y in zip(a, b))
            row["det_rel_err_vs_default"] = max(rel_err(x, y) for x, y in zip(a, ours))
            del a, b
    if mem:
        row["ours_peak_bytes"] = peak_bytes(ours_fn)
        if dq_mode is not None:
            elt = torch.empty((), dtype=dtype).element_size()
            row["ours_formula_bytes"] = ours_backward_workspace_bytes(
                B, H_q, H_kv, H_kv, S, S, D_qk, D_v, elt, dq_mode in ("atomic", "gluon"),
                kv_accum=dq_mode == "gluon" and H_kv != H_q)
            # 1.00 up to allocator rounding; more means launch allocates something the formula misses
            row["ours_peak_over_formula"] = row["ours_peak_bytes"] / row["ours_formula_bytes"]
    if peers:
        for name, backend in PEERS.items():
            if peer_names is not None and name not in peer_names:
                continue
            try:
                qg, kg, vg = (t.detach().requires_grad_() for t in (q, k, v))
                with sdpa_kernel(backend):
                    out = F.scaled_dot_product_attention(qg, kg, vg, is_causal=causal, enable_gqa=H_q != H_kv)
                    grads = torch.autograd.grad(out, (qg, kg, vg), do, retain_graph=True)
                    peer_fn = lambda: torch.autograd.grad(out, (qg, kg, vg), do, retain_graph=True)  # noqa: E731
                    t = bench(peer_fn)
                    if name == "cudnn":
                        t_ours, t, row["ours_ms_runs"], row["cudnn_ms_runs"] = retime_interleaved(
                            ours_fn, peer_fn, t_ours, t)
                        row["cudnn_host_ms"] = host_ms(peer_fn)
                        row["ours_ms"], row["ours_tflops"] = t_ours, flops / t_ours / 1e9
                    row[f"{name}_ms"] = t
                    row[f"{name}_tflops"] = flops / t / 1e9
                    if name == "cudnn" and check:
                        row["rel_err_vs_cudnn"] = max(rel_err(a, b) for a, b in zip(ours, grads))
                    if name == "cudnn" and mem:
                        del grads
                        try:
                            row["cudnn_peak_bytes"] = peak_bytes(
                                lambda: torch.autograd.grad(out, (qg, kg, vg), do, retain_graph=True))
                        except Exception as exc:
                            row["cudnn_peak_error"] = f"{type(exc).__name__}: {str(exc)[:160]}"
                del out
            except Exception as exc:  # a peer that declines this row
                row[f"{name}_ms"] = None
                row[f"{name}_error"] = f"{type(exc).__name__}: {str(exc)[:160]}"
        if row.get("cudnn_ms"):
            row["ratio_vs_cudnn"] = row["cudnn_ms"] / t_ours
        if row.get("ours_peak_bytes") and row.get("cudnn_peak_bytes"):
            row["mem_ratio_vs_cudnn"] = row["ours_peak_bytes"] / row["cudnn_peak_bytes"]
    row["ours_host_ms"] = host_ms(ours_fn)
    row["ours_host_over_ms"] = row["ours_host_ms"] / t_ours
    row["row_wall_s"] = time.time() - t_row
    return row


BC = launch.BackwardConfig
SWEEP = {
    # (shape, causal): candidates; the first is the current default for that head dim.
    ((2, 16, 16, 4096, 128), False): [
        BC(64, 128, 128, 64, 8, 3, "separate"),
        BC(32, 128, 128, 64, 8, 3, "separate"),
        BC(64, 128, 128, 32, 8, 3, "separate"),
        BC(64, 128, 128, 64, 8, 3, "separate", dq_num_stages=4),
    ],
    ((4, 16, 16, 2048, 64), False): [
        BC(32, 128, 128, 32, 4, 4, "separate"),
        BC(32, 128, 128, 64, 4, 4, "separate", dq_num_warps=8, dq_num_stages=3),
        BC(64, 128, 128, 64, 8, 3, "separate", dq_num_warps=4, dq_num_stages=4),
    ],
}


def sweep(results, budget_s):
    """Time each candidate; returns {D: fastest config} for --adopt."""
    t0 = time.time()
    best = {}
    for (shape, causal), cfgs in SWEEP.items():
        for cfg in cfgs:
            if time.time() - t0 > budget_s:
                print("sweep: time budget spent", flush=True)
                return best
            try:
                row = run_row(shape, causal, "bhsd", torch.bfloat16, config=cfg, peers=False, check=False,
                              det=False, mem=False)
                row["config"] = dataclasses.asdict(cfg)
                results.append(row)
                print(f"sweep {shape} causal={causal} {cfg}: {row['ours_ms']:.3f} ms "
                      f"{row['ours_tflops']:.0f} TFLOP/s", flush=True)
                d = shape[-1]
                if d not in best or row["ours_ms"] < best[d][1]:
                    best[d] = (cfg, row["ours_ms"])
            except Exception as exc:
                print(f"sweep {shape} causal={causal} {cfg}: FAILED {type(exc).__name__}: {str(exc)[:200]}",
                      flush=True)
    return best


def profile_split(shape, causal, config=None, dtype=torch.bfloat16):
    """Device time per kernel of one backward call (torch.profiler), to see where time goes."""
    B, H_q, H_kv, S, D_qk, D_v = norm_shape(shape)
    gen = torch.Generator(device="cuda").manual_seed(1)
    q = make(B, H_q, S, D_qk, "bhsd", dtype, gen)
    do = make(B, H_q, S, D_v, "bhsd", dtype, gen)
    k = make(B, H_kv, S, D_qk, "bhsd", dtype, gen)
    v = make(B, H_kv, S, D_v, "bhsd", dtype, gen)
    rb = 0 if causal else None
    o, st = launch.attention_forward(q, k, v, right_bound=rb)
    for _ in range(3):
        launch.attention_backward(q, k, v, o, do, st, right_bound=rb, config=config)
    torch.cuda.synchronize()
    with torch.profiler.profile(activities=[torch.profiler.ProfilerActivity.CUDA]) as prof:
        for _ in range(10):
            launch.attention_backward(q, k, v, o, do, st, right_bound=rb, config=config)
        torch.cuda.synchronize()
    split = {}
    for ev in prof.key_averages():
        t = getattr(ev, "device_time_total", None) or getattr(ev, "cuda_time_total", 0)
        if t:
            split[ev.key] = t / 10 / 1000.0  # ms per call
    print(f"split {shape} causal={causal}: " + ", ".join(f"{k}={v:.3f} ms" for k, v in
                                                        sorted(split.items(), key=lambda kv: -kv[1])), flush=True)
    return split


def chart(rows, path):
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    labels = [f"{r['B']},{r['H_q']}/{r['H_kv']},{r['S']},{r['D_qk']}/{r['D_v']}{' c' if r['causal'] else ''} "
              f"{r['layout']} {dtype_short(r)}" for r in rows]
    series = [("ours", "ours_tflops"), ("cuDNN", "cudnn_tflops"), ("flash", "flash_tflops"),
              ("efficient", "efficient_tflops")]
    fig, ax = plt.subplots(figsize=(max(10, len(rows) * 0.55), 5))
    width = 0.2
    for i, (name, key) in enumerate(series):
        ax.bar([x + i * width for x in range(len(rows))], [r.get(key) or 0 for r in rows], width, label=name)
    ax.set_xticks([x + 1.5 * width for x in range(len(rows))])
    ax.set_xticklabels(labels, rotation=75, ha="right", fontsize=7)
    ax.set_ylabel("backward TFLOP/s (2.5 x fwd, exact mask count)")
    ax.set_title(f"SDPA backward, {'/'.join(sorted({dtype_short(r) for r in rows}))}, {torch.cuda.get_device_name()}")
    ax.legend()
    fig.tight_layout()
    fig.savefig(path, dpi=120)


def row_line(r):
    """The line printed as each row finishes."""
    det = f" det/def {r['det_over_default']:.2f}" if r.get("det_over_default") else ""
    host = f" host {r['ours_host_ms']:.3f} ms" if r.get("ours_host_ms") else ""
    mem = f" mem {r['mem_ratio_vs_cudnn']:.2f}" if r.get("mem_ratio_vs_cudnn") else ""
    err = r.get("rel_err_vs_cudnn")
    decl = f" cudnn: {r['cudnn_error'][:70]}" if r.get("cudnn_error") else ""
    return (common.row_head(r) + f"cudnn {r.get('cudnn_tflops') or 0:.0f} flash {r.get('flash_tflops') or 0:.0f} "
            f"eff {r.get('efficient_tflops') or 0:.0f} | ratio {r.get('ratio_vs_cudnn') or 0:.2f}{det}{host}{mem} "
            f"err {common.fmt(err, '.1e')} ({r.get('row_wall_s', 0):.1f} s){decl}")


TABLE_COLUMNS = SHAPE_COLUMNS + common.SPEED_COLUMNS + [
    ("eff TF", lambda r: r.get("efficient_tflops"), ".0f"),
    ("ratio", lambda r: r.get("ratio_vs_cudnn"), ".2f"),
    ("vs BHSD", lambda r: r.get("ours_vs_bhsd"), ".2f"),
    ("det/default", lambda r: r.get("det_over_default"), ".2f"),
    ("host ms", lambda r: r.get("ours_host_ms"), ".3f"),
    ("mem ours MiB", lambda r: r["ours_peak_bytes"] / 2**20 if r.get("ours_peak_bytes") is not None else None, ".1f"),
    ("mem cuDNN MiB", lambda r: r["cudnn_peak_bytes"] / 2**20 if r.get("cudnn_peak_bytes") is not None else None,
     ".1f"),
    ("mem ratio", lambda r: r.get("mem_ratio_vs_cudnn"), ".2f"),
    ("err vs cuDNN", lambda r: r.get("rel_err_vs_cudnn"), ".1e"),
]
SUMMARY_EXTRA = [("max det/default", "max_det_over_default", ".3f"),
                 ("max mem ratio", "max_mem_ratio_vs_cudnn", ".3f")]


def summarize_backward(rows, dtypes):
    add_layout_spread(rows)
    return summarize(rows, dtypes, max_keys=("det_over_default", "mem_ratio_vs_cudnn", "rel_err_vs_cudnn",
                                             "ours_peak_over_formula"))


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--out", help="the folder to write (default: benchmarks/results/CARD, this card's records)")
    ap.add_argument("--sweep", action="store_true", help="time candidate configs first")
    ap.add_argument("--sweep-budget", type=float, default=150.0)
    ap.add_argument("--no-bench", action="store_true")
    ap.add_argument("--quick", action="store_true",
                    help="only our default config on four BHSD rows, with the per-kernel split (A/B runs)")
    ap.add_argument("--adopt", action="store_true", help="run the rows with the sweep's fastest config per D")
    ap.add_argument("--layouts", default=",".join(LAYOUTS), help="comma-separated, of: " + ", ".join(LAYOUTS))
    ap.add_argument("--dtypes", default=",".join(DTYPES), help="comma-separated, of: " + ", ".join(DTYPES))
    ap.add_argument("--rows", default="",
                    help="comma-separated substrings of a shape label such as 'B2-H16/16-S4096-D128/128-nc'; "
                         "a shape/causal pair runs if any one matches (default: all)")
    ap.add_argument("--peers", default=",".join(PEERS), help="comma-separated, of: " + ", ".join(PEERS))
    ap.add_argument("--no-det", action="store_true", help="skip the deterministic-mode timing on BHSD rows")
    ap.add_argument("--no-mem", action="store_true", help="skip the peak-memory measurement on BHSD rows")
    ap.add_argument("--no-split", action="store_true", help="skip the per-kernel profiler split at the start")
    ap.add_argument("--warmup", type=float, default=common.WARMUP_MS, help="do_bench warm-up, ms (default %(default)s)")
    ap.add_argument("--rep", type=float, default=common.REP_MS, help="do_bench timed runs, ms (default %(default)s)")
    ap.add_argument("--json-name", default="bench_backward.json", help="file name under --out")
    args = ap.parse_args(argv)
    args.out = common.results_dir(args.out)
    dtypes = parse_dtypes(args.dtypes)
    layouts = parse_layouts(args.layouts)
    peer_names = [p.strip() for p in args.peers.split(",") if p.strip()]
    common.WARMUP_MS, common.REP_MS = args.warmup, args.rep
    warnings.filterwarnings("ignore", category=UserWarning)  # peers explaining their declines
    os.makedirs(args.out, exist_ok=True)
    t_start = time.time()
    meta = common.run_meta(args, argv, dtypes, layouts, peer_names,
                           flops="backward = 2.5 x forward; forward = 2 * kept_pairs * (D_qk + D_v) per (b, h_q)",
                           ours_workspace_formula=OURS_BACKWARD_WORKSPACE_FORMULA,
                           peak_memory=("BHSD rows: torch.cuda.reset_peak_memory_stats(); base = memory_allocated(); "
                                        "one call; max_memory_allocated() - base. Ours: attention_backward with outputs "
                                        "allocated inside; cuDNN: torch.autograd.grad on the retained SDPA graph."))
    if args.quick:
        total = 0.0
        for shape in ((2, 16, 16, 4096, 128), (4, 16, 16, 2048, 64)):
            for causal in (False, True):
                row = run_row(shape, causal, "bhsd", torch.bfloat16, peers=False, check=False, det=False, mem=False)
                total += row["ours_ms"]
                print(f"quick {shape} causal={causal}: {row['ours_ms']:.3f} ms {row['ours_tflops']:.0f} TFLOP/s",
                      flush=True)
                profile_split(shape, causal)
        print(f"QUICK total={total:.4f}", flush=True)
        return
    adopted = {}
    if args.sweep:
        sweep_rows = []
        best = sweep(sweep_rows, args.sweep_budget)
        with open(os.path.join(args.out, "sweep.json"), "w") as f:
            json.dump(dict(meta=meta, rows=sweep_rows), f, indent=1)
        if args.adopt:
            adopted = {d: cfg for d, (cfg, _) in best.items()}
            print(f"adopted: {adopted}", flush=True)
    meta["adopted_configs"] = {str(d): dataclasses.asdict(c) for d, c in adopted.items()}
    if not args.no_split:
        try:
            meta["split_ms"] = {f"{shape}, causal={c}": profile_split(shape, c, adopted.get(shape[-1]))
                                for shape in ((2, 16, 16, 4096, 128), (4, 16, 16, 2048, 64)) for c in (False, True)}
        except Exception as exc:
            print(f"profile split failed: {exc}", flush=True)
    if args.no_bench:
        return
    rows = []

    def save(partial: bool):
        meta["wall_s"] = time.time() - t_start
        meta["partial"] = partial
        summary = summarize_backward(rows, dtypes)
        with open(os.path.join(args.out, args.json_name), "w") as f:
            json.dump(dict(meta=meta, summary=summary, rows=rows), f, indent=1)
        return summary

    for dt in dtypes:
        for shape in SHAPES:
            B, H_q, H_kv, S, D_qk, D_v = norm_shape(shape)
            # a swept config is per head dim and tuned on bf16; never for D_qk != D_v
            cfg = adopted.get(D_qk) if D_qk == D_v and dt == "bf16" else None
            for causal in (False, True):
                if not row_selected(shape, causal, args.rows):
                    continue
                for layout in layouts:
                    try:
                        row = run_row(shape, causal, layout, DTYPES[dt], config=cfg, peer_names=peer_names,
                                      det=(layout == "bhsd" and not args.no_det),
                                      mem=(layout == "bhsd" and not args.no_mem))
                    except Exception as exc:  # our engine failed this row: say so, keep going
                        print(f"{shape_label(shape, causal):34} {layout:8} {dt} OURS FAILED "
                              f"{type(exc).__name__}: {str(exc)[:300]}", flush=True)
                        rows.append(dict(B=B, H_q=H_q, H_kv=H_kv, S=S, D=D_qk, D_qk=D_qk, D_v=D_v, causal=causal,
                                         layout=layout, dtype=str(DTYPES[dt]).split(".")[-1], ours_ms=None,
                                         ours_error=f"{type(exc).__name__}: {str(exc)[:300]}"))
                        torch.cuda.empty_cache()
                        continue
                    rows.append(row)
                    print(row_line(row), flush=True)
                    torch.cuda.empty_cache()
                    save(partial=True)  # a run stopped by a time limit keeps its rows
    summary = save(partial=False)
    ok_rows = [r for r in rows if r.get("ours_ms")]
    try:
        if ok_rows:
            chart(ok_rows, os.path.join(args.out, os.path.splitext(args.json_name)[0] + ".png"))
    except Exception as exc:
        print(f"chart failed: {exc}", file=sys.stderr)
    print()
    print(markdown_table(ok_rows, TABLE_COLUMNS))
    print()
    for line in summary_lines(summary, dtypes, SUMMARY_EXTRA):
        print(line)
    failed = [r for r in rows if not r.get("ours_ms")]
    if failed:
        print(f"OURS FAILED on {len(failed)} rows: " + ", ".join(common.row_label(r) for r in failed))
    print(f"wall {meta['wall_s']:.0f} s; JSON: {os.path.join(args.out, args.json_name)}", flush=True)


if __name__ == "__main__":
    main()
