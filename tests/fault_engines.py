"""Deliberately misbehaving engines for the runner's process-isolation tests.

Workers load this file through ``SDPA_BWD_ENGINE_IMPORTS`` (see
``sdpa_bwd.conformance.worker``); each engine misbehaves only on cases whose id contains a
marker, so one run mixes healthy and faulting cases.
"""

import os
import time

import torch

import sdpa_bwd.conformance.worker as sdpa_bwd_worker
from sdpa_bwd.backends import register
from sdpa_bwd.backends.reference import ReferenceEngine


@register
class AbortsOnCrash(ReferenceEngine):
    """Dies like a segfaulting kernel: SIGABRT, no Python exception, a last word on stderr."""

    name = "test-aborts"

    def backward(self, problem, t):
        if "crash" in os.environ.get("SDPA_BWD_TEST_CASE", "") or _marked(t, problem):
            os.write(2, b"kernel: misaligned address at 0x7f00dead\n")
            os.abort()
        return super().backward(problem, t)


@register
class ExitsOnCrash(ReferenceEngine):
    name = "test-exits"

    def backward(self, problem, t):
        if _marked(t, problem):
            os._exit(7)
        return super().backward(problem, t)


@register
class HangsOnCrash(ReferenceEngine):
    name = "test-hangs"

    def backward(self, problem, t):
        if _marked(t, problem):
            time.sleep(3600)
        return super().backward(problem, t)


@register
class Slow(ReferenceEngine):
    """Right, and a quarter of a second a call: a run long enough to be stopped mid-way that leaves the CPU to
    the other tests while it waits (the interpreter's kernels took both cores for the same purpose)."""

    name = "test-slow"

    def backward(self, problem, t):
        time.sleep(0.25)
        return super().backward(problem, t)


_CONTEXT_LOST = []


@register
class PoisonsCudaContext(ReferenceEngine):
    """Raises what torch raises after an illegal address; from then on this process's (simulated)
    CUDA context is gone, as a real one would be. The worker's context probe is replaced below by
    one that sees the simulated context, since CI has no GPU to poison."""

    name = "test-poisons-context"

    def backward(self, problem, t):
        if _CONTEXT_LOST:
            raise RuntimeError("CUDA error: an illegal memory access was encountered (sticky, from before)")
        if _marked(t, problem):
            _CONTEXT_LOST.append(True)
            raise RuntimeError("CUDA error: an illegal memory access was encountered")
        return super().backward(problem, t)


def _simulated_context_probe(device):
    return "RuntimeError: CUDA error: an illegal memory access was encountered" if _CONTEXT_LOST else None


sdpa_bwd_worker._context_poisoned = _simulated_context_probe


@register
class Noisy(ReferenceEngine):
    """Moves three dq elements by a different number of ulps on every call, as unordered float
    atomics change the last bits from run to run."""

    name = "test-noisy"
    calls = 0

    def backward(self, problem, t):
        side = super().backward(problem, t)
        Noisy.calls += 1
        row = t.dq[0, 0, 0, :3]
        row.copy_((row.contiguous().view(torch.int16) + Noisy.calls % 3 + 1).view(row.dtype))
        return side


@register
class StaleCache(ReferenceEngine):
    """Keeps a per-process cache keyed by sizes only: a second case with the same sizes but other
    strides gets the first case's dq - an order effect. Alone, each case is right."""

    name = "test-stale-cache"
    _cache: dict = {}

    def backward(self, problem, t):
        side = super().backward(problem, t)
        key = (problem.B, problem.H_q, problem.S_q, problem.D_qk)
        if key in self._cache:
            t.dq.copy_(self._cache[key])
        else:
            self._cache[key] = t.dq.clone()
        return side


@register
class WrongAfterTwoOfASize(ReferenceEngine):
    """Counts the calls of each size in the process: from the third on, dq is doubled. A case fails only after two
    cases of its size ran before it in the same process, so a file that runs only the one before it passes: state
    that builds up over calls, as cuDNN's operator showed at 2^31 elements (H100, 2026-12-07h)."""

    name = "test-wrong-after-two"
    _calls: dict = {}

    def backward(self, problem, t):
        side = super().backward(problem, t)
        key = (problem.B, problem.H_q, problem.S_q, problem.D_qk)
        self._calls[key] = self._calls.get(key, 0) + 1
        if self._calls[key] > 2:
            t.dq.mul_(2)
        return side


@register
class BreaksOnPaddedRows(ReferenceEngine):
    """Zeroes the last dq row whenever dq's rows are padded: a layout defect."""

    name = "test-breaks-padded"

    def backward(self, problem, t):
        side = super().backward(problem, t)
        if t.dq.stride(2) != t.dq.shape[3]:
            t.dq[:, :, -1] = 0
        return side


def _marked(t, problem) -> bool:
    # A case asks for misbehaviour through its sizes: S_q == 13 is the marker.
    return problem.S_q == 13


@register
class StaleCacheAndPaddedRows(StaleCache):
    """Both defects at once, so one run shows an order effect and a layout failure side by side."""

    name = "test-stale-and-padded"
    _cache: dict = {}

    def backward(self, problem, t):
        side = super().backward(problem, t)
        if t.dq.stride(2) != t.dq.shape[3]:
            t.dq[:, :, -1] = 0
        return side


@register
class DeviceAssert(ReferenceEngine):
    """On a GPU: an out-of-bounds index on the device trips a device-side assert, which poisons the
    CUDA context for good - the real thing the CPU tests simulate."""

    name = "test-device-assert"

    def backward(self, problem, t):
        if _marked(t, problem):
            table = torch.zeros(4, device=t.dq.device)
            table[torch.tensor([1 << 20], device=t.dq.device)].sum().item()
        return super().backward(problem, t)


_OUT_OF_MEMORY_ONCE: set = set()
_RAN_HERE: list = []


@register
class OutOfMemoryBesideOthers(ReferenceEngine):
    """Runs out of device memory when a marked case runs after another case in its process (as when the cases
    before it and other workers' hold the card's memory), once; alone in a fresh process, or again, it runs."""

    name = "test-oom-once"

    def backward(self, problem, t):
        after_another = any(p != problem for p in _RAN_HERE)
        _RAN_HERE.append(problem)
        if _marked(t, problem) and after_another and problem not in _OUT_OF_MEMORY_ONCE:
            _OUT_OF_MEMORY_ONCE.add(problem)
            raise torch.OutOfMemoryError("CUDA out of memory. Tried to allocate 128.00 MiB. GPU 0 has 46.81 MiB free")
        return super().backward(problem, t)


@register
class OutOfMemoryAlways(ReferenceEngine):
    """Runs out of device memory on a marked case every time, alone or not."""

    name = "test-oom-always"

    def backward(self, problem, t):
        if _marked(t, problem):
            raise torch.OutOfMemoryError("CUDA out of memory. Tried to allocate 64.00 GiB")
        return super().backward(problem, t)
