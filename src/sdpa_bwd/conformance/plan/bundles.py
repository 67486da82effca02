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

from ...problem.cases import Case
from .cost import LEVELS, LIMITS, case_cost, human_bytes

BUNDLE_DIR = Path(__file__).resolve().parents[2] / "data" / "plan" / "v1"
SCHEMA_PATH = BUNDLE_DIR / "bundle.schema.json"


class BundleError(ValueError):
    """A bundle that is malformed or over its memory budget; nothing of it was loaded."""


@lru_cache(maxsize=1)
def _schema() -> dict:
    return json.loads(SCHEMA_PATH.read_text(encoding="utf-8"))


def schema_errors(data) -> list[tuple[list, str]]:
    """(path, message) for every way ``data`` breaks the bundle schema.

    jsonschema (a declared dependency) does it when installed; on a machine
    that runs from a source tree without it (the GPU box: torch and Triton
    only) the same schema file is checked by :func:`_mini_errors`, which knows
    exactly the keywords the schema uses - so a bundle is never loaded
    unchecked.
    """
    try:
        import jsonschema
    except ImportError:
        return _mini_errors(_schema(), data, _schema(), [])
    validator = jsonschema.Draft202012Validator(_schema())
    return [(list(e.absolute_path), e.message)
            for e in sorted(validator.iter_errors(data), key=lambda e: list(e.absolute_path))]


_TYPES = {"object": dict, "array": list, "string": str, "boolean": bool, "null": type(None)}


def _is_type(value, name: str) -> bool:
    if name == "integer":
        return isinstance(value, int) and not isinstance(value, bool)
    if name == "number":
        return isinstance(value, (int, float)) and not isinstance(value, bool)
    return isinstance(value, _TYPES[name])


def _mini_errors(schema: dict, value, root: dict, path: list) -> list[tuple[list, str]]:
    """The subset of JSON Schema 2020-12 that bundle.schema.json uses."""
    import re

    if "$ref" in schema:
        target = root
        for part in schema["$ref"].lstrip("#/").split("/"):
            target = target[part]
        return _mini_errors(target, value, root, path)
    errors: list[tuple[list, str]] = []
    if "type" in schema:
        names = schema["type"] if isinstance(schema["type"], list) else [schema["type"]]
        if not any(_is_type(value, n) for n in names):
            return [(path, f"{value!r} is not of type {', '.join(repr(n) for n in names)}")]
    if "const" in schema and value != schema["const"]:
        errors.append((path, f"{schema['const']!r} was expected"))
    if "enum" in schema and value not in schema["enum"]:
        errors.append((path, f"{value!r} is not one of {schema['enum']!r}"))
    if isinstance(value, str):
        if "pattern" in schema and not re.search(schema["pattern"], value):
            errors.append((path, f"{value!r} does not match {schema['pattern']!r}"))
        if len(value) < schema.get("minLength", 0):
            errors.append((path, f"{value!r} is too short"))
    if _is_type(value, "number") and "minimum" in schema and value < schema["minimum"]:
        errors.append((path, f"{value!r} is less than the minimum of {schema['minimum']!r}"))
    if isinstance(value, list):
        if len(value) < schema.get("minItems", 0):
            errors.append((path, f"{value!r} should be non-empty"))
        if schema.get("uniqueItems") and len({json.dumps(v) for v in value}) != len(value):
            errors.append((path, f"{value!r} has non-unique elements"))
        if "items" in schema:
            for i, item in enumerate(value):
                errors += _mini_errors(schema["items"], item, root, path + [i])
    if isinstance(value, dict):
        errors += [(path, f"{k!r} is a required property") for k in schema.get("required", ()) if k not in value]
        props = schema.get("properties", {})
        for k, v in value.items():
            if "propertyNames" in schema:
                errors += [(path, m) for _, m in _mini_errors(schema["propertyNames"], k, root, path)]
            if k in props:
                errors += _mini_errors(props[k], v, root, path + [k])
            elif schema.get("additionalProperties") is False:
                errors.append((path, f"Additional properties are not allowed ({k!r} was unexpected)"))
            elif isinstance(schema.get("additionalProperties"), dict):
                errors += _mini_errors(schema["additionalProperties"], v, root, path + [k])
    if "if" in schema:
        branch = "then" if not _mini_errors(schema["if"], value, root, path) else "else"
        if branch in schema:
            errors += _mini_errors(schema[branch], value, root, path)
    if "not" in schema and not _mini_errors(schema["not"], value, root, path):
        errors.append((path, f"{value!r} should not be valid under {schema['not']!r}"))
    return errors


def _where(path: list) -> str:
    if len(path) >= 2 and path[0] == "cases":
        return f"case #{path[1]}" + ("" if len(path) == 2 else " field " + "/".join(str(p) for p in path[2:]))
    return "/".join(str(p) for p in path) or "top level"


def parse_bundle(text: str, *, source: str = "<bundle>", memory_budget: Optional[int] = None) -> tuple[str, list[Case]]:
    """(level, cases) from a bundle's text, or ``BundleError``; never a partial list."""
    try:
        data = json.loads(text)
    except json.JSONDecodeError as exc:
        raise BundleError(f"{source}: not JSON: {exc}") from None
    errors = schema_errors(data)
    if errors:
        shown = "; ".join(f"{_where(p)}: {m}" for p, m in errors[:5])
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
    except UnicodeDecodeError as exc:
        raise BundleError(f"{path}: not JSON (not even UTF-8 text: {exc.reason} at byte {exc.start})") from None
    return parse_bundle(text, source=str(path), memory_budget=memory_budget)[1]


def load_level(level: str, *, memory_budget: Optional[int] = None, directory=None) -> list[Case]:
    """The cases of ``level`` and of every level below it, lowest level first."""
    if level not in LEVELS:
        raise ValueError(f"no level {level!r}; the levels are {', '.join(LEVELS)} (each includes those before it) - "
                         "pass one of those")
    directory = Path(directory) if directory is not None else BUNDLE_DIR
    cases: list[Case] = []
    for name in LEVELS[: LEVELS.index(level) + 1]:
        cases += load_bundle(directory / f"{name}.json", memory_budget=memory_budget)
    return cases
