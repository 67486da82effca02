"""Which Triton specialisations of the engine dominate a cold-cache compile of a plan level?

    python tools/compile_times.py --level full --budget 1500 -j 2 \\
        --venv-python /tmp/tr36/venv/bin/python --out docs/data/compile-times-sm90.md

Three steps:

1. Enumerate (main python, no GPU, nothing runs): for every non-probe case of the level
   that the engine would accept on a CUDA device, call ``launch.attention_backward`` (the
   runner's ``engine.backward``; reruns launch the same kernels) and
   ``launch.attention_forward`` (the runner's forward check) on *fake* CUDA tensors
   (``FakeTensor``: the case's dims, strides, dtype and a data pointer laid out as
   ``tensors.materialize`` lays the buffers out: a 512-byte aligned allocation, ``GUARD``
   elements, then the tensor's offset). The launcher's own code picks configs, TMA, WIDE,
   D_QK_SPLIT and the ``_any_len`` twins, as on the GPU; only the kernels are replaced by
   recorders, and ``torch.empty``/``zeros`` inside ``launch`` and ``engine.alloc`` return fake tensors. Each
   recorder turns the launch into what Triton 3.6's JIT would compile: the signature
   (pointer dtype, i32/i64/fp32/u1), constexprs (the kernel's own plus ints equal to 1,
   which Triton specialises to constexpr 1 unless ``do_not_specialize``), the
   ``tt.divisibility=16`` attributes (ints divisible by 16, pointers 16-byte aligned), and
   num_warps/num_stages.
2. Dedupe to distinct specialisations and class them.
3. Compile a sample with another Python (Triton 3.6) for sm_90a (``GPUTarget("cuda", 90,
   32)``, no GPU needed), each spec timed in a persistent worker with a fresh, empty
   ``TRITON_CACHE_DIR``; write a Markdown summary with extrapolated totals.

``--enumerate-only`` prints the counts without compiling. ``--worker`` is the compile
worker's entry point (run under the Triton 3.6 python; it imports only
``sdpa_bwd.engine.kernels``).
"""

from __future__ import annotations

import argparse
import contextlib
import inspect
import importlib
import itertools
import json
import os
import random
import statistics
import subprocess
import sys
import tempfile
import threading
import time
import types
from collections import Counter, defaultdict
from dataclasses import dataclass
from typing import Optional

# Kernels the launcher calls, by the name it imports them under.
GLUON_KERNEL = "attention_fwd_gluon_kernel"  # in sdpa_bwd.engine.kernels.attention_fwd_gluon
GLUON_BWD_KERNEL = "attention_bwd_gluon_kernel"  # in sdpa_bwd.engine.kernels.attention_bwd_gluon
GLUON_BWD192_KERNEL = "attention_bwd_gluon_192_kernel"  # in sdpa_bwd.engine.kernels.attention_bwd_gluon_192
# the Gluon kernels by name: the module launch imports each as (launch.<module>.<kernel>)
GLUON_KERNELS = {GLUON_KERNEL: "attention_fwd_gluon", GLUON_BWD_KERNEL: "attention_bwd_gluon",
                 GLUON_BWD192_KERNEL: "attention_bwd_gluon_192"}
KERNEL_NAMES = (
    "attention_fwd_kernel", "attention_fwd_kernel_any_len",
    "attention_bwd_preprocess_kernel",
    "attention_bwd_dkdv_kernel", "attention_bwd_dkdv_kernel_any_len",
    "attention_bwd_dq_kernel", "attention_bwd_dq_kernel_any_len",
    "attention_bwd_dq_convert_kernel", "attention_bwd_convert_all_kernel",
    "attention_bwd_fused_kernel", "attention_bwd_fused_kernel_any_len",
)
FAMILY = {"attention_fwd_kernel": "fwd", "attention_bwd_preprocess_kernel": "odo",
          "attention_bwd_dkdv_kernel": "dkdv", "attention_bwd_dq_kernel": "dq",
          "attention_bwd_dq_convert_kernel": "dq_convert", "attention_bwd_convert_all_kernel": "convert_all",
          "attention_bwd_fused_kernel": "fused",
          GLUON_KERNEL: "fwd", GLUON_BWD_KERNEL: "dkdv",
          GLUON_BWD192_KERNEL: "dkdv"}
ANY_LEN_SUFFIX = "_any_len"
H200_SMS = 132  # the H200's SMs (launch._sm_count), which the 192 / 128 persistent pass's grid counts
_TRITON_DTYPE = {"float16": "fp16", "bfloat16": "bf16", "float32": "fp32", "int8": "i8", "int32": "i32"}
ALLOC_ALIGN = 512          # the CUDA caching allocator hands out 512-byte aligned blocks
_BUFFER_SPACING = 1 << 40  # fake buffers never share an address range


# ----------------------------------------------------------------------------
# Fake CUDA tensors


class _FakeDevice:
    type = "cuda"
    index = 0

    def __repr__(self) -> str:
        return "device(type='cuda', index=0)"


_CUDA = _FakeDevice()


class FakeTensor:
    """What ``sdpa_bwd.engine.launch`` reads of a tensor: dims, strides, dtype, device, data pointer, and which storage
    it views (``storage``: the buffer's base; a tensor of its own by default)."""

    allocator: "_Allocator" = None  # where clones allocate: set by ``recording``

    def __init__(self, shape, strides, dtype, ptr: int, storage: Optional[int] = None):
        import torch

        self.shape = torch.Size(int(d) for d in shape)
        self._strides = tuple(int(s) for s in strides)
        self.dtype = dtype
        self.device = _CUDA
        self._ptr = int(ptr)
        self._storage = int(ptr) if storage is None else int(storage)

    def untyped_storage(self):
        return _FakeStorage(self._storage)

    def stride(self, dim: Optional[int] = None):
        return self._strides if dim is None else self._strides[dim]

    def dim(self) -> int:
        return len(self.shape)

    def numel(self) -> int:
        n = 1
        for d in self.shape:
            n *= d
        return n

    def element_size(self) -> int:
        return self.dtype.itemsize

    def data_ptr(self) -> int:
        return self._ptr

    def zero_(self):
        return self

    def clone(self):
        """A copy in a fresh allocation (``launch`` restages a misaligned K or V this way), dims and strides kept
        (torch keeps a dense tensor's strides; the restaged tensors are dense views)."""
        return FakeTensor(self.shape, self._strides, self.dtype, FakeTensor.allocator.new())

    def fill_(self, _value):
        return self

    def narrow(self, dim: int, start: int, length: int):
        shape = list(self.shape)
        shape[dim] = length
        ptr = self._ptr + start * self._strides[dim] * self.element_size()
        return FakeTensor(shape, self._strides, self.dtype, ptr, self._storage)

    def view(self, *shape):
        shape = tuple(shape[0]) if len(shape) == 1 and isinstance(shape[0], (tuple, list)) else shape
        strides, acc = [], 1
        for d in reversed(shape):
            strides.append(acc)
            acc *= d
        return FakeTensor(shape, tuple(reversed(strides)), self.dtype, self._ptr, self._storage)


class _FakeStorage:
    def __init__(self, ptr: int):
        self._ptr = ptr

    def data_ptr(self) -> int:
        return self._ptr


class _Allocator:
    def __init__(self) -> None:
        self.next = _BUFFER_SPACING

    def new(self) -> int:
        ptr = self.next
        self.next += _BUFFER_SPACING
        return ptr


class _FakeTorch:
    """``torch`` as ``launch`` sees it: fresh allocations are fake CUDA tensors."""

    def __init__(self, alloc: _Allocator):
        import torch

        self._torch, self._alloc = torch, alloc

    def __getattr__(self, name):
        return getattr(self._torch, name)

    def empty(self, shape, *, dtype=None, device=None, **_):
        shape = (shape,) if isinstance(shape, int) else tuple(shape)
        strides, acc = [], 1
        for d in reversed(shape):
            strides.append(acc)
            acc *= d
        return FakeTensor(shape, tuple(reversed(strides)), dtype or self._torch.float32, self._alloc.new())

    zeros = empty


def fake_tensors(problem, alloc: _Allocator) -> dict:
    """The case's nine tensors as ``tensors.materialize`` lays them out on a CUDA device."""
    import torch

    from sdpa_bwd.conformance.tensors import GUARD, TORCH_DTYPE

    specs = problem.tensors()
    bases: dict[str, int] = {}
    out = {}
    for name, spec in specs.items():
        buf = spec.buffer or name
        if buf not in bases:
            bases[buf] = alloc.new()
        dtype = TORCH_DTYPE[spec.dtype]
        out[name] = FakeTensor(spec.dims, spec.strides, dtype,
                               bases[buf] + (GUARD + spec.offset) * dtype.itemsize, storage=bases[buf])
    assert all(isinstance(t.dtype, torch.dtype) for t in out.values())
    return out


# ----------------------------------------------------------------------------
# Recording launches as Triton 3.6's JIT would specialise them


def _is_constexpr_param(p: inspect.Parameter) -> bool:
    ann = p.annotation
    if ann is inspect.Parameter.empty:
        return False
    return "constexpr" in (ann if isinstance(ann, str) else getattr(ann, "__name__", repr(ann)))


def unspecialised(jit) -> list[str]:
    """The argument names a kernel's ``triton.jit(do_not_specialize=...)`` names (a JITFunction, or the
    InterpretedFunction ``triton.jit`` returns under TRITON_INTERPRET=1)."""
    if hasattr(jit, "params"):
        return [p.name for p in jit.params if p.do_not_specialize]
    names = jit.kwargs.get("do_not_specialize") or []
    return [jit.arg_names[n] if isinstance(n, int) else n for n in names]


def specialize_value(value, *, specialize: bool = True):
    """(type, attr) as Triton 3.6's ``native_specialize_impl`` gives them (align=True):
    attr "D" means divisible by 16 (pointers: 16-byte aligned), "" not, None not specialised (descriptors);
    an int equal to 1 becomes ("constexpr", 1) unless it is in ``do_not_specialize``."""
    if isinstance(value, FakeTensor):
        ty = "*" + _TRITON_DTYPE[str(value.dtype).replace("torch.", "")]
        return ty, ("D" if value.data_ptr() % 16 == 0 else "")
    if isinstance(getattr(value, "base", None), FakeTensor) and hasattr(value, "block_shape"):
        # a host-made TMA descriptor (the Gluon backward's): its type names dtype, block and layout, no value
        from triton.runtime.jit import mangle_type
        return mangle_type(value), None
    if isinstance(value, bool):
        return "u1", None
    if isinstance(value, int):
        if -(1 << 31) <= value < (1 << 31):
            ty = "i32"
        elif 0 <= value < (1 << 64) and value >= (1 << 63):
            ty = "u64"
        else:
            ty = "i64"
        if not specialize:
            return ty, None
        if value == 1:
            return "constexpr", 1
        return ty, ("D" if value % 16 == 0 else "")
    if isinstance(value, float):
        return "fp32", None
    if value is None:
        return "constexpr", None
    raise TypeError(f"cannot specialise {type(value).__name__}")


@dataclass
class Launch:
    kernel: str                   # the launcher's name for the kernel (``..._any_len`` for the twins)
    signature: tuple              # ((param, type or "constexpr"), ...) in parameter order
    constexprs: tuple             # ((param, value), ...): the kernel's own and ints specialised to 1
    divisible: tuple              # params with tt.divisibility 16
    num_warps: Optional[int]
    num_stages: Optional[int]
    maxnreg: Optional[int] = None  # the Gluon forward's register budget before its partitions resize theirs
    launch_pdl: bool = False       # launched as a programmatic dependent (a compile option: a compile of its own)

    def key(self) -> str:
        return json.dumps([self.kernel, self.signature, self.constexprs, self.divisible,
                           self.num_warps, self.num_stages] + ([self.maxnreg] if self.maxnreg else [])
                          + (["launch_pdl"] if self.launch_pdl else []))

    def to_dict(self) -> dict:
        return dict(kernel=self.kernel, signature=[list(x) for x in self.signature],
                    constexprs=[list(x) for x in self.constexprs], divisible=list(self.divisible),
                    num_warps=self.num_warps, num_stages=self.num_stages, maxnreg=self.maxnreg,
                    launch_pdl=self.launch_pdl)


class _Recorder:
    def __init__(self, name: str, jit_obj, no_specialize, sink: list):
        self.name, self.sink = name, sink
        self.params = list(inspect.signature(jit_obj.fn).parameters.values())
        self.no_specialize = set(no_specialize)

    def __getitem__(self, grid):
        def launch(*args, **kwargs):
            num_warps = kwargs.pop("num_warps", None)
            num_stages = kwargs.pop("num_stages", None)
            maxnreg = kwargs.pop("maxnreg", None)
            launch_pdl = bool(kwargs.pop("launch_pdl", False))
            bound = inspect.Signature(self.params).bind(*args, **kwargs)
            bound.apply_defaults()
            sig, consts, div = [], [], []
            for p in self.params:
                value = bound.arguments[p.name]
                if _is_constexpr_param(p):
                    sig.append((p.name, "constexpr"))
                    consts.append((p.name, value))
                    continue
                ty, attr = specialize_value(value, specialize=p.name not in self.no_specialize)
                sig.append((p.name, ty))
                if ty == "constexpr":
                    consts.append((p.name, attr))
                elif attr == "D":
                    div.append(p.name)
            self.sink.append(Launch(self.name, tuple(sig), tuple(consts), tuple(div), num_warps, num_stages,
                                    maxnreg, launch_pdl))
        return launch


@contextlib.contextmanager
def recording(sink: list, alloc: Optional[_Allocator] = None):
    """Within: ``launch``'s kernels append ``Launch`` records to ``sink`` instead of running,
    on fake CUDA tensors; TMA mode "auto" (the GPU default), autotuning and the launch cache off, no
    interpreter."""
    from unittest import mock

    from sdpa_bwd.engine import alloc as engine_alloc
    from sdpa_bwd.engine import launch, launch_cache

    alloc = alloc or _Allocator()
    FakeTensor.allocator = alloc
    # the launch cache off: a replayed call would skip the kernels' launchers this records through
    patches = [mock.patch.object(launch_cache, "ENABLED", False),
               mock.patch.object(launch, "torch", _FakeTorch(alloc)),
               mock.patch.object(engine_alloc, "torch", _FakeTorch(alloc)),  # the launcher's allocations
               mock.patch.object(launch, "interpreter_active", lambda: False),
               mock.patch.object(launch, "TMA_MODE", "auto"),
               mock.patch.object(launch, "ensure_allocator", lambda: None),
               mock.patch.object(launch, "_tuned", lambda *a, **k: None),
               mock.patch.object(launch, "_BWD_OVERRIDE", None),
               mock.patch.object(launch, "_is_sm90", lambda index: True),
               mock.patch.object(launch, "_sm_count", lambda index: H200_SMS)]
    # the Gluon forward and backward, which the H200 takes for hd128 and 192/128 (and the backward hd64) 16-bit
    # problems
    for kernel, module in GLUON_KERNELS.items():
        gluon = getattr(launch, module)
        if gluon.AVAILABLE:
            real = getattr(gluon, kernel)
            ns = types.SimpleNamespace(**{**vars(gluon), kernel: _Recorder(kernel, real, unspecialised(real), sink)})
            patches.append(mock.patch.object(launch, module, ns))
    for name in KERNEL_NAMES:
        # the kernel's own do_not_specialize list (the _any_len twins add the lengths to it)
        no_spec = unspecialised(getattr(launch, name))
        patches.append(mock.patch.object(launch, name, _Recorder(name, getattr(launch, name), no_spec, sink)))
    with contextlib.ExitStack() as stack:
        for p in patches:
            stack.enter_context(p)
        yield launch


def engine_declines(problem) -> list[str]:
    """The triton engine's ``not_supported_reasons`` as on a CUDA machine."""
    from sdpa_bwd.backends.base import Engine
    from sdpa_bwd.backends.triton import TritonEngine
    from sdpa_bwd.engine.launch import triton_not_supported_reasons

    eng = TritonEngine.__new__(TritonEngine)     # no __init__: it would set TRITON_INTERPRET
    eng.device = lambda: "cpu"                   # base rules minus "no CUDA device here"
    return Engine.not_supported_reasons(eng, problem) + triton_not_supported_reasons(
        device_type="cuda", dtype=problem.dtype, d_qk=problem.D_qk, d_v=problem.D_v, interpreter=False)


def case_launches(case, *, forward: bool = True, api: bool = False) -> list[Launch]:
    """The kernel launches the runner's ``run_case`` makes for ``case`` on an H200 (cold: each once), and with
    ``api`` those of the ``triton-api`` engine too (the main job runs both doors); [] for probes, invalid cases
    and declined cases."""
    if case.purpose == "probe":
        return []
    problem = case.to_problem()
    try:
        problem.validate()
    except ValueError:
        return []
    if engine_declines(problem):
        return []
    sink: list[Launch] = []
    alloc = _Allocator()
    attrs = dict(scale=problem.effective_scale, left_bound=problem.left_bound,
                 right_bound=problem.right_bound, alignment=problem.alignment)
    with recording(sink, alloc) as launch:
        t = fake_tensors(problem, alloc)
        launch.attention_backward(t["q"], t["k"], t["v"], t["o"], t["do"], t["stats"],
                                  deterministic=problem.deterministic, dq=t["dq"], dk=t["dk"], dv=t["dv"],
                                  return_delta=True, **attrs)
        if forward:
            t = fake_tensors(problem, alloc)     # the forward check materialises afresh
            launch.attention_forward(t["q"], t["k"], t["v"], o=t["o"], stats=t["stats"], **attrs)
        if api:  # the triton-api engine: sdpa_bwd.attention allocates O, the stats and the gradients packed
            t = fake_tensors(problem, alloc)
            o, stats = launch.attention_forward(t["q"], t["k"], t["v"], **attrs)
            launch.attention_backward(t["q"], t["k"], t["v"], o, t["do"], stats,
                                      deterministic=problem.deterministic, **attrs)
    return sink


def enumerate_specs(cases, *, api: bool = False) -> tuple[dict, dict, Counter]:
    """(specs by key, case ids by key, case counts by outcome); ``api``: both doors' launches."""
    specs: dict[str, Launch] = {}
    users: dict[str, list] = defaultdict(list)
    outcome: Counter = Counter()
    for case in cases:
        launches = case_launches(case, api=api)
        outcome["probe" if case.purpose == "probe" else ("launched" if launches else "declined/invalid")] += 1
        for ln in launches:
            k = ln.key()
            specs.setdefault(k, ln)
            if case.id not in users[k]:
                users[k].append(case.id)
    return specs, users, outcome


# ----------------------------------------------------------------------------
# Classes


def family(kernel: str) -> str:
    return FAMILY[kernel.removesuffix(ANY_LEN_SUFFIX)]


def spec_class(ln: Launch) -> dict:
    c = dict(ln.constexprs)
    sig = dict(ln.signature)
    ptr = next(ty for _, ty in ln.signature if ty.startswith("*"))
    fam = family(ln.kernel)
    dtype_ptr = {"fwd": "q_ptr", "dkdv": "q_ptr", "dq": "q_ptr", "fused": "q_ptr", "odo": "o_ptr",
                 "dq_convert": "dq_ptr", "convert_all": "dq_ptr"}[fam]
    dtype = sig.get(dtype_ptr, ptr).lstrip("*")
    ones = [n for n, ty in ln.signature if ty == "constexpr" and n not in _own_constexprs(ln)]
    plain = [n for n, ty in ln.signature if ty in ("i32", "i64") and n not in ln.divisible]
    wide_ints = [n for n, ty in ln.signature if ty == "i64"]
    return dict(
        kernel=ln.kernel, family=fam, any_len=ln.kernel.endswith(ANY_LEN_SUFFIX), dtype=dtype,
        dpair=f"{c.get('D_QK_PAD', '-')}/{c.get('D_V_PAD', '-')}" + (f"+{c['D_QK_SPLIT']}" if c.get("D_QK_SPLIT") else ""),
        dims=f"{c.get('D_QK', '-')}/{c.get('D_V', '-')}",
        band={(False, False): "none", (False, True): "right", (True, False): "left", (True, True): "band"}.get(
            (c.get("HAS_LEFT"), c.get("HAS_RIGHT")), "-"),
        split={(True, True): "dk+dv", (True, False): "dk", (False, True): "dv"}.get(
            (c.get("COMPUTE_DK"), c.get("COMPUTE_DV")), "-"),
        atomic=bool(c.get("ATOMIC_DQ")), tma=bool(c.get("TMA")), dq_tma=bool(c.get("DQ_TMA")),
        wide=bool(c.get("WIDE")),
        tiles=f"{c.get('BLOCK_M')}x{c.get('BLOCK_N')} w{ln.num_warps} s{ln.num_stages}",
        div="ones:" + ",".join(ones) + " plain:" + ",".join(plain) + (" i64:" + ",".join(wide_ints) if wide_ints else ""),
    )


_OWN_CONSTEXPRS: dict[str, set] = {}


def _own_constexprs(ln: Launch) -> set:
    if ln.kernel not in _OWN_CONSTEXPRS:
        from sdpa_bwd.engine import kernels

        module = importlib.import_module(f"sdpa_bwd.engine.kernels.{GLUON_KERNELS[ln.kernel]}") \
            if ln.kernel in GLUON_KERNELS else kernels
        fn = getattr(module, ln.kernel).fn
        _OWN_CONSTEXPRS[ln.kernel] = {p.name for p in inspect.signature(fn).parameters.values()
                                      if _is_constexpr_param(p)}
    return _OWN_CONSTEXPRS[ln.kernel]


def coarse(cls: dict) -> tuple:
    return cls["family"], cls["dtype"], cls["dpair"]


def fine(cls: dict) -> tuple:
    return cls["kernel"], cls["dtype"], cls["dpair"], cls["tma"], cls["wide"], cls["band"], cls["split"]


# ----------------------------------------------------------------------------
# Compiling (worker side: Triton 3.6 python, only sdpa_bwd.engine.kernels imported)


def _worker_compile(spec: dict, target, ASTSource, triton, kernels) -> dict:
    if spec["kernel"] in GLUON_KERNELS:
        import importlib

        from triton.experimental.gluon._runtime import GluonASTSource as ASTSource  # noqa: N811

        kernels = importlib.import_module(f"sdpa_bwd.engine.kernels.{GLUON_KERNELS[spec['kernel']]}")
    fn = getattr(kernels, spec["kernel"])
    names = fn.arg_names
    if not spec.get("other_source"):
        sig = {n: ty for n, ty in spec["signature"]}
        consts = {(names.index(n),): v for n, v in spec["constexprs"]}
    else:
        # the spec was recorded from another revision's launcher (tools/ptx_diff.py --bench): its parameters that
        # this kernel lacks are dropped, and this kernel's constexprs that the spec lacks take their defaults
        given, sig, consts = dict(spec["constexprs"]), {}, {}
        recorded = dict(spec["signature"])
        for i, p in enumerate(fn.params):
            if p.name in recorded:
                sig[p.name] = recorded[p.name]
                if p.name in given:
                    consts[(i,)] = given[p.name]
            elif p.is_constexpr and p.default is not inspect.Parameter.empty:
                sig[p.name], consts[(i,)] = "constexpr", p.default
            else:
                raise KeyError(f"{spec['kernel']}: parameter {p.name} is in neither the spec nor the defaults")
    attrs = {(names.index(n),): [["tt.divisibility", 16]] for n in spec["divisible"] if n in names}
    options = {}
    if spec.get("num_warps") is not None:
        options["num_warps"] = spec["num_warps"]
    if spec.get("num_stages") is not None:
        options["num_stages"] = spec["num_stages"]
    if spec.get("maxnreg") is not None:
        options["maxnreg"] = spec["maxnreg"]
    if spec.get("launch_pdl"):
        options["launch_pdl"] = True
    t0 = time.perf_counter()
    k = triton.compile(ASTSource(fn, sig, consts, attrs), target=target, options=options)
    dt = time.perf_counter() - t0
    out = dict(seconds=dt, shared=k.metadata.shared, n_regs=getattr(k, "n_regs", None))
    if spec.get("ptx"):  # the code only (ptx_diff.code_only: no debug lines), hashed
        import hashlib

        from ptx_diff import code_only
        out["ptx_sha256"] = hashlib.sha256(code_only(k.asm["ptx"]).encode()).hexdigest()
    return out


def worker_main() -> int:
    """Read one JSON spec a line on stdin, compile it cold, answer one JSON line."""
    import triton
    from triton.backends.compiler import GPUTarget
    from triton.compiler import ASTSource

    from sdpa_bwd.engine import kernels

    target = GPUTarget("cuda", 90, 32)
    out = sys.stdout
    warm = dict(kernel="attention_bwd_dq_convert_kernel",
                signature=[], constexprs=[], divisible=[], num_warps=4, num_stages=None)
    try:   # warm-up (imports, MLIR context, ptxas in the page cache): not timed
        fn = kernels.attention_bwd_dq_convert_kernel
        sig, consts = [], []
        for n in fn.arg_names:
            if n in ("BLOCK_M", "D_QK", "D_QK_PAD"):
                sig.append((n, "constexpr"))
                consts.append((n, 64))
            elif n in ("D_QK_SPLIT",):
                sig.append((n, "constexpr"))
                consts.append((n, 0))
            elif n == "WIDE":
                sig.append((n, "constexpr"))
                consts.append((n, False))
            elif n.endswith("_ptr"):
                sig.append((n, "*fp32" if "acc" in n else "*bf16"))
            elif n == "scale":
                sig.append((n, "fp32"))
            else:
                sig.append((n, "i32"))
        warm.update(signature=sig, constexprs=consts)
        _worker_compile(warm, target, ASTSource, triton, kernels)
        note = "warm"
    except Exception as exc:  # noqa: BLE001 - only a warm-up
        note = f"warm-up failed: {type(exc).__name__}: {exc}"[:300]
    out.write(json.dumps(dict(ready=True, triton=triton.__version__, note=note)) + "\n")
    out.flush()
    for line in sys.stdin:
        spec = json.loads(line)
        try:
            res = _worker_compile(spec, target, ASTSource, triton, kernels)
        except Exception as exc:  # noqa: BLE001 - report and go on
            res = dict(seconds=None, error=f"{type(exc).__name__}: {str(exc)[:400]}")
        res["key"] = spec["key"]
        out.write(json.dumps(res) + "\n")
        out.flush()
    return 0


# ----------------------------------------------------------------------------
# Compiling (parent side)


def choose_sample(specs: dict, seed: int = 0) -> list[str]:
    """Keys: one of every (kernel, dtype, D pair) class first (in a seeded random order of
    classes), then one of every finer class (TMA, WIDE, band, split), then the rest at random."""
    rng = random.Random(seed)
    keys = sorted(specs)
    rng.shuffle(keys)
    order, seen = [], set()
    for level in (lambda c: (c["kernel"], c["dtype"], c["dpair"]), fine):
        got = set()
        for k in keys:
            cl = level(spec_class(specs[k]))
            if cl not in got and k not in seen:
                got.add(cl)
                order.append(k)
                seen.add(k)
            elif cl not in got:
                got.add(cl)
    order += [k for k in keys if k not in seen]
    return order


def compile_sample(specs: dict, order: list[str], *, python: str, jobs: int, budget: float,
                   log=print, src: Optional[str] = None, extra: Optional[dict] = None) -> dict:
    """Compile ``order`` (in order) until ``budget`` seconds have passed; {key: result}. ``src``: the folder
    whose ``sdpa_bwd`` package the workers compile from (default: this repository's ``src``); ``extra``: fields
    added to every spec sent (``ptx``, ``other_source``: ``_worker_compile``)."""
    results: dict[str, dict] = {}
    lock = threading.Lock()
    it = iter(order)
    start = time.monotonic()
    env = dict(os.environ)
    src = src or os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "src")
    env["PYTHONPATH"] = src + os.pathsep + env.get("PYTHONPATH", "")
    env.pop("TRITON_INTERPRET", None)
    info = {}

    def run_worker(slot: int) -> None:
        with tempfile.TemporaryDirectory(prefix=f"tcache{slot}-") as cache:
            wenv = dict(env, TRITON_CACHE_DIR=cache)
            p = subprocess.Popen([python, os.path.abspath(__file__), "--worker"], stdin=subprocess.PIPE,
                                 stdout=subprocess.PIPE, text=True, env=wenv, bufsize=1)
            try:
                hello = json.loads(p.stdout.readline())
                info[slot] = hello
                while True:
                    with lock:
                        if time.monotonic() - start > budget:
                            return
                        key = next(it, None)
                    if key is None:
                        return
                    p.stdin.write(json.dumps(dict(specs[key].to_dict(), key=key, **(extra or {}))) + "\n")
                    p.stdin.flush()
                    line = p.stdout.readline()
                    if not line:
                        results[key] = dict(seconds=None, error="worker died")
                        return
                    res = json.loads(line)
                    with lock:
                        results[key] = res
                        n = len(results)
                    cl = spec_class(specs[key])
                    log(f"[{time.monotonic() - start:7.1f}s] #{n} w{slot} {cl['kernel']} {cl['dtype']} {cl['dpair']} "
                        f"tma={cl['tma']} wide={cl['wide']} band={cl['band']}: "
                        + (f"{res['seconds']:.1f}s" if res.get("seconds") is not None else res.get("error")))
            finally:
                p.stdin.close()
                p.wait()

    threads = [threading.Thread(target=run_worker, args=(i,)) for i in range(jobs)]
    for th in threads:
        th.start()
    for th in threads:
        th.join()
    results["_workers"] = info
    return results


# ----------------------------------------------------------------------------
# Summary


def estimate(specs: dict, results: dict) -> dict:
    """Seconds per key: measured, else the mean of its finest class with a measurement
    (fine -> (kernel, dtype, D pair) -> (family, dtype, D pair) -> (family, dtype) -> family)."""
    levels = [fine, lambda c: (c["kernel"], c["dtype"], c["dpair"]), coarse,
              lambda c: (c["family"], c["dtype"]), lambda c: (c["family"],)]
    means = []
    for lv in levels:
        acc = defaultdict(list)
        for k, r in results.items():
            if k in specs and r.get("seconds") is not None:
                acc[lv(spec_class(specs[k]))].append(r["seconds"])
        means.append({c: statistics.mean(v) for c, v in acc.items()})
    est = {}
    for k, ln in specs.items():
        r = results.get(k)
        if r and r.get("seconds") is not None:
            est[k] = r["seconds"]
            continue
        cl = spec_class(ln)
        for lv, m in zip(levels, means):
            if lv(cl) in m:
                est[k] = m[lv(cl)]
                break
        else:
            est[k] = 0.0
    return est


def _excess(specs, est, drop: str) -> tuple[float, int]:
    """Seconds and specs beyond one per group of specs equal except for ``drop`` (the dearest kept)."""
    groups = defaultdict(list)
    for k, ln in specs.items():
        groups[_key_without(ln, drop)].append(est[k])
    secs = sum(sum(v) - max(v) for v in groups.values())
    n = sum(len(v) - 1 for v in groups.values())
    return secs, n


def _key_without(ln: Launch, drop: str):
    consts = dict(ln.constexprs)
    sig = list(ln.signature)
    div = set(ln.divisible)
    kernel = ln.kernel
    if drop == "tma":
        consts.pop("TMA", None)
        consts.pop("DQ_TMA", None)
    elif drop == "band":
        consts.pop("HAS_LEFT", None)
        consts.pop("HAS_RIGHT", None)
    elif drop == "split":
        consts.pop("COMPUTE_DK", None)
        consts.pop("COMPUTE_DV", None)
    elif drop == "wide":
        consts.pop("WIDE", None)
        sig = [(n, "i32" if ty == "i64" else ty) for n, ty in sig]
    elif drop == "div":   # divisibility and ==1 specialisation of ints and pointers
        own = _own_constexprs(ln)
        sig = [(n, "int" if (ty in ("i32", "i64") or (ty == "constexpr" and n not in own)) else ty) for n, ty in sig]
        consts = {n: v for n, v in consts.items() if n in own}
        div = set()
    elif drop == "any_len":
        kernel = kernel.removesuffix(ANY_LEN_SUFFIX)
        own = _own_constexprs(ln)
        for n in ("S_q", "S_kv"):
            consts.pop(n, None)
            div.discard(n)
        sig = [(n, "int" if n in ("S_q", "S_kv") else ty) for n, ty in sig]
    return json.dumps([kernel, sig, sorted(consts.items(), key=lambda x: x[0]), sorted(div),
                       ln.num_warps, ln.num_stages], default=str)


APPROXIMATIONS = """## What the enumeration does not reproduce exactly

- Data pointers: every buffer is taken as 512-byte aligned (the CUDA caching allocator), the tensor
  at ``GUARD`` elements plus its offset into it, as ``tensors.materialize`` lays it out; side buffers
  (delta, lse2) aligned. A real allocation is never less aligned than that.
- Autotuning off (``SDPA_BWD_AUTOTUNE`` unset), ``SDPA_BWD_TMA`` = auto, no config override: the
  table configs of ``backward_config``/``forward_config`` for "cuda", as in the measured runs.
- Each case counts its backward (reruns launch the same kernels) and its forward check, whatever its
  verdict on the GPU (a case that ran out of memory or errored still counts).
- Compile time is ``triton.compile`` of the ``ASTSource`` the JIT would build (signature,
  constexprs, divisibility attributes, num_warps/num_stages), cold cache; not counted: the JIT's
  Python binder/cache-key work, loading the cubin on the GPU, and duplicate compiles of one
  specialisation by several runner workers that miss the shared disk cache at the same time.
- Int specialisation follows Triton 3.6's ``native_specialize_impl`` (checked here against 3.6 and
  3.9): ints equal to 1 become constexpr 1 (not for ``S_q``/``S_kv`` of the ``_any_len`` twins),
  ints and pointers divisible by 16 get ``tt.divisibility`` 16, ints outside int32 are i64.
""" + "\n"


def summarize(specs, users, outcome, results, *, command: str, elapsed: float, budget: float, jobs: int,
              level: str) -> str:
    est = estimate(specs, results)
    classes = {k: spec_class(ln) for k, ln in specs.items()}
    measured = {k: r for k, r in results.items() if k in specs and r.get("seconds") is not None}
    errors = {k: r for k, r in results.items() if k in specs and r.get("seconds") is None}
    if not measured:
        raise SystemExit(f"no specialisation compiled within --budget {budget:.0f} s ({len(errors)} failed): nothing to "
                         "estimate from; give a budget of a few minutes at least")
    total = sum(est.values())
    workers = results.get("_workers", {})
    L = []
    w = L.append
    w("# Cold compile time of the Triton engine's specialisations, sm_90a (local estimate)\n")
    w("```")
    w(command)
    w("```\n")
    w("Caveats: compiled here with Triton " + ", ".join(sorted({str(v.get('triton')) for v in workers.values()}))
      + " (the H200 host's version) and the ptxas bundled with it, for `GPUTarget(\"cuda\", 90, 32)` (sm_90a), "
      "without a GPU, on this machine's CPU "
      f"({os.cpu_count()} cores, {jobs} compiles at a time, each in a worker with an empty `TRITON_CACHE_DIR`; "
      "one untimed warm-up compile a worker). Seconds per kernel on the H200 host's CPU (16 cores, the "
      "runner's worker pool) will differ; use the shares and rankings, not the absolute seconds. "
      + ("Every specialisation was compiled. " if len(measured) == len(specs) else
         "Only a sample was compiled: the other specialisations are estimated by the mean of their finest "
         "measured class (kernel, dtype, D pair, TMA, WIDE, band, dK/dV split; falling back to coarser ones). ")
      + 
      "Launches were enumerated by running `sdpa_bwd.engine.launch` on fake CUDA tensors (see the tool's docstring "
      "for what that reproduces and what not).\n")
    w(f"Level `{level}`: cases {dict(outcome)}. Distinct specialisations: **{len(specs)}**. "
      f"Compiled {len(measured)} of them in {elapsed:.0f} s wall (budget {budget:.0f} s)"
      + (f"; {len(errors)} failed to compile" if errors else "") + ". "
      f"Estimated cold compile of all of them: **{total:.0f} CPU-s** (~{total / 16:.0f} s on 16 cores if "
      "perfectly parallel and as fast a core as here).\n")

    w(APPROXIMATIONS)
    w("## Distinct specialisations per kernel\n")
    w("| kernel | specs | compiled | mean s (measured) | est. total s | share |")
    w("|---|---:|---:|---:|---:|---:|")
    by_kernel = defaultdict(list)
    for k, c in classes.items():
        by_kernel[c["kernel"]].append(k)
    for kern, ks in sorted(by_kernel.items(), key=lambda x: -sum(est[k] for k in x[1])):
        ms = [measured[k]["seconds"] for k in ks if k in measured]
        t = sum(est[k] for k in ks)
        w(f"| {kern} | {len(ks)} | {len(ms)} | {statistics.mean(ms) if ms else float('nan'):.1f} | {t:.0f} | "
          f"{100 * t / total:.1f}% |")
    w("")

    w("## Shares of the estimated cold compile\n")
    w("| slice | specs | est. s | share |")
    w("|---|---:|---:|---:|")

    def row(label, pred):
        ks = [k for k, c in classes.items() if pred(c)]
        t = sum(est[k] for k in ks)
        w(f"| {label} | {len(ks)} | {t:.0f} | {100 * t / total:.1f}% |")

    for dt in sorted({c["dtype"] for c in classes.values()}):
        row(f"dtype {dt}", lambda c, dt=dt: c["dtype"] == dt)
    row("`_any_len` twins", lambda c: c["any_len"])
    row("WIDE (int64 offsets)", lambda c: c["wide"])
    row("any i64 int arg", lambda c: "i64:" in c["div"])
    row("TMA=True", lambda c: c["tma"])
    row("TMA=False (fwd/dkdv/dq)", lambda c: not c["tma"] and c["family"] in ("fwd", "dkdv", "dq"))
    for b in ("none", "right", "left", "band"):
        row(f"band kind {b}", lambda c, b=b: c["band"] == b)
    row("dK-only / dV-only DKDV passes (H_k != H_v)", lambda c: c["split"] in ("dk", "dv"))
    row("D_QK_SPLIT (128+64)", lambda c: "+" in c["dpair"])
    w("")
    w("Excess: the specs (and their estimated seconds) beyond one per group of specialisations that differ "
      "only in the named dimension, keeping the dearest of each group - roughly what collapsing that "
      "dimension would save (compile of the kept variant not counted).\n")
    w("| collapse | extra specs | est. s | share |")
    w("|---|---:|---:|---:|")
    for drop, label in (("tma", "TMA / non-TMA duplicates"), ("band", "band kinds (HAS_LEFT, HAS_RIGHT)"),
                        ("wide", "WIDE / int64 vs int32"), ("div", "int/pointer divisibility and ==1 patterns"),
                        ("any_len", "`_any_len` twin vs specialised kernel"),
                        ("split", "COMPUTE_DK / COMPUTE_DV split")):
        s, n = _excess(specs, est, drop)
        w(f"| {label} | {n} | {s:.0f} | {100 * s / total:.1f}% |")
    w("")

    w("## Classes (kernel family x dtype x D_QK_PAD/D_V_PAD[+D_QK_SPLIT]), by estimated total\n")
    w("| family | dtype | D pad | specs | compiled | mean s | min-max s | est. total s | share | cum. |")
    w("|---|---|---|---:|---:|---:|---:|---:|---:|---:|")
    def by_class(key):
        """(class, its spec keys, measured seconds, estimated total, mean), dearest class first."""
        groups = defaultdict(list)
        for k, c in classes.items():
            groups[key(c)].append(k)
        for cl, ks in sorted(groups.items(), key=lambda x: -sum(est[k] for k in x[1])):
            ms = [measured[k]["seconds"] for k in ks if k in measured]
            yield cl, ks, ms, sum(est[k] for k in ks), \
                statistics.mean(ms) if ms else statistics.mean(est[k] for k in ks)

    cum = 0.0
    for cl, ks, ms, t, mean in by_class(coarse):
        cum += t
        rng = f"{min(ms):.1f}-{max(ms):.1f}" if ms else "-"
        w(f"| {cl[0]} | {cl[1]} | {cl[2]} | {len(ks)} | {len(ms)} | {mean:.1f}{'' if ms else '*'} | {rng} | "
          f"{t:.0f} | {100 * t / total:.1f}% | {100 * cum / total:.0f}% |")
    w("\n`*`: no spec of the class compiled; estimated from a coarser class.\n")

    w("## Finer classes (kernel x dtype x D pad x TMA x WIDE x band x dK/dV split), top 25 by estimated total\n")
    w("| kernel | dtype | D pad | TMA | WIDE | band | split | tiles | specs | compiled | mean s | est. total s | share |")
    w("|---|---|---|---|---|---|---|---|---:|---:|---:|---:|---:|")
    for cl, ks, ms, t, mean in itertools.islice(by_class(fine), 25):
        tiles = ", ".join(sorted({classes[k]["tiles"] for k in ks}))
        w(f"| {cl[0]} | {cl[1]} | {cl[2]} | {cl[3]} | {cl[4]} | {cl[5]} | {cl[6]} | {tiles} | {len(ks)} | {len(ms)} | "
          f"{mean:.1f}{'' if ms else '*'} | {t:.0f} | {100 * t / total:.1f}% |")
    w("")

    w("## Divisibility / ==1 patterns (count of specs per pattern, per family)\n")
    w("`ones`: int args equal to 1 (Triton makes them constexpr 1: a head-dim stride 1, a group ratio 1, a "
      "single head...); `plain`: int args not divisible by 16 (no `tt.divisibility`).\n")
    pat = Counter((c["family"], c["div"]) for c in classes.values())
    w("| family | pattern | specs |")
    w("|---|---|---:|")
    shown = Counter()
    for (fam, p), n in sorted(pat.items(), key=lambda x: (x[0][0], -x[1])):
        shown[fam] += 1
        if shown[fam] <= 6:
            w(f"| {fam} | `{p}` | {n} |")
    for fam in sorted(shown):
        w(f"| {fam} | (distinct patterns in all) | {shown[fam]} |")
    w("")

    w("## The 20 slowest compiles measured\n")
    w("| s | kernel | dtype | D | TMA | WIDE | band | split | tiles | shared B | first case |")
    w("|---:|---|---|---|---|---|---|---|---|---:|---|")
    for k, r in sorted(measured.items(), key=lambda x: -x[1]["seconds"])[:20]:
        c = classes[k]
        w(f"| {r['seconds']:.1f} | {c['kernel']} | {c['dtype']} | {c['dims']} ({c['dpair']}) | {c['tma']} | "
          f"{c['wide']} | {c['band']} | {c['split']} | {c['tiles']} | {r.get('shared')} | {users[k][0]} |")
    if errors:
        w("\n## Compile failures\n")
        for k, r in errors.items():
            c = classes[k]
            w(f"- {c['kernel']} {c['dtype']} {c['dpair']} ({users[k][0]}): {r.get('error')}")
    return "\n".join(L) + "\n"


# ----------------------------------------------------------------------------


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--worker", action="store_true", help=argparse.SUPPRESS)
    ap.add_argument("--level", default="full")
    ap.add_argument("--budget", type=float, default=1800.0, help="seconds of compiling (default 1800)")
    ap.add_argument("-j", "--jobs", type=int, default=max(1, os.cpu_count() or 1))
    ap.add_argument("--venv-python", default="/tmp/tr36/venv/bin/python", help="python with Triton 3.6")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--out", default="docs/data/compile-times-sm90.md")
    ap.add_argument("--json", default=None, help="also write specs and results as JSON here")
    ap.add_argument("--enumerate-only", action="store_true")
    ap.add_argument("--api", action="store_true", help="the triton-api door's launches too (the main job runs both)")
    args = ap.parse_args(argv)
    if args.worker:
        return worker_main()

    from sdpa_bwd.conformance.plan import load_level

    cases = load_level(args.level)
    t0 = time.monotonic()
    specs, users, outcome = enumerate_specs(cases, api=args.api)
    print(f"{len(cases)} cases {dict(outcome)} -> {len(specs)} distinct specialisations "
          f"({time.monotonic() - t0:.1f} s)", flush=True)
    for kern, n in sorted(Counter(ln.kernel for ln in specs.values()).items()):
        print(f"  {kern}: {n}")
    if args.enumerate_only:
        return 0
    order = choose_sample(specs, args.seed)
    t1 = time.monotonic()
    results = compile_sample(specs, order, python=args.venv_python, jobs=args.jobs, budget=args.budget,
                             log=lambda s: print(s, flush=True))
    elapsed = time.monotonic() - t1
    command = "python " + " ".join(["tools/compile_times.py"] + (argv if argv is not None else sys.argv[1:]))
    text = summarize(specs, users, outcome, results, command=command, elapsed=elapsed, budget=args.budget,
                     jobs=args.jobs, level=args.level)
    os.makedirs(os.path.dirname(args.out) or ".", exist_ok=True)
    with open(args.out, "w") as f:
        f.write(text)
    if args.json:
        with open(args.json, "w") as f:
            json.dump(dict(specs={k: dict(ln.to_dict(), users=users[k], cls=spec_class(ln))
                                  for k, ln in specs.items()},
                           results=results), f, default=str)
    print(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
