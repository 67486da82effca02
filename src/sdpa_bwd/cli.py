"""The ``sdpa-bwd`` command."""

from __future__ import annotations

import argparse
import sys
from typing import Optional, Sequence

from .problem.cases import BUILTIN_CASES, Case, load_cases

# The main job checks our engine through both of its doors: the launcher on the calling thread, and the public
# API under autograd (on CUDA its backward runs on autograd's device thread), which is the path users take.
DEFAULT_ENGINES = ("triton", "triton-api")
MAX_DEFAULT_WORKERS = 16


def default_workers() -> int:
    """One worker process a CPU core, at most 16: a cold run's time is Triton compiling each case's kernels,
    one case at a time a worker (an H100 machine, 16 cores, issue 51: 249 of 270 s compiling with one)."""
    import os

    return max(1, min(os.cpu_count() or 1, MAX_DEFAULT_WORKERS))


def _select_cases(args) -> tuple[list[Case], Optional[str]]:
    """The cases named by --cases/--level (else the built-in list), filtered by --case/--filter."""
    source = None
    if args.cases:
        cases, source = load_cases(args.cases), f"--cases {args.cases}"
    elif getattr(args, "level", None):
        from .conformance.plan import load_level

        try:
            cases, source = load_level(args.level), None
        except ValueError as exc:
            raise SystemExit(f"sdpa-bwd: {exc}") from None
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


def _memory_limit_bytes(engine, limit_gib: Optional[float]) -> int:
    """Memory one device may give the cases running on it at once: --memory-limit, else 80% of
    the GPU's free memory, else 4 GiB on the CPU (CI has 24 GiB and the float64 oracle holds
    several copies of each tensor). Workers sharing a device share it through the runner's
    memory gate (``sdpa_bwd.conformance.schedule.MemoryGate``), not by splitting it in advance."""
    if limit_gib is not None:
        return int(limit_gib * (1 << 30))
    import torch

    if engine.device() == "cuda" and torch.cuda.is_available():  # a CUDA-only engine here without CUDA declines
        return int(0.8 * torch.cuda.mem_get_info()[0])
    return 4 << 30


def _over_memory(cases, limit: int) -> dict[str, str]:
    """Cases whose cost model says they allocate more than this machine allows: skipped, with why."""
    try:
        from .conformance.plan.cost import case_cost
    except ImportError:  # no plan package: nothing to estimate with
        return {}
    out = {}
    for case in cases:
        need = case_cost(case).bytes
        if need > limit:
            out[case.id] = (f"the cost model says it needs about {need / (1 << 30):.1f} GiB, over this machine's limit of "
                            f"{limit / (1 << 30):.1f} GiB - run it on a GPU with more memory or raise --memory-limit")
    return out


class _Stopped(Exception):
    """SIGTERM (a CI step's or ``timeout``'s limit) arrived mid-run."""


def _stop_on_sigterm(signum, frame):
    raise _Stopped(f"signal {signum}")


def default_reruns() -> int:
    """Runs per case when ``--reruns`` is not given: 2 on a machine with CUDA, 1 without.

    A rerun on identical inputs finds bits that change between runs: races and atomics on a GPU, and state an
    engine keeps between calls. Without CUDA our kernels run in Triton's interpreter, one program at a time in a
    fixed order, so only kept state is left to find, and the quick level's order probes look for it with other
    strides and other values (a second call wrong by what the first left behind fails the values-alone probe as it
    would fail a rerun). The rerun was 45% of each case's time there (pair-006 on the launcher: engine 9.2 s,
    rerun 8.9 s, forward check 3.8 s; 2 cores, 2026-12-07).
    """
    import torch

    return 2 if torch.cuda.is_available() else 1


def cmd_run(args) -> int:
    from rich.console import Console

    from .conformance.worker import import_engine_modules

    console = Console()
    import_engine_modules()
    from .backends import require_engines

    require_engines(args.engine or DEFAULT_ENGINES, "run")
    if args.workers is None:
        args.workers = 1 if args.in_process else default_workers()
    pool = []
    if not args.in_process and args.workers > 1:
        # The first engine's workers start now, while the plan loads (runner.prestart_workers).
        from .conformance.runner import prestart_workers

        pool = prestart_workers(args.workers, (args.engine or DEFAULT_ENGINES)[0], timeout=args.timeout)
    try:
        return _cmd_run(args, console, pool)
    finally:
        for w in pool:   # any the run did not take over (no cases, a bad argument, a stop): no case of theirs runs
            w.kill()
            w.close()


def _cmd_run(args, console, pool) -> int:
    from .conformance.report import print_table, write_json
    from .conformance.runner import parse_shard, shard

    cases, source = _select_cases(args)
    if args.shard:
        try:
            i, n = parse_shard(args.shard)
        except ValueError as exc:
            raise SystemExit(f"sdpa-bwd: {exc}") from None
        cases = shard(cases, i, n)
        console.print(f"shard {i}/{n}: {len(cases)} cases")
    if not cases:
        console.print("[yellow]no cases selected[/] - loosen --filter or --case")
        return 2
    if args.reruns is None:
        args.reruns = default_reruns()
    if args.reruns < 1:
        raise SystemExit(f"sdpa-bwd: --reruns {args.reruns}: the engine must run at least once")
    if args.in_process and args.workers != 1:
        raise SystemExit("sdpa-bwd: --workers needs worker processes; drop --in-process")
    skips = arch = None
    if args.skips or args.enforce_claims:
        from .conformance import claims as claims_mod
        from .conformance.report import environment

        arch = environment()["arch"]
        skips = claims_mod.load_skips(args.skips, arch) if args.skips else None
    results = []
    done: list = []  # every finished case, so a run stopped by SIGTERM still leaves its report
    phases: dict = {}  # engine -> wall seconds of its cases and replays (isolated runner)
    interrupted = None
    import signal

    previous_handler = signal.signal(signal.SIGTERM, _stop_on_sigterm)
    late_stop: list = []
    try:
        try:
            _run_engines(args, cases, source, skips, arch, results, done, console, phases, pool)
        except (_Stopped, KeyboardInterrupt) as exc:
            interrupted = (f"stopped ({exc or 'interrupt'}) after {len(done)} of "
                           f"{len(cases) * len(args.engine or DEFAULT_ENGINES)} cases; the report holds those")
            results = done
            console.print(f"[red]{interrupted}[/]")
        # From here a SIGTERM only cuts the output short: the reports are written first. (Device run
        # 20: torch-cudnn's full level finished its cases and replays, then the call's limit arrived
        # while the 585-row table printed, and the default handler lost the whole report.)
        signal.signal(signal.SIGTERM, lambda signum, frame: late_stop.append(signum))
        extra = {"argv": sys.argv[1:], "shard": args.shard, "reruns": args.reruns, "phases": phases}
        if interrupted:
            extra["interrupted"] = interrupted
        written = []
        if args.json:
            write_json(results, args.json, extra)
            written.append(f"report written to {args.json}")
        if args.junit:
            from .conformance.junit import write_junit

            write_junit(results, args.junit)
            written.append(f"JUnit XML written to {args.junit}")
        if not late_stop:
            print_table(results, console)
            if skips:
                for line in skips.stale(cases, results):
                    console.print(f"[yellow]stale skip entry[/] {line}")
        if late_stop:
            console.print(f"[red]stopped (signal {late_stop[0]}) after the cases had finished[/]: "
                          "the reports hold every result; the table was not printed")
        for line in written:
            console.print(line)
    finally:
        signal.signal(signal.SIGTERM, previous_handler)
    if interrupted or late_stop:
        return 3
    return 1 if any(r.failing for r in results) else 0


def _run_engines(args, cases, source, skips, arch, results, done, console, phases, pool=()) -> None:
    """Each engine's run in turn, its results added to ``results``. (Overlapping the runs, the next engine's
    workers starting once the one before had handed out its last chunk, lost on an H100, 2026-12-06: the quick
    level's cold run took 89 and 107 s on two hosts against 104 s in turn, and in the full level the 32 worker
    processes' CUDA contexts and caches, outside the memory gates' count, ran the card out of memory in 42
    cases; docs/perf-log.md.)"""
    from .conformance import claims as claims_mod
    from .conformance.report import load_report
    from .engine.compiles import triton_cache_empty

    earlier = [load_report(p) for p in args.timings or []]  # --timings: measured seconds per case
    # Read once, before any engine compiles: the later engines' first cases compile too (the API's outputs are
    # laid out as no launcher case's are).
    cache_empty = triton_cache_empty()
    for i, name in enumerate(args.engine or DEFAULT_ENGINES):
        engine_results = _run_engine(args, name, cases, source, skips, earlier, done, console, phases,
                                     pool=pool if i == 0 else None, cache_empty=cache_empty)
        if skips:
            skips.apply(name, engine_results)
        if args.enforce_claims:
            console.print(claims_mod.enforce(args.enforce_claims, name, arch, engine_results))
        results += engine_results


def _run_engine(args, name, cases, source, skips, earlier, done, console, phases, pool=None,
                cache_empty=False) -> list:
    """One engine's results: in this process (``--in-process``) or in worker processes."""
    from .backends import get_engine
    from .conformance.runner import run_cases, run_isolated
    from .conformance.schedule import measured_seconds
    from .engine.compiles import compile_totals

    engine = get_engine(name)
    skip_now = {e.case: f"the skip list {skips.path} says: {e.reason}" for e in skips.entries_for(name)
                if e.action == "skip"} if skips else {}
    memory_limit = _memory_limit_bytes(engine, args.memory_limit)
    skip_now.update(_over_memory(cases, memory_limit))
    console.print(f"[bold]{name}[/] on {engine.device()}: {len(cases)} cases, {args.reruns} run(s) each"
                  + ("" if args.in_process else f", {args.workers} worker process(es)"))
    if args.in_process:
        return run_cases(engine, cases, source=source, progress=not args.no_progress, reruns=args.reruns,
                         skip=skip_now, on_result=done.append)
    timing: dict = {}
    machine = "gpu" if engine.device() == "cuda" else "cpu"
    cold = engine.compiles_triton and machine == "gpu" and cache_empty
    engine_results = run_isolated(name, cases, source=source, reruns=args.reruns, timeout=args.timeout,
                                  workers=args.workers, replay=not args.no_replay, replay_limit=args.replay_limit,
                                  replay_budget=args.replay_budget,
                                  controls=not args.no_controls, progress=not args.no_progress, skip=skip_now,
                                  on_result=done.append, memory_limit=memory_limit,
                                  measured=measured_seconds(earlier, name) if earlier else None,
                                  machine=machine, timing=timing, pool=pool, cold_cache=cold)
    timing.update(compile_totals(engine_results))
    if cold:
        timing["cold_cache"] = True
    phases[name] = timing
    console.print(f"{name}: cases {timing.get('cases_s', 0):.1f} s"
                  + (f", replays {timing['replays_s']:.1f} s" if "replays_s" in timing else "")
                  + (f"; Triton compiled {timing['compiled']} kernels ({timing['compile_s']:.0f} s) "
                     f"in {timing['cases_compiling']} cases, loaded {timing['loaded']} from its cache"
                     if "compiled" in timing else "")
                  + (" (Triton's cache was empty at the start)" if cold else ""))
    return engine_results


def cmd_info(args) -> int:
    from rich.console import Console
    from rich.table import Table

    from .backends import engine_names, get_engine
    from .conformance.report import environment

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
    run.add_argument("--engine", action="append",
                     help="engine name (repeatable; default: ours, twice: triton (the launcher) and triton-api "
                          "(sdpa_bwd.attention under autograd, as users call it))")
    run.add_argument("--cases", help="JSON file of cases (default: the built-in list)")
    run.add_argument("--level", help="a level of the generated test plan: quick, standard, nightly, full; or "
                                     "varlen (packed variable-length sequences)")
    run.add_argument("--case", action="append", help="run only the case with this id (repeatable)")
    run.add_argument("--filter", action="append", help="keep cases whose id or description contains this")
    run.add_argument("--json", help="write a machine-readable report here")
    run.add_argument("--no-progress", action="store_true", help="no progress bar")
    run.add_argument("--junit", help="write JUnit XML here (one testcase per engine and case)")
    run.add_argument("--reruns", type=int, default=None,
                     help="runs per case on identical inputs; any changed bit is reported (default 2 where CUDA "
                          "is available, else 1: see default_reruns)")
    run.add_argument("--timeout", type=float, default=300.0,
                     help="seconds a case may take before its worker is killed as hung (default 300)")
    run.add_argument("--workers", type=int, default=None,
                     help="worker processes at once, taking chunks of cases costliest first; with several "
                          "GPUs worker i runs on GPU i mod n (default: one a CPU core, at most 16)")
    run.add_argument("--shard", help="run only shard i of n (1-based, e.g. 2/4), split by a stable hash of case ids")
    run.add_argument("--in-process", action="store_true",
                     help="run the engine in this process: no crash isolation, replays or controls")
    run.add_argument("--no-replay", action="store_true",
                     help="do not replay failing cases alone in a fresh process (no order-dependence check)")
    run.add_argument("--replay-limit", type=int, default=20,
                     help="replay at most this many failing cases per engine (default 20)")
    run.add_argument("--replay-budget", type=float, metavar="SECONDS",
                     help="once the cases have run, start no replay after this many seconds (default: no bound); "
                          "with a high --replay-limit, replays as many failures as the time allows")
    run.add_argument("--no-controls", action="store_true",
                     help="do not run failing cases' packed-BHSD layout controls")
    run.add_argument("--enforce-claims", metavar="FILE",
                     help="claims file or directory (sdpa-bwd claims harvest): a claimed case that does not "
                          "pass is an error, 'claim broken'")
    run.add_argument("--memory-limit", type=float, metavar="GIB",
                     help="memory of one device for the cases running on it at once: a case waits until "
                          "what the cost model says it needs is free, and one needing more is skipped "
                          "(default: 80%% of free GPU memory, 4 GiB on the CPU)")
    run.add_argument("--timings", action="append", metavar="REPORT",
                     help="an earlier run's --json report (repeatable): its measured seconds per case, not the "
                          "cost model's, balance the workers' chunks (cases it lacks keep the model's estimate)")
    run.add_argument("--skips", metavar="FILE",
                     help="known-defect skip list (JSON): matching failures do not fail the run; "
                          "stale entries are reported")
    run.set_defaults(func=cmd_run)

    info = sub.add_parser("info", help="versions, device, and every registered engine")
    info.set_defaults(func=cmd_info)

    # Commands that live beside the part of the project they drive: each module
    # exposes add_commands(subparsers). A module not written yet is skipped.
    import importlib

    for module in ("sdpa_bwd.conformance.plan.cli", "sdpa_bwd.conformance.claims", "sdpa_bwd.conformance.matrix",
                   "sdpa_bwd.conformance.diagnose", "sdpa_bwd.conformance.repro", "sdpa_bwd.conformance.repro_cells",
                   "sdpa_bwd.engine.explain", "sdpa_bwd.bench"):
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
    try:
        return args.func(args)
    except FileNotFoundError as exc:  # a path the command was given (a report, a cases file)
        if exc.filename is None:
            raise
        raise SystemExit(f"sdpa-bwd: {exc.filename}: no such file - check the path (a run report is what `sdpa-bwd "
                         "run --json FILE` writes)") from None


if __name__ == "__main__":
    raise SystemExit(main())
