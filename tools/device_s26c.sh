#!/usr/bin/env bash
# Stop 26's device script (one GPU; run 5, and run 2's GPU tests): the Gluon backward's GPU tests, then
# tools/program_cost.py (a program's fixed cost against a tile's), then ab_perf's s26 table.
#   bash tools/device_s26c.sh $OUT
set -u
out=${1:-/tmp/out}; mkdir -p "$out/ab"
export PYTHONPATH=src PYTHONUNBUFFERED=1 COLUMNS=160
{
  nvidia-smi -L; python3 -c "import torch, triton; print('torch', torch.__version__, 'triton', triton.__version__)"
  timeout "${TEST_S:-200}" python3 -m pytest -q -n 12 -m gpu tests/gpu/test_gluon_backward_gpu.py \
    tests/gpu/test_launch_cache_gpu.py -p no:cacheprovider -rf --junitxml="$out/gpu.xml" > "$out/gpu.txt" 2>&1
  echo "gpu tests: exit $?, $SECONDS s: $(tail -n 1 "$out/gpu.txt")"; grep -E "^FAILED" "$out/gpu.txt" | head -20
  timeout 150 python3 tools/program_cost.py --out "$out" 2>&1 | grep -E "^D " | cut -c1-200
  timeout "${AB_S:-200}" python3 tools/ab_perf.py --table s26 --out "$out/ab" --budget 190 > "$out/ab/ab.txt" 2>&1
  echo "ab_perf s26: exit $?, $SECONDS s"; grep -E "bwd|fwd|cuDNN" "$out/ab/ab.txt" | cut -c1-100
} 2>&1 | tee "$out/log.txt"
