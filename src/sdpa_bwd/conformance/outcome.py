"""What a judged case is (``CaseResult``, its verdicts), and the steps the dense and the varlen judges share: the
guard messages, the phase clock, the reruns on identical inputs. ``judge`` (dense cases) and ``ragged_judge``
(varlen cases) both build on this module; it imports neither."""

from __future__ import annotations

import math
import time
from dataclasses import dataclass, field
from typing import Optional

import torch

from ..problem import OUTPUTS
from .compare import TensorCheck

PASSING = ("passed", "declined", "rejected", "skipped")
FAILING = ("failed", "error", "rejection-accepted", "invalid-case", "fault", "order-dependent")
# nondeterministic is failing only where the case asked for determinism: see CaseResult.failing


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
    case: dict = field(default_factory=dict)            # Case.to_dict(): what the matrix and claims read
    deterministic_requested: bool = False
    runs: int = 0                                        # engine runs on identical inputs
    rerun_changed: dict = field(default_factory=dict)    # output -> elements whose bits changed in a rerun
    previous_case: Optional[str] = None                  # the case run just before, in the same process
    replay: Optional[dict] = None                        # the case rerun alone in a fresh process
    layout_control: Optional[dict] = None                # the same values stored packed BHSD
    fault: Optional[dict] = None                         # how the worker died: exit code/signal, stderr tail
    skip_reason: Optional[str] = None                    # a skip-list entry matched (known defect)
    tolerance_classes: dict = field(default_factory=dict)  # tensor -> tolerance class name (conformance.tolerance)
    phases: dict = field(default_factory=dict)           # seconds of materialize, oracle, engine, judge, reruns, forward
    compiles: Optional[dict] = None                      # Triton kernels compiled / loaded from disk (engine.compiles)
    memory_peak_bytes: Optional[int] = None              # CUDA: the most torch's allocator reserved during the case
    started: Optional[float] = None                      # isolated runner: seconds after the run began
    worker: Optional[int] = None                         # isolated runner: which worker slot ran it
    claim_broken: Optional[str] = None                   # a claims file says this case passes
    memory_retry: Optional[str] = None                   # ran out of memory beside other cases: what the rerun gave

    @property
    def ok(self) -> bool:
        return not self.failing

    @property
    def failing(self) -> bool:
        """Does this result fail the run? A known defect (skip list) does not; a broken claim does."""
        if self.claim_broken:
            return True
        if self.skip_reason:
            return False
        if self.verdict == "nondeterministic":
            return self.deterministic_requested
        return self.verdict in FAILING

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
                "seconds": round(self.seconds, 4), "repro": self.repro, "failing": self.failing,
                "case_data": self.case, "deterministic_requested": self.deterministic_requested,
                "runs": self.runs, "rerun_changed": self.rerun_changed, "previous_case": self.previous_case,
                "replay": self.replay, "layout_control": self.layout_control, "fault": self.fault,
                "skip_reason": self.skip_reason, "claim_broken": self.claim_broken,
                "tolerance_classes": self.tolerance_classes, "phases": self.phases, "compiles": self.compiles,
                "memory_peak_bytes": self.memory_peak_bytes, "started": self.started,
                "worker": self.worker, "memory_retry": self.memory_retry}

    def brief(self) -> dict:
        """The few fields a replay or a control reports about itself."""
        return {"case": self.case_id, "verdict": self.verdict, "message": self.message,
                "margin": self.margin if math.isfinite(self.margin) else str(self.margin)}


def _sync(device: str) -> None:
    if device.startswith("cuda"):
        torch.cuda.synchronize()


@dataclass
class OracleReferences:
    """What a backward is judged against: the float64 oracle, the same-dtype
    reference (sets the tolerance) and each gradient's size before cancellation."""

    want: tuple            # (dq, dk, dv, delta) in float64
    same_dtype: tuple      # the same in the problem's dtype
    magnitudes: dict


def guard_messages(report) -> list[str]:
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


def _bits(t: torch.Tensor) -> torch.Tensor:
    from .tensors import _INT_VIEW

    return t.detach().contiguous().view(_INT_VIEW[t.element_size()]).clone()


class _PhaseClock:
    """Wall seconds of a case's phases (GPU work included: each lap synchronises the device), so a
    slow case says whether its time went to the oracle, the engine (a compile, on a cold cache) or
    the judging."""

    def __init__(self, device: str, into: dict):
        self.device, self.into = device, into
        self.last = time.perf_counter()

    def lap(self, name: str) -> None:
        _sync(self.device)
        now = time.perf_counter()
        self.into[name] = round(now - self.last, 4)
        self.last = now


def _rerun(engine, problem, m, before, side, result: CaseResult, reruns: int) -> list[str]:
    """Run the engine again on the same inputs, outputs poisoned again; count the bits that changed."""
    from .tensors import repoison_outputs

    names = list(OUTPUTS) + (["delta"] if isinstance(side.get("delta"), torch.Tensor) else [])
    first = {n: _bits(getattr(m.tensors, n) if n in OUTPUTS else side[n]) for n in names}
    messages = []
    for _ in range(reruns - 1):
        repoison_outputs(m)
        # an engine that wrote its inputs already failed; rerun on the originals (one read of the device
        # for all of them, as for the counts below: see compare.check_tensor)
        differs = {n: (_bits(m.view(n)) != _bits(values)).any() for n, values in before.items()}
        flags = dict(zip(differs, torch.stack(list(differs.values())).tolist())) if differs else {}
        for n, values in before.items():
            if flags[n]:
                try:
                    m.view(n).copy_(values)
                except RuntimeError:   # a broadcast input overlaps itself; keep what is there
                    messages.append(f"input {n} could not be restored for a rerun")
        again = engine.backward(problem, m.tensors) or {}
        _sync(engine.device())
        result.runs += 1
        changed = {}
        for n in names:
            now = getattr(m.tensors, n) if n in OUTPUTS else again.get(n)
            if now is not None:
                changed[n] = (_bits(now) != first[n]).sum()
        counts = dict(zip(changed, torch.stack(list(changed.values())).tolist())) if changed else {}
        for n, count in counts.items():
            if count:
                result.rerun_changed[n] = max(count, result.rerun_changed.get(n, 0))
    return messages


def changed_elements(rerun_changed: dict) -> str:
    """A result's ``rerun_changed`` ({output: elements whose bits changed in a rerun}) in words."""
    return ", ".join(f"{n} {k} elements" for n, k in rerun_changed.items())


def conclude(result: CaseResult, messages: list, reruns: int, deterministic: bool) -> None:
    """The verdict and message of a case whose checks ran: failed on a failing check or a guard message, else
    nondeterministic where a rerun changed bits, else passed."""
    failing = [c.summary() for c in result.checks.values() if not c.passed]
    result.verdict = "passed" if not failing and not messages else "failed"
    if result.rerun_changed:
        changed = changed_elements(result.rerun_changed)
        if result.verdict == "passed":
            result.verdict = "nondeterministic"
        failing.append(f"nondeterministic: {changed} changed between {reruns} runs on identical inputs"
                       + (" although the case asked for a deterministic backward" if deterministic else ""))
    result.message = "; ".join(messages + failing)


def out_of_memory(result: CaseResult) -> bool:
    """Did the case end with the device out of memory (torch's ``OutOfMemoryError``, recorded by ``record_error``)
    rather than with anything the engine computed? Beside other workers' cases that says nothing of the engine:
    the runner runs such a case again with the device to itself."""
    return result.verdict == "error" and (result.message.startswith("OutOfMemoryError")
                                          or "CUDA out of memory" in result.message)


def record_error(result: CaseResult, exc: BaseException) -> None:
    """The engine raised where it should have returned or declined: the verdict ``error``, the exception as the
    message, and a short traceback beside the guards."""
    import traceback

    result.verdict = "error"
    result.message = f"{type(exc).__name__}: {exc}".strip()
    result.guard["traceback"] = traceback.format_exc(limit=6)
