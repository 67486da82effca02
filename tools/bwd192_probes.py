"""Diagnostic builds of the 192 / 128 backward's stage stream and dQ reduce for ``tools/bwd192_bound.py --probe``:
each gives wrong gradients and is for timing only (which share of the kernel a traffic takes)."""

from sdpa_bwd.engine.kernels.attention_bwd_gluon_192 import _tma_reduce_add, gl, gluon, mbarrier, stream_q_do


@gluon.jit
def _stages_without_bytes(n_tiles, q_ready, do_ready, q_empty, do_empty, t0):
    """``stream_q_do``'s handshakes with no loads: each stage, once free, arrives with no bytes (its buffers keep
    what they held)."""
    NST: gl.constexpr = q_ready.type.shape[0]
    for t in range(0, n_tiles):
        s = (t0 + t) % NST
        phase = ((t0 + t) // NST) & 1
        mbarrier.wait(q_empty.index(s), phase ^ 1)
        mbarrier.arrive(q_ready.index(s), count=1)
        mbarrier.wait(do_empty.index(s), phase ^ 1)
        mbarrier.arrive(do_ready.index(s), count=1)


@gluon.jit
def stream_half(q_desc, qb_desc, do_desc, qb_, qh, dob, doh, m0, n_tiles, q_smem, qb_smem, do_smem, q_ready,
                do_ready, q_empty, do_empty, lse_desc, dlt_desc, side0, lse_smem, dlt_smem, t0=0):
    """Programs of odd grid index load no Q or dO tile: the stage loads' L2 traffic halved."""
    if gl.program_id(0) % 2 == 1:
        _stages_without_bytes(n_tiles, q_ready, do_ready, q_empty, do_empty, t0)
    else:
        stream_q_do(q_desc, qb_desc, do_desc, qb_, qh, dob, doh, m0, n_tiles, q_smem, qb_smem, do_smem, q_ready,
                    do_ready, q_empty, do_empty, lse_desc, dlt_desc, side0, lse_smem, dlt_smem, t0)


@gluon.jit
def stream_none(q_desc, qb_desc, do_desc, qb_, qh, dob, doh, m0, n_tiles, q_smem, qb_smem, do_smem, q_ready,
                do_ready, q_empty, do_empty, lse_desc, dlt_desc, side0, lse_smem, dlt_smem, t0=0):
    """No program loads a Q or dO tile."""
    _stages_without_bytes(n_tiles, q_ready, do_ready, q_empty, do_empty, t0)


@gluon.jit
def reduce_half(desc, offsets, src):
    """Programs of odd grid index reduce no dQ partial."""
    if gl.program_id(0) % 2 == 0:
        _tma_reduce_add(desc, offsets, src)


@gluon.jit
def load_kv_none(k_desc, kb_desc, v_desc, b, hk, hv, key0, k_smem, kb_smem, v_smem, kv_bar,
                 EXPECT: gl.constexpr = True):
    """``_load_kv`` with no bytes (stop 44): K's and V's buffers keep whatever they held (the first block's: garbage),
    and ``kv_bar`` completes on the loader's arrival alone, so a block's start waits for no K / V load."""
    if EXPECT:
        mbarrier.arrive(kv_bar, count=1)


@gluon.jit
def store_rows_none(base, acc, row0, n_rows, stride_s, stride_d, C0: gl.constexpr, layout: gl.constexpr):
    """``_store_rows`` storing nothing (stop 44): what a key block's end pays to write its dK and dV rows."""
    pass
