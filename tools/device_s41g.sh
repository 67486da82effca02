#!/usr/bin/env bash
# Stop 41, run 7: the 128-key 192 / 128 kernel (attention_bwd_gluon_192_k128): its GPU tests, A/B against the
# launcher's form, sustained time and energy beside cuDNN's, and its L2 counters.
#   bash tools/device_s41g.sh $OUT
set -u
out=${1:-/tmp/out}; mkdir -p "$out/ab" "$out/sus"
export PYTHONPATH=src PYTHONUNBUFFERED=1
{
  timeout 240 python3 -m pytest -q -x -m gpu tests/gpu/test_gluon_backward_gpu.py -p no:cacheprovider \
    -k "192 and k128" 2>&1 | tail -n 25
  echo "tests: $SECONDS s"
  timeout 120 python3 tools/ab192.py --switch gluon_bwd192_k128 --out "$out/ab" > "$out/ab.log" 2>&1
  echo "ab: exit $?, $SECONDS s"; python3 tools/ab192_summary.py "$out"
  timeout 100 python3 tools/sustained192.py --out "$out/sus" --rounds 1 --config default: \
    --config k128:gluon_bwd192_k128=1 --config cudnn: 2>&1 | grep -v Warn | tail -n 4
  echo "sustained: $SECONDS s"
  M=gpu__time_duration.sum,dram__bytes_read.sum,lts__t_bytes.sum,lts__t_sectors_op_red.sum,lts__t_sectors_op_read.sum
  SDPA_BWD_GLUON_BWD192_K128=1 timeout 100 /usr/local/cuda/bin/ncu -k "regex:gluon_192" -s 2 -c 1 --metrics "$M" \
    python3 tools/ncu192.py 2>&1 | grep -v "^==PROF==" | tail -n 12
} 2>&1 | tee "$out/log.txt"
