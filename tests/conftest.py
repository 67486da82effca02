"""Shared test setup.

Without CUDA, Triton kernels run under its interpreter on the CPU: the variable
must be set before triton is first imported, so it is set here, at collection.
GPU-only tests carry ``@pytest.mark.gpu`` and are skipped without CUDA; run
them on the device machine with ``pytest -m gpu``.
"""

import os

import pytest
import torch

if not torch.cuda.is_available():
    os.environ.setdefault("TRITON_INTERPRET", "1")


@pytest.fixture
def as_on_the_h200(monkeypatch):
    """The launcher's Gluon routing as the H200 applies it, on CPU tensors: the device test passed, the TMA rule
    applied (TMA_MODE "on"), both Gluon switches "auto". For the tests of ``gluon_forward_reasons`` and
    ``gluon_backward_reasons``; a test that switches one off afterwards gets that back at its end."""
    from sdpa_bwd.engine import launch

    monkeypatch.setattr(launch, "_gluon_device_ok", lambda q: True)
    monkeypatch.setattr(launch, "TMA_MODE", "on")
    monkeypatch.setattr(launch, "GLUON_FORWARD", "auto")
    monkeypatch.setattr(launch, "GLUON_BACKWARD", "auto")


# Under the README's `-n auto --dist loadgroup` pytest-xdist hands out groups by their number of tests, most first,
# then single tests in collection order, one unit at a time as workers free up. The varlen level's run is a group of
# one test lasting minutes, collected near the end, so it ran alone on one worker at the end: a clean clone of
# e834960 (2026-12-07, 2 cores) spent 5.5 of its 21 minutes of tests on the last 4%. Long one-test groups go first.
LONGEST_FIRST = ("varlen-level",)


def _longest_first(item) -> int:
    mark = item.get_closest_marker("xdist_group")
    name = (mark.args[0] if mark.args else mark.kwargs.get("name")) if mark else None
    return LONGEST_FIRST.index(name) if name in LONGEST_FIRST else len(LONGEST_FIRST)


def pytest_collection_modifyitems(config, items):
    items.sort(key=_longest_first)  # stable: every other test keeps its place
    if torch.cuda.is_available():
        return
    skip = pytest.mark.skip(reason="needs a CUDA device: run on the GPU machine with `pytest -m gpu`")
    for item in items:
        if "gpu" in item.keywords:
            item.add_marker(skip)


def pytest_addoption(parser):
    group = parser.getgroup("sdpa-bwd public-API fuzz (tests/gpu/test_api_gpu.py)")
    group.addoption("--api-fuzz-seed", type=int, default=20261206, help="seed of the random cases (default fixed)")
    group.addoption("--api-fuzz-cases", type=int, default=120, help="how many random cases (default 120)")
