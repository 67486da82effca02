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


def pytest_collection_modifyitems(config, items):
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
