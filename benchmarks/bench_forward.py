"""Forward (O and the softmax stats) time and TFLOP/s: our Triton engine beside PyTorch's
cuDNN forward, with flash's forward as a column, in one run on one GPU.

    PYTHONPATH=src python3 benchmarks/bench_forward.py --out benchmarks/results
    PYTHONPATH=src python3 benchmarks/bench_forward.py --out /tmp/f --dtypes bf16 --layouts bhsd --rows D192

Rows: the backward benchmark's (common.SHAPES x {non-causal, causal} x --layouts x --dtypes,
--rows filtering by shape label; see bench_backward.py).
Ours: ``launch.attention_forward(q, k, v, right_bound=0 if causal else None)``, O and the
float32 natural-log LSE allocated inside the call.
cuDNN: ``torch.ops.aten._scaled_dot_product_cudnn_attention(q, k, v, None, True, 0.0, causal,
False)`` (compute_log_sumexp=True, so it writes stats as ours does) - the op that
``F.scaled_dot_product_attention`` dispatches to; if that call raises, the fallback is
``F.scaled_dot_product_attention`` under ``sdpa_kernel(SDPBackend.CUDNN_ATTENTION)`` on inputs
that require grad (grad mode on, so it computes the LSE as well). ``cudnn_path`` says which
("aten" or "sdpa") and ``cudnn_aten_error`` why the first one failed.
Flash: ``F.scaled_dot_product_attention`` under ``sdpa_kernel(SDPBackend.FLASH_ATTENTION)``
(no grad; flash's kernel writes its LSE anyway). Flash has no D_qk != D_v: it declines that row.
FLOPs: 2 * kept_pairs * (D_qk + D_v) per (b, h_q), kept pairs counted exactly.
Times: median of ``triton.testing.do_bench``, warm-up 250 ms, rep 40 ms (--warmup / --rep; the warm-up puts every
timing at the card's power-capped clock: ``common``'s docstring),
chosen so that both dtypes should finish in about 4 minutes on an H200 (an estimate;
meta.wall_s records the real figure). Ours and cuDNN are timed twice, interleaved (ours, cuDNN,
ours, cuDNN: ``common.retime_interleaved``), and a row keeps the faster of each (``ours_ms_runs``,
``cudnn_ms_runs`` hold both), as the backward benchmark does (since 2026-12-01). ``ours_host_ms`` /
``cudnn_host_ms``: host time of one call (``common.host_ms``); the summary names the rows whose host
time is at least ``common.HOST_BOUND_AT`` of their timed ms.
Correctness per row: relative L2 error of our O against cuDNN's O (``rel_err_vs_cudnn``) and,
when the aten call gave its LSE, the largest absolute difference of our stats from it.
"""

from __future__ import annotations

import argparse
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
from common import (  # noqa: E402
    DTYPES, LAYOUTS, SHAPE_COLUMNS, SHAPES, add_layout_spread, bench, forward_flops, host_ms, kept_pairs, layout_twin,
    make, markdown_table, norm_shape, parse_dtypes, parse_layouts, rel_err, retime_interleaved, row_seed,
    row_selected, shape_label, summarize, summary_lines,
)

from sdpa_bwd.engine import launch  # noqa: E402

PEER_NAMES = ("cudnn", "flash")


def _err(exc):
    return f"{type(exc).__name__}: {str(exc)[:160]}"


def cudnn_forward_fn(q, k, v, causal, gqa):
    """(fn, first result, path, aten error): fn() runs cuDNN's forward with stats; the result
    is a tuple whose [0] is O and, on the aten path, [1] the LSE."""
    def aten():
        return torch.ops.aten._scaled_dot_product_cudnn_attention(q, k, v, None, True, 0.0, causal, False)

    try:
        res = aten()
        torch.cuda.synchronize()  # a launch failure belongs to this path, not to the next call
        return aten, res, "aten", None
    except Exception as exc:
        aten_error = _err(exc)
    qg, kg, vg = (t.detach().requires_grad_() for t in (q, k, v))

    def sdpa():
        with torch.enable_grad(), sdpa_kernel(SDPBackend.CUDNN_ATTENTION):
            return (F.scaled_dot_product_attention(qg, kg, vg, is_causal=causal, enable_gqa=gqa),)

    res = sdpa()  # raises if cuDNN declines the row: the caller records it
    return sdpa, res, "sdpa", aten_error


def run_row(shape, causal, layout, dtype, check=True, peer_names=PEER_NAMES, twin=None):
    """One benchmark row; twin (the other layouts' rows by default): our call against the same call on BHSD
    storage, timed in alternation (``common.layout_twin``)."""
    t_row = time.time()
    B, H_q, H_kv, S, D_qk, D_v = norm_shape(shape)
    gen = torch.Generator(device="cuda").manual_seed(row_seed(shape, causal, layout))
    q = make(B, H_q, S, D_qk, layout, dtype, gen)
    k = make(B, H_kv, S, D_qk, layout, dtype, gen)
    v = make(B, H_kv, S, D_v, layout, dtype, gen)
    rb = 0 if causal else None
    ours_fn = lambda: launch.attention_forward(q, k, v, right_bound=rb)  # noqa: E731
    t_ours = bench(ours_fn)
    pairs = kept_pairs(S, S, causal)
    flops = forward_flops(B, H_q, pairs, D_qk, D_v)
    row = dict(B=B, H_q=H_q, H_kv=H_kv, S=S, D=D_qk, D_qk=D_qk, D_v=D_v, causal=causal, layout=layout,
               dtype=str(dtype).split(".")[-1], flops=flops, ours_ms=t_ours, ours_tflops=flops / t_ours / 1e9)
    if layout != "bhsd" if twin is None else twin:  # the BHSD row's data, made in the BHSD row's order
        bgen = torch.Generator(device="cuda").manual_seed(row_seed(shape, causal, "bhsd"))
        tb = [make(B, h, S, d, "bhsd", dtype, bgen) for h, d in ((H_q, D_qk), (H_kv, D_qk), (H_kv, D_v))]
        row["ours_vs_bhsd_twin"], row["layout_twin_ms_runs"] = layout_twin(
            ours_fn, lambda: launch.attention_forward(tb[0], tb[1], tb[2], right_bound=rb))
        del tb
    o_ours, st_ours = ours_fn() if check else (None, None)
    gqa = H_q != H_kv
    if "cudnn" in peer_names:
        try:
            fn, res, path, aten_error = cudnn_forward_fn(q, k, v, causal, gqa)
            row["cudnn_path"] = path
            if aten_error:
                row["cudnn_aten_error"] = aten_error
            t = bench(fn)
            t_ours, t, row["ours_ms_runs"], row["cudnn_ms_runs"] = retime_interleaved(ours_fn, fn, t_ours, t)
            row["ours_ms"], row["ours_tflops"] = t_ours, flops / t_ours / 1e9
            row["cudnn_host_ms"] = host_ms(fn)
            row["cudnn_ms"] = t
            row["cudnn_tflops"] = flops / t / 1e9
            if check:
                row["rel_err_vs_cudnn"] = rel_err(o_ours, res[0])
                if path == "aten":
                    try:
                        lse = res[1]
                        if lse.dim() not in (3, 4) or tuple(lse.shape[:3]) != (B, H_q, S) or lse.numel() != B * H_q * S:
                            raise ValueError(f"cuDNN's logsumexp has dims {tuple(lse.shape)}, not (B, H_q, S_q[, 1])")
                        lse = lse.float().reshape(B, H_q, S)
                        d = (st_ours - lse).abs()
                        d = d[torch.isfinite(d)]
                        row["stats_max_abs_err_vs_cudnn"] = d.max().item() if d.numel() else None
                    except Exception as exc:  # cuDNN's LSE not in a (B, H_q, S_q) shape: say so
                        row["stats_check_error"] = _err(exc)
            del res
        except Exception as exc:  # cuDNN declines this row
            row["cudnn_ms"] = None
            row["cudnn_error"] = _err(exc)
    if "flash" in peer_names:
        try:
            def flash():
                with sdpa_kernel(SDPBackend.FLASH_ATTENTION):
                    return F.scaled_dot_product_attention(q, k, v, is_causal=causal, enable_gqa=gqa)
            with torch.no_grad():
                out = flash()
                t = bench(flash)
            row["flash_ms"] = t
            row["flash_tflops"] = flops / t / 1e9
            if check:
                row["flash_rel_err_vs_ours"] = rel_err(out, o_ours)
            del out
        except Exception as exc:
            row["flash_ms"] = None
            row["flash_error"] = _err(exc)
    if row.get("cudnn_ms"):
        row["ratio_vs_cudnn"] = row["cudnn_ms"] / t_ours
    row["ours_host_ms"] = host_ms(ours_fn)
    row["ours_host_over_ms"] = row["ours_host_ms"] / t_ours
    row["row_wall_s"] = time.time() - t_row
    return row


def row_line(r):
    err = r.get("rel_err_vs_cudnn")
    decl = f" cudnn: {r['cudnn_error'][:70]}" if r.get("cudnn_error") else ""
    path = f" [{r['cudnn_path']}]" if r.get("cudnn_path") else ""
    host = f" host {r['ours_host_ms']:.3f} ms" if r.get("ours_host_ms") else ""
    return (common.row_head(r) + f"cudnn{path} {r.get('cudnn_tflops') or 0:.0f} flash {r.get('flash_tflops') or 0:.0f} | "
            f"ratio {r.get('ratio_vs_cudnn') or 0:.2f}{host} O err {common.fmt(err, '.1e')} "
            f"({r.get('row_wall_s', 0):.1f} s){decl}")


TABLE_COLUMNS = SHAPE_COLUMNS + common.SPEED_COLUMNS + [
    ("ratio", lambda r: r.get("ratio_vs_cudnn"), ".2f"),
    ("vs BHSD", lambda r: r.get("ours_vs_bhsd"), ".2f"),
    ("host ms", lambda r: r.get("ours_host_ms"), ".3f"),
    ("O err vs cuDNN", lambda r: r.get("rel_err_vs_cudnn"), ".1e"),
    ("LSE err", lambda r: r.get("stats_max_abs_err_vs_cudnn"), ".1e"),
    ("cuDNN via", lambda r: r.get("cudnn_path"), "s"),
]


def summarize_forward(rows, dtypes):
    add_layout_spread(rows)
    s = summarize(rows, dtypes, max_keys=("rel_err_vs_cudnn", "stats_max_abs_err_vs_cudnn"))
    s["cudnn_paths"] = sorted({r["cudnn_path"] for r in rows if r.get("cudnn_path")})
    return s


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--out", help="the folder to write (default: benchmarks/results/CARD, this card's records)")
    ap.add_argument("--layouts", default=",".join(LAYOUTS), help="comma-separated, of: " + ", ".join(LAYOUTS))
    ap.add_argument("--dtypes", default=",".join(DTYPES), help="comma-separated, of: " + ", ".join(DTYPES))
    ap.add_argument("--rows", default="",
                    help="comma-separated substrings of a shape label such as 'B2-H16/16-S4096-D128/128-nc'; "
                         "a shape/causal pair runs if any one matches (default: all)")
    ap.add_argument("--peers", default=",".join(PEER_NAMES), help="comma-separated, of: " + ", ".join(PEER_NAMES))
    ap.add_argument("--warmup", type=float, default=common.WARMUP_MS, help="do_bench warm-up, ms (default %(default)s)")
    ap.add_argument("--rep", type=float, default=common.REP_MS, help="do_bench timed runs, ms (default %(default)s)")
    ap.add_argument("--json-name", default="bench_forward.json", help="file name under --out")
    args = ap.parse_args(argv)
    args.out = common.results_dir(args.out)
    dtypes = parse_dtypes(args.dtypes)
    layouts = parse_layouts(args.layouts)
    peer_names = tuple(p.strip() for p in args.peers.split(",") if p.strip())
    common.WARMUP_MS, common.REP_MS = args.warmup, args.rep
    warnings.filterwarnings("ignore", category=UserWarning)  # peers explaining their declines
    os.makedirs(args.out, exist_ok=True)
    t_start = time.time()
    meta = common.run_meta(args, argv, dtypes, layouts, peer_names,
                           flops="forward = 2 * kept_pairs * (D_qk + D_v) per (b, h_q)",
                           cudnn_forward_call=("torch.ops.aten._scaled_dot_product_cudnn_attention(q, k, v, None, True, 0.0, causal, False) "
                                  "(path 'aten'); on failure F.scaled_dot_product_attention under "
                                  "sdpa_kernel(CUDNN_ATTENTION) on inputs requiring grad (path 'sdpa')"))
    rows = []
    for dt in dtypes:
        for shape in SHAPES:
            B, H_q, H_kv, S, D_qk, D_v = norm_shape(shape)
            for causal in (False, True):
                if not row_selected(shape, causal, args.rows):
                    continue
                for layout in layouts:
                    try:
                        row = run_row(shape, causal, layout, DTYPES[dt], peer_names=peer_names)
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
    summary = summarize_forward(rows, dtypes)
    meta["wall_s"] = time.time() - t_start
    path = os.path.join(args.out, args.json_name)
    with open(path, "w") as f:
        json.dump(dict(meta=meta, summary=summary, rows=rows), f, indent=1)
    ok_rows = [r for r in rows if r.get("ours_ms")]
    print()
    print(markdown_table(ok_rows, TABLE_COLUMNS))
    print()
    for line in summary_lines(summary, dtypes):
        print(line)
    failed = [r for r in rows if not r.get("ours_ms")]
    if failed:
        print(f"OURS FAILED on {len(failed)} rows: " + ", ".join(common.row_label(r) for r in failed))
    print(f"cuDNN forward via: {', '.join(summary['cudnn_paths']) or '-'}; wall {meta['wall_s']:.0f} s; JSON: {path}",
          flush=True)


if __name__ == "__main__":
    main()
