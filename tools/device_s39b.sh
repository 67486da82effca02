#!/usr/bin/env bash
# Stop 39, run 2: which traffic holds the 192 / 128 kernel: probe builds (wrong results, timings only) with the stage
# loads halved or gone, or the dQ reduces halved by programs (tools/bwd192_bound.py --probe), beside the build as
# launched; and cuDNN's backward kernel's whole name (its tile shape).
#   bash tools/device_s39b.sh $OUT
set -u
out=${1:-/tmp/out}; mkdir -p "$out"
export PYTHONPATH=src PYTHONUNBUFFERED=1 COLUMNS=160
{
  for p in "" half-loads no-loads half-reduces; do
    timeout 200 python3 tools/bwd192_bound.py --out "$out" ${p:+--probe $p} 2>&1 | grep -v Warn | cut -c1-400
    echo "probe '$p': $SECONDS s"
  done
  timeout 100 python3 - <<'PY' 2>&1 | grep -v Warn
import torch
import sys
sys.path.insert(0, "tools")
from gluon_probe_common import cudnn_backward
q, k = (torch.randn(1, 16, 4096, 192, device="cuda", dtype=torch.bfloat16) for _ in range(2))
v, do = (torch.randn(1, 16, 4096, 128, device="cuda", dtype=torch.bfloat16) for _ in range(2))
f = cudnn_backward(q, k, v, do, True)
f()
with torch.profiler.profile(activities=[torch.profiler.ProfilerActivity.CUDA]) as prof:
    f()
    torch.cuda.synchronize()
for e in prof.events():
    if e.device_type == torch.autograd.DeviceType.CUDA:
        print("cuDNN kernel:", e.name)
PY
} 2>&1 | tee "$out/log.txt"
