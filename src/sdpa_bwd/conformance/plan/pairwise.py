"""Pairwise coverage: generating rows that cover every value pair, and proving it.

Generation uses ``allpairspy`` (a maintained all-pairs generator), with the
legality rules as its filter, over the axes of ``axes.AXES`` in their declared
order; the rows come out greedily, the ones that cover the most new pairs
first, so the first rows are the best value for the quick level.

The proof does not trust the generator: :func:`prove` reads the *written*
cases back (``axes.assignment_of``: what each case's fields realise), and
checks that every pair of values of every two axes appears in some case at or
below ``nightly``, or is named illegal by a rule. Its count is the plan's
"all-pairs N of N".
"""

from __future__ import annotations

from dataclasses import dataclass, field
from itertools import combinations, product
from typing import Iterable, Sequence

from .axes import AXES
from .legality import is_legal, pair_rule

PROOF_LEVELS = ("quick", "standard", "nightly")


def generate_rows() -> list[dict[str, str]]:
    """Pairwise rows over every axis, each a legal full assignment."""
    from allpairspy import AllPairs  # only the generator needs it; loading bundles does not

    names = list(AXES)
    params = [list(AXES[n]) for n in names]

    def legal(row: Sequence[str]) -> bool:
        return is_legal(dict(zip(names, row)))

    rows = [dict(zip(names, row)) for row in AllPairs(params, filter_func=legal)]
    for row in rows:
        if not is_legal(row):  # allpairspy filters partial rows; check the whole one too
            raise AssertionError(f"allpairspy produced an illegal row: {row}")
    return rows + completion_rows(rows)


def _uncovered(rows: Sequence[dict]) -> list[tuple[str, str, str, str]]:
    seen = {(a, r[a], b, r[b]) for r in rows for a, b in combinations(AXES, 2)}
    return [(a, x, b, y) for a, x, b, y, rule in required_pairs() if rule is None and (a, x, b, y) not in seen]


def completion_rows(rows: Sequence[dict]) -> list[dict[str, str]]:
    """Rows for the legal pairs the generator left out.

    allpairspy can miss a few pairs when its filter refuses partial rows
    (measured: 6 of 8494 with our rules). Each added row starts from one
    missing pair and fills the other axes greedily, each with the legal value
    that covers the most still-missing pairs (AETG's rule), ties broken by
    declaration order, so the result is deterministic.
    """
    added: list[dict[str, str]] = []
    missing = _uncovered(rows)
    while missing:
        a, x, b, y = missing[0]
        row = {a: x, b: y}
        todo = set(missing)
        for axis in AXES:
            if axis in row:
                continue
            best, best_gain = None, -1
            for value in AXES[axis]:
                trial = dict(row, **{axis: value})
                if not is_legal(trial):
                    continue
                gain = sum(1 for other, v in row.items()
                           if (axis, value, other, v) in todo or (other, v, axis, value) in todo)
                if gain > best_gain:
                    best, best_gain = value, gain
            if best is None:
                raise AssertionError(f"no legal value of {axis} completes {row}")
            row[axis] = best
        row = {axis: row[axis] for axis in AXES}
        added.append(row)
        missing = _uncovered(list(rows) + added)
    return added


@dataclass
class Proof:
    required: int
    covered: int
    illegal: int
    missing: list[tuple[str, str, str, str]] = field(default_factory=list)
    by_rule: dict[str, int] = field(default_factory=dict)

    @property
    def complete(self) -> bool:
        return not self.missing

    def summary(self) -> str:
        rules = ", ".join(f"{k}: {v}" for k, v in sorted(self.by_rule.items()))
        text = (f"all-pairs {self.covered} of {self.required} (value pairs of {len(AXES)} axes at or below "
                f"nightly; {self.illegal} more named illegal" + (f" by {rules}" if rules else "") + ")")
        if self.missing:
            shown = "; ".join(f"{a}={x} with {b}={y}" for a, x, b, y in self.missing[:10])
            text += f"\nMISSING {len(self.missing)}: {shown}" + (" ..." if len(self.missing) > 10 else "")
        return text


def required_pairs():
    """Every value pair of two distinct axes: (axis_a, value_a, axis_b, value_b, rule or None)."""
    for a, b in combinations(AXES, 2):
        for x, y in product(AXES[a], AXES[b]):
            yield a, x, b, y, pair_rule(a, x, b, y)


def prove(cases: Iterable, levels: Sequence[str] = PROOF_LEVELS) -> Proof:
    """Check pairwise coverage over the written cases of ``levels`` (claims and regressions)."""
    from .axes import assignment_of

    seen: set[tuple[str, str, str, str]] = set()
    for case in cases:
        if case.purpose == "probe" or case.level not in levels:
            continue
        values = assignment_of(case)
        for a, b in combinations(AXES, 2):
            for x in values.get(a, ()):
                for y in values.get(b, ()):
                    seen.add((a, x, b, y))
    proof = Proof(0, 0, 0)
    for a, x, b, y, rule in required_pairs():
        if rule is not None:
            proof.illegal += 1
            proof.by_rule[rule.name] = proof.by_rule.get(rule.name, 0) + 1
            continue
        proof.required += 1
        if (a, x, b, y) in seen:
            proof.covered += 1
        else:
            proof.missing.append((a, x, b, y))
    return proof
