#!/usr/bin/env bash
# Stop 29's last call: every GPU test on the landing code (the Gluon backward's, GQA's head loop among them, then
# the rest). The default mode's machine code is stop 28's (normalized SASS of its forms unchanged), so its benchmark
# (benchmarks/results/bench_backward.json) and this stop's plan run (run 1) stand for it.
#   bash tools/device_s29_final.sh $OUT
set -u
out=${1:-/tmp/out}; mkdir -p "$out"
export PYTHONPATH=src PYTHONUNBUFFERED=1 COLUMNS=160
{
  nvidia-smi -L; python3 -c "import torch, triton; print('torch', torch.__version__, 'triton', triton.__version__)"
  timeout "${GLUON_S:-150}" python3 -m pytest -q -n 8 -m gpu tests/gpu/test_gluon_backward_gpu.py -p no:cacheprovider \
    2>&1 | tail -n 8
  echo "Gluon backward GPU tests: exit ${PIPESTATUS[0]}, $SECONDS s"
  timeout "${TEST_S:-200}" python3 -m pytest -q -n 12 -m gpu tests/gpu -p no:cacheprovider \
    --ignore=tests/gpu/test_gluon_backward_gpu.py 2>&1 | tail -n 8
  echo "other GPU tests: exit ${PIPESTATUS[0]}, $SECONDS s"
} 2>&1 | tee "$out/log.txt"
