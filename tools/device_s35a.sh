#!/usr/bin/env bash
# Stop 35, run 1: GLUON_PDL (ODO zeroes the dQ accumulator, the kernel and DQ_CONVERT launched as programmatic
# dependents) carried from the 192 / 128 kernel to the hd64 / hd128 Gluon backward. Every Gluon backward GPU test
# and the launch cache's on it (on by default), then the switch on against off in alternation (tools/ab192.py).
#   bash tools/device_s35a.sh $OUT
set -u
out=${1:-/tmp/out}; mkdir -p "$out"
export PYTHONPATH=src PYTHONUNBUFFERED=1 COLUMNS=160
{
  nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm,temperature.gpu --format=csv,noheader
  timeout 240 python3 -m pytest -q -n 8 -m gpu tests/gpu/test_gluon_backward_gpu.py tests/gpu/test_launch_cache_gpu.py \
    -p no:cacheprovider 2>&1 | tail -n 15
  echo "GPU tests: exit ${PIPESTATUS[0]}, $SECONDS s"
  timeout "${AB_S:-320}" python3 tools/ab192.py --switch gluon_pdl --shape 4,16,16,2048,64,64 \
    --shape 1,32,8,8192,64,64 --shape 2,16,16,4096,128,128 --out "$out/ab" | cut -c1-1200
  echo "ab: $SECONDS s"
} 2>&1 | tee "$out/log.txt"
