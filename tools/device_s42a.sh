#!/usr/bin/env bash
# Stop 42, run 1-2: timing probes of the 128-key kernel (tools/k128_probes.py, causal only): consumer 0's second dQ
# chunk left out; the consumers uncoupled; no dQ, coupled and uncoupled; beside its build and the launcher's default.
#   bash tools/device_s42a.sh $OUT
set -u
out=${1:-/tmp/out}; mkdir -p "$out"
export PYTHONPATH=src PYTHONUNBUFFERED=1
timeout 560 python3 tools/k128_probes.py --causal-only --timeout 120 --out "$out" 2>&1 | grep -v Warn \
    | tee "$out/log.txt"
