"""PyTorch integration of the Triton engine.

* ``attention(q, k, v, *, scale=None, causal=False, left_bound=None, right_bound=None,
  alignment="top_left") -> o`` -- differentiable: in eager mode a plain autograd Function over the
  launcher (the least host time; torch.func's ``grad`` and ``vmap`` too), under ``torch.compile`` the
  ``torch.library.custom_op`` pair ``sdpa_bwd::attention_forward`` / ``attention_backward`` with fake and
  autograd registrations.
* ``forward(q, k, v, *, ...) -> (o, stats)`` and
  ``backward(q, k, v, o, do, stats, *, ..., deterministic=False, dq=None, dk=None, dv=None)
  -> (dq, dk, dv)``: functional forms; caller-given outputs are written through their
  strides, whatever they are.

``causal=True`` means ``right_bound=0`` (with the given alignment).
"""

from __future__ import annotations

import functools
import math
from typing import Optional

import torch

from . import alloc, launch, varlen


def _resolve_bounds(causal: bool, left_bound: Optional[int], right_bound: Optional[int]):
    if causal:
        if right_bound is not None and right_bound != 0:
            raise ValueError(f"causal=True with right_bound = {right_bound}: causal means right_bound = 0; "
                             "pass one or the other")
        right_bound = 0
    return left_bound, right_bound


def forward(q, k, v, *, scale=None, causal=False, left_bound=None, right_bound=None,
            alignment="top_left", o=None, stats=None):
    """(O, stats): stats is the float32 natural-log LSE of each score row, dims (B, H_q, S_q)."""
    left_bound, right_bound = _resolve_bounds(causal, left_bound, right_bound)
    return launch.attention_forward(q, k, v, scale=scale, left_bound=left_bound, right_bound=right_bound,
                                    alignment=alignment, o=o, stats=stats)


def backward(q, k, v, o, do, stats, *, scale=None, causal=False, left_bound=None, right_bound=None,
             alignment="top_left", deterministic=False, dq=None, dk=None, dv=None):
    """(dQ, dK, dV); ``deterministic=True`` gives bitwise-identical results run to run."""
    left_bound, right_bound = _resolve_bounds(causal, left_bound, right_bound)
    return launch.attention_backward(q, k, v, o, do, stats, scale=scale, left_bound=left_bound,
                                     right_bound=right_bound, alignment=alignment,
                                     deterministic=deterministic, dq=dq, dk=dk, dv=dv)


# ----------------------------------------------------------------------------
# Custom ops (the autograd / torch.compile path)


@torch.library.custom_op("sdpa_bwd::attention_forward", mutates_args=())
def _attention_forward_op(q: torch.Tensor, k: torch.Tensor, v: torch.Tensor, scale: float,
                          left_bound: Optional[int], right_bound: Optional[int],
                          alignment: str) -> tuple[torch.Tensor, torch.Tensor]:
    return launch.attention_forward(q, k, v, scale=scale, left_bound=left_bound, right_bound=right_bound,
                                    alignment=alignment)


@_attention_forward_op.register_fake
def _(q, k, v, scale, left_bound, right_bound, alignment):
    B, H_q, S_q, _ = q.shape
    o = q.new_empty((B, H_q, S_q, v.shape[3]))
    stats = q.new_empty((B, H_q, S_q), dtype=torch.float32)
    return o, stats


@torch.library.custom_op("sdpa_bwd::attention_backward", mutates_args=())
def _attention_backward_op(q: torch.Tensor, k: torch.Tensor, v: torch.Tensor, o: torch.Tensor,
                           do: torch.Tensor, stats: torch.Tensor, scale: float,
                           left_bound: Optional[int], right_bound: Optional[int],
                           alignment: str, deterministic: bool
                           ) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
    return _backward_into_fresh(q, k, v, o, do, stats, scale, left_bound, right_bound, alignment, deterministic)


@_attention_backward_op.register_fake
def _(q, k, v, o, do, stats, scale, left_bound, right_bound, alignment, deterministic):
    return torch.empty_like(q), torch.empty_like(k), torch.empty_like(v)


def _setup_context(ctx, inputs, output):
    """Q, K, V, O and the stats saved, the other inputs kept as the backward's parameters (the custom op's autograd
    and, through ``_save_for_backward``, our Functions')."""
    q, k, v, *params = inputs
    o, stats = output
    ctx.save_for_backward(q, k, v, o, stats)
    ctx.params = params


def _backward(ctx, grad_o, grad_stats):
    q, k, v, o, stats = ctx.saved_tensors
    scale, left_bound, right_bound, alignment = ctx.params
    # The stats output is an auxiliary result; a gradient flowing into it is not modelled.
    dq, dk, dv = _attention_backward_op(q, k, v, o, grad_o, stats, scale, left_bound, right_bound,
                                        alignment, torch.are_deterministic_algorithms_enabled())
    return dq, dk, dv, None, None, None, None


_attention_forward_op.register_autograd(_backward, setup_context=_setup_context)


# vmap over the ops themselves (a graph that calls them, vmapped): the vmapped dim merged into the batch dim, one
# launch, as our Functions' vmap rules do; without these torch ran the op once a sample (its BatchedFallback,
# 2026-12-07).
@_attention_forward_op.register_vmap
def _(info, in_dims, q, k, v, *params):
    return _unbatched(info, _attention_forward_op(*_batched(info, in_dims[:3], (q, k, v)), *params))


@_attention_backward_op.register_vmap
def _(info, in_dims, q, k, v, o, do, stats, *params):
    return _unbatched(info, _attention_backward_op(*_batched(info, in_dims[:6], (q, k, v, o, do, stats)), *params))


def attention(q, k, v, *, scale=None, causal=False, left_bound=None, right_bound=None,
              alignment="top_left", cu_seqlens_q=None, cu_seqlens_kv=None, max_seqlen_q=None, max_seqlen_kv=None):
    """Differentiable SDPA on (B, H, S, D) tensors of any strides; returns O (B, H_q, S_q, D_v).

    Packed variable-length sequences: with ``cu_seqlens_q`` and ``cu_seqlens_kv`` (B + 1 cumulative token offsets
    each, an int32 tensor or a list, as FlashAttention's varlen functions take them) q is (T_q, H_q, D_qk), k
    (T_kv, H_k, D_qk), v (T_kv, H_v, D_v), the mask applies within each sequence, and O is (T_q, H_q, D_v)
    (``sdpa_bwd.engine.varlen``). Offsets given as int32 tensors on q's device together with ``max_seqlen_q`` and
    ``max_seqlen_kv`` (ints, at least the longest lengths), as FlashAttention's callers pass them, are never read
    back to the host: they are checked on the device, and a malformed batch stops the stream with a device-side
    assertion (``varlen.on_device``). Otherwise the offsets are read and checked on the host, each error naming
    the value, and ``max_seqlen_*``, when given, are checked against them.

    Nested jagged tensors (``torch.nested``, ``layout=torch.jagged``) of dims (B, H, j, D), as
    ``scaled_dot_product_attention`` takes them, are the same packed sequences: their values and offsets go the way
    above, and O comes back as a nested tensor of Q's offsets (eager mode).

    Under ``torch.use_deterministic_algorithms(True)`` the backward is the
    deterministic one. Under ``torch.autocast`` floating-point q, k and v are cast to the autocast dtype first, as
    ``scaled_dot_product_attention`` casts them (O and the kernels in that dtype; the gradients flow back through the
    casts to the callers' dtypes).
    """
    left_bound, right_bound = _resolve_bounds(causal, left_bound, right_bound)
    if torch.is_autocast_enabled(q.device.type):
        q, k, v = _autocast(q, k, v)
    if q.is_nested or k.is_nested or v.is_nested:
        return _nested_attention(q, k, v, scale, left_bound, right_bound, alignment, cu_seqlens_q, cu_seqlens_kv)
    scale = 1.0 / math.sqrt(q.shape[-1]) if scale is None else float(scale)
    if cu_seqlens_q is not None or cu_seqlens_kv is not None:
        return _varlen_attention(q, k, v, cu_seqlens_q, cu_seqlens_kv, max_seqlen_q, max_seqlen_kv, scale,
                                 left_bound, right_bound, alignment)
    if torch.compiler.is_compiling():
        o, _ = _attention_forward_op(q, k, v, scale, left_bound, right_bound, alignment)
        return o
    return _apply(_EagerAttention, q, k, v, scale, left_bound, right_bound, alignment)[0]


_SECOND_DERIVATIVE = ("a second derivative through sdpa_bwd.attention was asked (a gradient taken with "
                      "create_graph=True, or torch.func.grad of one, differentiated again): its backward has no "
                      "derivative of its own - compute that part with torch.nn.functional.scaled_dot_product_attention "
                      "under the math backend (torch.nn.attention.sdpa_kernel(SDPBackend.MATH)), which has one")


def _autocast(q, k, v):
    """q, k, v in the autocast dtype of q's device where they are floating point (SDPA is on autocast's lower-precision
    list: a model under autocast calling it got bf16 / fp16 kernels; calling us it got fp32 ones, 2026-12-07)."""
    dtype = torch.get_autocast_dtype(q.device.type)
    return tuple(t.to(dtype) if t.is_floating_point() and t.dtype != dtype else t for t in (q, k, v))


def _batched(info, in_dims, tensors):
    """For a Function's ``vmap`` rule: each tensor with torch.func.vmap's dim moved first (an unbatched one expanded
    to it) and merged into the batch dim, B -> N * B (a view where the strides allow, else a copy)."""
    out = []
    for t, d in zip(tensors, in_dims):
        t = t.expand(info.batch_size, *t.shape) if d is None else t.movedim(d, 0)
        out.append(t.flatten(0, 1))
    return out


def _unbatched(info, tensors):
    """The vmap rule's results, N * B -> (N, B): the vmapped dim first."""
    return tuple(t.unflatten(0, (info.batch_size, -1)) for t in tensors), (0,) * len(tensors)


def _apply(function, *args):
    """``function.apply(*args)`` for our Functions, written in the form torch.func's transforms take (the forward
    without ``ctx``, a ``setup_context``). Outside those transforms its classic twin (``_classic``) runs instead:
    ``Function.apply`` binds such a Function's arguments through ``inspect.signature`` on every call, which took a
    forward through the API from 71-84 to 149-172 us on the development machine's CPU (kernels stubbed,
    ``tools/host_overhead.py --python-only --api``, 2026-12-07)."""
    if torch._C._are_functorch_transforms_active():
        return function.apply(*args)
    return function.classic.apply(*args)


def _classic(function):
    """Class decorator: ``function.classic``, the same Function in the classic form (``forward(ctx, ...)``)."""
    def forward(ctx, *args):
        output = function.forward(*args)
        function.setup_context(ctx, args, output)
        return output

    function.classic = type(function.__name__ + "Classic", (torch.autograd.Function,),
                            dict(forward=staticmethod(forward), backward=staticmethod(function.backward),
                                 __doc__=f"``{function.__name__}`` in the classic form (``_apply``)."))
    return function


def _save_for_backward(ctx, inputs, output):
    """Our Functions' ``setup_context``: ``_setup_context``, the stats an output without a gradient."""
    ctx.mark_non_differentiable(output[1])
    ctx.set_materialize_grads(False)  # stats' gradient stays None: no zeros made a call
    _setup_context(ctx, inputs, output)


_NO_PACKED_VMAP = ("torch.func.vmap over sdpa_bwd.attention on packed sequences (cu_seqlens or nested tensors): "
                   "not supported, a vmapped dim has no place in the (T, H, D) token axis - pack the vmapped "
                   "problems into one batch of sequences (their offsets concatenated), or vmap dense (B, H, S, D) "
                   "inputs")


@_classic
class _EagerAttention(torch.autograd.Function):
    """``attention`` outside torch.compile: the launcher under a plain autograd Function. The custom ops above
    (what torch.compile traces) give the same results through the dispatcher and their autograd wrapper, which
    cost host time on every call: a forward + backward with the launcher stubbed out took 107 us through the ops
    and 36 us through this Function (CPU of the development machine, 2026-12-06), and a short training step is
    bound by its host time (``benchmarks/bench_host.py``).

    It takes torch.func's transforms (``grad``, ``vmap`` and per-sample gradients ``vmap(grad(...))``; the custom
    ops' autograd wrapper does not, 2026-12-07): the forward is kept apart from ``setup_context``, and ``vmap`` merges
    the vmapped dim into the batch dim, here and in the backward's ``_Gradients``."""

    @staticmethod
    def forward(q, k, v, scale, left_bound, right_bound, alignment):
        return launch.attention_forward(q, k, v, scale=scale, left_bound=left_bound, right_bound=right_bound,
                                        alignment=alignment)

    setup_context = staticmethod(_save_for_backward)

    @staticmethod
    def backward(ctx, grad_o, _grad_stats):
        q, k, v, o, stats = ctx.saved_tensors
        dq, dk, dv = _gradients(_backward_into_fresh, q, k, v, o, grad_o, stats, *ctx.params,
                                torch.are_deterministic_algorithms_enabled())
        return dq, dk, dv, None, None, None, None

    @staticmethod
    def vmap(info, in_dims, q, k, v, *params):
        return _unbatched(info, _apply(_EagerAttention, *_batched(info, in_dims[:3], (q, k, v)), *params))


def _gradients(backward, *args):
    """``backward(*args)`` -> (dQ, dK, dV) for our Functions' backward: called as it is where autograd records no
    graph of the backward (the usual case: the least host time), else through ``_Gradients``."""
    return _Gradients.apply(backward, *args) if torch.is_grad_enabled() else backward(*args)


class _Gradients(torch.autograd.Function):
    """dQ, dK, dV where autograd records the backward's graph (``create_graph=True``; torch.func's transforms always
    do): the kernels run on the tensors under torch.func's wrappers; differentiating the gradients again raises,
    saying what to use (the backward kernels have no derivative of their own; ``once_differentiable`` gave the
    gradients no graph when dO needed none, a loss's ones, so a gradient penalty's second-order terms came back as
    zeros, 2026-12-07); and torch.func.vmap's dim is merged into the batch dim (per-sample gradients)."""

    @staticmethod
    def forward(backward, *args):
        return backward(*args)

    @staticmethod
    def setup_context(ctx, inputs, output):
        pass

    @staticmethod
    def backward(ctx, *_):
        raise RuntimeError(_SECOND_DERIVATIVE)

    @staticmethod
    def vmap(info, in_dims, backward, *args):
        if backward is not _backward_into_fresh:
            raise NotImplementedError(_NO_PACKED_VMAP)
        tensors = _batched(info, in_dims[1:7], args[:6])  # q, k, v, o, do, stats
        return _unbatched(info, _Gradients.apply(backward, *tensors, *args[6:]))


def _backward_into_fresh(q, k, v, o, do, stats, scale, left_bound, right_bound, alignment, deterministic):
    # Gradients take their inputs' layout (empty_like), and the backward op's fake allocates them the same way:
    # under torch.compile, Inductor asserts that a custom op's real output strides match its fake's.
    return launch.attention_backward(q, k, v, o, do, stats, scale=scale, left_bound=left_bound,
                                     right_bound=right_bound, alignment=alignment, deterministic=deterministic,
                                     dq=alloc.empty_like(q), dk=alloc.empty_like(k), dv=alloc.empty_like(v))


# ----------------------------------------------------------------------------
# Packed variable-length sequences


def _nested_attention(q, k, v, scale, left_bound, right_bound, alignment, cu_seqlens_q, cu_seqlens_kv):
    """``attention`` on nested jagged tensors (B, H, j, D): their values (T, H, D) and offsets as packed sequences,
    O a nested tensor of Q's offsets. Offsets whose longest length the tensor caches stay on the device
    (``varlen.on_device``); others are read on the host."""
    for name, t in (("q", q), ("k", k), ("v", v)):
        if not (t.is_nested and t.layout == torch.jagged and t.dim() == 4 and getattr(t, "_ragged_idx", None) == 2):
            seen = (f"a nested tensor of layout {t.layout}, {t.dim()} dims, ragged dim "
                    f"{getattr(t, '_ragged_idx', None)}" if t.is_nested else f"a dense tensor of dims {tuple(t.shape)}")
            raise ValueError(f"{name} is {seen}: nested inputs take q, k and v all jagged (layout=torch.jagged) of "
                             "dims (B, H, j, D), the ragged dim third, as scaled_dot_product_attention does - pass "
                             "nt.transpose(1, 2) of (B, j, H, D) jagged tensors, or dense tensors with cu_seqlens")
    if cu_seqlens_q is not None or cu_seqlens_kv is not None:
        raise ValueError("cu_seqlens given with nested inputs: their offsets are the nested tensors' own - pass one "
                         "or the other")
    q, k, v = (t.transpose(1, 2) for t in (q, k, v))  # (B, j, H, D): values are (T, H, D)
    if k.offsets() is not v.offsets() and not torch.equal(k.offsets(), v.offsets()):
        raise ValueError("k and v have other offsets: keys and values come in pairs, one offsets tensor for both - "
                         "build v with k's offsets (torch.nested.nested_tensor_from_jagged(values, k.offsets()))")
    # the longest lengths, where the nested tensors cache them (an int): the offsets then stay on the device
    max_q, max_kv = (m if isinstance(m := getattr(t, "_maybe_max_seqlen", None), int) else None for t in (q, k))
    o = attention(q.values(), k.values(), v.values(), scale=scale, left_bound=left_bound, right_bound=right_bound,
                  alignment=alignment, cu_seqlens_q=q.offsets().to(torch.int32),
                  cu_seqlens_kv=k.offsets().to(torch.int32), max_seqlen_q=max_q, max_seqlen_kv=max_kv)
    return torch.nested.nested_tensor_from_jagged(o, q.offsets()).transpose(1, 2)


def _varlen_attention(q, k, v, cu_seqlens_q, cu_seqlens_kv, max_seqlen_q, max_seqlen_kv, scale, left_bound,
                      right_bound, alignment):
    if cu_seqlens_q is None or cu_seqlens_kv is None:
        raise ValueError("only one of cu_seqlens_q / cu_seqlens_kv was given: packed sequences need both (for "
                         "self-attention pass the same offsets twice)")
    if torch.compiler.is_compiling():
        as_tensor = lambda cu: cu if isinstance(cu, torch.Tensor) else torch.tensor(cu, dtype=torch.int32)  # noqa
        o, _ = _varlen_forward_op(q, k, v, as_tensor(cu_seqlens_q), as_tensor(cu_seqlens_kv), max_seqlen_q,
                                  max_seqlen_kv, scale, left_bound, right_bound, alignment)
        return o
    offs = varlen.on_device(q, k, v, cu_seqlens_q, cu_seqlens_kv, max_seqlen_q, max_seqlen_kv)
    if offs is not None:  # offsets on the device and max_seqlen_* given: nothing is read back to the host
        return _apply(_EagerVarlenDeviceAttention, q, k, v, offs, scale, left_bound, right_bound, alignment)[0]
    cu_q, cu_kv = _varlen_offsets(q, k, v, cu_seqlens_q, cu_seqlens_kv, max_seqlen_q, max_seqlen_kv)
    return _apply(_EagerVarlenAttention, q, k, v, cu_q, cu_kv, scale, left_bound, right_bound, alignment)[0]


def _varlen_offsets(q, k, v, cu_seqlens_q, cu_seqlens_kv, max_seqlen_q, max_seqlen_kv):
    if q.dim() != 3:
        raise ValueError(f"q has dims {tuple(q.shape)} with cu_seqlens given: packed sequences take (T, H, D) "
                         "tensors - pass (T, H, D), or drop cu_seqlens for (B, H, S, D)")
    cu_q = varlen.offsets(cu_seqlens_q, q.shape[0], "cu_seqlens_q")
    cu_kv = varlen.offsets(cu_seqlens_kv, k.shape[0], "cu_seqlens_kv")
    varlen.check_batch(q, k, v, cu_q, cu_kv, max_seqlen_q, max_seqlen_kv)
    return tuple(cu_q), tuple(cu_kv)


def _no_packed_vmap(info, in_dims, *args):
    raise NotImplementedError(_NO_PACKED_VMAP)


@_classic
class _EagerVarlenAttention(torch.autograd.Function):
    """Packed sequences outside torch.compile (as ``_EagerAttention``: the launcher under a plain Function)."""

    @staticmethod
    def forward(q, k, v, cu_q, cu_kv, scale, left_bound, right_bound, alignment):
        return varlen.forward(q, k, v, list(cu_q), list(cu_kv), scale=scale, left_bound=left_bound,
                              right_bound=right_bound, alignment=alignment)

    setup_context = staticmethod(_save_for_backward)

    @staticmethod
    def backward(ctx, grad_o, _grad_stats):
        q, k, v, o, stats = ctx.saved_tensors
        cu_q, cu_kv, scale, left_bound, right_bound, alignment = ctx.params
        backward = functools.partial(varlen.backward, cu_q=list(cu_q), cu_kv=list(cu_kv), scale=scale,
                                     left_bound=left_bound, right_bound=right_bound, alignment=alignment,
                                     deterministic=torch.are_deterministic_algorithms_enabled())
        dq, dk, dv = _gradients(backward, q, k, v, o, grad_o, stats)
        return dq, dk, dv, None, None, None, None, None, None

    vmap = staticmethod(_no_packed_vmap)


@_classic
class _EagerVarlenDeviceAttention(torch.autograd.Function):
    """Packed sequences whose offsets stay on the device (``varlen.on_device``): FlashAttention's calling
    convention, where the host never waits for the GPU to learn the lengths."""

    @staticmethod
    def forward(q, k, v, offs, scale, left_bound, right_bound, alignment):
        return varlen.forward_on_device(q, k, v, offs, scale=scale, left_bound=left_bound,
                                        right_bound=right_bound, alignment=alignment)

    setup_context = staticmethod(_save_for_backward)

    @staticmethod
    def backward(ctx, grad_o, _grad_stats):
        q, k, v, o, stats = ctx.saved_tensors
        offs, scale, left_bound, right_bound, alignment = ctx.params
        backward = functools.partial(varlen.backward_on_device, offs=offs, scale=scale, left_bound=left_bound,
                                     right_bound=right_bound, alignment=alignment,
                                     deterministic=torch.are_deterministic_algorithms_enabled())
        dq, dk, dv = _gradients(backward, q, k, v, o, grad_o, stats)
        return dq, dk, dv, None, None, None, None, None

    vmap = staticmethod(_no_packed_vmap)


@torch.library.custom_op("sdpa_bwd::varlen_attention_forward", mutates_args=())
def _varlen_forward_op(q: torch.Tensor, k: torch.Tensor, v: torch.Tensor, cu_seqlens_q: torch.Tensor,
                       cu_seqlens_kv: torch.Tensor, max_seqlen_q: Optional[int], max_seqlen_kv: Optional[int],
                       scale: float, left_bound: Optional[int], right_bound: Optional[int],
                       alignment: str) -> tuple[torch.Tensor, torch.Tensor]:
    offs = varlen.on_device(q, k, v, cu_seqlens_q, cu_seqlens_kv, max_seqlen_q, max_seqlen_kv)
    if offs is not None:
        return varlen.forward_on_device(q, k, v, offs, scale=scale, left_bound=left_bound, right_bound=right_bound,
                                        alignment=alignment)
    cu_q, cu_kv = _varlen_offsets(q, k, v, cu_seqlens_q, cu_seqlens_kv, max_seqlen_q, max_seqlen_kv)
    return varlen.forward(q, k, v, list(cu_q), list(cu_kv), scale=scale, left_bound=left_bound,
                          right_bound=right_bound, alignment=alignment)


@_varlen_forward_op.register_fake
def _(q, k, v, cu_seqlens_q, cu_seqlens_kv, max_seqlen_q, max_seqlen_kv, scale, left_bound, right_bound,
      alignment):
    T_q, H_q, _ = q.shape
    return q.new_empty((T_q, H_q, v.shape[2])), q.new_empty((H_q, T_q), dtype=torch.float32)


@torch.library.custom_op("sdpa_bwd::varlen_attention_backward", mutates_args=())
def _varlen_backward_op(q: torch.Tensor, k: torch.Tensor, v: torch.Tensor, o: torch.Tensor, do: torch.Tensor,
                        stats: torch.Tensor, cu_seqlens_q: torch.Tensor, cu_seqlens_kv: torch.Tensor,
                        max_seqlen_q: Optional[int], max_seqlen_kv: Optional[int], scale: float,
                        left_bound: Optional[int], right_bound: Optional[int], alignment: str,
                        deterministic: bool) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
    offs = varlen.on_device(q, k, v, cu_seqlens_q, cu_seqlens_kv, max_seqlen_q, max_seqlen_kv)
    if offs is not None:
        return varlen.backward_on_device(q, k, v, o, do, stats, offs, scale=scale, left_bound=left_bound,
                                         right_bound=right_bound, alignment=alignment, deterministic=deterministic)
    cu_q = varlen.offsets(cu_seqlens_q, q.shape[0], "cu_seqlens_q")
    cu_kv = varlen.offsets(cu_seqlens_kv, k.shape[0], "cu_seqlens_kv")
    return varlen.backward(q, k, v, o, do, stats, cu_q, cu_kv, scale=scale, left_bound=left_bound,
                           right_bound=right_bound, alignment=alignment, deterministic=deterministic)


@_varlen_backward_op.register_fake
def _(q, k, v, o, do, stats, cu_seqlens_q, cu_seqlens_kv, max_seqlen_q, max_seqlen_kv, scale, left_bound,
      right_bound, alignment, deterministic):
    return torch.empty_like(q), torch.empty_like(k), torch.empty_like(v)


def _varlen_setup_context(ctx, inputs, output):
    q, k, v, cu_seqlens_q, cu_seqlens_kv, max_seqlen_q, max_seqlen_kv, scale, left_bound, right_bound, \
        alignment = inputs
    o, stats = output
    ctx.save_for_backward(q, k, v, o, stats, cu_seqlens_q, cu_seqlens_kv)
    ctx.params = (max_seqlen_q, max_seqlen_kv, scale, left_bound, right_bound, alignment)


def _varlen_backward(ctx, grad_o, grad_stats):
    q, k, v, o, stats, cu_seqlens_q, cu_seqlens_kv = ctx.saved_tensors
    max_seqlen_q, max_seqlen_kv, scale, left_bound, right_bound, alignment = ctx.params
    dq, dk, dv = _varlen_backward_op(q, k, v, o, grad_o, stats, cu_seqlens_q, cu_seqlens_kv, max_seqlen_q,
                                     max_seqlen_kv, scale, left_bound, right_bound, alignment,
                                     torch.are_deterministic_algorithms_enabled())
    return dq, dk, dv, None, None, None, None, None, None, None, None


_varlen_forward_op.register_autograd(_varlen_backward, setup_context=_varlen_setup_context)
