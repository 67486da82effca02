"""Support claims and known-defect skip lists: files that say what an engine does on an arch.

Claims
    ``sdpa-bwd claims harvest REPORT.json [...] --out DIR`` writes, for every
    (engine, GPU arch) in the reports, ``DIR/<engine>/<arch>.json`` listing the
    cases that passed. ``sdpa-bwd run --enforce-claims FILE_OR_DIR`` then makes
    a claimed case that declines, fails, faults or changes between reruns an
    error of the run: ``claim broken``. A release that silently stops
    supporting a layout it supported is what this catches.

Skip lists
    JSON files (``data/skips/*.json``) of entries keyed by case id and arch,
    each with its reason::

        {"schema": "sdpa-bwd.skips/1",
         "entries": [{"case": "bshd-pad-odd-17", "arch": "sm_90", "engine": "triton",
                      "reason": "dk wrong when rows are padded - issue 12", "action": "known"}]}

    ``arch`` and ``engine`` may be ``"*"``. ``action`` is ``known`` (run it;
    a failure is reported but does not fail the run) or ``skip`` (do not run
    it at all: for cases that hang or crash the machine). An entry is stale
    when its case is not in the selected cases, or when the case now passes;
    ``sdpa-bwd run --skips FILE`` and ``sdpa-bwd skips check`` report both.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Iterable, Sequence

CLAIMS_SCHEMA = "sdpa-bwd.claims/1"
SKIPS_SCHEMA = "sdpa-bwd.skips/1"
ACTIONS = ("known", "skip")


# -- claims -----------------------------------------------------------------------
def _report(path) -> dict:
    from .report import load_report  # reads .json and .json.gz, and checks the schema

    return load_report(path)


def harvest(report_paths: Sequence, out_dir) -> list[Path]:
    """Write one claims file per (engine, arch) found in the reports; the files written."""
    by_key: dict[tuple[str, str], dict] = {}
    for path in report_paths:
        data = _report(path)
        arch = data.get("environment", {}).get("arch", "unknown")
        for r in data["results"]:
            entry = by_key.setdefault((r["engine"], arch), {"passed": {}, "other": 0, "reports": []})
            if str(path) not in entry["reports"]:
                entry["reports"].append(str(path))
            if r["verdict"] == "passed" and not r.get("claim_broken"):
                entry["passed"][r["case"]] = r.get("description", "")
            else:
                entry["other"] += 1
    written = []
    for (engine, arch), entry in sorted(by_key.items()):
        target = Path(out_dir) / engine / f"{arch}.json"
        target.parent.mkdir(parents=True, exist_ok=True)
        claims = {"schema": CLAIMS_SCHEMA, "engine": engine, "arch": arch, "from_reports": entry["reports"],
                  "not_claimed": entry["other"],
                  "cases": {case: desc for case, desc in sorted(entry["passed"].items())}}
        target.write_text(json.dumps(claims, indent=1) + "\n", encoding="utf-8")
        written.append(target)
    return written


def load_claims(path, engine: str, arch: str) -> tuple[Path, dict]:
    """The claims of ``engine`` on ``arch`` from a claims file or a harvest directory."""
    path = Path(path)
    if path.is_dir():
        path = path / engine / f"{arch}.json"
        if not path.exists():
            raise SystemExit(f"sdpa-bwd: no claims for engine {engine} on {arch}: {path} does not exist - "
                             "harvest a passing run first (sdpa-bwd claims harvest REPORT.json --out DIR)")
    data = json.loads(path.read_text(encoding="utf-8"))
    if data.get("schema") != CLAIMS_SCHEMA:
        raise SystemExit(f"sdpa-bwd: {path} is not a claims file (schema {data.get('schema')!r}, "
                         f"want {CLAIMS_SCHEMA!r})")
    if (data["engine"], data["arch"]) != (engine, arch):
        raise SystemExit(f"sdpa-bwd: {path} holds the claims of {data['engine']} on {data['arch']}, but this "
                         f"run is {engine} on {arch} - pass the claims directory or the matching file")
    return path, data


def enforce(path, engine: str, arch: str, results: Iterable) -> str:
    """Mark every claimed case that did not pass as a broken claim; a one-line summary."""
    source, data = load_claims(path, engine, arch)
    claimed = data["cases"]
    checked = broken = 0
    seen = set()
    for r in results:
        if r.case_id not in claimed:
            continue
        seen.add(r.case_id)
        checked += 1
        if r.verdict != "passed":
            broken += 1
            r.claim_broken = (f"claim broken: {source} says {engine} on {arch} passes {r.case_id}; "
                              f"now {r.verdict}")
            r.message = r.claim_broken + (f" - {r.message}" if r.message else "")
    unchecked = len(set(claimed) - seen)
    return (f"claims of {engine} on {arch} ({source}): {checked} checked, {broken} broken"
            + (f", {unchecked} not in the selected cases" if unchecked else ""))


# -- skip lists ---------------------------------------------------------------------
@dataclass(frozen=True)
class SkipEntry:
    case: str
    arch: str
    reason: str
    engine: str = "*"
    action: str = "known"

    def matches(self, engine: str) -> bool:
        return self.engine in ("*", engine)


@dataclass
class SkipList:
    path: str
    arch: str
    entries: list[SkipEntry]
    passing: list[str] = field(default_factory=list)   # stale: entries whose case passed

    def entries_for(self, engine: str) -> list[SkipEntry]:
        return [e for e in self.entries if e.matches(engine)]

    def apply(self, engine: str, results: Iterable) -> None:
        """Failures of listed cases are known (reported, not failing); passes make the entry stale."""
        by_case = {e.case: e for e in self.entries_for(engine)}
        for r in results:
            entry = by_case.get(r.case_id)
            if entry is None:
                continue
            if r.failing or r.verdict == "skipped":
                r.skip_reason = entry.reason
            elif r.verdict == "passed":
                self.passing.append(f"{r.case_id} (engine {engine}, {self.arch}) now passes - remove the entry "
                                    f"from {self.path}")

    def stale(self, cases: Sequence, results: Sequence = ()) -> list[str]:
        ids = {c.id if hasattr(c, "id") else c for c in cases}
        out = [f"{e.case} (engine {e.engine}, arch {e.arch}) is not a case of the selected plan "
               f"({len(ids)} cases) - remove it from {self.path} if the plan dropped it"
               for e in self.entries if e.case not in ids]
        return out + self.passing


def load_skips(path, arch: str) -> SkipList:
    """The entries of a skip-list file that apply on ``arch``; ValueError naming a malformed entry."""
    data = json.loads(Path(path).read_text(encoding="utf-8"))
    if not isinstance(data, dict) or data.get("schema") != SKIPS_SCHEMA:
        raise ValueError(f"{path}: not a skip list (want an object with schema {SKIPS_SCHEMA!r})")
    entries = []
    for n, item in enumerate(data.get("entries", [])):
        missing = [k for k in ("case", "arch", "reason") if not str(item.get(k, "")).strip()]
        if missing:
            raise ValueError(f"{path}: entry {n} ({item.get('case', '?')}) lacks {', '.join(missing)}: every entry "
                             "names its case, its arch ('*' for all) and the reason it is listed")
        unknown = set(item) - {"case", "arch", "reason", "engine", "action", "issue"}
        if unknown:
            raise ValueError(f"{path}: entry {n} ({item['case']}) has unknown keys {sorted(unknown)}")
        if item.get("action", "known") not in ACTIONS:
            raise ValueError(f"{path}: entry {n} ({item['case']}) action {item['action']!r} is not one of {ACTIONS}")
        entry = SkipEntry(item["case"], item["arch"], item["reason"], item.get("engine", "*"),
                          item.get("action", "known"))
        if entry.arch in ("*", arch):
            entries.append(entry)
    return SkipList(str(path), arch, entries)


def _harvested_verdicts() -> tuple[str, ...]:
    """The runner's failing verdicts, nondeterminism included (an engine that does not claim
    determinism is worth a known entry too), a malformed case (the plan's fault) excluded."""
    from .judge import FAILING

    return tuple(v for v in FAILING if v != "invalid-case") + ("nondeterministic",)


def harvest_skips(report_paths: Sequence, out_path, *, skip_faults: bool = False) -> dict:
    """A skip list of ``known`` entries, one per failing case of each report, with what was seen.

    Every reason quotes the run: verdict, message, and what the fresh-process
    replay and the packed control said, so an entry never claims more than the
    run showed. With ``skip_faults`` a case that faulted (poisoned the context)
    gets ``action: skip``. Existing entries of the file for other cases are kept.
    """
    out_path = Path(out_path)
    entries: dict[tuple[str, str, str], dict] = {}
    if out_path.exists():
        old = json.loads(out_path.read_text(encoding="utf-8"))
        for item in old.get("entries", []):
            entries[(item["case"], item.get("engine", "*"), item["arch"])] = item
    harvested = _harvested_verdicts()
    for path in report_paths:
        data = _report(path)
        env = data.get("environment", {})
        arch = env.get("arch", "unknown")
        where = f"{env.get('device', '?')}, torch {env.get('torch', '?')}"
        for r in data["results"]:
            if r["verdict"] not in harvested:
                continue
            seen = f"{r['verdict']} on {where} ({Path(path).name})"
            replay = r.get("replay") or {}
            if replay.get("verdict"):
                seen += f"; alone in a fresh process: {replay['verdict']}"
            control = r.get("layout_control") or {}
            if isinstance(control, dict) and control.get("verdict"):
                seen += f"; packed BHSD control: {control['verdict']}"
            message = " ".join((r.get("message") or "").split())[:300]
            entries[(r["case"], r["engine"], arch)] = {
                "case": r["case"], "engine": r["engine"], "arch": arch,
                "action": "skip" if skip_faults and r["verdict"] == "fault" else "known",
                "reason": f"{seen}: {message}"}
    data = {"schema": SKIPS_SCHEMA,
            "entries": [entries[k] for k in sorted(entries)]}
    out_path.parent.mkdir(parents=True, exist_ok=True)
    out_path.write_text(json.dumps(data, indent=1) + "\n", encoding="utf-8")
    return data


# -- commands ------------------------------------------------------------------------
def cmd_skips_harvest(args) -> int:
    data = harvest_skips(args.reports, args.out, skip_faults=args.skip_faults)
    print(f"{args.out}: {len(data['entries'])} entries")
    return 0


def cmd_claims_harvest(args) -> int:
    written = harvest(args.reports, args.out)
    for path in written:
        data = json.loads(path.read_text(encoding="utf-8"))
        print(f"{path}: {len(data['cases'])} cases claimed by {data['engine']} on {data['arch']}")
    if not written:
        print("no results in the reports: nothing to claim")
        return 2
    return 0


def cmd_skips_check(args) -> int:
    """Stale entries of a skip list against a report (and the selected level's case ids)."""
    data = _report(args.report)
    arch = args.arch or data.get("environment", {}).get("arch", "unknown")
    skips = load_skips(args.skips, arch)
    if args.level:
        from .plan import load_level

        ids = [c.id for c in load_level(args.level)]
    else:
        ids = sorted({r["case"] for r in data["results"]})
    for r in data["results"]:
        for e in skips.entries_for(r["engine"]):
            if e.case == r["case"] and r["verdict"] == "passed":
                skips.passing.append(f"{e.case} (engine {r['engine']}, {arch}) now passes - remove the entry "
                                     f"from {args.skips}")
    stale = skips.stale(ids)
    for line in stale:
        print(f"stale: {line}")
    print(f"{len(skips.entries)} entries apply on {arch}; {len(stale)} stale")
    return 1 if stale else 0


def add_commands(sub) -> None:
    claims = sub.add_parser("claims", help="support claims per engine and GPU arch, harvested from run reports")
    csub = claims.add_subparsers(dest="claims_command", required=True)
    h = csub.add_parser("harvest", help="write DIR/<engine>/<arch>.json: the cases each engine passed")
    h.add_argument("reports", nargs="+", help="run reports (sdpa-bwd run --json)")
    h.add_argument("--out", default="data/claims", help="directory of claims files (default data/claims)")
    h.set_defaults(func=cmd_claims_harvest)

    skips = sub.add_parser("skips", help="known-defect skip lists")
    ssub = skips.add_subparsers(dest="skips_command", required=True)
    c = ssub.add_parser("check", help="report stale entries: cases not in the plan, or that now pass")
    c.add_argument("skips", help="skip-list file")
    c.add_argument("--report", required=True, help="a run report to check against")
    c.add_argument("--level", help="the plan level whose case ids are current (default: the report's cases)")
    c.add_argument("--arch", help="arch to select entries for (default: the report's)")
    c.set_defaults(func=cmd_skips_check)
    hv = ssub.add_parser("harvest", help="known entries for every failing case of the reports, with what was seen")
    hv.add_argument("reports", nargs="+", help="run reports (sdpa-bwd run --json)")
    hv.add_argument("--out", required=True, help="skip-list file to write (entries for other cases are kept)")
    hv.add_argument("--skip-faults", action="store_true",
                    help="mark cases that faulted 'skip' (not run) instead of 'known'")
    hv.set_defaults(func=cmd_skips_harvest)
