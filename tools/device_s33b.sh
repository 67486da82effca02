#!/usr/bin/env bash
# Stop 33's second call: the 192 / 128 kernel key-major (S^T, dP^T: K, V, P^T and dS^T as register A operands) on its
# GPU tests, then its A/B against run 1's form (tools/ab192.py, ./old192.py = git show cba9252:<the kernel>).
#   bash tools/device_s33b.sh $OUT
set -u
out=${1:-/tmp/out}; mkdir -p "$out/ab"
export PYTHONPATH=src PYTHONUNBUFFERED=1 COLUMNS=160
{
  nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm,temperature.gpu --format=csv,noheader
  timeout "${TEST_S:-150}" python3 -m pytest -q -n 8 -m gpu tests/gpu/test_gluon_backward_gpu.py -p no:cacheprovider \
    -k 192 2>&1 | tail -n 12
  echo "192 GPU tests: exit ${PIPESTATUS[0]}, $SECONDS s"
  timeout "${AB_S:-200}" python3 tools/ab192.py --old old192.py --out "$out/ab" 2>&1 | grep -v Warn | tail -n 12
  echo "ab192: exit ${PIPESTATUS[0]}, $SECONDS s"
} 2>&1 | tee "$out/log.txt"
