"""D_qk = 192 run as two column chunks, 128 + 64, instead of one padded to 256.

The kernels take ``D_QK_PAD`` (first chunk) and ``D_QK_SPLIT`` (second chunk, 0 for
none); ``launch.d_qk_chunks`` chooses them. The cases here go through every kernel
that touches the D_qk axis (forward, DKDV with atomic dQ by the interpreter's
default, the separate DQ pass when deterministic, DQ_CONVERT) against the float64
oracle, with the same poisoned buffers and tolerances as tests/test_triton_kernels.py,
including layouts whose head-dim stride is not 1: the second chunk's columns are
128..191 times that stride. ``test_split_is_what_the_kernels_get`` checks that the
split is what is launched, so these cases cannot pass by silently padding.
"""

import dataclasses
import os

import torch

if not torch.cuda.is_available():
    os.environ.setdefault("TRITON_INTERPRET", "1")

import pytest  # noqa: E402

from sdpa_bwd.engine import launch  # noqa: E402
# tma_mode: the fixture that runs each case with TMA as launched by default and forced on
from test_triton_kernels import (BSHD, DEVICE, DHSB, DSTEP, PAD, SBHD, SHBD, Case, Layout,  # noqa: E402
                                 run_case, tma_mode)  # noqa: F401


def _all(layout: Layout) -> dict:
    return {name: layout for name in ("q", "k", "v", "o", "do", "dq", "dk", "dv")}


S192 = dict(D_qk=192, D_v=128)
SPLIT_CASES = [
    Case(S_q=40, S_kv=37, dtype="bf16", seed=200, **S192),
    Case(S_q=70, S_kv=70, B=1, dtype="fp16", right_bound=0, seed=201, **S192),  # causal
    Case(S_q=33, S_kv=50, B=1, left_bound=9, right_bound=3, alignment="bottom_right", dtype="bf16", seed=202,
         **S192),  # band
    Case(S_q=37, S_kv=13, B=1, right_bound=0, alignment="bottom_right", seed=203, **S192),  # rows with no key
    Case(D_qk=192, D_v=192, S_q=29, S_kv=31, B=1, dtype="bf16", seed=204),
    Case(D_qk=192, D_v=192, S_q=45, S_kv=45, B=1, right_bound=0, deterministic=True, seed=205),
    # GQA: H_k = H_v (one DKDV pass owns dK and dV) and H_k != H_v (a dK pass and a dV pass)
    Case(H_q=4, H_k=2, H_v=2, S_q=33, S_kv=33, B=1, right_bound=0, dtype="bf16", seed=206, **S192),
    Case(H_q=4, H_k=2, H_v=2, S_q=25, S_kv=41, B=1, deterministic=True, seed=207, **S192),
    Case(H_q=4, H_k=2, H_v=1, S_q=21, S_kv=27, B=1, seed=208, **S192),
    # layouts: a head-dim stride of 2 everywhere, then mixed ones (head dim outermost included)
    Case(S_q=26, S_kv=30, seed=209, **S192, **_all(DSTEP)),
    Case(S_q=26, S_kv=30, deterministic=True, dtype="bf16", right_bound=0, seed=210, **S192, **_all(DSTEP)),
    Case(S_q=31, S_kv=22, dtype="bf16", seed=211, **S192, **_all(BSHD)),
    Case(S_q=31, S_kv=22, right_bound=0, deterministic=True, seed=212, **S192, **_all(SBHD)),
    Case(S_q=24, S_kv=24, q=DHSB, k=SHBD, v=BSHD, o=SBHD, do=PAD, dq=SHBD, dk=DHSB, dv=SBHD,
         stats=Layout("shbd"), seed=213, **S192),
    Case(S_q=24, S_kv=24, q=DSTEP, k=BSHD, dq=PAD, dk=DSTEP, deterministic=True, dtype="bf16", seed=214, **S192),
    # junk strides on size-1 axes (one of 2^33 turns on the kernels' int64 tile offsets, WIDE)
    Case(B=1, H_q=2, H_k=1, H_v=1, S_q=19, S_kv=23, q=Layout("bshd", junk=77777), k=Layout(junk=5),
         v=Layout("sbhd", junk=3), do=Layout(junk=1 << 33), dq=Layout("sbhd", junk=999), dk=Layout(junk=12345),
         stats=Layout(junk=31), seed=220, **S192),
    Case(B=1, H_q=2, H_k=1, H_v=1, S_q=19, S_kv=23, q=Layout("bshd", junk=1 << 33), dk=Layout(junk=1 << 33),
         deterministic=True, dtype="bf16", seed=221, **S192),
    # lengths of one take the unspecialised kernels
    Case(S_q=1, S_kv=33, B=1, seed=215, **S192),
    Case(S_q=33, S_kv=1, B=1, deterministic=True, seed=216, **S192),
    # a second chunk narrower than 64 and one with masked columns (170 = 128 + 42 of 64)
    Case(D_qk=144, D_v=64, S_q=23, S_kv=19, B=1, seed=217),
    Case(D_qk=170, D_v=128, S_q=23, S_kv=35, B=1, right_bound=0, dtype="bf16", seed=218, **_all(DSTEP)),
    Case(D_qk=170, D_v=128, S_q=23, S_kv=35, B=1, deterministic=True, seed=219),
]


@pytest.mark.usefixtures("tma_mode")
@pytest.mark.parametrize("case", SPLIT_CASES, ids=[c.id() for c in SPLIT_CASES])
def test_split_case(case):
    run_case(case)


def test_split_case_ids_unique():
    ids = [c.id() for c in SPLIT_CASES]
    assert len(ids) == len(set(ids))


@pytest.mark.parametrize("d_qk,dtype,split,chunks", [
    (192, torch.bfloat16, True, (128, 64)),
    (192, torch.float16, True, (128, 64)),
    (170, torch.bfloat16, True, (128, 64)),
    (160, torch.bfloat16, True, (128, 32)),
    (129, torch.float16, True, (128, 16)),
    (192, torch.bfloat16, False, (256, 0)),   # forced pad: the A/B baseline
    (192, torch.float32, True, (256, 0)),     # fp32 keeps the pad (launch.d_qk_chunks says why)
    (128, torch.bfloat16, True, (128, 0)),
    (96, torch.bfloat16, True, (128, 0)),
    (200, torch.bfloat16, True, (256, 0)),
    (256, torch.bfloat16, True, (256, 0)),
    (40, torch.float16, True, (64, 0)),
])
def test_d_qk_chunks(d_qk, dtype, split, chunks):
    assert launch.d_qk_chunks(d_qk, dtype, split) == chunks


def test_tuning_key_tells_split_from_padded():
    # A choice the tuner timed on the padded kernels (key d256) must not be reused for the split ones.
    assert launch._tune_d_qk(192, torch.bfloat16) == 192
    assert launch._tune_d_qk(192, torch.float32) == 256
    assert launch._tune_d_qk(128, torch.bfloat16) == 128
    assert launch._tune_d_qk(40, torch.float16) == 64


class _Recorder:
    """Stands in for a Triton kernel in ``launch``: logs each launch's constexprs, then launches it."""

    def __init__(self, name, kernel, log):
        self.name, self.kernel, self.log = name, kernel, log

    def __getitem__(self, grid):
        def launch_(*args, **kwargs):
            self.log.append((self.name, {k: v for k, v in kwargs.items() if k.startswith("D_QK")}))
            return self.kernel[grid](*args, **kwargs)
        return launch_


_KERNELS = ["attention_fwd_kernel", "attention_fwd_kernel_any_len", "attention_bwd_dkdv_kernel",
            "attention_bwd_dkdv_kernel_any_len", "attention_bwd_dq_kernel", "attention_bwd_dq_kernel_any_len",
            "attention_bwd_dq_convert_kernel"]


@pytest.fixture
def launches(monkeypatch):
    log = []
    for name in _KERNELS:
        monkeypatch.setattr(launch, name, _Recorder(name, getattr(launch, name), log))
    return log


def _force_padded(monkeypatch):
    """Every table config with split_d_qk=False, as tools/ab_perf.py's padded variants."""
    fwd, bwd = launch.forward_config, launch.backward_config
    monkeypatch.setattr(launch, "forward_config",
                        lambda *a, **k: dataclasses.replace(fwd(*a, **k), split_d_qk=False))
    monkeypatch.setattr(launch, "backward_config",
                        lambda *a, **k: dataclasses.replace(bwd(*a, **k), split_d_qk=False))


@pytest.mark.parametrize("deterministic", [False, True], ids=["atomic-dq", "separate-dq"])
def test_split_is_what_the_kernels_get(launches, deterministic):
    run_case(Case(H_q=4, H_k=2, H_v=1, S_q=20, S_kv=20, B=1, dtype="bf16", deterministic=deterministic,
                  seed=230, **S192))
    names = [n for n, _ in launches]
    dq_kernel = "attention_bwd_dq_kernel" if deterministic else "attention_bwd_dq_convert_kernel"
    for expected in ("attention_fwd_kernel", "attention_bwd_dkdv_kernel", dq_kernel):
        assert expected in names, f"{expected} not launched: {names}"
    for name, consts in launches:
        assert consts == {"D_QK": 192, "D_QK_PAD": 128, "D_QK_SPLIT": 64}, (name, consts)


def test_forced_padded_path_is_launched_and_correct(launches, monkeypatch):
    """split_d_qk=False (the A/B baseline) pads 192 to 256 as before the split, and still passes."""
    _force_padded(monkeypatch)
    for det in (False, True):
        launches.clear()
        run_case(Case(H_q=4, H_k=2, H_v=2, S_q=27, S_kv=27, B=1, dtype="bf16", right_bound=0,
                      deterministic=det, seed=231, **S192, **_all(DSTEP)))
        assert launches and all(c == {"D_QK": 192, "D_QK_PAD": 256, "D_QK_SPLIT": 0} for _, c in launches), launches


def test_other_head_dims_are_not_split(launches):
    run_case(Case(D_qk=128, D_v=128, S_q=17, S_kv=17, B=1, H_q=1, H_k=1, H_v=1, seed=232))
    run_case(Case(S_q=17, S_kv=17, B=1, H_q=1, H_k=1, H_v=1, dtype="fp32", seed=233, **S192))
    assert {(c["D_QK"], c["D_QK_PAD"], c["D_QK_SPLIT"]) for _, c in launches} == {(128, 128, 0), (192, 256, 0)}


def test_split_and_padded_agree(monkeypatch):
    """The two paths compute the same gradients up to the summation order of S's two chunks."""
    gen = torch.Generator().manual_seed(234)
    q, k = (torch.randn(1, 2, 36, 192, generator=gen).to(DEVICE, torch.float16) for _ in range(2))
    v, do = (torch.randn(1, 2, 36, 128, generator=gen).to(DEVICE, torch.float16) for _ in range(2))
    res = {}
    for split in (True, False):
        fcfg = dataclasses.replace(launch.forward_config(256, 128, q.dtype, q.device.type), split_d_qk=split)
        o, st = launch.attention_forward(q, k, v, right_bound=5, config=fcfg)
        for mode in ("atomic", "separate"):
            bcfg = dataclasses.replace(launch.backward_config(256, 128, q.dtype, q.device.type, False),
                                       dq_mode=mode, split_d_qk=split)
            res[split, mode] = (o, *launch.attention_backward(q, k, v, o, do, st, right_bound=5, config=bcfg))
    for key in res:
        for name, a, b in zip(("o", "dq", "dk", "dv"), res[key], res[True, "atomic"]):
            err = (a.float() - b.float()).abs().max().item()
            assert err < 8e-3 * (1 + b.float().abs().max().item()), (key, name, err)
