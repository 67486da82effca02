#!/usr/bin/env python3
"""Standalone reproduction of the varlen probe 'varlen-probe-past-the-tokens'
on engine 'torch-flash-varlen', written by `sdpa-bwd repro`.

Needs PyTorch only (and a CUDA device).
Hands the engine cumulative offsets that break a rule (offsets past the tokens) over tensors of
16 tokens, as its adapter does; an engine must refuse them before it reads or writes by them.
Exit status: 0 the engine refuses them, 1 it takes them, 2 it cannot run here.
Run: python flash-varlen-past-the-tokens.py
"""
import sys

import torch

ENGINE = 'torch-flash-varlen'
NEEDS_CUDA = True
CU_SEQLENS_Q = [0, 8, 20]
CU_SEQLENS_KV = [0, 8, 20]
TOTAL_TOKENS = 16

def offsets_refusal(cu_seqlens_q, cu_seqlens_kv, total_tokens):
    """What FlashAttention-2's varlen forward operator says to these offsets (lists of ints) over tensors of
    ``total_tokens`` tokens (one head, D 16, fp16 on CUDA): the error it raises, or None when it runs. PyTorch only:
    ``sdpa-bwd repro`` writes this function as it is into a varlen probe's standalone file."""
    x = torch.zeros(max(0, int(total_tokens or 0)), 1, 16, device="cuda", dtype=torch.float16)
    try:
        cu_q = torch.tensor(cu_seqlens_q, dtype=torch.int32, device="cuda")
        cu_kv = torch.tensor(cu_seqlens_kv, dtype=torch.int32, device="cuda")
        longest = lambda cu: max([b - a for a, b in zip(cu, cu[1:])] or [0])  # noqa: E731
        torch.ops.aten._flash_attention_forward(x, x, x, cu_q, cu_kv, longest(cu_seqlens_q), longest(cu_seqlens_kv),
                                                0.0, False, False)
        torch.cuda.synchronize()
    except (RuntimeError, ValueError, IndexError, OverflowError) as exc:
        return f"{type(exc).__name__}: {exc}"
    return None


def refuses():
    return offsets_refusal(CU_SEQLENS_Q, CU_SEQLENS_KV, TOTAL_TOKENS)


def main():
    print(f"cu_seqlens_q = {CU_SEQLENS_Q}, cu_seqlens_kv = {CU_SEQLENS_KV}, tokens {TOTAL_TOKENS}: offsets past the tokens")
    if NEEDS_CUDA and not torch.cuda.is_available():
        print(f"{ENGINE} runs on CUDA only: run this file on a machine with a CUDA device")
        return 2
    refusal = refuses()
    if refusal:
        print(f"{ENGINE} refuses them: {refusal}")
        return 0
    print(f"{ENGINE} TAKES them: it ran without a word on offsets that break a rule (offsets past the tokens) - it must check cu_seqlens "
          "before it reads or writes by them")
    return 1


if __name__ == "__main__":
    sys.exit(main())
