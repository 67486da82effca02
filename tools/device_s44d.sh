#!/usr/bin/env bash
# Stop 44, run 4: the persistent 192 / 128 pass storing dK and dV by bulk copies (gluon_bwd192_tma_epilogue, on)
# against pointer stores and cuDNN under sustained load; the persistent forms' GPU tests (bulk copies, pointer stores,
# fused conversion; replays); the benchmark's 192 rows.
#   bash tools/device_s44d.sh $OUT
set -u
out=${1:-/tmp/out}; mkdir -p "$out"
export PYTHONPATH=src PYTHONUNBUFFERED=1
timeout 150 python3 tools/sustained192.py --out "$out" --config tma: --config ptr:gluon_bwd192_tma_epilogue=0 \
    --config cudnn: --rounds 2 --seconds 2.0 2>&1 | grep -v Warn | tail -4 | tee "$out/sustained.txt"
timeout 240 python3 -m pytest -q -m gpu tests/gpu/test_gluon_backward_gpu.py -p no:cacheprovider \
    -k "192 and (persist or fused_leaves)" 2>&1 | tail -6 | tee "$out/tests.txt"
timeout 200 python3 benchmarks/bench_backward.py --peers cudnn --no-split --rows D192 --out "$out" 2>&1 \
    | grep -v Warn | tail -14 | tee "$out/bench.txt"
