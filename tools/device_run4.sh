#!/usr/bin/env bash
# Session 3, device call 2 (two GPUs), everything written straight into OUTDIR as it goes
# (call 1 lost its reports: the tarball was to be made after the 600 s limit struck).
#  GPU 0: tools/ab_perf.py (issue 7's A/B), then the GPU tests;
#  GPU 1: our engine over --level full with a cold Triton cache on COLD_WORKERS processes
#         (the compile is the cost: ~340 kernel specialisations), then warm: full, quick,
#         standard, nightly on WORKERS processes -- issue 5's timed figures.
# Usage (repo root): bash tools/device_run4.sh OUTDIR      Env: DEADLINE_S (540).
set -u
out=${1:-/tmp/out}
mkdir -p "$out"
export PYTHONPATH=src PYTHONUNBUFFERED=1 COLUMNS=160
deadline=${DEADLINE_S:-540}
left() { echo $(( deadline - SECONDS > 5 ? deadline - SECONDS : 5 )); }
ms() { echo $(( ($(date +%s%N) - $1) / 1000000 )); }
plan() {
  export CUDA_VISIBLE_DEVICES=1
  local s=$(date +%s%N)
  timeout "${COLD_CAP_S:-340}" python3 -m sdpa_bwd.cli run --no-progress --engine triton --level full \
    --workers "${COLD_WORKERS:-20}" --replay-limit 4 --json "$out/triton-full-cold.json" > "$out/triton-full-cold.txt" 2>&1
  echo "triton full, cold cache, ${COLD_WORKERS:-20} workers: exit $?, $(ms $s) ms: $(tail -n 2 "$out/triton-full-cold.txt" | tr '\n' ' ')"
  for level in full quick standard nightly; do
    s=$(date +%s%N)
    timeout "$(left)" python3 -m sdpa_bwd.cli run --no-progress --engine triton --level "$level" \
      --workers "${WORKERS:-12}" --replay-limit 4 --json "$out/triton-$level.json" > "$out/triton-$level.txt" 2>&1
    echo "triton $level, warm, ${WORKERS:-12} workers: exit $?, $(ms $s) ms: $(tail -n 2 "$out/triton-$level.txt" | tr '\n' ' ')"
  done
}
{
  python3 -m sdpa_bwd.cli info | tail -n 3
  plan > "$out/plan.log" 2>&1 &
  side=$!
  export CUDA_VISIBLE_DEVICES=0
  s=$(date +%s%N)
  timeout "${AB_CAP_S:-330}" python3 tools/ab_perf.py --out "$out" --budget "${AB_BUDGET_S:-290}"
  echo "ab_perf: exit $?, $(ms $s) ms"
  s=$(date +%s%N)
  timeout "$(left)" python3 -m pytest -q -n 8 -m gpu tests/gpu/test_triton_gpu.py tests/test_worker.py \
    -p no:cacheprovider -rf > "$out/gpu_tests.txt" 2>&1
  echo "gpu tests: exit $?, $(ms $s) ms"; grep -E "FAILED|ERROR|passed|failed" "$out/gpu_tests.txt" | tail -n 30
  wait "$side"
  cat "$out/plan.log"
  echo "total: $SECONDS s"
} 2>&1 | tee "$out/log.txt"
