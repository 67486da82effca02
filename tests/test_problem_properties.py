"""Property tests of the problem model over random dims and strides."""

import itertools
import math

import numpy as np
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from sdpa_bwd.problem.layout import AXES, Storage
from sdpa_bwd.problem import Problem, TensorSpec, make_problem, self_overlap, specs_overlap

small_dims = st.lists(st.integers(1, 4), min_size=1, max_size=4)


def brute_force_overlap(dims, strides) -> bool:
    seen = set()
    for idx in itertools.product(*[range(d) for d in dims]):
        off = sum(i * s for i, s in zip(idx, strides))
        if off in seen:
            return True
        seen.add(off)
    return False


@given(data=st.data())
@settings(max_examples=400, deadline=None)
def test_overlap_rule_agrees_with_enumeration(data):
    dims = data.draw(small_dims)
    strides = data.draw(st.lists(st.integers(0, 12), min_size=len(dims), max_size=len(dims)))
    hit = self_overlap(dims, strides)
    assert (hit is not None) == brute_force_overlap(dims, strides)
    if hit is not None:
        a, b = hit
        assert a != b
        assert sum(i * s for i, s in zip(a, strides)) == sum(i * s for i, s in zip(b, strides))


@given(data=st.data())
@settings(max_examples=200, deadline=None)
def test_cross_overlap_agrees_with_enumeration(data):
    dims = tuple(data.draw(st.lists(st.integers(1, 3), min_size=2, max_size=3)))
    sa = tuple(data.draw(st.lists(st.integers(1, 9), min_size=len(dims), max_size=len(dims))))
    sb = data.draw(st.sampled_from([sa, tuple(data.draw(st.lists(st.integers(1, 9), min_size=len(dims), max_size=len(dims))))]))
    oa, ob = data.draw(st.integers(0, 20)), data.draw(st.integers(0, 20))
    a = TensorSpec(dims, sa, "float16", oa, "buf")
    b = TensorSpec(dims, sb, "float16", ob, "buf")

    def footprint(s):
        return {s.offset + sum(i * st_ for i, st_ in zip(idx, s.strides))
                for idx in itertools.product(*[range(d) for d in s.dims])}

    assert specs_overlap(a, b) == bool(footprint(a) & footprint(b))


orders = st.permutations(AXES).map("".join)


@st.composite
def storages(draw, allow_zero):
    return Storage(order=draw(orders),
                   pad=tuple((a, draw(st.integers(0, 5))) for a in draw(st.sets(st.sampled_from(AXES), max_size=2))),
                   inner_stride=draw(st.integers(1, 3)),
                   zero=tuple(draw(st.sets(st.sampled_from("bh"), max_size=2))) if allow_zero else (),
                   junk=draw(st.booleans()), offset=draw(st.integers(0, 7)))


@st.composite
def problems(draw):
    H_k = draw(st.sampled_from([1, 2, 4]))
    H_v = draw(st.sampled_from([h for h in (1, 2, 4)]))
    H_q = 4 * draw(st.integers(1, 2))
    dims = dict(B=draw(st.integers(1, 3)), H_q=H_q, H_k=H_k, H_v=H_v, S_q=draw(st.integers(1, 9)),
                S_kv=draw(st.integers(1, 9)), D_qk=draw(st.sampled_from([8, 16])), D_v=draw(st.sampled_from([8, 16])))
    p = make_problem(**dims, stats_rank=draw(st.sampled_from([3, 4])))
    specs = {}
    for name in ("q", "k", "v", "o", "do", "dq", "dk", "dv"):
        s = draw(storages(allow_zero=name in ("q", "k", "v", "o", "do")))
        specs[name] = s.spec(p.tensor(name).dims, p.dtype, buffer=name)
    return p.with_(**specs)


@given(problems())
@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
def test_well_defined_layouts_are_never_refused(problem):
    # Every output has its own buffer and a layout built from a Storage recipe
    # (no zero strides): a well-defined problem, so validation must accept it.
    problem.validate()


@given(problems(), st.data())
@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
def test_validation_raises_only_value_error(problem, data):
    name = data.draw(st.sampled_from(["q", "k", "v", "o", "do", "stats", "dq", "dk", "dv"]))
    spec = problem.tensor(name)
    dims = tuple(data.draw(st.lists(st.integers(0, 5), min_size=len(spec.dims) - 1, max_size=len(spec.dims) + 1)))
    strides = tuple(data.draw(st.lists(st.integers(-3, 40), min_size=len(dims), max_size=len(dims) + 1)))
    dtype = data.draw(st.sampled_from(["float16", "bfloat16", "float32", "float64"]))
    mutated = problem.with_(**{name: TensorSpec(dims, strides, dtype, data.draw(st.integers(0, 3)), data.draw(st.sampled_from([name, "shared"])))},
                            left_bound=data.draw(st.one_of(st.none(), st.integers(-2, 5))),
                            right_bound=data.draw(st.one_of(st.none(), st.integers(-2, 5))),
                            scale=data.draw(st.one_of(st.none(), st.floats(allow_nan=True, allow_infinity=True))))
    try:
        mutated.validate()
    except ValueError:
        pass
