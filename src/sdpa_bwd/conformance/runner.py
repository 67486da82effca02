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

With ``reruns=N`` the engine runs N times on identical inputs, its outputs
poisoned again before each run; any bit that differs from the first run makes
the case ``nondeterministic`` (a failure only where the case asked for a
deterministic backward; the changed-element counts are recorded either way).

Verdicts: passed, failed, declined, error (the engine raised while computing a
problem it accepted), rejected (a probe refused, as it must be),
rejection-accepted (a probe the engine took: a failure), invalid-case (a
non-probe case that does not validate: a plan bug), nondeterministic; and from
the process-isolated runner (``sdpa_bwd.worker``): fault (the worker died,
hung, or its CUDA context was poisoned), order-dependent (fails in sequence,
passes alone in a fresh process), skipped (a skip-list entry said not to run).

``run_isolated`` is the full runner: worker processes, replays of failures
alone, packed-layout controls, several workers at once.
"""

from __future__ import annotations

import copy
import math
import os
import threading
import time
from collections import deque
import traceback
from dataclasses import dataclass, field
from typing import Optional, Sequence

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
    tolerance_classes: dict = field(default_factory=dict)  # tensor -> tolerance class name (sdpa_bwd.tolerance)
    phases: dict = field(default_factory=dict)           # seconds of materialize, oracle, engine, judge, reruns, forward
    compiles: Optional[dict] = None                      # Triton kernels compiled / loaded from disk (sdpa_bwd.compiles)
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
                                    reduction=reduction_length(problem, name))
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


def skipped_result(engine: str, case: Case, reason: str, source: Optional[str] = None) -> CaseResult:
    """A case not to run (a skip list says it hangs or crashes, or it needs more memory than
    this machine has): recorded with why, not run."""
    return CaseResult(case.id, engine, "skipped", case.describe(), purpose=case.purpose, covers=case.covers,
                      repro=case.repro(engine, source), case=case.to_dict(),
                      deterministic_requested=case.deterministic, skip_reason=reason,
                      message=f"not run: {reason}")


def run_cases(engine: Engine, cases: Sequence[Case], *, source: Optional[str] = None, progress: bool = True,
              on_result=None, reruns: int = 1, skip: Optional[dict] = None) -> list[CaseResult]:
    """Run ``cases`` in order in this process; a rich progress bar when ``progress`` and the run is long.
    ``skip`` maps case ids to reasons for cases not to run at all."""
    skip = skip or {}

    def one(case: Case) -> CaseResult:
        if case.id in skip:
            return skipped_result(engine.name, case, skip[case.id], source)
        return run_case(engine, case, source=source, reruns=reruns)

    results: list[CaseResult] = []
    if progress and len(cases) > 1:
        from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

        with Progress(TextColumn("[bold]{task.description}"), BarColumn(), MofNCompleteColumn(),
                      TimeElapsedColumn(), TextColumn("{task.fields[current]}"), transient=True) as bar:
            task = bar.add_task(engine.name, total=len(cases), current="")
            for case in cases:
                bar.update(task, current=case.id)
                results.append(one(case))
                if on_result:
                    on_result(results[-1])
                bar.advance(task)
    else:
        for case in cases:
            results.append(one(case))
            if on_result:
                on_result(results[-1])
    return results


# -- the full runner: isolation, replays, controls, shards, several workers ----------
def shard(cases: Sequence[Case], index: int, count: int) -> list[Case]:
    """Shard ``index`` (1-based) of ``count``: the cases whose id hashes there, in their order.

    A stable hash of the id alone (sha256, not Python's salted ``hash``), so a
    CI matrix of machines splits any case list the same way every time and the
    shards together are exactly the list.
    """
    import hashlib

    if not (count >= 1 and 1 <= index <= count):
        raise ValueError(f"shard {index}/{count}: need 1 <= i <= n (e.g. --shard 1/4 ... --shard 4/4)")
    return [c for c in cases
            if int.from_bytes(hashlib.sha256(c.id.encode()).digest()[:8], "big") % count == index - 1]


def parse_shard(text: str) -> tuple[int, int]:
    try:
        i, n = (int(x) for x in text.split("/"))
    except ValueError:
        raise ValueError(f"--shard {text!r}: expected i/n with integers, e.g. 2/4") from None
    shard([], i, n)  # validates
    return i, n


def packed_control(case: Case) -> Optional[Case]:
    """The same values (same sizes, attributes, seed) with every tensor packed BHSD; None if already so."""
    from dataclasses import replace

    if not case.storage and not case.strides and not case.buffers:
        return None
    return replace(case, id=case.id + "@packed", storage=(), strides=(), buffers=(), purpose="claim",
                   expected_rejection=None, covers=())


def _control_conclusion(control: CaseResult) -> str:
    if control.verdict == "passed":
        return "the layout's: the same values stored packed BHSD pass"
    if control.verdict in ("failed", "error", "fault", "nondeterministic"):
        return f"not only the layout's: packed BHSD {control.verdict} too"
    return f"no control: packed BHSD {control.verdict}"


def _gpu_env(workers: int) -> list[dict]:
    """CUDA_VISIBLE_DEVICES for each worker: with several GPUs visible, worker i gets GPU i mod n
    (workers beyond the GPU count share them round robin); with one or none, inherit."""
    if workers <= 1:
        return [{}]
    visible = os.environ.get("CUDA_VISIBLE_DEVICES")
    ids = [x.strip() for x in visible.split(",") if x.strip()] if visible else \
        [str(i) for i in range(torch.cuda.device_count())]
    if len(ids) >= 2:
        return [{"CUDA_VISIBLE_DEVICES": ids[i % len(ids)]} for i in range(workers)]
    return [{} for _ in range(workers)]


def _case_costs(cases: Sequence[Case], machine: str) -> tuple[list[float], list[int]]:
    """Estimated seconds and bytes of each case (the plan's cost model; zeros without it)."""
    try:
        from .plan.cost import case_cost
    except ImportError:  # no plan package: every case costs the same
        return [0.0] * len(cases), [0] * len(cases)
    costs = [case_cost(c) for c in cases]
    return [c.seconds(machine) for c in costs], [c.bytes for c in costs]


def worker_envs(workers: int) -> list[dict]:
    """The environment each of ``workers`` worker processes adds to the runner's: its GPU, its share
    of the CPU threads, expandable CUDA segments."""
    from .worker import WORKER_THREADS_ENV

    # torch's CPU threads: a share of the cores each, not every core in every worker (16 workers x 16
    # threads on 16 cores thrash on the host-side work of each case)
    threads = str(max(1, (os.cpu_count() or 1) // workers))
    # expandable segments: a 2^31-element case's float64 judging otherwise fails on fragmentation
    # (device run 12: 16 GiB reserved but unallocated when a 16 GiB request failed)
    alloc = {} if "PYTORCH_CUDA_ALLOC_CONF" in os.environ else {"PYTORCH_CUDA_ALLOC_CONF": "expandable_segments:True"}
    return [{**e, **alloc, WORKER_THREADS_ENV: threads} for e in _gpu_env(workers)]


def prestart_workers(workers: int, engine: str, timeout: float = 300.0) -> list:
    """Start ``workers`` worker processes now, for ``run_isolated(..., pool=...)`` to use later.

    The CLI calls this before it loads the plan, so that the workers' start (importing torch and
    the engine, a CUDA context, a warm-up case through the harness: ``worker.WARM_ENV``) overlaps
    the runner's own. Run 17's workers spent 4.5-7 s on their first case, against 0.43 s for a
    typical one, every worker of 16 at the same time.
    """
    from .worker import WARM_ENV, Worker

    pool = []
    for env in worker_envs(max(1, workers)):
        w = Worker(env={**env, WARM_ENV: engine}, timeout=timeout)
        w.spawn()
        pool.append(w)
    return pool


def run_isolated(engine: str, cases: Sequence[Case], *, source: Optional[str] = None, reruns: int = 2,
                 timeout: float = 300.0, workers: int = 1, replay: bool = True, replay_limit: int = 20,
                 controls: bool = True, progress: bool = True, skip: Optional[dict] = None,
                 on_result=None, memory_limit: Optional[int] = None, machine: str = "cpu",
                 timing: Optional[dict] = None, measured: Optional[dict] = None,
                 pool: Optional[list] = None) -> list[CaseResult]:
    """Run ``cases`` against the engine named ``engine`` in worker processes.

    Cases go to ``workers`` processes in contiguous chunks of about equal
    estimated cost, costliest first, each worker taking the next chunk when it
    is done (``sdpa_bwd.schedule``); a chunk never splits two neighbours of the
    same sizes (the plan puts cases that differ in one attribute next to each
    other, and an order effect needs them in one process). With several GPUs,
    worker i runs on GPU i mod n. ``memory_limit`` (bytes, per device) gates
    the cases: a case waits until the memory the cost model says it needs is
    free on its device (``machine``: whose rates estimate the seconds).
    Every failing case (up to ``replay_limit``, the first in the plan's order)
    runs again alone in a fresh process, and, if it is not stored packed, so
    does its packed-BHSD control; replays start as soon as a failure is found,
    beside the workers. ``skip`` maps case ids to reasons for cases not to run at all.
    ``timing``, a dict, receives the wall seconds of the phases (``cases_s``, ``replays_s``).
    ``measured`` maps case ids to seconds an earlier run took (``schedule.measured_seconds``): those
    replace the cost model's estimates, and the chunks get finer.
    Results come back in the order of ``cases``; a run stopped by SIGTERM or
    ^C kills its workers and leaves the cases in flight without a result (not
    run, rather than a fault the engine did not cause).
    ``pool``: workers started earlier (``prestart_workers``) that the run takes over, each for the
    part whose environment it has; it closes them all, used or not.
    """
    from concurrent.futures import ThreadPoolExecutor

    from .schedule import MemoryGate, dispatch_order, plan_chunks
    from .worker import WARM_ENV, Worker

    workers = max(1, min(workers, len(cases) or 1))
    envs = worker_envs(workers)
    pool = list(pool or [])

    def from_pool(env) -> Optional[Worker]:
        with lock:
            for w in pool:
                if {k: v for k, v in w.env.items() if k != WARM_ENV} == env:
                    pool.remove(w)
                    return w
        return None

    skip = skip or {}
    t0 = time.perf_counter()
    results: list[Optional[CaseResult]] = [None] * len(cases)
    seconds, needs = _case_costs(cases, machine)
    parts = plan_chunks(cases, workers, seconds, measured)
    todo = deque(dispatch_order(parts) if workers > 1 else parts)  # one worker: the plan's order
    devices = [e.get("CUDA_VISIBLE_DEVICES") for e in envs]
    gates = {key: MemoryGate(memory_limit, slots=devices.count(key)) for key in set(devices)} \
        if memory_limit else {}
    lock = threading.Lock()
    live: set = set()   # workers running now: killed when the run is stopped
    bar = task = None
    if progress and len(cases) > 1:
        from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

        bar = Progress(TextColumn("[bold]{task.description}"), BarColumn(), MofNCompleteColumn(),
                       TimeElapsedColumn(), TextColumn("{task.fields[current]}"), transient=True)
        task = bar.add_task(engine, total=len(cases), current="")
        bar.start()

    def done(i: int, r: CaseResult) -> None:
        with lock:
            results[i] = r
            if on_result:
                on_result(r)
            if bar is not None:
                bar.update(task, advance=1, current=r.case_id)

    stop = threading.Event()  # set when the caller is interrupted: threads end after their current case

    def need_on(gate: Optional[MemoryGate], i: int) -> int:
        """What case i reserves on its device (the cost model's bytes; at most the whole limit)."""
        return min(needs[i], gate.limit) if gate else 0

    def halt() -> None:
        """SIGTERM or ^C in the caller: stop handing out work and kill every process running a case."""
        stop.set()
        with lock:
            for w in list(live):
                w.kill()
            unreplayed_say_so()
        if replayer is not None:
            replayer.shutdown(wait=False, cancel_futures=True)

    def unreplayed_say_so() -> None:
        """A stopped run's report holds the results as they first came (``on_result``'s objects): a failing
        one takes its replay where that finished, and otherwise says it was not replayed, rather than a
        ``replay`` of None that reads as "not a replay suspect" (session 16's full run: a fault, its replay
        cancelled by the run's time cap, nothing in the report to tell)."""
        for i, r in enumerate(results):
            if r is None or not _replay_suspect(r) or r.replay is not None:
                continue
            future = replays.get(i)
            copy_done = future is not None and future.done() and not future.cancelled() \
                and future.exception() is None and future.result() is not None
            if copy_done:
                vars(r).update(vars(future.result()))
            else:
                r.replay = {"skipped": "the run was stopped before this case was replayed alone"}

    # Replays of failing cases alone in fresh processes start as soon as a failure is found, on
    # up to two threads beside the workers, instead of after the last case (a serial tail of
    # process starts). Each replays a copy of the result; the chosen copies replace the results.
    replays: dict = {}  # case index -> Future of its replayed copy (None if the run was stopped)
    replayer = ThreadPoolExecutor(max(1, min(2, workers)), thread_name_prefix="sdpa-bwd-replay") \
        if replay else None
    spares: dict[int, Worker] = {}  # per replay thread: its next process, already starting

    def spawned(env) -> Worker:
        w = Worker(env=env, timeout=timeout)
        w.spawn()
        return w

    def fresh_worker(env) -> Worker:
        me = threading.get_ident()
        with lock:
            w = spares.pop(me, None)
        if w is None or w.env != env:
            if w is not None:
                w.close()
            w = spawned(env)
        spare = spawned(env)
        with lock:
            spares[me] = spare
        return w

    def replay_one(slot: int, i: int, result: CaseResult) -> Optional[CaseResult]:
        env = envs[slot % len(envs)]
        gate = gates.get(env.get("CUDA_VISIBLE_DEVICES"))
        need = need_on(gate, i)
        if stop.is_set() or (gate and not gate.reserve(need, stop)):
            return None
        w = fresh_worker(env)
        with lock:
            live.add(w)
        try:
            _replay(engine, cases[i], result, source=source, reruns=reruns, controls=controls, worker=w)
        finally:
            with lock:
                live.discard(w)
            if gate:
                gate.release(need)
        return None if stop.is_set() else result

    def replay_early(i: int, r: CaseResult, slot: int) -> None:
        if replayer is None or not _replay_suspect(r):
            return
        with lock:
            if len(replays) < replay_limit and not stop.is_set():
                replays[i] = replayer.submit(replay_one, slot, i, copy.copy(r))

    def run_one(w: Worker, gate: Optional[MemoryGate], i: int, slot: int) -> None:
        case = cases[i]
        if case.id in skip:
            done(i, skipped_result(engine, case, skip[case.id], source))
            return
        need = need_on(gate, i)
        if gate and not gate.reserve(need, stop):
            return
        started = time.perf_counter() - t0
        try:
            r = w.run(engine, case, source=source, reruns=reruns)
            r.started, r.worker = round(started, 3), slot
        finally:
            if gate:
                gate.release(need)
        if not stop.is_set():  # a case in flight when the run was stopped: its worker was killed, no verdict
            done(i, r)
            replay_early(i, r, slot)

    def run_part(part: int) -> None:
        gate = gates.get(envs[part].get("CUDA_VISIBLE_DEVICES"))
        with (from_pool(envs[part]) or Worker(env=envs[part], timeout=timeout)) as w:
            with lock:
                live.add(w)
            try:
                while not stop.is_set():
                    with lock:
                        if not todo:
                            return
                        chunk = todo.popleft()
                    for i in range(chunk.start, chunk.stop):
                        if stop.is_set():
                            return
                        run_one(w, gate, i, part)
            finally:
                with lock:
                    live.discard(w)

    def in_threads(fn, items) -> None:
        pool = ThreadPoolExecutor(workers)
        try:
            list(pool.map(fn, items))
        except BaseException:  # SIGTERM or ^C in the caller: do not wait for the remaining cases
            halt()
            pool.shutdown(wait=False, cancel_futures=True)
            raise
        pool.shutdown()

    try:
        in_threads(run_part, range(workers))
    finally:
        for w in pool:   # started for parts this run did not have
            w.close()
        if bar is not None:
            bar.stop()
        if timing is not None:
            timing["cases_s"] = round(time.perf_counter() - t0, 3)
        if gates and timing is not None:
            timing["memory_peak_bytes"] = max(g.peak for g in gates.values())

    if replay:
        # Deterministic choice: the first ``replay_limit`` failing cases in the plan's order.
        # Those already replayed during the case phase keep their replay; the rest run now;
        # replays of later failures that started early are waited for and dropped.
        suspects = [i for i, r in enumerate(results) if r is not None and _replay_suspect(r)]
        chosen = suspects[:replay_limit]
        for i in suspects[replay_limit:]:
            results[i].replay = {"skipped": f"over --replay-limit {replay_limit}"}
        replays_t0 = time.perf_counter()
        try:
            with lock:
                for i in chosen:
                    if i not in replays:
                        replays[i] = replayer.submit(replay_one, i % len(envs), i, copy.copy(results[i]))
            for i, future in list(replays.items()):
                replayed = future.result()
                if i in chosen and replayed is not None:
                    results[i] = replayed
        except BaseException:  # SIGTERM or ^C while waiting for replays
            halt()
            raise
        finally:
            if timing is not None:
                timing["replays_s"] = round(time.perf_counter() - replays_t0, 3)
    if replayer is not None:
        replayer.shutdown()
        for w in spares.values():  # the replays closed their own workers; the spares are left
            w.close()
    return results  # type: ignore[return-value]


def _replay_suspect(r: CaseResult) -> bool:
    """Is this result's case replayed alone (and its packed control run)?"""
    return r.failing and r.purpose != "probe" and r.verdict != "invalid-case"


def _replay(engine: str, case: Case, result: CaseResult, *, source, reruns, controls, worker) -> None:
    """Rerun a failing case alone in ``worker`` (a fresh process that has run nothing yet),
    then its packed control; update ``result``."""
    with worker as w:
        alone = w.run(engine, case, source=source, reruns=reruns)
        result.replay = alone.brief()
        if not alone.failing:
            if result.previous_case:
                result.replay["conclusion"] = (f"order-dependent: {result.verdict} after {result.previous_case} "
                                               "in one process, passes alone")
                result.message = (f"order-dependent: {result.verdict} when run after {result.previous_case}, "
                                  f"{alone.verdict} alone in a fresh process (stale cache or uninitialised "
                                  f"memory?); in sequence: {result.message}")
                result.verdict = "order-dependent"
            else:
                result.replay["conclusion"] = ("flaky: ran first in its process and still passed when "
                                               "replayed alone")
                result.message += f"; flaky: {alone.verdict} when replayed alone in a fresh process"
        else:
            result.replay["conclusion"] = "fails alone too"
        if not alone.failing:   # not a layout question: the case itself passes
            return
        control = packed_control(case) if controls else None
        if control is None:
            if controls:
                result.layout_control = {"conclusion": "no control: already packed BHSD"}
            return
        c = w.run(engine, control, source=None, reruns=reruns)
        result.layout_control = {**c.brief(), "conclusion": _control_conclusion(c)}
        if result.verdict != "order-dependent":
            result.message += f"; layout control: {result.layout_control['conclusion']}"

