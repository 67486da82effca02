"""``sdpa-bwd diagnose``: from one failing case to a named defect class.

It does, for any engine, what the field guide (../shared/seeds/000_*.txt) has a
kernel engineer do by hand when one layout fails:

1. **Reproduce** the case, **rerun** it (same process, bitwise) to tell flaky
   from deterministic, and **replay it alone in a fresh process** (a
   ``sdpa-bwd run`` subprocess) to expose order effects.
2. **Controls**: the same values stored otherwise, one tensor at a time: every
   tensor packed BHSD (the baseline); only tensor T stored as in the case; then,
   for the first tensor that fails alone, each storage feature removed in turn
   (order, padding and its parity, inner stride, zero strides, junk strides,
   offset, explicit strides); "dO like O", "dQ like Q", "dK like K", "dV like V";
   the same case in float32.
3. **Stage split**: ``delta`` where the engine exposes it, then dQ, dK, dV apart.
4. **Localisation**: which batches, heads, rows, columns are wrong, as a rich
   table and a PNG heatmap over (batch, head) x sequence.
5. **Classification** against :data:`DECISION_TABLE`: every class scores the
   evidence; the best is printed with its evidence, the runner-up, and the
   next step to confirm. "unclassified" wins when nothing scores enough.

The steps live in one module each: ``runs`` (one run, keeping its tensors), ``controls``
(the case in other storages), ``localise`` (where the outputs are wrong, and hypotheses),
``evidence`` (gathering it all), ``decision`` (the decision table and :func:`diagnose`),
``printing`` and ``command`` (``sdpa-bwd diagnose``).
"""

from __future__ import annotations

from .command import add_commands, cmd_diagnose, failures_in_report, find_case
from .controls import differs, feature_variants, is_packed_case, like_case, only_case, packed_case, without_case
from .decision import (CLASS_NAMES, DECISION_TABLE, REPORT_FAILURES, THRESHOLD, DefectClass, Diagnosis, Verdict,
                       classify, diagnose)
from .evidence import Evidence, gather_evidence, replay_fresh
from .localise import Localisation, _ranges, heatmap, hypotheses, localise  # noqa: F401 - _ranges: the tests read it
from .printing import print_diagnosis
from .runs import STORED, Run, run_once

__all__ = ["CLASS_NAMES", "DECISION_TABLE", "REPORT_FAILURES", "STORED", "THRESHOLD", "DefectClass", "Diagnosis",
           "Evidence", "Localisation", "Run", "Verdict", "add_commands", "classify", "cmd_diagnose", "diagnose",
           "differs", "failures_in_report", "feature_variants", "find_case", "gather_evidence", "heatmap",
           "hypotheses", "is_packed_case", "like_case", "localise", "only_case", "packed_case", "print_diagnosis",
           "replay_fresh", "run_once", "without_case"]
