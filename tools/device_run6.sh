#!/usr/bin/env bash
# Session 3, last device call (one GPU): the landing code. Benchmarks first (nothing else on the
# GPU while they time), then the GPU tests, then our engine over the standard level until DEADLINE_S.
set -u
out=${1:-/tmp/out}; mkdir -p "$out"
export PYTHONPATH=src PYTHONUNBUFFERED=1 COLUMNS=160
deadline=${DEADLINE_S:-420}
left() { echo $(( deadline - SECONDS > 5 ? deadline - SECONDS : 5 )); }
{
  timeout 150 python3 benchmarks/bench_backward.py --out "$out" --peers cudnn > "$out/bench_backward.txt" 2>&1
  echo "bench_backward: exit $?, $SECONDS s"
  timeout 60 python3 benchmarks/bench_forward.py --out "$out" > "$out/bench_forward.txt" 2>&1
  echo "bench_forward: exit $?, $SECONDS s"
  timeout 150 python3 -m pytest -q -n 12 -m gpu tests/gpu/test_triton_gpu.py -p no:cacheprovider -rf > "$out/gpu_tests.txt" 2>&1
  echo "gpu tests: exit $?, $SECONDS s: $(tail -n 1 "$out/gpu_tests.txt")"; grep -E "^FAILED" "$out/gpu_tests.txt" | head
  timeout "$(left)" python3 -m sdpa_bwd.cli run --no-progress --engine triton --level standard --workers 14 \
    --replay-limit 4 --json "$out/triton-standard.json" > "$out/triton-standard.txt" 2>&1
  echo "triton standard: exit $?, $SECONDS s: $(tail -n 2 "$out/triton-standard.txt" | tr '\n' ' ')"
  grep -E "summary|passed" "$out/bench_backward.txt" | tail -n 12; tail -n 8 "$out/bench_forward.txt"
} 2>&1 | tee "$out/log.txt"
