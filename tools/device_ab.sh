#!/usr/bin/env bash
# On a two-GPU machine, one A/B call of the device tool (issue 7's perf log):
#  GPU 0: tools/ab_perf.py (configs for D 192/128, dQ by TMA bulk reduce for 64 and 128);
#  GPU 1: the GPU tests (kernels in both dQ modes, the tuner, the worker's device-side assert).
# Usage (repo root): bash tools/device_ab.sh OUTDIR     Env: AB_BUDGET_S (380), TESTS_CAP_S (400).
set -u
out=${1:-/tmp/out}
work=$(mktemp -d)
mkdir -p "$out"
export PYTHONPATH=src PYTHONUNBUFFERED=1 COLUMNS=160
ms() { echo $(( ($(date +%s%N) - $1) / 1000000 )); }
{
  ( export CUDA_VISIBLE_DEVICES=1
    s=$(date +%s%N)
    timeout "${TESTS_CAP_S:-400}" python3 -m pytest -q -n 8 -m gpu tests/gpu/test_triton_gpu.py tests/test_worker.py \
      -p no:cacheprovider -rf > "$work/gpu_tests.txt" 2>&1
    echo "gpu tests: exit $?, $(ms $s) ms"; grep -E "FAILED|ERROR|passed|failed" "$work/gpu_tests.txt" | tail -n 30
  ) > "$work/gpu1.log" 2>&1 &
  side=$!
  export CUDA_VISIBLE_DEVICES=0
  s=$(date +%s%N)
  python3 tools/ab_perf.py --out "$work" --budget "${AB_BUDGET_S:-380}"
  echo "ab_perf: exit $?, $(ms $s) ms"
  wait "$side"
  cat "$work/gpu1.log"
  echo "total: $SECONDS s"
} 2>&1 | tee "$work/log.txt"
cp "$work/log.txt" "$work/ab_perf.json" "$work/gpu_tests.txt" "$out/" 2>/dev/null
