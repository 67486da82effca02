"""Kernels that read a packed batch's cumulative offsets where they lie, on the device, so that the host never
waits for them (``sdpa_bwd.engine.varlen``'s device-offsets path): the offsets' checks, and the filling of the
tokens outside every sequence."""

import triton
import triton.language as tl


@triton.jit
def offsets_rules_broken(cu_ptr, B, T, longest, BLOCK: tl.constexpr):
    """The rules B + 1 cumulative offsets break, as bits: 1 a negative first offset, 2 a decreasing step, 4 a last
    offset past the T tokens, 8 a sequence longer than ``longest``; 0 when well formed."""
    first = tl.load(cu_ptr)
    last = tl.load(cu_ptr + B)
    bad = tl.where(first < 0, 1, 0) | tl.where(last > T, 4, 0)
    for start in range(0, B, BLOCK):
        b = start + tl.arange(0, BLOCK)
        inside = b < B
        n = tl.load(cu_ptr + b + 1, mask=inside, other=0) - tl.load(cu_ptr + b, mask=inside, other=0)
        bad = bad | tl.where(tl.max(tl.where(inside & (n < 0), 1, 0), axis=0) > 0, 2, 0)
        bad = bad | tl.where(tl.max(tl.where(inside & (n > longest), 1, 0), axis=0) > 0, 8, 0)
    return bad


# The batch's sizes are runtime values: a specialisation on their divisibility by 16 or value 1 buys nothing here
# and would compile the kernels again for each batch that changes them.
@triton.jit(do_not_specialize=["B", "T_q", "T_kv", "max_q", "max_kv"])
def varlen_offsets_check_kernel(cu_q_ptr, cu_kv_ptr, B, T_q, T_kv, max_q, max_kv, flags_ptr,
                                BLOCK: tl.constexpr):
    """One program: the rules each side's offsets break (``offsets_rules_broken``) into ``flags_ptr`` (int32), the
    query side's bits as they are, the key side's shifted left by 4. 0: well formed."""
    flags = offsets_rules_broken(cu_q_ptr, B, T_q, max_q, BLOCK) \
        | (offsets_rules_broken(cu_kv_ptr, B, T_kv, max_kv, BLOCK) << 4)
    tl.store(flags_ptr, flags)


@triton.jit(do_not_specialize=["B", "T"])
def varlen_outside_fill_kernel(x_ptr, cu_ptr, B, T, D, stride_t, stride_h, stride_d, value,
                               BLOCK_T: tl.constexpr, BLOCK_D: tl.constexpr):
    """Programs (token block, head) of a (T, H, D) tensor (D 1 for the stats): ``value`` into the tokens before
    ``cu[0]`` and from ``cu[B]`` on, the ones no sequence owns; the rest untouched."""
    lo = tl.load(cu_ptr)
    hi = tl.load(cu_ptr + B)
    t = tl.program_id(0) * BLOCK_T + tl.arange(0, BLOCK_T)
    d = tl.arange(0, BLOCK_D)
    outside = (t < T) & ((t < lo) | (t >= hi))
    ptrs = x_ptr + t.to(tl.int64)[:, None] * stride_t + tl.program_id(1).to(tl.int64) * stride_h \
        + d[None, :] * stride_d
    fill = (tl.zeros([BLOCK_T, BLOCK_D], tl.float32) + value).to(x_ptr.dtype.element_ty)
    tl.store(ptrs, fill, mask=outside[:, None] & (d[None, :] < D))
