#!/usr/bin/env bash
# Stop 33's first call: the 192 / 128 kernel with S and dP split between the consumers (N = 64 products) on its GPU
# tests, then its A/B against stop 32's form (tools/ab192.py, ./old192.py = git show 4939d74:<the kernel>), then the
# forward benchmark on the new warm-up (its JSON of record predates it).
#   bash tools/device_s33a.sh $OUT
set -u
out=${1:-/tmp/out}; mkdir -p "$out/ab" "$out/f"
export PYTHONPATH=src PYTHONUNBUFFERED=1 COLUMNS=160
{
  nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm,temperature.gpu --format=csv,noheader
  python3 -c "import torch, triton; print('torch', torch.__version__, 'triton', triton.__version__)"
  timeout "${TEST_S:-150}" python3 -m pytest -q -n 8 -m gpu tests/gpu/test_gluon_backward_gpu.py -p no:cacheprovider \
    -k 192 2>&1 | tail -n 12
  echo "192 GPU tests: exit ${PIPESTATUS[0]}, $SECONDS s"
  timeout "${AB_S:-200}" python3 tools/ab192.py --old old192.py --out "$out/ab" 2>&1 | tail -n 12
  echo "ab192: exit ${PIPESTATUS[0]}, $SECONDS s"
  if [ "${FWD:-1}" = 1 ]; then
    timeout "${FWD_S:-220}" python3 benchmarks/bench_forward.py --peers cudnn --out "$out/f" \
      > "$out/f/bench_forward.txt" 2>&1
    echo "bench_forward: exit $?, $SECONDS s"
    grep -iE "geomean|worst|max_|min_" "$out/f/bench_forward.txt" | tail -n 20
  fi
} 2>&1 | tee "$out/log.txt"
