#!/usr/bin/env bash
# On the GPU machine: issue 5's measured run. Times every level of the plan
# against our Triton engine (twice: a cold Triton cache, then warm), runs every
# level against each PyTorch adapter, renders the support matrix, and packs it
# all into one file (the device tool returns at most 8 files).
# Usage (repo root): bash tools/device_plan.sh OUTDIR [LEVEL_FOR_PEERS] [ENGINES...]
set -u
out=${1:-/tmp/out}
peer_level=${2:-full}
shift 2 2>/dev/null || shift $#
engines=${*:-"torch-cudnn torch-flash torch-efficient torch-math torch-flex"}
work=$(mktemp -d)
export PYTHONPATH=src PYTHONUNBUFFERED=1 COLUMNS=160
run() { python3 -m sdpa_bwd.cli run --no-progress "$@"; }
{
  python3 -m sdpa_bwd.cli info
  for pass in cold warm; do
    for level in quick standard nightly full; do
      start=$(date +%s%N)
      run --engine triton --level "$level" --json "$work/triton-$level-$pass.json" > "$work/triton-$level-$pass.txt" 2>&1
      rc=$?
      echo "triton $level ($pass Triton cache): exit $rc, $(( ($(date +%s%N) - start) / 1000000 )) ms, $(tail -n 1 "$work/triton-$level-$pass.txt")"
    done
  done
  for engine in $engines; do
    start=$(date +%s%N)
    run --engine "$engine" --level "$peer_level" --json "$work/$engine.json" > "$work/$engine.txt" 2>&1
    echo "$engine $peer_level: exit $?, $(( ($(date +%s%N) - start) / 1000000 )) ms"
  done
  cp "$work/triton-full-warm.json" "$work/triton.json"
  python3 -m sdpa_bwd.cli matrix "$work/triton.json" $(for e in $engines; do echo "$work/$e.json"; done) \
    --markdown "$work/matrix.md" --html "$work/matrix.html"
} 2>&1 | tee "$work/log.txt"
mkdir -p "$out"
cp "$work/log.txt" "$work/matrix.md" "$work/matrix.html" "$out/" 2>/dev/null
tar -czf "$out/results.tar.gz" -C "$work" .
