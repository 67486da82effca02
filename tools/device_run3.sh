#!/usr/bin/env bash
# On a two-GPU machine, the third run of session 2 (the code as it will land):
#  GPU 0: benchmarks/bench_backward.py (bf16 and fp16, four layouts), then bench_forward.py;
#  GPU 1: the GPU tests (kernels, the worker's device-side assert), then our engine over
#         the plan's standard level on 8 workers (a partial report if stopped).
# Usage (repo root): bash tools/device_run3.sh OUTDIR
# Env: AUTOTUNE=1 runs the benchmarks with SDPA_BWD_AUTOTUNE=1 (the tuner's choices and
#      timings land in OUTDIR/tuning.json); DEADLINE_S (450).
set -u
out=${1:-/tmp/out}
work=$(mktemp -d)
mkdir -p "$out"
export PYTHONPATH=src PYTHONUNBUFFERED=1 COLUMNS=160
ms() { echo $(( ($(date +%s%N) - $1) / 1000000 )); }
gpu1() {
  export CUDA_VISIBLE_DEVICES=1
  local s=$(date +%s%N)
  timeout 200 python3 -m pytest -q -n 8 -m gpu tests/gpu/test_triton_gpu.py tests/test_worker.py \
    -p no:cacheprovider > "$work/gpu_tests.txt" 2>&1
  echo "gpu tests: exit $?, $(ms $s) ms: $(tail -n 1 "$work/gpu_tests.txt")"
  s=$(date +%s%N)
  timeout $(( ${DEADLINE_S:-450} - SECONDS )) python3 -m sdpa_bwd.cli run --no-progress --engine triton \
    --level standard --workers 8 --json "$work/triton-standard.json" > "$work/triton-standard.txt" 2>&1
  echo "triton standard, 8 workers: exit $?, $(ms $s) ms: $(grep -E 'passed|stopped' "$work/triton-standard.txt" | tail -n 2)"
}
{
  gpu1 > "$work/gpu1.log" 2>&1 &
  side=$!
  export CUDA_VISIBLE_DEVICES=0
  if [ "${AUTOTUNE:-0}" = 1 ]; then export SDPA_BWD_AUTOTUNE=1 SDPA_BWD_TUNE_CACHE="$work/tuning.json"; fi
  s=$(date +%s%N)
  timeout 310 python3 benchmarks/bench_backward.py --out "$work" --peers cudnn > "$work/bench_backward.txt" 2>&1
  echo "bench_backward: exit $?, $(ms $s) ms"
  s=$(date +%s%N)
  timeout $(( ${DEADLINE_S:-450} - SECONDS )) python3 benchmarks/bench_forward.py --out "$work" \
    > "$work/bench_forward.txt" 2>&1
  echo "bench_forward: exit $?, $(ms $s) ms"
  wait "$side"
  cat "$work/gpu1.log"
  tail -n 50 "$work/bench_backward.txt"
  tail -n 30 "$work/bench_forward.txt"
  echo "total: $SECONDS s"
} 2>&1 | tee "$work/log.txt"
cp "$work/log.txt" "$work"/bench_*.json "$work"/*.png "$work"/tuning.json "$out/" 2>/dev/null
tar -czf "$out/results.tar.gz" -C "$work" .
