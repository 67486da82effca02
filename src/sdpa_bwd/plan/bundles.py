"""Loading the plan's bundles: all or nothing.

A bundle is refused, with an error that names the file, the place in it and
the rule, when:

* it is not JSON, or does not match ``bundle.schema.json`` (every case is
  checked before any is built);
* a case does not build (``Case.from_dict`` refuses unknown fields, bad
  tensor names, a probe without ``expected_rejection``) or sits in the wrong
  level's file, or an id repeats;
* a case would need more memory than the stated budget: the caller's
  ``memory_budget`` (bytes), else the level's per-case limit from
  ``cost.LIMITS``. The cost model computes each case's bytes from its fields,
  so nothing is allocated to find out.

Only JSON is read (no pickle, nothing executed).
"""

from __future__ import annotations

import json
from functools import lru_cache
from pathlib import Path
from typing import Optional

from ..cases import Case
from .cost import LEVELS, LIMITS, case_cost, human_bytes

BUNDLE_DIR = Path(__file__).resolve().parent.parent / "data" / "plan" / "v1"
SCHEMA_PATH = BUNDLE_DIR / "bundle.schema.json"


class BundleError(ValueError):
    """A bundle that is malformed or over its memory budget; nothing of it was loaded."""


@lru_cache(maxsize=1)
def _validator():
    import jsonschema

    schema = json.loads(SCHEMA_PATH.read_text(encoding="utf-8"))
    return jsonschema.Draft202012Validator(schema)


def _where(error) -> str:
    path = list(error.absolute_path)
    if len(path) >= 2 and path[0] == "cases":
        return f"case #{path[1]}" + ("" if len(path) == 2 else " field " + "/".join(str(p) for p in path[2:]))
    return "/".join(str(p) for p in path) or "top level"


def parse_bundle(text: str, *, source: str = "<bundle>", memory_budget: Optional[int] = None) -> tuple[str, list[Case]]:
    """(level, cases) from a bundle's text, or ``BundleError``; never a partial list."""
    try:
        data = json.loads(text)
    except json.JSONDecodeError as exc:
        raise BundleError(f"{source}: not JSON: {exc}") from None
    errors = sorted(_validator().iter_errors(data), key=lambda e: list(e.absolute_path))
    if errors:
        shown = "; ".join(f"{_where(e)}: {e.message}" for e in errors[:5])
        more = f" (and {len(errors) - 5} more)" if len(errors) > 5 else ""
        raise BundleError(f"{source}: does not match the bundle schema {SCHEMA_PATH.name}: {shown}{more}")
    level = data["level"]
    if data["count"] != len(data["cases"]):
        raise BundleError(f"{source}: header says {data['count']} cases but the file holds {len(data['cases'])}")
    budget = memory_budget if memory_budget is not None else LIMITS[level].case_bytes
    cases: list[Case] = []
    seen: set[str] = set()
    for i, item in enumerate(data["cases"]):
        try:
            case = Case.from_dict(item)
        except (TypeError, ValueError) as exc:
            raise BundleError(f"{source}: case #{i} ({item.get('id', '?')}) does not build: {exc}") from None
        if case.level != level:
            raise BundleError(f"{source}: case {case.id} says level {case.level!r} in the {level!r} bundle")
        if case.id in seen:
            raise BundleError(f"{source}: case id {case.id!r} appears twice")
        seen.add(case.id)
        if budget is not None:
            need = case_cost(case).bytes
            if need > budget:
                raise BundleError(
                    f"{source}: case {case.id} would allocate {human_bytes(need)} ({need} bytes), over the "
                    f"memory budget of {human_bytes(budget)}; refusing the whole bundle - pass a larger "
                    "memory_budget, or run a lower level")
        cases.append(case)
    return level, cases


def load_bundle(path, *, memory_budget: Optional[int] = None) -> list[Case]:
    path = Path(path)
    try:
        text = path.read_text(encoding="utf-8")
    except OSError as exc:
        raise BundleError(f"{path}: cannot read: {exc}") from None
    return parse_bundle(text, source=str(path), memory_budget=memory_budget)[1]


def load_level(level: str, *, memory_budget: Optional[int] = None, directory=None) -> list[Case]:
    """The cases of ``level`` and of every level below it, lowest level first."""
    if level not in LEVELS:
        raise ValueError(f"no level {level!r}; the levels are {', '.join(LEVELS)} (each includes those before it)")
    directory = Path(directory) if directory is not None else BUNDLE_DIR
    cases: list[Case] = []
    for name in LEVELS[: LEVELS.index(level) + 1]:
        cases += load_bundle(directory / f"{name}.json", memory_budget=memory_budget)
    return cases
