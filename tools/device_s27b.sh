#!/usr/bin/env bash
# Stop 27, the landing code's tests (one GPU): every GPU test (the Gluon forward and backward with host-made
# descriptors, the launch cache's replays), then the forward benchmark against cuDNN (short: ~30 s). The
# backward benchmark and the plan follow in their own calls (device_s27c.sh, device_levels.sh).
#   bash tools/device_s27b.sh $OUT
set -u
out=${1:-/tmp/out}; mkdir -p "$out/f"
export PYTHONPATH=src PYTHONUNBUFFERED=1 COLUMNS=160
{
  nvidia-smi -L; python3 -c "import torch, triton; print('torch', torch.__version__, 'triton', triton.__version__)"
  timeout "${TEST_S:-300}" python3 -m pytest -q -n 12 -m gpu tests/gpu -p no:cacheprovider -rf \
    --junitxml="$out/gpu.xml" > "$out/gpu_tests.txt" 2>&1
  echo "gpu tests: exit $?, $SECONDS s: $(tail -n 1 "$out/gpu_tests.txt")"; grep -E "^FAILED" "$out/gpu_tests.txt" | head -20
  timeout "${FWD_S:-100}" python3 benchmarks/bench_forward.py --peers cudnn --out "$out/f" > "$out/f/bench_forward.txt" 2>&1
  echo "bench_forward: exit $?, $SECONDS s"
  grep -iE "geomean|worst|min_" "$out/f/bench_forward.txt" | tail -n 8
} 2>&1 | tee "$out/log.txt"
