#!/usr/bin/env bash
# Stop 25, the landing code's call (one GPU): the backward and forward benchmarks first (tools/device_s27_bench.sh:
# nothing else on the GPU while they time), then every GPU test. The limits (250 + 100 + 230 s) fit one 600-s
# device call; stop 26's run 6 took 247, 27 and 200 s (the tests' 200-s limit cut pytest's exit after its
# summary: hence 230). Since stop 27 the benchmarks' layout twin timing makes them longer: where they do not
# finish in these limits, run device_s27_bench.sh and the tests in calls of their own.
#   bash tools/device_s25_final.sh $OUT
set -u
out=${1:-/tmp/out}
BENCH_S=${BENCH_S:-250} FWD_S=${FWD_S:-100} bash "$(dirname "$0")/device_s27_bench.sh" "$out"
export PYTHONPATH=src PYTHONUNBUFFERED=1 COLUMNS=160
{
  timeout "${TEST_S:-230}" python3 -m pytest -q -n 12 -m gpu tests/gpu -p no:cacheprovider -rf \
    --junitxml="$out/gpu.xml" > "$out/gpu_tests.txt" 2>&1
  echo "gpu tests: exit $?, $SECONDS s: $(tail -n 1 "$out/gpu_tests.txt")"; grep -E "^FAILED" "$out/gpu_tests.txt" | head -20
} 2>&1 | tee -a "$out/log.txt"
