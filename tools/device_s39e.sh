#!/usr/bin/env bash
# Stop 39, run 5: three stages on by default. The persistent form and head groups of 4 against it (tools/ab192.py, bf16
# causal), then the backward benchmark's 192 / 128 rows against cuDNN.
#   bash tools/device_s39e.sh $OUT
set -u
out=${1:-/tmp/out}; mkdir -p "$out"
export PYTHONPATH=src PYTHONUNBUFFERED=1 COLUMNS=160
summary() {
  python3 - "$1" <<'PY'
import json, sys
for r in json.load(open(sys.argv[1])):
    print(r["dtype"], "causal" if r["causal"] else "nc", "kernel new/old",
          round(r["new_kernels_ms"]["attention_bwd_gluon_192_kernel"], 4),
          round(r["old_kernels_ms"]["attention_bwd_gluon_192_kernel"], 4), "vs cuDNN new/old",
          round(r["ratio_vs_cudnn_new"], 4), round(r["ratio_vs_cudnn_old"], 4))
PY
}
{
  timeout 120 python3 tools/ab192.py --switch gluon_bwd192_persist --only bfloat16:causal --out "$out/ab_persist" \
    > "$out/ab_persist.log" 2>&1
  echo "ab persist: exit $?, $SECONDS s"; summary "$out/ab_persist/ab192.json"
  timeout 120 python3 tools/ab192.py --switch head_group=4 --only bfloat16:causal --out "$out/ab_hg4" \
    > "$out/ab_hg4.log" 2>&1
  echo "ab head_group=4: exit $?, $SECONDS s"; summary "$out/ab_hg4/ab192.json"
  timeout 200 python3 benchmarks/bench_backward.py --peers cudnn --no-split --rows D192 --out "$out/b" 2>&1 | tail -n 24
  echo "bench: $SECONDS s"
} 2>&1 | tee "$out/log.txt"
