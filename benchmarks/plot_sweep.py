"""The sweep's ratios against its shape parameters, as a PNG (matplotlib, no GPU).

    python3 benchmarks/plot_sweep.py benchmarks/results/h100/sweep_held_out.json [more JSONs] [--out sweep.png]

Top row, one panel per dtype: each row's backward ratio (peer time / ours through the API; above 1 ours is
faster) against S_q on a log axis, coloured by head dim; a circle is cuDNN's ratio, a cross the best other
peer's where cuDNN declined; a small bar above a circle reaches the same ratio for our launcher (no autograd, no
public path), so a long bar is a row lost to host time rather than to the kernels. Bottom row: the same ratios by
mask kind (full, causal and window, each in both alignments), and the forward's against S_q. Ratios on a log
axis (windows against a boolean-mask peer reach 20x and flattened the rest on a linear one); dashed lines:
parity and the issue's slow-row bar.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import zlib

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from sweep import SLOW_ROW  # noqa: E402

HEAD_DIMS = ["32/32", "64/64", "80/80", "96/96", "128/128", "160/160", "192/128", "256/256"]
MASK_KINDS = ["full", "causal-TL", "causal-BR", "window-TL", "window-BR"]


def mask_kind(r):
    if r["mask"] == "none":
        return "full"
    return f"{r['mask']}-{'BR' if r['alignment'] == 'bottom_right' else 'TL'}"


def head_dim(r):
    return f"{r['D_qk']}/{r['D_v']}"


def points(rows, fwd=False):
    """(row, ratio, against cuDNN?) for the rows with a ratio: cuDNN's, else the best other peer's."""
    pfx = "fwd_" if fwd else ""
    out = []
    for r in rows:
        if r.get(f"{pfx}ratio_vs_cudnn") is not None:
            out.append((r, r[f"{pfx}ratio_vs_cudnn"], True))
        elif r.get(f"{pfx}ratio_vs_best_other_peer") is not None:
            out.append((r, r[f"{pfx}ratio_vs_best_other_peer"], False))
    return out


def launcher_ratio(r, fwd=False):
    """The peer's time over our launcher's (the kernels without the public path), where the row has both."""
    pfx = "fwd" if fwd else "bwd"
    peer, ours = r.get(f"cudnn_{pfx}_ms"), r.get(f"ours_launcher_{pfx}_ms")
    return peer / ours if peer and ours else None


def _guides(ax):
    ax.set_yscale("log", base=2)
    ax.axhline(1.0, color="0.3", lw=0.8, ls="--")
    ax.axhline(SLOW_ROW, color="tab:red", lw=0.8, ls=":")


def plot(records, path):
    """records: the sweep's JSON objects (one per split, or several cards); writes a PNG to path."""
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    rows = [dict(r, split=rec.get("split"), card=rec.get("card")) for rec in records for r in rec["rows"]]
    dtypes = sorted({r["dtype"] for r in rows}) or ["bf16"]
    cmap = plt.get_cmap("viridis", len(HEAD_DIMS))
    colour = {hd: cmap(i) for i, hd in enumerate(HEAD_DIMS)}
    ncol = max(2, len(dtypes))
    fig, axes = plt.subplots(2, ncol, figsize=(6 * ncol, 9), squeeze=False)
    for ax, dt in zip(axes[0], dtypes):
        for r, ratio, vs_cudnn in points([r for r in rows if r["dtype"] == dt]):
            ax.scatter(r["S_q"], ratio, color=colour.get(head_dim(r), "k"), marker="o" if vs_cudnn else "x",
                       s=28, alpha=0.85)
            lr = launcher_ratio(r) if vs_cudnn else None
            if lr is not None:
                ax.plot([r["S_q"], r["S_q"]], [ratio, lr], color=colour.get(head_dim(r), "k"), lw=1, alpha=0.6)
        ax.set_xscale("log", base=2)
        ax.set_xlabel("S_q")
        ax.set_ylabel("backward: peer ms / ours (API) ms")
        ax.set_title(f"{dt}: o vs cuDNN, x vs best other peer where cuDNN declines", fontsize=9)
        _guides(ax)
    for ax in axes[0][len(dtypes):]:
        ax.axis("off")
    handles = [plt.Line2D([], [], marker="o", ls="", color=colour[hd], label=f"D {hd}") for hd in HEAD_DIMS]
    axes[0][0].legend(handles=handles, fontsize=7, loc="best", ncol=2)

    ax = axes[1][0]
    for r, ratio, vs_cudnn in points(rows):
        kind = MASK_KINDS.index(mask_kind(r))
        jitter = ((zlib.crc32(str(r.get("id", "")).encode()) % 21) - 10) / 40.0  # the same picture every run
        ax.scatter(kind + jitter, ratio, color=colour.get(head_dim(r), "k"), marker="o" if vs_cudnn else "x",
                   s=28, alpha=0.85)
    ax.set_xticks(range(len(MASK_KINDS)))
    ax.set_xticklabels(MASK_KINDS)
    ax.set_ylabel("backward: peer ms / ours (API) ms")
    ax.set_title("by mask kind (TL top-left, BR bottom-right)", fontsize=9)
    _guides(ax)

    ax = axes[1][1]
    for r, ratio, vs_cudnn in points(rows, fwd=True):
        ax.scatter(r["S_q"], ratio, color=colour.get(head_dim(r), "k"), marker="o" if vs_cudnn else "x",
                   s=28, alpha=0.85)
    ax.set_xscale("log", base=2)
    ax.set_xlabel("S_q")
    ax.set_ylabel("forward: peer ms / ours (API) ms")
    ax.set_title("forward, all dtypes", fontsize=9)
    _guides(ax)
    for ax in axes[1][2:]:
        ax.axis("off")

    cards = sorted({str(r["card"]) for r in rows if r.get("card")})
    splits = sorted({str(r["split"]) for r in rows if r.get("split")})
    fig.suptitle(f"SDPA sweep, {', '.join(cards) or 'unknown card'}, split {', '.join(splits) or '-'}: "
                 f"{len(rows)} rows (dashed: parity; dotted: {SLOW_ROW}; bar: up or down to our launcher's ratio)")
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)
    return path


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("json", nargs="+", help="sweep_<split>.json files written by sweep.py")
    ap.add_argument("--out", help="PNG path (default: the first JSON's path with .png)")
    args = ap.parse_args(argv)
    records = []
    for p in args.json:
        with open(p) as f:
            records.append(json.load(f))
    out = args.out or os.path.splitext(args.json[0])[0] + ".png"
    plot(records, out)
    print(out)
    return 0


if __name__ == "__main__":
    sys.exit(main())
