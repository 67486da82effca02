"""Compile the fused-dQ-conversion prototype (``fused_dq_prototype.diff``) for sm_90a without a GPU, beside the
landed persistent 192 / 128 form, and print what ptxas makes of each (stop 42). From the repository root, with the
diff applied and Triton 3.6:

    git apply docs/data/h200-2026-12-04b/forms/fused_dq_prototype.diff
    TRITON_INTERPRET=0 PYTHONPATH=src python3 docs/data/h200-2026-12-04b/forms/fused_dq_compile.py
"""

import json
import re
import sys

sys.path.insert(0, "tools")
from gluon_probe_common import compile_report, desc_signature, signature_of  # noqa: E402
from triton.experimental.gluon import language as gl  # noqa: E402

from sdpa_bwd.kernels import attention_bwd_gluon_192 as g  # noqa: E402


def build(fused: bool) -> dict:
    fn = g.attention_bwd_gluon_192_kernel
    sig = signature_of(fn, "bf16", fp32_ptrs=("dqa_ptr",), floats=("qk_scale_log2", "scale"))
    sig["ctr_ptr"] = sig["tile_ctr_ptr"] = "*i32"
    for p, kind, cols in (("q_desc", "qa", 128), ("qb_desc", "qb", 64), ("k_desc", "qa", 128),
                          ("kb_desc", "qb", 64), ("v_desc", "v", 128), ("do_desc", "v", 128)):
        sig[p] = desc_signature(64, "bfloat16", [1, 1, 64, cols], g.host_layout(kind, gl.bfloat16))
    for p, kind, cols in (("dq0_desc", "dq0", 128), ("dq1_desc", "dq1", 64)):
        sig[p] = desc_signature(64, "float32", [64, cols], g.host_layout(kind, gl.bfloat16))
    for p in ("lse_desc", "dlt_desc"):
        sig[p] = desc_signature(64, "float32", [64], g.host_layout("side", gl.bfloat16))
    consts = dict(HEAD_GROUP=8, PAIR=False, PERSIST=True, SHARE_DS=False, STAGES=3, FUSED_DQ=fused)
    r = compile_report(fn, sig, consts, maxnreg=g.MAX_REGS, with_ptx=True)
    ptx = r.pop("ptx")
    r["acq_rel_adds"] = len(re.findall(r"atom\.[a-z_.]*acq_rel[a-z_.]*add", ptx))
    r["bulk_wait_1"] = ptx.count("cp.async.bulk.wait_group 1")
    keep = ("FUSED_DQ", "shared", "wgmma", "waits", "registers", "spill_bytes", "wgmma_serialized", "acq_rel_adds",
            "bulk_wait_1")
    return {k: r[k] for k in keep}


for fused in (False, True):
    print(json.dumps(build(fused)), flush=True)
