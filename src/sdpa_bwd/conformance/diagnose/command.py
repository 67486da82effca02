"""``sdpa-bwd diagnose``: find the case (a cases file, a plan level, a run report), diagnose it, print it."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Optional

from ...problem.cases import BUILTIN_CASES, Case, load_cases
from ...backends import get_engine, require_engines
from .decision import REPORT_FAILURES, diagnose
from .printing import print_diagnosis


# ----------------------------------------------------------------------------
# Finding the case


def find_case(case_id: str, *, cases_path: Optional[str] = None, level: Optional[str] = None) -> Case:
    pools = []
    if cases_path:
        pools.append(load_cases(cases_path))
    if level:
        from ..plan import load_level

        pools.append(load_level(level))
    from ..defects import SYMPTOM_CASES

    pools.append(list(BUILTIN_CASES) + list(SYMPTOM_CASES))
    for pool in pools:
        for c in pool:
            if c.id == case_id:
                return c
    if not cases_path and not level:
        try:
            from ..plan import load_level

            for lvl in ("quick", "standard", "nightly", "full"):
                for c in load_level(lvl):
                    if c.id == case_id:
                        return c
        except Exception:  # the plan is optional here
            pass
    raise SystemExit(f"sdpa-bwd diagnose: no case with id {case_id} - pass --cases FILE or --level LEVEL")


def failures_in_report(path: str, engine: Optional[str] = None) -> list[dict]:
    from ..report import load_report

    data = load_report(path)
    return [r for r in data.get("results", []) if r.get("verdict") in REPORT_FAILURES
            and (engine is None or r.get("engine") == engine)]


def cmd_diagnose(args) -> int:
    from rich.console import Console

    console = Console()
    engine_name = args.engine
    require_engines([engine_name], "diagnose")
    engine = get_engine(engine_name)
    targets: list[tuple[str, Optional[str]]] = []
    if args.report:
        failed = failures_in_report(args.report, engine_name)
        from ..report import load_report

        verdicts = {r["case"]: r["verdict"] for r in load_report(args.report)["results"]
                    if r.get("engine") == engine_name}
        if args.case_id:
            targets = [(args.case_id, verdicts.get(args.case_id))]
        else:
            targets = [(r["case"], r["verdict"]) for r in failed[: args.max]]
            if not targets:
                console.print(f"no failures of {engine_name} in {args.report}")
                return 0
    elif args.case_id:
        targets = [(args.case_id, None)]
    else:
        raise SystemExit("sdpa-bwd diagnose: give a CASE_ID or --report RUN.json")
    results = []
    for i, (case_id, reported) in enumerate(targets):
        case = find_case(case_id, cases_path=args.cases, level=args.level)
        d = diagnose(engine, case, engine_name=engine_name, replay=not args.no_replay, report_verdict=reported)
        png = args.png
        if png and len(targets) > 1:
            png = str(Path(png).with_name(f"{Path(png).stem}-{case_id}{Path(png).suffix or '.png'}"))
        print_diagnosis(d, console, png)
        results.append(d.to_dict())
    if args.json:
        Path(args.json).write_text(json.dumps(results, indent=1, default=str) + "\n", encoding="utf-8")
        console.print(f"diagnosis written to {args.json}")
    return 0


def add_commands(subparsers) -> None:
    # The debug switch for the seeded defects (never on by default): with
    # SDPA_BWD_DEFECTS=1 every command sees the engines triton-defect:<class>.
    from .. import defects

    if defects.switch_on():
        defects.register_defects()
    p = subparsers.add_parser("diagnose", help="from a failing case to a named defect class")
    p.add_argument("case_id", nargs="?", help="the failing case's id (default with --report: its failures)")
    p.add_argument("--engine", default="triton", help="engine name (default: triton)")
    p.add_argument("--report", help="a run report (sdpa-bwd run --json): diagnose its failures")
    p.add_argument("--cases", help="JSON file of cases holding CASE_ID")
    p.add_argument("--level", help="a level of the generated plan holding CASE_ID")
    p.add_argument("--png", help="write the (batch, head) x sequence error heatmap here")
    p.add_argument("--json", help="write the evidence and the ranking here")
    p.add_argument("--no-replay", action="store_true", help="skip the replay in a fresh process")
    p.add_argument("--max", type=int, default=5, help="with --report and no CASE_ID: at most this many failures")
    p.set_defaults(func=cmd_diagnose)
