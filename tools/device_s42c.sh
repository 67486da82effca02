#!/usr/bin/env bash
# Stop 42, run 4: how much of the 192 / 128 call DQ_CONVERT is under sustained load (tools/sustained192.py with the
# no_convert probe, beside the default and cuDNN), then the full plan, cold, on the landed code (stop 41's launcher).
#   bash tools/device_s42c.sh $OUT
set -u
out=${1:-/tmp/out}; mkdir -p "$out"
export PYTHONPATH=src PYTHONUNBUFFERED=1
timeout 100 python3 tools/sustained192.py --out "$out" --config default: --config noconv:probe=no_convert \
    --config cudnn: --rounds 2 --seconds 2.0 2>&1 | grep -v Warn | tail -4 | tee "$out/sustained.txt"
SDPA_BWD_GLUON_PDL=1 ENGINE=triton RUNS="full:cold:16:470" DEADLINE_S=470 \
    TIMINGS="docs/data/h200-2026-12-02a/run2/triton-full-cold.json.gz" PACK="$out/lv.tgz" \
    bash tools/device_levels.sh "$out/lv" > /dev/null 2>&1
tail -3 "$out/lv/log.txt"
