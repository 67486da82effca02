"""The launch planner (issue 52): a call's problem in, a ``Plan`` out, nothing launched.

The problem is tensor metadata (``TensorMeta``: dims, strides, dtype, device, 16-byte alignment of the base), whether
the outputs touch the inputs (``apart``), the mask bounds and alignment, the scale, the deterministic flag, the device
(``Target``: sm_90 or not, Triton's interpreter or not, its SM count) and the module switches (``switches``). The plan
is plain data: the path taken (``FORWARD_PATHS`` / ``BACKWARD_PATHS``), for each path not taken the reasons, the
Triton config, and the launches in order (``Step``: kernel name, grid, positional arguments with the call's tensors,
side buffers and host TMA descriptors as references, keywords), and the side buffers to allocate (``Buffer``). The
executor (``launch.attention_forward`` / ``attention_backward``) allocates, resolves and launches; ``sdpa-bwd
explain`` prints. It reads the same switches, tables and rules the launcher read before the split (2026-12-06), in
the same order, so that it plans the launches the launcher made (``tests/test_launch_golden.py``).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Callable, Optional

import torch

from . import switches as sw
from .configs import (BackwardConfig, ForwardConfig, _cdiv, backward_config, d_qk_chunks, forward_config,
                      head_dim_pad, length_one_backward_config, length_one_forward_config, with_dq_mode)
from .kernels import attention_bwd_gluon, attention_bwd_gluon_192, attention_fwd_gluon
from .reasons import (  # noqa: F401 - the names explain.py and the tests read here too
    Target, TensorMeta, _bwd192_det_split, _bwd192_persist, _device_sm_count, _dot_precision, _dq_reduce_tma,
    _kernel, _narrowed, _offsets, _tma_ok, _use_tma, _wide, causal_key_ranges, gluon_backward_reasons,
    gluon_forward_reasons, gluon_side_rows, interpreter_active)

LOG2E = 1.4426950408889634

FORWARD_PATHS = ("gluon-fwd", "triton-fwd", "triton-fwd-any-len")
BACKWARD_PATHS = ("gluon-bwd", "gluon-bwd-192", "gluon-bwd-192-det-split", "triton-fused", "triton-separate",
                  "triton-split-dkdv", "triton-atomic", "triton-fused-any-len", "triton-separate-any-len",
                  "triton-split-dkdv-any-len", "triton-atomic-any-len")


# ----------------------------------------------------------------------------
# The plan's data


@dataclass(frozen=True)
class Ref:
    """One of the call's tensors (q, k, v, o, stats, do, dq, dk, dv) or a side buffer, by name."""
    name: str


@dataclass(frozen=True)
class Desc:
    """A host TMA descriptor over ``tensor``: its dims, strides, block and the kernel module's ``host_layout``
    arguments (``DTYPE`` where Gluon's name of ``dtype`` goes)."""
    tensor: str
    shape: tuple
    strides: tuple
    block: tuple
    module: str
    layout: tuple
    dtype: str


DTYPE = "<dtype>"


@dataclass(frozen=True)
class Buffer:
    """A side buffer the executor allocates: fp32 / int32, zeroed or not, or another buffer's tensor (``alias``), or a
    part of one (``part``: ``shape``'s elements of buffer ``alias`` from its element ``offset``), or a (B, H, S, D)
    tensor's keys (``view``: ``shape`` is tensor ``alias`` narrowed to S rows from row ``offset`` of its S dim;
    ``zero_view``: the same, zeroed before the launches)."""
    name: str
    shape: tuple
    dtype: str = "float32"
    fill: str = "empty"  # "empty", "zeros", "alias", "part", "view" or "zero_view"
    alias: Optional[str] = None
    offset: int = 0


@dataclass(frozen=True)
class Step:
    """One launch: ``kernel`` (a name in ``launch`` or ``module.name`` of a Gluon kernel), grid, arguments, keywords."""
    kernel: str
    grid: tuple
    args: tuple
    kwargs: dict


@dataclass(frozen=True)
class Plan:
    direction: str  # "fwd" or "bwd"
    path: str
    declined: dict  # path not taken -> tuple of reasons
    config: Any
    buffers: tuple
    steps: tuple
    side_rows: int = 0
    # for the launch cache's replay of a backward: the names of the tensors after the call's nine, in slot order
    slots: tuple = field(default=())


# ----------------------------------------------------------------------------
# Steps


def bhsd_geometry(t, block_rows: int, block_cols: Optional[int] = None) -> tuple:
    """(dims, strides, block) of a descriptor of (B, H, S, D) ``t`` through its own strides, blocks of
    [1, 1, ``block_rows``, D] (or of ``block_cols`` columns: a chunk of a split head dim). A batch or head dimension
    of one, or of stride 0 (a broadcast), is given as one of a stride the bulk-copy engine takes (the kernel's
    coordinate there is then 0: ``b % shape``); ``_tma_ok`` has checked the rest."""
    B, H, S, D = t.shape
    sb, sh, ss, _ = t.stride()
    fill = ss * S  # any multiple of 16 bytes: the coordinate is always 0
    dims, strides = [], []
    for n, st in ((B, sb), (H, sh)):
        real = n > 1 and st != 0
        dims.append(n if real else 1)
        strides.append(st if real else fill)
    return dims + [S, D], strides + [ss, 1], [1, 1, block_rows, block_cols or D]


def _bhsd(name: str, t, block_rows: int, module: str, layout: tuple, block_cols: Optional[int] = None,
          dtype=None) -> Desc:
    """The plan's descriptor of (B, H, S, D) ``t`` (``bhsd_geometry``)."""
    dims, strides, block = bhsd_geometry(t, block_rows, block_cols)
    return Desc(name, tuple(dims), tuple(strides), tuple(block), module, layout, str(dtype or t.dtype))


def _kv_acc_destinations(q, k, v, dk, dv, kv_acc: bool) -> tuple:
    """(side buffers, dK's and dV's destinations): zeroed fp32 accumulators of K's and V's dims where query heads
    share K or V heads and add their partials (``_convert_all_step`` then writes them into dK and dV, with dQ's, in
    one launch), else dK and dV. The two accumulators are parts of one buffer (``kv_acc``, dV's from element
    ``kv_v_offset``): one zero fill a call."""
    if not kv_acc:
        return [], (("dk", dk), ("dv", dv))
    off = kv_v_offset(k)
    return ([Buffer("kv_acc", (off + _count(v.shape),), fill="zeros"),
             Buffer("dk_acc", tuple(k.shape), fill="part", alias="kv_acc"),
             Buffer("dv_acc", tuple(v.shape), fill="part", alias="kv_acc", offset=off)],
            (("dk_acc", _packed(k.shape, torch.float32, q.device)),
             ("dv_acc", _packed(v.shape, torch.float32, q.device))))


def _count(shape) -> int:
    n = 1
    for d in shape:
        n *= d
    return n


def kv_v_offset(k) -> int:
    """Where dV's accumulator starts in ``kv_acc``: after dK's, rounded up to 128 elements (512 bytes), so that its
    base is as aligned as a buffer of its own for the bulk-copy descriptors and vector stores."""
    return -(-_count(k.shape) // 128) * 128


def _convert_all_step(k, dq, dk, dv, scale: float, wide: bool, pdl: bool) -> Step:
    """The conversions of a backward whose K or V heads are shared, one launch (``attention_bwd_convert_all_kernel``):
    ``dq_accum`` (times ``scale``) into dQ and ``kv_acc``'s two parts into dK and dV, launched as the pass's
    programmatic dependent where ``pdl``, as DQ_CONVERT is. Programs: dQ's B H_q heads, then dK's B H_k, then dV's
    B H_v, over the longer of the lengths."""
    B, H_q, S_q, D_qk = dq.shape
    H_k, S_kv, H_v, D_v = dk.shape[1], dk.shape[2], dv.shape[1], dv.shape[3]
    qk_chunk, qk_split = d_qk_chunks(D_qk, k.dtype)
    block = 64 if dq.device.type == "cuda" else 16
    more = dict(launch_pdl=True) if pdl else {}
    return Step("attention_bwd_convert_all_kernel", (_cdiv(max(S_q, S_kv), block), B * (H_q + H_k + H_v)),
                (Ref("dq_accum"), Ref("dq"), *dq.stride(), H_q, S_q, scale, B * H_q,
                 Ref("kv_acc"), Ref("dk"), Ref("dv"), *dk.stride(), *dv.stride(), H_k, H_v, S_kv, B * H_k,
                 kv_v_offset(k)),
                dict(BLOCK_M=block, WIDE=wide, D_QK=D_qk, D_QK_PAD=qk_chunk, D_QK_SPLIT=qk_split, D_V=D_v,
                     D_V_PAD=head_dim_pad(D_v), PDL=pdl, num_warps=4, **more))


def _flat(name: str, shape, strides, block, module: str, layout: tuple, dtype) -> Desc:
    return Desc(name, tuple(shape), tuple(strides), tuple(block), module, layout, str(dtype))


def _odo_step(o, do, stats, st, d_v_pad: int, wide: bool, side_rows: int, zero: Optional[str] = None,
              zero_numel: int = 0, pdl: bool = False) -> Step:
    """ODO, the first stage of either backward: delta = rowsum(dO O) and lse2 (the stats in log2 units, +inf
    for a row that kept no key) into the side buffers, ``side_rows`` rows a head. ``zero``: the packed fp32 dQ
    accumulator for ODO to zero (``GLUON_PDL``); ``pdl``: the next kernel is launched as its programmatic
    dependent."""
    B, H_q, S_q, D_v = o.shape
    block = 64 if o.device.type == "cuda" else 16
    zero_d = 0 if zero is None else zero_numel // (B * H_q * S_q)
    if zero is not None and zero_numel % (B * H_q * S_q):
        raise ValueError(f"ODO zeroes the dQ accumulator as (B H_q S_q = {B * H_q * S_q}, D_qk) rows; it has "
                         f"{zero_numel} elements, not a whole number of rows: allocate it packed, (B H_q S_q, D_qk)")
    return Step("attention_bwd_preprocess_kernel", (_cdiv(S_q, block), B * H_q),
                (Ref("o"), Ref("do"), Ref("stats"), Ref("delta"), Ref("lse2"), *o.stride(), *do.stride(), *st,
                 H_q, S_q, side_rows, Ref("delta" if zero is None else zero)),
                dict(BLOCK_M=block, D_V=D_v, D_V_PAD=d_v_pad, WIDE=wide, ZERO_D=zero_d, PDL=pdl, num_warps=4))


def _convert_step(acc: str, dst: str, t, scale: float, qk_chunk: int, qk_split: int, wide: bool,
                  pdl: bool = False) -> Step:
    """DQ_CONVERT: the packed fp32 accumulator ``acc``, scaled, into ``dst`` (meta ``t``) through its strides."""
    B, H, S, D = t.shape
    block = 64 if t.device.type == "cuda" else 16
    more = dict(launch_pdl=True) if pdl else {}
    return Step("attention_bwd_dq_convert_kernel", (_cdiv(S, block), B * H),
                (Ref(acc), Ref(dst), *t.stride(), H, S, scale),
                dict(BLOCK_M=block, D_QK=D, D_QK_PAD=qk_chunk, D_QK_SPLIT=qk_split, WIDE=wide, PDL=pdl, num_warps=4,
                     **more))


def _triton_bwd_constexprs(q, D_v: int, cfg: BackwardConfig, has_left: bool, has_right: bool, wide: bool) -> dict:
    """The Triton backward kernels' shared constexprs for Q (its head dim's chunks under ``cfg``) and D_v: the band
    flags, the dot precision, WIDE, and the DKDV pass's warps and stages (the dQ pass overrides them)."""
    D_qk = q.shape[3]
    qk_chunk, qk_split = d_qk_chunks(D_qk, q.dtype, cfg.split_d_qk)
    return dict(D_QK=D_qk, D_QK_PAD=qk_chunk, D_QK_SPLIT=qk_split, D_V=D_v, D_V_PAD=head_dim_pad(D_v),
                HAS_LEFT=has_left, HAS_RIGHT=has_right, DOT_PRECISION=_dot_precision(q.dtype, q.device.type),
                WIDE=wide, num_warps=cfg.num_warps, num_stages=cfg.num_stages)


def _dq_pass_step(cfg: BackwardConfig, t: dict, scale: float, lo_off: int, hi_off: int, tma: bool,
                  common: dict) -> Step:
    """The Triton kernels' dQ pass (``cfg``'s BLOCK_M2 / BLOCK_N2 tiles, its own warps and stages): dQ written
    through its strides from Q, K, V, dO and ODO's side buffers, packed S_q rows a head. The Triton backward's last
    pass, and deterministic mode's dQ after the 192 / 128 Gluon pass's split form (``GLUON_BWD192_DET_SPLIT``)."""
    q, k, v, do, dq = t["q"], t["k"], t["v"], t["do"], t["dq"]
    B, H_q, S_q, _ = q.shape
    H_k, H_v, S_kv = k.shape[1], v.shape[1], k.shape[2]
    return Step(_kernel("attention_bwd_dq_kernel", "attention_bwd_dq_kernel_any_len", S_q, S_kv),
                (_cdiv(S_q, cfg.block_m2), B * H_q),
                (Ref("q"), Ref("k"), Ref("v"), Ref("do"), Ref("dq"), Ref("lse2"), Ref("delta"),
                 *q.stride(), *k.stride(), *v.stride(), *do.stride(), *dq.stride(),
                 H_q, H_q // H_k, H_q // H_v, S_q, S_kv, scale * LOG2E, scale, lo_off, hi_off),
                dq_pass_constexprs(cfg, tma, common))


def dq_pass_constexprs(cfg: BackwardConfig, tma: bool, common: dict) -> dict:
    """The dQ pass's keywords: ``cfg``'s BLOCK_M2 / BLOCK_N2 tiles, its own warps and stages, over ``common``
    (``_triton_bwd_constexprs``)."""
    return dict(BLOCK_M=cfg.block_m2, BLOCK_N=cfg.block_n2, TMA=tma, HEAD_GROUP=sw.HEAD_GROUP or cfg.head_group,
                **dict(common, num_warps=cfg.dq_num_warps or cfg.num_warps,
                       num_stages=cfg.dq_num_stages or cfg.num_stages))


def dkdv_pass_constexprs(cfg: BackwardConfig, compute_dk: bool, compute_dv: bool, atomic_dq: bool, tma: bool,
                         dq_tma: bool, common: dict) -> dict:
    """The DKDV pass's keywords: ``cfg``'s BLOCK_M1 / BLOCK_N1 tiles, which of dK and dV it owns, whether it adds
    dQ's partials (``atomic_dq``, by bulk reduce where ``dq_tma``), over ``common`` (``_triton_bwd_constexprs``)."""
    return dict(BLOCK_M=cfg.block_m1, BLOCK_N=cfg.block_n1, COMPUTE_DK=compute_dk, COMPUTE_DV=compute_dv,
                ATOMIC_DQ=atomic_dq, TMA=tma, DQ_TMA=atomic_dq and dq_tma, HEAD_GROUP=sw.HEAD_GROUP or cfg.head_group,
                DV_AFTER_DP=cfg.dv_after_dp if sw.DV_AFTER_DP is None else sw.DV_AFTER_DP, **common)


def triton_fwd_constexprs(cfg: ForwardConfig, q, D_v: int, scale: float, has_left: bool, has_right: bool,
                          wide: bool, tma: bool) -> dict:
    """The Triton forward's keywords for Q (its head dim's chunks under ``cfg``) and D_v: tiles, band flags, dot
    precision, WIDE, TMA, start order, the fused softmax (taken only where scale > 0), warps and stages."""
    D_qk = q.shape[3]
    qk_chunk, qk_split = d_qk_chunks(D_qk, q.dtype, cfg.split_d_qk)
    fused = cfg.fused_softmax and scale > 0  # the scale fold needs max(s x) = s max(x)
    return dict(BLOCK_M=cfg.block_m, BLOCK_N=cfg.block_n,
                D_QK=D_qk, D_QK_PAD=qk_chunk, D_QK_SPLIT=qk_split, D_V=D_v, D_V_PAD=head_dim_pad(D_v),
                HAS_LEFT=has_left, HAS_RIGHT=has_right, DOT_PRECISION=_dot_precision(q.dtype, q.device.type),
                WIDE=wide, TMA=tma, HEAD_GROUP=sw.HEAD_GROUP or cfg.head_group,
                FUSED_SOFTMAX=fused, PV_ACC=fused if cfg.pv_accumulate is None else cfg.pv_accumulate,
                num_warps=cfg.num_warps, num_stages=cfg.num_stages)


def _any_len_declines(paths, taken: str, specialised: bool) -> dict:
    """The any-length kernels' reasons: a length-specialised path not taken for S_q or S_kv 1, and back."""
    out = {}
    for p in paths:
        if p == taken or not p.startswith("triton"):
            continue
        if p.endswith("-any-len") and specialised:
            out[p] = ("S_q and S_kv are over 1: the kernels specialised on the lengths (SPECIALIZE_LENGTHS)",)
        elif not p.endswith("-any-len") and not specialised:
            out[p] = ("S_q or S_kv is 1 (or SPECIALIZE_LENGTHS is off): the any-length kernels "
                      "(kernels.attention_fwd._NO_SPECIALIZE)",)
    return out


# ----------------------------------------------------------------------------
# Forward


def plan_forward(q, k, v, o, stats, *, scale: float, left_bound=None, right_bound=None, alignment="top_left",
                 config: Optional[ForwardConfig] = None, apart: bool = True, tuner: Optional[Callable] = None
                 ) -> Plan:
    """The forward's plan: the Gluon forward where ``gluon_forward_reasons`` finds nothing against it, else the
    Triton forward at ``config`` (or the autotuner's choice, ``tuner(d_qk_pad, d_v_pad, causal)``, or the table's).
    ``scale`` resolved (not None); ``o`` and ``stats`` the outputs' metadata."""
    B, H_q, S_q, D_qk = q.shape
    H_k, S_kv, H_v, D_v = k.shape[1], k.shape[2], v.shape[1], v.shape[3]
    lo_off, hi_off, has_left, has_right = _offsets(S_q, S_kv, left_bound, right_bound, alignment)
    st = tuple(stats.stride()[:3])
    d_qk_pad, d_v_pad = head_dim_pad(D_qk), head_dim_pad(D_v)
    causal = left_bound is None and right_bound == 0
    kernel = _kernel("attention_fwd_kernel", "attention_fwd_kernel_any_len", S_q, S_kv)
    triton_path = "triton-fwd" if kernel == "attention_fwd_kernel" else "triton-fwd-any-len"
    reasons = gluon_forward_reasons(q, k, v, o, stats, scale=scale, causal=causal, hi_off=hi_off,
                                    banded=has_left or has_right, config=config, apart=apart)
    if not reasons:
        g = attention_fwd_gluon
        kd_qk, kd_v = g.kernel_head_dims(D_qk, D_v)  # the kernel's: the tensors', or padded by the bulk copies
        qk_a, qk_b = g.qk_chunks(kd_qk)
        consumers = g.consumers(kd_qk, kd_v)
        mod = "attention_fwd_gluon"

        def four(name, t, block_rows, cols):
            return _bhsd(name, t, block_rows, mod, (block_rows, cols, DTYPE), cols, q.dtype)

        rows, keys = g.BLOCK_ROWS, g.BLOCK_KEYS
        qd, kd = four("q", q, rows, qk_a), four("k", k, keys, qk_a)
        qb, kb = (four("q", q, rows, qk_b), four("k", k, keys, qk_b)) if qk_b else (qd, kd)
        o_tma = kd_v == qk_a and _tma_ok(o)  # a padded O is TMA-addressable (the reasons ask for it)
        step = Step(f"{mod}.attention_fwd_gluon_kernel", (_cdiv(S_q, consumers * g.BLOCK_ROWS), B * H_q),
                    (qd, qb, kd, kb, four("v", v, keys, kd_v), four("o", o, rows, kd_v) if o_tma
                     else Ref("o"), Ref("stats"), *o.stride(), *st, H_q, S_q, S_kv, H_q // H_k, H_q // H_v,
                     scale * LOG2E, int(causal)),
                    dict(D_QK=qk_a, D_QK_B=qk_b, D_V=kd_v, BLOCK_N=g.BLOCK_KEYS, STAGES_=g.STAGES, CAUSAL=causal,
                         HEAD_GROUP=(sw.HEAD_GROUP or sw.GLUON_HEAD_GROUP) if causal else 1, CONSUMERS=consumers,
                         num_warps=4, maxnreg=g.MAX_REGS_BY_CONSUMERS[consumers]))
        declined = {p: ("the Gluon forward takes the call (preferred wherever it applies)",) for p in FORWARD_PATHS[1:]}
        return Plan("fwd", "gluon-fwd", declined, None, (), (step,))
    cfg = config or length_one_forward_config(S_q, S_kv, q.dtype, q.device.type) \
        or (tuner(d_qk_pad, d_v_pad, causal) if tuner is not None else None) \
        or forward_config(d_qk_pad, d_v_pad, q.dtype, q.device.type, causal)
    step = Step(kernel, (_cdiv(S_q, cfg.block_m), B * H_q),
                (Ref("q"), Ref("k"), Ref("v"), Ref("o"), Ref("stats"),
                 *q.stride(), *k.stride(), *v.stride(), *o.stride(), *st,
                 H_q, S_q, S_kv, H_q // H_k, H_q // H_v, scale * LOG2E, lo_off, hi_off),
                triton_fwd_constexprs(cfg, q, D_v, scale, has_left, has_right, _wide(q, k, v, o, stats),
                                      _use_tma(k, v)))
    declined = {"gluon-fwd": tuple(reasons)}
    declined.update(_any_len_declines(FORWARD_PATHS, triton_path, kernel == "attention_fwd_kernel"))
    return Plan("fwd", triton_path, declined, cfg, (), (step,))


# ----------------------------------------------------------------------------
# Backward

_CALL = ("q", "k", "v", "o", "do", "stats", "dq", "dk", "dv")


def _side(B: int, H_q: int, S_q: int, D_qk: int, atomic, side_rows: int) -> list:
    """delta, lse2 (``side_rows`` rows a head) and the packed fp32 dQ accumulator: zeroed where dQ partials are added
    into it (``atomic`` True), unfilled where ODO zeroes it (``atomic`` "odo"), else delta stands in for it."""
    n = B * H_q * side_rows
    acc = (Buffer("dq_accum", (B * H_q * S_q * D_qk,), fill="empty" if atomic == "odo" else "zeros") if atomic
           else Buffer("dq_accum", (n,), fill="alias", alias="delta"))
    return [Buffer("delta", (n,)), Buffer("lse2", (n,)), acc]


def _numel(buffers, name: str) -> int:
    return _count(next(b for b in buffers if b.name == name).shape)


def _packed(shape, dtype, device) -> TensorMeta:
    return TensorMeta.packed(shape, dtype, device)


def plan_backward(q, k, v, o, do, stats, dq, dk, dv, *, scale: float, left_bound=None, right_bound=None,
                  alignment="top_left", deterministic: bool = False, config: Optional[BackwardConfig] = None,
                  apart: bool = True, target: Optional[Target] = None,
                  tuner: Optional[Callable] = None) -> Plan:
    """The backward's plan (all tensors' metadata, the outputs' included; ``scale`` resolved): the Gluon backward
    where ``gluon_backward_reasons`` finds nothing against it (at D_qk 192 / D_v 128 its column-split pass), else the
    Triton kernels at ``config`` (or ``_BWD_OVERRIDE``, the autotuner's ``tuner(d_qk_pad, d_v_pad, causal)``, the
    table's). ``target``: the interpreter flag and the SM count."""
    target = target or Target(interpreter_active())
    B, H_q, S_q, D_qk = q.shape
    H_k, S_kv, H_v, D_v = k.shape[1], k.shape[2], v.shape[1], v.shape[3]
    lo_off, hi_off, has_left, has_right = _offsets(S_q, S_kv, left_bound, right_bound, alignment)
    st = tuple(stats.stride()[:3])
    t = dict(q=q, k=k, v=v, o=o, do=do, stats=stats, dq=dq, dk=dk, dv=dv)
    d_qk_pad, d_v_pad = head_dim_pad(D_qk), head_dim_pad(D_v)
    causal = left_bound is None and right_bound == 0
    wide = _wide(q, k, v, o, do, stats, dq, dk, dv)
    reasons = gluon_backward_reasons(q, k, v, do, scale=scale, causal=causal, hi_off=hi_off,
                                     banded=has_left or has_right, deterministic=deterministic, apart=apart,
                                     config=config or sw._BWD_OVERRIDE, dk=dk, dv=dv)
    split192 = (D_qk, D_v) == attention_bwd_gluon_192.HEAD_DIMS
    if not reasons:
        plan = (_plan_gluon192 if split192 else _plan_gluon)(t, st, scale, causal, deterministic, wide, target, hi_off)
        declined = {p: ("the Gluon backward takes the call (preferred wherever it applies)",)
                    for p in BACKWARD_PATHS if p.startswith("triton")}
        declined.update(_gluon_declines(plan.path, split192, deterministic, q, reasons))
        return Plan("bwd", plan.path, declined, None, plan.buffers, plan.steps, plan.side_rows)
    cfg = config or sw._BWD_OVERRIDE or length_one_backward_config(
        S_q, S_kv, d_qk_pad, d_v_pad, q.dtype, q.device.type, causal) \
        or (tuner(d_qk_pad, d_v_pad, causal) if tuner is not None else None) \
        or backward_config(d_qk_pad, d_v_pad, q.dtype, q.device.type, deterministic, causal)
    if deterministic and cfg.dq_mode != "separate":
        cfg = with_dq_mode(cfg, "separate")
    qk_chunk, qk_split = d_qk_chunks(D_qk, q.dtype, cfg.split_d_qk)
    dev = q.device
    atomic = cfg.dq_mode == "atomic"
    buffers = _side(B, H_q, S_q, D_qk, atomic, S_q)
    one_dkdv_pass = H_k == H_v and not cfg.split_dkdv
    fused = cfg.fused_dq and not atomic and one_dkdv_pass and apart
    steps = [_odo_step(o, do, stats, st, d_v_pad, wide, S_q)]
    common = _triton_bwd_constexprs(q, D_v, cfg, has_left, has_right, wide)
    qk_scale_log2 = scale * LOG2E
    tma_qdo = _use_tma(q, do)  # DKDV streams Q and dO
    tma_kv = cfg.dq_kv_tma and _use_tma(k, v)  # the dQ pass streams K and V
    head_group = sw.HEAD_GROUP or cfg.head_group
    # the accumulator is a fresh allocation: 16-byte aligned
    dq_tma = atomic and _dq_reduce_tma(True, S_q, D_qk, dev.type, target.interpreter)
    dv_after_dp = cfg.dv_after_dp if sw.DV_AFTER_DP is None else sw.DV_AFTER_DP
    dkdv_kernel = _kernel("attention_bwd_dkdv_kernel", "attention_bwd_dkdv_kernel_any_len", S_q, S_kv)

    def dkdv(owner_heads: int, compute_dk: bool, compute_dv: bool, atomic_dq: bool):
        steps.append(Step(
            dkdv_kernel, (_cdiv(S_kv, cfg.block_n1), B * owner_heads),
            (Ref("q"), Ref("k"), Ref("v"), Ref("do"), Ref("dk"), Ref("dv"), Ref("lse2"), Ref("delta"),
             Ref("dq_accum"), *q.stride(), *k.stride(), *v.stride(), *do.stride(), *dk.stride(), *dv.stride(),
             H_q, owner_heads, H_q // H_k, H_q // H_v, S_q, S_kv, qk_scale_log2, scale, lo_off, hi_off),
            dkdv_pass_constexprs(cfg, compute_dk, compute_dv, atomic_dq, tma_qdo, dq_tma, common)))

    if fused:
        # One launch: the DKDV programs (one per (b, kv head, key block), owning both dK and dV rows), then
        # the dQ pass's programs (one per (b, q head, query block)).
        n_dkdv = _cdiv(S_kv, cfg.block_n1) * B * H_k
        steps.append(Step(
            _kernel("attention_bwd_fused_kernel", "attention_bwd_fused_kernel_any_len", S_q, S_kv),
            (n_dkdv + _cdiv(S_q, cfg.block_m2) * B * H_q,),
            (Ref("q"), Ref("k"), Ref("v"), Ref("do"), Ref("dq"), Ref("dk"), Ref("dv"), Ref("lse2"), Ref("delta"),
             *q.stride(), *k.stride(), *v.stride(), *do.stride(), *dq.stride(), *dk.stride(), *dv.stride(),
             B, H_q, H_k, H_q // H_k, H_q // H_v, S_q, S_kv, qk_scale_log2, scale, lo_off, hi_off),
            dict(BLOCK_M1=cfg.block_m1, BLOCK_N1=cfg.block_n1, BLOCK_M2=cfg.block_m2, BLOCK_N2=cfg.block_n2,
                 TMA_QDO=tma_qdo, TMA_KV=tma_kv, HEAD_GROUP=head_group, DV_AFTER_DP=dv_after_dp, **common)))
    elif one_dkdv_pass:
        # One program per (b, kv head, key block) owns both dK and dV rows.
        dkdv(H_k, True, True, atomic)
    else:
        # K and V groups differ (or the config splits the pass): one pass owns dK rows per K head,
        # one owns dV rows per V head.
        dkdv(H_k, True, False, atomic)
        dkdv(H_v, False, True, False)
    if atomic:
        steps.append(_convert_step("dq_accum", "dq", dq, scale, qk_chunk, qk_split, wide))
    elif not fused:
        steps.append(_dq_pass_step(cfg, t, scale, lo_off, hi_off, tma_kv, common))
    base = "triton-fused" if fused else "triton-split-dkdv" if not one_dkdv_pass else \
        "triton-atomic" if atomic else "triton-separate"
    specialised = dkdv_kernel == "attention_bwd_dkdv_kernel"
    path = base if specialised else base + "-any-len"
    declined = {"gluon-bwd": tuple(reasons) if not split192 else
                (f"head dims {(D_qk, D_v)}: the 192 / 128 kernel's (gluon-bwd-192)",),
                "gluon-bwd-192": tuple(reasons) if split192 else
                (f"head dims {(D_qk, D_v)}: the column-split kernel is for (192, 128) only",)}
    declined["gluon-bwd-192-det-split"] = declined["gluon-bwd-192"]
    facts = {
        "triton-fused": [not cfg.fused_dq and "the config's fused_dq is off (the table has it for hd128 causal "
                         "16-bit only)", atomic and "dQ in the atomic mode",
                         not one_dkdv_pass and "two DKDV passes (H_k != H_v, or the config's split_dkdv)",
                         not apart and "an output touches an input or another output: the passes must run apart"],
        "triton-split-dkdv": [one_dkdv_pass and "one DKDV pass owns dK and dV (H_k == H_v, the config's split_dkdv "
                              "off)", fused and "the fused launch takes it"],
        "triton-atomic": [not atomic and ("deterministic mode: dQ by the separate pass (no atomics)" if deterministic
                                          else "the config's dq_mode is 'separate'"),
                          fused and "the fused launch takes it",
                          not one_dkdv_pass and "two DKDV passes (triton-split-dkdv) take it"],
        "triton-separate": [atomic and "the config's dq_mode is 'atomic' (the interpreter's config has it)",
                            fused and "the fused launch takes it",
                            not one_dkdv_pass and "two DKDV passes (triton-split-dkdv) take it"],
    }
    for p, why in facts.items():
        if p != base:
            declined[p if specialised else p + "-any-len"] = tuple(w for w in why if w) or (f"{base} takes it",)
    declined.update(_any_len_declines(BACKWARD_PATHS, path, specialised))
    return Plan("bwd", path, declined, cfg, tuple(buffers), tuple(steps), S_q)


def _gluon_declines(taken: str, split192: bool, deterministic: bool, q, reasons) -> dict:
    """The Gluon paths not taken where one Gluon path is."""
    out = {}
    if taken == "gluon-bwd":
        out["gluon-bwd-192"] = out["gluon-bwd-192-det-split"] = (
            f"head dims {(q.shape[3], q.shape[3])}: the column-split kernel is for (192, 128) only",)
    else:
        out["gluon-bwd"] = ("head dims (192, 128): D_qk != D_v, the column-split kernel's",)
        other = "gluon-bwd-192-det-split" if taken == "gluon-bwd-192" else "gluon-bwd-192"
        out[other] = (("not deterministic mode" if not deterministic else
                       "deterministic mode outside the split form (GLUON_BWD192_DET_SPLIT off or S_q not a "
                       "multiple of 4)") if other.endswith("split") else
                      "deterministic mode's split form (GLUON_BWD192_DET_SPLIT: dQ by the Triton dQ pass)",)
    return out


def _plan_gluon(t: dict, st, scale: float, causal: bool, deterministic: bool, wide: bool, target,
                hi_off: int = 0) -> Plan:
    """The Gluon backward's launches: ODO (delta, lse2), the one pass (dK, dV, and dQ's partials added into the
    zeroed fp32 accumulator) and DQ_CONVERT (the accumulator, scaled, into dQ through its strides). Where K or V
    heads are shared (GQA, MQA), each query head's program adds its dK, dV partials into zeroed fp32
    accumulators of K's and V's dims, and DQ_CONVERT's kernel writes them into dK and dV afterwards.
    ``deterministic``: dQ's partials (and shared heads' dK, dV partials) added in a fixed order, by zeroed int32
    turn counters: one per (batch and head, query tile, consumer) for dQ's, then where K or V heads are shared one
    per (batch and K head, key block of 128, consumer) for dK's and one per (batch and V head, ...) for dV's.

    The causal mask with its diagonal at ``hi_off`` > 0 or with keys no row keeps (``causal_key_ranges``): the
    pass runs on the keys' square under the mask (K, V and dK, dV or their accumulators narrowed to those keys:
    buffers of fill "view"), then, without the mask, on the prefix every row keeps (a launch of its own after the
    first, its own turn counters), both adding dQ's partials into the one accumulator (dQ_i sums over keys; each
    key's dK, dV rows come from one launch); dK and dV of the tail are zeroed (fill "zero_view"; shared heads'
    accumulators are zeroed already)."""
    q, k, v, o, do, stats, dq, dk, dv = (t[n] for n in _CALL)
    B, H_q, S_q, D = q.shape
    H_k, H_v, S_kv = k.shape[1], v.shape[1], k.shape[2]
    DK = attention_bwd_gluon.kernel_head_dim(D)  # the kernel's head dim: D, or D padded by the bulk copies
    side = gluon_side_rows(S_q)
    pdl = sw.GLUON_PDL and q.device.type == "cuda"
    atomic = "odo" if pdl else True  # where ODO zeroes the accumulator, it is allocated without a fill
    buffers = _side(B, H_q, S_q, D, atomic, side)
    kv_acc = H_k != H_q or H_v != H_q
    acc, outs = _kv_acc_destinations(q, k, v, dk, dv, kv_acc)
    buffers += acc
    rows = sw.GLUON_BWD_HD64_ROWS if DK == 64 else 64  # query rows a streamed tile holds
    keys = attention_bwd_gluon.KEYS_PER_CONSUMER

    def turn_counters(n_keys: int) -> int:
        n = B * H_q * _cdiv(S_q, rows) * 2
        if H_k != H_q or H_v != H_q:
            n += B * (H_k + H_v) * _cdiv(n_keys, 2 * keys) * 2
        return n

    prefix, diagonal, tail = causal_key_ranges(S_q, S_kv, hi_off, causal)
    passes = _pass_launches(prefix, diagonal, causal, "sems")
    if deterministic:
        buffers.append(Buffer("sems", (turn_counters(S_kv),), dtype="int32", fill="zeros"))
        if prefix:
            buffers.append(Buffer("sems_prefix", (turn_counters(prefix),), dtype="int32", fill="zeros"))
    if tail and not kv_acc:
        _zeroed_tail(buffers, (("dk", dk), ("dv", dv)), prefix + diagonal, tail)
    steps = [_odo_step(o, do, stats, st, head_dim_pad(D), wide, side, "dq_accum" if pdl else None,
                       _numel(buffers, "dq_accum"), pdl)]
    g = attention_bwd_gluon
    mod = "attention_bwd_gluon"
    # a padded head dim's dK and dV leave by the bulk copies, which drop the padded columns (the reasons ask for it)
    tma_epilogue = kv_acc or DK != D or (sw.GLUON_BWD_TMA_EPILOGUE and _tma_ok(dk) and _tma_ok(dv))

    def four(name, m, block_rows, kind):  # blocks of the kernel's DK columns over the tensor's D
        return _bhsd(name, m, block_rows, mod, (kind, DK, rows, DTYPE), DK, m.dtype)

    dq_by_rows = sw.GLUON_BWD_DQ_ROWS and rows >= 128
    n_acc = _numel(buffers, "dq_accum")
    n_side = B * H_q * side
    for i, (start, count, masked, sems) in enumerate(passes):
        parts = _key_parts(buffers, {"k": k, "v": v, **dict(outs)}, start, count, S_kv)
        (kn, km), (vn, vm), (dkn, dkm), (dvn, dvm) = parts.items()
        descs = (four("q", q, rows, "q"), four(kn, km, keys, "k"), four(vn, vm, keys, "v"), four("do", do, rows, "q"),
                 *((four(n, m, keys, "out") for n, m in ((dkn, dkm), (dvn, dvm))) if tma_epilogue
                   else (Ref(dkn), Ref(dvn))),
                 _flat("dq_accum", (n_acc // D, D), (D, 1), g.dq_block(DK, rows, dq_by_rows), mod,
                       ("dq", DK, rows, DTYPE, dq_by_rows), q.dtype),
                 _flat("lse2", (n_side,), (1,), (rows,), mod, ("side", DK, rows, DTYPE), q.dtype),
                 _flat("delta", (n_side,), (1,), (rows,), mod, ("side", DK, rows, DTYPE), q.dtype))
        # the first pass launch is ODO's programmatic dependent; a second waits for the first in stream order
        more = dict(launch_pdl=True) if pdl and i == 0 else {}
        steps.append(Step(
            f"{mod}.attention_bwd_gluon_kernel", (_cdiv(count, 2 * keys), B * H_q),
            (*descs, Ref(sems if deterministic else "dq_accum"), Ref("dq_accum" if sw.GLUON_BWD_STAMPS is None
                                                                     else "stamps"),
             *dkm.stride(), *dvm.stride(),
             H_q, H_q // H_k, H_q // H_v, S_q, count, side, scale * LOG2E, scale, int(masked)),
            dict(D=DK, TMA_EPILOGUE=tma_epilogue, ROWS=rows,
                 HEAD_GROUP=(sw.HEAD_GROUP or sw.GLUON_HEAD_GROUP) if masked or deterministic else 1,
                 DETERMINISTIC=deterministic, HEAD_LOOP=False,  # the kernel's head loop, whose switch was removed
                 DET_UP=deterministic and masked and DK in sw.GLUON_BWD_DET_UP, num_warps=4, maxnreg=g.MAX_REGS,
                 **more)))
    if kv_acc:  # dQ's, dK's and dV's conversions in one launch
        steps.append(_convert_all_step(k, dq, dk, dv, scale, wide, pdl))
    else:
        steps.append(_convert_step("dq_accum", "dq", dq, scale, head_dim_pad(D), 0, wide, pdl))
    return Plan("bwd", "gluon-bwd", {}, None, tuple(buffers), tuple(steps), side)


def _pass_launches(prefix: int, diagonal: int, causal: bool, counter: str) -> list:
    """(key start, key count, masked, counter buffer's name) of each launch of a Gluon backward pass: the keys' causal
    square (all the keys where there are no parts), then the prefix every row keeps, unmasked, with a counter of its
    own (``<counter>_prefix``)."""
    return [(prefix, diagonal, causal, counter)] + ([(0, prefix, False, f"{counter}_prefix")] if prefix else [])


def _key_parts(buffers: list, named: dict, start: int, count: int, S_kv: int) -> dict:
    """``named`` ({name: (B, H, S, D) metadata}: K, V and dK's and dV's destinations) for a pass launch over keys
    [start, start + count): as they are where that is all of them, else each narrowed to those keys, a ``view``
    buffer appended to ``buffers`` for it (named ``<name>_keys<start>``)."""
    if (start, count) == (0, S_kv):
        return dict(named)
    out = {}
    for name, m in named.items():
        view = f"{name}_keys{start}"
        out[view] = _narrowed(m, start, count)
        buffers.append(Buffer(view, out[view].shape, fill="view", alias=name, offset=start))
    return out


def _zeroed_tail(buffers: list, named, start: int, count: int) -> None:
    """dK's and dV's keys [start, start + count), which no query row keeps: zeroed before the launches."""
    for name, m in named:
        buffers.append(Buffer(f"{name}_tail", _narrowed(m, start, count).shape, fill="zero_view", alias=name,
                              offset=start))


def _plan_gluon192(t: dict, st, scale: float, causal: bool, deterministic: bool, wide: bool, target,
                   hi_off: int = 0) -> Plan:
    """The Gluon backward's launches at D_qk 192 / D_v 128 (``kernels.attention_bwd_gluon_192``): ODO, the
    column-split pass (dK and dV stored through their strides, dQ's partials bulk-reduced into the zeroed fp32
    accumulator) and DQ_CONVERT, in D_qk's 128 + 64 chunks as the Triton kernels' atomic mode. Where K or V heads
    are shared (GQA, MQA), each query head's program adds its dK and dV (dK scaled) into zeroed fp32 accumulators
    of K's and V's dims (atomic adds), which DQ_CONVERT's kernel writes into dK and dV afterwards. ``deterministic``
    (``gluon_backward_reasons`` lets it in persistent, heads of their own, in the split form
    ``GLUON_BWD192_DET_SPLIT``): the pass computes dK and dV only (``NO_DQ``: no accumulator, no DQ_CONVERT) and the
    Triton kernels' dQ pass dQ. The causal mask with S_q < S_kv: the pass on the keys' parts, as ``_plan_gluon``
    (the persistent form a block counter each launch)."""
    q, k, v, o, do, stats, dq, dk, dv = (t[n] for n in _CALL)
    B, H_q, S_q, D_qk = q.shape
    H_k, H_v, S_kv, D_v = k.shape[1], v.shape[1], k.shape[2], v.shape[3]
    side = gluon_side_rows(S_q)
    pdl = sw.GLUON_PDL and q.device.type == "cuda"
    kv_acc = H_k != H_q or H_v != H_q
    persist = _bwd192_persist(q)
    split = deterministic and persist and not kv_acc and _bwd192_det_split(q)
    # where ODO zeroes the accumulator, it is allocated without a fill; the split form has none (delta stands in)
    atomic = False if split else "odo" if pdl else True
    buffers = _side(B, H_q, S_q, D_qk, atomic, side)
    acc, outs = _kv_acc_destinations(q, k, v, dk, dv, kv_acc)
    buffers += acc
    g = attention_bwd_gluon_192
    mod = "attention_bwd_gluon_192"
    if deterministic and not split:
        raise RuntimeError(f"deterministic 192/128 call outside the split form (persistent {persist}, shared K/V "
                           f"heads {kv_acc}): gluon_backward_reasons should have sent it to the Triton "
                           "kernels; this is a launcher bug, report it with the call's shapes")
    # dK and dV by the bulk-copy engine at each block's end (the persistent form's): 16-bit outputs of Q's dtype it
    # can address, and heads of their own (shared ones add into the fp32 accumulators)
    tma_out = (persist and not kv_acc and sw.GLUON_BWD192_TMA_EPILOGUE and dk.dtype == q.dtype
               and dv.dtype == q.dtype and _tma_ok(dk) and _tma_ok(dv))
    prefix, diagonal, tail = causal_key_ranges(S_q, S_kv, hi_off, causal)
    passes = _pass_launches(prefix, diagonal, causal, "counter")
    # the persistent form's zeroed block counter, fresh zeros a call (a replay too), one each pass launch
    if persist:
        buffers += [Buffer(c, (1,), dtype="int32", fill="zeros") for *_, c in passes]
    if tail and not kv_acc:
        _zeroed_tail(buffers, (("dk", dk), ("dv", dv)), prefix + diagonal, tail)
    steps = [_odo_step(o, do, stats, st, head_dim_pad(D_v), wide, side, "dq_accum" if pdl and not split else None,
                       _numel(buffers, "dq_accum"), pdl)]
    rows, keys, a = g.QUERY_ROWS, g.KEYS_PER_PROGRAM, g.COLS0_
    b = D_qk - a

    def four(name, m, block_rows, kind, cols):
        return _bhsd(name, m, block_rows, mod, (kind, DTYPE), cols, m.dtype)

    # (the split form passes delta for the accumulator it never reads: its descriptors of it, at least a row, are
    # made but not used; NO_DQ compiles every use of them out)
    n = max(1, _numel(buffers, "dq_accum") // D_qk)
    n_side = B * H_q * side
    stages = 3 if sw.GLUON_BWD192_THREE_STAGES else 2
    for i, (start, count, masked, counter) in enumerate(passes):
        parts = _key_parts(buffers, {"k": k, "v": v, **dict(outs)}, start, count, S_kv)
        (kn, km), (vn, vm), (dkn, dkm), (dvn, dvm) = parts.items()
        blocks = _cdiv(count, g.KEYS_PER_PROGRAM)
        grid = (blocks, B * H_q)
        if persist:  # one program an SM (its shared memory holds one), the blocks claimed through a zeroed counter
            grid = (min(blocks * B * H_q, _device_sm_count(q, target)), 1)
        descs = (four("q", q, rows, "qa", a), four("q", q, rows, "qb", b), four(kn, km, keys, "qa", a),
                 four(kn, km, keys, "qb", b), four(vn, vm, keys, "v", v.shape[3]),
                 four("do", do, rows, "v", do.shape[3]),
                 _flat("dq_accum", (n, D_qk), (D_qk, 1), (rows, a), mod, ("dq0", DTYPE),
                       q.dtype),
                 _flat("dq_accum", (n, D_qk), (D_qk, 1), (rows, b), mod, ("dq1", DTYPE),
                       q.dtype),
                 _flat("lse2", (n_side,), (1,), (rows,), mod, ("side", DTYPE), q.dtype),
                 _flat("delta", (n_side,), (1,), (rows,), mod, ("side", DTYPE), q.dtype))
        args = (*descs, Ref(dkn), Ref(dvn), *dkm.stride(), *dvm.stride(),
                H_q, H_q // H_k, H_q // H_v, S_q, count, side, scale * LOG2E, scale, int(masked),
                Ref(counter if persist else "delta"), B * H_q,  # delta stands in for the counter it does not read
                # not read (the removed in-pass dQ conversion's): kept, so that launch and compiled code stay as before
                Ref("dq_accum"), Ref("dq_accum"), *dq.stride()[:3])
        # head groups under the mask; the first pass launch is ODO's programmatic dependent, a second waits for the
        # first in stream order
        kw = dict(HEAD_GROUP=(sw.HEAD_GROUP or sw.GLUON_HEAD_GROUP) if masked else 1, PERSIST=persist, STAGES=stages,
                  num_warps=4, maxnreg=g.MAX_REGS, **(dict(launch_pdl=True) if pdl and i == 0 else {}),
                  **(dict(NO_DQ=True) if split else {}))
        # dK's two column chunks and dV as descriptors, or Q's first chunk's three times, which the kernel reads as
        # "no"
        outs_d = ((four(dkn, dkm, keys, "qa", a), four(dkn, dkm, keys, "qb", dk.shape[3] - a),
                   four(dvn, dvm, keys, "v", dv.shape[3])) if tma_out else (descs[0],) * 3)
        steps.append(Step(f"{mod}.attention_bwd_gluon_192_kernel", grid, args + outs_d, kw))
    qk_chunk, qk_split = d_qk_chunks(D_qk, q.dtype)
    if split:  # dQ by the Triton kernels' dQ pass, its deterministic config's tiles, from the same side buffers
        cfg = backward_config(head_dim_pad(D_qk), head_dim_pad(D_v), q.dtype, q.device.type, True, causal)
        # (the Gluon pass's masks: none, or the causal one with its diagonal at hi_off, over all the keys)
        steps.append(_dq_pass_step(cfg, t, scale, 0, hi_off, cfg.dq_kv_tma and _use_tma(k, v),
                                   _triton_bwd_constexprs(q, D_v, cfg, False, causal, wide)))
    elif kv_acc:  # dQ's, dK's and dV's conversions in one launch
        steps.append(_convert_all_step(k, dq, dk, dv, scale, wide, pdl))
    else:
        steps.append(_convert_step("dq_accum", "dq", dq, scale, qk_chunk, qk_split, wide, pdl))
    return Plan("bwd", "gluon-bwd-192-det-split" if split else "gluon-bwd-192", {}, None, tuple(buffers),
                tuple(steps), side)
