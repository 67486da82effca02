#!/usr/bin/env bash
# Stop 43, run 8: the fused form after its review mend (no identity move on the rows, the address table loaded once):
# its GPU tests, then the call under sustained load beside the default.
#   bash tools/device_s43g.sh $OUT
set -u
out=${1:-/tmp/out}; mkdir -p "$out"
export PYTHONPATH=src PYTHONUNBUFFERED=1
timeout 200 python3 -m pytest -q -x -m gpu tests/gpu/test_gluon_backward_gpu.py -p no:cacheprovider \
    -k "192 and persist" 2>&1 | tail -4 | tee "$out/tests.txt"
timeout 120 python3 tools/sustained192.py --out "$out" --config default: --config fused:gluon_bwd192_fused_dq=1 \
    --rounds 2 --seconds 2.0 2>&1 | grep -v Warn | tail -3 | tee "$out/sustained.txt"
