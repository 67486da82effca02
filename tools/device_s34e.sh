#!/usr/bin/env bash
# Stop 34, run 5: the backward benchmark of record with the GQA head-dim-64 rows in it (benchmarks/common.py's
# SHAPES since 4a45b19), on HEAD's engine (src/ unchanged since stop 33's 711781a).
#   bash tools/device_s34e.sh $OUT
set -u
out=${1:-/tmp/out}; mkdir -p "$out/b"
export PYTHONPATH=src PYTHONUNBUFFERED=1 COLUMNS=160
{
  nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm,temperature.gpu --format=csv,noheader
  timeout "${BENCH_S:-560}" python3 benchmarks/bench_backward.py --peers cudnn --no-split --out "$out/b" \
    > "$out/b/bench_backward.txt" 2>&1
  echo "bench_backward: exit $?, $SECONDS s"
  grep -iE "geomean|worst|max_|min_" "$out/b/bench_backward.txt" | tail -n 20
} 2>&1 | tee "$out/log.txt"
