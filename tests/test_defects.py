"""The seeded defects: the quick level catches every one, and ``diagnose`` names
each one's class first.

CI (2 cores, kernels under the Triton interpreter) runs, for each variant, the
quick-level case pinned below (its own class's regression case where that one
catches it) and a full diagnosis of it, and the control that the untouched
engine passes the pinned cases. The exhaustive sweep - every variant over
every quick case, then a diagnosis of its first failure with the fresh-process
replay on - is marked ``slow`` and runs only with ``SDPA_BWD_SLOW=1``
(docs/diagnose.md has the sweep's table and times).
"""

import os

import pytest

from sdpa_bwd.conformance import defects
from sdpa_bwd.conformance.defects import DEFECTS
from sdpa_bwd.conformance.diagnose import diagnose
from sdpa_bwd.backends import engine_names, get_engine
from sdpa_bwd.conformance.runner import run_case

plan = pytest.importorskip("sdpa_bwd.conformance.plan")

# variant -> (the quick case that must catch it, cases to run before it in the same process)
PINNED = {
    "lse-base-from-layout": ("reg-side-buffer-base-from-batch-stride-sbhd", ()),
    "dq-accum-batch-term": ("reg-dq-accumulator-batch-term", ()),
    "head-dim-stride-ignored": ("reg-head-dim-stride-honoured-q-dq", ()),
    "short-rows-cut": ("reg-short-rows-length-one-seq-stride-1", ()),
    "odd-stride-4byte": ("reg-odd-strides-4-byte-records-seq-stride-d-plus-1", ()),
    "stats-strides-ignored": ("reg-stats-strides-honoured-head-stride-padded", ()),
    "stats-batch-head-swapped": ("reg-stats-batch-head-strides-swapped", ()),
    "v-with-k-heads": ("reg-fewer-v-heads-than-k", ()),
    "aliased-outputs": ("reg-aliased-outputs-fused-dqkv", ()),
    "do-with-o-strides": ("reg-do-strides-unlike-o", ()),
    # PyTorch's memory-efficient backward operator's O stride (docs/findings/ 2): O packed BHSD, H 2.
    "o-read-as-bshd": ("reg-stale-state-between-cases-o-1-packed", ()),
    "dq-with-q-strides": ("reg-dq-strides-unlike-q", ()),
    "non-positive-scale": ("reg-non-positive-scale-zero", ()),
    "low-precision-accumulator": ("reg-low-precision-accumulator-fp16-dv-1024-rows", ()),
    "unwritten-tail-tile": ("reg-unwritten-tail-tile", ()),
    "wrong-causal-alignment": ("reg-causal-alignment-top-left-sq-lt-skv", ()),
    "stale-state": ("reg-stale-state-between-cases-c-new-values",
                    ("reg-stale-state-between-cases-a-packed", "reg-stale-state-between-cases-b-dq-padded")),
    # A plan cached on dims and dtype: dQ's group of the order probes, packed first, then dQ in BSHD.
    "stale-plan-cache": ("reg-stale-state-between-cases-dq-2-bshd", ("reg-stale-state-between-cases-dq-1-packed",)),
}


def _reset_all() -> None:
    """Forget the state the stale-state variants keep between calls (class-level, shared by instances)."""
    for cls in DEFECTS.values():
        cls.reset()


@pytest.fixture(scope="module")
def quick():
    return {c.id: c for c in plan.load_level("quick")}


def test_every_class_has_a_variant_and_a_pinned_case():
    assert set(PINNED) == set(DEFECTS)


def test_variants_are_not_reachable_by_default():
    assert not any(n.startswith(defects.PREFIX) for n in engine_names())
    with pytest.raises(ValueError, match="no engine named 'triton-defect:stale-state'"):
        get_engine("triton-defect:stale-state")


def test_the_debug_switch_registers_them_by_name():
    try:
        names = defects.register_defects()
        assert len(names) == len(DEFECTS)
        assert isinstance(get_engine("triton-defect:aliased-outputs"), DEFECTS["aliased-outputs"])
    finally:
        defects.unregister_defects()
    assert not any(n.startswith(defects.PREFIX) for n in engine_names())


SLOW = pytest.mark.skipif(os.environ.get("SDPA_BWD_SLOW") != "1", reason="exhaustive sweep: set SDPA_BWD_SLOW=1")


def test_the_real_engine_passes_the_pinned_cases(quick):
    """Without this control a variant's failure would prove nothing."""
    engine = DEFECTS["stale-state"].__mro__[1]()  # DefectiveTriton: the engine, untouched, without forward check
    ids = dict.fromkeys(i for case, before in PINNED.values() for i in (*before, case))
    verdicts = {i: run_case(engine, quick[i]).verdict for i in ids}
    assert set(verdicts.values()) == {"passed"}, verdicts


@pytest.mark.parametrize("defect", list(PINNED))
def test_quick_catches_the_variant_and_diagnose_names_its_class(defect, quick):
    case_id, before = PINNED[defect]
    _reset_all()
    engine = DEFECTS[defect]()
    expected = engine.diagnosed_as
    for i in before:
        assert run_case(engine, quick[i]).verdict == "passed"
    result = run_case(engine, quick[case_id])
    assert result.verdict == "failed", result.message
    d = diagnose(engine, quick[case_id], engine_name=engine.name, replay=expected == "stale-state",
                 report_verdict=result.verdict)
    ranking = [(v.name, v.score) for v in d.ranking[:3]]
    assert d.best.name == expected, (ranking, d.best.evidence)
    assert d.best.evidence and d.best.next_step and d.runner_up.name != expected


@pytest.mark.slow
@SLOW
@pytest.mark.parametrize("defect", list(DEFECTS))
def test_sweep_every_quick_case_and_diagnose_the_first_failure(defect):
    _reset_all()
    engine = DEFECTS[defect]()
    failing = [c for c in plan.load_level("quick") if not run_case(engine, c).ok]
    assert failing, f"the quick level does not catch {defect}"
    d = diagnose(engine, failing[0], engine_name=engine.name, replay=True, report_verdict="failed")
    assert d.best.name == engine.diagnosed_as, [(v.name, v.score) for v in d.ranking[:3]]
