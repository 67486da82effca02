"""The generated test plan: determinism, drift, legality, the pairwise proof,
probes, regressions, the bundle loader's refusals, levels and exhaustive mode."""

from __future__ import annotations

import json
from collections import Counter
from dataclasses import replace
from pathlib import Path

import pytest

from sdpa_bwd.problem.cases import Case
from sdpa_bwd.conformance.plan import LEVELS, load_level
from sdpa_bwd.conformance.plan import generate
from sdpa_bwd.conformance.plan.bundles import BundleError, load_bundle, parse_bundle
from sdpa_bwd.conformance.plan.cost import LIMITS, case_cost, fits, level_totals
from sdpa_bwd.conformance.plan.legality import RULES, pair_rule, written_violations
from sdpa_bwd.conformance.plan.pairwise import prove, required_pairs
from sdpa_bwd.conformance.plan.regressions import REGRESSION_CLASSES


@pytest.fixture(scope="module")
def plan() -> list[Case]:
    return generate.build_plan()


@pytest.fixture(scope="module")
def written() -> list[Case]:
    return load_level("full")


def test_generator_is_deterministic(plan):
    again = generate.build_plan()
    assert [c.to_dict() for c in again] == [c.to_dict() for c in plan]
    assert generate.rendered_bundles(again) == generate.rendered_bundles(plan)
    # Seeds depend on the id alone, so adding a case never reshuffles the others' values.
    assert all(c.seed == generate.stable_seed(c.id) for c in plan if c.id.startswith("pair-"))


def test_bundles_on_disk_match_the_generator():
    assert generate.check_bundles() == []


def test_check_detects_drift(tmp_path):
    for name, text in generate.rendered_bundles().items():
        (tmp_path / name).write_text(text, encoding="utf-8")
    assert generate.check_bundles(tmp_path) == []
    path = tmp_path / "standard.json"
    text = path.read_text(encoding="utf-8")
    first = next(line for line in text.splitlines() if line.startswith("  {"))
    edited = json.loads(first.rstrip(","))
    edited["S_q"] = edited.get("S_q", 32) + 1           # a hand edit of one case
    path.write_text(text.replace(first, "  " + json.dumps(edited, sort_keys=True), 1), encoding="utf-8")
    problems = generate.check_bundles(tmp_path)
    assert len(problems) == 1 and "standard.json" in problems[0] and "drifted" in problems[0]
    (tmp_path / "quick.json").unlink()
    (tmp_path / "mine.json").write_text("{}", encoding="utf-8")
    problems = generate.check_bundles(tmp_path)
    assert any("quick.json: missing" in p for p in problems)
    assert any("mine.json: not written by the generator" in p for p in problems)


def test_plan_size_and_levels(written):
    counts = Counter(c.level for c in written)
    assert len(written) >= 500
    assert all(counts[level] > 0 for level in LEVELS)
    # Levels are cumulative: each includes every level below it, in order.
    sizes = [len(load_level(level)) for level in LEVELS]
    assert sizes == sorted(sizes) and sizes[-1] == len(written)
    quick = load_level("quick")
    assert load_level("standard")[: len(quick)] == quick
    assert len({c.id for c in written}) == len(written)


def test_every_case_fits_its_level_and_budgets_hold(written):
    for case in written:
        assert fits(case_cost(case), case.level), case.id
        # the cost model put it at the lowest level it fits at or above its request:
        if case.level != "quick" and case.purpose == "probe":
            pytest.fail(f"{case.id}: probes cost nothing and belong at quick")
    for level, totals in level_totals(written).items():
        assert totals["within_budget"], (level, totals)
    # The quick level must stay small: the CI machine runs it on every commit.
    assert all(case_cost(c).bytes <= LIMITS["quick"].case_bytes for c in load_level("quick"))


def test_full_has_element_offsets_past_2_31(written):
    big = [c for c in written if case_cost(c).max_offset >= 1 << 31]
    assert len(big) >= 10 and all(c.level == "full" for c in big)
    assert all(case_cost(c).bytes <= LIMITS["full"].case_bytes for c in big)
    covered = {cov for c in big for cov in c.covers}
    assert "regression:index-overflow-2-31" in covered


def test_legality_violations_are_zero(written):
    assert written_violations(written) == []


def test_legality_catches_a_broken_case(written):
    claim = next(c for c in written if c.id == "pair-000")
    from sdpa_bwd.conformance.plan import axes

    bad = replace(claim, id="bad-o-broadcast", storage=dict(claim.storage) | {"o": axes.STORAGE["zero"]})
    found = written_violations([bad])
    assert len(found) == 1 and "o-is-the-forward-of-each-row" in found[0]
    probe = next(c for c in written if c.purpose == "probe")
    valid_probe = replace(probe, dims=(), strides=(), dtypes=(), buffers=(), H_k=None, H_v=None, dtype="float16",
                          left_bound=None, right_bound=None, scale=None, alignment="top_left", B=1,
                          storage=())
    assert "a probe that validates" in written_violations([valid_probe])[0]


def test_pairwise_proof_is_complete(written):
    proof = prove(written)
    assert proof.complete, proof.summary()
    assert proof.covered == proof.required > 8000
    illegal = sum(1 for *_, rule in required_pairs() if rule is not None)
    assert proof.illegal == illegal and illegal > 0
    assert f"all-pairs {proof.required} of {proof.required}" in proof.summary()


def test_pairwise_proof_reads_what_cases_are(written):
    """Drop the cases realising one pair, and the proof names that pair missing."""
    def realises(case):
        from sdpa_bwd.conformance.plan.axes import assignment_of

        v = assignment_of(case)
        return "zero" in v.get("q", ()) and "float32" in v.get("dtype", ())

    kept = [c for c in written if not realises(c)]
    proof = prove(kept)
    assert ("dtype", "float32", "q", "zero") in proof.missing
    assert "MISSING" in proof.summary()
    # Full-level cases do not count: the proof is about nightly and below.
    promoted = [replace(c, level="full") if realises(c) else c for c in written]
    assert ("dtype", "float32", "q", "zero") in prove(promoted).missing


def test_pair_rule_names_illegal_pairs():
    assert pair_rule("dq", "zero", "dtype", "float16").name == "output-dq-not-broadcast"
    assert pair_rule("mask", "empty-rows", "seq", "17/17").name == "empty-rows-need-sq-above-skv"
    assert pair_rule("mask", "empty-rows", "seq", "65/33") is None
    assert all(r.kind in ("ill-formed", "inexpressible") and r.why for r in RULES)


def test_probes_are_rejected_with_their_expected_rejection(written):
    probes = [c for c in written if c.purpose == "probe"]
    assert len(probes) >= 20
    for case in probes:
        assert case.expected_rejection, case.id
        with pytest.raises(ValueError) as info:
            case.to_problem().validate()
        assert case.expected_rejection.lower() in str(info.value).lower(), (case.id, str(info.value))
    # Probes cover distinct rules: overlaps, dims, heads, stats, dtypes, bounds, scale.
    kinds = {cov for c in probes for cov in c.covers}
    assert len(kinds) >= 12


def test_every_regression_class_has_a_case(written):
    present = Counter(cov.split(":", 1)[1] for c in written for cov in c.covers if cov.startswith("regression:"))
    assert set(REGRESSION_CLASSES) <= set(present), set(REGRESSION_CLASSES) - set(present)
    for case in written:
        if case.purpose == "regression":
            cls = case.covers[0].split(":", 1)[1]
            assert case.id.startswith(f"reg-{cls}"), case.id   # named after what it guards
    # The two stale-state cases run back to back, differing only in dQ's storage.
    ids = [c.id for c in written]
    i = ids.index("reg-stale-state-between-cases-a-packed")
    assert ids[i + 1] == "reg-stale-state-between-cases-b-dq-padded"


def test_each_case_carries_id_purpose_covers_seed_and_repro(written):
    for case in written:
        assert case.covers and case.level in LEVELS
        assert case.repro("triton") == f"sdpa-bwd run --engine triton --level {case.level} --case {case.id}"


def test_storage_varies_per_tensor_independently(written):
    from sdpa_bwd.conformance.plan.axes import STORAGE, TENSOR_AXES

    pairs = {(c.storage_of("o"), c.storage_of("do")) for c in written if c.level != "full"}
    assert any(o != do for o, do in pairs)
    for t in TENSOR_AXES:
        seen = {c.storage_of(t) for c in written if c.level != "full"}
        legal = {s for v, s in STORAGE.items() if not (v == "zero" and t in ("o", "dq", "dk", "dv"))}
        assert legal <= seen, (t, legal - seen)


# -- the bundle loader ------------------------------------------------------------------

def _bundle_text(level="quick", cases=None):
    cases = [c for c in load_level(level) if c.purpose != "probe"][:3] if cases is None else cases
    return generate.render_bundle(generate.bundle_dict(level, cases))


def test_loader_accepts_a_good_bundle():
    level, cases = parse_bundle(_bundle_text())
    assert level == "quick" and len(cases) == 3


@pytest.mark.parametrize("mutate, phrase", [
    (lambda d: d.pop("cases"), "'cases' is a required property"),
    (lambda d: d["cases"][0].update(S_q="many"), "case #0 field S_q"),
    (lambda d: d["cases"][1].update(colour="red"), "Additional properties"),
    (lambda d: d["cases"][0].update(storage={"q": {"order": "bhxd"}}), "case #0 field storage/q/order"),
    (lambda d: d["cases"][0].update(storage={"qq": {"order": "bhsd"}}), "case #0 field storage"),
    (lambda d: d["cases"][0].update(purpose="probe"), "expected_rejection"),
    (lambda d: d.update(count=99), "header says 99 cases"),
    (lambda d: d["cases"][2].update(level="nightly"), "says level 'nightly'"),
    (lambda d: d["cases"][2].update(id=d["cases"][0]["id"]), "appears twice"),
])
def test_loader_refuses_a_malformed_bundle_whole(mutate, phrase):
    data = json.loads(_bundle_text())
    mutate(data)
    with pytest.raises(BundleError) as info:
        parse_bundle(json.dumps(data), source="bad.json")
    assert phrase in str(info.value) and "bad.json" in str(info.value)


def test_builtin_schema_check_agrees_with_jsonschema():
    """Without jsonschema (the GPU box runs from a source tree) the same schema file is still enforced."""
    from sdpa_bwd.conformance.plan.bundles import _mini_errors, _schema, schema_errors

    schema = _schema()
    for level in LEVELS:
        data = json.loads((generate.BUNDLE_DIR / f"{level}.json").read_text(encoding="utf-8"))
        assert _mini_errors(schema, data, schema, []) == [] == schema_errors(data)
    mutations = [lambda d: d.pop("cases"), lambda d: d["cases"][0].update(S_q="many"),
                 lambda d: d["cases"][1].update(colour="red"),
                 lambda d: d["cases"][0].update(storage={"q": {"order": "bhxd"}}),
                 lambda d: d["cases"][0].update(purpose="probe"), lambda d: d.update(level="weekly"),
                 lambda d: d["cases"][0].update(expected_rejection="x"),
                 lambda d: d["cases"][0].update(storage={"q": {"order": "bhsd", "zero": ["b", "b"]}})]
    for mutate in mutations:
        data = json.loads(_bundle_text())
        mutate(data)
        assert _mini_errors(schema, data, schema, []) and schema_errors(data)


def test_loader_refuses_non_json_and_pickle(tmp_path):
    import pickle

    path = tmp_path / "quick.json"
    path.write_bytes(pickle.dumps({"cases": []}))
    with pytest.raises(BundleError, match="not JSON"):
        load_bundle(path)


def test_loader_refuses_an_over_budget_bundle():
    big = Case("too-big-for-quick", B=4, H_q=8, S_q=512, D_qk=128, level="quick", covers=("test",))
    text = _bundle_text(cases=load_level("quick")[:2] + [big])
    with pytest.raises(BundleError) as info:
        parse_bundle(text, source="quick.json")
    assert "too-big-for-quick" in str(info.value) and "over the memory budget" in str(info.value)
    # A caller's own budget is the one applied: the full level on a small machine is refused.
    full = (generate.BUNDLE_DIR / "full.json").read_text(encoding="utf-8")
    with pytest.raises(BundleError, match="over the memory budget of 256.0 MiB"):
        parse_bundle(full, source="full.json", memory_budget=256 << 20)


def test_unknown_level_is_refused():
    with pytest.raises(ValueError, match="no level 'weekly'"):
        load_level("weekly")


# -- exhaustive mode -------------------------------------------------------------------

def test_exhaustive_enumerates_a_declared_subspace():
    heads = generate.exhaustive("heads")
    expected = sum(sum(1 for d in range(1, h + 1) if h % d == 0) ** 2 for h in range(1, 9))
    assert len(heads) == expected == len({c.id for c in heads})
    assert {(c.H_q, c.H_k, c.H_v) for c in heads} >= {(8, 8, 1), (6, 2, 3), (1, 1, 1)}
    for case in heads:
        case.to_problem().validate()
    bands = generate.exhaustive("bands")
    assert len(bands) == len({c.id for c in bands})
    # every (S_q, S_kv, alignment, L, R) on the declared grid, including the empty band and no band
    keys = {(c.S_q, c.S_kv, c.alignment, c.left_bound, c.right_bound) for c in bands}
    assert (6, 1, "top_left", 1, 0) in keys and (3, 5, "bottom_right", None, None) in keys
    with pytest.raises(ValueError, match="declared: orders, bands, heads, small-axes"):
        generate.exhaustive("everything")


def test_plan_commands(capsys, tmp_path):
    from sdpa_bwd.cli import main

    assert main(["plan", "--check"]) == 0
    assert main(["plan", "--report"]) == 0
    out = capsys.readouterr().out
    assert "all-pairs" in out and "legality violations: 0" in out and "MISSING" not in out
    path = tmp_path / "heads.json"
    assert main(["plan", "--exhaustive", "heads", "--out", str(path)]) == 0
    from sdpa_bwd.problem.cases import load_cases

    assert len(load_cases(path)) == len(generate.exhaustive("heads"))


def test_run_level_quick_with_the_reference_engine(capsys):
    from sdpa_bwd.cli import main

    assert main(["run", "--engine", "reference", "--level", "quick", "--no-progress"]) == 0
