"""Repeat launcher calls without the launcher's Python or Triton's argument binding.

A call of ``launch.attention_forward`` / ``attention_backward`` costs ~170 us of host time, of which its own
Python (checks, config choice, argument lists) is ~65 us and Triton's ``JITFunction.run`` ~90 us over the
three launches of a backward; the compiled kernels' launchers alone take 39 us of that (2026-12-01,
``tools/launch_probe.py``, H200, Triton 3.6, docs/data/h200-2026-12-01i/run41). The benchmark's hd64 rows run ~0.34 ms
on the GPU and come out host-bound on a slow host.

Everything a call launches (kernels, grids, integer and float arguments, constexprs, which tensor goes where) is
a function of the call's *key*: every tensor's dims, strides, dtype, device and 16-byte alignment, which of them
are the same tensor object, the scalars, and the launcher's module switches. ``Recorder`` runs a call's launches
through Triton as usual and writes them down with tensor arguments as slots; the next call with the same key
replays them: the same checks passed, the same configs were chosen, only the tensors differ. Triton specialises a
kernel on 16-byte pointer alignment and on integer values (1, divisibility by 16); the key holds the alignment
and the exact integers, so a replay never reuses a compiled kernel that Triton would not have chosen. A host-made
TMA descriptor argument (the Gluon kernels', made on the host since 2026-12-02) over one of the call's tensors is a slot
too: the replay makes it again on that call's tensor (``_DescSlot``). A replay launches through the compiled kernel's
own launcher where Triton returned one (a GPU); under ``TRITON_INTERPRET`` it goes through ``fn[grid](...)`` again.

``ENABLED`` ($SDPA_BWD_LAUNCH_CACHE=0 turns it off) and ``clear()``; ``counts`` says how many calls were
recorded, replayed, and replayed through compiled launchers (tests read it).

``compiling_ahead()``: the one place every launch goes through is also where a call can compile its kernels
without launching them. Inside it, ``Recorder.launch`` hands each launch to Triton's ``warmup`` under Triton's
``AsyncCompileMode``: the kernels of the calls made inside compile side by side on a thread pool (ptxas runs as a
process of its own), and all have compiled, into Triton's in-memory and disk caches, when the block ends; nothing
is launched, recorded or replayed. The runner calls it on a twin of a case's tensors before the case, so that a
case's four or five kernels compile together rather than one after the other (a cold fp32 hd256 case compiled
its four in 51 s one after the other: H100, 2026-12-06, ``docs/data/h100-2026-12-06c``).
"""

from __future__ import annotations

import contextlib
import contextvars
import copy
import os
from dataclasses import dataclass
from typing import Any, Optional

import torch

ENABLED: bool = os.environ.get("SDPA_BWD_LAUNCH_CACHE", "1") != "0"
MAX_PLANS = 4096
_PLANS: dict = {}
counts = {"recorded": 0, "replayed": 0, "direct_launches": 0}


def clear() -> None:
    _PLANS.clear()


def tensor_key(t: Optional[torch.Tensor]):
    """What a tensor contributes to a call key: everything the launcher and Triton's specialisation read of
    it except its data pointer's value (dims, strides, dtype, device, 16-byte alignment of the pointer)."""
    if t is None:
        return None
    return (t.shape, t.stride(), t.dtype, t.device, t.data_ptr() % 16)


def alias_pattern(tensors) -> tuple:
    """For each tensor the index of the first one that is the same object (all Nones map to the first
    None): a call passing Q as K too records K's slot as Q's, so it must not be replayed for a call with a
    separate K."""
    ids = tuple(map(id, tensors))
    return tuple(map(ids.index, ids))


_AHEAD: contextvars.ContextVar[bool] = contextvars.ContextVar("sdpa_bwd_compiling_ahead", default=False)


def compiling_ahead_now() -> bool:
    return _AHEAD.get()


@contextlib.contextmanager
def compiling_ahead(threads: int = 8):
    """Inside it, this thread's launcher calls compile the kernels they would launch and launch none; the
    compiles run together on ``threads`` threads and have all ended when the block exits (see the module's
    docstring). The calls' outputs are left as they were: run them on tensors laid out like the real ones,
    then make the real calls. Needs Triton's ``AsyncCompileMode`` (Triton >= 3.4) and compiled kernels (not
    the interpreter): without them the block does nothing and ``compiling_ahead_now()`` stays False."""
    try:
        from triton.runtime._async_compile import AsyncCompileMode
    except ImportError:
        AsyncCompileMode = None
    if AsyncCompileMode is None or os.environ.get("TRITON_INTERPRET") == "1":
        yield
        return
    from concurrent.futures import ThreadPoolExecutor

    with ThreadPoolExecutor(threads, thread_name_prefix="sdpa-bwd-compile") as pool, AsyncCompileMode(pool):
        token = _AHEAD.set(True)
        try:
            yield
        finally:
            _AHEAD.reset(token)


def lookup(key):
    return _PLANS.get(key) if key is not None and not _AHEAD.get() else None


@dataclass(frozen=True)
class _Slot:
    index: int  # into the call's tensor list


@dataclass(frozen=True)
class _DescSlot:
    """A host-made TMA descriptor (Gluon's ``TensorDescriptor``) over one of the call's tensors: a replay makes
    the recorded one again on that call's tensor (dims, strides, block and layout are the key's, so the same);
    its ``base`` is all that changes. Replaying the recorded descriptor itself would address the first call's
    memory."""
    index: int
    proto: Any  # the recorded descriptor with its base taken out (``_rebased(desc, None)``)

    def make(self, tensor):
        return _rebased(self.proto, tensor)


def _rebased(desc, tensor):
    """``desc`` over ``tensor`` (or over nothing: None). Not the constructor (its checks passed for this key
    already), nor copy.copy (its __reduce_ex__ took ~3 us a descriptor, 7 descriptors a Gluon backward,
    2026-12-06): the dataclass's fields copied. A plan keeps its descriptors without a base: one that kept the
    recorded call's tensor kept that tensor's whole storage alive as long as the plan, one per call key (an H100
    worker's reserved memory grew by 4-8 GiB a case over eight 2^31-element cases in a row, 8.3 to 44.3 GiB,
    2026-12-06)."""
    if hasattr(desc, "__dict__"):
        d = object.__new__(type(desc))
        d.__dict__.update(desc.__dict__)
    else:  # a descriptor class with __slots__
        d = copy.copy(desc)
    d.base = tensor
    return d


def _is_descriptor(a) -> bool:
    """Gluon's and Triton's host descriptors alike: a dataclass with a tensor ``base`` and a ``block_shape``."""
    return isinstance(getattr(a, "base", None), torch.Tensor) and hasattr(a, "block_shape")


def _no_hook(hook) -> bool:
    """Triton 3.6 keeps launch hooks in a ``HookChain`` (empty: ``.calls == []``), other versions None."""
    return hook is None or (type(hook).__name__ == "HookChain" and not getattr(hook, "calls", True))


_RUNTIME_KNOBS: list = []  # Triton's ``knobs.runtime`` once found (the import statement cost ~1 us a replay)


def _direct_ok() -> bool:
    """Replays launch through the compiled kernel's launcher (hooks and launch metadata None, which the
    launcher then skips) unless a Triton launch hook is registered (a profiler such as proton wants the
    metadata that JITFunction.run builds): then they take ``fn[grid]``. The hooks are read at every replay: a
    profiler may set one at any time."""
    try:
        if not _RUNTIME_KNOBS:
            from triton import knobs
            _RUNTIME_KNOBS.append(knobs.runtime)
        runtime = _RUNTIME_KNOBS[0]
        return _no_hook(runtime.launch_enter_hook) and _no_hook(runtime.launch_exit_hook)
    except (ImportError, AttributeError):
        return False


def _template(seq):
    """(list with the slots' places left as None, [(place, tensor index, descriptor slot or None)]): a fast way
    to fill a list."""
    kinds = (_Slot, _DescSlot)
    return ([None if type(a) in kinds else a for a in seq],
            [(i, a.index, a if type(a) is _DescSlot else None) for i, a in enumerate(seq) if type(a) in kinds])


class _Launch:
    __slots__ = ("fn", "grid", "kwargs", "args", "values", "kernel")

    def __init__(self, fn, grid, args, kwargs, kernel):
        self.fn, self.grid, self.kwargs = fn, tuple(grid) + (1,) * (3 - len(grid)), kwargs
        self.kernel = kernel
        self.args = _template(args)
        self.values = None
        params = getattr(fn, "params", None)
        if kernel is None or params is None or not all(hasattr(kernel, a) for a in
                                                       ("run", "function", "packed_metadata")):
            return
        # JITFunction.run hands the compiled launcher every parameter in order, constexprs and defaults
        # included (Triton 3.6 and 3.9): positional arguments, then keywords, then defaults.
        vals = []
        for i, p in enumerate(params):
            if i < len(args):
                vals.append(args[i])
            elif p.name in kwargs:
                vals.append(kwargs[p.name])
            elif p.has_default:
                vals.append(p.default)
            else:
                return  # a parameter this launch did not pass: leave it to Triton
        self.values = _template(vals)


def _fill(template, tensors) -> list:
    out, places = template
    out = list(out)
    for i, j, desc in places:
        out[i] = tensors[j] if desc is None else desc.make(tensors[j])
    return out


class Plan:
    """The launches of one recorded call, tensor arguments as slots into the call's tensor list."""

    def __init__(self, launches, extra):
        self.launches, self.extra = launches, extra

    def replay(self, tensors) -> None:
        direct = _direct_ok()
        stream = None
        for ln in self.launches:
            if direct and ln.values is not None:
                if stream is None:
                    from triton.runtime.driver import driver
                    stream = driver.active.get_current_stream(driver.active.get_current_device())
                k = ln.kernel
                k.run(ln.grid[0], ln.grid[1], ln.grid[2], stream, k.function, k.packed_metadata, None, None, None,
                      *_fill(ln.values, tensors))
                counts["direct_launches"] += 1
            else:
                ln.fn[ln.grid](*_fill(ln.args, tensors), **ln.kwargs)
        counts["replayed"] += 1


class Recorder:
    """Launches as ``fn[grid](*args, **kwargs)`` and, when it has a key, writes them down; ``finish`` stores
    the plan once the call has reached its normal end (an early return, or an exception, stores nothing)."""

    def __init__(self, key):
        self.ahead = _AHEAD.get()
        self.key = None if self.ahead else key
        self._launches: list = []

    def launch(self, fn, grid, *args, **kwargs) -> None:
        if self.ahead:  # compile only (``compiling_ahead``): Triton queues the compile and returns at once
            fn.warmup(*args, grid=grid, **kwargs)
            return
        kernel = fn[grid](*args, **kwargs)
        if self.key is not None:
            self._launches.append((fn, grid, args, kwargs, kernel))

    def finish(self, tensors, extra: Any = None) -> None:
        if self.key is None:
            return
        ids = {}
        for i, t in enumerate(tensors):
            if t is not None:
                ids.setdefault(id(t), i)

        def slot(a):
            if isinstance(a, torch.Tensor):
                if id(a) not in ids:
                    raise KeyError
                return _Slot(ids[id(a)])
            if _is_descriptor(a):
                if id(a.base) not in ids:
                    raise KeyError
                return _DescSlot(ids[id(a.base)], _rebased(a, None))
            return a

        launches = []
        try:
            for fn, grid, args, kwargs, kernel in self._launches:
                if any(isinstance(v, torch.Tensor) for v in kwargs.values()):
                    return  # tensors only travel positionally in our launches; anything else is not replayed
                launches.append(_Launch(fn, grid, tuple(slot(a) for a in args), dict(kwargs), kernel))
        except KeyError:
            return  # a tensor argument that is none of the call's named tensors: not replayable
        if len(_PLANS) >= MAX_PLANS:
            _PLANS.clear()
        _PLANS[self.key] = Plan(tuple(launches), extra)
        counts["recorded"] += 1
