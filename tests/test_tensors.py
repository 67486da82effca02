"""The harness's tensor writes: the strided fast path must touch exactly what the index path does."""

import torch
from hypothesis import given, settings
from hypothesis import strategies as st

from sdpa_bwd.problem import TensorSpec
from sdpa_bwd.conformance.tensors import GUARD, _disjoint, _footprint, _mark, _write

shapes = st.lists(st.tuples(st.integers(1, 4), st.integers(0, 9)), min_size=1, max_size=4)


def _spec(pairs, offset):
    return TensorSpec(tuple(d for d, _ in pairs), tuple(s for _, s in pairs), "float32", offset=offset)


@settings(max_examples=300, deadline=None)
@given(shapes, st.integers(0, 5))
def test_disjoint_only_where_no_two_elements_share_storage(pairs, offset):
    spec = _spec(pairs, offset)
    idx = _footprint(spec, "cpu")
    if _disjoint(spec):
        assert idx.unique().numel() == idx.numel(), (spec, "called disjoint but elements share storage")


@settings(max_examples=200, deadline=None)
@given(shapes, st.integers(0, 5), st.integers(0, 2**31 - 1))
def test_mark_and_write_touch_what_the_index_path_touches(pairs, offset, seed):
    spec = _spec(pairs, offset)
    size = GUARD * 2 + offset + 1 + sum((d - 1) * s for d, s in zip(spec.dims, spec.strides))
    mask = torch.zeros(size, dtype=torch.bool)
    _mark(mask, spec)
    expected = torch.zeros(size, dtype=torch.bool)
    expected[_footprint(spec, "cpu")] = True
    assert torch.equal(mask, expected)
    if _disjoint(spec):  # overlapping writes are last-write-wins through the index path either way
        values = torch.randn(spec.dims, generator=torch.Generator().manual_seed(seed))
        flat = torch.full((size,), float("nan"))
        _write(flat, spec, values)
        reference = torch.full((size,), float("nan"))
        reference[_footprint(spec, "cpu")] = values.reshape(-1)
        assert torch.equal(flat.nan_to_num(7.0), reference.nan_to_num(7.0))


def test_a_broadcast_tensor_is_not_disjoint():
    assert not _disjoint(TensorSpec((2, 3), (0, 1), "float32"))
    assert not _disjoint(TensorSpec((2, 3), (2, 1), "float32"))  # rows overlap by one element
    assert _disjoint(TensorSpec((2, 3), (3, 1), "float32"))
    assert _disjoint(TensorSpec((3, 2), (1, 3), "float32"))      # column-major


@settings(max_examples=40, deadline=None)
@given(st.lists(st.integers(0, 10**6), min_size=0, max_size=4), st.integers(3, 64))
def test_guard_check_in_chunks_equals_one_pass(hits, chunk):
    """Lost poison found chunk by chunk: the same counts and the same first index as one pass."""
    import sdpa_bwd.conformance.tensors as tensors
    from sdpa_bwd.problem.cases import Case

    m = tensors.materialize(Case("guarded", S_q=5, D_qk=16, seed=2).to_problem(), seed=2)
    buf = m.buffers[next(iter(m.buffers))]
    for h in hits:  # engine writes anywhere in the buffer, guards included
        buf.flat[h % buf.flat.numel()] = 1.0
    whole = tensors.check_outputs(m)
    old = tensors.GUARD_CHUNK
    try:
        tensors.GUARD_CHUNK = chunk
        pieces = tensors.check_outputs(m)
    finally:
        tensors.GUARD_CHUNK = old
    assert pieces == whole
    # and both say what an independent count says: positions outside every tensor, the first of them
    inside = torch.zeros(buf.flat.numel(), dtype=torch.bool)
    for n in buf.members:
        inside[_footprint(m.problem.tensor(n), "cpu")] = True
    outside = sorted({h % buf.flat.numel() for h in hits} - set(torch.nonzero(inside).view(-1).tolist()))
    assert whole.written_outside[buf.name] == len(outside)
    assert whole.first_outside.get(buf.name) == (outside[0] - GUARD if outside else None)
