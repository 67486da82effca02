"""The run command's machine-dependent guard: cases too large for this machine are skipped, saying why."""

import json

from sdpa_bwd.cli import main


def test_cases_over_the_memory_limit_are_skipped_with_the_reason(tmp_path):
    out = tmp_path / "r.json"
    code = main(["run", "--level", "full", "--engine", "reference", "--filter", "overflow", "--memory-limit", "1",
                 "--no-progress", "--in-process", "--json", str(out)])
    results = json.loads(out.read_text())["results"]
    assert code == 0 and results
    assert {r["verdict"] for r in results} == {"skipped"}
    assert all("over this machine's limit of 1.0 GiB" in r["message"] for r in results)
