#!/usr/bin/env bash
# Stop 46's candidate C for the next stop (no device time was left): deterministic mode at 192 / 128 as the persistent
# Gluon pass's split form (NO_DQ, the switch gluon_bwd192_det_split; on by default since stop 47): dK and dV in the
# pass, dQ by the Triton dQ pass. First its GPU tests (every own-K/V 192 case against the oracle and bitwise at a
# second call; five (1,16,4096) calls bitwise alike); only if they pass, its time against the default, the
# turn-taking form and the Triton path, bf16 then fp16, both masks, with its five calls checked bit for bit (--check).
# Bar: det/default <= 1.15 on the H200.
#   bash tools/device_s46d.sh $OUT
set -u
out=${1:-/tmp/out}; mkdir -p "$out"
export PYTHONPATH=src PYTHONUNBUFFERED=1
timeout 280 python3 -m pytest -q -x -m gpu tests/gpu/test_gluon_backward_gpu.py -p no:cacheprovider \
    -k "split_form" 2>&1 | tail -6 | tee "$out/tests.txt"
if grep -q " passed" "$out/tests.txt" && ! grep -qE "failed|error" "$out/tests.txt"; then
  for dt in bf16 fp16; do
    timeout 150 python3 tools/det_perf.py --shapes 8,9 --split --check det_split --rounds 2 --dtype $dt \
        --out "$out/$dt" 2>&1 | grep -v Warn | tee "$out/det_perf_$dt.txt"
  done
else
  echo "GPU tests did not pass: no timing" | tee -a "$out/tests.txt"
fi
