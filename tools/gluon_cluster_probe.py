"""Can Gluon sum two CTAs' fp32 partials inside a cluster? A compile-only probe for the 192 kernel's next lever
(docs/perf-log.md, stop 34: the kernel is held by dQ's bulk reduces, 48 KB of fp32 a 64-key tile; a 2-CTA cluster
summing its two programs' dQ partials before one reduce would halve them).

    TRITON_INTERPRET=0 python3 tools/gluon_cluster_probe.py      # no GPU needed: compiles for sm_90a, num_ctas=2

Two forms of one [2, 64, 64] fp32 tile whose first dim is split over the cluster's two CTAs (``cga_layout``), each
CTA holding its own partial:

- ``reduce``: ``gl.sum`` over the CTA-split dim;
- ``gather``: ``gl.convert_layout`` to a layout both CTAs hold whole (distributed shared memory), then ``gl.sum``.

Prints one JSON line a form: compiled or not, and the error's first line or, compiled, how often the PTX says
``mapa``, ``shared::cluster`` and ``barrier.cluster`` (distributed shared memory and the cluster's barrier). Stop 34, Triton 3.6.0 (the H200's):
``reduce`` fails an assertion (``ReduceOpConversion``: ``helper.isReduceWithinCTA()``), ``gather`` fails to lower
(``nvvm.mapa`` given a shared-space pointer). So on Triton 3.6 a cross-CTA sum needs inline PTX (``mapa``,
``st.shared::cluster`` or ``st.async``, ``barrier.cluster``); the Hopper TMA load has no multicast argument either.
Triton 3.9.0 (CI's) compiles both, through distributed shared memory (``mapa``, ``shared::cluster``) and the
cluster's barrier: on a device with a newer Triton the 2-CTA sum can be written in Gluon's layouts.
A failure aborts the compiler's process, so each form compiles in a child process.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile

FORM = r'''
import json

import triton
from triton.experimental import gluon
from triton.experimental.gluon import language as gl
from triton.backends.compiler import GPUTarget
from triton.experimental.gluon._runtime import GluonASTSource

GATHER = gl.constexpr({gather})


@gluon.jit
def pair_sum(x_ptr, y_ptr):
    L: gl.constexpr = gl.BlockedLayout([1, 1, 4], [1, 4, 8], [1, 4, 1], [2, 1, 0], cga_layout=[[1, 0, 0]])
    LB: gl.constexpr = gl.BlockedLayout([1, 1, 4], [1, 4, 8], [1, 4, 1], [2, 1, 0], cga_layout=[[0, 0, 0]])
    c = gl.arange(0, 2, layout=gl.SliceLayout(1, gl.SliceLayout(2, L)))
    r = gl.arange(0, 64, layout=gl.SliceLayout(0, gl.SliceLayout(2, L)))
    k = gl.arange(0, 64, layout=gl.SliceLayout(0, gl.SliceLayout(1, L)))
    x = gl.load(x_ptr + c[:, None, None] * 4096 + r[None, :, None] * 64 + k[None, None, :])
    if GATHER:
        s = gl.sum(gl.convert_layout(x, LB), axis=0)
        R: gl.constexpr = gl.SliceLayout(0, LB)
    else:
        s = gl.sum(x, axis=0)
        R: gl.constexpr = gl.SliceLayout(0, L)
    rr = gl.arange(0, 64, layout=gl.SliceLayout(1, R))
    kk = gl.arange(0, 64, layout=gl.SliceLayout(0, R))
    gl.store(y_ptr + rr[:, None] * 64 + kk[None, :], s)


k = triton.compile(GluonASTSource(pair_sum, {{"x_ptr": "*fp32", "y_ptr": "*fp32"}}, {{}}),
                   target=GPUTarget("cuda", 90, 32), options=dict(num_warps=4, num_ctas=2))
ptx = k.asm["ptx"]
print(json.dumps({{p: ptx.count(p) for p in ("mapa", "shared::cluster", "barrier.cluster")}}))
'''


def probe(form: str) -> dict:
    """Compile ``form`` ("reduce" or "gather") in a child process: {"form", "compiled"} with "error" (the
    failure's telling line) or "ptx_counts"."""
    with tempfile.TemporaryDirectory() as d:  # Triton's jit reads a kernel's source from its file
        path = os.path.join(d, f"cluster_{form}.py")
        with open(path, "w") as f:
            f.write(FORM.format(gather=form == "gather"))
        p = subprocess.run([sys.executable, path], capture_output=True, text=True, timeout=300)
    if p.returncode:
        lines = (p.stderr or "").splitlines()
        error = next((ln.strip() for ln in lines if "Assertion" in ln),
                     next((ln.strip() for ln in lines if "error:" in ln), lines[-1] if lines else ""))
        return dict(form=form, compiled=False, error=error[:400])
    return dict(form=form, compiled=True, ptx_counts=json.loads(p.stdout.strip().splitlines()[-1]))


if __name__ == "__main__":
    import triton

    for form in ("reduce", "gather"):
        print(json.dumps(dict(triton=triton.__version__, **probe(form))), flush=True)
