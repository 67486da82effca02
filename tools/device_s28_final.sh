#!/usr/bin/env bash
# Stop 28's claim on one GPU in one call: the backward benchmark against cuDNN (layout rows timed against their BHSD
# twins; deterministic mode now in the Gluon kernel for heads of their own), then every GPU test. The forward's
# kernels did not change this stop (its table stays stop 27's, device_s27_bench.sh). The full plan goes in a call of
# its own (tools/device_levels.sh).
#   bash tools/device_s28_final.sh $OUT
set -u
out=${1:-/tmp/out}; mkdir -p "$out/b"
export PYTHONPATH=src PYTHONUNBUFFERED=1 COLUMNS=160
{
  nvidia-smi -L; python3 -c "import torch, triton; print('torch', torch.__version__, 'triton', triton.__version__)"
  timeout "${BENCH_S:-370}" python3 benchmarks/bench_backward.py --peers cudnn --no-split --out "$out/b" \
    > "$out/b/bench_backward.txt" 2>&1
  echo "bench_backward: exit $?, $SECONDS s"
  grep -iE "geomean|worst|max_|min_" "$out/b/bench_backward.txt" | tail -n 20
  timeout "${TEST_S:-200}" python3 -m pytest -q -n 12 -m gpu tests/gpu -p no:cacheprovider 2>&1 | tail -n 15
  echo "GPU tests: exit ${PIPESTATUS[0]}, $SECONDS s"
} 2>&1 | tee "$out/log.txt"
