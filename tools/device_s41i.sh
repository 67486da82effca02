#!/usr/bin/env bash
# Stop 41, run 9: timing probes of the 128-key kernel (tools/k128_probes.py: consumer 0's second dQ chunk left out;
# no wait for the other consumer's dS), beside its unchanged build and the launcher's default.
#   bash tools/device_s41i.sh $OUT
set -u
out=${1:-/tmp/out}; mkdir -p "$out"
export PYTHONPATH=src PYTHONUNBUFFERED=1
timeout 500 python3 tools/k128_probes.py --out "$out" 2>&1 | grep -v Warn | tee "$out/log.txt"
