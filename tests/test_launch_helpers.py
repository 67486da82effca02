"""The launcher's host-side arithmetic: plain-int stand-ins for Triton's constexpr helpers (which cost a
few us a call on the host, tools/host_overhead.py --python-only) must give exactly their values, and the
cached config tables the uncached ones."""

import torch
import triton
from hypothesis import given
from hypothesis import strategies as st

from sdpa_bwd.engine import launch


@given(st.integers(0, 1 << 20))
def test_head_dim_pad_is_the_next_power_of_two_at_least_16(d):
    assert launch.head_dim_pad(d) == max(16, triton.next_power_of_2(d))


def test_head_dim_pad_at_every_small_head_dim():
    for d in range(0, 1025):
        assert launch.head_dim_pad(d) == max(16, triton.next_power_of_2(d)), d


@given(st.integers(0, 1 << 40), st.integers(1, 1 << 12))
def test_cdiv_is_triton_cdiv(a, b):
    assert launch._cdiv(a, b) == triton.cdiv(a, b) == (a + b - 1) // b


def test_cached_config_tables_match_the_uncached_ones():
    for dtype in (torch.float16, torch.bfloat16, torch.float32):
        for d_qk, d_v in ((16, 16), (64, 64), (128, 128), (256, 128), (256, 256), (32, 128)):
            for device in ("cuda", "cpu"):
                for causal in (False, True):
                    assert launch.forward_config(d_qk, d_v, dtype, device, causal) == \
                        launch.forward_config.__wrapped__(d_qk, d_v, dtype, device, causal)
                for det in (False, True):
                    for causal in (False, True):
                        assert launch.backward_config(d_qk, d_v, dtype, device, det, causal) == \
                            launch.backward_config.__wrapped__(d_qk, d_v, dtype, device, det, causal)
