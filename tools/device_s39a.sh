#!/usr/bin/env bash
# Stop 39, run 1: where the 192 / 128 call's time goes beside cuDNN's, kernel by kernel (tools/bwd192_bound.py, now
# with cuDNN's kernels profiled as ours).
#   bash tools/device_s39a.sh $OUT
set -u
out=${1:-/tmp/out}; mkdir -p "$out"
export PYTHONPATH=src PYTHONUNBUFFERED=1 COLUMNS=160
{
  timeout 300 python3 tools/bwd192_bound.py --out "$out" 2>&1 | grep -v Warn
  echo "bound: $SECONDS s"
} 2>&1 | tee "$out/log.txt"
