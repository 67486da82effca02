"""The benchmarks and tools import from the package by names that exist: they run on the GPU machine only, so a
rename in the package would otherwise show only there (``benchmarks/bench_host.py`` imported ``sdpa_bwd.launch``
after the package layout moved it to ``sdpa_bwd.engine.launch``, 2026-12-06)."""

import ast
import importlib
import pathlib

import pytest

ROOT = pathlib.Path(__file__).resolve().parent.parent
SCRIPTS = sorted(p for folder in ("benchmarks", "tools") for p in (ROOT / folder).glob("*.py"))


def _imports(path: pathlib.Path):
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        if isinstance(node, ast.ImportFrom) and node.module and node.module.split(".")[0] == "sdpa_bwd":
            yield node.lineno, node.module, [a.name for a in node.names]
        elif isinstance(node, ast.Import):
            for a in node.names:
                if a.name.split(".")[0] == "sdpa_bwd":
                    yield node.lineno, a.name, []


@pytest.mark.parametrize("path", SCRIPTS, ids=[str(p.relative_to(ROOT)) for p in SCRIPTS])
def test_every_name_a_script_imports_from_the_package_exists(path):
    missing = []
    for line, module, names in _imports(path):
        try:
            mod = importlib.import_module(module)
        except ImportError as exc:
            missing.append(f"line {line}: module {module} ({exc})")
            continue
        for name in names:
            if not hasattr(mod, name):
                try:
                    importlib.import_module(f"{module}.{name}")
                except ImportError:
                    missing.append(f"line {line}: {module} has no {name}")
    assert not missing, (f"{path.relative_to(ROOT)} imports names the package does not have: {missing}; import "
                         "them from where the package now keeps them (README's layout lists the packages)")
