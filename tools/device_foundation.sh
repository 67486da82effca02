#!/usr/bin/env bash
# On the GPU machine: every engine on the built-in cases, one process per engine
# (a fault that poisons one engine's CUDA context must not reach the next).
# Usage (from the repo root): bash tools/device_foundation.sh OUTDIR [run options...]
set -u
out=${1:-/tmp/out}
shift || true
mkdir -p "$out"
export PYTHONPATH=src PYTHONUNBUFFERED=1 COLUMNS=160
python3 -m sdpa_bwd.cli info 2>&1 | tee "$out/info.txt"
for engine in reference torch-math torch-cudnn torch-flash torch-efficient torch-flex triton; do
  python3 -m sdpa_bwd.cli run --no-progress --engine "$engine" --json "$out/run-$engine.json" "$@" \
    > "$out/run-$engine.txt" 2>&1
  echo "$engine: exit $? $(tail -n 1 "$out/run-$engine.txt")"
done
