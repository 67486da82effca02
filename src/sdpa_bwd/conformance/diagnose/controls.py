"""Controls: the failing case's values in other storages, one tensor or one storage feature at a time."""

from __future__ import annotations

from dataclasses import replace

from ...problem.cases import Case
from ...problem.layout import Storage
from ...problem import TENSORS


# ----------------------------------------------------------------------------
# Controls: the same values in other storages, one tensor at a time.


def _strides_override(case: Case) -> dict:
    return dict(case.strides)


def is_packed_case(case: Case) -> bool:
    return all(case.storage_of(n) == Storage() for n in TENSORS) and not case.strides


def packed_case(case: Case) -> Case:
    return replace(case, id=case.id + "~packed", storage=(), strides=())


def only_case(case: Case, name: str) -> Case:
    strides = {n: s for n, s in case.strides if n == name}
    return replace(case, id=f"{case.id}~only-{name}", storage=((name, case.storage_of(name)),),
                   strides=tuple(strides.items()))


def without_case(case: Case, name: str) -> Case:
    storage = tuple((n, s) for n, s in case.storage if n != name)
    strides = tuple((n, s) for n, s in case.strides if n != name)
    return replace(case, id=f"{case.id}~no-{name}", storage=storage, strides=strides)


def bshd_alone_case(case: Case, name: str) -> Case:
    """Every tensor packed BHSD but ``name``, stored BSHD: the layout an engine's own forward gives O (and the
    front doors pass dO in) when it reads that tensor as BSHD whatever its strides."""
    return replace(case, id=f"{case.id}~bshd-{name}", storage=((name, Storage(order="bshd")),), strides=())


def like_case(case: Case, name: str, model: str) -> Case:
    storage = dict(case.storage)
    storage[name] = case.storage_of(model)
    strides = {n: s for n, s in case.strides if n != name}
    if model in dict(case.strides):
        strides[name] = dict(case.strides)[model]
    return replace(case, id=f"{case.id}~{name}-like-{model}", storage=tuple(storage.items()),
                   strides=tuple(strides.items()))


def differs(case: Case, name: str) -> bool:
    return case.storage_of(name) != Storage() or name in dict(case.strides)


def feature_variants(case: Case, name: str) -> list[tuple[str, Case]]:
    """``case`` with one storage feature of tensor ``name`` removed (or, for padding, its parity flipped)."""
    s = case.storage_of(name)
    out: list[tuple[str, Storage]] = []
    if s.order != "bhsd":
        out.append((f"order {s.order.upper()} -> BHSD", replace(s, order="bhsd")))
    for axis, n in s.pad:
        rest = tuple((a, k) for a, k in s.pad if a != axis)
        out.append((f"pad {axis}+{n} removed", replace(s, pad=rest)))
        out.append((f"pad {axis}+{n} -> {axis}+{n + 1} (parity flipped)", replace(s, pad=rest + ((axis, n + 1),))))
    if s.inner_stride != 1:
        out.append((f"inner stride {s.inner_stride} -> 1", replace(s, inner_stride=1)))
    if s.zero:
        out.append((f"zero strides on {''.join(s.zero)} removed", replace(s, zero=())))
    if s.junk:
        out.append(("junk size-1 strides removed", replace(s, junk=False)))
    if s.offset:
        out.append((f"offset {s.offset} -> 0", replace(s, offset=0)))
    cases = [(label, replace(case.with_storage(**{name: st}), id=f"{case.id}~{name}:{label}")) for label, st in out]
    if name in dict(case.strides):
        strides = tuple((n, v) for n, v in case.strides if n != name)
        cases.append((f"explicit strides {list(dict(case.strides)[name])} removed",
                      replace(case, id=f"{case.id}~{name}:recipe", strides=strides)))
    return cases
