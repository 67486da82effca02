"""Three backward calls at (1,16,4096) D_qk 192 / D_v 128 causal bf16 BHSD, ours then cuDNN's: the workload for
``tools/device_s41e.sh``'s Nsight Compute run (stop 41), which profiles the third of each engine's pass kernels
(its DRAM, L2 and shared-memory traffic and instruction counts beside cuDNN's)."""

from __future__ import annotations

import os
import sys

import torch

from sdpa_bwd.engine import launch

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from gluon_probe_common import cudnn_backward, inputs192  # noqa: E402

q, k, v, o, do, stats, band = inputs192()
peer = cudnn_backward(q, k, v, do, True)
for _ in range(3):
    launch.attention_backward(q, k, v, o, do, stats, **band)
torch.cuda.synchronize()
for _ in range(3):
    peer()
torch.cuda.synchronize()
