#!/usr/bin/env bash
# Stop 37, run 3: where the pair form's time goes, by timing probes of its exchange. Needs the kernel as it ran
# (docs/data/h200-2026-12-03i/run3/kernel_as_run.diff: a $SDPA_BWD_GLUON_192_PAIR_PROBE the landed kernel does not
# read): 1, no exchange (each program reduces its own half only: wrong sums); 2, the sends without the wait; 3, the
# wait without the reads; 0, the whole form. Each against one program each, bf16 causal (tools/ab192.py).
#   bash tools/device_s37b.sh $OUT
set -u
out=${1:-/tmp/out}; mkdir -p "$out"
export PYTHONPATH=src PYTHONUNBUFFERED=1
for m in 1 2 3 0; do
  echo "probe $m"
  SDPA_BWD_GLUON_192_PAIR_PROBE=$m timeout 100 python3 tools/ab192.py --switch gluon_bwd192_pair \
    --only bfloat16:causal --out "$out/p$m" 2>&1 | grep '^{' | python3 -c "
import sys, json
for l in sys.stdin:
    r = json.loads(l)
    keys = ('new_kernels_ms', 'old_kernels_ms', 'new_ms', 'cudnn_ms', 'dq_rel_new_vs_old')
    print(json.dumps({k: r[k] for k in keys}))"
done
