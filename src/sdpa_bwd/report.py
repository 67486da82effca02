"""Reports of a run: the summary table on the terminal and the JSON for tools."""

from __future__ import annotations

import json
import math
import platform
from collections import Counter
from pathlib import Path
from typing import Iterable, Sequence

import torch

from .runner import CaseResult

_STYLE = {"passed": "green", "declined": "yellow", "rejected": "green", "failed": "bold red",
          "error": "bold red", "rejection-accepted": "bold red", "invalid-case": "magenta"}


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
            detail = r.message if not r.ok or r.verdict == "declined" else ""
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


def to_json(results: Sequence[CaseResult], extra: dict | None = None) -> dict:
    counts = Counter((r.engine, r.verdict) for r in results)
    return {"schema": "sdpa-bwd.run/1", "environment": environment(), **(extra or {}),
            "summary": [{"engine": e, "verdict": v, "count": n} for (e, v), n in sorted(counts.items())],
            "results": [r.to_dict() for r in results]}


def write_json(results: Sequence[CaseResult], path: str | Path, extra: dict | None = None) -> None:
    Path(path).parent.mkdir(parents=True, exist_ok=True)
    Path(path).write_text(json.dumps(to_json(results, extra), indent=1, default=str) + "\n", encoding="utf-8")
