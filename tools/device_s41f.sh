#!/usr/bin/env bash
# Stop 41, run 6: the pair form (clusters of two summing dQ halves in each other's shared memory: half the L2 reduce
# bytes) under sustained load beside the launcher's form and cuDNN's, and its L2 counters (Nsight Compute).
#   bash tools/device_s41f.sh $OUT
set -u
out=${1:-/tmp/out}; mkdir -p "$out"
export PYTHONPATH=src PYTHONUNBUFFERED=1
timeout 300 python3 tools/sustained192.py --out "$out" --config default: --config pair:gluon_bwd192_pair=1 \
  --config cudnn: 2>&1 | grep -v Warn | tee "$out/log.txt"
M=gpu__time_duration.sum,dram__bytes_read.sum,dram__bytes_write.sum,lts__t_bytes.sum,lts__t_sectors_op_red.sum
M=$M,lts__t_sectors_op_read.sum,lts__t_sectors_op_write.sum,smsp__inst_executed.sum
SDPA_BWD_GLUON_BWD192_PAIR=1 timeout 200 /usr/local/cuda/bin/ncu -k "regex:gluon_192" -s 2 -c 1 --metrics "$M" \
  python3 tools/ncu192.py 2>&1 | grep -v "^==PROF==" | tail -n 20 | tee "$out/ncu_pair.txt"
