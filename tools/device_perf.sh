#!/usr/bin/env bash
# Issue 7's measurements in one device call on one H200, writing into OUTDIR as it goes (a call
# stopped by the device's limit keeps what finished):
#   ab     tools/ab_perf.py --table "$AB_TABLE": first WARM processes side by side compile their share
#          of the variants (--warm-only --shard i/WARM), then one process times them all, cache warm
#   tests  the GPU tests, pytest -n 12
#   bench  benchmarks/bench_backward.py and bench_forward.py against cuDNN
# Usage (repo root): STEPS="ab tests bench" DEADLINE_S=570 bash tools/device_perf.sh OUTDIR
set -u
out=${1:-/tmp/out}; mkdir -p "$out"
export PYTHONPATH=src PYTHONUNBUFFERED=1 COLUMNS=160
deadline=${DEADLINE_S:-570}; warm=${WARM:-12}; table=${AB_TABLE:-s6}
left() { echo $(( deadline - SECONDS > 5 ? deadline - SECONDS : 5 )); }
step() {  # name cap command...: run with the smaller of cap and the time left, log its exit and wall
  local name=$1 cap=$2; shift 2
  [ "$cap" -le "$(left)" ] || cap=$(left)
  [ "$cap" -gt 15 ] || { echo "$name: no time left"; return; }
  local t0=$SECONDS
  timeout -k 5 "$cap" "$@" > "$out/$name.txt" 2>&1
  echo "$name: exit $?, $(( SECONDS - t0 )) s (cap $cap): $(tail -n 1 "$out/$name.txt")"
}
{
  nvidia-smi -L; python3 -c "import torch, triton; print('torch', torch.__version__, 'triton', triton.__version__)"
  for s in ${STEPS:-ab tests bench}; do
    case $s in
      ab)
        t0=$SECONDS
        for i in $(seq 1 "$warm"); do
          timeout -k 5 "$(left)" python3 tools/ab_perf.py --table "$table" --warm-only --shard "$i/$warm" \
            --out "$out" > "$out/ab_warm_$i.log" 2>&1 &
        done
        wait
        echo "ab warm-up ($warm processes): $(( SECONDS - t0 )) s; $(grep -l Error "$out"/ab_warm_*.log | wc -l) with errors"
        cat "$out"/ab_warm_*.log | grep -E "Error|error" | head -n 5
        rm -f "$out"/ab_warm_*.log
        step ab "${AB_CAP:-200}" python3 tools/ab_perf.py --table "$table" --budget "${AB_BUDGET:-180}" --out "$out" ;;
      tests)
        step gpu_tests "${TESTS_CAP:-240}" python3 -m pytest -q -n 12 -m gpu tests/gpu -p no:cacheprovider ;;
      bench)
        step bench_backward "${BENCH_CAP:-240}" python3 benchmarks/bench_backward.py --peers cudnn --out "$out"
        step bench_forward 90 python3 benchmarks/bench_forward.py --peers cudnn --out "$out" ;;
    esac
  done
} 2>&1 | tee -a "$out/log.txt"
