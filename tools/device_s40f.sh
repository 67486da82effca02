#!/usr/bin/env bash
# Stop 40, run 6: the persistent form on by default. The 192 GPU tests (every form), then the backward benchmark's
# 192 / 128 rows against cuDNN.
#   bash tools/device_s40f.sh $OUT
set -u
out=${1:-/tmp/out}; mkdir -p "$out"
export PYTHONPATH=src PYTHONUNBUFFERED=1 COLUMNS=160
{
  nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm,temperature.gpu --format=csv,noheader
  timeout 150 python3 -m pytest -q -n 8 -m gpu tests/gpu/test_gluon_backward_gpu.py -p no:cacheprovider -k 192 2>&1 \
    | tail -n 12
  echo "192 GPU tests: exit ${PIPESTATUS[0]}, $SECONDS s"
  timeout 200 python3 benchmarks/bench_backward.py --peers cudnn --no-split --rows D192 --out "$out/b" 2>&1 | tail -n 24
  echo "bench: $SECONDS s"
} 2>&1 | tee "$out/log.txt"
