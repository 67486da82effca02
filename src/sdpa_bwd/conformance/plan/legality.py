"""Legality: which combinations of axis values the plan may write as claims.

A rule names the axes it reads and says why the combination it forbids is
not a claim case. Two kinds:

* ``ill-formed``: ``Problem.validate`` rejects it (overlapping outputs). Such
  problems belong in the probes (``probes.py``), each with its
  ``expected_rejection``, never among the claims.
* ``inexpressible``: the problem is well-formed, but the axis value cannot
  mean what it says with the other value (a broadcast O is not the forward of
  each row; a band cannot leave a row empty when S_q <= S_kv).

Rules decide on *partial* assignments (only the axes they name), so the
pairwise proof can say of a value pair "named illegal by rule X", and the
pair generator can refuse a row as soon as it becomes illegal.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable, Mapping

from .axes import OUTPUT_AXES, SEQS


@dataclass(frozen=True)
class Rule:
    name: str
    kind: str                                   # "ill-formed" or "inexpressible"
    axes: tuple[str, ...]                       # the axes the predicate reads
    forbids: Callable[[Mapping[str, str]], bool]
    why: str

    def violated(self, assignment: Mapping[str, str]) -> bool:
        """True when every axis the rule reads is assigned and the combination is forbidden."""
        return all(a in assignment for a in self.axes) and self.forbids(assignment)


RULES: tuple[Rule, ...] = tuple(
    [Rule(f"output-{t}-not-broadcast", "ill-formed", (t,), lambda a, t=t: a[t] == "zero",
          f"a zero stride on {t} makes its elements overlap: Problem.validate rejects it "
          "(written as probe probe-{t}-zero-stride instead)".replace("{t}", t))
     for t in OUTPUT_AXES]
    + [
        Rule("o-is-the-forward-of-each-row", "inexpressible", ("o",), lambda a: a["o"] == "zero",
             "O must hold the forward's output of every (batch, head, row); a broadcast O holds one "
             "of them, so the case would test a problem whose O is not its forward"),
        Rule("empty-rows-need-sq-above-skv", "inexpressible", ("mask", "seq"),
             lambda a: a["mask"] == "empty-rows" and SEQS[a["seq"]][0] <= SEQS[a["seq"]][1],
             "with S_q <= S_kv every band of cuDNN's semantics (left_bound >= 1, right_bound >= 0) keeps "
             "at least one key in every row, so no row can be empty"),
    ])


def violations(assignment: Mapping[str, str]) -> list[Rule]:
    """The rules a (possibly partial) assignment breaks."""
    return [r for r in RULES if r.violated(assignment)]


def is_legal(assignment: Mapping[str, str]) -> bool:
    return not violations(assignment)


def pair_rule(axis_a: str, value_a: str, axis_b: str, value_b: str):
    """The rule that names this value pair illegal on its own, or None."""
    partial = {axis_a: value_a, axis_b: value_b}
    for rule in RULES:
        if set(rule.axes) <= set(partial) and rule.forbids(partial):
            return rule
    return None


def written_violations(cases) -> list[str]:
    """Every way the written cases break the plan's legality (must be empty).

    A claim or regression must validate and break no rule (read from the axis
    values it realises; an axis it realises two ways at once is left out); a
    probe must *not* validate.
    """
    from .axes import assignment_of

    bad = []
    for c in cases:
        try:
            c.to_problem().validate()
        except ValueError as exc:
            if c.purpose != "probe":
                bad.append(f"{c.id}: does not validate: {exc}")
            continue
        if c.purpose == "probe":
            bad.append(f"{c.id}: a probe that validates (expected: {c.expected_rejection})")
            continue
        row = {a: next(iter(v)) for a, v in assignment_of(c).items() if len(v) == 1}
        bad += [f"{c.id}: breaks rule {r.name}: {r.why}" for r in violations(row)]
    return bad
