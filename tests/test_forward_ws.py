"""The warp-specialised forward (kernels.attention_fwd_ws, ForwardConfig.warp_specialize) against the float64
oracle and the general kernel, and the launcher's choice of it, on the CPU under TRITON_INTERPRET=1 (the
interpreter runs the loop unspecialised; tests/gpu runs it specialised). Inputs are fresh random numbers;
O is written into a NaN-filled buffer whose margins must stay NaN while every element of O is written."""

import dataclasses
import os
import sys

import torch

if not torch.cuda.is_available():
    os.environ.setdefault("TRITON_INTERPRET", "1")

import pytest  # noqa: E402

from sdpa_bwd import launch, oracle  # noqa: E402

DEVICE = "cuda" if torch.cuda.is_available() else "cpu"
WS = launch.ForwardConfig(16, 16, num_warps=4, num_stages=1, warp_specialize=True)
EPS = {torch.float16: 2.0 ** -10, torch.bfloat16: 2.0 ** -7}


@pytest.fixture(autouse=True)
def tma_on():
    before = launch.TMA_MODE
    launch.set_tma_mode("on")  # the interpreter reads descriptors too; "auto" keeps them for CUDA
    yield
    launch.set_tma_mode(before)


def _inputs(B, H_q, H_kv, S_q, S_kv, D_qk, D_v, dtype, order, seed):
    gen = torch.Generator().manual_seed(seed)

    def make(H, S, D):
        t = torch.randn(B, H, S, D, generator=gen).to(dtype)
        if order == "bshd":
            return t.transpose(1, 2).contiguous().transpose(1, 2).to(DEVICE)
        return t.to(DEVICE)
    return make(H_q, S_q, D_qk), make(H_kv, S_kv, D_qk), make(H_kv, S_kv, D_v)


def _nan_output(B, H, S, D, dtype, order):
    """O as a view into a NaN-filled buffer with 8 spare columns a row (row pitch still 16-byte aligned)."""
    if order == "bshd":
        buf = torch.full((B, S, H, D + 8), float("nan"), dtype=dtype, device=DEVICE)
        return buf, buf[..., :D].transpose(1, 2)
    buf = torch.full((B, H, S, D + 8), float("nan"), dtype=dtype, device=DEVICE)
    return buf, buf[..., :D]


CASES = [  # B, H_q, H_kv, S_q, S_kv, D_qk, D_v, dtype, order
    (1, 2, 2, 29, 37, 32, 32, torch.float16, "bhsd"),
    (2, 4, 2, 40, 24, 24, 24, torch.bfloat16, "bshd"),  # GQA, D padded 24 -> 32, key tail of 8
    (1, 2, 1, 17, 50, 64, 64, torch.bfloat16, "bhsd"),  # MQA, one query block with a tail
    (1, 1, 1, 33, 16, 16, 16, torch.float16, "bshd"),
]


@pytest.mark.parametrize("case", CASES, ids=[f"{c[7]}-{c[8]}-S{c[3]}x{c[4]}-D{c[5]}-H{c[1]}/{c[2]}" for c in CASES])
def test_ws_forward_matches_the_oracle_and_the_general_kernel(case):
    B, H_q, H_kv, S_q, S_kv, D_qk, D_v, dtype, order = case
    q, k, v = _inputs(B, H_q, H_kv, S_q, S_kv, D_qk, D_v, dtype, order, seed=S_q * 7 + S_kv)
    buf, o = _nan_output(B, H_q, S_q, D_v, dtype, order)
    assert launch._ws_forward_ok(WS, q, k, v, o, launch.head_dim_pad(D_qk), launch.head_dim_pad(D_v), False, False), \
        "the case must take the warp-specialised kernel, or this test checks the general one"
    o_ws, st_ws = launch.attention_forward(q, k, v, o=o, config=WS)
    o_gen, st_gen = launch.attention_forward(q, k, v, config=launch.ForwardConfig(16, 16, 4, 1))
    o64, st64 = oracle.forward(q.double(), k.double(), v.double())
    assert not torch.isnan(o_ws).any(), "an element of O was not written (still NaN)"
    margin = buf[..., D_v:]
    assert torch.isnan(margin).all(), "the kernel wrote past O's last column"
    scale = o64.abs().max().item()
    err_ws = (o_ws.double() - o64).abs().max().item()
    err_gen = (o_gen.double() - o64).abs().max().item()
    bound = 2 * err_gen + 4 * EPS[dtype] * scale
    assert err_ws <= bound, (f"O: max error {err_ws:.3g} against the float64 oracle, the general kernel's "
                             f"{err_gen:.3g}; bound {bound:.3g} (2 x the general kernel's + 4 units of rounding)")
    st_err = (st_ws.double() - st64).abs().max().item()
    assert st_err <= 1e-3, f"stats (natural-log LSE): max error {st_err:.3g} against the oracle, bound 1e-3"
    assert (st_ws - st_gen).abs().max().item() <= 1e-4, "stats differ from the general kernel's"


def _chosen(monkeypatch, *args, config=WS, **kwargs):
    seen = []
    real = launch._ws_forward_ok
    monkeypatch.setattr(launch, "_ws_forward_ok", lambda *a: seen.append(real(*a)) or seen[-1])
    launch.attention_forward(*args, config=config, **kwargs)
    return seen


def test_the_launcher_takes_the_ws_kernel_only_where_it_addresses_the_problem(monkeypatch):
    q, k, v = _inputs(1, 2, 2, 20, 20, 32, 32, torch.float16, "bhsd", seed=3)
    assert _chosen(monkeypatch, q, k, v) == [True]
    assert _chosen(monkeypatch, q, k, v, right_bound=0) == [False], "a band takes the general kernel"
    assert _chosen(monkeypatch, q, k, v, left_bound=4) == [False]
    assert _chosen(monkeypatch, q.float(), k.float(), v.float()) == [False], "fp32 takes the general kernel"
    strided = torch.randn(1, 2, 20, 64, dtype=torch.float16, device=DEVICE)[..., ::2]  # head-dim stride 2
    assert _chosen(monkeypatch, strided, k, v) == [False], "a layout TMA cannot read takes the general kernel"
    _, _, v64 = _inputs(1, 2, 2, 20, 20, 32, 64, torch.float16, "bhsd", seed=4)
    assert _chosen(monkeypatch, q, k, v64) == [False], "D_qk and D_v of different widths take the general kernel"
    for change in (dict(num_stages=3), dict(num_warps=8), dict(warp_specialize=False)):
        assert _chosen(monkeypatch, q, k, v, config=dataclasses.replace(WS, **change)) == [False], (
            f"{change}: Triton 3.6 specialises 4 warps only and computed NaN on 3 stages (runs 36-37)")
    launch.set_tma_mode("off")
    assert _chosen(monkeypatch, q, k, v) == [False], "with TMA off every forward takes the general kernel"


def test_no_table_turns_the_ws_kernel_on():
    for dtype in (torch.float16, torch.bfloat16, torch.float32):
        for d in (16, 32, 64, 128, 256):
            assert not launch.forward_config(d, d, dtype, "cuda").warp_specialize, (
                f"{dtype} D {d}: the warp-specialised forward is in a table before an A/B and the full plan "
                "on the GPU measured it (tools/ab_perf.py --table s11)")


def ws_table(monkeypatch, block_n=16, block_m=16, stages=1):
    """Patch launch.forward_config to ask for the warp-specialised kernel wherever it could run (16-bit, D up
    to 128); returns the list of _ws_forward_ok's answers, one per forward."""
    table, real, seen = launch.forward_config, launch._ws_forward_ok, []

    def ws(d_qk_pad, d_v_pad, dtype, device_type):
        cfg = table(d_qk_pad, d_v_pad, dtype, device_type)
        if dtype == torch.float32 or max(d_qk_pad, d_v_pad) > 128:
            return cfg
        return dataclasses.replace(cfg, block_m=block_m, block_n=block_n, num_warps=4, num_stages=stages,
                                   warp_specialize=True)

    monkeypatch.setattr(launch, "forward_config", ws)
    monkeypatch.setattr(launch, "_ws_forward_ok", lambda *a: seen.append(real(*a)) or seen[-1])
    return seen


def _ws_candidates(cases):
    """Cases the warp-specialised kernel may take: 16-bit, no band, D_qk and D_v of one padded width <= 128."""
    return [c for c in cases if c.dtype != "fp32" and c.left_bound is None and c.right_bound is None
            and launch.head_dim_pad(c.D_qk) == launch.head_dim_pad(c.D_v) <= 128]


def _kernel_cases():
    sys.path.insert(0, os.path.dirname(__file__))
    import test_triton_kernels as tk
    return tk, _ws_candidates(tk.CASES)


_TK, WS_CASES = _kernel_cases()


@pytest.mark.parametrize("case", WS_CASES, ids=[c.id() for c in WS_CASES])
def test_kernel_cases_with_the_ws_forward(case, monkeypatch):
    """test_triton_kernels' cases that the kernel may take, through run_case (poisoned buffers, the oracle,
    the backward from its O and stats); the layouts TMA cannot read must fall back to the general kernel."""
    seen = ws_table(monkeypatch)
    _TK.run_case(case)
    assert seen, "the launcher did not consult _ws_forward_ok"


def test_some_kernel_cases_take_the_ws_kernel():
    """The parametrised test above checks the WS kernel only if some of its cases reach it."""
    taken = []
    for c in WS_CASES:
        dtype, gen = _TK.DTYPES[c.dtype], torch.Generator().manual_seed(c.seed)
        q = _TK.random_input((c.B, c.H_q, c.S_q, c.D_qk), c.q, dtype, gen)
        k = _TK.random_input((c.B, c.H_k, c.S_kv, c.D_qk), c.k, dtype, gen)
        v = _TK.random_input((c.B, c.H_v, c.S_kv, c.D_v), c.v, dtype, gen)
        o, _ = _TK.strided((c.B, c.H_q, c.S_q, c.D_v), c.o, dtype)
        taken.append(launch._ws_forward_ok(WS, q, k, v, o, launch.head_dim_pad(c.D_qk), launch.head_dim_pad(c.D_v),
                                           False, False))
    assert sum(taken) >= 3, f"only {sum(taken)} of {len(taken)} cases reach the warp-specialised kernel"
