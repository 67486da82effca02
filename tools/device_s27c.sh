#!/usr/bin/env bash
# Stop 27 run 6, deterministic mode's dQ chains (one GPU): the Gluon backward's GPU tests, then
# tools/det_perf.py with 1, 4 and 8 chains against the default mode and the Triton kernels' deterministic path.
# It ran on the chains patch (docs/data/h200-2026-12-02e/run6/chains.diff: git apply it first), which did not
# land (chains slowed the causal rows, docs/perf-log.md "Stop 27"); without it det_perf.py has no --chains.
#   git apply docs/data/h200-2026-12-02e/run6/chains.diff && bash tools/device_s27c.sh $OUT
set -u
out=${1:-/tmp/out}; mkdir -p "$out/det"
export PYTHONPATH=src PYTHONUNBUFFERED=1 COLUMNS=160
{
  nvidia-smi -L; python3 -c "import torch, triton; print('torch', torch.__version__, 'triton', triton.__version__)"
  timeout "${TEST_S:-150}" python3 -m pytest -q -n 12 -m gpu tests/gpu/test_gluon_backward_gpu.py \
    -p no:cacheprovider -rf > "$out/gpu.txt" 2>&1
  echo "gpu tests: exit $?, $SECONDS s: $(tail -n 1 "$out/gpu.txt")"; grep -E "^FAILED|Error" "$out/gpu.txt" | head -20
  timeout "${DET_S:-200}" python3 tools/det_perf.py --out "$out/det" --rounds 2 --chains 1,4,8
  echo "det_perf: exit $?, $SECONDS s"
} 2>&1 | tee "$out/log.txt"
