"""Compile the engine's Gluon forward (``sdpa_bwd.engine.kernels.attention_fwd_gluon``) for sm_90a without a GPU.

    TRITON_INTERPRET=0 PYTHONPATH=src python3 tools/gluon_fwd_compile.py [D_QK,D_V,DTYPE,CAUSAL ...]

One JSON line per variant (default: 128,128,bf16,0, 128,128,fp16,1, 192,128,bf16,0, and at hd64, three consumers,
64,64,bf16,0 and 64,64,fp16,1): the shared memory, the number of
wgmma instructions, each product wait's outstanding count (``wgmma.wait_group N``: 1 is a wait with a product
still in flight, the softmax under P V), the partitions' register budgets (``setmaxnreg``) and ptxas -v's
registers, spills and serialisation verdict (``gluon_probe_common.compile_report``). This is the
schedule the H200's timings rest on; ``tests/test_gluon_forward.py`` checks it in CI. Not under
TRITON_INTERPRET: Gluon has no interpreter and cannot call the interpreter's jit functions. Commit
6b86c75 replaced ``tools/gluon_fwd_probe.py`` (the BHSD-only probe this kernel grew from; git show 9e06e98) with
the engine kernel and this.
"""

from __future__ import annotations

import json
import os
import sys


def compile_variant(d_qk: int, d_v: int, dtype: str, causal: bool) -> dict:
    sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
    from gluon_probe_common import compile_report, desc_signature, signature_of
    from triton.experimental.gluon import language as gl

    from sdpa_bwd.engine.kernels import attention_fwd_gluon as g

    fn = g.attention_fwd_gluon_kernel
    sig = signature_of(fn, dtype, fp32_ptrs=("lse_ptr",), floats=("qk_scale_log2",))
    d_a, d_b = g.qk_chunks(d_qk)
    # the launcher's descriptors (planner.plan_forward) as signature strings; O by TMA store where
    # D_v = D_qk's first chunk, as the launcher does for TMA-addressable O
    gdt = {"bf16": gl.bfloat16, "fp16": gl.float16}[dtype]
    name = {"bf16": "bfloat16", "fp16": "float16"}[dtype]
    rows, keys = g.BLOCK_ROWS, g.BLOCK_KEYS
    for p, r, cols in (("q_desc", rows, d_a), ("qb_desc", rows, d_b or d_a), ("k_desc", keys, d_a),
                       ("kb_desc", keys, d_b or d_a), ("v_desc", keys, d_v)):
        sig[p] = desc_signature(r, name, [1, 1, r, cols], g.host_layout(r, cols, gdt))
    sig["o_out"] = desc_signature(rows, name, [1, 1, rows, d_v], g.host_layout(rows, d_v, gdt)) \
        if d_v == d_a else f"*{dtype}"
    consts = dict(D_QK=d_a, D_QK_B=d_b, D_V=d_v, BLOCK_N=g.BLOCK_KEYS, STAGES_=g.STAGES, CAUSAL=causal,
                  HEAD_GROUP=g.CAUSAL_HEAD_GROUP if causal else 1,
                  CONSUMERS=g.consumers(d_qk, d_v))
    return dict(d_qk=d_qk, dtype=dtype,
                **compile_report(fn, sig, consts, maxnreg=g.MAX_REGS_BY_CONSUMERS[consts["CONSUMERS"]]))


def main(argv) -> None:
    for spec in argv or ["128,128,bf16,0", "128,128,fp16,1", "192,128,bf16,0", "64,64,bf16,0", "64,64,fp16,1"]:
        d_qk, d_v, dtype, causal = spec.split(",")
        print(json.dumps(compile_variant(int(d_qk), int(d_v), dtype, causal == "1")), flush=True)


if __name__ == "__main__":
    main(sys.argv[1:])
