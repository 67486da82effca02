#!/usr/bin/env bash
# Stop 41, run 4: the 192 / 128 causal call under sustained load (time and energy a call) in the launcher's form,
# with head groups of 4 and 2, in the single form, and cuDNN's.
#   bash tools/device_s41d.sh $OUT
set -u
out=${1:-/tmp/out}; mkdir -p "$out"
export PYTHONPATH=src PYTHONUNBUFFERED=1
timeout 500 python3 tools/sustained192.py --out "$out" --config default: --config hg4:head_group=4 \
  --config hg2:head_group=2 --config single:gluon_bwd192_persist=0 --config cudnn: 2>&1 | grep -v Warn \
  | tee "$out/log.txt"
