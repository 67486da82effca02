#!/usr/bin/env bash
# Stop 29, run 2: GQA's head loop in the Gluon backward (launch.GLUON_BWD_HEAD_LOOP): the Gluon backward's GPU tests
# (the head loop's own among them), then tools/ab_perf.py --table s29 (loop against the fp32 accumulators, cuDNN
# beside, each row interleaved).
#   bash tools/device_s29a.sh $OUT
set -u
out=${1:-/tmp/out}; mkdir -p "$out"
export PYTHONPATH=src PYTHONUNBUFFERED=1
{
  nvidia-smi -L
  timeout "${TEST_S:-220}" python3 -m pytest -q -n 8 -m gpu tests/gpu/test_gluon_backward_gpu.py 2>&1 | tail -n 25
  echo "gluon backward GPU tests: exit ${PIPESTATUS[0]}, $SECONDS s"
  timeout "${AB_S:-300}" python3 tools/ab_perf.py --table s29 --out "$out" --budget "${AB_BUDGET:-260}"
  echo "ab_perf s29: exit $?, $SECONDS s"
} 2>&1 | tee "$out/log.txt"
