"""Order probes: back-to-back cases that differ in one thing only, so that state an engine keeps
between calls (a plan cache, a workspace) shows up as a wrong answer in the second case.

An engine that caches per call must key its cache on everything the cached thing depends on. A key
that leaves out one tensor's strides gives wrong results only when a call with the same dims but
other strides for that tensor came first in the same process. So, for each of the nine tensors, one
group of cases with the same dims, dtype and values (one seed) whose only difference is that
tensor's strides, in this order:

1. every tensor packed BHSD;
2. the tensor in another order (BSHD; the stats [B, S, H]): packed -> other order;
3. packed again: other order -> packed (catches a cache that is refreshed by the last call);
4. the tensor's rows padded (the stats' heads): packed -> padded rows.

Each group has dims of its own (S_q = S_kv differs from group to group, and from every other case of
the quick level), so that its first case is the first call with those dims in any process and a
cache keyed on dims is filled by the packed case. Two more groups: values alone (same strides, a
new seed) and dtype alone (same dims and strides, bfloat16 then float16). Ids:
``reg-stale-state-between-cases-<what varies>-<step>-<storage>``, e.g. ``...-dq-2-bshd``.

The cases of a group are neighbours of the same dims: the runner's chunks never split them
(``schedule.keep_together``; the dtype group's differ in dtype, which ``keep_together`` allows for
order probes), so they run in one worker in this order, and a failing one is replayed alone in a
fresh process whatever ``--replay-limit`` says (``runner._always_replayed``): failing in sequence and
passing alone is the runner's ``order-dependent``, naming the case before it.
"""

from __future__ import annotations

import zlib

from ...problem.cases import Case
from ...problem.layout import Storage

CLASS = "stale-state-between-cases"
PREFIX = f"reg-{CLASS}-"       # regression ids are named after the class they guard
TAG = "order-probe:"          # covers "order-probe:<what varies>"; the runner and the chunker read it
TENSORS9 = ("q", "k", "v", "o", "do", "stats", "dq", "dk", "dv")

# Small: B = 1, H = 2 (so that BSHD and BHSD strides differ), D = 16; S from 17 up, one per group.
_BASE = dict(B=1, H_q=2, D_qk=16)
_S0 = 17


def _other(tensor: str) -> tuple[str, Storage]:
    return ("bsh", Storage("bshd")) if tensor == "stats" else ("bshd", Storage("bshd"))


def _padded(tensor: str) -> tuple[str, Storage]:
    # The stats have no row of D elements: their padding is between heads.
    return ("pad-h", Storage("bhsd", pad={"h": 5})) if tensor == "stats" else ("pad-rows", Storage("bhsd", pad={"s": 8}))


def _seed(group: str) -> int:
    return zlib.crc32(f"order-{group}".encode()) & 0x7FFFFFFF


def _probe(cid: str, what: str, S: int, seed: int, **fields) -> Case:
    return Case(id=cid, purpose="regression", S_q=S, S_kv=S, seed=seed,
                covers=("regression:" + CLASS, TAG + what), **_BASE, **fields)


def order_probes() -> list[tuple[Case, str]]:
    """(case, requested level): every group at quick, in run order."""
    out: list[tuple[Case, str]] = []
    for i, tensor in enumerate(TENSORS9):
        S, seed = _S0 + i, _seed(tensor)
        other_name, other = _other(tensor)
        pad_name, pad = _padded(tensor)
        steps = (("1-packed", {}), (f"2-{other_name}", {tensor: other}), ("3-packed", {}),
                 (f"4-{pad_name}", {tensor: pad}))
        for tag, storage in steps:
            out.append((_probe(f"{PREFIX}{tensor}-{tag}", tensor, S, seed, storage=storage), "quick"))
    S = _S0 + len(TENSORS9)
    out.append((_probe(PREFIX + "values-1-seed-a", "values", S, _seed("values-a")), "quick"))
    out.append((_probe(PREFIX + "values-2-seed-b", "values", S, _seed("values-b")), "quick"))
    S += 1
    out.append((_probe(PREFIX + "dtype-1-bfloat16", "dtype", S, _seed("dtype"), dtype="bfloat16"), "quick"))
    out.append((_probe(PREFIX + "dtype-2-float16", "dtype", S, _seed("dtype"), dtype="float16"), "quick"))
    return out


def is_order_probe(case: Case) -> bool:
    return any(c.startswith(TAG) for c in case.covers)
