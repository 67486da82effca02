#!/usr/bin/env bash
# Stop 34, run 1: the 192 kernel with each consumer's next first product (S, dP) queued before dQ's staging.
# The 192 GPU tests on it, A/B against HEAD's kernel, and two diagnostics without dQ's bulk reduce.
#   bash tools/device_s34a.sh $OUT     (_var/ holds the other forms, see docs/data/h200-2026-12-03f/README.md)
set -u
out=${1:-/tmp/out}; mkdir -p "$out"
export PYTHONPATH=src PYTHONUNBUFFERED=1 COLUMNS=160
{
  nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm,temperature.gpu --format=csv,noheader
  timeout 150 python3 -m pytest -q -n 8 -m gpu tests/gpu/test_gluon_backward_gpu.py -p no:cacheprovider \
    -k 192 2>&1 | tail -n 12
  echo "192 GPU tests: exit ${PIPESTATUS[0]}, $SECONDS s"
  timeout 150 python3 tools/ab192.py --old _var/head.py --out "$out/ab" | cut -c1-1500
  echo "ab: $SECONDS s"
  for v in head_noreduce pipe_noreduce; do
    timeout 90 python3 tools/ab192.py --old "_var/$v.py" --only bfloat16:causal --out "$out/$v" | cut -c1-700
    echo "$v: $SECONDS s"
  done
} 2>&1 | tee "$out/log.txt"
