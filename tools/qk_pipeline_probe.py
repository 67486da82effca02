"""Does Triton overlap a forward loop's softmax with the next key tile's Q K^T when the source pipelines it by
hand? (local compile for sm_90a, no GPU, no torch)

    python tools/qk_pipeline_probe.py

FlashAttention-3's intra-warpgroup overlap issues S_{j+1} = Q K_{j+1}^T before the softmax of S_j and waits
for it after. This compiles a minimal hd128 forward (128/128 tiles, 8 warps, 3 stages, TMA) twice: as our
kernel's loop is written (Q K_j^T, softmax, P V_j), and with Q K_{j+1}^T issued at the top of iteration j and
carried to the next. It prints, for each, the product waits Triton put inside the loop (``pendings``: how many
products may still run) and where each sits, counted in TTGIR operations after its product. Session 11, Triton
3.6: in the hand-pipelined loop the wait follows Q K_{j+1}^T at once with pendings 0 (it also retires the
previous P V), so the softmax still starts only after both products are done: no overlap to gain this way.
Triton makes a product asynchronous across iterations only where its result is the next iteration's
accumulator of the same product (P V's is; S's is not).
"""

import re

import triton
import triton.language as tl
from triton.backends.compiler import GPUTarget
from triton.compiler import ASTSource


@triton.jit
def _softmax_step(qk, v, acc, m_i, l_i, scale):
    m_new = tl.maximum(m_i, tl.max(qk, 1) * scale)
    p = tl.math.exp2(qk * scale - m_new[:, None])
    alpha = tl.math.exp2(m_i - m_new)
    l_i = l_i * alpha + tl.sum(p, 1)
    acc = tl.dot(p.to(v.dtype), v, acc * alpha[:, None])
    return acc, m_new, l_i


@triton.jit
def probe_fwd(q_ptr, k_ptr, v_ptr, o_ptr, S, scale, BM: tl.constexpr, BN: tl.constexpr, D: tl.constexpr,
              PIPELINED: tl.constexpr):
    base = tl.program_id(1).to(tl.int64) * S * D
    kd = tl.make_tensor_descriptor(k_ptr + base, shape=[S, D], strides=[D, 1], block_shape=[BN, D])
    vd = tl.make_tensor_descriptor(v_ptr + base, shape=[S, D], strides=[D, 1], block_shape=[BN, D])
    qd = tl.make_tensor_descriptor(q_ptr + base, shape=[S, D], strides=[D, 1], block_shape=[BM, D])
    q = qd.load([tl.program_id(0) * BM, 0])
    m_i = tl.full([BM], -float("inf"), tl.float32)
    l_i = tl.zeros([BM], tl.float32)
    acc = tl.zeros([BM, D], tl.float32)
    if PIPELINED:
        qk = tl.dot(q, tl.trans(kd.load([0, 0])))
        for n0 in range(0, S, BN):
            v = vd.load([n0, 0])
            qk_next = tl.dot(q, tl.trans(kd.load([tl.minimum(n0 + BN, S - BN), 0])))  # the last one unused
            acc, m_i, l_i = _softmax_step(qk, v, acc, m_i, l_i, scale)
            qk = qk_next
    else:
        for n0 in range(0, S, BN):
            qk = tl.dot(q, tl.trans(kd.load([n0, 0])))
            acc, m_i, l_i = _softmax_step(qk, vd.load([n0, 0]), acc, m_i, l_i, scale)
    od = tl.make_tensor_descriptor(o_ptr + base, shape=[S, D], strides=[D, 1], block_shape=[BM, D])
    od.store([tl.program_id(0) * BM, 0], (acc / l_i[:, None]).to(tl.bfloat16))


def loop_waits(pipelined: bool) -> list:
    sig = dict(q_ptr="*bf16", k_ptr="*bf16", v_ptr="*bf16", o_ptr="*bf16", S="i32", scale="fp32",
               BM="constexpr", BN="constexpr", D="constexpr", PIPELINED="constexpr")
    consts = dict(BM=128, BN=128, D=128, PIPELINED=pipelined)
    attrs = {(i,): [["tt.divisibility", 16]] for i in range(5)}
    k = triton.compile(ASTSource(probe_fwd, sig, consts, attrs), target=GPUTarget("cuda", 90, 32),
                       options=dict(num_warps=8, num_stages=3))
    ops = [ln.strip() for ln in k.asm["ttgir"].splitlines()]
    start = next(i for i, ln in enumerate(ops) if "scf.for" in ln)
    end = next(i for i in range(start, len(ops)) if ops[i].startswith("scf.yield"))
    out, last_dot = [], None
    for i in range(start, end):
        if "ttng.warp_group_dot " in ops[i] or re.search(r"= ttng.warp_group_dot %", ops[i]):
            last_dot = i
        m = re.search(r"warp_group_dot_wait .*pendings = (\d+)", ops[i])
        if m:
            out.append(dict(pendings=int(m.group(1)), ops_after_product=None if last_dot is None else i - last_dot))
    return out


if __name__ == "__main__":
    print("Triton", triton.__version__)
    for pipelined in (False, True):
        print(("hand-pipelined Q K^T" if pipelined else "as written         "), "waits in the loop:", loop_waits(pipelined))
