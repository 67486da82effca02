#!/usr/bin/env bash
# Stop 41, run 1: the 192 / 128 call's timeline beside cuDNN's, and its side kernels alone at other blocks.
#   bash tools/device_s41a.sh $OUT
set -u
out=${1:-/tmp/out}; mkdir -p "$out"
export PYTHONPATH=src PYTHONUNBUFFERED=1
timeout 300 python3 tools/side192_probe.py --out "$out" 2>&1 | tee "$out/log.txt"
