#!/usr/bin/env bash
# On the GPU machine: every engine on the built-in cases, plus the GPU tests.
# Usage (from the repo root): bash tools/device_foundation.sh OUTDIR
set -u
out=${1:-/tmp/out}
mkdir -p "$out"
export PYTHONPATH=src PYTHONUNBUFFERED=1 COLUMNS=200
python3 -m sdpa_bwd.cli info 2>&1 | tee "$out/info.txt"
python3 -m sdpa_bwd.cli run --no-progress --engine reference --engine torch-math --engine torch-cudnn \
  --engine torch-flash --engine torch-efficient --engine torch-flex --engine triton \
  --json "$out/builtin.json" 2>&1 | tee "$out/builtin.txt"
