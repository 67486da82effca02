#!/usr/bin/env bash
# Stop 31's second call (device time short; the default forms' SASS is stop 30's, so its plan and benchmark stand):
# deterministic mode's causal rows in both orders of the dQ turns (det_perf --orders: det = the launcher's, the
# walk down by default; det_down = stop 28's walk down; det_up = the walk up at hd64 and hd128); the deterministic
# GPU tests (both orders); then the 96-key 192 probe's diagnostic builds (the handshake's wait out, dQ's reduces
# out: where its time goes).
#   bash tools/device_s31c.sh $OUT
set -u
out=${1:-/tmp/out}; mkdir -p "$out"
export PYTHONPATH=src PYTHONUNBUFFERED=1 COLUMNS=160
{
  nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm,temperature.gpu --format=csv,noheader
  timeout 150 python3 tools/det_perf.py --out "$out" --rounds 3 --shapes 1,3,5,7 --orders
  echo "det_perf: exit $?, $SECONDS s"
  timeout "${TEST_S:-150}" python3 -m pytest -q -n 8 -m gpu tests/gpu/test_gluon_backward_gpu.py -p no:cacheprovider \
    -k "deterministic or det" 2>&1 | tail -n 8
  echo "deterministic GPU tests: exit ${PIPESTATUS[0]}, $SECONDS s"
  for d in ${DIAGS-no_ds_free no_dq_reduce}; do
    timeout 90 python3 tools/gluon_bwd192_k96_probe.py --out "$out" --diag $d; echo "probe $d: exit $?, $SECONDS s"
  done
} 2>&1 | tee "$out/log.txt"
