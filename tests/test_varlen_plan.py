"""The varlen level (``conformance.plan.ragged``): its coverage, its probes, a seeded side-buffer defect it must
catch, and the level itself on our engine's two doors and the reference, as ``sdpa-bwd run --level varlen`` runs it
(issue 53)."""

import json
import subprocess
import sys

import pytest
import torch

from sdpa_bwd.backends.reference import ReferenceEngine
from sdpa_bwd.conformance.judge import FAILING, run_case
from sdpa_bwd.conformance.plan import load_level
from sdpa_bwd.conformance.plan.ragged import (AXES, RaggedCase, case_from_dict, claim_cases, probe_cases,
                                              regression_cases, uncovered_pairs, varlen_cases)
from sdpa_bwd.problem import oracle, ragged_oracle


def test_the_claims_cover_every_pair_of_axis_values():
    assert not uncovered_pairs(claim_cases())
    assert uncovered_pairs(claim_cases()[:-1]), "the last claim case should be needed (the covering is greedy)"
    for axis, values in AXES.items():
        for value in values:
            assert any(f"{axis}:{value}" in c.covers for c in claim_cases()), (axis, value)


def test_every_case_validates_or_is_a_probe_the_model_rejects_and_round_trips():
    assert load_level("varlen") == varlen_cases()
    for case in varlen_cases():
        assert case_from_dict(case.to_dict()) == case
        if case.purpose == "probe":
            with pytest.raises(ValueError):
                case.to_problem()
        else:
            problem = case.to_problem()
            assert problem.T_q == sum(case.seqlens_q)


def test_the_regressions_name_the_defect_classes_of_the_issue():
    covered = {c.split(":", 1)[1] for case in regression_cases() for c in case.covers}
    assert {"side-buffer-base", "last-tail-tile", "first-offset-nonzero"} <= covered
    assert any(case.token_offset for case in regression_cases())


class _StatsFromDenseStride(ReferenceEngine):
    """The seed's defect class on packed sequences: sequence b's stats read at b * max_S_q, the base a dense
    (B, H, max_S) layout would have, instead of at its cumulative offset."""

    name = "seeded-stats-dense-stride"

    def ragged_backward(self, problem, t):
        lse = ragged_oracle.stats_from_form(t.stats, problem)
        width = problem.max_seqlen_q
        attrs = dict(scale=problem.effective_scale, left_bound=problem.left_bound, right_bound=problem.right_bound,
                     alignment=problem.alignment)
        seq = lambda x, s: x[s].double().permute(1, 0, 2).unsqueeze(0)  # noqa: E731
        for b in range(problem.B):
            rows, keys = problem.tokens(b)
            n = rows.stop - rows.start
            if n == 0 or keys.start == keys.stop:
                t.dq[rows] = 0
                t.dk[keys] = 0
                t.dv[keys] = 0
                continue
            base = min(b * width, problem.T_q - n)  # the wrong base (kept inside the buffer: no fault, wrong rows)
            dq, dk, dv, _ = oracle.backward(seq(t.q, rows), seq(t.k, keys), seq(t.v, keys), seq(t.o, rows),
                                            seq(t.do, rows), lse[:, base:base + n].unsqueeze(0).double(), **attrs)
            t.dq[rows], t.dk[keys], t.dv[keys] = (g[0].permute(1, 0, 2) for g in (dq, dk, dv))


def test_the_side_buffer_regression_catches_stats_taken_from_a_dense_stride():
    engine = _StatsFromDenseStride()
    verdicts = {c.id: run_case(engine, c).verdict for c in regression_cases()}
    assert verdicts["varlen-regression-side-buffer-base"] in FAILING, verdicts
    assert verdicts["varlen-regression-side-buffer-base-padded"] in FAILING, verdicts
    # and the untouched engine passes the same cases: the failure is the defect's
    assert all(run_case(ReferenceEngine(), c).verdict == "passed" for c in regression_cases())


def test_an_engine_without_a_ragged_path_declines_and_refuses_the_probes():
    from sdpa_bwd.backends import get_engine

    engine = get_engine("torch-math")
    claim, probe = claim_cases()[0], probe_cases()[0]
    assert run_case(engine, claim).verdict == "declined"
    assert "no packed variable-length path" in run_case(engine, claim).message
    assert run_case(engine, probe).verdict == "rejected"


def test_a_probe_an_engine_accepts_is_a_failure():
    class Lenient(ReferenceEngine):
        name = "lenient"

        def ragged_offset_reasons(self, cu_seqlens_q, cu_seqlens_kv, total_tokens):
            return []

    result = run_case(Lenient(), probe_cases()[0])
    assert result.verdict == "rejection-accepted" and result.verdict in FAILING


@pytest.mark.slow
@pytest.mark.xdist_group("varlen-level")
def test_the_varlen_level_passes_on_our_engine_and_the_reference(tmp_path):
    """``sdpa-bwd run --level varlen`` as a user runs it (workers, reruns, the forward checks), on the launcher's
    door, the public API's and the reference; every case passes or, for the probes, is refused."""
    report = tmp_path / "varlen.json"
    proc = subprocess.run([sys.executable, "-m", "sdpa_bwd.cli", "run", "--level", "varlen", "--engine", "triton",
                           "--engine", "triton-api", "--engine", "reference", "--no-progress", "--json",
                           str(report)], capture_output=True, text=True, timeout=1500)
    assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-3000:]
    results = json.loads(report.read_text())["results"]
    assert len(results) == 3 * len(varlen_cases())
    bad = [f"{r['engine']} {r['case']}: {r['verdict']} {r['message'][:200]}" for r in results
           if r["verdict"] not in (("rejected",) if r["purpose"] == "probe" else ("passed",))]
    assert not bad, "\n".join(bad)


def test_a_varlen_case_repro_points_at_the_runner():
    case = varlen_cases()[0]
    assert case.repro("triton") == f"sdpa-bwd run --engine triton --level varlen --case {case.id}"
    assert isinstance(case_from_dict({"kind": "ragged", "id": "x", "seqlens_q": [3]}), RaggedCase)


def test_the_njt_adapter_is_right_where_every_tensor_starts_at_its_storage():
    """``torch-njt`` on the plain case with fresh tensors (storage offset 0) matches the oracle: so where the level
    finds it wrong, the view offsets the level's tensors have are what PyTorch mishandles, not the adapter."""
    from sdpa_bwd.backends import get_engine
    from sdpa_bwd.backends.base import Tensors

    problem = claim_cases()[0].to_problem()
    gen = torch.Generator().manual_seed(7)
    q, k, v = (torch.randn(problem.tensor(n).dims, generator=gen) for n in ("q", "k", "v"))
    do = torch.randn(problem.tensor("do").dims, generator=gen)
    o, stats = ragged_oracle.forward(q, k, v, problem)
    t = Tensors(q=q, k=k, v=v, o=o.float(), do=do, stats=stats.float(), dq=torch.empty_like(q),
                dk=torch.empty_like(k), dv=torch.empty_like(v))
    get_engine("torch-njt").ragged_backward(problem, t)
    for got, want in zip((t.dq, t.dk, t.dv), ragged_oracle.backward(q, k, v, o, do, stats, problem)):
        assert (got.double() - want).abs().max().item() < 1e-4


def test_the_njt_adapter_declines_dense_problems_and_bands_and_asks_pytorch_for_the_rest():
    from sdpa_bwd.backends import get_engine
    from sdpa_bwd.problem import make_problem

    engine = get_engine("torch-njt")
    assert "packed variable-length problems only" in engine.not_supported_reasons(
        make_problem(B=1, H_q=2, S_q=8, D_qk=16))[0]
    band = next(c for c in claim_cases() if c.left_bound is not None).to_problem()
    assert any("takes is_causal only" in r for r in engine.ragged_not_supported_reasons(band))
    assert engine.ragged_not_supported_reasons(claim_cases()[0].to_problem()) == []
