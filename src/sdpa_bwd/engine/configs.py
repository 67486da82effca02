"""The Triton kernels' configs: the dataclasses, the measured tables (``forward_config``, ``backward_config``), the
autotuner's candidates, and the head-dim arithmetic the planner and the tables share (issue 52: moved out of
``launch.py`` unchanged, 2026-12-06)."""

from __future__ import annotations

import dataclasses
import functools
from dataclasses import dataclass
from typing import Optional

import torch

@dataclass(frozen=True)
class ForwardConfig:
    block_m: int
    block_n: int
    num_warps: int
    num_stages: int
    # Cover D_qk with two power-of-two column chunks where ``d_qk_chunks`` says so (192 = 128 + 64)
    # rather than padding it to the next power of two; False forces the pad (the A/B baseline).
    split_d_qk: bool = True
    # Programs start in groups of this many heads, costliest tile first inside a group
    # (kernels.attention_fwd.program_tile); 1 is the plain head-by-head order.
    head_group: int = 8
    # The softmax with the score scale folded into exp2's argument (one FMA) and P V accumulated through the
    # product's accumulator (kernels.attention_fwd._fwd_tiles, FUSED_SOFTMAX); taken only where scale > 0.
    # In the 16-bit table for hd64, hd128 causal and hd256, where it won in both of two A/Bs (2026-12-01, H200;
    # ``forward_config``); hd128 non-causal and 192/128 keep the plain softmax.
    fused_softmax: bool = False
    # Its second half alone (kernel constexpr PV_ACC): P V through the product's accumulator. None: with
    # fused_softmax (where that is taken); True / False: on or off whatever fused_softmax says, so that the
    # scale fold and the accumulation can be timed apart. Measured (2026-12-01, H200, ab_perf --table s15,
    # docs/data/h200-2026-12-01j/run52): the fold alone gives the fused path's time on every row, wins and losses; the
    # accumulation alone is within 1% of plain everywhere.
    pv_accumulate: Optional[bool] = None


@dataclass(frozen=True)
class BackwardConfig:
    # DKDV pass: BLOCK_N1 keys stay resident, BLOCK_M1 query rows stream.
    block_m1: int
    block_n1: int
    # DQ pass: BLOCK_M2 query rows stay resident, BLOCK_N2 keys stream.
    block_m2: int
    block_n2: int
    num_warps: int
    num_stages: int
    # "atomic": dQ partials added from the DKDV pass into a fp32 dq_accum, then converted;
    # "separate": a DQ pass that recomputes P (deterministic, no atomics).
    dq_mode: str
    # The DQ pass's own warps/stages (None: same as the DKDV pass).
    dq_num_warps: Optional[int] = None
    dq_num_stages: Optional[int] = None
    # As ForwardConfig.split_d_qk, for every backward kernel.
    split_d_qk: bool = True
    # As ForwardConfig.head_group, for the DKDV and DQ passes.
    head_group: int = 8
    # DKDV issues the dV product after the dP product's wait, so that it runs under the dS
    # arithmetic (kernels.attention_bwd._dkdv_tiles); False: dV, then dP.
    dv_after_dp: bool = False
    # The DKDV pass as two passes even when H_k == H_v, one owning dK and one dV (as for H_k != H_v):
    # one accumulator a pass, so hd256's fits one warpgroup (64 x 256 fp32 = 128 registers a thread)
    # at the price of S^T and P computed in both. The hd256 16-bit entry (ab_perf --table s9, 2026-12-01, H200,
    # docs/data/h200-2026-12-01h/run33).
    split_dkdv: bool = False
    # The DKDV pass and the dQ pass as one launch (kernels.attention_bwd_fused_kernel): the dQ programs start
    # after the DKDV pass's and fill the SMs its last wave leaves idle. Needs one warp count and stage count
    # for both passes (dq_num_warps / dq_num_stages None or equal). Taken where the call has one DKDV pass
    # owning dK and dV (H_k == H_v, no split_dkdv) in the separate dQ mode, and no output handed in touches an
    # input or another output (_outputs_apart: the passes run at once); else the two kernels run apart.
    fused_dq: bool = False
    # The dQ pass streams K and V through tensor descriptors where the layout allows it (False: through
    # pointers always). In the fused launch, descriptors in the dQ branch cost the DKDV branch registers: local
    # sm_90a compile, hd128, its unmasked loop reloads 7 spilled values an iteration with them, 4 without,
    # 3 in the DKDV kernel alone. Measured (2026-12-01, H200, ab_perf --table s16c, docs/data/h200-2026-12-01k/run60):
    # pointers cost the dQ programs more than the reloads, fused or apart: (2,16,4096,128) nc fused 1.713 / 1.755 ->
    # 1.773 / 1.775 ms, apart 1.681 / 1.696 -> 1.731; causal fused 1.007 / 0.996 -> 1.083 / 1.078. So every table entry
    # keeps True.
    dq_kv_tma: bool = True

    def __post_init__(self):
        if self.fused_dq and (self.dq_num_warps not in (None, self.num_warps)
                              or self.dq_num_stages not in (None, self.num_stages)):
            raise ValueError(
                f"BackwardConfig(fused_dq=True) with num_warps={self.num_warps}, num_stages={self.num_stages} but "
                f"dq_num_warps={self.dq_num_warps}, dq_num_stages={self.dq_num_stages}: one launch has one warp "
                f"count and stage count for both passes; set the dQ pass's to None (or equal) or fused_dq=False")


_INTERPRETER_FWD = ForwardConfig(block_m=16, block_n=16, num_warps=4, num_stages=1)
# dV after dP as on the GPU's hd <= 128 configs; tests/test_program_order.py checks the other order too.
_INTERPRETER_BWD = BackwardConfig(16, 16, 16, 16, num_warps=4, num_stages=1, dq_mode="atomic", dv_after_dp=True)


def head_dim_pad(d: int) -> int:
    """The power of two (at least 16) a head dim's tiles are padded to. Plain int arithmetic, as
    ``_cdiv``: ``triton.next_power_of_2`` / ``triton.cdiv`` are constexpr functions, a few us of
    host time a call each (``tools/host_overhead.py --python-only``)."""
    return 16 if d <= 16 else 1 << (d - 1).bit_length()


def _cdiv(a: int, b: int) -> int:
    """ceil(a / b) for ints, b > 0: a launch grid's tile count."""
    return -(-a // b)


def d_qk_chunks(d_qk: int, dtype: torch.dtype, split: bool = True) -> tuple[int, int]:
    """(D_QK_PAD, D_QK_SPLIT): the column chunks the kernels cover D_qk with.

    For 16-bit dtypes a D_qk in (128, 192] runs as a full 128-column chunk plus a
    second one of pad(D_qk - 128) columns (192 = 128 + 64, DeepSeek-V3's D_qk), not
    as one chunk padded to 256: the pad made a quarter of every product over D_qk
    multiply zeros (QK^T and dK in the DKDV pass, QK^T and dQ in the dQ pass: 4 of
    the backward's 7 products; QK^T: 1 of the forward's 2). Everything else: one chunk, pad(D_qk), and
    D_QK_SPLIT = 0, which compiles to the kernels' code from before the split
    (same PTX for sm_90a on Triton 3.6 and 3.9, local compile).
    fp32 keeps the pad: its dots are FMA loops, not tensor-core MMAs, and ptxas
    (Triton 3.6, sm_90a) compiles the split fp32 forward at its 64/32 config to 32
    registers and 9.9 KB of stack per thread (padded: 255 registers, 464 B).
    """
    if split and dtype != torch.float32 and 128 < d_qk <= 192:
        return 128, head_dim_pad(d_qk - 128)
    return head_dim_pad(d_qk), 0


@functools.lru_cache(maxsize=None)
def forward_config(d_qk_pad: int, d_v_pad: int, dtype: torch.dtype, device_type: str,
                   causal: bool = False) -> ForwardConfig:
    """The measured config for a head-dim class; ``causal`` (right_bound 0, no left bound, either alignment)
    picks the hd128 16-bit entry with the fused softmax, the one mask where it wins at hd128.

    The fused softmax (``ForwardConfig.fused_softmax``), H200 bf16 BHSD, plain -> fused, ms, 2026-12-01: one
    timing each (ab_perf --table s12, docs/data/h200-2026-12-01i/run45), then two each, interleaved, the faster
    kept (--table s13, docs/data/h200-2026-12-01j/run46): hd64 nc 0.188 -> 0.179, 0.186 -> 0.177; hd64 causal 0.115 ->
    0.114, 0.114 -> 0.112; hd128 causal (2,16,4096) 0.307 -> 0.293, 0.309 -> 0.291, (1,32/8,8192) 1.070 -> 1.041 (the
    second); hd256 nc 0.566 -> 0.552, 0.563 -> 0.550. It loses at hd128 non-causal: (2,16,4096) 0.509 -> 0.525, 0.525 ->
    0.527; (1,16,8192) 1.074 -> 1.064, 1.011 -> 1.049; (1,32/8,8192) 2.104 -> 2.093, 2.020 -> 2.059; fp16 0.541 ->
    0.547, 0.543 -> 0.548; and 192/128 is even (nc 0.347 -> 0.343, causal 0.191 both, the second)."""
    if device_type != "cuda":
        return _INTERPRETER_FWD
    if dtype == torch.float32:
        # fp32 dots are FMA loops (no tensor cores): the 16-bit tiles only cost compile time and
        # shared memory. The hd128 one needs 229,888 B of the H200's 232,448 in fp32 and compiles in
        # 13.1 s; 64/32 on 2 stages: 73,984 B and 5.9 s (hd64: 12.8 -> 3.0 s; local ptxas, Triton
        # 3.6, sm_90a). The fp32 forward was 20% of a cold compile of the full plan
        # (docs/data/compile-times-sm90.md as of c1a2ba6); 64/32 s2 is the config fp32 hd256 already ran with.
        # 8 warps, not 4: each thread unrolls half the FMAs, and ptxas's time follows that (2026-12-06, local
        # ptxas, Triton 3.6, sm_90a, scratch compile of quick's pair-014 / pair-003 forwards: hd256 20.8 -> 7.9 s,
        # hd128 7.9 -> 3.3 s; on the H100 pair-014's compiles ended the quick level's cold run).
        return ForwardConfig(64, 32, num_warps=8, num_stages=2)
    d = max(d_qk_pad, d_v_pad)
    # head_group: the start order's A/B, H200 bf16 (ab_perf --table s6, 2026-12-01, docs/data/h200-2026-12-01e),
    # causal rows against the head-by-head order: (4,16,2048,64) 0.132 -> 0.115 ms with groups of 16
    # (0.128 with 8); (2,16,4096,128) 0.358 -> 0.322, (1,32/8,8192,128) 1.208 -> 1.174 with 4 (0.323, 1.206
    # with 8); non-causal rows within 1%.
    if d <= 64:
        return ForwardConfig(128, 64, num_warps=4, num_stages=3, head_group=16, fused_softmax=True)
    if d <= 128:
        # 2026-12-01, H200 (ab_perf --table s7b, bf16, docs/data/h200-2026-12-01f): 128/128 on 3 stages against the
        # 128/64 of the FA2/Triton tutorial shape that every earlier number ran: (2,16,4096) 0.575 -> 0.514 ms
        # non-causal, 0.324 -> 0.306 causal, (1,32/8,8192) 2.206 -> 1.972 (4 stages need 296 KB of shared memory).
        # Later that day (--table s13, docs/data/h200-2026-12-01j/run46): 2 stages 0.527 -> 0.625 ms (fused), 256/64 on
        # 16 warps 0.706; the start order in groups of 1 / 8 / 16 heads against 4: within 2% non-causal at (2,16,4096),
        # 3-10% slower on the GQA rows (any layout) and causal.
        return ForwardConfig(128, 128, num_warps=8, num_stages=3, head_group=4, fused_softmax=causal)
    if d_qk_pad == 256 and d_v_pad <= 128 and dtype != torch.float32:
        # fp32 keeps the hd256 config: these tiles need 272-320 KiB of shared memory in fp32
        # (OutOfResources on plan cases pair-025/pair-070, device run 2026-12-01).
        # D_qk 192 / D_v 128 (DeepSeek-V3), H200 bf16 (1,16,4096) (A/B, 2026-12-01,
        # benchmarks/results/h200/ab_perf_h200-2026-12-01.json): 64/64 tiles, 4 warps, 3 stages 0.442 ms nc / 0.270 causal against
        # 0.623 / 0.397 for the hd256 config. Measured padded to 256; kept for the 128 + 64 split (d_qk_chunks), which
        # needs less: a K stage is 64 x 192 x 2 B = 24 KiB instead of 32, so 3 x (24 + 16 for V) + 24 for Q = 144 KiB
        # instead of 176 (ptxas, sm_90a, Triton 3.6: 145 KiB with TMA, 149-150 registers, no stack, as padded).
        # Start order: (1,16,4096,192/128) causal 0.265 -> 0.248 ms with groups of 4 (docs/data/h200-2026-12-01e).
        # ab_perf --table s7, s7b (2026-12-01, docs/data/h200-2026-12-01f): 128/64 on 8 warps, 3 stages, which the
        # split's smaller K stages let fit, 0.432 -> 0.339-0.344 ms non-causal, 0.249 -> 0.193 causal (2 stages: 0.437 /
        # 0.257).
        return ForwardConfig(128, 64, num_warps=8, num_stages=3, head_group=4)
    # hd256 (16-bit; fp32 returned above): ab_perf --table s10 (2026-12-01, H200, docs/data/h200-2026-12-01h/run34,
    # (1,16,4096,256) bf16): 128/64 on 8 warps, 2 stages, 0.676 -> 0.559 ms non-causal, 0.365 -> 0.295 causal against
    # the 64/32 4-warp s2 config it had (cuDNN 0.380 / 0.262); 128/32 8w s3 0.589 / 0.315, 64/64 4w s2 0.855 / 0.422.
    return ForwardConfig(128, 64, num_warps=8, num_stages=2, fused_softmax=True)


@functools.lru_cache(maxsize=None)
def backward_config(d_qk_pad: int, d_v_pad: int, dtype: torch.dtype, device_type: str,
                    deterministic: bool, causal: bool = False) -> BackwardConfig:
    """The measured config for a head-dim class; ``causal`` (right_bound 0, no left bound, either
    alignment) picks the hd128 16-bit table's causal entry, the one mask it was measured apart for."""
    if device_type != "cuda":
        cfg = _INTERPRETER_BWD
    else:
        d = max(d_qk_pad, d_v_pad)
        if d <= 64:
            # H200, bf16, (4,16,2048,64) BHSD, TMA on (A/B of 2026-11-30, benchmarks/results/h200/ab_perf_h200-2026-11-30.json):
            # a 128/64 dQ pass on 8 warps, 3 stages: 0.547 ms non-causal, 0.399 causal, against 0.590 / 0.427
            # for the 128/32 dQ pass on 4 warps that the A/B before it had kept (0.604 ms with pointers).
            # 2026-12-01 (ab_perf --table s6, (4,16,2048,64) bf16, docs/data/h200-2026-12-01e): the start order in
            # groups of 16 heads 0.435 -> 0.377 ms causal (groups of 8: 0.406), non-causal unchanged; dV after dP 0.545
            # -> 0.523 non-causal, 0.406 -> 0.395 causal (both with groups of 8).
            # ab_perf --table s7b (2026-12-01, docs/data/h200-2026-12-01f): the dQ pass on one warpgroup, 64/64 on
            # 3 stages, 0.370 -> 0.335 ms causal, 0.527 -> 0.531 non-causal (two programs an SM where the 8-warp one ran
            # one).
            cfg = BackwardConfig(32, 128, 64, 64, num_warps=4, num_stages=4, dq_mode="separate",
                                 dq_num_warps=4, dq_num_stages=3, head_group=16, dv_after_dp=True)
        elif d <= 128:
            # H200, bf16, (2,16,4096,128) non-causal BHSD, TMA on (A/B of 2026-11-30, ab_perf_h200-2026-11-30.json): 1.786 ms,
            # DKDV 1.146, DQ 0.644; 2 or 4 stages, BLOCK_M1 32, 64/64 DKDV tiles, atomic dQ all slower.
            # Before TMA (2026-11-30, benchmarks/results/h200/ab_2026-11-30.log): 1.99 ms (345 TFLOP/s);
            # atomic dQ 2.32 ms, 2 stages 2.27, BLOCK_M2/N2 = 64/128 2.56, all-64 tiles on
            # 4 warps 2.57, 32/128 tiles on 4 warps 4.58. Split (profiler): DKDV 1.30 ms,
            # DQ 0.65 ms, ODO 0.02 ms.
            # ab_perf --table s6 (2026-12-01, bf16, docs/data/h200-2026-12-01e): the start order in groups of 8 heads
            # and dV after dP, against the head-by-head order with dV before dP: (2,16,4096) causal 1.162 -> 1.044 ms,
            # (1,16,8192) causal 2.031 -> 1.849, (1,32/8,8192) causal 4.148 -> 3.726, (2,16,4096)
            # non-causal 1.802 -> 1.712 (DKDV 1.123 -> 1.067; dV after dP alone: 1.722).
            cfg = BackwardConfig(64, 128, 128, 64, num_warps=8, num_stages=3, dq_mode="separate",
                                 head_group=8, dv_after_dp=True)
            if causal and dtype != torch.float32:
                # Causal only: the general entry's tiles with the two passes as one launch (fused_dq). Measured
                # (2026-12-01, H200, ab_perf --table s16, docs/data/h200-2026-12-01k/run54, BHSD bf16, two
                # interleaved timings each): (1,16,8192) 1.912 / 1.811 ms
                # -> 1.766 / 1.765, (1,32/8,8192) 3.787 / 3.691 -> 3.551 / 3.552, (2,16,4096) 1.020 / 1.006 ->
                # 1.004 / 1.012; the same tiles apart 1.834, 3.651, 1.047. Non-causal the fused launch is even
                # or 1-3% slower (1.686 / 1.708 -> 1.708 / 1.758 at (2,16,4096)), so only this entry has it.
                # Before: the DKDV pass on one warpgroup (32/64, 4 warps, two programs an SM) beside the 8-warp
                # dQ pass (ab_perf --table s8b, docs/data/h200-2026-12-01g): 4-6% faster than the tiles apart on
                # every causal shape.
                cfg = BackwardConfig(64, 128, 128, 64, num_warps=8, num_stages=3, dq_mode="separate",
                                     head_group=8, dv_after_dp=True, fused_dq=True)
        elif d_qk_pad == 256 and d_v_pad <= 128 and dtype != torch.float32:  # fp32: see forward_config
            # D_qk 192 / D_v 128, H200 bf16 (1,16,4096) (A/B, 2026-12-01, benchmarks/results/h200/ab_perf_h200-2026-12-01.json):
            # DKDV 64/64 on 2 stages, dQ pass 128/32: 2.29 ms nc / 1.42 causal against 5.36 / 2.97 for the hd256 config.
            # The atomic dQ (TMA bulk reduce) lost here too: 2.70 / 1.61.
            # Measured padded to 256; kept for the 128 + 64 split (d_qk_chunks), which shrinks every
            # D_qk tile by a quarter. Shared memory, bf16: DKDV streams Q (64 x 192 x 2 B = 24 KiB, was 32)
            # and dO (16 KiB) on 2 stages = 80 KiB (was 96), plus K/V/dS staging: 121 KiB (was 145);
            # DQ keeps Q (48 KiB, was 64) and dO, streams K (12 KiB, was 16) and V: 120 KiB (was 144)
            # (ptxas, sm_90a, Triton 3.6, TMA on; 3 DKDV stages would fit too: 162 KiB, an A/B variant).
            # Registers a thread (256 threads): the dK accumulator 64 x 192 fp32 = 48 (was 64), the dQ
            # accumulator 128 x 192 = 96 (was 128). DKDV stays at the 255-register ceiling with spills of
            # the same order (TMA 640 B of stack, padded 552 B); the DQ pass drops 239 -> 190 registers.
            # 2026-12-01 (docs/data/h200-2026-12-01e), (1,16,4096,192/128) bf16: start order in groups of 4 heads 1.477
            # -> 1.311 ms causal, 2.122 -> 2.114 non-causal (groups of 8: 1.307 / 2.180). dV after dP costs here: 1.307
            # -> 1.501 causal (DKDV 0.909 -> 1.101), so the split keeps dV before dP.
            # Found 2026-12-01: that 64-key block on 8 warps computed S^T and dP^T twice. Triton 3.6 lays an MMA
            # result of M = 64 rows over warpsPerCTA = [8, 1], one copy per warpgroup (local sm_90a
            # compile: 156 HGMMA against 96 for 128 keys on 8 warps, S^T and dP^T at N = 32, then converted
            # to [4, 2] for dK/dV). One warpgroup per 64 keys instead (4 warps, 32 query rows, 3 stages,
            # 83 KiB of shared memory on 2 stages: two programs an SM), and the dQ pass on one warpgroup
            # too (64/32, 3 stages): ab_perf --table s7, s7b (docs/data/h200-2026-12-01f), (1,16,4096,192/128) bf16,
            # 2.094 -> 1.205 ms non-causal (DKDV 1.372 -> 0.71), 1.318 -> 0.671 causal; 128 keys on 8
            # warps: 1.50-1.69 / 0.81-0.99; dV after dP still loses (1.210 -> 1.319 non-causal).
            cfg = BackwardConfig(32, 64, 64, 32, num_warps=4, num_stages=3, dq_mode="separate",
                                 dq_num_warps=4, dq_num_stages=3, head_group=4)
        elif dtype == torch.float32:
            # fp32 hd256 keeps the 8-warp config it ran the plan with (halved by _fp32_config); the split
            # below was measured for 16-bit dtypes only.
            cfg = BackwardConfig(32, 64, 64, 32, num_warps=8, num_stages=1, dq_mode="separate")
        else:
            # hd256: dK + dV accumulators (2 x 64 x 256 fp32) are 256 registers a thread on one warpgroup,
            # and on 8 warps over 64 keys each warpgroup computed the same S^T / dP^T rows (the 192/128
            # defect above). So the DKDV pass runs as a dK pass and a dV pass (split_dkdv), one
            # accumulator and one warpgroup each, and the dQ pass on one warpgroup. Measured (2026-12-01, H200,
            # ab_perf --table s9, docs/data/h200-2026-12-01h/run33, BHSD): (1,16,4096,256) bf16 7.031 -> 2.536 ms
            # non-causal (DKDV 3.80 -> 1.72, dQ 3.21 -> 0.79), 3.564 -> 1.442 causal; (2,16,2048,256) fp16 3.584 ->
            # 1.393, 1.940 -> 0.877. 2 stages: 3.583 / 1.760 ms; the split on 8 warps: 9.347 / 4.343. cuDNN, same run:
            # 1.788 / 0.972 ms and 1.012 / 0.572 (ratios 0.25-0.30 -> 0.65-0.73). Then (--table s10,
            # docs/data/h200-2026-12-01h/run34, (1,16,4096,256) bf16): the dQ pass 128/32 on 8 warps, 3 stages, 2.547 ->
            # 2.468 ms non-causal (dQ 0.785 -> 0.709), 1.436 -> 1.398 causal; head groups of 4 / 16, 4 stages, 64/64
            # tiles within 1% or slower.
            cfg = BackwardConfig(32, 64, 128, 32, num_warps=4, num_stages=3, dq_mode="separate",
                                 dq_num_warps=8, dq_num_stages=3, split_dkdv=True)
        if dtype == torch.float32:
            cfg = _fp32_config(cfg)
    if deterministic and cfg.dq_mode != "separate":
        cfg = with_dq_mode(cfg, "separate")
    return cfg


def length_one_forward_config(S_q: int, S_kv: int, dtype: torch.dtype, device_type: str) -> Optional[ForwardConfig]:
    """The forward's config where S_q or S_kv is 1 (a decode step's query, a single key), else None (the table's).

    The table's tiles are 64-128 rows on that side, of which one is real; 16 (the smallest dot) on the length-1
    side, 64 on the other, one warpgroup, one stage, compile several times faster: these calls run the
    ``*_any_len`` kernels, a second compile of every kernel for a head-dim class (kernels.attention_fwd), which were
    37% of the quick level's compile on 2026-12-07 (tools/compile_times.py --level quick, sm_90a, Triton 3.6).
    The interpreter's config is small already."""
    if device_type != "cuda" or (S_q != 1 and S_kv != 1):
        return None
    warps = _length_one_warps(dtype)
    return ForwardConfig(16, 64, num_warps=warps, num_stages=1, head_group=1) if S_q == 1 else \
        ForwardConfig(64, 16, num_warps=warps, num_stages=1, head_group=1)


def length_one_backward_config(S_q: int, S_kv: int, d_qk_pad: int, d_v_pad: int, dtype: torch.dtype,
                               device_type: str, causal: bool = False) -> Optional[BackwardConfig]:
    """As ``length_one_forward_config``, for the backward: 16 rows on the length-1 side, 32 on the other (the
    resident side of the DKDV pass holds dK and dV accumulators of that many rows: 32 x 256 x 2 fp32 is 128
    registers a thread on one warpgroup at hd256; two warpgroups for fp32), separate dQ (deterministic either way),
    one stage, and the table's launch form (the two passes as one launch where its entry has ``fused_dq``).
    Measured on the quick level's hd128 DKDV twins (local ptxas, sm_90a, Triton 3.6, 2026-12-07): 5.5-8.3 s to
    compile at the table's 64 x 128 tiles on 8 warps and 3 stages, 1.9-3.2 s at 16 x 64 on 4 warps and 1 stage;
    the quick level's estimated cold compile (tools/compile_times.py --level quick --api) 599 -> 484 CPU-s."""
    if device_type != "cuda" or (S_q != 1 and S_kv != 1):
        return None
    warps = _length_one_warps(dtype)
    fused = backward_config(d_qk_pad, d_v_pad, dtype, device_type, False, causal).fused_dq
    if S_q == 1:  # DKDV: 32 keys resident, queries stream 16 at a time; dQ: 16 queries resident, keys stream 32
        tiles = (16, 32, 16, 32)
    else:
        tiles = (32, 16, 32, 16)
    return BackwardConfig(*tiles, num_warps=warps, num_stages=1, dq_mode="separate", head_group=1, fused_dq=fused)


def _length_one_warps(dtype: torch.dtype) -> int:
    """One warpgroup, but two for fp32: its dots are FMA loops, and ptxas's time follows each thread's unrolled
    share (local ptxas, sm_90a, Triton 3.6, 2026-12-07: the quick level's fp32 hd256 DKDV at 32 x 16 tiles took
    21.8-28.9 s on 4 warps; ``forward_config`` has the same for the fp32 forward)."""
    return 8 if dtype == torch.float32 else 4


def with_dq_mode(cfg: BackwardConfig, dq_mode: str) -> BackwardConfig:
    """``cfg`` with dQ computed the other way ("atomic" or "separate"). The atomic mode adds a dQ partial
    tile to the DKDV pass (BLOCK_M1 x D_qk, staged in shared memory for the TMA bulk reduce); the hd256
    split config's dK pass on 3 stages then asks for 234,496 B of the H200's 232,448 (the GPU test
    test_gpu_atomic_dq_case, 2026-12-01, docs/data/h200-2026-12-01h/run38), so a split config's atomic form runs
    on at most 2 stages."""
    if dq_mode not in ("atomic", "separate"):
        raise ValueError(f"dq_mode = {dq_mode!r}: expected 'atomic' or 'separate'")
    out = dataclasses.replace(cfg, dq_mode=dq_mode)
    if dq_mode == "atomic" and cfg.split_dkdv and cfg.num_stages > 2:
        out = dataclasses.replace(out, num_stages=2)
    return out


def _fp32_config(cfg: BackwardConfig) -> BackwardConfig:
    # fp32 tiles take twice the shared memory of 16-bit ones.
    return BackwardConfig(max(16, cfg.block_m1 // 2), max(16, cfg.block_n1 // 2),
                          max(16, cfg.block_m2 // 2), max(16, cfg.block_n2 // 2),
                          num_warps=cfg.num_warps, num_stages=1, dq_mode=cfg.dq_mode, split_d_qk=cfg.split_d_qk,
                          head_group=cfg.head_group, dv_after_dp=cfg.dv_after_dp, split_dkdv=cfg.split_dkdv)


def backward_candidates(d_qk_pad: int, d_v_pad: int, dtype: torch.dtype, deterministic: bool,
                        causal: bool = False) -> list:
    """Configs the autotuner times (``sdpa_bwd.engine.tuning``): the table's choice first, then the
    runners-up of the H200 A/B runs and, for head dims over 128, untried shapes."""
    table = backward_config(d_qk_pad, d_v_pad, dtype, "cuda", deterministic, causal)
    d = max(d_qk_pad, d_v_pad)
    B = BackwardConfig
    if d <= 64:
        extra = [B(32, 128, 128, 64, 4, 4, "separate", dq_num_warps=8, dq_num_stages=3, head_group=16,
                   dv_after_dp=True),
                 B(32, 128, 128, 32, 4, 4, "separate"), B(32, 128, 128, 64, 4, 3, "separate", dq_num_warps=8),
                 B(64, 128, 128, 64, 8, 3, "separate", dq_num_warps=8)]
    elif d <= 128:
        extra = [B(64, 128, 128, 64, 8, 3, "separate", dq_num_stages=4), B(64, 128, 128, 64, 8, 4, "separate"),
                 B(32, 128, 128, 64, 8, 3, "separate"),
                 B(64, 64, 128, 64, 4, 2, "separate", dq_num_warps=8, dq_num_stages=3, dv_after_dp=True),
                 # the causal entry before the fused launch took it (2026-12-01, docs/data/h200-2026-12-01k), and
                 # the fused launch for either mask
                 B(32, 64, 128, 64, 4, 3, "separate", dq_num_warps=8, dq_num_stages=3, dv_after_dp=True),
                 B(64, 128, 128, 64, 8, 3, "separate", dv_after_dp=True, fused_dq=True)]
    elif d_qk_pad == 256 and d_v_pad <= 128:
        # 192/128: the 8-warp 64-key DKDV the table had before 2026-12-01's one-warpgroup form, and the runners-up
        # of its A/Bs (docs/data/h200-2026-12-01f).
        extra = [B(64, 64, 128, 32, 8, 2, "separate", head_group=4),
                 B(32, 64, 128, 32, 4, 3, "separate", dq_num_warps=8, dq_num_stages=3, head_group=4),
                 B(32, 64, 128, 32, 4, 2, "separate", dq_num_warps=8, dq_num_stages=3, head_group=4),
                 B(32, 128, 128, 32, 8, 3, "separate", head_group=4)]
    else:
        # hd256: the split's first winner (its dQ pass on 4 warps, before the table's 8; docs/data/h200-2026-12-01h),
        # its runners-up (the split on 2 stages, in head groups of 4), the 8-warp config the table had until then, and
        # untried shapes.
        extra = [B(32, 64, 64, 32, 4, 3, "separate", dq_num_warps=4, dq_num_stages=3, split_dkdv=True),
                 B(32, 64, 64, 32, 4, 2, "separate", dq_num_warps=4, dq_num_stages=2, head_group=4, split_dkdv=True),
                 B(32, 64, 64, 32, 8, 1, "separate"),
                 B(32, 64, 64, 32, 8, 2, "separate"), B(64, 64, 64, 64, 8, 2, "separate"),
                 B(64, 64, 64, 64, 8, 1, "separate"), B(32, 128, 128, 32, 8, 1, "separate"),
                 B(64, 128, 128, 64, 8, 1, "separate")]
    if dtype == torch.float32:
        extra = [_fp32_config(c) for c in extra]
    # the table's entry for the other mask class (hd128 has a causal one), as the table made it
    extra.insert(0, backward_config(d_qk_pad, d_v_pad, dtype, "cuda", deterministic, not causal))
    out = [table]
    for c in extra:
        if c not in out:
            out.append(c)
    return out


def forward_candidates(d_qk_pad: int, d_v_pad: int, dtype: torch.dtype, causal: bool = False) -> list:
    """As ``backward_candidates``: the table's choice first, the other mask class's entry, the table's tiles with
    the other softmax (``ForwardConfig.fused_softmax``), the runners-up."""
    table = forward_config(d_qk_pad, d_v_pad, dtype, "cuda", causal)
    d = max(d_qk_pad, d_v_pad)
    F = ForwardConfig
    extra = ([F(128, 64, 4, 4), F(128, 128, 8, 3), F(128, 64, 8, 3, head_group=16)] if d <= 64 else
             [F(128, 64, 8, 3, head_group=4), F(128, 64, 8, 4), F(128, 128, 8, 2)] if d <= 128 else
             [F(64, 64, 4, 3, head_group=4), F(128, 64, 8, 4, head_group=4), F(64, 64, 4, 2), F(128, 32, 8, 2),
              F(128, 32, 8, 3), F(64, 32, 4, 3), F(64, 32, 4, 2)])
    if dtype == torch.float32:
        extra = [F(max(16, c.block_m // 2), max(16, c.block_n // 2), c.num_warps, 1) for c in extra]
    out = [table]
    other_softmax = dataclasses.replace(table, fused_softmax=not table.fused_softmax)
    for c in [forward_config(d_qk_pad, d_v_pad, dtype, "cuda", not causal), other_softmax] + extra:
        # halving the fp32 tiles can make two 16-bit candidates one
        if c not in out:
            out.append(c)
    return out


def _tune_d_qk(d_qk: int, dtype: torch.dtype) -> int:
    """The D_qk the tuning key names: the columns the kernels cover (192 for a 128 + 64 split), so that
    a choice timed on the padded kernels (key d256) is not reused for the split ones."""
    first, second = d_qk_chunks(d_qk, dtype)
    return first + second


def _band_kind(left_bound, right_bound) -> str:
    if left_bound is None and right_bound is None:
        return "none"
    return "right-only" if left_bound is None else "band"
