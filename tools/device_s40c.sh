#!/usr/bin/env bash
# Stop 40, run 3 (and run 5 through tools/device_s40e.sh): timing probes built from their diffs on the kernel of
# 7f8ee25, each against the working tree's kernel, bf16 causal. PREFIX "no_dq" (run 3): one consumer's dQ product and
# reduce left out (wrong dQ by design); "ahead" (run 5): one consumer's first product issued a tile ahead
# (docs/data/h200-2026-12-03l/forms/PREFIX_c0.diff, PREFIX_c1.diff).
#   bash tools/device_s40c.sh $OUT [PREFIX]
set -u
out=${1:-/tmp/out}; mkdir -p "$out"
prefix=${2:-no_dq}
export PYTHONPATH=src PYTHONUNBUFFERED=1 COLUMNS=160
forms=/tmp/s40forms; mkdir -p $forms
for d in docs/data/h200-2026-12-03l/forms/${prefix}_c?.diff; do
  patch -s -o $forms/$(basename $d .diff).py src/sdpa_bwd/kernels/attention_bwd_gluon_192.py $d
done
{
  for c in c0 c1; do
    mkdir -p "$out/${prefix}_$c"
    timeout 120 python3 tools/ab192.py --new $forms/${prefix}_$c.py \
      --old src/sdpa_bwd/kernels/attention_bwd_gluon_192.py --only bfloat16:causal --out "$out/${prefix}_$c" 2>&1 \
      | grep -v Warn
    echo "${prefix}_$c: $SECONDS s"
  done
} 2>&1 | tee "$out/log.txt"
