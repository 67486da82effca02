"""DQ_CONVERT, the last stage of the backward where dQ was added up in the packed fp32 accumulator: the accumulator,
scaled, into dQ through dQ's strides.

The kernel runs here under the interpreter on fresh random accumulators, into dQ views of a poisoned buffer (packed
BHSD, SBHD with an odd row pitch, head-dim stride 2), at head dims that take one chunk, a padded one, and the
128 + 64 / 128 + 32 split: every element of dQ within one bf16 rounding of the accumulator times the scale, and
nothing outside dQ written. (Stop 42 timed its launch forms on the H200, rows, warps, streaming hints: all within
2% of each other, docs/data/h200-2026-12-04b run 5; the forms were not kept.)
"""

import os

import torch

if not torch.cuda.is_available():
    os.environ.setdefault("TRITON_INTERPRET", "1")

import pytest  # noqa: E402

from sdpa_bwd.kernels import attention_bwd_dq_convert_kernel  # noqa: E402
from test_triton_kernels import DEVICE  # noqa: E402

POISON = 12345.0


def _dq_view(B, H, S, D, dtype, order):
    """dQ as a (B, H, S, D) view into a larger buffer filled with ``POISON``: "bhsd" packed, "sbhd" with a row
    pitch of H D + 8 elements, "strided-d" BHSD with head-dim stride 2 (every other element poison)."""
    if order == "bhsd":
        buf = torch.full((B * H * S * D + 64,), POISON, dtype=dtype, device=DEVICE)
        return buf, buf[32:32 + B * H * S * D].view(B, H, S, D)
    if order == "sbhd":
        pitch = H * D + 8
        buf = torch.full((S * B * pitch + 64,), POISON, dtype=dtype, device=DEVICE)
        view = buf[32:32 + S * B * pitch].view(S, B, pitch)[:, :, :H * D].reshape(S, B, H, D)
        return buf, view.permute(1, 2, 0, 3)
    buf = torch.full((B * H * S * D * 2 + 64,), POISON, dtype=dtype, device=DEVICE)
    return buf, buf[32:32 + B * H * S * D * 2].view(B, H, S, D * 2)[..., ::2]


@pytest.mark.parametrize("order", ["bhsd", "sbhd", "strided-d"])
@pytest.mark.parametrize("d, chunks", [(192, (128, 64)), (128, (128, 0)), (40, (64, 0)), (160, (128, 32))],
                         ids=["d192-split", "d128", "d40-padded", "d160-split"])
def test_convert_writes_scaled_accumulator_and_nothing_else(order, d, chunks):
    B, H, S, scale, rows = 2, 3, 37, 0.3, 16  # S not a multiple of the rows: a partial last tile
    gen = torch.Generator(device=DEVICE).manual_seed(420 + d)
    acc = torch.randn(B * H * S, d, generator=gen, device=DEVICE, dtype=torch.float32)
    buf, dq = _dq_view(B, H, S, d, torch.bfloat16, order)
    before = buf.clone()
    attention_bwd_dq_convert_kernel[(-(-S // rows), B * H)](
        acc, dq, *dq.stride(), H, S, scale, BLOCK_M=rows, D_QK=d, D_QK_PAD=chunks[0], D_QK_SPLIT=chunks[1],
        WIDE=False)
    want = acc.view(B, H, S, d) * scale
    # one rounding of the fp32 product to bf16: within one bf16 unit (2^-7 relative; the interpreter rounds as
    # numpy does, not as the GPU, so not bit for bit against torch)
    err = ((dq.float() - want).abs() / want.abs().clamp_min(1e-30)).max().item()
    assert err <= 2.0 ** -7, (f"{order} d{d}: dQ is {err:.3g} (relative) off the accumulator times the scale, more "
                              f"than one bf16 rounding; check the chunk columns and masks of "
                              f"attention_bwd_dq_convert_kernel")
    dq.fill_(POISON)  # every element dQ owns back to poison: the rest of the buffer must never have changed
    changed = (buf != before).sum().item()
    assert changed == 0, (f"{order} d{d}: {changed} elements outside dQ were written; the kernel must store "
                          f"through dQ's strides and its row and column masks only")
