#!/usr/bin/env bash
# Stop 45, run 2 (prepared; the stop had no device): deterministic mode at 192 / 128 in the persistent Gluon pass
# (DET, the switch gluon_bwd192_deterministic, off by default). First its GPU tests (every own-K/V 192 case against
# the oracle and bitwise at a second call, and five calls at (1,16,4096) bitwise the same); only if they pass, its
# time against the default and the Triton kernels' deterministic path, bf16 with every turn given at once too
# (det_free: the writers' cost without waits) and in head groups of 1 and 16 beside the launcher's 8 (fp16: the
# benchmark's rows).
#   bash tools/device_s45b.sh $OUT
set -u
out=${1:-/tmp/out}; mkdir -p "$out"
export PYTHONPATH=src PYTHONUNBUFFERED=1
timeout 280 python3 -m pytest -q -x -m gpu tests/gpu/test_gluon_backward_gpu.py -p no:cacheprovider \
    -k "192_deterministic" 2>&1 | tail -6 | tee "$out/tests.txt"
if grep -q " passed" "$out/tests.txt" && ! grep -qE "failed|error" "$out/tests.txt"; then
  timeout 240 python3 tools/det_perf.py --shapes 8,9 --free-turns --head-groups 1,16 --rounds 3 --out "$out/bf16" 2>&1 \
      | grep -v Warn | tee "$out/det_perf_bf16.txt"
else
  echo "GPU tests did not pass: no timing" | tee -a "$out/tests.txt"
fi
