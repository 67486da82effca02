#!/usr/bin/env bash
# Stop 40, run 3: timing probes (wrong dQ by design): the 192 kernel with one consumer's dQ product and reduce left out
# (forms/no_dq_c*.diff in docs/data/h200-2026-12-03l), against the working tree's kernel.
#   bash tools/device_s40c.sh $OUT
set -u
out=${1:-/tmp/out}; mkdir -p "$out"
export PYTHONPATH=src PYTHONUNBUFFERED=1 COLUMNS=160
forms=/tmp/s40forms; mkdir -p $forms
for d in docs/data/h200-2026-12-03l/forms/no_dq_c?.diff; do  # the probe kernels, from their diffs on the kernel
  patch -s -o $forms/$(basename $d .diff).py src/sdpa_bwd/kernels/attention_bwd_gluon_192.py $d  # of 7f8ee25
done
{
  for c in 0 1; do
    mkdir -p "$out/no_dq_c$c"
    timeout 120 python3 tools/ab192.py --new $forms/no_dq_c$c.py --old src/sdpa_bwd/kernels/attention_bwd_gluon_192.py \
      --only bfloat16:causal --out "$out/no_dq_c$c" 2>&1 | grep -v Warn
    echo "no_dq_c$c: $SECONDS s"
  done
} 2>&1 | tee "$out/log.txt"
