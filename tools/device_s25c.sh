#!/usr/bin/env bash
# Stop 25's third device call (one GPU): the Gluon backward's GPU tests with its lse2 / delta rows brought in by
# TMA (attention_bwd_gluon.SIDE_TMA, the default), then ab_perf's s25c table twice, under
# $SDPA_BWD_GLUON_BWD_SIDE_TMA=1 and =0 (an import-time switch: one process each, each against cuDNN), twice over.
#   bash tools/device_s25c.sh $OUT
set -u
out=${1:-/tmp/out}; mkdir -p "$out"
export PYTHONPATH=src PYTHONUNBUFFERED=1 COLUMNS=160
{
  nvidia-smi -L; python3 -c "import torch, triton; print('torch', torch.__version__, 'triton', triton.__version__)"
  timeout "${TEST_S:-200}" python3 -m pytest -q -n 12 -m gpu tests/gpu/test_gluon_backward_gpu.py -p no:cacheprovider \
    -rf --junitxml="$out/gpu.xml" > "$out/gpu.txt" 2>&1
  echo "gpu tests: exit $?, $SECONDS s: $(tail -n 1 "$out/gpu.txt")"; grep -E "^FAILED|Error" "$out/gpu.txt" | head -20
  for round in a b; do
    for side in 1 0; do
      mkdir -p "$out/side$side$round"
      SDPA_BWD_GLUON_BWD_SIDE_TMA=$side timeout 90 python3 tools/ab_perf.py --table s25c --out "$out/side$side$round" \
        --budget 80 > "$out/side$side$round/ab.txt" 2>&1
      echo "side_tma=$side round $round: exit $?, $SECONDS s"; grep -E "bwd|cuDNN" "$out/side$side$round/ab.txt" | cut -c1-110
    done
  done
} 2>&1 | tee "$out/log.txt"
