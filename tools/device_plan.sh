#!/usr/bin/env bash
# On the GPU machine: issue 5's measured run, in one call of the device tool.
#  - our Triton engine over the whole plan (--level full, every level's cases),
#    first with a cold Triton cache, then warm level by level: the wall times;
#  - with two GPUs, the same full level on --workers 2 (one GPU each), and a
#    check that its report has the same content as the one-worker run;
#  - every PyTorch adapter over the plan (on the second GPU while the first is
#    timing ours, when there are two), each capped so the call ends in time;
#  - the GPU worker test (a real device-side assert), the built-in cases on
#    every engine (one process each), the support matrix, one tarball.
# Usage (repo root): bash tools/device_plan.sh OUTDIR [PEER_LEVEL] [ENGINES...]
# Env: PLAN_DEADLINE_S (default 560) ends every step by then; FLEX_CAP_S (300);
#      COLD_CAP_S (330) cuts the cold-cache pass so that the warm ones still run;
#      WORKERS (8) for our engine's runs, PEER_WORKERS (4) for the adapters'.
# Lessons of 2026-11-30 (docs/runner.md): a cold Triton cache costs minutes (about 320
# kernel specialisations in the full plan), so our engine runs with several workers
# (compiles in parallel) and the warm pass is the timed one; a step stopped at the
# deadline still leaves its partial --json report (SIGTERM).
set -u
out=${1:-/tmp/out}
peer_level=${2:-full}
shift 2 2>/dev/null || shift $#
engines=${*:-"torch-cudnn torch-flash torch-efficient torch-math torch-flex"}
deadline=${PLAN_DEADLINE_S:-560}
flex_cap=${FLEX_CAP_S:-300}
workers=${WORKERS:-8}
cold_cap=${COLD_CAP_S:-330}  # the cold pass is cut here so the warm passes get their time
peer_workers=${PEER_WORKERS:-4}
work=$(mktemp -d)
mkdir -p "$out"
export PYTHONPATH=src PYTHONUNBUFFERED=1 COLUMNS=160
ngpu=$(python3 -c 'import torch; print(torch.cuda.device_count())')
left() { echo $(( deadline - SECONDS > 5 ? deadline - SECONDS : 5 )); }
timed() {  # timed LABEL CMD...: run CMD under the deadline, print its exit status and wall ms
  local label=$1; shift
  local start=$(date +%s%N)
  timeout "$(left)" "$@"
  local rc=$?
  echo "$label: exit $rc$([ $rc = 124 ] && echo ' (stopped at the deadline)'), $(( ($(date +%s%N) - start) / 1000000 )) ms"
}

peers() {  # every adapter over the plan, then the built-in cases on every engine but ours
  for engine in $engines; do
    if [ "$engine" = torch-flex ]; then  # compiles per shape: level by level, keep the largest finished
      local flex_end=$(( SECONDS + flex_cap ))
      for level in quick standard nightly full; do
        local cap=$(( flex_end - SECONDS )); [ "$cap" -gt "$(left)" ] && cap=$(left)
        [ "$cap" -lt 10 ] && { echo "torch-flex: no time left for $level"; break; }
        local start=$(date +%s%N)
        timeout "$cap" python3 -m sdpa_bwd.cli run --no-progress --engine torch-flex --level "$level" \
          --workers "$peer_workers" --replay-limit 8 \
          --json "$work/torch-flex-$level.json" > "$work/torch-flex-$level.txt" 2>&1
        local rc=$?
        echo "torch-flex $level: exit $rc$([ $rc = 124 ] && echo " (stopped after ${cap} s)"), $(( ($(date +%s%N) - start) / 1000000 )) ms, $(tail -n 1 "$work/torch-flex-$level.txt")"
        [ -s "$work/torch-flex-$level.json" ] && cp "$work/torch-flex-$level.json" "$work/torch-flex.json"
        [ "$level" = "$peer_level" ] && break
      done
      continue
    fi
    local start=$(date +%s%N)
    timeout "$(left)" python3 -m sdpa_bwd.cli run --no-progress --engine "$engine" --level "$peer_level" \
      --workers "$peer_workers" --replay-limit 8 --json "$work/$engine.json" > "$work/$engine.txt" 2>&1
    local rc=$?
    echo "$engine $peer_level: exit $rc$([ $rc = 124 ] && echo " (stopped at the deadline)"), $(( ($(date +%s%N) - start) / 1000000 )) ms, $(tail -n 1 "$work/$engine.txt")"
  done
  for engine in reference $engines; do
    timeout "$(left)" python3 -m sdpa_bwd.cli run --no-progress --engine "$engine" \
      --json "$work/builtin-$engine.json" > "$work/builtin-$engine.txt" 2>&1
    echo "builtin cases, $engine: exit $?, $(tail -n 1 "$work/builtin-$engine.txt")"
  done
}

{
  python3 -m sdpa_bwd.cli info
  nvidia-smi --query-gpu=index,name,memory.used --format=csv
  if [ "$ngpu" -ge 2 ]; then
    echo "== $ngpu GPUs: peers on GPU 1, ours timed on GPU 0 =="
    CUDA_VISIBLE_DEVICES=1 peers > "$work/peers.log" 2>&1 &
    peers_pid=$!
    export CUDA_VISIBLE_DEVICES=0
  fi
  timed "triton full (cold Triton cache, $workers workers, capped at ${cold_cap} s)" timeout "$cold_cap" \
    python3 -m sdpa_bwd.cli run --no-progress --engine triton \
    --level full --workers "$workers" --json "$work/triton-full-cold.json" \
    > "$work/triton-full-cold.txt" 2>&1
  tail -n 3 "$work/triton-full-cold.txt"
  for level in full quick standard nightly; do  # full first: the bar's figure
    timed "triton $level (warm, $workers workers)" python3 -m sdpa_bwd.cli run --no-progress --engine triton \
      --level "$level" --workers "$workers" --json "$work/triton-$level.json" \
      > "$work/triton-$level.txt" 2>&1
    tail -n 1 "$work/triton-$level.txt"
  done
  timed "gpu worker test" python3 -m pytest -q -m gpu tests/test_worker.py -p no:cacheprovider
  if [ "$ngpu" -ge 2 ]; then
    timed "triton full, --workers 2 (GPUs 0 and 1)" env CUDA_VISIBLE_DEVICES=0,1 python3 -m sdpa_bwd.cli run \
      --no-progress --engine triton --level full --workers 2 --json "$work/triton-full-w2.json" \
      > "$work/triton-full-w2.txt" 2>&1
    python3 - "$work/triton-full.json" "$work/triton-full-w2.json" <<'EOF'
import sys
from sdpa_bwd.conformance.report import content, load_report
one, two = (content(load_report(p)) for p in sys.argv[1:])
diff = [(a["case"], k) for a, b in zip(one, two) for k in set(a) | set(b) if a.get(k) != b.get(k)]
print(f"--workers 2 (one per GPU) vs the warm run: {len(two)} vs {len(one)} results, {len(diff)} differing fields", diff[:10])
EOF
  fi
  timeout "$(left)" python3 -m sdpa_bwd.cli run --no-progress --engine triton \
    --json "$work/builtin-triton.json" > "$work/builtin-triton.txt" 2>&1
  echo "builtin cases, triton: exit $?, $(tail -n 1 "$work/builtin-triton.txt")"
  if [ "$ngpu" -ge 2 ]; then
    wait "$peers_pid"
    cat "$work/peers.log"
  else
    peers
  fi
  python3 -m sdpa_bwd.cli matrix $(for e in triton-full $engines; do
      [ -s "$work/$e.json" ] && echo "$work/$e.json"; done) \
    --markdown "$work/matrix.md" --html "$work/matrix.html"
  echo "total: $SECONDS s"
} 2>&1 | tee "$work/log.txt"
cp "$work/log.txt" "$work/matrix.md" "$work/matrix.html" "$out/" 2>/dev/null
tar -czf "$out/results.tar.gz" -C "$work" .
