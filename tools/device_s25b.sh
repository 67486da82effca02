#!/usr/bin/env bash
# Stop 25's second device call (one GPU): both Gluon kernels' GPU tests (the causal start order, hd64 at both
# query tiles, deterministic mode's cases and bitwise repeats), the launch cache's and the Triton tests whose
# deterministic calls changed path; then ab_perf's s25b table (the causal start order), tools/det_perf.py
# (deterministic mode's cost) and the hd64 Gluon kernel's stall profile. A hung turn would show as the tests'
# timeout. Nothing else on the GPU while it times.
#   bash tools/device_s25b.sh $OUT
set -u
out=${1:-/tmp/out}; mkdir -p "$out"
export PYTHONPATH=src PYTHONUNBUFFERED=1 COLUMNS=160
{
  nvidia-smi -L; python3 -c "import torch, triton; print('torch', torch.__version__, 'triton', triton.__version__)"
  timeout "${TEST_S:-240}" python3 -m pytest -q -n 12 -m gpu tests/gpu/test_gluon_backward_gpu.py \
    tests/gpu/test_gluon_forward_gpu.py tests/gpu/test_launch_cache_gpu.py \
    "tests/gpu/test_triton_gpu.py::test_gpu_fused_backward_changes_no_bit" \
    "tests/gpu/test_triton_gpu.py::test_gpu_default_backward_is_repeatable_within_rounding" \
    -p no:cacheprovider -rf --junitxml="$out/gpu.xml" > "$out/gpu.txt" 2>&1
  echo "gpu tests: exit $?, $SECONDS s: $(tail -n 1 "$out/gpu.txt")"; grep -E "^FAILED|Error" "$out/gpu.txt" | head -20
  timeout "${AB_S:-150}" python3 tools/ab_perf.py --table s25b --out "$out" --budget "${BUDGET_S:-130}" > "$out/ab.txt" 2>&1
  echo "ab_perf s25b: exit $?, $SECONDS s"; grep -vE "^\s*$" "$out/ab.txt" | cut -c1-120
  timeout "${PERF_S:-120}" python3 tools/det_perf.py --out "$out" > "$out/det_perf.txt" 2>&1
  echo "det_perf: exit $?, $SECONDS s"; cat "$out/det_perf.txt"
  timeout 100 python3 tools/stall_profile.py --out "$out" --shape 4,16,2048,64 --kernel gluon_bwd
  echo "stall profile: $SECONDS s"
} 2>&1 | tee "$out/log.txt"
