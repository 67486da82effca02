"""DQ_CONVERT, the last stage of the backward where dQ was added up in the packed fp32 accumulator: the accumulator,
scaled, into dQ through dQ's strides; and its twin for shared K / V heads (GQA, MQA), which writes dK's and dV's
accumulators, parts of one buffer, into dK and dV in the same launch.

The kernel runs here under the interpreter on fresh random accumulators, into dQ views of NaN-filled buffers
(packed BHSD, SBHD with a row gap, SBHD with head-dim stride 2, BSHD with rows off 16-byte alignment), at head dims
that take one chunk, a padded one, and the 128 + 64 / 128 + 32 split: every element of dQ within one bf16 rounding
of the accumulator times the scale, and nothing outside dQ written. (Its launch forms, timed on the H200 on
2026-12-04: rows, warps, streaming hints, all within 2% of each other, docs/data/h200-2026-12-04b/run5; not kept.)
"""

import os

import torch

if not torch.cuda.is_available():
    os.environ.setdefault("TRITON_INTERPRET", "1")

import pytest  # noqa: E402

from sdpa_bwd.engine import planner  # noqa: E402
from sdpa_bwd.engine.kernels import attention_bwd_convert_all_kernel, attention_bwd_dq_convert_kernel  # noqa: E402
# strided: a view stored as a layout in a NaN-filled buffer; check_poisoned_output: every element of the view
# written, nothing outside it
from test_triton_kernels import (BHSD, DEVICE, SBHD_DSTEP, TMA_ODD, Layout, check_poisoned_output,  # noqa: E402
                                 strided)

LAYOUTS = {"bhsd": BHSD, "sbhd-gap8": Layout("sbhd", row_gap=8), "sbhd-dstep2": SBHD_DSTEP, "bshd-odd": TMA_ODD}


@pytest.mark.parametrize("layout", list(LAYOUTS))
@pytest.mark.parametrize("d, chunks", [(192, (128, 64)), (128, (128, 0)), (40, (64, 0)), (160, (128, 32))],
                         ids=["d192-split", "d128", "d40-padded", "d160-split"])
def test_convert_writes_scaled_accumulator_and_nothing_else(layout, d, chunks):
    B, H, S, scale, rows = 2, 3, 37, 0.3, 16  # S not a multiple of the rows: a partial last tile
    gen = torch.Generator(device=DEVICE).manual_seed(420 + d)
    acc = torch.randn(B * H * S, d, generator=gen, device=DEVICE, dtype=torch.float32)
    dq, buf = strided((B, H, S, d), LAYOUTS[layout], torch.bfloat16)
    attention_bwd_dq_convert_kernel[(-(-S // rows), B * H)](
        acc, dq, *dq.stride(), H, S, scale, BLOCK_M=rows, D_QK=d, D_QK_PAD=chunks[0], D_QK_SPLIT=chunks[1],
        WIDE=False)
    check_poisoned_output(f"dq ({layout}, d{d})", dq, buf)
    want = acc.view(B, H, S, d) * scale
    # one rounding of the fp32 product to bf16: within one bf16 unit (2^-7 relative; the interpreter rounds as
    # numpy does, not as the GPU, so not bit for bit against torch)
    err = ((dq.float() - want).abs() / want.abs().clamp_min(1e-30)).max().item()
    assert err <= 2.0 ** -7, (f"{layout} d{d}: dQ is {err:.3g} (relative) off the accumulator times the scale, more "
                              f"than one bf16 rounding; check the chunk columns and masks of "
                              f"attention_bwd_dq_convert_kernel")



@pytest.mark.parametrize("layout", ["bhsd", "sbhd-gap8", "bshd-odd"])
@pytest.mark.parametrize("h_k, h_v, s_kv, d_qk, d_v", [(2, 1, 37, 128, 128), (1, 3, 70, 192, 128), (3, 3, 20, 40, 24)],
                         ids=["gqa-d128", "mqa-k-longer-keys-d192-128", "gqa-fewer-keys-d40-24"])
def test_convert_all_writes_three_accumulators_and_nothing_else(layout, h_k, h_v, s_kv, d_qk, d_v):
    """dQ's accumulator, scaled, and dK's and dV's, the two parts of one buffer (dV's from ``planner.kv_v_offset``,
    past dK's rounded up), each into its own tensor, in one launch over the longer length: a program given another
    tensor's heads, dV's offset dropped, one head dim's chunks used for the other, or a row block past a tensor's
    length storing, each fails."""
    B, H_q, S_q, scale, rows = 2, 6, 37, 0.3, 16
    gen = torch.Generator(device=DEVICE).manual_seed(7 + h_k * 10 + h_v + d_qk + s_kv)
    k_meta = torch.empty(B, h_k, s_kv, d_qk, device=DEVICE, dtype=torch.bfloat16)
    off = planner.kv_v_offset(k_meta)
    dq_acc = torch.randn(B * H_q * S_q * d_qk, generator=gen, device=DEVICE, dtype=torch.float32)
    kv_acc = torch.randn(off + B * h_v * s_kv * d_v, generator=gen, device=DEVICE, dtype=torch.float32)
    dq, buf_q = strided((B, H_q, S_q, d_qk), LAYOUTS[layout], torch.bfloat16)
    dk, buf_k = strided((B, h_k, s_kv, d_qk), LAYOUTS[layout], torch.bfloat16)
    dv, buf_v = strided((B, h_v, s_kv, d_v), LAYOUTS[layout], torch.bfloat16)
    step = planner._convert_all_step(k_meta, dq, dk, dv, scale, False, False)
    kw = {k: v for k, v in step.kwargs.items() if k != "num_warps"}
    kw["BLOCK_M"] = rows
    attention_bwd_convert_all_kernel[(-(-max(S_q, s_kv) // rows), B * (H_q + h_k + h_v))](
        dq_acc, dq, *dq.stride(), H_q, S_q, scale, B * H_q,
        kv_acc, dk, dv, *dk.stride(), *dv.stride(), h_k, h_v, s_kv, B * h_k, off, **kw)
    for name, out, buf, want in (("dq", dq, buf_q, dq_acc.view(B, H_q, S_q, d_qk) * scale),
                                 ("dk", dk, buf_k, kv_acc[:B * h_k * s_kv * d_qk].view(B, h_k, s_kv, d_qk)),
                                 ("dv", dv, buf_v, kv_acc[off:].view(B, h_v, s_kv, d_v))):
        check_poisoned_output(f"{name} ({layout}, d {d_qk}/{d_v}, heads {H_q}/{h_k}/{h_v})", out, buf)
        err = ((out.float() - want).abs() / want.abs().clamp_min(1e-30)).max().item()
        assert err <= 2.0 ** -7, (f"{layout} heads {H_q}/{h_k}/{h_v} d {d_qk}/{d_v}: {name} is {err:.3g} (relative) "
                                  "off its accumulator, more than one bf16 rounding; check "
                                  "attention_bwd_convert_all_kernel's program split (dQ's heads, dK's, dV's) and "
                                  "dV's offset into the buffer")
