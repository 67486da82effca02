#!/usr/bin/env bash
# Stop 38, run 2: the 192 kernel's persistent form (PERSIST). Its GPU tests (every 192 case in each form, the replay
# test), then the persistent form against one program a block (tools/ab192.py), then program_cost's fit with it on.
#   bash tools/device_s38b.sh $OUT
set -u
out=${1:-/tmp/out}; mkdir -p "$out"
export PYTHONPATH=src PYTHONUNBUFFERED=1 COLUMNS=160
{
  timeout 240 python3 -m pytest -q -n 8 -m gpu tests/gpu/test_gluon_backward_gpu.py -p no:cacheprovider -k "192" \
    -x 2>&1 | tail -n 25
  echo "GPU tests: exit ${PIPESTATUS[0]}, $SECONDS s"
  timeout 200 python3 tools/ab192.py --switch gluon_bwd192_persist --out "$out/ab" > "$out/ab.log" 2>&1
  echo "ab: exit $?, $SECONDS s"; tail -n 8 "$out/ab.log"
  SDPA_BWD_GLUON_BWD192_PERSIST=1 timeout 120 python3 tools/program_cost.py --d 192 --out "$out/pc" 2>&1 | grep -v Warn
  echo "program_cost: $SECONDS s"
} 2>&1 | tee "$out/log.txt"
