#!/usr/bin/env bash
# Stop 40, run 8: head groups of 16 against the launcher's 8 in the persistent 192 form (bf16 causal), then a second
# sample of the backward benchmark's 192 / 128 rows on the landed code.
#   bash tools/device_s40h.sh $OUT
set -u
out=${1:-/tmp/out}; mkdir -p "$out/hg16"
export PYTHONPATH=src PYTHONUNBUFFERED=1 COLUMNS=160
{
  timeout 60 python3 tools/ab192.py --switch head_group=16 --only bfloat16:causal --out "$out/hg16" > "$out/hg16.log" 2>&1
  echo "ab head_group=16: exit $?, $SECONDS s"; python3 tools/ab192_summary.py "$out"
  timeout 120 python3 benchmarks/bench_backward.py --peers cudnn --no-split --rows D192 --out "$out/b" 2>&1 | tail -n 5
  echo "bench: $SECONDS s"
} 2>&1 | tee "$out/log.txt"
