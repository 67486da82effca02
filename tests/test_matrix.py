"""The support matrix from real run reports: features from case values, Markdown, and one static
HTML page whose failing cells link to their cases - checked in a real headless Chromium."""

import json
import shutil
import subprocess
import tempfile
from html.parser import HTMLParser
from pathlib import Path

import pytest

from sdpa_bwd.problem.cases import Case
from sdpa_bwd.cli import main
from sdpa_bwd.backends import get_engine
from sdpa_bwd.problem.layout import Storage
from sdpa_bwd.conformance.matrix import build, case_anchor, features, to_html, to_markdown
from sdpa_bwd.conformance.report import to_json
from sdpa_bwd.conformance.runner import run_cases
from sdpa_bwd.conformance.worker import IMPORTS_ENV, import_engine_modules

FAULT_ENGINES = str(Path(__file__).with_name("fault_engines.py"))
# Tiny versions of built-in cases: packed, padded rows, H_k != H_v, an SBHD window.
CASES = [Case("bhsd", B=1, H_q=2, S_q=8, D_qk=16, seed=1),
         Case("padded-rows", B=1, H_q=2, S_q=9, D_qk=16, seed=2, storage={"dq": Storage("bhsd", pad={"s": 3})}),
         Case("mqa-hk-ne-hv", B=1, H_q=4, H_k=2, H_v=1, S_q=8, D_qk=16, seed=3),
         Case("window", B=1, H_q=2, S_q=12, D_qk=16, left_bound=4, right_bound=1, seed=4,
              storage={n: Storage("sbhd") for n in ("q", "k", "v", "o", "do", "dq", "dk", "dv")})]


@pytest.fixture(scope="module")
def report(tmp_path_factory):
    import os

    os.environ[IMPORTS_ENV] = FAULT_ENGINES
    try:
        import_engine_modules()
    finally:
        del os.environ[IMPORTS_ENV]
    results = []
    for name in ("reference", "test-breaks-padded", "torch-flash-cpu-op"):  # the last declines H_k != H_v
        results += run_cases(get_engine(name), CASES, progress=False)
    path = tmp_path_factory.mktemp("matrix") / "report.json"
    path.write_text(json.dumps(to_json(results), default=str))
    return path


def test_features_come_from_case_values():
    f = dict(features(Case("x", H_q=4, H_k=1, D_qk=64, D_v=32, right_bound=0, alignment="bottom_right",
                           S_kv=40, dtype="float16", storage={"q": Storage("sbhd", pad={"s": 3})})))
    assert f == {"dtype": "float16", "heads": "MQA", "head dim": "64/32", "mask": "causal BR",
                 "lengths": "S_q < S_kv", "layout": "padded strides", "determinism": "not requested"}
    layouts = {v for a, v in features(Case("y", storage={"k": Storage("bshd", inner_stride=2)})) if a == "layout"}
    assert layouts == {"BSHD", "inner stride != 1"}
    probe = Case("p", purpose="probe", expected_rejection="x", covers=("probe:rank",))
    assert features(probe) == [("probes", "rank")]


def test_markdown_cells(report):
    m = build([json.loads(report.read_text())])
    md = to_markdown(m)
    assert md.splitlines()[0] == "| feature | reference | test-breaks-padded | torch-flash-cpu-op |"
    assert "| heads: H_k != H_v | ✓ 1 | ✓ 1 | declined (1) |" in md
    assert "| layout: SBHD | ✓ 1 | ✗ 1 of 1 fail | ✓ 1 |" in md
    assert "| layout: padded strides | ✓ 1 | ✗ 1 of 1 fail | ✓ 1 |" in md
    assert "| layout: packed BHSD | ✓ 2 | ✓ 2 | ✓ 1, 1 declined |" in md
    assert "test-breaks-padded `padded-rows` **failed**" in md


def test_matrix_command_writes_markdown_and_html(report, tmp_path):
    assert main(["matrix", str(report), "--markdown", str(tmp_path / "m.md"), "--html", str(tmp_path / "m.html")]) == 0
    page = (tmp_path / "m.html").read_text()
    anchor = case_anchor("test-breaks-padded", "padded-rows")
    assert f'id="{anchor}"' in page and 'class="fail"' in page
    assert (tmp_path / "m.md").read_text().startswith("| feature |")


class _Links(HTMLParser):
    def __init__(self):
        super().__init__()
        self.ids, self.fail_links, self.in_fail = set(), [], False

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        if "id" in a:
            self.ids.add(a["id"])
        if tag == "td":
            self.in_fail = a.get("class") == "fail"
        if tag == "a" and self.in_fail:
            self.fail_links.append(a["href"])


CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")


@pytest.mark.skipif(CHROMIUM is None, reason="needs Debian's chromium for the headless-browser check: "
                                             "apt-get install -y chromium")
def test_html_page_loads_in_headless_chromium_and_failing_cells_link_to_their_cases(report, tmp_path):
    page = tmp_path / "matrix.html"
    page.write_text(to_html(build([json.loads(report.read_text())])), encoding="utf-8")
    with tempfile.TemporaryDirectory() as profile:
        out = subprocess.run([CHROMIUM, "--headless", "--no-sandbox", "--disable-gpu",
                              "--disable-background-networking", "--disable-component-update", "--disable-sync",
                              "--no-first-run", f"--user-data-dir={profile}", "--dump-dom", page.as_uri()],
                             capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr[-2000:]
    dom = out.stdout
    assert "<table id=\"matrix\">" in dom and "sdpa-bwd support matrix" in dom, dom[:500]
    links = _Links()
    links.feed(dom)
    assert links.fail_links, "the report has failures: some cell must link to one"
    for href in links.fail_links:
        assert href.startswith("#") and href[1:] in links.ids, f"{href} has no target in the loaded page"
    assert f"#{case_anchor('test-breaks-padded', 'padded-rows')}" in links.fail_links


def test_cases_not_run_are_counted_as_such_not_as_known_defects():
    """A case skipped for memory (or by a skip entry) was never run: the cell says so, and is no failure."""
    from sdpa_bwd.conformance.runner import skipped_result
    from sdpa_bwd.conformance.matrix import cell_text, status

    ran = run_cases(get_engine("reference"), CASES[:1], progress=False)
    skipped = skipped_result("reference", CASES[1], "the cost model says it needs about 98 GiB")
    matrix = build([to_json(ran + [skipped])])
    cell = next(c["reference"] for k, c in matrix["cells"].items() if k[0] == "dtype")  # both cases' dtype
    assert cell["not_run"] == ["padded-rows"] and not cell["known"] and not cell["failing"]
    assert status(cell) == "partial" and cell_text(cell) == "✓ 1, 1 not run"
    only_skipped = build([to_json([skipped])])
    cell = next(c["reference"] for k, c in only_skipped["cells"].items() if k[0] == "dtype")
    assert status(cell) == "not-run" and cell_text(cell) == "not run (1)"


def test_a_failure_never_replayed_alone_says_so(report):
    """A failing result whose replay alone the runner skipped (over --replay-limit) was seen only after the cases
    before it: both outputs say so, where the page and the list said nothing and such a cell read as a failure
    confirmed alone (two such cells of 2026-12-07's standard matrix pass alone, H100)."""
    rep = json.loads(report.read_text())
    failing = [r for r in rep["results"] if r.get("failing")]
    assert failing, "the fixture report has no failing result"
    failing[0]["replay"] = {"skipped": "over --replay-limit 8"}
    m = build([rep])
    note = "alone in a fresh process: not run (over --replay-limit 8), so seen only after the cases before it"
    assert note in to_markdown(m) and note in to_html(m)
