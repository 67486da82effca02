#!/usr/bin/env bash
# Stop 34, run 4: the benchmarks' new GQA head-dim-64 rows (B1-H32/8-S8192-D64/64, both masks, every layout, bf16
# and fp16) for the backward and the forward, on HEAD's engine (unchanged since stop 33).
#   bash tools/device_s34d.sh $OUT
set -u
out=${1:-/tmp/out}; mkdir -p "$out/b" "$out/f"
export PYTHONPATH=src PYTHONUNBUFFERED=1 COLUMNS=160
{
  nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm,temperature.gpu --format=csv,noheader
  timeout 300 python3 benchmarks/bench_backward.py --peers cudnn --no-split --rows H32/8-S8192-D64 --out "$out/b" \
    > "$out/b/bench_backward.txt" 2>&1
  echo "bench_backward: exit $?, $SECONDS s"
  grep -iE "geomean|worst|max_|min_" "$out/b/bench_backward.txt" | tail -n 12
  timeout 200 python3 benchmarks/bench_forward.py --peers cudnn --rows H32/8-S8192-D64 --out "$out/f" \
    > "$out/f/bench_forward.txt" 2>&1
  echo "bench_forward: exit $?, $SECONDS s"
  grep -iE "geomean|worst|max_|min_" "$out/f/bench_forward.txt" | tail -n 12
} 2>&1 | tee "$out/log.txt"
