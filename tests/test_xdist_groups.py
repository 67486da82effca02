"""The README's test command (``-n auto --dist loadgroup``) relies on ``xdist_group`` marks keeping a group's tests on
one worker: the main job's report, the Gluon compiles and the varlen level are module fixtures or one-worker runs
of minutes each. pytest 9.2 broke that silently (pytest-dev/pytest-xdist#1386): each group's tests went to both of
CI's workers and paid those minutes twice (CI 823 s -> 1674 s). This fails where the marks no longer group."""

import os

import pytest


@pytest.mark.xdist_group("xdist-groups-hold")
def test_a_grouped_test_carries_its_group_under_loadgroup(request):
    if not os.environ.get("PYTEST_XDIST_WORKER") or not getattr(request.config.option, "loadgroup", False):
        pytest.skip("not under pytest-xdist's --dist loadgroup: nothing groups tests here")
    assert request.node.nodeid.endswith("@xdist-groups-hold"), (
        f"saw node id {request.node.nodeid!r} without its '@xdist-groups-hold' suffix under --dist loadgroup: "
        "pytest-xdist no longer groups xdist_group-marked tests with this pytest (pytest-dev/pytest-xdist#1386), so "
        "each group's minutes of fixtures run on every worker; pin pytest below the version that broke it in "
        "pyproject.toml's test extra, or drop the pin once pytest-xdist handles it")
