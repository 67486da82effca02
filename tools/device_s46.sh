#!/usr/bin/env bash
# Stop 46, run 3 (an H100): deterministic mode's Triton path at 192 / 128 (1.16-1.17 of the default on the H200, stop
# 44; the one unmet bar): ab_perf --table s46, the dQ pass's tiles and stages, the DKDV pass's stages and the start
# order's head groups, against the table's entry and the default mode's Gluon call, (1,16,4096) bf16 and fp16, both
# masks.
#   bash tools/device_s46.sh $OUT
set -u
out=${1:-/tmp/out}; mkdir -p "$out"
STEPS=ab AB_TABLE=s46 WARM=8 AB_CAP=300 AB_BUDGET=280 DEADLINE_S=400 bash tools/device_perf.sh "$out"
