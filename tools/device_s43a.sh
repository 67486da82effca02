#!/usr/bin/env bash
# Stop 43, run 1: dQ converted inside the persistent 192 / 128 pass (FUSED_DQ, the switch gluon_bwd192_fused_dq):
# its GPU tests (the 192 cases and the replay in the persist-fused form), then the call under sustained load beside
# the default, the no-convert probe and cuDNN (tools/sustained192.py), then the benchmark's 192 rows with it on.
#   bash tools/device_s43a.sh $OUT
set -u
out=${1:-/tmp/out}; mkdir -p "$out"
export PYTHONPATH=src PYTHONUNBUFFERED=1
timeout 240 python3 -m pytest -q -x -m gpu tests/gpu/test_gluon_backward_gpu.py -p no:cacheprovider \
    -k "192 and persist-fused" 2>&1 | tail -15 | tee "$out/tests.txt"
grep -q " passed" "$out/tests.txt" && ! grep -q "failed\|error" "$out/tests.txt" \
    || { echo "tests did not pass"; exit 1; }
timeout 150 python3 tools/sustained192.py --out "$out" --config default: --config fused:gluon_bwd192_fused_dq=1 \
    --config noconv:probe=no_convert --config cudnn: --rounds 2 --seconds 2.0 2>&1 | grep -v Warn | tail -10 \
    | tee "$out/sustained.txt"
SDPA_BWD_GLUON_BWD192_FUSED_DQ=1 timeout 180 python3 benchmarks/bench_backward.py --peers cudnn --no-split \
    --rows D192 --out "$out" 2>&1 | grep -v Warn | tail -22
