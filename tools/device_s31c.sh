#!/usr/bin/env bash
# Stop 31's second call (device time short: one call for three things): deterministic mode's causal rows in both
# orders of the dQ turns (det_perf --orders: det = the launcher's, the walk down by default; det_down = stop
# 28's walk down; det_up = the walk up); the deterministic GPU tests (both orders); then the backward benchmark
# against cuDNN on every row as the code lands (the walk up off by default); then the other Gluon backward GPU
# tests.
#   bash tools/device_s31c.sh $OUT
set -u
out=${1:-/tmp/out}; mkdir -p "$out/b"
export PYTHONPATH=src PYTHONUNBUFFERED=1 COLUMNS=160
{
  nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm,temperature.gpu --format=csv,noheader
  timeout 150 python3 tools/det_perf.py --out "$out" --rounds 3 --shapes 1,3,5,7 --orders
  echo "det_perf: exit $?, $SECONDS s"
  timeout "${TEST_S:-150}" python3 -m pytest -q -n 8 -m gpu tests/gpu/test_gluon_backward_gpu.py -p no:cacheprovider \
    -k "deterministic or det" 2>&1 | tail -n 8
  echo "deterministic GPU tests: exit ${PIPESTATUS[0]}, $SECONDS s"
  timeout "${BENCH_S:-240}" python3 benchmarks/bench_backward.py --peers cudnn \
    --no-split --out "$out/b" > "$out/b/bench_backward.txt" 2>&1
  echo "bench_backward: exit $?, $SECONDS s"
  grep -iE "geomean|worst|max_|min_" "$out/b/bench_backward.txt" | tail -n 20
  timeout "${REST_S:-60}" python3 -m pytest -q -n 8 -m gpu tests/gpu/test_gluon_backward_gpu.py -p no:cacheprovider \
    -k "not deterministic and not det" 2>&1 | tail -n 8
  echo "Gluon backward GPU tests (not deterministic): exit ${PIPESTATUS[0]}, $SECONDS s"
} 2>&1 | tee "$out/log.txt"
