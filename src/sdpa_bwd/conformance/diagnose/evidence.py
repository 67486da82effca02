"""The evidence about one failing case: the reproduction, a rerun, a replay in a fresh process, the
controls, the localisation and the hypotheses."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Optional

from ...problem.cases import Case, dump_cases
from ...backends import Engine
from ...problem import OUTPUTS, TENSORS
from .controls import bshd_alone_case, differs, feature_variants, is_packed_case, like_case, only_case, packed_case
from .localise import hypotheses, localise
from .runs import Run, run_once


# ----------------------------------------------------------------------------
# Evidence


@dataclass
class Evidence:
    case: Case
    engine: str
    repro: Run
    rerun_identical: Optional[bool] = None
    rerun_verdict: Optional[str] = None
    fresh_verdict: Optional[str] = None
    report_verdict: Optional[str] = None
    baseline: Optional[str] = None             # verdict with every tensor packed BHSD
    only: dict = field(default_factory=dict)   # tensor -> verdict with only it stored as in the case
    features: dict = field(default_factory=dict)  # tensor -> [(feature label, verdict)]
    like: dict = field(default_factory=dict)   # "dO like O" -> verdict
    bshd_alone: dict = field(default_factory=dict)  # where every tensor packed fails: O or dO alone BSHD -> verdict
    float32: Optional[str] = None
    hyp: dict = field(default_factory=dict)
    loc: dict = field(default_factory=dict)    # output -> Localisation
    runs: int = 0
    notes: list = field(default_factory=list)

    # -- derived facts --------------------------------------------------------
    @property
    def failing(self) -> set[str]:
        return self.repro.failing_outputs

    @property
    def triggers(self) -> list[str]:
        return [n for n, v in self.only.items() if v == "failed"]

    def feature_passes(self, needle: str) -> list[str]:
        return [f"{n}: {label}" for n, items in self.features.items() for label, v in items
                if needle in label and v == "passed"]

    def pattern_everywhere(self, pattern: str) -> bool:
        locs = [self.loc[n] for n in self.failing if n in self.loc]
        return bool(locs) and all(any(pattern in p for p in l.patterns) for l in locs)

    @property
    def outside_writes(self) -> dict:
        g = self.repro.guard
        return {b: n for b, n in (g.written_outside.items() if g else ()) if n}

    @property
    def unwritten(self) -> dict:
        return {n: int(u.sum()) for n, u in self.repro.unwritten.items() if int(u.sum())}

    @property
    def nan(self) -> int:
        return sum(l.nan for l in self.loc.values())

    def to_dict(self) -> dict:
        return {"case": self.case.id, "engine": self.engine, "verdict": self.repro.verdict,
                "message": self.repro.message, "rerun_identical": self.rerun_identical,
                "rerun_verdict": self.rerun_verdict, "fresh_process_verdict": self.fresh_verdict,
                "report_verdict": self.report_verdict, "baseline_all_packed": self.baseline, "only": self.only,
                "features": {n: [list(x) for x in v] for n, v in self.features.items()}, "like": self.like,
                "bshd_alone": self.bshd_alone,
                "float32": self.float32, "hypotheses": self.hyp,
                "localisation": {n: l.to_dict() for n, l in self.loc.items()}, "runs": self.runs,
                "notes": self.notes}


# ----------------------------------------------------------------------------
# The procedure


def replay_fresh(engine_name: str, case: Case, timeout: float = 300.0) -> Optional[str]:
    """The case's verdict when run alone by ``sdpa-bwd run`` in a new Python process."""
    with tempfile.TemporaryDirectory() as tmp:
        cases_path, out = Path(tmp) / "case.json", Path(tmp) / "report.json"
        dump_cases([case], cases_path)
        env = dict(os.environ)
        if engine_name.startswith("triton-defect:"):
            env["SDPA_BWD_DEFECTS"] = "1"
            imports = [x for x in env.get("SDPA_BWD_ENGINE_IMPORTS", "").split(os.pathsep) if x]
            env["SDPA_BWD_ENGINE_IMPORTS"] = os.pathsep.join(imports + ["sdpa_bwd.conformance.defects"])
        cmd = [sys.executable, "-m", "sdpa_bwd.cli", "run", "--engine", engine_name, "--cases", str(cases_path),
               "--case", case.id, "--json", str(out), "--no-progress"]
        # The process itself is the fresh one: run the case in it (no worker, no runner-side replay),
        # where the run command has those switches.
        for extra in (["--in-process", "--no-replay"], []):
            try:
                done = subprocess.run(cmd + extra, env=env, capture_output=True, text=True, timeout=timeout)
            except subprocess.TimeoutExpired:
                return None
            if done.returncode != 2 or out.exists():
                break
        if not out.exists():
            return None
        results = json.loads(out.read_text())["results"]
        return results[0]["verdict"] if results else None


def gather_evidence(engine: Engine, case: Case, *, engine_name: Optional[str] = None, replay: bool = True,
                    report_verdict: Optional[str] = None, controls: bool = True) -> Evidence:
    name = engine_name or engine.name
    repro = run_once(engine, case)
    e = Evidence(case, name, repro, report_verdict=report_verdict, runs=1)
    if repro.verdict in ("declined", "invalid"):
        e.notes.append(f"the case is {repro.verdict} here: {repro.message}")
        return e
    again = run_once(engine, case, "rerun")
    e.runs += 1
    e.rerun_verdict, e.rerun_identical = again.verdict, repro.outputs_equal(again)
    if replay:
        e.fresh_verdict = replay_fresh(name, case)
    if repro.got:
        e.loc = {n: localise(repro, n) for n in OUTPUTS}
        e.hyp = hypotheses(repro)
    if not repro.failed or not controls:
        return e

    def verdict(c: Case, label: str) -> str:
        e.runs += 1
        return run_once(engine, c, label).verdict

    if is_packed_case(case):
        e.baseline = "failed"
    else:
        e.baseline = verdict(packed_case(case), "every tensor packed BHSD")
    if e.baseline == "failed":  # a layout assumed? O (or dO) stored as the engine's own forward stores O
        for n in ("o", "do"):
            e.bshd_alone[n] = verdict(bshd_alone_case(case, n), f"only {n} stored BSHD")
    if e.baseline == "passed":
        for n in TENSORS:
            if differs(case, n):
                e.only[n] = verdict(only_case(case, n), f"only {n} as in the case")
        first = next((n for n in TENSORS if e.only.get(n) == "failed"), None)
        if first is not None:
            base = only_case(case, first)
            e.features[first] = [(label, verdict(c, label)) for label, c in feature_variants(base, first)]
    for out_name, model, label in (("do", "o", "dO like O"), ("dq", "q", "dQ like Q"), ("dk", "k", "dK like K"),
                                   ("dv", "v", "dV like V")):
        if (case.storage_of(out_name), dict(case.strides).get(out_name)) != \
                (case.storage_of(model), dict(case.strides).get(model)):
            e.like[label] = verdict(like_case(case, out_name, model), label)
    if case.dtype != "float32":
        e.float32 = verdict(replace(case, id=case.id + "~float32", dtype="float32"), "float32")
    return e
