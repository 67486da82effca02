"""A/B of the forward's head-dim-64 path: the Gluon forward (three consumers a program) against the
Triton forward, in one GPU process, timed in alternation.

    PYTHONPATH=src python3 tools/ab_forward.py --out $OUT
    PYTHONPATH=src python3 tools/ab_forward.py --shape 4,16,16,2048,64 --shape 1,32,8,8192,64 --out $OUT

For each shape (B,H_q,H_kv,S,D; BHSD), dtype (bf16, fp16) and mask (causal, none): the forward call with (64, 64)
in ``launch.GLUON_HEAD_DIMS`` ("new") against the same call without it ("old": the Triton kernel), each timed
against the other in alternation (``benchmarks/common.twin_timing``, the benchmark's warm-up), cuDNN's forward
(PyTorch's SDPA, its cuDNN backend) timed beside them, and the new O and LSE compared with the old ones and O with
cuDNN's (relative L2 norm; the LSE by its largest absolute difference). One JSON line a row; all rows in
``ab_forward.json`` under --out.
"""

from __future__ import annotations

import argparse
import json
import os
import sys

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..")
SHAPES = ["4,16,16,2048,64", "1,32,8,8192,64"]  # the benchmark's hd64 rows (benchmarks/common.py SHAPES)


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--shape", action="append", default=None, help=f"B,H_q,H_kv,S,D (repeatable; default {SHAPES})")
    ap.add_argument("--out", default=None)
    args = ap.parse_args()
    import torch
    import torch.nn.functional as F
    from torch.nn.attention import SDPBackend, sdpa_kernel

    from sdpa_bwd.engine import launch, launch_cache

    sys.path.insert(0, os.path.join(ROOT, "benchmarks"))
    sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
    from common import bench, twin_timing
    from gluon_probe_common import rel_err as rel
    from gluon_probe_common import save_rows

    hd64 = (64, 64)
    rows = []
    for text in args.shape or SHAPES:
        B, H, H_kv, S, D = (int(x) for x in text.split(","))
        for dtype in (torch.bfloat16, torch.float16):
            for causal in (True, False):
                gen = torch.Generator(device="cuda").manual_seed(35)
                q = torch.randn(B, H, S, D, device="cuda", dtype=dtype, generator=gen)
                k, v = (torch.randn(B, H_kv, S, D, device="cuda", dtype=dtype, generator=gen) for _ in range(2))
                band = dict(right_bound=0) if causal else {}
                dims = {"new": launch.GLUON_HEAD_DIMS | {hd64}, "old": launch.GLUON_HEAD_DIMS - {hd64}}

                def call(name):
                    def run():
                        launch.GLUON_HEAD_DIMS = dims[name]  # the launch cache's key reads it
                        return launch.attention_forward(q, k, v, **band)
                    return run

                before = launch.GLUON_HEAD_DIMS
                try:
                    launch_cache.clear()
                    outs = {name: call(name)() for name in ("new", "old")}
                    ratio, (new_runs, old_runs) = twin_timing(call("new"), call("old"))
                finally:
                    launch.GLUON_HEAD_DIMS = before
                    launch_cache.clear()

                def cudnn():
                    with sdpa_kernel(SDPBackend.CUDNN_ATTENTION):
                        return F.scaled_dot_product_attention(q, k, v, is_causal=causal, enable_gqa=H_kv != H)
                ref = cudnn()
                row = dict(shape=[B, H, H_kv, S, D], dtype=str(dtype).split(".")[-1], causal=causal,
                           new_over_old=ratio, new_ms_runs=new_runs, old_ms_runs=old_runs, cudnn_ms=bench(cudnn))
                row["ratio_vs_cudnn_new"] = row["cudnn_ms"] / min(new_runs)
                row["ratio_vs_cudnn_old"] = row["cudnn_ms"] / min(old_runs)
                row["o_rel_new_vs_old"] = rel(outs["new"][0], outs["old"][0])
                row["o_rel_new_vs_cudnn"] = rel(outs["new"][0], ref)
                row["o_rel_old_vs_cudnn"] = rel(outs["old"][0], ref)
                row["lse_max_abs_new_vs_old"] = (outs["new"][1] - outs["old"][1]).abs().max().item()
                print(json.dumps(row), flush=True)
                rows.append(row)
    save_rows(args.out, "ab_forward.json", rows)


if __name__ == "__main__":
    main()
