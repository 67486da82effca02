#!/usr/bin/env bash
# The two benchmarks alone (one GPU), for the claim's table: since stop 27 each non-BHSD row also times our call
# against its BHSD twin in alternation (common.layout_twin), which adds ~4 timings a row, so the benchmarks no
# longer fit one 600-s call beside every GPU test (device_s25_final.sh): run the GPU tests in a call of their own
# (`python3 -m pytest -q -n 12 -m gpu tests/gpu`, ~170-200 s) on the same code.
#   bash tools/device_s27_bench.sh $OUT
set -u
out=${1:-/tmp/out}; mkdir -p "$out/b" "$out/f"
export PYTHONPATH=src PYTHONUNBUFFERED=1 COLUMNS=160
{
  nvidia-smi -L; python3 -c "import torch, triton; print('torch', torch.__version__, 'triton', triton.__version__)"
  timeout "${BENCH_S:-380}" python3 benchmarks/bench_backward.py --peers cudnn --no-split --out "$out/b" \
    > "$out/b/bench_backward.txt" 2>&1
  echo "bench_backward: exit $?, $SECONDS s"
  timeout "${FWD_S:-180}" python3 benchmarks/bench_forward.py --peers cudnn --out "$out/f" > "$out/f/bench_forward.txt" 2>&1
  echo "bench_forward: exit $?, $SECONDS s"
  grep -iE "geomean|worst|max_|min_" "$out/b/bench_backward.txt" | tail -n 20
  grep -iE "geomean|worst|min_" "$out/f/bench_forward.txt" | tail -n 8
} 2>&1 | tee "$out/log.txt"
