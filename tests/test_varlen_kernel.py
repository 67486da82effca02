"""The one-launch varlen path (issue 53): one launch of each Triton kernel over a whole packed batch of mixed
lengths (``sdpa_bwd.engine.varlen``, the kernels' ``VARLEN`` form), against the float64 ragged oracle on fresh random
inputs, through ``varlen.forward`` / ``backward`` and through the public ``sdpa_bwd.attention`` + autograd; on the CPU
under Triton's interpreter."""

import pytest
import torch

import sdpa_bwd
from sdpa_bwd.engine import varlen
from sdpa_bwd.engine.launch_cache import Recorder
from sdpa_bwd.problem import make_ragged_problem, ragged_oracle

# Mixed lengths: 0 and 1, none a multiple of the interpreter's 16-row tiles but 16 itself, several runs, S_q != S_kv.
LENGTHS_Q = [5, 0, 17, 1, 16, 3]
LENGTHS_KV = [7, 3, 11, 1, 16, 0]

MASKS = {
    "none": {},
    "causal-top-left": dict(right_bound=0),
    "causal-bottom-right": dict(right_bound=0, alignment="bottom_right"),
    "window-bottom-right": dict(left_bound=3, right_bound=1, alignment="bottom_right"),
    "window-top-left": dict(left_bound=4, right_bound=2),
}
# fp32 runs true fp32 dots; bf16 inputs and outputs round to 8 bits of mantissa
TOL = {torch.float32: 2e-4, torch.bfloat16: 3e-2}


def _offsets(lengths, base=0):
    out = [base]
    for n in lengths:
        out.append(out[-1] + n)
    return out


def _inputs(problem, dtype, seed):
    g = torch.Generator().manual_seed(seed)
    return [torch.randn(problem.tensor(n).dims, generator=g, dtype=torch.float64).to(dtype)
            for n in ("q", "k", "v", "do")]


def _reference(problem, q, k, v, do):
    """The ragged oracle in float64 on the (rounded) inputs: O, stats (H_q, T_q), dQ, dK, dV."""
    q, k, v, do = (t.double() for t in (q, k, v, do))
    o, stats = ragged_oracle.forward(q, k, v, problem)
    return (o, stats, *ragged_oracle.backward(q, k, v, o, do, stats, problem))


def _check(names, got, want, tol, what):
    for name, g, w in zip(names, got, want):
        err = (g.double() - w).abs().max().item() if g.numel() else 0.0
        scale = max(1.0, w.abs().max().item() if w.numel() else 0.0)
        assert err <= tol * scale, (f"{name} is off the float64 ragged oracle by {err:.3g} (allowed {tol * scale:.3g}) "
                                    f"on {what}: the one-launch path must match the oracle sequence by sequence")


@pytest.fixture
def one_launch_only(monkeypatch):
    """The per-run path refuses to run (its views of each run, ``varlen._run``): a call that reaches it did not
    take the one-launch path. (Not by replacing ``launch.attention_forward``: the launch cache reads the names
    the launcher's code reads once, from whatever function holds that name then.)"""
    def refuse(*a, **kw):
        raise AssertionError("the per-run path was taken: a batch of several runs of lengths must take the "
                             "one-launch path (varlen._one_launch)")
    monkeypatch.setattr(varlen, "_run", refuse)


def _problem(mask, H=(4, 2, 1), D=(16, 24), dtype="float32"):
    return make_ragged_problem(LENGTHS_Q, LENGTHS_KV, H_q=H[0], H_k=H[1], H_v=H[2], D_qk=D[0], D_v=D[1],
                               dtype=dtype, **MASKS[mask])


@pytest.mark.parametrize("dtype", [torch.float32, torch.bfloat16], ids=["fp32", "bf16"])
@pytest.mark.parametrize("mask", list(MASKS), ids=list(MASKS))
def test_one_launch_matches_the_ragged_oracle(mask, dtype, one_launch_only):
    # GQA with H_k != H_v: dK and dV by two DKDV launches, each program owning its rows
    p = _problem(mask)
    q, k, v, do = _inputs(p, dtype, seed=list(MASKS).index(mask))
    kw = MASKS[mask]
    o, stats = varlen.forward(q, k, v, list(p.cu_seqlens_q), list(p.cu_seqlens_kv), **kw)
    grads = varlen.backward(q, k, v, o, do, stats, list(p.cu_seqlens_q), list(p.cu_seqlens_kv), **kw)
    want = _reference(p, q, k, v, do)
    _check(("o", "dq", "dk", "dv"), (o, *grads), (want[0], *want[2:]), TOL[dtype], f"{mask} {dtype}")
    finite = torch.isfinite(want[1])
    assert torch.equal(torch.isfinite(stats), finite), "stats are -inf exactly on the rows that keep no key"
    _check(("stats",), (stats[finite],), (want[1][finite],), TOL[torch.float32], f"{mask} {dtype}")


@pytest.mark.parametrize("mask", ["causal-bottom-right", "window-top-left"])
def test_public_api_with_autograd_matches_the_ragged_oracle(mask, one_launch_only):
    p = _problem(mask, H=(2, 2, 2), D=(16, 16))
    q, k, v, do = _inputs(p, torch.float32, seed=7)
    kw = dict(MASKS[mask])
    if kw.get("right_bound") == 0 and "left_bound" not in kw:
        kw = dict(causal=True, alignment=kw.get("alignment", "top_left"))
    qg, kg, vg = (t.clone().requires_grad_() for t in (q, k, v))
    o = sdpa_bwd.attention(qg, kg, vg, cu_seqlens_q=torch.tensor(p.cu_seqlens_q, dtype=torch.int32),
                           cu_seqlens_kv=torch.tensor(p.cu_seqlens_kv, dtype=torch.int32), **kw)
    grads = torch.autograd.grad(o, (qg, kg, vg), do)
    want = _reference(p, q, k, v, do)
    _check(("o", "dq", "dk", "dv"), (o, *grads), (want[0], *want[2:]), TOL[torch.float32], f"public API {mask}")


def _strided(T, H, D, gen, start, layout):
    """A (T, H, D) view starting at token ``start`` of a larger buffer: head-major storage or rows padded past D."""
    if layout == "head-major":
        buf = torch.randn(H, start + T + 2, D, generator=gen).permute(1, 0, 2)
    else:
        buf = torch.randn(start + T + 2, H, D + 5, generator=gen)[:, :, 2:2 + D]
    return buf[start:start + T]


def test_views_into_larger_buffers_with_a_late_first_offset(one_launch_only):
    """Sequence 0 starts at token 2 (3 for keys), the batch ends before T; the tensors are strided views. The
    tokens outside every sequence get O 0, stats -inf and gradients 0."""
    gen = torch.Generator().manual_seed(58)
    cu_q, cu_kv = _offsets([4, 9, 1, 0, 6], base=2), _offsets([6, 2, 5, 4, 6], base=3)
    T_q, T_kv = cu_q[-1] + 3, cu_kv[-1] + 1
    q, do = _strided(T_q, 2, 16, gen, 3, "head-major"), _strided(T_q, 2, 16, gen, 1, "padded")
    k, v = _strided(T_kv, 1, 16, gen, 2, "padded"), _strided(T_kv, 1, 16, gen, 0, "head-major")
    kw = dict(left_bound=5, right_bound=0, alignment="bottom_right")
    o, stats = varlen.forward(q, k, v, cu_q, cu_kv, **kw)
    dq, dk, dv = varlen.backward(q, k, v, o, do, stats, cu_q, cu_kv, **kw)
    p = make_ragged_problem([4, 9, 1, 0, 6], [6, 2, 5, 4, 6], H_q=2, H_k=1, D_qk=16, dtype="float32", **kw)
    (s0, s1), (k0, k1) = (cu_q[0], cu_q[-1]), (cu_kv[0], cu_kv[-1])
    want = _reference(p, q[s0:s1], k[k0:k1], v[k0:k1], do[s0:s1])
    _check(("o", "dq", "dk", "dv"), (o[s0:s1], dq[s0:s1], dk[k0:k1], dv[k0:k1]), (want[0], *want[2:]),
           TOL[torch.float32], "views with a late first offset")
    outside_q = torch.cat([torch.arange(s0), torch.arange(s1, T_q)])
    outside_kv = torch.cat([torch.arange(k0), torch.arange(k1, T_kv)])
    assert not o[outside_q].any() and not dq[outside_q].any(), "O and dQ are 0 on tokens outside every sequence"
    assert not dk[outside_kv].any() and not dv[outside_kv].any(), "dK and dV are 0 on keys outside every sequence"
    assert torch.isinf(stats[:, outside_q]).all(), "stats are -inf on tokens outside every sequence"


@pytest.mark.parametrize("form", ["h_t", "t_h", "padded"])
def test_given_stats_in_each_form(form):
    """The backward reads the caller's stats: packed (H_q, T_q), packed (T_q, H_q) passed transposed (one launch),
    or padded (B, H_q, max_S_q) (left to the per-run path, which reads each run's rows)."""
    p = make_ragged_problem(LENGTHS_Q, LENGTHS_KV, H_q=2, D_qk=16, dtype="float32", stats_form=form,
                            **MASKS["causal-bottom-right"])
    q, k, v, do = _inputs(p, torch.float32, seed=11)
    want = _reference(p, q, k, v, do)
    o, _ = varlen.forward(q, k, v, list(p.cu_seqlens_q), list(p.cu_seqlens_kv), **MASKS["causal-bottom-right"])
    stats = want[1].float()  # the oracle's stats, in the problem's form
    if form == "t_h":
        stats = stats.transpose(0, 1)
    grads = varlen.backward(q, k, v, o, do, stats, list(p.cu_seqlens_q), list(p.cu_seqlens_kv),
                            **MASKS["causal-bottom-right"])
    _check(("dq", "dk", "dv"), grads, want[2:], TOL[torch.float32], f"stats form {form}")
    assert varlen._one_launch(p.cu_seqlens_q, p.cu_seqlens_kv, v, stats) == (form != "padded")


def test_padded_stats_out_of_the_forward_match_the_oracle():
    """A padded stats buffer given to the forward is filled by the per-run path, row b's first S_q entries."""
    p = make_ragged_problem(LENGTHS_Q, LENGTHS_KV, H_q=2, D_qk=16, dtype="float32", stats_form="padded")
    q, k, v, do = _inputs(p, torch.float32, seed=12)
    stats = torch.full(p.stats_dims(), float("nan"))
    o, stats = varlen.forward(q, k, v, list(p.cu_seqlens_q), list(p.cu_seqlens_kv), stats=stats)
    want = _reference(p, q, k, v, do)
    got, lse = (ragged_oracle.stats_from_form(t, p) for t in (stats, want[1]))
    finite = torch.isfinite(lse)
    _check(("o", "stats"), (o, got[finite]), (want[0], lse[finite]), TOL[torch.float32], "padded stats")


def test_a_mixed_length_batch_is_one_launch_of_each_kernel(monkeypatch):
    """Six sequences in five runs: one forward launch; the backward's ODO, one DKDV and one dQ launch
    (H_k == H_v: one DKDV pass owns dK and dV)."""
    launched = []
    real = Recorder.launch

    def counting(self, fn, grid, *args, **kwargs):
        launched.append((fn.fn.__name__, grid))
        return real(self, fn, grid, *args, **kwargs)

    monkeypatch.setattr(Recorder, "launch", counting)
    p = make_ragged_problem(LENGTHS_Q, LENGTHS_KV, H_q=2, D_qk=16, dtype="float32")
    q, k, v, do = _inputs(p, torch.float32, seed=13)
    o, stats = varlen.forward(q, k, v, list(p.cu_seqlens_q), list(p.cu_seqlens_kv))
    assert launched == [("attention_fwd_kernel", (2, 12))], launched  # cdiv(17, 16) tiles x (6 sequences x 2 heads)
    launched.clear()
    varlen.backward(q, k, v, o, do, stats, list(p.cu_seqlens_q), list(p.cu_seqlens_kv))
    assert [n for n, _ in launched] == ["attention_bwd_preprocess_kernel", "attention_bwd_dkdv_kernel",
                                        "attention_bwd_dq_kernel"], launched


def test_one_launch_matches_the_per_run_path_and_is_deterministic(monkeypatch):
    """The two paths compute each sequence's rows from the same tiles; the one-launch backward has no atomics,
    so a second call gives the same bits (deterministic mode takes it too)."""
    p = _problem("causal-bottom-right")
    q, k, v, do = _inputs(p, torch.float32, seed=14)
    cu_q, cu_kv = list(p.cu_seqlens_q), list(p.cu_seqlens_kv)
    kw = MASKS["causal-bottom-right"]
    o, stats = varlen.forward(q, k, v, cu_q, cu_kv, **kw)
    first = varlen.backward(q, k, v, o, do, stats, cu_q, cu_kv, deterministic=True, **kw)
    second = varlen.backward(q, k, v, o, do, stats, cu_q, cu_kv, deterministic=True, **kw)
    assert all(torch.equal(a, b) for a, b in zip(first, second))
    monkeypatch.setattr(varlen, "ONE_LAUNCH", False)
    o_runs, _ = varlen.forward(q, k, v, cu_q, cu_kv, **kw)
    runs = varlen.backward(q, k, v, o, do, stats, cu_q, cu_kv, **kw)
    _check(("o", "dq", "dk", "dv"), (o, *first), (o_runs.double(), *(t.double() for t in runs)), 1e-5,
           "the per-run path")


def test_split_head_dim_takes_the_one_launch_path(one_launch_only):
    """D_qk 160 in bf16 runs as column chunks 128 + 32 (``configs.d_qk_chunks``); the VARLEN form moves only the
    bases, so both chunks are read and written at the sequence's tokens."""
    p = make_ragged_problem([3, 9, 0, 2], [5, 1, 4, 2], H_q=1, D_qk=160, D_v=16, dtype="bfloat16",
                            **MASKS["causal-top-left"])
    q, k, v, do = _inputs(p, torch.bfloat16, seed=15)
    o, stats = varlen.forward(q, k, v, list(p.cu_seqlens_q), list(p.cu_seqlens_kv), right_bound=0)
    grads = varlen.backward(q, k, v, o, do, stats, list(p.cu_seqlens_q), list(p.cu_seqlens_kv), right_bound=0)
    want = _reference(p, q, k, v, do)
    _check(("o", "dq", "dk", "dv"), (o, *grads), (want[0], *want[2:]), TOL[torch.bfloat16], "D_qk 160 bf16")


def test_the_device_offsets_are_uploaded_once_a_batch_and_kept_for_the_most_recent_batches():
    """A training step calls the same batch's offsets in every layer's forward and backward: one upload, then the
    kept tensor (a fresh upload from pageable memory waits for the CUDA stream each time)."""
    from sdpa_bwd.engine import varlen

    varlen._OFFSETS.clear()
    first = varlen.device_offsets([0, 3, 7], [0, 2, 9], torch.device("cpu"))
    assert first.dtype == torch.int32 and first.tolist() == [[0, 3, 7], [0, 2, 9]]
    assert varlen.device_offsets([0, 3, 7], [0, 2, 9], torch.device("cpu")) is first
    assert varlen.device_offsets([0, 3, 8], [0, 2, 9], torch.device("cpu")) is not first
    for n in range(varlen._OFFSETS_KEPT):
        varlen.device_offsets([0, n + 10], [0, n + 10], torch.device("cpu"))
    assert len(varlen._OFFSETS) == varlen._OFFSETS_KEPT
    assert varlen.device_offsets([0, 3, 7], [0, 2, 9], torch.device("cpu")) is not first  # the oldest went


# -- offsets left on the device (FlashAttention's convention: an int32 tensor and max_seqlen_* given) ---------------


@pytest.fixture
def offsets_never_read(monkeypatch):
    """The host path's offset reader refuses to run: a call that reaches it read the offsets back."""
    def refuse(*a, **kw):
        raise AssertionError("the offsets were read back to the host: with int32 offsets on q's device and "
                             "max_seqlen_* given the call must take the device path (varlen.on_device)")
    monkeypatch.setattr(varlen, "offsets", refuse)


@pytest.mark.parametrize("mask", ["none", "causal-bottom-right", "window-top-left"])
def test_device_offsets_match_the_ragged_oracle_through_the_public_api(mask, offsets_never_read):
    # a late first offset and an early last one: tokens outside every sequence get O 0 and gradients 0
    p = _problem(mask, H=(4, 2, 1), D=(16, 24))
    gen = torch.Generator().manual_seed(11)
    T_q, T_kv = p.T_q + 5, p.T_kv + 4
    q = torch.randn(T_q, 4, 16, generator=gen)
    k, v = torch.randn(T_kv, 2, 16, generator=gen), torch.randn(T_kv, 1, 24, generator=gen)
    do = torch.randn(T_q, 4, 24, generator=gen)
    cu_q = torch.tensor(_offsets(LENGTHS_Q, base=2), dtype=torch.int32)
    cu_kv = torch.tensor(_offsets(LENGTHS_KV, base=3), dtype=torch.int32)
    kw = dict(MASKS[mask])
    qg, kg, vg = (t.clone().requires_grad_() for t in (q, k, v))
    o = sdpa_bwd.attention(qg, kg, vg, cu_seqlens_q=cu_q, cu_seqlens_kv=cu_kv, max_seqlen_q=max(LENGTHS_Q) + 3,
                           max_seqlen_kv=max(LENGTHS_KV), **kw)
    dq, dk, dv = torch.autograd.grad(o, (qg, kg, vg), do)
    (s0, s1), (k0, k1) = (int(cu_q[0]), int(cu_q[-1])), (int(cu_kv[0]), int(cu_kv[-1]))
    want = _reference(p, q[s0:s1], k[k0:k1], v[k0:k1], do[s0:s1])
    _check(("o", "dq", "dk", "dv"), (o[s0:s1], dq[s0:s1], dk[k0:k1], dv[k0:k1]), (want[0], *want[2:]),
           TOL[torch.float32], f"device offsets, {mask}")
    outside_q = torch.cat([torch.arange(s0), torch.arange(s1, T_q)])
    outside_kv = torch.cat([torch.arange(k0), torch.arange(k1, T_kv)])
    assert not o[outside_q].any() and not dq[outside_q].any(), "O and dQ are 0 on tokens outside every sequence"
    assert not dk[outside_kv].any() and not dv[outside_kv].any(), "dK and dV are 0 on keys outside every sequence"


def test_device_offsets_forward_stats_are_minus_inf_outside_every_sequence(offsets_never_read):
    p = _problem("none", H=(2, 2, 2), D=(16, 16))
    q, k, v, _ = _inputs(p, torch.float32, seed=3)
    q = torch.cat([q, torch.randn(3, 2, 16)])
    offs = varlen.on_device(q, k, v, torch.tensor(p.cu_seqlens_q, dtype=torch.int32),
                            torch.tensor(p.cu_seqlens_kv, dtype=torch.int32), max(LENGTHS_Q), max(LENGTHS_KV))
    assert offs is not None
    o, stats = varlen.forward_on_device(q, k, v, offs)
    assert torch.isneginf(stats[:, -3:]).all() and not o[-3:].any()
    want = _reference(p, q[:-3], k, v, torch.zeros_like(o[:-3]))
    finite = torch.isfinite(want[1])
    assert torch.equal(torch.isfinite(stats[:, :-3]), finite)
    _check(("stats",), (stats[:, :-3][finite],), (want[1][finite],), TOL[torch.float32], "device offsets' stats")


@pytest.mark.parametrize("bit, cu_q, max_q", [
    (1, [-1, 4, 9], 9),   # a negative first offset
    (2, [0, 6, 4], 9),    # a decreasing step
    (4, [0, 4, 40], 40),  # a last offset past the tensor's tokens
    (8, [0, 4, 9], 4),    # a sequence longer than max_seqlen
])
def test_device_offsets_that_break_a_rule_stop_the_call(bit, cu_q, max_q, offsets_never_read):
    """The check kernel sets exactly the broken rule's bit (the key side's four bits above the query side's),
    and the call stops: on the CPU the device-side assertion raises at once, with the rules it checks."""
    from sdpa_bwd.engine.kernels import varlen_offsets_check_kernel

    x = torch.randn(9, 1, 16)
    ok = torch.tensor([0, 4, 9], dtype=torch.int32)
    bad = torch.tensor(cu_q, dtype=torch.int32)
    for side, (cq, ckv, mq, mkv) in enumerate(((bad, ok, max_q, 9), (ok, bad, 9, max_q))):
        flags = torch.full((1,), -1, dtype=torch.int32)
        varlen_offsets_check_kernel[(1,)](cq, ckv, 2, 9, 9, mq, mkv, flags, BLOCK=4)
        assert flags.item() == bit << (4 * side)
        with pytest.raises(RuntimeError, match="malformed cu_seqlens_q/cu_seqlens_kv"):
            sdpa_bwd.attention(x, x, x, cu_seqlens_q=cq, cu_seqlens_kv=ckv, max_seqlen_q=mq, max_seqlen_kv=mkv)


def test_the_device_check_message_fits_a_cuda_assertion():
    """CUDA's device-side assertion takes a message shorter than 255 bytes; a longer one made every call through
    the device-offsets path raise on the GPU (H100, torch 2.11, 2026-12-06) while the CPU took it."""
    from sdpa_bwd.engine.varlen import DEVICE_CHECK_MESSAGE

    assert len(DEVICE_CHECK_MESSAGE.encode()) < 255, (
        f"the device check's message is {len(DEVICE_CHECK_MESSAGE.encode())} bytes; CUDA's assertion takes fewer "
        "than 255 - shorten it")


def test_the_device_check_reads_batches_longer_than_its_block():
    """More sequences than the check's block: a bad step in the last block is found."""
    from sdpa_bwd.engine.kernels import varlen_offsets_check_kernel

    cu = torch.arange(0, 3 * 11, 3, dtype=torch.int32)  # 10 sequences of 3
    flags = torch.zeros(1, dtype=torch.int32)
    varlen_offsets_check_kernel[(1,)](cu, cu, 10, 30, 30, 3, 3, flags, BLOCK=4)
    assert flags.item() == 0
    cu[9] = 28  # sequence 8 has 4 tokens (> max 3), sequence 9 has 2
    varlen_offsets_check_kernel[(1,)](cu, cu, 10, 30, 30, 3, 3, flags, BLOCK=4)
    assert flags.item() == 8 | (8 << 4)


def test_offsets_without_max_seqlen_or_as_a_list_are_read_on_the_host():
    """The device path is FlashAttention's convention only; without max_seqlen_*, or with int64 or list offsets,
    the offsets are read and checked on the host, with the value named."""
    x = torch.randn(9, 1, 16)
    for kw in (dict(cu_seqlens_q=torch.tensor([0, 6, 4], dtype=torch.int32),
                    cu_seqlens_kv=torch.tensor([0, 4, 9], dtype=torch.int32)),
               dict(cu_seqlens_q=torch.tensor([0, 6, 4]), cu_seqlens_kv=torch.tensor([0, 4, 9]), max_seqlen_q=9,
                    max_seqlen_kv=9),
               dict(cu_seqlens_q=[0, 6, 4], cu_seqlens_kv=[0, 4, 9], max_seqlen_q=9, max_seqlen_kv=9)):
        with pytest.raises(ValueError, match="cu_seqlens_q"):
            sdpa_bwd.attention(x, x, x, **kw)


def test_device_offsets_under_torch_compile_match_eager(offsets_never_read):
    """Under torch.compile the custom ops take the device path too (their backward is given max_seqlen_*)."""
    p = _problem("causal-bottom-right", H=(2, 2, 2), D=(16, 16))
    q, k, v, do = _inputs(p, torch.float32, seed=5)
    cu_q, cu_kv = (torch.tensor(c, dtype=torch.int32) for c in (p.cu_seqlens_q, p.cu_seqlens_kv))

    def f(q, k, v, cu_q, cu_kv):
        return sdpa_bwd.attention(q, k, v, cu_seqlens_q=cu_q, cu_seqlens_kv=cu_kv, max_seqlen_q=max(LENGTHS_Q),
                                  max_seqlen_kv=max(LENGTHS_KV), causal=True, alignment="bottom_right")

    results = []
    for fn in (f, torch.compile(f, backend="aot_eager", fullgraph=True)):
        qg, kg, vg = (t.clone().requires_grad_() for t in (q, k, v))
        o = fn(qg, kg, vg, cu_q, cu_kv)
        results.append((o, *torch.autograd.grad(o, (qg, kg, vg), do)))
    want = _reference(p, q, k, v, do)
    for got in results:
        _check(("o", "dq", "dk", "dv"), got, (want[0], *want[2:]), TOL[torch.float32], "device offsets, compiled")
