#!/usr/bin/env bash
# Stop 40, run 7: the full plan, cold, on the landed code (the 192 / 128 backward's persistent form on by default).
#   bash tools/device_s40g.sh $OUT
set -u
out=${1:-/tmp/out}; mkdir -p "$out"
export PYTHONPATH=src PYTHONUNBUFFERED=1 COLUMNS=160
SDPA_BWD_GLUON_PDL=1 ENGINE=triton RUNS="full:cold:16:480" \
  TIMINGS="docs/data/h200-2026-12-02a/run2/triton-full-cold.json.gz" DEADLINE_S=$(( ${PLAN_END_S:-560} - SECONDS )) \
  bash tools/device_levels.sh "$out/lv"
