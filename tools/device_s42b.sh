#!/usr/bin/env bash
# Stop 42, run 3: the 128-key kernel's GPU tests, tools/k128_probes.py (causal, non-causal), and a sustained
# comparison with the default and cuDNN (tools/sustained192.py, one round). Run 3 ran it with the kernel as
# docs/data/h200-2026-12-04b/forms/one_do_buffer.diff (dO through one buffer, consumer 0's second dQ chunk staged in
# a buffer of its own; not kept).
#   bash tools/device_s42b.sh $OUT
set -u
out=${1:-/tmp/out}; mkdir -p "$out"
export PYTHONPATH=src PYTHONUNBUFFERED=1
timeout 200 python3 -m pytest -q -x -m gpu tests/gpu/test_gluon_backward_gpu.py -p no:cacheprovider -k "192 and k128" \
    2>&1 | tail -5 | tee "$out/tests.txt"
timeout 200 python3 tools/k128_probes.py --timeout 100 --out "$out" 2>&1 | grep -v Warn | tee "$out/log.txt"
timeout 150 python3 tools/sustained192.py --out "$out" --config default: --config k128:gluon_bwd192_k128=1 \
    --config cudnn: --rounds 1 2>&1 | grep -v Warn | tail -8 | tee "$out/sustained.txt"
