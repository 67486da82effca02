"""Forward attention for the layouts TMA reads, written for Triton 3.6's Hopper warp specialisation.

``attention_fwd_kernel`` (kernels/attention_fwd.py) takes every layout and band; this kernel takes only
what the launcher's ``_ws_forward_ok`` lets through: 16-bit Q, K, V and O whose heads the bulk-copy
engine can read as [S, D] matrices (``launch._tma_ok``), D_qk and D_v padded to the same power of two
(at most 128, one chunk), no band. It exists because a local sm_90a compile (session 9, docs/perf-log.md)
found the conditions under which Triton 3.6 splits a ``tl.range(..., warp_specialize=True)`` loop into a
TMA producer warp group (``setmaxnreg`` 40) and two consumer warp groups of BLOCK_M / 2 query rows each
(232 registers): exactly 4 warps, every ``tl.dot`` operand loaded through a tensor descriptor, one loop,
and no runtime if/else anywhere in the function. The general kernel breaks each of those (pointer loads
for the layouts TMA cannot read, three loops for the band's masked and unmasked tiles). Device run 36
(``tools/ws_forward_probe.py``, a minimal kernel of this shape): 4-12% faster than ours on non-causal
rows at D 128, and NaN output for 64-key tiles on 3 stages, so the config tables do not use it until an
A/B and the full plan on the GPU say so (``ForwardConfig.warp_specialize``).

Rows past S_q and keys past S_kv: the descriptors fill them with zeros on load and drop them on store;
the keys are masked out of the softmax with ``tl.where`` on every tile (a branch would stop the
specialisation). Every key tile holds at least one key below S_kv, so no row's running maximum stays
-inf and no row is empty (no band): O and the natural-log LSE are those of the general kernel.
"""

import triton.language as tl

from .attention_fwd import kernel_jit, mma, mma_acc, program_tile, row_tiles


@kernel_jit()
def attention_fwd_ws_kernel(
    q_ptr, k_ptr, v_ptr, o_ptr, stats_ptr,
    stride_qb, stride_qh, stride_qm,
    stride_kb, stride_kh, stride_kn,
    stride_vb, stride_vh, stride_vn,
    stride_ob, stride_oh, stride_om,
    stride_sb, stride_sh, stride_sm,
    H_q, S_q, S_kv, ratio_k, ratio_v, qk_scale_log2,
    BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, D_QK: tl.constexpr, D_V: tl.constexpr,
    D_PAD: tl.constexpr, DOT_PRECISION: tl.constexpr, HEAD_GROUP: tl.constexpr = 1,
    WARP_SPECIALIZE: tl.constexpr = True,
):
    """O and stats (natural-log LSE) for one block of BLOCK_M query rows of one (b, h), no band."""
    pid_m, pid_bh = program_tile(HEAD_GROUP, False)  # no band: every query block costs the same
    b = (pid_bh // H_q).to(tl.int64)
    h = (pid_bh % H_q).to(tl.int64)
    m0 = pid_m * BLOCK_M
    q_desc = row_tiles(q_ptr + b * stride_qb + h * stride_qh, S_q, stride_qm, D_QK, BLOCK_M, D_PAD)
    k_desc = row_tiles(k_ptr + b * stride_kb + (h // ratio_k) * stride_kh, S_kv, stride_kn, D_QK, BLOCK_N, D_PAD)
    v_desc = row_tiles(v_ptr + b * stride_vb + (h // ratio_v) * stride_vh, S_kv, stride_vn, D_V, BLOCK_N, D_PAD)
    o_desc = row_tiles(o_ptr + b * stride_ob + h * stride_oh, S_q, stride_om, D_V, BLOCK_M, D_PAD)
    q = q_desc.load([m0, 0])

    m_i = tl.full([BLOCK_M], float("-inf"), tl.float32)
    l_i = tl.zeros([BLOCK_M], tl.float32)
    acc = tl.zeros([BLOCK_M, D_PAD], tl.float32)
    for n0 in tl.range(0, S_kv, BLOCK_N, warp_specialize=WARP_SPECIALIZE):
        k = k_desc.load([n0, 0])
        v = v_desc.load([n0, 0])
        qk = mma(q, tl.trans(k), DOT_PRECISION) * qk_scale_log2
        qk = tl.where((n0 + tl.arange(0, BLOCK_N) < S_kv)[None, :], qk, float("-inf"))
        m_new = tl.maximum(m_i, tl.max(qk, 1))
        p = tl.math.exp2(qk - m_new[:, None])
        alpha = tl.math.exp2(m_i - m_new)
        l_i = l_i * alpha + tl.sum(p, 1)
        acc = mma_acc(acc * alpha[:, None], p.to(v.dtype), v, DOT_PRECISION)
        m_i = m_new

    o_desc.store([m0, 0], (acc / l_i[:, None]).to(o_ptr.dtype.element_ty))
    offs_m = m0 + tl.arange(0, BLOCK_M)
    stats = (m_i + tl.math.log2(l_i)) * 0.6931471805599453
    tl.store(stats_ptr + b * stride_sb + h * stride_sh + offs_m.to(tl.int64) * stride_sm, stats, mask=offs_m < S_q)


attention_fwd_ws_kernel_any_len = kernel_jit("S_q", "S_kv")(attention_fwd_ws_kernel.fn)
