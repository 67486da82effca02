"""``sdpa-bwd repro``: the standalone file it writes reproduces a case's verdict.

On the CPU: torch-math's file for a passing case exits 0 and imports no sdpa_bwd; a seeded defect's
file (which imports sdpa_bwd, saying so) exits 1 on its pinned failing case, and the untouched
``triton`` engine's file exits 0 on the same case. Each file runs in a fresh Python process.
"""

import ast
import subprocess
import sys

import pytest
import torch

from sdpa_bwd.cli import main
from sdpa_bwd.conformance import repro, repro_cells
from sdpa_bwd.conformance.plan import load_level

pytestmark = pytest.mark.xdist_group("repro")


def _write(tmp_path, monkeypatch, case_id, engine, *extra):
    out = tmp_path / f"{engine.replace(':', '-')}-{case_id}.py"
    if engine.startswith("triton-defect:"):
        monkeypatch.setenv("SDPA_BWD_DEFECTS", "1")
    try:
        assert main(["repro", case_id, "--engine", engine, "--level", "quick", "-o", str(out), *extra]) == 0
    finally:
        from sdpa_bwd.conformance import defects

        defects.unregister_defects()
    return out


def _run(path, env_extra=None):
    import os

    env = {k: v for k, v in os.environ.items() if not k.startswith("SDPA_BWD_")}
    env.update(env_extra or {})
    return subprocess.run([sys.executable, str(path)], capture_output=True, text=True, timeout=600, env=env)


def _imports(path) -> set[str]:
    tree = ast.parse(path.read_text())
    names = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names |= {a.name.split(".")[0] for a in node.names}
        elif isinstance(node, ast.ImportFrom) and node.module:
            names.add(node.module.split(".")[0])
    return names


def test_torch_math_repro_needs_only_pytorch_and_passes(tmp_path, monkeypatch):
    path = _write(tmp_path, monkeypatch, "reg-misaligned-base", "torch-math")
    assert "sdpa_bwd" not in _imports(path), "a torch-* repro must run where sdpa_bwd is not installed"
    assert "Needs PyTorch only" in path.read_text()
    done = _run(path)
    assert done.returncode == 0, done.stdout + done.stderr
    assert "torch-math on reg-misaligned-base: passes" in done.stdout
    for n in ("dq", "dk", "dv", "o"):
        assert f"  {n}: max error" in done.stdout and "against bound" in done.stdout


def test_a_torch_adapters_file_judges_the_backends_own_o(tmp_path, monkeypatch):
    """The adapter's forward makes its own O (the front door's output, the -op adapters' forward operator): the
    file judges it, so a backend wrong only in its forward fails its file (2026-12-07, H100: cuDNN's forward
    operator's NaN O at a negative scale passed a file that judged the gradients only). Here the O is corrupted
    after the call, the gradients untouched."""
    path = _write(tmp_path, monkeypatch, "reg-misaligned-base", "torch-math")
    text = path.read_text()
    keep = 'FORWARD["o"] = out.detach()'
    assert keep in text
    path.write_text(text.replace(keep, keep + " + 1.0"))
    done = _run(path)
    assert done.returncode == 1, done.stdout + done.stderr
    assert "  o: max error" in done.stdout and "FAILS" in done.stdout
    assert all(f"  {n}: max error" in done.stdout and "ok" in done.stdout.split(f"  {n}: max error")[1].split("\n")[0]
               for n in ("dq", "dk", "dv")), done.stdout


@pytest.mark.parametrize("defect, case_id", [
    ("stale-plan-cache", "reg-stale-state-between-cases-dq-2-bshd"),   # needs the case before it
    ("aliased-outputs", "reg-aliased-outputs-fused-dqkv"),             # one allocation for three outputs
    ("stats-batch-head-swapped", "reg-stats-batch-head-strides-swapped"),  # rank-4 stats, permuted
])
def test_a_seeded_defects_repro_fails_and_the_real_engines_passes(tmp_path, monkeypatch, defect, case_id):
    bad = _write(tmp_path, monkeypatch, case_id, f"triton-defect:{defect}")
    assert "Imports sdpa_bwd" in bad.read_text()
    done = _run(bad)
    assert done.returncode == 1, f"the repro of {defect} on {case_id} did not fail:\n{done.stdout}{done.stderr}"
    assert "FAILS" in done.stdout
    good = _write(tmp_path, monkeypatch, case_id, "triton")
    done = _run(good)
    assert done.returncode == 0, f"the untouched engine's repro of {case_id} failed:\n{done.stdout}{done.stderr}"


def test_the_stale_failure_needs_the_case_before_it(tmp_path, monkeypatch):
    """The plan's same-size neighbour runs first by default; alone (--alone) the stale plan cache is
    filled by the case itself and it passes: the repro of an order-dependent failure must carry the
    case before it."""
    alone = _write(tmp_path, monkeypatch, "reg-stale-state-between-cases-dq-2-bshd",
                   "triton-defect:stale-plan-cache", "--alone")
    done = _run(alone)
    assert done.returncode == 0, done.stdout + done.stderr
    assert "run before it" not in done.stdout


def test_neighbours_before_are_the_chunk_the_runner_keeps_together():
    quick = load_level("quick")
    byid = {c.id: c for c in quick}
    before = repro.neighbours_before(byid["reg-stale-state-between-cases-dq-4-pad-rows"], quick)
    assert [c.id for c in before] == [f"reg-stale-state-between-cases-dq-{s}" for s in ("1-packed", "2-bshd", "3-packed")]
    before = repro.neighbours_before(byid["reg-stale-state-between-cases-dtype-2-float16"], quick)
    assert [c.id for c in before] == ["reg-stale-state-between-cases-dtype-1-bfloat16"]
    assert repro.neighbours_before(byid["reg-stale-state-between-cases-q-1-packed"], quick) == []


def test_report_names_the_previous_case_of_an_order_dependent_result(tmp_path, monkeypatch):
    import json

    report = tmp_path / "run.json"
    report.write_text(json.dumps({"schema": "sdpa-bwd.run/1", "results": [
        {"case": "reg-stale-state-between-cases-dq-2-bshd", "engine": "torch-math", "verdict": "order-dependent",
         "previous_case": "reg-stale-state-between-cases-q-3-packed"}]}))
    path = _write(tmp_path, monkeypatch, "reg-stale-state-between-cases-dq-2-bshd", "torch-math",
                  "--report", str(report))
    text = path.read_text()
    assert "'id': 'reg-stale-state-between-cases-q-3-packed'" in text
    assert "'id': 'reg-stale-state-between-cases-dq-1-packed'" not in text


def _worker_rows(engine, sequence, failing):
    """Report rows of one worker's run of ``sequence`` (case ids, or (id, verdict)), started in that order."""
    rows = []
    for i, item in enumerate(sequence):
        case, verdict = item if isinstance(item, tuple) else (item, "passed")
        row = {"case": case, "engine": engine, "verdict": verdict, "worker": 0, "started": float(i)}
        if case == failing:
            row.update(verdict="order-dependent", failing=True, previous_case=sequence[i - 1])
        rows.append(row)
    return rows


def test_ran_before_is_the_workers_cases_kept_together_with_it_back_to_a_fault():
    """An order-dependent result's file runs what its worker ran before it as far back as the runner keeps cases
    together with it, not only the case right before: state can build up over several calls. It stops at a fault
    (that process ended) and at another worker's or engine's rows; without a worker record, previous_case alone."""
    byid = {c.id: c for c in load_level("quick")}
    group = [f"reg-stale-state-between-cases-dq-{s}" for s in ("1-packed", "2-bshd", "3-packed", "4-pad-rows")]
    other = "reg-stale-state-between-cases-q-1-packed"
    rows = _worker_rows("e", [other, *group], group[3])
    rows.append({"case": group[2], "engine": "e", "verdict": "passed", "worker": 1, "started": 2.5})
    rows.append({"case": group[1], "engine": "f", "verdict": "passed", "worker": 0, "started": 3.5})
    ids = lambda cases: [c.id for c in cases]  # noqa: E731
    assert ids(repro.ran_before(rows, rows[4], byid.get)) == group[:3]
    faulted = _worker_rows("e", [other, group[0], (group[1], "fault"), group[2], group[3]], group[3])
    assert ids(repro.ran_before(faulted, faulted[4], byid.get)) == [group[2]]
    bare = [{k: v for k, v in r.items() if k not in ("worker", "started")} for r in rows[:5]]
    assert ids(repro.ran_before(bare, bare[4], byid.get)) == [group[2]]


def test_repros_runs_the_cases_the_worker_ran_before_an_order_dependent_cell(tmp_path, monkeypatch):
    """An engine wrong from the third call of a size on: the runner's worker ran two cases of that size before the
    failing one. The file with only the case right before it passes (as the 2^31 dQ, dK, dV files did, H100
    2026-12-07h); with the worker's cases before it, it fails, and the twin's passes."""
    import json
    import os
    from pathlib import Path

    from sdpa_bwd.conformance.worker import IMPORTS_ENV, import_engine_modules

    monkeypatch.setenv(IMPORTS_ENV, str(Path(__file__).with_name("fault_engines.py")))
    import_engine_modules()
    group = [f"reg-stale-state-between-cases-dq-{s}" for s in ("1-packed", "2-bshd", "3-packed")]
    report = tmp_path / "run.json"
    report.write_text(json.dumps({"schema": "sdpa-bwd.run/1", "argv": ["run", "--level", "quick"],
                                  "results": _worker_rows("test-wrong-after-two", group, group[2])}))
    out = tmp_path / "repros"
    # one run of each file: a file's runs share its process, so its second run would build the state up too
    assert main(["repros", str(report), "--out", str(out), "--twin", "reference", "--run", "--repeat", "1"]) == 0
    row = json.loads((out / "index.json").read_text())[0]
    assert row["ran"]["test-wrong-after-two"][0] == 1 and "FAILS" in row["ran"]["test-wrong-after-two"][1], row
    assert row["ran"]["reference"][0] == 0, row
    text = (out / "test-wrong-after-two" / f"{group[2]}.py").read_text()
    assert f"'id': '{group[0]}'" in text and f"'id': '{group[1]}'" in text
    one_before = _write(tmp_path, monkeypatch, group[2], "test-wrong-after-two", "--after", group[1])
    done = subprocess.run([sys.executable, str(one_before)], capture_output=True, text=True, timeout=600,
                          env=dict(os.environ))
    assert done.returncode == 0 and "passes" in done.stdout, \
        "with only the case right before it the engine is right: " + done.stdout[-2000:] + done.stderr[-2000:]


def test_large_inputs_are_drawn_from_the_seed_not_embedded(monkeypatch):
    """Over EMBED_LIMIT the file draws the inputs itself; on the CPU the draws equal the harness's."""
    quick = {c.id: c for c in load_level("quick")}
    case = quick["reg-misaligned-base"]
    assert repro.case_record(case, judged=False)["inputs"] is not None
    monkeypatch.setattr(repro, "EMBED_LIMIT", 16)
    assert repro.case_record(case, judged=False)["inputs"] is None
    from sdpa_bwd.conformance.tensors import materialize

    m = materialize(case.to_problem(), seed=case.seed, forward=False)
    drawn = repro._inputs(case)
    for n in ("q", "k", "v", "do"):
        assert (m.view(n).float() == drawn[n].to(m.view(n).dtype).float()).all(), n


@pytest.mark.parametrize("case_id", ["pair-002", "pair-004", "pair-006", "reg-empty-rows"])
def test_the_files_reference_walks_query_rows_in_blocks_and_equals_the_oracle(case_id):
    """The file's float64 reference holds REF_BLOCK score elements at a time (2026-12-07, H100: torch-math's
    S 32768 twin asked for 256 GiB whole): in blocks of a few rows it equals the project's oracle (bands both
    alignments, GQA with H_k != H_v, rows that keep no key)."""
    from sdpa_bwd.problem import oracle

    case = {c.id: c for c in load_level("quick")}[case_id]
    ns = {"__name__": "repro_under_test"}
    exec(compile(repro.render("torch-math", case), "repro.py", "exec"), ns)
    c = ns["CASES"][-1]
    _, views = ns["build"](c, "cpu")
    q, k, v, do = (views[n] for n in ("q", "k", "v", "do"))
    ns["REF_BLOCK"] = 3 * q.shape[0] * q.shape[1] * k.shape[2]   # three query rows a block
    o, lse, grads = ns["reference"](c, q, k, v, do)
    attrs = dict(scale=c["scale"], left_bound=c["left_bound"], right_bound=c["right_bound"], alignment=c["alignment"])
    want_o, want_lse = oracle.forward(q, k, v, **attrs)
    want = dict(zip(("dq", "dk", "dv"), oracle.backward(q, k, v, want_o, do, want_lse, **attrs)[:3]))
    assert torch.allclose(o, want_o, rtol=1e-10, atol=1e-12)
    assert torch.equal(torch.isneginf(lse), torch.isneginf(want_lse))
    assert torch.allclose(lse.nan_to_num(neginf=0.0), want_lse.nan_to_num(neginf=0.0), rtol=1e-10, atol=1e-12)
    for n in ("dq", "dk", "dv"):
        assert torch.allclose(grads[n], want[n], rtol=1e-9, atol=1e-11), n


# ----------------------------------------------------------------------------
# The operator-level adapters, written out: the file calls PyTorch's operators as the adapter does


_LSE_FORMS = {"cudnn": lambda B, H, S: (B, H, S, 1), "flash": lambda B, H, S: (B, H, S),
              "efficient": lambda B, H, S: (B, H, -(-S // 32) * 32)}


def _fake_ops(monkeypatch, op, calls):
    """Stand-ins for ``aten._scaled_dot_product_{op}_attention[_backward]`` (no CUDA here): each records what it
    was given (values and strides), the forward returns a logsumexp container of the backend's form filled with a
    sentinel, the backward gradients that depend on every tensor it read."""
    def snap(x):
        return None if not isinstance(x, torch.Tensor) else (tuple(x.shape), x.stride(), x.double().nan_to_num(7e7))

    def forward(q, k, v, *rest, scale=None):
        B, H, S = q.shape[0], q.shape[1], q.shape[2]
        lse = torch.full(_LSE_FORMS[op](B, H, S), 5.0, dtype=torch.float32)
        calls.append(("forward", [snap(x) for x in (q, k, v, *rest)], scale))
        o = torch.zeros(*q.shape[:3], v.shape[-1], dtype=q.dtype)
        extras = {"cudnn": 7, "flash": 7, "efficient": 2}[op]
        return (o, lse, *[torch.tensor(i) for i in range(extras)])

    def backward(*args, scale=None):
        calls.append(("backward", [snap(x) if isinstance(x, torch.Tensor) else x for x in args], scale))
        tensors = [x for x in args if isinstance(x, torch.Tensor) and x.dim() >= 3]
        total = sum(float(x.double().nan_to_num(0).sum()) for x in tensors)
        do, q, k, v = args[:4]
        grads = (q.float() * 2 + total, k.float() * 3 + total, v.float() - total)
        return grads + (None,) if op == "efficient" else grads  # efficient's fourth: the bias's gradient

    import sdpa_bwd.backends.torch_cuda_ops  # noqa: F401  (the adapter module, before its ops are patched)
    monkeypatch.setattr(torch.ops.aten, f"_scaled_dot_product_{op}_attention", forward, raising=False)
    monkeypatch.setattr(torch.ops.aten, f"_scaled_dot_product_{op}_attention_backward", backward, raising=False)


@pytest.mark.parametrize("engine", ["torch-cudnn-op", "torch-flash-op", "torch-efficient-op"])
@pytest.mark.parametrize("case_id", ["reg-empty-rows", "reg-stats-batch-head-strides-swapped",
                                     "reg-causal-alignment-bottom-right-sq-lt-skv", "reg-misaligned-base"])
def test_an_operator_repro_calls_the_operators_as_the_adapter_does(engine, case_id, monkeypatch):
    """The written-out run_engine and the adapter make the same operator calls (every tensor's values and
    strides, the mask, the flags, the scale) and write the same gradients: the file reproduces the adapter."""
    from sdpa_bwd.backends import get_engine
    from sdpa_bwd.backends.base import Tensors

    case = {c.id: c for c in load_level("quick")}[case_id]
    text = repro.render(engine, case)
    assert "Needs PyTorch only" in text
    ns = {"__name__": "repro_under_test"}
    exec(compile(text, f"repro-{case_id}.py", "exec"), ns)
    c = ns["CASES"][-1]
    op = repro.SDPA_OPS[engine]
    calls_file, calls_adapter = [], []

    _fake_ops(monkeypatch, op, calls_file)
    _, views = ns["build"](c, "cpu")
    assert ns["run_engine"](c, views) is None
    _fake_ops(monkeypatch, op, calls_adapter)
    _, views2 = ns["build"](c, "cpu")
    get_engine(engine).backward(case.to_problem(), Tensors(**{n: views2[n] for n in ns["NAMES"]}))

    assert [k for k, _, _ in calls_file] == ["forward", "backward"] == [k for k, _, _ in calls_adapter]
    for (kind, a, sa), (_, b, sb) in zip(calls_file, calls_adapter):
        assert sa == sb, f"{kind}: scale {sa} in the file, {sb} in the adapter"
        assert len(a) == len(b), f"{kind}: {len(a)} arguments in the file, {len(b)} in the adapter"
        for i, (x, y) in enumerate(zip(a, b)):
            if isinstance(x, tuple) and x is not None:
                assert x[:2] == y[:2] and torch.equal(x[2], y[2]), f"{kind} argument {i} differs"
            else:
                assert x == y, f"{kind} argument {i}: {x!r} in the file, {y!r} in the adapter"
    for n in ("dq", "dk", "dv"):
        assert torch.equal(views[n].double().nan_to_num(0), views2[n].double().nan_to_num(0)), n


# ----------------------------------------------------------------------------
# Varlen probes: the file hands the engine the malformed offsets as its adapter does


def _write_varlen(tmp_path, case_id, engine):
    out = tmp_path / f"{engine}-{case_id}.py"
    assert main(["repro", case_id, "--engine", engine, "--level", "varlen", "-o", str(out)]) == 0
    return out


def test_a_varlen_probe_file_exits_0_where_the_engine_refuses_and_1_where_it_takes_the_offsets(tmp_path):
    """Our engine refuses a negative first offset; SDPA on nested jagged tensors takes it (docs/findings/ 10,
    PyTorch 2.13 on the CPU): the file says which, by its exit status."""
    done = _run(_write_varlen(tmp_path, "varlen-probe-negative", "triton"))
    assert done.returncode == 0 and "triton refuses them" in done.stdout, done.stdout + done.stderr
    done = _run(_write_varlen(tmp_path, "varlen-probe-negative", "torch-njt"))
    assert done.returncode == 1 and "torch-njt TAKES them" in done.stdout, done.stdout + done.stderr


def test_the_flash_varlen_probe_file_is_the_adapters_own_check_and_needs_only_pytorch(tmp_path):
    from sdpa_bwd.backends import torch_flash_varlen
    import inspect

    path = _write_varlen(tmp_path, "varlen-probe-decreasing", "torch-flash-varlen")
    assert "sdpa_bwd" not in _imports(path)
    assert inspect.getsource(torch_flash_varlen.offsets_refusal) in path.read_text()
    if not torch.cuda.is_available():
        done = _run(path)
        assert done.returncode == 2 and "CUDA only" in done.stdout, done.stdout + done.stderr


def test_a_varlen_case_that_is_no_probe_says_how_to_rerun_it(tmp_path):
    with pytest.raises(SystemExit, match="only varlen probes get a standalone file yet - rerun it with: sdpa-bwd run"):
        main(["repro", "varlen-000", "--engine", "triton", "--level", "varlen", "-o", str(tmp_path / "x.py")])


def test_repros_writes_every_failing_cell_with_a_twin_and_checks_them_alone(tmp_path, monkeypatch):
    """``sdpa-bwd repros REPORT --run``: a file per failing cell and its ``triton`` twin; the seeded defect's file
    fails alone and the twin's passes, and index.md says so; passing cells get no file, a probe gets a note."""
    import json

    report = tmp_path / "run.json"
    report.write_text(json.dumps({"schema": "sdpa-bwd.run/1", "argv": ["run", "--level", "quick"], "results": [
        {"case": "reg-aliased-outputs-fused-dqkv", "engine": "triton-defect:aliased-outputs", "verdict": "failed",
         "failing": True},
        {"case": "reg-misaligned-base", "engine": "triton-defect:aliased-outputs", "verdict": "passed",
         "failing": False},
        {"case": "probe-dq-aliases-dk", "engine": "triton-defect:aliased-outputs", "verdict": "rejection-accepted",
         "failing": True}]}))
    monkeypatch.setenv("SDPA_BWD_DEFECTS", "1")
    out = tmp_path / "repros"
    try:
        status = main(["repros", str(report), "--out", str(out), "--run", "--jobs", "2"])
    finally:
        from sdpa_bwd.conformance import defects

        defects.unregister_defects()
    index = (out / "index.md").read_text()
    assert status == 0, index
    row = next(ln for ln in index.splitlines() if "reg-aliased-outputs-fused-dqkv" in ln)
    assert row.endswith("| exit 1 | exit 0 |"), row
    assert (out / "triton" / "reg-aliased-outputs-fused-dqkv.py").exists()
    assert "reg-misaligned-base" not in index
    probe = next(ln for ln in index.splitlines() if "probe-dq-aliases-dk" in ln)
    assert "no file" in probe and "probe" in probe


def test_repros_notes_forward_only_failures_and_runs_an_unreplayed_cells_predecessor_first(tmp_path):
    """A cell whose failing checks are the stats only gets a note that its file judges the gradients and O only;
    a failed cell the runner never replayed alone (over --replay-limit) gets a file that runs the case before it
    first, as the runner did (2026-12-07, H100: 4 of the standard matrix's 185 files passed alone, one a forward-only
    failure, three unreplayed)."""
    import json

    from sdpa_bwd.conformance.plan import load_level

    quick = [c.id for c in load_level("quick") if c.purpose != "probe" and not getattr(c, "ragged", False)]
    forward_only, unreplayed, before = quick[0], quick[2], quick[1]
    passed = {"passed": True}
    report = tmp_path / "run.json"
    report.write_text(json.dumps({"schema": "sdpa-bwd.run/1", "argv": ["run", "--level", "quick"], "results": [
        {"case": forward_only, "engine": "torch-math", "verdict": "failed", "failing": True,
         "checks": {"dq": passed, "dk": passed, "dv": passed, "o": passed, "stats": {"passed": False}},
         "replay": {"verdict": "failed", "conclusion": "fails alone too"}},
        {"case": unreplayed, "engine": "torch-math", "verdict": "failed", "failing": True, "previous_case": before,
         "checks": {"dq": {"passed": False}}, "replay": {"skipped": "over --replay-limit 8"}}]}))
    out = tmp_path / "repros"
    assert main(["repros", str(report), "--out", str(out)]) == 0
    rows = {r["case"]: r for r in json.loads((out / "index.json").read_text())}
    assert "failing checks are stats" in rows[forward_only]["note"], rows[forward_only]
    assert "skipped its replay alone" in rows[unreplayed]["note"] and before in rows[unreplayed]["note"]
    text = (out / "torch-math" / f"{unreplayed}.py").read_text()
    assert before in text, "the unreplayed cell's file must run the case the runner ran before it"
    index = (out / "index.md").read_text()
    assert "failing checks are stats" in index and "skipped its replay alone" in index


def test_an_operator_file_judges_its_forwards_stats(monkeypatch, capsys):
    """The operator adapters' forward writes the backend's stats, which the runner judges; their file judges them
    too (2026-12-07, H100: torch-efficient-op's pair-194, stats 0 where a row keeps no key, passed its file). The
    stats are taken before the caller's go into the container, and a row without keys is right at -inf."""
    case = {c.id: c for c in load_level("quick")}["reg-empty-rows"]
    ns = {"__name__": "repro_under_test"}
    exec(compile(repro.render("torch-efficient-op", case), "repro.py", "exec"), ns)
    c = ns["CASES"][-1]
    _fake_ops(monkeypatch, "efficient", [])
    flats, views = ns["build"](c, "cpu")
    assert ns["run_engine"](c, views) is None
    assert (ns["FORWARD"]["stats"] == 5.0).all(), "the forward's own stats, not the caller's copied in"
    ns["check"](c, views, flats, "cpu")
    line = next(ln for ln in capsys.readouterr().out.splitlines() if ln.startswith("  stats:"))
    assert "FAILS" in line, line
    _, lse, _ = ns["reference"](c, views["q"], views["k"], views["v"], views["do"])
    assert torch.isneginf(lse).any(), "the case must hold a row without keys"
    ns["FORWARD"]["stats"] = lse.float()
    ns["check"](c, views, flats, "cpu")
    line = next(ln for ln in capsys.readouterr().out.splitlines() if ln.startswith("  stats:"))
    assert ": ok" in line, line


def test_repros_runs_the_files_of_heavy_cases_alone_after_the_others(tmp_path, monkeypatch):
    """A file whose cases need over RUN_ALONE_BYTES runs with no other file beside it, after the light ones
    (2026-12-07, H100: four such files ran out of memory among 14 at once)."""
    import json
    import threading
    import time

    from sdpa_bwd.conformance.plan.cost import case_cost

    quick = {c.id: c for c in load_level("quick")}
    light_ids = ["pair-002", "pair-003", "pair-006"]
    heavy_id = max(light_ids + ["pair-004"], key=lambda i: case_cost(quick[i]).bytes)
    light_ids = [i for i in light_ids + ["pair-004"] if i != heavy_id]
    monkeypatch.setattr(repro_cells, "RUN_ALONE_BYTES", max(case_cost(quick[i]).bytes for i in light_ids))
    report = tmp_path / "run.json"
    report.write_text(json.dumps({"schema": "sdpa-bwd.run/1", "argv": ["run", "--level", "quick"], "results": [
        {"case": i, "engine": "torch-math", "verdict": "failed", "failing": True} for i in light_ids + [heavy_id]]}))
    lock, running, log = threading.Lock(), [], []

    def fake_run(f, timeout):
        with lock:
            running.append(f)
            log.append((f.stem, len(running)))
        time.sleep(0.05)
        with lock:
            running.remove(f)
        return 1 if "torch-math" in str(f) else 0, "stub"

    monkeypatch.setattr(repro_cells, "_run_file", fake_run)
    assert main(["repros", str(report), "--out", str(tmp_path / "out"), "--run", "--jobs", "4"]) == 0
    heavy = [(i, n) for i, (stem, n) in enumerate(log) if stem == heavy_id]
    assert len(heavy) == 2 and all(n == 1 for _, n in heavy), log
    assert min(i for i, _ in heavy) == len(log) - 2, f"the heavy files run last: {log}"
    assert max(n for _, n in log) > 1, f"the light files run side by side: {log}"


def test_repros_takes_only_the_cells_named(tmp_path):
    """``--cell ENGINE:CASE`` (or a bare case id) writes and runs those cells only: the few a GPU call checks again
    without writing the whole matrix's files (389 files, 400 MB, 8 minutes on 2 cores, 2026-12-07)."""
    import json

    quick = [c.id for c in load_level("quick") if c.purpose != "probe" and not getattr(c, "ragged", False)][:3]
    report = tmp_path / "run.json"
    report.write_text(json.dumps({"schema": "sdpa-bwd.run/1", "argv": ["run", "--level", "quick"], "results": [
        {"case": i, "engine": e, "verdict": "failed", "failing": True}
        for i in quick for e in ("torch-math", "torch-efficient")]}))
    out = tmp_path / "out"
    assert main(["repros", str(report), "--out", str(out), "--cell", f"torch-math:{quick[0]}",
                 "--cell", quick[2]]) == 0
    rows = {(r["engine"], r["case"]) for r in json.loads((out / "index.json").read_text())}
    assert rows == {("torch-math", quick[0]), ("torch-math", quick[2]), ("torch-efficient", quick[2])}, rows


def test_a_file_runs_its_sequence_again_until_a_failure_shows(tmp_path, monkeypatch):
    """``--repeat N``: the file runs its sequence up to N times, fresh tensors each, and stops at the first failure,
    saying which; a failure that shows once in a few runs (a race, state that builds up) fails the file (2026-12-07,
    H100: three cuDNN-operator cells with 4-54 of 32768 elements off in the runner passed their file's one run).
    Here the engine's third call is corrupted after it returns."""
    path = _write(tmp_path, monkeypatch, "reg-misaligned-base", "torch-math", "--alone")
    text = path.read_text()
    assert "REPEAT = 1\n" in text
    third_call_wrong = ('_engine = run_engine\nCALLS = []\n\n\ndef run_engine(c, views):\n'
                        '    reasons = _engine(c, views)\n    CALLS.append(1)\n'
                        '    if len(CALLS) == 3:\n        views["dq"].add_(1.0)\n    return reasons\n\n\n')
    path.write_text(text.replace('if __name__ == "__main__":', third_call_wrong + 'if __name__ == "__main__":'))
    once = _run(path)
    assert once.returncode == 0 and "passes" in once.stdout, once.stdout + once.stderr
    two = subprocess.run([sys.executable, str(path), "--repeat", "2"], capture_output=True, text=True, timeout=600)
    assert two.returncode == 0 and "passes (2 attempts)" in two.stdout, two.stdout + two.stderr
    five = subprocess.run([sys.executable, str(path), "--repeat", "5"], capture_output=True, text=True, timeout=600)
    assert five.returncode == 1, five.stdout + five.stderr
    assert "FAILS at attempt 3 of 5" in five.stdout and "attempt 4 of 5" not in five.stdout, five.stdout


def test_repros_repeats_the_files_of_cells_whose_failure_did_not_repeat(tmp_path, monkeypatch):
    """A cell the runner saw fail once but not again (order-dependent: its replay alone passed; or bits changed in
    its rerun) gets a file that runs its sequence INTERMITTENT_REPEAT times by default, and the time to do it; a cell
    that failed every time runs once."""
    import json

    quick = [c.id for c in load_level("quick") if c.purpose != "probe" and not getattr(c, "ragged", False)]
    steady, order, changed = quick[0], quick[2], quick[3]
    report = tmp_path / "run.json"
    report.write_text(json.dumps({"schema": "sdpa-bwd.run/1", "argv": ["run", "--level", "quick"], "results": [
        {"case": steady, "engine": "torch-math", "verdict": "failed", "failing": True},
        {"case": order, "engine": "torch-math", "verdict": "order-dependent", "failing": True,
         "previous_case": quick[1]},
        {"case": changed, "engine": "torch-math", "verdict": "failed", "failing": True,
         "rerun_changed": {"dq": 4}}]}))
    timeouts = {}

    def fake_run(f, timeout):
        timeouts[(f.parent.name, f.stem)] = timeout
        return 1 if f.parent.name == "torch-math" else 0, "stub"

    monkeypatch.setattr(repro_cells, "_run_file", fake_run)
    out = tmp_path / "out"
    assert main(["repros", str(report), "--out", str(out), "--run", "--timeout", "10"]) == 0
    n = repro_cells.INTERMITTENT_REPEAT
    for engine in ("torch-math", "triton"):
        assert "REPEAT = 1\n" in (out / engine / f"{steady}.py").read_text()
        for case in (order, changed):
            assert f"REPEAT = {n}\n" in (out / engine / f"{case}.py").read_text(), (engine, case)
        assert timeouts[(engine, steady)] == 10 and timeouts[(engine, order)] == 10 * n, timeouts
    assert "replay alone passed" in (out / "torch-math" / f"{order}.py").read_text()
    assert "dq 4 elements" in (out / "torch-math" / f"{changed}.py").read_text()
    index = (out / "index.md").read_text()
    assert f"(up to {n} runs)" in next(ln for ln in index.splitlines() if f"| {order} |" in ln)
    assert "runs)" not in next(ln for ln in index.splitlines() if f"| {steady} |" in ln)
