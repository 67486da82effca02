"""The DKDV and dQ passes as one launch (BackwardConfig.fused_dq, kernels.attention_bwd_fused_kernel).

Against the float64 oracle on fresh random inputs through run_case (poisoned outputs): layouts with odd and
zero strides, GQA, head dims with the 128 + 64 split, lengths of 1 (the any-length twin), masks with empty
rows, scales, both TMA modes. Then bit for bit against the two kernels apart, which it must equal: each of its
programs is one of theirs. And where the launcher must not take it (atomic dQ, H_k != H_v, a split DKDV pass)
or must refuse the config (warps or stages that differ between the passes)."""

import pytest
import torch

from sdpa_bwd.engine import launch, launch_cache
from sdpa_bwd.engine.launch import BackwardConfig
from test_triton_kernels import CASES, Case, patched_table, run_case, tma_mode  # noqa: F401 (a fixture)

# H_k == H_v throughout: the cases the fused launch is for.
FUSED_CASES = [CASES[i] for i in (0, 2, 3, 4, 5, 7, 10, 12, 16, 20, 22, 25, 26, 29, 32, 38, 40, 42)] + [
    Case(D_qk=192, D_v=128, S_q=19, S_kv=23, B=1, H_q=2, H_k=1, H_v=1, dtype="bf16", right_bound=0, seed=61),
    Case(S_q=1, S_kv=1, B=1, H_q=2, H_k=1, H_v=1, seed=62),
]
assert all(c.H_k == c.H_v for c in FUSED_CASES), "H_k != H_v runs two DKDV passes and is not fused"


BACKWARD_KERNELS = ("attention_bwd_fused_kernel", "attention_bwd_fused_kernel_any_len", "attention_bwd_dq_kernel",
                    "attention_bwd_dq_kernel_any_len", "attention_bwd_dkdv_kernel", "attention_bwd_dkdv_kernel_any_len")


def launched(monkeypatch, kwargs_seen=None, targets=None, args_seen=None) -> list:
    """Record which kernels the launcher starts (by name), passing each launch through; with ``kwargs_seen`` (a
    list) also each launch's (name, keyword arguments), with ``args_seen`` its (name, positional arguments).
    ``targets``: (module, name) pairs to watch; by default the Triton backward kernels as ``launch`` names them."""
    seen = []

    class Spy:
        def __init__(self, name, real):
            self.name, self.real = name, real

        def __getitem__(self, grid):
            seen.append(self.name)
            if kwargs_seen is None and args_seen is None:
                return self.real[grid]

            def call(*args, **kwargs):
                if kwargs_seen is not None:
                    kwargs_seen.append((self.name, kwargs))
                if args_seen is not None:
                    args_seen.append((self.name, args))
                return self.real[grid](*args, **kwargs)
            return call

        def __getattr__(self, attr):  # warmup and the rest: the kernel's own
            return getattr(self.real, attr)

    for mod, n in targets or [(launch, n) for n in BACKWARD_KERNELS]:
        monkeypatch.setattr(mod, n, Spy(n, getattr(mod, n)))
    return seen


def fused_table(monkeypatch, **changes):
    return patched_table(monkeypatch, "backward_config", dq_mode="separate", fused_dq=True, **changes)


@pytest.mark.parametrize("case", FUSED_CASES, ids=[c.id() for c in FUSED_CASES])
def test_fused_backward_case(case, tma_mode, monkeypatch):
    seen = fused_table(monkeypatch)
    kernels = launched(monkeypatch)
    run_case(case)
    assert seen, "the launcher did not take the patched table"
    fused = [k for k in kernels if k.startswith("attention_bwd_fused")]
    apart = [k for k in kernels if k.startswith(("attention_bwd_dq_kernel", "attention_bwd_dkdv"))]
    assert fused and not apart, (
        f"kernels launched: {kernels}; a fused_dq config with H_k == H_v must run the DKDV and dQ passes as one "
        f"launch (attention_bwd_fused_kernel) and neither pass apart")
    lengths_one = case.S_q == 1 or case.S_kv == 1
    assert all(k.endswith("_any_len") == lengths_one for k in fused), (
        f"S_q={case.S_q}, S_kv={case.S_kv}: launched {fused}; a length of 1 takes the any-length twin, others not")


def _backward(case: Case, fused: bool):
    gen = torch.Generator().manual_seed(case.seed)
    dt = {"fp16": torch.float16, "bf16": torch.bfloat16, "fp32": torch.float32}[case.dtype]
    q = torch.randn(case.B, case.H_q, case.S_q, case.D_qk, generator=gen).to(dt)
    k = torch.randn(case.B, case.H_k, case.S_kv, case.D_qk, generator=gen).to(dt)
    v = torch.randn(case.B, case.H_v, case.S_kv, case.D_v, generator=gen).to(dt)
    kw = dict(left_bound=case.left_bound, right_bound=case.right_bound, alignment=case.alignment)
    o, stats = launch.attention_forward(q, k, v, **kw)
    do = torch.randn(o.shape, generator=gen).to(dt)
    cfg = BackwardConfig(16, 16, 16, 16, num_warps=4, num_stages=1, dq_mode="separate", fused_dq=fused)
    return launch.attention_backward(q, k, v, o, do, stats, config=cfg, **kw)


@pytest.mark.parametrize("case", [CASES[0], CASES[12], CASES[26], CASES[29], CASES[30], FUSED_CASES[-2]],
                         ids=lambda c: c.id())
def test_fused_backward_equals_the_two_passes_bit_for_bit(case):
    apart = _backward(case, False)
    fused = _backward(case, True)
    for name, a, b in zip(("dq", "dk", "dv"), apart, fused):
        diff = (a.double() - b.double()).abs().max().item()
        assert torch.equal(a, b), (
            f"{name}: the one-launch backward differs from the two passes apart by up to {diff:.3e} on {case.id()}; "
            f"each of its programs runs one of theirs on the same tiles, so the results must be bitwise equal")


@pytest.mark.parametrize("changes,case", [
    (dict(dq_mode="atomic"), CASES[0]),
    (dict(), CASES[13]),  # H_q=4, H_k=2, H_v=1: a dK pass and a dV pass
    (dict(split_dkdv=True), CASES[0]),
], ids=["atomic-dq", "h_k-ne-h_v", "split-dkdv"])
def test_fused_backward_is_not_taken_where_the_passes_differ(changes, case, monkeypatch):
    """Atomic dQ has no dQ pass; H_k != H_v and split_dkdv run two DKDV passes: the launcher falls back to the
    kernels apart, and the result is still right."""
    patched_table(monkeypatch, "backward_config", **{"dq_mode": "separate", "fused_dq": True, **changes})
    kernels = launched(monkeypatch)
    run_case(case)
    assert not any(k.startswith("attention_bwd_fused") for k in kernels), f"{changes}: launched {kernels}"


@pytest.mark.parametrize("warps,stages", [(8, None), (None, 2), (8, 2)])
def test_fused_config_refuses_pass_settings_that_differ(warps, stages):
    with pytest.raises(ValueError, match="one launch has one warp count and stage count"):
        BackwardConfig(64, 128, 128, 64, num_warps=4, num_stages=3, dq_mode="separate", dq_num_warps=warps,
                       dq_num_stages=stages, fused_dq=True)
    # equal to the DKDV pass's, or None: accepted
    BackwardConfig(64, 128, 128, 64, num_warps=4, num_stages=3, dq_mode="separate", dq_num_warps=4,
                   dq_num_stages=3, fused_dq=True)


def _small(seed=3):
    gen = torch.Generator().manual_seed(seed)
    q, k, v, do = (torch.randn(1, 2, 24, 16, generator=gen).half() for _ in range(4))
    o, stats = launch.attention_forward(q, k, v)
    return q, k, v, o, do, stats


@pytest.mark.parametrize("outputs,fused", [
    ("allocated", True), ("slices of one buffer", True), ("dq is q", False), ("dk overlaps dv", False),
    ("interleaved columns", False)])
def test_fused_backward_only_where_no_output_touches_another_tensor(outputs, fused, monkeypatch):
    """The fused launch runs DKDV and dQ programs at once, so an output that touches an input (or another
    output) would make the result depend on their timing: the launcher runs the passes apart there. The
    decision is part of the launch cache's key, so a recorded fused call is not replayed for such outputs."""
    fused_table(monkeypatch)
    q, k, v, o, do, stats = _small()
    expect = launch.attention_backward(q, k, v, o, do, stats)  # records the fused plan for allocated outputs
    buf = torch.empty(3, *q.shape, dtype=q.dtype)
    wide = torch.empty(*q.shape[:3], 3 * q.shape[3], dtype=q.dtype)
    d = q.shape[3]
    outs = {"allocated": {}, "slices of one buffer": dict(dq=buf[0], dk=buf[1], dv=buf[2]),
            "dq is q": dict(dq=q.clone()), "dk overlaps dv": dict(dk=buf[0], dv=buf[0]),
            "interleaved columns": dict(dq=wide[..., :d], dk=wide[..., d:2 * d], dv=wide[..., 2 * d:])}[outputs]
    if outputs == "dq is q":
        q = outs["dq"]
    # first a call whose outputs have the same dims and strides but memory of their own: it records a fused
    # plan under the key the call below would have if the key left out whether the outputs are apart
    # (the spy first: the kernels are module globals the key holds)
    kernels = launched(monkeypatch)
    twins = {n: torch.empty_strided(t.shape, t.stride(), dtype=t.dtype) for n, t in outs.items()}
    launch.attention_backward(q.clone() if outputs == "dq is q" else q, k, v, o, do, stats, **twins)
    assert any(k.startswith("attention_bwd_fused") for k in kernels), f"the twin call was not fused: {kernels}"
    kernels.clear()
    replays = launch_cache.counts["replayed"]
    got = launch.attention_backward(q, k, v, o, do, stats, **outs)
    # (a replay launches through the recorded spies too, under the interpreter)
    took = any(k.startswith("attention_bwd_fused") for k in kernels)
    assert took == fused, (f"outputs {outputs}: kernels {kernels} (replayed: "
                           f"{launch_cache.counts['replayed'] > replays}); fused expected {fused}")
    if outputs not in ("dq is q", "dk overlaps dv"):  # those overwrite an input or each other by design
        for name, a, b in zip(("dq", "dk", "dv"), got, expect):
            assert torch.equal(a, b), f"{name} with outputs {outputs} differs from the allocated outputs' result"


@pytest.mark.parametrize("fused", [True, False], ids=["fused", "apart"])
@pytest.mark.parametrize("case", [CASES[0], CASES[3], CASES[29]], ids=lambda c: c.id())
def test_dq_pass_on_pointers_where_the_config_says_so(case, fused, monkeypatch):
    """BackwardConfig.dq_kv_tma=False: the dQ programs stream K and V through pointers even where TMA is on and
    the layout allows descriptors (ab_perf --table s16c's candidate), fused or apart, and the result is right."""
    before = launch.TMA_MODE
    launch.set_tma_mode("on")
    try:
        patched_table(monkeypatch, "backward_config", dq_mode="separate", fused_dq=fused, dq_kv_tma=False)
        seen = []
        launched(monkeypatch, seen)
        run_case(case)
        flags = [kw["TMA_KV"] if "fused" in name else kw["TMA"] for name, kw in seen
                 if name.startswith(("attention_bwd_fused", "attention_bwd_dq_kernel"))]
        assert flags and not any(flags), f"the dQ programs' K/V descriptor flag at each launch: {flags}"
    finally:
        launch.set_tma_mode(before)
