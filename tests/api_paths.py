"""The launcher's kernel paths, one case each, and the kernels each must launch (forward and backward), with the
launcher's switches as shipped. The GPU test (``tests/gpu/test_api_gpu.py``) runs each case through
``sdpa_bwd.attention`` + autograd in a fresh process and checks both the gradients and the kernels;
``tests/test_api_paths.py`` checks on the CPU that every kernel the launcher can launch is in some path here, so a
new path without a case fails CI.
"""

import zlib

from sdpa_bwd.problem.cases import Case

FWD_GLUON, FWD, FWD_ANY = "attention_fwd_gluon_kernel", "attention_fwd_kernel", "attention_fwd_kernel_any_len"
ODO, CONVERT = "attention_bwd_preprocess_kernel", "attention_bwd_dq_convert_kernel"
CONVERT_ALL = "attention_bwd_convert_all_kernel"  # DQ_CONVERT where K / V heads are shared: dK, dV converted too
GLUON, GLUON192 = "attention_bwd_gluon_kernel", "attention_bwd_gluon_192_kernel"
DKDV, DQ, FUSED = "attention_bwd_dkdv_kernel", "attention_bwd_dq_kernel", "attention_bwd_fused_kernel"

# Kernels only a switch that is off by default reaches (a form that lost its measurement, to leave the code).
SWITCH_ONLY: dict = {}


def _case(name, **kw):
    kw.setdefault("dtype", "bfloat16")
    return Case(f"path-{name}", seed=zlib.crc32(name.encode()) % 1000, **kw)  # the same in every process


PATHS = {
    # The Gluon kernels (sm_90, 16-bit, TMA-addressable Q, K, V, dO)
    "gluon-hd128": (_case("gluon-hd128", B=2, H_q=4, S_q=512, D_qk=128), {FWD_GLUON, ODO, GLUON, CONVERT}),
    "gluon-hd64-causal-gqa": (_case("gluon-hd64-causal-gqa", B=2, H_q=8, H_k=2, S_q=384, D_qk=64, right_bound=0,
                                    dtype="float16"), {FWD_GLUON, ODO, GLUON, CONVERT_ALL}),
    "gluon-deterministic": (_case("gluon-deterministic", B=1, H_q=4, S_q=256, D_qk=128, deterministic=True),
                            {FWD_GLUON, ODO, GLUON, CONVERT}),
    "gluon-192": (_case("gluon-192", B=1, H_q=4, S_q=512, D_qk=192, D_v=128), {FWD_GLUON, ODO, GLUON192, CONVERT}),
    "gluon-192-det-split": (_case("gluon-192-det-split", B=1, H_q=4, S_q=256, D_qk=192, D_v=128, right_bound=0,
                                  deterministic=True), {FWD_GLUON, ODO, GLUON192, DQ}),
    # hd80 / hd96 as the hd128 kernels, the bulk copies padding the columns
    "gluon-hd96-padded-gqa": (_case("gluon-hd96-padded-gqa", B=2, H_q=4, H_k=2, S_q=333, D_qk=96, right_bound=0),
                              {FWD_GLUON, ODO, GLUON, CONVERT_ALL}),
    "gluon-hd80-padded": (_case("gluon-hd80-padded", B=1, H_q=4, S_q=300, D_qk=80, dtype="float16"),
                          {FWD_GLUON, ODO, GLUON, CONVERT}),
    # The Triton kernels
    "triton-separate": (_case("triton-separate", B=2, H_q=4, S_q=300, D_qk=48), {FWD, ODO, DKDV, DQ}),
    "triton-fp32-split-kv": (_case("triton-fp32-split-kv", B=1, H_q=4, H_k=2, H_v=1, S_q=200, D_qk=64,
                                   dtype="float32"), {FWD, ODO, DKDV, DQ}),
    "triton-hd256-split-dkdv": (_case("triton-hd256-split-dkdv", B=1, H_q=2, S_q=256, D_qk=256, right_bound=0),
                                {FWD, ODO, DKDV, DQ}),
    "triton-fused-causal": (_case("triton-fused-causal", B=1, H_q=4, S_q=200, S_kv=300, D_qk=128, right_bound=0,
                                  alignment="bottom_right"), {FWD, ODO, FUSED}),
    "triton-any-len": (_case("triton-any-len", B=2, H_q=2, S_q=1, S_kv=300, D_qk=96), {FWD_ANY, ODO, DKDV + "_any_len",
                                                                                      DQ + "_any_len"}),
    "triton-fused-any-len": (_case("triton-fused-any-len", B=1, H_q=2, S_q=1, S_kv=77, D_qk=128, right_bound=0,
                                   alignment="bottom_right"), {FWD_ANY, ODO, FUSED + "_any_len"}),
}
