"""The ``sdpa-bwd`` command."""

from __future__ import annotations

import argparse
import sys
from typing import Optional, Sequence

from .cases import BUILTIN_CASES, Case, load_cases


def _select_cases(args) -> tuple[list[Case], Optional[str]]:
    """The cases named by --cases/--level (else the built-in list), filtered by --case/--filter."""
    source = None
    if args.cases:
        cases, source = load_cases(args.cases), f"--cases {args.cases}"
    elif getattr(args, "level", None):
        from .plan import load_level

        cases, source = load_level(args.level), None
    else:
        cases = list(BUILTIN_CASES)
    if args.case:
        by_id = {c.id: c for c in cases}
        missing = [i for i in args.case if i not in by_id]
        if missing:
            raise SystemExit(f"sdpa-bwd: no case with id {', '.join(missing)} in the selected cases "
                             f"({len(cases)} of them) - check the id or pass --cases/--level")
        cases = [by_id[i] for i in args.case]
    for pattern in args.filter or ():
        cases = [c for c in cases if pattern in c.id or pattern in c.describe()]
    return cases, source


def cmd_run(args) -> int:
    from rich.console import Console

    from .engines import get_engine
    from .report import print_table, write_json
    from .runner import FAILING, run_cases

    console = Console()
    cases, source = _select_cases(args)
    if not cases:
        console.print("[yellow]no cases selected[/] - loosen --filter or --case")
        return 2
    results = []
    for name in args.engine or ["triton"]:
        engine = get_engine(name)
        console.print(f"[bold]{name}[/] on {engine.device()}: {len(cases)} cases")
        results += run_cases(engine, cases, source=source, progress=not args.no_progress)
    print_table(results, console)
    if args.json:
        write_json(results, args.json, {"argv": sys.argv[1:]})
        console.print(f"report written to {args.json}")
    return 1 if any(r.verdict in FAILING for r in results) else 0


def cmd_info(args) -> int:
    from rich.console import Console
    from rich.table import Table

    from .engines import engine_names, get_engine
    from .report import environment

    console = Console()
    for key, value in environment().items():
        console.print(f"[bold]{key}[/]: {value}")
    table = Table(title="engines", header_style="bold")
    notes: list[str] = []
    for col in ("engine", "device", "dtypes", "max D", "bands", "GQA", "H_k!=H_v", "D_qk!=D_v", "det", "fwd"):
        table.add_column(col, overflow="fold")
    for name in engine_names():
        try:
            engine = get_engine(name)
        except Exception as exc:  # an engine that cannot import is reported, not fatal
            table.add_row(name, "[red]unavailable", "-", "-", "-", "-", "-", "-", "-", "-")
            notes.append(f"{name}: cannot be loaded: {exc}")
            continue
        c = engine.capabilities
        yes = lambda b: "yes" if b else "no"  # noqa: E731
        table.add_row(name, engine.device(), ",".join(d.replace("float", "f").replace("bf", "bf") for d in c.dtypes),
                      str(c.max_head_dim) if c.max_head_dim < 1 << 20 else "any",
                      yes(c.band_masks) if c.band_masks else ("causal" if c.causal else "no"),
                      yes(c.gqa), yes(c.distinct_kv_heads), yes(c.distinct_head_dims), yes(c.deterministic),
                      yes(c.forward))
        notes.append(f"{name}: {engine.description}" + (f" ({c.notes})" if c.notes else ""))
    console.print(table)
    for line in notes:
        console.print(line)
    return 0


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="sdpa-bwd", description=__doc__)
    sub = parser.add_subparsers(dest="command", required=True)

    run = sub.add_parser("run", help="check engines against the float64 oracle")
    run.add_argument("--engine", action="append", help="engine name (repeatable; default: triton, our engine)")
    run.add_argument("--cases", help="JSON file of cases (default: the built-in list)")
    run.add_argument("--level", help="a level of the generated test plan: quick, standard, nightly, full")
    run.add_argument("--case", action="append", help="run only the case with this id (repeatable)")
    run.add_argument("--filter", action="append", help="keep cases whose id or description contains this")
    run.add_argument("--json", help="write a machine-readable report here")
    run.add_argument("--no-progress", action="store_true", help="no progress bar")
    run.set_defaults(func=cmd_run)

    info = sub.add_parser("info", help="versions, device, and every registered engine")
    info.set_defaults(func=cmd_info)

    # Commands that live beside the part of the project they drive: each module
    # exposes add_commands(subparsers). A module not written yet is skipped.
    import importlib

    for module in ("sdpa_bwd.plan.cli", "sdpa_bwd.claims", "sdpa_bwd.matrix", "sdpa_bwd.diagnose",
                   "sdpa_bwd.bench"):
        try:
            mod = importlib.import_module(module)
        except ModuleNotFoundError as exc:
            if exc.name and module.startswith(exc.name):
                continue
            raise
        mod.add_commands(sub)
    return parser


def main(argv: Optional[Sequence[str]] = None) -> int:
    args = build_parser().parse_args(argv)
    return args.func(args)


if __name__ == "__main__":
    raise SystemExit(main())
