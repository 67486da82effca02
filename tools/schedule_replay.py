"""When would the last worker finish? Replay a run's measured case times through the schedule.

    PYTHONPATH=src python3 tools/schedule_replay.py docs/data/h200-2026-12-01d/run17-triton-full-warm.json.gz \\
        --level full --workers 16 --start 5 --overheads 0.1,0.33,0.5 --chunks 4,8,16

Cuts the level into chunks as ``sdpa_bwd.schedule`` does (the cost model's estimates plus the
fixed overhead per case), hands them costliest first to the worker that frees first, and charges
each case the seconds the report measured (minus its Triton compile seconds: a warm cache
compiles nothing; a case the report lacks gets the median). ``--start`` is each worker's start-up.
The memory gate is not modelled. Prints the makespan for each overhead x chunks-per-worker.
"""

from __future__ import annotations

import argparse
import heapq
import statistics


def replay(cases, real, estimates, *, workers: int, start: float, overhead: float, per_worker: int) -> float:
    from sdpa_bwd.conformance import schedule

    parts = schedule.dispatch_order(schedule.chunks(cases, workers, estimates, per_worker, overhead))
    free = [(start, w) for w in range(workers)]
    heapq.heapify(free)
    end = 0.0
    for part in parts:
        t, w = heapq.heappop(free)
        t += sum(real[part.start:part.stop])
        end = max(end, t)
        heapq.heappush(free, (t, w))
    return end


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("report")
    ap.add_argument("--level", default="full")
    ap.add_argument("--workers", type=int, default=16)
    ap.add_argument("--start", type=float, default=5.0, help="seconds before a worker takes its first case")
    ap.add_argument("--overheads", default="0.1,0.33")
    ap.add_argument("--chunks", default="4,8")
    args = ap.parse_args(argv)
    from sdpa_bwd.conformance.plan import load_level
    from sdpa_bwd.conformance.plan.cost import case_cost
    from sdpa_bwd.conformance.report import load_report

    cases = load_level(args.level)
    measured = {}
    for r in load_report(args.report)["results"]:
        compile_s = (r.get("compiles") or {}).get("compile_s", 0.0)
        measured[r["case"]] = max(0.0, (r.get("seconds") or 0.0) - compile_s)
    fallback = statistics.median(measured.values()) if measured else 0.0
    real = [measured.get(c.id, fallback) for c in cases]
    estimates = [case_cost(c).seconds("gpu") for c in cases]
    print(f"{len(cases)} cases, {sum(real):.1f} s of cases measured; {args.workers} workers, {args.start} s start "
          f"(floor {sum(real) / args.workers + args.start:.1f} s)")
    for overhead in (float(x) for x in args.overheads.split(",")):
        ends = [replay(cases, real, estimates, workers=args.workers, start=args.start, overhead=overhead,
                       per_worker=int(k)) for k in args.chunks.split(",")]
        print(f"overhead {overhead:.2f} s: " + ", ".join(f"{k} chunks a worker -> {e:.1f} s"
                                                       for k, e in zip(args.chunks.split(","), ends)))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
