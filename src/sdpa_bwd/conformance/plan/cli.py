"""``sdpa-bwd plan``: write, check and report the generated test plan.

    sdpa-bwd plan --report              counts per level and purpose, budgets, the pairwise proof, legality
    sdpa-bwd plan --check               exit 1 if the bundles on disk drift from the generator (CI)
    sdpa-bwd plan --write               regenerate the bundles (the only way they change)
    sdpa-bwd plan --exhaustive bands [--out FILE]   enumerate a declared sub-space fully
"""

from __future__ import annotations

import sys
from collections import Counter


def add_commands(subparsers) -> None:
    plan = subparsers.add_parser("plan", help="the generated test plan: --report, --check, --write, --exhaustive")
    plan.add_argument("--write", action="store_true", help="regenerate the bundles under data/plan/v1/")
    plan.add_argument("--check", action="store_true", help="fail if the bundles on disk drift from the generator")
    plan.add_argument("--report", action="store_true", help="counts, budgets, pairwise proof, legality (default)")
    plan.add_argument("--exhaustive", metavar="SUBSPACE",
                      help="enumerate a declared sub-space fully (list them with --exhaustive list)")
    plan.add_argument("--out", help="with --exhaustive: write the cases here (run them with `sdpa-bwd run --cases`)")
    plan.set_defaults(func=cmd_plan)


def cmd_plan(args) -> int:
    from . import generate

    if args.exhaustive:
        return _exhaustive(args)
    status = 0
    if args.write:
        for path in generate.write_bundles():
            print(f"wrote {path}")
    if args.check:
        problems = generate.check_bundles()
        for line in problems:
            print(f"DRIFT: {line}", file=sys.stderr)
        if problems:
            status = 1
        else:
            print(f"bundles match the generator ({generate.BUNDLE_DIR})")
    if args.report or not (args.write or args.check):
        status = max(status, report())
    return status


def _exhaustive(args) -> int:
    from ...problem.cases import dump_cases
    from .generate import EXHAUSTIVE, exhaustive

    if args.exhaustive == "list":
        for name, (_, what) in EXHAUSTIVE.items():
            print(f"{name:12s} {what}")
        return 0
    try:
        cases = exhaustive(args.exhaustive)
    except ValueError as exc:
        print(f"sdpa-bwd plan: {exc}", file=sys.stderr)
        return 2
    print(f"exhaustive {args.exhaustive}: {len(cases)} cases ({EXHAUSTIVE[args.exhaustive][1]})")
    if args.out:
        dump_cases(cases, args.out)
        print(f"wrote {args.out}; run with: sdpa-bwd run --engine ENGINE --cases {args.out}")
    return 0


def report() -> int:
    """Print the plan's report from the bundles on disk; 1 if anything is out of bounds."""
    from ...problem import Problem
    from .bundles import load_level
    from .cost import LEVELS, LIMITS, human_bytes, level_totals
    from .legality import RULES
    from .pairwise import prove
    from .probes import probes
    from .regressions import REGRESSION_CLASSES

    cases = load_level("full", memory_budget=None)
    status = 0
    print(f"sdpa-bwd test plan: {len(cases)} written cases in {len(LEVELS)} levels (a level runs its own cases and those of the rows above it)")
    print()
    purposes = ("claim", "regression", "probe")
    print(f"{'level':9s} " + " ".join(f"{p:>10s}" for p in purposes) + f" {'total':>7s} {'cumul.':>7s}"
          f"  {'est. time (cumul.)':>22s}  {'budget':>8s}  {'peak case':>10s}  {'limit':>10s}")
    totals = level_totals(cases)
    counts = Counter((c.level, c.purpose) for c in cases)
    for level in LEVELS:
        t = totals[level]
        lim = LIMITS[level]
        flag = "" if t["within_budget"] else "  OVER BUDGET"
        if flag:
            status = 1
        print(f"{level:9s} " + " ".join(f"{counts[(level, p)]:>10d}" for p in purposes)
              + f" {t['cases']:>7d} {t['cumulative_cases']:>7d}  {t['cumulative_seconds']:>14.1f} s ({lim.machine})"
              f"  {lim.budget_seconds:>6.0f} s  {human_bytes(t['peak_bytes']):>10s}  {human_bytes(lim.case_bytes):>10s}"
              + flag)
    print()
    for level in LEVELS:
        print(f"  {level}: {LIMITS[level].why}")
    print()
    proof = prove(cases)
    print(proof.summary())
    if not proof.complete:
        status = 1
    from .legality import written_violations

    bad = written_violations(cases)
    print(f"legality violations: {len(bad)} ({len(RULES)} rules)")
    for line in bad[:20]:
        print("  " + line)
    status = max(status, 1 if bad else 0)
    n_probes = sum(1 for c in cases if c.purpose == "probe")
    print(f"rejection probes: {n_probes}, each with expected_rejection")
    present = {cov.split(":", 1)[1] for c in cases for cov in c.covers if cov.startswith("regression:")}
    missing = sorted(set(REGRESSION_CLASSES) - present)
    print(f"regression classes: {len(present & set(REGRESSION_CLASSES))} of {len(REGRESSION_CLASSES)} with cases"
          + (f"; MISSING {missing}" if missing else ""))
    if missing:
        status = 1
    over = [c for c in cases if c.level == "full" and _max_offset(c) >= 1 << 31]
    print(f"cases with element offsets past 2^31 (full): {len(over)}")
    return status


def _max_offset(case) -> int:
    from .cost import case_cost

    return case_cost(case).max_offset
