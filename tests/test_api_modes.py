"""``sdpa_bwd.attention`` in the modes training code puts autograd in, on the CPU under Triton's interpreter:
``torch.autocast`` (floating-point q, k, v cast to the autocast dtype as ``scaled_dot_product_attention`` casts them;
``tests/gpu/test_api_gpu.py`` holds the CUDA twin against SDPA itself), gradients taken with ``create_graph=True``
(first order as without it; a second derivative refused, never zeros), and activation checkpointing."""

import pytest
import torch
import torch.nn.functional as F
from torch.utils.checkpoint import checkpoint

import sdpa_bwd

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
