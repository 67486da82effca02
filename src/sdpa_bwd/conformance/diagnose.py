"""``sdpa-bwd diagnose``: from one failing case to a named defect class.

It does, for any engine, what the field guide (../shared/seeds/000_*.txt) has a
kernel engineer do by hand when one layout fails:

1. **Reproduce** the case, **rerun** it (same process, bitwise) to tell flaky
   from deterministic, and **replay it alone in a fresh process** (a
   ``sdpa-bwd run`` subprocess) to expose order effects.
2. **Controls**: the same values stored otherwise, one tensor at a time: every
   tensor packed BHSD (the baseline); only tensor T stored as in the case; then,
   for the first tensor that fails alone, each storage feature removed in turn
   (order, padding and its parity, inner stride, zero strides, junk strides,
   offset, explicit strides); "dO like O", "dQ like Q", "dK like K", "dV like V";
   the same case in float32.
3. **Stage split**: ``delta`` where the engine exposes it, then dQ, dK, dV apart.
4. **Localisation**: which batches, heads, rows, columns are wrong, as a rich
   table and a PNG heatmap over (batch, head) x sequence.
5. **Classification** against :data:`DECISION_TABLE`: every class scores the
   evidence; the best is printed with its evidence, the runner-up, and the
   next step to confirm. "unclassified" wins when nothing scores enough.
"""

from __future__ import annotations

import json
import math
import os
import subprocess
import sys
import tempfile
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Callable, Optional, Sequence

import torch

from ..problem import oracle
from ..problem.cases import BUILTIN_CASES, Case, dump_cases, load_cases
from ..backends import Engine, get_engine
from ..problem.layout import Storage
from ..problem import OUTPUTS, TENSORS
from .tensors import GuardReport, Materialized, check_outputs, is_poison, materialize, snapshot_inputs
from .judge import guard_messages, judge_backward, oracle_references

STORED = tuple(n for n in TENSORS)
# A class needs this much evidence to be named; below it the answer is "unclassified".
THRESHOLD = 4


# ----------------------------------------------------------------------------
# One run of one case, keeping what localisation needs.


@dataclass
class Run:
    label: str
    case: Case
    verdict: str                       # passed, failed, error, declined, invalid
    message: str = ""
    checks: dict = field(default_factory=dict)
    guard: Optional[GuardReport] = None
    m: Optional[Materialized] = None
    want: dict = field(default_factory=dict)       # output -> float64 oracle
    got: dict = field(default_factory=dict)        # output -> float64 copy of the engine's output
    bad: dict = field(default_factory=dict)        # output -> bool mask (off, NaN or unwritten)
    unwritten: dict = field(default_factory=dict)  # output -> bool mask (still poison)
    side: dict = field(default_factory=dict)

    @property
    def failed(self) -> bool:
        return self.verdict in ("failed", "error")

    @property
    def failing_outputs(self) -> set[str]:
        return {n for n, b in self.bad.items() if bool(b.any())}

    def outputs_equal(self, other: "Run") -> bool:
        if set(self.got) != set(other.got):
            return False
        for n, g in self.got.items():
            h = other.got[n]
            same = (g == h) | (torch.isnan(g) & torch.isnan(h))
            if not bool(same.all()):
                return False
        return True


def run_once(engine: Engine, case: Case, label: str = "reproduction") -> Run:
    """Run one case's backward (no forward check), keeping tensors for localisation."""
    problem = case.to_problem()
    try:
        problem.validate()
    except ValueError as exc:
        return Run(label, case, "invalid", str(exc))
    try:
        reasons = engine.not_supported_reasons(problem)
    except ValueError as exc:
        return Run(label, case, "invalid", str(exc))
    if reasons:
        return Run(label, case, "declined", reasons[0])
    m = materialize(problem, seed=case.seed, device=engine.device())
    t = m.tensors
    refs = oracle_references(problem, t)
    want = refs.want
    before = snapshot_inputs(m)
    run = Run(label, case, "failed", m=m)
    try:
        run.side = engine.backward(problem, t) or {}
    except Exception as exc:  # the engine raised on a problem it accepted
        run.verdict, run.message = "error", f"{type(exc).__name__}: {exc}"
        return run
    run.guard = check_outputs(m, before)
    messages = guard_messages(run.guard)
    run.checks = judge_backward(problem, case, t, run.side, refs)
    for i, name in enumerate(OUTPUTS):
        view = getattr(t, name)
        check = run.checks[name]
        got = view.to(torch.float64).cpu()
        ref = want[i].to(torch.float64).cpu().reshape(got.shape)
        run.want[name], run.got[name] = ref, got
        run.unwritten[name] = is_poison(view, problem.tensor(name).dtype).cpu()
        run.bad[name] = ~((got - ref).abs() <= check.tolerance) | run.unwritten[name]
    messages += [c.summary() for c in run.checks.values() if not c.passed]
    failing = messages or any(not c.passed for c in run.checks.values())
    run.verdict = "failed" if failing else "passed"
    run.message = "; ".join(messages)
    return run


# ----------------------------------------------------------------------------
# Controls: the same values in other storages, one tensor at a time.


def _strides_override(case: Case) -> dict:
    return dict(case.strides)


def is_packed_case(case: Case) -> bool:
    return all(case.storage_of(n) == Storage() for n in TENSORS) and not case.strides


def packed_case(case: Case) -> Case:
    return replace(case, id=case.id + "~packed", storage=(), strides=())


def only_case(case: Case, name: str) -> Case:
    strides = {n: s for n, s in case.strides if n == name}
    return replace(case, id=f"{case.id}~only-{name}", storage=((name, case.storage_of(name)),),
                   strides=tuple(strides.items()))


def without_case(case: Case, name: str) -> Case:
    storage = tuple((n, s) for n, s in case.storage if n != name)
    strides = tuple((n, s) for n, s in case.strides if n != name)
    return replace(case, id=f"{case.id}~no-{name}", storage=storage, strides=strides)


def like_case(case: Case, name: str, model: str) -> Case:
    storage = dict(case.storage)
    storage[name] = case.storage_of(model)
    strides = {n: s for n, s in case.strides if n != name}
    if model in dict(case.strides):
        strides[name] = dict(case.strides)[model]
    return replace(case, id=f"{case.id}~{name}-like-{model}", storage=tuple(storage.items()),
                   strides=tuple(strides.items()))


def differs(case: Case, name: str) -> bool:
    return case.storage_of(name) != Storage() or name in dict(case.strides)


def feature_variants(case: Case, name: str) -> list[tuple[str, Case]]:
    """``case`` with one storage feature of tensor ``name`` removed (or, for padding, its parity flipped)."""
    s = case.storage_of(name)
    out: list[tuple[str, Storage]] = []
    if s.order != "bhsd":
        out.append((f"order {s.order.upper()} -> BHSD", replace(s, order="bhsd")))
    for axis, n in s.pad:
        rest = tuple((a, k) for a, k in s.pad if a != axis)
        out.append((f"pad {axis}+{n} removed", replace(s, pad=rest)))
        out.append((f"pad {axis}+{n} -> {axis}+{n + 1} (parity flipped)", replace(s, pad=rest + ((axis, n + 1),))))
    if s.inner_stride != 1:
        out.append((f"inner stride {s.inner_stride} -> 1", replace(s, inner_stride=1)))
    if s.zero:
        out.append((f"zero strides on {''.join(s.zero)} removed", replace(s, zero=())))
    if s.junk:
        out.append(("junk size-1 strides removed", replace(s, junk=False)))
    if s.offset:
        out.append((f"offset {s.offset} -> 0", replace(s, offset=0)))
    cases = [(label, replace(case.with_storage(**{name: st}), id=f"{case.id}~{name}:{label}")) for label, st in out]
    if name in dict(case.strides):
        strides = tuple((n, v) for n, v in case.strides if n != name)
        cases.append((f"explicit strides {list(dict(case.strides)[name])} removed",
                      replace(case, id=f"{case.id}~{name}:recipe", strides=strides)))
    return cases


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
    from .compare import EPS

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


# ----------------------------------------------------------------------------
# Evidence


@dataclass
class Evidence:
    case: Case
    engine: str
    repro: Run
    rerun_identical: Optional[bool] = None
    rerun_verdict: Optional[str] = None
    fresh_verdict: Optional[str] = None
    report_verdict: Optional[str] = None
    baseline: Optional[str] = None             # verdict with every tensor packed BHSD
    only: dict = field(default_factory=dict)   # tensor -> verdict with only it stored as in the case
    features: dict = field(default_factory=dict)  # tensor -> [(feature label, verdict)]
    like: dict = field(default_factory=dict)   # "dO like O" -> verdict
    float32: Optional[str] = None
    hyp: dict = field(default_factory=dict)
    loc: dict = field(default_factory=dict)    # output -> Localisation
    runs: int = 0
    notes: list = field(default_factory=list)

    # -- derived facts --------------------------------------------------------
    @property
    def failing(self) -> set[str]:
        return self.repro.failing_outputs

    @property
    def triggers(self) -> list[str]:
        return [n for n, v in self.only.items() if v == "failed"]

    def feature_passes(self, needle: str) -> list[str]:
        return [f"{n}: {label}" for n, items in self.features.items() for label, v in items
                if needle in label and v == "passed"]

    def pattern_everywhere(self, pattern: str) -> bool:
        locs = [self.loc[n] for n in self.failing if n in self.loc]
        return bool(locs) and all(any(pattern in p for p in l.patterns) for l in locs)

    @property
    def outside_writes(self) -> dict:
        g = self.repro.guard
        return {b: n for b, n in (g.written_outside.items() if g else ()) if n}

    @property
    def unwritten(self) -> dict:
        return {n: int(u.sum()) for n, u in self.repro.unwritten.items() if int(u.sum())}

    @property
    def nan(self) -> int:
        return sum(l.nan for l in self.loc.values())

    def to_dict(self) -> dict:
        return {"case": self.case.id, "engine": self.engine, "verdict": self.repro.verdict,
                "message": self.repro.message, "rerun_identical": self.rerun_identical,
                "rerun_verdict": self.rerun_verdict, "fresh_process_verdict": self.fresh_verdict,
                "report_verdict": self.report_verdict, "baseline_all_packed": self.baseline, "only": self.only,
                "features": {n: [list(x) for x in v] for n, v in self.features.items()}, "like": self.like,
                "float32": self.float32, "hypotheses": self.hyp,
                "localisation": {n: l.to_dict() for n, l in self.loc.items()}, "runs": self.runs,
                "notes": self.notes}


# ----------------------------------------------------------------------------
# The decision table


@dataclass(frozen=True)
class DefectClass:
    name: str
    symptom: str
    next_step: str
    rule: Callable[[Evidence], list]


def _storage_dependent(e: Evidence) -> bool:
    return e.baseline == "passed"


def _dtype_independent(e: Evidence) -> list:
    return [(-2, "the same case in float32 passes: the defect depends on the element size")] \
        if e.float32 == "passed" else []


def _q_batch_stride(case: Case) -> int:
    return case.to_problem().q.strides[0]


def _rule_lse_base(e: Evidence) -> list:
    out = []
    z = e.case.sizes
    derived = _q_batch_stride(e.case) // z["D_qk"]
    if z["B"] == 1:
        out.append((-3, "B = 1: a wrong batch base cannot show"))
    elif derived == z["H_q"] * z["S_q"]:
        out.append((-3, f"Q's batch stride / D_qk = {derived} = H_q x S_q: a stats base taken from it is right here"))
    else:
        out.append((1, f"Q's batch stride / D_qk = {derived} != H_q x S_q = {z['H_q'] * z['S_q']}"))
    if "q" in e.triggers:
        out.append((3, "Q stored as in the case fails alone (every other tensor packed)"))
    others = [t for t in e.triggers if t not in ("q", "stats")]
    if others:
        out.append((-2, f"tensors other than Q and the stats fail alone too: {others}"))
    if e.pattern_everywhere("every batch after the first"):
        out.append((2, "batch 0 is right and every later batch is wrong, in every failing output"))
    if e.failing == set(OUTPUTS):
        out.append((1, "dQ, dK and dV all fail (P is wrong: the stats are read from the wrong place)"))
    if e.failing == {"dq"}:
        out.append((-3, "only dQ fails; a wrong stats base would break dK and dV too"))
    if e.baseline == "failed":
        out.append((-2, "every tensor packed BHSD fails too: not layout-specific"))
    return out + _dtype_independent(e)


def _rule_dq_accum(e: Evidence) -> list:
    out = []
    z = e.case.sizes
    if z["B"] == 1:
        out.append((-3, "B = 1: a wrong batch term cannot show"))
    elif _q_batch_stride(e.case) == z["H_q"] * z["S_q"] * z["D_qk"]:
        out.append((-3, "Q's batch stride is the packed H_q x S_q x D_qk: an accumulator batch term from it is right"))
    if e.failing == {"dq"}:
        out.append((3, "only dQ fails; dK and dV pass"))
    if "q" in e.triggers:
        out.append((2, "Q stored as in the case fails alone: the dQ accumulator's batch term follows Q's batch stride"))
    if "dq" in e.triggers:
        out.append((-1, "dQ stored as in the case fails alone: its own strides matter, not only Q's"))
    if e.like.get("dQ like Q") == "passed":
        out.append((-3, "storing dQ like Q makes it pass"))
    if e.baseline == "failed":
        out.append((-2, "every tensor packed BHSD fails too"))
    return out + _dtype_independent(e)


def _rule_head_dim(e: Evidence) -> list:
    out = []
    p = e.case.to_problem()
    if all(p.tensor(n).strides[3] == 1 or p.tensor(n).dims[3] == 1 for n in OUTPUTS + ("q", "k", "v", "o", "do")):
        out.append((-3, "every head-dim stride is 1"))
    hits = e.feature_passes("inner stride")
    if hits:
        out.append((5, f"the inner (head-dim) stride set to 1 makes it pass: {hits}"))
    elif e.case and any(e.case.storage_of(n).inner_stride != 1 for n in TENSORS):
        out.append((1, "the case has a head-dim stride other than 1"))
    if e.nan or e.outside_writes or e.unwritten:
        out.append((1, "garbage reads or stray writes: NaN, writes outside or unwritten elements"))
    return out + _dtype_independent(e)


def _short_row_tensors(case: Case) -> list[str]:
    problem = case.to_problem()
    out = []
    for n in ("q", "k", "v", "o", "do", "dq", "dk", "dv"):
        spec = problem.tensor(n)
        S, D = spec.dims[2], spec.dims[3]
        ss, sd = spec.strides[2], spec.strides[3]
        if (S - 1) * ss + (D - 1) * sd >= S * ss:
            out.append(n)
    return out


def _rule_short_rows(e: Evidence) -> list:
    out = []
    short = _short_row_tensors(e.case)
    if short:
        out.append((2, f"sequence stride below the row's span (S x stride ends inside the last row) in {short}"))
        hit = [t for t in e.triggers if t in short]
        if hit:
            out.append((2, f"those tensors fail alone: {hit}"))
        fixed = e.feature_passes("explicit strides") + e.feature_passes("order")
        if fixed:
            out.append((1, f"ordinary strides make it pass: {fixed}"))
    else:
        out.append((-2, "no tensor has a sequence stride shorter than its rows"))
    if e.pattern_everywhere("last row of each slice"):
        out.append((2, "only the last row of each slice is wrong"))
    return out + _dtype_independent(e)


def _odd_record_tensors(case: Case) -> list[str]:
    p = case.to_problem()
    if p.dtype == "float32":
        return []
    out = []
    for n in ("q", "k", "v", "do", "dk", "dv"):
        spec = p.tensor(n)
        axes = (1, 2) if n in ("dk", "dv") else (2,)
        if any(spec.strides[a] % 2 and spec.dims[a] > 1 for a in axes):
            out.append(n)
    return out


def _rule_odd_stride(e: Evidence) -> list:
    out = []
    odd = _odd_record_tensors(e.case)
    if odd:
        out.append((1, f"2-byte tensors with an odd stride on a record-indexed axis: {odd}"))
    else:
        out.append((-3, "no 2-byte tensor has an odd sequence stride (or an odd dK/dV head stride)"))
    parity = e.feature_passes("parity flipped")
    if parity:
        out.append((3, f"flipping the parity of the padded stride makes it pass: {parity}"))
    if e.float32 == "passed":
        out.append((2, "the same case in float32 (4-byte elements) passes"))
    elif e.float32 == "failed":
        out.append((-2, "the same case in float32 fails too"))
    alone = set(e.triggers)
    if alone and alone <= {"q", "k", "v", "do", "dk", "dv"}:
        out.append((1, f"the tensors that fail alone are among those DQDKDV indexes in records: {sorted(alone)}"))
    if any("one element early" in p for l in e.loc.values() for p in l.patterns):
        out.append((1, "values sit one element early"))
    if e.case.dtype == "float32":
        out.append((-3, "float32 elements are whole records"))
    return out


def _rule_stats_ignored(e: Evidence) -> list:
    out = []
    if "stats" in e.triggers:
        out.append((3, "the stats stored as in the case fail alone (every other tensor packed)"))
        fixed = [f for f in e.feature_passes("") if f.startswith("stats:")]
        if fixed:
            out.append((1, f"removing a stats storage feature makes it pass: {fixed}"))
    if e.case.storage_of("stats") == Storage() and "stats" not in dict(e.case.strides):
        out.append((-3, "the case's stats are packed"))
    if "q" in e.triggers:
        out.append((-2, "Q's storage alone also fails"))
    if e.pattern_everywhere("every batch after the first") and "stats" in e.triggers:
        out.append((-1, "batch 0 is right: the stats' head and row strides are honoured"))
    return out + _dtype_independent(e)


def _rule_stats_swapped(e: Evidence) -> list:
    out = []
    B, H = e.case.sizes["B"], e.case.sizes["H_q"]
    if B == 1 and H == 1:
        out.append((-4, "B = H = 1: swapped batch and head strides cannot show"))
    if e.baseline == "failed" or is_packed_case(e.case):
        out.append((2, "fails with every tensor packed BHSD: not a layout of the case"))
    elif e.baseline == "passed" and B > 1 and H > 1:
        out.append((-3, "passes with every tensor packed BHSD, where swapped strides would fail"))
    if e.pattern_everywhere("every slice after the first"):
        out.append((3, "slice (batch 0, head 0) is right, the other slices wrong"))
    if e.failing == set(OUTPUTS):
        out.append((1, "dQ, dK and dV all fail (P is wrong)"))
    if e.failing and e.failing != set(OUTPUTS):
        out.append((-2, f"only {sorted(e.failing)} fail"))
    return out + _dtype_independent(e)


def _rule_v_heads(e: Evidence) -> list:
    z = e.case.sizes
    if z["H_k"] == z["H_v"]:
        return [(-4, "H_k == H_v: V's head count cannot be confused with K's")]
    out = [(2, f"H_k = {z['H_k']} != H_v = {z['H_v']}")]
    if any(b for b in e.outside_writes if "dv" in b) or "dv" in e.unwritten:
        out.append((3, "dV's buffer is written outside its heads, or dV heads are left unwritten"))
    if "dv" in e.failing:
        out.append((1, "dV fails"))
    return out + _dtype_independent(e)


def _rule_aliased(e: Evidence) -> list:
    out = []
    if e.hyp.get("dV holds the oracle's dK") or e.hyp.get("dK holds the oracle's dV"):
        out.append((5, "one gradient's buffer holds the other gradient's values"))
    for n in ("dk", "dv"):
        if n in e.loc and "never written" in e.loc[n].patterns:
            out.append((2, f"{n} is never written at all"))
    return out


def _rule_do_o(e: Evidence) -> list:
    out = []
    if e.like.get("dO like O") == "passed":
        out.append((4, "storing dO like O makes it pass"))
    elif e.like.get("dO like O") == "failed":
        out.append((-2, "storing dO like O still fails"))
    else:
        out.append((-2, "dO is stored like O in this case"))
    if e.triggers and set(e.triggers) <= {"do", "o"}:
        out.append((1, f"only {sorted(e.triggers)} fail alone"))
    return out + _dtype_independent(e)


def _rule_dq_q(e: Evidence) -> list:
    out = []
    if e.like.get("dQ like Q") == "passed":
        out.append((4, "storing dQ like Q makes it pass"))
    elif "dQ like Q" not in e.like:
        out.append((-2, "dQ is stored like Q in this case"))
    if e.failing == {"dq"}:
        out.append((1, "only dQ fails"))
    if e.triggers and set(e.triggers) <= {"dq", "q"}:
        out.append((1, f"only {sorted(e.triggers)} fail alone"))
    return out + _dtype_independent(e)


def _rule_scale(e: Evidence) -> list:
    p = e.case.to_problem()
    if p.effective_scale > 0:
        return [(-4, "the scale is positive")]
    out = [(2, f"scale = {p.effective_scale:g} <= 0")]
    hits = [k for k, v in e.hyp.items() if "scale" in k and v]
    if hits:
        out.append((4, "; ".join(hits)))
    return out


def _rule_low_precision(e: Evidence) -> list:
    out = []
    if e.case.dtype == "float32":
        return [(-4, "float32 inputs")]
    if e.float32 == "passed":
        out.append((2, "the same case in float32 passes"))
    elif e.float32 == "failed":
        out.append((-2, "the same case in float32 fails too"))
    locs = [e.loc[n] for n in e.failing if n in e.loc]
    # A 16-bit accumulator drifts every element a little (its bias grows with the reduction length);
    # misaddressing puts whole values in the wrong place, and a point defect touches few elements.
    if locs and all(l.nan == 0 and l.unwritten == 0 and l.spread >= 0.2 for l in locs):
        out.append((2, f"every failing output drifts over most elements (>= {min(l.spread for l in locs):.0%} off by "
                       "a tenth of the tolerance), no NaN, nothing unwritten"))
    elif locs and any(l.nan or l.unwritten for l in locs):
        out.append((-3, "NaN or unwritten elements: not a rounding problem"))
    if locs and all(l.rel_err < 0.5 for l in locs):
        out.append((1, f"relative L2 error {max(l.rel_err for l in locs):.3f}: a drift, not misplaced values"))
    elif locs:
        out.append((-1, "relative L2 error of the order of the values"))
    if e.outside_writes:
        out.append((-2, "writes outside the tensors"))
    if e.baseline == "failed" or is_packed_case(e.case):
        out.append((1, "independent of the storage"))
    elif e.baseline == "passed":
        out.append((-2, "passes with every tensor packed BHSD: rounding does not depend on the layout"))
    if len(e.failing) == 1:
        out.append((1, f"only {next(iter(e.failing))} fails (one accumulator)"))
    return out


def _rule_tail(e: Evidence) -> list:
    out = []
    tails = [f"{n}: {p}" for n, l in e.loc.items() for p in l.patterns if "unwritten (the tail" in p]
    if tails:
        out.append((5, "unwritten rows are exactly a trailing partial tile: " + "; ".join(tails)))
    elif not e.unwritten:
        out.append((-2, "nothing is left unwritten"))
    return out


def _rule_alignment(e: Evidence) -> list:
    p = e.case.to_problem()
    if not p.has_mask:
        return [(-4, "no mask")]
    out = []
    if p.S_q != p.S_kv:
        out.append((1, f"a band mask with S_q = {p.S_q} != S_kv = {p.S_kv}"))
    else:
        out.append((-3, "S_q == S_kv: both alignments are the same band"))
    hits = [k for k, v in e.hyp.items() if "alignment" in k and v]
    if hits:
        out.append((5, hits[0]))
    return out


def _rule_stale(e: Evidence) -> list:
    out = []
    if e.report_verdict == "order-dependent":
        out.append((3, "the runner already found it order-dependent (failed in sequence, passed alone)"))
    if e.fresh_verdict == "passed" and (e.repro.failed or e.report_verdict in REPORT_FAILURES):
        out.append((6, "fails after other cases ran in the same process, passes alone in a fresh process"))
    elif e.fresh_verdict == "failed":
        out.append((-3, "fails alone in a fresh process too"))
    if not e.repro.failed and e.report_verdict in REPORT_FAILURES:
        out.append((2, "failed in the report, passes when reproduced here"))
    if e.rerun_identical is False:
        out.append((1, "two runs in this process differ"))
    return out


DECISION_TABLE: tuple[DefectClass, ...] = (
    DefectClass("lse-base-from-layout",
                "side buffer (LSE/D) base derived from a layout stride: SBHD fails, BSHD and BHSD pass, D passes",
                "rerun with Q stored BSHD and SBHD, every other tensor packed: only SBHD (or padded Q) may fail; "
                "audit the stats/delta base: it must be (b * H_q + h) * S_q from the dims",
                _rule_lse_base),
    DefectClass("dq-accum-batch-term",
                "the fp32 dQ accumulator has its own batch term from Q's batch stride: only dQ fails, for SBHD Q",
                "rerun with Q SBHD and every other tensor packed: only dQ must fail; audit the dq_accum base",
                _rule_dq_accum),
    DefectClass("head-dim-stride-ignored", "the head-dim stride is read as 1",
                "rerun with one tensor's inner stride 2 at a time; audit the d-axis stride arguments",
                _rule_head_dim),
    DefectClass("short-rows-cut", "a (batch, head) slice is cut at S x sequence stride",
                "rerun with the short-stride tensor given ordinary strides; then with the stride 1 on a length-1 axis",
                _rule_short_rows),
    DefectClass("odd-stride-4byte", "offsets taken in 4-byte records: odd strides of 2-byte tensors one element early",
                "rerun with the padding made even, and in float32: both must pass; audit the record index (offset >> 2)",
                _rule_odd_stride),
    DefectClass("stats-strides-ignored", "the stats are read as packed whatever their strides",
                "rerun with the stats packed, then padded on one axis at a time",
                _rule_stats_ignored),
    DefectClass("stats-batch-head-swapped", "the stats' batch and head strides are swapped",
                "rerun with B = 1, H = 1 (must pass), B = 2, H = 1 and B = 1, H = 2 (must fail)",
                _rule_stats_swapped),
    DefectClass("v-with-k-heads", "V and dV addressed with K's head count",
                "rerun with H_v = H_k (must pass), then H_k = H_q > H_v; audit the V/dV head index",
                _rule_v_heads),
    DefectClass("aliased-outputs", "one output written through another's pointer",
                "give dK and dV different dims (D_v != D_qk) and rerun; audit the output pointers",
                _rule_aliased),
    DefectClass("do-with-o-strides", "dO addressed with O's strides",
                "rerun with dO stored like O (must pass) and with only dO's storage changed (must fail)",
                _rule_do_o),
    DefectClass("dq-with-q-strides", "dQ addressed with Q's strides",
                "rerun with dQ stored like Q (must pass) and with only dQ's storage changed (must fail)",
                _rule_dq_q),
    DefectClass("non-positive-scale", "a scale <= 0 is not honoured",
                "rerun the case with scale = |scale|: it must pass; then with scale = 0",
                _rule_scale),
    DefectClass("low-precision-accumulator", "an accumulator kept in 16 bits",
                "rerun in float32 (must pass) and with a longer S (the error must grow faster than the tolerance)",
                _rule_low_precision),
    DefectClass("unwritten-tail-tile", "the last partial tile is not stored",
                "rerun with S a multiple of the tile (must pass) and S = tile + 1",
                _rule_tail),
    DefectClass("wrong-causal-alignment", "top-left and bottom-right alignment swapped",
                "rerun with S_q == S_kv (must pass) and with the other alignment",
                _rule_alignment),
    DefectClass("stale-state", "order-dependent: state left by an earlier case",
                "run the report's preceding cases and this one in one fresh process: it must fail; alone it passes",
                _rule_stale),
)
CLASS_NAMES = tuple(c.name for c in DECISION_TABLE) + ("unclassified",)


@dataclass
class Verdict:
    name: str
    score: int
    evidence: list
    next_step: str


def classify(e: Evidence) -> list[Verdict]:
    """Every class scored on the evidence, best first; 'unclassified' placed by THRESHOLD."""
    if not e.repro.failed and e.report_verdict not in REPORT_FAILURES:
        return [Verdict("unclassified", THRESHOLD, ["the case passes: nothing to classify"],
                        "check the case id, engine and source of the failure")]
    scored = []
    for c in DECISION_TABLE:
        items = c.rule(e)
        score = sum(w for w, _ in items)
        scored.append(Verdict(c.name, score, [f"{'+' if w > 0 else ''}{w} {text}" for w, text in items], c.next_step))
    scored.sort(key=lambda v: -v.score)
    floor = Verdict("unclassified", THRESHOLD - 1,
                    [f"no class scored {THRESHOLD} or more"] + [f"{x}" for x in _summary_facts(e)],
                    "read the localisation table and the heatmap; add a class to DECISION_TABLE if it is new")
    ranked = [v for v in scored if v.score >= THRESHOLD] + [floor] + [v for v in scored if v.score < THRESHOLD]
    return ranked


def _summary_facts(e: Evidence) -> list[str]:
    facts = [f"failing outputs: {sorted(e.failing) or 'none'}", f"alone: {e.only}", f"baseline: {e.baseline}"]
    return facts


# ----------------------------------------------------------------------------
# The procedure


def replay_fresh(engine_name: str, case: Case, timeout: float = 300.0) -> Optional[str]:
    """The case's verdict when run alone by ``sdpa-bwd run`` in a new Python process."""
    with tempfile.TemporaryDirectory() as tmp:
        cases_path, out = Path(tmp) / "case.json", Path(tmp) / "report.json"
        dump_cases([case], cases_path)
        env = dict(os.environ)
        if engine_name.startswith("triton-defect:"):
            env["SDPA_BWD_DEFECTS"] = "1"
            imports = [x for x in env.get("SDPA_BWD_ENGINE_IMPORTS", "").split(os.pathsep) if x]
            env["SDPA_BWD_ENGINE_IMPORTS"] = os.pathsep.join(imports + ["sdpa_bwd.conformance.defects"])
        cmd = [sys.executable, "-m", "sdpa_bwd.cli", "run", "--engine", engine_name, "--cases", str(cases_path),
               "--case", case.id, "--json", str(out), "--no-progress"]
        # The process itself is the fresh one: run the case in it (no worker, no runner-side replay),
        # where the run command has those switches.
        for extra in (["--in-process", "--no-replay"], []):
            try:
                done = subprocess.run(cmd + extra, env=env, capture_output=True, text=True, timeout=timeout)
            except subprocess.TimeoutExpired:
                return None
            if done.returncode != 2 or out.exists():
                break
        if not out.exists():
            return None
        results = json.loads(out.read_text())["results"]
        return results[0]["verdict"] if results else None


def gather_evidence(engine: Engine, case: Case, *, engine_name: Optional[str] = None, replay: bool = True,
                    report_verdict: Optional[str] = None, controls: bool = True) -> Evidence:
    name = engine_name or engine.name
    repro = run_once(engine, case)
    e = Evidence(case, name, repro, report_verdict=report_verdict, runs=1)
    if repro.verdict in ("declined", "invalid"):
        e.notes.append(f"the case is {repro.verdict} here: {repro.message}")
        return e
    again = run_once(engine, case, "rerun")
    e.runs += 1
    e.rerun_verdict, e.rerun_identical = again.verdict, repro.outputs_equal(again)
    if replay:
        e.fresh_verdict = replay_fresh(name, case)
    if repro.got:
        e.loc = {n: localise(repro, n) for n in OUTPUTS}
        e.hyp = hypotheses(repro)
    if not repro.failed or not controls:
        return e

    def verdict(c: Case, label: str) -> str:
        e.runs += 1
        return run_once(engine, c, label).verdict

    if is_packed_case(case):
        e.baseline = "failed"
    else:
        e.baseline = verdict(packed_case(case), "every tensor packed BHSD")
    if e.baseline == "passed":
        for n in TENSORS:
            if differs(case, n):
                e.only[n] = verdict(only_case(case, n), f"only {n} as in the case")
        first = next((n for n in TENSORS if e.only.get(n) == "failed"), None)
        if first is not None:
            base = only_case(case, first)
            e.features[first] = [(label, verdict(c, label)) for label, c in feature_variants(base, first)]
    for out_name, model, label in (("do", "o", "dO like O"), ("dq", "q", "dQ like Q"), ("dk", "k", "dK like K"),
                                   ("dv", "v", "dV like V")):
        if (case.storage_of(out_name), dict(case.strides).get(out_name)) != \
                (case.storage_of(model), dict(case.strides).get(model)):
            e.like[label] = verdict(like_case(case, out_name, model), label)
    if case.dtype != "float32":
        e.float32 = verdict(replace(case, id=case.id + "~float32", dtype="float32"), "float32")
    return e


@dataclass
class Diagnosis:
    evidence: Evidence
    ranking: list

    @property
    def best(self) -> Verdict:
        return self.ranking[0]

    @property
    def runner_up(self) -> Verdict:
        """The best-scoring named class after the answer (``unclassified`` only marks the threshold)."""
        return next((v for v in self.ranking[1:] if v.name != "unclassified"), self.ranking[1])

    def to_dict(self) -> dict:
        return {"evidence": self.evidence.to_dict(),
                "ranking": [{"class": v.name, "score": v.score, "evidence": v.evidence, "next_step": v.next_step}
                            for v in self.ranking]}


def diagnose(engine: Engine, case: Case, *, engine_name: Optional[str] = None, replay: bool = True,
             report_verdict: Optional[str] = None) -> Diagnosis:
    e = gather_evidence(engine, case, engine_name=engine_name, replay=replay, report_verdict=report_verdict)
    return Diagnosis(e, classify(e))


# ----------------------------------------------------------------------------
# Printing


def print_diagnosis(d: Diagnosis, console=None, png: Optional[str] = None) -> None:
    from rich.console import Console
    from rich.table import Table

    console = console or Console()
    e = d.evidence
    console.rule(f"[bold]diagnose {e.case.id}[/] on {e.engine}")
    console.print(f"problem: {e.case.describe()}")
    console.print(f"reproduction: [bold]{e.repro.verdict}[/] {e.repro.message[:300]}")
    order = {True: "identical", False: "[red]different[/]", None: "-"}[e.rerun_identical]
    console.print(f"rerun in this process: {e.rerun_verdict} (outputs {order}) -> "
                  + ("flaky" if e.rerun_identical is False else "deterministic"))
    if e.fresh_verdict is not None or e.report_verdict is not None:
        console.print(f"alone in a fresh process: {e.fresh_verdict or 'not run'}; in the report: "
                      f"{e.report_verdict or '-'}")
    for note in e.notes:
        console.print(f"[yellow]{note}")

    stage = Table(title="stage split", header_style="bold")
    for col in ("stage", "verdict", "detail"):
        stage.add_column(col, overflow="fold")
    if "delta" in e.repro.checks:
        c = e.repro.checks["delta"]
        stage.add_row("delta (ODO)", "pass" if c.passed else "[red]fail", c.summary())
    else:
        stage.add_row("delta (ODO)", "not exposed",
                      f"{e.engine} returns no delta from backward(); dQ/dK/dV split below")
    for n in OUTPUTS:
        c = e.repro.checks.get(n)
        if c is not None:
            stage.add_row(n, "pass" if n not in e.failing else "[red]fail", c.summary())
    console.print(stage)
    if e.failing:
        console.print("reading: " + _stage_reading(e.failing))

    if e.loc:
        loc = Table(title="where the outputs are wrong", header_style="bold")
        for col in ("output", "bad", "NaN", "unwritten", "batches", "heads", "rows", "cols", "pattern"):
            loc.add_column(col, overflow="fold")
        for n, l in e.loc.items():
            loc.add_row(n, f"{l.bad}/{l.numel}", str(l.nan), str(l.unwritten), _ranges(l.batches), _ranges(l.heads),
                        _ranges(l.rows), _ranges(l.cols), "; ".join(l.patterns) or "-")
        console.print(loc)
    if e.outside_writes:
        console.print(f"writes outside every tensor: {e.outside_writes}")

    if e.baseline is not None:
        ctl = Table(title="controls (same values, one change at a time)", header_style="bold")
        for col in ("control", "verdict"):
            ctl.add_column(col)
        ctl.add_row("every tensor packed BHSD", _v(e.baseline))
        for n, v in e.only.items():
            ctl.add_row(f"only {n} stored as in the case ({e.case.storage_of(n).describe()})", _v(v))
        for n, items in e.features.items():
            for label, v in items:
                ctl.add_row(f"  {n} alone, {label}", _v(v))
        for label, v in e.like.items():
            ctl.add_row(label, _v(v))
        if e.float32:
            ctl.add_row("the same case in float32", _v(e.float32))
        for label, v in e.hyp.items():
            ctl.add_row(f"hypothesis: {label}", "yes" if v else "no")
        console.print(ctl)
        named = _named_trigger(e)
        if named:
            console.print(f"[bold]trigger:[/] {named}")

    best, second = d.best, d.runner_up
    console.print(f"\n[bold green]most likely: {best.name}[/] (score {best.score})")
    for line in best.evidence:
        console.print(f"  {line}")
    console.print(f"  next step: {best.next_step}")
    console.print(f"[bold]runner-up: {second.name}[/] (score {second.score})")
    for line in second.evidence[:4]:
        console.print(f"  {line}")
    console.print(f"({e.runs} runs in this process)")
    if png and e.repro.got:
        console.print(f"heatmap written to {heatmap(e.repro, png)}")


def _v(verdict: Optional[str]) -> str:
    return {"passed": "[green]passed", "failed": "[red]failed"}.get(verdict or "", verdict or "-")


def _stage_reading(failing: set) -> str:
    if failing == {"dq"}:
        return "only dQ: the dQ path (its accumulator, its addressing, its store) - D and P are right"
    if failing == {"dv"}:
        return "only dV: the dV accumulator or its store - P is right"
    if failing == {"dk"}:
        return "only dK: the dK accumulator or its store"
    if failing == {"dq", "dk"}:
        return "dQ and dK but not dV: dS is wrong while P is right - suspect delta (D) or dP (dO/V reads)"
    if failing == {"dk", "dv"}:
        return "dK and dV: the DKDV pass's outputs or their addressing"
    return "dQ, dK and dV: P itself is wrong - suspect the stats (LSE) or a Q/K read"


def _named_trigger(e: Evidence) -> str:
    parts = []
    for n in e.triggers:
        fixes = [label for label, v in e.features.get(n, []) if v == "passed"]
        desc = e.case.storage_of(n).describe()
        if n in dict(e.case.strides):
            desc += f" strides {list(dict(e.case.strides)[n])}"
        parts.append(f"{n} ({desc}, strides {list(e.case.to_problem().tensor(n).strides)})"
                     + (f" - fixed by: {', '.join(fixes)}" if fixes else ""))
    passing_like = [k for k, v in e.like.items() if v == "passed"]
    if passing_like:
        parts.append("passes with " + ", ".join(passing_like))
    return "; ".join(parts)


# ----------------------------------------------------------------------------
# Finding the case


def find_case(case_id: str, *, cases_path: Optional[str] = None, level: Optional[str] = None) -> Case:
    pools = []
    if cases_path:
        pools.append(load_cases(cases_path))
    if level:
        from .plan import load_level

        pools.append(load_level(level))
    from .defects import SYMPTOM_CASES

    pools.append(list(BUILTIN_CASES) + list(SYMPTOM_CASES))
    for pool in pools:
        for c in pool:
            if c.id == case_id:
                return c
    if not cases_path and not level:
        try:
            from .plan import load_level

            for lvl in ("quick", "standard", "nightly", "full"):
                for c in load_level(lvl):
                    if c.id == case_id:
                        return c
        except Exception:  # the plan is optional here
            pass
    raise SystemExit(f"sdpa-bwd diagnose: no case with id {case_id} - pass --cases FILE or --level LEVEL")


# The runner's failing verdicts (judge.FAILING) that a diagnosis can start from; a probe the engine
# accepted or an invalid case is not an engine's wrong answer.
REPORT_FAILURES = ("failed", "error", "fault", "order-dependent", "nondeterministic")


def failures_in_report(path: str, engine: Optional[str] = None) -> list[dict]:
    from .report import load_report

    data = load_report(path)
    return [r for r in data.get("results", []) if r.get("verdict") in REPORT_FAILURES
            and (engine is None or r.get("engine") == engine)]


def cmd_diagnose(args) -> int:
    from rich.console import Console

    console = Console()
    engine_name = args.engine
    engine = get_engine(engine_name)
    targets: list[tuple[str, Optional[str]]] = []
    if args.report:
        failed = failures_in_report(args.report, engine_name)
        from .report import load_report

        verdicts = {r["case"]: r["verdict"] for r in load_report(args.report)["results"]
                    if r.get("engine") == engine_name}
        if args.case_id:
            targets = [(args.case_id, verdicts.get(args.case_id))]
        else:
            targets = [(r["case"], r["verdict"]) for r in failed[: args.max]]
            if not targets:
                console.print(f"no failures of {engine_name} in {args.report}")
                return 0
    elif args.case_id:
        targets = [(args.case_id, None)]
    else:
        raise SystemExit("sdpa-bwd diagnose: give a CASE_ID or --report RUN.json")
    results = []
    for i, (case_id, reported) in enumerate(targets):
        case = find_case(case_id, cases_path=args.cases, level=args.level)
        d = diagnose(engine, case, engine_name=engine_name, replay=not args.no_replay, report_verdict=reported)
        png = args.png
        if png and len(targets) > 1:
            png = str(Path(png).with_name(f"{Path(png).stem}-{case_id}{Path(png).suffix or '.png'}"))
        print_diagnosis(d, console, png)
        results.append(d.to_dict())
    if args.json:
        Path(args.json).write_text(json.dumps(results, indent=1, default=str) + "\n", encoding="utf-8")
        console.print(f"diagnosis written to {args.json}")
    return 0


def add_commands(subparsers) -> None:
    # The debug switch for the seeded defects (never on by default): with
    # SDPA_BWD_DEFECTS=1 every command sees the engines triton-defect:<class>.
    from . import defects

    if defects.switch_on():
        defects.register_defects()
    p = subparsers.add_parser("diagnose", help="from a failing case to a named defect class")
    p.add_argument("case_id", nargs="?", help="the failing case's id (default with --report: its failures)")
    p.add_argument("--engine", default="triton", help="engine name (default: triton)")
    p.add_argument("--report", help="a run report (sdpa-bwd run --json): diagnose its failures")
    p.add_argument("--cases", help="JSON file of cases holding CASE_ID")
    p.add_argument("--level", help="a level of the generated plan holding CASE_ID")
    p.add_argument("--png", help="write the (batch, head) x sequence error heatmap here")
    p.add_argument("--json", help="write the evidence and the ranking here")
    p.add_argument("--no-replay", action="store_true", help="skip the replay in a fresh process")
    p.add_argument("--max", type=int, default=5, help="with --report and no CASE_ID: at most this many failures")
    p.set_defaults(func=cmd_diagnose)
