"""Compile the engine's Gluon backward (``sdpa_bwd.engine.kernels.attention_bwd_gluon``) for sm_90a without a GPU.

    TRITON_INTERPRET=0 PYTHONPATH=src python3 tools/gluon_bwd_compile.py [DTYPE ...]
    TRITON_INTERPRET=0 PYTHONPATH=src python3 tools/gluon_bwd_compile.py --stamps

One JSON line per dtype (default: bf16 and fp16), head dim (``attention_bwd_gluon.HEAD_DIMS``), query tile rows
(``QUERY_ROWS``) and variant (``grouped``: GQA's, dK and dV bulk-reduced; ``tma_epilogue``: dK and dV by TMA store,
else by pointer stores; ``deterministic``: dQ's reduces taken in turn; ``det_up``: their order under the causal
mask):
the shared memory, the number of wgmma instructions, each
product wait's outstanding count (``wgmma.wait_group N``), the partitions' register budgets (``setmaxnreg``),
ptxas -v's registers, spills and serialisation verdict (``gluon_probe_common.compile_report``), and how the
dQ partials leave: the bulk reduces, and how many of them are waited for (``cp.async.bulk.wait_group.read``)
before the next product is issued (0: each is waited for a tile later, just before its buffer is reused), and
deterministic mode's ordering instructions: the turn's spin (acquire loads), the waits for a reduce's writes
(``cp.async.bulk.wait_group 0`` without ``.read``), the release adds on the counters, the proxy fences.
``--stamps``: the phase stamps' build instead (``stamp_ptr`` int64, ``tools/phase_stamps.py``), bf16, each head
dim at its largest query tile with the TMA epilogue, with ``timer_reads`` (``%globaltimer`` in the PTX; every build
reports it, 0 where the stamps compile away). ``tests/test_gluon_backward.py`` checks both in CI. Not under
TRITON_INTERPRET (Gluon has no interpreter).
"""

from __future__ import annotations

import json
import os
import re
import sys


# (grouped, tma_epilogue, deterministic, det_up) as the launcher compiles them: shared K/V heads' accumulators
# always take the TMA epilogue (in deterministic mode their dK, dV reduces take turns too); deterministic mode
# under the causal mask walks up with descending turns (``DET_UP``)
VARIANTS = ((False, True, False, False), (False, False, False, False), (True, True, False, False),
            (False, True, True, False), (False, False, True, False), (True, True, True, False),
            (False, True, True, True), (False, False, True, True), (True, True, True, True))


def variant_signature(dtype: str, D: int = 128, grouped: bool = False, tma_epilogue: bool = True, rows: int = 64,
                      deterministic: bool = False, stamps: bool = False, head_group: int = 1,
                      det_up: bool = False, dq_by_rows: bool = None) -> tuple:
    """(signature, constexprs) of a form of the kernel as the launcher compiles it, its descriptors
    (``planner._plan_gluon``) as signature strings: see ``compile_variant``. ``dq_by_rows``: how the
    consumers split a tile's dQ (``attention_bwd_gluon.dq_block``); None, the launcher's default
    (``launch.GLUON_BWD_DQ_ROWS``: by rows where the tile has 128)."""
    sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
    from gluon_probe_common import desc_signature, signature_of
    from triton.experimental.gluon import language as gl

    from sdpa_bwd.engine.kernels import attention_bwd_gluon as g

    fn = g.attention_bwd_gluon_kernel
    gdt = {"bf16": gl.bfloat16, "fp16": gl.float16}[dtype]
    name = {"bf16": "bfloat16", "fp16": "float16"}[dtype]
    keys = g.KEYS_PER_CONSUMER
    sig = signature_of(fn, dtype, fp32_ptrs=() if deterministic else ("dq_sem_ptr",),
                       floats=("qk_scale_log2", "scale"))
    for p, kind, block in (("q_desc", "q", rows), ("do_desc", "q", rows), ("k_desc", "k", keys),
                           ("v_desc", "v", keys)):
        sig[p] = desc_signature(rows, name, [1, 1, block, D], g.host_layout(kind, D, rows, gdt))
    out_name, out_gl = ("float32", gl.float32) if grouped else (name, gdt)
    for p in ("dk_out", "dv_out"):
        sig[p] = desc_signature(rows, out_name, [1, 1, keys, D], g.host_layout("out", D, rows, out_gl)) \
            if tma_epilogue or grouped else f"*{dtype}"
    if dq_by_rows is None:
        dq_by_rows = rows >= 128
    sig["dq_desc"] = desc_signature(rows, "float32", g.dq_block(D, rows, dq_by_rows),
                                    g.host_layout("dq", D, rows, gdt, dq_by_rows))
    for p in ("lse_desc", "dlt_desc"):
        sig[p] = desc_signature(rows, "float32", [rows], g.host_layout("side", D, rows, gdt))
    if deterministic:
        sig["dq_sem_ptr"] = "*i32"
    sig["stamp_ptr"] = "*i64" if stamps else "*fp32"  # the phase stamps' build (tools/phase_stamps.py), or none
    consts = dict(D=D, TMA_EPILOGUE=tma_epilogue, ROWS=rows, HEAD_GROUP=head_group, DETERMINISTIC=deterministic,
                  HEAD_LOOP=False, DET_UP=det_up)  # the head loop's switch was removed: the launcher passes False
    return sig, consts


def compile_variant(dtype: str, D: int = 128, grouped: bool = False, tma_epilogue: bool = True,
                    rows: int = 64, deterministic: bool = False, stamps: bool = False, det_up: bool = False,
                    dq_by_rows: bool = None) -> dict:
    """``grouped``: the GQA variant, dK and dV added into fp32 accumulators (``dk_out``, ``dv_out`` fp32
    descriptors); ``tma_epilogue``: dK and dV leave by the bulk-copy engine (``_consumer_tma``), else by pointer
    stores; ``deterministic``: dQ's reduces in turn (``dq_sem_ptr`` int32 counters, else fp32 like the
    launcher's); ``det_up``: deterministic mode's order under the
    causal mask (``DET_UP``); ``dq_by_rows``: see ``variant_signature``."""
    sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
    from gluon_probe_common import compile_report

    from sdpa_bwd.engine.kernels import attention_bwd_gluon as g

    fn = g.attention_bwd_gluon_kernel
    if dq_by_rows is None:
        dq_by_rows = rows >= 128
    sig, consts = variant_signature(dtype, D, grouped, tma_epilogue, rows, deterministic, stamps,
                                    det_up=det_up, dq_by_rows=dq_by_rows)
    report = compile_report(fn, sig, consts, maxnreg=g.MAX_REGS, with_ptx=True)
    ptx = report.pop("ptx")
    report["bulk_reduces"] = ptx.count("cp.reduce.async.bulk.tensor")
    report["bulk_stores"] = len(re.findall(r"cp\.async\.bulk\.tensor\.\dd\.global\.shared", ptx))
    # a reduce whose staging-buffer read is waited for before the next product is issued: the consumer would
    # sit out the bulk copy each tile (the first probe form of 2026-12-01, 394 TFLOP/s)
    events = re.findall(r"cp\.reduce\.async\.bulk\.tensor|cp\.async\.bulk\.wait_group\.read|wgmma\.mma_async", ptx)
    report["reduces_waited_at_once"] = sum(1 for i, e in enumerate(events) if e.startswith("cp.reduce") and next(
        (f for f in events[i + 1:] if not f.startswith("cp.reduce")), "").startswith("cp.async.bulk.wait"))
    report["turn_spins"] = len(re.findall(r"ld\.acquire\.gpu\.global\.b32", ptx))
    report["written_waits"] = len(re.findall(r"cp\.async\.bulk\.wait_group\s+0", ptx))
    report["release_adds"] = len(re.findall(r"red\.release\.gpu\.global\.add\.s32", ptx))
    report["proxy_fences_global"] = ptx.count("fence.proxy.async.global")
    report["timer_reads"] = ptx.count("%globaltimer")
    return dict(dtype=dtype, grouped=grouped, tma_epilogue=tma_epilogue, deterministic=deterministic, stamps=stamps,
                det_up=det_up, dq_by_rows=dq_by_rows, **report)


# The 192 kernel's compiles (persist, stages, tma_out): the single form at three stages (the launcher's default with
# GLUON_BWD192_PERSIST off) and two, the persistent form at three with pointer stores and with the bulk-copy epilogue.
FORMS_192 = ((False, 3, False), (False, 2, False), (True, 3, False), (True, 3, True))


def compile_192(dtype: str, grouped: bool = False, persist: bool = False, stages: int = 2, tma_out: bool = False,
                no_dq: bool = False) -> dict:
    """The D_qk 192 / D_v 128 kernel (``attention_bwd_gluon_192``) as the launcher compiles it
    (``planner._plan_gluon192``): ``grouped``: shared K/V heads, dK and dV added into fp32 accumulators
    (``dk_ptr``, ``dv_ptr`` fp32), else stored as 16 bits; under the causal mask's head groups. ``persist``: the
    persistent form (``PERSIST``), with its ``claims`` (the counter's atomic adds) counted. ``stages``: the Q / dO
    stages (``STAGES``: 3 with one P / dS buffer). ``tma_out``: the persistent form storing dK and dV by the
    bulk-copy engine (descriptors of dK's two column chunks and of dV, as the launcher's), its copies counted
    (``bulk_stores``); else the stand-ins the launcher passes (Q's first chunk's blocks). ``no_dq``: the persistent
    form's split form of deterministic mode (``NO_DQ``: dK and dV only, the Triton dQ pass after it)."""
    sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
    from gluon_probe_common import compile_report, desc_signature, signature_of
    from triton.experimental.gluon import language as gl

    from sdpa_bwd.engine.kernels import attention_bwd_gluon_192 as g

    fn = g.attention_bwd_gluon_192_kernel
    gdt = {"bf16": gl.bfloat16, "fp16": gl.float16}[dtype]
    name = {"bf16": "bfloat16", "fp16": "float16"}[dtype]
    sig = signature_of(fn, dtype, fp32_ptrs=("dqa_ptr",) + (("dk_ptr", "dv_ptr") if grouped else ()),
                       floats=("qk_scale_log2", "scale"))
    sig["ctr_ptr"] = "*i32"
    for p, kind, cols in (("q_desc", "qa", 128), ("qb_desc", "qb", 64), ("k_desc", "qa", 128),
                          ("kb_desc", "qb", 64), ("v_desc", "v", 128), ("do_desc", "v", 128)):
        sig[p] = desc_signature(64, name, [1, 1, 64, cols], g.host_layout(kind, gdt))
    outs = (("dka_out", "qa", 128), ("dkb_out", "qb", 64), ("dvo_out", "v", 128)) if tma_out else \
        tuple((p, "qa", 128) for p in ("dka_out", "dkb_out", "dvo_out"))
    for p, kind, cols in outs:
        sig[p] = desc_signature(64, name, [1, 1, 64, cols], g.host_layout(kind, gdt))
    for p, kind, cols in (("dq0_desc", "dq0", 128), ("dq1_desc", "dq1", 64)):
        sig[p] = desc_signature(64, "float32", [64, cols], g.host_layout(kind, gdt))
    for p in ("lse_desc", "dlt_desc"):
        sig[p] = desc_signature(64, "float32", [64], g.host_layout("side", gdt))
    consts = dict(HEAD_GROUP=8, PERSIST=persist, STAGES=stages, NO_DQ=no_dq)
    report = compile_report(fn, sig, consts, maxnreg=g.MAX_REGS, with_ptx=True)
    ptx = report.pop("ptx")
    report["bulk_reduces"] = ptx.count("cp.reduce.async.bulk.tensor")
    report["atomic_adds"] = len(re.findall(r"\bred\.[\w.]*add\.f32|atom\.[\w.]*add\.f32", ptx))
    report["claims"] = ptx.count("atom.global.add.u32")
    report["bulk_stores"] = len(re.findall(r"cp\.async\.bulk\.tensor\.\dd\.global\.shared", ptx))
    return dict(kernel="attention_bwd_gluon_192", dtype=dtype, grouped=grouped, persist=persist, stages=stages,
                tma_out=tma_out, no_dq=no_dq, **report)


def main(argv) -> None:
    from sdpa_bwd.engine.kernels.attention_bwd_gluon import HEAD_DIMS, QUERY_ROWS

    if argv and argv[0] == "--stamps":  # the phase stamps' build of the launcher's default forms, bf16
        for D in HEAD_DIMS:
            rows = max(QUERY_ROWS[D])
            print(json.dumps(compile_variant("bf16", D, False, True, rows, False, stamps=True)), flush=True)
        return
    for dtype in argv or ["bf16", "fp16"]:
        for D in HEAD_DIMS:
            for rows in QUERY_ROWS[D]:
                for grouped, tma_epilogue, deterministic, det_up in VARIANTS:
                    print(json.dumps(compile_variant(dtype, D, grouped, tma_epilogue, rows, deterministic,
                                                     det_up=det_up)), flush=True)
        for grouped in (False, True):  # each form at the launcher's stages, and the single form at two as well
            # (``launch.GLUON_BWD192_THREE_STAGES`` off); the persistent form's bulk-copy epilogue where the launcher
            # takes it, heads with K and V of their own
            for persist, stages, tma_out in FORMS_192:
                if tma_out and grouped:
                    continue
                print(json.dumps(compile_192(dtype, grouped, persist, stages, tma_out=tma_out)), flush=True)
            if not grouped:  # deterministic mode's split form: dK and dV only, heads of their own
                print(json.dumps(compile_192(dtype, False, persist=True, stages=3, tma_out=True, no_dq=True)),
                      flush=True)


if __name__ == "__main__":
    main(sys.argv[1:])
