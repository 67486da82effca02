#!/usr/bin/env bash
# Stop 27, run 1's follow-up (one GPU): the Gluon backward with host-made descriptors. Its GPU tests and the
# launch cache's (replays rebuild the descriptors), the phase stamps at hd64 and hd128 without the mask, and the
# BHSD bf16 rows of the backward benchmark against cuDNN.
#   bash tools/device_s27a.sh $OUT
set -u
out=${1:-/tmp/out}; mkdir -p "$out/nc" "$out/b"
export PYTHONPATH=src PYTHONUNBUFFERED=1 COLUMNS=160
{
  nvidia-smi -L; python3 -c "import torch, triton; print('torch', torch.__version__, 'triton', triton.__version__)"
  timeout "${TEST_S:-200}" python3 -m pytest -q -n 12 -m gpu tests/gpu/test_gluon_backward_gpu.py \
    tests/gpu/test_launch_cache_gpu.py -p no:cacheprovider -rf > "$out/gpu.txt" 2>&1
  echo "gpu tests: exit $?, $SECONDS s: $(tail -n 1 "$out/gpu.txt")"; grep -E "^FAILED|Error" "$out/gpu.txt" | head -20
  timeout 90 python3 tools/phase_stamps.py --out "$out/nc" --shape 4,16,2048,2048,64 --shape 2,16,4096,4096,128
  timeout "${BENCH_S:-120}" python3 benchmarks/bench_backward.py --peers cudnn --no-split --no-det --no-mem \
    --layouts bhsd --dtypes bf16 --out "$out/b" > "$out/b/bench_backward.txt" 2>&1
  echo "bench_backward: exit $?, $SECONDS s"; grep -E "ratio|geomean|^ *\(" "$out/b/bench_backward.txt" | cut -c1-160 | tail -n 30
} 2>&1 | tee "$out/log.txt"
