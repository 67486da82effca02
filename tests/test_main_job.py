"""The main job as a newcomer runs it: ``sdpa-bwd run --level quick`` on its default engines, ours through both
doors (``triton``, the launcher; ``triton-api``, ``sdpa_bwd.attention`` under autograd), must have no failing
verdict. On the CPU the kernels run under Triton's interpreter; the GPU runs the same command
(``tools/device.sh``). Before this test a failing case of our own engine passed CI (issue 51: ``pair-015``
failed on the GPU, and no CI test asserted the verdicts of a plan level).
"""

import json
import subprocess
import sys

import pytest

from sdpa_bwd.cli import DEFAULT_ENGINES
from sdpa_bwd.conformance.judge import FAILING

pytest.importorskip("sdpa_bwd.conformance.plan")
pytest.importorskip("triton")

# One xdist worker runs every test here, so the module's report (two engines over the quick level, minutes on the
# CPU) is made once, not once a worker.
pytestmark = pytest.mark.xdist_group("main-job")


@pytest.fixture(scope="module")
def quick_report(tmp_path_factory):
    out = tmp_path_factory.mktemp("main-job") / "quick.json"
    proc = subprocess.run([sys.executable, "-m", "sdpa_bwd.cli", "run", "--level", "quick", "--no-progress",
                           "--json", str(out)], capture_output=True, text=True, timeout=1800)
    assert out.exists(), f"no report; exit {proc.returncode}\n{proc.stdout[-3000:]}\n{proc.stderr[-3000:]}"
    return proc, json.loads(out.read_text())


def test_the_quick_level_has_no_failing_verdict_on_our_engines(quick_report):
    proc, report = quick_report
    results = report["results"]
    assert {r["engine"] for r in results} == set(DEFAULT_ENGINES), "the main job must run both of our doors"
    bad = [f"{r['engine']} {r['case']}: {r['verdict']}: {r['message'][:300]}" for r in results
           if r["verdict"] in FAILING or r["failing"]]
    assert not bad, (f"{len(bad)} failing verdict(s) in the main job (rerun one with its repro command from "
                     "the report):\n" + "\n".join(bad))
    assert proc.returncode == 0, f"exit {proc.returncode} with no failing verdict:\n{proc.stdout[-2000:]}"


@pytest.mark.parametrize("engine", DEFAULT_ENGINES)
def test_each_door_runs_cases_and_declines_only_with_reasons(quick_report, engine):
    _, report = quick_report
    mine = [r for r in report["results"] if r["engine"] == engine]
    passed = [r for r in mine if r["verdict"] == "passed"]
    assert len(passed) >= 40, f"{engine}: only {len(passed)} of {len(mine)} quick cases passed"
    declined = [r for r in mine if r["verdict"] == "declined"]
    assert all(r["reasons"] for r in declined), [r["case"] for r in declined if not r["reasons"]]
