#!/usr/bin/env bash
# Stop 44, run 1: what a key block's start costs the persistent 192 / 128 pass. The call under sustained load with
# the loader bringing each block's first tiles before its K and V (gluon_bwd192_early) beside the default and cuDNN;
# then, in a process of their own, both forms with no K / V loads at all (kernel probe kv_none: wrong gradients);
# then the persistent forms' GPU tests.
#   bash tools/device_s44a.sh $OUT
set -u
out=${1:-/tmp/out}; mkdir -p "$out"
export PYTHONPATH=src PYTHONUNBUFFERED=1
timeout 150 python3 tools/sustained192.py --out "$out" --config default: --config early:gluon_bwd192_early=1 \
    --config cudnn: --rounds 2 --seconds 2.0 2>&1 | grep -v Warn | tail -4 | tee "$out/sustained.txt"
timeout 120 python3 tools/sustained192.py --out "$out" --kernel-probe kv_none --config kvnone: \
    --config kvnone_early:gluon_bwd192_early=1 --rounds 2 --seconds 1.0 2>&1 | grep -v Warn | tail -3 \
    | tee "$out/sustained_kvnone.txt"
timeout 240 python3 -m pytest -q -x -m gpu tests/gpu/test_gluon_backward_gpu.py -p no:cacheprovider \
    -k "192 and persist" 2>&1 | tail -4 | tee "$out/tests.txt"
