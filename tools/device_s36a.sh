#!/usr/bin/env bash
# Stop 36, run 1: the hd64 backward's dQ split by rows (attention_bwd_gluon.dq_block: each consumer a 64-row half of
# the 128-row tile over all 64 columns, products of N = 64; launch.GLUON_BWD_DQ_ROWS) against the column halves.
# Every Gluon backward GPU test and the launch cache's on it (on by default; the hd64 tile test runs both splits),
# then the switch on against off in alternation at hd64 (tools/ab192.py).
#   bash tools/device_s36a.sh $OUT
set -u
out=${1:-/tmp/out}; mkdir -p "$out"
export PYTHONPATH=src PYTHONUNBUFFERED=1 COLUMNS=160
{
  nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm,temperature.gpu --format=csv,noheader
  timeout 260 python3 -m pytest -q -n 8 -m gpu tests/gpu/test_gluon_backward_gpu.py tests/gpu/test_launch_cache_gpu.py \
    -p no:cacheprovider 2>&1 | tail -n 15
  echo "GPU tests: exit ${PIPESTATUS[0]}, $SECONDS s"
  timeout "${AB_S:-240}" python3 tools/ab192.py --switch gluon_bwd_dq_rows --shape 1,32,8,8192,64,64 \
    --shape 4,16,16,2048,64,64 --out "$out/ab" | cut -c1-1200
  echo "ab: $SECONDS s"
} 2>&1 | tee "$out/log.txt"
