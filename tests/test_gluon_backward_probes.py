"""tools/gluon_dkdv_probe.py, tools/gluon_dq_probe.py and tools/gluon_bwd192_k96_probe.py compile for sm_90a with
this Triton, in the schedule they exist to measure. (The first 192 / 128 probe became the engine's
``attention_bwd_gluon_192`` on 2026-12-03: tests/test_gluon_backward.py checks its compile.)

No GPU: the probes are compiled, not run (Gluon has no interpreter). Checked is what their timings would rest
on: each consumer waits for S with one product (dP) still in flight at every place it computes probabilities
(first tile, peeled tiles, loop); ptxas does not serialise the wgmma for want of registers (the DKDV probe's
first version, with P^T and dS^T as register operands, was serialised at every register budget); the buffers
fit the H200's shared memory. Run in a child process without TRITON_INTERPRET (conftest sets it; Gluon cannot
call the interpreter's jit functions).
"""

import json
import os
import subprocess
import sys

import pytest

pytest.importorskip("triton.experimental.gluon.language.nvidia.hopper")

H200_SHARED = 232448  # bytes a program may take on the H200 (the OutOfResources limit the device reports)
REGISTER_FILE = 65536  # 32-bit registers an SM holds: what one program's threads may start with, all told
TOOLS = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tools")
# probe: (S-with-dP-in-flight waits, wgmma count, how the count comes about). The 5-product pass
# (gluon_dkdv_probe.py's "--dq", 2026-12-01) is the engine's backward now: tests/test_gluon_backward.py checks its schedule.
PROBES = {
    "gluon_dkdv_probe.py": (6, 144, "2 consumers x (first tile, peeled second, loop) x (S and dP: 8 k-steps each "
                                    "over D 128; dV and dK: 4 each over 64 query rows)"),
    "gluon_dq_probe.py": (6, 120, "2 consumers x (first tile, loop, diagonal loop) x (S and dP: 8 k-steps each "
                                  "over D 128; dQ: 4 over 64 keys)"),
    # the 192 / 128 backward in FlashAttention-3's hdim-192 shape (96-key programs, three consumers), 2026-12-03
    "gluon_bwd192_k96_probe.py": (9, 354, "3 consumers x 3 tile bodies (two peeled, the loop) x (S: 8 + 4 k-steps "
                                          "over D_qk's 128 + 64 columns, dP 8, dQ 4 + 2 over keys 0-63 and 64-95, "
                                          "dK^T 4 + 4, and for consumers 0 and 1 dV^T 4 + 4)"),
}


@pytest.mark.parametrize("probe", list(PROBES))
def test_probe_compiles_unserialised_with_the_softmax_under_dp(probe):
    env = {**os.environ, "TRITON_INTERPRET": "0"}
    tool, *flags = probe.split()
    run = subprocess.run([sys.executable, os.path.join(TOOLS, tool), *flags, "--compile-only"], capture_output=True,
                         text=True, env=env, timeout=600)
    assert run.returncode == 0, f"tools/{probe} --compile-only failed:\n{run.stderr[-3000:]}"
    r = json.loads([ln for ln in run.stdout.splitlines() if ln.startswith("{")][-1])
    waits, wgmma, why = PROBES[probe]
    assert r["waits"].count(1) == waits, (
        f"saw product waits {r['waits']}: each consumer should wait for S with dP still in flight "
        f"(wait_group 1) wherever it computes probabilities, {waits} in all; a wait for 0 puts the "
        f"exponentials behind dP again. Check tools/{probe}")
    assert r["wgmma"] == wgmma, (
        f"saw {r['wgmma']} wgmma instructions, expected {wgmma} ({why}): tools/{probe}'s loop structure changed")
    assert not r["wgmma_serialized"], (
        f"ptxas serialises tools/{probe}'s wgmma for want of registers (C7512): the products would run one "
        "after another and its timing would mean nothing. Keep P and dS in shared memory (see the DKDV probe)")
    assert r["register_file"] <= REGISTER_FILE, (
        f"tools/{probe} launches {r['threads']} threads at {r['register_file'] // r['threads']} registers each, "
        f"{r['register_file']} in all, over the SM's {REGISTER_FILE}: the launch would fail for want of resources "
        "(Triton pads warp-specialised partitions to whole warpgroups). Lower the probe's MAX_REGS")
    assert r["shared"] <= H200_SHARED, f"tools/{probe} asks for {r['shared']} B of shared memory, over {H200_SHARED}"

