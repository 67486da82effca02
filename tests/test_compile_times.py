"""tools/compile_times.py: the enumeration and dedupe of kernel specialisations (no compiling)."""

import importlib.util
import os
import sys

import pytest

from sdpa_bwd.problem.cases import Case
from sdpa_bwd.problem.layout import Storage

_TOOL = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "tools", "compile_times.py")
_spec = importlib.util.spec_from_file_location("compile_times", _TOOL)
ct = importlib.util.module_from_spec(_spec)
sys.modules.setdefault("compile_times", ct)
_spec.loader.exec_module(ct)


def keys(case):
    return [ln.key() for ln in ct.case_launches(case)]


def by_kernel(case):
    return {ln.kernel: ln for ln in ct.case_launches(case)}


def test_values_do_not_change_the_specialisation():
    a = Case("a", B=2, H_q=4, S_q=128, D_qk=64, seed=0)
    b = Case("b", B=2, H_q=4, S_q=128, D_qk=64, seed=7, scale=0.3)
    assert keys(a) == keys(b)
    specs, users, _ = ct.enumerate_specs([a, b])
    assert len(specs) == len(keys(a)) and all(u == ["a", "b"] for u in users.values())


def test_launches_of_a_plain_case_use_gpu_configs(monkeypatch):
    from sdpa_bwd.engine import launch

    # the Triton kernels' configs: hd64 left to them (the Gluon backward takes it non-causal by default, the
    # Gluon forward with three consumers a program)
    monkeypatch.setattr(launch, "GLUON_BWD_HEAD_DIMS", frozenset({128}))
    monkeypatch.setattr(launch, "GLUON_HEAD_DIMS", launch.GLUON_HEAD_DIMS - {(64, 64)})
    ks = by_kernel(Case("c", B=2, H_q=4, S_q=128, D_qk=64))
    assert set(ks) == {"attention_bwd_preprocess_kernel", "attention_bwd_dkdv_kernel",
                       "attention_bwd_dq_kernel", "attention_fwd_kernel"}
    fwd = dict(ks["attention_fwd_kernel"].constexprs)
    assert (fwd["BLOCK_M"], fwd["BLOCK_N"], fwd["TMA"], fwd["DOT_PRECISION"]) == (128, 64, True, "tf32")
    assert ks["attention_fwd_kernel"].num_warps == 4 and ks["attention_fwd_kernel"].num_stages == 3
    assert dict(ks["attention_bwd_preprocess_kernel"].constexprs)["BLOCK_M"] == 64
    sig = dict(ks["attention_bwd_dkdv_kernel"].signature)
    assert sig["q_ptr"] == "*bf16" and sig["stride_qd"] == "constexpr"      # head-dim stride 1
    assert "S_q" in ks["attention_bwd_dkdv_kernel"].divisible               # 128 % 16 == 0


def test_length_one_uses_the_any_len_twins():
    ks = by_kernel(Case("d", B=1, H_q=2, S_q=1, S_kv=40, D_qk=32))
    assert "attention_bwd_dkdv_kernel_any_len" in ks and "attention_bwd_dkdv_kernel" not in ks
    assert "attention_fwd_kernel_any_len" in ks and "attention_bwd_dq_kernel_any_len" in ks
    sig = dict(ks["attention_bwd_dkdv_kernel_any_len"].signature)
    assert sig["S_q"] == "i32" and sig["S_kv"] == "i32"     # do_not_specialize: not constexpr 1
    assert "S_q" not in ks["attention_bwd_dkdv_kernel_any_len"].divisible
    cls = ct.spec_class(ks["attention_bwd_dkdv_kernel_any_len"])
    assert cls["any_len"] and cls["family"] == "dkdv"


def test_the_api_door_adds_its_packed_outputs_launches():
    """``api``: the triton-api engine's launches too, with the O, stats and gradients the public API allocates
    packed: a case whose dQ rows are padded (row stride 35, not divisible by 16) compiles its dQ writer again for
    the API door's packed dQ (row stride 32); a case stored packed compiles nothing more."""
    padded = Case("g", B=1, H_q=2, S_q=40, D_qk=32, dtype="float32", storage={"dq": Storage("bhsd", pad=(("s", 3),))})
    one = {ln.key() for ln in ct.case_launches(padded)}
    both = {ln.key() for ln in ct.case_launches(padded, api=True)}
    assert one < both, "the API door's launches are missing"
    packed = Case("h", B=1, H_q=2, S_q=64, D_qk=32, dtype="float32")
    assert {ln.key() for ln in ct.case_launches(packed, api=True)} == {ln.key() for ln in ct.case_launches(packed)}


def test_dtypes_differ():
    b = by_kernel(Case("e", S_q=64, D_qk=64, dtype="bfloat16"))
    f = by_kernel(Case("f", S_q=64, D_qk=64, dtype="float32"))
    assert not set(ln.key() for ln in b.values() if ln.kernel != "attention_bwd_preprocess_kernel") & \
        set(ln.key() for ln in f.values())
    assert dict(f["attention_fwd_kernel"].constexprs)["DOT_PRECISION"] == "ieee"
    assert ct.spec_class(f["attention_bwd_dq_kernel"])["dtype"] == "fp32"


def test_band_and_gqa_split_are_classed():
    # D_qk 32: a head dim the Gluon backward does not take (it takes hd64 under the causal mask too),
    # so the Triton kernels' DKDV passes are the ones classed
    ks = ct.case_launches(Case("g", H_q=4, H_k=2, H_v=1, S_q=64, D_qk=32, right_bound=0))
    dkdv = [ct.spec_class(ln) for ln in ks if ct.family(ln.kernel) == "dkdv"]
    assert sorted(c["split"] for c in dkdv) == ["dk", "dv"]
    assert all(c["band"] == "right" for c in dkdv)


def test_probes_give_no_launches():
    assert ct.case_launches(Case("p", purpose="probe", D_qk=512, expected_rejection="x")) == []


@pytest.mark.parametrize("value,expect", [(1, ("constexpr", 1)), (32, ("i32", "D")), (17, ("i32", "")),
                                          (0, ("i32", "D")), (1 << 31, ("i64", "D")), (2.0, ("fp32", None))])
def test_int_specialisation_rules(value, expect):
    assert ct.specialize_value(value) == expect


def test_kernels_do_not_specialise_on_head_counts_ratios_or_band_offsets():
    """Their divisibility buys nothing, and every pattern of it was one more cold compile."""
    from sdpa_bwd.engine import kernels
    from sdpa_bwd.engine.kernels.attention_fwd import _NO_SPECIALIZE, _RUNTIME_ONLY

    for name in ("attention_fwd_kernel", "attention_bwd_dkdv_kernel", "attention_bwd_dq_kernel",
                 "attention_fwd_kernel_any_len", "attention_bwd_dkdv_kernel_any_len",
                 "attention_bwd_dq_kernel_any_len", "attention_bwd_preprocess_kernel"):
        jit = getattr(kernels, name)
        unspecialised = set(ct.unspecialised(jit))
        assert unspecialised >= set(jit.arg_names) & set(_RUNTIME_ONLY), name
        assert ("S_q" in unspecialised) == name.endswith("_any_len"), name   # lengths stay specialised
        assert set(_NO_SPECIALIZE) <= unspecialised or not name.endswith("_any_len")


def test_16_bit_forward_is_the_gluon_kernel_as_on_the_h200():
    """The H200 runs the Gluon forward for hd128, hd64 (three consumers) and 192/128 16-bit problems
    (launch.gluon_forward_reasons): the enumeration must count its specialisations, not the Triton forward's."""
    from sdpa_bwd.engine.kernels import attention_fwd_gluon

    if not attention_fwd_gluon.AVAILABLE:
        pytest.skip("this Triton has no Gluon Hopper module")
    for d_qk, d_v, want in ((128, 128, (128, 0, 128, 2)), (192, 128, (128, 64, 128, 2)), (64, 64, (64, 0, 64, 3))):
        ks = by_kernel(Case("g", B=2, H_q=4, S_q=256, D_qk=d_qk, D_v=d_v, dtype="bfloat16"))
        assert ct.GLUON_KERNEL in ks and "attention_fwd_kernel" not in ks, sorted(ks)
        g = ks[ct.GLUON_KERNEL]
        consts = dict(g.constexprs)
        assert (consts["D_QK"], consts["D_QK_B"], consts["D_V"], consts["CONSUMERS"]) == want
        assert g.num_warps == 4 and g.maxnreg == attention_fwd_gluon.MAX_REGS_BY_CONSUMERS[want[3]]
        # the partitions' arguments stay runtime values (do_not_specialize): none of them is a constexpr 1
        assert not {"so_d", "S_q", "causal"} & set(consts), consts


@pytest.mark.parametrize("D", [64, 128])
def test_16_bit_backward_is_the_gluon_kernel_as_on_the_h200(D, monkeypatch):
    """The H200 runs the Gluon backward for 16-bit problems of the head dims in launch.GLUON_BWD_HEAD_DIMS (hd128;
    hd64 where an A/B run adds it), between the ODO and DQ_CONVERT kernels: the enumeration must count it, not
    the Triton DKDV and dQ passes; dK and dV by pointer stores (outputs the bulk-copy engine cannot address) and
    GQA's (dK and dV fp32 accumulators) are other specialisations of it, deterministic mode with K/V heads of
    their own another (int32 dQ turn counters), and deterministic GQA the GQA one with them."""
    from sdpa_bwd.engine import launch
    from sdpa_bwd.engine.kernels import attention_bwd_gluon

    if not attention_bwd_gluon.AVAILABLE:
        pytest.skip("this Triton has no Gluon Hopper module")
    if D not in launch.GLUON_BWD_HEAD_DIMS:
        plain = by_kernel(Case("g", B=2, H_q=4, S_q=256, D_qk=D, D_v=D, dtype="bfloat16"))
        assert ct.GLUON_BWD_KERNEL not in plain and "attention_bwd_dq_kernel" in plain, sorted(plain)
        monkeypatch.setattr(launch, "GLUON_BWD_HEAD_DIMS", launch.GLUON_BWD_HEAD_DIMS | {D})
    ks = by_kernel(Case("g", B=2, H_q=4, S_q=256, D_qk=D, D_v=D, dtype="bfloat16"))
    assert ct.GLUON_BWD_KERNEL in ks and not any(k.startswith("attention_bwd_dkdv") for k in ks), sorted(ks)
    assert {"attention_bwd_preprocess_kernel", "attention_bwd_dq_convert_kernel"} <= set(ks), sorted(ks)
    g = ks[ct.GLUON_BWD_KERNEL]
    rows = launch.GLUON_BWD_HD64_ROWS if D == 64 else 64
    assert dict(g.constexprs) == {"D": D, "TMA_EPILOGUE": True, "ROWS": rows, "HEAD_GROUP": 1,
                                  "DETERMINISTIC": False, "HEAD_LOOP": False, "DET_UP": False}, dict(g.constexprs)
    assert g.num_warps == 4 and g.maxnreg == attention_bwd_gluon.MAX_REGS
    strided = by_kernel(Case("g", B=2, H_q=4, S_q=256, D_qk=D, D_v=D, dtype="bfloat16",
                             storage={"dk": Storage("bhsd", inner_stride=2)}))
    assert dict(strided[ct.GLUON_BWD_KERNEL].constexprs) == {"D": D, "TMA_EPILOGUE": False, "ROWS": rows,
                                                             "HEAD_GROUP": 1, "DETERMINISTIC": False,
                                                             "HEAD_LOOP": False, "DET_UP": False}, sorted(strided)
    gqa = by_kernel(Case("g", B=2, H_q=4, H_k=2, H_v=2, S_q=256, D_qk=D, D_v=D, dtype="bfloat16"))
    assert ct.GLUON_BWD_KERNEL in gqa and not any(k.startswith("attention_bwd_dkdv") for k in gqa), sorted(gqa)
    sig = dict(gqa[ct.GLUON_BWD_KERNEL].signature)
    # the GQA accumulators' descriptors are fp32 ones, the plain call's bf16 (planner._plan_gluon)
    assert all(sig[p].startswith("tensordesc<fp32[1, 1, 64,") for p in ("dk_out", "dv_out")), sig
    assert dict(g.signature)["dk_out"].startswith("tensordesc<bf16[1, 1, 64,"), dict(g.signature)
    assert dict(strided[ct.GLUON_BWD_KERNEL].signature)["dk_out"] == "*bf16"  # pointer stores
    monkeypatch.setattr(launch, "GLUON_BWD_DETERMINISTIC", True)  # the default, pinned here
    own = by_kernel(Case("g", B=2, H_q=4, S_q=256, D_qk=D, D_v=D, dtype="bfloat16", deterministic=True))
    assert ct.GLUON_BWD_KERNEL in own and not any(k.startswith("attention_bwd_dkdv") for k in own), sorted(own)
    # deterministic mode starts its programs in head groups with or without the mask (planner._plan_gluon)
    assert dict(own[ct.GLUON_BWD_KERNEL].constexprs) == {"D": D, "TMA_EPILOGUE": True, "ROWS": rows,
                                                         "HEAD_GROUP": launch.GLUON_HEAD_GROUP, "DETERMINISTIC": True,
                                                         "HEAD_LOOP": False, "DET_UP": False}
    # under the causal mask, the walk up with descending turns where GLUON_BWD_DET_UP names the head dim
    causal = by_kernel(Case("g", B=2, H_q=4, S_q=256, D_qk=D, D_v=D, dtype="bfloat16", deterministic=True,
                            right_bound=0))
    assert dict(causal[ct.GLUON_BWD_KERNEL].constexprs)["DET_UP"] is (D in launch.GLUON_BWD_DET_UP)
    assert (dict(own[ct.GLUON_BWD_KERNEL].signature)["dq_sem_ptr"], dict(g.signature)["dq_sem_ptr"]) == \
        ("*i32", "*fp32")
    det = by_kernel(Case("g", B=2, H_q=4, H_k=2, H_v=2, S_q=256, D_qk=D, D_v=D, dtype="bfloat16",
                         deterministic=True))
    assert ct.GLUON_BWD_KERNEL in det and not any(k.startswith("attention_bwd_dkdv") for k in det), sorted(det)
    assert dict(det[ct.GLUON_BWD_KERNEL].constexprs)["DETERMINISTIC"] is True
    assert dict(det[ct.GLUON_BWD_KERNEL].signature)["dk_out"].startswith("tensordesc<fp32[1, 1, 64,")


def test_192_128_16_bit_backward_is_the_gluon_192_kernel_as_on_the_h200(monkeypatch):
    """The H200 runs D_qk 192 / D_v 128 16-bit backwards in the column-split Gluon kernel (
    ``attention_bwd_gluon_192``) outside deterministic mode, under the masks in ``launch.GLUON_BWD_192`` (by default
    both; where the set leaves "nc" out, the Triton kernels without a mask), K/V heads shared or not:
    the enumeration must count it (its GQA form a specialisation of its own: fp32 dK, dV pointers), and count the
    Triton kernels for deterministic calls."""
    from sdpa_bwd.engine import launch
    from sdpa_bwd.engine.kernels import attention_bwd_gluon_192

    if not attention_bwd_gluon_192.AVAILABLE:
        pytest.skip("this Triton has no Gluon Hopper module")
    base = dict(B=2, H_q=4, S_q=256, D_qk=192, D_v=128, dtype="bfloat16")
    if "nc" not in launch.GLUON_BWD_192:  # the Triton kernels without a mask, where the set leaves it out
        plain = by_kernel(Case("g", **base))
        assert ct.GLUON_BWD192_KERNEL not in plain and "attention_bwd_dq_kernel" in plain, sorted(plain)
        monkeypatch.setattr(launch, "GLUON_BWD_192", launch.GLUON_BWD_192 | {"nc"})
    own = by_kernel(Case("g", **base))
    assert ct.GLUON_BWD192_KERNEL in own and not any(k.startswith("attention_bwd_dkdv") for k in own), sorted(own)
    assert {"attention_bwd_preprocess_kernel", "attention_bwd_dq_convert_kernel"} <= set(own), sorted(own)
    g = own[ct.GLUON_BWD192_KERNEL]
    # dK's and dV's head-dim strides of 1 specialise (Triton folds an int argument equal to 1); three Q / dO stages
    # (GLUON_BWD192_THREE_STAGES) and the persistent form (GLUON_BWD192_PERSIST) on
    assert dict(g.constexprs) == {"HEAD_GROUP": 1, "PERSIST": launch.GLUON_BWD192_PERSIST,
                                  "STAGES": 3 if launch.GLUON_BWD192_THREE_STAGES else 2, "NO_DQ": False,
                                  "dk_sd": 1, "dv_sd": 1}, dict(g.constexprs)
    assert g.maxnreg == attention_bwd_gluon_192.MAX_REGS
    assert dict(g.signature)["dk_ptr"] == "*bf16"
    causal = by_kernel(Case("g", right_bound=0, **base))[ct.GLUON_BWD192_KERNEL]
    assert dict(causal.constexprs)["HEAD_GROUP"] == launch.GLUON_HEAD_GROUP
    gqa = by_kernel(Case("g", H_k=1, H_v=2, **base))[ct.GLUON_BWD192_KERNEL]
    assert (dict(gqa.signature)["dk_ptr"], dict(gqa.signature)["dv_ptr"]) == ("*fp32", "*fp32")
    with launch.switches(gluon_bwd192_det_split=False):
        det = by_kernel(Case("g", deterministic=True, **base))
    assert ct.GLUON_BWD192_KERNEL not in det and any(k.startswith("attention_bwd_dq") for k in det), sorted(det)
    # deterministic mode's split form: the pass with NO_DQ (no head groups without the mask), then the Triton dQ
    # pass, and no DQ_CONVERT; shared K/V heads still go to the Triton kernels
    with launch.switches(gluon_bwd192_det_split=True, gluon_bwd192_persist=True):
        split = by_kernel(Case("g", deterministic=True, **base))
        gqa_det = by_kernel(Case("g", deterministic=True, H_k=1, H_v=2, **base))
    c = dict(split[ct.GLUON_BWD192_KERNEL].constexprs)
    assert (c.get("NO_DQ"), c["PERSIST"], c["HEAD_GROUP"]) == (True, True, 1), c
    assert ct.GLUON_BWD192_KERNEL not in gqa_det, sorted(gqa_det)
    assert any(k.startswith("attention_bwd_dq_kernel") for k in split), sorted(split)
    assert "attention_bwd_dq_convert_kernel" not in split, sorted(split)


def test_every_kernel_the_executor_can_launch_is_recorded():
    # The executor resolves a step's kernel by name among launch's imports; one left out of the recorders is
    # launched for real, and the enumeration raised on the first fused-backward case (2026-12-06).
    import inspect

    from sdpa_bwd.engine import launch

    triton_kernels = {name for name, obj in vars(launch).items()
                      if name.startswith("attention_") and not inspect.ismodule(obj) and hasattr(obj, "fn")}
    assert triton_kernels <= set(ct.KERNEL_NAMES), (
        f"launch imports {sorted(triton_kernels - set(ct.KERNEL_NAMES))}, which tools/compile_times.py does not "
        "record: add them to KERNEL_NAMES (and FAMILY)")
    gluon_modules = {name for name, obj in vars(launch).items()
                     if inspect.ismodule(obj) and name.startswith("attention_")}
    assert gluon_modules <= set(ct.GLUON_KERNELS.values())


def test_the_full_level_enumerates():
    from sdpa_bwd.conformance.plan import load_level

    specs, _, outcome = ct.enumerate_specs(load_level("full"))
    assert outcome["launched"] > 500 and len(specs) > 1000
    assert any(ln.kernel == "attention_bwd_fused_kernel" for ln in specs.values())
