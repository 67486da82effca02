#!/usr/bin/env bash
# Stop 30's claim, after the plan's call (tools/device_levels.sh): the backward benchmark against cuDNN on every
# row (the D_qk 192 / D_v 128 causal rows now in the Gluon column-split kernel; layout rows timed against their
# BHSD twins), then the GPU tests other than the Gluon backward's (those ran in full in run 2 on this code).
#   bash tools/device_s30_final.sh $OUT
set -u
out=${1:-/tmp/out}; mkdir -p "$out/b"
export PYTHONPATH=src PYTHONUNBUFFERED=1 COLUMNS=160
{
  nvidia-smi -L; python3 -c "import torch, triton; print('torch', torch.__version__, 'triton', triton.__version__)"
  timeout "${BENCH_S:-330}" python3 benchmarks/bench_backward.py --peers cudnn --no-split --out "$out/b" \
    > "$out/b/bench_backward.txt" 2>&1
  echo "bench_backward: exit $?, $SECONDS s"
  grep -iE "geomean|worst|max_|min_" "$out/b/bench_backward.txt" | tail -n 20
  timeout "${TEST_S:-150}" python3 -m pytest -q -n 12 -m gpu tests/gpu -p no:cacheprovider \
    --ignore=tests/gpu/test_gluon_backward_gpu.py 2>&1 | tail -n 15
  echo "other GPU tests: exit ${PIPESTATUS[0]}, $SECONDS s"
} 2>&1 | tee "$out/log.txt"
