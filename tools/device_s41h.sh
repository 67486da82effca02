#!/usr/bin/env bash
# Stop 41, run 8: the 128-key kernel with its zero accumulators and key positions made where used (fewer spills):
# its GPU tests, the A/B against the launcher's form (bf16), its L2 counters.
#   bash tools/device_s41h.sh $OUT
set -u
out=${1:-/tmp/out}; mkdir -p "$out/ab"
export PYTHONPATH=src PYTHONUNBUFFERED=1
{
  timeout 200 python3 -m pytest -q -x -m gpu tests/gpu/test_gluon_backward_gpu.py -p no:cacheprovider \
    -k "192 and k128" 2>&1 | tail -n 5
  echo "tests: $SECONDS s"
  timeout 100 python3 tools/ab192.py --switch gluon_bwd192_k128 --only bfloat16:causal --out "$out/ab" \
    > "$out/ab.log" 2>&1
  echo "ab: exit $?, $SECONDS s"; python3 tools/ab192_summary.py "$out"
  M=gpu__time_duration.sum,lts__t_bytes.sum,lts__t_sectors_op_red.sum,lts__t_sectors_op_read.sum
  M=$M,smsp__inst_executed.sum,l1tex__t_bytes_pipe_lsu_mem_local_op_ld.sum
  SDPA_BWD_GLUON_BWD192_K128=1 timeout 100 /usr/local/cuda/bin/ncu -k "regex:gluon_192" -s 2 -c 1 --metrics "$M" \
    python3 tools/ncu192.py 2>&1 | grep -v "^==PROF==" | tail -n 10
} 2>&1 | tee "$out/log.txt"
