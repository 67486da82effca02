#!/usr/bin/env bash
# One GPU: the Gluon backward's phase stamps (written in stop 26, not yet run on the device): their GPU test, then
# tools/phase_stamps.py on the hd64 and hd128 benchmark shapes, without and with the causal mask. What it is for:
# a program's ~10 us fixed cost (stop 26 run 4, 17% of the hd64 kernel) split into its parts.
#   bash tools/device_phase_stamps.sh $OUT
set -u
out=${1:-/tmp/out}; mkdir -p "$out/nc" "$out/causal"
export PYTHONPATH=src PYTHONUNBUFFERED=1 COLUMNS=160
{
  nvidia-smi -L; python3 -c "import torch, triton; print('torch', torch.__version__, 'triton', triton.__version__)"
  timeout 150 python3 -m pytest -q -p no:cacheprovider -m gpu tests/gpu/test_gluon_backward_gpu.py \
    -k phase_stamps -rf > "$out/gpu.txt" 2>&1
  echo "gpu test: exit $?, $SECONDS s: $(tail -n 1 "$out/gpu.txt")"; grep -E "^FAILED|Error" "$out/gpu.txt" | head
  timeout 120 python3 tools/phase_stamps.py --out "$out/nc" --shape 4,16,2048,2048,64 --shape 2,16,4096,4096,128
  timeout 120 python3 tools/phase_stamps.py --causal --out "$out/causal" --shape 4,16,2048,2048,64 \
    --shape 2,16,4096,4096,128
  echo "done, $SECONDS s"
} 2>&1 | tee "$out/log.txt"
