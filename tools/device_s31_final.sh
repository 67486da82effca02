#!/usr/bin/env bash
# Stop 31's claim, after the plan's call (tools/device_levels.sh): the backward benchmark against cuDNN on every
# row (deterministic rows under the causal mask now in the walk-up order), then the Gluon backward GPU tests other
# than the deterministic ones (those ran in run 2 on this code), then, time left, the 96-key 192 probe's
# diagnostic builds (where its time goes).
#   bash tools/device_s31_final.sh $OUT
set -u
out=${1:-/tmp/out}; mkdir -p "$out/b"
export PYTHONPATH=src PYTHONUNBUFFERED=1 COLUMNS=160
{
  nvidia-smi -L; python3 -c "import torch, triton; print('torch', torch.__version__, 'triton', triton.__version__)"
  timeout "${BENCH_S:-300}" python3 benchmarks/bench_backward.py --peers cudnn --no-split --out "$out/b" \
    > "$out/b/bench_backward.txt" 2>&1
  echo "bench_backward: exit $?, $SECONDS s"
  grep -iE "geomean|worst|max_|min_" "$out/b/bench_backward.txt" | tail -n 20
  timeout "${TEST_S:-200}" python3 -m pytest -q -n 8 -m gpu tests/gpu/test_gluon_backward_gpu.py -p no:cacheprovider \
    -k "not deterministic and not det" 2>&1 | tail -n 8
  echo "Gluon backward GPU tests (not deterministic): exit ${PIPESTATUS[0]}, $SECONDS s"
  for d in ${DIAGS:-}; do
    timeout 100 python3 tools/gluon_bwd192_k96_probe.py --out "$out" --diag $d; echo "probe $d: exit $?, $SECONDS s"
  done
} 2>&1 | tee "$out/log.txt"
