"""A few tiny random cases through ``sdpa_bwd.attention`` + autograd (the ``triton-api`` engine) under Triton's
interpreter, with the generator the GPU fuzz uses at GPU sizes (``tests/gpu/test_api_gpu.py``)."""

import pytest
from api_fuzz import random_cases

from sdpa_bwd.backends import get_engine
from sdpa_bwd.conformance.runner import run_case

pytest.importorskip("triton")

CASES = random_cases(20261206, 8, max_seq=24, head_dims=(16, 32, 48, 64))


def test_the_generator_draws_what_it_promises():
    many = random_cases(7, 200, max_seq=64)
    assert any(c.D_qk != c.D_v for c in many) and any(c.H_k != c.H_v for c in many)
    assert any(c.deterministic for c in many) and any(c.alignment == "bottom_right" and c.right_bound is not None
                                                      for c in many)
    assert any(c.left_bound is not None for c in many) and any((c.scale or 1) < 0 for c in many)
    assert any(s.zero for c in many for _, s in c.storage) and any(s.order == "bsdh" for c in many
                                                                    for _, s in c.storage)
    assert {c.dtype for c in many} == {"bfloat16", "float16", "float32"}


@pytest.mark.parametrize("case", CASES, ids=[c.id for c in CASES])
def test_tiny_random_case_through_the_public_api(case):
    r = run_case(get_engine("triton-api"), case, reruns=2 if case.deterministic else 1)
    assert r.verdict == "passed", f"{case.describe()}: {r.verdict}: {r.message}"
