"""The cost model: what one case costs to run, and the limits of each level.

A case's cost has three parts, all computed from the case alone (no tensors
are made):

* ``bytes``: peak host/device memory the runner needs for it: every buffer
  with its guards, the guard check's boolean masks over the largest buffer,
  the input snapshot, and the float64 oracle's working set. A runner can skip
  a case over its own memory limit with ``case_cost(case).bytes`` (the CPU CI
  should not try anything above a few hundred MB).
* ``flops``: the engine's backward FLOPs, masks counted exactly
  (``Problem.flops``: backward = 2.5 x forward).
* ``oracle_flops``: what judging costs: the oracle ignores the mask and runs a
  float64 forward (to make O and stats), a float64 backward and a same-dtype
  backward.

Time is estimated from these with rates measured on the machine each level is
meant for (``CPU_*`` on the 2-core CI box, ``GPU_*`` on one H200).

Levels, per-case limits and cumulative budgets (each level's budget covers it
and every level below it, as the levels are cumulative):

========  =============  ===============  =================  ============
level     per-case bytes per-case time    cumulative budget  machine
========  =============  ===============  =================  ============
quick     8 MiB          0.25 s (CPU)     20 s (CPU)         every commit, CPU CI
standard  32 MiB         1 s (CPU)        120 s (CPU)        every pull request, CPU CI
nightly   2 GiB          120 s (CPU)      600 s (GPU)        nightly, one GPU
full      100 GiB        none             1800 s (GPU)       release, one H200
========  =============  ===============  =================  ============

Why these numbers:

* quick runs on every commit with two engines (``reference`` and
  ``torch-math``) on the 2-core CI machine; CI's whole test job should finish
  in a few minutes, so the plan's share is 20 s per engine (40 s for the
  README's main command), and no case may take more than a quarter second or
  hold more than 8 MiB, so one slow case cannot dominate.
* standard runs on every pull request on the same machine: two minutes per
  engine, one second and 32 MiB per case.
* nightly is meant for a GPU machine (every case also runs on the CPU, slowly:
  no case needs more than 2 GiB); ten GPU-minutes.
* full holds what only a GPU can do: real models at real lengths and element
  offsets past 2^31. The per-case limit is the H200's memory (139 GiB) less
  headroom for the engine's own buffers; the budget is the 30 minutes of a
  release run.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Iterable, Optional

from ...problem.cases import Case
from ...problem import ITEMSIZE, OUTPUTS, TENSORS

LEVELS = ("quick", "standard", "nightly", "full")
MiB = 1 << 20
GiB = 1 << 30

# Measured on the CI-like machine (2 cores, torch 2.13 CPU, one torch thread):
# one run of a case costs a fixed ~6 ms (materialise, guards, compare, three
# oracle calls' Python) plus its dense float64 FLOPs at ~3 GFLOP/s; the runner
# runs each case RUNNER_RUNS times (its --reruns default) to catch
# nondeterminism. Quick level, reference + torch-math: model 1.7 s, measured
# 2.3 s of case time plus ~0.5 s of first-case warm-up per engine
# (docs/test-plan.md, "Cost model").
RUNNER_RUNS = 2
CPU_OVERHEAD_S = 0.006
CPU_FLOPS_PER_S = 3.0e9
CPU_BYTES_PER_S = 2.0e9
# One H200: float64 matmul well below its 67 TFLOP/s peak once chunking and
# elementwise work count; memory traffic at ~2 TB/s of its 4.8; ~50 ms of
# launches and host work per case (hipDNN's GPU run: 553 cases in 43 s).
GPU_OVERHEAD_S = 0.05
GPU_FLOPS_PER_S = 2.0e13
GPU_BYTES_PER_S = 2.0e12


@dataclass(frozen=True)
class LevelLimits:
    level: str
    case_bytes: Optional[int]        # per-case peak memory; None: no limit
    case_seconds: Optional[float]    # per-case estimated time on `machine`; None: no limit
    budget_seconds: float            # cumulative estimate of this level and those below it
    machine: str                     # "cpu" or "gpu": whose rates the estimates use
    why: str


LIMITS: dict[str, LevelLimits] = {
    "quick": LevelLimits("quick", 8 * MiB, 0.25, 20.0, "cpu",
                         "every commit on the 2-core CI machine, two engines: 20 s each"),
    "standard": LevelLimits("standard", 32 * MiB, 1.0, 120.0, "cpu",
                            "every pull request on the CI machine: two minutes per engine"),
    "nightly": LevelLimits("nightly", 2 * GiB, 120.0, 600.0, "gpu",
                           "nightly on one GPU: ten minutes; every case still fits a CPU run"),
    "full": LevelLimits("full", 100 * GiB, None, 1800.0, "gpu",
                        "release run on one H200 (139 GiB, headroom for the engine): 30 minutes"),
}

# Memory the bundle loader refuses to go past by default: the largest per-case
# limit of the levels a bundle may hold.
DEFAULT_MEMORY_BUDGET = {level: limits.case_bytes for level, limits in LIMITS.items()}

_GUARD = 256             # tensors.GUARD: poison elements around every buffer
_ORACLE_CHUNK = 1 << 25  # oracle._CHUNK_ELEMENTS: score-block elements per chunk


@dataclass(frozen=True)
class Cost:
    bytes: int
    flops: float
    oracle_flops: float
    max_offset: int              # largest element offset any tensor addresses (2^31 cases)

    def seconds(self, machine: str = "cpu") -> float:
        """Estimated wall time of the runner on this case (all its reruns), on ``machine``."""
        if machine == "gpu":
            one = GPU_OVERHEAD_S + self.oracle_flops / GPU_FLOPS_PER_S + self.bytes / GPU_BYTES_PER_S
        else:
            one = CPU_OVERHEAD_S + self.oracle_flops / CPU_FLOPS_PER_S + self.bytes / CPU_BYTES_PER_S
        return RUNNER_RUNS * one

    def to_dict(self) -> dict:
        return {"bytes": self.bytes, "flops": self.flops, "oracle_flops": self.oracle_flops,
                "max_offset": self.max_offset, "cpu_seconds": round(self.seconds("cpu"), 6),
                "gpu_seconds": round(self.seconds("gpu"), 6)}


def case_cost(case: Case) -> Cost:
    """The cost of running one case through the runner (probes cost nothing: never executed)."""
    if case.purpose == "probe":
        return Cost(0, 0.0, 0.0, 0)
    if getattr(case, "ragged", False):
        return _ragged_cost(case.to_problem())
    problem = case.to_problem()
    specs = problem.tensors()
    buffers: dict[str, list] = {}
    for name in TENSORS:
        buffers.setdefault(specs[name].buffer or name, []).append(specs[name])
    buffer_elems = {b: max(s.storage_size() for s in members) + 2 * _GUARD for b, members in buffers.items()}
    buffer_bytes = sum(buffer_elems[b] * ITEMSIZE[members[0].dtype] for b, members in buffers.items())
    largest = max(buffer_elems.values())
    guard_check = 3 * largest                      # bool masks: inside, poison test, lost
    snapshot = sum(specs[n].numel * specs[n].itemsize for n in ("q", "k", "v", "o", "do", "stats"))
    B, H_q, S_q, S_kv = problem.B, problem.H_q, problem.S_q, problem.S_kv
    D_qk, D_v = problem.D_qk, problem.D_v
    # The oracle upcasts Q, K, V, O, dO and holds dQ, dK and dV per query head in float64.
    upcast = 8 * (specs["q"].numel + specs["k"].numel + specs["v"].numel + 2 * specs["o"].numel
                  + B * H_q * (S_q * D_qk + S_kv * (D_qk + D_v)))
    block = 8 * 4 * min(H_q * S_q * S_kv, max(_ORACLE_CHUNK, S_q * S_kv))
    total = buffer_bytes + guard_check + snapshot + upcast + block
    _, bwd = problem.flops()
    dense = 2.0 * B * H_q * S_q * S_kv
    oracle_fwd = dense * (D_qk + D_v)
    oracle_bwd = dense * (2 * D_qk + 2 * D_v + D_qk + D_qk + D_v)
    max_offset = max((s.offset + s.span() - 1 for s in specs.values() if s.numel), default=0)
    return Cost(int(total), bwd, oracle_fwd + 2 * oracle_bwd, int(max_offset))


def fits(cost: Cost, level: str) -> bool:
    lim = LIMITS[level]
    if lim.case_bytes is not None and cost.bytes > lim.case_bytes:
        return False
    if lim.case_seconds is not None and cost.seconds("cpu") > lim.case_seconds:
        return False
    return True


def assign_level(case: Case, requested: str = "quick") -> str:
    """The lowest level at or above ``requested`` whose per-case limits the case fits.

    ``requested`` is where the case's generator wants it (a probe or a
    regression runs on every commit; the first pairwise rows, which cover the
    most pairs per case, run on every commit too). Raises ``ValueError`` if no
    level takes it.
    """
    cost = case_cost(case)
    for level in LEVELS[LEVELS.index(requested):]:
        if fits(cost, level):
            return level
    raise ValueError(f"case {case.id}: needs {cost.bytes / GiB:.1f} GiB, over every level's limit "
                     f"({LIMITS['full'].case_bytes / GiB:.0f} GiB at full)")


def level_totals(cases: Iterable[Case]) -> dict[str, dict]:
    """Per level: case count, cumulative estimated seconds (on the level's machine), peak bytes, budget."""
    by_level: dict[str, list[Cost]] = {level: [] for level in LEVELS}
    for case in cases:
        by_level[case.level].append(case_cost(case))
    out = {}
    running: list[Cost] = []
    for level in LEVELS:
        running = running + by_level[level]
        lim = LIMITS[level]
        seconds = sum(c.seconds(lim.machine) for c in running)
        out[level] = {"cases": len(by_level[level]), "cumulative_cases": len(running),
                      "cumulative_seconds": seconds, "budget_seconds": lim.budget_seconds,
                      "machine": lim.machine,
                      "peak_bytes": max((c.bytes for c in by_level[level]), default=0),
                      "case_bytes_limit": lim.case_bytes,
                      "within_budget": seconds <= lim.budget_seconds}
    return out


def human_bytes(n: Optional[int]) -> str:
    if n is None:
        return "no limit"
    for unit, size in (("GiB", GiB), ("MiB", MiB), ("KiB", 1024)):
        if n >= size:
            return f"{n / size:.1f} {unit}"
    return f"{n} B"


def _ragged_cost(problem) -> Cost:
    """A varlen case (``plan.ragged``): its buffers, a float64 copy of each tensor for the oracle, and its
    products over the kept pairs (forward, backward and the same-dtype reference: ~4.5 x the forward's)."""
    specs = problem.tensors()
    buffers = sum((s.storage_size() + 2 * _GUARD) * ITEMSIZE[s.dtype] for s in specs.values())
    upcast = 8 * 3 * sum(s.numel for s in specs.values())
    fwd, bwd = problem.flops()
    return Cost(buffers + upcast, bwd, 2 * (fwd + bwd), max(s.offset + s.storage_size() for s in specs.values()))
