#!/usr/bin/env bash
# Stop 40, run 4: dQ all in consumer 0 (gluon_bwd192_dq_one) against the split dQ, in the single and the persistent
# 192 / 128 forms.
# Not in the landed code: `git apply docs/data/h200-2026-12-03l/forms/prefetch_and_dq_one.diff` on 7f8ee25.
#   bash tools/device_s40d.sh $OUT
set -u
out=${1:-/tmp/out}; mkdir -p "$out"
export PYTHONPATH=src PYTHONUNBUFFERED=1 COLUMNS=160
{
  mkdir -p "$out/one" "$out/one_persist"
  timeout 150 python3 tools/ab192.py --switch gluon_bwd192_dq_one --out "$out/one" 2>&1 | grep -v Warn
  echo "one: $SECONDS s"
  SDPA_BWD_GLUON_BWD192_PERSIST=1 timeout 150 python3 tools/ab192.py --switch gluon_bwd192_dq_one \
    --out "$out/one_persist" 2>&1 | grep -v Warn
  echo "one_persist: $SECONDS s"
} 2>&1 | tee "$out/log.txt"
