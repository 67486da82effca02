"""The launcher's executor: checks a call, asks the planner (``planner.plan_forward`` / ``plan_backward``) for its
plan or replays the recorded one (``launch_cache``), allocates the plan's side buffers, builds its descriptors and
launches its steps. Issue 52 (2026-12-06) split the planning (paths, configs, grids, side buffers, declines) into
``planner``, ``reasons``, ``configs`` and ``switches``; every name of theirs is still read and set here
(``_Module``), and ``tests/test_launch_golden.py`` holds the launches to the ones made before the split.

Public functions (the engine adapter and ``sdpa_bwd.engine.api`` call these):

* ``triton_not_supported_reasons(*, device_type, dtype, d_qk, d_v, interpreter=None) -> list[str]``
* ``attention_forward(q, k, v, *, scale=None, left_bound=None, right_bound=None,
  alignment="top_left", o=None, stats=None) -> (o, stats)``
* ``attention_backward(q, k, v, o, do, stats, *, scale=None, left_bound=None,
  right_bound=None, alignment="top_left", deterministic=False, dq=None, dk=None,
  dv=None) -> (dq, dk, dv)``

All tensors have logical dims (B, H, S, D); any strides (zero strides on inputs
included) and any storage offset. Outputs given by the caller are written
through their own strides; every element of them is written, nothing else.
"""

from __future__ import annotations

import math
import operator
import sys
import types
from typing import Optional

import torch
import triton

from . import alloc, configs, launch_cache, planner, reasons, tuning
from . import switches as sw
from .configs import BackwardConfig, ForwardConfig, _band_kind, _tune_d_qk, backward_candidates, forward_candidates
from .kernels import (  # noqa: F401 - the executor resolves a step's kernel by its name here
    attention_bwd_convert_all_kernel,
    attention_bwd_dkdv_kernel,
    attention_bwd_dkdv_kernel_any_len,
    attention_bwd_dq_convert_kernel,
    attention_bwd_dq_kernel,
    attention_bwd_dq_kernel_any_len,
    attention_bwd_fused_kernel,
    attention_bwd_fused_kernel_any_len,
    attention_bwd_preprocess_kernel,
    attention_fwd_kernel,
    attention_fwd_kernel_any_len,
)
from .kernels import (  # noqa: F401 - a step names a Gluon kernel as "module.kernel", found here
    attention_bwd_gluon, attention_bwd_gluon_192, attention_fwd_gluon)
from .planner import Desc, Ref
from .reasons import TensorMeta, interpreter_active

MAX_HEAD_DIM = 256
SUPPORTED_DTYPES = (torch.float16, torch.bfloat16, torch.float32)
_DTYPE_NAMES = {"float16": torch.float16, "bfloat16": torch.bfloat16, "float32": torch.float32,
                "fp16": torch.float16, "bf16": torch.bfloat16, "fp32": torch.float32}
# The modules whose names this one re-exports; setting one of their names here sets it there (``_Module``).
_PLANNING = (sw, reasons, planner, configs)


try:  # Triton >= 3.3 keeps the allocator in a ContextVar: one value per thread (and per asyncio task)
    from triton.runtime._allocation import NullAllocator as _NullAllocator
    from triton.runtime._allocation import _allocator as _triton_allocator
except ImportError:  # a Triton without the variable: set ours on every call (a ContextVar.set, ~0.1 us)
    _NullAllocator, _triton_allocator = None, None


def _torch_allocator(size: int, alignment: int, stream):
    """Scratch memory for a kernel that asks for some at launch (device-side TMA descriptors), from torch's
    caching allocator, so it is freed with the call's other temporaries."""
    device = "cuda" if stream is not None and torch.cuda.is_available() else "cpu"
    return alloc.empty(size, torch.int8, device)


def ensure_allocator() -> None:
    """Give Triton an allocator on the thread that is about to launch, unless that thread has one.

    Triton reads its allocator from a context variable, so a value set on one thread is not seen on another;
    autograd runs CUDA backward passes on its own device thread, and data loaders and users run calls on
    theirs. Called at the top of every forward and backward call, before any launch (replayed ones too): a
    context-variable read, well under a microsecond. An allocator the caller set on the thread is kept.
    """
    if _triton_allocator is None or isinstance(_triton_allocator.get(), _NullAllocator):
        triton.set_allocator(_torch_allocator)


def _globals_sources() -> tuple:
    """(module dict, name) of every module-level name that the two launchers read, directly or through the functions
    of this module, the planner's, the switches' and the configs' that they call (found in their code objects, nested
    functions included; an attribute such as ``switches.HEAD_GROUP`` counts by its name), whose value can be a dict
    key: the switches, the config tables, the kernels. A call key holds their values, so a switch flipped or a
    function replaced (``switches``, a test's monkeypatch, ab_perf's config tables) is a new key, and the key's
    references keep a replaced function alive, so its id is never reused by another."""
    mods = (globals(),) + tuple(vars(m) for m in _PLANNING)
    found, seen = {}, set()
    todo = [attention_forward.__code__, attention_backward.__code__, _execute.__code__]
    while todo:
        code = todo.pop()
        if code in seen:
            continue
        seen.add(code)
        todo.extend(c for c in code.co_consts if hasattr(c, "co_names"))
        for n in code.co_names:
            if n in ("_call_key", "launch_cache", "_PLANNING"):
                continue
            for g in mods:
                if n in g:
                    found.setdefault(n, {})[id(g)] = g  # each (module, name) once, however many functions read it
                    fn = getattr(g[n], "__wrapped__", g[n])
                    if getattr(fn, "__module__", "").startswith(__package__) and hasattr(fn, "__code__"):
                        todo.append(fn.__code__)
    g = globals()
    for n in g:  # the kernels a plan names (the executor finds them by name)
        if n.startswith("attention_") and n.endswith(("_kernel", "_kernel_any_len")):
            found.setdefault(n, {})[id(g)] = g
    keep = []
    for n in sorted(found):
        for d in found[n].values():
            try:
                hash(d[n])
            except TypeError:
                continue  # state such as the side streams' dict: read only off the cached paths
            keep.append((d, n))
    return tuple(keep)


_SOURCES: Optional[tuple] = None


def _globals_read() -> tuple:
    """The names of ``_globals_sources``."""
    return tuple(sorted({n for _, n in _sources()}))


def _sources() -> tuple:
    global _SOURCES
    if _SOURCES is None:
        _SOURCES = _globals_sources()
    return _SOURCES


_GATHER: Optional[tuple] = None  # ((module dict, itemgetter of its names), ...): the sources read in C
_GENERATIONS: dict = {}  # snapshot of the globals' values -> its generation number (holds each snapshot alive)
_LAST_GENERATION: tuple = (None, None)  # (the last snapshot seen, its generation)


def _globals_generation() -> int:
    """A number for the current values of every name in ``_globals_read``: the same number while they hold the
    same values, a number of their own for values not seen before. A call key holds this number rather than
    the values themselves (2026-12-06): gathering and hashing them in Python took ~17 us of the key's 23 on
    the development machine's CPU and ~100 us on an H100 host under cProfile, twice a forward + backward; one
    C-level gather a module and a tuple comparison (identity first) take a few: 7.3 us for 559 gathered values,
    2.9 us once each (module, name) was gathered once rather than once per function reading it (194 values; CPU,
    2026-12-06, the key 17.4 -> 11.0 us). The snapshot dict keeps every
    value a generation names alive, as the key's tuple of values did, so a replaced function's id is never
    reused by another under the same number."""
    global _GATHER, _LAST_GENERATION
    if _GATHER is None:
        by_dict: dict = {}
        for d, n in _sources():
            by_dict.setdefault(id(d), (d, []))[1].append(n)
        # itemgetter of one name returns the value, of several a tuple: always pass a tuple of names
        _GATHER = tuple((d, operator.itemgetter(*names, names[0])) for d, names in by_dict.values())
    snapshot = tuple([get(d) for d, get in _GATHER])
    last, generation = _LAST_GENERATION
    if snapshot != last:
        generation = _GENERATIONS.setdefault(snapshot, len(_GENERATIONS))
        _LAST_GENERATION = (snapshot, generation)
    return generation


def _call_key(kind: str, tensors, scalars):
    """The launch cache's key for a call (``sdpa_bwd.engine.launch_cache``), or None where a call must take the
    full path: the cache off, or the autotuner on (its choice may change between calls). Besides the tensors and
    the call's scalars it holds the generation of the module-level names the launcher and the planner read
    (``_globals_generation``) and the current CUDA device (Triton launches there)."""
    if not launch_cache.ENABLED or tuning.enabled():
        return None
    device = torch.cuda.current_device() if tensors[0].device.type == "cuda" else interpreter_active()
    return (kind, tuple(map(launch_cache.tensor_key, tensors)), launch_cache.alias_pattern(tensors), scalars,
            device, _globals_generation())


# ----------------------------------------------------------------------------
# Declines


def triton_not_supported_reasons(*, device_type: str, dtype, d_qk: int, d_v: int,
                                 interpreter: Optional[bool] = None) -> list[str]:
    """Why this engine cannot run a well-formed problem; [] when it can.

    Layout never appears here: every stride pattern is addressed (general path).
    """
    if interpreter is None:
        interpreter = interpreter_active()
    reasons = []
    if device_type != "cuda" and not (interpreter and device_type == "cpu"):
        reasons.append(f"device is {device_type!r}: the Triton engine runs on CUDA devices, or on CPU "
                       "tensors only under TRITON_INTERPRET=1 - move the tensors to a CUDA device")
    if isinstance(dtype, str):
        dtype = _DTYPE_NAMES.get(dtype, dtype)
    if dtype not in SUPPORTED_DTYPES:
        reasons.append(f"dtype is {dtype}: supported are float16, bfloat16 and float32 - cast the inputs")
    for name, d in (("D_qk", d_qk), ("D_v", d_v)):
        if d > MAX_HEAD_DIM:
            reasons.append(f"{name} = {d} > {MAX_HEAD_DIM}: the kernels keep a head-dim row of K/V and of "
                           "the dK/dV accumulators in registers up to 256 - use another engine")
    return reasons


def _tuned(kind: str, q, d_qk_pad: int, d_v_pad: int, left_bound, right_bound, *, gqa: bool,
           deterministic: bool, seq: int, candidates, run, config_type):
    """The autotuner's config for this call (``sdpa_bwd.engine.tuning``), or None when it is off,
    the tensors are not on a CUDA device, or every candidate failed.
    ``candidates`` is called only when tuning is on."""
    if q.device.type != "cuda" or not tuning.enabled():
        return None
    key = tuning.make_key(kind, device=torch.cuda.get_device_name(q.device), dtype=q.dtype, d_qk_pad=d_qk_pad,
                          d_v_pad=d_v_pad, band=_band_kind(left_bound, right_bound), gqa=gqa,
                          deterministic=deterministic, seq=seq)
    return tuning.choose(key, candidates(), run, config_type)


# ----------------------------------------------------------------------------
# Checks (malformed input is a ValueError; the lead's problem model does the full job)


def _check_rank4(name: str, t: torch.Tensor) -> None:
    if t.dim() != 4:
        raise ValueError(f"{name} has {t.dim()} dims {tuple(t.shape)}: expected 4 (B, H, S, D) - pass (B, H, S, D) "
                         "tensors or views (packed sequences, (T, H, D): sdpa_bwd.attention with cu_seqlens_q and "
                         "cu_seqlens_kv)")


def _check_output(name: str, t: torch.Tensor, shape, dtype=None) -> None:
    if tuple(t.shape) != tuple(shape):
        raise ValueError(f"{name} has dims {tuple(t.shape)}: expected {tuple(shape)}, the dims this output has for "
                         f"these inputs - pass one of those dims, or {name}=None to have it allocated")
    if dtype is not None and t.dtype != dtype:
        raise ValueError(f"{name} has dtype {t.dtype}: expected {dtype} - pass one of that dtype, or {name}=None to "
                         "have it allocated")
    for axis, (n, s) in enumerate(zip(t.shape, t.stride())):
        if s == 0 and n > 1:
            raise ValueError(f"{name}.stride({axis}) = 0 on an axis of length {n} (strides {t.stride()}): "
                             "elements of an output would share memory - pass a tensor without broadcast")


def _dims(q, k, v):
    for name, t in (("q", q), ("k", k), ("v", v)):
        _check_rank4(name, t)
    B, H_q, S_q, D_qk = q.shape
    Bk, H_k, S_kv, Dk = k.shape
    Bv, H_v, S_v, D_v = v.shape
    if Bk != B or Bv != B:
        raise ValueError(f"batch sizes differ: q {B}, k {Bk}, v {Bv}: Q, K and V share B - pass tensors of one "
                         "batch size (a broadcast one as .expand(B, ...))")
    if Dk != D_qk:
        raise ValueError(f"k.shape[3] = {Dk} != q.shape[3] = {D_qk}: Q and K share D_qk (the scores are Q K^T) - "
                         "pass K with q's head dim")
    if S_v != S_kv:
        raise ValueError(f"v.shape[2] = {S_v} != k.shape[2] = {S_kv}: K and V share S_kv (one value row a key) - "
                         "pass V with k's length")
    for name, H in (("k", H_k), ("v", H_v)):
        if H < 1 or H_q % H != 0:
            raise ValueError(f"{name}.shape[1] = {H} does not divide q.shape[1] = {H_q} (GQA/MQA rule: each {name} "
                             f"head serves H_q / H query heads) - pass a head count that divides {H_q}")
    if not (q.dtype == k.dtype == v.dtype):
        raise ValueError(f"dtypes differ: q {q.dtype}, k {k.dtype}, v {v.dtype}: Q, K and V must share one dtype "
                         "(a call computes in one) - cast them to one of float16, bfloat16, float32")
    return B, H_q, H_k, H_v, S_q, S_kv, D_qk, D_v


def _raise_unsupported(q, D_qk, D_v):
    reasons = triton_not_supported_reasons(device_type=q.device.type, dtype=q.dtype, d_qk=D_qk, d_v=D_v)
    if reasons:
        raise NotImplementedError("Triton engine declines: " + "; ".join(reasons))


def _stats_strides(stats: torch.Tensor, B, H_q, S_q):
    if stats.dim() == 4 and stats.shape[3] == 1:
        shape3 = tuple(stats.shape[:3])
    elif stats.dim() == 3:
        shape3 = tuple(stats.shape)
    else:
        raise ValueError(f"stats has dims {tuple(stats.shape)}: expected (B, H_q, S_q) or (B, H_q, S_q, 1) - pass "
                         "the stats the forward returned with O (sdpa_bwd.forward)")
    if shape3 != (B, H_q, S_q):
        raise ValueError(f"stats has dims {tuple(stats.shape)}: expected (B, H_q, S_q) = {(B, H_q, S_q)} - pass the "
                         "stats the forward returned with O (sdpa_bwd.forward)")
    if stats.dtype != torch.float32:
        raise ValueError(f"stats has dtype {stats.dtype}: expected torch.float32 (natural-log LSE) - pass the "
                         "forward's float32 stats, not a copy in the inputs' dtype")
    return stats.stride()[:3]


# ----------------------------------------------------------------------------
# The two launchers


def _tuner(kind: str, q, k, v, left_bound, right_bound, deterministic: bool, run):
    """The planner's hook for the autotuner (``_tuned``): ``(d_qk_pad, d_v_pad, causal) -> config or None``."""
    B, H_q, S_q, D_qk = q.shape
    H_k, S_kv, H_v = k.shape[1], k.shape[2], v.shape[1]

    def tune(d_qk_pad: int, d_v_pad: int, causal: bool):
        if kind == "fwd":
            candidates = lambda: forward_candidates(d_qk_pad, d_v_pad, q.dtype, causal)  # noqa: E731
        else:
            candidates = lambda: backward_candidates(d_qk_pad, d_v_pad, q.dtype, deterministic, causal)  # noqa: E731
        return _tuned(kind, q, _tune_d_qk(D_qk, q.dtype), d_v_pad, left_bound, right_bound,
                      gqa=H_k != H_q or H_v != H_q, deterministic=deterministic, seq=max(S_q, S_kv),
                      candidates=candidates, run=run,
                      config_type=ForwardConfig if kind == "fwd" else BackwardConfig)
    return tune


def attention_forward(q, k, v, *, scale=None, left_bound=None, right_bound=None, alignment="top_left",
                      o=None, stats=None, config: Optional[ForwardConfig] = None):
    """(O, stats): O (B, H_q, S_q, D_v) in q's dtype, stats float32 (B, H_q, S_q) natural-log LSE."""
    ensure_allocator()
    if k.device.type == "cuda":  # (read per call: ~1 us, where building TensorMeta for the rule took 4)
        k, v = (x.clone() if reasons.restage_forward_stream("cuda", x.data_ptr() % 16 == 0, interpreter_active())
                else x for x in (k, v))
    apart = reasons._outputs_apart((o, stats), (q, k, v))  # in the key: whether the Gluon forward may be taken
    key = _call_key("fwd", (q, k, v, o, stats), (scale, left_bound, right_bound, alignment, config, apart))
    cached = launch_cache.lookup(key)
    if cached is not None:
        # The same call, other tensors: every check passed and every choice was made when it was recorded.
        B, H_q, S_q, D_v = cached.extra
        if o is None:
            o = alloc.empty((B, H_q, S_q, D_v), q.dtype, q.device)
        if stats is None:
            stats = alloc.empty((B, H_q, S_q), torch.float32, q.device)
        cached.replay((q, k, v, o, stats))
        return o, stats
    rec = launch_cache.Recorder(key)
    B, H_q, H_k, H_v, S_q, S_kv, D_qk, D_v = _dims(q, k, v)
    _raise_unsupported(q, D_qk, D_v)
    scale = 1.0 / math.sqrt(D_qk) if scale is None else float(scale)
    reasons._offsets(S_q, S_kv, left_bound, right_bound, alignment)  # the bounds' checks, before any allocation
    if o is None:
        o = alloc.empty((B, H_q, S_q, D_v), q.dtype, q.device)
    else:
        _check_output("o", o, (B, H_q, S_q, D_v), q.dtype)
    if stats is None:
        stats = alloc.empty((B, H_q, S_q), torch.float32, q.device)
    _stats_strides(stats, B, H_q, S_q)
    if B * H_q * S_q == 0:
        return o, stats
    if S_kv == 0 or D_v == 0:
        o.zero_()
        stats.fill_(float("-inf"))
        return o, stats
    m = TensorMeta.of
    plan = planner.plan_forward(
        m(q), m(k), m(v), m(o), m(stats), scale=scale, left_bound=left_bound, right_bound=right_bound,
        alignment=alignment, config=config, apart=apart,
        tuner=_tuner("fwd", q, k, v, left_bound, right_bound, False,
                     lambda c: attention_forward(q, k, v, scale=scale, left_bound=left_bound, right_bound=right_bound,
                                                 alignment=alignment, config=c)))
    _execute(rec, plan, dict(q=q, k=k, v=v, o=o, stats=stats))
    rec.finish((q, k, v, o, stats), extra=(B, H_q, S_q, D_v))
    return o, stats


def attention_backward(q, k, v, o, do, stats, *, scale=None, left_bound=None, right_bound=None,
                       alignment="top_left", deterministic=False, dq=None, dk=None, dv=None,
                       config: Optional[BackwardConfig] = None, return_delta: bool = False):
    """(dQ, dK, dV) with the dims and dtype of Q, K, V, written through the given outputs' strides.

    ``return_delta=True`` also returns ODO's side buffer, delta = rowsum(dO * O), packed
    fp32 (B, H_q, S_q): the first stage, for the diagnoser's stage split.
    """
    ensure_allocator()
    apart = reasons._outputs_apart((dq, dk, dv), (q, k, v, do))  # in the key: whether the fused launch may be taken
    key = _call_key("bwd", (q, k, v, o, do, stats, dq, dk, dv),
                    (scale, left_bound, right_bound, alignment, deterministic, config, return_delta, apart))
    cached = launch_cache.lookup(key)
    if cached is not None:
        return _replay_backward(cached, q, k, v, o, do, stats, dq, dk, dv, return_delta)
    rec = launch_cache.Recorder(key)
    B, H_q, H_k, H_v, S_q, S_kv, D_qk, D_v = _dims(q, k, v)
    _raise_unsupported(q, D_qk, D_v)
    for name, t in (("o", o), ("do", do)):
        _check_rank4(name, t)
        if tuple(t.shape) != (B, H_q, S_q, D_v):
            raise ValueError(f"{name} has dims {tuple(t.shape)}: expected (B, H_q, S_q, D_v) = "
                             f"{(B, H_q, S_q, D_v)}")
    _stats_strides(stats, B, H_q, S_q)
    scale = 1.0 / math.sqrt(D_qk) if scale is None else float(scale)
    reasons._offsets(S_q, S_kv, left_bound, right_bound, alignment)  # the bounds' checks, before any allocation
    outs = []
    for name, t, ref in (("dq", dq, q), ("dk", dk, k), ("dv", dv, v)):
        if t is None:
            t = alloc.empty(ref.shape, ref.dtype, ref.device)
        else:
            _check_output(name, t, ref.shape)
        outs.append(t)
    dq, dk, dv = outs
    if dq.numel():
        if S_kv == 0 or D_v == 0:
            dq.zero_()
    if S_q == 0 or H_q == 0 or B == 0:
        for t in (dq, dk, dv):
            t.zero_()
        return dq, dk, dv
    if S_kv == 0:
        return dq, dk, dv
    dev = q.device
    m = TensorMeta.of
    plan = planner.plan_backward(
        m(q), m(k), m(v), m(o), m(do), m(stats), m(dq), m(dk), m(dv), scale=scale, left_bound=left_bound,
        right_bound=right_bound, alignment=alignment, deterministic=deterministic, config=config, apart=apart,
        tuner=_tuner("bwd", q, k, v, left_bound, right_bound, deterministic,
                     lambda c: attention_backward(q, k, v, o, do, stats, scale=scale, left_bound=left_bound,
                                                  right_bound=right_bound, alignment=alignment,
                                                  deterministic=deterministic, config=c)))
    ns = dict(q=q, k=k, v=v, o=o, do=do, stats=stats, dq=dq, dk=dk, dv=dv)
    _allocate(plan, ns, dev)
    _execute(rec, plan, ns)
    if D_v:  # D_v == 0 zeroed dQ before the launches; that call is not replayed
        rec.finish(tuple(ns[n] for n in _slots(plan)), extra=plan)
    if return_delta:
        return dq, dk, dv, ns["delta"].view(B, H_q, plan.side_rows).narrow(2, 0, S_q)
    return dq, dk, dv


def _slots(plan) -> tuple:
    """The names of a backward's tensors in the launch cache's slot order: the call's nine, then the side buffers."""
    return planner._CALL + tuple(b.name for b in plan.buffers)


def _replay_backward(cached, q, k, v, o, do, stats, dq, dk, dv, return_delta: bool):
    """attention_backward for a call whose key was recorded: its outputs and side buffers allocated as the
    plan says, then its recorded launches."""
    plan = cached.extra
    dq, dk, dv = (alloc.empty(ref.shape, ref.dtype, ref.device) if t is None else t
                  for t, ref in ((dq, q), (dk, k), (dv, v)))
    ns = dict(q=q, k=k, v=v, o=o, do=do, stats=stats, dq=dq, dk=dk, dv=dv)
    _allocate(plan, ns, q.device)
    cached.replay(tuple(ns[n] for n in _slots(plan)))
    if return_delta:
        B, H_q, S_q = q.shape[:3]
        return dq, dk, dv, ns["delta"].view(B, H_q, plan.side_rows).narrow(2, 0, S_q)
    return dq, dk, dv


# ----------------------------------------------------------------------------
# Executing a plan

_BUFFER_DTYPES = {"float32": torch.float32, "int32": torch.int32}


def _dq_turn_counters(q, k, v, rows: int):
    """Deterministic mode's zeroed int32 turn counters for the Gluon backward's reduces: one per (batch and head,
    query tile of ``rows``, consumer) for dQ's, which the kernel indexes as ((b H_q + h) n_tiles + m) 2 + c; where
    K or V heads are shared (GQA, MQA: dK and dV partials added across the query heads' programs) then one per
    (batch and K head, key block of 128, consumer) for dK's and one per (batch and V head, key block, consumer) for
    dV's. Counts only go up, so each call takes fresh zeros (a replay too); tools/det_perf.py replaces it."""
    B, H_q, S_q = q.shape[:3]
    H_k, H_v, S_kv = k.shape[1], v.shape[1], k.shape[2]
    n = B * H_q * -(-S_q // rows) * 2
    if H_k != H_q or H_v != H_q:
        n += B * (H_k + H_v) * -(-S_kv // (2 * attention_bwd_gluon.KEYS_PER_CONSUMER)) * 2
    return alloc.zeros(n, torch.int32, q.device)


def _allocate(plan, ns: dict, device) -> None:
    """The plan's side buffers into ``ns``, in the plan's order (the turn counters through the function above)."""
    for b in plan.buffers:
        if b.fill == "alias":
            ns[b.name] = ns[b.alias]
        elif b.fill == "part":
            ns[b.name] = ns[b.alias].narrow(0, b.offset, planner._count(b.shape)).view(b.shape)
        elif b.fill in ("view", "zero_view"):  # keys [offset, offset + S) of a (B, H, S, D) tensor
            ns[b.name] = ns[b.alias].narrow(2, b.offset, b.shape[2])
            if b.fill == "zero_view":
                ns[b.name].zero_()
        elif b.name == "sems":
            rows = next(s.kwargs["ROWS"] for s in plan.steps if "ROWS" in s.kwargs)
            ns[b.name] = _dq_turn_counters(ns["q"], ns["k"], ns["v"], rows)
        else:
            make = alloc.zeros if b.fill == "zeros" else alloc.empty
            ns[b.name] = make(b.shape, _BUFFER_DTYPES[b.dtype], device)


_TORCH_DTYPES = {str(d): d for d in SUPPORTED_DTYPES}


def _kernel_object(name: str):
    """A step's kernel: a name here, or "module.kernel" of a Gluon module named here (both read at each launch, so
    that a replaced kernel or module is the one launched)."""
    g = globals()
    if "." in name:
        mod, attr = name.split(".")
        return getattr(g[mod], attr)
    return g[name]


def _descriptor(d: Desc, ns: dict):
    """A host TMA descriptor (Gluon's) as the plan describes it, over the call's tensor or side buffer."""
    from triton.experimental.gluon.nvidia.hopper import TensorDescriptor

    dt = _gl_dtype(_TORCH_DTYPES[d.dtype])
    layout = globals()[d.module].host_layout(*(dt if a == planner.DTYPE else a for a in d.layout))
    return TensorDescriptor(ns[d.tensor], list(d.shape), list(d.strides), list(d.block), layout)


def _execute(rec, plan, ns: dict) -> None:
    """The plan's launches through the recorder: each step's kernel, grid, arguments (a ``Ref`` is the tensor of that
    name in ``ns``, a ``Desc`` a descriptor made over one, each made once a step) and keywords."""
    ns.setdefault("stamps", sw.GLUON_BWD_STAMPS)
    for step in plan.steps:
        made = {}
        args = []
        for a in step.args:
            if type(a) is Ref:
                a = ns[a.name]
            elif type(a) is Desc:
                if a not in made:
                    made[a] = _descriptor(a, ns)
                a = made[a]
            args.append(a)
        rec.launch(_kernel_object(step.kernel), step.grid, *args, **step.kwargs)


def _launch_odo(rec, o, do, stats, st, delta, lse2, d_v_pad: int, wide: bool, side_rows: int, zero_acc=None,
                pdl: bool = False) -> None:
    """ODO alone (``planner._odo_step``) into the given side buffers; ``zero_acc``: the accumulator it zeroes."""
    m = TensorMeta.of
    step = planner._odo_step(m(o), m(do), stats, st, d_v_pad, wide, side_rows,
                             None if zero_acc is None else "zero_acc", 0 if zero_acc is None else zero_acc.numel(), pdl)
    _execute(rec, planner.Plan("bwd", "odo", {}, None, (), (step,)),
             dict(o=o, do=do, stats=stats, delta=delta, lse2=lse2, zero_acc=zero_acc))


def _launch_dq_convert(rec, dq_accum, dq, scale: float, qk_chunk: int, qk_split: int, wide: bool,
                       pdl: bool = False) -> None:
    """DQ_CONVERT alone (``planner._convert_step``): ``dq_accum``, scaled, into ``dq`` through its strides."""
    step = planner._convert_step("acc", "dst", TensorMeta.of(dq), scale, qk_chunk, qk_split, wide, pdl)
    _execute(rec, planner.Plan("bwd", "convert", {}, None, (), (step,)), dict(acc=dq_accum, dst=dq))


def _gl_dtype(dtype: torch.dtype):
    """Gluon's name for a tensor dtype the Gluon kernels' descriptors are made over."""
    from triton.experimental.gluon import language as gl

    return {torch.bfloat16: gl.bfloat16, torch.float16: gl.float16, torch.float32: gl.float32}[dtype]


def _bhsd_descriptor(make, t: torch.Tensor, block_rows: int, layout, block_cols: Optional[int] = None):
    """``make`` (a host descriptor class) over (B, H, S, D) ``t`` through its own strides: ``planner.bhsd_geometry``."""
    dims, strides, block = planner.bhsd_geometry(t, block_rows, block_cols)
    return make(t, dims, strides, block, layout)


def _side_buffers(B: int, H_q: int, S_q: int, D_qk: int, atomic: bool, device, side_rows: int):
    """(delta, lse2, dq_accum): row (b, h, i) of delta and lse2 at (b * H_q + h) * side_rows + i (``side_rows``:
    S_q, packed, for the Triton kernels; ``gluon_side_rows(S_q)`` for the Gluon backward), of dq_accum at
    (b * H_q + h) * S_q + i. The atomic dQ mode adds its partials into a zeroed fp32 dq_accum; the separate mode
    passes delta in its place (the kernels do not read it there). ``atomic`` "odo": the accumulator is allocated
    unfilled, for ODO to zero (``GLUON_PDL``)."""
    n = B * H_q * side_rows
    delta = alloc.empty(n, torch.float32, device)
    lse2 = alloc.empty(n, torch.float32, device)
    if atomic == "odo":
        dq_accum = alloc.empty(B * H_q * S_q * D_qk, torch.float32, device)
    else:
        dq_accum = alloc.zeros(B * H_q * S_q * D_qk, torch.float32, device) if atomic else delta
    return delta, lse2, dq_accum


_DELETED: set = set()


def _forwarded(name: str) -> property:
    def get(self):
        if name in _DELETED:
            raise AttributeError(name)
        for mod in _PLANNING:
            if name in vars(mod):
                return vars(mod)[name]
        return vars(self)[name]

    def set_(self, value):
        _DELETED.discard(name)
        found = False
        for mod in _PLANNING:
            if name in vars(mod):
                setattr(mod, name, value)
                found = True
        if not found or name in vars(self):
            vars(self)[name] = value

    def delete(self):
        # unittest.mock's patch.object ends by deleting the name and, seeing it gone, setting the value it found
        # back; the name reads as absent until then
        _DELETED.add(name)
    return property(get, set_, delete, doc=f"{name}, of the planner's modules")


# This module, with the planner's, the switches' and the configs' names readable and settable through it: a test's
# ``monkeypatch.setattr(launch, "GLUON_FORWARD", ...)`` or ``launch.forward_config = spy`` sets the name in every one
# of those modules that has it (and here, where this module holds one too), so the planner reads it. Properties (data
# descriptors), so that pytest's monkeypatch and unittest.mock read the value they put back through them.
_Module = type("_Module", (types.ModuleType,),
               {n: _forwarded(n) for mod in _PLANNING for n in vars(mod) if not n.startswith("__")})
sys.modules[__name__].__class__ = _Module
