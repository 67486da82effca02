"""``sdpa_bwd.attention`` in the modes training code puts autograd in, on the CPU under Triton's interpreter:
``torch.autocast`` (floating-point q, k, v cast to the autocast dtype as ``scaled_dot_product_attention`` casts them;
``tests/gpu/test_api_gpu.py`` holds the CUDA twin against SDPA itself), gradients taken with ``create_graph=True``
(first order as without it; a second derivative refused, never zeros), activation checkpointing, and torch.func's
transforms (``grad``, ``vmap``, per-sample gradients ``vmap(grad(...))``) against SDPA in float64."""

import pytest
import torch
import torch.nn.functional as F
from torch.utils.checkpoint import checkpoint

import sdpa_bwd
from sdpa_bwd.engine import launch

pytest.importorskip("triton")


def _inputs(seed=3):
    gen = torch.Generator().manual_seed(seed)
    return [torch.randn(1, 2, 24, 16, generator=gen).requires_grad_() for _ in range(3)]


def test_autocast_casts_the_inputs_as_sdpa_does():
    q, k, v = _inputs()
    do = torch.randn(1, 2, 24, 16, dtype=torch.bfloat16)
    with torch.autocast("cpu", dtype=torch.bfloat16):
        o = sdpa_bwd.attention(q, k, v, causal=True)
        o_sdpa = F.scaled_dot_product_attention(q, k, v, is_causal=True)
    assert o.dtype == o_sdpa.dtype == torch.bfloat16, f"O is {o.dtype} under autocast, SDPA's {o_sdpa.dtype}"
    grads = torch.autograd.grad(o, (q, k, v), do)
    assert all(g.dtype == torch.float32 for g in grads), "the gradients flow back through the casts to fp32"
    # the same as the caller casting by hand
    q2, k2, v2 = (t.detach().requires_grad_() for t in (q, k, v))
    o2 = sdpa_bwd.attention(*(t.to(torch.bfloat16) for t in (q2, k2, v2)), causal=True)
    assert torch.equal(o, o2)
    for name, a, b in zip(("dq", "dk", "dv"), grads, torch.autograd.grad(o2, (q2, k2, v2), do)):
        assert torch.equal(a, b), f"{name} differs from the call on inputs cast by hand"


def test_without_autocast_the_dtype_is_the_callers():
    q, k, v = _inputs()
    assert sdpa_bwd.attention(q, k, v).dtype == torch.float32
    with torch.autocast("cpu", dtype=torch.bfloat16, enabled=False):
        assert sdpa_bwd.attention(q, k, v).dtype == torch.float32


@pytest.mark.parametrize("packed", [False, True], ids=["dense", "packed"])
def test_a_second_derivative_is_refused_not_zero(packed):
    """A gradient penalty differentiates a gradient again (create_graph=True). Our backward has no derivative: the
    first-order gradients come out as without create_graph, and differentiating them raises, saying what to use.
    Under once_differentiable they came out without a graph when dO needed none (a sum's ones), so a penalty's
    terms through them were silently zero (2026-12-07)."""
    q, k, v = _inputs()
    kw = {}
    if packed:
        q, k, v = (t.detach()[0].transpose(0, 1).contiguous().requires_grad_() for t in (q, k, v))  # (T, H, D)
        kw = dict(cu_seqlens_q=[0, 10, 24], cu_seqlens_kv=[0, 10, 24])
    g, = torch.autograd.grad(sdpa_bwd.attention(q, k, v, causal=True, **kw).sum(), q, create_graph=True)
    plain, = torch.autograd.grad(sdpa_bwd.attention(q, k, v, causal=True, **kw).sum(), q)
    assert torch.equal(g.detach(), plain) and g.requires_grad
    with pytest.raises(RuntimeError, match="a second derivative through sdpa_bwd.attention was asked.*math"):
        (g * g).sum().backward()


@pytest.mark.parametrize("reentrant", [False, True], ids=["non-reentrant", "reentrant"])
def test_activation_checkpointing_recomputes_the_same_gradients(reentrant):
    q, k, v = _inputs()
    o = checkpoint(lambda a, b, c: sdpa_bwd.attention(a, b, c, causal=True), q, k, v, use_reentrant=reentrant)
    o.sum().backward()
    got = [t.grad.clone() for t in (q, k, v)]
    for t in (q, k, v):
        t.grad = None
    sdpa_bwd.attention(q, k, v, causal=True).sum().backward()
    for name, a, t in zip(("dq", "dk", "dv"), got, (q, k, v)):
        assert torch.equal(a, t.grad), f"{name} under checkpointing differs from the plain call's"


def _reference_loss(q, k, v):
    """The float64 oracle of the loss the torch.func tests differentiate (SDPA's math on float64 CPU tensors)."""
    q, k, v = (t.double() for t in (q, k, v))
    return F.scaled_dot_product_attention(q, k, v, is_causal=True, enable_gqa=True).square().sum()


def _loss(q, k, v):
    return sdpa_bwd.attention(q, k, v, causal=True).square().sum()


def _close(got, want, what):
    err = (got.double() - want).abs().max().item()
    assert err <= 1e-4 * (1 + want.abs().max().item()), (
        f"{what}: max error {err:.3g} against SDPA's float64 math; the tolerance is 1e-4 of the values' scale - a "
        "torch.func path computing other gradients than autograd's")


def test_torch_func_grad_gives_autograds_gradients():
    gen = torch.Generator().manual_seed(5)
    q = torch.randn(2, 4, 19, 16, generator=gen)
    k, v = (torch.randn(2, 2, 23, 16, generator=gen) for _ in range(2))  # GQA 4:2, S_q != S_kv
    got = torch.func.grad(_loss, argnums=(0, 1, 2))(q, k, v)
    want = torch.func.grad(_reference_loss, argnums=(0, 1, 2))(q, k, v)
    for name, a, b in zip(("dq", "dk", "dv"), got, want):
        _close(a, b, f"torch.func.grad's {name}")


@pytest.mark.parametrize("kv_batched", [True, False], ids=["kv-per-sample", "kv-shared"])
def test_per_sample_gradients_through_vmap_of_grad(kv_batched):
    """Per-sample gradients (differential privacy's clipping, influence functions) as torch.func computes them: vmap
    over samples of grad of a sample's loss. Our vmap rules merge the samples into the batch dim."""
    gen = torch.Generator().manual_seed(6)
    x = torch.randn(3, 1, 2, 21, 16, generator=gen)  # 3 samples of (1, 2, 21, 16)
    kv = (x * 0.5, x.flip(-2)) if kv_batched else tuple(torch.randn(1, 2, 21, 16, generator=gen) for _ in range(2))
    in_dims = (0, 0, 0) if kv_batched else (0, None, None)
    got = torch.func.vmap(torch.func.grad(_loss, argnums=(0, 1, 2)), in_dims=in_dims)(x, *kv)
    want = torch.func.vmap(torch.func.grad(_reference_loss, argnums=(0, 1, 2)), in_dims=in_dims)(x, *kv)
    for name, a, b in zip(("dq", "dk", "dv"), got, want):
        assert a.shape == b.shape == (3, 1, 2, 21, 16), f"per-sample {name} of dims {tuple(a.shape)}"
        _close(a, b, f"per-sample {name} ({'k, v per sample' if kv_batched else 'k, v shared'})")


def test_vmap_of_the_forward_at_any_dim():
    gen = torch.Generator().manual_seed(7)
    q = torch.randn(1, 2, 5, 17, 16, generator=gen)  # vmapped over dim 2
    k, v = (torch.randn(1, 2, 17, 16, generator=gen) for _ in range(2))
    got = torch.func.vmap(lambda q: sdpa_bwd.attention(q, k, v), in_dims=2)(q)
    want = torch.stack([F.scaled_dot_product_attention(q[:, :, i].double(), k.double(), v.double())
                        for i in range(5)])
    assert got.shape == (5, 1, 2, 17, 16)
    _close(got, want, "vmap's O")


def test_a_second_derivative_through_torch_func_is_refused():
    q, k, v = (t.detach() for t in _inputs())
    with pytest.raises(RuntimeError, match="a second derivative through sdpa_bwd.attention was asked.*math"):
        torch.func.jacrev(torch.func.grad(_loss))(q, k, v)


def test_torch_func_grad_of_packed_sequences():
    gen = torch.Generator().manual_seed(8)
    q, k, v = (torch.randn(24, 2, 16, generator=gen) for _ in range(3))  # (T, H, D), sequences of 10 and 14
    cu = [0, 10, 24]
    got = torch.func.grad(lambda q, k, v: sdpa_bwd.attention(q, k, v, causal=True, cu_seqlens_q=cu,
                                                              cu_seqlens_kv=cu).square().sum(), argnums=(0, 1, 2))(q, k, v)

    def reference(q, k, v):  # each sequence alone, (1, H, S, D)
        return sum(_reference_loss(*(t[a:b].transpose(0, 1)[None] for t in (q, k, v))) for a, b in zip(cu, cu[1:]))
    want = torch.func.grad(reference, argnums=(0, 1, 2))(q, k, v)
    for name, a, b in zip(("dq", "dk", "dv"), got, want):
        _close(a, b, f"torch.func.grad's {name} of packed sequences")


def test_vmap_over_packed_sequences_is_refused_with_what_to_do():
    x = torch.randn(2, 24, 2, 16)
    with pytest.raises(NotImplementedError, match="packed sequences.*not supported.*pack the vmapped problems"):
        torch.func.vmap(lambda q: sdpa_bwd.attention(q, q, q, cu_seqlens_q=[0, 10, 24], cu_seqlens_kv=[0, 10, 24]))(x)


def test_vmap_of_the_forward_under_torch_compile(monkeypatch):
    """torch.compile of a vmapped forward: one launch for the samples, merged into the batch dim, and the gradients of
    the vmapped output right. (torch.func's ``grad`` under torch.compile does not run: the custom op's autograd
    wrapper is torch's classic Function, 2026-12-07.)"""
    torch._dynamo.reset()
    gen = torch.Generator().manual_seed(8)
    q = torch.randn(3, 1, 2, 19, 16, generator=gen)  # 3 samples, vmapped over dim 0
    k, v = (torch.randn(1, 2, 19, 16, generator=gen) for _ in range(2))
    calls = []
    launch_forward = launch.attention_forward

    def counted(q, *args, **kwargs):
        calls.append(tuple(q.shape))
        return launch_forward(q, *args, **kwargs)

    monkeypatch.setattr(launch, "attention_forward", counted)
    compiled = torch.compile(torch.func.vmap(lambda q: sdpa_bwd.attention(q, k, v, causal=True)), fullgraph=True)
    got = compiled(q.requires_grad_())
    qd = q.detach().double().requires_grad_()
    want = torch.stack([F.scaled_dot_product_attention(qd[i], k.double(), v.double(), is_causal=True)
                        for i in range(3)])
    assert got.shape == (3, 1, 2, 19, 16)
    assert calls == [(3, 2, 19, 16)], f"one launch for the three samples, merged into the batch dim: {calls}"
    _close(got, want, "compiled vmap's O")
    do = torch.randn(got.shape, generator=gen)
    (dq,) = torch.autograd.grad(got, q, do)
    (want_dq,) = torch.autograd.grad(want, qd, do.double())
    _close(dq, want_dq, "compiled vmap's dQ")


def test_the_custom_ops_vmap_rules_merge_the_samples_into_the_batch(monkeypatch):
    """vmap over the custom ops themselves (what a compiled graph calls): one launch each for the samples, equal to
    the ops run sample by sample (before their rules torch's BatchedFallback ran them once a sample, 2026-12-07)."""
    from sdpa_bwd.engine import api

    calls = []
    for name in ("attention_forward", "attention_backward"):
        real = getattr(launch, name)
        monkeypatch.setattr(launch, name, lambda q, *a, _real=real, _name=name, **kw: (
            calls.append((_name, tuple(q.shape))), _real(q, *a, **kw))[1])
    gen = torch.Generator().manual_seed(9)
    q, do = (torch.randn(3, 1, 2, 13, 16, generator=gen) for _ in range(2))
    k, v = (torch.randn(1, 2, 13, 16, generator=gen) for _ in range(2))
    params = (0.25, None, 0, "top_left")
    o, stats = torch.func.vmap(lambda q: api._attention_forward_op(q, k, v, *params))(q)
    grads = torch.func.vmap(lambda q, o, do, stats: api._attention_backward_op(q, k, v, o, do, stats, *params, False))(
        q, o, do, stats)
    assert calls == [("attention_forward", (3, 2, 13, 16)), ("attention_backward", (3, 2, 13, 16))], calls
    for i in range(3):
        o_i, stats_i = api._attention_forward_op(q[i], k, v, *params)
        torch.testing.assert_close(o[i], o_i)
        torch.testing.assert_close(stats[i], stats_i)
        for name, g, g_i in zip(("dq", "dk", "dv"), grads, api._attention_backward_op(q[i], k, v, o_i, do[i],
                                                                                       stats_i, *params, False)):
            assert g.shape[0] == 3, f"{name} of dims {tuple(g.shape)}: the samples first"
            torch.testing.assert_close(g[i], g_i, msg=lambda m, name=name: f"sample {i} {name}: {m}")
