#!/usr/bin/env bash
# Stop 40, run 2: L2 prefetches of a next block's K and V rows (gluon_bwd192_prefetch) in the single and the
# persistent 192 / 128 forms, and the persistent form against the single one with and without them.
# Not in the landed code: `git apply docs/data/h200-2026-12-03l/forms/prefetch_and_dq_one.diff` on 7f8ee25.
#   bash tools/device_s40b.sh $OUT
set -u
out=${1:-/tmp/out}; mkdir -p "$out"
export PYTHONPATH=src PYTHONUNBUFFERED=1 COLUMNS=160
{
  for run in single_pre persist_pre persist persist_over_single_pre; do mkdir -p "$out/$run"; done
  timeout 150 python3 tools/ab192.py --switch gluon_bwd192_prefetch --out "$out/single_pre" 2>&1 | grep -v Warn
  echo "single_pre: $SECONDS s"
  SDPA_BWD_GLUON_BWD192_PERSIST=1 timeout 150 python3 tools/ab192.py --switch gluon_bwd192_prefetch \
    --out "$out/persist_pre" 2>&1 | grep -v Warn
  echo "persist_pre: $SECONDS s"
  timeout 150 python3 tools/ab192.py --switch gluon_bwd192_persist --out "$out/persist" 2>&1 | grep -v Warn
  echo "persist: $SECONDS s"
  SDPA_BWD_GLUON_BWD192_PREFETCH=1 timeout 150 python3 tools/ab192.py --switch gluon_bwd192_persist \
    --out "$out/persist_over_single_pre" 2>&1 | grep -v Warn
  echo "persist_over_single_pre: $SECONDS s"
} 2>&1 | tee "$out/log.txt"
