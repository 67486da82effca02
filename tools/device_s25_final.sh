#!/usr/bin/env bash
# Stop 25, the landing code's call (one GPU): the backward and forward benchmarks first (nothing else on the GPU
# while they time), then every GPU test. The limits (250 + 100 + 230 s) fit one 600-s device call; stop 26's run
# 6 took 247, 27 and 200 s (the tests' 200-s limit cut pytest's exit after its summary: hence 230).
#   bash tools/device_s25_final.sh $OUT
set -u
out=${1:-/tmp/out}; mkdir -p "$out/b" "$out/f"
export PYTHONPATH=src PYTHONUNBUFFERED=1 COLUMNS=160
{
  nvidia-smi -L; python3 -c "import torch, triton; print('torch', torch.__version__, 'triton', triton.__version__)"
  timeout "${BENCH_S:-250}" python3 benchmarks/bench_backward.py --peers cudnn --no-split --out "$out/b" \
    > "$out/b/bench_backward.txt" 2>&1
  echo "bench_backward: exit $?, $SECONDS s"
  timeout "${FWD_S:-100}" python3 benchmarks/bench_forward.py --peers cudnn --out "$out/f" > "$out/f/bench_forward.txt" 2>&1
  echo "bench_forward: exit $?, $SECONDS s"
  timeout "${TEST_S:-230}" python3 -m pytest -q -n 12 -m gpu tests/gpu -p no:cacheprovider -rf \
    --junitxml="$out/gpu.xml" > "$out/gpu_tests.txt" 2>&1
  echo "gpu tests: exit $?, $SECONDS s: $(tail -n 1 "$out/gpu_tests.txt")"; grep -E "^FAILED" "$out/gpu_tests.txt" | head -20
  grep -iE "geomean|worst|max_|min_" "$out/b/bench_backward.txt" | tail -n 20
  grep -iE "geomean|worst|min_" "$out/f/bench_forward.txt" | tail -n 8
} 2>&1 | tee "$out/log.txt"
