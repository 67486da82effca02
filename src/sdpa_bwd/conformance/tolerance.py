"""Tolerance classes: how far an output may sit from the float64 oracle.

A class gives ``k`` (multiple of the same-dtype reference's error) and
``floor_ulps`` (rounding floor, in units in the last place of the output's
largest magnitude, scaled by sqrt of the reduction length because the
summation order of a long reduction is free). See ``compare`` for the rule.

The classes live in one human-edited file, ``data/tolerances.toml``: by
dtype, head dim and reduction length, each with the measurement behind it.
This module only loads and matches them; it holds no numbers of its own.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from functools import lru_cache
from importlib import resources
from typing import Optional

from ..problem import DTYPES, OUTPUTS, Problem

try:
    import tomllib  # Python 3.11+
except ModuleNotFoundError:  # Python 3.10 (pyproject allows it): the same parser as a package
    try:
        import tomli as tomllib
    except ModuleNotFoundError:
        tomllib = None

TOLERANCE_FILE = "tolerances.toml"
_KEYS = {"name", "dtypes", "tensors", "head_dim", "reduction", "s_kv_max", "k", "floor_ulps", "why"}
_TENSORS = OUTPUTS + ("o", "stats", "delta")


@dataclass(frozen=True)
class ToleranceClass:
    name: str
    k: float
    floor_ulps: float
    why: str
    dtypes: tuple[str, ...] = DTYPES
    tensors: tuple[str, ...] = _TENSORS
    head_dim: tuple[int, int] = (0, 1 << 30)
    reduction: tuple[int, int] = (0, 1 << 62)
    s_kv_max: Optional[int] = None

    def floor_for(self, reduction: int) -> float:
        return self.floor_ulps * math.sqrt(max(reduction, 1))

    def matches(self, problem: Problem, tensor: str) -> bool:
        n = reduction_length(problem, tensor)
        return (problem.dtype in self.dtypes and tensor in self.tensors
                and self.head_dim[0] <= max(problem.D_qk, problem.D_v) <= self.head_dim[1]
                and self.reduction[0] <= n <= self.reduction[1]
                and (self.s_kv_max is None or problem.S_kv <= self.s_kv_max))


def parse_classes(text: str, source: str = TOLERANCE_FILE) -> tuple[ToleranceClass, ...]:
    """Classes from the TOML text; ``ValueError`` naming the class and key for anything malformed."""
    if tomllib is None:
        raise ValueError(f"{source}: reading TOML needs Python 3.11+ or the 'tomli' package on Python 3.10")
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise ValueError(f"{source}: not TOML: {exc}") from None
    unknown = set(data) - {"class"}
    if unknown:
        raise ValueError(f"{source}: unknown top-level keys {sorted(unknown)}; classes are [[class]] tables")
    out, names = [], set()
    for i, entry in enumerate(data.get("class", [])):
        where = f"{source}: class #{i} ({entry.get('name', '?')})"
        bad = set(entry) - _KEYS
        if bad:
            raise ValueError(f"{where}: unknown keys {sorted(bad)}; known: {sorted(_KEYS)}")
        for key in ("name", "k", "floor_ulps", "why"):
            if key not in entry:
                raise ValueError(f"{where}: missing {key!r} (every class says its k, floor_ulps and why)")
        if entry["name"] in names:
            raise ValueError(f"{where}: the name {entry['name']!r} is used twice")
        names.add(entry["name"])
        if not (entry["k"] >= 0 and entry["floor_ulps"] >= 0):
            raise ValueError(f"{where}: k and floor_ulps must be >= 0")
        dtypes = tuple(entry.get("dtypes", DTYPES))
        tensors = tuple(entry.get("tensors", _TENSORS))
        if set(dtypes) - set(DTYPES) or set(tensors) - set(_TENSORS):
            raise ValueError(f"{where}: dtypes must be among {DTYPES} and tensors among {_TENSORS}")
        ranges = {}
        for key, default in (("head_dim", (0, 1 << 30)), ("reduction", (0, 1 << 62))):
            value = tuple(entry.get(key, default))
            if len(value) != 2 or value[0] > value[1]:
                raise ValueError(f"{where}: {key} must be [min, max], got {entry.get(key)!r}")
            ranges[key] = value
        out.append(ToleranceClass(entry["name"], float(entry["k"]), float(entry["floor_ulps"]),
                                  " ".join(entry["why"].split()), dtypes, tensors, ranges["head_dim"],
                                  ranges["reduction"], entry.get("s_kv_max")))
    return tuple(out)


@lru_cache(maxsize=1)
def classes() -> tuple[ToleranceClass, ...]:
    text = resources.files("sdpa_bwd").joinpath("data", TOLERANCE_FILE).read_text(encoding="utf-8")
    return parse_classes(text)


def tolerance_class(problem: Problem, tensor: str, case_class: Optional[str] = None) -> ToleranceClass:
    """The class for one output: the one a case names, else the first in the file that matches."""
    if case_class is not None:
        by_name = {c.name: c for c in classes()}
        if case_class not in by_name:
            raise ValueError(f"tolerance class {case_class!r} is not in {TOLERANCE_FILE}; "
                             f"it has {', '.join(by_name)}")
        return by_name[case_class]
    for cls in classes():
        if cls.matches(problem, tensor):
            return cls
    raise ValueError(f"no tolerance class in {TOLERANCE_FILE} matches {tensor} of a {problem.dtype} problem "
                     f"(D {problem.D_qk}/{problem.D_v}, reduction {reduction_length(problem, tensor)}): "
                     "add one, with the measurement behind it")


def reduction_length(problem: Problem, tensor: str) -> int:
    """Terms summed into one element: keys for dQ/O, query rows x shared heads for dK/dV."""
    if tensor in ("dq", "o", "stats", "delta"):
        return problem.S_kv
    group = problem.H_q // (problem.H_k if tensor == "dk" else problem.H_v)
    return problem.S_q * group
