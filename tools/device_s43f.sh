#!/usr/bin/env bash
# Stop 43, run 7: the landed default (FUSED_DQ off) after the kernel's new arguments: the 192 GPU tests of the
# persistent form and the 128-key kernel (whose launch drops the fused conversion's five arguments), and the replays.
#   bash tools/device_s43f.sh $OUT
set -u
out=${1:-/tmp/out}; mkdir -p "$out"
export PYTHONPATH=src PYTHONUNBUFFERED=1
timeout 420 python3 -m pytest -q -m gpu tests/gpu/test_gluon_backward_gpu.py -p no:cacheprovider \
    -k "192 and (persist or k128) and not fused" 2>&1 | tail -6 | tee "$out/tests.txt"
