"""Diagnostic builds of the 192 / 128 backward's stage stream and dQ reduce for ``tools/bwd192_bound.py --probe``:
each gives wrong gradients and is for timing only (which share of the kernel a traffic takes)."""

from sdpa_bwd.kernels.attention_bwd_gluon_192 import (
    COLS0,
    ROWS,
    _tma_load,
    _tma_reduce_add,
    as_box,
    gl,
    gluon,
    mbarrier,
)


@gluon.jit
def _stream(q_desc, qb_desc, do_desc, qb_, qh, dob, doh, m0, n_tiles, q_smem, qb_smem, do_smem, q_ready, do_ready,
            q_empty, do_empty, lse_desc, dlt_desc, side0, lse_smem, dlt_smem, t0, skip):
    """``stream_q_do``'s protocol, where ``skip`` the stages arrive with no bytes (their buffers keep what they
    held)."""
    NST: gl.constexpr = q_smem.type.shape[0]
    SIDE_BYTES: gl.constexpr = q_smem.type.shape[1] * 4
    for t in range(0, n_tiles):
        s = (t0 + t) % NST
        phase = ((t0 + t) // NST) & 1
        row = m0 + t * ROWS
        mbarrier.wait(q_empty.index(s), phase ^ 1)
        if skip:
            mbarrier.arrive(q_ready.index(s), count=1)
        else:
            mbarrier.expect(q_ready.index(s), q_desc.block_type.nbytes + qb_desc.block_type.nbytes + SIDE_BYTES)
            _tma_load(q_desc, [qb_, qh, row, 0], q_ready.index(s), as_box(q_smem.index(s), q_desc))
            _tma_load(qb_desc, [qb_, qh, row, COLS0], q_ready.index(s), as_box(qb_smem.index(s), qb_desc))
            _tma_load(lse_desc, [side0 + row], q_ready.index(s), lse_smem.index(s))
        mbarrier.wait(do_empty.index(s), phase ^ 1)
        if skip:
            mbarrier.arrive(do_ready.index(s), count=1)
        else:
            mbarrier.expect(do_ready.index(s), do_desc.block_type.nbytes + SIDE_BYTES)
            _tma_load(do_desc, [dob, doh, row, 0], do_ready.index(s), as_box(do_smem.index(s), do_desc))
            _tma_load(dlt_desc, [side0 + row], do_ready.index(s), dlt_smem.index(s))


@gluon.jit
def stream_half(q_desc, qb_desc, do_desc, qb_, qh, dob, doh, m0, n_tiles, q_smem, qb_smem, do_smem, q_ready,
                do_ready, q_empty, do_empty, lse_desc, dlt_desc, side0, lse_smem, dlt_smem, t0=0):
    """Programs of odd grid index load no Q or dO tile: the stage loads' L2 traffic halved."""
    _stream(q_desc, qb_desc, do_desc, qb_, qh, dob, doh, m0, n_tiles, q_smem, qb_smem, do_smem, q_ready, do_ready,
            q_empty, do_empty, lse_desc, dlt_desc, side0, lse_smem, dlt_smem, t0, gl.program_id(0) % 2 == 1)


@gluon.jit
def stream_none(q_desc, qb_desc, do_desc, qb_, qh, dob, doh, m0, n_tiles, q_smem, qb_smem, do_smem, q_ready,
                do_ready, q_empty, do_empty, lse_desc, dlt_desc, side0, lse_smem, dlt_smem, t0=0):
    """No program loads a Q or dO tile."""
    _stream(q_desc, qb_desc, do_desc, qb_, qh, dob, doh, m0, n_tiles, q_smem, qb_smem, do_smem, q_ready, do_ready,
            q_empty, do_empty, lse_desc, dlt_desc, side0, lse_smem, dlt_smem, t0, gl.program_id(0) >= 0)


@gluon.jit
def reduce_half(desc, offsets, src):
    """Programs of odd grid index reduce no dQ partial."""
    if gl.program_id(0) % 2 == 0:
        _tma_reduce_add(desc, offsets, src)
