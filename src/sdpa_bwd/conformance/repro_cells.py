"""``sdpa-bwd repros REPORT... --out DIR [--run]``: a standalone file (``repro.render``) for every failing cell of
run reports, each beside a twin engine's file of the same case, and with ``--run`` each run alone in a fresh process;
``DIR/index.md`` says whether the engine's file fails and the twin's passes: the check that a finding is the engine's
and needs nothing but its file. A cell whose failure did not repeat in the run (order-dependent, or bits changed in a
rerun) gets a file that runs its sequence up to ``INTERMITTENT_REPEAT`` times."""

from __future__ import annotations

from pathlib import Path
from typing import Optional

from .outcome import changed_elements
from .repro import SDPA_OPS, ran_before, render

# `repros --run`: a file whose cases need more than this (the runner's estimate, `case_cost`) runs alone, after
# the others (2026-12-07, H100: 14 files at once, four files of 2^31-offset cases and of the case after a long
# one ran out of memory beside the others, their cases 10-16 GiB each).
RUN_ALONE_BYTES = 4 << 30

# A failure the runner saw once but not again (its rerun changed bits, or its replay alone passed) may be a race
# or state that builds up: such a cell's file runs its sequence this many times by default (--repeat).
INTERMITTENT_REPEAT = 20


def _report_level(report: dict) -> Optional[str]:
    """The plan level a run report ran (its ``--level`` argument), or None."""
    argv = list(report.get("argv") or [])
    return argv[argv.index("--level") + 1] if "--level" in argv[:-1] else None


def _run_file(path: Path, timeout: float) -> tuple:
    """(exit status or "timeout", the output's last line) of ``python path`` in a fresh process."""
    import subprocess
    import sys

    try:
        done = subprocess.run([sys.executable, str(path)], capture_output=True, text=True, timeout=timeout)
    except subprocess.TimeoutExpired:
        return "timeout", f"no result in {timeout:.0f} s"
    lines = (done.stdout + done.stderr).strip().splitlines()
    return done.returncode, lines[-1] if lines else ""


def cmd_repros(args) -> int:
    """Every failing cell of run reports as standalone files (``render``), each engine's beside a twin engine's of
    the same case (default ``triton``); with ``--run`` each file runs alone in a fresh process and ``index.md`` says
    whether the engine's file fails (exit 1, or a crash) and the twin's passes (exit 0): the check that a finding
    is the engine's and needs nothing but its file."""
    from concurrent.futures import ThreadPoolExecutor

    from .diagnose.command import find_case
    from .plan.cost import case_cost
    from .report import load_report, replay_skipped

    out = Path(args.out)
    rows = []
    heavy = set()   # files run alone (RUN_ALONE_BYTES)
    for path in args.reports:
        report = load_report(path)
        level = args.level or _report_level(report)
        for r in report.get("results", []):
            if not r.get("failing") or r.get("engine") == args.twin:
                continue
            if args.cell and not ({r["case"], f"{r['engine']}:{r['case']}"} & set(args.cell)):
                continue
            row = dict(engine=r["engine"], case=r["case"], verdict=r["verdict"], report=str(path), files={})
            rows.append(row)
            try:
                case = find_case(r["case"], level=level)
                if getattr(case, "ragged", False) or case.purpose == "probe":
                    kind = "varlen case" if getattr(case, "ragged", False) else "probe"
                    raise ValueError(f"a {kind}: rerun it with {case.repro(r['engine'])}")
                # the cases its worker ran before it run first where the failure is an order effect, and where the
                # runner never ran the case alone (its replay skipped, over --replay-limit): what it saw came after them
                unreplayed = replay_skipped(r) is not None
                in_order = r["verdict"] == "order-dependent" or unreplayed
                before = ran_before(report["results"], r, lambda i: find_case(i, level=level)) if in_order else []
                notes = _run_notes(r, ", ".join(c.id for c in before) if unreplayed and before else None)
                if notes:
                    row["note"] = notes
                why = intermittent(r)
                repeat = INTERMITTENT_REPEAT if why else 1
                if args.repeat:
                    why, repeat = "--repeat given to sdpa-bwd repros", args.repeat
                if repeat > 1:
                    row["repeat"] = repeat
                for engine in (r["engine"], args.twin):
                    f = out / engine.replace(":", "-") / f"{case.id}.py"
                    f.parent.mkdir(parents=True, exist_ok=True)
                    if not (args.keep and f.exists()):
                        f.write_text(render(engine, case, before, filename=f.name, repeat=repeat,
                                            repeat_why=why or "one run"), encoding="utf-8")
                    row["files"][engine] = f
                if max(case_cost(c).bytes for c in [*before, case]) > RUN_ALONE_BYTES:
                    heavy.update(row["files"].values())
            except (ValueError, KeyError, SystemExit) as e:
                row["files"], row["note"] = {}, f"no file: {e}"
    if args.run:
        import time

        # every engine's file before the twins': under --deadline the findings are checked first; the heavy files
        # last, one at a time
        files = [row["files"][row["engine"]] for row in rows if row["files"]] \
            + [row["files"][args.twin] for row in rows if row["files"]]
        stop = time.monotonic() + args.deadline if args.deadline else None

        repeats = {f: row.get("repeat", 1) for row in rows for f in row["files"].values()}

        def run(f):
            if stop is not None and time.monotonic() > stop:
                return "not run", f"--deadline {args.deadline:.0f} s passed before it started"
            return _run_file(f, args.timeout * repeats[f])

        light = [f for f in files if f not in heavy]
        with ThreadPoolExecutor(max(1, args.jobs)) as pool:
            ran = dict(zip(light, pool.map(run, light)))
        ran.update((f, run(f)) for f in files if f in heavy)
        for row in rows:
            row["ran"] = {engine: ran[f] for engine, f in row["files"].items()}
    return _write_index(out, rows, args)


def intermittent(r: dict) -> Optional[str]:
    """Why a failing cell's failure may not show in one run of its file (its rerun changed bits, or the runner's
    replay alone passed: a race, or state that builds up), or None."""
    if r.get("rerun_changed"):
        return f"the runner's rerun changed bits ({changed_elements(r['rerun_changed'])})"
    if r.get("verdict") == "order-dependent":
        return "the runner's replay alone passed"
    return None


def _run_notes(r: dict, unreplayed_after: Optional[str]) -> str:
    """What the reader of a row needs beside the exit statuses: a failure in checks the file does not judge (it
    judges dQ, dK, dV; for the torch-* adapters their own O; for the operator adapters their forward's stats too),
    and a file that runs the case the runner ran before it because the runner never replayed the case alone."""
    from .report import replay_skipped

    checks = r.get("checks") or {}
    failed = [n for n, c in checks.items() if isinstance(c, dict) and c.get("passed") is False]
    judged = {"dq", "dk", "dv", "o"} | ({"stats"} if r["engine"] in SDPA_OPS else set())
    notes = []
    if failed and not set(failed) & judged:
        notes.append(f"the runner's failing checks are {', '.join(failed)}; the file judges "
                     f"{', '.join(sorted(judged))} only, so it passes where only those were wrong")
    elif failed and not set(failed) & {"dq", "dk", "dv"} and not r["engine"].startswith("torch-"):
        notes.append(f"the runner's failing checks are the forward's ({', '.join(failed)}); this engine's file "
                     "judges dQ, dK and dV only (its backward takes the caller's O)")
    if unreplayed_after:
        notes.append(f"the runner skipped its replay alone ({replay_skipped(r)}): the file runs "
                     f"{unreplayed_after} first, as the runner did")
    return "; ".join(notes)


def _write_index(out: Path, rows: list, args) -> int:
    """index.md and index.json under ``out``; 1 where a run file did not fail alone or its twin did not pass."""
    import json

    out.mkdir(parents=True, exist_ok=True)
    twin = args.twin
    lines = [f"# Repro files of {len(rows)} failing cells", "",
             "Written by `sdpa-bwd repros " + " ".join(str(p) for p in args.reports) + f" --out {out}"
             + (" --run" if args.run else "") + f"`; twin engine `{twin}`. Exit status of each file run alone "
             "in a fresh process: 0 passes, 1 fails, 2 declines (another value: it crashed).", "",
             f"| engine | case | verdict | file | alone | {twin} twin |", "|---|---|---|---|---|---|"]
    bad = 0
    for row in rows:
        f = row["files"].get(row["engine"])
        ran = row.get("ran", {})
        mine, theirs = ran.get(row["engine"], ("", "")), ran.get(twin, ("", ""))
        if args.run and f is not None:
            ok = mine[0] not in (0, 2, "timeout", "not run") and theirs[0] == 0
            bad += not ok
            alone = (str(mine[0]) if isinstance(mine[0], str) else f"exit {mine[0]}") \
                + (f" (up to {row['repeat']} runs)" if row.get("repeat") else "") \
                + (" **not reproduced**" if mine[0] in (0, 2, "timeout") else "") \
                + (f" ({row['note']})" if row.get("note") else "")
            twin_cell = (str(theirs[0]) if isinstance(theirs[0], str) else f"exit {theirs[0]}") \
                + (" **twin fails**" if theirs[0] not in (0, "not run") else "")
        else:
            alone, twin_cell = ("not run" + (f" ({row['note']})" if row.get("note") else ""), "not run") \
                if f is not None else (row.get("note", ""), "")
        rel = f.relative_to(out) if f is not None else ""
        lines.append(f"| {row['engine']} | {row['case']} | {row['verdict']} | {rel} | {alone} | {twin_cell} |")
    (out / "index.md").write_text("\n".join(lines) + "\n", encoding="utf-8")
    (out / "index.json").write_text(json.dumps(
        [dict(row, files={e: str(f.relative_to(out)) for e, f in row["files"].items()},
              ran={e: list(v) for e, v in row.get("ran", {}).items()}) for row in rows], indent=1), encoding="utf-8")
    written = sum(1 for row in rows if row["files"])
    print(f"{len(rows)} failing cells, {written} with files, in {out}/index.md"
          + (f"; {written - bad} of {written} fail alone with their {twin} twin passing" if args.run else ""))
    return 1 if bad else 0


def add_commands(subparsers) -> None:
    p = subparsers.add_parser("repros", help="a standalone file for every failing cell of run reports, with a twin "
                                             "engine's beside it; --run runs each alone and writes index.md")
    p.add_argument("reports", nargs="+", help="run reports (sdpa-bwd run --json; .gz read as is)")
    p.add_argument("--out", required=True, help="the folder to write: ENGINE/CASE.py, index.md, index.json")
    p.add_argument("--cell", action="append", metavar="[ENGINE:]CASE",
                   help="only this failing cell (repeatable; a bare case id: that case on every engine)")
    p.add_argument("--twin", default="triton", help="the engine whose file of each case should pass (default "
                                                      "triton)")
    p.add_argument("--level", help="the plan level holding the cases (default: each report's own --level)")
    p.add_argument("--run", action="store_true", help="run every file alone, in a fresh process each")
    p.add_argument("--keep", action="store_true", help="run the files already in --out as they are (written "
                                                        "earlier, e.g. on a machine without the GPU)")
    p.add_argument("--jobs", type=int, default=4, help="files run at once with --run (default 4; a file whose "
                                                        f"cases need over {RUN_ALONE_BYTES >> 30} GiB runs alone, "
                                                        "after the others)")
    p.add_argument("--repeat", type=int, help="every file runs its sequence up to N times, stopping at the first "
                                              f"failure (default: {INTERMITTENT_REPEAT} for a cell whose failure did "
                                              "not repeat in the run, its replay alone or its rerun; else once)")
    p.add_argument("--timeout", type=float, default=300.0, help="seconds a file may run, each of its runs "
                                                               "(default 300)")
    p.add_argument("--deadline", type=float, help="seconds after which no further file starts (those left say so)")
    p.set_defaults(func=cmd_repros)
