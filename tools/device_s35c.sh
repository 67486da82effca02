#!/usr/bin/env bash
# Stop 35, run 3: the forward benchmark of record (every row, the GQA hd64 ones included) with the hd64 forward in
# Gluon (three consumers), and the backward benchmark's GQA hd64 rows with GLUON_PDL's chain at hd64.
#   bash tools/device_s35c.sh $OUT
set -u
out=${1:-/tmp/out}; mkdir -p "$out/f" "$out/b"
export PYTHONPATH=src PYTHONUNBUFFERED=1 COLUMNS=160
{
  nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm,temperature.gpu --format=csv,noheader
  timeout "${FWD_S:-360}" python3 benchmarks/bench_forward.py --peers cudnn --out "$out/f" > "$out/f/bench_forward.txt" 2>&1
  echo "bench_forward: exit $?, $SECONDS s"
  grep -iE "geomean|worst|min_" "$out/f/bench_forward.txt" | tail -n 12
  timeout "${BWD_S:-120}" python3 benchmarks/bench_backward.py --peers cudnn --no-split --rows H32/8-S8192-D64 \
    --json-name bench_backward_gqa64.json --out "$out/b" > "$out/b/bench_backward_gqa64.txt" 2>&1
  echo "bench_backward gqa64: exit $?, $SECONDS s"
  grep -iE "geomean|worst|min_" "$out/b/bench_backward_gqa64.txt" | tail -n 12
} 2>&1 | tee "$out/log.txt"
