"""Regression cases: one or more per defect class that some engine has shipped.

Each class is named after what it guards, says where it was seen, and has
cases built to trigger exactly that defect (the seeds' evidence: which layout,
which tensor, which size). The classes of ``seeds/`` (hipDNN's ASM SDPA
backward on gfx942, the field guide) come first, then the peers' reported
ones (``../shared/PEERS.md``) and this project's own history.
"""

from __future__ import annotations

from ...problem.cases import Case
from ...problem.layout import Storage

# class -> (what it guards, where it was seen)
REGRESSION_CLASSES: dict[str, tuple[str, str]] = {
    "side-buffer-base-from-batch-stride": (
        "the LSE/delta side buffers are addressed from their own packed dims, not from a layout's batch stride",
        "field guide (seed 000): SBHD fails while BSHD and BHSD pass, and D passes"),
    "dq-accumulator-batch-term": (
        "the fp32 dQ accumulator has its own batch/head terms, not Q's strides",
        "aiter FMHA backward v3 (PEERS.md): packed [B, H_q, S_q, D] accumulator"),
    "head-dim-stride-honoured": (
        "a head-dim (innermost) stride other than 1 is read and written through",
        "hipDNN #14684: a stride-2 Q gave Inf dK/dV, a stride-2 dQ left elements unwritten"),
    "short-rows": (
        "a sequence stride below D (length-1 axis or overlapping input rows) does not cut buffers at S x stride",
        "hipDNN #14684: seq stride 1 on a length-1 axis, D/2 and 2 on Q, K, V, dO gave wrong gradients"),
    "odd-strides-4-byte-records": (
        "odd element strides are not rounded to 4-byte records (rows one element early)",
        "hipDNN #14684: seq stride D+1 on Q, K, V, dO, dK, dV and dK/dV head strides"),
    "stats-strides-honoured": (
        "the stats tensor is read through its own strides (padded head/batch, seq stride 2, [B, S, H])",
        "hipDNN #14684: ((b*H_q+h)*S_q+s)*4 regardless of strides; nondeterministic wrong gradients"),
    "stats-batch-head-strides-swapped": (
        "stats batch and head strides are not exchanged (invisible at B = H = 1)",
        "hipDNN #14684 follow-up: every earlier case was B = H = 1"),
    "fewer-v-heads-than-k": (
        "V and dV are addressed with H_v, not K's head count (H_k = H_q > H_v)",
        "hipDNN DEF-04 (ALMIOPEN-3039)"),
    "aliased-outputs": (
        "outputs that share one allocation without overlapping (fused dQKV) are each written in place only",
        "hipDNN PR #14622 probes prbu*; fused QKV training code"),
    "non-positive-scale": (
        "a scale of 0 or below is used as given (not its magnitude, not rejected)",
        "hipDNN DEF-06 (ALMIOPEN-3043, #14688)"),
    "low-precision-accumulator": (
        "long reductions into dV/dK/dQ accumulate in fp32, not in the inputs' 16-bit type",
        "hipDNN DEF-03 (ALMIOPEN-3046), #14687: the a16 accumulator"),
    "do-strides-unlike-o": (
        "dO is addressed with its own strides, not O's",
        "PEERS.md: cuDNN used to require dO's strides to equal O's"),
    "dq-strides-unlike-q": (
        "dQ/dK/dV are written with their own strides, not Q/K/V's",
        "issue 6 decision table; hipDNN #14684 (dQ unwritten with stride 2)"),
    "unwritten-tail-tile": (
        "the last partial tile of rows and keys is computed and written",
        "every tiled kernel; S not a multiple of 16, 32, 64 or 128"),
    "causal-alignment": (
        "top-left and bottom-right causal differ when S_q != S_kv, and each is honoured",
        "PEERS.md: PyTorch's is_causal is top-left, FlashAttention's causal bottom-right"),
    "empty-rows": (
        "a query row with no key gives O = 0, stats = -inf and no gradient (no NaN)",
        "PEERS.md convention; bottom-right causal with S_q > S_kv"),
    "misaligned-base": (
        "a storage offset that leaves the base unaligned to 16 bytes is honoured (no copy, no vector load)",
        "PEERS.md: efficient needs aligned storage offsets; FA4 copies unless 16-byte strides"),
    "length-one-sequences": (
        "S_q = 1 and S_kv = 1 (decode-like shapes) take no special path that breaks",
        "this project's history: an S = 1 specialisation crashed ptxas (commit 3ee1f8b)"),
    "deterministic-gqa-reduction": (
        "deterministic mode reduces dK/dV over the shared heads in a fixed order",
        "PEERS.md: PyTorch's cuDNN backend has no deterministic backward"),
    "head-dim-192-128": (
        "D_qk != D_v (DeepSeek 192/128) with each tensor's own head dim",
        "PEERS.md: FA3/FA4 allow d_v != d_qk; cuDNN up to 256"),
    "junk-strides-size-one": (
        "strides of size-1 axes are never multiplied into an address",
        "cudnn-frontend's layout fuzzing (STYLE.md); hipDNN #14684 follow-up"),
    "stale-state-between-cases": (
        "nothing from the previous case (cached strides, buffers) leaks into the next",
        "issue 5: cases that differ only in one tensor's strides run back to back"),
    "index-overflow-2-31": (
        "element offsets past 2^31 are computed in 64 bits",
        "hipDNN #14075: range-checks every kernel argument narrowed to 32 bits"),
}


def _reg(cls: str, tag: str, **fields) -> Case:
    covers = ("regression:" + cls,) + tuple(fields.pop("covers", ()))
    return Case(id=f"reg-{cls}" + (f"-{tag}" if tag else ""), purpose="regression", covers=covers, **fields)


def _all(storage: Storage, names=("q", "k", "v", "o", "do", "dq", "dk", "dv")) -> dict:
    return {n: storage for n in names}


def regressions() -> list[tuple[Case, str]]:
    """(case, requested level). Regressions run at quick unless they need size."""
    odd = Storage("bhsd", pad={"s": 1})      # row pitch D+1: odd for even D
    out: list[tuple[Case, str]] = [
        (_reg("side-buffer-base-from-batch-stride", "sbhd", B=3, H_q=2, S_q=33, D_qk=32,
              storage=_all(Storage("sbhd")), seed=101), "quick"),
        (_reg("side-buffer-base-from-batch-stride", "do-sbhd-only", B=3, H_q=2, S_q=40, D_qk=32,
              storage={"do": Storage("sbhd"), "o": Storage("bshd")}, seed=102), "quick"),
        (_reg("dq-accumulator-batch-term", "", B=3, H_q=3, S_q=45, D_qk=32,
              storage={"q": Storage("sbhd"), "dq": Storage("bshd", pad={"s": 8})}, seed=103), "quick"),
        (_reg("head-dim-stride-honoured", "q-dq", B=2, H_q=2, S_q=24, D_qk=32,
              storage={"q": Storage("bhsd", inner_stride=2), "dq": Storage("bhsd", inner_stride=2)}, seed=104),
         "quick"),
        (_reg("head-dim-stride-honoured", "k-v-do-dk-dv", B=2, H_q=2, S_q=24, D_qk=32,
              storage=_all(Storage("bshd", inner_stride=2), ("k", "v", "do", "dk", "dv")), seed=105), "quick"),
        (_reg("short-rows", "length-one-seq-stride-1", B=2, H_q=2, S_q=1, S_kv=20, D_qk=32,
              strides={"q": [64, 32, 1, 1], "dq": [64, 32, 1, 1], "o": [64, 32, 1, 1], "do": [64, 32, 1, 1]},
              seed=106), "quick"),
        (_reg("short-rows", "overlapping-input-rows", B=2, H_q=2, S_q=16, S_kv=24, D_qk=32,
              strides={"k": [2 * 24 * 16 + 16, 24 * 16 + 16, 16, 1], "v": [2 * 24 * 2 + 32, 24 * 2 + 32, 2, 1]},
              seed=107), "quick"),
        (_reg("odd-strides-4-byte-records", "seq-stride-d-plus-1", B=2, H_q=2, S_q=23, D_qk=32,
              storage=_all(odd), seed=108), "quick"),
        (_reg("odd-strides-4-byte-records", "dkdv-head-stride-odd", B=2, H_q=4, H_k=2, S_q=23, D_qk=32,
              storage={"dk": Storage("bhsd", pad={"h": 1}), "dv": Storage("bhsd", pad={"h": 3}),
                       "do": Storage("bshd", pad={"s": 1})}, seed=109), "quick"),
        (_reg("stats-strides-honoured", "head-stride-padded", B=2, H_q=3, S_q=33, D_qk=32,
              storage={"stats": Storage("bhsd", pad={"h": 64})}, seed=110), "quick"),
        (_reg("stats-strides-honoured", "bsh-seq-stride-2", B=2, H_q=2, S_q=33, D_qk=32,
              storage={"stats": Storage("bshd", inner_stride=2)}, seed=111), "quick"),
        (_reg("stats-batch-head-strides-swapped", "", B=2, H_q=3, S_q=20, D_qk=32, stats_rank=4,
              storage={"stats": Storage("hbsd")}, seed=112), "quick"),
        (_reg("fewer-v-heads-than-k", "", B=2, H_q=4, H_k=4, H_v=2, S_q=24, D_qk=32, seed=113), "quick"),
        (_reg("fewer-v-heads-than-k", "mqa-v", B=1, H_q=4, H_k=2, H_v=1, S_q=17, S_kv=30, D_qk=32, D_v=16,
              storage={"v": Storage("bshd"), "dv": Storage("sbhd")}, seed=114), "quick"),
        (_reg("aliased-outputs", "fused-dqkv", **_fused("dq", "dk", "dv", seed=115)), "quick"),
        (_reg("aliased-outputs", "fused-qkv-inputs", **_fused("q", "k", "v", seed=116)), "quick"),
        (_reg("non-positive-scale", "zero", B=1, H_q=2, S_q=24, D_qk=32, scale=0.0, seed=117), "quick"),
        (_reg("non-positive-scale", "negative", B=1, H_q=2, S_q=24, D_qk=32, scale=-0.2, right_bound=0,
              dtype="float16", seed=118), "quick"),
        (_reg("low-precision-accumulator", "fp16-dv-1024-rows", B=1, H_q=1, S_q=1024, S_kv=32, D_qk=32,
              dtype="float16", seed=119), "quick"),
        (_reg("low-precision-accumulator", "bf16-dv-dk-4096-rows", B=1, H_q=2, H_k=1, S_q=2048, S_kv=64, D_qk=64,
              seed=134), "standard"),
        (_reg("low-precision-accumulator", "bf16-dq-2048-keys", B=1, H_q=1, S_q=64, S_kv=2048, D_qk=64,
              seed=120), "standard"),
        (_reg("do-strides-unlike-o", "", B=2, H_q=2, S_q=31, D_qk=32,
              storage={"o": Storage("bhsd"), "do": Storage("bshd", pad={"s": 8})}, seed=121), "quick"),
        (_reg("dq-strides-unlike-q", "", B=2, H_q=2, S_q=31, S_kv=40, D_qk=32,
              storage={"q": Storage("bshd"), "k": Storage("bshd"), "v": Storage("bshd"),
                       "dq": Storage("sbhd"), "dk": Storage("hbsd"), "dv": Storage("bhsd", pad={"s": 5})},
              seed=122), "quick"),
        (_reg("unwritten-tail-tile", "", B=1, H_q=2, S_q=129, S_kv=65, D_qk=48, seed=123), "quick"),
        (_reg("causal-alignment", "top-left-sq-lt-skv", B=1, H_q=2, S_q=20, S_kv=50, D_qk=32, right_bound=0,
              alignment="top_left", seed=124), "quick"),
        (_reg("causal-alignment", "bottom-right-sq-lt-skv", B=1, H_q=2, S_q=20, S_kv=50, D_qk=32, right_bound=0,
              alignment="bottom_right", seed=125), "quick"),
        (_reg("empty-rows", "", B=2, H_q=2, S_q=40, S_kv=16, D_qk=32, right_bound=0, alignment="bottom_right",
              seed=126), "quick"),
        (_reg("misaligned-base", "", B=2, H_q=2, S_q=24, D_qk=32, storage=_all(Storage("bshd", offset=1)),
              seed=127), "quick"),
        (_reg("length-one-sequences", "sq1", B=2, H_q=4, H_k=2, S_q=1, S_kv=33, D_qk=64, seed=128), "quick"),
        (_reg("length-one-sequences", "skv1", B=2, H_q=2, S_q=33, S_kv=1, D_qk=64, right_bound=0,
              alignment="bottom_right", seed=129), "quick"),
        (_reg("deterministic-gqa-reduction", "", B=2, H_q=8, H_k=2, S_q=40, D_qk=32, deterministic=True,
              seed=130), "quick"),
        (_reg("head-dim-192-128", "", B=1, H_q=2, S_q=40, D_qk=192, D_v=128, right_bound=0,
              storage={"q": Storage("bshd"), "v": Storage("sbhd")}, seed=131), "quick"),
        (_reg("junk-strides-size-one", "", B=1, H_q=1, S_q=1, S_kv=24, D_qk=32, stats_rank=4,
              storage=_all(Storage("bshd", junk=True)) | {"stats": Storage("bhsd", junk=True)}, seed=132),
         "quick"),
        # Back to back (issue 5's order effects): b differs from a only in dQ's
        # strides (a stale cached layout), c from b only in its values (a stale
        # cached workspace, e.g. stats kept per shape).
        (_reg("stale-state-between-cases", "a-packed", B=2, H_q=2, S_q=37, D_qk=32, seed=133), "quick"),
        (_reg("stale-state-between-cases", "b-dq-padded", B=2, H_q=2, S_q=37, D_qk=32,
              storage={"dq": Storage("bhsd", pad={"s": 7})}, seed=133), "quick"),
        (_reg("stale-state-between-cases", "c-new-values", B=2, H_q=2, S_q=37, D_qk=32,
              storage={"dq": Storage("bhsd", pad={"s": 7})}, seed=135), "quick"),
    ]
    out += [(c, "full") for c in overflow_cases()]
    return out


def _fused(a: str, b: str, c: str, *, seed: int) -> dict:
    """Three tensors (B, S, 3, H, D) in one allocation, as fused QKV projections store them."""
    B, H, S, D = 2, 2, 24, 32
    strides = [S * 3 * H * D, D, 3 * H * D, 1]
    return dict(B=B, H_q=H, S_q=S, D_qk=D, seed=seed,
                strides={a: strides, b: strides, c: strides},
                storage={b: Storage("bhsd", offset=H * D), c: Storage("bhsd", offset=2 * H * D)},
                buffers={a: "fused", b: "fused", c: "fused"})


# -- full: element offsets past 2^31 ----------------------------------------------
# A tensor's batch stride is padded so that its second batch starts past 2^31
# elements; the arithmetic stays small (B=2, S=128) while every address of
# batch 1 needs 64 bits. One case per tensor, plus one huge storage offset and
# one real tensor of more than 2^31 elements.
_BIG = 1 << 31


def overflow_cases() -> list[Case]:
    B, H, S, D = 2, 2, 128, 64
    cases = []
    for i, name in enumerate(("q", "k", "v", "o", "do", "stats", "dq", "dk", "dv")):
        per_batch = H * S * (1 if name == "stats" else D)
        storage = Storage("bhsd", pad={"b": _BIG - per_batch + 64})
        cases.append(_reg("index-overflow-2-31", f"{name}-batch-stride", B=B, H_q=H, S_q=S, D_qk=D,
                          storage={name: storage}, seed=200 + i))
    cases.append(_reg("index-overflow-2-31", "k-offset", B=1, H_q=2, S_q=64, D_qk=64,
                      storage={"k": Storage("bshd", offset=_BIG + 3), "dk": Storage("bshd", offset=_BIG + 5)},
                      seed=210))
    cases.append(_reg("index-overflow-2-31", "dq-head-stride", B=1, H_q=4, S_q=64, D_qk=64,
                      storage={"q": Storage("hbsd", pad={"h": _BIG // 3}), "dq": Storage("hbsd", pad={"h": _BIG // 3})},
                      seed=211))
    # More than 2^31 logical elements in K, V, dK and dV (B*H_k*S_kv*D = 2^31 + 2^15);
    # S_q = 8 keeps the oracle's float64 score block at 1 GiB.
    cases.append(_reg("index-overflow-2-31", "real-2g-elements", B=1, H_q=1, S_q=8, S_kv=(1 << 24) + 256,
                      D_qk=128, seed=212))
    return cases
