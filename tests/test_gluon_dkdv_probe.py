"""tools/gluon_dkdv_probe.py compiles for sm_90a with this Triton in the schedule it exists to measure.

No GPU: the probe is compiled, not run (Gluon has no interpreter). Checked is what the timing would rest on:
each consumer waits for S with one product (dP) still in flight, in its first tile, its peeled second one
and its loop; ptxas does
not serialise the wgmma for want of registers (the probe's first version, with P^T and dS^T as register
operands, was serialised at every register budget); the buffers fit the H200's shared memory. Run in a child
process without TRITON_INTERPRET (conftest sets it; Gluon cannot call the interpreter's jit functions).
"""

import json
import os
import subprocess
import sys

import pytest

pytest.importorskip("triton.experimental.gluon.language.nvidia.hopper")

H200_SHARED = 232448  # bytes a program may take on the H200 (the OutOfResources limit the device reports)
PROBE = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tools", "gluon_dkdv_probe.py")


def test_dkdv_probe_compiles_unserialised_with_the_softmax_under_dp():
    env = {**os.environ, "TRITON_INTERPRET": "0"}
    run = subprocess.run([sys.executable, PROBE, "--compile-only"], capture_output=True, text=True, env=env,
                         timeout=600)
    assert run.returncode == 0, f"tools/gluon_dkdv_probe.py --compile-only failed:\n{run.stderr[-3000:]}"
    r = json.loads([ln for ln in run.stdout.splitlines() if ln.startswith("{")][-1])
    assert r["waits"].count(1) == 6, (
        f"saw product waits {r['waits']}: each consumer should wait for S with dP still in flight (wait_group 1) "
        "in its first tile, its peeled second one and its loop; a wait for 0 puts the exponentials behind dP "
        "again. Check _probs")
    assert r["wgmma"] == 144, (
        f"saw {r['wgmma']} wgmma instructions, expected 144 (2 consumers x (first tile, peeled second, loop) x "
        "(S and dP: 8 k-steps each over D 128; dV and dK: 4 each over 64 query rows)): the probe's loop "
        "structure changed")
    assert not r["wgmma_serialized"], (
        "ptxas serialises the probe's wgmma for want of registers (C7512): the products would run one after "
        "another and its timing would mean nothing. Keep P and dS in shared memory (see the probe's docstring)")
    assert r["shared"] <= H200_SHARED, f"the probe asks for {r['shared']} B of shared memory, over {H200_SHARED}"
