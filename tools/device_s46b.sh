#!/usr/bin/env bash
# Stop 46, run 4 (an H100): where the 192 pass's deterministic form (DET) loses its time (1.39-1.40x of the default on
# an H100, run 1 of docs/data/h100-2026-12-05a): its dQ writers' timing probes against the form, the default and the
# Triton kernels' deterministic path, (1,16,4096,192/128) bf16, both masks: no turn spin (p2), nor written-wait and
# release add (p3), nor reduce (p4: the consumers' staging and the walk down alone).
#   bash tools/device_s46b.sh $OUT
set -u
out=${1:-/tmp/out}; mkdir -p "$out"
export PYTHONPATH=src PYTHONUNBUFFERED=1
timeout 300 python3 tools/det_perf.py --shapes 8,9 --det-probes 2,3,4 --rounds 2 --out "$out/bf16" 2>&1 \
    | grep -v Warn | tee "$out/det_perf_bf16.txt"
