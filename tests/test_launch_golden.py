"""No behaviour change in the launcher (issue 52's planner / executor split): for a broad table of problems, every
kernel launch the launcher makes (kernels stubbed out, so no GPU: ``tools/launch_record.py``) is the one recorded from
the launcher before the split (``tests/data/launch_golden.json.gz``, 972 problems, 2026-12-06): the kernel, grid, every
scalar, every keyword, and which tensor or side buffer each tensor argument is; first calls and launch-cache replays.
Changes made on purpose since are re-recorded for the problems they touch alone: the four hd80 problems on the H200
(2026-12-06, hd80 / hd96 into the Gluon kernels at hd128, ``attention_bwd_gluon.kernel_head_dim``); the 152 problems
whose Gluon backward shares K / V heads (2026-12-07: dK's and dV's accumulators one buffer, and dQ's, dK's and dV's
converted by one ``attention_bwd_convert_all_kernel`` launch where three DQ_CONVERT launches were; every other launch
as recorded, checked entry by entry before re-recording).
The experiment forms removed after it (``launch_record.golden_now``) leave the comparison: the problems that turned
one on, and the keywords that selected them, where the record has them off."""

import gzip
import json
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tools"))

import launch_record  # noqa: E402

GOLDEN = ROOT / "tests" / "data" / "launch_golden.json.gz"


@pytest.mark.xdist_group("launch_golden")
def test_the_launcher_makes_the_golden_launches():
    with gzip.open(GOLDEN, "rt") as f:
        gold = launch_record.golden_now(json.load(f))
    now = json.loads(json.dumps(launch_record.record_all()))
    assert set(now) == set(gold), "the problem table changed: rewrite the golden record from the commit before"
    differ = [name for name in gold if gold[name] != now[name]]
    detail = ""
    if differ:
        name = differ[0]
        for part in gold[name]:
            if gold[name][part] != now[name][part]:
                detail = f"\n{name} {part}:\n golden {gold[name][part]}\n now    {now[name][part]}"
                break
    assert not differ, f"{len(differ)} of {len(gold)} problems launch otherwise than before:{detail}"
