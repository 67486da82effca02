#!/usr/bin/env bash
# Stop 26's first device call (one GPU): where the lse2/delta-by-TMA loader (commit 6f8a721, re-applied on the
# side-tma-debug branch) faults. Each Gluon backward GPU test in a process of its own (no xdist, so no test
# inherits another's broken context), CUDA_LAUNCH_BLOCKING=1, four at a time; then the first failing one under
# compute-sanitizer where the machine has it, and the same test with the switch off.
#   bash tools/device_s26a.sh $OUT
set -u
out=${1:-/tmp/out}; mkdir -p "$out/each"
export PYTHONPATH=src PYTHONUNBUFFERED=1 COLUMNS=160 CUDA_LAUNCH_BLOCKING=1
{
  nvidia-smi -L; python3 -c "import torch, triton; print('torch', torch.__version__, 'triton', triton.__version__)"
  python3 -m pytest -q --collect-only -m gpu tests/gpu/test_gluon_backward_gpu.py -p no:cacheprovider 2>/dev/null \
    | grep "::" > "$out/ids.txt"
  echo "tests: $(wc -l < "$out/ids.txt")"
  # warm the compile cache on two tests first, so the parallel ones do not all compile at once
  n=0
  while read -r id; do
    n=$((n + 1)); echo "$n $id"
  done < "$out/ids.txt" > "$out/numbered.txt"
  run_one() {
    n=$1; shift; id="$*"
    timeout 150 python3 -m pytest -q -p no:xdist -p no:cacheprovider "$id" > "$OUT_DIR/each/$n.txt" 2>&1
    rc=$?
    echo "$n rc=$rc $(tail -n 1 "$OUT_DIR/each/$n.txt" | cut -c1-60) $id"
  }
  export -f run_one; export OUT_DIR="$out"
  xargs -P 4 -L 1 bash -c 'run_one "$@"' _ < "$out/numbered.txt" | sort -n > "$out/each.txt"
  echo "each: $SECONDS s"; grep -c "rc=0" "$out/each.txt"; grep -v "rc=0" "$out/each.txt" | cut -c1-220
  first=$(grep -v "rc=0" "$out/each.txt" | head -1 | awk '{print $1}')
  cs=$(command -v compute-sanitizer || ls /usr/local/cuda*/bin/compute-sanitizer 2>/dev/null | head -1)
  echo "compute-sanitizer: ${cs:-none}"
  if [ -n "$first" ]; then
    id=$(sed -n "${first}p" "$out/ids.txt")
    echo "== first failure alone, switch off: $id"
    SDPA_BWD_GLUON_BWD_SIDE_TMA=0 timeout 120 python3 -m pytest -q -p no:xdist -p no:cacheprovider "$id" 2>&1 | tail -n 3
    grep -E "Error|error" "$out/each/$first.txt" | head -5
    if [ -n "$cs" ]; then
      timeout 240 "$cs" --tool memcheck --show-backtrace device --print-limit 20 python3 -m pytest -q -p no:xdist \
        -p no:cacheprovider "$id" > "$out/sanitizer.txt" 2>&1
      echo "sanitizer exit $?"; grep -E "=========" "$out/sanitizer.txt" | head -40
    fi
  fi
} 2>&1 | tee "$out/log.txt"
# shapes one at a time (B H S_q S_kv D causal tma_epilogue), each in its own process: which property faults
{
  echo "== probes (switch on)"
  while read -r args; do
    timeout 100 python3 tools/side_tma_probe.py $args 2>&1 | tail -n 1
  done <<'SHAPES'
1 2 256 256 128 0 1
1 2 256 256 128 0 0
1 4 300 300 128 0 1
1 4 300 300 128 0 0
3 2 2 5 128 0 1
3 2 2 5 128 0 0
1 2 138 138 128 1 1
1 2 138 138 128 1 0
1 64 2 5 128 0 1
2 8 1024 1024 64 0 1
2 8 1024 1024 64 0 0
2 8 1024 1024 128 1 1
SHAPES
} 2>&1 | tee -a "$out/log.txt"
