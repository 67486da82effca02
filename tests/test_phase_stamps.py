"""``tools/phase_stamps.py``'s arithmetic on synthetic stamps: a program's phases and the per-SM gaps (the stamps
themselves come from the H200; the stamped build's compile is checked in tests/test_gluon_backward.py)."""

import os
import sys

import numpy as np

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tools"))

import phase_stamps  # noqa: E402


def _program(start_ns, sm, kv=2000, first=5000, last=35000, end=40000):
    """Stamps of one program (``attention_bwd_gluon.STAMP_SLOTS``), times after its start in ns."""
    st = np.zeros(16, dtype=np.int64)
    st[15], st[14] = start_ns, sm
    st[0], st[1], st[2], st[3] = start_ns + 100, start_ns + 900, start_ns + 1500, start_ns + 30000
    for c, skew in ((0, 0), (1, 200)):  # consumer 1 a little later: the phases take the later of the two
        st[4 + 4 * c] = start_ns + 50
        st[5 + 4 * c] = start_ns + kv + skew
        st[6 + 4 * c] = start_ns + first + skew
        st[7 + 4 * c] = start_ns + last + skew
        st[12 + c] = start_ns + end + skew
    return st


def test_phases_and_gaps_on_synthetic_stamps():
    # SM 0 runs two programs back to back with 3 us between them, SM 1 one program that ends 13.2 us earlier
    stamps = np.stack([_program(0, 0), _program(43_200, 0), _program(30_000, 1)])
    ph = phase_stamps.phases(stamps, n_tiles=np.array([11, 11, 11]))
    near = lambda x, want: np.allclose(x, want, atol=1e-9)  # noqa: E731
    assert near(ph["K and V in (both consumers)"], 2.2), ph["K and V in (both consumers)"]
    assert near(ph["the first tile (after K and V in)"], 3.0)
    assert near(ph["a loop tile"], 3.0), "the loop (30 us over 10 tiles after the first) is 3 us a tile"
    assert near(ph["the epilogue (last product to dK, dV out)"], 5.0)
    assert near(ph["the program, start to end"], 40.2)
    assert near(ph["per SM: one program's end to the next one's start"], [3.0]), (
        "SM 0's second program starts 43.2 us in, its first ended at 40.2: a 3 us gap; SM 1 has none")
    assert near(ph["kernel: first start to last end"], [83.4])
    assert near(sorted(ph["per SM: idle after its last program (tail)"]), [0.0, 13.2])
