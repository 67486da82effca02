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


def pytest_collection_modifyitems(config, items):
    if torch.cuda.is_available():
        return
    skip = pytest.mark.skip(reason="needs a CUDA device: run on the GPU machine with `pytest -m gpu`")
    for item in items:
        if "gpu" in item.keywords:
            item.add_marker(skip)
