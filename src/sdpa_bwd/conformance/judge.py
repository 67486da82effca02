"""Run one case in this process and judge it against the float64 oracle.

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

With ``reruns=N`` the engine runs N times on identical inputs, its outputs
poisoned again before each run; any bit that differs from the first run makes
the case ``nondeterministic`` (a failure only where the case asked for a
deterministic backward; the changed-element counts are recorded either way).

Verdicts: passed, failed, declined, error (the engine raised while computing a
problem it accepted), rejected (a probe refused, as it must be),
rejection-accepted (a probe the engine took: a failure), invalid-case (a
non-probe case that does not validate: a plan bug), nondeterministic; and from
the process-isolated runner (``runner.run_isolated``, ``worker``): fault (the worker died,
hung, or its CUDA context was poisoned), order-dependent (fails in sequence,
passes alone in a fresh process), skipped (a skip-list entry said not to run).

The runner (in this process or in workers) and the worker process both call ``run_case``;
this module imports neither of them.
"""

from __future__ import annotations

import math
import time
import traceback
from dataclasses import dataclass, field
from typing import Optional

import torch

from ..problem import oracle
from ..problem.cases import Case
from .compare import TensorCheck, check_tensor
from ..engine.compiles import CompileWatch
from ..backends import Engine
from ..problem import OUTPUTS
from .tensors import TORCH_DTYPE, check_outputs, is_poison, materialize, snapshot_inputs
from .tolerance import reduction_length, tolerance_class

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
                "worker": self.worker}

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


def oracle_references(problem, t) -> OracleReferences:
    attrs = dict(scale=problem.effective_scale, left_bound=problem.left_bound,
                 right_bound=problem.right_bound, alignment=problem.alignment)
    # Smallest result first: the magnitudes are floats, the same-dtype reference is in the inputs'
    # dtype, the float64 gradients last, so no float64 result is held while another oracle call
    # peaks (a 2^31-element case: ~100 GiB in this order, ~130 the other way round).
    magnitudes = oracle.gradient_magnitudes(t.q, t.k, t.v, t.o, t.do, t.stats, **attrs)
    same_dtype = oracle.backward(t.q, t.k, t.v, t.o, t.do, t.stats, compute_dtype=TORCH_DTYPE[problem.dtype], **attrs)
    want = oracle.backward(t.q, t.k, t.v, t.o, t.do, t.stats, **attrs)
    return OracleReferences(want, same_dtype, magnitudes)


def judge_backward(problem, case: Case, t, side: dict, refs: OracleReferences) -> dict[str, TensorCheck]:
    """dQ, dK, dV (and delta, where the engine exposed it) against the oracle, each within its
    tolerance class. The one place outputs are judged: the runner and the diagnoser both call it."""
    checks = {}
    for i, name in enumerate(OUTPUTS):
        cls = tolerance_class(problem, name, case.tolerance_class)
        checks[name] = check_tensor(name, getattr(t, name), refs.want[i], refs.same_dtype[i], problem.dtype,
                                    cls.k, cls.floor_ulps, magnitude=refs.magnitudes[name],
                                    reduction=reduction_length(problem, name), exponent=refs.magnitudes["exponent"])
    if "delta" in side:
        checks["delta"] = check_tensor("delta", side["delta"], refs.want[3], refs.same_dtype[3], "float32", 2.0,
                                       8.0, magnitude=refs.magnitudes["delta"], reduction=problem.D_v)
    return checks


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


def run_case(engine: Engine, case: Case, *, source: Optional[str] = None, reruns: int = 1) -> CaseResult:
    """Judge ``engine`` on ``case``; with ``reruns`` > 1 also check that reruns are bitwise identical."""
    if reruns < 1:
        raise ValueError(f"reruns = {reruns}: the engine must run at least once")
    started = time.perf_counter()
    result = CaseResult(case.id, engine.name, "error", case.describe(), purpose=case.purpose,
                        covers=case.covers, repro=case.repro(engine.name, source), case=case.to_dict(),
                        deterministic_requested=case.deterministic)
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
        cuda = engine.device().startswith("cuda")
        if cuda:  # what the case really held, beside the cost model's estimate that the memory gate used
            torch.cuda.reset_peak_memory_stats()
        with CompileWatch() as watch:
            try:
                _run_checks(engine, case, problem, result, reruns)
            finally:
                result.compiles = watch.summary()
                if cuda:
                    result.memory_peak_bytes = int(torch.cuda.max_memory_reserved())
    except Exception as exc:  # the engine raised: record it, keep going
        result.verdict = "error"
        result.message = f"{type(exc).__name__}: {exc}".strip()
        result.guard["traceback"] = traceback.format_exc(limit=6)
    finally:
        result.seconds = time.perf_counter() - started
    return result


def _bits(t: torch.Tensor) -> torch.Tensor:
    from .tensors import _INT_VIEW

    return t.detach().contiguous().view(_INT_VIEW[t.element_size()]).clone()


def _run_checks(engine: Engine, case: Case, problem, result: CaseResult, reruns: int = 1) -> None:
    device = engine.device()
    attrs = dict(scale=problem.effective_scale, left_bound=problem.left_bound,
                 right_bound=problem.right_bound, alignment=problem.alignment)
    clock = _PhaseClock(device, result.phases)
    m = materialize(problem, seed=case.seed, device=device)
    t = m.tensors
    clock.lap("materialize")
    refs = oracle_references(problem, t)
    before = snapshot_inputs(m)
    clock.lap("oracle")
    side = engine.backward(problem, t) or {}
    clock.lap("engine")
    result.runs = 1
    guard = check_outputs(m, before)
    messages = guard_messages(guard)
    result.checks.update(judge_backward(problem, case, t, side, refs))
    for name in OUTPUTS:
        result.tolerance_classes[name] = tolerance_class(problem, name, case.tolerance_class).name
    clock.lap("judge")
    if reruns > 1:  # after the first run's outputs were judged: a rerun overwrites them
        messages += _rerun(engine, problem, m, before, side, result, reruns)
        clock.lap("reruns")
    if engine.capabilities.forward:
        messages += _check_forward(engine, case, problem, result, attrs)
        clock.lap("forward")
    result.guard = {"written_outside": guard.written_outside, "unwritten": guard.unwritten,
                    "inputs_modified": guard.inputs_modified}
    failing = [c.summary() for c in result.checks.values() if not c.passed]
    result.verdict = "passed" if not failing and not messages else "failed"
    if result.rerun_changed:
        changed = ", ".join(f"{n} {k} elements" for n, k in result.rerun_changed.items())
        note = (f"nondeterministic: {changed} changed between {reruns} runs on identical inputs"
                + (" although the case asked for a deterministic backward" if case.deterministic else ""))
        if result.verdict == "passed":
            result.verdict = "nondeterministic"
        failing.append(note)
    result.message = "; ".join(messages + failing)


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


def _check_forward(engine, case, problem, result, attrs) -> list[str]:
    """Run the engine's forward into poisoned O and stats and compare them with the oracle."""
    m = materialize(problem, seed=case.seed, device=engine.device(), forward=False)
    t = m.tensors
    want_o, want_stats = oracle.forward(t.q, t.k, t.v, **attrs)
    ref_o, ref_stats = oracle.forward(t.q, t.k, t.v, compute_dtype=TORCH_DTYPE[problem.dtype], **attrs)
    engine.forward(problem, t)
    _sync(engine.device())
    messages = []
    # O and stats are inputs of the backward, so check_outputs does not look for their unwritten
    # elements; do it here (one read of the device for both).
    unwritten = torch.stack([is_poison(getattr(t, name), problem.tensor(name).dtype).sum()
                             for name in ("o", "stats")]).tolist()
    for name, count in zip(("o", "stats"), unwritten):
        if count:
            messages.append(f"forward {name}: {count} logical elements never written")
    cls = tolerance_class(problem, "o", case.tolerance_class)
    result.tolerance_classes["o"] = cls.name
    result.checks["o"] = check_tensor("o", t.o, want_o, ref_o, problem.dtype, cls.k,
                                      cls.floor_for(reduction_length(problem, "o")))
    result.checks["stats"] = check_tensor("stats", t.stats, want_stats, ref_stats.float(), "float32", 2.0,
                                          8.0 * math.sqrt(problem.S_kv))
    return messages
