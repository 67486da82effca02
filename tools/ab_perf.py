"""A/B timing of the Triton engine's variants in one GPU run (issue 7's perf log).

    PYTHONPATH=src python3 tools/ab_perf.py --out $OUT [--budget 420] [--d-qk 192] [--variants default/tma,padded]
    PYTHONPATH=src python3 tools/ab_perf.py --table s6 --out $OUT      # start order, dV after dP (h200-2026-12-01e)
    PYTHONPATH=src python3 tools/ab_perf.py --table s7 --out $OUT      # warps against tile rows (h200-2026-12-01f)
    bash tools/device.sh ab s46 --budget 280                          # on the device machine, compiles spread first

The comment above each table names the record it was run for (a ``docs/data/`` folder: card and date) and what
it measured. A variant is (name, tma, config or None, knobs): ``knobs`` are launch-level switches set for that
variant alone (``launch.switches``: ``head_group``, ``dv_after_dp``, ``gluon_backward``). A row may name a storage
layout (benchmarks/common.py's ``make``).
``--warm-only --shard i/n`` runs each of its share of the variants once, untimed, so that n
processes started side by side fill Triton's cache before the timed run compiles nothing.

For each row (shape, causal, dtype; BHSD) and variant (TMA on/off, configs) it
times one backward call (ODO + DKDV + DQ) and, where asked, one forward call,
with ``triton.testing.do_bench`` (median), beside cuDNN's backward and forward
in the same process, and splits the backward into its kernels with the
profiler. Every variant's gradients are compared with the default variant's and
with cuDNN's (relative L2), so a fast wrong variant shows up. Writes
``ab_perf.json`` under --out and prints one line per measurement.
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import os
import sys
import time
import warnings

import torch
import torch.nn.functional as F
import triton
from torch.nn.attention import SDPBackend, sdpa_kernel

from sdpa_bwd.engine import launch

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "benchmarks"))
from common import make  # noqa: E402  (benchmarks/common.py: the benchmark's layouts)

BC = launch.BackwardConfig
FC = launch.ForwardConfig

ROWS = [  # (B, H_q, H_kv, S or (S_q, S_kv), D or (D_qk, D_v), causal, dtype[, layout]); variants are keyed by D
    (1, 16, 16, 4096, (192, 128), False, torch.bfloat16),
    (2, 16, 16, 4096, 128, False, torch.bfloat16),
    (1, 16, 16, 4096, (192, 128), True, torch.bfloat16),
    (2, 16, 16, 4096, 128, True, torch.bfloat16),
    (4, 16, 16, 2048, 64, False, torch.bfloat16),
    (1, 32, 8, 8192, 128, False, torch.bfloat16),
]

# Backward variants per head dim: (name, tma, config or None for the default).
# "atomic" adds dQ partials from the DKDV pass: by TMA bulk reduce where TMA is on.
# At 192/128 every config runs D_qk as two chunks, 128 + 64 (launch.d_qk_chunks), unless it says
# split_d_qk=False: the "padded" variants are the pad to 256 that every 192/128 number before the
# split measured, with the table's tiles, so "default/tma" vs "padded" is the split's A/B. The
# split frees shared memory (DKDV 64/64: 121 KiB on 2 stages, 162 on 3; DQ 128/64: 161 KiB, local
# ptxas), hence the s3 and dq128/64 variants.
BWD_VARIANTS = {
    (192, 128): [
        ("default/tma", "on", None),
        ("padded", "on", BC(64, 64, 128, 32, 8, 2, "separate", split_d_qk=False)),
        ("ptr", "off", None),
        ("padded ptr", "off", BC(64, 64, 128, 32, 8, 2, "separate", split_d_qk=False)),
        ("split 64/64 s3", "on", BC(64, 64, 128, 32, 8, 3, "separate")),
        ("split dq128/64", "on", BC(64, 64, 128, 64, 8, 2, "separate")),
        ("32/64 s2", "on", BC(32, 64, 64, 32, 8, 2, "separate")),
        ("64/64 s2", "on", BC(64, 64, 64, 64, 8, 2, "separate")),
        ("64/128 s1", "on", BC(64, 128, 128, 64, 8, 1, "separate")),
        ("32/128 s2 dq64/64", "on", BC(32, 128, 64, 64, 8, 2, "separate")),
        ("64/64 s2 dq128/32", "on", BC(64, 64, 128, 32, 8, 2, "separate")),
        ("atomic 64/64 s2", "on", BC(64, 64, 64, 64, 8, 2, "atomic")),
        ("atomic 32/64 s2", "on", BC(32, 64, 64, 32, 8, 2, "atomic")),
        ("atomic 32/128 s1", "on", BC(32, 128, 64, 32, 8, 1, "atomic")),
    ],
    128: [
        ("default/tma", "on", None),
        ("atomic", "on", BC(64, 128, 128, 64, 8, 3, "atomic")),
        ("atomic s2", "on", BC(64, 128, 128, 64, 8, 2, "atomic")),
        ("atomic m1=32", "on", BC(32, 128, 128, 64, 8, 3, "atomic")),
        ("atomic m1=32 s4", "on", BC(32, 128, 128, 64, 8, 4, "atomic")),
        ("atomic ptr", "off", BC(64, 128, 128, 64, 8, 3, "atomic")),
    ],
    64: [
        ("default/tma", "on", None),
        ("atomic", "on", BC(32, 128, 128, 64, 4, 4, "atomic")),
        ("atomic 64/128 8w", "on", BC(64, 128, 128, 64, 8, 3, "atomic")),
        ("atomic 32/128 s3", "on", BC(32, 128, 128, 64, 4, 3, "atomic")),
    ],
}
FWD_VARIANTS = {
    (192, 128): [("default/tma", "on", None), ("padded", "on", FC(64, 64, 4, 3, split_d_qk=False)),
                 ("64/64 s2 4w", "on", FC(64, 64, 4, 2)),
                 ("128/32 s2 8w", "on", FC(128, 32, 8, 2)), ("128/64 s2 8w", "on", FC(128, 64, 8, 2)),
                 ("64/64 s3 4w", "on", FC(64, 64, 4, 3))],
    128: [],
    64: [],
}


# s6 (2026-12-01, H200, h200-2026-12-01e): the programs' start order (groups of HEAD_GROUP heads, costliest tile first;
# 1 = the head-by-head order every earlier number measured) and the DKDV pass's dV product issued after dP's wait.
# Causal rows carry the order's predicted gain (a greedy-dispatch model: 0.87-0.89 of ideal head by head, 0.97-1.00
# grouped); non-causal rows must not move. The BSHD rows split the 10% BSHD-vs-BHSD gap of the h200-2026-12-01d
# benchmark's (2,16,4096,128) row by kernel.
ROWS_S6 = [
    (2, 16, 16, 4096, 128, True, torch.bfloat16),
    (1, 16, 16, 8192, 128, True, torch.bfloat16),
    (4, 16, 16, 2048, 64, True, torch.bfloat16),
    (1, 16, 16, 4096, (192, 128), True, torch.bfloat16),
    (1, 32, 8, 8192, 128, True, torch.bfloat16),
    (2, 16, 16, 4096, 128, False, torch.bfloat16),
    (2, 16, 16, 4096, 128, False, torch.bfloat16, "bshd"),
    (4, 16, 16, 2048, 64, False, torch.bfloat16),
    (1, 16, 16, 4096, (192, 128), False, torch.bfloat16),
]
_S6 = [("hg1", "on", None, dict(head_group=1)), ("hg4", "on", None, dict(head_group=4)),
       ("hg8", "on", None, dict(head_group=8)), ("hg16", "on", None, dict(head_group=16)),
       ("hg1 dv-late", "on", None, dict(head_group=1, dv_after_dp=True)),
       ("hg8 dv-late", "on", None, dict(head_group=8, dv_after_dp=True))]
BWD_VARIANTS_S6 = {(192, 128): _S6, 128: _S6, 64: _S6}
_S6_FWD = [v for v in _S6 if "dv_after_dp" not in v[3]]
FWD_VARIANTS_S6 = {(192, 128): _S6_FWD, 128: _S6_FWD, 64: _S6_FWD}


# s7 (2026-12-01, H200, h200-2026-12-01f): warps against tile rows. Triton lays an MMA's result over warpsPerCTA =
# [warps, 1] along M when M = 16 x warps, but a DKDV key block of 64 rows on 8 warps gets [8, 1] for the S^T and dP^T
# tiles too: each warpgroup computes the same 64 rows (a local Triton 3.6 compile of the 192/128 DKDV at 64/64 on 8
# warps: 156 HGMMA against 96 at 64/128, S^T and dP^T at N = 32 on both warpgroups, converted to [4, 2] for dK/dV). So
# the 192/128 DKDV did S^T and dP^T twice; 128-key blocks on 8 warps, or 64 on 4, give each warpgroup its own rows. The
# hd64 DKDV (32/128, 4 warps) and the forwards get the tiles the hd128 ones run at, as a check that those are not stuck
# on the same thing.
ROWS_S7 = [
    (1, 16, 16, 4096, (192, 128), False, torch.bfloat16),
    (1, 16, 16, 4096, (192, 128), True, torch.bfloat16),
    (4, 16, 16, 2048, 64, False, torch.bfloat16),
    (4, 16, 16, 2048, 64, True, torch.bfloat16),
    (2, 16, 16, 4096, 128, False, torch.bfloat16),
    (2, 16, 16, 4096, 128, True, torch.bfloat16),
]
BWD_VARIANTS_S7 = {
    (192, 128): [
        ("default/tma", "on", None),
        ("n128 m32 s2", "on", BC(32, 128, 128, 32, 8, 2, "separate", head_group=4)),
        ("n128 m32 s2 late", "on", BC(32, 128, 128, 32, 8, 2, "separate", head_group=4, dv_after_dp=True)),
        ("n128 m64 s2", "on", BC(64, 128, 128, 32, 8, 2, "separate", head_group=4)),
        ("n128 m64 s2 late", "on", BC(64, 128, 128, 32, 8, 2, "separate", head_group=4, dv_after_dp=True)),
        ("n128 m32 s3", "on", BC(32, 128, 128, 32, 8, 3, "separate", head_group=4)),
        ("n128 m16 s3", "on", BC(16, 128, 128, 32, 8, 3, "separate", head_group=4)),
        ("n64 m64 4w", "on", BC(64, 64, 128, 32, 4, 2, "separate", dq_num_warps=8, head_group=4)),
        ("n64 m32 4w s3", "on", BC(32, 64, 128, 32, 4, 3, "separate", dq_num_warps=8, dq_num_stages=2,
                                   head_group=4)),
        ("n128 m32 s2 dq128/64", "on", BC(32, 128, 128, 64, 8, 2, "separate", head_group=4)),
    ],
    64: [
        ("default/tma", "on", None),
        ("n128 m64 8w s3", "on", BC(64, 128, 128, 64, 8, 3, "separate", head_group=16, dv_after_dp=True)),
        ("n128 m64 8w s4", "on", BC(64, 128, 128, 64, 8, 4, "separate", head_group=16, dv_after_dp=True)),
        ("n128 m32 4w s3", "on", BC(32, 128, 128, 64, 4, 3, "separate", dq_num_warps=8, dq_num_stages=3,
                                    head_group=16, dv_after_dp=True)),
    ],
    128: [
        ("default/tma", "on", None),
        ("dq 128/128 s2", "on", BC(64, 128, 128, 128, 8, 3, "separate", dq_num_stages=2, dv_after_dp=True)),
        ("dq 128/64 s4", "on", BC(64, 128, 128, 64, 8, 3, "separate", dq_num_stages=4, dv_after_dp=True)),
    ],
}
FWD_VARIANTS_S7 = {
    (192, 128): [("default/tma", "on", None), ("128/64 8w s2", "on", FC(128, 64, 8, 2, head_group=4)),
                 ("128/64 8w s3", "on", FC(128, 64, 8, 3, head_group=4)),
                 ("128/128 8w s2", "on", FC(128, 128, 8, 2, head_group=4))],
    64: [("default/tma", "on", None), ("128/128 4w s3", "on", FC(128, 128, 4, 3, head_group=16)),
         ("128/64 8w s3", "on", FC(128, 64, 8, 3, head_group=16)),
         ("128/128 8w s3", "on", FC(128, 128, 8, 3, head_group=16))],
    128: [("default/tma", "on", None), ("128/128 8w s2", "on", FC(128, 128, 8, 2, head_group=4)),
          ("128/128 8w s3", "on", FC(128, 128, 8, 3, head_group=4)),
          ("128/64 8w s4", "on", FC(128, 64, 8, 4, head_group=4))],
}
# s7b (h200-2026-12-01f, s7's winners): the 192/128 DKDV on one warpgroup (64 keys, 32 query rows,
# 3 stages: 0.711 ms against 1.372, two programs an SM) and the dQ pass on 3 stages (0.477 against
# 0.707); the same one-warpgroup DKDV and dQ pass for hd128 and hd64; the forward tiles that won
# (128/64 8w s3 at 192/128, 128/128 8w s3 at hd128) beside one-warpgroup forwards.
ROWS_S7B = ROWS_S7[:2] + [(2, 16, 16, 4096, 128, False, torch.bfloat16), (2, 16, 16, 4096, 128, True, torch.bfloat16),
                          (1, 32, 8, 8192, 128, False, torch.bfloat16), (4, 16, 16, 2048, 64, False, torch.bfloat16),
                          (4, 16, 16, 2048, 64, True, torch.bfloat16)]
BWD_VARIANTS_S7B = {
    (192, 128): [
        ("default/tma", "on", None),
        ("1wg s3 dq s3", "on", BC(32, 64, 128, 32, 4, 3, "separate", dq_num_warps=8, dq_num_stages=3, head_group=4)),
        ("1wg s3 dq s3 late", "on", BC(32, 64, 128, 32, 4, 3, "separate", dq_num_warps=8, dq_num_stages=3,
                                       head_group=4, dv_after_dp=True)),
        ("1wg s2 dq s3", "on", BC(32, 64, 128, 32, 4, 2, "separate", dq_num_warps=8, dq_num_stages=3, head_group=4)),
        ("1wg s4 dq s3", "on", BC(32, 64, 128, 32, 4, 4, "separate", dq_num_warps=8, dq_num_stages=3, head_group=4)),
        ("1wg s3 dq s4", "on", BC(32, 64, 128, 32, 4, 3, "separate", dq_num_warps=8, dq_num_stages=4, head_group=4)),
        ("1wg s3 dq 64/32 4w s3", "on", BC(32, 64, 64, 32, 4, 3, "separate", dq_num_warps=4, dq_num_stages=3,
                                           head_group=4)),
        ("1wg s3 dq s3 hg8", "on", BC(32, 64, 128, 32, 4, 3, "separate", dq_num_warps=8, dq_num_stages=3,
                                      head_group=8)),
    ],
    128: [
        ("default/tma", "on", None),
        ("1wg s3", "on", BC(32, 64, 128, 64, 4, 3, "separate", dq_num_warps=8, dq_num_stages=3, dv_after_dp=True)),
        ("1wg s3 early", "on", BC(32, 64, 128, 64, 4, 3, "separate", dq_num_warps=8, dq_num_stages=3)),
        ("1wg s2", "on", BC(32, 64, 128, 64, 4, 2, "separate", dq_num_warps=8, dq_num_stages=3, dv_after_dp=True)),
        ("1wg s4", "on", BC(32, 64, 128, 64, 4, 4, "separate", dq_num_warps=8, dq_num_stages=3, dv_after_dp=True)),
        ("1wg m64 s2", "on", BC(64, 64, 128, 64, 4, 2, "separate", dq_num_warps=8, dq_num_stages=3, dv_after_dp=True)),
        ("dq 64/64 4w s3", "on", BC(64, 128, 64, 64, 8, 3, "separate", dq_num_warps=4, dq_num_stages=3,
                                    dv_after_dp=True)),
        ("dq 64/128 4w s2", "on", BC(64, 128, 64, 128, 8, 3, "separate", dq_num_warps=4, dq_num_stages=2,
                                     dv_after_dp=True)),
    ],
    64: [
        ("default/tma", "on", None),
        ("1wg n64 m32 s3", "on", BC(32, 64, 128, 64, 4, 3, "separate", dq_num_warps=8, dq_num_stages=3,
                                    head_group=16, dv_after_dp=True)),
        ("1wg n64 m64 s3", "on", BC(64, 64, 128, 64, 4, 3, "separate", dq_num_warps=8, dq_num_stages=3,
                                    head_group=16, dv_after_dp=True)),
        ("dq 64/64 4w s3", "on", BC(32, 128, 64, 64, 4, 4, "separate", dq_num_warps=4, dq_num_stages=3,
                                    head_group=16, dv_after_dp=True)),
    ],
}
FWD_VARIANTS_S7B = {
    (192, 128): [("default/tma", "on", None), ("128/64 8w s3", "on", FC(128, 64, 8, 3, head_group=4)),
                 ("128/64 8w s4", "on", FC(128, 64, 8, 4, head_group=4)),
                 ("128/64 8w s3 hg8", "on", FC(128, 64, 8, 3, head_group=8)),
                 ("64/64 4w s2", "on", FC(64, 64, 4, 2, head_group=4))],
    128: [("default/tma", "on", None), ("128/128 8w s3", "on", FC(128, 128, 8, 3, head_group=4)),
          ("128/128 8w s4", "on", FC(128, 128, 8, 4, head_group=4)),
          ("128/128 8w s3 hg8", "on", FC(128, 128, 8, 3, head_group=8)),
          ("64/64 4w s3", "on", FC(64, 64, 4, 3, head_group=4)), ("64/128 4w s2", "on", FC(64, 128, 4, 2, head_group=4))],
    64: [("default/tma", "on", None), ("128/64 8w s3", "on", FC(128, 64, 8, 3, head_group=16)),
         ("128/64 8w s4", "on", FC(128, 64, 8, 4, head_group=16)),
         ("128/128 8w s2", "on", FC(128, 128, 8, 2, head_group=16)), ("64/64 4w s3", "on", FC(64, 64, 4, 3, head_group=16))],
}
# The benchmark shapes (BHSD, bf16), s7c's rows (h200-2026-12-01f: its table timed the dQ pass on a second
# stream, a form removed 2026-12-06; docs/perf-log.md).
ROWS_S7C = [
    (2, 16, 16, 4096, 128, False, torch.bfloat16), (2, 16, 16, 4096, 128, True, torch.bfloat16),
    (1, 16, 16, 8192, 128, False, torch.bfloat16), (1, 16, 16, 8192, 128, True, torch.bfloat16),
    (4, 16, 16, 2048, 64, False, torch.bfloat16), (4, 16, 16, 2048, 64, True, torch.bfloat16),
    (1, 32, 8, 8192, 128, False, torch.bfloat16), (1, 32, 8, 8192, 128, True, torch.bfloat16),
    (1, 16, 16, 4096, (192, 128), False, torch.bfloat16), (1, 16, 16, 4096, (192, 128), True, torch.bfloat16),
]
# s8b (2026-12-01, H200, h200-2026-12-01g): the hd128 DKDV pass on one warpgroup (two programs an SM) for causal masks
# only. The s7b run had it 1.054 -> 1.007 ms at (2,16,4096,128) causal and 1.707 -> 1.760 non-causal: a config that
# depends on the mask. Checked here on every causal hd128 benchmark shape (GQA and fp16 too). (Its run also timed the
# dQ pass on a second stream, a form removed 2026-12-06.)
ROWS_S8B = [
    (2, 16, 16, 4096, 128, True, torch.bfloat16), (1, 16, 16, 8192, 128, True, torch.bfloat16),
    (1, 32, 8, 8192, 128, True, torch.bfloat16), (2, 16, 16, 4096, 128, True, torch.float16),
    (2, 16, 16, 4096, 128, False, torch.bfloat16),
]


def _one_wg(stages=3, late=True, group=8, dq_stages=3):
    return BC(32, 64, 128, 64, 4, stages, "separate", dq_num_warps=8, dq_num_stages=dq_stages, head_group=group,
              dv_after_dp=late)


BWD_VARIANTS_S8B = {
    128: [("default", "on", None), ("1wg s3 late", "on", _one_wg()), ("1wg s3 late hg16", "on", _one_wg(group=16)),
          ("1wg s3 early", "on", _one_wg(late=False)), ("1wg s4 late", "on", _one_wg(stages=4)),
          ("1wg s3 late dq s2", "on", _one_wg(dq_stages=2))],
}
FWD_VARIANTS_S8B = {128: []}
# s9 (prepared 2026-12-01, run in h200-2026-12-01h): hd256's DKDV pass on 8 warps over 64 keys has each warpgroup
# compute the same S^T and dP^T rows (the 192/128 defect found in h200-2026-12-01f), and so does its dQ pass (64 rows on
# 8 warps). Local sm_90a compile (Triton 3.6, TMA on): the table's DKDV 204 HGMMA, 840 B of stack; split into a dK pass
# and a dV pass on one warpgroup each (BackwardConfig.split_dkdv) 102 + 54 HGMMA, 280 + 80 B of stack, 131 + 98 KiB of
# shared memory on 2 stages; the dQ pass 64/32 on 4 warps, 2 stages: 68 HGMMA against 132, no stack against 160 B.
ROWS_S9 = [
    (1, 16, 16, 4096, 256, False, torch.bfloat16), (1, 16, 16, 4096, 256, True, torch.bfloat16),
    (2, 16, 16, 2048, 256, False, torch.float16), (2, 16, 16, 2048, 256, True, torch.float16),
]
BWD_VARIANTS_S9 = {
    256: [("default", "on", None),
          ("dq 1wg s2", "on", BC(32, 64, 64, 32, 8, 1, "separate", dq_num_warps=4, dq_num_stages=2)),
          ("split 1wg s2, dq 1wg s2", "on", BC(32, 64, 64, 32, 4, 2, "separate", dq_num_warps=4, dq_num_stages=2,
                                                split_dkdv=True)),
          ("split 1wg s3, dq 1wg s3", "on", BC(32, 64, 64, 32, 4, 3, "separate", dq_num_warps=4, dq_num_stages=3,
                                                split_dkdv=True)),
          ("split 1wg s2 hg4, dq 1wg s2", "on", BC(32, 64, 64, 32, 4, 2, "separate", dq_num_warps=4,
                                                    dq_num_stages=2, head_group=4, split_dkdv=True)),
          ("split 8w s1", "on", BC(32, 64, 64, 32, 8, 1, "separate", split_dkdv=True))],
}
FWD_VARIANTS_S9 = {256: []}
# s10 (2026-12-01, H200, h200-2026-12-01h): the split DKDV pass (one accumulator a pass, one warpgroup) won
# 2.4-2.8x at hd256 in s9.
# Here at hd128 and hd64, where the default's DKDV is one pass with both accumulators: the split costs one
# more product (S^T in both passes: 8 against 7), so it wins only if one-accumulator programs (64 registers
# a thread for hd128 on 4 warps, against 128) run the products >= 8/7 faster, two or three programs an SM.
# And more hd256 shapes around s9's winner, and hd256 forward tiles (the 64/32 s2 config is untimed).
ROWS_S10 = [
    (2, 16, 16, 4096, 128, False, torch.bfloat16), (2, 16, 16, 4096, 128, True, torch.bfloat16),
    (4, 16, 16, 2048, 64, False, torch.bfloat16), (4, 16, 16, 2048, 64, True, torch.bfloat16),
    (1, 16, 16, 4096, 256, False, torch.bfloat16), (1, 16, 16, 4096, 256, True, torch.bfloat16),
]


def _split(m1, n1, warps, stages, m2, n2, dq_warps, dq_stages, group=8, late=True):
    return BC(m1, n1, m2, n2, warps, stages, "separate", dq_num_warps=dq_warps, dq_num_stages=dq_stages,
              head_group=group, dv_after_dp=late, split_dkdv=True)


BWD_VARIANTS_S10 = {
    128: [("default", "on", None),
          ("split 32/64 4w s3", "on", _split(32, 64, 4, 3, 128, 64, 8, 3)),
          ("split 64/64 4w s3", "on", _split(64, 64, 4, 3, 128, 64, 8, 3)),
          ("split 32/64 4w s4", "on", _split(32, 64, 4, 4, 128, 64, 8, 3)),
          ("split 64/128 8w s3", "on", _split(64, 128, 8, 3, 128, 64, 8, 3)),
          ("split 32/128 8w s3", "on", _split(32, 128, 8, 3, 128, 64, 8, 3))],
    64: [("default", "on", None),
         ("split 32/128 4w s4", "on", _split(32, 128, 4, 4, 64, 64, 4, 3, group=16)),
         ("split 64/64 4w s3", "on", _split(64, 64, 4, 3, 64, 64, 4, 3, group=16)),
         ("split 64/128 8w s3", "on", _split(64, 128, 8, 3, 64, 64, 4, 3, group=16))],
    256: [("default", "on", None),
          ("split s3 hg4", "on", _split(32, 64, 4, 3, 64, 32, 4, 3, group=4, late=False)),
          ("split s3 hg16", "on", _split(32, 64, 4, 3, 64, 32, 4, 3, group=16, late=False)),
          ("split s4", "on", _split(32, 64, 4, 4, 64, 32, 4, 3, late=False)),
          ("split s3, dq 64/64 s2", "on", _split(32, 64, 4, 3, 64, 64, 4, 2, late=False)),
          ("split s3, dq 128/32 8w s3", "on", _split(32, 64, 4, 3, 128, 32, 8, 3, late=False)),
          ("split 64/64 s2", "on", _split(64, 64, 4, 2, 64, 32, 4, 3, late=False))],
}
FWD_VARIANTS_S10 = {
    128: [], 64: [],
    256: [("default/tma", "on", None), ("64/64 4w s2", "on", FC(64, 64, 4, 2)), ("64/32 4w s3", "on", FC(64, 32, 4, 3)),
          ("128/64 8w s2", "on", FC(128, 64, 8, 2)), ("128/32 8w s3", "on", FC(128, 32, 8, 3)),
          ("64/64 4w s2 hg4", "on", FC(64, 64, 4, 2, head_group=4))],
}
# s12 (2026-12-01, H200, h200-2026-12-01i): the forward's fused softmax (ForwardConfig.fused_softmax: the score scale
# inside exp2's argument as one FMA, P V accumulated through the product's accumulator), on each head dim's default
# tiles. Two operations an element fewer of ~7 in the softmax; prediction: up to 5-10% where the forward's softmax
# arithmetic, not its products, is the bound (hd128 / hd64), less at 192/128 and hd256.
ROWS_S12 = [
    (2, 16, 16, 4096, 128, False, torch.bfloat16), (2, 16, 16, 4096, 128, True, torch.bfloat16),
    (1, 16, 16, 8192, 128, False, torch.bfloat16), (1, 32, 8, 8192, 128, False, torch.bfloat16),
    (2, 16, 16, 4096, 128, False, torch.float16), (2, 16, 16, 4096, 128, False, torch.bfloat16, "sbhd"),
    (4, 16, 16, 2048, 64, False, torch.bfloat16), (4, 16, 16, 2048, 64, True, torch.bfloat16),
    (1, 16, 16, 4096, (192, 128), False, torch.bfloat16), (1, 16, 16, 4096, (192, 128), True, torch.bfloat16),
    (1, 16, 16, 4096, 256, False, torch.bfloat16),
]
FWD_VARIANTS_S12 = {
    128: [("default/tma", "on", None), ("fused", "on", FC(128, 128, 8, 3, head_group=4, fused_softmax=True))],
    64: [("default/tma", "on", None), ("fused", "on", FC(128, 64, 4, 3, head_group=16, fused_softmax=True))],
    (192, 128): [("default/tma", "on", None), ("fused", "on", FC(128, 64, 8, 3, head_group=4, fused_softmax=True))],
    256: [("default/tma", "on", None), ("fused", "on", FC(128, 64, 8, 2, fused_softmax=True))],
}
BWD_VARIANTS_S12 = {k: [] for k in FWD_VARIANTS_S12}
# s13 (2026-12-01, H200, h200-2026-12-01j): the fused softmax of s12 timed again, interleaved (default, fused, default,
# fused: one median a variant left +-2%), before it goes into the table per head dim and mask; the hd128 forward's
# layout spread (the h200-2026-12-01i benchmark: GQA 8k BSHD / padded 1.08-1.12x BHSD, the backward's within 1.05)
# against the start order; and two untried hd128 tilings, the forward on four warpgroups (256/64, 16 warps) and the dQ
# pass over 128 keys.
ROWS_S13 = ROWS_S12 + [
    (1, 32, 8, 8192, 128, False, torch.bfloat16, "bshd"), (1, 32, 8, 8192, 128, False, torch.bfloat16, "bshd_pad"),
    (1, 32, 8, 8192, 128, True, torch.bfloat16),
]


def _abab(fused):
    return [("default/tma", "on", None), ("fused", "on", fused), ("default again", "on", None),
            ("fused again", "on", fused)]


_FUSED_128 = FC(128, 128, 8, 3, head_group=4, fused_softmax=True)
FWD_VARIANTS_S13 = {
    128: _abab(_FUSED_128) + [
        ("hg1", "on", None, dict(head_group=1)), ("hg8", "on", None, dict(head_group=8)),
        ("hg16", "on", None, dict(head_group=16)), ("fused hg16", "on", _FUSED_128, dict(head_group=16)),
        ("128/128 8w s2 fused", "on", FC(128, 128, 8, 2, head_group=4, fused_softmax=True)),
        ("256/64 16w s2", "on", FC(256, 64, 16, 2, head_group=4)),
        ("256/64 16w s2 fused", "on", FC(256, 64, 16, 2, head_group=4, fused_softmax=True))],
    64: _abab(FC(128, 64, 4, 3, head_group=16, fused_softmax=True)),
    (192, 128): _abab(FC(128, 64, 8, 3, head_group=4, fused_softmax=True)),
    256: _abab(FC(128, 64, 8, 2, fused_softmax=True)),
}
BWD_VARIANTS_S13 = {k: [] for k in FWD_VARIANTS_S13}
BWD_VARIANTS_S13[128] = [  # against the non-causal entry (the causal rows' default is the one-warpgroup DKDV)
    ("default", "on", None),
    ("dq 128/128 s2", "on", BC(64, 128, 128, 128, 8, 3, "separate", dq_num_warps=8, dq_num_stages=2,
                                head_group=8, dv_after_dp=True)),
    ("dq 128/64 s4", "on", BC(64, 128, 128, 64, 8, 3, "separate", dq_num_warps=8, dq_num_stages=4,
                               head_group=8, dv_after_dp=True))]
# s14 (h200-2026-12-01j; prepared for adoption later: each change to the table needs the full
# plan): forward tiles with the fused softmax where s13 left a head dim below 0.8 of cuDNN's forward
# (192/128 nc, hd128 nc) or where the fused softmax now runs (hd64).
ROWS_S14 = [
    (2, 16, 16, 4096, 128, False, torch.bfloat16), (1, 16, 16, 8192, 128, False, torch.bfloat16),
    (4, 16, 16, 2048, 64, False, torch.bfloat16), (4, 16, 16, 2048, 64, True, torch.bfloat16),
    (1, 16, 16, 4096, (192, 128), False, torch.bfloat16), (1, 16, 16, 4096, (192, 128), True, torch.bfloat16),
]
FWD_VARIANTS_S14 = {
    128: [("default/tma", "on", None), ("fused", "on", _FUSED_128),
          ("128/64 8w s3 fused", "on", FC(128, 64, 8, 3, head_group=4, fused_softmax=True)),
          ("128/64 8w s4 fused", "on", FC(128, 64, 8, 4, head_group=4, fused_softmax=True)),
          ("default again", "on", None)],
    64: [("default/tma", "on", None), ("plain", "on", FC(128, 64, 4, 3, head_group=16)),
         ("128/128 8w s3 fused", "on", FC(128, 128, 8, 3, head_group=16, fused_softmax=True)),
         ("128/64 8w s3 fused", "on", FC(128, 64, 8, 3, head_group=16, fused_softmax=True)),
         ("128/64 4w s4 fused", "on", FC(128, 64, 4, 4, head_group=16, fused_softmax=True)),
         ("default again", "on", None)],
    (192, 128): [("default/tma", "on", None), ("fused", "on", FC(128, 64, 8, 3, head_group=4, fused_softmax=True)),
                 ("128/64 8w s4", "on", FC(128, 64, 8, 4, head_group=4)),
                 ("128/64 8w s4 fused", "on", FC(128, 64, 8, 4, head_group=4, fused_softmax=True)),
                 ("128/128 8w s2", "on", FC(128, 128, 8, 2, head_group=4)),
                 ("128/128 8w s2 fused", "on", FC(128, 128, 8, 2, head_group=4, fused_softmax=True)),
                 ("default again", "on", None)],
}
BWD_VARIANTS_S14 = {k: [] for k in FWD_VARIANTS_S14}
# s15 (h200-2026-12-01j): the fused softmax's halves apart (ForwardConfig.pv_accumulate): the scale fold alone,
# P V through the product's accumulator alone, both, neither, each twice. s13: both lose 1-4% at hd128
# non-causal and win 4-6% at hd128 causal and hd64; which half does which decides whether hd128 nc gets one.
ROWS_S15 = [
    (2, 16, 16, 4096, 128, False, torch.bfloat16), (1, 16, 16, 8192, 128, False, torch.bfloat16),
    (1, 32, 8, 8192, 128, False, torch.bfloat16), (2, 16, 16, 4096, 128, False, torch.float16),
    (2, 16, 16, 4096, 128, True, torch.bfloat16), (4, 16, 16, 2048, 64, False, torch.bfloat16),
    (1, 16, 16, 4096, (192, 128), False, torch.bfloat16),
]


def _halves(c):
    r = dataclasses.replace
    both, scale, acc, plain = (r(c, fused_softmax=f, pv_accumulate=a) for f, a in
                               ((True, True), (True, False), (False, True), (False, False)))
    return [("plain", "on", plain), ("both", "on", both), ("scale fold", "on", scale), ("pv acc", "on", acc),
            ("plain again", "on", plain), ("both again", "on", both), ("scale fold again", "on", scale),
            ("pv acc again", "on", acc)]


FWD_VARIANTS_S15 = {128: _halves(FC(128, 128, 8, 3, head_group=4)), 64: _halves(FC(128, 64, 4, 3, head_group=16)),
                    (192, 128): _halves(FC(128, 64, 8, 3, head_group=4))}
BWD_VARIANTS_S15 = {k: [] for k in FWD_VARIANTS_S15}
# s16 (2026-12-01, H200, h200-2026-12-01k): the DKDV and dQ passes as one launch (BackwardConfig.fused_dq): the dQ
# programs start after the DKDV pass's and take the SMs its last wave leaves idle, as the dQ pass on a second stream of
# s7c / s8 did (+1-4% on the GPU-bound rows, but 41-77 us of host time for the stream switch), here with no host cost and one
# launch fewer. Predicted from the waves: (2,16,4096,128) nc 7.76 DKDV waves + 7.76 dQ waves of 0.75 the length, 14.0 ->
# 13.6 units, -3%; GQA 8k nc -3%; causal rows less (their tails are already short). Local sm_90a compile (Triton 3.6):
# the fused kernel with the dQ branch first spills as the two kernels apart (297 + 0 against 304 + 0 STL at hd128 TMA);
# with the DKDV branch first it spilled 496. Each row interleaved: default, fused, default, fused.
ROWS_S16 = ROWS_S7C + [(2, 16, 16, 4096, 128, False, torch.float16)]


def _fused_pair(c, name="fused"):
    return [("default", "on", None), (name, "on", c), ("default again", "on", None), (f"{name} again", "on", c)]


_FUSED_128_NC = BC(64, 128, 128, 64, 8, 3, "separate", head_group=8, dv_after_dp=True, fused_dq=True)
BWD_VARIANTS_S16 = {
    # the causal rows' default is the one-warpgroup DKDV (4 warps) beside an 8-warp dQ pass: fused at the
    # non-causal entry's 8 warps, and on one warpgroup with a 64-row dQ pass
    128: _fused_pair(_FUSED_128_NC) + [
        ("apart 8w", "on", dataclasses.replace(_FUSED_128_NC, fused_dq=False)),
        ("fused 1wg", "on", BC(32, 64, 64, 64, 4, 3, "separate", head_group=8, dv_after_dp=True, fused_dq=True))],
    64: _fused_pair(BC(32, 128, 64, 64, 4, 3, "separate", head_group=16, dv_after_dp=True, fused_dq=True),
                    "fused s3") + [
        ("fused s4", "on", BC(32, 128, 64, 64, 4, 4, "separate", head_group=16, dv_after_dp=True, fused_dq=True))],
    (192, 128): _fused_pair(BC(32, 64, 64, 32, 4, 3, "separate", head_group=4, fused_dq=True)),
}
FWD_VARIANTS_S16 = {k: [] for k in BWD_VARIANTS_S16}
# s16b (h200-2026-12-01k): the causal hd128 entry's fused launch (s16's winner) against its neighbours: the
# start order in groups of 4 or 16 heads, the dQ programs over 32 keys, both passes on 2 or 4 stages.
ROWS_S16B = [(2, 16, 16, 4096, 128, True, torch.bfloat16), (1, 16, 16, 8192, 128, True, torch.bfloat16),
             (1, 32, 8, 8192, 128, True, torch.bfloat16), (2, 16, 16, 4096, 128, True, torch.float16)]
BWD_VARIANTS_S16B = {128: [
    ("default", "on", None), ("hg4", "on", None, dict(head_group=4)), ("hg16", "on", None, dict(head_group=16)),
    ("dq 128/32", "on", dataclasses.replace(_FUSED_128_NC, block_n2=32)),
    ("s2", "on", dataclasses.replace(_FUSED_128_NC, num_stages=2)),
    ("s4", "on", dataclasses.replace(_FUSED_128_NC, num_stages=4)),
    ("default again", "on", None)]}
FWD_VARIANTS_S16B = {128: []}
# s16c (h200-2026-12-01k): the fused launch with the dQ programs on pointers (BackwardConfig.dq_kv_tma=False). Nsight
# Compute and SASS in h200-2026-12-01k: non-causal the fused kernel loads 763 MB of local memory against the DKDV
# kernel's 298, its DKDV branch reloading 7 spilled values an iteration against 3; a local sm_90a compile with the dQ
# branch's K/V descriptors gone reloads 4. Predicted: non-causal fused from 1-3% slower than apart to 1-2% faster (the
# wave tail's ~3%, less the dQ pass's descriptors: h200-2026-11-30 measured them 2.5% of that pass).
ROWS_S16C = [(2, 16, 16, 4096, 128, False, torch.bfloat16), (1, 16, 16, 8192, 128, False, torch.bfloat16),
             (1, 32, 8, 8192, 128, False, torch.bfloat16), (2, 16, 16, 4096, 128, False, torch.float16),
             (2, 16, 16, 4096, 128, True, torch.bfloat16), (1, 32, 8, 8192, 128, True, torch.bfloat16)]
_FUSED_PTR = dataclasses.replace(_FUSED_128_NC, dq_kv_tma=False)
_APART_8W = dataclasses.replace(_FUSED_128_NC, fused_dq=False)
BWD_VARIANTS_S16C = {128: [
    ("apart 8w", "on", _APART_8W), ("fused", "on", _FUSED_128_NC), ("fused ptr dq", "on", _FUSED_PTR),
    ("apart 8w ptr dq", "on", dataclasses.replace(_APART_8W, dq_kv_tma=False)),
    ("apart 8w again", "on", _APART_8W), ("fused again", "on", _FUSED_128_NC),
    ("fused ptr dq again", "on", _FUSED_PTR)]}
FWD_VARIANTS_S16C = {128: []}
# s17 (2026-12-01, H200, h200-2026-12-01l): one warpgroup a program, two programs an SM. Nsight Compute
# (h200-2026-12-01k) has the hd128 forward's and dQ
# pass's warps waiting at CTA barriers for 34-35% of their stall cycles, and the sm_90a SASS of the forward's
# 128/128 8-warp loop has 4 BAR.SYNC an iteration (the TMA stage reuse, its mbarrier arrive): both warpgroups
# issue their products together and then both run the softmax with the tensor cores idle. A 4-warp program
# synchronises only its own warpgroup, and two programs an SM interleave on their own, if both fit: the
# forward at 64/64 on 2 stages needs 82,944 B of shared memory (3 stages: 115,712, one program an SM), the dQ
# pass at 64/64 on 2 stages 99,328 and at 64/32 on 3 stages 82,944 (local sm_90a compile, Triton 3.6).
# Predicted: the hd128 forward and dQ pass 5-15% faster non-causal, less causal (smaller tiles add a rescale
# and a loop trip per 64 keys, and twice the L2 -> shared traffic).
ROWS_S17 = [(2, 16, 16, 4096, 128, False, torch.bfloat16), (2, 16, 16, 4096, 128, True, torch.bfloat16),
            (1, 16, 16, 8192, 128, False, torch.bfloat16), (1, 32, 8, 8192, 128, False, torch.bfloat16),
            (1, 32, 8, 8192, 128, True, torch.bfloat16), (2, 16, 16, 4096, 128, False, torch.float16)]
_APART_DQ_1WG = BC(64, 128, 64, 64, 8, 3, "separate", dq_num_warps=4, dq_num_stages=2, head_group=8,
                   dv_after_dp=True)
BWD_VARIANTS_S17 = {128: [
    ("default", "on", None), ("dq 64/64 4w s2", "on", _APART_DQ_1WG),
    ("dq 64/32 4w s3", "on", dataclasses.replace(_APART_DQ_1WG, block_n2=32, dq_num_stages=3)),
    ("apart 8w", "on", _APART_8W),
    ("default again", "on", None), ("dq 64/64 4w s2 again", "on", _APART_DQ_1WG)]}
_FWD_1WG = FC(64, 64, 4, 2, head_group=4)
FWD_VARIANTS_S17 = {128: [
    ("default", "on", None), ("64/64 4w s2", "on", _FWD_1WG),
    ("64/64 4w s2 fused", "on", dataclasses.replace(_FWD_1WG, fused_softmax=True)),
    ("64/128 4w s1", "on", FC(64, 128, 4, 1, head_group=4)),
    ("default again", "on", None), ("64/64 4w s2 again", "on", _FWD_1WG)]}
# s24 (2026-12-02, H200, h200-2026-12-02b): the Gluon backward at head dim 64 (the same kernel; K's swizzle spans 64 B
# so that each consumer's dQ column half of a K block is whole swizzle atoms) against the Triton kernels that run hd64
# today (0.78-0.80 of cuDNN non-causal, 0.87-0.89 causal); and dK, dV leaving by TMA stores (``_consumer_tma``) against
# pointer stores through their strides (local sm_90a compile, Triton 3.6: spills 220 / 236 B -> 144 / 180 at hd128, none
# at hd64 either way). Predicted: hd64 in Gluon at 0.95-1.05 of cuDNN non-causal (its 5 products where the Triton
# kernels do 7; the exponentials are twice the share of a tile's work that they are at hd128); the TMA epilogue 0-3% at
# hd128 (fewer spill reloads in the loop), nothing at hd64. Each row interleaved.
ROWS_S24 = [(4, 16, 16, 2048, 64, False, torch.bfloat16), (4, 16, 16, 2048, 64, True, torch.bfloat16),
            (4, 16, 16, 2048, 64, False, torch.float16), (4, 16, 16, 2048, 64, False, torch.bfloat16, "bshd"),
            (2, 16, 16, 4096, 128, False, torch.bfloat16), (2, 16, 16, 4096, 128, True, torch.bfloat16),
            (2, 16, 16, 4096, 128, False, torch.bfloat16, "bshd"), (1, 16, 16, 8192, 128, False, torch.bfloat16)]
_PTR_EPI = dict(gluon_bwd_tma_epilogue=False)
_TRITON = dict(gluon_backward=False)
BWD_VARIANTS_S24 = {
    64: [("gluon", "on", None), ("gluon ptr epi", "on", None, _PTR_EPI), ("triton", "on", None, _TRITON),
         ("gluon again", "on", None), ("gluon ptr epi again", "on", None, _PTR_EPI),
         ("triton again", "on", None, _TRITON)],
    128: [("gluon", "on", None), ("gluon ptr epi", "on", None, _PTR_EPI), ("gluon again", "on", None),
          ("gluon ptr epi again", "on", None, _PTR_EPI)]}
FWD_VARIANTS_S24 = {k: [] for k in BWD_VARIANTS_S24}
# s25 (2026-12-02, H200, h200-2026-12-02c): the Gluon backward at hd64 with query tiles of 128 rows, FlashAttention-3's
# hd64 tile (its products' M or K twice as long, half the per-tile handshakes, waits and side loads for the same work;
# 229,920 B of shared memory; Triton 3.6's ptxas spills 372 / 576 B where the 64-row tile spills none) against 64-row
# tiles (h200-2026-12-02b: 0.538 ms at (4,16,2048,64) bf16) and the Triton kernels that take hd64 today (0.528; cuDNN
# 0.427). Predicted: 0.45-0.50 ms if the per-tile fixed costs bound the 64-row kernel (3.5k cycles a tile for ~1.3k of
# products), no better than 64 rows if the spills' reloads sit in the loop. Each row interleaved.
ROWS_S25 = [(4, 16, 16, 2048, 64, False, torch.bfloat16), (4, 16, 16, 2048, 64, True, torch.bfloat16),
            (4, 16, 16, 2048, 64, False, torch.float16), (4, 16, 16, 2048, 64, False, torch.bfloat16, "bshd"),
            (2, 16, 16, 8192, 64, True, torch.bfloat16)]
_HD64 = dict(gluon_bwd_head_dims=(64, 128))
_HD64_R64 = dict(_HD64, gluon_bwd_hd64_rows=64)
BWD_VARIANTS_S25 = {
    64: [("gluon r128", "on", None, _HD64), ("gluon r64", "on", None, _HD64_R64), ("triton", "on", None, _TRITON),
         ("gluon r128 again", "on", None, _HD64), ("gluon r64 again", "on", None, _HD64_R64),
         ("triton again", "on", None, _TRITON)]}
FWD_VARIANTS_S25 = {k: [] for k in BWD_VARIANTS_S25}
# s25b (h200-2026-12-02c): the Gluon kernels' start order under the causal mask. Both started head by head (the
# backward's key blocks in order, the forward's query blocks costliest first within each head), where the Triton kernels
# start groups of heads costliest tile first (h200-2026-12-01e: 0.87 of ideal head by head against 0.99-1.00 for groups
# of 4-16 in a dispatch simulation at (2,16,4096,128) causal). Now ``program_tile`` in attention_fwd_gluon, groups of 8
# by default (``launch.GLUON_HEAD_GROUP``); the ``head_group`` switch overrides it. Predicted: 3-8% off the causal rows
# of both directions, nothing where a head has few tiles to order. Each row interleaved.
ROWS_S25B = [(2, 16, 16, 4096, 128, True, torch.bfloat16), (1, 16, 16, 8192, 128, True, torch.bfloat16),
             (1, 32, 8, 8192, 128, True, torch.bfloat16), (4, 16, 16, 2048, 64, True, torch.bfloat16)]
_G1, _G4, _G16 = dict(head_group=1), dict(head_group=4), dict(head_group=16)
BWD_VARIANTS_S25B = {
    128: [("g8", "on", None), ("g1", "on", None, _G1), ("g4", "on", None, _G4), ("g16", "on", None, _G16),
          ("g8 again", "on", None), ("g1 again", "on", None, _G1)],
    64: [("gluon r128 g8", "on", None, _HD64), ("gluon r128 g1", "on", None, dict(_HD64, head_group=1)),
         ("triton", "on", None, _TRITON), ("gluon r128 g8 again", "on", None, _HD64),
         ("gluon r128 g1 again", "on", None, dict(_HD64, head_group=1)), ("triton again", "on", None, _TRITON)]}
FWD_VARIANTS_S25B = {
    128: [("g8", "on", None), ("g1", "on", None, _G1), ("g8 again", "on", None), ("g1 again", "on", None, _G1)],
    64: []}
# s26 (2026-12-02, H200, h200-2026-12-02d): the Gluon backward's lse2 and delta rows brought in by the loader's TMA with
# each tile's Q and dO rows (h200-2026-12-02c had them 2-4% faster at hd128, then faulted on S_q not a multiple of 4: a
# one-dimensional box must start on 16 bytes; now the side buffers' heads are padded to 4 rows,
# ``launch.gluon_side_rows``), against cuDNN in the same process; and hd64 causal in the Gluon kernel against the Triton
# kernels that take it (local compile: the 128-row tile's spills 372 / 552 -> 244 / 360 B). Predicted: hd128 rows 2-4%
# over the s25b ratios, hd64 within noise of s25's. Each row interleaved.
ROWS_S26 = [(4, 16, 16, 2048, 64, False, torch.bfloat16), (4, 16, 16, 2048, 64, True, torch.bfloat16),
            (2, 16, 16, 4096, 128, False, torch.bfloat16), (2, 16, 16, 4096, 128, True, torch.bfloat16),
            (1, 16, 16, 8192, 128, False, torch.bfloat16), (1, 32, 8, 8192, 128, False, torch.bfloat16),
            (1, 32, 8, 8192, 128, True, torch.bfloat16), (2, 16, 16, 4096, 128, False, torch.bfloat16, "bshd")]
_HD64_CAUSAL = dict(gluon_bwd_head_dims=(64, 128), gluon_bwd_causal_head_dims=(64, 128))
BWD_VARIANTS_S26 = {
    128: [("gluon", "on", None), ("gluon again", "on", None)],
    64: [("gluon", "on", None, _HD64_CAUSAL), ("triton", "on", None, _TRITON),
         ("gluon again", "on", None, _HD64_CAUSAL), ("triton again", "on", None, _TRITON)]}
FWD_VARIANTS_S26 = {d: [] for d in (64, 128)}
# s45 (prepared 2026-12-05, run on an H100, h100-2026-12-05a): deterministic mode at D_qk 192 / D_v 128 runs the Triton
# kernels (by default: the Gluon 192 pass's deterministic form is off), at 1.16-1.17 of the default since
# h200-2026-12-04d made the default faster (bar 1.15). Its DKDV and dQ passes have one warp and stage count (4 warps, 3
# stages), so they can run as one launch (``BackwardConfig.fused_dq``): the dQ programs fill the SMs the DKDV pass's
# last wave leaves idle (hd128 causal, h200-2026-12-01k: 0-8%); or the dQ pass on a second stream; the fused launch
# chained to ODO (those two forms removed 2026-12-06, their variants with them). Predicted: 2-4% off the deterministic call causal, 1-2%
# non-causal, PDL ~1% more. "gluon" is the default mode's call (the denominator); the rest are the Triton path that
# deterministic calls take. Measured (an H100, docs/data/h100-2026-12-05a): the fused launch 10-20% slower than the
# passes apart in every row and head group, PDL 0-1%, the second stream even.
ROWS_S45 = [(1, 16, 16, 4096, (192, 128), True, torch.bfloat16), (1, 16, 16, 4096, (192, 128), False, torch.bfloat16),
            (1, 16, 16, 4096, (192, 128), True, torch.float16), (1, 16, 16, 4096, (192, 128), False, torch.float16)]
_T192 = launch.backward_config(256, 128, torch.bfloat16, "cuda", True)  # the table's 192 / 128 entry, its passes apart
_T192_FUSED = dataclasses.replace(_T192, fused_dq=True)
BWD_VARIANTS_S45 = {(192, 128): [
    ("gluon", "on", None), ("triton", "on", _T192), ("fused", "on", _T192_FUSED),
    ("fused g8", "on", dataclasses.replace(_T192_FUSED, head_group=8)),
    ("fused g2", "on", dataclasses.replace(_T192_FUSED, head_group=2)),
    ("fused s2", "on", dataclasses.replace(_T192_FUSED, num_stages=2, dq_num_stages=2)),
    ("triton again", "on", _T192), ("fused again", "on", _T192_FUSED), ("gluon again", "on", None)]}
FWD_VARIANTS_S45 = {(192, 128): []}
# s46 (2026-12-05, H100, h100-2026-12-05a): both s45 candidates measured slower on an H100 (the one card lent): the
# Gluon pass's deterministic form 1.39-1.40x of the default, the Triton passes as one launch 10-20% slower than apart.
# What is left is the passes' own tiles, stages and start order at 192 / 128, which s7 / s7b chose for the default mode
# (before the Gluon pass took it) and nobody has measured since for deterministic mode: the dQ pass streaming 64 keys a
# step (half the loop trips), its stage count, the start order's head groups. Measured (an H100,
# docs/data/h100-2026-12-05a): nothing beats the table's entry by more than its own 1-3% spread (dQ 64/64 +1-8%, its 2
# or 4 stages +14-23%, DKDV 2 stages +2-10%, groups of 1 / 2 +13-19% causal and -2 to +1% non-causal, of 8 / 16 -2 to
# +3%).
BWD_VARIANTS_S46 = {(192, 128): [
    ("gluon", "on", None), ("triton", "on", _T192),
    ("dq 64/64", "on", dataclasses.replace(_T192, block_n2=64)),
    ("dq 64/64 s2", "on", dataclasses.replace(_T192, block_n2=64, dq_num_stages=2)),
    ("dq s4", "on", dataclasses.replace(_T192, dq_num_stages=4)),
    ("dkdv s2", "on", dataclasses.replace(_T192, num_stages=2)),
    ("g1", "on", dataclasses.replace(_T192, head_group=1)), ("g2", "on", dataclasses.replace(_T192, head_group=2)),
    ("g8", "on", dataclasses.replace(_T192, head_group=8)), ("g16", "on", dataclasses.replace(_T192, head_group=16)),
    ("triton again", "on", _T192), ("gluon again", "on", None)]}
# s47 (prepared 2026-12-06, no device yet): hd80 and hd96 in the Gluon kernels at hd128, the bulk copies padding the
# columns (``attention_bwd_gluon.kernel_head_dim``, ``attention_fwd_gluon.kernel_head_dims``), against the Triton kernels
# that ran them before (padded to 128 in registers); rows from the sweep's tuning split (benchmarks/sweep.py --split
# tuning: tuning-000, -012, -023, -033) and one plain hd80 causal row. Predicted from the held-out sweep (H100,
# docs/data/h100-2026-12-06f): hd80 at 0.42-0.78 of cuDNN there, ~0.85-1.0 here: the padded columns cost 1.33-1.6x the
# products at the hd128 kernels' speed.
ROWS_S47 = [(3, 12, 1, 5376, 96, True, torch.float16, "bshd"), (1, 24, 6, 4864, 80, False, torch.bfloat16, "bshd"),
            (1, 40, 40, 4096, 96, False, torch.float16, "bshd"), (1, 24, 24, 1280, 96, True, torch.bfloat16, "bshd"),
            (4, 16, 16, 2048, 80, True, torch.bfloat16)]
_UNPADDED = dict(gluon_bwd_head_dims=(64, 128), gluon_bwd_causal_head_dims=(64, 128),
                 gluon_head_dims=((128, 128), (192, 128), (64, 64)))
_PADDED = dict(gluon_bwd_head_dims=(64, 80, 96, 128), gluon_bwd_causal_head_dims=(64, 80, 96, 128),
               gluon_head_dims=((128, 128), (192, 128), (64, 64), (80, 80), (96, 96)))
_S47 = [("gluon padded", "on", None, _PADDED), ("triton", "on", None, _UNPADDED),
        ("gluon padded again", "on", None, _PADDED), ("triton again", "on", None, _UNPADDED)]
BWD_VARIANTS_S47 = {80: _S47, 96: _S47}
FWD_VARIANTS_S47 = {80: _S47, 96: _S47}
# s48 (prepared 2026-12-06, no device left): short calls with shared K / V heads, the Gluon backward against the Triton
# kernels. On the held-out sweep (H100, docs/data/h100-2026-12-06g) B1-H24/12-S192-D96 ran 0.118 ms in the Triton
# kernels and 0.176 in the Gluon path (its five launches: ODO, the pass, DQ_CONVERT and GQA's two accumulator
# conversions), at every head dim the Gluon kernels take. Rows: the sweep's tuning split's short GQA / MQA rows
# (tuning-017, -028, -013, -018) and a longer GQA one (tuning-026) as the control; a size rule (keys x heads, say) for
# short shared-head calls is chosen from these, never from the held-out rows. Since 2026-12-07 the Gluon path makes
# three launches (one conversion of all three accumulators): 8-13% faster on the short rows, the Triton kernels still
# ahead on the second (0.062 against 0.087 ms, H100, docs/data/h100-2026-12-07c/ab-s48.txt).
ROWS_S48 = [(1, 64, 4, (256, 1024), 96, False, torch.bfloat16, "bshd"),
            (1, 32, 16, 448, 64, False, torch.bfloat16, "bshd_pad"),
            (1, 8, 1, 384, 128, True, torch.float16, "bshd_pad"), (2, 16, 1, 896, 64, True, torch.float16, "bshd"),
            (1, 28, 14, (1879, 3529), 64, False, torch.bfloat16, "bshd")]
_S48 = [("gluon", "on", None), ("triton", "on", None, _TRITON), ("gluon again", "on", None),
        ("triton again", "on", None, _TRITON)]
BWD_VARIANTS_S48 = {64: _S48, 96: _S48, 128: _S48}
FWD_VARIANTS_S48 = {64: [], 96: [], 128: []}
TABLES = {"configs": (ROWS, BWD_VARIANTS, FWD_VARIANTS), "s6": (ROWS_S6, BWD_VARIANTS_S6, FWD_VARIANTS_S6),
          "s7": (ROWS_S7, BWD_VARIANTS_S7, FWD_VARIANTS_S7), "s7b": (ROWS_S7B, BWD_VARIANTS_S7B, FWD_VARIANTS_S7B),
          "s8b": (ROWS_S8B, BWD_VARIANTS_S8B, FWD_VARIANTS_S8B),
          "s9": (ROWS_S9, BWD_VARIANTS_S9, FWD_VARIANTS_S9), "s10": (ROWS_S10, BWD_VARIANTS_S10, FWD_VARIANTS_S10),
          "s12": (ROWS_S12, BWD_VARIANTS_S12, FWD_VARIANTS_S12), "s13": (ROWS_S13, BWD_VARIANTS_S13, FWD_VARIANTS_S13),
          "s14": (ROWS_S14, BWD_VARIANTS_S14, FWD_VARIANTS_S14), "s15": (ROWS_S15, BWD_VARIANTS_S15, FWD_VARIANTS_S15),
          "s16": (ROWS_S16, BWD_VARIANTS_S16, FWD_VARIANTS_S16),
          "s16b": (ROWS_S16B, BWD_VARIANTS_S16B, FWD_VARIANTS_S16B),
          "s16c": (ROWS_S16C, BWD_VARIANTS_S16C, FWD_VARIANTS_S16C),
          "s17": (ROWS_S17, BWD_VARIANTS_S17, FWD_VARIANTS_S17),
          "s24": (ROWS_S24, BWD_VARIANTS_S24, FWD_VARIANTS_S24),
          "s25": (ROWS_S25, BWD_VARIANTS_S25, FWD_VARIANTS_S25),
          "s25b": (ROWS_S25B, BWD_VARIANTS_S25B, FWD_VARIANTS_S25B),
          "s26": (ROWS_S26, BWD_VARIANTS_S26, FWD_VARIANTS_S26),
          "s45": (ROWS_S45, BWD_VARIANTS_S45, FWD_VARIANTS_S45),
          "s46": (ROWS_S45, BWD_VARIANTS_S46, FWD_VARIANTS_S45),
          "s47": (ROWS_S47, BWD_VARIANTS_S47, FWD_VARIANTS_S47),
          "s48": (ROWS_S48, BWD_VARIANTS_S48, FWD_VARIANTS_S48)}


def _variant(v):
    return v if len(v) == 4 else (*v, None)


def bench(fn):
    return triton.testing.do_bench(fn, warmup=10, rep=50, return_mode="median")


def rel(a, b):
    a, b = a.float(), b.float()
    return ((a - b).norm() / b.norm().clamp_min(1e-30)).item()


def split(fn):
    for _ in range(2):
        fn()
    torch.cuda.synchronize()
    with torch.profiler.profile(activities=[torch.profiler.ProfilerActivity.CUDA]) as prof:
        for _ in range(5):
            fn()
        torch.cuda.synchronize()
    out = {}
    for ev in prof.key_averages():
        t = getattr(ev, "device_time_total", None) or getattr(ev, "cuda_time_total", 0)
        if t and "attention" in ev.key:
            out[ev.key.split("attention_")[-1][:24]] = round(t / 5 / 1000.0, 4)
    return out


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--out", default="/tmp/ab")
    ap.add_argument("--budget", type=float, default=420.0)
    ap.add_argument("--d-qk", type=int, default=None,
                    help="only the rows with this D_qk (192: the split-vs-padded A/B alone)")
    ap.add_argument("--variants", default=None,
                    help="comma-separated variant names to run (both tables), e.g. default/tma,padded")
    ap.add_argument("--table", choices=sorted(TABLES), default="configs",
                    help="configs: the first tile/atomic/TMA variants; s6: start order and dV after dP; "
                         "s7: warps against tile rows; s8b: hd128's one-warpgroup DKDV pass under causal masks; "
                         "s9: hd256 on one warpgroup (split DKDV); s10: the split at hd128 / hd64, hd256 shapes; "
                         "s12: the forward's fused softmax; s13: s12 interleaved, start order, hd128 tilings; "
                         "s14: forward tiles with the fused softmax; s15: the fused softmax's halves; "
                         "s16: the DKDV and dQ passes as one launch; s16b: the causal hd128 fused entry's neighbours; "
                         "s16c: the fused launch with the dQ programs on pointers; "
                         "s17: the forward and dQ pass on one warpgroup, two programs an SM; "
                         "s24: the Gluon backward at hd64, and its dK, dV by TMA store; "
                         "s25: the Gluon backward at hd64 with 128-row query tiles; "
                         "s25b: the Gluon kernels' causal start order, groups of heads costliest first; "
                         "s26: the Gluon backward's lse2 / delta rows by TMA, hd64 causal in it against the Triton "
                         "kernels; "
                         "s45: deterministic mode's Triton path at 192/128, its two passes as one launch; "
                         "s46: that path's dQ tiles, stages and head groups")
    ap.add_argument("--warm-only", action="store_true", help="run each variant once, untimed (fills the cache)")
    ap.add_argument("--shard", default="1/1", help="i/n: this process's share of the (row, variant) pairs")
    args = ap.parse_args()
    rows, bwd_table, fwd_table = TABLES[args.table]
    shard_i, shard_n = (int(x) for x in args.shard.split("/"))
    wanted = None if args.variants is None else set(args.variants.split(","))
    warnings.filterwarnings("ignore")
    os.makedirs(args.out, exist_ok=True)
    t0 = time.time()
    results = []
    meta = dict(device=torch.cuda.get_device_name(), torch=torch.__version__, triton=triton.__version__,
                when=time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()), table=args.table)
    out_name = "ab_perf.json" if args.table == "configs" else f"ab_perf_{args.table}.json"
    pair_no = 0

    def mine() -> bool:   # this shard's (row, variant) pairs, round robin
        nonlocal pair_no
        pair_no += 1
        return (pair_no - 1) % shard_n == shard_i - 1

    def save():  # after every measurement, so a run stopped by a time limit keeps what it measured
        if args.warm_only:
            return
        with open(os.path.join(args.out, out_name), "w") as f:
            json.dump(dict(meta=meta, results=results), f, indent=1)
    for row in rows:
        B, Hq, Hkv, S, D, causal, dtype = row[:7]
        layout = row[7] if len(row) > 7 else "bhsd"
        d_qk, d_v = D if isinstance(D, tuple) else (D, D)
        S_q, S_kv = S if isinstance(S, tuple) else (S, S)  # causal: the diagonal at the top left, as cuDNN's
        if args.d_qk is not None and d_qk != args.d_qk:
            continue
        gen = torch.Generator(device="cuda").manual_seed(S_q + (S_kv if S_kv != S_q else 0) + d_qk + d_v + causal)
        q = make(B, Hq, S_q, d_qk, layout, dtype, gen)
        do = make(B, Hq, S_q, d_v, layout, dtype, gen)
        k = make(B, Hkv, S_kv, d_qk, layout, dtype, gen)
        v = make(B, Hkv, S_kv, d_v, layout, dtype, gen)
        rb = 0 if causal else None
        tag = (f"({B},{Hq}/{Hkv},{S_q if S_q == S_kv else f'{S_q}/{S_kv}'},{d_qk}/{d_v}) "
               f"{'causal' if causal else 'nc'} {str(dtype)[6:]} {layout}")
        t_cudnn = t_cudnn_fwd = float("nan")
        ref = out = None
        if not args.warm_only:
            qg, kg, vg = (t.detach().requires_grad_() for t in (q, k, v))
            try:
                with sdpa_kernel(SDPBackend.CUDNN_ATTENTION):
                    out = F.scaled_dot_product_attention(qg, kg, vg, is_causal=causal, enable_gqa=Hq != Hkv)
                    ref = torch.autograd.grad(out, (qg, kg, vg), do, retain_graph=True)
                    t_cudnn = bench(lambda: torch.autograd.grad(out, (qg, kg, vg), do, retain_graph=True))
                    t_cudnn_fwd = bench(lambda: F.scaled_dot_product_attention(q, k, v, is_causal=causal,
                                                                                enable_gqa=Hq != Hkv))
                print(f"{tag}: cuDNN bwd {t_cudnn:.3f} ms, fwd {t_cudnn_fwd:.3f} ms", flush=True)
            except RuntimeError as exc:  # a head dim cuDNN declines (hd256): PyTorch's math backend as reference
                with sdpa_kernel(SDPBackend.MATH):
                    out = F.scaled_dot_product_attention(qg, kg, vg, is_causal=causal, enable_gqa=Hq != Hkv)
                    ref = torch.autograd.grad(out, (qg, kg, vg), do, retain_graph=True)
                print(f"{tag}: cuDNN declines ({str(exc)[:80]}); errors against PyTorch's math backend, no "
                      "ratios", flush=True)
        base = None
        launch.set_tma_mode("off")
        o, st = launch.attention_forward(q, k, v, right_bound=rb)
        for name, tma, cfg, knobs in map(_variant, bwd_table[D]):
            if (wanted is not None and name not in wanted) or not mine():
                continue
            if time.time() - t0 > args.budget:
                print("budget spent", flush=True)
                break
            launch.set_tma_mode(tma)
            try:
                with launch.switches(**(knobs or {})):
                    fn = lambda: launch.attention_backward(q, k, v, o, do, st, right_bound=rb, config=cfg)  # noqa: E731
                    grads = fn()
                    if args.warm_only:
                        continue
                    t = bench(fn)
                    parts = split(fn)
                e_ref = max(rel(a, b) for a, b in zip(grads, ref))
                e_base = 0.0 if base is None else max(rel(a, b) for a, b in zip(grads, base))
                if base is None:
                    base = grads
                r = dict(row=tag, kind="bwd", variant=name, tma=tma, config=cfg and dataclasses.asdict(cfg),
                         knobs=knobs, ms=t, cudnn_ms=t_cudnn, ratio=t_cudnn / t, err_vs_cudnn=e_ref,
                         err_vs_default=e_base, split=parts)
                print(f"  bwd {name:18} {t:.3f} ms ratio {t_cudnn / t:.3f} err cudnn {e_ref:.1e} "
                      f"first variant {e_base:.1e} split {parts}", flush=True)
            except Exception as exc:
                r = dict(row=tag, kind="bwd", variant=name, error=f"{type(exc).__name__}: {str(exc)[:300]}")
                print(f"  bwd {name}: FAILED {r['error']}", flush=True)
            results.append(r)
            save()
        o_ref = None if out is None else out.detach()
        for name, tma, cfg, knobs in map(_variant, fwd_table[D]):
            if (wanted is not None and name not in wanted) or not mine():
                continue
            if time.time() - t0 > args.budget:
                break
            launch.set_tma_mode(tma)
            try:
                if cfg is not None:
                    orig = launch.forward_config
                    launch.forward_config = lambda *a, _c=cfg: _c
                with launch.switches(**(knobs or {})):
                    fn = lambda: launch.attention_forward(q, k, v, right_bound=rb)  # noqa: E731
                    o2, _ = fn()
                    if args.warm_only:
                        continue
                    t = bench(fn)
                e = rel(o2, o_ref)
                r = dict(row=tag, kind="fwd", variant=name, tma=tma, config=cfg and dataclasses.asdict(cfg),
                         knobs=knobs, ms=t, cudnn_ms=t_cudnn_fwd, ratio=t_cudnn_fwd / t, err_vs_cudnn=e)
                print(f"  fwd {name:18} {t:.3f} ms ratio {t_cudnn_fwd / t:.3f} err cudnn {e:.1e}", flush=True)
            except Exception as exc:
                r = dict(row=tag, kind="fwd", variant=name, error=f"{type(exc).__name__}: {str(exc)[:300]}")
                print(f"  fwd {name}: FAILED {r['error']}", flush=True)
            finally:
                if cfg is not None:
                    launch.forward_config = orig
            results.append(r)
            save()
        launch.set_tma_mode("auto")
        del out, ref, base
        torch.cuda.empty_cache()
    save()
    print(f"ab_perf{' (warm-only)' if args.warm_only else ''}: {len(results)} measurements in "
          f"{time.time() - t0:.0f} s", flush=True)


if __name__ == "__main__":
    main()
