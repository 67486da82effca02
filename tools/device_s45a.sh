#!/usr/bin/env bash
# Stop 45, run 1 (prepared; the stop had no device): deterministic mode's Triton path at 192 / 128, the only unmet bar
# (1.16-1.17 of the default). ab_perf --table s45: the two passes as one launch (fused_dq) in head groups of 4 and 8,
# chained to ODO (triton_bwd_pdl), the dQ pass on a second stream, against the table's two launches and the default
# mode's Gluon call, (1,16,4096) bf16 and fp16, both masks; its variants compiled first by 8 processes side by side.
# Then the GPU tests of the one-launch backward against the passes apart, chained or not (bitwise).
#   bash tools/device_s45a.sh $OUT
set -u
out=${1:-/tmp/out}; mkdir -p "$out"
STEPS=ab AB_TABLE=s45 WARM=8 AB_CAP=330 AB_BUDGET=300 DEADLINE_S=470 bash tools/device_perf.sh "$out"
PYTHONPATH=src timeout 110 python3 -m pytest -q -m gpu tests/gpu/test_triton_gpu.py -p no:cacheprovider \
    -k "fused_backward_changes_no_bit or chained_to_odo" 2>&1 | tail -4 | tee "$out/tests.txt"
