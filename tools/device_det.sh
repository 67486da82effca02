#!/usr/bin/env bash
# The deterministic Gluon backward's device call (one GPU): its GPU tests (deterministic cases against the
# oracle, bitwise repeats, the launch cache's replays, the Triton tests whose deterministic calls changed path),
# then tools/det_perf.py (default against deterministic, Gluon and Triton; nothing else on the GPU while it
# times). A hung spin (a turn never reached) would show as the tests' timeout.
#   bash tools/device_det.sh $OUT
set -u
out=${1:-/tmp/out}; mkdir -p "$out"
export PYTHONPATH=src PYTHONUNBUFFERED=1 COLUMNS=160
{
  nvidia-smi -L; python3 -c "import torch, triton; print('torch', torch.__version__, 'triton', triton.__version__)"
  timeout "${TEST_S:-330}" python3 -m pytest -q -n 8 -m gpu tests/gpu/test_gluon_backward_gpu.py \
    tests/gpu/test_launch_cache_gpu.py "tests/gpu/test_triton_gpu.py::test_gpu_fused_backward_changes_no_bit" \
    "tests/gpu/test_triton_gpu.py::test_gpu_default_backward_is_repeatable_within_rounding" \
    -p no:cacheprovider -rf --junitxml="$out/gpu_det.xml" > "$out/gpu_det.txt" 2>&1
  echo "gpu tests: exit $?, $SECONDS s: $(tail -n 1 "$out/gpu_det.txt")"; grep -E "^FAILED|Error" "$out/gpu_det.txt" | head -20
  # hd64's row needs the Gluon backward let in at hd64 (the launcher's default leaves hd64 to the Triton kernels)
  SDPA_BWD_GLUON_BWD_HEAD_DIMS=64,128 timeout "${PERF_S:-200}" python3 tools/det_perf.py --out "$out" > "$out/det_perf.txt" 2>&1
  echo "det_perf: exit $?, $SECONDS s"; cat "$out/det_perf.txt"
} 2>&1 | tee "$out/log.txt"
