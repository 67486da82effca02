#!/usr/bin/env bash
# Stop 44, run 3: run 2's first step again (its summary line failed on a run too short for sustained calls): the call
# with no dK / dV stores (kernel probe no_store: wrong gradients), in a process of its own.
#   bash tools/device_s44c.sh $OUT
set -u
out=${1:-/tmp/out}; mkdir -p "$out"
export PYTHONPATH=src PYTHONUNBUFFERED=1
timeout 150 python3 tools/sustained192.py --out "$out" --kernel-probe no_store --config nostore: \
    --rounds 2 --seconds 2.0 2>&1 | grep -v Warn | tail -4 | tee "$out/sustained_nostore.txt"
timeout 150 python3 tools/sustained192.py --out "$out" --kernel-probe kv_none --config kvnone: \
    --rounds 2 --seconds 2.0 2>&1 | grep -v Warn | tail -4 | tee "$out/sustained_kvnone.txt"
