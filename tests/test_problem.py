"""Unit tests of the problem model: each validation rule, with the value it names."""

import math

import pytest

from sdpa_bwd.problem.layout import Storage
from sdpa_bwd.problem import Problem, TensorSpec, make_problem, packed_strides, self_overlap, specs_overlap


def spec(dims, strides=None, dtype="bfloat16", offset=0, buffer=None):
    return TensorSpec(dims, strides or packed_strides(dims), dtype, offset, buffer)


def base(**kw):
    return make_problem(B=2, H_q=4, S_q=16, D_qk=32, **kw)


def test_packed_problem_validates_and_has_derived_sizes():
    p = base(H_k=2, H_v=1, S_kv=24, D_v=16).validate()
    assert (p.B, p.H_q, p.H_k, p.H_v, p.S_q, p.S_kv, p.D_qk, p.D_v) == (2, 4, 2, 1, 16, 24, 32, 16)
    assert p.effective_scale == pytest.approx(1 / math.sqrt(32))


@pytest.mark.parametrize("tensor,dims,needle", [
    ("k", (2, 4, 16, 16), "k: dims"),
    ("o", (2, 4, 15, 32), "o: dims"),
    ("do", (1, 4, 16, 32), "do: dims"),
    ("dq", (2, 4, 16, 33), "dq: dims"),
    ("dv", (2, 2, 16, 32), "dv: dims"),
])
def test_mismatched_dims_name_the_tensor(tensor, dims, needle):
    p = base()
    with pytest.raises(ValueError, match=needle):
        p.with_(**{tensor: spec(dims)}).validate()


def test_heads_must_divide():
    with pytest.raises(ValueError, match="do not divide H_q = 4"):
        base(H_k=3).validate()
    with pytest.raises(ValueError, match="v: 3 heads"):
        base(H_k=2, H_v=3).validate()


def test_stats_dims_and_dtype():
    p = base()
    with pytest.raises(ValueError, match="stats: dims"):
        p.with_(stats=spec((2, 4, 17), dtype="float32")).validate()
    with pytest.raises(ValueError, match="float32"):
        p.with_(stats=spec((2, 4, 16), dtype="bfloat16")).validate()
    p.with_(stats=spec((2, 4, 16, 1), dtype="float32")).validate()


def test_negative_stride_is_named():
    p = base()
    with pytest.raises(ValueError, match="q: stride 2 is -32"):
        p.with_(q=spec((2, 4, 16, 32), (2048, 512, -32, 1))).validate()


@pytest.mark.parametrize("kw,needle", [
    (dict(left_bound=0), "left_bound = 0"),
    (dict(right_bound=-1), "right_bound = -1"),
    (dict(alignment="center"), "alignment"),
    (dict(scale=float("nan")), "finite"),
    (dict(scale=float("inf")), "finite"),
])
def test_attribute_rules(kw, needle):
    p = base()
    with pytest.raises(ValueError, match=needle):
        p.with_(**kw).validate()


def test_any_finite_scale_and_causal_shorthand():
    base(scale=-2.5).validate()
    assert base(causal=True).right_bound == 0
    with pytest.raises(ValueError):
        make_problem(B=1, H_q=1, S_q=4, D_qk=16, causal=True, right_bound=3)


def test_dtype_rules():
    p = base()
    with pytest.raises(ValueError, match="dk: dtype"):
        p.with_(dk=spec(p.dk.dims, dtype="float16")).validate()
    with pytest.raises(ValueError, match="q: dtype"):
        make_problem(B=1, H_q=1, S_q=4, D_qk=16, dtype="float64").validate()


def test_zero_stride_output_on_long_axis_is_undefined_but_fine_on_size_one():
    p = base()
    with pytest.raises(ValueError, match="dk: strides"):
        p.with_(dk=spec(p.dk.dims, (0, 512, 32, 1))).validate()
    one = make_problem(B=1, H_q=1, S_q=8, D_qk=16)
    one.with_(dq=spec(one.dq.dims, (0, 0, 16, 1))).validate()


def test_zero_stride_inputs_are_broadcasts_and_legal():
    p = base()
    p.with_(k=spec(p.k.dims, (0, 512, 32, 1)), do=spec(p.do.dims, (0, 0, 32, 1))).validate()


def test_outputs_overlapping_each_other_or_inputs():
    p = base()
    dq = spec(p.dq.dims, buffer="shared")
    with pytest.raises(ValueError, match="dq: shares memory with dk"):
        p.with_(dq=dq, dk=spec(p.dk.dims, buffer="shared")).validate()
    with pytest.raises(ValueError, match="dv: shares memory with v"):
        p.with_(v=spec(p.v.dims, buffer="v"), dv=spec(p.dv.dims, buffer="v")).validate()


def test_fused_qkv_gradient_slices_do_not_overlap():
    # dq, dk, dv as slices of one (B, S, 3, H, D) buffer: interleaved but disjoint.
    B, S, H, D = 2, 16, 4, 32
    strides = (S * 3 * H * D, D, 3 * H * D, 1)
    p = make_problem(B=B, H_q=H, S_q=S, D_qk=D)
    grads = {n: TensorSpec((B, H, S, D), strides, "bfloat16", i * H * D, "dqkv") for i, n in enumerate(("dq", "dk", "dv"))}
    p.with_(**grads).validate()
    shifted = dict(grads, dv=TensorSpec((B, H, S, D), strides, "bfloat16", 2 * H * D - 1, "dqkv"))
    with pytest.raises(ValueError, match="shares memory"):
        p.with_(**shifted).validate()


def test_self_overlap_names_two_colliding_indices():
    hit = self_overlap((2, 2, 4, 8), (64, 64, 8, 1))
    assert hit is not None
    a, b = hit
    assert a != b
    assert sum(i * s for i, s in zip(a, (64, 64, 8, 1))) == sum(i * s for i, s in zip(b, (64, 64, 8, 1)))


def test_interleaved_but_disjoint_layout_is_accepted():
    # offsets 2i + 3j for i < 3, j < 2: {0, 2, 4, 3, 5, 7} - no collision though
    # the sorted-stride cover rule alone would refuse it.
    assert self_overlap((3, 2), (2, 3)) is None
    assert self_overlap((4, 3), (2, 3)) is not None  # 2*3 == 3*2


def test_specs_in_different_buffers_never_overlap():
    a = spec((1, 1, 4, 4), buffer="x")
    assert not specs_overlap(a, spec((1, 1, 4, 4), buffer="y"))
    assert specs_overlap(a, spec((1, 1, 4, 4), buffer="x", offset=15))
    assert not specs_overlap(a, spec((1, 1, 4, 4), buffer="x", offset=16))


def test_layout_helper_orders_and_padding():
    dims = (2, 3, 5, 8)
    assert Storage("bhsd").strides(dims) == (120, 40, 8, 1)
    assert Storage("bshd").strides(dims) == (120, 8, 24, 1)
    assert Storage("sbhd").strides(dims) == (24, 8, 48, 1)
    assert Storage("bhsd", pad={"s": 3}).strides(dims) == (165, 55, 11, 1)
    assert Storage("bhsd", inner_stride=2).strides(dims) == (240, 80, 16, 2)
    assert Storage("bshd", zero=("b",)).strides(dims) == (0, 8, 24, 1)
    assert Storage("bhsd", junk=True).strides((1, 3, 5, 8))[0] == 7919


def test_describe_torch_tensor():
    import torch

    from sdpa_bwd.problem.layout import describe_tensor, strided_empty

    t = strided_empty((2, 4, 16, 8), "sbhd", dtype=torch.float16)
    assert t.stride() == (32, 8, 64, 1)
    assert describe_tensor(t) == "sbhd"
    s = TensorSpec.of(t)
    assert s.dims == (2, 4, 16, 8) and s.dtype == "float16"


def test_flops_count_masks_exactly():
    p = make_problem(B=1, H_q=1, S_q=4, D_qk=8, causal=True)
    assert p.kept_pairs() == 10
    fwd, bwd = p.flops()
    assert fwd == 2 * 10 * 16 and bwd == 2.5 * fwd
    br = make_problem(B=1, H_q=1, S_q=6, S_kv=3, D_qk=8, causal=True, alignment="bottom_right")
    assert br.empty_rows() == 3
