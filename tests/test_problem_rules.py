"""Each decline rule, at its boundary: the value just outside is refused with the
rule's words, the value just inside is accepted. Written to kill the mutants of
``tools/mutate_declines.py`` (a rule removed, one arm of it removed, or widened
by one step); each test names the rule it guards."""

import math

import numpy as np
import pytest
import torch

from sdpa_bwd.engine import launch
from sdpa_bwd.problem import TensorSpec, make_problem, packed_strides


def spec(dims, strides=None, dtype="bfloat16", offset=0, buffer=None):
    return TensorSpec(dims, packed_strides(dims) if strides is None else strides, dtype, offset, buffer)


def base(**kw):
    kw.setdefault("B", 2)
    kw.setdefault("H_q", 4)
    kw.setdefault("S_q", 8)
    kw.setdefault("D_qk", 16)
    return make_problem(**kw)


DIMS = {"q": (2, 4, 8, 16), "k": (2, 4, 8, 16), "v": (2, 4, 8, 16), "o": (2, 4, 8, 16), "do": (2, 4, 8, 16),
        "dq": (2, 4, 8, 16), "dk": (2, 4, 8, 16), "dv": (2, 4, 8, 16)}


# -- _check_spec --------------------------------------------------------------

def test_spec_must_be_a_tensor_spec():
    with pytest.raises(ValueError, match="q: .* is not a TensorSpec"):
        base().with_(q=(2, 4, 8, 16)).validate()


def test_one_stride_per_dim():
    with pytest.raises(ValueError, match="k: 4 dims .* but 3 strides"):
        base().with_(k=TensorSpec((2, 4, 8, 16), (512, 128, 16), "bfloat16")).validate()


def test_spec_dtype_must_be_known():
    # Named by the spec rule (any known element type), before the stats' float32 rule.
    with pytest.raises(ValueError, match="stats: dtype 'int8' is not one of"):
        base().with_(stats=spec((2, 4, 8), dtype="int8")).validate()


def test_negative_dim_is_named_and_zero_is_not_a_spec_error():
    with pytest.raises(ValueError, match="dim 2 is -1"):
        base().with_(q=TensorSpec((2, 4, -1, 16), (64, 16, 16, 1), "bfloat16")).validate()


@pytest.mark.parametrize("name", ["q", "dv"])
def test_negative_stride_boundary(name):
    dims = DIMS[name]
    with pytest.raises(ValueError, match=f"{name}: stride 3 is -1"):
        base().with_(**{name: spec(dims, (512, 128, 16, -1))}).validate()


def test_zero_inner_stride_on_an_input_is_a_broadcast_not_an_error():
    base().with_(q=spec(DIMS["q"], (512, 128, 16, 0))).validate()


def test_storage_offset_boundary():
    with pytest.raises(ValueError, match="q: storage offset -1 must be >= 0"):
        base().with_(q=spec(DIMS["q"], offset=-1)).validate()
    base().with_(q=spec(DIMS["q"], offset=0)).validate()


# -- _check_dims ----------------------------------------------------------------

@pytest.mark.parametrize("name", list(DIMS))
def test_every_tensor_must_have_rank_4(name):
    dims = DIMS[name][1:]
    with pytest.raises(ValueError, match=f"{name}: dims .* have rank 3"):
        base().with_(**{name: spec(dims)}).validate()


@pytest.mark.parametrize("name,dims", [
    ("k", (1, 4, 8, 16)), ("k", (2, 4, 8, 8)),
    ("v", (1, 4, 8, 16)), ("v", (2, 4, 9, 16)),
    ("o", (2, 4, 9, 16)), ("o", (2, 2, 8, 16)),
    ("do", (2, 4, 8, 8)), ("do", (1, 4, 8, 16)),
    ("dq", (2, 4, 8, 8)), ("dk", (2, 2, 8, 16)), ("dv", (2, 4, 7, 16)),
])
def test_each_tensor_must_have_its_expected_dims(name, dims):
    with pytest.raises(ValueError, match=f"{name}: dims {dims!r}".replace("(", r"\(").replace(")", r"\)")):
        base().with_(**{name: spec(dims)}).validate()


@pytest.mark.parametrize("axis", ["B", "H_q", "S_q", "D_qk", "H_k", "S_kv", "H_v", "D_v"])
def test_every_dimension_must_be_at_least_one(axis):
    sizes = dict(B=2, H_q=4, S_q=8, D_qk=16, H_k=4, H_v=4, S_kv=8, D_v=16)
    sizes[axis] = 0
    if axis in ("H_q",):
        sizes.update(H_k=0, H_v=0)
    with pytest.raises(ValueError, match=f"{axis} = 0: every dimension must be >= 1"):
        make_problem(**sizes).validate()


def test_dimension_of_one_is_legal():
    make_problem(B=1, H_q=1, S_q=1, D_qk=1, S_kv=1, D_v=1).validate()


@pytest.mark.parametrize("kw,needle", [(dict(H_k=3, H_v=4), "k: 3 heads"), (dict(H_k=4, H_v=3), "v: 3 heads")])
def test_kv_heads_must_divide_q_heads(kw, needle):
    with pytest.raises(ValueError, match=needle):
        base(**kw).validate()


def test_stats_dims():
    with pytest.raises(ValueError, match="stats: dims"):
        base().with_(stats=spec((2, 4, 8, 2), dtype="float32")).validate()
    base().with_(stats=spec((2, 4, 8, 1), dtype="float32")).validate()


# -- _check_dtypes --------------------------------------------------------------

def test_problem_dtype_must_be_supported():
    p = make_problem(B=1, H_q=1, S_q=4, D_qk=8, dtype="float64")
    with pytest.raises(ValueError, match="q: dtype 'float64' is not one of"):
        p.validate()


@pytest.mark.parametrize("name", ["k", "v", "o", "do", "dq", "dk", "dv"])
def test_every_tensor_shares_q_dtype(name):
    with pytest.raises(ValueError, match=f"{name}: dtype 'float16' differs from q's"):
        base().with_(**{name: spec(DIMS[name], dtype="float16")}).validate()


def test_stats_are_float32():
    with pytest.raises(ValueError, match="stats: dtype 'bfloat16' but the logsumexp is float32"):
        base().with_(stats=spec((2, 4, 8), dtype="bfloat16")).validate()


# -- _check_attributes ----------------------------------------------------------

@pytest.mark.parametrize("scale", [math.nan, math.inf, "0.5"])
def test_scale_must_be_a_finite_number(scale):
    with pytest.raises(ValueError, match="the scale must be a finite number"):
        base(scale=scale).validate()


def test_zero_and_negative_scales_are_well_formed():
    base(scale=0.0).validate()
    base(scale=-1).validate()


def test_alignment_must_be_known():
    with pytest.raises(ValueError, match="alignment = 'center'"):
        base(alignment="center", right_bound=0).validate()


@pytest.mark.parametrize("name,bad,good", [("left_bound", 0, 1), ("right_bound", -1, 0)])
def test_band_bound_boundaries(name, bad, good):
    with pytest.raises(ValueError, match=f"{name} = {bad}: must be >= {good}"):
        base(**{name: bad}).validate()
    base(**{name: good}).validate()
    base(**{name: np.int64(good)}).validate()


@pytest.mark.parametrize("name,value", [("left_bound", True), ("right_bound", False), ("left_bound", 2.0),
                                        ("right_bound", "0")])
def test_band_bounds_must_be_integers(name, value):
    with pytest.raises(ValueError, match=f"{name} = .*: must be an integer or None"):
        base(**{name: value}).validate()


def test_deterministic_must_be_a_bool():
    with pytest.raises(ValueError, match="deterministic = 1: must be a bool"):
        base(deterministic=1).validate()


# -- _check_outputs_well_defined --------------------------------------------------

@pytest.mark.parametrize("name", ["dq", "dk", "dv"])
def test_an_output_must_not_overlap_itself(name):
    with pytest.raises(ValueError, match=f"{name}: strides .* the same element"):
        base().with_(**{name: spec(DIMS[name], (512, 128, 8, 1))}).validate()


@pytest.mark.parametrize("out,other", [("dq", "q"), ("dq", "dk"), ("dk", "dv"), ("dv", "do"), ("dq", "stats")])
def test_an_output_must_not_share_memory(out, other):
    p = base()
    if other == "stats":
        # Same bytes: a float32 stats row over bf16 dQ elements.
        p = p.with_(stats=spec((2, 4, 8), dtype="float32", buffer="shared"),
                    dq=spec(DIMS["dq"], buffer="shared"))
    else:
        p = p.with_(**{out: spec(DIMS[out], buffer="shared"), other: spec(DIMS[other], buffer="shared")})
    with pytest.raises(ValueError, match=f"{out}: shares memory with {other}"):
        p.validate()


def test_adjacent_outputs_in_one_buffer_are_fine():
    n = 2 * 4 * 8 * 16
    base().with_(dk=spec(DIMS["dk"], buffer="grads"), dv=spec(DIMS["dv"], offset=n, buffer="grads")).validate()


# -- launch.triton_not_supported_reasons ----------------------------------------

def reasons(**kw):
    kw.setdefault("device_type", "cuda")
    kw.setdefault("dtype", torch.bfloat16)
    kw.setdefault("d_qk", 64)
    kw.setdefault("d_v", 64)
    return launch.triton_not_supported_reasons(**kw)


@pytest.mark.parametrize("name", ["d_qk", "d_v"])
def test_triton_head_dim_boundary(name):
    label = {"d_qk": "D_qk", "d_v": "D_v"}[name]
    assert any(f"{label} = 257 > 256" in r for r in reasons(**{name: 257}))
    assert reasons(**{name: 256}) == []


@pytest.mark.parametrize("dtype", [torch.float64, "int8"])
def test_triton_dtype_rule(dtype):
    assert any("supported are float16, bfloat16 and float32" in r for r in reasons(dtype=dtype))


@pytest.mark.parametrize("dtype", [torch.float16, torch.bfloat16, torch.float32, "bf16"])
def test_triton_accepts_its_dtypes(dtype):
    assert reasons(dtype=dtype) == []


def test_triton_device_rule():
    assert any("TRITON_INTERPRET" in r for r in reasons(device_type="cpu", interpreter=False))
    assert reasons(device_type="cpu", interpreter=True) == []
    assert any("runs on CUDA devices" in r for r in reasons(device_type="mps", interpreter=True))
