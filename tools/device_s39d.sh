#!/usr/bin/env bash
# Stop 39, run 4: three stages with each tile's first product issued a tile ahead (AHEAD: the working tree as run, the
# landed kernel plus docs/data/h200-2026-12-03k/forms/ahead.diff), against three stages alone (run 3's kernel, which
# landed: copy its src/sdpa_bwd/kernels/attention_bwd_gluon_192.py to the path below first), both under
# SDPA_BWD_GLUON_BWD192_THREE_STAGES=1; the GPU tests first (every 192 case in each form).
#   bash tools/device_s39d.sh $OUT
set -u
out=${1:-/tmp/out}; mkdir -p "$out"
export PYTHONPATH=src PYTHONUNBUFFERED=1 COLUMNS=160 SDPA_BWD_GLUON_BWD192_THREE_STAGES=1
{
  timeout 240 python3 -m pytest -q -n 8 -m gpu tests/gpu/test_gluon_backward_gpu.py -p no:cacheprovider -k "192" \
    -x 2>&1 | tail -n 4
  echo "GPU tests: exit ${PIPESTATUS[0]}, $SECONDS s"
  timeout 250 python3 tools/ab192.py --old docs/data/h200-2026-12-03k/forms/three_stages.py --out "$out/ab" \
    > "$out/ab.log" 2>&1
  echo "ab: exit $?, $SECONDS s"
  python3 - "$out/ab/ab192.json" <<'PY'
import json, sys
for r in json.load(open(sys.argv[1])):
    print(r["dtype"], "causal" if r["causal"] else "nc", "kernel new/old",
          round(r["new_kernels_ms"]["attention_bwd_gluon_192_kernel"], 4),
          round(r["old_kernels_ms"]["attention_bwd_gluon_192_kernel"], 4), "vs cuDNN new/old",
          round(r["ratio_vs_cudnn_new"], 4), round(r["ratio_vs_cudnn_old"], 4), "dq new-old", r["dq_rel_new_vs_old"])
PY
} 2>&1 | tee "$out/log.txt"
