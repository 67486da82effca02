"""Reports of a run: the summary table on the terminal and the JSON for tools."""

from __future__ import annotations

import json
import math
import platform
from collections import Counter
from pathlib import Path
from typing import Iterable, Sequence

import torch

from .judge import CaseResult

_STYLE = {"passed": "green", "declined": "yellow", "rejected": "green", "failed": "bold red",
          "error": "bold red", "rejection-accepted": "bold red", "invalid-case": "magenta", "fault": "bold red",
          "nondeterministic": "yellow", "order-dependent": "bold red", "skipped": "dim"}
SCHEMA = "sdpa-bwd.run/1"


def environment() -> dict:
    env = {"python": platform.python_version(), "torch": torch.__version__, "platform": platform.platform(),
           "cuda": torch.version.cuda, "device": "cpu"}
    try:
        import triton

        env["triton"] = triton.__version__
    except Exception:  # triton is optional off Linux x86-64
        env["triton"] = None
    if torch.cuda.is_available():
        props = torch.cuda.get_device_properties(0)
        env["device"] = props.name
        env["arch"] = f"sm_{props.major}{props.minor}"
    else:
        env["arch"] = "cpu"
    return env


def _margin(r: CaseResult) -> str:
    m = r.margin
    if math.isnan(m):
        return ""
    return "exact" if math.isinf(m) else f"{m:.1f}"


def print_table(results: Sequence[CaseResult], console=None, max_message: int = 110) -> None:
    from rich.console import Console
    from rich.table import Table

    console = console or Console()
    engines = list(dict.fromkeys(r.engine for r in results))
    for engine in engines:
        rows = [r for r in results if r.engine == engine]
        table = Table(title=f"engine {engine}", show_lines=False, header_style="bold")
        for col in ("case", "problem", "verdict", "margin", "time", "detail"):
            table.add_column(col, overflow="fold")
        for r in rows:
            detail = r.message if not r.ok or r.verdict not in ("passed", "rejected") else ""
            if r.skip_reason:
                detail = f"known (skip list: {r.skip_reason}) " + detail
            if len(detail) > max_message:
                detail = detail[: max_message - 1] + "…"
            table.add_row(r.case_id, r.description, f"[{_STYLE.get(r.verdict, '')}]{r.verdict}",
                          _margin(r), f"{r.seconds:.2f}s", detail)
        console.print(table)
        counts = Counter(r.verdict for r in rows)
        console.print(", ".join(f"{n} {v}" for v, n in sorted(counts.items())))
        failing = [r for r in rows if not r.ok]
        for r in failing[:20]:
            console.print(f"  [red]{r.verdict}[/] {r.case_id}: rerun with [bold]{r.repro}[/]")
            for label, info in (("alone", r.replay), ("packed BHSD", r.layout_control)):
                if info and info.get("conclusion"):
                    console.print(f"      {label}: {info['conclusion']}")


def _summary(results: Iterable[dict]) -> list[dict]:
    counts = Counter((r["engine"], r["verdict"]) for r in results)
    return [{"engine": e, "verdict": v, "count": n} for (e, v), n in sorted(counts.items())]


def to_json(results: Sequence[CaseResult], extra: dict | None = None) -> dict:
    """The report; results ordered by engine and case id, so that reports of the same cases run
    in any order, sharded or on several workers, hold the same results in the same order."""
    rows = sorted((r.to_dict() for r in results), key=lambda d: (d["engine"], d["case"]))
    return {"schema": SCHEMA, "environment": environment(), **(extra or {}),
            "summary": _summary(rows), "results": rows}


# Fields that differ between two runs of the same cases even when every verdict agrees.
VOLATILE = ("seconds", "previous_case", "started", "worker", "phases", "compiles", "memory_peak_bytes")


def content(report: dict) -> list[dict]:
    """A report's results without run-to-run noise (timings, process neighbours): for comparing runs."""
    return [{k: v for k, v in r.items() if k not in VOLATILE} for r in report["results"]]


def replay_skipped(result: dict) -> str | None:
    """Why the runner never replayed a failing result's case alone (``--replay-limit`` or ``--replay-budget``
    reached), or None: such a failure was seen only in sequence, after the cases before it in its worker."""
    replay = result.get("replay")
    return replay.get("skipped") if isinstance(replay, dict) else None


def load_report(path) -> dict:
    """A run report from ``path``; ``.gz`` reports (as docs/data keeps them) are read as they are."""
    raw = Path(path).read_bytes()
    if str(path).endswith(".gz"):
        import gzip

        raw = gzip.decompress(raw)
    data = json.loads(raw.decode("utf-8"))
    if not (isinstance(data, dict) and data.get("schema") == SCHEMA):
        raise ValueError(f"{path}: not a run report (want schema {SCHEMA!r}; sdpa-bwd run --json writes one)")
    return data


def merge(reports: Sequence[dict], sources: Sequence[str] = ()) -> dict:
    """One report from several (shards, or one per GPU); a case reported twice for one engine is an error."""
    if not reports:
        raise ValueError("nothing to merge")
    rows: dict[tuple[str, str], dict] = {}
    for n, rep in enumerate(reports):
        for r in rep["results"]:
            key = (r["engine"], r["case"])
            if key in rows:
                where = sources[n] if n < len(sources) else f"report {n + 1}"
                raise ValueError(f"case {key[1]} of engine {key[0]} is in two reports (again in {where}): "
                                 "shards must not overlap - were they cut with the same --shard n?")
            rows[key] = r
    results = [rows[k] for k in sorted(rows)]
    envs = [rep.get("environment", {}) for rep in reports]
    return {"schema": SCHEMA, "environment": envs[0], "merged_from": list(sources) or len(reports),
            "environments": envs, "summary": _summary(results), "results": results}


def write_json(results: Sequence[CaseResult], path: str | Path, extra: dict | None = None) -> None:
    Path(path).parent.mkdir(parents=True, exist_ok=True)
    Path(path).write_text(json.dumps(to_json(results, extra), indent=1, default=str) + "\n", encoding="utf-8")
