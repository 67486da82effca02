#!/usr/bin/env bash
# Stop 37, runs 1 and 2: the 192 / 128 backward as clusters of two programs summing dQ's partials in each other's
# shared memory (attention_bwd_gluon_192's PAIR; launch.GLUON_BWD192_PAIR), as the kernels of
# docs/data/h200-2026-12-03i/run1 and run2 (kernel_as_run.diff) had it: blocking remote stores. A smoke call first (a
# hang shows here, under a short timeout), the 192 GPU tests in both forms and the launch cache's (run 2: the pair
# form's and the replay test only, -k "192 and (pairs or replay)"), then the pair form against one program each in
# alternation (tools/ab192.py).
#   bash tools/device_s37a.sh $OUT
set -u
out=${1:-/tmp/out}; mkdir -p "$out"
export PYTHONPATH=src PYTHONUNBUFFERED=1 COLUMNS=160
{
  nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm,temperature.gpu --format=csv,noheader
  timeout 90 python3 -m pytest -q -x -m gpu tests/gpu/test_gluon_backward_gpu.py -p no:cacheprovider \
    -k "test_gpu_gluon_backward_192_case and pairs and 480" 2>&1 | tail -n 8
  echo "smoke: exit ${PIPESTATUS[0]}, $SECONDS s"
  timeout 200 python3 -m pytest -q -n 8 -m gpu tests/gpu/test_gluon_backward_gpu.py \
    tests/gpu/test_launch_cache_gpu.py -p no:cacheprovider -k "192 or launch_cache or replay" 2>&1 | tail -n 15
  echo "GPU tests: exit ${PIPESTATUS[0]}, $SECONDS s"
  timeout "${AB_S:-200}" python3 tools/ab192.py --switch gluon_bwd192_pair --out "$out/ab" | cut -c1-1500
  echo "ab: $SECONDS s"
} 2>&1 | tee "$out/log.txt"
