"""The launch cache (``sdpa_bwd.engine.launch_cache``): a call with a recorded key replays the recorded launches on
its own tensors and gives what the full launcher gives, bit for bit; a call that differs in anything the
launcher reads (a stride, an alignment, which tensors are one object, a bound, a switch, a replaced function)
is recorded afresh. On the CPU the replay goes through ``fn[grid]`` under the interpreter; the compiled
launchers' path is tests/gpu/test_launch_cache_gpu.py's."""

import contextlib
import dataclasses

import pytest
import torch
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from sdpa_bwd.engine import launch, launch_cache
from sdpa_bwd.problem import oracle
from test_triton_kernels import BHSD, BSHD, DEVICE, SBHD, Layout, check_poisoned_output, random_input, strided


@pytest.fixture(autouse=True)
def _empty_cache():
    launch_cache.clear()
    yield
    launch_cache.clear()


@contextlib.contextmanager
def cache_off():
    before = launch_cache.ENABLED
    launch_cache.ENABLED = False
    try:
        yield
    finally:
        launch_cache.ENABLED = before


@dataclasses.dataclass(frozen=True)
class Call:
    B: int = 1
    H_q: int = 2
    H_k: int = 2
    H_v: int = 2
    S_q: int = 24
    S_kv: int = 24
    D_qk: int = 16
    D_v: int = 16
    dtype: torch.dtype = torch.float32
    layout: Layout = BHSD
    q_layout: Layout = None  # None: ``layout``
    left_bound: int = None
    right_bound: int = None
    alignment: str = "top_left"
    deterministic: bool = False
    scale: float = None
    outputs: Layout = None  # dQ/dK/dV given in NaN buffers of this layout; None: allocated by the launcher
    return_delta: bool = False

    def inputs(self, seed):
        gen = torch.Generator().manual_seed(seed)
        qd, kd, vd = ((self.B, self.H_q, self.S_q, self.D_qk), (self.B, self.H_k, self.S_kv, self.D_qk),
                      (self.B, self.H_v, self.S_kv, self.D_v))
        q = random_input(qd, self.q_layout or self.layout, self.dtype, gen)
        k = random_input(kd, self.layout, self.dtype, gen)
        v = random_input(vd, self.layout, self.dtype, gen)
        do = random_input((self.B, self.H_q, self.S_q, self.D_v), self.layout, self.dtype, gen)
        return q, k, v, do

    def bounds(self):
        return dict(left_bound=self.left_bound, right_bound=self.right_bound, alignment=self.alignment,
                    scale=self.scale)

    def run(self, q, k, v, do):
        """(O, stats, dQ, dK, dV[, delta]) and the output buffers (checked for writes outside the views)."""
        o, stats = launch.attention_forward(q, k, v, **self.bounds())
        outs, bufs = {}, []
        if self.outputs is not None:
            for name, t in (("dq", q), ("dk", k), ("dv", v)):
                view, buf = strided(t.shape, self.outputs, t.dtype)
                outs[name] = view
                bufs.append((name, view, buf))
        grads = launch.attention_backward(q, k, v, o, do, stats, deterministic=self.deterministic,
                                          return_delta=self.return_delta, **outs, **self.bounds())
        return (o, stats, *grads), bufs


def assert_same(got, want, what):
    for i, (a, b) in enumerate(zip(got, want)):
        assert torch.equal(a.nan_to_num(), b.nan_to_num()) and torch.equal(a.isnan(), b.isnan()), (
            f"{what}: output {i} of (O, stats, dQ, dK, dV, ...) differs from the full launcher's: max |diff| "
            f"{(a.double() - b.double()).abs().max().item():.3g} - the replay launched something the full path "
            "did not; the call key misses something the launcher reads (launch._call_key)")


def replay_check(call: Call, seed: int = 1):
    """Record ``call`` on one set of inputs, then run it on fresh ones: it must replay, and give what the full
    launcher gives on those inputs."""
    call.run(*call.inputs(seed))
    before = dict(launch_cache.counts)
    fresh = call.inputs(seed + 1)
    got, bufs = call.run(*fresh)
    assert launch_cache.counts["replayed"] == before["replayed"] + 2, (
        f"{call}: the second call with the same key did not replay (counts {before} -> {launch_cache.counts})")
    assert launch_cache.counts["recorded"] == before["recorded"], f"{call}: the second call was recorded again"
    for name, view, buf in bufs:
        check_poisoned_output(name, view, buf)
    with cache_off():
        want, _ = call.run(*fresh)
    assert_same(got, want, str(call))
    return got, fresh


CALLS = [
    Call(),
    Call(layout=BSHD, right_bound=0),
    Call(layout=SBHD, dtype=torch.float16, left_bound=5, right_bound=3, alignment="bottom_right", S_q=20),
    Call(layout=Layout("bshd", row_gap=3, d_step=2), dtype=torch.bfloat16, H_k=1, H_v=2),
    Call(H_q=4, H_k=2, H_v=1, deterministic=True, scale=0.3),
    Call(D_qk=24, D_v=8, S_kv=17, outputs=Layout("sbhd", row_gap=1), return_delta=True),
    Call(layout=Layout(broadcast="b"), B=2, right_bound=0),
]


@pytest.mark.parametrize("call", CALLS, ids=[f"call{i}" for i in range(len(CALLS))])
def test_a_replayed_call_gives_the_full_launchers_result(call):
    replay_check(call)


def test_a_replayed_backward_matches_the_oracle():
    call = Call(layout=BSHD, right_bound=0, dtype=torch.float32)
    (o, stats, dq, dk, dv), (q, k, v, do) = replay_check(call)
    ref_o, ref_stats = oracle.forward(q, k, v, right_bound=0)
    ref = oracle.backward(q, k, v, ref_o, do, ref_stats, right_bound=0)[:3]
    torch.testing.assert_close(o.double(), ref_o, atol=1e-5, rtol=1e-5)
    for got, want in zip((dq, dk, dv), ref):
        torch.testing.assert_close(got.double(), want, atol=1e-4, rtol=1e-4)


def _records(fn) -> int:
    before = launch_cache.counts["recorded"]
    fn()
    return launch_cache.counts["recorded"] - before


def test_one_tensor_passed_as_q_k_and_v_is_not_replayed_for_three():
    """Q passed as K and V records their slots as Q's; three separate tensors of the same layout must not
    reuse that plan (they would all read Q)."""
    call = Call()
    q, _, _, do = call.inputs(1)
    assert _records(lambda: call.run(q, q, q, do)) == 2
    fresh = call.inputs(2)
    assert _records(lambda: call.run(*fresh)) == 2, "a call with separate K and V reused the aliased call's plan"
    got, _ = call.run(*fresh)
    with cache_off():
        want, _ = call.run(*fresh)
    assert_same(got, want, "separate Q, K, V after an aliased call")


def test_another_layout_of_the_same_dims_is_another_key():
    """Same dims, dtype and bounds, other strides: recorded afresh, and the result is the full launcher's."""
    for i, layout in enumerate((BHSD, BSHD, Layout("sbhd", row_gap=2), Layout("bshd", d_step=2))):
        call = Call(layout=layout, right_bound=0)
        fresh = call.inputs(i)
        assert _records(lambda: call.run(*fresh)) == 2, f"{layout}: replayed a plan of another layout"
        got, _ = call.run(*fresh)
        with cache_off():
            want, _ = call.run(*fresh)
        assert_same(got, want, f"{layout} after other layouts")


def test_a_misaligned_pointer_is_another_key():
    """Triton specialises a kernel on 16-byte pointer alignment, and TMA needs it: an offset of one element
    is a new call key."""
    aligned, shifted = Call(), Call(q_layout=Layout(offset=1))
    assert _records(lambda: aligned.run(*aligned.inputs(1))) == 2
    assert _records(lambda: shifted.run(*shifted.inputs(1))) == 2
    assert _records(lambda: shifted.run(*shifted.inputs(2))) == 0


def test_a_switch_or_a_replaced_function_is_another_key(monkeypatch):
    call = Call()
    args = call.inputs(1)
    assert _records(lambda: call.run(*args)) == 2
    with launch.switches(head_group=2):
        assert _records(lambda: call.run(*args)) == 2
    with launch.switches(dv_after_dp=False):
        assert _records(lambda: call.run(*args)) == 2
    seen = []
    real = launch.backward_config
    monkeypatch.setattr(launch, "backward_config", lambda *a, **k: seen.append(a) or real(*a, **k))
    assert _records(lambda: call.run(*args)) == 2  # both: one set of names keys both launchers
    assert seen, "the replaced backward_config was not consulted: the call replayed the earlier plan"


def test_the_key_reads_every_switch_and_table_the_launchers_read():
    names = set(launch._globals_read())
    for n in ("forward_config", "backward_config", "HEAD_GROUP", "DV_AFTER_DP", "TMA_MODE", "SPECIALIZE_LENGTHS",
              "_BWD_OVERRIDE", "_tma_ok", "_use_tma", "_dq_reduce_tma", "attention_bwd_dkdv_kernel",
              "attention_fwd_kernel", "with_dq_mode", "d_qk_chunks"):
        assert n in names, f"launch._globals_read() misses {n!r}: a call key would not see it change"


@pytest.mark.parametrize("dims", [dict(S_kv=0), dict(D_v=0)], ids=["S_kv=0", "D_v=0"])
def test_calls_that_return_early_or_zero_first_are_not_recorded(dims):
    call = Call(outputs=BHSD, **dims)
    for seed in (1, 2):
        assert _records(lambda: call.run(*call.inputs(seed))) == 0
    (_, _, dq, dk, dv), bufs = call.run(*call.inputs(3))
    assert not dq.abs().sum() and not dk.abs().sum() and not dv.abs().sum()


def test_nothing_is_recorded_with_the_cache_off_or_the_autotuner_on(monkeypatch):
    call = Call()
    with cache_off():
        assert _records(lambda: call.run(*call.inputs(1))) == 0
    monkeypatch.setattr(launch.tuning, "enabled", lambda: True)
    assert launch._call_key("bwd", call.inputs(1), ()) is None


def test_a_launch_with_a_tensor_the_call_does_not_name_is_not_replayable():
    rec = launch_cache.Recorder(("test",))
    stray, named = torch.zeros(4), torch.zeros(4)
    launched = []

    class Fn:
        def __getitem__(self, grid):
            return lambda *a, **k: launched.append(a)

    rec.launch(Fn(), (1,), stray, 3)
    rec.finish((named,))
    assert launched and launch_cache.lookup(("test",)) is None


def test_a_replay_rebuilds_each_host_descriptor_on_the_new_calls_tensor():
    """The Gluon backward takes host-made TMA descriptors (``planner._plan_gluon``): a replay must make
    each again over the replayed call's tensor, the same in all but its base. Replaying the recorded one would
    read and write the first call's memory. A descriptor over a tensor the call does not name is not
    replayable."""
    from triton.tools.tensor_descriptor import TensorDescriptor

    launched = []

    class Fn:
        def __getitem__(self, grid):
            return lambda *a, **k: launched.append(a)

    first, first_out = torch.randn(2, 8, 16), torch.zeros(3)
    rec = launch_cache.Recorder(("test-desc",))
    desc = TensorDescriptor(first, [2, 8, 16], [128, 16, 1], [1, 4, 16])
    rec.launch(Fn(), (1,), desc, first_out, 7)
    rec.finish((first, first_out))
    plan = launch_cache.lookup(("test-desc",))
    assert plan is not None, "a launch whose descriptor is over a named tensor was not recorded"
    second, second_out = torch.randn(2, 8, 16), torch.zeros(3)
    launched.clear()
    direct = launch_cache._direct_ok
    launch_cache._direct_ok = lambda: False  # Fn has no compiled launcher: replay through fn[grid]
    try:
        plan.replay((second, second_out))
    finally:
        launch_cache._direct_ok = direct
    (got, out, n), = launched
    assert got is not desc and got.base is second and out is second_out and n == 7, (got, out, n)
    assert (got.shape, got.strides, got.block_shape) == (desc.shape, desc.strides, desc.block_shape)
    assert desc.base is first, "replaying changed the recorded descriptor itself"

    stray = launch_cache.Recorder(("test-desc-stray",))
    stray.launch(Fn(), (1,), TensorDescriptor(torch.randn(2, 8, 16), [2, 8, 16], [128, 16, 1], [1, 4, 16]))
    stray.finish((first,))
    assert launch_cache.lookup(("test-desc-stray",)) is None


@pytest.mark.parametrize("dims,strides,want_dims", [
    ((2, 3, 16, 8), (384, 128, 8, 1), [2, 3, 16, 8]),       # BHSD
    ((2, 3, 16, 8), (384, 8, 24, 1), [2, 3, 16, 8]),        # BSHD
    ((2, 3, 16, 8), (0, 128, 8, 1), [1, 3, 16, 8]),         # broadcast over the batch
    ((2, 3, 16, 8), (384, 0, 8, 1), [2, 1, 16, 8]),         # broadcast over the heads
    ((1, 1, 16, 8), (7, 5, 8, 1), [1, 1, 16, 8]),           # dims of one, of any stride
])
def test_gluon_descriptors_address_each_head_through_its_strides(dims, strides, want_dims):
    """``launch._bhsd_descriptor``: (B, H, S, D) through the tensor's own strides, a batch or head dim of one
    or of stride 0 given as one (the kernel's coordinate there is ``b % 1`` = 0) with a stride the bulk-copy
    engine takes (16-byte multiples: the constructor checks), so that element (b, h, s, d) of the tensor is
    the descriptor's (b % dim0, h % dim1, s, d)."""
    from triton.tools.tensor_descriptor import TensorDescriptor

    storage = torch.randn(4096, dtype=torch.float16)
    t = storage.as_strided(dims, strides)
    d = launch._bhsd_descriptor(lambda *a: TensorDescriptor(*a[:4]), t, 4, None)
    assert list(d.shape) == want_dims and d.block_shape == [1, 1, 4, dims[3]], d
    assert all((st * 2) % 16 == 0 for st in d.strides[:-1]) and d.strides[-1] == 1, d
    view = storage.as_strided(d.shape, d.strides)
    for b in range(dims[0]):
        for h in range(dims[1]):
            assert torch.equal(view[b % d.shape[0], h % d.shape[1]], t[b, h]), (b, h)


_orders = st.sampled_from(["bhsd", "bshd", "sbhd", "hsbd"])


@st.composite
def call_pairs(draw):
    def one():
        layout = Layout(draw(_orders), row_gap=draw(st.sampled_from([0, 0, 2])), d_step=draw(st.sampled_from([1, 1, 2])),
                        offset=draw(st.sampled_from([0, 0, 1])))
        band = draw(st.sampled_from([(None, None), (None, 0), (4, 2)]))
        return Call(H_k=draw(st.sampled_from([1, 2])), S_q=draw(st.sampled_from([16, 24])), layout=layout,
                    left_bound=band[0], right_bound=band[1], dtype=draw(st.sampled_from([torch.float32, torch.float16])))
    return one(), one()


@settings(max_examples=8, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(call_pairs())
def test_any_call_after_any_other_gives_the_full_launchers_result(pair):
    """Property: whatever call came before (recorded, so a stale plan could be taken), a call gives what
    the full launcher gives on the same inputs."""
    first, second = pair
    first.run(*first.inputs(1))
    fresh = second.inputs(2)
    got, _ = second.run(*fresh)
    with cache_off():
        want, _ = second.run(*fresh)
    assert_same(got, want, f"{second} after {first}")



def test_a_registered_launch_hook_turns_the_compiled_launchers_off():
    """A profiler's launch hook wants the metadata JITFunction.run builds: replays then take fn[grid]."""
    from triton import knobs

    assert launch_cache._direct_ok(), "no hook is registered, yet replays would not take the compiled launchers"
    hook = lambda *a: None  # noqa: E731
    knobs.runtime.launch_enter_hook.add(hook)
    try:
        assert not launch_cache._direct_ok()
    finally:
        knobs.runtime.launch_enter_hook.remove(hook)
    assert launch_cache._no_hook(None)


def test_the_globals_generation_names_each_set_of_values_once(monkeypatch):
    """The key holds a number for the launcher's globals' values: the same while they stay, a new one when one
    changes, the first again when it is put back (so a recorded plan is replayed again, never another's)."""
    first = launch._globals_generation()
    assert launch._globals_generation() == first
    real = launch.backward_config
    monkeypatch.setattr(launch, "backward_config", lambda *a, **k: real(*a, **k))
    changed = launch._globals_generation()
    assert changed != first
    monkeypatch.setattr(launch, "backward_config", real)
    assert launch._globals_generation() == first


def test_outputs_on_their_own_storage_are_apart_and_shared_storage_is_measured():
    from sdpa_bwd.engine import reasons

    q, k, v, do = (torch.randn(1, 2, 8, 4) for _ in range(4))
    fresh = [torch.empty_like(t) for t in (q, k, v)]
    assert reasons._outputs_apart(fresh, (q, k, v, do))
    assert reasons._outputs_apart((None, None, None), (q, k, v, do))
    dqkv = torch.empty(1, 2, 8, 12)
    columns = (dqkv[..., :4], dqkv[..., 4:8], dqkv[..., 8:])  # one storage, interleaved byte ranges
    assert not reasons._outputs_apart(columns, (q, k, v, do))
    halves = torch.empty(2, 1, 2, 8, 4)  # one storage, disjoint ranges
    assert reasons._outputs_apart((halves[0], halves[1], None), (q, k, v, do))
    assert not reasons._outputs_apart((q, None, None), (q, k, v, do))  # dQ written over Q


def test_a_descriptor_class_with_slots_is_copied_too():
    class Slotted:
        __slots__ = ("base", "block_shape")

        def __init__(self, base):
            self.base, self.block_shape = base, [4]

    a, b = torch.zeros(4), torch.ones(4)
    made = launch_cache._DescSlot(0, Slotted(a)).make(b)
    assert type(made) is Slotted and made.base is b and made.block_shape == [4]


def test_a_recorded_plan_keeps_no_tensor_of_the_call_alive():
    """A plan outlives the call it was recorded on (it is the launch cache's, one per call key): a descriptor
    kept with its base held the first call's tensor, and so its storage, for as long (on an H100, 2026-12-06, a
    worker's reserved memory grew by 4-8 GiB a case over a run of 2^31-element cases)."""
    import gc
    import weakref

    from triton.tools.tensor_descriptor import TensorDescriptor

    class Fn:
        def __getitem__(self, grid):
            return lambda *a, **k: None

    first, first_out = torch.randn(2, 8, 16), torch.zeros(3)
    gone = weakref.ref(first)
    rec = launch_cache.Recorder(("test-desc-alive",))
    rec.launch(Fn(), (1,), TensorDescriptor(first, [2, 8, 16], [128, 16, 1], [1, 4, 16]), first_out, 7)
    rec.finish((first, first_out))
    assert launch_cache.lookup(("test-desc-alive",)) is not None
    del first, first_out, rec
    gc.collect()
    assert gone() is None, "the recorded plan still holds the first call's tensor"
