"""How the isolated runner hands cases to its workers: chunks, a queue, and a memory gate.

Three things decide the wall time of a run on several workers, and none of them
is the count of cases:

* **Cost is uneven.** One case of the full level allocates 98 GiB and runs for
  seconds; most run in a tenth of a second. Splitting the plan into one
  contiguous part per worker (what the runner did first) left one worker with
  the heavy tail while the others idled (2026-12-01, H200: 413 s of case time
  on 12 workers took 165 s of wall).
* **Neighbours belong together.** The plan puts cases that differ only in one
  tensor's strides, or only in their values, back to back so that a stale cache
  keyed by shape shows up as an order effect. A chunk boundary never falls
  between two neighbours of the same sizes, nor inside an order probe's group
  (``keep_together``).
* **Memory is per device, not per worker.** Workers that share a GPU share its
  memory. Dividing the limit by the worker count refused the 2^31-element cases
  outright; ``MemoryGate`` instead lets a case wait until the memory it needs
  is free: small cases go when they fit, large ones queue in order and the
  largest drain the device rather than be starved by a stream of small ones.

``chunks`` cuts the cases into contiguous chunks of about equal estimated cost,
and ``dispatch_order`` hands out the costliest first (longest-processing-time
first: the long chunks start early, the short ones fill the tail). Workers take
the next chunk when they finish one.
"""

from __future__ import annotations

import threading
from collections import deque
from dataclasses import dataclass
from typing import Optional, Sequence

from ..problem.cases import Case

CHUNKS_PER_WORKER = 4        # enough chunks that the tail balances, few enough to keep neighbours together
CASE_OVERHEAD_S = 0.1        # a case's fixed cost in a worker (measured warm on the H200: median 0.11 s)
_SIZES = ("B", "H_q", "H_k", "H_v", "S_q", "S_kv", "D_qk", "D_v", "dtype")


def same_sizes(a: Case, b: Case) -> bool:
    """True when ``a`` and ``b`` describe problems of the same sizes and dtype: neighbours of an
    order-effect pair (they differ in strides, attributes or values only). Varlen cases have no such pairs."""
    if getattr(a, "ragged", False) or getattr(b, "ragged", False):
        return False
    return all(getattr(a, k) == getattr(b, k) for k in _SIZES)


def keep_together(a: Case, b: Case) -> bool:
    """True when no chunk may end between ``a`` and the case ``b`` right after it: neighbours of the
    same sizes and dtype, or an order probe (``plan.order_probes``) and the case before it with the
    same dims in another dtype (the dtype group: a cache keyed on dims alone shows only if both run
    in one process, in this order)."""
    from .plan.order_probes import is_order_probe

    if same_sizes(a, b):
        return True
    return is_order_probe(b) and all(getattr(a, k) == getattr(b, k) for k in _SIZES if k != "dtype")


@dataclass(frozen=True)
class Chunk:
    start: int          # index of the first case in the run's case list
    stop: int           # one past the last
    seconds: float      # estimated cost

    def __len__(self) -> int:
        return self.stop - self.start


def chunks(cases: Sequence[Case], workers: int, seconds: Sequence[float],
           per_worker: int = CHUNKS_PER_WORKER, overhead: float = CASE_OVERHEAD_S) -> list[Chunk]:
    """Contiguous chunks of ``cases`` (in order, covering every case once) of roughly equal
    estimated cost (``seconds[i]`` for case i, plus a fixed overhead each); never split between
    two neighbours of the same sizes."""
    if len(seconds) != len(cases):
        raise ValueError(f"{len(seconds)} cost estimates for {len(cases)} cases: need one per case")
    if not cases:
        return []
    costs = [max(0.0, s) + overhead for s in seconds]
    target = sum(costs) / max(1, workers * per_worker)
    out, start, acc = [], 0, 0.0
    for i, cost in enumerate(costs):
        acc += cost
        last = i + 1 == len(cases)
        if last or (acc >= target and not keep_together(cases[i], cases[i + 1])):
            out.append(Chunk(start, i + 1, acc))
            start, acc = i + 1, 0.0
    return out


# With measured seconds (an earlier run's report, ``sdpa-bwd run --timings``) the estimates are good
# enough for finer chunks. Replaying a warm full-level run's case times with an earlier run's as the estimates
# (2026-12-01, H200, docs/data/h200-2026-12-01d; tools/schedule_replay.py, 5 s worker start): the full level's
# last worker ends at 28.5 s with 16 chunks a worker, where the cost model's estimates give 37.0 s (nightly 17.4 against
# 19.6).
MEASURED_CHUNKS_PER_WORKER = 16


def measured_seconds(reports: Sequence[dict], engine: str) -> dict[str, float]:
    """Case id -> seconds ``engine`` took in earlier run reports (the median where several have the
    case), less the Triton compiles they record: a warm cache compiles nothing. Cases that did not
    finish (interrupted, skipped) are left to the cost model."""
    seen: dict[str, list[float]] = {}
    for report in reports:
        for r in report.get("results", []):
            if r.get("engine") != engine or r.get("verdict") in ("skipped", None) or not r.get("seconds"):
                continue
            compile_s = (r.get("compiles") or {}).get("compile_s", 0.0)
            seen.setdefault(r["case"], []).append(max(0.0, float(r["seconds"]) - compile_s))
    return {case: sorted(v)[len(v) // 2] for case, v in seen.items()}


def plan_chunks(cases: Sequence[Case], workers: int, estimates: Sequence[float],
                measured: Optional[dict] = None) -> list[Chunk]:
    """The chunks of a run: by the cost model's ``estimates``, or where ``measured`` (case id ->
    seconds, :func:`measured_seconds`) has a case, by what it took, in finer chunks."""
    if not measured:
        return chunks(cases, workers, estimates)
    # a measured case's seconds include the fixed overhead that chunks() adds to each case
    seconds = [max(0.0, measured[c.id] - CASE_OVERHEAD_S) if c.id in measured else e
               for c, e in zip(cases, estimates)]
    return chunks(cases, workers, seconds, MEASURED_CHUNKS_PER_WORKER)


# A kernel family's first case on an empty Triton cache, at head dim 64 in a 16-bit dtype: the quick level's cold
# run on 16 workers of an H100 host compiled 4-5 kernels a pairwise case in 6-10 s at head dims 16-64, 11-23 s at
# 96-192 and 29-51 s at 256, float32 the slowest of each (2026-12-06, docs/perf-log.md); see compile_seconds.
COLD_COMPILE_S = 6.0


def kernel_family(case) -> tuple:
    """What decides which kernels (and which of their specialisations) a case compiles, to the scheduler's
    accuracy: dtype, head dims, mask sides and alignment, head sharing, determinism, packed sequences."""
    get = lambda name, default=None: getattr(case, name, default)  # noqa: E731 (dense and varlen cases)
    D_v = get("D_v") if get("D_v") is not None else get("D_qk")
    H_k = get("H_k") if get("H_k") is not None else get("H_q")
    H_v = get("H_v") if get("H_v") is not None else H_k
    return (get("dtype"), get("D_qk"), D_v, get("left_bound") is None, get("right_bound") is None,
            get("alignment"), H_k != get("H_q"), H_v != get("H_q"), get("deterministic"), get("ragged", False))


def compile_seconds(case) -> float:
    """A kernel family's compiles on a cold cache: ``COLD_COMPILE_S`` at head dim 64 and below, growing with the
    larger head dim (the tiles, so the code, grow with it), half again for float32. Order matters more than
    size here: the costliest compiles must start first (a float32 hd256 case compiling for 51 s from 14 s into
    the run ended the quick level's cold run, 2026-12-06)."""
    D_qk = getattr(case, "D_qk", 64) or 64
    D_v = getattr(case, "D_v", None) or D_qk
    return COLD_COMPILE_S * max(1.0, max(D_qk, D_v) / 64) * (1.5 if getattr(case, "dtype", "") == "float32" else 1.0)


def cold_compile_seconds(cases: Sequence[Case]) -> list[float]:
    """Seconds each case adds compiling on an empty Triton cache: ``compile_seconds`` for the first case of each
    kernel family in plan order, 0 for the rest. The chunks then put each compiling case (the pairwise cases
    each start a family) in a chunk of its own, costliest first, rather than three in one worker's chunk: the
    quick level's cold run waited 62 s on one worker's three pairwise cases while the others had finished
    (2026-12-06, H100). Estimates only where the cache is empty (``engine.compiles.triton_cache_empty``): a warm
    run compiles nothing and keeps its chunks."""
    seen: set = set()
    out = []
    for case in cases:
        if getattr(case, "purpose", None) == "probe":  # refused before any launch: compiles nothing
            out.append(0.0)
            continue
        family = kernel_family(case)
        out.append(0.0 if family in seen else compile_seconds(case))
        seen.add(family)
    return out


def dispatch_order(parts: Sequence[Chunk]) -> list[Chunk]:
    """Costliest first; ties keep plan order, so a run's schedule is the same every time."""
    return sorted(parts, key=lambda c: (-c.seconds, c.start))


class MemoryGate:
    """Reservations of one device's memory by the workers sharing it.

    ``reserve(n)`` blocks until ``n`` bytes fit beside what is reserved. Two kinds
    of request, so that neither a large case nor the many small ones wait for
    nothing:

    * **small** ones (at most ``limit / (4 * slots)``, ``slots`` being the workers
      sharing the device) go as soon as they fit. Together they can never hold
      more than a quarter of the device, so they cannot keep out a large case
      that fits in the other three quarters;
    * **large** ones queue in arrival order among themselves. A large request at
      the head of the queue that needs more than three quarters of the device
      drains it: small ones wait too until it has started, so it is not starved.

    A full-level run on one H200 with 16 workers (2026-12-01) showed why small ones must not queue
    behind large ones: a 41 GiB case waiting for a 98 GiB one to finish held up
    every small case behind it for 50 s while 13 GiB stood free.
    A request larger than the whole limit is the caller's bug: such cases are
    skipped before the run with the reason.
    """

    def __init__(self, limit: int, slots: int = 1):
        if limit <= 0:
            raise ValueError(f"memory gate limit {limit} bytes: must be positive")
        self.limit = limit
        self.small = limit // (4 * max(1, slots))
        self.reserved = 0
        self.peak = 0
        self._cond = threading.Condition()
        self._queue: deque = deque()
        self._draining = False

    def reserve(self, n: int, stop: Optional[threading.Event] = None) -> bool:
        """Wait until ``n`` bytes are free and take them; False (nothing taken) if ``stop`` is set meanwhile."""
        if n > self.limit:
            raise ValueError(f"a case needs {n} bytes, over the gate's whole limit of {self.limit}: "
                             "skip it before the run (cli._over_memory does)")
        with self._cond:
            if n <= self.small:
                while self._draining or self.reserved + n > self.limit:
                    if stop is not None and stop.is_set():
                        return False
                    self._cond.wait(0.2)
                self._take(n)
                return True
            ticket = object()
            self._queue.append(ticket)
            try:
                while self._queue[0] is not ticket or self.reserved + n > self.limit:
                    if stop is not None and stop.is_set():
                        return False
                    if self._queue[0] is ticket and n > self.limit - self.limit // 4:
                        self._draining = True
                    self._cond.wait(0.2)
                self._take(n)
                return True
            finally:
                if self._queue[0] is ticket:
                    self._draining = False
                self._queue.remove(ticket)
                self._cond.notify_all()

    def _take(self, n: int) -> None:
        self.reserved += n
        self.peak = max(self.peak, self.reserved)

    def release(self, n: int) -> None:
        with self._cond:
            self.reserved -= n
            self._cond.notify_all()
