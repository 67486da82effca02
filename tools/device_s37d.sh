#!/usr/bin/env bash
# Stop 37, runs 5 and 6: the pair form with each tile's dQ half finished under the next tile's first product
# (attention_bwd_gluon_192._pair_send / _pair_finish; run 6 on 16-byte slots): every 192 GPU test in both forms and
# the launch cache's, then the pair form against one program each in alternation (tools/ab192.py).
#   bash tools/device_s37d.sh $OUT
set -u
out=${1:-/tmp/out}; mkdir -p "$out"
export PYTHONPATH=src PYTHONUNBUFFERED=1 COLUMNS=160
{
  timeout 200 python3 -m pytest -q -n 8 -m gpu tests/gpu/test_gluon_backward_gpu.py tests/gpu/test_launch_cache_gpu.py \
    -p no:cacheprovider -k "192 or launch_cache" 2>&1 | tail -n 6
  echo "GPU tests: exit ${PIPESTATUS[0]}, $SECONDS s"
  timeout 200 python3 tools/ab192.py --switch gluon_bwd192_pair --out "$out/ab" 2>&1 | grep '^{' | python3 -c "
import sys, json
for l in sys.stdin:
    r = json.loads(l); print(json.dumps({k: r.get(k) for k in ('dtype', 'causal', 'new_kernels_ms', 'old_kernels_ms',
        'new_ms', 'old_ms_runs', 'cudnn_ms', 'ratio_vs_cudnn_new', 'ratio_vs_cudnn_old', 'dq_rel_new_vs_old')}))"
  echo "ab: $SECONDS s"
} 2>&1 | tee "$out/log.txt"
