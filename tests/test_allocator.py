"""Triton's allocator is per thread: every thread that launches our kernels must find one set.

Triton keeps the allocator that kernels needing launch-time scratch (device-side TMA descriptors) call in a
context variable. A new thread starts with the null allocator, which raises. Autograd runs CUDA backward passes
on its own thread, so a flag that remembers "set once in this process" left every call on a second thread to
raise (issue 51: 78 of 107 public-API cases on an H100). The spy below reads the variable at each launch, fresh
and replayed, on the thread that launches.
"""

import threading

import pytest
import torch

triton = pytest.importorskip("triton")
from triton.runtime import _allocation  # noqa: E402

from sdpa_bwd.engine import launch, launch_cache  # noqa: E402


@pytest.fixture
def allocator_at_launch(monkeypatch):
    """A list of (thread name, allocator seen) for every kernel launch, fresh or replayed."""
    seen = []

    def note():
        seen.append((threading.current_thread().name, _allocation._allocator.get()))

    record, replay = launch_cache.Recorder.launch, launch_cache.Plan.replay

    def spy_record(self, *a, **kw):
        note()
        return record(self, *a, **kw)

    def spy_replay(self, *a, **kw):
        note()
        return replay(self, *a, **kw)

    monkeypatch.setattr(launch_cache.Recorder, "launch", spy_record)
    monkeypatch.setattr(launch_cache.Plan, "replay", spy_replay)
    return seen


def _call(results):
    torch.manual_seed(0)
    q, k, v, do = (torch.randn(1, 2, 16, 16) for _ in range(4))
    o, stats = launch.attention_forward(q, k, v)
    results.append(launch.attention_backward(q, k, v, o, do, stats))


def test_every_launching_thread_finds_an_allocator(allocator_at_launch):
    launch_cache.clear()
    results = []
    for name in ("first", "second"):  # the second thread's calls are replays of the first's
        t = threading.Thread(target=_call, args=(results,), name=name)
        t.start()
        t.join()
    assert len(results) == 2, "a call raised on one of the threads: see the captured output"
    threads = {name for name, _ in allocator_at_launch}
    assert threads == {"first", "second"}, f"launches seen on threads {threads}: expected both"
    bare = [name for name, a in allocator_at_launch if isinstance(a, _allocation.NullAllocator)]
    assert not bare, (f"{len(bare)} launch(es) on thread(s) {sorted(set(bare))} found Triton's null allocator: "
                      "a kernel needing scratch would raise there; call launch.ensure_allocator() on the "
                      "launching thread before any launch")


def test_an_allocator_the_caller_set_is_kept():
    def caller_allocator(size, alignment, stream):
        return torch.empty(size, dtype=torch.int8)

    seen = []

    def body():
        triton.set_allocator(caller_allocator)
        launch.ensure_allocator()
        seen.append(_allocation._allocator.get())

    t = threading.Thread(target=body)
    t.start()
    t.join()
    assert seen == [caller_allocator], f"ensure_allocator replaced the caller's allocator with {seen}"
