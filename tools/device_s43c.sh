#!/usr/bin/env bash
# Stop 43, run 3: where the fused conversion's 0.4 ms go: Nsight Compute's PC sampling (SourceCounters) of the fused
# 192 / 128 pass (tools/ncu192.py's third call, FUSED_DQ 1), its SASS with stall samples per instruction as CSV.
#   bash tools/device_s43c.sh $OUT
set -u
out=${1:-/tmp/out}; mkdir -p "$out"
export PYTHONPATH=src PYTHONUNBUFFERED=1
NCU=$(command -v ncu || ls /usr/local/cuda*/bin/ncu /opt/nvidia/nsight-compute/*/ncu 2>/dev/null | head -1)
echo "ncu: ${NCU:-none}"
[ -n "$NCU" ] || exit 0
SDPA_BWD_GLUON_BWD192_FUSED_DQ=${LEVEL:-1} timeout 300 "$NCU" -k "regex:gluon_192" -s 2 -c 1 \
    --section SourceCounters --section WarpStateStats -o "$out/fused" python3 tools/ncu192.py 2>&1 \
    | grep -v "^==PROF==" | tail -n 5
timeout 120 "$NCU" -i "$out/fused.ncu-rep" --page source --csv --print-source sass > "$out/fused_sass.csv" 2>&1
timeout 60 "$NCU" -i "$out/fused.ncu-rep" --page details --section WarpStateStats 2>&1 | tail -40
ls -la "$out"; gzip -f "$out/fused_sass.csv"; rm -f "$out/fused.ncu-rep"
