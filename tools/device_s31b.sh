#!/usr/bin/env bash
# Stop 31's second call: where the 96-key 192 probe's time goes (diagnostic builds: the P^T/dS^T handshake's wait
# out, dQ's reduces out), then deterministic mode's hd64 rows at other start-order head groups and with every
# turn given (tools/det_perf.py --free-turns).
#   bash tools/device_s31b.sh $OUT
set -u
out=${1:-/tmp/out}; mkdir -p "$out"
export PYTHONPATH=src PYTHONUNBUFFERED=1 COLUMNS=160
{
  for d in no_ds_free no_dq_reduce; do
    timeout 120 python3 tools/gluon_bwd192_k96_probe.py --out "$out" --diag $d; echo "probe $d: exit $?, $SECONDS s"
  done
  timeout 200 python3 tools/det_perf.py --out "$out" --rounds 3 --shapes 4,5 --head-groups 1,2,4,16 --free-turns
  echo "det_perf: exit $?, $SECONDS s"
} 2>&1 | tee "$out/log.txt"
