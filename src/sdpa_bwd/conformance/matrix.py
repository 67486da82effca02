"""The support matrix: engines x features, from run reports, as Markdown and one static HTML page.

Features come from each case's values (the ``case_data`` a report records for
every result), not from a hand-kept list: dtype; heads (MHA, GQA, MQA,
H_k != H_v); head dim; mask (none, causal or window, top-left or
bottom-right, one-sided bands); lengths (S_q vs S_kv); layout (every way a
case's tensors depart from packed BHSD: storage order, padded rows, inner
stride, broadcast, junk strides, offset, shared buffers, stats stored other
than packed rank 3); determinism (requested or not, and whether reruns
changed bits); probes (by the rule the probe breaks).

A cell counts the results of one engine on the cases with that feature:
``pass`` (all passed or correctly rejected), ``fail`` (any failing result),
``declined`` (all declined), ``partial`` (some passed, some declined),
``known`` (failures all on the skip list). On the HTML page every failing cell
links to its first failing case in the list of failures below the table,
which gives each failing case's verdict, message, replay and layout control,
and repro command.

``sdpa-bwd merge`` (also here) merges reports of shards or of several GPUs.
"""

from __future__ import annotations

import html
import json
import re
import sys
from collections import defaultdict
from pathlib import Path
from typing import Optional, Sequence

from ..problem.cases import Case
from .plan.ragged import case_from_dict
from ..problem.layout import Storage
from ..problem import TENSORS
from .report import replay_skipped

AXES = ("dtype", "heads", "head dim", "mask", "lengths", "layout", "determinism", "probes", "varlen lengths",
        "varlen stats", "varlen storage", "varlen mask", "varlen dtype", "varlen heads", "varlen head dim",
        "varlen regressions", "varlen probes")


def features(case: Case, result: dict | None = None) -> list[tuple[str, str]]:
    """The (axis, value) pairs a case exercises (a varlen case names its own: ``RaggedCase.features``)."""
    if getattr(case, "ragged", False):
        return case.features()
    if case.purpose == "probe":
        tags = [t.split(":", 1)[1] for t in case.covers if t.startswith("probe:")]
        return [("probes", t) for t in tags or [case.expected_rejection or "probe"]]
    z = case.sizes
    out = [("dtype", case.dtype)]
    if z["H_k"] != z["H_v"]:
        heads = "H_k != H_v"
    elif z["H_k"] == z["H_q"]:
        heads = "MHA"
    elif z["H_k"] == 1:
        heads = "MQA"
    else:
        heads = "GQA"
    out.append(("heads", heads))
    out.append(("head dim", str(z["D_qk"]) if z["D_qk"] == z["D_v"] else f"{z['D_qk']}/{z['D_v']}"))
    lb, rb = case.left_bound, case.right_bound
    align = "BR" if case.alignment == "bottom_right" else "TL"
    if lb is None and rb is None:
        mask = "none"
    elif lb is None and rb == 0:
        mask = f"causal {align}"
    elif lb is not None and rb is not None:
        mask = f"window {align}"
    else:
        mask = f"{'left' if lb is not None else 'right'} bound only {align}"
    out.append(("mask", mask))
    out.append(("lengths", "S_q = S_kv" if z["S_q"] == z["S_kv"] else
                ("S_q < S_kv" if z["S_q"] < z["S_kv"] else "S_q > S_kv")))
    layouts = set()
    for name in TENSORS:
        s = case.storage_of(name)
        if name == "stats":
            if s != Storage() or case.stats_rank == 4:
                layouts.add("stats not packed rank 3")
            continue
        if s.order != "bhsd":
            layouts.add(s.order.upper())
        if any(n for _, n in s.pad):
            layouts.add("padded strides")
        if s.inner_stride != 1:
            layouts.add("inner stride != 1")
        if s.zero:
            layouts.add("broadcast (stride 0)")
        if s.junk:
            layouts.add("junk size-1 strides")
        if s.offset:
            layouts.add("storage offset")
    if case.strides:
        layouts.add("explicit strides")
    if case.buffers:
        layouts.add("shared buffers")
    for value in sorted(layouts) or ["packed BHSD"]:
        out.append(("layout", value))
    out.append(("determinism", "deterministic requested" if case.deterministic else "not requested"))
    if result and result.get("rerun_changed"):
        out.append(("determinism", "reruns changed bits"))
    return out


def _slug(text: str) -> str:
    return re.sub(r"[^A-Za-z0-9_-]+", "-", text).strip("-")


def case_anchor(engine: str, case_id: str) -> str:
    return f"case-{_slug(engine)}-{_slug(case_id)}"


def build(reports: Sequence[dict]) -> dict:
    """{"engines": [...], "cells": {(axis, value): {engine: cell}}, "failures": [result, ...]}."""
    cells: dict = defaultdict(dict)
    engines: list[str] = []
    failures: list[dict] = []
    for rep in reports:
        for r in rep["results"]:
            engine = r["engine"]
            if engine not in engines:
                engines.append(engine)
            data = r.get("case_data")
            if not data:
                raise ValueError(f"result {engine}/{r['case']} has no case_data: the report predates the matrix "
                                 "- run the cases again with this version")
            case = case_from_dict(data)
            if r.get("failing") or r.get("skip_reason"):
                failures.append(r)
            for key in features(case, r):
                cell = cells[key].setdefault(engine, {"passed": 0, "declined": 0, "failing": [], "known": [],
                                                      "not_run": [], "total": 0, "reasons": set()})
                cell["total"] += 1
                if r.get("failing"):
                    cell["failing"].append(r["case"])
                elif r["verdict"] == "skipped":  # not run (too big for the machine, or a skip entry)
                    cell["not_run"].append(r["case"])
                elif r.get("skip_reason"):
                    cell["known"].append(r["case"])
                elif r["verdict"] == "declined":
                    cell["declined"] += 1
                    cell["reasons"].update(r.get("reasons", [])[:1])
                else:
                    cell["passed"] += 1
    order = {a: i for i, a in enumerate(AXES)}
    keys = sorted(cells, key=lambda k: (order.get(k[0], len(order)), _natural(k[1])))
    return {"engines": engines, "keys": keys, "cells": cells, "failures": failures}


def _natural(text: str):
    return [int(t) if t.isdigit() else t for t in re.split(r"(\d+)", text)]


def status(cell: dict | None) -> str:
    if not cell:
        return "untested"
    if cell["failing"]:
        return "fail"
    if cell["known"]:
        return "known"
    if cell["passed"] == 0:
        return "not-run" if cell["not_run"] and not cell["declined"] else "declined"
    return "partial" if cell["declined"] or cell["not_run"] else "pass"


def cell_text(cell: dict | None) -> str:
    s = status(cell)
    if s == "untested":
        return "-"
    if s == "fail":
        return f"✗ {len(cell['failing'])} of {cell['total']} fail"
    if s == "known":
        return f"known defect: {len(cell['known'])} of {cell['total']}"
    if s == "declined":
        return f"declined ({cell['declined']})"
    if s == "not-run":
        return f"not run ({len(cell['not_run'])})"
    if s == "partial":
        parts = [f"{cell['declined']} declined"] if cell["declined"] else []
        parts += [f"{len(cell['not_run'])} not run"] if cell["not_run"] else []
        return f"✓ {cell['passed']}, " + ", ".join(parts)
    return f"✓ {cell['passed']}"


def unreplayed_note(r: dict) -> Optional[str]:
    """Where the runner skipped a failing case's replay alone (over ``--replay-limit``), the failure was seen only in
    sequence, after the cases before it: the reader must know that it is not confirmed alone."""
    why = replay_skipped(r)
    return f"alone in a fresh process: not run ({why}), so seen only after the cases before it" if why else None


def failure_notes(r: dict) -> list[str]:
    """What a failing result's reader needs beside its message: the runner's replay of the case alone and its packed
    BHSD control where they ran (``unreplayed_note`` where the replay did not), and a skip-list entry."""
    notes = [f"{label}: {info['conclusion']}"
             for label, info in (("alone in a fresh process", r.get("replay")), ("packed BHSD", r.get("layout_control")))
             if info and info.get("conclusion")]
    notes += [n for n in (unreplayed_note(r),) if n]
    if r.get("skip_reason"):
        notes.append(f"skip list: {r['skip_reason']}")
    return notes


def to_markdown(matrix: dict) -> str:
    engines = matrix["engines"]
    lines = ["| feature | " + " | ".join(engines) + " |", "|---|" + "---|" * len(engines)]
    for axis, value in matrix["keys"]:
        row = [cell_text(matrix["cells"][(axis, value)].get(e)) for e in engines]
        lines.append(f"| {axis}: {value} | " + " | ".join(row) + " |")
    if matrix["failures"]:
        lines += ["", "Failures:", ""]
        for r in matrix["failures"]:
            known = f" (known: {r['skip_reason']})" if r.get("skip_reason") and not r.get("failing") else ""
            note = unreplayed_note(r)  # (the HTML page also has the replay's and the control's conclusions)
            lines.append(f"- {r['engine']} `{r['case']}` **{r['verdict']}**{known}: {r.get('message', '')} "
                         + (f"({note}) " if note else "") + f"- `{r.get('repro', '')}`")
    return "\n".join(lines) + "\n"


_CSS = """
body { font-family: system-ui, sans-serif; margin: 1.5em; }
table { border-collapse: collapse; }
th, td { border: 1px solid #bbb; padding: 3px 8px; text-align: left; }
th.axis { background: #eee; }
td.pass { background: #d7f5d7; } td.fail { background: #f8c9c9; } td.declined { background: #eee; color: #666; }
td.partial { background: #eef7d0; } td.known { background: #f7e7c0; } td.not-run { color: #888; } td.untested { color: #aaa; }
li.failure { margin-bottom: .6em; } code { font-size: 90%; }
li.failure:target { background: #fff3a0; }
"""


def to_html(matrix: dict, title: str = "sdpa-bwd support matrix", sources: Sequence[str] = ()) -> str:
    esc = html.escape
    engines = matrix["engines"]
    out = ["<!DOCTYPE html>", "<html lang=\"en\"><head><meta charset=\"utf-8\">", f"<title>{esc(title)}</title>",
           f"<style>{_CSS}</style></head><body>", f"<h1>{esc(title)}</h1>"]
    if sources:
        out.append("<p>From " + ", ".join(f"<code>{esc(s)}</code>" for s in sources) + ".</p>")
    out.append("<table id=\"matrix\"><thead><tr><th>feature</th>"
               + "".join(f"<th>{esc(e)}</th>" for e in engines) + "</tr></thead><tbody>")
    current = None
    for axis, value in matrix["keys"]:
        if axis != current:
            out.append(f"<tr><th class=\"axis\" colspan=\"{len(engines) + 1}\">{esc(axis)}</th></tr>")
            current = axis
        row = [f"<td>{esc(value)}</td>"]
        for e in engines:
            cell = matrix["cells"][(axis, value)].get(e)
            s, text = status(cell), esc(cell_text(cell))
            if s == "fail":
                ids = cell["failing"]
                link = f"#{case_anchor(e, ids[0])}"
                title_attr = esc("failing: " + ", ".join(ids))
                row.append(f"<td class=\"fail\" title=\"{title_attr}\"><a href=\"{link}\">{text}</a></td>")
            elif s == "declined" and cell["reasons"]:
                row.append(f"<td class=\"declined\" title=\"{esc('; '.join(sorted(cell['reasons'])))}\">{text}</td>")
            else:
                row.append(f"<td class=\"{s}\">{text}</td>")
        out.append("<tr>" + "".join(row) + "</tr>")
    out.append("</tbody></table>")
    out.append(f"<h2 id=\"failures\">Failures ({len(matrix['failures'])})</h2><ol>")
    for r in matrix["failures"]:
        extra = failure_notes(r)
        out.append(f"<li class=\"failure\" id=\"{case_anchor(r['engine'], r['case'])}\">"
                   f"<b>{esc(r['engine'])}</b> <code>{esc(r['case'])}</code> "
                   f"<b class=\"verdict\">{esc(r['verdict'])}</b> ({esc(r.get('description', ''))})<br>"
                   f"{esc(r.get('message', ''))}"
                   + "".join(f"<br>{esc(x)}" for x in extra)
                   + f"<br>repro: <code>{esc(r.get('repro', ''))}</code></li>")
    out.append("</ol></body></html>")
    return "\n".join(out) + "\n"


# -- commands ------------------------------------------------------------------------
def cmd_matrix(args) -> int:
    from .report import load_report

    reports = [load_report(p) for p in args.reports]
    matrix = build(reports)
    markdown = to_markdown(matrix)
    if args.markdown:
        Path(args.markdown).write_text(markdown, encoding="utf-8")
        print(f"Markdown written to {args.markdown}")
    if args.html:
        Path(args.html).parent.mkdir(parents=True, exist_ok=True)
        Path(args.html).write_text(to_html(matrix, sources=args.reports), encoding="utf-8")
        print(f"HTML written to {args.html}")
    if not args.markdown and not args.html:
        sys.stdout.write(markdown)
    return 0


def cmd_merge(args) -> int:
    from .report import load_report, merge

    merged = merge([load_report(p) for p in args.reports], sources=args.reports)
    Path(args.out).write_text(json.dumps(merged, indent=1, default=str) + "\n", encoding="utf-8")
    print(f"{len(merged['results'])} results from {len(args.reports)} reports written to {args.out}")
    return 1 if any(r.get("failing") for r in merged["results"]) else 0


def add_commands(sub) -> None:
    m = sub.add_parser("matrix", help="support matrix (engines x features) from run reports")
    m.add_argument("reports", nargs="+", help="run reports (sdpa-bwd run --json)")
    m.add_argument("--markdown", help="write the Markdown table here (default: print it)")
    m.add_argument("--html", help="write the static HTML page here")
    m.set_defaults(func=cmd_matrix)

    g = sub.add_parser("merge", help="merge run reports (shards, one per GPU) into one")
    g.add_argument("reports", nargs="+", help="run reports to merge")
    g.add_argument("-o", "--out", required=True, help="merged report path")
    g.set_defaults(func=cmd_merge)
