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
from typing import Optional

import torch

from ..problem import oracle
from ..problem.cases import Case
from .compare import TensorCheck, check_tensor
from .outcome import (FAILING, PASSING, CaseResult, OracleReferences, _PhaseClock, _rerun,  # noqa: F401 (re-exported)
                      _sync, conclude, guard_messages, record_error)
from ..engine.compiles import CompileWatch
from ..backends import Engine
from ..problem import OUTPUTS
from .tensors import TORCH_DTYPE, check_outputs, is_poison, layout_twin, materialize, snapshot_inputs
from .tolerance import reduction_length, tolerance_class

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


def run_case(engine: Engine, case: Case, *, source: Optional[str] = None, reruns: int = 1) -> CaseResult:
    """Judge ``engine`` on ``case``; with ``reruns`` > 1 also check that reruns are bitwise identical."""
    if getattr(case, "ragged", False):  # a varlen case (plan.ragged.RaggedCase): its own steps, same verdicts
        from .ragged_judge import run_ragged_case

        with CompileWatch() as watch:  # which Triton kernels it compiled or loaded, as a dense case records
            result = run_ragged_case(engine, case, source=source, reruns=reruns)
        result.compiles = watch.summary()
        return result
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
        record_error(result, exc)
    finally:
        result.seconds = time.perf_counter() - started
    return result


# A case's tensors are allocated twice for a moment while its kernels compile ahead (``_compile_ahead``); above
# this many bytes the case compiles as it launches instead (the quick level's cases all lie under it).
AHEAD_MAX_BYTES = 512 << 20


def _compile_ahead(engine: Engine, case: Case, problem, device: str) -> None:
    """On a GPU, the case's kernels compiled side by side before it runs (``Engine.compile_ahead``), on a twin
    of its tensors that is freed before the case's own are made. An engine that raises here raises again in the
    case, where it is judged."""
    if type(engine).compile_ahead is Engine.compile_ahead:
        return
    from .plan.cost import case_cost

    if case_cost(case).bytes > AHEAD_MAX_BYTES:
        return
    try:
        engine.compile_ahead(problem, layout_twin(problem, device))
    except Exception:  # noqa: BLE001 - the case's own run meets the same and records it
        pass


def _run_checks(engine: Engine, case: Case, problem, result: CaseResult, reruns: int = 1) -> None:
    device = engine.device()
    attrs = dict(scale=problem.effective_scale, left_bound=problem.left_bound,
                 right_bound=problem.right_bound, alignment=problem.alignment)
    clock = _PhaseClock(device, result.phases)
    if device.startswith("cuda"):
        _compile_ahead(engine, case, problem, device)
        clock.lap("compile_ahead")
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
    conclude(result, messages, reruns, case.deterministic)


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
