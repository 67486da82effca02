#!/usr/bin/env bash
# Stop 30's first call: the D_qk 192 / D_v 128 column-split Gluon backward (kernels.attention_bwd_gluon_192) in
# the engine. Its GPU tests (and the Triton-side declines), then the benchmark's D192 rows against cuDNN on every
# layout, bf16 and fp16, with the Gluon kernel (the default) and, non-causal BHSD only, with the Triton kernels
# ($SDPA_BWD_GLUON_BWD_192=causal), to decide whether the Gluon kernel takes the non-causal rows too.
#   bash tools/device_s30a.sh $OUT
set -u
out=${1:-/tmp/out}; mkdir -p "$out/g" "$out/t"
export PYTHONPATH=src PYTHONUNBUFFERED=1 COLUMNS=160
{
  nvidia-smi -L; python3 -c "import torch, triton; print('torch', torch.__version__, 'triton', triton.__version__)"
  timeout "${GLUON_S:-200}" python3 -m pytest -q -x -n 8 -m gpu tests/gpu/test_gluon_backward_gpu.py -p no:cacheprovider \
    -k "192 or triton_backward_takes" 2>&1 | tail -n 25
  echo "192 GPU tests: exit ${PIPESTATUS[0]}, $SECONDS s"
  timeout "${BENCH_S:-150}" python3 benchmarks/bench_backward.py --peers cudnn --no-split --rows D192 --out "$out/g" \
    > "$out/g/bench_backward.txt" 2>&1
  echo "bench D192 (Gluon): exit $?, $SECONDS s"
  grep -E "D192|geomean|min_" "$out/g/bench_backward.txt" | tail -n 40
  SDPA_BWD_GLUON_BWD_192=causal timeout "${BENCH_S:-100}" python3 benchmarks/bench_backward.py --peers cudnn \
    --no-split --rows D192/128-nc --layouts bhsd --out "$out/t" > "$out/t/bench_backward.txt" 2>&1
  echo "bench D192 nc (Triton): exit $?, $SECONDS s"
  grep -E "D192" "$out/t/bench_backward.txt" | tail -n 10
} 2>&1 | tee "$out/log.txt"
