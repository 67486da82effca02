"""The Triton engine's kernels against the float64 oracle, on the CPU under TRITON_INTERPRET=1.

Each case is data (``Case``) and prints the command that reruns exactly it.
Inputs live in NaN-filled buffers (a read outside a tensor shows up as NaN),
outputs in NaN-filled buffers whose margins and gaps must stay NaN (nothing
outside an output is written) while every element of the output must be
written. Inputs are fresh random numbers, never zeros.

Tolerance (FlashAttention style): our max error vs float64 <= 4 x (the error
of the same-dtype oracle vs float64) + a floor of a few units of the dtype's
rounding at the output's scale.
"""

import os

import torch

if not torch.cuda.is_available():
    # Must be set before triton is imported anywhere (tests/conftest.py does the same).
    os.environ.setdefault("TRITON_INTERPRET", "1")

import dataclasses  # noqa: E402
import math  # noqa: E402
from typing import Optional  # noqa: E402

import pytest  # noqa: E402

from sdpa_bwd.engine import api as ops, launch  # noqa: E402
from sdpa_bwd.problem import oracle  # noqa: E402

DEVICE = "cuda" if torch.cuda.is_available() else "cpu"
DTYPES = {"fp16": torch.float16, "bf16": torch.bfloat16, "fp32": torch.float32}
# One unit of rounding per dtype (relative).
EPS = {torch.float16: 2.0 ** -10, torch.bfloat16: 2.0 ** -7, torch.float32: 2.0 ** -23}


# ----------------------------------------------------------------------------
# Layouts: a tensor is a strided view into a NaN-filled buffer


@dataclasses.dataclass(frozen=True)
class Layout:
    """Storage order of the logical axes b, h, s, d (outermost first), a row gap
    (extra elements after each d-run), a head-dim stride multiplier, a storage
    offset, and axes to broadcast with stride 0 (inputs only)."""
    order: str = "bhsd"
    row_gap: int = 0
    d_step: int = 1
    offset: int = 0
    broadcast: str = ""
    junk: int = 0  # stride given to every axis of length 1 (any value is legal there)

    def tag(self) -> str:
        t = self.order
        if self.row_gap:
            t += f"+gap{self.row_gap}"
        if self.d_step != 1:
            t += f"+dstep{self.d_step}"
        if self.offset:
            t += f"+off{self.offset}"
        if self.broadcast:
            t += f"+bcast_{self.broadcast}"
        if self.junk:
            t += f"+junk{self.junk}"
        return t


BHSD = Layout()
BSHD = Layout("bshd")
SBHD = Layout("sbhd")
# the Gluon kernels' GPU tests' layouts: padded rows TMA can read, rows it cannot (not 16-byte aligned), and a
# head-dim stride of 2 (which it cannot either)
TMA_PAD = Layout("bshd", row_gap=64, offset=8)
TMA_ODD = Layout("bshd", row_gap=3, offset=1)
SBHD_DSTEP = Layout("sbhd", d_step=2)


def strided(dims, layout: Layout, dtype, fill: Optional[torch.Tensor] = None, gen=None):
    """(view, buffer): a view with logical ``dims`` stored as ``layout`` in a NaN buffer.

    With ``fill`` given (logical dims), the view holds it; broadcast axes take
    stride 0 (fill must then be constant along them: we take index 0).
    """
    dims = list(dims)
    axis = {"b": 0, "h": 1, "s": 2, "d": 3}
    stored = list(dims)
    for a in layout.broadcast:
        stored[axis[a]] = 1
    strides = [0, 0, 0, 0]
    step = 1
    for pos, name in enumerate(reversed(layout.order)):
        ax = axis[name]
        if name == "d":
            strides[ax] = step * layout.d_step
            step = strides[ax] * max(stored[ax], 1) + layout.row_gap
        else:
            strides[ax] = step
            step *= max(stored[ax], 1)
    span = 1 + sum((n - 1) * s for n, s in zip(stored, strides) if n > 0)
    buf = torch.full((layout.offset + span + 7,), float("nan"), dtype=dtype, device=DEVICE)
    for a in layout.broadcast:
        strides[axis[a]] = 0
    if layout.junk:
        strides = [layout.junk if n == 1 else st for n, st in zip(dims, strides)]
    view = torch.as_strided(buf, dims, strides, layout.offset)
    if fill is not None:
        src = fill
        for a in layout.broadcast:
            src = src.narrow(axis[a], 0, 1)
        base = torch.as_strided(buf, stored, [st if (st and n > 1) else 1 for n, st in zip(stored, strides)],
                                layout.offset)
        base.copy_(src.to(dtype))
    return view, buf


def random_input(dims, layout: Layout, dtype, gen):
    data = torch.randn(dims, generator=gen, dtype=torch.float32).to(DEVICE)
    for ax, a in enumerate("bhsd"):
        if a in layout.broadcast:
            data = data.narrow(ax, 0, 1).expand_as(data)
    view, _ = strided(dims, layout, dtype, fill=data)
    return view


def check_poisoned_output(name, view, buf):
    """Every element of the view written (finite); everything else in buf still NaN."""
    written = torch.isfinite(view)
    assert written.all(), (f"{name}: {(~written).sum().item()} of {view.numel()} elements not written "
                           f"(first at {tuple(torch.nonzero(~written)[0].tolist())})")
    mark = torch.zeros(buf.numel(), dtype=torch.bool, device=buf.device)
    idx = torch.as_strided(torch.arange(buf.numel(), device=buf.device), view.shape, view.stride(),
                           view.storage_offset())
    mark[idx.reshape(-1)] = True
    outside = buf[~mark]
    bad = ~torch.isnan(outside)
    assert not bad.any(), f"{name}: {bad.sum().item()} elements overwritten outside its boundaries"


# ----------------------------------------------------------------------------
# Cases


@dataclasses.dataclass(frozen=True)
class Case:
    B: int = 2
    H_q: int = 2
    H_k: int = 2
    H_v: int = 2
    S_q: int = 24
    S_kv: int = 24
    D_qk: int = 32
    D_v: int = 32
    dtype: str = "fp16"
    left_bound: Optional[int] = None
    right_bound: Optional[int] = None
    alignment: str = "top_left"
    scale: Optional[float] = None
    q: Layout = BHSD
    k: Layout = BHSD
    v: Layout = BHSD
    o: Layout = BHSD
    do: Layout = BHSD
    dq: Layout = BHSD
    dk: Layout = BHSD
    dv: Layout = BHSD
    stats: Layout = BHSD  # stats stored as (B, H, S, 1) with this layout
    deterministic: bool = False
    seed: int = 0

    def id(self) -> str:
        default = Case()
        parts = []
        for f in dataclasses.fields(self):
            val = getattr(self, f.name)
            if val != getattr(default, f.name):
                parts.append(f"{f.name}={val.tag() if isinstance(val, Layout) else val}")
        return ",".join(parts) or "default"

    def repro(self) -> str:
        """A command that reruns exactly this case (from the repository root)."""
        return (f"cd tests && PYTHONPATH=../src python -c "
                f"\"from test_triton_kernels import *; run_case({self!r})\"")


def _err(a, ref):
    return (a.double() - ref.double()).abs().max().item() if a.numel() else 0.0


def _assert_close(name, ours, ref64, same_dtype, dtype, case, k_factor=4.0):
    err = _err(ours, ref64)
    ref_err = _err(same_dtype, ref64)
    scale = max(ref64.abs().max().item(), 1e-3) if ref64.numel() else 1.0
    floor = 8 * EPS[dtype] * scale
    bound = k_factor * ref_err + floor
    if not (err <= bound):  # also catches NaN
        diff = (ours.double() - ref64.double()).abs().nan_to_num(float("inf"))
        where = tuple(torch.nonzero(diff == diff.max())[0].tolist())
        raise AssertionError(f"{name}: max error {err:.3e} > {bound:.3e} (= {k_factor} x same-dtype error "
                             f"{ref_err:.3e} + floor {floor:.3e}) at {where}; ours {ours[where].item()} "
                             f"ref {ref64[where].item()}\nrepro: {case.repro()}")


def run_case(case: Case):
    dtype = DTYPES[case.dtype]
    gen = torch.Generator().manual_seed(case.seed)
    B, Hq, Sq, Skv = case.B, case.H_q, case.S_q, case.S_kv
    q = random_input((B, Hq, Sq, case.D_qk), case.q, dtype, gen)
    k = random_input((B, case.H_k, Skv, case.D_qk), case.k, dtype, gen)
    v = random_input((B, case.H_v, Skv, case.D_v), case.v, dtype, gen)
    do = random_input((B, Hq, Sq, case.D_v), case.do, dtype, gen)
    kw = dict(scale=case.scale, left_bound=case.left_bound, right_bound=case.right_bound,
              alignment=case.alignment)

    # Forward: ours into poisoned O and stats, vs the oracle.
    o_out, o_buf = strided((B, Hq, Sq, case.D_v), case.o, dtype)
    st_out4, st_buf = strided((B, Hq, Sq, 1), case.stats, torch.float32)
    o, stats = launch.attention_forward(q, k, v, o=o_out, stats=st_out4[..., 0], **kw)
    check_poisoned_output("o", o_out, o_buf)
    ref_o, ref_stats = oracle.forward(q, k, v, **kw)
    same_o, _ = oracle.forward(q, k, v, compute_dtype=dtype, **kw)
    _assert_close("o", o, ref_o, same_o, dtype, case)
    finite = torch.isfinite(ref_stats)
    assert torch.equal(torch.isfinite(stats), finite), f"stats: -inf pattern differs\nrepro: {case.repro()}"
    assert (stats[~finite] == float("-inf")).all()
    if finite.any():
        stats_bound = 1e-3 * (1 + ref_stats[finite].abs().max().item())
        assert _err(stats[finite], ref_stats[finite]) <= stats_bound, f"stats differ\nrepro: {case.repro()}"


    # Backward from O/stats given in the input dtype (o in the case's own O layout, stats (B,H,S,1)).
    o_in, _ = strided((B, Hq, Sq, case.D_v), case.o, dtype, fill=ref_o)
    st_in, _ = strided((B, Hq, Sq, 1), case.stats, torch.float32, fill=ref_stats[..., None])
    outs = {}
    for name, lay, ref_t in (("dq", case.dq, q), ("dk", case.dk, k), ("dv", case.dv, v)):
        outs[name] = strided(tuple(ref_t.shape), lay, dtype)
    dq, dk, dv = launch.attention_backward(q, k, v, o_in, do, st_in, deterministic=case.deterministic,
                                           dq=outs["dq"][0], dk=outs["dk"][0], dv=outs["dv"][0], **kw)
    for name, (view, buf) in outs.items():
        check_poisoned_output(name, view, buf)
    ref = oracle.backward(q, k, v, o_in, do, st_in, **kw)
    same = oracle.backward(q, k, v, o_in, do, st_in, compute_dtype=dtype, **kw)
    for name, ours, r, s in zip(("dq", "dk", "dv"), (dq, dk, dv), ref[:3], same[:3]):
        _assert_close(name, ours, r, s, dtype, case)

    if case.deterministic:
        again = launch.attention_backward(q, k, v, o_in, do, st_in, deterministic=True, **kw)
        for name, a, b in zip(("dq", "dk", "dv"), (dq, dk, dv), again):
            assert torch.equal(a, b), f"{name}: deterministic backward differs run to run\nrepro: {case.repro()}"


PAD = Layout("bshd", row_gap=8, offset=3)
DSTEP = Layout("bhsd", d_step=2, offset=1)
SHBD = Layout("shbd", row_gap=5)
DHSB = Layout("dhsb")  # head dim outermost: innermost stride is the batch's

CASES = [
    Case(),
    Case(dtype="bf16", seed=1),
    Case(dtype="fp32", seed=2),
    # layouts
    Case(q=BSHD, k=BSHD, v=BSHD, o=BSHD, do=BSHD, dq=BSHD, dk=BSHD, dv=BSHD, seed=3),
    Case(q=SBHD, k=SBHD, v=SBHD, o=SBHD, do=SBHD, dq=SBHD, dk=SBHD, dv=SBHD, seed=4),
    Case(q=PAD, k=PAD, v=PAD, o=PAD, do=PAD, dq=PAD, dk=PAD, dv=PAD, seed=5),
    Case(q=DSTEP, k=DSTEP, v=DSTEP, o=DSTEP, do=DSTEP, dq=DSTEP, dk=DSTEP, dv=DSTEP, seed=6),
    Case(q=DHSB, k=SHBD, v=BSHD, o=SBHD, do=PAD, dq=SHBD, dk=DHSB, dv=SBHD, stats=Layout("shbd", row_gap=0), seed=7),
    # dO stored unlike O, dQ/dK/dV unlike Q/K/V, stats not packed
    Case(o=BSHD, do=SBHD, dq=SBHD, dk=BSHD, dv=PAD, stats=Layout("sbhd", offset=5), seed=8),
    Case(stats=Layout("hbsd", row_gap=3, offset=2), q=BSHD, seed=9),
    # zero (broadcast) strides on inputs
    Case(q=Layout(broadcast="b"), k=Layout("bshd", broadcast="h"), v=Layout(broadcast="bh"),
         do=Layout(broadcast="b"), H_k=2, H_v=2, seed=10),
    Case(B=1, H_q=1, H_k=1, H_v=1, q=Layout("sbhd", row_gap=4), seed=11),
    # junk strides on size-1 axes, inputs and outputs
    Case(B=1, H_q=2, H_k=1, H_v=1, q=Layout("bshd", junk=77777), k=Layout(junk=5), v=Layout("sbhd", junk=3),
         do=Layout(junk=1 << 33), dq=Layout("sbhd", junk=999), dk=Layout(junk=12345), dv=Layout(junk=0),
         stats=Layout(junk=31), seed=44),
    # GQA / MQA with H_k != H_v
    Case(H_q=4, H_k=2, H_v=1, seed=12),
    Case(H_q=4, H_k=1, H_v=2, q=BSHD, k=SBHD, v=PAD, seed=13),
    Case(H_q=6, H_k=3, H_v=2, B=1, seed=14),
    Case(H_q=4, H_k=1, H_v=1, seed=15),
    Case(H_q=4, H_k=2, H_v=1, deterministic=True, seed=16),
    # head dims
    Case(D_qk=40, D_v=24, seed=17),
    Case(D_qk=16, D_v=48, dtype="bf16", seed=18),
    Case(D_qk=96, D_v=64, S_q=17, S_kv=19, B=1, H_q=1, H_k=1, H_v=1, seed=19),
    Case(D_qk=256, D_v=192, S_q=18, S_kv=21, B=1, H_q=2, H_k=1, H_v=2, dtype="bf16", right_bound=0, seed=45),
    Case(D_qk=192, D_v=256, S_q=16, S_kv=16, B=1, H_q=1, H_k=1, H_v=1, deterministic=True, seed=46),
    # lengths: odd, S_q != S_kv both ways
    Case(S_q=17, S_kv=41, seed=20),
    Case(S_q=45, S_kv=13, seed=21),
    Case(S_q=1, S_kv=33, seed=22),
    Case(S_q=33, S_kv=1, seed=23),
    # masks
    Case(right_bound=0, seed=24),
    Case(right_bound=0, alignment="bottom_right", S_q=13, S_kv=37, seed=25),
    Case(right_bound=0, alignment="bottom_right", S_q=37, S_kv=13, seed=26),  # rows with no key
    Case(right_bound=0, S_q=37, S_kv=13, seed=27),
    Case(left_bound=5, right_bound=0, seed=28),
    Case(left_bound=3, right_bound=2, S_q=40, S_kv=35, alignment="bottom_right", seed=29),
    Case(left_bound=1, right_bound=0, seed=30),  # diagonal only
    Case(left_bound=7, seed=31),
    Case(right_bound=9, seed=32),
    Case(left_bound=100, right_bound=100, seed=33),
    Case(left_bound=2, right_bound=1, S_q=40, S_kv=10, alignment="top_left", seed=34),  # many empty rows
    # scale
    Case(scale=-0.7, seed=35),
    Case(scale=0.01, right_bound=0, dtype="bf16", seed=36),
    Case(scale=2.5, dtype="fp32", left_bound=6, seed=37),
    # determinism
    Case(deterministic=True, right_bound=0, seed=38),
    Case(deterministic=True, dtype="bf16", q=SBHD, dq=PAD, seed=39),
]


@pytest.fixture(params=["auto", "on"], ids=["tma-auto", "tma-on"])
def tma_mode(request):
    """Each case twice: TMA as launched by default (pointers on the CPU), and forced on
    wherever the tensor allows it, so the descriptor path is checked here too."""
    before = launch.TMA_MODE
    launch.set_tma_mode(request.param)
    yield request.param
    launch.set_tma_mode(before)


@pytest.mark.parametrize("case", CASES, ids=[c.id() for c in CASES])
def test_backward_case(case, tma_mode):
    run_case(case)


# The DKDV pass split into a dK pass and a dV pass although H_k == H_v (BackwardConfig.split_dkdv):
# layouts, head dims up to 256, masks with empty rows, deterministic and atomic dQ.
SPLIT_DKDV_CASES = [CASES[i] for i in (0, 4, 7, 10, 16, 22, 30, 38)] + [
    Case(D_qk=256, D_v=256, S_q=19, S_kv=23, B=1, H_q=2, H_k=1, H_v=1, dtype="bf16", right_bound=0, seed=48),
]
assert all(c.H_k == c.H_v for c in SPLIT_DKDV_CASES), "H_k != H_v splits the pass anyway"


def patched_table(monkeypatch, name: str, **changes) -> list:
    """Replace the launcher's config table ``launch.<name>`` (forward_config / backward_config) by one whose
    every entry has ``changes``; returns the list of the configs it handed out, so that a test can check the
    launcher took it. Patching a table switches the Gluon kernel of that direction off for the test."""
    table, seen = getattr(launch, name), []
    if name == "forward_config":  # a forward table is the Triton forward's: the Gluon one would bypass it
        monkeypatch.setattr(launch, "GLUON_FORWARD", "off")
    if name == "backward_config":  # likewise for the backward
        monkeypatch.setattr(launch, "GLUON_BACKWARD", "off")

    def patched(*args, **kwargs):
        cfg = dataclasses.replace(table(*args, **kwargs), **changes)
        seen.append(cfg)
        return cfg

    monkeypatch.setattr(launch, name, patched)
    return seen


@pytest.mark.parametrize("case", SPLIT_DKDV_CASES, ids=[c.id() for c in SPLIT_DKDV_CASES])
def test_backward_case_with_the_dkdv_pass_split(case, monkeypatch):
    seen = patched_table(monkeypatch, "backward_config", split_dkdv=True)
    run_case(case)
    assert seen, "the launcher did not take the patched table"


def test_tma_path_is_taken_where_the_layout_allows_it(monkeypatch):
    launch.set_tma_mode("on")
    try:
        seen = []
        real = launch._use_tma
        monkeypatch.setattr(launch, "_use_tma", lambda *t: seen.append(real(*t)) or seen[-1])
        # deterministic: the separate DQ pass (the interpreter's default is atomic dQ)
        run_case(Case(q=BSHD, k=SBHD, v=BSHD, o=BSHD, do=SBHD, S_q=40, S_kv=24, D_qk=40, D_v=24,
                      deterministic=True, seed=50))
        # forward, DKDV, DQ, then DKDV, DQ again for the determinism check
        assert seen == [True] * 5, f"forward, DKDV, DQ should read through descriptors: {seen}"
        seen.clear()
        run_case(Case(q=PAD, k=DSTEP, v=PAD, do=Layout("bshd", row_gap=3), deterministic=True, seed=51))
        assert seen == [False] * 5, f"misaligned rows and a head-dim stride of 2 take pointers: {seen}"
    finally:
        launch.set_tma_mode("auto")


@pytest.mark.parametrize("dims,strides,offset,dtype,ok", [
    ((2, 3, 8, 32), (768, 256, 32, 1), 0, torch.float16, True),        # BHSD
    ((2, 3, 8, 32), (768, 32, 96, 1), 0, torch.float16, True),         # BSHD
    ((2, 3, 8, 32), (96, 32, 192, 1), 0, torch.float16, True),         # SBHD
    ((2, 3, 8, 32), (768, 32, 99, 1), 0, torch.float16, False),        # row pitch 198 bytes
    ((2, 3, 8, 32), (768, 256, 32, 1), 3, torch.float16, False),       # base 6 bytes off
    ((2, 3, 8, 32), (768, 256, 64, 2), 0, torch.float16, False),       # head-dim stride 2
    ((2, 3, 8, 32), (768, 0, 32, 1), 0, torch.float16, True),          # heads broadcast
    ((2, 3, 8, 32), (768, 256, 0, 1), 0, torch.float16, False),        # rows broadcast
    ((2, 3, 8, 32), (768, 256, 16, 1), 0, torch.float16, False),       # rows overlap
    ((1, 3, 8, 32), (5, 256, 32, 1), 0, torch.float16, True),          # junk stride on B = 1
    ((2, 3, 8, 32), (771, 256, 32, 1), 0, torch.float16, False),       # batch base misaligned
    ((2, 3, 8, 12), (288, 96, 12, 1), 0, torch.float32, True),         # 48-byte rows
    ((2, 3, 1, 32), (96, 32, 32, 1), 0, torch.float16, False),         # one row: pointers
])
def test_tma_eligibility(dims, strides, offset, dtype, ok):
    need = offset + sum((n - 1) * s for n, s in zip(dims, strides)) + 1
    t = torch.randn(need + 8, dtype=torch.float32).to(dtype).as_strided(dims, strides, offset)
    launch.set_tma_mode("on")
    try:
        assert launch._tma_ok(t) is ok, f"dims {dims} strides {strides} offset {offset}"
        launch.set_tma_mode("off")
        assert launch._tma_ok(t) is False
        launch.set_tma_mode("auto")
        assert launch._tma_ok(t) is (ok and t.device.type == "cuda")
    finally:
        launch.set_tma_mode("auto")
    with pytest.raises(ValueError, match="TMA mode 'sometimes'"):
        launch.set_tma_mode("sometimes")


def test_case_ids_unique():
    ids = [c.id() for c in CASES]
    assert len(ids) == len(set(ids))


def test_atomic_and_separate_dq_agree():
    """Both dQ strategies compute the same function (up to summation order)."""
    gen = torch.Generator().manual_seed(40)
    dims = (1, 2, 29, 32)
    q, k, v, do = (torch.randn(dims, generator=gen).to(DEVICE, torch.float16) for _ in range(4))
    o, st = launch.attention_forward(q, k, v, right_bound=3)
    base = launch.backward_config(32, 32, torch.float16, DEVICE, False)
    res = {}
    for mode in ("atomic", "separate"):
        cfg = launch.with_dq_mode(base, mode)
        res[mode] = launch.attention_backward(q, k, v, o, do, st, right_bound=3, config=cfg)
    for a, b in zip(res["atomic"], res["separate"]):
        assert (a.float() - b.float()).abs().max().item() < 4e-3


# ----------------------------------------------------------------------------
# PyTorch integration


def _ref_grads(q, k, v, do, **kw):
    o, st = oracle.forward(q, k, v, **kw)
    return oracle.backward(q, k, v, o, do, st, **kw)[:3]


def test_autograd_attention_matches_oracle():
    gen = torch.Generator().manual_seed(41)
    q = torch.randn(2, 4, 19, 32, generator=gen).to(DEVICE).requires_grad_()
    k = torch.randn(2, 2, 23, 32, generator=gen).to(DEVICE).requires_grad_()
    v = torch.randn(2, 1, 23, 16, generator=gen).to(DEVICE).requires_grad_()
    o = ops.attention(q, k, v, causal=True, alignment="bottom_right")
    do = torch.randn(o.shape, generator=gen).to(DEVICE)
    o.backward(do)
    ref = _ref_grads(q.detach(), k.detach(), v.detach(), do, right_bound=0, alignment="bottom_right")
    for g, r in zip((q.grad, k.grad, v.grad), ref):
        assert _err(g, r) < 1e-4


def test_attention_under_torch_compile():
    gen = torch.Generator().manual_seed(42)
    q = torch.randn(1, 2, 21, 16, generator=gen).to(DEVICE).requires_grad_()
    k = torch.randn(1, 2, 21, 16, generator=gen).to(DEVICE).requires_grad_()
    v = torch.randn(1, 2, 21, 16, generator=gen).to(DEVICE).requires_grad_()

    def loss(q, k, v):
        return (ops.attention(q, k, v, left_bound=4) * 1.5).sum()

    compiled = torch.compile(loss, backend="aot_eager", fullgraph=True)
    compiled(q, k, v).backward()
    ref = _ref_grads(q.detach(), k.detach(), v.detach(), torch.full((1, 2, 21, 16), 1.5, dtype=torch.float64),
                     left_bound=4)
    for g, r in zip((q.grad, k.grad, v.grad), ref):
        assert _err(g, r) < 1e-4


def test_custom_ops_pass_opcheck():
    """Schema, fake and autograd registrations agree with the real kernels (strides included)."""
    gen = torch.Generator().manual_seed(48)
    q = torch.randn(1, 17, 2, 16, generator=gen).to(DEVICE).transpose(1, 2).requires_grad_()  # BSHD
    k = torch.randn(1, 2, 19, 16, generator=gen).to(DEVICE).requires_grad_()
    v = torch.randn(1, 1, 19, 16, generator=gen).to(DEVICE).requires_grad_()
    torch.library.opcheck(torch.ops.sdpa_bwd.attention_forward.default, (q, k, v, 0.25, None, 0, "top_left"),
                          test_utils=("test_schema", "test_faketensor", "test_aot_dispatch_dynamic"))
    o, st = ops.forward(q.detach(), k.detach(), v.detach(), scale=0.25, right_bound=0)
    do = torch.randn(o.shape, generator=gen).to(DEVICE)
    torch.library.opcheck(torch.ops.sdpa_bwd.attention_backward.default,
                          (q.detach(), k.detach(), v.detach(), o, do, st, 0.25, None, 0, "top_left", True),
                          test_utils=("test_schema", "test_faketensor"))


def test_functional_forms_write_given_outputs():
    gen = torch.Generator().manual_seed(43)
    q = torch.randn(1, 2, 18, 32, generator=gen).to(DEVICE, torch.bfloat16)
    k = torch.randn(1, 2, 18, 32, generator=gen).to(DEVICE, torch.bfloat16)
    v = torch.randn(1, 2, 18, 32, generator=gen).to(DEVICE, torch.bfloat16)
    do = torch.randn(1, 2, 18, 32, generator=gen).to(DEVICE, torch.bfloat16)
    o, st = ops.forward(q, k, v, causal=True)
    dq = torch.full((1, 18, 2, 32), float("nan"), dtype=torch.bfloat16, device=DEVICE).transpose(1, 2)
    out = ops.backward(q, k, v, o, do, st, causal=True, dq=dq)
    assert out[0] is dq and torch.isfinite(dq).all()


def test_rejects_causal_with_other_right_bound():
    q = torch.randn(1, 1, 4, 16)
    with pytest.raises(ValueError, match="causal"):
        ops.forward(q, q, q, causal=True, right_bound=2)


def test_rejects_broadcast_output():
    q = torch.randn(2, 1, 16, 16, device=DEVICE)
    o, st = launch.attention_forward(q, q, q)
    dq = torch.empty(1, 1, 16, 16, device=DEVICE).expand(2, 1, 16, 16)
    with pytest.raises(ValueError, match="stride"):
        launch.attention_backward(q, q, q, o, o, st, dq=dq)


def _malformed_calls():
    """(what is wrong, a call through the public API or the launcher that must raise ValueError)."""
    x = lambda *dims, dtype=torch.float32: torch.randn(*dims, dtype=dtype, device=DEVICE)  # noqa: E731
    q = x(1, 4, 8, 16)
    o, st = launch.attention_forward(q, q, q)
    return [
        ("3-dim q", lambda: ops.attention(x(4, 8, 16), x(4, 8, 16), x(4, 8, 16))),
        ("batch sizes", lambda: ops.attention(q, x(2, 4, 8, 16), x(2, 4, 8, 16))),
        ("K head dim", lambda: ops.attention(q, x(1, 4, 8, 32), x(1, 4, 8, 16))),
        ("V length", lambda: ops.attention(q, x(1, 4, 8, 16), x(1, 4, 9, 16))),
        ("K heads", lambda: ops.attention(q, x(1, 3, 8, 16), x(1, 3, 8, 16))),
        ("dtypes", lambda: ops.attention(q, x(1, 4, 8, 16, dtype=torch.float16), x(1, 4, 8, 16))),
        ("alignment", lambda: ops.attention(q, q, q, causal=True, alignment="centre")),
        ("left bound", lambda: ops.attention(q, q, q, left_bound=0)),
        ("right bound", lambda: ops.attention(q, q, q, right_bound=-1)),
        ("output dims", lambda: launch.attention_backward(q, q, q, o, o, st, dq=x(1, 4, 8, 32))),
        ("output dtype", lambda: launch.attention_forward(q, q, q, o=x(1, 4, 8, 16, dtype=torch.float16))),
        ("stats dims", lambda: launch.attention_backward(q, q, q, o, o, st[:, :2])),
        ("stats dtype", lambda: launch.attention_backward(q, q, q, o, o, st.double())),
    ]


def test_every_malformed_call_says_what_it_saw_the_rule_and_what_to_do():
    """A malformed call through the public API or the launcher raises ValueError naming what was seen (a value
    of the call), the rule (expected / must / share / rule) and what to do (' - pass' or ' - cast' ...)."""
    for what, call in _malformed_calls():
        with pytest.raises(ValueError) as e:
            call()
        msg = str(e.value)
        assert any(w in msg for w in ("expected", "must", "share", "rule")), (what, msg)
        assert " - " in msg and any(w in msg.split(" - ", 1)[1] for w in ("pass", "cast")), (what, msg)


# ----------------------------------------------------------------------------
# Declines


def test_declines_name_value_and_rule():
    reasons = launch.triton_not_supported_reasons(device_type="cuda", dtype=torch.float64, d_qk=320, d_v=64)
    assert any("float64" in r for r in reasons)
    assert any("D_qk = 320" in r for r in reasons)
    assert not any("D_v" in r for r in reasons)
    assert launch.triton_not_supported_reasons(device_type="cuda", dtype="bfloat16", d_qk=256, d_v=96) == []
    cpu = launch.triton_not_supported_reasons(device_type="cpu", dtype=torch.float16, d_qk=64, d_v=64,
                                              interpreter=False)
    assert cpu and "TRITON_INTERPRET" in cpu[0]


def test_unsupported_raises_with_reasons():
    q = torch.randn(1, 1, 4, 16, dtype=torch.float64, device=DEVICE)
    with pytest.raises(NotImplementedError, match="float64"):
        launch.attention_forward(q, q, q)


def test_backward_reads_3d_stats_through_its_strides():
    """stats given as (B, H_q, S_q), stored S-major with a gap, not packed."""
    gen = torch.Generator().manual_seed(47)
    B, H, S, D = 2, 3, 21, 32
    q, k, v, do = (torch.randn(B, H, S, D, generator=gen).to(DEVICE, torch.float16) for _ in range(4))
    o, st = launch.attention_forward(q, k, v, left_bound=9)
    st_buf = torch.full((S, B, H + 2), float("nan"), device=DEVICE)
    st3 = st_buf[:, :, :H].permute(1, 2, 0)
    st3.copy_(st)
    ours = launch.attention_backward(q, k, v, o, do, st3, left_bound=9)
    ref = launch.attention_backward(q, k, v, o, do, st.contiguous(), left_bound=9)
    for a, b in zip(ours, ref):
        assert torch.equal(a, b)


@pytest.mark.parametrize("S_q,S_kv", [(0, 5), (5, 0), (0, 0)])
def test_empty_lengths(S_q, S_kv):
    q = torch.randn(1, 2, S_q, 16, device=DEVICE)
    k = torch.randn(1, 2, S_kv, 16, device=DEVICE)
    o, st = launch.attention_forward(q, k, k)
    assert o.shape == (1, 2, S_q, 16) and (o == 0).all() and (st == float("-inf")).all()
    dq, dk, dv = launch.attention_backward(q, k, k, o, torch.randn_like(o), st)
    assert (dq == 0).all() and (dk == 0).all() and (dv == 0).all()
