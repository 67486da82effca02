"""Rejection probes: ill-formed or undefined problems every engine must reject.

Each probe is a small problem with exactly one thing wrong, and carries
``expected_rejection``: a phrase that ``Problem.validate``'s message for it
contains (the test checks each one). An engine passes a probe by raising
``ValueError`` or declining; one that computes it fails (the runner's
``rejection-accepted``). Probes are never executed, so they cost nothing and
all run at ``quick``.
"""

from __future__ import annotations

import math

from ...problem.cases import Case
from ...problem.layout import Storage

# A small valid base: B=2, H=2 so that batch and head strides are both live.
_BASE = dict(B=2, H_q=2, S_q=8, D_qk=16, dtype="bfloat16")


def _probe(pid: str, rejection: str, covers: str, **fields) -> Case:
    values = dict(_BASE)
    values.update(fields)
    return Case(id=f"probe-{pid}", purpose="probe", expected_rejection=rejection,
                covers=("probe:" + covers,), seed=0, **values)


def _packed(*dims):
    out, running = [], 1
    for d in reversed(dims):
        out.append(running)
        running *= d
    return list(reversed(out))


def probes() -> list[Case]:
    B, H, S, D = 2, 2, 8, 16
    packed = _packed(B, H, S, D)
    out = [
        # -- outputs that overlap each other or an input -------------------------------
        _probe("dq-aliases-dk", "dq: shares memory with dk", "outputs-overlap",
               buffers={"dq": "grads", "dk": "grads"}),
        _probe("dk-aliases-dv", "dk: shares memory with dv", "outputs-overlap",
               buffers={"dk": "grads", "dv": "grads"}),
        _probe("dv-half-overlaps-dq", "dq: shares memory with dv", "outputs-overlap",
               buffers={"dq": "grads", "dv": "grads"}, storage={"dv": Storage("bhsd", offset=B * H * S * D // 2)}),
        _probe("dq-in-place-over-q", "dq: shares memory with q", "output-overlaps-input",
               buffers={"q": "qbuf", "dq": "qbuf"}),
        _probe("dv-in-place-over-do", "dv: shares memory with do", "output-overlaps-input",
               buffers={"do": "dobuf", "dv": "dobuf"}),
        _probe("dk-over-stats", "dk: shares memory with stats", "output-overlaps-input",
               dtype="float32", buffers={"stats": "f32", "dk": "f32"}),
        # -- outputs whose own elements overlap -----------------------------------------
        _probe("dq-zero-stride", "dq: strides", "output-self-overlap", storage={"dq": Storage("bhsd", zero=("b",))}),
        _probe("dk-zero-stride", "dk: strides", "output-self-overlap", storage={"dk": Storage("bhsd", zero=("h",))}),
        _probe("dv-zero-stride", "dv: strides", "output-self-overlap", storage={"dv": Storage("bhsd", zero=("s",))}),
        _probe("dk-row-stride-below-d", "dk: strides", "output-self-overlap",
               strides={"dk": [H * S * D // 2, S * D // 2, D // 2, 1]}),
        _probe("dq-head-stride-inside-row", "dq: strides", "output-self-overlap",
               strides={"dq": [H * S * D, 3, D, 1]}),
        # -- dims that do not agree --------------------------------------------------------
        _probe("k-head-dim-unlike-q", "k: dims", "dims-mismatch", dims={"k": [B, H, S, D + 8], "dk": [B, H, S, D + 8]}),
        _probe("v-seq-unlike-k", "v: dims", "dims-mismatch", dims={"v": [B, H, S + 1, D], "dv": [B, H, S + 1, D]}),
        _probe("o-head-dim-unlike-v", "o: dims", "dims-mismatch", dims={"o": [B, H, S, D + 16]}),
        _probe("o-rows-unlike-q", "o: dims", "dims-mismatch", dims={"o": [B, H, S + 1, D]}),
        _probe("do-dims-unlike-o", "do: dims", "dims-mismatch", dims={"do": [B, H, S - 1, D]}),
        _probe("dq-dims-unlike-q", "dq: dims", "dims-mismatch", dims={"dq": [B, H, S, D // 2]}),
        _probe("dk-dims-unlike-k", "dk: dims", "dims-mismatch", dims={"dk": [B, H, S + 2, D]}),
        _probe("dv-heads-unlike-v", "dv: dims", "dims-mismatch", dims={"dv": [B, 1, S, D]}),
        _probe("k-batch-unlike-q", "k: dims", "dims-mismatch", dims={"k": [B + 1, H, S, D], "dk": [B + 1, H, S, D]}),
        _probe("q-rank-3", "q: dims", "rank", dims={"q": [B, H, S]}),
        _probe("zero-batch", "every dimension must be >= 1", "empty-dims", B=1,
               dims={n: [0, H, S, D] for n in ("q", "k", "v", "o", "do", "dq", "dk", "dv")} | {"stats": [0, H, S]}),
        _probe("q-strides-count", "give one stride per dim", "strides-rank", strides={"q": packed[:3]}),
        _probe("q-negative-stride", "strides must be >= 0", "negative-stride",
               strides={"q": [packed[0], packed[1], -D, 1]}),
        # -- heads -----------------------------------------------------------------------------
        _probe("hk-does-not-divide-hq", "k: 3 heads do not divide", "gqa-divisibility", H_q=4, H_k=3),
        _probe("hv-does-not-divide-hq", "v: 3 heads do not divide", "gqa-divisibility", H_q=4, H_k=2, H_v=3),
        # -- stats -------------------------------------------------------------------------------
        _probe("stats-rows-unlike-q", "stats: dims", "stats-dims", dims={"stats": [B, H, S + 1]}),
        _probe("stats-last-dim-2", "stats: dims", "stats-dims", dims={"stats": [B, H, S, 2]}),
        _probe("stats-heads-are-kv-heads", "stats: dims", "stats-dims", H_q=4, H_k=2,
               dims={"stats": [B, 2, S]}),
        _probe("stats-bfloat16", "stats: dtype", "stats-dtype", dtypes={"stats": "bfloat16"}),
        # -- dtypes -------------------------------------------------------------------------------
        _probe("o-dtype-unlike-q", "o: dtype", "dtype-mismatch", dtypes={"o": "float32"}),
        _probe("dq-dtype-unlike-q", "dq: dtype", "dtype-mismatch", dtypes={"dq": "float32"}),
        _probe("float64-inputs", "is not one of", "dtype-unsupported", dtype="float64"),
        # -- attributes ------------------------------------------------------------------------
        _probe("left-bound-zero", "left_bound = 0", "bounds", left_bound=0, right_bound=0),
        _probe("right-bound-negative", "right_bound = -1", "bounds", right_bound=-1),
        _probe("scale-nan", "finite", "scale", scale=math.nan),
        _probe("scale-inf", "finite", "scale", scale=math.inf),
        _probe("alignment-unknown", "alignment", "alignment", alignment="center", right_bound=0),
    ]
    return out
