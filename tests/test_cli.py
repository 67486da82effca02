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


def test_sigterm_mid_run_leaves_a_partial_report(tmp_path):
    """A CI step or `timeout` that stops a run still gets the cases finished so far, marked as such."""
    import json
    import os
    import signal
    import subprocess
    import sys
    import time

    out = tmp_path / "partial.json"
    # our engine under the CPU interpreter: slow enough (seconds a case) to be stopped mid-run
    proc = subprocess.Popen([sys.executable, "-m", "sdpa_bwd.cli", "run", "--engine", "triton", "--level",
                             "standard", "--no-progress", "--json", str(out)],
                            stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                            env={**os.environ, "TRITON_INTERPRET": "1"})
    deadline = time.time() + 120
    while time.time() < deadline and "cases, " not in (line := proc.stdout.readline()):
        pass
    time.sleep(8)  # some cases finish
    proc.send_signal(signal.SIGTERM)
    rest, _ = proc.communicate(timeout=120)
    assert proc.returncode == 3, rest
    report = json.loads(out.read_text())
    assert "stopped" in report["interrupted"] and "the report holds those" in report["interrupted"]
    assert 0 < len(report["results"]) < 268, report["interrupted"]


def test_workers_sharing_a_gpu_share_its_memory_limit(monkeypatch):
    import torch

    from sdpa_bwd.cli import _memory_limit_bytes

    class OnCuda:
        def device(self):
            return "cuda"

    monkeypatch.setattr(torch.cuda, "mem_get_info", lambda *a: (100 << 30, 140 << 30))
    monkeypatch.setattr(torch.cuda, "device_count", lambda: 2)
    full = int(0.8 * (100 << 30))
    assert _memory_limit_bytes(OnCuda(), None, workers=1) == full
    assert _memory_limit_bytes(OnCuda(), None, workers=2) == full      # one GPU each
    assert _memory_limit_bytes(OnCuda(), None, workers=8) == full // 4  # four workers on each GPU
    assert _memory_limit_bytes(OnCuda(), 3.0, workers=8) == 3 << 30    # an explicit limit is per worker
