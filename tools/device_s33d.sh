#!/usr/bin/env bash
# Stop 33's benchmark of record: the backward benchmark (do_bench warm-up 250 ms, deterministic mode timed in
# alternation with the default) on stop 33's landing code.
#   bash tools/device_s33d.sh $OUT
set -u
out=${1:-/tmp/out}; mkdir -p "$out/b"
export PYTHONPATH=src PYTHONUNBUFFERED=1 COLUMNS=160
{
  nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm,temperature.gpu --format=csv,noheader
  timeout "${BENCH_S:-540}" python3 benchmarks/bench_backward.py --peers cudnn --no-split --out "$out/b" \
    > "$out/b/bench_backward.txt" 2>&1
  echo "bench_backward: exit $?, $SECONDS s"
  grep -iE "geomean|worst|max_|min_" "$out/b/bench_backward.txt" | tail -n 20
} 2>&1 | tee "$out/log.txt"
