"""Normalized sm_90a SASS of the Gluon backward's default forms, for telling whether a source change moved the
compiled code (Triton 3.6 without a GPU; spills in the hd64 loop have cost 11% from scalar code before it,
stop 25).

    TRITON_INTERPRET=0 PYTHONPATH=src /tmp/t36/bin/python tools/gluon_bwd_sass.py OUT_DIR

Writes one ``.sass`` per form (hd64 with 128-row tiles and hd128; the TMA and pointer-store epilogues, GQA's,
deterministic, in the walk-down order and the walk up (``_up``, stop 31's ``DET_UP``); head groups 1 and 8;
GQA's head loop, ``_loop``) with register numbers, hex constants and
addresses blanked, and prints each
form's line, spill-store (STL) and spill-load (LDL) counts. Compare two directories with ``diff -r``.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
import tempfile

import triton


def main(out: str) -> None:
    sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
    from gluon_bwd_compile import variant_signature
    from triton.backends.compiler import GPUTarget
    from triton.experimental.gluon._runtime import GluonASTSource

    from sdpa_bwd.engine.kernels import attention_bwd_gluon as g

    nvdisasm = os.path.join(os.path.dirname(triton.__file__), "backends", "nvidia", "bin", "nvdisasm")
    os.makedirs(out, exist_ok=True)
    for D, rows in ((64, 128), (128, 64)):
        for grouped, tma_ep, det, loop, up in ((False, True, False, False, False), (False, False, False, False, False),
                                               (True, True, False, False, False), (False, True, True, False, False),
                                               (True, True, True, False, False), (False, True, False, True, False),
                                               (False, False, False, True, False), (False, True, True, False, True),
                                               (True, True, True, False, True)):
            for head_group in (1,) if loop else (1, 8):
                sig, consts = variant_signature("bf16", D, grouped, tma_ep, rows, det, head_group=head_group,
                                                head_loop=loop, det_up=up)
                k = triton.compile(GluonASTSource(g.attention_bwd_gluon_kernel, sig, consts),
                                   target=GPUTarget("cuda", 90, 32), options=dict(num_warps=4, maxnreg=g.MAX_REGS))
                with tempfile.NamedTemporaryFile(suffix=".cubin", delete=False) as f:
                    f.write(k.asm["cubin"])
                sass = subprocess.run([nvdisasm, "-c", f.name], capture_output=True, text=True, check=True).stdout
                os.unlink(f.name)
                sass = re.sub(r"/\*[0-9a-f]+\*/", "", re.sub(r"0x[0-9a-f]+", "0x", re.sub(r"R\d+", "R", sass)))
                name = f"D{D}_g{int(grouped)}_t{int(tma_ep)}_d{int(det)}_h{head_group}" + ("_loop" if loop else "") + ("_up" if up else "")
                with open(os.path.join(out, name + ".sass"), "w") as f:
                    f.write(sass)
                print(name, len(sass.splitlines()), sass.count("STL"), sass.count("LDL"), flush=True)


if __name__ == "__main__":
    main(sys.argv[1])
