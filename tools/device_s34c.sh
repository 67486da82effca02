#!/usr/bin/env bash
# Stop 34, run 3: where dQ's bulk reduce costs the 192 kernel its time (diagnostic forms, wrong dQ by design):
# without the wait for the last reduce's read (both consumers, consumer 0 only), without the staging store
# (the reduce kept), without either. (1,16,4096) BHSD bf16 causal, through tools/ab192.py against HEAD's kernel.
#   bash tools/device_s34c.sh $OUT     (_var/ holds the forms, see docs/data/h200-2026-12-03f/README.md)
set -u
out=${1:-/tmp/out}; mkdir -p "$out"
export PYTHONPATH=src PYTHONUNBUFFERED=1 COLUMNS=160
ab() { local name=$1; shift; timeout 100 python3 tools/ab192.py --out "$out/$name" "$@" | cut -c1-500; echo "$name: $SECONDS s"; }
{
  nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm,temperature.gpu --format=csv,noheader
  for v in d_nowait d_nowait_c0 d_nostore d_nostore_noreduce; do
    ab $v --new _var/head.py --old _var/$v.py --only bfloat16:causal
  done
} 2>&1 | tee "$out/log.txt"
