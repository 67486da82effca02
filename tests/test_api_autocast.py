"""``sdpa_bwd.attention`` under ``torch.autocast``, on the CPU under Triton's interpreter: floating-point q, k, v
are cast to the autocast dtype as ``scaled_dot_product_attention`` casts them, so a model under autocast gets the
same dtype from either (``tests/gpu/test_api_gpu.py`` holds the CUDA twin against SDPA itself)."""

import pytest
import torch
import torch.nn.functional as F

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
