#!/usr/bin/env bash
# Stop 32's benchmark of record: the backward benchmark with every timing at the card's loaded clock (do_bench
# warm-up 250 ms: the power cap engages 150-200 ms into an hd128 backward, tools/drift_probe.py) and deterministic
# mode timed against the default call in alternation (common.twin_timing). Stop 31's engine code.
#   bash tools/device_s32b.sh $OUT
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
