"""The package's import graph (docs/architecture.md): no cycles, one-way layers, no oversized modules.

Every module under ``src/sdpa_bwd`` is parsed with ``ast`` (nothing is imported) and every
``import`` / ``from ... import`` of an ``sdpa_bwd`` module is collected, at module level and inside
functions alike, relative imports resolved. ``from pkg import name`` counts as an import of
``pkg.name`` where that is a module, else of ``pkg``; the implicit import of a package's
``__init__`` on the way to a submodule is not an edge. Imports by name at run time (the backend
registry's ``"module:Class"`` strings, the CLI's list of subcommand modules) are not seen.

The layers, as data flows (problem -> plan -> case -> tensors -> engine/backends -> judge ->
report -> diagnose):

* ``problem`` imports only itself;
* ``engine`` imports ``problem``;
* ``backends`` imports ``problem`` and ``engine``;
* ``conformance`` imports ``problem`` and ``backends``, and ``engine`` only at the places listed in
  ``CONFORMANCE_USES_ENGINE``, each with its reason;
* ``cli`` imports anything; the root ``sdpa_bwd/__init__`` re-exports ``problem`` and ``engine``.
"""

from __future__ import annotations

import ast
from pathlib import Path

PACKAGE = "sdpa_bwd"
SRC = Path(__file__).resolve().parents[1] / "src"
MAX_LINES = 800
# Exempt from MAX_LINES: the kernels (one jitted kernel family per module) and these modules.
LINE_LIMIT_EXEMPT_PACKAGES = ("sdpa_bwd.engine.kernels",)
LONG_MODULES: dict = {}

# Layer -> the layers its modules may import. "" is the root package's __init__.
ALLOWED = {
    "": {"", "problem", "engine"},
    "problem": {"problem"},
    "engine": {"problem", "engine"},
    "backends": {"problem", "engine", "backends"},
    "conformance": {"problem", "backends", "conformance"},
    "cli": {"", "problem", "engine", "backends", "conformance", "cli"},
}
# Where the conformance harness must reach into our engine, and why.
CONFORMANCE_USES_ENGINE = {
    ("sdpa_bwd.conformance.judge", "sdpa_bwd.engine.compiles"):
        "each case records which Triton kernels it compiled (CompileWatch); the watch hooks Triton, "
        "whichever backend runs",
    ("sdpa_bwd.conformance.defects", "sdpa_bwd.engine.launch"):
        "the seeded defects are our engine with one addressing rule broken: they call its launcher",
}


def module_files(src: Path = SRC) -> dict[str, Path]:
    """Module name -> file, for every ``.py`` under ``src/sdpa_bwd``."""
    out = {}
    for path in sorted((src / PACKAGE).rglob("*.py")):
        parts = list(path.relative_to(src).with_suffix("").parts)
        if parts[-1] == "__init__":
            parts.pop()
        out[".".join(parts)] = path
    return out


def imports_of(name: str, path: Path, known) -> list[tuple[str, int]]:
    """(imported sdpa_bwd module, line) for every import statement in the module ``name``."""
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    found = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"), str(path))):
        if isinstance(node, ast.Import):
            found += [(a.name, node.lineno) for a in node.names
                      if a.name == PACKAGE or a.name.startswith(PACKAGE + ".")]
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                parts = package.split(".")
                if node.level - 1 >= len(parts):
                    raise AssertionError(f"{path}:{node.lineno}: relative import beyond the top package")
                base = ".".join(parts[:len(parts) - (node.level - 1)] + ([node.module] if node.module else []))
            else:
                base = node.module or ""
            if base != PACKAGE and not base.startswith(PACKAGE + "."):
                continue
            for alias in node.names:
                sub = f"{base}.{alias.name}"
                found.append((sub if sub in known else base, node.lineno))
    return found


def import_graph(src: Path = SRC) -> tuple[dict[str, Path], dict[str, list[tuple[str, int]]]]:
    files = module_files(src)
    return files, {name: imports_of(name, path, files) for name, path in files.items()}


def layer(module: str) -> str:
    parts = module.split(".")
    return parts[1] if len(parts) > 1 else ""


def find_cycle(graph: dict[str, list[tuple[str, int]]]) -> list[str] | None:
    """One cycle of the graph as [a, b, ..., a], or None (iterative depth-first search). A module
    importing itself is none: the worker's ``__main__`` block imports its own module, so that the
    process holds one copy of it."""
    state: dict[str, int] = {}  # 1: on the current path, 2: done
    for root in sorted(graph):
        if state.get(root):
            continue
        path, stack = [root], [iter(sorted({t for t, _ in graph.get(root, ()) if t != root}))]
        state[root] = 1
        while stack:
            nxt = next(stack[-1], None)
            if nxt is None:
                state[path.pop()] = 2
                stack.pop()
            elif state.get(nxt) == 1:
                return path[path.index(nxt):] + [nxt]
            elif not state.get(nxt):
                state[nxt] = 1
                path.append(nxt)
                stack.append(iter(sorted({t for t, _ in graph.get(nxt, ()) if t != nxt})))
    return None


def shown(path: Path) -> str:
    """``path`` from the package's directory on: sdpa_bwd/conformance/worker.py."""
    parts = path.parts
    return "/".join(parts[len(parts) - 1 - parts[::-1].index(PACKAGE):])


def describe_cycle(cycle: list[str], files: dict[str, Path], graph) -> str:
    steps = []
    for a, b in zip(cycle, cycle[1:]):
        line = min(n for t, n in graph[a] if t == b)
        steps.append(f"  {a} imports {b} ({shown(files[a])}:{line})")
    return " -> ".join(cycle) + "\n" + "\n".join(steps)


def layer_violations(files: dict[str, Path], graph, allowed=ALLOWED, exceptions=CONFORMANCE_USES_ENGINE) -> list[str]:
    bad = []
    for module, edges in sorted(graph.items()):
        mine = layer(module)
        if mine not in allowed:
            layers = ", ".join(sorted(set(allowed) - {""}))
            bad.append(f"{shown(files[module])}: module {module} is in no layer ({layers} or the root __init__)")
            continue
        for target, line in edges:
            theirs = layer(target)
            if theirs in allowed[mine] or (module, target) in exceptions:
                continue
            bad.append(f"{shown(files[module])}:{line}: {module} ({mine or 'root'}) imports {target} "
                       f"({theirs or 'root'})")
    return bad


def long_modules(files: dict[str, Path], limit=MAX_LINES, exempt=LONG_MODULES) -> list[str]:
    bad = []
    for module, path in sorted(files.items()):
        if module.startswith(LINE_LIMIT_EXEMPT_PACKAGES) or module in exempt:
            continue
        n = len(path.read_text(encoding="utf-8").splitlines())
        if n > limit:
            bad.append(f"{shown(path)}: {n} lines (the limit is {limit}): split it into cohesive modules")
    return bad


# -- the package ----------------------------------------------------------------------


def test_every_module_parses_and_the_layers_are_known():
    files, graph = import_graph()
    assert {layer(m) for m in files} <= set(ALLOWED), sorted({layer(m) for m in files} - set(ALLOWED))
    assert sum(len(e) for e in graph.values()) > 100  # the walk sees function-level imports too


def test_no_import_cycle():
    files, graph = import_graph()
    cycle = find_cycle(graph)
    assert cycle is None, "import cycle: " + describe_cycle(cycle, files, graph)


def test_imports_follow_the_layers():
    files, graph = import_graph()
    bad = layer_violations(files, graph)
    assert not bad, "imports against the layering:\n" + "\n".join(bad)


def test_each_conformance_use_of_the_engine_is_still_there():
    """An entry of CONFORMANCE_USES_ENGINE whose import went away goes too."""
    files, graph = import_graph()
    stale = [pair for pair in CONFORMANCE_USES_ENGINE if pair[1] not in {t for t, _ in graph.get(pair[0], ())}]
    assert not stale, f"CONFORMANCE_USES_ENGINE lists imports that no longer exist: {stale}"


def test_no_module_over_the_line_limit():
    files, _ = import_graph()
    bad = long_modules(files)
    assert not bad, "\n".join(bad)


def test_the_long_module_list_is_current():
    """A listed module that was split, or shrank under the limit, leaves the list."""
    files, _ = import_graph()
    stale = [m for m in LONG_MODULES
             if m not in files or len(files[m].read_text(encoding="utf-8").splitlines()) <= MAX_LINES]
    assert not stale, f"LONG_MODULES lists modules that are gone or within {MAX_LINES} lines: {stale}"


# -- the checks themselves, on a made-up package ---------------------------------------


def _package(tmp_path: Path, modules: dict[str, str]) -> Path:
    for name, text in {"__init__": "", **modules}.items():
        path = tmp_path / PACKAGE / (name.replace(".", "/") + ".py")
        path.parent.mkdir(parents=True, exist_ok=True)
        for parent in path.relative_to(tmp_path / PACKAGE).parents:
            (tmp_path / PACKAGE / parent / "__init__.py").touch()
        path.write_text(text)
    return tmp_path


def test_a_cycle_through_a_function_level_relative_import_is_found(tmp_path):
    src = _package(tmp_path, {
        "conformance/runner": "from .worker import Worker\n",
        "conformance/worker": "def serve():\n    from . import runner\n",
    })
    files, graph = import_graph(src)
    cycle = find_cycle(graph)
    assert cycle in (["sdpa_bwd.conformance.runner", "sdpa_bwd.conformance.worker", "sdpa_bwd.conformance.runner"],
                     ["sdpa_bwd.conformance.worker", "sdpa_bwd.conformance.runner", "sdpa_bwd.conformance.worker"])
    assert "conformance/worker.py:2" in describe_cycle(cycle, files, graph)


def test_an_import_against_the_layers_is_named_with_file_and_line(tmp_path):
    src = _package(tmp_path, {
        "problem/model": "import math\n\n\ndef f():\n    from ..conformance.report import x\n",
        "engine/launch": "from sdpa_bwd.backends import get_engine\n",
        "conformance/runner": "from ..engine import launch\n",
        "conformance/defects": "from ..engine.launch import attention_backward\n",
        "extra": "",
    })
    files, graph = import_graph(src)
    bad = layer_violations(files, graph, exceptions={("sdpa_bwd.conformance.defects", "sdpa_bwd.engine.launch"): ""})
    assert any("problem/model.py:5: sdpa_bwd.problem.model (problem) imports sdpa_bwd.conformance.report" in b
               for b in bad), bad
    assert any("engine/launch.py:1:" in b and "sdpa_bwd.backends (backends)" in b for b in bad), bad
    assert any("conformance/runner.py:1:" in b and "sdpa_bwd.engine.launch (engine)" in b for b in bad), bad
    assert any("module sdpa_bwd.extra is in no layer" in b for b in bad), bad
    assert not any("defects" in b for b in bad), bad
    assert find_cycle(graph) is None


def test_a_long_module_is_found_unless_listed(tmp_path):
    src = _package(tmp_path, {"conformance/big": "x = 1\n" * (MAX_LINES + 1),
                              "engine/kernels/attention": "x = 1\n" * (MAX_LINES + 1),
                              "conformance/small": "x = 1\n" * MAX_LINES})
    files, _ = import_graph(src)
    assert [b.split(": ", 1)[1] for b in long_modules(files, exempt={})] == \
        [f"{MAX_LINES + 1} lines (the limit is {MAX_LINES}): split it into cohesive modules"]
    assert "conformance/big.py" in long_modules(files, exempt={})[0]
    assert long_modules(files, exempt={"sdpa_bwd.conformance.big": "reason"}) == []
