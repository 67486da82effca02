"""tools/gluon_fwd_probe.py compiles for sm_90a with this Triton, in the schedule it exists to measure.

No GPU: the probe's kernel is compiled, not run (Gluon has no interpreter). What is checked is the code the
compiler made, which the probe's timing would rest on: the two consumer partitions each wait for S_j with one
product still in flight (``wgmma.wait_group 1``: P_{j-1} V_{j-1} runs under the softmax), the worker consumer
partition got the register budget asked for (``setmaxnreg``), and the buffers fit the H200's shared memory.
The tool runs in a child process without TRITON_INTERPRET: under it (conftest sets it) Triton's own jit
functions are interpreted ones, which a Gluon kernel cannot call.
"""

import json
import os
import subprocess
import sys

import pytest

pytest.importorskip("triton.experimental.gluon.language.nvidia.hopper")

H200_SHARED = 232448  # bytes a program may take on the H200 (the OutOfResources limit the device reports)
PROBE = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tools", "gluon_fwd_probe.py")


@pytest.fixture(scope="module")
def compiled():
    env = {**os.environ, "TRITON_INTERPRET": "0"}
    run = subprocess.run([sys.executable, PROBE, "--compile-only"], capture_output=True, text=True, env=env,
                         timeout=600)
    assert run.returncode == 0, f"tools/gluon_fwd_probe.py --compile-only failed:\n{run.stderr[-3000:]}"
    return {r["causal"]: r for r in map(json.loads, (ln for ln in run.stdout.splitlines() if ln.startswith("{")))}


@pytest.mark.parametrize("causal", [False, True])
def test_probe_compiles_with_the_softmax_under_the_pv_product(compiled, causal):
    r = compiled[causal]
    assert r["waits"].count(1) == 2, (
        f"saw product waits {r['waits']}: each of the two consumer partitions should wait for S_j with one "
        "product (P_{j-1} V_{j-1}) left in flight, once each; a wait for 0 there puts the softmax back behind "
        "both products. Check the warpgroup_mma_wait(1, ...) in tools/gluon_fwd_probe.py's _consume")
    assert r["wgmma"] == 64, (
        f"saw {r['wgmma']} wgmma instructions, expected 64 (2 consumers x (Q K^T + P V) x (prologue or loop, "
        "loop or epilogue) x 8 k-steps of 16 at D 128): the probe's loop structure changed")
    assert ["inc", "232"] in r["setmaxnreg"], (
        f"saw register budgets {r['setmaxnreg']}, none up to 232: the worker consumer partition did not get the "
        "registers the probe asks for (gl.warp_specialize's worker_num_regs [232, 40]), so its accumulator and "
        "two score tiles may spill")
    assert r["shared"] <= H200_SHARED, (
        f"the probe asks for {r['shared']} B of shared memory, over the H200's {H200_SHARED}: lower its stages")
