"""One run of one case's backward, keeping the tensors that the localisation and the hypotheses read."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Optional

import torch

from ...problem.cases import Case
from ...backends import Engine
from ...problem import OUTPUTS, TENSORS
from ..tensors import GuardReport, Materialized, check_outputs, is_poison, materialize, snapshot_inputs
from ..judge import guard_messages, judge_backward, oracle_references

STORED = tuple(n for n in TENSORS)


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
