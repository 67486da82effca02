"""Packed variable-length batches (issue 53): a training step's attention, forward + backward, over documents of
mixed lengths packed along one token axis, ours against the peers that serve this layout, in one process.

    PYTHONPATH=src python3 benchmarks/bench_varlen.py [--tokens 16384,65536] [--dims 64,128] [--heads 16]
                                                      [--seed 0] [--rounds 3] [--out DIR]

Batches: document lengths drawn with a fixed seed from a long-tailed distribution (``draw_lengths``: lognormal,
median 512 tokens, clipped to 16..8192, the last one cut so that they fill the token budget exactly), packed (T, H, D)
bf16 tensors, causal within each document, H_q = H_kv.

Paths, each a forward and a backward as its users call them, timed by ``triton.testing.do_bench`` (median, ms),
the paths interleaved over ``--rounds`` rounds (the least of each path's medians is reported):

* ``ours``: ``sdpa_bwd.attention(q, k, v, cu_seqlens_q=cu, cu_seqlens_kv=cu, causal=True)`` + ``torch.autograd.grad``,
  the offsets a CUDA int32 tensor with ``max_seqlen_*`` as FlashAttention users pass them (never read back to the
  host since 2026-12-06; the H100 figures of that date, ``benchmarks/results/h100/bench_varlen.json``, read them
  back each forward);
* ``flash-varlen``: PyTorch's FlashAttention-2 varlen operators called directly
  (``aten::_flash_attention_forward`` / ``_flash_attention_backward`` with ``cum_seq_q`` / ``cum_seq_k``);
* ``njt``: ``F.scaled_dot_product_attention`` on nested jagged tensors (PyTorch routes them to flash, efficient or
  cuDNN) + autograd;
* ``flex``: compiled ``flex_attention`` with a document causal mask over the (1, H, T, D) view; the block mask is made
  once a batch, outside the timing (users reuse it across layers).

A path that raises is reported with its error's first line, not timed. The JSON (``--out``) records the card, the
versions, the commit, each batch's lengths and every path's time.
"""

from __future__ import annotations

import argparse
import json
import os
import sys

import numpy as np
from common import git_commit

LENGTH_MEDIAN, LENGTH_SIGMA, LENGTH_MIN, LENGTH_MAX = 512, 1.0, 16, 8192


def draw_lengths(total: int, seed: int, median: int = LENGTH_MEDIAN, sigma: float = LENGTH_SIGMA,
                 lo: int = LENGTH_MIN, hi: int = LENGTH_MAX) -> list[int]:
    """Document lengths that sum to ``total`` tokens: lognormal draws (``median``, ``sigma``) clipped to
    [lo, hi], drawn until the budget is met; the last one is cut to fit (so it may be shorter than ``lo``)."""
    if total <= 0:
        raise ValueError(f"total = {total}: a batch needs at least one token")
    rng = np.random.default_rng(seed)
    out, left = [], total
    while left > 0:
        n = int(np.clip(round(rng.lognormal(np.log(median), sigma)), lo, hi))
        out.append(min(n, left))
        left -= out[-1]
    return out


def _paths(lengths, H: int, D: int):
    import torch
    import torch.nn.functional as F

    import sdpa_bwd
    from sdpa_bwd.problem.ragged import cumulative

    T = sum(lengths)
    cu_list = list(cumulative(lengths))
    cu32 = torch.tensor(cu_list, dtype=torch.int32, device="cuda")
    cu64 = cu32.long()
    longest = max(lengths)
    q, k, v, do = (torch.randn(T, H, D, device="cuda", dtype=torch.bfloat16) for _ in range(4))
    qg, kg, vg = (t.detach().requires_grad_() for t in (q, k, v))
    scale = D ** -0.5
    out = {}

    def ours():
        o = sdpa_bwd.attention(qg, kg, vg, cu_seqlens_q=cu32, cu_seqlens_kv=cu32, max_seqlen_q=longest,
                               max_seqlen_kv=longest, causal=True)
        torch.autograd.grad(o, (qg, kg, vg), do)

    out["ours"] = ours

    def flash_varlen():
        o, lse, seed, offset, _ = torch.ops.aten._flash_attention_forward(
            q, k, v, cu32, cu32, longest, longest, 0.0, True, False, scale=scale)
        torch.ops.aten._flash_attention_backward(do, q, k, v, o, lse, cu32, cu32, longest, longest, 0.0, True,
                                                 seed, offset, scale=scale)

    out["flash-varlen"] = flash_varlen

    def njt_of(t):
        return torch.nested.nested_tensor_from_jagged(t, cu64).transpose(1, 2)

    def njt():
        o = F.scaled_dot_product_attention(njt_of(qg), njt_of(kg), njt_of(vg), is_causal=True)
        torch.autograd.grad(o, (qg, kg, vg), njt_of(do))

    out["njt"] = njt

    from torch.nn.attention.flex_attention import create_block_mask, flex_attention

    seq = torch.repeat_interleave(torch.arange(len(lengths), device="cuda"),
                                  torch.tensor(lengths, device="cuda"))

    def document_causal(b, h, q_idx, kv_idx):
        return (seq[q_idx] == seq[kv_idx]) & (kv_idx <= q_idx)

    block_mask = create_block_mask(document_causal, None, None, T, T, device="cuda")
    flex = torch.compile(flex_attention)
    view = lambda t: t.permute(1, 0, 2).unsqueeze(0)  # noqa: E731

    def flex_step():
        o = flex(view(qg), view(kg), view(vg), block_mask=block_mask, scale=scale)
        torch.autograd.grad(o, (qg, kg, vg), view(do))

    out["flex"] = flex_step
    return out


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--tokens", default="16384,65536", help="token budgets a batch, comma-separated")
    ap.add_argument("--dims", default="64,128", help="head dims, comma-separated")
    ap.add_argument("--heads", type=int, default=16)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--out", help="write bench_varlen.json here (a folder)")
    args = ap.parse_args()

    import torch
    import triton

    if not torch.cuda.is_available():
        print("bench_varlen.py needs a CUDA device", file=sys.stderr)
        return 2
    card = torch.cuda.get_device_name()
    commit = git_commit()
    print(f"{card}, torch {torch.__version__}, Triton {triton.__version__}; forward + backward, ms (ratio: the "
          "path's time / ours, above 1 means ours is faster)")
    rows = []
    for tokens in (int(x) for x in args.tokens.split(",")):
        lengths = draw_lengths(tokens, args.seed + tokens)
        for D in (int(x) for x in args.dims.split(",")):
            paths, errors = _paths(lengths, args.heads, D), {}
            for name, fn in list(paths.items()):
                try:
                    fn()
                    torch.cuda.synchronize()
                except Exception as exc:  # a peer that cannot run this batch: reported, not timed
                    errors[name] = f"{type(exc).__name__}: {str(exc).splitlines()[0][:160]}"
                    del paths[name]
            times: dict = {name: [] for name in paths}
            for r in range(args.rounds):
                order = list(paths)[r % len(paths):] + list(paths)[:r % len(paths)] if paths else []
                for name in order:
                    times[name].append(triton.testing.do_bench(paths[name], warmup=100, rep=200))
            best = {name: min(v) for name, v in times.items()}
            row = {"tokens": tokens, "D": D, "H": args.heads, "sequences": len(lengths),
                   "longest": max(lengths), "median_length": int(np.median(lengths)), "lengths": lengths,
                   "ms": {k: round(v, 4) for k, v in best.items()}, "errors": errors}
            rows.append(row)
            ours = best.get("ours")
            said = "  ".join(f"{k} {v:.3f}" + (f" ({v / ours:.2f})" if ours and k != "ours" else "")
                             for k, v in best.items())
            print(f"  T {tokens}, {len(lengths)} sequences (longest {max(lengths)}), D {D}: {said}", flush=True)
            for name, err in errors.items():
                print(f"    {name}: {err}", flush=True)
    if args.out:
        os.makedirs(args.out, exist_ok=True)
        with open(os.path.join(args.out, "bench_varlen.json"), "w") as f:
            json.dump({"card": card, "torch": torch.__version__, "triton": triton.__version__, "commit": commit,
                       "rows": rows}, f, indent=1)
    return 0


if __name__ == "__main__":
    sys.exit(main())
