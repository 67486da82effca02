#!/usr/bin/env bash
# On a two-GPU machine: the second measured run of issue 5 beside issue 7's A/B.
#  GPU 0: the TMA smoke check (decides TMA auto/off for the plan run), our engine
#         over the whole plan cold with many workers (Triton compiles in parallel),
#         then warm: full with one worker (the bar's figure), then each level.
#  GPU 1: tools/ab_perf.py, then the adapters the first run did not reach
#         (efficient, math at full; flex level by level), several workers each.
# Usage (repo root): bash tools/device_run2.sh OUTDIR
set -u
out=${1:-/tmp/out}
deadline=${DEADLINE_S:-560}
work=$(mktemp -d)
mkdir -p "$out"
export PYTHONPATH=src PYTHONUNBUFFERED=1 COLUMNS=160
left() { echo $(( deadline - SECONDS > 5 ? deadline - SECONDS : 5 )); }
ms() { echo $(( ($(date +%s%N) - $1) / 1000000 )); }
plan() {  # plan LABEL ENGINE LEVEL WORKERS CAP [extra...]
  local label=$1 engine=$2 level=$3 workers=$4 cap=$5; shift 5
  [ "$cap" -gt "$(left)" ] && cap=$(left)
  local start=$(date +%s%N)
  timeout "$cap" python3 -m sdpa_bwd.cli run --no-progress --engine "$engine" --level "$level" \
    --workers "$workers" --json "$work/$label.json" "$@" > "$work/$label.txt" 2>&1
  local rc=$?
  echo "$label ($engine $level, $workers workers): exit $rc$([ $rc = 124 ] && echo " (stopped after $cap s)"), $(ms $start) ms | $(grep -E 'passed|failed' "$work/$label.txt" | tail -n 1)"
}

gpu1() {
  export CUDA_VISIBLE_DEVICES=1
  timeout 230 python3 tools/ab_perf.py --out "$work" --budget 200 > "$work/ab_perf.txt" 2>&1
  echo "ab_perf: exit $?"
  plan torch-efficient torch-efficient full 4 150 --replay-limit 8
  plan torch-math torch-math full 4 120 --replay-limit 8
  for level in quick standard; do
    plan "torch-flex-$level" torch-flex "$level" 4 100 --replay-limit 8
  done
}

{
  nvidia-smi --query-gpu=index,name --format=csv,noheader
  gpu1 > "$work/gpu1.log" 2>&1 &
  side=$!
  export CUDA_VISIBLE_DEVICES=0
  start=$(date +%s%N)
  timeout 150 python3 tools/tma_smoke.py > "$work/tma_smoke.txt" 2>&1
  rc=$?
  echo "tma_smoke: exit $rc, $(ms $start) ms; $(tail -n 1 "$work/tma_smoke.txt")"
  if [ $rc != 0 ]; then export SDPA_BWD_TMA=off; echo "TMA off for the plan run"; fi
  plan triton-cold triton full 14 260
  plan triton-full triton full 1 150
  for level in quick standard nightly; do plan "triton-$level" triton "$level" 1 60; done
  python3 - "$work/triton-cold.json" "$work/triton-full.json" <<'EOF'
import sys
from sdpa_bwd.report import content, load_report
try:
    a, b = (content(load_report(p)) for p in sys.argv[1:])
    common = {r["case"] for r in a} & {r["case"] for r in b}
    a = {r["case"]: r for r in a if r["case"] in common}
    b = {r["case"]: r for r in b if r["case"] in common}
    diff = [(c, k) for c in common for k in set(a[c]) | set(b[c]) if a[c].get(k) != b[c].get(k)]
    print(f"14 workers vs 1 worker: {len(common)} cases in both, {len(diff)} differing fields", diff[:8])
except Exception as exc:
    print("compare failed:", exc)
EOF
  wait "$side"
  cat "$work/gpu1.log"
  grep -E "^ok|MISMATCH|FAIL" "$work/tma_smoke.txt" | head -40
  cat "$work/ab_perf.txt"
  echo "total: $SECONDS s"
} 2>&1 | tee "$work/log.txt"
cp "$work/log.txt" "$out/" 2>/dev/null
tar -czf "$out/results.tar.gz" -C "$work" .
