"""The declared axes of the test plan and what each value means.

An *axis* is one way an SDPA backward problem can vary; its values are the
points the plan tests. Pairwise coverage (``pairwise``) is proved over exactly
these axes, and legality (``legality``) names the value pairs that are not
well-formed. Everything in a case is derived from an assignment of one value
per axis by :func:`assignment_case`; nothing else decides a pairwise case.

Storage is declared per tensor: the eight tensors Q, K, V, O, dO, dQ, dK, dV
each get their own axis with the same value set, so dO is stored unlike O, and
dQ/dK/dV unlike Q/K/V, in every pair the plan covers. Stats get their own axis
(rank 3 and 4, packed, padded head or batch stride, other orders).
"""

from __future__ import annotations

from typing import Mapping, Optional

from ...problem.layout import Storage

# -- storage of one 4-D tensor --------------------------------------------------
# Each value names a departure from packed BHSD that real code produces and
# real engines have addressed wrongly (the seeds' defect classes in brackets).
STORAGE: dict[str, Storage] = {
    "bhsd": Storage("bhsd"),                                  # packed, the layout engines are tuned on
    "bshd": Storage("bshd"),                                  # FlashAttention / most models
    "sbhd": Storage("sbhd"),                                  # Megatron; [side-buffer base from batch stride]
    "hbsd": Storage("hbsd"),                                  # another permutation: heads outermost
    "bsdh": Storage("bsdh"),                                  # head dim not innermost: head-dim stride = H
    "pad-odd": Storage("bhsd", pad={"s": 3}),                 # row pitch D+3 [odd strides read in 4-byte records]
    "pad-wide": Storage("sbhd", pad={"h": 8, "b": 5}),        # padded head and batch strides
    "inner2": Storage("bshd", inner_stride=2),                # head-dim stride 2 [head-dim stride ignored]
    "zero": Storage("bhsd", zero=("b", "h")),                 # broadcast over batch and heads: inputs only
    "junk": Storage("bshd", junk=True),                       # junk strides on every size-1 axis
    "offset": Storage("bhsd", offset=5),                      # odd storage offset: base not 16-byte aligned
}

# -- storage of the stats (logsumexp) tensor: (rank, storage) ----------------------
STATS: dict[str, tuple[int, Storage]] = {
    "packed3": (3, Storage("bhsd")),                          # [B, H, S] packed
    "packed4": (4, Storage("bhsd")),                          # [B, H, S, 1] packed
    "pad-h": (3, Storage("bhsd", pad={"h": 64})),             # head stride S+64 [stats strides ignored]
    "pad-b": (4, Storage("bhsd", pad={"b": 3})),              # batch stride padded
    "bsh": (3, Storage("bshd")),                              # [B, S, H] storage
    "stride2": (3, Storage("bhsd", inner_stride=2)),          # sequence stride 2
    "junk4": (4, Storage("bhsd", junk=True)),                 # rank 4, junk stride on the size-1 axis
}

# -- the rest ---------------------------------------------------------------------
DTYPES = ("float16", "bfloat16", "float32")
# D_qk/D_v: 16..256, the non-power-of-two 96, DeepSeek's 192/128, and both
# orders of D_qk != D_v.
HEAD_DIMS = {"16": (16, 16), "32": (32, 32), "64": (64, 64), "96": (96, 96), "128": (128, 128),
             "256": (256, 256), "192/128": (192, 128), "64/32": (64, 32), "32/64": (32, 64)}
# H_q/H_k/H_v: MHA, GQA, MQA, and H_k != H_v both ways [fewer V heads than K heads].
HEADS = {"1/1/1": (1, 1, 1), "2/2/2": (2, 2, 2), "4/2/2": (4, 2, 2), "4/1/1": (4, 1, 1),
         "4/2/1": (4, 2, 1), "6/2/3": (6, 2, 3)}
BATCHES = {"1": 1, "2": 2, "3": 3}
# S_q/S_kv: length one on either side, small odd, a tile multiple, non-multiples
# of common tiles with S_q < S_kv and S_q > S_kv, and a long one.
SEQS = {"1/1": (1, 1), "1/37": (1, 37), "37/1": (37, 1), "17/17": (17, 17), "64/64": (64, 64),
        "33/65": (33, 65), "65/33": (65, 33), "long": (384, 512)}
MASKS = ("none", "causal-tl", "causal-br", "window-tl", "window-br", "left-only", "right-only", "empty-rows")
SCALES: dict[str, Optional[float]] = {"default": None, "custom": 0.37, "tiny": 1e-4, "large": 4.0,
                                      "negative": -0.5}
DETERMINISTIC = {"no": False, "yes": True}

TENSOR_AXES = ("q", "k", "v", "o", "do", "dq", "dk", "dv")
OUTPUT_AXES = ("dq", "dk", "dv")

AXES: dict[str, tuple[str, ...]] = {
    "dtype": DTYPES,
    "head_dim": tuple(HEAD_DIMS),
    "heads": tuple(HEADS),
    "batch": tuple(BATCHES),
    "seq": tuple(SEQS),
    "mask": MASKS,
    "scale": tuple(SCALES),
    "deterministic": tuple(DETERMINISTIC),
    "stats": tuple(STATS),
    **{t: tuple(STORAGE) for t in TENSOR_AXES},
}


def mask_bounds(mask: str, S_q: int, S_kv: int) -> tuple[Optional[int], Optional[int], str]:
    """(left_bound, right_bound, alignment) of a mask value at these lengths.

    Windows scale with S_kv so they cut the band on both sides at every length;
    ``empty-rows`` is the diagonal only, top-left, which leaves rows i >= S_kv
    without a key when S_q > S_kv (the legality rule asks for that).
    """
    window_left, window_right = 1 + S_kv // 4, S_kv // 8
    return {
        "none": (None, None, "top_left"),
        "causal-tl": (None, 0, "top_left"),
        "causal-br": (None, 0, "bottom_right"),
        "window-tl": (window_left, window_right, "top_left"),
        "window-br": (window_left, window_right, "bottom_right"),
        "left-only": (1 + S_kv // 2, None, "bottom_right"),
        "right-only": (None, 1 + S_kv // 5, "top_left"),
        "empty-rows": (1, 0, "top_left"),
    }[mask]


def assignment_fields(a: Mapping[str, str]) -> dict:
    """The Case fields of a full assignment (one value per axis)."""
    D_qk, D_v = HEAD_DIMS[a["head_dim"]]
    H_q, H_k, H_v = HEADS[a["heads"]]
    S_q, S_kv = SEQS[a["seq"]]
    left, right, alignment = mask_bounds(a["mask"], S_q, S_kv)
    stats_rank, stats_storage = STATS[a["stats"]]
    storage = {t: STORAGE[a[t]] for t in TENSOR_AXES if a[t] != "bhsd"}
    if stats_storage != Storage():
        storage["stats"] = stats_storage
    return dict(B=BATCHES[a["batch"]], H_q=H_q, H_k=H_k, H_v=H_v, S_q=S_q, S_kv=S_kv, D_qk=D_qk, D_v=D_v,
                dtype=a["dtype"], storage=storage, stats_rank=stats_rank, scale=SCALES[a["scale"]],
                left_bound=left, right_bound=right, alignment=alignment,
                deterministic=DETERMINISTIC[a["deterministic"]])


def covers_of(a: Mapping[str, str]) -> tuple[str, ...]:
    """Plan items an assignment covers: ``axis=value`` for every axis."""
    return tuple(f"{axis}={a[axis]}" for axis in AXES)


def assignment_of(case) -> dict[str, set[str]]:
    """The axis values a written case realises, read back from its fields.

    Used by the pairwise proof: it reads what the cases *are*, not what the
    generator meant them to be. A case may realise more than one value of an
    axis (at S_kv = 1 the top-left window is the diagonal, which is also the
    ``empty-rows`` band); it counts for each. An axis whose value is not
    recognised (a probe's hand-made strides, a catalog shape) is left out.
    """
    z = case.sizes
    out: dict[str, set[str]] = {axis: set() for axis in AXES}
    out["dtype"].add(case.dtype)
    out["head_dim"].update(n for n, d in HEAD_DIMS.items() if d == (z["D_qk"], z["D_v"]))
    out["heads"].update(n for n, h in HEADS.items() if h == (z["H_q"], z["H_k"], z["H_v"]))
    out["batch"].update(n for n, b in BATCHES.items() if b == z["B"])
    out["seq"].update(n for n, s in SEQS.items() if s == (z["S_q"], z["S_kv"]))
    out["mask"].update(m for m in MASKS
                       if mask_bounds(m, z["S_q"], z["S_kv"]) == (case.left_bound, case.right_bound, case.alignment))
    out["scale"].update(n for n, s in SCALES.items() if s == case.scale)
    out["deterministic"].add("yes" if case.deterministic else "no")
    if not case.dims and not case.strides and not case.buffers:
        out["stats"].update(n for n, (rank, st) in STATS.items()
                            if rank == case.stats_rank and st == case.storage_of("stats"))
        for t in TENSOR_AXES:
            out[t].update(n for n, st in STORAGE.items() if st == case.storage_of(t))
    return {axis: values for axis, values in out.items() if values}
