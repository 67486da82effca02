#!/usr/bin/env bash
# Stop 44, run 2: the call with no dK / dV stores (kernel probe no_store: wrong gradients) under sustained load, in a
# process of its own; the default beside cuDNN again; then the GPU test of the fused conversion's dQ dtype rule.
#   bash tools/device_s44b.sh $OUT
set -u
out=${1:-/tmp/out}; mkdir -p "$out"
export PYTHONPATH=src PYTHONUNBUFFERED=1
timeout 120 python3 tools/sustained192.py --out "$out" --kernel-probe no_store --config nostore: \
    --rounds 2 --seconds 1.0 2>&1 | grep -v Warn | tail -2 | tee "$out/sustained_nostore.txt"
timeout 120 python3 tools/sustained192.py --out "$out" --config default: --config cudnn: \
    --rounds 2 --seconds 2.0 2>&1 | grep -v Warn | tail -3 | tee "$out/sustained.txt"
timeout 150 python3 -m pytest -q -m gpu tests/gpu/test_gluon_backward_gpu.py -p no:cacheprovider \
    -k "fused_leaves or (192_case and persist-fused)" 2>&1 | tail -4 | tee "$out/tests.txt"
