#!/usr/bin/env bash
# Stop 32's first call: the walk-up order's many-wave bitwise-repeat GPU test (hd64 causal, 1024 programs; not run
# at stop 31), then the backward benchmark against cuDNN on every row (its deterministic column now on the walk up
# at hd64 causal), then the forward benchmark (its JSON of record predates the layout-twin timing).
#   bash tools/device_s32a.sh $OUT
set -u
out=${1:-/tmp/out}; mkdir -p "$out/b" "$out/f"
export PYTHONPATH=src PYTHONUNBUFFERED=1 COLUMNS=160
{
  nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm,temperature.gpu --format=csv,noheader
  python3 -c "import torch, triton; print('torch', torch.__version__, 'triton', triton.__version__)"
  timeout "${TEST_S:-120}" python3 -m pytest -q -n 8 -m gpu tests/gpu/test_gluon_backward_gpu.py -p no:cacheprovider \
    -k bitwise 2>&1 | tail -n 8
  echo "bitwise GPU tests: exit ${PIPESTATUS[0]}, $SECONDS s"
  timeout "${BENCH_S:-300}" python3 benchmarks/bench_backward.py --peers cudnn --no-split --out "$out/b" \
    > "$out/b/bench_backward.txt" 2>&1
  echo "bench_backward: exit $?, $SECONDS s"
  grep -iE "geomean|worst|max_|min_" "$out/b/bench_backward.txt" | tail -n 20
  timeout "${FWD_S:-180}" python3 benchmarks/bench_forward.py --peers cudnn --out "$out/f" \
    > "$out/f/bench_forward.txt" 2>&1
  echo "bench_forward: exit $?, $SECONDS s"
  grep -iE "geomean|worst|max_|min_" "$out/f/bench_forward.txt" | tail -n 20
} 2>&1 | tee "$out/log.txt"
