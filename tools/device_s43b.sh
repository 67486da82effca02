#!/usr/bin/env bash
# Stop 43, run 2: where the fused conversion's time goes. The call under sustained load (tools/sustained192.py) in the
# default form, the fused one (FUSED_DQ 1), its timing probes (2: the count without the conversion; 3: only the
# bulk wait and barrier a block) and the no-convert probe; then the fused form's GPU tests.
#   bash tools/device_s43b.sh $OUT
set -u
out=${1:-/tmp/out}; mkdir -p "$out"
export PYTHONPATH=src PYTHONUNBUFFERED=1
timeout 200 python3 tools/sustained192.py --out "$out" --config default: --config fused:gluon_bwd192_fused_dq=1 \
    --config count:gluon_bwd192_fused_dq=2 --config wait:gluon_bwd192_fused_dq=3 --config noconv:probe=no_convert \
    --rounds 2 --seconds 2.0 2>&1 | grep -v Warn | tail -6 | tee "$out/sustained.txt"
timeout 200 python3 -m pytest -q -x -m gpu tests/gpu/test_gluon_backward_gpu.py -p no:cacheprovider \
    -k "192 and persist-fused" 2>&1 | tail -15 | tee "$out/tests.txt"
