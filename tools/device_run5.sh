#!/usr/bin/env bash
# Session 3, device call 3 (two GPUs): the code as it lands, everything written into OUTDIR as it goes.
#  GPU 0: benchmarks/bench_backward.py (bf16, fp16; four layouts; cuDNN beside), then bench_forward.py;
#  GPU 1: our engine over the plan's standard level (cold cache, STD_WORKERS processes), then the
#         FlexAttention adapter level by level (quick first) in what time is left.
# Usage (repo root): bash tools/device_run5.sh OUTDIR      Env: DEADLINE_S (540).
set -u
out=${1:-/tmp/out}
mkdir -p "$out"
export PYTHONPATH=src PYTHONUNBUFFERED=1 COLUMNS=160
deadline=${DEADLINE_S:-540}
left() { echo $(( deadline - SECONDS > 5 ? deadline - SECONDS : 5 )); }
ms() { echo $(( ($(date +%s%N) - $1) / 1000000 )); }
gpu1() {
  export CUDA_VISIBLE_DEVICES=1
  local s=$(date +%s%N)
  timeout "$(left)" python3 -m sdpa_bwd.cli run --no-progress --engine triton --level standard \
    --workers "${STD_WORKERS:-16}" --replay-limit 4 --json "$out/triton-standard.json" > "$out/triton-standard.txt" 2>&1
  echo "triton standard, cold cache, ${STD_WORKERS:-16} workers: exit $?, $(ms $s) ms: $(tail -n 2 "$out/triton-standard.txt" | tr '\n' ' ')"
  for level in quick standard; do
    s=$(date +%s%N)
    timeout "$(left)" python3 -m sdpa_bwd.cli run --no-progress --engine torch-flex --level "$level" \
      --workers 6 --replay-limit 4 --json "$out/torch-flex-$level.json" > "$out/torch-flex-$level.txt" 2>&1
    echo "torch-flex $level, 6 workers: exit $?, $(ms $s) ms: $(tail -n 2 "$out/torch-flex-$level.txt" | tr '\n' ' ')"
  done
}
{
  gpu1 > "$out/gpu1.log" 2>&1 &
  side=$!
  export CUDA_VISIBLE_DEVICES=0
  s=$(date +%s%N)
  timeout "${BENCH_CAP_S:-330}" python3 benchmarks/bench_backward.py --out "$out" --peers cudnn > "$out/bench_backward.txt" 2>&1
  echo "bench_backward: exit $?, $(ms $s) ms"
  s=$(date +%s%N)
  timeout "$(left)" python3 benchmarks/bench_forward.py --out "$out" > "$out/bench_forward.txt" 2>&1
  echo "bench_forward: exit $?, $(ms $s) ms"
  wait "$side"
  cat "$out/gpu1.log"
  tail -n 60 "$out/bench_backward.txt"
  tail -n 25 "$out/bench_forward.txt"
  echo "total: $SECONDS s"
} 2>&1 | tee "$out/log.txt"
