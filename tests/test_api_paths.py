"""Every kernel the launcher can launch has a path case in ``tests/api_paths.py``, which the GPU test runs through
the public API (issue 51: the GPU tests checked the launcher on the calling thread only, so the public API's
failures on every path but three did not show)."""

import ast
import re
from pathlib import Path

from api_paths import PATHS, SWITCH_ONLY

from sdpa_bwd.engine import launch, planner

# The modules that name the kernels a call launches: the planner's steps name them (as strings, a Gluon kernel as
# "module.kernel"), the executor resolves and launches them (issue 52's split, 2026-12-06).
LAUNCH_SOURCES = [Path(m.__file__).read_text() for m in (launch, planner)]


def launchable_kernels() -> set:
    """The kernel names launch.py and planner.py refer to: every ``*_kernel`` / ``*_kernel_any_len`` name, attribute
    or string (a string's last dotted part)."""
    names = set()
    for source in LAUNCH_SOURCES:
        for node in ast.walk(ast.parse(source)):
            name = (node.attr if isinstance(node, ast.Attribute) else node.id if isinstance(node, ast.Name) else
                    node.value.rpartition(".")[2] if isinstance(node, ast.Constant) and isinstance(node.value, str)
                    else "")
            if re.fullmatch(r"attention_\w+_kernel(_any_len)?", name):
                names.add(name)
    return names


def test_the_source_scan_finds_the_kernels():
    assert {"attention_fwd_kernel", "attention_bwd_gluon_kernel", "attention_bwd_fused_kernel_any_len"} <= \
        launchable_kernels()


def test_every_launchable_kernel_has_a_path_case():
    covered = set().union(*(kernels for _, kernels in PATHS.values()))
    missing = launchable_kernels() - covered - set(SWITCH_ONLY)
    assert not missing, (f"kernels the launcher can launch with no case in tests/api_paths.py: {sorted(missing)}; "
                         "add a case that reaches each, with the kernels it launches")
    stale = covered - launchable_kernels()
    assert not stale, f"tests/api_paths.py names kernels launch.py / planner.py do not launch: {sorted(stale)}"


def test_switch_only_kernels_are_switched_off_as_shipped():
    on = [switch for switch in SWITCH_ONLY.values() if getattr(launch, switch)]
    assert not on, f"switches on by default whose kernels have no path case: {on}; add cases for them"


def test_path_cases_are_valid_problems():
    for name, (case, _) in PATHS.items():
        case.to_problem().validate()
