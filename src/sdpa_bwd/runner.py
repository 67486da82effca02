"""Run cases against an engine and judge each one against the float64 oracle.

One case, start to end (``run_case``):

1. the case becomes a ``Problem``; a probe goes straight to the engine's
   ``not_supported_reasons`` and must be rejected (``ValueError``) or declined;
2. otherwise the problem is validated and the engine may decline with reasons;
3. ``tensors.materialize`` allocates the nine tensors in poisoned buffers and
   fills the inputs from the case's seed (O and stats from the oracle);
4. the engine writes dQ, dK, dV into the caller's strided outputs;
5. guards are checked (writes outside, unwritten elements, modified inputs),
   and each output is compared with the oracle within its tolerance class;
   an engine with a forward is checked on O and stats the same way.

Verdicts: passed, failed, declined, error (the engine raised while computing a
problem it accepted), rejected (a probe refused, as it must be),
rejection-accepted (a probe the engine took: a failure), invalid-case (a
non-probe case that does not validate: a plan bug).
"""

from __future__ import annotations

import math
import time
import traceback
from dataclasses import dataclass, field
from typing import Iterable, Optional, Sequence

import torch

from . import oracle
from .cases import Case
from .compare import TensorCheck, check_tensor
from .engines import Engine
from .problem import OUTPUTS
from .tensors import TORCH_DTYPE, check_outputs, materialize, poison_, snapshot_inputs
from .tolerance import reduction_length, tolerance_class

PASSING = ("passed", "declined", "rejected")
FAILING = ("failed", "error", "rejection-accepted", "invalid-case")


@dataclass
class CaseResult:
    case_id: str
    engine: str
    verdict: str
    description: str = ""
    reasons: list[str] = field(default_factory=list)
    checks: dict[str, TensorCheck] = field(default_factory=dict)
    guard: dict = field(default_factory=dict)
    message: str = ""
    seconds: float = 0.0
    repro: str = ""
    purpose: str = "claim"
    covers: tuple = ()

    @property
    def ok(self) -> bool:
        return self.verdict in PASSING

    @property
    def margin(self) -> float:
        margins = [c.margin for c in self.checks.values()]
        return min(margins) if margins else math.nan

    def to_dict(self) -> dict:
        margin = self.margin
        return {"case": self.case_id, "engine": self.engine, "verdict": self.verdict,
                "description": self.description, "purpose": self.purpose, "covers": list(self.covers),
                "reasons": self.reasons, "message": self.message,
                "margin": margin if math.isfinite(margin) else str(margin),
                "checks": {n: c.to_dict() for n, c in self.checks.items()}, "guard": self.guard,
                "seconds": round(self.seconds, 4), "repro": self.repro}


def _sync(device: str) -> None:
    if device.startswith("cuda"):
        torch.cuda.synchronize()


def _guard_messages(report) -> list[str]:
    out = []
    for buf, n in report.written_outside.items():
        if n:
            out.append(f"buffer {buf}: {n} elements outside every logical tensor were overwritten "
                       f"(first at element {report.first_outside.get(buf)} of its storage)")
    for name, n in report.unwritten.items():
        if n:
            out.append(f"{name}: {n} logical elements were never written (still poison)")
    for name, n in report.inputs_modified.items():
        if n:
            out.append(f"input {name}: {n} elements were modified by the engine")
    return out


def run_case(engine: Engine, case: Case, *, source: Optional[str] = None) -> CaseResult:
    started = time.perf_counter()
    result = CaseResult(case.id, engine.name, "error", case.describe(), purpose=case.purpose,
                        covers=case.covers, repro=case.repro(engine.name, source))
    problem = case.to_problem()
    try:
        if case.purpose == "probe":
            try:
                reasons = engine.not_supported_reasons(problem)
            except ValueError as exc:
                result.verdict, result.message = "rejected", str(exc)
            else:
                if reasons:
                    result.verdict, result.reasons = "rejected", reasons
                    result.message = "declined: " + reasons[0]
                else:
                    result.verdict = "rejection-accepted"
                    result.message = (f"engine {engine.name} accepted a problem that must be rejected "
                                      f"({case.expected_rejection}) - its not_supported_reasons should call "
                                      "Problem.validate() or decline it")
            return result
        try:
            problem.validate()
        except ValueError as exc:
            result.verdict, result.message = "invalid-case", f"case does not validate: {exc}"
            return result
        reasons = engine.not_supported_reasons(problem)
        if reasons:
            result.verdict, result.reasons = "declined", reasons
            result.message = reasons[0]
            return result
        _run_checks(engine, case, problem, result)
    except Exception as exc:  # the engine raised: record it, keep going
        result.verdict = "error"
        result.message = f"{type(exc).__name__}: {exc}".strip()
        result.guard["traceback"] = traceback.format_exc(limit=6)
    finally:
        result.seconds = time.perf_counter() - started
    return result


def _run_checks(engine: Engine, case: Case, problem, result: CaseResult) -> None:
    device = engine.device()
    attrs = dict(scale=problem.effective_scale, left_bound=problem.left_bound,
                 right_bound=problem.right_bound, alignment=problem.alignment)
    m = materialize(problem, seed=case.seed, device=device)
    t = m.tensors
    want = oracle.backward(t.q, t.k, t.v, t.o, t.do, t.stats, **attrs)
    same_dtype = oracle.backward(t.q, t.k, t.v, t.o, t.do, t.stats, compute_dtype=TORCH_DTYPE[problem.dtype],
                                 **attrs)
    before = snapshot_inputs(m)
    side = engine.backward(problem, t) or {}
    _sync(device)
    guard = check_outputs(m, before)
    messages = _guard_messages(guard)
    for i, name in enumerate(OUTPUTS):
        cls = tolerance_class(problem, name)
        result.checks[name] = check_tensor(name, getattr(t, name), want[i], same_dtype[i], problem.dtype,
                                           cls.k, cls.floor_for(reduction_length(problem, name)))
    if "delta" in side:
        result.checks["delta"] = check_tensor("delta", side["delta"], want[3], same_dtype[3], "float32", 2.0,
                                              8.0 * math.sqrt(problem.D_v))
    if engine.capabilities.forward:
        messages += _check_forward(engine, case, problem, result, attrs)
    result.guard = {"written_outside": guard.written_outside, "unwritten": guard.unwritten,
                    "inputs_modified": guard.inputs_modified}
    failing = [c.summary() for c in result.checks.values() if not c.passed]
    result.verdict = "passed" if not failing and not messages else "failed"
    result.message = "; ".join(messages + failing)


def _check_forward(engine, case, problem, result, attrs) -> list[str]:
    """Run the engine's forward into poisoned O and stats and compare them with the oracle."""
    m = materialize(problem, seed=case.seed, device=engine.device(), forward=False)
    t = m.tensors
    want_o, want_stats = oracle.forward(t.q, t.k, t.v, **attrs)
    ref_o, ref_stats = oracle.forward(t.q, t.k, t.v, compute_dtype=TORCH_DTYPE[problem.dtype], **attrs)
    engine.forward(problem, t)
    _sync(engine.device())
    messages = []
    for name in ("o", "stats"):
        spec = problem.tensor(name)
        buf = m.buffers[spec.buffer or name]
        # O and stats are inputs of the backward, so check_outputs does not
        # look for their unwritten elements; do it here.
        from .tensors import is_poison

        unwritten = int(is_poison(getattr(t, name), spec.dtype).sum())
        if unwritten:
            messages.append(f"forward {name}: {unwritten} logical elements never written")
    cls = tolerance_class(problem, "o")
    result.checks["o"] = check_tensor("o", t.o, want_o, ref_o, problem.dtype, cls.k,
                                      cls.floor_for(reduction_length(problem, "o")))
    result.checks["stats"] = check_tensor("stats", t.stats, want_stats, ref_stats.float(), "float32", 2.0,
                                          8.0 * math.sqrt(problem.S_kv))
    return messages


def run_cases(engine: Engine, cases: Sequence[Case], *, source: Optional[str] = None, progress: bool = True,
              on_result=None) -> list[CaseResult]:
    """Run ``cases`` in order; a rich progress bar when ``progress`` and the run is long."""
    results: list[CaseResult] = []
    if progress and len(cases) > 1:
        from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

        with Progress(TextColumn("[bold]{task.description}"), BarColumn(), MofNCompleteColumn(),
                      TimeElapsedColumn(), TextColumn("{task.fields[current]}"), transient=True) as bar:
            task = bar.add_task(engine.name, total=len(cases), current="")
            for case in cases:
                bar.update(task, current=case.id)
                results.append(run_case(engine, case, source=source))
                if on_result:
                    on_result(results[-1])
                bar.advance(task)
    else:
        for case in cases:
            results.append(run_case(engine, case, source=source))
            if on_result:
                on_result(results[-1])
    return results
