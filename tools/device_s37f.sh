#!/usr/bin/env bash
# Stop 37, run 7: the landing code on the device. Every 192 GPU test in both forms (the replay test too) and the
# launch cache's, the pair form against one program each (tools/ab192.py), and the backward benchmark's 192 / 128 rows
# on the default (single) form against cuDNN.
#   bash tools/device_s37f.sh $OUT
set -u
out=${1:-/tmp/out}; mkdir -p "$out"
export PYTHONPATH=src PYTHONUNBUFFERED=1 COLUMNS=160
{
  timeout 200 python3 -m pytest -q -n 8 -m gpu tests/gpu/test_gluon_backward_gpu.py \
    tests/gpu/test_launch_cache_gpu.py -p no:cacheprovider -k "192 or launch_cache" 2>&1 | tail -n 6
  echo "GPU tests: exit ${PIPESTATUS[0]}, $SECONDS s"
  timeout 200 python3 tools/ab192.py --switch gluon_bwd192_pair --out "$out/ab" > "$out/ab.log" 2>&1
  echo "ab: exit $?, $SECONDS s"
  timeout 150 python3 benchmarks/bench_backward.py --peers cudnn --no-split --rows D192 --out "$out/b" 2>&1 | tail -n 30
  echo "bench: $SECONDS s"
} 2>&1 | tee "$out/log.txt"
