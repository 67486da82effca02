#!/usr/bin/env bash
# Stop 37, run 4: the pair form with asynchronous remote stores (st.async, complete_tx on the partner's mbarrier):
# the 192 GPU tests in the pair form, the sends alone (probe 2) and the whole form against one program each. Needs the
# kernel as it ran (docs/data/h200-2026-12-03i/run4/kernel_as_run.diff, with run 3's probe).
#   bash tools/device_s37c.sh $OUT
set -u
out=${1:-/tmp/out}; mkdir -p "$out"
export PYTHONPATH=src PYTHONUNBUFFERED=1 COLUMNS=160
{
  timeout 150 python3 -m pytest -q -n 8 -m gpu tests/gpu/test_gluon_backward_gpu.py -p no:cacheprovider \
    -k "192 and (pairs or replay)" 2>&1 | tail -n 6
  echo "GPU tests: exit ${PIPESTATUS[0]}, $SECONDS s"
  for m in 2 0; do
    echo "probe $m"
    SDPA_BWD_GLUON_192_PAIR_PROBE=$m timeout 150 python3 tools/ab192.py --switch gluon_bwd192_pair \
      $([ $m = 2 ] && echo --only bfloat16:causal) --out "$out/p$m" 2>&1 | grep '^{' | python3 -c "
import sys, json
for l in sys.stdin:
    r = json.loads(l)
    print(json.dumps({k: r.get(k) for k in ('dtype', 'causal', 'new_kernels_ms', 'old_kernels_ms', 'new_ms',
                                           'old_ms_runs', 'cudnn_ms', 'dq_rel_new_vs_old')}))"
  done
  echo "ab: $SECONDS s"
} 2>&1 | tee "$out/log.txt"
