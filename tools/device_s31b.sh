#!/usr/bin/env bash
# Stop 31's second call: where the 96-key 192 probe's time goes (diagnostic builds: the P^T/dS^T handshake's wait
# out, dQ's reduces out); deterministic mode's causal rows in both orders of the dQ turns (det_perf --orders:
# det = the launcher's, det_down = stop 28's walk down, det_up = the walk up everywhere) and with every turn given
# (--free-turns); then the deterministic GPU tests (the walk up is the launcher's default under the mask).
#   bash tools/device_s31b.sh $OUT
set -u
out=${1:-/tmp/out}; mkdir -p "$out"
export PYTHONPATH=src PYTHONUNBUFFERED=1 COLUMNS=160
{
  nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm,temperature.gpu --format=csv,noheader
  for d in no_ds_free no_dq_reduce; do
    timeout 100 python3 tools/gluon_bwd192_k96_probe.py --out "$out" --diag $d; echo "probe $d: exit $?, $SECONDS s"
  done
  timeout 200 python3 tools/det_perf.py --out "$out" --rounds 3 --shapes 1,3,5,7 --orders --free-turns
  echo "det_perf: exit $?, $SECONDS s"
  timeout "${TEST_S:-200}" python3 -m pytest -q -n 8 -m gpu tests/gpu/test_gluon_backward_gpu.py -p no:cacheprovider \
    -k "deterministic or det" 2>&1 | tail -n 8
  echo "deterministic GPU tests: exit ${PIPESTATUS[0]}, $SECONDS s"
} 2>&1 | tee "$out/log.txt"
