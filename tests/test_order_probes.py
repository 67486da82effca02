"""The order probes (issue 56): back-to-back quick cases that differ in one tensor's strides, the values
or the dtype only; the chunks keep each group in one worker, their failures are always replayed, and a
plan cached on dims alone (the seeded ``stale-plan-cache``) is caught by every tensor's group."""

import pytest

from sdpa_bwd.conformance import defects
from sdpa_bwd.conformance.defects import DEFECTS
from sdpa_bwd.conformance.plan import load_level
from sdpa_bwd.conformance.plan.order_probes import TENSORS9, is_order_probe
from sdpa_bwd.conformance.runner import _always_replayed, run_case, run_isolated
from sdpa_bwd.conformance.schedule import chunks
from sdpa_bwd.conformance.worker import IMPORTS_ENV
from sdpa_bwd.problem.layout import Storage

_DIMS = ("B", "H_q", "H_k", "H_v", "S_q", "S_kv", "D_qk", "D_v")


def _dims(c):
    return tuple(getattr(c, k) for k in _DIMS)


@pytest.fixture(scope="module")
def quick():
    return load_level("quick")


def _groups(quick) -> dict[str, list]:
    """What varies ("q" ... "dv", "values", "dtype") -> the group's cases in run order."""
    out: dict[str, list] = {}
    for c in quick:
        for cov in c.covers:
            if cov.startswith("order-probe:"):
                out.setdefault(cov.split(":", 1)[1], []).append(c)
    return out


def _differences(a, b) -> set[str]:
    """The fields of a case (and tensors, for storage) in which ``b`` differs from ``a``."""
    diff = {f for f in ("dtype", "seed", "stats_rank", "strides", "dims", "dtypes", "buffers", "scale",
                        "left_bound", "right_bound", "alignment", "deterministic", *_DIMS)
            if getattr(a, f) != getattr(b, f)}
    names = {n for n, _ in a.storage} | {n for n, _ in b.storage}
    diff |= {f"storage:{n}" for n in names if a.storage_of(n) != b.storage_of(n)}
    return diff


def test_every_tensor_has_a_group_that_differs_in_its_strides_only(quick):
    groups = _groups(quick)
    assert set(groups) == set(TENSORS9) | {"values", "dtype"}, sorted(groups)
    ids = [c.id for c in quick]
    for what, cases in groups.items():
        start = ids.index(cases[0].id)
        assert ids[start:start + len(cases)] == [c.id for c in cases], \
            f"group {what!r} is not consecutive in the quick level: the runner would put other cases between"
        assert all(c.level == "quick" and c.purpose == "regression" for c in cases), what
        for a, b in zip(cases, cases[1:]):
            want = {"values": {"seed"}, "dtype": {"dtype"}}.get(what, {f"storage:{what}"})
            assert _differences(a, b) == want, (f"{a.id} -> {b.id} differ in {sorted(_differences(a, b))}, "
                                                f"not only in {sorted(want)}: an order effect would be ambiguous")
    for t in TENSORS9:
        kinds = [_storage_kind(c, t) for c in groups[t]]
        assert kinds == ["packed", "other order", "packed", "padded"], (t, kinds)


def _storage_kind(case, tensor) -> str:
    s = case.storage_of(tensor)
    if s == Storage():
        return "packed"
    return "padded" if s.pad else "other order"


def test_each_group_has_dims_no_other_quick_case_has(quick):
    """A cache keyed on dims must be filled by the group's first case, in whatever process it runs."""
    groups = _groups(quick)
    for what, cases in groups.items():
        dims = _dims(cases[0])
        others = [c.id for c in quick if _dims(c) == dims and c not in cases]
        assert not others, f"group {what!r} shares its dims {dims} with {others}: pick other sizes"


@pytest.mark.parametrize("workers", [2, 8, 64])
def test_chunks_never_split_a_group(quick, workers):
    cases = list(quick)
    parts = chunks(cases, workers, [1.0] * len(cases))
    starts = {p.start for p in parts}
    for what, group in _groups(quick).items():
        inside = {cases.index(c) for c in group[1:]}
        assert not inside & starts, (f"a chunk starts inside the {what!r} group at {sorted(inside & starts)}: "
                                     "its cases could run in two workers and the order effect would not show")


def test_order_probes_are_always_replayed(quick):
    probes = [c for c in quick if is_order_probe(c)]
    assert probes and all(_always_replayed(c) for c in probes)
    assert not any(_always_replayed(c) for c in quick if not is_order_probe(c))


@pytest.mark.parametrize("tensor", TENSORS9)
def test_a_plan_cached_on_dims_fails_the_other_storage_steps(quick, tensor):
    """In one process: the packed steps pass (they match the plan the first call cached), the other order
    and the padded rows fail; the untouched engine passes all four."""
    group = _groups(quick)[tensor]
    defects.StalePlanCache.reset()
    stale = DEFECTS["stale-plan-cache"]()
    got = [run_case(stale, c).verdict for c in group]
    assert got == ["passed", "failed", "passed", "failed"], (tensor, [c.id for c in group], got)
    real = DEFECTS["stale-plan-cache"].__mro__[1]()   # DefectiveTriton: the engine untouched
    assert [run_case(real, c).verdict for c in group] == ["passed"] * 4


def test_the_isolated_runner_calls_them_order_dependent_beyond_the_replay_limit(quick, monkeypatch):
    """Through worker processes with replays: each failing step of dQ's group fails after the step before
    it and passes alone in a fresh process, so it is order-dependent and names that step, even with
    --replay-limit 0 and --replay-budget 0 (order probes are always replayed)."""
    monkeypatch.setenv("SDPA_BWD_DEFECTS", "1")
    monkeypatch.setenv(IMPORTS_ENV, "sdpa_bwd.conformance.defects")
    group = _groups(quick)["dq"]
    results = run_isolated("triton-defect:stale-plan-cache", group, progress=False, replay_limit=0,
                           replay_budget=0.0)
    verdicts = [(r.case_id, r.verdict, r.previous_case) for r in results]
    assert [v for _, v, _ in verdicts] == ["passed", "order-dependent", "passed", "order-dependent"], verdicts
    for i in (1, 3):
        assert results[i].previous_case == group[i - 1].id, verdicts
        assert results[i].replay["verdict"] == "passed" and "order-dependent" in results[i].replay["conclusion"]


def test_a_workspace_kept_per_shape_fails_the_values_step(quick):
    """The values pair: the seeded stale-state variant (stats kept per shape, never refreshed) passes the
    first and fails the second, whose strides are the same and whose values are new."""
    group = _groups(quick)["values"]
    defects.StaleState.reset()
    stale = DEFECTS["stale-state"]()
    got = [run_case(stale, c).verdict for c in group]
    assert got == ["passed", "failed"], ([c.id for c in group], got)
