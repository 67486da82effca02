"""Helpers shared by ``bench_backward.py`` and ``bench_forward.py``.

Pure helpers (shapes, row labels and filters, FLOP counts, geomeans, the per-dtype
summary, Markdown tables) run anywhere; ``make``, ``bench``, ``peak_bytes`` and ``host_ms`` (by
default) need CUDA.

Timing: median of ``triton.testing.do_bench(fn, warmup=WARMUP_MS, rep=REP_MS)``;
both are milliseconds of device time (warm-up 250 ms, then about 40 ms of timed runs,
each after do_bench's L2 flush). The warm-up is long so that every timing runs at the card's
loaded clock: the H200's software power cap engages after 150-200 ms of an hd128 backward and
takes the SM clock from 1980 to about 1770 MHz (measured 2026-12-03, docs/data/h200-2026-12-03d), and with the
old 10 ms warm-up a row's first timing ran unthrottled and its later ones 5-11% slower, so a
ratio depended on which call held the first slot. Both benchmarks take ``--warmup`` / ``--rep``
to change them.
"""

from __future__ import annotations

import math
import os
import re
import subprocess
import time
import zlib

import torch

SHAPES = [  # (B, H_q, H_kv, S, D_qk, D_v)
    (2, 16, 16, 4096, 128, 128),
    (1, 16, 16, 8192, 128, 128),
    (4, 16, 16, 2048, 64, 64),
    (1, 32, 8, 8192, 128, 128),     # GQA
    (1, 32, 8, 8192, 64, 64),       # GQA at head dim 64 (issue 7: "head dim 64 included"; since 2026-12-03)
    (1, 16, 16, 4096, 192, 128),    # DeepSeek-V3: D_qk = 192 (128 nope + 64 rope), D_v = 128
]
LAYOUTS = ["bhsd", "bshd", "sbhd", "bshd_pad"]
DTYPES = {"bf16": torch.bfloat16, "fp16": torch.float16}
DTYPE_SHORT = {"bfloat16": "bf16", "float16": "fp16", "float32": "fp32"}

WARMUP_MS = 250  # ms: past the power cap's onset (see the module docstring)
REP_MS = 40


def card_slug(name):
    """'NVIDIA H100 80GB HBM3' -> 'h100', 'NVIDIA H200' -> 'h200'; otherwise the name in lower-case words: the folder
    of ``benchmarks/results`` that keeps the card's records."""
    low = name.lower()
    m = re.search(r"\b([a-z]{1,3}\d{2,4}[a-z]?)\b", low.replace("nvidia", " "))
    if m:
        return m.group(1)
    return re.sub(r"[^a-z0-9]+", "-", low).strip("-") or "unknown"


def results_dir(out=None):
    """``out`` as given, or this card's folder of ``benchmarks/results`` (one record per card)."""
    return out or os.path.join(os.path.dirname(os.path.abspath(__file__)), "results",
                               card_slug(torch.cuda.get_device_name()))


def norm_shape(shape):
    """(B, H_q, H_kv, S, D) or (B, H_q, H_kv, S, D_qk, D_v) -> the 6-tuple."""
    if len(shape) == 5:
        return tuple(shape) + (shape[4],)
    if len(shape) == 6:
        return tuple(shape)
    raise ValueError(f"shape {shape}: expected (B, H_q, H_kv, S, D) or (B, H_q, H_kv, S, D_qk, D_v)")


def row_seed(shape, causal, layout):
    """The seed of a row's random data. Equal head dims hash the 5-tuple, as the first benchmark (2026-11-30) did,
    so bf16 rows see the same data as before; dtype is not in it (fp16 = same data, cast)."""
    B, H_q, H_kv, S, D_qk, D_v = norm_shape(shape)
    key = (B, H_q, H_kv, S, D_qk) if D_qk == D_v else (B, H_q, H_kv, S, D_qk, D_v)
    return zlib.crc32(repr((key, causal, layout)).encode())


def shape_label(shape, causal):
    """'B2-H16/16-S4096-D128/128-nc' (or '-causal'): what --rows matches against."""
    B, H_q, H_kv, S, D_qk, D_v = norm_shape(shape)
    return f"B{B}-H{H_q}/{H_kv}-S{S}-D{D_qk}/{D_v}-{'causal' if causal else 'nc'}"


def row_selected(shape, causal, rows_filter):
    """--rows: comma-separated substrings of shape_label(); a row runs if any one matches.
    Empty / None selects every row. Examples: 'D192', 'S4096-D128', '-causal', 'H32/8'."""
    if not rows_filter:
        return True
    label = shape_label(shape, causal)
    return any(part.strip() and part.strip() in label for part in rows_filter.split(","))


def parse_dtypes(text):
    out = []
    for name in text.split(","):
        name = name.strip()
        if not name:
            continue
        if name not in DTYPES:
            raise SystemExit(f"--dtypes: {name!r} is not one of {', '.join(DTYPES)}")
        out.append(name)
    return out


def parse_layouts(text):
    out = [x.strip() for x in text.split(",") if x.strip()]
    for name in out:
        if name not in LAYOUTS:
            raise SystemExit(f"--layouts: {name!r} is not one of {', '.join(LAYOUTS)}")
    return out


def dtype_short(row_or_dtype):
    """'bf16' for a row (its 'dtype' key), a torch dtype or a name."""
    d = row_or_dtype.get("dtype") if isinstance(row_or_dtype, dict) else row_or_dtype
    name = str(d).split(".")[-1]
    return DTYPE_SHORT.get(name, name)


# ----------------------------------------------------------------------------
# Counting


def kept_pairs(S_q, S_kv, causal):
    """(query, key) pairs the mask keeps per (b, h): causal (top-left, right_bound 0) is
    sum_i min(i + 1, S_kv), i.e. S(S+1)/2 for S_q = S_kv, not S^2/2."""
    if not causal:
        return S_q * S_kv
    i = torch.arange(S_q, dtype=torch.int64)
    return int((torch.clamp(torch.minimum(i, torch.tensor(S_kv - 1)) + 1, min=0)).sum())


def forward_flops(B, H_q, pairs, D_qk, D_v):
    """QK^T (2 * D_qk per pair) + PV (2 * D_v per pair), per (b, h_q)."""
    return 2.0 * B * H_q * pairs * (D_qk + D_v)


def backward_flops(B, H_q, pairs, D_qk, D_v):
    """2.5 x the forward (the usual FA convention: 5 products against the forward's 2)."""
    return 2.5 * forward_flops(B, H_q, pairs, D_qk, D_v)


def ours_backward_workspace_bytes(B, H_q, H_k, H_v, S_q, S_kv, D_qk, D_v, elt_bytes, atomic_dq, kv_accum=False):
    """What ``launch.attention_backward`` allocates when the caller passes no outputs
    (exact element counts; the caching allocator rounds each tensor up to 512 B)."""
    side = 8 * B * H_q * S_q                                   # delta + lse2, fp32, one per (b, h_q, i) row
    outs = elt_bytes * (B * H_q * S_q * D_qk                   # dQ, q's shape and dtype
                        + B * H_k * S_kv * D_qk                # dK
                        + B * H_v * S_kv * D_v)                # dV
    accum = 4 * B * H_q * S_q * D_qk if atomic_dq else 0       # fp32 dq_accum: atomic dQ mode, Gluon backward
    kv = 4 * (B * H_k * S_kv * D_qk + B * H_v * S_kv * D_v) if kv_accum else 0  # Gluon backward, GQA: dK, dV fp32
    return side + outs + accum + kv


OURS_BACKWARD_WORKSPACE_FORMULA = (
    "peak bytes of one launch.attention_backward call with outputs allocated inside = "
    "8*B*H_q*S_q (delta and lse2: float32, 4 bytes each per (b, h_q, i) row, packed) "
    "+ elt*(B*H_q*S_q*D_qk + B*H_k*S_kv*D_qk + B*H_v*S_kv*D_v) (dQ, dK, dV: torch.empty of q's, k's, v's "
    "shape and dtype, contiguous whatever the inputs' layout) "
    "+ 4*B*H_q*S_q*D_qk (float32 dq_accum, torch.zeros) only when the call runs the Gluon backward "
    "(launch.gluon_backward_reasons empty: head dim 64 or 128, or D_qk 192 / D_v 128 under the masks in "
    "launch.GLUON_BWD_192, 16-bit, TMA-addressable; row dq_mode 'gluon') or the config's dq_mode is 'atomic' "
    "+ 4*(B*H_k*S_kv*D_qk + B*H_v*S_kv*D_v) (float32 dK and dV accumulators, torch.zeros) only when the Gluon "
    "backward runs with K or V heads shared (GQA, MQA) "
    "(deterministic=True forces 'separate'; in 'separate' mode no accumulator is allocated: the dQ pass "
    "writes dQ directly). "
    "Where a kernel reads tiles through device-side TMA descriptors (launch._use_tma, when present), Triton "
    "also allocates, through the torch allocator launch registers, a global scratch of "
    "(programs in the grid) x metadata.global_scratch_size bytes (about 128 B per tl.make_tensor_descriptor "
    "site, so a few hundred KiB here) for the duration of that launch; the peak holds the largest one "
    "(DKDV: cdiv(S_kv, BLOCK_N1)*B*H_kv programs; DQ: cdiv(S_q, BLOCK_M2)*B*H_q). Nothing else is allocated "
    "through PyTorch. Measured peak = this up to the caching allocator's rounding (512 B per tensor; a reused "
    "or unsplit cached block can count up to ~1 MiB more); rows carry ours_formula_bytes (without the TMA "
    "scratch) and ours_peak_over_formula. Source: src/sdpa_bwd/engine/launch.py attention_backward."
)


# ----------------------------------------------------------------------------
# Statistics


def geomean(values):
    vals = [v for v in values if v is not None and v > 0 and math.isfinite(v)]
    if not vals:
        return None
    return math.exp(sum(math.log(v) for v in vals) / len(vals))


def _key(r):
    return (r["B"], r["H_q"], r["H_kv"], r["S"], r.get("D_qk", r.get("D")), r.get("D_v", r.get("D")),
            r["causal"], r.get("dtype"))


def add_layout_spread(rows, time_key="ours_ms"):
    """r['ours_vs_bhsd'] = our time on r's layout / our BHSD time, same shape, causal and dtype: the row's
    interleaved twin timing where it has one (``layout_twin``: 'ours_vs_bhsd_twin'), else the two rows' own
    times, which were taken minutes apart (kept as 'ours_vs_bhsd_rows' either way)."""
    base = {_key(r): r[time_key] for r in rows if r["layout"] == "bhsd" and r.get(time_key)}
    for r in rows:
        b = base.get(_key(r))
        r["ours_vs_bhsd_rows"] = r[time_key] / b if b and r.get(time_key) else None
        twin = r.get("ours_vs_bhsd_twin")
        r["ours_vs_bhsd"] = twin if twin else r["ours_vs_bhsd_rows"]


def twin_timing(a_fn, b_fn, timer=None):
    """Two calls timed in alternation (a, b, a, b), the faster of each: (a's / b's, ([ms, ms], [ms, ms])).
    For comparisons of our engine with itself (a layout against BHSD storage, deterministic mode against the
    default), so both sides are timed in the same minute and the card's state."""
    timer = bench if timer is None else timer
    a_runs, b_runs = [], []
    for _ in range(2):
        a_runs.append(timer(a_fn))
        b_runs.append(timer(b_fn))
    return min(a_runs) / min(b_runs), (a_runs, b_runs)


def layout_twin(layout_fn, bhsd_fn, timer=None):
    """Our time on a layout against the same call on BHSD storage (``twin_timing``): (ratio, {"layout":
    [ms, ms], "bhsd": [ms, ms]}). On 2026-12-02 (H200, docs/data/h200-2026-12-02e) the rows' own times, minutes
    apart, put (2,16,4096,128) SBHD 6.7% over BHSD where the kernels' device time differed by under 1%."""
    ratio, (lay, bhsd) = twin_timing(layout_fn, bhsd_fn, timer)
    return ratio, {"layout": lay, "bhsd": bhsd}


def row_label(r):
    return (f"{shape_label((r['B'], r['H_q'], r['H_kv'], r['S'], r.get('D_qk', r.get('D')), r.get('D_v', r.get('D'))), r['causal'])}"
            f" {r['layout']} {dtype_short(r)}")


def summarize(rows, dtypes, max_keys=()):
    """Per dtype: geomean and worst row of ratio_vs_cudnn, rows counted, worst layout slowdown,
    and the max of each key in max_keys. The unsuffixed geomean_ratio_vs_cudnn is bf16's
    (the first benchmark's meaning) when bf16 rows exist, else the geomean over every row."""
    s = {}
    for dt in dtypes:
        rs = [r for r in rows if dtype_short(r) == dt]
        with_ratio = [r for r in rs if r.get("ratio_vs_cudnn")]
        ratios = [r["ratio_vs_cudnn"] for r in with_ratio]
        s[f"geomean_ratio_vs_cudnn_{dt}"] = geomean(ratios)
        worst = min(with_ratio, key=lambda r: r["ratio_vs_cudnn"], default=None)
        s[f"min_ratio_vs_cudnn_{dt}"] = worst["ratio_vs_cudnn"] if worst else None
        s[f"min_ratio_row_{dt}"] = row_label(worst) if worst else None
        s[f"rows_with_ratio_{dt}"] = len(ratios)
        s[f"rows_{dt}"] = len(rs)
        s[f"worst_layout_slowdown_vs_bhsd_{dt}"] = max(
            (r["ours_vs_bhsd"] for r in rs if r.get("ours_vs_bhsd")), default=None)
        for k in max_keys:
            s[f"max_{k}_{dt}"] = max((r[k] for r in rs if r.get(k) is not None), default=None)
        s[f"host_bound_rows_{dt}"] = [row_label(r) for r in rs
                                      if (r.get("ours_host_over_ms") or 0) >= HOST_BOUND_AT]
    all_ratios = [r["ratio_vs_cudnn"] for r in rows if r.get("ratio_vs_cudnn")]
    s["geomean_ratio_vs_cudnn"] = (s["geomean_ratio_vs_cudnn_bf16"] if "bf16" in dtypes
                                   else geomean(all_ratios))
    s["geomean_ratio_vs_cudnn_is"] = "bf16" if "bf16" in dtypes else "all rows"
    s["worst_layout_slowdown_vs_bhsd"] = max((r["ours_vs_bhsd"] for r in rows if r.get("ours_vs_bhsd")),
                                             default=None)
    s["max_rel_err_vs_cudnn"] = max((r["rel_err_vs_cudnn"] for r in rows if r.get("rel_err_vs_cudnn") is not None),
                                    default=None)
    s["cudnn_declined"] = [row_label(r) for r in rows if r.get("cudnn_error")]
    return s


# ----------------------------------------------------------------------------
# Printing


def fmt(v, spec=".2f"):
    if v is None:
        return "-"
    if isinstance(v, bool):
        return "yes" if v else "no"
    if isinstance(v, float) and not math.isfinite(v):
        return str(v)
    try:
        return format(v, spec)
    except (TypeError, ValueError):
        return str(v)


def markdown_table(rows, columns):
    """columns: [(header, fn(row) -> value, format spec)]; None prints as '-'."""
    lines = ["| " + " | ".join(h for h, _, _ in columns) + " |",
             "|" + "---|" * len(columns)]
    for r in rows:
        cells = []
        for _, fn, spec in columns:
            try:
                v = fn(r)
            except (KeyError, TypeError, ZeroDivisionError):
                v = None
            cells.append(fmt(v, spec))
        lines.append("| " + " | ".join(cells) + " |")
    return "\n".join(lines)


def tflops(r, name):
    return r.get(f"{name}_tflops")


SHAPE_COLUMNS = [
    ("B", lambda r: r["B"], "d"),
    ("H_q/H_kv", lambda r: f"{r['H_q']}/{r['H_kv']}", "s"),
    ("S", lambda r: r["S"], "d"),
    ("D_qk/D_v", lambda r: f"{r.get('D_qk', r.get('D'))}/{r.get('D_v', r.get('D'))}", "s"),
    ("causal", lambda r: "yes" if r["causal"] else "no", "s"),
    ("layout", lambda r: r["layout"], "s"),
    ("dtype", lambda r: dtype_short(r), "s"),
]


def summary_lines(summary, dtypes, extra=()):
    """Human lines for the end of a run: per dtype geomean / worst row / layout spread (+ extra
    (label, key-prefix, spec) triples read as summary[f'{prefix}_{dt}'])."""
    lines = []
    for dt in dtypes:
        parts = [f"{dt}: geomean ratio_vs_cudnn = {fmt(summary.get(f'geomean_ratio_vs_cudnn_{dt}'), '.3f')}"
                 f" over {summary.get(f'rows_with_ratio_{dt}', 0)}/{summary.get(f'rows_{dt}', 0)} rows",
                 f"worst row {fmt(summary.get(f'min_ratio_vs_cudnn_{dt}'), '.3f')}"
                 f" ({summary.get(f'min_ratio_row_{dt}') or '-'})",
                 f"worst layout / BHSD = {fmt(summary.get(f'worst_layout_slowdown_vs_bhsd_{dt}'), '.3f')}"]
        for label, prefix, spec in extra:
            parts.append(f"{label} = {fmt(summary.get(f'{prefix}_{dt}'), spec)}")
        host_bound = summary.get(f"host_bound_rows_{dt}")
        if host_bound:
            parts.append(f"host-bound (host ms >= {HOST_BOUND_AT} x timed ms): {', '.join(host_bound)}")
        lines.append("; ".join(parts))
    lines.append(f"max rel err vs cuDNN = {fmt(summary.get('max_rel_err_vs_cudnn'), '.2e')}; "
                 f"cuDNN declined: {', '.join(summary.get('cudnn_declined') or []) or 'none'}")
    return lines


# ----------------------------------------------------------------------------
# Device helpers (CUDA)


def make(B, H, S, D, layout, dtype, gen):
    """A (B, H, S, D) view of random data stored in ``layout``."""
    if layout == "bhsd":
        t = torch.randn(B, H, S, D, generator=gen, device="cuda", dtype=torch.float32).to(dtype)
        return t
    if layout == "bshd":
        return torch.randn(B, S, H, D, generator=gen, device="cuda").to(dtype).transpose(1, 2)
    if layout == "sbhd":
        return torch.randn(S, B, H, D, generator=gen, device="cuda").to(dtype).permute(1, 2, 0, 3)
    if layout == "bshd_pad":
        # each row padded by 64 elements (128 bytes in 16-bit): still 16-byte aligned rows
        buf = torch.randn(B, S, H, D + 64, generator=gen, device="cuda").to(dtype)
        return buf[..., :D].transpose(1, 2)
    raise ValueError(layout)


def bench(fn, warmup=None, rep=None):
    """Median ms of ``triton.testing.do_bench`` (warmup / rep in ms; defaults WARMUP_MS / REP_MS)."""
    import triton.testing
    return triton.testing.do_bench(fn, warmup=WARMUP_MS if warmup is None else warmup,
                                   rep=REP_MS if rep is None else rep, return_mode="median")


def retime_interleaved(ours_fn, peer_fn, t_ours, t_peer, timer=None):
    """A second timing of both, interleaved with the first (ours, peer, ours again, peer again), and the
    faster of each: one median per row let a slow spell of the card land on one layout's row (2026-12-01, H200: a
    BSHD row 1.23x its BHSD twin in one run, 1.0x in the run before). Returns (ours ms, peer ms, ours' two, peer's
    two)."""
    timer = bench if timer is None else timer
    t_ours2 = timer(ours_fn)
    t_peer2 = timer(peer_fn)
    return min(t_ours, t_ours2), min(t_peer, t_peer2), [t_ours, t_ours2], [t_peer, t_peer2]


def host_ms(fn, calls=5, sync=None):
    """Host time of one call: the least of ``calls`` calls, each started with the GPU idle (``sync``,
    torch.cuda.synchronize by default, before it, not inside), so what is timed is the call's Python and
    its launches, not the GPU's work. A row whose host time nears its timed ms is host-bound: do_bench's
    events then time how fast the host enqueues, and one row can time either way from run to run
    (2026-12-01, H200, h200-2026-12-01g: 0.32 or 0.55 ms for the same hd64 causal row)."""
    sync = torch.cuda.synchronize if sync is None else sync
    best = math.inf
    for _ in range(calls):
        sync()
        t0 = time.perf_counter()
        fn()
        best = min(best, time.perf_counter() - t0)
    sync()
    return best * 1e3


HOST_BOUND_AT = 0.7  # host ms / timed ms from which summarize counts a row as host-bound (or close to it)


def rel_err(a, b):
    a, b = a.float(), b.float()
    return ((a - b).norm() / b.norm().clamp_min(1e-30)).item()


def peak_bytes(fn):
    """Peak device memory that one call of fn allocates above what was live before it
    (its results included, as they are alive when fn returns)."""
    torch.cuda.synchronize()
    torch.cuda.reset_peak_memory_stats()
    base = torch.cuda.memory_allocated()
    res = fn()
    torch.cuda.synchronize()
    peak = torch.cuda.max_memory_allocated() - base
    del res
    return int(peak)


def git_commit():
    try:
        out = subprocess.run(["git", "rev-parse", "HEAD"], capture_output=True, text=True, timeout=5)
        if out.returncode == 0:
            dirty = subprocess.run(["git", "status", "--porcelain", "--untracked-files=no"],
                                   capture_output=True, text=True, timeout=5).stdout.strip()
            return out.stdout.strip() + ("+dirty" if dirty else "")
    except Exception:  # no git on the device machine, or not a checkout
        pass
    return None


def run_meta(args, argv, dtypes, layouts, peer_names, **extra):
    """The JSON meta both benchmarks write: machine, versions, commit, the command, timing method."""
    import os
    import platform
    import sys
    import time

    import triton

    return dict(device=torch.cuda.get_device_name(), torch=torch.__version__, triton=triton.__version__,
                python=platform.python_version(), cudnn=torch.backends.cudnn.version(),
                when=time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()), git=git_commit(),
                command=" ".join([os.path.basename(sys.argv[0])] + (sys.argv[1:] if argv is None else list(argv))),
                dtypes=dtypes, layouts=layouts, rows_filter=args.rows or None, peers=list(peer_names),
                timing=dict(fn="triton.testing.do_bench", return_mode="median", warmup_ms=args.warmup,
                            rep_ms=args.rep), **extra)


# The first columns of both benchmarks' tables, after the shape.
SPEED_COLUMNS = [
    ("ours ms", lambda r: r["ours_ms"], ".3f"),
    ("ours TF", lambda r: r["ours_tflops"], ".0f"),
    ("cuDNN TF", lambda r: r.get("cudnn_tflops"), ".0f"),
    ("flash TF", lambda r: r.get("flash_tflops"), ".0f"),
]


def row_head(r) -> str:
    """The start of the line both benchmarks print as a row finishes: shape, layout, dtype, our speed."""
    return (f"{shape_label((r['B'], r['H_q'], r['H_kv'], r['S'], r['D_qk'], r['D_v']), r['causal']):34} "
            f"{r['layout']:8} {dtype_short(r)} ours {r['ours_ms']:.3f} ms {r['ours_tflops']:.0f} TF | ")
