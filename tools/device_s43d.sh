#!/usr/bin/env bash
# Stop 43, run 4: the 192 / 128 pass kernel's own duration (Nsight Compute, tools/ncu192.py's third call) with dQ
# converted in the pass (FUSED_DQ 1), its count probe (2), and the default (0), to split the fused call's loss
# between the kernel and the launches around it.
#   bash tools/device_s43d.sh $OUT
set -u
out=${1:-/tmp/out}; mkdir -p "$out"
export PYTHONPATH=src PYTHONUNBUFFERED=1
NCU=$(command -v ncu || ls /usr/local/cuda*/bin/ncu /opt/nvidia/nsight-compute/*/ncu 2>/dev/null | head -1)
DEFAULT_METRICS=gpu__time_duration.sum,dram__bytes_read.sum,dram__bytes_write.sum,lts__t_sectors_op_read.sum
for lv in ${LEVELS:-0 1 2}; do
  echo "FUSED_DQ=$lv"
  skip=$([ "$lv" = 0 ] && echo 6 || echo 4)  # two calls' kernels (three a call by default, two fused)
  SDPA_BWD_GLUON_BWD192_FUSED_DQ=$lv timeout 120 "$NCU" -k "regex:gluon_192|dq_convert|preprocess" -s "$skip" -c 3 \
      --metrics "${METRICS:-$DEFAULT_METRICS}" \
      python3 tools/ncu192.py 2>&1 | grep -E "attention_|gpu__|dram__|lts__|sm__|smsp__" | tee -a "$out/ncu.txt"
done
