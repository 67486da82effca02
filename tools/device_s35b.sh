#!/usr/bin/env bash
# Stop 35, run 2: the Gluon forward at head dim 64 with three consumers a program (192 query rows). Its GPU tests
# (hd64 cases let in by the test's fixture, and every other Gluon forward case), then the hd64 rows' A/B against the
# Triton forward in alternation, cuDNN beside them (tools/ab_forward.py).
#   bash tools/device_s35b.sh $OUT
set -u
out=${1:-/tmp/out}; mkdir -p "$out"
export PYTHONPATH=src PYTHONUNBUFFERED=1 COLUMNS=160
{
  nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm,temperature.gpu --format=csv,noheader
  timeout 200 python3 -m pytest -q -n 8 -m gpu tests/gpu/test_gluon_forward_gpu.py -p no:cacheprovider 2>&1 \
    | grep -v -i "benchmark" | tail -n 25
  echo "GPU tests: exit ${PIPESTATUS[0]}, $SECONDS s"
  timeout "${AB_S:-200}" python3 tools/ab_forward.py --out "$out/ab" | cut -c1-900
  echo "ab: $SECONDS s"
} 2>&1 | tee "$out/log.txt"
