#!/usr/bin/env bash
# Stop 31's first call: the 96-key 192 / 128 probe's first GPU run (small cases against fp32 autograd, then the
# (1,16,4096) timings beside the engine and cuDNN), then the deterministic bar's repeat (tools/det_perf.py).
#   bash tools/device_s31a.sh $OUT
set -u
out=${1:-/tmp/out}; mkdir -p "$out"
export PYTHONPATH=src PYTHONUNBUFFERED=1 COLUMNS=160
{
  nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm,temperature.gpu --format=csv,noheader
  timeout "${PROBE_S:-180}" python3 tools/gluon_bwd192_k96_probe.py --out "$out"; echo "probe: exit $?, $SECONDS s"
  timeout "${DET_S:-240}" python3 tools/det_perf.py --out "$out" --rounds 3; echo "det_perf: exit $?, $SECONDS s"
} 2>&1 | tee "$out/log.txt"
