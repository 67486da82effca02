"""Real models' attention shapes, beside the synthetic edges of the axes.

Each entry is one model's attention as its public config describes it (heads,
KV heads, head dims, sliding window). The plan instantiates every model twice:
at a reduced sequence length with its real heads and head dims (``nightly``:
the GPU's level, still runnable on a CPU) and at a real training length
(``full``). Storage is BSHD, as these models' training code stores it; the mask
is bottom-right causal (FlashAttention's, which they use) with the model's
window as ``left_bound = window`` (PEERS.md: FlashAttention's ``window_size=(w-1,
0)`` is ``left_bound = w``).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Optional


@dataclass(frozen=True)
class ModelShape:
    name: str
    H_q: int
    H_kv: int
    D_qk: int
    D_v: int
    window: Optional[int]        # sliding window in keys (left_bound), None: full causal
    train_seq: int               # the sequence length of the `full` instance
    source: str


CATALOG: tuple[ModelShape, ...] = (
    ModelShape("llama3-8b", 32, 8, 128, 128, None, 8192,
               "Llama-3 8B: 32 query heads, 8 KV heads, head dim 128, 8k context"),
    ModelShape("llama3-70b", 64, 8, 128, 128, None, 8192,
               "Llama-3 70B: 64 query heads, 8 KV heads, head dim 128"),
    ModelShape("mistral-7b-swa", 32, 8, 128, 128, 4096, 8192,
               "Mistral 7B v0.1: sliding window 4096 over an 8k sequence"),
    ModelShape("gpt-oss-swa", 64, 8, 64, 64, 128, 4096,
               "GPT-OSS: 64 query heads, 8 KV heads, head dim 64, sliding-window layers of 128 tokens"),
    ModelShape("gpt-oss-full", 64, 8, 64, 64, None, 4096,
               "GPT-OSS: its alternating full-attention layers"),
    ModelShape("deepseek-v3-mla", 128, 128, 192, 128, None, 4096,
               "DeepSeek-V3 MLA in training (decompressed): 128 heads, D_qk 192 (128 nope + 64 rope), D_v 128"),
    ModelShape("llama3.1-8b-long", 32, 8, 128, 128, None, 32768,
               "Llama-3.1 8B long-context training (32k of its 128k, what the float64 oracle can judge in minutes)"),
)

# The reduced length of the nightly instance: long enough for several tiles of
# every common tile size (64, 128) and for GPT-OSS's 128-key window to cut.
NIGHTLY_SEQ = 384
