#!/usr/bin/env bash
# Stop 41, run 3: the 192 / 128 causal call's time over 3 s of load, ours and cuDNN's, with the SM clock, the
# throttle reasons and the energy a call takes; the card's power settings first.
#   bash tools/device_s41c.sh $OUT
set -u
out=${1:-/tmp/out}; mkdir -p "$out"
export PYTHONPATH=src PYTHONUNBUFFERED=1
{
  nvidia-smi -q -d POWER,CLOCK | grep -v "^$" | head -60
  python3 -c "import pynvml" 2>&1 && echo "pynvml: yes"
  timeout 200 python3 tools/clock_trace192.py --out "$out" 2>&1 | grep -v Warn
} 2>&1 | tee "$out/log.txt"
