#!/usr/bin/env bash
# Stop 38, run 1: how much of the 192 / 128 kernel is a program's fixed cost. tools/program_cost.py --d 192 (S_q
# 512-8192 against the same 1,024 programs, non-causal), then the causal kernel at (1,16,4096) for the fit to predict.
#   bash tools/device_s38a.sh $OUT
set -u
out=${1:-/tmp/out}; mkdir -p "$out"
export PYTHONPATH=src PYTHONUNBUFFERED=1 COLUMNS=160
{
  timeout 240 python3 tools/program_cost.py --d 192 --out "$out/pc"
  echo "program_cost: exit $?, $SECONDS s"
  timeout 120 python3 - <<'PY'
import sys, torch
sys.path.insert(0, "tools")
from program_cost import kernel_times
from sdpa_bwd.engine import launch
for causal in (True, False):
    for S in (4096, 8192):
        g = torch.Generator(device="cuda").manual_seed(S)
        q = torch.randn(1, 16, S, 192, device="cuda", dtype=torch.bfloat16, generator=g)
        k = torch.randn(1, 16, S, 192, device="cuda", dtype=torch.bfloat16, generator=g)
        v, do = (torch.randn(1, 16, S, 128, device="cuda", dtype=torch.bfloat16, generator=g) for _ in range(2))
        kw = dict(right_bound=0) if causal else {}
        o, st = launch.attention_forward(q, k, v, **kw)
        print("causal" if causal else "nc", S, kernel_times(lambda: launch.attention_backward(q, k, v, o, do, st, **kw)),
              flush=True)
PY
  echo "causal: exit $?, $SECONDS s"
} 2>&1 | tee "$out/log.txt"
