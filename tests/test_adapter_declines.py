"""Every decline an adapter writes by hand, held against the reason it was measured for (issue 56).

A hand-written decline (a capability narrower than the permissive default) keeps a region of the plan from ever
reaching the backend, so each one is listed here with why it stays; a new one fails this test until it is listed,
and a listed one that is gone fails it until its entry goes. Declines an adapter writes in code rather than in its
capabilities are named in its ``hand_declines``. Entries marked "not measured" are the next GPU
session's to measure (the backend's own dispatch check runs after them, so dropping one hands that region to it).
"""

from sdpa_bwd.backends import engine_names, get_engine
from sdpa_bwd.backends.base import Capabilities

FIELDS = ("dtypes", "max_head_dim", "devices", "band_masks", "causal", "alignments", "gqa", "distinct_kv_heads",
          "distinct_head_dims", "deterministic")

CUDA_ONLY = "PyTorch's CUDA kernel: no CPU implementation behind this backend"
NONDETERMINISTIC = ("not measured: its backward is not claimed deterministic; a deterministic case would need "
                    "torch.use_deterministic_algorithms and PyTorch's own refusal instead")

HAND_WRITTEN = {
    ("torch-flash", "dtypes"): "not measured: FlashAttention-2 kernels are 16-bit only (can_use_flash_attention)",
    ("torch-flash", "max_head_dim"): "not measured: FlashAttention-2 takes head dims up to 256",
    ("torch-flash", "devices"): CUDA_ONLY,
    ("torch-flash", "distinct_head_dims"): "not measured: FlashAttention-2 needs D_qk == D_v",
    ("torch-flash", "deterministic"): NONDETERMINISTIC,
    ("torch-efficient", "devices"): CUDA_ONLY,
    ("torch-efficient", "deterministic"): NONDETERMINISTIC,
    ("torch-cudnn", "dtypes"): "not measured: cuDNN's SDPA is 16-bit only (can_use_cudnn_attention)",
    ("torch-cudnn", "max_head_dim"): "not measured: cuDNN's SDPA takes head dims up to 256",
    ("torch-cudnn", "devices"): CUDA_ONLY,
    ("torch-cudnn", "deterministic"): NONDETERMINISTIC,
    ("torch-flex", "devices"): "FlexAttention compiles Triton kernels for CUDA here",
    ("torch-flex", "distinct_kv_heads"): "not measured: flex_attention's enable_gqa needs H_k == H_v",
    ("torch-flex", "deterministic"): NONDETERMINISTIC,
    ("torch-njt", "deterministic"): NONDETERMINISTIC,
    ("torch-cudnn-op", "dtypes"): "as torch-cudnn: the operator behind it",
    ("torch-cudnn-op", "max_head_dim"): "as torch-cudnn: the operator behind it",
    ("torch-cudnn-op", "devices"): CUDA_ONLY,
    ("torch-cudnn-op", "deterministic"): NONDETERMINISTIC,
    ("torch-flash-op", "dtypes"): "as torch-flash: the operator behind it",
    ("torch-flash-op", "max_head_dim"): "as torch-flash: the operator behind it",
    ("torch-flash-op", "devices"): CUDA_ONLY,
    ("torch-flash-op", "distinct_head_dims"): "as torch-flash: the operator behind it",
    ("torch-flash-op", "deterministic"): NONDETERMINISTIC,
    ("torch-flash-op", "head_dim_multiple_of_8"): "the front door pads Q, K, V to a multiple of 8 by copying them "
                                                  "(attention.cpp, pad_last_dim) before this operator, so the "
                                                  "caller's layout cannot reach it there; torch-flash covers them",
    ("torch-efficient-op", "devices"): CUDA_ONLY,
    ("torch-efficient-op", "deterministic"): NONDETERMINISTIC,
    ("torch-flash-varlen", "dtypes"): "as torch-flash: FlashAttention-2's kernels behind it",
    ("torch-flash-varlen", "max_head_dim"): "as torch-flash: FlashAttention-2's kernels behind it",
    ("torch-flash-varlen", "devices"): CUDA_ONLY,
    ("torch-flash-varlen", "distinct_kv_heads"): "not measured: FlashAttention-2 takes one head count for K and V",
    ("torch-flash-varlen", "distinct_head_dims"): "as torch-flash: FlashAttention-2 needs D_qk == D_v",
    ("torch-flash-varlen", "deterministic"): NONDETERMINISTIC,
    ("torch-flash-varlen", "head_dim_multiple_of_8"): "not measured: FlashAttention-2 takes head dims its caller "
                                                      "padded to 8 (PyTorch's front door pads by copying)",
    ("torch-flash-varlen", "top_left_band_on_unequal_lengths"): "FlashAttention's windows are bottom-right aligned "
                                                                "per sequence; no window is top-left",
    ("torch-flash-varlen", "head_dim_stride_1"): "not measured: FlashAttention-2's varlen operators check "
                                                 "stride(-1) == 1 on Q, K, V, O and dO",
    ("torch-flash-cpu-op", "devices"): "the operator is the CPU flash kernel (aten::_scaled_dot_product_flash_"
                                       "attention_for_cpu)",
    ("torch-flash-cpu-op", "distinct_head_dims"): "measured 2026-12-06, torch 2.13 CPU: the operator raises "
                                                  "'Q/K/V should have the same head size' for D_qk != D_v",
}


def _hand_written() -> set:
    default = Capabilities()
    out = set()
    for name in engine_names():
        if not name.startswith("torch-"):
            continue
        caps = get_engine(name).capabilities
        out |= {(name, f) for f in FIELDS if getattr(caps, f) != getattr(default, f)}
        out |= {(name, d) for d in getattr(get_engine(name), "hand_declines", ())}
    return out


def test_every_hand_written_decline_of_an_adapter_is_listed_with_its_reason():
    found = _hand_written()
    unlisted, stale = found - set(HAND_WRITTEN), set(HAND_WRITTEN) - found
    assert not unlisted, (f"adapters decline by hand without a listed reason: {sorted(unlisted)} - let the "
                          "backend's own check decide, or list the decline here with the measurement behind it")
    assert not stale, f"listed declines the adapters no longer write: {sorted(stale)} - drop their entries"
    assert all(reason.strip() for reason in HAND_WRITTEN.values())
