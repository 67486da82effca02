"""The planner's routing, table-driven, on the CPU with tensor metadata only (issue 52): for each row, the path the
planner takes and the documented reason against the Gluon kernel(s) where it declines them. The rows cover every path
the planner can return (``FORWARD_PATHS``, ``BACKWARD_PATHS``): a new path without a row fails
``test_the_table_covers_every_path``. Rows plan as on the H200 (``as_on_the_h200``; metadata of an sm_90 device with
132 SMs, outside the interpreter), so that the GPU-only forms (the 192 / 128 pass's persistent form, PDL) apply."""

import math

import hypothesis
import hypothesis.strategies as st
import pytest
import torch

from sdpa_bwd.engine import launch, planner
from sdpa_bwd.engine.reasons import Target, TensorMeta

BF16, FP32 = torch.bfloat16, torch.float32
H200 = Target(interpreter=False, sm_count=132)


def metas(B=1, H=4, H_kv=None, H_v=None, S=256, S_kv=None, D=128, Dv=None, dtype=BF16):
    """Packed (B, H, S, D) metadata of a problem's nine tensors on an sm_90 device; ``H_v``: V's heads where they
    differ from K's (``H_kv``)."""
    H_kv, S_kv, Dv = H_kv or H, S_kv or S, Dv or D
    H_v = H_v or H_kv
    m = lambda *shape, dt=dtype: TensorMeta.packed(shape, dt, "cuda:0", sm90=True)  # noqa: E731
    return dict(q=m(B, H, S, D), k=m(B, H_kv, S_kv, D), v=m(B, H_v, S_kv, Dv), o=m(B, H, S, Dv), do=m(B, H, S, Dv),
                stats=m(B, H, S, dt=FP32), dq=m(B, H, S, D), dk=m(B, H_kv, S_kv, D), dv=m(B, H_v, S_kv, Dv))


ATOMIC = launch.BackwardConfig(64, 128, 128, 64, num_warps=8, num_stages=3, dq_mode="atomic")

# (id, direction, problem, call keywords, switches, expected path, a reason expected against the Gluon kernel)
TABLE = [
    ("fwd-gluon", "fwd", dict(), dict(right_bound=0), {}, "gluon-fwd", None),
    ("fwd-triton-fp32", "fwd", dict(dtype=FP32), {}, {}, "triton-fwd", "16-bit only"),
    ("fwd-triton-any-len", "fwd", dict(dtype=FP32, S=1), {}, {}, "triton-fwd-any-len", "16-bit only"),
    ("fwd-triton-band", "fwd", dict(), dict(left_bound=8, right_bound=0), {}, "triton-fwd",
     "a band other than the causal one"),
    ("fwd-triton-off", "fwd", dict(), {}, dict(gluon_forward=False), "triton-fwd", "switched off"),
    ("bwd-gluon", "bwd", dict(), dict(right_bound=0), {}, "gluon-bwd", None),
    ("bwd-gluon-hd64-det", "bwd", dict(D=64), dict(deterministic=True), {}, "gluon-bwd", None),
    # hd80 / hd96 as the hd128 kernels, the bulk copies padding the columns
    ("bwd-gluon-hd96-gqa", "bwd", dict(H=4, H_kv=2, D=96), dict(right_bound=0), {}, "gluon-bwd", None),
    ("bwd-gluon-hd80-det", "bwd", dict(D=80), dict(deterministic=True), {}, "gluon-bwd", None),
    ("fwd-gluon-hd80", "fwd", dict(D=80), dict(right_bound=0), {}, "gluon-fwd", None),
    ("bwd-gluon-192", "bwd", dict(D=192, Dv=128), dict(right_bound=0), {}, "gluon-bwd-192", None),
    ("bwd-gluon-192-det-split", "bwd", dict(D=192, Dv=128), dict(deterministic=True), {},
     "gluon-bwd-192-det-split", None),
    ("bwd-triton-fused", "bwd", dict(), dict(right_bound=0), dict(gluon_backward=False), "triton-fused",
     "switched off (GLUON_BACKWARD"),
    ("bwd-triton-fused-any-len", "bwd", dict(S=1), dict(right_bound=0), dict(gluon_backward=False),
     "triton-fused-any-len", "switched off (GLUON_BACKWARD"),
    ("bwd-triton-separate", "bwd", dict(dtype=FP32), {}, {}, "triton-separate", "16-bit only"),
    ("bwd-triton-separate-any-len", "bwd", dict(dtype=FP32, S_kv=1), {}, {}, "triton-separate-any-len",
     "16-bit only"),
    ("bwd-triton-split-dkdv", "bwd", dict(dtype=FP32, H_kv=2, H_v=4), dict(), {}, "triton-split-dkdv", "16-bit only"),
    ("bwd-triton-separate-hd48-gqa", "bwd", dict(H=4, H_kv=2, D=48), dict(), {}, "triton-separate",
     "not D_qk = D_v in"),
    ("bwd-triton-split-dkdv-any-len", "bwd", dict(dtype=FP32, H_kv=2, H_v=4, S=1), dict(), {},
     "triton-split-dkdv-any-len", "16-bit only"),
    ("bwd-triton-atomic", "bwd", dict(), dict(config=ATOMIC), {}, "triton-atomic", "a Triton backward config"),
    ("bwd-triton-atomic-any-len", "bwd", dict(S=1), dict(config=ATOMIC), {}, "triton-atomic-any-len",
     "a Triton backward config"),
    ("bwd-triton-det-off", "bwd", dict(), dict(deterministic=True), dict(gluon_bwd_deterministic=False),
     "triton-separate", "GLUON_BWD_DETERMINISTIC is off"),
    # causal with S_q < S_kv: the Gluon pass on the keys' causal square (planner.causal_key_ranges), then on the
    # prefix every row keeps (bottom-right); the keys no row keeps get zeros (top-left)
    # (when a head keeps GLUON_BWD_KEY_PARTS_MIN_PAIRS pairs or more: the parts' host time hidden by their work)
    ("bwd-gluon-causal-short-q", "bwd", dict(S=1600, S_kv=2048), dict(right_bound=0), {}, "gluon-bwd", None),
    ("bwd-gluon-causal-br-short-q", "bwd", dict(S=1024, S_kv=2048), dict(right_bound=0, alignment="bottom_right"),
     {}, "gluon-bwd", None),
    ("bwd-triton-causal-short-q-few-pairs", "bwd", dict(S=128, S_kv=256),
     dict(right_bound=0, alignment="bottom_right"), {}, "triton-fused", "kept pairs a head"),
    ("bwd-triton-causal-br-long-q", "bwd", dict(S=256, S_kv=128), dict(right_bound=0, alignment="bottom_right"), {},
     "triton-fused", "query rows keep no key"),
    ("bwd-triton-causal-br-one-key-prefix", "bwd", dict(S=128, S_kv=129),
     dict(right_bound=0, alignment="bottom_right"), dict(gluon_bwd_key_parts_min_pairs=0), "triton-fused",
     "a part of one key is not"),
]


def plan(direction, problem, kw, switches):
    t = metas(**problem)
    call = dict(scale=1 / math.sqrt(t["q"].shape[3]), **kw)
    with launch.switches(**switches):
        if direction == "fwd":
            return planner.plan_forward(t["q"], t["k"], t["v"], t["o"], t["stats"], **call)
        return planner.plan_backward(*(t[n] for n in ("q", "k", "v", "o", "do", "stats", "dq", "dk", "dv")),
                                     target=H200, **call)


@pytest.mark.parametrize("row", TABLE, ids=[r[0] for r in TABLE])
def test_the_planner_routes_each_row(as_on_the_h200, row):
    if not launch.attention_fwd_gluon.AVAILABLE:
        pytest.skip("this Triton has no Gluon Hopper module")
    _, direction, problem, kw, switches, path, reason = row
    p = plan(direction, problem, kw, switches)
    assert p.path == path, f"took {p.path}, expected {path}; not taken: {p.declined}"
    paths = planner.FORWARD_PATHS if direction == "fwd" else planner.BACKWARD_PATHS
    assert p.path in paths, f"{p.path}: a path the planner's path list does not name"
    assert set(p.declined) == set(paths) - {path}, "every path not taken has its reasons"
    assert all(p.declined[q] for q in p.declined), "a path not taken with no reason"
    if reason is not None:
        gluon = "gluon-fwd" if direction == "fwd" else "gluon-bwd-192" if problem.get("D") == 192 else "gluon-bwd"
        assert any(reason in r for r in p.declined[gluon]), f"{gluon}: {p.declined[gluon]} lacks {reason!r}"
    assert p.steps and all(isinstance(s.grid, tuple) for s in p.steps)


def test_the_table_covers_every_path():
    covered = {row[5] for row in TABLE}
    every = set(planner.FORWARD_PATHS) | set(planner.BACKWARD_PATHS)
    assert covered == every, (f"paths the planner can return without a row here: {sorted(every - covered)}; "
                              f"rows for paths it does not name: {sorted(covered - every)}")


@pytest.mark.parametrize("S_q, S_kv", [(1, 300), (300, 1), (1, 1), (2, 300)])
@pytest.mark.parametrize("dtype", [BF16, FP32])
def test_a_length_of_1_takes_the_small_config_and_anything_longer_the_table(as_on_the_h200, S_q, S_kv, dtype):
    """S_q or S_kv 1 runs the any-length kernels at ``length_one_*_config`` (16 rows on the length-1 side: compiles
    several times faster than the table's tiles), unless the caller hands a config; other lengths keep the table's."""
    from sdpa_bwd.engine import configs

    t = metas(S=S_q, S_kv=S_kv, D=64, dtype=dtype)
    args = [t[n] for n in ("q", "k", "v", "o", "do", "stats", "dq", "dk", "dv")]
    with launch.switches(gluon_backward=False, gluon_forward=False):
        bwd = planner.plan_backward(*args, scale=0.125, target=H200)
        fwd = planner.plan_forward(t["q"], t["k"], t["v"], t["o"], t["stats"], scale=0.125)
        handed = planner.plan_backward(*args, scale=0.125, target=H200, config=ATOMIC)
    short = 1 in (S_q, S_kv)
    want_b = configs.length_one_backward_config(S_q, S_kv, 64, 64, dtype, "cuda") if short else \
        configs.backward_config(64, 64, dtype, "cuda", False)
    want_f = configs.length_one_forward_config(S_q, S_kv, dtype, "cuda") if short else \
        configs.forward_config(64, 64, dtype, "cuda")
    assert bwd.config == want_b and fwd.config == want_f, (bwd.config, fwd.config)
    assert bwd.path.endswith("-any-len") == short and fwd.path.endswith("-any-len") == short
    assert handed.config == ATOMIC, "a config the caller hands wins over the length rule"
    if short:
        side = 16  # the length-1 side's tile: the dQ pass's query rows for S_q 1, the DKDV pass's keys for S_kv 1
        assert (bwd.config.block_m2 if S_q == 1 else bwd.config.block_n1) == side
        assert (fwd.config.block_m if S_q == 1 else fwd.config.block_n) == side
        assert bwd.config.num_warps == (8 if dtype == FP32 else 4)


def test_the_planner_needs_no_tensor_and_launches_nothing(monkeypatch):
    """Metadata of a CPU problem under the interpreter: the Triton kernels at the interpreter's config."""
    for name in dir(launch):
        if name.startswith("attention_") and name.endswith(("_kernel", "_any_len")):
            monkeypatch.setattr(launch, name, None)  # a launch would fail
    t = {n: TensorMeta.packed(m.shape, m.dtype, "cpu") for n, m in metas(D=64).items()}
    p = planner.plan_backward(*(t[n] for n in ("q", "k", "v", "o", "do", "stats", "dq", "dk", "dv")), scale=0.125,
                              target=Target(interpreter=True))
    assert p.path == "triton-atomic" and p.config == launch._INTERPRETER_BWD
    assert any("not an sm_90 GPU" in r for r in p.declined["gluon-bwd"])
    assert [s.kernel for s in p.steps] == ["attention_bwd_preprocess_kernel", "attention_bwd_dkdv_kernel",
                                           "attention_bwd_dq_convert_kernel"]
    assert {b.name for b in p.buffers} == {"delta", "lse2", "dq_accum"}


def test_explain_prints_the_plan(capsys):
    from sdpa_bwd.cli import main

    assert main(["explain", "--B", "2", "--H", "16", "--S", "4096", "--D", "128", "--dtype", "bf16", "--causal",
                 "--device", "sm90"]) == 0
    out = capsys.readouterr().out
    if launch.attention_fwd_gluon.AVAILABLE:
        assert "forward: gluon-fwd" in out and "backward: gluon-bwd" in out
        assert "attention_bwd_gluon.attention_bwd_gluon_kernel grid (32, 32)" in out
    assert "not taken:" in out and "side buffers:" in out
    assert main(["explain", "--H", "4", "--H-kv", "2", "--S", "64", "--D", "64", "--dtype", "fp32",
                 "--layout", "bshd", "--deterministic", "--device", "cpu"]) == 0
    out = capsys.readouterr().out
    assert "forward: triton-fwd" in out and "backward: triton-separate" in out
    assert "dtype torch.float32: 16-bit only" in out and "not an sm_90 GPU" in out


def test_the_dq_reduce_takes_the_bulk_copy_path_on_a_gpu_only_where_rows_are_16_byte_aligned():
    from sdpa_bwd.engine import reasons

    assert reasons._dq_reduce_tma(True, 4, 128, "cuda", False) == reasons._HAS_TMA
    assert not reasons._dq_reduce_tma(True, 4, 126, "cuda", False), "a 504-byte row pitch is not 16-byte aligned"
    assert not reasons._dq_reduce_tma(True, 4, 128, "cuda", True), "the interpreter has no descriptor reduce"
    assert not reasons._dq_reduce_tma(True, 4, 128, "cpu", False)
    assert not reasons._dq_reduce_tma(False, 4, 128, "cuda", False), "an accumulator off 16 bytes"


@pytest.mark.parametrize("device,aligned,interpreter,restaged", [
    ("cuda:0", False, False, True),   # the miscompiled form: a GPU, a base off 16 bytes
    ("cuda:0", True, False, False),
    ("cuda:0", False, True, False),   # the interpreter reads any offset as given
    ("cpu", False, False, False),
])
def test_the_forward_reads_a_misaligned_k_or_v_from_an_aligned_copy_on_a_gpu_only(device, aligned, interpreter,
                                                                                  restaged):
    from sdpa_bwd.engine import reasons

    assert reasons.restage_forward_stream(torch.device(device).type, aligned, interpreter) is restaged


@pytest.mark.parametrize("problem", [dict(H=8, H_kv=2), dict(H=8, H_kv=1), dict(H=8, H_kv=2, H_v=4, D=64),
                                     dict(H=8, H_kv=2, D=192, Dv=128)], ids=["gqa", "mqa", "k-v-heads-differ-hd64",
                                                                            "gqa-192-128"])
@pytest.mark.parametrize("causal", [False, True], ids=["nc", "causal"])
def test_shared_heads_gluon_backward_makes_three_launches_and_one_fill(as_on_the_h200, problem, causal):
    """A short call's cost is its host time, a launch or a fill each: with K or V heads shared the Gluon backward
    makes ODO, the pass and one conversion of dQ's, dK's and dV's accumulators, as with heads of their own, and
    zeroes one buffer more (dK's and dV's accumulators, parts of it; ODO zeroes dQ's). It made five launches and two
    fills more before 2026-12-07 (H100, held-out B1-H24/12-S192-D96: 0.176 ms against the Triton kernels' 0.118)."""
    if not launch.attention_fwd_gluon.AVAILABLE:
        pytest.skip("this Triton has no Gluon Hopper module")
    p = plan("bwd", problem, dict(right_bound=0) if causal else {}, {})
    assert p.path in ("gluon-bwd", "gluon-bwd-192"), p.declined
    kernels = [s.kernel.rpartition(".")[2] for s in p.steps]
    assert (len(kernels) == 3 and kernels[0] == "attention_bwd_preprocess_kernel"
            and kernels[1].startswith("attention_bwd_gluon") and kernels[2] == "attention_bwd_convert_all_kernel"), (
        f"launches {kernels}: expected ODO, the Gluon pass and one conversion of all three accumulators")
    # (and the 192 / 128 pass's persistent form its block counter, with heads of their own too)
    zeroed = [b.name for b in p.buffers if b.fill == "zeros" and b.name != "counter"]
    assert zeroed == ["kv_acc"], f"zero-filled buffers {zeroed}: dQ's accumulator is ODO's to zero, dK's and dV's one fill"
    parts = {b.name: b for b in p.buffers if b.fill == "part"}
    assert set(parts) == {"dk_acc", "dv_acc"} and parts["dv_acc"].offset == planner.kv_v_offset(metas(**problem)["k"])


@hypothesis.settings(max_examples=300, deadline=None)
@hypothesis.given(S_q=st.integers(1, 70), S_kv=st.integers(1, 70), bottom_right=st.booleans())
def test_causal_key_ranges_split_the_keys_by_which_rows_keep_them(S_q, S_kv, bottom_right):
    """Against the mask itself (key j kept for row i where j <= i + hi_off): the prefix's keys are kept for every
    row, the diagonal's key prefix + j' for row i exactly where j' <= i (a causal square at 0 over S_q rows), and the
    tail's for none. Defined for a diagonal at hi_off >= 0 (bottom-right with S_q > S_kv is declined)."""
    hi_off = S_kv - S_q if bottom_right else 0
    hypothesis.assume(hi_off >= 0)
    prefix, diagonal, tail = planner.causal_key_ranges(S_q, S_kv, hi_off, True)
    assert min(prefix, diagonal, tail) >= 0 and prefix + diagonal + tail == S_kv
    assert diagonal <= S_q
    for j in range(S_kv):
        kept = [j <= i + hi_off for i in range(S_q)]
        if j < prefix:
            assert all(kept), f"key {j} of the prefix [0, {prefix}) is not kept for every row"
        elif j < prefix + diagonal:
            assert kept == [j - prefix <= i for i in range(S_q)], f"key {j}: not the square's column {j - prefix}"
        else:
            assert not any(kept), f"key {j} of the tail is kept for some row"
    assert planner.causal_key_ranges(S_q, S_kv, 0, False) == (0, S_kv, 0)


@pytest.mark.parametrize("alignment,det,H_kv", [("bottom_right", False, None), ("bottom_right", True, None),
                                                ("bottom_right", False, 2), ("top_left", False, None),
                                                ("top_left", True, 1)],
                         ids=["br", "br-det", "br-gqa", "tl", "tl-det-mqa"])
def test_causal_with_short_queries_runs_the_gluon_pass_on_the_key_ranges(as_on_the_h200, alignment, det, H_kv):
    """Causal with S_q 200 < S_kv 456 on the Gluon backward: one pass launch on the keys' causal square (K, V and
    dK, dV or their accumulators narrowed to it), then under bottom-right alignment one without the mask on the
    prefix every row keeps (not ODO's programmatic dependent, a turn-counter buffer of its own in deterministic
    mode), both into dQ's one accumulator; under top-left the tail's dK and dV zeroed (heads of their own) or left
    in the zeroed accumulators (shared heads). Before 2026-12-07 the Triton kernels took these calls. (A head of
    these lengths keeps fewer pairs than GLUON_BWD_KEY_PARTS_MIN_PAIRS: switched to 0 here.)"""
    if not launch.attention_fwd_gluon.AVAILABLE:
        pytest.skip("this Triton has no Gluon Hopper module")
    p = plan("bwd", dict(S=200, S_kv=456, H_kv=H_kv), dict(right_bound=0, alignment=alignment, deterministic=det),
             dict(gluon_bwd_key_parts_min_pairs=0))
    assert p.path == "gluon-bwd", p.declined
    passes = [s for s in p.steps if s.kernel.endswith("attention_bwd_gluon_kernel")]
    shared = H_kv is not None
    views = {b.name: b for b in p.buffers if b.fill == "view"}
    if alignment == "bottom_right":
        assert [(s.grid[0], s.args[-1], s.args[-5]) for s in passes] == [(2, 1, 200), (2, 0, 256)], (
            "expected the causal square (keys 256..455: 2 blocks of 128, masked) then the prefix (keys 0..255, "
            f"2 blocks, unmasked): {[(s.grid, s.args[-6:]) for s in passes]}")
        assert "launch_pdl" in passes[0].kwargs and "launch_pdl" not in passes[1].kwargs
        names = ("k", "v") + (("dk_acc", "dv_acc") if shared else ("dk", "dv"))
        assert {(b.alias, b.offset, b.shape[2]) for b in views.values()} == (
            {(n, 256, 200) for n in names} | {(n, 0, 256) for n in names}), views
        sems = [b.name for b in p.buffers if b.name.startswith("sems")]
        assert sems == (["sems", "sems_prefix"] if det else []), sems
        assert passes[1].args[9].name == ("sems_prefix" if det else "dq_accum")
    else:
        assert [(s.grid[0], s.args[-1], s.args[-5]) for s in passes] == [(2, 1, 200)]
        zeroed = {(b.alias, b.offset, b.shape[2]) for b in p.buffers if b.fill == "zero_view"}
        assert zeroed == (set() if shared else {("dk", 200, 256), ("dv", 200, 256)}), zeroed
    assert p.steps[0].kernel == "attention_bwd_preprocess_kernel" and "convert" in p.steps[-1].kernel


def test_the_executor_makes_key_views_and_zeroes_the_tail(monkeypatch):
    """``view`` and ``zero_view`` buffers: the tensor's keys [offset, offset + S) along dim 2, the same storage;
    a ``zero_view`` zeroed, the rest of the tensor left as it was."""
    dk = torch.ones(2, 3, 10, 4)
    ns = dict(dk=dk)
    p = planner.Plan("bwd", "gluon-bwd", {}, None, (planner.Buffer("dk_keys2", (2, 3, 5, 4), fill="view", alias="dk",
                                                                   offset=2),
                                                    planner.Buffer("dk_tail", (2, 3, 3, 4), fill="zero_view",
                                                                   alias="dk", offset=7)), (), 0)
    launch._allocate(p, ns, "cpu")
    assert ns["dk_keys2"].data_ptr() == dk[:, :, 2].data_ptr() and ns["dk_keys2"].shape == (2, 3, 5, 4)
    assert (dk[:, :, 7:] == 0).all() and (dk[:, :, :7] == 1).all()
