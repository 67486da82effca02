#!/usr/bin/env bash
# Stop 33's third call: the 192 / 128 call chained by programmatic dependent launch (ODO zeroing the dQ accumulator,
# the kernel and DQ_CONVERT as dependents: $SDPA_BWD_GLUON_PDL=1) on the 192 GPU tests, then its A/B against the
# unchained call in one process (tools/ab192.py --switch gluon_pdl), then the full plan, cold, with the chaining on
# where the tests passed and every A/B row had it faster (new_over_old < 1), else off.
#   bash tools/device_s33c.sh $OUT
set -u
out=${1:-/tmp/out}; mkdir -p "$out/ab"
export PYTHONPATH=src PYTHONUNBUFFERED=1 COLUMNS=160
{
  nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm,temperature.gpu --format=csv,noheader
  SDPA_BWD_GLUON_PDL=1 timeout "${TEST_S:-150}" python3 -m pytest -q -n 8 -m gpu tests/gpu/test_gluon_backward_gpu.py \
    -p no:cacheprovider -k 192 2>&1 | tail -n 12
  tests=${PIPESTATUS[0]}
  echo "192 GPU tests (PDL): exit $tests, $SECONDS s"
  timeout "${AB_S:-200}" python3 tools/ab192.py --switch gluon_pdl --out "$out/ab" 2>&1 | grep -v Warn | tail -n 12
  echo "ab192 --switch gluon_pdl: exit ${PIPESTATUS[0]}, $SECONDS s"
  pdl=$(python3 -c "
import json, sys
try:
    rows = json.load(open('$out/ab/ab192.json'))
except OSError:
    print(0); sys.exit()
print(int($tests == 0 and len(rows) == 4 and all(r['new_over_old'] < 1 for r in rows)))")
  echo "plan with SDPA_BWD_GLUON_PDL=$pdl"
} 2>&1 | tee "$out/log.txt"
pdl=$(grep -o "SDPA_BWD_GLUON_PDL=[01]" "$out/log.txt" | tail -n 1 | cut -d= -f2)
if [ "${PLAN:-1}" = 1 ]; then
  SDPA_BWD_GLUON_PDL=${pdl:-0} ENGINE=triton RUNS="full:cold:16:500" \
    TIMINGS="docs/data/h200-2026-12-02a/run2/triton-full-cold.json.gz" DEADLINE_S=$(( ${PLAN_END_S:-585} - SECONDS )) \
    PACK="$out/plan.tgz" bash tools/device_levels.sh /tmp/lv
fi
