"""Can the backward's DKDV pass run faster in Gluon, on FA3's producer/consumer structure? (GPU probe)

    PYTHONPATH=src python3 tools/gluon_dkdv_probe.py [--out DIR] [--compile-only]

Session 14. The engine's forward now runs in Gluon (``kernels/attention_fwd_gluon.py``: a TMA loader warp, two
consumer warpgroups, products waited for one at a time) at 0.92-1.09 of cuDNN's time, where Triton's ``tl.dot``
kernel was at 0.75-0.97. The backward is still Triton's: its DKDV pass runs 4 products at ~550 TFLOP/s
(session 10-12 profiles, one 8-warp program an SM, the product-softmax-product chain serial) and its dQ pass
3 at ~660. This probe is the DKDV pass in the forward's Gluon shape, for BHSD, D 128, bf16, S a multiple of
128, H_q = H_kv, no mask or the causal one (top left):

- a loader partition (1 warp) loads this program's 128 keys of K and V once, then streams Q_i and dO_i tiles of
  64 query rows through two stages ("ready" mbarriers with TMA byte counts, "empty" ones both consumers
  arrive on);
- two consumer partitions (4 warps each) own 64 keys each and never wait for each other. Per query tile:
  S = Q K^T and dP = dO V^T (64 query rows x 64 keys) issued back to back; S waited for with dP (and nothing
  else) in flight, P = exp2(S scale log2e - LSE log2e) computed under dP and stored to shared memory; dS =
  P (dP - delta) stored beside it; then dV += P^T dO and dK += dS^T Q issued (A operands: the stored tiles,
  transposed) and *not* waited for: they run under the next tile's S and dP issue and are waited for
  (releasing the tile's stage and the P, dS buffers) only once the next S is needed.

dK is scaled by the softmax scale at the end and both are stored through pointers. LSE (natural log) and
delta = rowsum(dO O) are read per tile from global memory (L2). No dQ: Gluon's Hopper module in Triton 3.6 has
no TMA reduce (3.9 has one), and per-element fp32 atomics for a dQ partial a tile would cost ~1 ms here, so the
engine's dQ pass would stay as it is.

Under the causal mask a program starts at the first query tile that sees its keys and masks its first two
tiles (the diagonal of its 128 keys) in two peeled steps; the loop has no mask. On a GPU it checks dK and dV
against PyTorch's fp32 autograd (small shapes first, so a wrong mbarrier phase shows as a hang there and not in
the timings), then times itself against cuDNN's whole backward and ours at (2,16,4096) and (1,16,8192), both
masks; TFLOP/s counts its 4 products over the kept pairs. ``--compile-only`` compiles for sm_90a without a
GPU or torch and prints the shared memory, the wgmma count, each product wait's outstanding count and the
partitions' register budgets (Triton 3.6 or 3.9; not under TRITON_INTERPRET).

Status (session 14): compiles for sm_90a with Triton 3.6 clean (164,240 B of shared memory on 2 stages;
144 wgmma: the first tile, the peeled second one and the loop; 168 registers, no spill, wgmma not serialised:
``--compile-only`` runs ptxas -v too) and with Triton 3.9. **Not run on a GPU** (the session's device time went to the
forward). The first version kept P^T and dS^T in registers as the dV and dK products' A operands (S^T = K
Q^T with key rows): ptxas serialised its wgmma (C7512, "insufficient register resources") at 168, 232 and
255 registers, because the two [64, 128] fp32 accumulators, S^T and dP^T, the two register operands and LSE and
delta as 16 column values a thread do not fit. Query rows (LSE and delta 2 values a thread) and P, dS through
shared memory fit in 168. Prediction: 600-700 TFLOP/s at (2,16,4096,128) on its 4 products, i.e. 0.78-0.92 ms
against the Triton DKDV pass's ~1.0 ms (the forward's consumers went from 531 to 650 TFLOP/s the same way);
the backward 8-13% faster if the engine takes it.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import re

import triton
from triton.experimental import gluon
from triton.experimental.gluon import language as gl
from triton.experimental.gluon.language.nvidia.hopper import (
    fence_async_shared,
    mbarrier,
    tma,
    warpgroup_mma,
    warpgroup_mma_wait,
)

# Triton 3.6 names the TMA load async_copy_global_to_shared; 3.9 calls it async_load and raises on the old name.
tma_load = getattr(tma, "async_load", None) or tma.async_copy_global_to_shared
KEYS_ = 64  # keys a consumer partition owns; a program owns two such blocks
QROWS_ = 64  # query rows a streamed tile holds
KEYS = gl.constexpr(KEYS_)
LOG2E = 1.4426950408889634


@gluon.jit
def _loader(q_desc, k_desc, v_desc, do_desc, row_q, row_kv, i_start, n_tiles,
            q_smem, do_smem, k_smem, v_smem, kv_bar, q_ready, do_ready, q_empty, do_empty):
    STAGES: gl.constexpr = q_smem.type.shape[0]
    QROWS: gl.constexpr = q_smem.type.shape[1]
    mbarrier.expect(kv_bar, 2 * k_desc.block_type.nbytes + 2 * v_desc.block_type.nbytes)
    for w in gl.static_range(2):
        tma_load(k_desc, [row_kv + w * KEYS, 0], kv_bar, k_smem.index(w))
        tma_load(v_desc, [row_kv + w * KEYS, 0], kv_bar, v_smem.index(w))
    for t in range(n_tiles):  # the program's t-th query tile is tile i_start + t of the head
        s = t % STAGES
        phase = (t // STAGES) & 1
        # mbarriers start with phase 1 complete: the first STAGES waits pass at once
        mbarrier.wait(q_empty.index(s), phase ^ 1)
        mbarrier.expect(q_ready.index(s), q_desc.block_type.nbytes)
        tma_load(q_desc, [row_q + (i_start + t) * QROWS, 0], q_ready.index(s), q_smem.index(s))
        mbarrier.wait(do_empty.index(s), phase ^ 1)
        mbarrier.expect(do_ready.index(s), do_desc.block_type.nbytes)
        tma_load(do_desc, [row_q + (i_start + t) * QROWS, 0], do_ready.index(s), do_smem.index(s))


@gluon.jit
def _probs(t, i_start, key0, q_smem, do_smem, k_tile, v_tile, p_smem, ds_smem, q_ready, do_ready, lse_ptr,
           delta_ptr, row_q, qk_scale_log2, s_layout: gl.constexpr, dv_tok, dk_tok, masked, FIRST: gl.constexpr):
    """Query tile i: S = Q K^T and dP = dO V^T issued; S waited for (with the previous tile's dV and dK products,
    issued before it, which read P and dS from shared memory: only then may they be overwritten); P under dP;
    dS; both stored to shared memory for this tile's dV and dK products. Query rows are the tiles' rows, so
    LSE and delta are 2 values a thread. ``masked`` (the causal mask's first two tiles; the literal False
    in the loop, which compiles the mask away): keys past the query row get no probability."""
    STAGES: gl.constexpr = q_smem.type.shape[0]
    QROWS: gl.constexpr = q_smem.type.shape[1]
    s = t % STAGES
    phase = (t // STAGES) & 1
    zero = gl.zeros([QROWS, KEYS], gl.float32, s_layout)
    qpos = (i_start + t) * QROWS + gl.arange(0, QROWS, layout=gl.SliceLayout(1, s_layout))
    rows = row_q + qpos
    lse2 = gl.load(lse_ptr + rows) * 1.4426950408889634
    delta = gl.load(delta_ptr + rows)
    mbarrier.wait(q_ready.index(s), phase)
    s_tok = warpgroup_mma(q_smem.index(s), k_tile.permute((1, 0)), zero, use_acc=False, is_async=True)
    mbarrier.wait(do_ready.index(s), phase)
    dp_tok = warpgroup_mma(do_smem.index(s), v_tile.permute((1, 0)), zero, use_acc=False, is_async=True)
    if FIRST:
        s_t = warpgroup_mma_wait(1, deps=(s_tok,))
    else:
        # pending: dV_{i-1}, dK_{i-1}, S_i, dP_i; one left in flight means all but dP_i are done
        s_t, dv_tok, dk_tok = warpgroup_mma_wait(1, deps=(s_tok, dv_tok, dk_tok))
    if masked:
        kpos = key0 + gl.arange(0, KEYS, layout=gl.SliceLayout(0, s_layout))
        s_t = gl.where(kpos[None, :] <= qpos[:, None], s_t, float("-inf"))
    p = gl.exp2(s_t * qk_scale_log2 - lse2[:, None])
    p_smem.store(p.to(p_smem.dtype))
    dp = warpgroup_mma_wait(0, deps=(dp_tok,))
    ds_smem.store((p * (dp - delta[:, None])).to(ds_smem.dtype))
    fence_async_shared()
    return dv_tok, dk_tok


@gluon.jit
def _step(t, i_start, key0, q_smem, do_smem, k_tile, v_tile, p_smem, ds_smem, q_ready, do_ready, q_empty, do_empty,
          lse_ptr, delta_ptr, row_q, qk_scale_log2, s_layout: gl.constexpr, dv_tok, dk_tok, masked):
    """Tile t >= 1: its probabilities (which waits for tile t-1's products), tile t-1's stage released, tile t's
    dV and dK products issued and left in flight."""
    STAGES: gl.constexpr = q_smem.type.shape[0]
    dv_tok, dk_tok = _probs(t, i_start, key0, q_smem, do_smem, k_tile, v_tile, p_smem, ds_smem, q_ready, do_ready,
                            lse_ptr, delta_ptr, row_q, qk_scale_log2, s_layout, dv_tok, dk_tok, masked, False)
    prev = (t - 1) % STAGES
    mbarrier.arrive(q_empty.index(prev), count=1)  # tile t-1's dK and dV products are done with it
    mbarrier.arrive(do_empty.index(prev), count=1)
    s = t % STAGES
    dv_tok = warpgroup_mma(p_smem.permute((1, 0)), do_smem.index(s), dv_tok, is_async=True)
    dk_tok = warpgroup_mma(ds_smem.permute((1, 0)), q_smem.index(s), dk_tok, is_async=True)
    return dv_tok, dk_tok


@gluon.jit
def _consumer(k_tile, v_tile, p_smem, ds_smem, dk_ptr, dv_ptr, lse_ptr, delta_ptr, row_q, row_k, i_start, n_tiles,
              qk_scale_log2, scale, causal, q_smem, do_smem, kv_bar, q_ready, do_ready, q_empty, do_empty):
    STAGES: gl.constexpr = q_smem.type.shape[0]
    D: gl.constexpr = q_smem.type.shape[2]
    s_layout: gl.constexpr = gl.NVMMADistributedLayout(version=[3, 0], warps_per_cta=[4, 1],
                                                       instr_shape=[16, KEYS, 16])
    acc_layout: gl.constexpr = gl.NVMMADistributedLayout(version=[3, 0], warps_per_cta=[4, 1],
                                                         instr_shape=[16, D, 16])
    key0 = row_k - row_q  # this consumer's first key, counted from the head's first row
    mbarrier.wait(kv_bar, 0)
    zero_acc = gl.zeros([KEYS, D], gl.float32, acc_layout)
    _probs(0, i_start, key0, q_smem, do_smem, k_tile, v_tile, p_smem, ds_smem, q_ready, do_ready, lse_ptr,
           delta_ptr, row_q, qk_scale_log2, s_layout, zero_acc, zero_acc, causal != 0, True)
    # dV += P^T dO and dK += dS^T Q: the A operands are P and dS transposed in shared memory
    dv_tok = warpgroup_mma(p_smem.permute((1, 0)), do_smem.index(0), zero_acc, use_acc=False, is_async=True)
    dk_tok = warpgroup_mma(ds_smem.permute((1, 0)), q_smem.index(0), zero_acc, use_acc=False, is_async=True)
    # under the causal mask the program's first two query tiles hold its 128 keys' diagonal (n_tiles >= 2)
    dv_tok, dk_tok = _step(1, i_start, key0, q_smem, do_smem, k_tile, v_tile, p_smem, ds_smem, q_ready, do_ready,
                           q_empty, do_empty, lse_ptr, delta_ptr, row_q, qk_scale_log2, s_layout, dv_tok, dk_tok,
                           causal != 0)
    for t in range(2, n_tiles):
        dv_tok, dk_tok = _step(t, i_start, key0, q_smem, do_smem, k_tile, v_tile, p_smem, ds_smem, q_ready,
                               do_ready, q_empty, do_empty, lse_ptr, delta_ptr, row_q, qk_scale_log2, s_layout,
                               dv_tok, dk_tok, False)
    dv, dk = warpgroup_mma_wait(0, deps=(dv_tok, dk_tok))
    last = (n_tiles - 1) % STAGES
    mbarrier.arrive(q_empty.index(last), count=1)
    mbarrier.arrive(do_empty.index(last), count=1)
    rows = row_k + gl.arange(0, KEYS, layout=gl.SliceLayout(1, acc_layout))
    cols = gl.arange(0, D, layout=gl.SliceLayout(0, acc_layout))
    offs = rows.to(gl.int64)[:, None] * D + cols[None, :]
    gl.store(dv_ptr + offs, dv.to(gl.bfloat16))
    gl.store(dk_ptr + offs, (dk * scale).to(gl.bfloat16))


@gluon.jit(do_not_specialize=["S", "qk_scale_log2", "scale", "causal"])
def gluon_dkdv_kernel(q_desc, k_desc, v_desc, do_desc, dk_ptr, dv_ptr, lse_ptr, delta_ptr, S, qk_scale_log2,
                      scale, causal, STAGES: gl.constexpr):
    D: gl.constexpr = q_desc.block_type.shape[1]
    QROWS: gl.constexpr = q_desc.block_type.shape[0]
    pid_n = gl.program_id(0)
    bh = gl.program_id(1)
    row_q = bh * S
    row_kv = bh * S + pid_n * (2 * KEYS)
    # causal (keys up to the query row): query tiles before the program's first key see none of its keys
    i_start = pid_n * (2 * KEYS // QROWS) * causal
    n_tiles = S // QROWS - i_start
    q_smem = gl.allocate_shared_memory(q_desc.dtype, [STAGES, QROWS, D], q_desc.layout)
    do_smem = gl.allocate_shared_memory(do_desc.dtype, [STAGES, QROWS, D], do_desc.layout)
    k_smem = gl.allocate_shared_memory(k_desc.dtype, [2, KEYS, D], k_desc.layout)
    v_smem = gl.allocate_shared_memory(v_desc.dtype, [2, KEYS, D], v_desc.layout)
    pd_layout: gl.constexpr = gl.NVMMASharedLayout.get_default_for([QROWS, KEYS], gl.bfloat16)
    p_smem = gl.allocate_shared_memory(gl.bfloat16, [2, QROWS, KEYS], pd_layout)  # one tile a consumer
    ds_smem = gl.allocate_shared_memory(gl.bfloat16, [2, QROWS, KEYS], pd_layout)
    kv_bar = gl.allocate_shared_memory(gl.int64, [1], mbarrier.MBarrierLayout())
    q_ready = gl.allocate_shared_memory(gl.int64, [STAGES, 1], mbarrier.MBarrierLayout())
    do_ready = gl.allocate_shared_memory(gl.int64, [STAGES, 1], mbarrier.MBarrierLayout())
    q_empty = gl.allocate_shared_memory(gl.int64, [STAGES, 1], mbarrier.MBarrierLayout())
    do_empty = gl.allocate_shared_memory(gl.int64, [STAGES, 1], mbarrier.MBarrierLayout())
    mbarrier.init(kv_bar, count=1)
    for i in gl.static_range(STAGES):
        mbarrier.init(q_ready.index(i), count=1)
        mbarrier.init(do_ready.index(i), count=1)
        mbarrier.init(q_empty.index(i), count=2)  # one arrival from each consumer
        mbarrier.init(do_empty.index(i), count=2)
    bars = (q_smem, do_smem, kv_bar, q_ready, do_ready, q_empty, do_empty)
    tail = (dk_ptr, dv_ptr, lse_ptr, delta_ptr, row_q)
    scalars = (i_start, n_tiles, qk_scale_log2, scale, causal)
    gl.warp_specialize(
        [(_consumer, (k_smem.index(0), v_smem.index(0), p_smem.index(0), ds_smem.index(0)) + tail + (row_kv,)
          + scalars + bars),
         (_consumer, (k_smem.index(1), v_smem.index(1), p_smem.index(1), ds_smem.index(1)) + tail
          + (row_kv + KEYS,) + scalars + bars),
         (_loader, (q_desc, k_desc, v_desc, do_desc, row_q, row_kv, i_start, n_tiles, q_smem, do_smem, k_smem,
                    v_smem, kv_bar, q_ready, do_ready, q_empty, do_empty))],
        [4, 1], [240, 24])


def _descs(q, k, v, do):
    from triton.experimental.gluon.nvidia.hopper import TensorDescriptor

    B, H, S, D = q.shape
    out = []
    for t, rows in ((q, QROWS_), (k, KEYS_), (v, KEYS_), (do, QROWS_)):
        lay = gl.NVMMASharedLayout.get_default_for([rows, D], gl.bfloat16)
        out.append(TensorDescriptor(t.view(B * H * S, D), [B * H * S, D], [D, 1], [rows, D], lay))
    return out


def launch(q, k, v, do, lse, delta, stages=2, causal=False):
    """dK, dV of BHSD q, k, v, do (bf16, D 128, S a multiple of 128) from the forward's natural-log LSE and
    delta = rowsum(dO O) (fp32, B H S)."""
    import torch

    B, H, S, D = q.shape
    assert D == 128 and S % 128 == 0 and all(t.is_contiguous() for t in (q, k, v, do, lse, delta))
    dk, dv = torch.empty_like(k), torch.empty_like(v)
    scale = 1 / math.sqrt(D)
    gluon_dkdv_kernel[(S // (2 * KEYS_), B * H)](*_descs(q, k, v, do), dk, dv, lse, delta, S, scale * LOG2E, scale,
                                                  int(causal), stages, num_warps=4, maxnreg=168)
    return dk, dv


def compile_only(stages=2):
    """Compile the probe for sm_90a without a GPU or torch: shared memory, products, waits, register budgets."""
    from triton.backends.compiler import GPUTarget
    from triton.experimental.gluon._runtime import GluonASTSource
    from triton.experimental.gluon.nvidia.hopper import TensorDescriptor
    from triton.runtime.jit import mangle_type

    class _Base:  # what mangle_type reads of a tensor: its dtype name and its address
        dtype = "bfloat16"

        def data_ptr(self):
            return 0

    def desc(rows):
        return mangle_type(TensorDescriptor(_Base(), [1 << 20, 128], [128, 1], [rows, 128],
                                            gl.NVMMASharedLayout.get_default_for([rows, 128], gl.bfloat16)))

    sig = dict(q_desc=desc(QROWS_), k_desc=desc(KEYS_), v_desc=desc(KEYS_), do_desc=desc(QROWS_), dk_ptr="*bf16",
               dv_ptr="*bf16", lse_ptr="*fp32", delta_ptr="*fp32", S="i32", qk_scale_log2="fp32", scale="fp32",
               causal="i32", STAGES="constexpr")
    src = GluonASTSource(gluon_dkdv_kernel, sig, dict(STAGES=stages))
    k = triton.compile(src, target=GPUTarget("cuda", 90, 32), options=dict(num_warps=4, maxnreg=168))
    ptx = k.asm["ptx"]
    return dict(stages=stages, shared=k.metadata.shared, wgmma=ptx.count("wgmma.mma_async"),
                waits=[int(n) for n in re.findall(r"wgmma\.wait_group\.sync\.aligned\s+(\d+)", ptx)],
                setmaxnreg=re.findall(r"setmaxnreg\.(\w+)\.sync\.aligned\.u32\s+(\d+);", ptx), **ptxas_report(ptx))


def ptxas_report(ptx: str) -> dict:
    """What ptxas -v says of the PTX: registers, spill bytes, and whether it
    serialises the wgmma for want of registers (C7512), which the first version of this probe did."""
    import subprocess
    import tempfile

    from triton.backends.nvidia.compiler import get_ptxas

    ptxas = get_ptxas(90).path  # the one Triton compiles sm_90a with (3.9 ships two)
    with tempfile.TemporaryDirectory() as tmp:
        src = os.path.join(tmp, "k.ptx")
        with open(src, "w") as f:
            f.write(ptx)
        run = subprocess.run([ptxas, "-arch=sm_90a", "-v", src, "-o", os.path.join(tmp, "k.cubin")],
                             capture_output=True, text=True)
    log = run.stderr
    regs = re.search(r"Used (\d+) registers", log)
    spill = re.search(r"(\d+) bytes spill stores, (\d+) bytes spill loads", log)
    return dict(registers=int(regs.group(1)) if regs else None,
                spill_bytes=[int(spill.group(1)), int(spill.group(2))] if spill else None,
                wgmma_serialized="C7512" in log)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--out", default=None)
    ap.add_argument("--stages", type=int, default=2)
    ap.add_argument("--compile-only", action="store_true")
    args = ap.parse_args()
    if args.compile_only:
        print(json.dumps(compile_only(args.stages)), flush=True)
        return
    import torch
    from torch.nn.attention import SDPBackend, sdpa_kernel

    from sdpa_bwd import launch as engine

    rows = []
    for (B, H, S), causal in [((1, 1, 256), False), ((1, 2, 384), True), ((2, 3, 1024), False), ((2, 3, 1024), True),
                              ((2, 16, 4096), False), ((2, 16, 4096), True), ((1, 16, 8192), False),
                              ((1, 16, 8192), True)]:
        gen = torch.Generator(device="cuda").manual_seed(0)
        q, k, v, do = (torch.randn(B, H, S, 128, device="cuda", dtype=torch.bfloat16, generator=gen)
                       for _ in range(4))
        band = dict(right_bound=0) if causal else {}
        o, lse = engine.attention_forward(q, k, v, **band)
        delta = (do.float() * o.float()).sum(-1)
        tag = f"({B},{H},{S},128) {'causal' if causal else 'nc'}"
        row = dict(shape=[B, H, S, 128], causal=causal, stages=args.stages)
        try:
            dk, dv = launch(q, k, v, do, lse, delta, args.stages, causal)
            torch.cuda.synchronize()
        except Exception as exc:  # noqa: BLE001 - a probe reports what failed and goes on
            row["error"] = f"{type(exc).__name__}: {str(exc)[:400]}"
            print(f"{tag}: FAILED {row['error']}", flush=True)
            rows.append(row)
            continue
        if S <= 4096:
            qf, kf, vf = (t.float().requires_grad_() for t in (q, k, v))
            sc = qf @ kf.transpose(-1, -2) / math.sqrt(128)
            if causal:
                sc = sc.masked_fill(torch.ones(S, S, device="cuda", dtype=torch.bool).triu(1), float("-inf"))
            ref_dk, ref_dv = torch.autograd.grad(torch.softmax(sc, -1) @ vf, (kf, vf), do.float())
            for name, ours, ref in (("dk", dk, ref_dk), ("dv", dv, ref_dv)):
                row[f"{name}_rel_err"] = ((ours.float() - ref).norm() / ref.norm()).item()
            row["nan"] = bool(torch.isnan(dk).any().item() or torch.isnan(dv).any().item())
            del qf, kf, vf, sc, ref_dk, ref_dv
        if S >= 4096:
            q_, k_, v_ = (t.detach().requires_grad_() for t in (q, k, v))
            with sdpa_kernel(SDPBackend.CUDNN_ATTENTION):
                out_c = torch.nn.functional.scaled_dot_product_attention(q_, k_, v_, is_causal=causal)
            fns = dict(gluon_dkdv=lambda: launch(q, k, v, do, lse, delta, args.stages, causal),
                       ours_backward=lambda: engine.attention_backward(q, k, v, o, do, lse, **band),
                       cudnn_backward=lambda: torch.autograd.grad(out_c, (q_, k_, v_), do, retain_graph=True))
            for name in fns:
                row[f"{name}_ms"] = []
            for _ in range(2):
                for name, fn in fns.items():
                    row[f"{name}_ms"].append(triton.testing.do_bench(fn, warmup=10, rep=40))
            pairs = S * (S + 1) / 2 if causal else S * S
            row["gluon_dkdv_tflops"] = 4 * 2 * B * H * pairs * 128 / min(row["gluon_dkdv_ms"]) / 1e9
        print(tag, {k_: (round(v_, 4) if isinstance(v_, float) else
                         [round(x, 4) for x in v_] if isinstance(v_, list) else v_) for k_, v_ in row.items()},
              flush=True)
        rows.append(row)
    if args.out:
        os.makedirs(args.out, exist_ok=True)
        with open(os.path.join(args.out, "gluon_dkdv_probe.json"), "w") as f:
            json.dump(rows, f, indent=1)


if __name__ == "__main__":
    main()
