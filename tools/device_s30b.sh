#!/usr/bin/env bash
# Stop 30's second call: where the 192 / 128 Gluon backward's time goes (tools/bwd192_bound.py, as launched and
# with the dQ reduces compiled out), then every Gluon backward GPU test (the hd64 / hd128 kernel's too).
#   bash tools/device_s30b.sh $OUT
set -u
out=${1:-/tmp/out}; mkdir -p "$out"
export PYTHONPATH=src PYTHONUNBUFFERED=1 COLUMNS=160
{
  timeout 120 python3 tools/bwd192_bound.py --out "$out"; echo "bound: exit $?, $SECONDS s"
  timeout 120 python3 tools/bwd192_bound.py --out "$out" --no-dq-reduce; echo "bound (no dQ reduce): exit $?, $SECONDS s"
  timeout "${GLUON_S:-200}" python3 -m pytest -q -n 8 -m gpu tests/gpu/test_gluon_backward_gpu.py -p no:cacheprovider \
    2>&1 | tail -n 8
  echo "Gluon backward GPU tests: exit ${PIPESTATUS[0]}, $SECONDS s"
} 2>&1 | tee "$out/log.txt"
