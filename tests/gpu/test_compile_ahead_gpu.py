"""Compiling a case's kernels ahead of it, on a CUDA device (Triton 3.6's ``AsyncCompileMode``): from an empty
Triton cache, ``Engine.compile_ahead`` on a twin of a case's tensors compiles the kernels the case launches, side
by side, and the case then compiles none and loads none (they are in the process's cache), and passes. In a fresh
process each, so the cache really starts empty.

Run on the device machine: ``PYTHONPATH=src python -m pytest -m gpu tests/gpu/test_compile_ahead_gpu.py``.
"""

import json
import os
import subprocess
import sys
import tempfile

import pytest
import torch

pytestmark = [pytest.mark.gpu,
              pytest.mark.skipif(not torch.cuda.is_available(), reason="needs a CUDA device")]

_SCRIPT = r'''
import json, sys, time
import triton  # noqa: F401  (CompileWatch watches only once Triton is imported)
from sdpa_bwd.backends import get_engine
from sdpa_bwd.conformance.judge import run_case
from sdpa_bwd.conformance.plan import load_level
from sdpa_bwd.conformance.tensors import layout_twin
from sdpa_bwd.engine.compiles import CompileWatch

engine, case_id = sys.argv[1], sys.argv[2]
case = {c.id: c for c in load_level("quick")}[case_id]
eng, p = get_engine(engine), case.to_problem()
t0 = time.perf_counter()
with CompileWatch() as w:
    ok = eng.compile_ahead(p, layout_twin(p, "cuda"))
ahead = dict(w.summary(), wall_s=round(time.perf_counter() - t0, 2))
r = run_case(eng, case)
print(json.dumps({"ok": ok, "ahead": {k: ahead[k] for k in ("compiled", "compile_s", "wall_s")},
                  "case": {k: r.compiles[k] for k in ("compiled", "loaded")}, "verdict": r.verdict,
                  "message": r.message}))
'''


@pytest.mark.parametrize("engine", ["triton", "triton-api"])
@pytest.mark.parametrize("case_id", ["pair-003", "pair-004", "pair-014"])  # fp32 D96; bf16 D128 band; fp32 D256
def test_a_case_compiled_ahead_compiles_nothing_itself(engine, case_id):
    with tempfile.TemporaryDirectory() as cache:
        env = dict(os.environ, TRITON_CACHE_DIR=cache,
                   PYTHONPATH=os.pathsep.join(filter(None, ["src", os.environ.get("PYTHONPATH")])))
        done = subprocess.run([sys.executable, "-c", _SCRIPT, engine, case_id], capture_output=True, text=True,
                              env=env, timeout=300)
    assert done.returncode == 0, done.stdout[-2000:] + done.stderr[-4000:]
    out = json.loads(done.stdout.strip().splitlines()[-1])
    print(case_id, engine, out)
    assert out["ok"], f"{engine} did not compile ahead: {out}"
    assert out["ahead"]["compiled"] >= 3, f"too few kernels compiled ahead of {case_id}: {out}"
    assert out["case"] == {"compiled": 0, "loaded": 0}, (
        f"{case_id} on {engine} compiled or loaded kernels after compiling ahead, so the ahead compile's "
        f"specialisations are not the launch's: {out}")
    assert out["verdict"] == "passed", out
