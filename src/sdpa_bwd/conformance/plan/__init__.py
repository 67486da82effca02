"""The conformance test plan: declared axes, generated into levelled bundles.

``load_level(level)`` returns the cases of a level and every level below it
(the levels are cumulative), read from the bundles the generator wrote under
``sdpa_bwd/data/plan/v1/``; loading never needs the generator or allpairspy.

Modules: ``axes`` (what varies), ``legality`` (what may be combined),
``catalog`` (real models' shapes), ``probes`` (what must be rejected),
``regressions`` (one per defect class), ``cost`` (levels and budgets),
``pairwise`` (generation and the proof), ``generate`` (the only author of the
bundles), ``bundles`` (loading with schema validation), ``cli``
(``sdpa-bwd plan``). docs/test-plan.md describes the plan in prose.
"""

from __future__ import annotations

from .cost import LEVELS

__all__ = ["LEVELS", "load_level"]


def load_level(level: str, *, memory_budget=None, directory=None):
    """The cases of ``level`` and of every level below it, in run order; ``varlen``: the packed
    variable-length cases (``plan.ragged``), generated in code rather than read from a bundle."""
    if level == "varlen":
        from .ragged import varlen_cases

        return varlen_cases()
    from .bundles import load_level as _load

    return _load(level, memory_budget=memory_budget, directory=directory)
