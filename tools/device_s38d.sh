#!/usr/bin/env bash
# Stop 38, run 6: the dS exchange with dQ's columns spread over both consumers of rank 0 (0-63 and 64-127, all of
# dK in consumer 0) and rank 1's consumer 1 (128-191). Its GPU tests only, then the A/B (tools/ab192.py).
#   bash tools/device_s38d.sh $OUT
set -u
out=${1:-/tmp/out}; mkdir -p "$out"
export PYTHONPATH=src PYTHONUNBUFFERED=1 COLUMNS=160
{
  timeout 150 python3 -m pytest -q -n 8 -m gpu tests/gpu/test_gluon_backward_gpu.py -p no:cacheprovider \
    -k "192 and share" 2>&1 | tail -n 25
  echo "GPU tests: exit ${PIPESTATUS[0]}, $SECONDS s"
  timeout 150 python3 tools/ab192.py --switch gluon_bwd192_share_ds --out "$out/ab" > "$out/ab.log" 2>&1
  echo "ab: exit $?, $SECONDS s"; grep -o '"dtype": "[a-z0-9]*", "causal": [a-z]*\|"attention_bwd_gluon_192_kernel": [0-9.]*\|"ratio_vs_cudnn_[a-z]*": [0-9.]*\|"dq_rel_new_vs_old": [0-9.e-]*' "$out/ab.log"
} 2>&1 | tee "$out/log.txt"
