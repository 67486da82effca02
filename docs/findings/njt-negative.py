#!/usr/bin/env python3
"""Standalone reproduction of the varlen probe 'varlen-probe-negative'
on engine 'torch-njt', written by `sdpa-bwd repro`.

Imports sdpa_bwd: 'torch-njt' has no PyTorch-only form here (install the project).
Hands the engine cumulative offsets that break a rule (a negative offset) over tensors of
16 tokens, as its adapter does; an engine must refuse them before it reads or writes by them.
Exit status: 0 the engine refuses them, 1 it takes them, 2 it cannot run here.
Run: python njt-negative.py
"""
import sys

import torch

ENGINE = 'torch-njt'
NEEDS_CUDA = False
CU_SEQLENS_Q = [-2, 8, 14]
CU_SEQLENS_KV = [-2, 8, 14]
TOTAL_TOKENS = 16

def refuses():
    """The engine's own offset check, through sdpa_bwd (this engine has no PyTorch-only form here)."""
    import os
    if not torch.cuda.is_available():
        os.environ.setdefault("TRITON_INTERPRET", "1")
    from sdpa_bwd.backends import get_engine

    reasons = get_engine(ENGINE).ragged_offset_reasons(CU_SEQLENS_Q, CU_SEQLENS_KV, TOTAL_TOKENS)
    return "; ".join(reasons) if reasons else None


def main():
    print(f"cu_seqlens_q = {CU_SEQLENS_Q}, cu_seqlens_kv = {CU_SEQLENS_KV}, tokens {TOTAL_TOKENS}: a negative offset")
    if NEEDS_CUDA and not torch.cuda.is_available():
        print(f"{ENGINE} runs on CUDA only: run this file on a machine with a CUDA device")
        return 2
    refusal = refuses()
    if refusal:
        print(f"{ENGINE} refuses them: {refusal}")
        return 0
    print(f"{ENGINE} TAKES them: it ran without a word on offsets that break a rule (a negative offset) - it must check cu_seqlens "
          "before it reads or writes by them")
    return 1


if __name__ == "__main__":
    sys.exit(main())
