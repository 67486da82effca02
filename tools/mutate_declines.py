#!/usr/bin/env python3
"""Mutation testing of the decline rules: does some test fail when a rule is removed or widened?

The rules are the ``raise ValueError`` arms of ``Problem.validate()``'s helpers
(``src/sdpa_bwd/problem/model.py``: ``_check_spec``, ``_check_dims``, ``check_dtypes``,
``check_attributes`` (shared with the ragged problem), ``_check_outputs_well_defined``, and each helper's call
in ``validate``) and the ``reasons.append`` arms of
``launch.triton_not_supported_reasons`` (``src/sdpa_bwd/engine/launch.py``).

Mutants are generated from the source's syntax tree, so they follow the code as
it changes (the seed PR counted 29 of 29 by hand):

* ``remove``: the guard of a rule is replaced by ``False`` (the rule is gone);
* ``arm``: one operand of an ``or`` guard is replaced by ``False`` (one arm gone);
* ``widen``: an order comparison in a guard is moved one step so the rule fires
  for one value less (``x < c`` -> ``x < c - 1``, ``x <= c`` -> ``x < c``,
  ``x > c`` -> ``x > c + 1``, ``x >= c`` -> ``x > c``);
* ``skip-call``: a ``self._check_*()`` call in ``validate`` is removed;
* ``drop``: one item of a literal tuple a rule loops over (``for name in ("k", "v", ...)``), or one
  entry of the ``expect`` dims table, is removed (the rule no longer covers that tensor or value).

Each mutant is applied, one at a time, to a copy of ``src/`` and ``tests/`` in a
temporary directory, and the relevant tests run there with ``pytest -x``
(``PYTHONPATH`` puts the mutated copy ahead of the installed package). A mutant
is killed when the tests fail. Usage::

    python tools/mutate_declines.py                  # all mutants, report killed/total
    python tools/mutate_declines.py --list           # only list them
    python tools/mutate_declines.py --jobs 2 --json mutants.json
"""

from __future__ import annotations

import argparse
import ast
import copy
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Optional

ROOT = Path(__file__).resolve().parents[1]

# (source file, functions holding rules, the kind of statement a rule's body holds, tests that guard it)
TARGETS = {
    "problem": dict(
        path="src/sdpa_bwd/problem/model.py",
        functions=("_check_spec", "_check_dims", "check_dtypes", "check_attributes",
                   "_check_outputs_well_defined", "validate"),
        tests=("tests/test_problem_rules.py", "tests/test_problem.py", "tests/test_problem_properties.py",
               "tests/test_plan.py::test_probes_are_rejected_with_their_expected_rejection"),
    ),
    "launch": dict(
        path="src/sdpa_bwd/engine/launch.py",
        functions=("triton_not_supported_reasons",),
        tests=("tests/test_problem_rules.py", "tests/test_triton_kernels.py::test_declines_name_value_and_rule"),
    ),
}


@dataclass
class Mutant:
    target: str
    function: str
    line: int
    kind: str
    detail: str
    status: str = "not run"     # killed, survived, error, not run
    seconds: float = 0.0
    output: str = ""

    @property
    def id(self) -> str:
        return f"{self.target}:{self.function}:{self.line}:{self.kind}:{self.detail}"


def _is_rule(node: ast.If) -> bool:
    """An ``if`` whose own body raises ValueError or appends a decline reason."""
    for stmt in node.body:
        if isinstance(stmt, ast.Raise):
            return True
        if (isinstance(stmt, ast.Expr) and isinstance(stmt.value, ast.Call)
                and isinstance(stmt.value.func, ast.Attribute) and stmt.value.func.attr == "append"
                and isinstance(stmt.value.func.value, ast.Name) and stmt.value.func.value.id == "reasons"):
            return True
    return False


def _functions(tree: ast.AST, names) -> list[ast.FunctionDef]:
    return [n for n in ast.walk(tree) if isinstance(n, ast.FunctionDef) and n.name in names]


_WIDEN = {ast.Lt: "lt", ast.LtE: "lte", ast.Gt: "gt", ast.GtE: "gte"}


def _compares(expr: ast.AST) -> list[ast.Compare]:
    return [n for n in ast.walk(expr) if isinstance(n, ast.Compare) and len(n.ops) == 1
            and type(n.ops[0]) in _WIDEN]


def enumerate_mutants(target: str, source: Optional[str] = None) -> list[Mutant]:
    spec = TARGETS[target]
    source = source if source is not None else (ROOT / spec["path"]).read_text(encoding="utf-8")
    tree = ast.parse(source)
    out: list[Mutant] = []
    for fn in _functions(tree, spec["functions"]):
        if fn.name == "validate":
            for stmt in fn.body:
                call = stmt.value if isinstance(stmt, ast.Expr) else None
                if (isinstance(call, ast.Call) and isinstance(call.func, ast.Attribute)
                        and call.func.attr.startswith("_check")):
                    out.append(Mutant(target, fn.name, stmt.lineno, "skip-call", call.func.attr))
            continue
        for node in ast.walk(fn):
            if isinstance(node, ast.For) and isinstance(node.iter, (ast.Tuple, ast.List)) \
                    and any(isinstance(n, ast.If) and _is_rule(n) for n in ast.walk(node)):
                for i, item in enumerate(node.iter.elts):
                    out.append(Mutant(target, fn.name, node.lineno, f"drop{i}", ast.unparse(item)[:70]))
            if isinstance(node, ast.Assign) and isinstance(node.value, ast.Dict) \
                    and any(isinstance(t, ast.Name) and t.id == "expect" for t in node.targets):
                for i, key in enumerate(node.value.keys):
                    out.append(Mutant(target, fn.name, node.lineno, f"drop{i}", "expect " + ast.unparse(key)))
            if not (isinstance(node, ast.If) and _is_rule(node)):
                continue
            out.append(Mutant(target, fn.name, node.lineno, "remove", ast.unparse(node.test)[:70]))
            if isinstance(node.test, ast.BoolOp) and isinstance(node.test.op, ast.Or):
                for i, arm in enumerate(node.test.values):
                    out.append(Mutant(target, fn.name, node.lineno, f"arm{i}", ast.unparse(arm)[:70]))
            for j, cmp in enumerate(_compares(node.test)):
                out.append(Mutant(target, fn.name, node.lineno, f"widen{j}", ast.unparse(cmp)[:70]))
    return out


def _locate(tree: ast.AST, m: Mutant):
    if m.kind == "skip-call":
        wanted = (ast.Expr,)
    elif m.kind.startswith("drop"):
        wanted = (ast.For, ast.Assign)
    else:
        wanted = (ast.If,)
    for fn in _functions(tree, (m.function,)):
        for node in ast.walk(fn):
            if getattr(node, "lineno", None) == m.line and isinstance(node, wanted):
                return fn, node
    raise LookupError(f"mutant {m.id}: its statement is no longer at line {m.line}")


def _widened(cmp: ast.Compare) -> ast.Compare:
    op, right = cmp.ops[0], cmp.comparators[0]
    one = ast.Constant(1)
    if isinstance(op, ast.Lt):
        return ast.Compare(cmp.left, [ast.Lt()], [ast.BinOp(right, ast.Sub(), one)])
    if isinstance(op, ast.LtE):
        return ast.Compare(cmp.left, [ast.Lt()], [right])
    if isinstance(op, ast.Gt):
        return ast.Compare(cmp.left, [ast.Gt()], [ast.BinOp(right, ast.Add(), one)])
    return ast.Compare(cmp.left, [ast.Gt()], [right])


def apply_mutant(m: Mutant, source: str) -> str:
    """The source with mutant ``m`` applied (comments are lost: the text is regenerated)."""
    tree = ast.parse(source)
    fn, node = _locate(tree, m)
    if m.kind == "skip-call":
        node.value = ast.Constant(None)
    elif m.kind.startswith("drop"):
        i = int(m.kind[4:])
        if isinstance(node, ast.For):
            del node.iter.elts[i]
        else:
            del node.value.keys[i]
            del node.value.values[i]
    elif m.kind == "remove":
        node.test = ast.Constant(False)
    elif m.kind.startswith("arm"):
        i = int(m.kind[3:])
        node.test.values[i] = ast.Constant(False)
    elif m.kind.startswith("widen"):
        j = int(m.kind[5:])
        target = _compares(node.test)[j]

        class Swap(ast.NodeTransformer):
            def visit_Compare(self, n):
                return _widened(n) if n is target else self.generic_visit(n)

        node.test = Swap().visit(node.test)
    else:
        raise ValueError(f"unknown mutant kind {m.kind}")
    mutated = ast.unparse(ast.fix_missing_locations(tree))
    if mutated == ast.unparse(ast.parse(source)):
        raise ValueError(f"mutant {m.id} changes nothing")
    return mutated


def _copy_tree(dest: Path) -> None:
    for part in ("src", "tests"):
        shutil.copytree(ROOT / part, dest / part, ignore=shutil.ignore_patterns("__pycache__", "*.egg-info"))
    shutil.copy2(ROOT / "pyproject.toml", dest / "pyproject.toml")


def run_mutant(m: Mutant, timeout: float = 600.0, exclude: tuple = ()) -> Mutant:
    spec = TARGETS[m.target]
    started = time.perf_counter()
    with tempfile.TemporaryDirectory(prefix="mutant-") as tmp:
        dest = Path(tmp)
        _copy_tree(dest)
        path = dest / spec["path"]
        try:
            path.write_text(apply_mutant(m, path.read_text(encoding="utf-8")), encoding="utf-8")
        except (LookupError, ValueError) as exc:
            m.status, m.output = "error", str(exc)
            return m
        tests = [t for t in spec["tests"] if (dest / t.split("::")[0]).exists()
                 and not any(t.startswith(x) for x in exclude)]
        env = dict(os.environ, PYTHONPATH=str(dest / "src") + os.pathsep + os.environ.get("PYTHONPATH", ""),
                   PYTHONDONTWRITEBYTECODE="1")
        env.setdefault("TRITON_INTERPRET", "1")
        cmd = [sys.executable, "-m", "pytest", "-x", "-q", "-p", "no:cacheprovider", "-m", "not slow and not gpu",
               *tests]
        try:
            done = subprocess.run(cmd, cwd=dest, env=env, capture_output=True, text=True, timeout=timeout)
        except subprocess.TimeoutExpired:
            m.status, m.output = "killed", f"timed out after {timeout:.0f} s"
        else:
            # pytest: 0 all passed, 1 some failed, 2+ interrupted / usage / collection errors.
            m.status = {0: "survived", 1: "killed"}.get(done.returncode, "killed" if done.returncode == 2 else "error")
            tail = (done.stdout + done.stderr).strip().splitlines()
            m.output = "\n".join(tail[-6:])
    m.seconds = time.perf_counter() - started
    return m


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--target", choices=sorted(TARGETS), action="append", help="default: all")
    parser.add_argument("--list", action="store_true", help="list the mutants and exit")
    parser.add_argument("--only", action="append", help="run only mutants whose id contains this")
    parser.add_argument("--jobs", type=int, default=max(1, min(2, os.cpu_count() or 1)))
    parser.add_argument("--json", help="write the results here")
    parser.add_argument("--exclude-test", action="append", default=[],
                        help="leave this test file out (e.g. to score the suite without it)")
    args = parser.parse_args(argv)
    mutants = [m for t in (args.target or sorted(TARGETS)) for m in enumerate_mutants(t)]
    if args.only:
        mutants = [m for m in mutants if any(o in m.id for o in args.only)]
    if args.list:
        for m in mutants:
            print(m.id)
        print(f"{len(mutants)} mutants")
        return 0
    started = time.perf_counter()
    with ThreadPoolExecutor(max_workers=args.jobs) as pool:
        for m in pool.map(lambda m: run_mutant(m, exclude=tuple(args.exclude_test)), mutants):
            print(f"{m.status:9s} {m.seconds:6.1f}s {m.id}", flush=True)
    killed = sum(m.status == "killed" for m in mutants)
    for m in mutants:
        if m.status != "killed":
            print(f"\n{m.status}: {m.id}\n{m.output}")
    print(f"\nmutation score: {killed} of {len(mutants)} killed "
          f"({time.perf_counter() - started:.0f} s, {args.jobs} jobs)")
    if args.json:
        Path(args.json).write_text(json.dumps({"killed": killed, "total": len(mutants),
                                               "mutants": [asdict(m) | {"id": m.id} for m in mutants]},
                                              indent=1) + "\n", encoding="utf-8")
    return 0 if killed == len(mutants) else 1


if __name__ == "__main__":
    raise SystemExit(main())
