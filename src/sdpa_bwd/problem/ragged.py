"""The ragged (variable-length, "THD") SDPA backward problem: B sequences packed along one token axis.

Sequence b owns query tokens ``cu_seqlens_q[b] - base_q .. cu_seqlens_q[b + 1] - base_q`` of Q, O,
dO and dQ and key tokens ``cu_seqlens_kv[b] - base_kv .. cu_seqlens_kv[b + 1] - base_kv`` of K, V,
dK and dV, where ``base`` is the token offset of the problem's first token in a larger buffer
(``token_offset_q`` / ``token_offset_kv``, 0 for a problem that owns its buffer). The cumulative
offsets are what a kernel receives; they start at the base, not at 0, when the problem is a view into
a larger packed batch, and a kernel that indexes its own side buffers (stats, delta, a dQ
accumulator) with the absolute offset instead of ``offset - base`` reads and writes another
sequence's rows. Lengths may differ between queries and keys and from sequence to sequence; a
length may be 0.

Tensors are :class:`~sdpa_bwd.problem.TensorSpec` s with dims (token, head, dim) and any strides:
Q (T_q, H_q, D_qk), K (T_kv, H_k, D_qk), V (T_kv, H_v, D_v), O and dO (T_q, H_q, D_v), dQ/dK/dV
like Q/K/V. The logsumexp ``stats`` comes in one of :data:`STATS_FORMS`:

* ``"h_t"``:    packed (H_q, T_q), one row of every query token per head;
* ``"t_h"``:    packed (T_q, H_q);
* ``"padded"``: (B, H_q, max_seqlen_q), sequence b's rows at ``[b, :, :S_q(b)]`` and the rest unused.

The attention attributes (scale, band bounds, alignment, deterministic) are the dense problem's
(:class:`~sdpa_bwd.problem.Problem`), applied to each sequence on its own: with bottom-right
alignment each sequence's last query lines up with its own last key.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, replace
from typing import Optional, Sequence

import numpy as np

from .model import OUTPUTS, TENSORS, TensorSpec, _check_spec, check_attributes, check_dtypes
from .model import packed_strides
from .model import self_overlap, specs_overlap

STATS_FORMS = ("h_t", "t_h", "padded")
# Kernels take cumulative offsets as int32 (flash-attn's and cuDNN's varlen convention): the last
# offset, base included, must fit.
INT32_MAX = (1 << 31) - 1


def _as_int(name: str, value, what: str) -> int:
    """``value`` as a Python int, or a ValueError naming ``what`` it was meant to be."""
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, (int, np.integer)):
        raise ValueError(f"{name} = {value!r}: {what} must be an integer; pass ints (a list, a numpy "
                         "integer array or a torch integer tensor)")
    return int(value)


def _int_list(name: str, values) -> tuple[int, ...]:
    """A 1-D sequence of integers (list, tuple, numpy array or torch tensor) as a tuple of ints."""
    if hasattr(values, "tolist") and not isinstance(values, (list, tuple)):
        shape = tuple(getattr(values, "shape", ()))
        if len(shape) != 1:
            raise ValueError(f"{name}: shape {shape} but expected a 1-D sequence of integers; flatten it")
        dtype = str(getattr(values, "dtype", ""))
        if "int" not in dtype:
            raise ValueError(f"{name}: dtype {dtype} but offsets and lengths are integers; "
                             "pass an int32 or int64 array")
        values = values.tolist()
    if not isinstance(values, (list, tuple)):
        raise ValueError(f"{name} = {values!r}: expected a list of integers")
    return tuple(_as_int(f"{name}[{i}]", v, "every entry") for i, v in enumerate(values))


def cumulative(lengths: Sequence[int], base: int = 0) -> tuple[int, ...]:
    """The B + 1 cumulative offsets ``(base, base + l0, base + l0 + l1, ...)`` of B lengths."""
    out = [int(base)]
    for n in lengths:
        out.append(out[-1] + int(n))
    return tuple(out)


def lengths_of(name: str, cu_seqlens, base: Optional[int] = None) -> tuple[tuple[int, ...], int]:
    """(lengths, base) of cumulative offsets, with a ValueError for malformed ones.

    The offsets must hold at least two entries (one sequence), start at ``base`` (when given; else
    their first entry is the base), never decrease, be >= 0 and fit in int32.
    """
    cu = _int_list(name, cu_seqlens)
    if len(cu) < 2:
        raise ValueError(f"{name} = {cu}: {len(cu)} entries but cumulative offsets have B + 1 >= 2 "
                         "(one start per sequence and the end of the last); pass [0, S] for one sequence")
    if cu[0] < 0:
        raise ValueError(f"{name}[0] = {cu[0]}: offsets are token indices and must be >= 0")
    if base is not None and cu[0] != base:
        raise ValueError(f"{name}[0] = {cu[0]} but the token offset is {base}: cumulative offsets start at "
                         "the token offset of the problem's first token (0 for a buffer of its own); "
                         f"subtract {cu[0] - base} from every entry or pass token offset {cu[0]}")
    for b in range(len(cu) - 1):
        if cu[b + 1] < cu[b]:
            raise ValueError(f"{name}: entry {b + 1} = {cu[b + 1]} is below entry {b} = {cu[b]} in {cu}: "
                             f"cumulative offsets never decrease (sequence {b} would have length "
                             f"{cu[b + 1] - cu[b]}); pass the running sum of the lengths")
    if cu[-1] > INT32_MAX:
        raise ValueError(f"{name}[-1] = {cu[-1]} exceeds int32 ({INT32_MAX}): kernels take the offsets as "
                         "int32; split the batch")
    return tuple(cu[b + 1] - cu[b] for b in range(len(cu) - 1)), cu[0]


@dataclass(frozen=True)
class RaggedProblem:
    """A packed variable-length SDPA backward problem: per-sequence lengths, nine tensors, attributes.

    ``seqlens_q[b]`` and ``seqlens_kv[b]`` are sequence b's query and key counts. ``scale=None`` means
    1/sqrt(D_qk). The band (``left_bound``, ``right_bound``, ``alignment``) has the dense problem's
    semantics within each sequence, with that sequence's own S_q and S_kv.
    """

    seqlens_q: tuple[int, ...]
    seqlens_kv: tuple[int, ...]
    q: TensorSpec
    k: TensorSpec
    v: TensorSpec
    o: TensorSpec
    do: TensorSpec
    stats: TensorSpec
    dq: TensorSpec
    dk: TensorSpec
    dv: TensorSpec
    stats_form: str = "h_t"
    scale: Optional[float] = None
    left_bound: Optional[int] = None
    right_bound: Optional[int] = None
    alignment: str = "top_left"
    deterministic: bool = False
    token_offset_q: int = 0
    token_offset_kv: int = 0

    def __post_init__(self) -> None:
        # Lists, numpy arrays and tensors become tuples so the problem hashes and compares by value;
        # anything that is not a sequence of integers is left for validate() to name.
        for name in ("seqlens_q", "seqlens_kv"):
            value = getattr(self, name)
            try:
                object.__setattr__(self, name, _int_list(name, value))
            except ValueError:
                pass

    # -- convenient views ---------------------------------------------------
    def tensor(self, name: str) -> TensorSpec:
        return getattr(self, name)

    def tensors(self) -> dict[str, TensorSpec]:
        return {n: getattr(self, n) for n in TENSORS}

    @property
    def dtype(self) -> str:
        return self.q.dtype

    @property
    def B(self) -> int:
        return len(self.seqlens_q)

    @property
    def H_q(self) -> int:
        return self.q.dims[1]

    @property
    def H_k(self) -> int:
        return self.k.dims[1]

    @property
    def H_v(self) -> int:
        return self.v.dims[1]

    @property
    def D_qk(self) -> int:
        return self.q.dims[2]

    @property
    def D_v(self) -> int:
        return self.v.dims[2]

    @property
    def T_q(self) -> int:
        return sum(self.seqlens_q)

    @property
    def T_kv(self) -> int:
        return sum(self.seqlens_kv)

    @property
    def max_seqlen_q(self) -> int:
        return max(self.seqlens_q, default=0)

    @property
    def max_seqlen_kv(self) -> int:
        return max(self.seqlens_kv, default=0)

    @property
    def cu_seqlens_q(self) -> tuple[int, ...]:
        """B + 1 query offsets from ``token_offset_q``, as a kernel receives them."""
        return cumulative(self.seqlens_q, self.token_offset_q)

    @property
    def cu_seqlens_kv(self) -> tuple[int, ...]:
        """B + 1 key offsets from ``token_offset_kv``, as a kernel receives them."""
        return cumulative(self.seqlens_kv, self.token_offset_kv)

    @property
    def effective_scale(self) -> float:
        return 1.0 / math.sqrt(self.D_qk) if self.scale is None else float(self.scale)

    @property
    def has_mask(self) -> bool:
        return self.left_bound is not None or self.right_bound is not None

    @property
    def is_causal(self) -> bool:
        return self.left_bound is None and self.right_bound == 0

    def tokens(self, b: int) -> tuple[slice, slice]:
        """(query tokens, key tokens) of sequence b, as slices of the tensors' token axis (base removed)."""
        cq, ckv = cumulative(self.seqlens_q), cumulative(self.seqlens_kv)
        return slice(cq[b], cq[b + 1]), slice(ckv[b], ckv[b + 1])

    def shift(self, b: int) -> int:
        return self.seqlens_kv[b] - self.seqlens_q[b] if self.alignment == "bottom_right" else 0

    def key_range(self, b: int, i: int) -> tuple[int, int]:
        """Keys [lo, hi) of sequence b that its query row i keeps (empty when lo >= hi), both
        counted from the sequence's first token."""
        lo, hi = 0, self.seqlens_kv[b]
        if self.left_bound is not None:
            lo = max(lo, i + 1 - self.left_bound + self.shift(b))
        if self.right_bound is not None:
            hi = min(hi, i + self.right_bound + self.shift(b) + 1)
        return lo, hi

    def kept_pairs(self) -> int:
        """(query, key) pairs the masks keep, summed over sequences, per head: FLOPs count these."""
        return sum(max(0, hi - lo) for b in range(self.B) for lo, hi in
                   (self.key_range(b, i) for i in range(self.seqlens_q[b])))

    def flops(self) -> tuple[float, float]:
        """(forward, backward) FLOPs, masks counted exactly; backward = 2.5 x forward."""
        fwd = 2.0 * self.kept_pairs() * self.H_q * (self.D_qk + self.D_v)
        return fwd, 2.5 * fwd

    def stats_dims(self) -> tuple[int, ...]:
        """The dims ``stats`` must have in this problem's ``stats_form``."""
        return {"h_t": (self.H_q, self.T_q), "t_h": (self.T_q, self.H_q),
                "padded": (self.B, self.H_q, self.max_seqlen_q)}[self.stats_form]

    def with_(self, **changes) -> "RaggedProblem":
        return replace(self, **changes)

    def to_dict(self) -> dict:
        return {"seqlens_q": list(self.seqlens_q), "seqlens_kv": list(self.seqlens_kv),
                "tensors": {n: s.to_dict() for n, s in self.tensors().items()}, "stats_form": self.stats_form,
                "scale": self.scale, "left_bound": self.left_bound, "right_bound": self.right_bound,
                "alignment": self.alignment, "deterministic": self.deterministic,
                "token_offset_q": self.token_offset_q, "token_offset_kv": self.token_offset_kv}

    # -- validation ---------------------------------------------------------
    def validate(self) -> "RaggedProblem":
        """Raise ``ValueError`` for a malformed or undefined problem; return self."""
        self._check_lengths()
        for name in TENSORS:
            _check_spec(name, self.tensor(name))
        self._check_dims()
        self._check_dtypes()
        self._check_attributes()
        self._check_outputs_well_defined()
        return self

    def _check_lengths(self) -> None:
        for name in ("seqlens_q", "seqlens_kv"):
            lengths = _int_list(name, getattr(self, name))
            if not lengths:
                raise ValueError(f"{name} = {lengths}: no sequences; a ragged problem has B >= 1 sequences "
                                 "(a sequence of length 0 is allowed: pass [0])")
            for b, n in enumerate(lengths):
                if n < 0:
                    raise ValueError(f"{name}[{b}] = {n}: a sequence length must be >= 0 "
                                     "(lengths are differences of cumulative offsets that never decrease)")
        if len(self.seqlens_q) != len(self.seqlens_kv):
            raise ValueError(f"seqlens_q has {len(self.seqlens_q)} sequences but seqlens_kv has "
                             f"{len(self.seqlens_kv)}: each sequence has a query and a key length (either may "
                             "be 0); pass one of each per sequence")
        for name in ("token_offset_q", "token_offset_kv"):
            base = _as_int(name, getattr(self, name), "a token offset")
            if base < 0:
                raise ValueError(f"{name} = {base}: the token offset of the first token must be >= 0")
        for name, cu in (("cu_seqlens_q", self.cu_seqlens_q), ("cu_seqlens_kv", self.cu_seqlens_kv)):
            if cu[-1] > INT32_MAX:
                raise ValueError(f"{name}[-1] = {cu[-1]} exceeds int32 ({INT32_MAX}): kernels take the "
                                 "offsets as int32; split the batch or lower the token offset")

    def _check_dims(self) -> None:
        for name in ("q", "k", "v", "o", "do", "dq", "dk", "dv"):
            spec = self.tensor(name)
            if len(spec.dims) != 3:
                raise ValueError(f"{name}: dims {spec.dims} have rank {len(spec.dims)}; packed ragged tensors "
                                 "are 3-D (tokens, heads, head dim); fold the batch into the token axis")
        T_q, T_kv = self.T_q, self.T_kv
        for name, tokens, total, cu in (("q", self.q.dims[0], T_q, "cu_seqlens_q"),
                                        ("k", self.k.dims[0], T_kv, "cu_seqlens_kv"),
                                        ("v", self.v.dims[0], T_kv, "cu_seqlens_kv")):
            if tokens != total:
                raise ValueError(
                    f"{name}: {tokens} tokens but the sequence lengths sum to {total} ({cu} = "
                    f"{getattr(self, cu)}): {name.upper()} holds every token of every sequence along its first "
                    f"axis, so its length is {cu}[-1] - {cu}[0]; fix the lengths or pass the matching view")
        _, H_q, D_qk = self.q.dims
        _, H_k, _ = self.k.dims
        _, H_v, D_v = self.v.dims
        expect = {
            "k": (T_kv, H_k, D_qk), "v": (T_kv, H_v, D_v),
            "o": (T_q, H_q, D_v), "do": (T_q, H_q, D_v),
            "dq": self.q.dims, "dk": self.k.dims, "dv": self.v.dims,
        }
        why = {
            "k": "K must be (T_kv, H_k, D_qk) with Q's head dim",
            "v": "V must be (T_kv, H_v, D_v) with K's tokens",
            "o": "O must be (T_q, H_q, D_v): Q's tokens and heads, V's head dim",
            "do": "dO must have O's dims (T_q, H_q, D_v)",
            "dq": "dQ must have Q's dims", "dk": "dK must have K's dims", "dv": "dV must have V's dims",
        }
        for name, dims in expect.items():
            if self.tensor(name).dims != tuple(dims):
                raise ValueError(f"{name}: dims {self.tensor(name).dims} but expected {tuple(dims)}: {why[name]}")
        for name, value in (("H_q", H_q), ("D_qk", D_qk), ("H_k", H_k), ("H_v", H_v), ("D_v", D_v)):
            if value < 1:
                raise ValueError(f"{name} = {value}: heads and head dims must be >= 1 (only sequence lengths "
                                 "may be 0)")
        for name, h in (("k", H_k), ("v", H_v)):
            if H_q % h:
                raise ValueError(f"{name}: {h} heads do not divide H_q = {H_q}: GQA/MQA needs H_q % H_{name} == 0")
        if self.stats_form not in STATS_FORMS:
            raise ValueError(f"stats_form = {self.stats_form!r}: must be one of {STATS_FORMS} (packed (H, T), "
                             "packed (T, H) or padded (B, H, max_seqlen_q))")
        if self.stats.dims != self.stats_dims():
            raise ValueError(f"stats: dims {self.stats.dims} but stats_form {self.stats_form!r} needs "
                             f"{self.stats_dims()}: one logsumexp per query token of each head; give stats those "
                             "dims or name the form it has")

    def _check_dtypes(self) -> None:
        check_dtypes(self)

    def _check_attributes(self) -> None:
        check_attributes(self)   # the dense problem's rules: a sequence is a dense problem with B = 1

    def _check_outputs_well_defined(self) -> None:
        for name in OUTPUTS:
            spec = self.tensor(name)
            hit = self_overlap(spec.dims, spec.strides)
            if hit is not None:
                raise ValueError(
                    f"{name}: strides {spec.strides} with dims {spec.dims} make (token, head, dim) index {hit[0]} "
                    f"and {hit[1]} the same element: an output whose elements overlap has no well-defined "
                    "result; give it strides where each covers the span of the axes inside it")
        for out in OUTPUTS:
            for other in TENSORS:
                if other == out or (other in OUTPUTS and TENSORS.index(other) < TENSORS.index(out)):
                    continue
                if specs_overlap(self.tensor(out), self.tensor(other)):
                    raise ValueError(
                        f"{out}: shares memory with {other} in buffer {self.tensor(out).buffer!r}: "
                        "an output that overlaps another output or an input has no well-defined result; "
                        "give it memory of its own")


def make_ragged_problem(
    seqlens_q: Sequence[int],
    seqlens_kv: Optional[Sequence[int]] = None,
    *,
    H_q: int, D_qk: int,
    H_k: Optional[int] = None, H_v: Optional[int] = None, D_v: Optional[int] = None,
    dtype: str = "bfloat16",
    specs: Optional[dict[str, TensorSpec]] = None,
    stats_form: str = "h_t",
    scale: Optional[float] = None, causal: bool = False,
    left_bound: Optional[int] = None, right_bound: Optional[int] = None,
    alignment: str = "top_left", deterministic: bool = False,
    token_offset_q: int = 0, token_offset_kv: int = 0,
) -> RaggedProblem:
    """A ragged problem with packed (T, H, D) tensors, with any tensors in ``specs`` replacing those.

    ``seqlens_kv=None`` gives each sequence as many keys as queries. Not validated: call
    ``validate()`` (a malformed problem is what the validation tests build).
    """
    seqlens_q = _int_list("seqlens_q", seqlens_q)
    seqlens_kv = seqlens_q if seqlens_kv is None else _int_list("seqlens_kv", seqlens_kv)
    H_k = H_q if H_k is None else H_k
    H_v = H_k if H_v is None else H_v
    D_v = D_qk if D_v is None else D_v
    if causal:
        if right_bound not in (None, 0):
            raise ValueError(f"causal=True with right_bound={right_bound}: causal means right_bound = 0")
        right_bound = 0
    T_q, T_kv = max(0, sum(seqlens_q)), max(0, sum(seqlens_kv))
    stats_dims = {"h_t": (H_q, T_q), "t_h": (T_q, H_q),
                  "padded": (len(seqlens_q), H_q, max(seqlens_q, default=0))}.get(stats_form, (H_q, T_q))
    dims = {
        "q": (T_q, H_q, D_qk), "k": (T_kv, H_k, D_qk), "v": (T_kv, H_v, D_v),
        "o": (T_q, H_q, D_v), "do": (T_q, H_q, D_v), "stats": stats_dims,
        "dq": (T_q, H_q, D_qk), "dk": (T_kv, H_k, D_qk), "dv": (T_kv, H_v, D_v),
    }
    built = {n: TensorSpec(d, packed_strides(d), "float32" if n == "stats" else dtype) for n, d in dims.items()}
    built.update(specs or {})
    return RaggedProblem(seqlens_q=seqlens_q, seqlens_kv=seqlens_kv, **built, stats_form=stats_form, scale=scale,
                         left_bound=left_bound, right_bound=right_bound, alignment=alignment,
                         deterministic=deterministic, token_offset_q=token_offset_q,
                         token_offset_kv=token_offset_kv)


def from_cu_seqlens(cu_seqlens_q, cu_seqlens_kv, *, total_q: Optional[int] = None, total_kv: Optional[int] = None,
                    token_offset_q: Optional[int] = None, token_offset_kv: Optional[int] = None,
                    **kwargs) -> RaggedProblem:
    """A validated ragged problem from the cumulative offsets a varlen kernel receives.

    The offsets are checked before anything else (:func:`lengths_of`): B + 1 >= 2 entries, the same
    B for queries and keys, starting at the token offset (``token_offset_*``; ``None`` takes the
    first entry as the base), never decreasing, within int32. ``total_q`` / ``total_kv``, when given,
    are the tokens the Q / K tensors hold, and the offsets must span exactly that many. Other
    keywords are :func:`make_ragged_problem` 's.
    """
    seqlens_q, base_q = lengths_of("cu_seqlens_q", cu_seqlens_q, token_offset_q)
    seqlens_kv, base_kv = lengths_of("cu_seqlens_kv", cu_seqlens_kv, token_offset_kv)
    if len(seqlens_q) != len(seqlens_kv):
        raise ValueError(f"cu_seqlens_q has {len(seqlens_q) + 1} entries ({len(seqlens_q)} sequences) but "
                         f"cu_seqlens_kv has {len(seqlens_kv) + 1} ({len(seqlens_kv)} sequences): both hold B + 1 "
                         "offsets for the same B sequences; pass a key offset for every query offset")
    for name, total, lengths, cu in (("total_q", total_q, seqlens_q, "cu_seqlens_q"),
                                     ("total_kv", total_kv, seqlens_kv, "cu_seqlens_kv")):
        if total is not None and sum(lengths) != _as_int(name, total, "a token count"):
            raise ValueError(f"{cu} spans {sum(lengths)} tokens ({cu}[-1] - {cu}[0]) but {name} = {total}: "
                             "the offsets must cover exactly the tokens of the packed tensor; fix the last "
                             "offset or pass the matching view of the tensor")
    problem = make_ragged_problem(seqlens_q, seqlens_kv, token_offset_q=base_q, token_offset_kv=base_kv, **kwargs)
    return problem.validate()


def ragged_problem_of(q, k, v, o, do, stats, dq, dk, dv, *, cu_seqlens_q, cu_seqlens_kv,
                      stats_form: str = "h_t", **attrs) -> RaggedProblem:
    """Describe torch tensors (buffers named by their storage) as a validated ragged problem."""
    seqlens_q, base_q = lengths_of("cu_seqlens_q", cu_seqlens_q)
    seqlens_kv, base_kv = lengths_of("cu_seqlens_kv", cu_seqlens_kv)
    specs = {n: TensorSpec.of(t) for n, t in zip(TENSORS, (q, k, v, o, do, stats, dq, dk, dv))}
    return RaggedProblem(seqlens_q=seqlens_q, seqlens_kv=seqlens_kv, **specs, stats_form=stats_form,
                         token_offset_q=base_q, token_offset_kv=base_kv, **attrs).validate()
