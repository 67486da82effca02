#!/usr/bin/env bash
# Stop 46, run 5 (an H100): the 192 pass's deterministic form with its dQ writers passing a tile's turn on a tile
# later (DET 5, a candidate: run 4's probes put 0.13-0.16 of the default's time in the writers' wait for a reduce's
# writes, 0.19-0.23 in the turn spins) against the form (DET 1), probe 2 and the default, (1,16,4096,192/128) bf16,
# both masks; DET 5's five calls bitwise alike and its gradients' distance to the default's (--check). DET 5 measured
# slower (1.49-1.50x) and left the kernel: apply docs/data/h100-2026-12-05a/run5/forms/det5.diff to rerun this.
#   bash tools/device_s46c.sh $OUT
set -u
out=${1:-/tmp/out}; mkdir -p "$out"
export PYTHONPATH=src PYTHONUNBUFFERED=1
timeout 300 python3 tools/det_perf.py --shapes 8,9 --det-probes 5,2 --check det_p5 --rounds 2 --out "$out/bf16" 2>&1 \
    | grep -v Warn | tee "$out/det_perf_bf16.txt"
