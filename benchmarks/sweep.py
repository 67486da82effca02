"""A generated shape sweep (issue 55): our SDPA forward and backward, as users call them, against PyTorch's
peers on shapes drawn from the space users run, in two splits: a TUNING set that engineers may look at while
choosing configs, and a HELD-OUT set drawn from another seed that is only ever measured and reported.

On the device machine (one GPU). A row takes about 24 do_bench timings (each ~0.3 s with the 250 ms warm-up); our
engine's kernels for every row are compiled first, side by side (``compile_rows``; ``meta.compile_ahead_s``). On an
H100 (2026-12-06), compiling as each row was first timed, a row took 8-27 s (``row_wall_s``), 14 rows ~270 s, so
where one command may run 10 minutes run the splits one per command, ``--rows`` as the time allows:

    PYTHONPATH=src python3 benchmarks/sweep.py --split tuning --out benchmarks/results
    PYTHONPATH=src python3 benchmarks/sweep.py --split held_out --out benchmarks/results
    PYTHONPATH=src python3 benchmarks/sweep.py --split both --out benchmarks/results      # both, one command
    PYTHONPATH=src python3 benchmarks/sweep.py --split held_out --rows 10 --list           # print rows, no GPU
    PYTHONPATH=src python3 benchmarks/sweep.py --split held_out --rows 24 --only held_out-023  # one row again
    PYTHONPATH=src python3 benchmarks/plot_sweep.py benchmarks/results/h100/sweep_held_out.json

Writes ``<out>/<card>/sweep_<split>.json`` (``sweep_<split>_only.json`` for the rows ``--only`` names; card:
``card_slug(torch.cuda.get_device_name())``, e.g. ``h100``),
rewritten after every row so a run stopped by a time limit keeps what it measured, and prints a summary per split.

The shapes (``generate``): each row draws its categorical axes from shuffled decks (head dim, dtype, layout, GQA
ratio, mask kind, query/key length relation), so that a sample of 40 holds every value of every axis in about
the proportions a deck gives it, and its sizes at random: S from 128 to 32k, short ones weighted (a third at
512 and below, nearly half at 1k-4k), about a third of them odd (a multiple of no tile), B x H_q from 8 to 512
heads total, the backward's FLOPs under ``MAX_BWD_FLOPS`` (a few ms on an H100) and the row's tensors under
``MAX_ROW_BYTES``. A row is a shape in a split only if ``split_of_shape`` (a CRC of (B, H_q, H_kv, S_q, S_kv,
D_qk, D_v)) says so, so the splits are disjoint as sets of shapes whatever their seeds and sizes. Bottom-right
alignment is drawn only with S_kv > S_q (with S_q = S_kv it is top-left), and no row has a query that keeps
no key (``empty_query_rows``).

Times (ms): ``triton.testing.do_bench`` medians (``common.WARMUP_MS`` / ``common.REP_MS``), in ``--rounds``
interleaved rounds (ours-api, ours-launcher, peer..., then again), each path's median over its rounds.

* backward, ours-api: ``torch.autograd.grad`` on a retained graph of ``sdpa_bwd.attention`` (the custom op,
  autograd and the host path included); ours-launcher: ``launch.attention_backward`` on O / stats precomputed
  by ``launch.attention_forward``; a peer: ``torch.autograd.grad`` on a retained graph of
  ``F.scaled_dot_product_attention`` under ``sdpa_kernel(backend)`` (or of compiled FlexAttention).
* forward, ours-api: ``sdpa_bwd.attention`` under ``torch.no_grad()``; ours-launcher:
  ``launch.attention_forward``; a peer: its forward under ``torch.no_grad()``.
* peers: cuDNN where it runs the row; where it declines (a RuntimeError), FLASH_ATTENTION,
  EFFICIENT_ATTENTION and compiled FlexAttention, each where it runs (``--all-peers`` tries all four on
  every row). Bottom-right causal and windows pass SDPA an explicit boolean ``attn_mask``
  (``oracle.band_mask``), FlexAttention a block mask; top-left causal passes ``is_causal=True``; GQA / MQA
  ``enable_gqa=True``.
* deterministic: ours-api's backward under ``torch.use_deterministic_algorithms(True)`` against the default,
  interleaved (``det_over_default``), the mode set for each deterministic round as a user sets it once. That mode fills each ``torch.empty`` with NaN
  (``torch.utils.deterministic.fill_uninitialized_memory``); the engine's own buffers skip it (``engine.alloc``),
  any other allocation in the timed call pays it, as users of the mode do.
* memory: the peak bytes one backward call allocates (``common.peak_bytes``), ours-api against cuDNN's
  (``mem_ratio_vs_cudnn``).

Ratios are peer time / our time (above 1: ours is faster). The summary reports the issue's bars and does not
enforce them: geomean ``ratio_vs_cudnn`` and rows below ``SLOW_ROW``; the same against the best other peer
where cuDNN declines; the forward likewise; ``det_over_default`` within ``DET_BAR``; ``mem_ratio_vs_cudnn``
within ``MEM_BAR``.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import random
import statistics
import sys
import time
import zlib
from contextlib import contextmanager, nullcontext

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import common  # noqa: E402
from common import card_slug, fmt, geomean  # noqa: E402

# ----------------------------------------------------------------------------
# The space users run, and the caps that keep one row small

# (D_qk, D_v) deck: head dims 64 and 128 twice (most models), the rest once; (192, 128) is DeepSeek-V3's MLA.
HEAD_DIM_DECK = [(32, 32), (64, 64), (64, 64), (80, 80), (96, 96), (128, 128), (128, 128), (160, 160),
                 (192, 128), (256, 256)]
DTYPE_DECK = ["bf16", "bf16", "bf16", "fp16", "fp16"]
LAYOUT_DECK = ["bshd", "bshd", "bhsd", "sbhd", "bshd_pad"]  # common.make's names; BSHD is what most models hold
# query heads per K/V head; 0 = MQA (one K/V head)
GQA_DECK = [1, 1, 1, 1, 2, 4, 8, 16, 0]
# mask kinds: "causal" and "window" (causal with a left_bound) take an alignment; bottom-right needs S_kv > S_q
MASK_DECK = [("none", None), ("none", None), ("causal", "top_left"), ("causal", "top_left"),
             ("causal", "bottom_right"), ("window", "top_left"), ("window", "bottom_right")]
# S_kv against S_q where the mask allows either: mostly equal, sometimes longer or shorter keys
KV_DECK = ["equal", "equal", "equal", "equal", "longer", "shorter"]
QUERY_HEADS = [8, 12, 16, 20, 24, 28, 32, 40, 48, 64, 96, 128]

# S_q buckets (lo, hi, weight): a third at 512 and below (fine-tunes), nearly half at 1k-4k (training steps)
S_BUCKETS = [(128, 512, 0.32), (513, 1023, 0.08), (1024, 4096, 0.42), (4097, 8192, 0.10), (8193, 32768, 0.08)]
S_MIN, S_MAX = 128, 32768
ODD_FRACTION = 0.35   # rows whose lengths are odd: a multiple of no tile
MIN_HEADS, MAX_HEADS = 8, 512  # B x H_q
MAX_BWD_FLOPS = 4.0e12  # backward FLOPs of one row (2.5 x forward): ~13 ms at 300 TFLOP/s, ~80 ms at 50
MAX_ROW_BYTES = 6 * 2**30  # our inputs, outputs and gradients, a peer's same and a boolean mask: well within 78 GiB

SPLIT_SEEDS = {"tuning": 55_001, "held_out": 55_002}
SPLITS = ("tuning", "held_out")

# The issue's bars (reported, not enforced)
SLOW_ROW = 0.90   # a row with peer / ours below this counts as slow
DET_BAR = 1.15    # deterministic / default within 15%
MEM_BAR = 1.10    # our peak within cuDNN's + 10%


class Deck:
    """Draws from a list without replacement, reshuffled when spent: every value appears in every
    len(values) draws (up to the reshuffle boundary), so small samples cover each axis."""

    def __init__(self, values, rng):
        self.values, self.rng, self.pile = list(values), rng, []

    def draw(self):
        if not self.pile:
            self.pile = list(self.values)
            self.rng.shuffle(self.pile)
        return self.pile.pop()


def shape_key(r):
    """What 'the same shape' means across splits: sizes, not dtype, layout or mask."""
    return (r["B"], r["H_q"], r["H_kv"], r["S_q"], r["S_kv"], r["D_qk"], r["D_v"])


def split_of_shape(r):
    """The split a shape belongs to, by a CRC of its shape_key: splits are disjoint by construction."""
    return SPLITS[zlib.crc32(repr(shape_key(r)).encode()) % 2]


def kept_pairs_band(S_q, S_kv, left_bound, right_bound, alignment):
    """(query, key) pairs kept per (b, h) under the band (oracle.band_mask's rule), without the mask."""
    shift = S_kv - S_q if alignment == "bottom_right" else 0
    total = 0
    # rows i keep keys j with max(0, i + 1 - left_bound + shift) <= j <= min(S_kv - 1, i + right_bound + shift)
    for i in range(S_q):
        lo = 0 if left_bound is None else max(0, i + 1 - left_bound + shift)
        hi = S_kv - 1 if right_bound is None else min(S_kv - 1, i + right_bound + shift)
        total += max(0, hi - lo + 1)
    return total


def empty_query_rows(S_q, S_kv, left_bound, right_bound, alignment):
    """Query rows that keep no key (SDPA gives NaN there, our engine zeros): the generator draws none."""
    shift = S_kv - S_q if alignment == "bottom_right" else 0
    n = 0
    for i in (0, S_q - 1):  # a band's first or last row is the emptiest
        lo = 0 if left_bound is None else max(0, i + 1 - left_bound + shift)
        hi = S_kv - 1 if right_bound is None else min(S_kv - 1, i + right_bound + shift)
        n += hi < lo
    return n


def row_bytes(r):
    """Device bytes a row holds at once: q, k, v, o, dO and our three gradients, a peer's copy of the
    gradients and output, and the boolean mask SDPA gets for windows and bottom-right causal."""
    elt = 2
    B, H_q, H_kv, S_q, S_kv, D_qk, D_v = shape_key(r)
    q, o = B * H_q * S_q * D_qk, B * H_q * S_q * D_v
    k, v = B * H_kv * S_kv * D_qk, B * H_kv * S_kv * D_v
    pad = 64 * (B * H_q * S_q * 2 + B * H_kv * S_kv * 2) if r["layout"] == "bshd_pad" else 0
    tensors = elt * (3 * q + 3 * k + 3 * v + 3 * o + pad)
    mask = S_q * S_kv if needs_attn_mask(r) else 0
    return tensors + mask + 4 * 2 * B * H_q * S_q  # + stats, delta


def needs_attn_mask(r):
    """Rows SDPA cannot express with is_causal (top-left only): windows and bottom-right causal."""
    return r["mask"] == "window" or (r["mask"] == "causal" and r["alignment"] == "bottom_right")


def bwd_flops(r):
    pairs = r["kept_pairs"]
    return common.backward_flops(r["B"], r["H_q"], pairs, r["D_qk"], r["D_v"])


def _draw_length(rng, odd):
    lo, hi, _ = rng.choices(S_BUCKETS, weights=[w for *_, w in S_BUCKETS])[0]
    s = int(round(math.exp(rng.uniform(math.log(lo), math.log(hi)))))
    if odd:
        return max(S_MIN + 1, min(S_MAX - 1, s | 1))  # odd: divisible by no tile
    # round lengths: a multiple of 128 (or of 64 below 1k), as packed training batches are
    step = 128 if s >= 1024 else 64
    return max(S_MIN, min(S_MAX, step * max(1, round(s / step))))


def _draw_other_length(rng, S_q, longer, odd):
    """S_kv for a row whose keys are longer (KV cache, chunked prefill) or shorter (cross-attention) than S_q."""
    f = math.exp(rng.uniform(math.log(1.5), math.log(8.0)))
    s = S_q * f if longer else S_q / f
    s = int(round(s))
    if odd:
        s |= 1
    else:
        s = 64 * max(2, round(s / 64))
    s = max(S_MIN, min(S_MAX, s))
    if s == S_q:
        s = S_q + 1 if longer else S_q - 1
    return s


def _draw_window(rng, S_kv, odd):
    hi = max(32, min(4096, S_kv // 2))
    w = int(round(math.exp(rng.uniform(math.log(min(64, hi)), math.log(hi)))))
    return (w | 1) if odd else max(16, 1 << round(math.log2(max(w, 1))))


def generate(n, seed, split):
    """n rows of ``split`` drawn with ``seed``: a list of dicts with every parameter a row is run with."""
    if split not in SPLITS:
        raise ValueError(f"split {split!r}: expected one of {SPLITS}")
    rng = random.Random(seed)
    decks = dict(hd=Deck(HEAD_DIM_DECK, rng), dtype=Deck(DTYPE_DECK, rng), layout=Deck(LAYOUT_DECK, rng),
                 gqa=Deck(GQA_DECK, rng), mask=Deck(MASK_DECK, rng), kv=Deck(KV_DECK, rng))
    rows, seen = [], set()
    while len(rows) < n:
        (D_qk, D_v), dtype, layout = decks["hd"].draw(), decks["dtype"].draw(), decks["layout"].draw()
        group, (mask, alignment), kv = decks["gqa"].draw(), decks["mask"].draw(), decks["kv"].draw()
        if alignment == "bottom_right":
            kv = "longer"  # bottom-right only differs from top-left where S_kv != S_q; S_q > S_kv leaves rows empty
        # the categorical draws stay; sizes are redrawn until the row fits the caps and this split
        for _ in range(1000):
            odd = rng.random() < ODD_FRACTION
            S_q = _draw_length(rng, odd)
            S_kv = S_q if kv == "equal" else _draw_other_length(rng, S_q, kv == "longer", odd)
            left = _draw_window(rng, S_kv, odd) if mask == "window" else None
            right = 0 if mask in ("causal", "window") else None
            if empty_query_rows(S_q, S_kv, left, right, alignment or "top_left"):
                continue  # e.g. a top-left window on shorter keys: the last queries keep no key
            heads = [h for h in QUERY_HEADS if group == 0 or h % group == 0]
            H_q = rng.choice(heads)
            H_kv = 1 if group == 0 else H_q // group
            total = math.exp(rng.uniform(math.log(MIN_HEADS), math.log(MAX_HEADS)))
            B = max(1, round(total / H_q))
            r = dict(B=B, H_q=H_q, H_kv=H_kv, S_q=S_q, S_kv=S_kv, D_qk=D_qk, D_v=D_v, dtype=dtype, layout=layout,
                     mask=mask, alignment=alignment or "top_left", left_bound=left, right_bound=right,
                     causal=mask in ("causal", "window"))
            r["gqa"] = "mha" if H_kv == H_q else ("mqa" if H_kv == 1 else f"{H_q // H_kv}:1")
            r["kept_pairs"] = kept_pairs_band(S_q, S_kv, left, right, r["alignment"])
            while B > 1 and (bwd_flops(r) > MAX_BWD_FLOPS or row_bytes(r) > MAX_ROW_BYTES):
                B = r["B"] = B - 1 if B <= 8 else B * 3 // 4
            if not (MIN_HEADS <= B * H_q <= MAX_HEADS) or bwd_flops(r) > MAX_BWD_FLOPS \
                    or row_bytes(r) > MAX_ROW_BYTES:
                continue
            if split_of_shape(r) != split or shape_key(r) in seen:
                continue
            break
        else:
            raise RuntimeError(f"generate: no row of split {split} fits the caps after 1000 draws for "
                               f"D {D_qk}/{D_v}, group {group}, mask {mask} {alignment}, kv {kv}: widen the caps "
                               "(MAX_BWD_FLOPS, MAX_ROW_BYTES) or the decks")
        seen.add(shape_key(r))
        r["bwd_flops"] = bwd_flops(r)
        r["est_bytes"] = row_bytes(r)
        r["id"] = f"{split}-{len(rows):03d}"
        r["label"] = row_label(r)
        rows.append(r)
    return rows


def row_label(r):
    mask = {"none": "full", "causal": "causal", "window": f"win{r['left_bound']}"}[r["mask"]]
    if r["mask"] != "none":
        mask += "-BR" if r["alignment"] == "bottom_right" else "-TL"
    return (f"B{r['B']}-H{r['H_q']}/{r['H_kv']}-S{r['S_q']}/{r['S_kv']}-D{r['D_qk']}/{r['D_v']}-{mask} "
            f"{r['layout']} {r['dtype']}")


# ----------------------------------------------------------------------------
# Summaries (no GPU)


def _ratio(peer_ms, ours_ms):
    return peer_ms / ours_ms if peer_ms and ours_ms else None


def add_ratios(r, peers=("cudnn", "flash", "efficient", "flex")):
    """From a row's times (ms): backward and forward ratios against cuDNN and against the best peer."""
    for kind in ("bwd", "fwd"):
        ours = r.get(f"ours_api_{kind}_ms")
        pfx = "" if kind == "bwd" else "fwd_"
        times = {p: r.get(f"{p}_{kind}_ms") for p in peers if r.get(f"{p}_{kind}_ms")}
        r[f"{pfx}ratio_vs_cudnn"] = _ratio(times.get("cudnn"), ours)
        best = min(times, key=times.get) if times else None
        r[f"{pfx}best_peer"] = best
        r[f"{pfx}ratio_vs_best_peer"] = _ratio(times[best], ours) if best else None
        others = {p: t for p, t in times.items() if p != "cudnn"}
        best_other = min(others, key=others.get) if others else None
        r[f"{pfx}ratio_vs_best_other_peer"] = _ratio(others[best_other], ours) if best_other else None
    if r.get("ours_peak_bytes") and r.get("cudnn_peak_bytes"):
        r["mem_ratio_vs_cudnn"] = r["ours_peak_bytes"] / r["cudnn_peak_bytes"]
    return r


def _bar(rows, key, below=None, within=None):
    """geomean, worst row and counts of one ratio over the rows that have it."""
    have = [r for r in rows if r.get(key) is not None]
    vals = [r[key] for r in have]
    out = dict(rows=len(have), geomean=geomean(vals))
    if below is not None:  # a speed ratio: the worst is the smallest
        worst = min(have, key=lambda r: r[key], default=None)
        out["rows_below"] = [r["label"] for r in have if r[key] < below]
        out["below"] = below
    else:  # a cost ratio: the worst is the largest
        worst = max(have, key=lambda r: r[key], default=None)
        out["rows_within"] = sum(1 for v in vals if v <= within)
        out["rows_outside"] = [r["label"] for r in have if r[key] > within]
        out["within"] = within
    out["worst"] = worst[key] if worst else None
    out["worst_row"] = worst["label"] if worst else None
    return out


def summarize(rows):
    """The issue's bars over one split's rows (those our engine ran)."""
    ok = [r for r in rows if r.get("ours_api_bwd_ms")]
    declined = [r for r in ok if r.get("ratio_vs_cudnn") is None]
    fwd_declined = [r for r in ok if r.get("fwd_ratio_vs_cudnn") is None]
    return dict(
        rows=len(rows), rows_ours_ran=len(ok),
        ours_failed=[r["label"] for r in rows if r.get("ours_error")],
        bwd_vs_cudnn=_bar(ok, "ratio_vs_cudnn", below=SLOW_ROW),
        bwd_vs_best_other_where_cudnn_declines=_bar(declined, "ratio_vs_best_other_peer", below=SLOW_ROW),
        fwd_vs_cudnn=_bar(ok, "fwd_ratio_vs_cudnn", below=SLOW_ROW),
        fwd_vs_best_other_where_cudnn_declines=_bar(fwd_declined, "fwd_ratio_vs_best_other_peer", below=SLOW_ROW),
        det_over_default=_bar(ok, "det_over_default", within=DET_BAR),
        mem_vs_cudnn=_bar(ok, "mem_ratio_vs_cudnn", within=MEM_BAR),
        cudnn_declined=[r["label"] for r in declined],
    )


def summary_lines(split, s):
    """The printed summary of one split."""
    lines = [f"== {split}: {s['rows_ours_ran']}/{s['rows']} rows ran"
             + (f"; OURS FAILED: {', '.join(s['ours_failed'])}" if s["ours_failed"] else "")]
    for title, key in (("backward vs cuDNN", "bwd_vs_cudnn"),
                       ("backward vs best other peer, where cuDNN declines", "bwd_vs_best_other_where_cudnn_declines"),
                       ("forward vs cuDNN", "fwd_vs_cudnn"),
                       ("forward vs best other peer, where cuDNN declines", "fwd_vs_best_other_where_cudnn_declines")):
        b = s[key]
        lines.append(f"  {title}: geomean(peer/ours) {fmt(b['geomean'], '.3f')} over {b['rows']} rows; worst "
                     f"{fmt(b['worst'], '.3f')} ({b['worst_row'] or '-'}); {len(b['rows_below'])} below "
                     f"{b['below']:.2f}" + (f": {', '.join(b['rows_below'])}" if b["rows_below"] else ""))
    for title, key in (("deterministic / default", "det_over_default"), ("peak memory ours / cuDNN", "mem_vs_cudnn")):
        b = s[key]
        lines.append(f"  {title}: {b['rows_within']}/{b['rows']} rows within {b['within']:.2f}; worst "
                     f"{fmt(b['worst'], '.3f')} ({b['worst_row'] or '-'})"
                     + (f"; outside: {', '.join(b['rows_outside'])}" if b["rows_outside"] else ""))
    return lines


TABLE = [
    ("id", lambda r: r["id"], "s"), ("row", lambda r: r["label"], "s"),
    ("ours api ms", lambda r: r.get("ours_api_bwd_ms"), ".3f"),
    ("ours launch ms", lambda r: r.get("ours_launcher_bwd_ms"), ".3f"),
    ("cuDNN ms", lambda r: r.get("cudnn_bwd_ms"), ".3f"),
    ("vs cuDNN", lambda r: r.get("ratio_vs_cudnn"), ".2f"),
    ("best peer", lambda r: r.get("best_peer"), "s"),
    ("vs best", lambda r: r.get("ratio_vs_best_peer"), ".2f"),
    ("fwd vs cuDNN", lambda r: r.get("fwd_ratio_vs_cudnn"), ".2f"),
    ("det/def", lambda r: r.get("det_over_default"), ".2f"),
    ("mem", lambda r: r.get("mem_ratio_vs_cudnn"), ".2f"),
]


def print_rows(rows, out=None):
    """The generator's rows, one a line (--list)."""
    out = sys.stdout if out is None else out  # at call time: pytest's capsys swaps sys.stdout
    for r in rows:
        print(f"{r['id']}  {r['label']:58} gqa {r['gqa']:5} pairs {r['kept_pairs']:>11,} "
              f"bwd {r['bwd_flops'] / 1e12:6.3f} TFLOP  est {r['est_bytes'] / 2**20:7.0f} MiB", file=out)


def record(split, seed, rows, meta):
    """The JSON of one split."""
    return dict(split=split, seed=seed, **meta, summary=summarize(rows), rows=rows)


# ----------------------------------------------------------------------------
# Timing (CUDA)


@contextmanager
def deterministic_mode():
    """torch.use_deterministic_algorithms(True) for the block, restored after it."""
    import torch
    was, warn = torch.are_deterministic_algorithms_enabled(), torch.is_deterministic_algorithms_warn_only_enabled()
    torch.use_deterministic_algorithms(True)
    try:
        yield
    finally:
        torch.use_deterministic_algorithms(was, warn_only=warn)


def interleaved(fns, rounds, timer=None, modes=None):
    """{name: fn} timed round by round in the dict's order (a, b, c, a, b, c, ...): {name: (median ms, [ms...])}.
    A callable that raises in a round is dropped and its error kept under the name as (None, error). ``modes``:
    {name: context manager factory} entered around each of that name's rounds (the whole timed loop), as a user
    sets a mode once and then calls, not around each call."""
    timer = common.bench if timer is None else timer
    modes = modes or {}
    runs = {name: [] for name in fns}
    errors = {}
    for _ in range(rounds):
        for name, fn in fns.items():
            if name in errors:
                continue
            try:
                with modes.get(name, nullcontext)():
                    runs[name].append(timer(fn))
            except Exception as exc:  # a peer that fails mid-timing (out of memory, a compile error)
                errors[name] = f"{type(exc).__name__}: {str(exc)[:200]}"
    return {name: ((statistics.median(ts), ts) if name not in errors else (None, errors[name]))
            for name, ts in runs.items()}


def _peers(r):
    """[(name, forward fn(q, k, v) -> O)] of every peer, in the order they are tried; cuDNN first."""
    import torch.nn.functional as F
    from torch.nn.attention import SDPBackend, sdpa_kernel

    from sdpa_bwd.problem.oracle import band_mask

    gqa = r["H_q"] != r["H_kv"]
    # SDPA's is_causal is top-left; windows and bottom-right causal need the band as a boolean mask
    mask = (band_mask(r["S_q"], r["S_kv"], r["left_bound"], r["right_bound"], r["alignment"], device=DEVICE)
            if needs_attn_mask(r) else None)
    is_causal = r["mask"] == "causal" and mask is None

    def sdpa(backend):
        def fwd(q, k, v):
            with sdpa_kernel(backend):
                return F.scaled_dot_product_attention(q, k, v, attn_mask=mask, is_causal=is_causal, enable_gqa=gqa)
        return fwd

    peers = [("cudnn", sdpa(SDPBackend.CUDNN_ATTENTION)), ("flash", sdpa(SDPBackend.FLASH_ATTENTION)),
             ("efficient", sdpa(SDPBackend.EFFICIENT_ATTENTION))]
    try:
        peers.append(("flex", _flex(r, gqa)))
    except Exception as exc:  # a torch without FlexAttention: the three SDPA backends remain
        print(f"FlexAttention unavailable ({type(exc).__name__}: {str(exc)[:120]}); not a peer", flush=True)
    return peers


_FLEX_COMPILED = []


def _flex(r, gqa):
    """Compiled FlexAttention, with a block mask for causal and windows (none for a full mask)."""
    import torch
    import torch._dynamo  # the recompile limit below
    from torch.nn.attention.flex_attention import create_block_mask, flex_attention

    if not _FLEX_COMPILED:
        # one compile per shape (dynamic=False: what a fixed-shape training step gets); past dynamo's recompile
        # limit (8 by default) flex_attention would run eagerly, materializing the S_q x S_kv scores
        for name in ("recompile_limit", "cache_size_limit"):
            if hasattr(torch._dynamo.config, name):
                setattr(torch._dynamo.config, name, max(256, getattr(torch._dynamo.config, name)))
        _FLEX_COMPILED.append(torch.compile(flex_attention, dynamic=False))
    S_q, S_kv, left, right = r["S_q"], r["S_kv"], r["left_bound"], r["right_bound"]
    shift = S_kv - S_q if r["alignment"] == "bottom_right" else 0

    def mask_mod(b, h, i, j):  # oracle.band_mask's rule
        keep = (j - i) <= right + shift
        if left is not None:
            keep = keep & ((j - i) >= 1 - left + shift)
        return keep

    block_mask = []  # built on first use: a peer that is never tried costs nothing

    def fwd(q, k, v):
        if not block_mask:
            if right is None:
                block_mask.append(None)
            else:
                try:  # compiled: the eager build evaluates mask_mod on all S_q x S_kv pairs at once
                    block_mask.append(create_block_mask(mask_mod, None, None, S_q, S_kv, device=DEVICE, _compile=True))
                except TypeError:  # a torch whose create_block_mask has no _compile
                    block_mask.append(create_block_mask(mask_mod, None, None, S_q, S_kv, device=DEVICE))
        return _FLEX_COMPILED[0](q, k, v, block_mask=block_mask[0], enable_gqa=gqa)
    return fwd


DEVICE = "cuda"  # tests/test_sweep.py runs run_row on "cpu" under TRITON_INTERPRET=1 with a stand-in timer


def _sync():
    import torch
    if DEVICE == "cuda":
        torch.cuda.synchronize()


def make(B, H, S, D, layout, dtype, gen):
    """A (B, H, S, D) view of random data stored in ``layout`` on DEVICE: ``common.make``'s layouts."""
    import torch
    if DEVICE == "cuda":
        return common.make(B, H, S, D, layout, dtype, gen)
    dims = {"bhsd": (B, H, S, D), "bshd": (B, S, H, D), "sbhd": (S, B, H, D), "bshd_pad": (B, S, H, D + 64)}[layout]
    t = torch.randn(dims, generator=gen, device=DEVICE).to(dtype)
    if layout == "bhsd":
        return t
    if layout == "sbhd":
        return t.permute(1, 2, 0, 3)
    return (t[..., :D] if layout == "bshd_pad" else t).transpose(1, 2)


def row_tensors(r):
    """(q, k, v, dO, bounds) of a row: its layout and dtype, values seeded by its label."""
    import torch

    dtype = common.DTYPES[r["dtype"]]
    B, H_q, H_kv, S_q, S_kv, D_qk, D_v = shape_key(r)
    gen = torch.Generator(device=DEVICE).manual_seed(zlib.crc32(r["label"].encode()))
    q = make(B, H_q, S_q, D_qk, r["layout"], dtype, gen)
    k = make(B, H_kv, S_kv, D_qk, r["layout"], dtype, gen)
    v = make(B, H_kv, S_kv, D_v, r["layout"], dtype, gen)
    do = make(B, H_q, S_q, D_v, r["layout"], dtype, gen)
    return q, k, v, do, dict(left_bound=r["left_bound"], right_bound=r["right_bound"], alignment=r["alignment"])


def run_row(r, rounds, all_peers, det=True, mem=True, timer=None):
    """Time one generated row; returns r with times, ratios and errors added. ``timer``: ms of a callable
    (``common.bench`` by default)."""
    import torch

    import sdpa_bwd
    from sdpa_bwd.engine import launch

    t_row = time.time()
    q, k, v, do, bounds = row_tensors(r)
    qg, kg, vg = (t.detach().requires_grad_() for t in (q, k, v))

    # ours, as users call it (the API) and at the launcher
    o_api = sdpa_bwd.attention(qg, kg, vg, **bounds)
    api_bwd = lambda: torch.autograd.grad(o_api, (qg, kg, vg), do, retain_graph=True)  # noqa: E731

    def api_fwd():
        with torch.no_grad():
            return sdpa_bwd.attention(q, k, v, **bounds)

    o, stats = launch.attention_forward(q, k, v, **bounds)
    launch_bwd = lambda: launch.attention_backward(q, k, v, o, do, stats, **bounds)  # noqa: E731
    launch_fwd = lambda: launch.attention_forward(q, k, v, **bounds)  # noqa: E731
    ours_grads = api_bwd()

    # peers: cuDNN, and the others where cuDNN declines (all of them with all_peers)
    bwd_fns = {"ours_api": api_bwd, "ours_launcher": launch_bwd}
    fwd_fns = {"ours_api": api_fwd, "ours_launcher": launch_fwd}
    r["peers_tried"] = []
    for name, peer_fwd in _peers(r):
        if "cudnn" in bwd_fns and not all_peers:
            break  # cuDNN runs the row: it is the peer
        r["peers_tried"].append(name)
        try:
            o_peer = peer_fwd(qg, kg, vg)
            grads = torch.autograd.grad(o_peer, (qg, kg, vg), do, retain_graph=True)
            _sync()
        except Exception as exc:  # the peer declines the row (SDPA: RuntimeError "No available kernel")
            text = str(exc).strip().splitlines()
            r[f"{name}_error"] = f"{type(exc).__name__}: {text[0][:200] if text else ''}"
            continue
        r[f"{name}_rel_err_vs_ours"] = max(common.rel_err(a, b) for a, b in zip(grads, ours_grads))
        del grads
        bwd_fns[name] = lambda o_peer=o_peer: torch.autograd.grad(o_peer, (qg, kg, vg), do, retain_graph=True)

        def fwd_nograd(peer_fwd=peer_fwd):
            with torch.no_grad():
                return peer_fwd(q, k, v)
        fwd_fns[name] = fwd_nograd

    for kind, fns in (("bwd", bwd_fns), ("fwd", fwd_fns)):
        for name, (ms, runs) in interleaved(fns, rounds, timer).items():
            r[f"{name}_{kind}_ms"] = ms
            r[f"{name}_{kind}_ms_runs" if ms is not None else f"{name}_{kind}_error"] = runs

    if det and r.get("ours_api_bwd_ms"):
        # the mode set for each deterministic round, not toggled around each call: a toggle pair took 9 us of
        # host time a call (CPU of the development machine, 2026-12-07), which the short rows' ratio counted
        t = interleaved({"det": api_bwd, "default": api_bwd}, rounds, timer, modes={"det": deterministic_mode})
        if t["det"][0] and t["default"][0]:
            r["ours_det_bwd_ms"], r["det_over_default"] = t["det"][0], t["det"][0] / t["default"][0]
            r["det_twin_ms_runs"] = {"det": t["det"][1], "default": t["default"][1]}
    if mem and DEVICE == "cuda":  # torch.cuda's allocator statistics
        del ours_grads
        r["ours_peak_bytes"] = common.peak_bytes(api_bwd)
        if "cudnn" in bwd_fns:
            try:
                r["cudnn_peak_bytes"] = common.peak_bytes(bwd_fns["cudnn"])
            except Exception as exc:
                r["cudnn_peak_error"] = f"{type(exc).__name__}: {str(exc)[:160]}"
    r["ours_host_ms"] = common.host_ms(api_bwd, sync=_sync)
    add_ratios(r)
    r["row_wall_s"] = time.time() - t_row
    return r


def compile_rows(rows, threads: int = 16) -> float:
    """Compile every kernel our engine launches for ``rows`` (the launcher's and the API's forward and backward,
    default and deterministic) before any row is timed, side by side on ``threads`` threads
    (``launch_cache.compiling_ahead``: nothing is launched), so that a row's wall time is its timing and the
    rows' compiles overlap. Returns the seconds it took. A row our engine declines compiles nothing here and
    fails in ``run_row`` as before."""
    import torch

    from sdpa_bwd.engine import launch, launch_cache

    t0 = time.time()
    with launch_cache.compiling_ahead(threads):
        for r in rows:
            q, k, v, do, bounds = row_tensors(r)
            try:
                o, stats = launch.attention_forward(q, k, v, **bounds)
                for det in (False, True):
                    launch.attention_backward(q, k, v, o, do, stats, deterministic=det, **bounds)  # launcher row
                    launch.attention_backward(q, k, v, o, do, stats, deterministic=det, dq=torch.empty_like(q),
                                              dk=torch.empty_like(k), dv=torch.empty_like(v), **bounds)  # API's
            except Exception as exc:  # declined: run_row records it
                print(f"{r['id']}: not compiled ahead ({type(exc).__name__}: {str(exc)[:120]})", flush=True)
            del q, k, v, do
    return time.time() - t0


def run_meta(split, seed, args):
    import subprocess

    import torch
    import triton

    try:
        commit = subprocess.run(["git", "rev-parse", "HEAD"], capture_output=True, text=True, timeout=5).stdout.strip()
    except Exception:
        commit = None
    return dict(card=card_slug(torch.cuda.get_device_name()), device=torch.cuda.get_device_name(),
                torch=torch.__version__, triton=triton.__version__, cudnn=torch.backends.cudnn.version(),
                git=common.git_commit() or commit or None,
                date=time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
                command=" ".join([os.path.basename(sys.argv[0])] + sys.argv[1:]),
                timing=dict(fn="triton.testing.do_bench", return_mode="median", warmup_ms=common.WARMUP_MS,
                            rep_ms=common.REP_MS, rounds=args.rounds, interleaved=True),
                caps=dict(max_bwd_flops=MAX_BWD_FLOPS, max_row_bytes=MAX_ROW_BYTES,
                          heads=[MIN_HEADS, MAX_HEADS], S=[S_MIN, S_MAX]),
                bars=dict(slow_row=SLOW_ROW, det=DET_BAR, mem=MEM_BAR))


def select(rows, only):
    """The rows whose ids are in ``only`` (all rows where it is empty), in the split's order; an id the split does not
    have stops the run with what to pass instead."""
    if not only:
        return rows
    have = {r["id"] for r in rows}
    missing = [i for i in only if i not in have]
    if missing:
        raise SystemExit(f"sweep.py: no row {', '.join(missing)} among the {len(rows)} drawn ({min(have)} .. "
                         f"{max(have)}): pass ids that --list prints, or raise --rows")
    return [r for r in rows if r["id"] in only]


def run_split(split, seed, args, only=()):
    import torch

    rows = select(generate(args.rows, seed, split), only)
    meta = run_meta(split, seed, args)
    # a subset of the split is kept apart from the split's record
    path = os.path.join(args.out, meta["card"], f"sweep_{split}{'_only' if only else ''}.json")
    os.makedirs(os.path.dirname(path), exist_ok=True)
    done = []
    if DEVICE == "cuda" and not args.no_compile_ahead:
        try:
            meta["compile_ahead_s"] = round(compile_rows(rows), 1)
            print(f"compiled the {len(rows)} rows' kernels ahead in {meta['compile_ahead_s']} s", flush=True)
        except Exception as exc:  # a compile that fails here fails again, with its row, where it is timed
            print(f"compiling ahead stopped ({type(exc).__name__}: {str(exc)[:200]}); rows compile as timed",
                  flush=True)
    for r in rows:
        try:
            run_row(r, args.rounds, args.all_peers, det=not args.no_det, mem=not args.no_mem)
        except Exception as exc:  # our engine failed the row: say so and go on
            r["ours_error"] = f"{type(exc).__name__}: {str(exc)[:300]}"
        done.append(r)
        print(f"{r['id']} {r['label']:58} " + (
            f"OURS FAILED {r['ours_error']}" if r.get("ours_error") else
            f"api {fmt(r.get('ours_api_bwd_ms'), '.3f')} ms launch {fmt(r.get('ours_launcher_bwd_ms'), '.3f')} "
            f"| vs cuDNN {fmt(r.get('ratio_vs_cudnn'))} best {r.get('best_peer') or '-'} "
            f"{fmt(r.get('ratio_vs_best_peer'))} fwd {fmt(r.get('fwd_ratio_vs_cudnn'))} "
            f"det {fmt(r.get('det_over_default'))} mem {fmt(r.get('mem_ratio_vs_cudnn'))} "
            f"({r.get('row_wall_s', 0):.1f} s)"), flush=True)
        torch.cuda.empty_cache()
        with open(path, "w") as f:  # after every row: a stopped run keeps its rows
            json.dump(dict(record(split, seed, done, meta), partial=len(done) < len(rows)), f, indent=1)
    print(common.markdown_table(done, TABLE))
    s = summarize(done)
    for line in summary_lines(split, s):
        print(line)
    print(f"JSON: {path}", flush=True)
    return s


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--split", choices=("tuning", "held_out", "both"), default="both")
    ap.add_argument("--rows", type=int, default=40, help="rows per split (default %(default)s)")
    ap.add_argument("--seed-tuning", type=int, default=SPLIT_SEEDS["tuning"])
    ap.add_argument("--seed-held-out", type=int, default=SPLIT_SEEDS["held_out"])
    ap.add_argument("--out", default="benchmarks/results")
    ap.add_argument("--rounds", type=int, default=3, help="interleaved timing rounds; each path's median")
    ap.add_argument("--all-peers", action="store_true", help="time every peer on every row, not only cuDNN")
    ap.add_argument("--no-det", action="store_true", help="skip the deterministic-mode timing")
    ap.add_argument("--no-mem", action="store_true", help="skip the peak-memory measurement")
    ap.add_argument("--list", action="store_true", help="print the generated rows and stop (no GPU)")
    ap.add_argument("--only", action="append", default=[], metavar="ID",
                    help="time only this row (an id --list prints, e.g. held_out-023; repeatable); the record is "
                         "then sweep_<split>_only.json")
    ap.add_argument("--no-compile-ahead", action="store_true",
                    help="compile each row's kernels as it is first timed, not all rows' side by side first")
    ap.add_argument("--warmup", type=float, default=common.WARMUP_MS, help="do_bench warm-up, ms")
    ap.add_argument("--rep", type=float, default=common.REP_MS, help="do_bench timed runs, ms")
    args = ap.parse_args(argv)
    splits = SPLITS if args.split == "both" else (args.split,)
    seeds = {"tuning": args.seed_tuning, "held_out": args.seed_held_out}
    stray = [i for i in args.only if not i.startswith(tuple(f"{sp}-" for sp in splits))]
    if stray:
        raise SystemExit(f"sweep.py: --only {', '.join(stray)}: not a row id of {' or '.join(splits)} (ids look like "
                         f"{splits[0]}-007; --list prints them)")
    only = {sp: [i for i in args.only if i.startswith(f"{sp}-")] for sp in splits}
    splits = tuple(sp for sp in splits if only[sp] or not args.only)
    if args.list:
        for split in splits:
            print(f"== {split} (seed {seeds[split]})")
            print_rows(select(generate(args.rows, seeds[split], split), only[split]))
        return 0
    import torch
    if not torch.cuda.is_available():
        print("sweep.py: no CUDA device here. The timing runs on a GPU (see the module docstring for the command); "
              "--list prints the rows without one.", file=sys.stderr)
        return 2
    import warnings
    warnings.filterwarnings("ignore", category=UserWarning)  # peers explaining their declines
    common.WARMUP_MS, common.REP_MS = args.warmup, args.rep
    for split in splits:
        run_split(split, seeds[split], args, only[split])
    return 0


if __name__ == "__main__":
    sys.exit(main())
