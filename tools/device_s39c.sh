#!/usr/bin/env bash
# Stop 39, run 3: the 192 / 128 kernel with three Q / dO stages and one P / dS buffer (STAGES = 3). Its GPU tests (every
# 192 case in each form, three stages wherever a form takes them), then three stages against two (tools/ab192.py).
#   bash tools/device_s39c.sh $OUT
set -u
out=${1:-/tmp/out}; mkdir -p "$out"
export PYTHONPATH=src PYTHONUNBUFFERED=1 COLUMNS=160
{
  SDPA_BWD_GLUON_BWD192_THREE_STAGES=1 timeout 240 python3 -m pytest -q -n 8 -m gpu \
    tests/gpu/test_gluon_backward_gpu.py -p no:cacheprovider -k "192" -x 2>&1 | tail -n 15
  echo "GPU tests: exit ${PIPESTATUS[0]}, $SECONDS s"
  timeout 250 python3 tools/ab192.py --switch gluon_bwd192_three_stages --out "$out/ab" > "$out/ab.log" 2>&1
  echo "ab: exit $?, $SECONDS s"; tail -n 8 "$out/ab.log" | cut -c1-600
} 2>&1 | tee "$out/log.txt"
