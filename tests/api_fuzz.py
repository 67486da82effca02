"""Random problems for the public API, as data (``sdpa_bwd.cases.Case``): layouts, dims, masks and modes drawn
from a seeded generator, for the fuzz through ``sdpa_bwd.attention`` + autograd (the ``triton-api`` engine).

The GPU test (``tests/gpu/test_api_gpu.py``) runs a hundred or more at GPU sizes; the CPU test runs a few
tiny ones under Triton's interpreter so that the generator itself is exercised in CI.
"""

from __future__ import annotations

import random
from typing import Optional

from sdpa_bwd.problem.cases import Case
from sdpa_bwd.problem.layout import Storage

HEAD_DIMS = (16, 32, 48, 64, 80, 96, 128, 160, 192, 256)
ORDERS = ("bhsd", "bshd", "sbhd", "hbsd", "bsdh")  # the last keeps D outermost-but-one: a head-dim stride != 1
INPUTS = ("q", "k", "v", "do")


def _storage(rng: random.Random, name: str, dims: dict) -> Optional[Storage]:
    kind = rng.random()
    if kind < 0.3:
        return None  # packed BHSD
    order = rng.choice(ORDERS)
    pad = {"s": rng.choice((0, 1, 3, 8, 64))} if rng.random() < 0.5 else {}
    zero = ()
    if name in INPUTS and rng.random() < 0.15:  # a broadcast input: one batch's or one head's values for all
        zero = tuple(a for a in rng.sample(("b", "h"), 1) if dims[a] > 1)
    offset = rng.choice((0, 0, 1, 8, 24))
    return Storage(order=order, pad=pad, zero=zero, offset=offset)


def random_case(rng: random.Random, index: int, *, max_seq: int, dtypes=("bfloat16", "float16", "float32"),
                head_dims=HEAD_DIMS) -> Case:
    """One random, valid case: D_qk != D_v, H_k != H_v, masks in both alignments, windows, any positive or
    negative scale, padded / odd / broadcast / permuted storage of any tensor, deterministic mode."""
    dtype = rng.choice(dtypes)
    d_qk = rng.choice(head_dims)
    d_v = d_qk if rng.random() < 0.6 else rng.choice(head_dims)
    h_q = rng.choice((1, 2, 4, 8))
    h_k = rng.choice([h for h in (1, 2, 4, 8) if h_q % h == 0])
    h_v = h_k if rng.random() < 0.6 else rng.choice([h for h in (1, 2, 4, 8) if h_q % h == 0])
    b = rng.choice((1, 2, 3))
    s_q = rng.choice((1, 2, rng.randint(3, max_seq)))
    s_kv = s_q if rng.random() < 0.5 else rng.randint(1, max_seq)
    mask = rng.choice(("none", "none", "causal", "window", "right-only"))
    left = right = None
    if mask == "causal":
        right = 0
    elif mask == "window":
        left, right = rng.randint(1, max(1, s_kv)), rng.choice((0, 0, rng.randint(1, 16)))
    elif mask == "right-only":
        right = rng.randint(0, 16)
    scale = None if rng.random() < 0.6 else rng.choice((0.05, 0.3, 1.0, 2.5, -0.5))
    dims = {"b": b, "h": h_q}
    storage = {}
    for name in ("q", "k", "v", "o", "do", "dq", "dk", "dv"):
        s = _storage(rng, name, dims)
        if s is not None:
            storage[name] = s
    return Case(f"api-fuzz-{index:03d}", B=b, H_q=h_q, H_k=h_k, H_v=h_v, S_q=s_q, S_kv=s_kv, D_qk=d_qk, D_v=d_v,
                dtype=dtype, storage=tuple(storage.items()), scale=scale, left_bound=left, right_bound=right,
                alignment=rng.choice(("top_left", "bottom_right")), deterministic=rng.random() < 0.2,
                seed=rng.randint(0, 2**31 - 1))


def random_cases(seed: int, count: int, **kw) -> list[Case]:
    """``count`` valid random cases from ``seed`` (draws the problem model rejects are drawn again)."""
    rng = random.Random(seed)
    out: list[Case] = []
    while len(out) < count:
        case = random_case(rng, len(out), **kw)
        try:
            case.to_problem().validate()
        except ValueError:
            continue
        out.append(case)
    return out
