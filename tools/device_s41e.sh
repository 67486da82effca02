#!/usr/bin/env bash
# Stop 41, run 5: Nsight Compute's counters of our 192 / 128 causal pass beside cuDNN's (the traffic and instructions
# behind their energy a call), where the machine has ncu and lets it read the counters.
#   bash tools/device_s41e.sh $OUT
set -u
out=${1:-/tmp/out}; mkdir -p "$out"
export PYTHONPATH=src PYTHONUNBUFFERED=1
NCU=$(command -v ncu || ls /usr/local/cuda*/bin/ncu /opt/nvidia/nsight-compute/*/ncu 2>/dev/null | head -1)
echo "ncu: ${NCU:-none}"; command -v nsys || true
[ -n "$NCU" ] || exit 0
M=gpu__time_duration.sum,dram__bytes_read.sum,dram__bytes_write.sum,lts__t_bytes.sum,lts__t_sectors_op_red.sum
M=$M,lts__t_sectors_op_read.sum,lts__t_sectors_op_write.sum,smsp__inst_executed.sum,sm__cycles_elapsed.avg
M=$M,l1tex__data_pipe_lsu_wavefronts_mem_shared.sum,smsp__inst_executed_op_shared_ld.sum
M=$M,smsp__inst_executed_op_shared_st.sum,lts__t_sector_hit_rate.pct,sm__throughput.avg.pct_of_peak_sustained_elapsed
timeout 400 "$NCU" -k "regex:gluon_192|flash_bprop" -s 2 -c 4 --metrics "$M" python3 tools/ncu192.py 2>&1 \
  | grep -v "^==PROF==" | tail -n 80 | tee "$out/ncu.txt"
