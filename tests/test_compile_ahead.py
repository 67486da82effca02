"""Compiling a case's kernels ahead of it (``launch_cache.compiling_ahead``, ``Engine.compile_ahead``, the
runner's ``judge._compile_ahead``): inside the mode every launch becomes a compile request and nothing launches,
records or replays; the runner hands the engine a twin of the case's tensors, laid out alike, never the case's
own. On the CPU (the interpreter compiles nothing) with stand-in kernels; the compiles themselves, and that the
case then compiles nothing, are tests/gpu/test_compile_ahead_gpu.py's."""

import pytest
import torch

from sdpa_bwd.backends import Engine, get_engine
from sdpa_bwd.backends.base import Capabilities
from sdpa_bwd.conformance import judge
from sdpa_bwd.conformance.plan import load_level
from sdpa_bwd.conformance.tensors import GUARD, layout_twin, materialize
from sdpa_bwd.engine import launch_cache


class _Kernel:
    """A stand-in JIT function: counts launches and compile requests."""

    def __init__(self):
        self.launched, self.warmed = [], []

    def __getitem__(self, grid):
        return lambda *a, **kw: self.launched.append((grid, a, kw)) or "compiled"

    def warmup(self, *args, grid, **kwargs):
        self.warmed.append((grid, args, kwargs))


def test_inside_the_mode_a_launch_is_a_compile_request_and_nothing_is_recorded():
    fn, key = _Kernel(), ("a key",)
    token = launch_cache._AHEAD.set(True)
    try:
        rec = launch_cache.Recorder(key)
        rec.launch(fn, (4, 1, 1), torch.zeros(2), 3, BLOCK=16)
        rec.finish((torch.zeros(2),))
        assert launch_cache.lookup(key) is None
    finally:
        launch_cache._AHEAD.reset(token)
    assert fn.launched == [] and len(fn.warmed) == 1
    assert fn.warmed[0][0] == (4, 1, 1) and fn.warmed[0][2] == {"BLOCK": 16}
    assert launch_cache.lookup(key) is None, "a compile-only call must leave no plan to replay"


def test_a_recorded_plan_is_not_replayed_inside_the_mode():
    """A replay launches: inside the mode the call takes the full path (which only asks for compiles)."""
    launch_cache._PLANS[("k",)] = "a plan"
    try:
        token = launch_cache._AHEAD.set(True)
        try:
            assert launch_cache.lookup(("k",)) is None
        finally:
            launch_cache._AHEAD.reset(token)
        assert launch_cache.lookup(("k",)) == "a plan"
    finally:
        launch_cache.clear()


def test_under_the_interpreter_the_mode_is_off_and_the_engine_says_so():
    """The interpreter compiles nothing: the mode stays off, so our engine neither launches nor claims to have
    compiled (the runner's CPU runs are unchanged)."""
    with launch_cache.compiling_ahead():
        assert not launch_cache.compiling_ahead_now()
    case = {c.id: c for c in load_level("quick")}["pair-000"]
    p = case.to_problem()
    twin = layout_twin(p, "cpu")
    before = twin.dq.clone()
    assert get_engine("triton").compile_ahead(p, twin) is False
    assert torch.equal(twin.dq.nan_to_num(0), before.nan_to_num(0)), "nothing may run under the interpreter"


@pytest.mark.parametrize("case_id", ["reg-misaligned-base", "reg-aliased-outputs-fused-dqkv",
                                     "reg-short-rows-overlapping-input-rows", "pair-003"])
def test_the_twin_is_laid_out_as_the_case_and_shares_no_memory_with_it(case_id):
    """Same dims, strides, storage offsets and 16-byte alignment (what Triton specialises on), which tensors
    share an allocation the same, and not one byte of the case's own tensors."""
    case = {c.id: c for c in load_level("quick")}[case_id]
    p = case.to_problem()
    m = materialize(p, seed=case.seed, forward=False)
    twin = layout_twin(p, "cpu")
    names = ("q", "k", "v", "o", "do", "stats", "dq", "dk", "dv")
    for n in names:
        a, b = getattr(m.tensors, n), getattr(twin, n)
        assert (a.shape, a.stride(), a.storage_offset(), a.dtype) == (b.shape, b.stride(), b.storage_offset(), b.dtype), n
        assert b.storage_offset() >= GUARD
        assert (a.data_ptr() - b.data_ptr()) % 16 == 0, f"{n}: another 16-byte alignment"
    for x in names:
        for y in names:
            shared_case = getattr(m.tensors, x).untyped_storage().data_ptr() == getattr(m.tensors, y).untyped_storage().data_ptr()
            shared_twin = getattr(twin, x).untyped_storage().data_ptr() == getattr(twin, y).untyped_storage().data_ptr()
            assert shared_case == shared_twin, (x, y)
            assert getattr(m.tensors, x).untyped_storage().data_ptr() != getattr(twin, y).untyped_storage().data_ptr()


class _Recording(Engine):
    name = "recording"
    capabilities = Capabilities(devices=("cpu",))

    def __init__(self, raise_it=False):
        self.seen, self.raise_it = [], raise_it

    def compile_ahead(self, problem, t):
        self.seen.append(t)
        t.dq.fill_(7)  # a compile-only call may write its tensors: they must be the twin's
        if self.raise_it:
            raise RuntimeError("no kernel for this")
        return True


@pytest.mark.parametrize("raise_it", [False, True])
def test_the_runner_compiles_ahead_on_a_twin_and_a_raise_there_is_left_to_the_case(raise_it):
    case = {c.id: c for c in load_level("quick")}["pair-000"]
    eng = _Recording(raise_it)
    judge._compile_ahead(eng, case, case.to_problem(), "cpu")
    assert len(eng.seen) == 1
    assert eng.seen[0].dq.shape == case.to_problem().tensor("dq").dims


def test_the_runner_skips_engines_without_it_and_cases_over_the_bound(monkeypatch):
    case = {c.id: c for c in load_level("quick")}["pair-000"]
    eng = _Recording()
    monkeypatch.setattr(judge, "AHEAD_MAX_BYTES", 0)
    judge._compile_ahead(eng, case, case.to_problem(), "cpu")
    assert eng.seen == []
    judge._compile_ahead(get_engine("torch-math"), case, case.to_problem(), "cpu")  # the default: nothing
