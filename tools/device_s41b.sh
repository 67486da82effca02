#!/usr/bin/env bash
# Stop 41, run 2: the 192 / 128 causal call and cuDNN's under do_bench as the benchmark runs it, profiled, with the
# SM clock and power sampled beside it (the power cap's share of the gap).
#   bash tools/device_s41b.sh $OUT
set -u
out=${1:-/tmp/out}; mkdir -p "$out"
export PYTHONPATH=src PYTHONUNBUFFERED=1
timeout 400 python3 tools/power192_probe.py --out "$out" 2>&1 | grep -v Warn | tee "$out/log.txt"
