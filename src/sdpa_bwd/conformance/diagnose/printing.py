"""The diagnosis as rich tables: stage split, localisation, controls, the answer and the runner-up."""

from __future__ import annotations

from typing import Optional

from ...problem import OUTPUTS
from .decision import Diagnosis
from .evidence import Evidence
from .localise import _ranges, heatmap


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
