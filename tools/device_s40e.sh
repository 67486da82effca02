#!/usr/bin/env bash
# Stop 40, run 5: one consumer's first product issued a tile ahead (consumer 0's dP, or consumer 1's S; stop 39's
# forms/ahead.diff issued both), against the working tree's kernel (docs/data/h200-2026-12-03l/forms/ahead_c*.diff).
#   bash tools/device_s40e.sh $OUT
set -u
out=${1:-/tmp/out}; mkdir -p "$out"
export PYTHONPATH=src PYTHONUNBUFFERED=1 COLUMNS=160
forms=/tmp/s40forms; mkdir -p $forms
for d in docs/data/h200-2026-12-03l/forms/ahead_c?.diff; do  # the probe kernels, from their diffs on the kernel
  patch -s -o $forms/$(basename $d .diff).py src/sdpa_bwd/kernels/attention_bwd_gluon_192.py $d  # of 7f8ee25
done
{
  for c in c0 c1; do
    mkdir -p "$out/ahead_$c"
    timeout 120 python3 tools/ab192.py --new $forms/ahead_$c.py --old src/sdpa_bwd/kernels/attention_bwd_gluon_192.py \
      --only bfloat16:causal --out "$out/ahead_$c" 2>&1 | grep -v Warn
    echo "ahead_$c: $SECONDS s"
  done
} 2>&1 | tee "$out/log.txt"
