"""JUnit XML for CI systems: one ``testsuite`` per engine, one ``testcase`` per case.

Verdict mapping: failed / fault / order-dependent / rejection-accepted /
invalid-case and broken claims -> ``<failure>``; error -> ``<error>``;
declined and skip-list entries -> ``<skipped>`` with the reason;
nondeterministic -> ``<failure>`` when the case asked for determinism, else a
pass with the changed-element counts in ``system-out``. ``classname`` is
``sdpa_bwd.<engine>`` and ``name`` the case id, so CI history tracks a case
across runs.
"""

from __future__ import annotations

import xml.etree.ElementTree as ET
from pathlib import Path
from typing import Sequence


def to_junit(results: Sequence) -> ET.Element:
    """``results``: CaseResult objects or their report dicts."""
    rows = [r if isinstance(r, dict) else r.to_dict() for r in results]
    root = ET.Element("testsuites", name="sdpa-bwd")
    for engine in dict.fromkeys(r["engine"] for r in rows):
        mine = [r for r in rows if r["engine"] == engine]
        suite = ET.SubElement(root, "testsuite", name=f"sdpa_bwd.{engine}", tests=str(len(mine)))
        counts = {"failures": 0, "errors": 0, "skipped": 0}
        total = 0.0
        for r in mine:
            tc = ET.SubElement(suite, "testcase", classname=f"sdpa_bwd.{engine}", name=r["case"],
                               time=f"{float(r.get('seconds', 0)):.3f}")
            total += float(r.get("seconds", 0))
            message = r.get("message", "") or r["verdict"]
            body = "\n".join(x for x in (r.get("description", ""), message, f"repro: {r.get('repro', '')}") if x)
            if r.get("skip_reason") and not r.get("claim_broken"):
                ET.SubElement(tc, "skipped", message=f"known defect ({r['skip_reason']}): {r['verdict']}")
                counts["skipped"] += 1
            elif r["verdict"] == "declined":
                ET.SubElement(tc, "skipped", message="declined: " + "; ".join(r.get("reasons") or [message]))
                counts["skipped"] += 1
            elif r["verdict"] == "error" and not r.get("claim_broken"):
                ET.SubElement(tc, "error", message=message[:500], type="error").text = body
                counts["errors"] += 1
            elif r.get("failing"):
                ET.SubElement(tc, "failure", message=message[:500], type=r["verdict"]).text = body
                counts["failures"] += 1
            if r.get("rerun_changed"):
                ET.SubElement(tc, "system-out").text = f"changed between reruns: {r['rerun_changed']}"
        suite.set("time", f"{total:.3f}")
        for key, n in counts.items():
            suite.set(key, str(n))
    return root


def write_junit(results: Sequence, path) -> None:
    tree = ET.ElementTree(to_junit(results))
    ET.indent(tree)
    Path(path).parent.mkdir(parents=True, exist_ok=True)
    tree.write(path, encoding="utf-8", xml_declaration=True)
