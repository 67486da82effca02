#!/usr/bin/env bash
# Stop 34, run 2: the 192 kernel with each consumer's next first product queued before dQ's staging, issued
# unconditionally (run 1's branch made Triton wait for it); the causal start order's head groups; and which
# consumer's dQ reduce costs the time. All at (1,16,4096) BHSD through tools/ab192.py.
#   bash tools/device_s34b.sh $OUT     (_var/ holds the other forms, see docs/data/h200-2026-12-03f/README.md)
set -u
out=${1:-/tmp/out}; mkdir -p "$out"
export PYTHONPATH=src PYTHONUNBUFFERED=1 COLUMNS=160
ab() { local name=$1; shift; timeout 100 python3 tools/ab192.py --out "$out/$name" "$@" | cut -c1-900; echo "$name: $SECONDS s"; }
{
  nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm,temperature.gpu --format=csv,noheader
  timeout 150 python3 -m pytest -q -n 8 -m gpu tests/gpu/test_gluon_backward_gpu.py -p no:cacheprovider \
    -k 192 2>&1 | tail -n 3
  echo "192 GPU tests: exit ${PIPESTATUS[0]}, $SECONDS s"
  ab pipe --old _var/head.py --only bfloat16:causal
  for n in 2 4 16; do ab hg$n --new _var/head.py --switch head_group=$n --only bfloat16:causal; done
  ab c0noreduce --new _var/head.py --old _var/head_c0noreduce.py --only bfloat16:causal
  ab c1noreduce --new _var/head.py --old _var/head_c1noreduce.py --only bfloat16:causal
  ab c1dbl --new _var/head_c1dbl.py --old _var/head.py --only bfloat16:causal
  ab pipe_c1dbl --new _var/pipe_c1dbl.py --old _var/head.py --only bfloat16:causal
} 2>&1 | tee "$out/log.txt"
