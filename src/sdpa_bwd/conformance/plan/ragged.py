"""The varlen plan: packed variable-length (ragged) cases, generated from their axes (``--level varlen``).

Axes (issue 53): the length distribution (all equal; one long, many short; lengths 0 and 1 on either side; lengths
no tile divides; S_q != S_kv per sequence), the stats form (packed (H, T), packed (T, H), padded (B, H, max_S)),
the storage of the token axis (packed, head-major storage, rows padded past D, tokens padded past H x D), the mask
(none, causal in both alignments, a window), the dtype, the heads (MHA, GQA, H_k != H_v) and the head dims. The
claim cases cover every pair of axis values at least once (a greedy covering over a seeded candidate pool, checked
by ``uncovered_pairs``). Regressions, one per defect class the issue names: a side buffer whose rows are taken
from a dense stride (``b * max_S``) instead of the cumulative offset, the last sequence's tail tile, and a first
offset above 0 (the tensors a view into a larger buffer). Probes: malformed offsets, which an engine must reject.

Sizes are small (at most a few hundred tokens): the CPU runs the level under Triton's interpreter.
"""

from __future__ import annotations

import itertools
import random
import shlex
from dataclasses import dataclass, field, fields
from typing import Mapping, Optional

from ...problem.model import TensorSpec
from ...problem.ragged import RaggedProblem, cumulative, from_cu_seqlens, make_ragged_problem

LEVEL = "varlen"

LENGTHS = {
    "equal": ((48, 48, 48), None),
    "one-long-many-short": ((70, 3, 5, 2, 7, 1), None),
    "zeros-and-ones": ((0, 1, 17, 0, 1, 9), (3, 1, 17, 5, 0, 9)),
    "off-tile": ((17, 33, 65), None),
    "uneven-kv": ((20, 7, 40), (5, 31, 64)),
}
STATS_FORMS = ("h_t", "t_h", "padded")
STORAGES = ("packed", "head-major", "row-pad", "token-pad")
MASKS = {
    "none": {},
    "causal-TL": dict(right_bound=0),
    "causal-BR": dict(right_bound=0, alignment="bottom_right"),
    "window": dict(left_bound=9, right_bound=2),
}
DTYPES = ("float32", "bfloat16", "float16")
HEADS = {"MHA": (4, 4, 4), "GQA": (4, 2, 2), "H_k != H_v": (4, 2, 1)}
HEAD_DIMS = {"16": (16, 16), "32/16": (32, 16), "64": (64, 64)}
AXES = {"lengths": tuple(LENGTHS), "stats": STATS_FORMS, "storage": STORAGES, "mask": tuple(MASKS),
        "dtype": DTYPES, "heads": tuple(HEADS), "head dim": tuple(HEAD_DIMS)}

ROW_PAD = 8        # "row-pad": a token's head rows D + 8 elements apart
TOKEN_PAD = 24     # "token-pad": tokens H x D + 24 elements apart


@dataclass(frozen=True)
class RaggedCase:
    """One varlen case: lengths, heads, dims, dtype, stats form, token storage, mask, seed; a probe instead
    carries raw offsets (``cu_seqlens_*``) that ``to_problem`` must reject."""

    id: str
    seqlens_q: tuple = ()
    seqlens_kv: Optional[tuple] = None
    H_q: int = 4
    H_k: int = 4
    H_v: int = 4
    D_qk: int = 16
    D_v: int = 16
    dtype: str = "float32"
    stats_form: str = "h_t"
    storage: str = "packed"
    token_offset: int = 0          # the tensors start this many tokens into their buffers; offsets start there
    scale: Optional[float] = None
    left_bound: Optional[int] = None
    right_bound: Optional[int] = None
    alignment: str = "top_left"
    deterministic: bool = False
    seed: int = 0
    purpose: str = "claim"
    covers: tuple = ()
    expected_rejection: Optional[str] = None
    tolerance_class: Optional[str] = None
    cu_seqlens_q: Optional[tuple] = None   # probes: offsets as given
    cu_seqlens_kv: Optional[tuple] = None
    total_tokens: Optional[int] = None     # probes: the tokens the tensors hold
    level: str = LEVEL
    ragged: bool = field(default=True, init=False, repr=False)

    def __post_init__(self) -> None:
        for name in ("seqlens_q", "seqlens_kv", "covers", "cu_seqlens_q", "cu_seqlens_kv"):
            value = getattr(self, name)
            if value is not None:
                object.__setattr__(self, name, tuple(value))

    def _specs(self, T_q: int, T_kv: int) -> dict:
        dims = {"q": (T_q, self.H_q, self.D_qk), "k": (T_kv, self.H_k, self.D_qk), "v": (T_kv, self.H_v, self.D_v),
                "o": (T_q, self.H_q, self.D_v), "do": (T_q, self.H_q, self.D_v), "dq": (T_q, self.H_q, self.D_qk),
                "dk": (T_kv, self.H_k, self.D_qk), "dv": (T_kv, self.H_v, self.D_v)}
        off = self.token_offset
        specs = {}
        for name, (T, H, D) in dims.items():
            if self.storage == "head-major":     # (H, off + T, D) storage
                strides, start = (D, (off + T) * D, 1), off * D
            elif self.storage == "row-pad":
                strides, start = (H * (D + ROW_PAD), D + ROW_PAD, 1), off * H * (D + ROW_PAD)
            elif self.storage == "token-pad":
                strides, start = (H * D + TOKEN_PAD, D, 1), off * (H * D + TOKEN_PAD)
            else:
                strides, start = (H * D, D, 1), off * H * D
            specs[name] = TensorSpec((T, H, D), strides, self.dtype, start)
        return specs

    def to_problem(self) -> RaggedProblem:
        """The problem this case describes, validated; a probe's malformed offsets raise ``ValueError``."""
        attrs = dict(H_q=self.H_q, H_k=self.H_k, H_v=self.H_v, D_qk=self.D_qk, D_v=self.D_v, dtype=self.dtype,
                     stats_form=self.stats_form, scale=self.scale, left_bound=self.left_bound,
                     right_bound=self.right_bound, alignment=self.alignment, deterministic=self.deterministic)
        if self.cu_seqlens_q is not None:
            return from_cu_seqlens(self.cu_seqlens_q, self.cu_seqlens_kv, total_q=self.total_tokens,
                                   total_kv=self.total_tokens, **attrs)
        kv = self.seqlens_kv or self.seqlens_q
        specs = self._specs(sum(self.seqlens_q), sum(kv))
        return make_ragged_problem(self.seqlens_q, kv, specs=specs, token_offset_q=self.token_offset,
                                   token_offset_kv=self.token_offset, **attrs).validate()

    def describe(self) -> str:
        if self.cu_seqlens_q is not None:
            return f"probe cu_seqlens_q={list(self.cu_seqlens_q)} cu_seqlens_kv={list(self.cu_seqlens_kv)}"
        kv = self.seqlens_kv
        lengths = "L" + ",".join(map(str, self.seqlens_q)) + (("/" + ",".join(map(str, kv))) if kv else "")
        heads = f"H{self.H_q}" + (f"/{self.H_k}/{self.H_v}" if (self.H_k, self.H_v) != (self.H_q, self.H_q) else "")
        dim = f"D{self.D_qk}" + (f"/{self.D_v}" if self.D_v != self.D_qk else "")
        parts = [self.dtype, "varlen", lengths, heads, dim, f"stats {self.stats_form}", self.storage]
        if self.left_bound is not None or self.right_bound is not None:
            parts.append(f"band[{self.left_bound},{self.right_bound}]{'BR' if self.alignment == 'bottom_right' else 'TL'}")
        if self.token_offset:
            parts.append(f"from token {self.token_offset}")
        if self.deterministic:
            parts.append("det")
        return " ".join(parts)

    def features(self) -> list[tuple[str, str]]:
        """(axis, value) pairs for the support matrix."""
        if self.purpose == "probe":
            return [("varlen probes", self.expected_rejection or "probe")]
        out = [("varlen " + c.split(":", 1)[0], c.split(":", 1)[1]) for c in self.covers if ":" in c
               and not c.startswith("regression")]
        return out + [("varlen regressions", c.split(":", 1)[1]) for c in self.covers if c.startswith("regression:")]

    def to_dict(self) -> dict:
        out = {"kind": "ragged"}
        defaults = RaggedCase(id="_")
        for f in fields(self):
            value = getattr(self, f.name)
            if f.name == "ragged" or (f.name != "id" and value == getattr(defaults, f.name)):
                continue
            out[f.name] = list(value) if isinstance(value, tuple) else value
        return out

    @classmethod
    def from_dict(cls, data: Mapping) -> "RaggedCase":
        data = {k: v for k, v in data.items() if k != "kind"}
        known = {f.name for f in fields(cls) if f.init}
        unknown = set(data) - known
        if unknown:
            raise ValueError(f"varlen case {data.get('id', '?')}: unknown fields {sorted(unknown)}; known: "
                             f"{sorted(known)}")
        return cls(**data)

    def repro(self, engine: str = "ENGINE", source: Optional[str] = None) -> str:
        return " ".join(("sdpa-bwd run", f"--engine {shlex.quote(engine)}", source or f"--level {self.level}",
                         f"--case {shlex.quote(self.id)}"))


def is_ragged(case) -> bool:
    return getattr(case, "ragged", False) is True


def case_from_dict(data: Mapping):
    """A dense ``Case`` or a ``RaggedCase``, by the dict's ``kind``."""
    from ...problem.cases import Case

    return RaggedCase.from_dict(data) if data.get("kind") == "ragged" else Case.from_dict(data)


# ----------------------------------------------------------------------------
# Generation


def _claim(index: int, choice: dict, rng: random.Random) -> RaggedCase:
    q, kv = LENGTHS[choice["lengths"]]
    H_q, H_k, H_v = HEADS[choice["heads"]]
    D_qk, D_v = HEAD_DIMS[choice["head dim"]]
    covers = tuple(f"{axis}:{value}" for axis, value in choice.items())
    return RaggedCase(f"varlen-{index:03d}", q, kv, H_q, H_k, H_v, D_qk, D_v, choice["dtype"], choice["stats"],
                      choice["storage"], seed=rng.randint(0, 2**31 - 1), covers=covers, **MASKS[choice["mask"]])


def _pairs(choice: dict) -> set:
    return {((a, choice[a]), (b, choice[b])) for a, b in itertools.combinations(AXES, 2)}


def uncovered_pairs(cases) -> set:
    """Pairs of axis values no claim case covers (empty for the generated level)."""
    want = {((a, x), (b, y)) for a, b in itertools.combinations(AXES, 2) for x in AXES[a] for y in AXES[b]}
    for case in cases:
        if case.purpose == "claim":
            choice = dict(c.split(":", 1) for c in case.covers)
            want -= _pairs(choice)
    return want


# The plainest ragged problem, first: every length >= 1, MHA, no mask, packed storage, packed stats, fp32; the case
# every varlen engine should take (a peer that declines most of the axes still meets the plan here).
PLAIN = {"lengths": "uneven-kv", "stats": "h_t", "storage": "packed", "mask": "none", "dtype": "float32",
         "heads": "MHA", "head dim": "16"}


def claim_cases(seed: int = 53) -> list[RaggedCase]:
    """The plain case, then cases covering every pair of axis values: each step takes, of 300 seeded random
    candidates, the one that covers the most pairs not yet covered."""
    rng = random.Random(seed)
    left = uncovered_pairs([]) - _pairs(PLAIN)
    out: list[RaggedCase] = [_claim(0, PLAIN, rng)]
    while left:
        pool = [{a: rng.choice(v) for a, v in AXES.items()} for _ in range(300)]
        best = max(pool, key=lambda c: len(_pairs(c) & left))
        if not _pairs(best) & left:  # a pool that covers nothing new: build one from an uncovered pair
            (a, x), (b, y) = sorted(left)[0]
            best = {**pool[0], a: x, b: y}
        left -= _pairs(best)
        out.append(_claim(len(out), best, rng))
    return out


def regression_cases() -> list[RaggedCase]:
    return [
        # sequence b's stats / delta / dQ-accumulator rows start at its cumulative offset; a base taken as b * max_S
        # (the seed's class: a side buffer addressed from a layout stride) reads another sequence's rows
        RaggedCase("varlen-regression-side-buffer-base", (5, 40, 13, 1, 29), None, 4, 2, 2, 32, 32, "float32",
                   "h_t", seed=5301, purpose="regression", covers=("regression:side-buffer-base",)),
        RaggedCase("varlen-regression-side-buffer-base-padded", (5, 40, 13, 1, 29), (9, 3, 13, 30, 2), 4, 4, 4, 16,
                   16, "bfloat16", "padded", "token-pad", seed=5302, purpose="regression",
                   covers=("regression:side-buffer-base-padded",), right_bound=0, alignment="bottom_right"),
        # the last sequence ends in a partial tile past a tile-aligned run of tokens
        RaggedCase("varlen-regression-last-tail-tile", (64, 64, 67), None, 2, 2, 2, 64, 64, "float16", "t_h",
                   "head-major", seed=5303, purpose="regression", covers=("regression:last-tail-tile",),
                   right_bound=0),
        # sequence 0 starts at token 7 of the buffers: the offsets do not start at 0
        RaggedCase("varlen-regression-first-offset-nonzero", (11, 30, 6), (20, 4, 6), 4, 1, 1, 16, 16, "float32",
                   "h_t", "row-pad", token_offset=7, seed=5304, purpose="regression",
                   covers=("regression:first-offset-nonzero",)),
    ]


def probe_cases() -> list[RaggedCase]:
    base = dict(H_q=2, H_k=2, H_v=2, D_qk=16, D_v=16, purpose="probe", seed=5399)
    return [
        RaggedCase("varlen-probe-decreasing", cu_seqlens_q=(0, 9, 4, 16), cu_seqlens_kv=(0, 4, 9, 16),
                   total_tokens=16, expected_rejection="decreasing offsets", **base),
        RaggedCase("varlen-probe-batch-mismatch", cu_seqlens_q=(0, 8, 16), cu_seqlens_kv=(0, 16),
                   total_tokens=16, expected_rejection="B differs between Q and K/V offsets", **base),
        # offsets ending before T are well formed for the API (the tokens after them attend to nothing), so the
        # probe is offsets past the tensors' tokens
        RaggedCase("varlen-probe-past-the-tokens", cu_seqlens_q=(0, 8, 20), cu_seqlens_kv=(0, 8, 20),
                   total_tokens=16, expected_rejection="offsets past the tokens", **base),
        RaggedCase("varlen-probe-negative", cu_seqlens_q=(-2, 8, 14), cu_seqlens_kv=(-2, 8, 14),
                   total_tokens=16, expected_rejection="a negative offset", **base),
        RaggedCase("varlen-probe-one-entry", cu_seqlens_q=(0,), cu_seqlens_kv=(0,), total_tokens=0,
                   expected_rejection="fewer than two offsets", **base),
    ]


def varlen_cases() -> list[RaggedCase]:
    """The varlen level: claims, regressions, probes."""
    return claim_cases() + regression_cases() + probe_cases()


def seq_offsets(problem: RaggedProblem) -> tuple[list[int], list[int]]:
    """The offsets of a problem's sequences into its tensors' token axes (0-based: the tensors hold the T tokens)."""
    return list(cumulative(problem.seqlens_q)), list(cumulative(problem.seqlens_kv))


__all__ = ["RaggedCase", "varlen_cases", "claim_cases", "regression_cases", "probe_cases", "uncovered_pairs",
           "is_ragged", "case_from_dict", "seq_offsets", "LEVEL", "AXES"]
