#!/usr/bin/env bash
# Stop 25, the experiment call (one GPU): both Gluon kernels' GPU tests (hd64 at both query tiles, the causal start order),
# then an ab_perf table (TABLE=s25: hd64 in Gluon with 128-row query tiles against 64-row ones and the Triton kernels;
# s25b: the causal start order), beside cuDNN, nothing else on the GPU while it times.
set -u
out=${1:-/tmp/out}; mkdir -p "$out"
export PYTHONPATH=src PYTHONUNBUFFERED=1 COLUMNS=160
{
  nvidia-smi -L; python3 -c "import torch, triton; print('torch', torch.__version__, 'triton', triton.__version__)"
  timeout "${TEST_S:-240}" python3 -m pytest -q -n 8 -m gpu ${TESTS:-tests/gpu/test_gluon_backward_gpu.py tests/gpu/test_gluon_forward_gpu.py} -p no:cacheprovider \
    -rf > "$out/gpu_gluon.txt" 2>&1
  echo "gluon gpu tests: exit $?, $SECONDS s: $(tail -n 1 "$out/gpu_gluon.txt")"; grep -E "^FAILED|Error" "$out/gpu_gluon.txt" | head -20
  timeout "${AB_S:-300}" python3 tools/ab_perf.py --table "${TABLE:-s25}" --out "$out" --budget "${BUDGET_S:-280}" > "$out/ab.txt" 2>&1
  echo "ab_perf ${TABLE:-s25}: exit $?, $SECONDS s"; grep -vE "^\s*$" "$out/ab.txt" | cut -c1-150
} 2>&1 | tee "$out/log.txt"
