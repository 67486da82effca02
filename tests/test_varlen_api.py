"""Packed variable-length sequences through the public door (``sdpa_bwd.attention`` with ``cu_seqlens_*``), on the
CPU under Triton's interpreter, against the float64 oracle run sequence by sequence (issue 53)."""

import pytest
import torch

import sdpa_bwd
from sdpa_bwd.engine import varlen
from sdpa_bwd.problem import from_cu_seqlens, ragged_oracle


def _packed(T, H, D, gen, layout="thd"):
    """A (T, H, D) tensor in one of several storages: token-major packed, head-major (H, T, D) storage, or rows
    padded past D."""
    x = torch.randn(T, H, D, generator=gen, dtype=torch.float64)
    if layout == "hthd":
        return x.permute(1, 0, 2).contiguous().permute(1, 0, 2).float()
    if layout == "pad":
        buf = torch.zeros(T, H, D + 3)
        buf[:, :, :D] = x
        return buf[:, :, :D]
    return x.float()


def _oracle(q, k, v, do, cu_q, cu_kv, **mask):
    """The float64 ragged oracle (``problem.ragged_oracle``) over the tokens the offsets span: O, stats (H, T), dQ,
    dK, dV on those tokens."""
    (s0, s1), (k0, k1) = (cu_q[0], cu_q[-1]), (cu_kv[0], cu_kv[-1])
    problem = from_cu_seqlens(cu_q, cu_kv, H_q=q.shape[1], H_k=k.shape[1], H_v=v.shape[1], D_qk=q.shape[2],
                              D_v=v.shape[2], dtype="float32", **mask)
    q, k, v, do = (t.double() for t in (q[s0:s1], k[k0:k1], v[k0:k1], do[s0:s1]))
    o, stats = ragged_oracle.forward(q, k, v, problem)
    return (o, stats, *ragged_oracle.backward(q, k, v, o, do, stats, problem))


def _run(q, k, v, do, cu_q, cu_kv, **kw):
    q, k, v = (t.detach().requires_grad_() for t in (q, k, v))
    o = sdpa_bwd.attention(q, k, v, cu_seqlens_q=torch.tensor(cu_q, dtype=torch.int32),
                           cu_seqlens_kv=torch.tensor(cu_kv, dtype=torch.int32), **kw)
    dq, dk, dv = torch.autograd.grad(o, (q, k, v), do)
    return o, dq, dk, dv


def _err(a, b):
    return (a.double() - b).abs().max().item()


MASKS = {
    "none": {},
    "causal-top-left": dict(causal=True),
    "causal-bottom-right": dict(causal=True, alignment="bottom_right"),
    "window": dict(left_bound=3, right_bound=1),
}


@pytest.mark.parametrize("mask", list(MASKS), ids=list(MASKS))
def test_packed_sequences_match_the_oracle_sequence_by_sequence(mask):
    # lengths 5, 0, 9, 1 of queries and 7, 3, 0, 4 of keys: S_q != S_kv per sequence, empty sequences on both sides
    cu_q, cu_kv = [0, 5, 5, 14, 15], [0, 7, 10, 10, 14]
    gen = torch.Generator().manual_seed(53)
    q, k, v = _packed(15, 4, 16, gen), _packed(14, 2, 16, gen, "hthd"), _packed(14, 1, 8, gen, "pad")
    do = torch.randn(15, 4, 8, generator=gen)
    kw = dict(MASKS[mask])
    o, dq, dk, dv = _run(q, k, v, do, cu_q, cu_kv, **kw)
    causal = kw.pop("causal", False)
    if causal:
        kw["right_bound"] = 0
    want = _oracle(q, k, v, do, cu_q, cu_kv, **kw)
    for name, got, ref in zip(("o", "dq", "dk", "dv"), (o, dq, dk, dv), (want[0], *want[2:])):
        assert _err(got, ref) < 2e-4, f"{name} off the per-sequence oracle by {_err(got, ref):.3g} ({mask})"


def test_tokens_outside_every_sequence_are_zero_and_sequence_zero_may_start_late():
    """Offsets into a larger buffer: sequence 0 starts at token 2, the last ends before T; the tokens outside get
    O 0, stats -inf and gradients 0, and the sequences' own values match the oracle."""
    cu_q, cu_kv = [2, 6, 9], [1, 5, 11]
    gen = torch.Generator().manual_seed(54)
    q, k, v = _packed(12, 2, 16, gen), _packed(13, 2, 16, gen), _packed(13, 2, 16, gen)
    do = torch.randn(12, 2, 16, generator=gen)
    o, dq, dk, dv = _run(q, k, v, do, cu_q, cu_kv)
    o_ref, _, dq_ref, dk_ref, dv_ref = _oracle(q, k, v, do, cu_q, cu_kv)
    for got, ref in ((o[2:9], o_ref), (dq[2:9], dq_ref), (dk[1:11], dk_ref), (dv[1:11], dv_ref)):
        assert _err(got, ref) < 2e-4
    assert not o[:2].any() and not o[9:].any() and not dq[:2].any() and not dk[0].any() and not dk[11:].any()
    _, stats = varlen.forward(q, k, v, cu_q, cu_kv)
    assert torch.isinf(stats[:, :2]).all() and torch.isinf(stats[:, 9:]).all()


def test_a_sequences_gradients_do_not_depend_on_another_sequences_values():
    """The side-buffer addressing defect of the issue (a sequence's stats / delta rows taken from a dense stride)
    would mix sequences: changing sequence 1's inputs must leave sequence 0's gradients bit for bit."""
    cu = [0, 6, 13]
    gen = torch.Generator().manual_seed(55)
    q, k, v, do = (_packed(13, 2, 16, gen) for _ in range(4))
    first = _run(q, k, v, do, cu, cu, causal=True)
    q2, k2, v2, do2 = (t.clone() for t in (q, k, v, do))
    for t in (q2, k2, v2, do2):
        t[6:] = torch.randn(7, 2, 16, generator=gen)
    second = _run(q2, k2, v2, do2, cu, cu, causal=True)
    for a, b in zip(first, second):
        assert torch.equal(a[:6], b[:6])


def test_packed_sequences_under_torch_compile_match_eager():
    cu_q, cu_kv = [0, 4, 11], [0, 6, 9]
    gen = torch.Generator().manual_seed(56)
    q, k, v = _packed(11, 2, 16, gen), _packed(9, 2, 16, gen), _packed(9, 2, 16, gen)
    do = torch.randn(11, 2, 16, generator=gen)
    eager = _run(q, k, v, do, cu_q, cu_kv, causal=True)

    def f(q, k, v, cu_q, cu_kv):
        return sdpa_bwd.attention(q, k, v, cu_seqlens_q=cu_q, cu_seqlens_kv=cu_kv, causal=True)

    compiled = torch.compile(f, backend="aot_eager", fullgraph=True)
    qg, kg, vg = (t.detach().requires_grad_() for t in (q, k, v))
    o = compiled(qg, kg, vg, torch.tensor(cu_q, dtype=torch.int32), torch.tensor(cu_kv, dtype=torch.int32))
    grads = torch.autograd.grad(o, (qg, kg, vg), do)
    for a, b in zip(eager, (o, *grads)):
        assert _err(a, b.double()) < 1e-6


@pytest.mark.parametrize("call,match", [
    (dict(cu_seqlens_q=[0, 5, 3], cu_seqlens_kv=[0, 4, 8]), "entry 2 = 3 is below entry 1"),
    (dict(cu_seqlens_q=[0, 4, 9], cu_seqlens_kv=[0, 4, 8]), "past the 8 tokens"),
    (dict(cu_seqlens_q=[0, 4, 8], cu_seqlens_kv=[0, 8]), "the same B sequences"),
    (dict(cu_seqlens_q=[0, 4, 8], cu_seqlens_kv=[0, 4, 8], max_seqlen_q=3), "max_seqlen_q = 3"),
    (dict(cu_seqlens_q=[0, 4, 8]), "only one of cu_seqlens_q"),
    (dict(cu_seqlens_q=[-1, 4, 8], cu_seqlens_kv=[0, 4, 8]), "must be >= 0"),
    (dict(cu_seqlens_q=[8], cu_seqlens_kv=[8]), "B \\+ 1 >= 2"),
    (dict(cu_seqlens_q=torch.tensor([0.0, 8.0]), cu_seqlens_kv=[0, 8]), "offsets and lengths are integers"),
])
def test_malformed_offsets_are_rejected_with_the_rule_they_break(call, match):
    q = k = v = torch.randn(8, 2, 16)
    with pytest.raises(ValueError, match=match):
        sdpa_bwd.attention(q, k, v, **call)


def test_dense_tensors_with_offsets_are_rejected():
    q = torch.randn(1, 2, 8, 16)
    with pytest.raises(ValueError, match="packed sequences take \\(T, H, D\\)"):
        sdpa_bwd.attention(q, q, q, cu_seqlens_q=[0, 8], cu_seqlens_kv=[0, 8])


def test_runs_of_equal_lengths_take_one_launcher_call_each(monkeypatch):
    """The per-run path: a packed batch of equal lengths is one dense (B, H, S, D) call, not one a sequence;
    lengths 5, 5, 7, 5 are three runs (5 x 2, 7, 5). (With ONE_LAUNCH on, a batch of several runs takes the
    one-launch kernels instead: tests/test_varlen_kernel.py.)"""
    from sdpa_bwd.engine import launch

    monkeypatch.setattr(varlen, "ONE_LAUNCH", False)
    # the launch cache reads, once a process, the names the launchers' code reads: from the real functions, not
    # from the wrappers below (no varlen test before this one may have called the dense launcher)
    launch._sources()
    calls = []
    for name in ("attention_forward", "attention_backward"):
        real = getattr(launch, name)
        monkeypatch.setattr(launch, name, lambda *a, _real=real, _name=name, **kw: calls.append(
            (_name, tuple(a[0].shape))) or _real(*a, **kw))
    gen = torch.Generator().manual_seed(57)
    for cu, want in (([0, 8, 16, 24], [(3, 2, 8, 16)]), ([0, 5, 10, 17, 22], [(2, 2, 5, 16), (1, 2, 7, 16),
                                                                              (1, 2, 5, 16)])):
        calls.clear()
        T = cu[-1]
        q, k, v, do = (_packed(T, 2, 16, gen) for _ in range(4))
        o, dq, dk, dv = _run(q, k, v, do, cu, cu, causal=True)
        assert [s for n, s in calls if n == "attention_forward"] == want
        assert [s for n, s in calls if n == "attention_backward"] == want
        want_o, _, *grads = _oracle(q, k, v, do, cu, cu, right_bound=0)
        for got, ref in zip((o, dq, dk, dv), (want_o, *grads)):
            assert _err(got, ref) < 2e-4


def _nested(lengths, H, D, gen, offsets=None):
    """A nested jagged tensor (B, H, j, D) as scaled_dot_product_attention takes it (the transpose of (B, j, H, D)),
    of the given sequence lengths, or of ``offsets``' (another tensor's ragged structure)."""
    values = torch.randn(sum(lengths), H, D, generator=gen)
    if offsets is None:
        offsets = torch.tensor([0] + list(torch.tensor(lengths).cumsum(0)), dtype=torch.int64)
    return torch.nested.nested_tensor_from_jagged(values, offsets).transpose(1, 2)


@pytest.mark.parametrize("mask", ["none", "causal-bottom-right"])
def test_nested_jagged_inputs_are_packed_sequences(mask):
    """Nested jagged q, k, v (B, H, j, D): O a nested tensor of Q's offsets, and the gradients flow back to the
    nested inputs, each equal to the packed call's with the tensors' values and offsets (itself checked against the
    oracle above); lengths differ between queries and keys, one sequence empty."""
    gen = torch.Generator().manual_seed(5353)
    q = _nested([5, 0, 9], 2, 16, gen)
    k = _nested([7, 3, 4], 1, 16, gen)
    v = torch.nested.nested_tensor_from_jagged(torch.randn(14, 1, 16, generator=gen), k.transpose(1, 2).offsets())
    v = v.transpose(1, 2)
    q, k, v = (t.detach().requires_grad_() for t in (q, k, v))
    o = sdpa_bwd.attention(q, k, v, **MASKS[mask])
    assert o.is_nested and o.transpose(1, 2).offsets() is q.transpose(1, 2).offsets() and o.shape[1] == 2
    do_values = torch.randn(14, 2, 16, generator=gen)
    do = torch.nested.nested_tensor_from_jagged(do_values, q.transpose(1, 2).offsets()).transpose(1, 2)
    grads = torch.autograd.grad(o, (q, k, v), do)
    cu_q, cu_kv = [0, 5, 5, 14], [0, 7, 10, 14]
    flat = [t.transpose(1, 2).values().detach() for t in (q, k, v)]
    o_ref, *grads_ref = _run(*flat, do_values, cu_q, cu_kv, **MASKS[mask])
    assert torch.equal(o.transpose(1, 2).values(), o_ref)
    for name, g, ref in zip(("dq", "dk", "dv"), grads, grads_ref):
        assert g.is_nested and torch.equal(g.transpose(1, 2).values(), ref), f"{name} differs from the packed call's"


def test_nested_inputs_of_another_form_say_what_to_pass():
    gen = torch.Generator().manual_seed(7)
    q = _nested([3, 4], 2, 16, gen)
    dense = torch.randn(2, 2, 4, 16)
    with pytest.raises(ValueError, match=r"k is a dense tensor of dims \(2, 2, 4, 16\).*pass nt.transpose\(1, 2\)"):
        sdpa_bwd.attention(q, dense, dense)
    bsjd = q.transpose(1, 2)  # (B, j, H, D): the ragged dim second
    with pytest.raises(ValueError, match="ragged dim 1: nested inputs take .* the ragged dim third"):
        sdpa_bwd.attention(bsjd, bsjd, bsjd)
    with pytest.raises(ValueError, match="cu_seqlens given with nested inputs"):
        sdpa_bwd.attention(q, q, q, cu_seqlens_q=[0, 3, 7], cu_seqlens_kv=[0, 3, 7])
    other = _nested([4, 3], 2, 16, gen)
    with pytest.raises(ValueError, match="k and v have other offsets"):
        sdpa_bwd.attention(q, q, other)


@pytest.mark.parametrize("on_device", [False, True], ids=["host-offsets", "device-offsets"])
def test_a_broadcast_gradient_reaches_the_packed_backward(on_device):
    """``o.sum().backward()`` hands the backward a dO of strides 0 (autograd's expand of one 1): an input, read
    through its strides, as the dense path reads it. The packed backward refused it as if it were an output
    ("elements of an output would share memory") until 2026-12-07."""
    cu = torch.tensor([0, 3, 10, 15], dtype=torch.int32)
    kw = dict(max_seqlen_q=7, max_seqlen_kv=7) if on_device else {}
    gen = torch.Generator().manual_seed(11)
    q = torch.randn(15, 2, 16, generator=gen).requires_grad_()
    summed, = torch.autograd.grad(
        sdpa_bwd.attention(q, q, q, causal=True, cu_seqlens_q=cu, cu_seqlens_kv=cu, **kw).sum(), q)
    ones, = torch.autograd.grad(sdpa_bwd.attention(q, q, q, causal=True, cu_seqlens_q=cu, cu_seqlens_kv=cu, **kw), q,
                                torch.ones(15, 2, 16))
    assert torch.equal(summed, ones)
