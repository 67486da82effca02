"""Where a kernel's warps wait: Nsight Compute's warp-state and pipe sections for one of our kernels.

    PYTHONPATH=src python3 tools/stall_profile.py --out DIR [--shape 2,16,4096,128] [--causal]
        [--kernel dkdv|dq|fused|fwd|gluon_bwd] [--fwd-fused-softmax 0|1] [--tiles BM,BN,WARPS,STAGES]

Runs ``ncu`` (on the device image: /usr/local/cuda/bin/ncu) over a child copy of this script that makes one
call of our backward (or forward) at the shape, BHSD bf16, after a warm-up, and profiles the one launch of the
named kernel: the SpeedOfLight, WarpStateStats, SchedulerStats, ComputeWorkloadAnalysis and
MemoryWorkloadAnalysis sections plus local-memory (register spill) traffic, and the SourceCounters section (the
SASS lines most stall samples were taken at). ``gluon_bwd``: the Gluon backward, let in at the shape's head dim. Writes DIR/<kernel>.txt (ncu's
report as text), with each stall reason's cycles an issued instruction (``smsp__average_warps_issue_stalled_*``;
where this ncu lacks them, the report is made again without). ``--tiles`` replaces the profiled pass's tiles,
warps and stages (the forward's, or the dQ pass's with the passes apart). The figures are per kernel, under
ncu's replay (clocks locked to base): compare kernels and variants with each other, not with the benchmark's
times.
"""

import argparse
import os
import subprocess
import sys

METRICS = ",".join([
    "l1tex__t_bytes_pipe_lsu_mem_local_op_ld.sum", "l1tex__t_bytes_pipe_lsu_mem_local_op_st.sum",
    "sm__pipe_tensor_op_gmma_cycles_active.avg.pct_of_peak_sustained_active",
    "sm__inst_executed_pipe_xu.avg.pct_of_peak_sustained_active",
    "sm__pipe_fma_cycles_active.avg.pct_of_peak_sustained_active",
    "sm__pipe_alu_cycles_active.avg.pct_of_peak_sustained_active",
    "sm__warps_active.avg.pct_of_peak_sustained_active",
])
STALLS = r"regex:^smsp__average_warps_issue_stalled_[a-z_]+_per_issue_active\.ratio$"
SECTIONS = ("SpeedOfLight", "WarpStateStats", "SchedulerStats", "ComputeWorkloadAnalysis", "MemoryWorkloadAnalysis",
            "LaunchStats", "Occupancy", "SourceCounters")
NAMES = {"dkdv": "attention_bwd_dkdv_kernel", "dq": "attention_bwd_dq_kernel", "fused": "attention_bwd_fused_kernel",
         "fwd": "attention_fwd_kernel", "gluon_bwd": "attention_bwd_gluon_kernel"}


def child(args) -> None:
    import dataclasses

    import torch

    from sdpa_bwd.engine import launch

    B, H, S, D = (int(x) for x in args.shape.split(","))
    gen = torch.Generator(device="cuda").manual_seed(0)
    q, k, v, do = (torch.randn(B, H, S, D, device="cuda", generator=gen, dtype=torch.bfloat16) for _ in range(4))
    rb = 0 if args.causal else None
    if args.fwd_fused_softmax is not None:
        table = launch.forward_config
        launch.forward_config = lambda *a, **kw: dataclasses.replace(table(*a, **kw),
                                                                     fused_softmax=bool(args.fwd_fused_softmax))
    if args.tiles and args.kernel == "fwd":
        bm, bn, w, st_ = (int(x) for x in args.tiles.split(","))
        table = launch.forward_config
        launch.forward_config = lambda *a, **kw: dataclasses.replace(table(*a, **kw), block_m=bm, block_n=bn,
                                                                     num_warps=w, num_stages=st_)
    o, st = launch.attention_forward(q, k, v, right_bound=rb)
    if args.kernel == "gluon_bwd":
        launch.GLUON_BWD_HEAD_DIMS = frozenset({D})
    if args.kernel == "fused":
        table = launch.backward_config
        launch.backward_config = lambda *a, **kw: dataclasses.replace(table(*a, **kw), fused_dq=True,
                                                                      dq_num_warps=None, dq_num_stages=None)
    elif args.kernel in ("dkdv", "dq"):
        table = launch.backward_config
        tiles = {}
        if args.tiles and args.kernel == "dq":
            bm, bn, w, st_ = (int(x) for x in args.tiles.split(","))
            tiles = dict(block_m2=bm, block_n2=bn, dq_num_warps=w, dq_num_stages=st_)
        launch.backward_config = lambda *a, **kw: dataclasses.replace(table(*a, **kw), fused_dq=False, **tiles)
    for _ in range(3):  # compile and warm; ncu skips these launches (--launch-skip)
        if args.kernel == "fwd":
            launch.attention_forward(q, k, v, right_bound=rb)
        else:
            launch.attention_backward(q, k, v, o, do, st, right_bound=rb)
    torch.cuda.synchronize()


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--out", required=True)
    ap.add_argument("--shape", default="2,16,4096,128")
    ap.add_argument("--causal", action="store_true")
    ap.add_argument("--kernel", default="dkdv", choices=sorted(NAMES))
    ap.add_argument("--fwd-fused-softmax", type=int, default=None)
    ap.add_argument("--tiles", default=None, help="BM,BN,WARPS,STAGES of the profiled pass (fwd or dq)")
    ap.add_argument("--child", action="store_true")
    args = ap.parse_args()
    if args.child:
        child(args)
        return
    os.makedirs(args.out, exist_ok=True)
    ncu = os.environ.get("NCU", "/usr/local/cuda/bin/ncu")
    tag = args.kernel + ("-causal" if args.causal else "") + (
        "" if args.fwd_fused_softmax is None else f"-fused{args.fwd_fused_softmax}") + (
        "" if not args.tiles else "-" + args.tiles.replace(",", "_"))
    child_args = [sys.executable, os.path.abspath(__file__), "--child", "--out", args.out, "--shape", args.shape,
                  "--kernel", args.kernel] + (["--causal"] if args.causal else []) + (
        [] if args.fwd_fused_softmax is None else ["--fwd-fused-softmax", str(args.fwd_fused_softmax)]) + (
        ["--tiles", args.tiles] if args.tiles else [])
    for metrics in (METRICS + "," + STALLS, METRICS):
        cmd = [ncu, "--kernel-name", f"regex:{NAMES[args.kernel]}$", "--launch-skip", "2", "--launch-count", "1",
               *sum((["--section", s] for s in SECTIONS), []), "--metrics", metrics, *child_args]
        with open(os.path.join(args.out, f"{tag}.txt"), "w") as f:
            code = subprocess.run(cmd, stdout=f, stderr=subprocess.STDOUT).returncode
        if code == 0:
            break
    print(f"{tag}: ncu exit {code}, report {os.path.join(args.out, tag + '.txt')}")


if __name__ == "__main__":
    main()
