#!/usr/bin/env bash
# Stop 28, run 1: deterministic mode's dQ writers (one warp a consumer takes the turn and issues the reduce; the
# tiles from the last down, ascending key blocks, grouped start order): the Gluon backward's GPU tests, then
# tools/det_perf.py with head groups 8 (the launcher's), 16 and 32.
#   bash tools/device_s28a.sh $OUT
set -u
out=${1:-/tmp/out}; mkdir -p "$out"
export PYTHONPATH=src PYTHONUNBUFFERED=1
{
  nvidia-smi -L
  timeout "${TEST_S:-200}" python3 -m pytest -q -x -n 8 -m gpu tests/gpu/test_gluon_backward_gpu.py 2>&1 | tail -n 25
  echo "gluon backward GPU tests: exit ${PIPESTATUS[0]}, $SECONDS s"
  timeout "${DET_S:-300}" python3 tools/det_perf.py --out "$out" --rounds 3 --head-groups "${GROUPS_:-16,32}"
  echo "det_perf: exit $?, $SECONDS s"
} 2>&1 | tee "$out/log.txt"
