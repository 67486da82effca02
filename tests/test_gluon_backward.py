"""The Gluon backward (``sdpa_bwd.engine.kernels.attention_bwd_gluon``) without a GPU: the schedule it compiles to for
sm_90a, and the launcher's rule for when it runs (``launch.gluon_backward_reasons``).

Gluon has no interpreter, so its results are checked on the GPU only (tests/gpu/test_gluon_backward_gpu.py).
What is checked here is the code the compiler made, which the H200's timings rest on: each consumer waits for
S with dP still in flight and for dQ with dK still in flight (``wgmma.wait_group 1``), the dQ partials leave
by bulk reduce without a wait behind each, ptxas does not serialise the products, and the buffers fit the
H200's shared memory; in deterministic mode the consumers' dQ writers (one warp each) issue the reduces, each
after its turn (an acquire spin, a proxy fence), and pass it on once its writes are done
(``cp.async.bulk.wait_group 0``, a release add).
``tools/gluon_bwd_compile.py`` runs in a child process without TRITON_INTERPRET.
"""

import json
import os
import subprocess
import sys

import pytest
import torch
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from sdpa_bwd.engine import launch

H200_SHARED = 232448  # bytes a program may take on the H200 (the OutOfResources limit the device reports)
ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..")
TOOL = os.path.join(ROOT, "tools", "gluon_bwd_compile.py")


# the tests that read the compile reports: one xdist group (``--dist loadgroup`` in the README's test command), so
# that the module fixture's sm_90a compiles (6 min with Triton's cache empty, 85 s warm, on CI's cores) run on one
# worker, not on each (both of CI's two workers paid them before, 2026-12-04)
COMPILES = pytest.mark.xdist_group("gluon_bwd_compile")


@pytest.fixture(scope="module")
def compile_reports():
    """Every line of ``tools/gluon_bwd_compile.py bf16``: the head-dim-64/128 kernel's forms, then the 192 / 128
    kernel's (``"kernel": "attention_bwd_gluon_192"``)."""
    pytest.importorskip("triton.experimental.gluon.language.nvidia.hopper")
    env = {**os.environ, "TRITON_INTERPRET": "0", "PYTHONPATH": os.path.join(ROOT, "src")}
    run = subprocess.run([sys.executable, TOOL, "bf16"], capture_output=True, text=True, env=env, timeout=600)
    assert run.returncode == 0, f"tools/gluon_bwd_compile.py failed:\n{run.stderr[-3000:]}"
    return [json.loads(ln) for ln in run.stdout.splitlines() if ln.startswith("{")]


@pytest.fixture(scope="module")
def compiled(compile_reports):
    return {(r["D"], r["ROWS"], r["grouped"], r["tma_epilogue"], r["deterministic"], r["det_up"]): r
            for r in compile_reports if "kernel" not in r}


@pytest.fixture(scope="module")
def compiled192(compile_reports):
    return {(r["grouped"], r["persist"], r["stages"], r["tma_out"]): r
            for r in compile_reports if r.get("kernel") == "attention_bwd_gluon_192" and not r.get("no_dq")}


@pytest.fixture(scope="module")
def compiled192_no_dq(compile_reports):
    """The persistent 192 form's split form of deterministic mode (``NO_DQ``), by its epilogue."""
    return {r["tma_out"]: r for r in compile_reports if r.get("kernel") == "attention_bwd_gluon_192" and r.get("no_dq")}


# (grouped, TMA epilogue, deterministic, det up): the nine compiles the launcher makes (shared K/V heads'
# accumulators always take dK, dV's bulk reduces through the TMA epilogue; deterministic mode under the causal mask
# walks up with descending turns, DET_UP)
VARIANTS = [(False, True, False, False), (False, False, False, False), (True, True, False, False),
            (False, True, True, False), (False, False, True, False), (True, True, True, False),
            (False, True, True, True), (False, False, True, True), (True, True, True, True)]
VARIANT_IDS = ["own-kv-tma-store", "own-kv-pointer-store", "gqa", "det-tma-store", "det-pointer-store", "gqa-det",
               "det-up-tma-store", "det-up-pointer-store", "gqa-det-up"]


# (head dim, query tile rows): hd64 at FlashAttention-3's 128 rows (the launcher's) and at 64 (A/B runs)
SHAPES = [(64, 128), (64, 64), (128, 64)]


@COMPILES
def test_gluon_backward_compiles_every_head_dim_and_epilogue(compiled):
    expected = {(D, rows, *variant) for D, rows in SHAPES for variant in VARIANTS}
    assert set(compiled) == expected, (
        f"tools/gluon_bwd_compile.py compiled {sorted(compiled)}, expected {sorted(expected)}: "
        "attention_bwd_gluon.HEAD_DIMS, QUERY_ROWS or the tool's VARIANTS changed")


@COMPILES
def test_gluon_backward_launches_fit_the_register_file(compile_reports):
    """Every form's threads (Triton pads the warp-specialised partitions to whole warpgroups) times the register
    budget they start with fits an SM's 65,536: past it the launch fails, and the default consumer's setmaxnreg
    asks for registers that are not there (the 96-key probe of 2026-12-03, compiled at 152 over 16 warps, did on
    2026-12-03)."""
    over = [(r.get("kernel", "attention_bwd_gluon"), r["threads"], r["register_file"]) for r in compile_reports
            if r["register_file"] > 65536]
    assert not over, (f"saw (kernel, threads, registers) {over} over the SM's 65,536 registers: lower the kernel's "
                      "MAX_REGS (maxnreg) to 65,536 / threads or give a partition fewer warps")


@COMPILES
def test_gluon_backward_phase_stamps_compile_in_only_where_asked(compiled):
    """The phase stamps (``tools/phase_stamps.py``) are a diagnostic build: none in any form the launcher makes,
    and in the stamped build 15 timer reads (the program's start; the loader's 4; each consumer's 4 in its loop
    and 1 after its epilogue, two consumers), so that the timed kernel is the one without them."""
    reads = {k: r["timer_reads"] for k, r in compiled.items() if r["timer_reads"]}
    assert not reads, f"timer reads {reads} in the launcher's builds: attention_bwd_gluon._stamp must compile away"
    env = {**os.environ, "TRITON_INTERPRET": "0", "PYTHONPATH": os.path.join(ROOT, "src")}
    run = subprocess.run([sys.executable, TOOL, "--stamps"], capture_output=True, text=True, env=env, timeout=600)
    assert run.returncode == 0, f"tools/gluon_bwd_compile.py --stamps failed:\n{run.stderr[-3000:]}"
    rows = [json.loads(ln) for ln in run.stdout.splitlines() if ln.startswith("{")]
    assert rows and all(r["timer_reads"] == 15 for r in rows), (
        f"the stamped build reads the timer {[r['timer_reads'] for r in rows]} times, expected 15 each "
        "(attention_bwd_gluon.STAMP_SLOTS' slots 0-13 and 15): a stamp went missing or was added")


@COMPILES
@pytest.mark.parametrize("D,rows", SHAPES, ids=[f"hd{d}-rows{r}" for d, r in SHAPES])
@pytest.mark.parametrize("grouped,tma,det,up", VARIANTS, ids=VARIANT_IDS)
def test_gluon_backward_compiles_with_its_products_overlapped(compiled, D, rows, grouped, tma, det, up):
    r = compiled[(D, rows, grouped, tma, det, up)]
    # tile bodies a consumer: two peeled (the causal diagonal's) and the loop; deterministic mode's walk down
    # peels the first too (the loop takes dK's product in flight from a wgmma); its walk up (DET_UP) is the default
    # order's
    bodies = 4 if det and not up else 3
    assert r["waits"].count(1) == 4 * bodies, (
        f"saw product waits {r['waits']}: in each of its {bodies} tile bodies each of the 2 consumers should wait "
        f"for S with dP in flight and for dQ with dK in flight (wait_group 1), {4 * bodies} in all; a wait for 0 "
        "there serialises the products again. Check attention_bwd_gluon._tile")
    m = rows // 64  # a warpgroup's products of 64 query rows each where the query rows are the product's M
    # dQ's two products span the tile's rows, or at 128 rows a consumer's row half (attention_bwd_gluon.dq_block)
    m_dq = 1 if r["dq_by_rows"] else m
    assert r["dq_by_rows"] == (rows >= 128), "the tool compiles the launcher's dQ split: by rows at 128-row tiles"
    steps = m * 2 * D // 16 + 2 * rows // 16 + m_dq * 2 * 4
    assert r["wgmma"] == 2 * bodies * steps, (
        f"saw {r['wgmma']} wgmma instructions, expected {2 * bodies * steps} (2 consumers x {bodies} tile bodies x "
        f"(S, dP: {m} x {D // 16} k-steps each; dV, dK: {rows // 16} each; dQ: {m_dq} x 2 x 4)): the kernel's loop "
        "structure changed")
    # GQA's epilogue adds dV's and dK's partials by 2 more reduces a consumer, each waited for at once (once a
    # program): the loop's dQ reduces are what must not be
    extra = 4 if grouped else 0
    stores = 4 if tma and not grouped else 0
    assert r["bulk_stores"] == stores, (
        f"{r['bulk_stores']} TMA stores, expected {stores} (dV and dK a consumer where the TMA epilogue stores "
        "them): see attention_bwd_gluon._consumer_tma")
    if det:  # the dQ writers issue dQ's reduces and wait for each one's read at once (the consumers, none of them)
        assert r["bulk_reduces"] - extra in (2, 4) and r["reduces_waited_at_once"] == r["bulk_reduces"], (
            f"{r['bulk_reduces']} bulk reduces ({r['reduces_waited_at_once']} waited for at once), expected those "
            "of the 2 dQ writers' loops (attention_bwd_gluon._dq_writer; at hd128 the compiler emits the loop's "
            f"body twice) and {extra} of GQA's epilogue, each waited for at once, and none in the consumers' tile "
            "bodies")
    else:
        assert r["bulk_reduces"] == 6 + extra and r["reduces_waited_at_once"] <= 2 + extra, (
            f"{r['bulk_reduces']} bulk reduces, {r['reduces_waited_at_once']} waited for before the next product: "
            "each tile body's dQ reduce should be waited for only before its staging buffer is written again (the "
            "loop bodies' reduces fall through to the end-of-program wait, hence up to 2, and GQA's epilogue adds "
            f"{extra}); a wait behind every reduce cost the one-pass probe (the one-pass DKDV probe's --dq of 2026-12-01, "
            "2026-12-01, H200) a third of its speed (394 TFLOP/s)")
    assert not r["wgmma_serialized"], (
        "ptxas serialises the kernel's wgmma (C7512: for want of registers; C7515: an accumulator in flight set by "
        "other instructions, e.g. zeros carried into a loop of products, which cost the first deterministic "
        "loop 18%, 2026-12-02, H200)")
    assert r["shared"] <= H200_SHARED, f"the kernel asks for {r['shared']} B of shared memory, over {H200_SHARED}"
    ordering = {n: r[n] for n in ("turn_spins", "written_waits", "release_adds", "proxy_fences_global")}
    if not det:
        assert set(ordering.values()) == {0}, (
            f"the non-deterministic compile carries deterministic mode's ordering instructions {ordering}: "
            "they should compile away where DETERMINISTIC is False (attention_bwd_gluon._tile, _main_loop)")


@COMPILES
@pytest.mark.parametrize("D,rows", SHAPES, ids=[f"hd{d}-rows{r}" for d, r in SHAPES])
@pytest.mark.parametrize("grouped,tma", [(False, True), (False, False), (True, True)],
                         ids=["tma-store", "pointer-store", "gqa"])
@pytest.mark.parametrize("up", [False, True], ids=["walk-down", "walk-up"])
def test_gluon_backward_deterministic_compile_takes_turns(compiled, D, rows, grouped, tma, up):
    """Deterministic mode (either order, ``DET_UP``): in each of the 2 dQ writers, a spin on an acquire load (the
    turn) followed by a generic-to-async proxy fence, and a wait for its reduce's writes (not only its read:
    ``cp.async.bulk.wait_group 0``) with a release add on its counter; with shared K/V heads (GQA) each consumer's
    epilogue also spins for dV's and dK's turns, waits for both reduces written and passes both on. Nothing of it
    in the consumers' tile bodies, little more shared memory (four mbarriers), and spills bounded."""
    r = compiled[(D, rows, grouped, tma, True, up)]
    free = compiled[(D, rows, grouped, tma, False, False)]
    seen = {n: r[n] for n in ("turn_spins", "proxy_fences_global", "written_waits", "release_adds")}
    gqa = 2 if grouped else 0  # per consumer: two spins (and their fences), one written-wait, two adds
    expected = dict(turn_spins=2 + 2 * gqa, proxy_fences_global=2 + 2 * gqa, written_waits=2 + gqa,
                    release_adds=2 + 2 * gqa)
    assert seen == expected, (
        f"saw {seen}, expected {expected} (one of each in each dQ writer's loop, and GQA's in each consumer's "
        "epilogue): see attention_bwd_gluon._dq_writer, _consumer_tma, _dq_wait_turn and _dq_signal")
    assert r["shared"] <= free["shared"] + 256, (
        f"deterministic mode asks for {r['shared']} B of shared memory against {free['shared']} without it: "
        "its counters live in global memory; only the writers' four or five mbarriers (and their alignment) should "
        "be added")
    # Its compile spills more (Triton 3.6: hd128 356 / 360 B against 36 / 44, none in the loop; hd64 at 128 rows
    # 384 / 624 against 160 / 220): the peeled first tile and the two after the loop. Bounded at 2x + 512 B, so
    # that a change that spills much more is seen; what the loop reloads is checked by timing (tools/det_perf.py)
    bound = [2 * b + 512 for b in free["spill_bytes"]]
    assert all(a <= b for a, b in zip(r["spill_bytes"], bound)), (
        f"deterministic mode spills {r['spill_bytes']} B (stores, loads) against {free['spill_bytes']} without it, "
        f"over the bound {bound}: see what it keeps live over the loop (attention_bwd_gluon._main_loop's order)")


# (persist, stages, tma_out): each form as the launcher compiles it by default, and the single form at two stages
# too (``launch.GLUON_BWD192_THREE_STAGES`` off); the persistent form with dK and dV by pointer stores (shared K/V
# heads, layouts the bulk-copy engine cannot address) and by bulk copies (heads of their own)
FORMS192 = {"single": (False, 3, False), "single-2st": (False, 2, False), "persist": (True, 3, False),
            "persist-tma": (True, 3, True)}


def _own_kv_only(f) -> bool:
    """The forms the launcher takes only for heads with K and V of their own: the bulk-copy epilogue."""
    return f[2]


# every form for heads with K and V of their own and shared ones, but the bulk-copy epilogue, the former's alone
FORMS192_CALLS = [(g, f) for g in (False, True) for f in FORMS192 if not (g and _own_kv_only(FORMS192[f]))]


@COMPILES
@pytest.mark.parametrize("grouped,form", FORMS192_CALLS,
                         ids=[f"{'gqa' if g else 'own-kv'}-{f}" for g, f in FORMS192_CALLS])
def test_gluon_backward_192_compiles_overlapped_unserialised_and_unspilled(compiled192, grouped, form):
    """The D_qk 192 / D_v 128 kernel (``attention_bwd_gluon_192``: S and dP split between the consumers, dK's and dQ's
    columns as FlashAttention-3's column split): in each of its tile bodies (the peeled diagonal's and the loop's)
    each consumer waits for dQ with dK in flight (wait_group 1); 40 wgmma a body (consumer 0: dP 8 k-steps, dQ 4
    from dS in registers, dK 4; consumer 1: S 8 + 4 k-steps over D_qk's 128 + 64 columns, dV 4, dQ 4, dK 4); dQ's
    one reduce a body a consumer; ptxas neither serialises the products nor spills (the point of the split: the key
    split would hold 224 registers of accumulators a thread); dK and dV by atomic adds into the fp32 accumulators
    where K/V heads are shared (``_store_rows``), by stores otherwise. The persistent form: the same two bodies, the
    loader's one claim of a block (an atomic add), and spills only where a program moves from one block to the next
    (its loop-invariant arguments over the tiles, reloaded for a block's epilogue; Triton 3.6 and 3.9: 156-160 B own
    K/V, 420-488 B GQA at two stages; 216-240 B and 772-780 B at three), which the bound below keeps from growing
    unseen. Three stages take one P / dS buffer for the third stage's bytes: the same products, waits and reduces,
    and the shared memory still under the H200's. The persistent form's bulk-copy epilogue: three bulk stores (dK's
    two chunks and dV) and no fp32 atomics."""
    persist, stages, tma_out = FORMS192[form]
    assert set(compiled192) == {(g,) + f for g in (False, True) for f in FORMS192.values()
                                if not (g and _own_kv_only(f))}, (
        f"tools/gluon_bwd_compile.py compiled the 192 kernel as {sorted(compiled192)}")
    r = compiled192[(grouped,) + FORMS192[form]]
    bodies = 2
    waits, wgmma, reduces = 2 * bodies, 40 * bodies, 2 * bodies
    assert r["waits"].count(1) == waits, (
        f"saw product waits {r['waits']}: expected {waits} waits with dK in flight (wait_group 1) over {bodies} tile "
        "bodies. Check attention_bwd_gluon_192._tile")
    assert r["wgmma"] == wgmma, f"saw {r['wgmma']} wgmma instructions, expected {wgmma}"
    assert r["bulk_reduces"] == reduces, f"{r['bulk_reduces']} bulk reduces, expected {reduces} (dQ's)"
    assert not r["wgmma_serialized"], "ptxas serialises the 192 kernel's wgmma (C7512 / C7515)"
    bound = ([1024, 1024] if grouped else [512, 512]) if persist else [0, 0]
    assert all(a <= b for a, b in zip(r["spill_bytes"], bound)), (
        f"the 192 kernel ({form}) spills {r['spill_bytes']} B (stores, loads) over {bound}: see what its consumers "
        "keep live over the tiles (attention_bwd_gluon_192._consumer, _consumer_persist)")
    assert r["claims"] == persist, f"{r['claims']} atomic claims of a block: the persistent form's loader has one"
    assert r["bulk_stores"] == 3 * tma_out, (
        f"{r['bulk_stores']} bulk stores: expected dK's two column chunks and dV's exactly in the persistent form's "
        "bulk-copy epilogue (attention_bwd_gluon_192._block_out_tma)")
    assert r["shared"] <= H200_SHARED, f"the 192 kernel asks for {r['shared']} B of shared memory"
    assert (r["atomic_adds"] > 0) == grouped, (
        f"{r['atomic_adds']} fp32 atomic adds: expected them exactly where dK's and dV's pointers are the fp32 "
        "accumulators of shared K/V heads (attention_bwd_gluon_192._store_rows)")


@COMPILES
def test_gluon_backward_192_split_form_computes_no_dq(compiled192_no_dq, compiled192):
    """Deterministic mode's split form at 192 / 128 (``NO_DQ``): the persistent pass without dQ, so no bulk
    reduce, 16 fewer wgmma than the default form's 80 (consumer 0's dQ columns 0-127: 8 k-steps, consumer 1's
    128-191 over both K chunks' keys: 8), and no spill; dK and dV still go out by the bulk-copy engine."""
    assert compiled192_no_dq, "tools/gluon_bwd_compile.py compiled no NO_DQ form"
    for tma_out, r in compiled192_no_dq.items():
        plain = compiled192[(False, True, 3, tma_out)]
        assert r["bulk_reduces"] == 0, (
            f"the split form (tma_out {tma_out}) has {r['bulk_reduces']} bulk reduces: it computes no dQ; check "
            "attention_bwd_gluon_192._tile's NO_DQ branches")
        assert r["wgmma"] == plain["wgmma"] - 16, (
            f"the split form has {r['wgmma']} wgmma against the default form's {plain['wgmma']}: expected exactly "
            "the dQ products' 16 fewer")
        assert r["spill_bytes"] == [0, 0] and r["shared"] <= H200_SHARED, (r["spill_bytes"], r["shared"])
        assert r["bulk_stores"] == plain["bulk_stores"], "dK and dV leave as the default form's do"


def _tensors(dtype=torch.bfloat16, d=128, d_step=1, S=64, H=2, H_kv=None):
    H_kv = H if H_kv is None else H_kv
    q, do = (torch.randn(1, H, S, d * d_step, dtype=dtype)[..., ::d_step] for _ in range(2))
    k, v = (torch.randn(1, H_kv, S, d * d_step, dtype=dtype)[..., ::d_step] for _ in range(2))
    return q, k, v, do


def _reasons(q, k, v, do, **kw):
    kw = dict(dict(scale=0.1, causal=False, hi_off=0, banded=False, deterministic=False, apart=True), **kw)
    return launch.gluon_backward_reasons(q, k, v, do, **kw)


def test_gluon_backward_declines_off_the_gpu_and_says_why():
    reasons = _reasons(*_tensors())
    assert any("sm_90" in r for r in reasons), reasons


@pytest.mark.parametrize("dtype,causal,H_kv,det", [(torch.bfloat16, False, 2, False), (torch.float16, True, 2, False),
                                                   (torch.bfloat16, True, 1, False), (torch.bfloat16, False, 2, True),
                                                   (torch.float16, True, 2, True), (torch.bfloat16, True, 1, True)])
def test_gluon_backward_takes_what_it_addresses(as_on_the_h200, dtype, causal, H_kv, det):
    if not launch.attention_bwd_gluon.AVAILABLE:
        pytest.skip("this Triton has no Gluon Hopper module")
    with launch.switches(gluon_bwd_deterministic=det):  # deterministic mode: where the switch lets it in
        assert _reasons(*_tensors(dtype, H_kv=H_kv), causal=causal, banded=causal, deterministic=det) == []


@pytest.mark.parametrize("causal", [False, True], ids=["nc", "causal"])
@pytest.mark.parametrize("H_kv", [2, 1], ids=["own-kv", "mqa"])
def test_gluon_backward_takes_192_128_outside_deterministic_mode(as_on_the_h200, causal, H_kv):
    """D_qk 192 / D_v 128 (``attention_bwd_gluon_192``): taken under the masks in ``GLUON_BWD_192`` (by
    default both), K/V heads shared or not; left to the Triton kernels where ``GLUON_BWD_192`` leaves its mask
    out, and in deterministic mode while its split form's switch is off (on by default; off here), each with a reason
    that names it."""
    if not launch.attention_bwd_gluon.AVAILABLE:
        pytest.skip("this Triton has no Gluon Hopper module")
    q, k, _, _ = _tensors(d=192, H_kv=H_kv)
    _, _, v, do = _tensors(d=128, H_kv=H_kv)
    kw = dict(causal=causal, banded=causal)
    mask = "causal" if causal else "nc"
    assert (_reasons(q, k, v, do, **kw) == []) == (mask in launch.GLUON_BWD_192), "the default set decides"
    with launch.switches(gluon_bwd_192=("causal", "nc")):
        assert _reasons(q, k, v, do, **kw) == []
    with launch.switches(gluon_bwd_192={"causal", "nc"} - {mask}):
        assert any("GLUON_BWD_192" in r for r in _reasons(q, k, v, do, **kw))
    with launch.switches(gluon_bwd_192=("causal", "nc"), gluon_bwd192_det_split=False):
        assert any("deterministic mode at head dims (192, 128)" in r
                   for r in _reasons(q, k, v, do, deterministic=True, **kw))
    assert any("head dims" in r for r in _reasons(q, k, v[..., :64], do[..., :64], **kw)), "192 / 64 is not taken"
    with pytest.raises(ValueError, match="gluon_bwd_192"):
        with launch.switches(gluon_bwd_192={"band"}):
            pass


def test_gluon_backward_192_deterministic_takes_the_split_form_by_default(as_on_the_h200, monkeypatch):
    """Deterministic calls at 192 / 128 with K and V heads of their own go to the persistent pass's split form with
    the switches as they ship (``GLUON_BWD192_DET_SPLIT`` on since 2026-12-06: 1.07-1.08x of the default's time on
    the H200, where the Triton path took 1.16-1.17x and missed the issue's 1.15 bar)."""
    if not launch.attention_bwd_gluon.AVAILABLE:
        pytest.skip("this Triton has no Gluon Hopper module")
    assert launch.GLUON_BWD192_DET_SPLIT, "the split form is off by default: deterministic 192 / 128 calls lose 15%"
    monkeypatch.setattr(launch, "_bwd192_persist", lambda q: True)  # the persistent form, as on the GPU
    q, k, _, _ = _tensors(d=192)
    _, _, v, do = _tensors(d=128)
    for causal in (False, True):
        reasons = _reasons(q, k, v, do, causal=causal, banded=causal, deterministic=True)
        assert reasons == [], f"a deterministic 192 / 128 call with heads of its own declined by default: {reasons}"
        assert launch._bwd192_det_split(q), "the launcher would send it to the Triton kernels"


@pytest.mark.parametrize("H_kv", [2, 1], ids=["own-kv", "mqa"])
def test_gluon_backward_192_split_form_only_where_its_switch_rows_and_heads_allow(as_on_the_h200, monkeypatch, H_kv):
    """Deterministic mode's split form at 192 / 128 (``GLUON_BWD192_DET_SPLIT``): the persistent pass takes heads
    with K and V of their own where S_q is a multiple of 4 (the Triton dQ pass after it reads the side buffers
    packed); other S_q, shared heads and the non-persistent form are declined with a reason that names the rule."""
    if not launch.attention_bwd_gluon.AVAILABLE:
        pytest.skip("this Triton has no Gluon Hopper module")
    monkeypatch.setattr(launch, "_bwd192_persist", lambda q: True)  # the persistent form, as on the GPU
    for S in (64, 66):
        q, k, _, _ = _tensors(d=192, H_kv=H_kv, S=S)
        _, _, v, do = _tensors(d=128, H_kv=H_kv, S=S)
        for causal in (False, True):
            kw = dict(causal=causal, banded=causal, deterministic=True)
            with launch.switches(gluon_bwd_192=("causal", "nc"), gluon_bwd192_det_split=True):
                reasons = _reasons(q, k, v, do, **kw)
                if S % 4:
                    assert any("multiple of 4" in r for r in reasons), reasons
                elif H_kv == 2:
                    assert reasons == [], f"the split form with K and V heads of their own declined: {reasons}"
                else:
                    assert any("shared K/V heads" in r for r in reasons), reasons
                if S % 4 == 0:
                    monkeypatch.setattr(launch, "_bwd192_persist", lambda q: False)
                    assert any("persistent form" in r for r in _reasons(q, k, v, do, **kw))
                    monkeypatch.setattr(launch, "_bwd192_persist", lambda q: True)


def test_bwd192_persist_follows_its_switch_on_cuda_only():
    """``launch._bwd192_persist``: the 192 pass's persistent form where ``GLUON_BWD192_PERSIST`` is on, on CUDA only."""
    cuda_like = type("T", (), {"device": torch.device("cuda", 0)})()
    with launch.switches(gluon_bwd192_persist=True):
        assert launch._bwd192_persist(cuda_like) and not launch._bwd192_persist(torch.empty(0))
    with launch.switches(gluon_bwd192_persist=False):
        assert not launch._bwd192_persist(cuda_like)


def test_gluon_backward_det_up_switch_sets_restores_and_checks_head_dims():
    """``gluon_bwd_det_up`` (deterministic mode's walk-up order under the causal mask) replaces the set of
    head dims for the block and puts the launcher's back after it; a head dim the Gluon backward does not run is a
    ValueError that names the switch."""
    before = launch.GLUON_BWD_DET_UP
    with launch.switches(gluon_bwd_det_up=[128]):
        assert launch.GLUON_BWD_DET_UP == {128}
    with launch.switches(gluon_bwd_det_up=()):
        assert launch.GLUON_BWD_DET_UP == frozenset()
    assert launch.GLUON_BWD_DET_UP == before
    with pytest.raises(ValueError, match="gluon_bwd_det_up"):
        with launch.switches(gluon_bwd_det_up=[96]):
            pass
    assert launch.GLUON_BWD_DET_UP == before


def test_gluon_backward_takes_hd64_with_and_without_the_mask(as_on_the_h200):
    """hd64: taken with and without the causal mask (128-row tiles, faster than the Triton kernels there,
    2026-12-02, H200), left to them under the mask where ``GLUON_BWD_CAUSAL_HEAD_DIMS`` leaves hd64 out, and
    deterministic calls where the switch lets them in (the default)."""
    if not launch.attention_bwd_gluon.AVAILABLE:
        pytest.skip("this Triton has no Gluon Hopper module")
    t = _tensors(d=64)
    assert _reasons(*t) == [] and _reasons(*t, causal=True, banded=True) == []
    assert _reasons(*t, deterministic=True) == []
    with launch.switches(gluon_bwd_causal_head_dims=(128,)):
        assert any("causal mask" in r for r in _reasons(*t, causal=True, banded=True))
    with launch.switches(gluon_bwd_deterministic=False):
        assert any("deterministic" in r for r in _reasons(*t, deterministic=True))


@pytest.mark.parametrize("change,needle", [
    (dict(dtype=torch.float32), "16-bit"),
    (dict(d=160), "head dims"),
    (dict(d=256, bwd_dims=(64, 128, 256)), "sized for"),  # let in by the switch, over the kernel's buffers
    (dict(d=96, dk_step=2), "bulk-copy"),  # hd96 runs padded to 128: dK and dV must leave by TMA stores
    # a head dim left out of GLUON_BWD_CAUSAL_HEAD_DIMS (the A/B switch; both are in by default)
    (dict(d=64, causal=True, banded=True, causal_dims=(128,)), "causal mask"),
    (dict(deterministic=True, det_off=True), "deterministic"),  # GLUON_BWD_DETERMINISTIC switched off
    (dict(deterministic=True, H_kv=1, det_gqa_off=True), "shared K/V heads"),  # its GQA half switched off
    (dict(scale=-0.5), "scale"),
    (dict(banded=True), "band"),
    (dict(banded=True, causal=True, hi_off=-5), "keep no key"),  # bottom-right causal with S_q > S_kv
    (dict(d_step=2), "TMA"),
    (dict(apart=False), "touches"),
    (dict(off=True), "switched off"),
])
def test_gluon_backward_reasons_name_each_thing_it_cannot_do(as_on_the_h200, monkeypatch, change, needle):
    q, k, v, do = _tensors(change.get("dtype", torch.bfloat16), change.get("d", 128), change.get("d_step", 1),
                           H_kv=change.get("H_kv"))
    if change.get("off"):
        monkeypatch.setattr(launch, "GLUON_BACKWARD", "off")
    if change.get("det_off"):
        monkeypatch.setattr(launch, "GLUON_BWD_DETERMINISTIC", False)
    if change.get("det_gqa_off"):
        monkeypatch.setattr(launch, "GLUON_BWD_DETERMINISTIC_GQA", False)
    if "causal_dims" in change:
        monkeypatch.setattr(launch, "GLUON_BWD_CAUSAL_HEAD_DIMS", frozenset(change["causal_dims"]))
    if "bwd_dims" in change:
        monkeypatch.setattr(launch, "GLUON_BWD_HEAD_DIMS", frozenset(change["bwd_dims"]))
    kw = {n: change[n] for n in ("scale", "banded", "causal", "hi_off", "deterministic", "apart") if n in change}
    if change.get("dk_step"):  # dK of a head-dim stride the bulk-copy engine cannot take
        kw["dk"] = _tensors(q.dtype, q.shape[3], change["dk_step"])[1]
    reasons = _reasons(q, k, v, do, **kw)
    assert any(needle in r for r in reasons), f"{change}: expected a reason about {needle!r}, got {reasons}"


# as_on_the_h200 holds for every example alike: the health check's concern (state between examples) is not one
@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(order=st.sampled_from(["bhsd", "bshd", "sbhd", "hsbd"]), row_gap=st.sampled_from([0, 3, 8, 64]),
       d_step=st.sampled_from([1, 2]), offset=st.sampled_from([0, 1, 8]),
       dtype=st.sampled_from([torch.bfloat16, torch.float16, torch.float32]), d=st.sampled_from([32, 64, 128]),
       gqa=st.booleans(), scale=st.sampled_from([0.1, -0.1]), causal=st.booleans(), det=st.booleans(),
       hd64=st.booleans(), det_on=st.booleans())
# calls at the rules' edges (random draws reach each only about once in 100): GQA that passes every rule (the
# kernel takes it), GQA in deterministic mode (taken), the same with heads of their own (taken),
# a padded SBHD causal call
@example(order="bshd", row_gap=0, d_step=1, offset=0, dtype=torch.bfloat16, d=128, gqa=True, scale=0.1,
         causal=False, det=False, hd64=False, det_on=True)
@example(order="bshd", row_gap=0, d_step=1, offset=0, dtype=torch.float16, d=128, gqa=True, scale=0.1,
         causal=True, det=True, hd64=False, det_on=True)
@example(order="bshd", row_gap=0, d_step=1, offset=0, dtype=torch.float16, d=128, gqa=False, scale=0.1,
         causal=True, det=True, hd64=False, det_on=True)
@example(order="sbhd", row_gap=64, d_step=1, offset=8, dtype=torch.bfloat16, d=128, gqa=False, scale=0.1,
         causal=True, det=False, hd64=False, det_on=True)
def test_gluon_backward_takes_a_call_exactly_when_its_kernel_addresses_it(as_on_the_h200, monkeypatch, order, row_gap,
                                                                          d_step, offset, dtype, d, gqa, scale, causal,
                                                                          det, hd64, det_on):
    """Against a rule written here from the kernel's needs (not from _tma_ok): unit head-dim stride, 16-byte
    aligned bases and batch, head and row strides (TMA) for Q, K, V and dO, a 16-bit dtype, head dim 128, scale
    > 0, K/V heads shared or not, deterministic or not (where the switch lets it in); nothing else may send it
    away, nothing less let it in.
    ``hd64``: with head dim 64 let in (the default; here without the mask only, the causal set pinned to
    {128}); ``det_on``: deterministic calls let in (``GLUON_BWD_DETERMINISTIC``, on by default)."""
    from test_triton_kernels import Layout, strided

    if not launch.attention_bwd_gluon.AVAILABLE:
        pytest.skip("this Triton has no Gluon Hopper module")
    monkeypatch.setattr(launch, "GLUON_BWD_HEAD_DIMS", frozenset({64, 128} if hd64 else {128}))
    monkeypatch.setattr(launch, "GLUON_BWD_CAUSAL_HEAD_DIMS", frozenset({128}))
    monkeypatch.setattr(launch, "GLUON_BWD_DETERMINISTIC", det_on)
    monkeypatch.setattr(launch, "GLUON_BWD_DETERMINISTIC_GQA", True)  # its own switch, checked apart
    lay = Layout(order, row_gap=row_gap, d_step=d_step, offset=offset)
    q, do = (strided((2, 4, 32, d), lay, dtype)[0] for _ in range(2))
    k, v = (strided((2, 2 if gqa else 4, 32, d), lay, dtype)[0] for _ in range(2))
    reasons = _reasons(q, k, v, do, scale=scale, causal=causal, banded=causal, deterministic=det)
    es = q.element_size()
    addressable = all(t.stride(3) == 1 and t.data_ptr() % 16 == 0 and all(s * es % 16 == 0 for s in t.stride()[:3])
                      for t in (q, k, v, do))
    expected = (dtype != torch.float32 and d in ((64, 128) if hd64 else (128,)) and scale > 0
                and not (causal and d == 64) and not (det and not det_on) and addressable)
    assert (reasons == []) == expected, (
        f"{lay} {dtype} D {d} (hd64 let in: {hd64}) gqa {gqa} scale {scale} det {det}: the Gluon backward's rule says "
        f"{reasons or 'take it'}, the kernel's needs say {'take it' if expected else 'do not'}; fix "
        "gluon_backward_reasons or _tma_ok")


@pytest.mark.parametrize("D,rows", [(64, 128), (64, 64), (128, 64)])
def test_dq_block_is_half_a_tile_in_whole_products(D, rows):
    """A consumer's part of a tile's dQ (``attention_bwd_gluon.dq_block``, the launcher's descriptor block, which
    the kernel reads its split off) is half the tile: its column half, or its row half where that is at least a
    product's 64 rows; a row half under 64 is refused, not compiled into a product the hardware has not got."""
    from sdpa_bwd.engine.kernels.attention_bwd_gluon import dq_block

    assert dq_block(D, rows, False) == [rows, D // 2]
    if rows >= 128:
        assert dq_block(D, rows, True) == [rows // 2, D]
    else:
        with pytest.raises(ValueError, match="under a product's 64"):
            dq_block(D, rows, True)


@pytest.mark.parametrize("switch,name", [("gluon_bwd192_persist", "GLUON_BWD192_PERSIST"),
                                         ("gluon_bwd192_three_stages", "GLUON_BWD192_THREE_STAGES"),
                                         ("gluon_bwd192_tma_epilogue", "GLUON_BWD192_TMA_EPILOGUE"),
                                         ("gluon_bwd192_det_split", "GLUON_BWD192_DET_SPLIT")])
def test_gluon_bwd192_form_switch_sets_and_restores(switch, name):
    before = getattr(launch, name)
    with launch.switches(**{switch: not before}):
        assert getattr(launch, name) == (not before), f"the switch {switch} did not set launch.{name}"
    assert getattr(launch, name) == before, f"launch.{name} was not restored after the switch {switch}"


def test_gluon_bwd_dq_rows_switch_sets_and_restores():
    before = launch.GLUON_BWD_DQ_ROWS
    with launch.switches(gluon_bwd_dq_rows=not before):
        assert launch.GLUON_BWD_DQ_ROWS is (not before)
    assert launch.GLUON_BWD_DQ_ROWS is before


@settings(max_examples=60, deadline=None)
@given(S_q=st.integers(1, 5000))
def test_gluon_side_rows_start_each_head_on_16_bytes(S_q):
    """The Gluon backward's loader reads lse2 and delta through one-dimensional TMA boxes that must start on 16
    bytes (every S_q not a multiple of 4 faulted with an illegal instruction: 2026-12-02, H200,
    docs/data/h200-2026-12-02d/run1), so each head's rows of them start on a multiple of 4 fp32 rows, and no more
    padding than that."""
    n = launch.gluon_side_rows(S_q)
    assert n % 4 == 0 and S_q <= n < S_q + 4, (
        f"gluon_side_rows({S_q}) = {n}: a head's side rows must be S_q rounded up to a multiple of 4")


@pytest.mark.parametrize("S_q", [5, 8, 70])
def test_odo_writes_each_head_at_its_padded_side_row(S_q):
    """ODO (under the interpreter) into side buffers of ``gluon_side_rows(S_q)`` rows a head: delta and lse2 of
    row (b, h, i) at (b H + h) side + i, against float64, and the padding rows left as they were."""
    from sdpa_bwd.engine import launch_cache

    B, H, D = 2, 3, 16
    gen = torch.Generator().manual_seed(S_q)
    o, do = (torch.randn(B, H, S_q, D, generator=gen).to(torch.bfloat16) for _ in range(2))
    stats = torch.randn(B, H, S_q, generator=gen)
    side = launch.gluon_side_rows(S_q)
    delta, lse2, _ = launch._side_buffers(B, H, S_q, D, False, "cpu", side)
    delta.fill_(float("nan"))
    lse2.fill_(float("nan"))
    launch._launch_odo(launch_cache.Recorder(None), o, do, stats, stats.stride(), delta, lse2, D, False, side)
    want_delta = (o.double() * do.double()).sum(-1)
    want_lse2 = stats.double() * 1.4426950408889634
    got_delta, got_lse2 = (t.view(B, H, side) for t in (delta, lse2))
    torch.testing.assert_close(got_delta[..., :S_q].double(), want_delta, rtol=1e-5, atol=1e-5,
                               msg=lambda m: f"ODO's delta at the padded side rows (S_q {S_q}, {side} a head): {m}")
    torch.testing.assert_close(got_lse2[..., :S_q].double(), want_lse2, rtol=1e-6, atol=1e-6,
                               msg=lambda m: f"ODO's lse2 at the padded side rows (S_q {S_q}, {side} a head): {m}")
    assert torch.isnan(got_delta[..., S_q:]).all() and torch.isnan(got_lse2[..., S_q:]).all(), (
        f"ODO wrote into the padding rows {S_q}..{side} of a head: it must write rows below S_q only")


@pytest.mark.parametrize("S_q,D_qk", [(5, 192), (70, 64), (33, 80), (9, 96)])
def test_odo_zeroes_the_dq_accumulator_where_asked(S_q, D_qk):
    """ODO (under the interpreter) given the packed fp32 dQ accumulator (``GLUON_PDL``'s call, which allocates it
    unfilled) zeroes every one of its (B H_q S_q, D_qk) elements, at widths of 64-column chunks and at the padded
    head dims' (80, 96: a last chunk masked, no column past the row's), and still writes delta; an accumulator that
    is not a whole number of rows is refused. It starts as NaN, so a row or column it missed shows."""
    from sdpa_bwd.engine import launch_cache

    B, H, D = 2, 3, 16
    gen = torch.Generator().manual_seed(S_q + D_qk)
    o, do = (torch.randn(B, H, S_q, D, generator=gen).to(torch.bfloat16) for _ in range(2))
    stats = torch.randn(B, H, S_q, generator=gen)
    side = launch.gluon_side_rows(S_q)
    delta, lse2, acc = launch._side_buffers(B, H, S_q, D_qk, "odo", "cpu", side)
    assert acc.numel() == B * H * S_q * D_qk and acc is not delta, "atomic 'odo' allocates the accumulator"
    acc.fill_(float("nan"))
    launch._launch_odo(launch_cache.Recorder(None), o, do, stats, stats.stride(), delta, lse2, D, False, side,
                       acc)
    missed = torch.isnan(acc) | (acc != 0)
    assert not missed.any(), (
        f"ODO left {int(missed.sum())} of the accumulator's {acc.numel()} elements unzeroed (first at flat index "
        f"{int(missed.nonzero()[0])}): it must zero rows (b H + h) S_q + i, all {D_qk} columns")
    want_delta = (o.double() * do.double()).sum(-1)
    torch.testing.assert_close(delta.view(B, H, side)[..., :S_q].double(), want_delta, rtol=1e-5, atol=1e-5)
    with pytest.raises(ValueError, match="not a whole number of rows"):
        launch._launch_odo(launch_cache.Recorder(None), o, do, stats, stats.stride(), delta, lse2, D, False, side,
                           acc[: B * H * S_q * 48 + 1])
