"""Where a run's outputs are wrong (batches, heads, rows, columns, patterns, a heatmap) and what they
match instead (hypotheses checked against the oracle, no engine run)."""

from __future__ import annotations

import math
from dataclasses import dataclass
from pathlib import Path
from typing import Optional, Sequence

import torch

from ...problem import oracle
from ...problem import OUTPUTS
from .runs import Run


# ----------------------------------------------------------------------------
# Localisation


def _ranges(values: Sequence[int]) -> str:
    values = sorted(set(int(v) for v in values))
    if not values:
        return "-"
    parts, start, prev = [], values[0], values[0]
    for v in values[1:] + [None]:
        if v is not None and v == prev + 1:
            prev = v
            continue
        parts.append(str(start) if start == prev else f"{start}-{prev}")
        if v is not None:
            start = prev = v
    return ",".join(parts)


@dataclass
class Localisation:
    name: str
    numel: int
    bad: int
    nan: int
    unwritten: int
    batches: list
    heads: list
    rows: list
    cols: list
    patterns: list
    rel_err: float
    err_over_ref: float
    spread: float          # fraction of elements off by more than a tenth of the tolerance

    def to_dict(self) -> dict:
        return {k: getattr(self, k) for k in ("name", "numel", "bad", "nan", "unwritten", "batches", "heads", "rows",
                                              "cols", "patterns", "rel_err", "err_over_ref", "spread")}


def localise(run: Run, name: str, tile: int = 16) -> Localisation:
    bad = run.bad[name]
    got, want = run.got[name], run.want[name]
    unw = run.unwritten[name]
    B, H, S, D = bad.shape
    b_any = bad.any(dim=(1, 2, 3))
    h_any = bad.any(dim=(0, 2, 3))
    s_any = bad.any(dim=(0, 1, 3))
    d_any = bad.any(dim=(0, 1, 2))
    patterns: list[str] = []
    n_bad = int(bad.sum())
    if n_bad:
        if B > 1 and not bool(b_any[0]) and bool(b_any[1:].any()):
            patterns.append("every batch after the first")
        if B * H > 1 and not bool(bad[0, 0].any()) and bool(bad.any()):
            patterns.append("every slice after the first")
        rows = torch.nonzero(s_any).flatten().tolist()
        if rows == [S - 1] and S > 1:
            patterns.append("last row of each slice")
        if rows == [0] and S > 1:
            patterns.append("first row of each slice")
        if int(unw.sum()):
            urows = torch.nonzero(unw.any(dim=(0, 1, 3))).flatten().tolist()
            if urows and urows == list(range(urows[0], S)) and urows[0] > 0 and bool(unw[:, :, urows[0]:].all()) \
                    and int(unw.sum()) == int(unw[:, :, urows[0]:].numel()):
                patterns.append(f"rows {urows[0]}-{S - 1} unwritten (the tail after {urows[0]} rows)")
            if bool(unw.all()):
                patterns.append("never written")
        if n_bad == bad.numel():
            patterns.append("every element")
        # One element early: the value that belongs at column d + 1 sits at column d.
        if D > 1:
            early = (got[..., :-1] - want[..., 1:]).abs() <= (run.checks[name].tolerance or 0)
            sel = bad[..., :-1]
            if int(sel.sum()) >= 8 and float(early[sel].float().mean()) > 0.5:
                patterns.append("one element early")
    err = (got - want).abs()
    finite = torch.isfinite(err)
    denom = float(torch.linalg.vector_norm(want[torch.isfinite(want)])) or 1.0
    rel = float(torch.linalg.vector_norm(err[finite])) / denom if bool(finite.any()) else math.inf
    if not bool(finite.all()):
        rel = math.inf
    ref_err = run.checks[name].ref_err or 0.0
    max_err = float(err[finite].max()) if bool(finite.any()) else math.inf
    if not bool(finite.all()):
        max_err = math.inf
    tol = run.checks[name].tolerance or 0.0
    spread = float((~(err <= 0.1 * tol)).float().mean()) if err.numel() else 0.0
    return Localisation(name, bad.numel(), n_bad, int(torch.isnan(got).sum()) - int(unw.sum()), int(unw.sum()),
                        torch.nonzero(b_any).flatten().tolist(), torch.nonzero(h_any).flatten().tolist(),
                        torch.nonzero(s_any).flatten().tolist(), torch.nonzero(d_any).flatten().tolist(), patterns,
                        rel, max_err / ref_err if ref_err else math.inf, spread)


def heatmap(run: Run, path: str | Path) -> Path:
    """PNG: for each output, max over the head dim of |error| / tolerance, (batch, head) x sequence."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    names = [n for n in OUTPUTS if n in run.got]
    fig, axes = plt.subplots(1, len(names), figsize=(4.2 * len(names), 3.4), squeeze=False)
    for ax, name in zip(axes[0], names):
        got, want = run.got[name], run.want[name]
        tol = run.checks[name].tolerance or 1e-30
        ratio = ((got - want).abs() / tol).nan_to_num(nan=1e6, posinf=1e6)
        ratio[run.unwritten[name]] = 1e6
        B, H, S, _ = ratio.shape
        img = torch.log10(ratio.amax(dim=3).clamp(min=1e-3)).reshape(B * H, S).numpy()
        # Diverging at 0 (the tolerance): blue is within it, red past it; NaN and unwritten are darkest red.
        im = ax.imshow(img, aspect="auto", interpolation="nearest", cmap="coolwarm", vmin=-4, vmax=4)
        ax.set_title(f"{name}: log10(max_d |err| / tol)")
        ax.set_xlabel("sequence row")
        ax.set_ylabel("batch x heads + head")
        for b in range(1, B):
            ax.axhline(b * H - 0.5, color="cyan", lw=0.6)
        fig.colorbar(im, ax=ax, shrink=0.8)
    fig.suptitle(f"{run.case.id}: {run.case.describe()}", fontsize=8)
    fig.tight_layout()
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(path, dpi=110)
    plt.close(fig)
    return path


# ----------------------------------------------------------------------------
# Hypotheses checked against the oracle (no engine run).


def _matches(got: torch.Tensor, alt: torch.Tensor, tol: float, want: Optional[torch.Tensor] = None,
             eps: float = 2.0 ** -7) -> bool:
    """Whether ``got`` is ``alt`` within the tolerance, scaled up when ``alt`` is larger than the oracle's
    output (a wrong mask or scale can make gradients 100x larger, and their rounding with them), and
    never below a few units in the last place of ``alt`` (the oracle's output may be all zeros)."""
    alt = alt.to(torch.float64).reshape(got.shape)
    if alt.numel():
        tol = max(tol, 8.0 * eps * float(alt.abs().max()))
    if want is not None:
        big_alt = float(alt.abs().max()) if alt.numel() else 0.0
        big_want = float(want[torch.isfinite(want)].abs().max()) if bool(torch.isfinite(want).any()) else 0.0
        if big_want > 0 and big_alt > big_want:
            tol *= big_alt / big_want
    close = (got - alt).abs() <= tol
    return float(close.float().mean()) >= 0.99


def hypotheses(run: Run) -> dict[str, bool]:
    out: dict[str, bool] = {}
    if run.m is None or not run.got:
        return out
    problem = run.case.to_problem()
    t = run.m.tensors
    base = dict(scale=problem.effective_scale, left_bound=problem.left_bound, right_bound=problem.right_bound,
                alignment=problem.alignment)
    failing = [n for n in OUTPUTS if bool(run.bad[n].any())]
    if not failing:
        return out
    from ..compare import EPS

    eps = EPS.get(problem.dtype, EPS["float32"])

    def all_match(alt_attrs) -> bool:
        alt = oracle.backward(t.q, t.k, t.v, t.o, t.do, t.stats, **dict(base, **alt_attrs))
        return all(_matches(run.got[n], alt[OUTPUTS.index(n)].cpu(), run.checks[n].tolerance, run.want[n], eps)
                   for n in failing)

    s = problem.effective_scale
    if s <= 0:
        out["outputs match the oracle at scale |scale|"] = s < 0 and all_match({"scale": -s})
        out["outputs match the oracle at scale 1/sqrt(D_qk)"] = all_match({"scale": 1.0 / math.sqrt(problem.D_qk)})
    if problem.has_mask:
        other = "bottom_right" if problem.alignment == "top_left" else "top_left"
        out[f"outputs match the oracle with {other} alignment"] = all_match({"alignment": other})
    if run.got["dv"].shape == run.got["dk"].shape:
        out["dV holds the oracle's dK"] = _matches(run.got["dv"], run.want["dk"], run.checks["dv"].tolerance, eps=eps)
        out["dK holds the oracle's dV"] = _matches(run.got["dk"], run.want["dv"], run.checks["dk"].tolerance, eps=eps)
    return out
