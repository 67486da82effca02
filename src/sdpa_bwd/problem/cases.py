"""A test case is data: the values of one SDPA backward problem, its storage
per tensor, a seed, and why it exists. It serialises to JSON and prints the
command that reruns exactly it.

The generated test plan (``sdpa_bwd.conformance.plan``) writes cases of this type; the
hand-written list in ``BUILTIN_CASES`` is what the runner uses when no plan or
case file is given.
"""

from __future__ import annotations

import json
import shlex
from dataclasses import dataclass, fields, replace
from pathlib import Path
from typing import Iterable, Mapping, Optional

from .layout import Storage
from .model import TENSORS, Problem, TensorSpec

PURPOSES = ("claim", "probe", "regression")


def _freeze(mapping: Optional[Mapping]) -> tuple:
    if not mapping:
        return ()
    return tuple(sorted((k, tuple(v) if isinstance(v, list) else v) for k, v in dict(mapping).items()))


@dataclass(frozen=True)
class Case:
    id: str
    B: int = 1
    H_q: int = 2
    S_q: int = 32
    D_qk: int = 32
    H_k: Optional[int] = None
    H_v: Optional[int] = None
    S_kv: Optional[int] = None
    D_v: Optional[int] = None
    dtype: str = "bfloat16"
    storage: tuple = ()             # ((tensor name, Storage), ...); missing tensors are packed BHSD
    stats_rank: int = 3
    scale: Optional[float] = None
    left_bound: Optional[int] = None
    right_bound: Optional[int] = None
    alignment: str = "top_left"
    deterministic: bool = False
    seed: int = 0
    purpose: str = "claim"
    covers: tuple[str, ...] = ()
    expected_rejection: Optional[str] = None
    # Escape hatches for probes and aliasing cases: per-tensor overrides of the
    # dims, strides or dtype the recipe gives, and buffer names shared by
    # tensors that live in one allocation.
    dims: tuple = ()
    strides: tuple = ()
    dtypes: tuple = ()
    buffers: tuple = ()
    level: Optional[str] = None
    tolerance_class: Optional[str] = None

    def __post_init__(self) -> None:
        storage = self.storage.items() if isinstance(self.storage, Mapping) else self.storage
        object.__setattr__(self, "storage", tuple(sorted(
            (n, s if isinstance(s, Storage) else Storage.from_dict(s)) for n, s in storage)))
        for name in ("dims", "strides", "dtypes", "buffers"):
            value = getattr(self, name)
            object.__setattr__(self, name, _freeze(value) if isinstance(value, Mapping) else
                               tuple((k, tuple(v) if isinstance(v, list) else v) for k, v in value))
        object.__setattr__(self, "covers", tuple(self.covers))
        if self.purpose not in PURPOSES:
            raise ValueError(f"case {self.id}: purpose {self.purpose!r} is not one of {PURPOSES}")
        if (self.purpose == "probe") != (self.expected_rejection is not None):
            raise ValueError(f"case {self.id}: a probe, and only a probe, carries expected_rejection")
        for name, _ in self.storage + self.dims + self.strides + self.dtypes + self.buffers:
            if name not in TENSORS:
                raise ValueError(f"case {self.id}: {name!r} is not one of the tensors {TENSORS}")

    # -- the problem ----------------------------------------------------------
    @property
    def sizes(self) -> dict:
        H_k = self.H_q if self.H_k is None else self.H_k
        return dict(B=self.B, H_q=self.H_q, H_k=H_k, H_v=H_k if self.H_v is None else self.H_v,
                    S_q=self.S_q, S_kv=self.S_q if self.S_kv is None else self.S_kv,
                    D_qk=self.D_qk, D_v=self.D_qk if self.D_v is None else self.D_v)

    def storage_of(self, name: str) -> Storage:
        return dict(self.storage).get(name, Storage())

    def logical_dims(self) -> dict[str, tuple[int, ...]]:
        z = self.sizes
        B, H_q, H_k, H_v, S_q, S_kv, D_qk, D_v = (z[k] for k in ("B", "H_q", "H_k", "H_v", "S_q", "S_kv", "D_qk", "D_v"))
        dims = {"q": (B, H_q, S_q, D_qk), "k": (B, H_k, S_kv, D_qk), "v": (B, H_v, S_kv, D_v),
                "o": (B, H_q, S_q, D_v), "do": (B, H_q, S_q, D_v),
                "stats": (B, H_q, S_q) if self.stats_rank == 3 else (B, H_q, S_q, 1),
                "dq": (B, H_q, S_q, D_qk), "dk": (B, H_k, S_kv, D_qk), "dv": (B, H_v, S_kv, D_v)}
        dims.update({n: tuple(d) for n, d in self.dims})
        return dims

    def to_problem(self) -> Problem:
        """The problem this case describes (not validated: probes are ill-formed on purpose)."""
        dims = self.logical_dims()
        strides, dtypes, buffers = dict(self.strides), dict(self.dtypes), dict(self.buffers)
        specs = {}
        for name in TENSORS:
            dtype = dtypes.get(name, "float32" if name == "stats" else self.dtype)
            spec = self.storage_of(name).spec(dims[name], dtype, buffers.get(name, name))
            if name in strides:
                spec = TensorSpec(spec.dims, tuple(strides[name]), spec.dtype, spec.offset, spec.buffer)
            specs[name] = spec
        return Problem(**specs, scale=self.scale, left_bound=self.left_bound, right_bound=self.right_bound,
                       alignment=self.alignment, deterministic=self.deterministic)

    def with_storage(self, **storages: Storage) -> "Case":
        merged = dict(self.storage)
        merged.update(storages)
        return replace(self, storage=tuple(merged.items()))

    def describe(self) -> str:
        z = self.sizes
        heads = f"H{z['H_q']}" + (f"/{z['H_k']}/{z['H_v']}" if (z["H_k"], z["H_v"]) != (z["H_q"], z["H_q"]) else "")
        seq = f"S{z['S_q']}" + (f"/{z['S_kv']}" if z["S_kv"] != z["S_q"] else "")
        dim = f"D{z['D_qk']}" + (f"/{z['D_v']}" if z["D_v"] != z["D_qk"] else "")
        parts = [self.dtype, f"B{z['B']}", heads, seq, dim]
        if self.left_bound is not None or self.right_bound is not None:
            parts.append(f"band[{self.left_bound},{self.right_bound}]{'BR' if self.alignment == 'bottom_right' else 'TL'}")
        if self.scale is not None:
            parts.append(f"scale={self.scale:g}")
        if self.deterministic:
            parts.append("det")
        by_layout: dict[str, list[str]] = {}
        for name in TENSORS:
            if name != "stats" or self.storage_of(name) != Storage():
                by_layout.setdefault(self.storage_of(name).describe(), []).append(name)
        if list(by_layout) != ["BHSD"]:
            parts += ["all " + d if len(by_layout) == 1 else f"{'/'.join(names)} {d}"
                      for d, names in by_layout.items() if len(by_layout) == 1 or d != "BHSD"]
        if self.stats_rank == 4:
            parts.append("stats rank 4")
        return " ".join(parts)

    # -- serialisation ----------------------------------------------------------
    def to_dict(self) -> dict:
        out: dict = {}
        defaults = Case(id="_")
        for f in fields(self):
            value = getattr(self, f.name)
            if f.name != "id" and value == getattr(defaults, f.name):
                continue
            if f.name == "storage":
                value = {n: s.to_dict() for n, s in value}
            elif f.name in ("dims", "strides", "dtypes", "buffers"):
                value = {n: list(v) if isinstance(v, tuple) else v for n, v in value}
            elif f.name == "covers":
                value = list(value)
            out[f.name] = value
        return out

    @classmethod
    def from_dict(cls, data: Mapping) -> "Case":
        known = {f.name for f in fields(cls)}
        unknown = set(data) - known
        if unknown:
            raise ValueError(f"case {data.get('id', '?')}: unknown fields {sorted(unknown)}; known: {sorted(known)}")
        if "id" not in data:
            raise ValueError(f"case without an id: {dict(data)}")
        return cls(**dict(data))

    def repro(self, engine: str = "ENGINE", source: Optional[str] = None) -> str:
        """The command that reruns exactly this case."""
        src = source or ("--level " + self.level if self.level else "")
        return " ".join(x for x in ("sdpa-bwd run", f"--engine {shlex.quote(engine)}", src,
                                     f"--case {shlex.quote(self.id)}") if x)


def load_cases(path: str | Path) -> list[Case]:
    """Cases from a JSON file: a list of case objects, or {"cases": [...]}."""
    data = json.loads(Path(path).read_text(encoding="utf-8"))
    items = data["cases"] if isinstance(data, dict) else data
    if not isinstance(items, list):
        raise ValueError(f"{path}: expected a list of cases or an object with 'cases', got {type(items).__name__}")
    return [Case.from_dict(item) for item in items]


def dump_cases(cases: Iterable[Case], path: str | Path) -> None:
    Path(path).write_text(json.dumps({"cases": [c.to_dict() for c in cases]}, indent=1) + "\n", encoding="utf-8")


def _all(order: str, **extra) -> dict:
    return {n: Storage(order=order, **extra) for n in TENSORS if n != "stats"}


# The hand-written starter list (the foundation issue's): every storage order,
# padded rows, dO unlike O, GQA, causal both alignments, a window, S_q != S_kv.
BUILTIN_CASES: tuple[Case, ...] = (
    Case("bhsd", B=2, H_q=3, S_q=33, D_qk=32, seed=1, covers=("layout:bhsd",)),
    Case("bshd", B=2, H_q=3, S_q=33, D_qk=32, storage=_all("bshd"), seed=2, covers=("layout:bshd",)),
    Case("sbhd", B=2, H_q=3, S_q=33, D_qk=32, storage=_all("sbhd"), seed=3, covers=("layout:sbhd",)),
    Case("padded-rows", B=2, H_q=2, S_q=31, D_qk=32, storage=_all("bhsd", pad={"s": 3}), seed=4,
         covers=("layout:row-pad-odd",)),
    Case("do-unlike-o", B=2, H_q=2, S_q=24, D_qk=32,
         storage={"do": Storage("sbhd", pad={"s": 8}), "o": Storage("bshd")}, seed=5,
         covers=("layout:do-unlike-o",)),
    Case("grads-unlike-inputs", B=2, H_q=2, S_q=24, D_qk=32,
         storage={"dq": Storage("sbhd"), "dk": Storage("bshd", pad={"s": 5}), "dv": Storage("hbsd")}, seed=6,
         covers=("layout:grads-unlike-inputs",)),
    Case("gqa", B=2, H_q=4, H_k=2, S_q=32, D_qk=32, storage=_all("bshd"), seed=7, covers=("heads:gqa",)),
    Case("mqa-hk-ne-hv", B=1, H_q=4, H_k=2, H_v=1, S_q=20, D_qk=32, seed=8, covers=("heads:hk!=hv",)),
    Case("causal-top-left", B=2, H_q=2, S_q=24, S_kv=40, D_qk=32, right_bound=0, seed=9,
         covers=("mask:causal-tl", "seq:sq<skv")),
    Case("causal-bottom-right", B=2, H_q=2, S_q=40, S_kv=24, D_qk=32, right_bound=0, alignment="bottom_right",
         seed=10, covers=("mask:causal-br", "seq:sq>skv", "mask:rows-without-keys")),
    Case("window", B=1, H_q=2, S_q=48, D_qk=32, left_bound=8, right_bound=2, storage=_all("sbhd"), seed=11,
         covers=("mask:window",)),
    Case("sq-ne-skv-dv-ne-dqk", B=2, H_q=2, S_q=17, S_kv=29, D_qk=32, D_v=16, seed=12,
         covers=("seq:sq<skv", "dim:dqk!=dv")),
    Case("stats-padded-rank4", B=2, H_q=2, S_q=24, D_qk=32, stats_rank=4,
         storage={"stats": Storage("bhsd", pad={"h": 8})}, seed=13, covers=("stats:padded-rank4",)),
    Case("fp16-negative-scale", B=1, H_q=2, S_q=24, D_qk=32, dtype="float16", scale=-0.3, seed=14,
         covers=("dtype:float16", "scale:negative")),
)
