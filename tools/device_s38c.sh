#!/usr/bin/env bash
# Stop 38, runs 3-4: the 192 kernel's dS exchange (SHARE_DS). A smoke case first, then its GPU tests (every 192 case
# in each form, the replay test in each), then the dS exchange against one program a block (tools/ab192.py).
#   bash tools/device_s38c.sh $OUT
set -u
out=${1:-/tmp/out}; mkdir -p "$out"
export PYTHONPATH=src PYTHONUNBUFFERED=1 COLUMNS=160
{
  timeout 120 python3 -m pytest -q -m gpu tests/gpu/test_gluon_backward_gpu.py -p no:cacheprovider \
    -k "192_case and share and 480" -x 2>&1 | tail -n 25
  echo "smoke: exit ${PIPESTATUS[0]}, $SECONDS s"
  timeout 200 python3 -m pytest -q -n 8 -m gpu tests/gpu/test_gluon_backward_gpu.py -p no:cacheprovider -k "192" \
    2>&1 | tail -n 25
  echo "GPU tests: exit ${PIPESTATUS[0]}, $SECONDS s"
  timeout 200 python3 tools/ab192.py --switch gluon_bwd192_share_ds --out "$out/ab" > "$out/ab.log" 2>&1
  echo "ab: exit $?, $SECONDS s"; grep -o '"dtype": "[a-z0-9]*", "causal": [a-z]*\|"attention_bwd_gluon_192_kernel": [0-9.]*\|"ratio_vs_cudnn_[a-z]*": [0-9.]*\|"dq_rel_new_vs_old": [0-9.e-]*' "$out/ab.log"
} 2>&1 | tee "$out/log.txt"
