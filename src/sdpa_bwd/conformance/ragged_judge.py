"""Run one varlen (ragged) case in this process and judge it, as ``judge.run_case`` does a dense one.

The same steps and verdicts: a probe's malformed offsets go to the engine's own offset check
(``Engine.ragged_offset_reasons``) and must be refused; otherwise the problem is validated, the engine may decline
(``ragged_not_supported_reasons``), the nine tensors are materialised in poisoned buffers (O and stats from the
per-sequence oracle, stats in the case's form), the engine's ``ragged_backward`` writes dQ, dK, dV, the guards are
checked, and each output is compared with the float64 ragged oracle within its tolerance class. The tolerance
classes and the magnitude floors are the dense ones, read per sequence: reductions run over a sequence's keys
(dQ) or queries (dK, dV), so the longest sequence sets the class, and each gradient's cancellation-free magnitude
is the largest over the sequences. An engine with a forward is checked on O and stats the same way (the padded
form's padding is no output: it is neither read nor judged).
"""

from __future__ import annotations

import math
import time
from types import SimpleNamespace
from typing import Optional

from ..backends.base import Engine
from ..problem import OUTPUTS, oracle, ragged_oracle
from ..problem.ragged import RaggedProblem
from .compare import check_tensor
from .outcome import (CaseResult, OracleReferences, _PhaseClock, _rerun, _sync, conclude, guard_messages,
                      record_error)
from .tensors import TORCH_DTYPE, check_outputs, is_poison, materialize, snapshot_inputs
from .tolerance import reduction_length, tolerance_class


def _as_dense(problem: RaggedProblem) -> SimpleNamespace:
    """What the tolerance classes read of a problem, with the longest sequences as S_q and S_kv."""
    return SimpleNamespace(dtype=problem.dtype, D_qk=problem.D_qk, D_v=problem.D_v, H_q=problem.H_q,
                           H_k=problem.H_k, H_v=problem.H_v, S_q=max(1, problem.max_seqlen_q),
                           S_kv=max(1, problem.max_seqlen_kv))


def _magnitudes(problem: RaggedProblem, t) -> dict:
    """``oracle.gradient_magnitudes`` per sequence, the largest over the sequences."""
    lse = ragged_oracle.stats_from_form(t.stats, problem)
    attrs = dict(scale=problem.effective_scale, left_bound=problem.left_bound, right_bound=problem.right_bound,
                 alignment=problem.alignment)
    seq = lambda x, tokens: x[tokens].permute(1, 0, 2).unsqueeze(0)  # noqa: E731
    out = dict.fromkeys(("dq", "dk", "dv", "delta", "exponent"), 0.0)
    for b in range(problem.B):
        rows, keys = problem.tokens(b)
        if rows.start == rows.stop or keys.start == keys.stop:
            continue
        m = oracle.gradient_magnitudes(seq(t.q, rows), seq(t.k, keys), seq(t.v, keys), seq(t.o, rows),
                                       seq(t.do, rows), lse[:, rows].unsqueeze(0), **attrs)
        out = {n: max(out[n], m[n]) for n in out}
    return out


def ragged_references(problem: RaggedProblem, t) -> OracleReferences:
    same_dtype = ragged_oracle.backward(t.q, t.k, t.v, t.o, t.do, t.stats, problem,
                                        compute_dtype=TORCH_DTYPE[problem.dtype])
    want = ragged_oracle.backward(t.q, t.k, t.v, t.o, t.do, t.stats, problem)
    return OracleReferences(want, same_dtype, _magnitudes(problem, t))


def run_ragged_case(engine: Engine, case, *, source: Optional[str] = None, reruns: int = 1) -> CaseResult:
    """Judge ``engine`` on the varlen ``case`` (``plan.ragged.RaggedCase``); reruns as ``judge.run_case``."""
    if reruns < 1:
        raise ValueError(f"reruns = {reruns}: the engine must run at least once")
    started = time.perf_counter()
    result = CaseResult(case.id, engine.name, "error", case.describe(), purpose=case.purpose, covers=case.covers,
                        repro=case.repro(engine.name, source), case=case.to_dict(),
                        deterministic_requested=case.deterministic)
    try:
        if case.purpose == "probe":
            reasons = engine.ragged_offset_reasons(case.cu_seqlens_q, case.cu_seqlens_kv, case.total_tokens)
            if reasons:
                result.verdict, result.reasons, result.message = "rejected", reasons, "refused: " + reasons[0]
            else:
                result.verdict = "rejection-accepted"
                result.message = (f"engine {engine.name} accepted offsets that must be refused "
                                  f"({case.expected_rejection}) - check cu_seqlens before launching")
            return result
        try:
            problem = case.to_problem()
        except ValueError as exc:
            result.verdict, result.message = "invalid-case", f"case does not validate: {exc}"
            return result
        reasons = engine.ragged_not_supported_reasons(problem)
        if reasons:
            result.verdict, result.reasons, result.message = "declined", reasons, reasons[0]
            return result
        _run_checks(engine, case, problem, result, reruns)
    except Exception as exc:  # the engine raised: record it, keep going
        record_error(result, exc)
    finally:
        result.seconds = time.perf_counter() - started
    return result


def _run_checks(engine: Engine, case, problem: RaggedProblem, result: CaseResult, reruns: int) -> None:
    device = engine.device()
    clock = _PhaseClock(device, result.phases)
    m = materialize(problem, seed=case.seed, device=device)
    t = m.tensors
    clock.lap("materialize")
    refs = ragged_references(problem, t)
    before = snapshot_inputs(m)
    clock.lap("oracle")
    engine.ragged_backward(problem, t)
    clock.lap("engine")
    result.runs = 1
    messages = guard_messages(check_outputs(m, before))
    dense = _as_dense(problem)
    for i, name in enumerate(OUTPUTS):
        cls = tolerance_class(dense, name, case.tolerance_class)
        result.tolerance_classes[name] = cls.name
        result.checks[name] = check_tensor(name, getattr(t, name), refs.want[i], refs.same_dtype[i], problem.dtype,
                                           cls.k, cls.floor_ulps, magnitude=refs.magnitudes[name],
                                           reduction=reduction_length(dense, name),
                                           exponent=refs.magnitudes["exponent"])
    clock.lap("judge")
    if reruns > 1:
        messages += _rerun(_RaggedRun(engine), problem, m, before, {}, result, reruns)
        clock.lap("reruns")
    if engine.capabilities.forward:
        messages += _check_forward(engine, case, problem, result)
        clock.lap("forward")
    conclude(result, messages, reruns, case.deterministic)


class _RaggedRun:
    """An engine seen by ``judge._rerun``, whose reruns call ``backward``: here its ragged backward."""

    def __init__(self, engine: Engine):
        self.engine = engine

    def backward(self, problem, t):
        return self.engine.ragged_backward(problem, t)

    def device(self) -> str:
        return self.engine.device()


def _check_forward(engine: Engine, case, problem: RaggedProblem, result: CaseResult) -> list[str]:
    m = materialize(problem, seed=case.seed, device=engine.device(), forward=False)
    t = m.tensors
    want_o, want_stats = ragged_oracle.forward(t.q, t.k, t.v, problem)
    ref_o, ref_stats = ragged_oracle.forward(t.q, t.k, t.v, problem, compute_dtype=TORCH_DTYPE[problem.dtype])
    engine.ragged_forward(problem, t)
    _sync(engine.device())
    got_stats = ragged_oracle.stats_from_form(t.stats, problem)
    want_stats, ref_stats = (ragged_oracle.stats_from_form(s, problem) for s in (want_stats, ref_stats))
    messages = []
    for name, got in (("o", t.o), ("stats", got_stats)):
        count = int(is_poison(got, problem.tensor(name).dtype).sum())
        if count:
            messages.append(f"forward {name}: {count} logical elements never written")
    dense = _as_dense(problem)
    cls = tolerance_class(dense, "o", case.tolerance_class)
    result.tolerance_classes["o"] = cls.name
    result.checks["o"] = check_tensor("o", t.o, want_o, ref_o, problem.dtype, cls.k,
                                      cls.floor_for(reduction_length(dense, "o")))
    result.checks["stats"] = check_tensor("stats", got_stats, want_stats, ref_stats.float(), "float32", 2.0,
                                          8.0 * math.sqrt(dense.S_kv))
    return messages


__all__ = ["run_ragged_case", "ragged_references"]
