#!/usr/bin/env bash
# Stop 28's claim on one GPU in one call: the Gluon backward's GPU tests first (its deterministic form, new this
# stop, gates the rest: if they fail, the benchmark runs with deterministic GQA calls on the Triton kernels,
# $SDPA_BWD_GLUON_BWD_DET_GQA=0, and the log says so), then the backward benchmark against cuDNN
# (layout rows timed against their BHSD twins; deterministic mode in the Gluon kernel), then the other GPU tests.
# The forward's kernels did not change this stop (its table stays stop 27's, device_s27_bench.sh); the full plan
# goes in a call of its own (tools/device_levels.sh).
#   bash tools/device_s28_final.sh $OUT
set -u
out=${1:-/tmp/out}; mkdir -p "$out/b"
export PYTHONPATH=src PYTHONUNBUFFERED=1 COLUMNS=160
{
  nvidia-smi -L; python3 -c "import torch, triton; print('torch', torch.__version__, 'triton', triton.__version__)"
  timeout "${GLUON_S:-130}" python3 -m pytest -q -n 8 -m gpu tests/gpu/test_gluon_backward_gpu.py -p no:cacheprovider \
    2>&1 | tail -n 15
  rc=${PIPESTATUS[0]}
  echo "Gluon backward GPU tests: exit $rc, $SECONDS s"
  if [ "$rc" != 0 ]; then
    export SDPA_BWD_GLUON_BWD_DET_GQA=0 && echo "FALLBACK: deterministic GQA on the Triton kernels (SDPA_BWD_GLUON_BWD_DET_GQA=0)"
  fi
  timeout "${BENCH_S:-350}" python3 benchmarks/bench_backward.py --peers cudnn --no-split --out "$out/b" \
    > "$out/b/bench_backward.txt" 2>&1
  echo "bench_backward: exit $?, $SECONDS s"
  grep -iE "geomean|worst|max_|min_" "$out/b/bench_backward.txt" | tail -n 20
  timeout "${TEST_S:-105}" python3 -m pytest -q -n 12 -m gpu tests/gpu -p no:cacheprovider \
    --ignore=tests/gpu/test_gluon_backward_gpu.py 2>&1 | tail -n 15
  echo "other GPU tests: exit ${PIPESTATUS[0]}, $SECONDS s"
} 2>&1 | tee "$out/log.txt"
