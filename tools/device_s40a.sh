#!/usr/bin/env bash
# Stop 40, run 1: the 192 / 128 backward's dQ by vector reductions from registers (DQ_RED) against the staged bulk
# reduce, at three stages; then with the freed shared memory as a fourth stage, or as the second P / dS buffer.
# Its switch is not in the landed code: `git apply docs/data/h200-2026-12-03l/forms/dq_red.diff` on 7f8ee25.
#   bash tools/device_s40a.sh $OUT
set -u
out=${1:-/tmp/out}; mkdir -p "$out"
export PYTHONPATH=src PYTHONUNBUFFERED=1 COLUMNS=160
{
  mkdir -p "$out/red3" "$out/red4" "$out/red3nb2"
  timeout 200 python3 tools/ab192.py --switch gluon_bwd192_dq_red --out "$out/red3" 2>&1 | grep -v Warn
  echo "red3: $SECONDS s"
  SDPA_BWD_GLUON_BWD192_RED_STAGES=4 timeout 120 python3 tools/ab192.py --switch gluon_bwd192_dq_red \
    --only bfloat16:causal --out "$out/red4" 2>&1 | grep -v Warn
  echo "red4: $SECONDS s"
  SDPA_BWD_GLUON_BWD192_RED_NBUF=2 timeout 120 python3 tools/ab192.py --switch gluon_bwd192_dq_red \
    --only bfloat16:causal --out "$out/red3nb2" 2>&1 | grep -v Warn
  echo "red3nb2: $SECONDS s"
} 2>&1 | tee "$out/log.txt"
