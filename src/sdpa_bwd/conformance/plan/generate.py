"""The generator: the only author of the plan's bundles.

``build_plan()`` declares every case from the axes, the catalog, the probes
and the regressions, places each at a level with the cost model, and returns
them in run order. ``write_bundles()`` writes them as one JSON bundle per
level under ``data/plan/v1/``; ``check_bundles()`` says how the files on disk
differ from what the generator writes now (CI runs it: nobody edits a bundle
by hand). ``exhaustive()`` enumerates a declared sub-space fully.

Sweeps, in the order they are run within a level:

``probe-*``    ill-formed problems (``probes.py``), quick.
``reg-*``      one or more per defect class (``regressions.py``).
``order-*``    back-to-back groups that differ in one tensor's strides, the values
               or the dtype only (``order_probes.py``), quick.
``pair-NNN``   the pairwise rows over every axis (``pairwise.py``): rows
               0-19 asked for quick, 20-79 for standard, the rest nightly.
``mask-*``     band bounds at and around their edges, both alignments,
               S_q = S_kv, S_q < S_kv and S_q > S_kv; standard.
``scale-*``    every scale value (and 0, 1, 10) in every dtype; standard.
``stats-*``    every stats layout, with and without empty rows; standard.
``one-*``      one tensor's storage varied at a time, the others packed, so
               consecutive cases differ in exactly one tensor's strides
               (issue 5's order effects); nightly.
``dims-*``     every head-dim pair x dtype x {none, causal}; nightly.
``cat-*``      real models' shapes (``catalog.py``); nightly and full.
``big-*``      every storage value at GPU sizes; full.
"""

from __future__ import annotations

import json
import zlib
from dataclasses import replace
from itertools import product
from pathlib import Path
from typing import Iterable, Optional

from ...problem.cases import Case
from ...problem.layout import Storage
from ...problem import TENSORS
from . import axes as ax
from .catalog import CATALOG, NIGHTLY_SEQ
from .cost import LEVELS, LIMITS, assign_level, case_cost
from .legality import RULES, violations
from .pairwise import generate_rows
from .order_probes import order_probes
from .probes import probes
from .regressions import regressions

SCHEMA_ID = "sdpa-bwd-plan/1"
VERSION = "v1"
BUNDLE_DIR = Path(__file__).resolve().parents[2] / "data" / "plan" / VERSION
PAIRWISE_QUICK, PAIRWISE_STANDARD = 20, 80


def stable_seed(case_id: str) -> int:
    """A seed that depends on the id alone, so regenerating never reshuffles values."""
    return zlib.crc32(case_id.encode()) & 0x7FFFFFFF


def _case(cid: str, purpose: str = "claim", **fields) -> Case:
    fields.setdefault("seed", stable_seed(cid))
    return Case(id=cid, purpose=purpose, **fields)


# -- sweeps -------------------------------------------------------------------------

def pairwise_cases() -> list[tuple[Case, str]]:
    out = []
    for i, row in enumerate(generate_rows()):
        requested = "quick" if i < PAIRWISE_QUICK else "standard" if i < PAIRWISE_STANDARD else "nightly"
        out.append((_case(f"pair-{i:03d}", covers=ax.covers_of(row), **ax.assignment_fields(row)), requested))
    return out


def _edges(low: int, edge: int) -> list[int]:
    """A bound's values at and around its edges: the minimum, one above, and edge-1..edge+1."""
    return sorted({v for v in (low, low + 1, edge - 1, edge, edge + 1) if v >= low})


def mask_edge_cases() -> list[tuple[Case, str]]:
    """Bounds at and around the values where the band starts or stops cutting.

    With shift = S_kv - S_q (bottom-right) or 0: the left bound cuts nothing
    once L >= S_q + shift, the right bound once R >= S_kv - 1 - shift.
    """
    out = []
    for (S_q, S_kv), alignment in product(((24, 24), (16, 40), (40, 16)), ("top_left", "bottom_right")):
        shift = S_kv - S_q if alignment == "bottom_right" else 0
        left_edge, right_edge = max(1, S_q + shift), max(0, S_kv - 1 - shift)
        bands = [(L, None) for L in _edges(1, left_edge)] + [(None, R) for R in _edges(0, right_edge)]
        bands += [(1, 0), (2, 1), (left_edge, right_edge), (left_edge + 1, 0)]
        seen = set()
        for L, R in bands:
            if (L, R) in seen:
                continue
            seen.add((L, R))
            tag = "tl" if alignment == "top_left" else "br"
            cid = f"mask-{tag}-{S_q}x{S_kv}-l{'none' if L is None else L}-r{'none' if R is None else R}"
            out.append((_case(cid, B=2, H_q=2, H_k=1, S_q=S_q, S_kv=S_kv, D_qk=32, left_bound=L, right_bound=R,
                              alignment=alignment, covers=("mask:edges",), storage={"q": Storage("bshd")}),
                        "standard"))
    return out


def scale_cases() -> list[tuple[Case, str]]:
    scales = dict(ax.SCALES)
    scales.update({"zero": 0.0, "one": 1.0, "ten": 10.0})
    out = []
    for (name, scale), dtype in product(scales.items(), ax.DTYPES):
        out.append((_case(f"scale-{name}-{dtype}", B=1, H_q=2, S_q=33, S_kv=40, D_qk=32, dtype=dtype, scale=scale,
                          right_bound=0, alignment="bottom_right", covers=(f"scale={name}",)), "standard"))
    return out


def stats_cases() -> list[tuple[Case, str]]:
    out = []
    for (name, (rank, storage)), empty in product(ax.STATS.items(), (False, True)):
        S_q, S_kv = (40, 24) if empty else (33, 33)
        out.append((_case(f"stats-{name}" + ("-empty-rows" if empty else ""), B=2, H_q=3, S_q=S_q, S_kv=S_kv,
                          D_qk=32, stats_rank=rank, storage={"stats": storage},
                          right_bound=0 if empty else None, alignment="bottom_right" if empty else "top_left",
                          covers=(f"stats={name}",) + (("mask=empty-rows",) if empty else ())), "standard"))
    return out


def one_tensor_cases() -> list[tuple[Case, str]]:
    """Each tensor's storage alone; consecutive cases differ in one tensor's strides only."""
    out = []
    base = dict(B=2, H_q=4, H_k=2, S_q=96, S_kv=80, D_qk=64, right_bound=0, alignment="bottom_right")
    out.append((_case("one-all-packed", covers=("storage:control",), **base), "nightly"))
    for tensor in ax.TENSOR_AXES:
        for value, storage in ax.STORAGE.items():
            if value == "bhsd" or violations({tensor: value}):
                continue
            out.append((_case(f"one-{tensor}-{value}", covers=(f"{tensor}={value}",),
                              storage={tensor: storage}, **base), "nightly"))
    for value, (rank, storage) in ax.STATS.items():
        if value == "packed3":
            continue
        out.append((_case(f"one-stats-{value}", covers=(f"stats={value}",), stats_rank=rank,
                          storage={"stats": storage}, **base), "nightly"))
    return out


def dims_cases() -> list[tuple[Case, str]]:
    out = []
    for (name, (D_qk, D_v)), dtype, causal in product(ax.HEAD_DIMS.items(), ax.DTYPES, (False, True)):
        cid = f"dims-{name.replace('/', '-')}-{dtype}" + ("-causal" if causal else "")
        out.append((_case(cid, B=2, H_q=4, H_k=2, S_q=130, S_kv=130, D_qk=D_qk, D_v=D_v, dtype=dtype,
                          right_bound=0 if causal else None, storage={n: Storage("bshd") for n in ("q", "k", "v")},
                          covers=(f"head_dim={name}", f"dtype={dtype}")), "nightly"))
    return out


def catalog_cases() -> list[tuple[Case, str]]:
    bshd = {n: Storage("bshd") for n in TENSORS if n != "stats"}
    out = []
    for model in CATALOG:
        for level, S in (("nightly", NIGHTLY_SEQ), ("full", model.train_seq)):
            if level == "nightly" and model.train_seq > 8192:
                continue  # the long-context model is the long case only
            B = 2 if level == "nightly" else 1
            out.append((_case(f"cat-{model.name}-s{S}", B=B, H_q=model.H_q, H_k=model.H_kv, S_q=S, D_qk=model.D_qk,
                              D_v=model.D_v, left_bound=model.window, right_bound=0, alignment="bottom_right",
                              storage=bshd, covers=(f"catalog:{model.name}",)), level))
        # Chunked prefill: a chunk of queries against a longer cache (S_q < S_kv, bottom-right).
        out.append((_case(f"cat-{model.name}-prefill-chunk", B=1, H_q=model.H_q, H_k=model.H_kv, S_q=128,
                          S_kv=1024, D_qk=model.D_qk, D_v=model.D_v, left_bound=model.window, right_bound=0,
                          alignment="bottom_right", storage=bshd, covers=(f"catalog:{model.name}", "seq:sq<skv")),
                    "full"))
    return out


def big_layout_cases() -> list[tuple[Case, str]]:
    """Every storage value on every tensor at a GPU size (GQA, causal, bf16)."""
    out = []
    base = dict(B=2, H_q=16, H_k=4, S_q=1024, D_qk=128, right_bound=0)
    for value, storage in ax.STORAGE.items():
        st = {t: storage for t in ax.TENSOR_AXES if not violations({t: value})}
        out.append((_case(f"big-{value}", covers=(f"storage:{value}",), storage=st, **base), "full"))
    for value, (rank, storage) in ax.STATS.items():
        out.append((_case(f"big-stats-{value}", covers=(f"stats={value}",), stats_rank=rank,
                          storage={"stats": storage, "q": Storage("sbhd"), "do": Storage("bshd", pad={"s": 8})},
                          **base), "full"))
    out.append((_case("big-sq-long-window", B=1, H_q=8, H_k=1, S_q=4096, S_kv=4096, D_qk=128, left_bound=257,
                      right_bound=0, alignment="bottom_right", storage={"q": Storage("sbhd")},
                      covers=("mask:window", "seq:long")), "full"))
    return out


# -- the plan ------------------------------------------------------------------------

def build_plan() -> list[Case]:
    """Every written case, level assigned, in run order (level, then sweep order)."""
    requested: list[tuple[Case, str]] = []
    requested += [(c, "quick") for c in probes()]
    requested += regressions()
    requested += order_probes()
    requested += pairwise_cases()
    requested += mask_edge_cases()
    requested += scale_cases()
    requested += stats_cases()
    requested += one_tensor_cases()
    requested += dims_cases()
    requested += catalog_cases()
    requested += big_layout_cases()
    placed = [replace(case, level=assign_level(case, level)) for case, level in requested]
    ids = [c.id for c in placed]
    dup = {i for i in ids if ids.count(i) > 1}
    if dup:
        raise AssertionError(f"duplicate case ids: {sorted(dup)}")
    order = {level: i for i, level in enumerate(LEVELS)}
    return sorted(placed, key=lambda c: order[c.level])  # stable: sweep order kept within a level


def bundle_dict(level: str, cases: Iterable[Case]) -> dict:
    cases = [c for c in cases if c.level == level]
    lim = LIMITS[level]
    return {"schema": SCHEMA_ID, "level": level, "version": VERSION,
            "generator": "sdpa_bwd.conformance.plan.generate (do not edit: `sdpa-bwd plan --write` regenerates)",
            "memory_budget_bytes": lim.case_bytes, "max_case_bytes": max((case_cost(c).bytes for c in cases), default=0),
            "count": len(cases), "cases": [c.to_dict() for c in cases]}


def render_bundle(bundle: dict) -> str:
    """One case per line: diffs of a regenerated bundle read case by case."""
    head = {k: v for k, v in bundle.items() if k != "cases"}
    lines = ["{"] + [f" {json.dumps(k)}: {json.dumps(v)}," for k, v in head.items()]
    lines.append(' "cases": [')
    body = [f"  {json.dumps(c, sort_keys=True)}" for c in bundle["cases"]]
    lines.append(",\n".join(body))
    lines += [" ]", "}"]
    return "\n".join(lines) + "\n"


def rendered_bundles(cases: Optional[list[Case]] = None) -> dict[str, str]:
    cases = build_plan() if cases is None else cases
    return {f"{level}.json": render_bundle(bundle_dict(level, cases)) for level in LEVELS}


def write_bundles(directory: Path = BUNDLE_DIR) -> list[Path]:
    directory.mkdir(parents=True, exist_ok=True)
    written = []
    for name, text in rendered_bundles().items():
        path = directory / name
        path.write_text(text, encoding="utf-8")
        written.append(path)
    return written


def check_bundles(directory: Path = BUNDLE_DIR) -> list[str]:
    """What differs between the bundles on disk and the generator's output (empty: none)."""
    problems = []
    expected = rendered_bundles()
    for name, text in expected.items():
        path = directory / name
        if not path.exists():
            problems.append(f"{path}: missing (run `sdpa-bwd plan --write`)")
            continue
        on_disk = path.read_text(encoding="utf-8")
        if on_disk != text:
            want = {json.loads(l.rstrip(",")).get("id") for l in text.splitlines() if l.startswith("  {")}
            have = {json.loads(l.rstrip(",")).get("id") for l in on_disk.splitlines() if l.startswith("  {")}
            detail = []
            if want - have:
                detail.append(f"{len(want - have)} cases missing, e.g. {sorted(want - have)[:3]}")
            if have - want:
                detail.append(f"{len(have - want)} cases not from the generator, e.g. {sorted(have - want)[:3]}")
            if not detail:
                detail.append("case contents or header differ")
            problems.append(f"{path}: drifted from the generator ({'; '.join(detail)}); "
                            "regenerate with `sdpa-bwd plan --write`, never edit bundles by hand")
    extra = sorted(p.name for p in directory.glob("*.json")
                   if p.name not in expected and not p.name.endswith(".schema.json"))
    problems += [f"{directory / n}: not written by the generator" for n in extra]
    return problems


# -- exhaustive mode -------------------------------------------------------------------
# Declared sub-spaces, enumerated fully (for nightly machines with time to
# spare): each names the axes it varies and their values; every other field
# is the base case's.

def _exh_orders() -> Iterable[Case]:
    """Every order of Q, K, V, dO and dQ among the six that keep the head dim innermost: 6^5."""
    orders = ("bhsd", "bshd", "hbsd", "hsbd", "sbhd", "shbd")
    for combo in product(orders, repeat=5):
        st = dict(zip(("q", "k", "v", "do", "dq"), (Storage(o) for o in combo)))
        yield _case("exh-orders-" + "-".join(combo), B=2, H_q=2, S_q=17, S_kv=19, D_qk=16, storage=st,
                    covers=("exhaustive:orders",))


def _exh_bands() -> Iterable[Case]:
    """Every band of cuDNN's semantics on small lengths: S_q, S_kv in 1..6, every L, R, both alignments."""
    for S_q, S_kv, alignment in product(range(1, 7), range(1, 7), ("top_left", "bottom_right")):
        for L, R in product([None] + list(range(1, S_q + S_kv + 1)), [None] + list(range(0, S_q + S_kv))):
            yield _case(f"exh-bands-{S_q}x{S_kv}-{alignment[0]}{alignment.split('_')[1][0]}-l{L}-r{R}",
                        B=1, H_q=1, S_q=S_q, S_kv=S_kv, D_qk=16, left_bound=L, right_bound=R,
                        alignment=alignment, covers=("exhaustive:bands",))


def _exh_heads() -> Iterable[Case]:
    """Every head grouping with H_q <= 8: H_k and H_v each any divisor of H_q."""
    for H_q in range(1, 9):
        divisors = [d for d in range(1, H_q + 1) if H_q % d == 0]
        for H_k, H_v in product(divisors, divisors):
            yield _case(f"exh-heads-{H_q}-{H_k}-{H_v}", B=2, H_q=H_q, H_k=H_k, H_v=H_v, S_q=19, D_qk=16,
                        storage={"v": Storage("bshd"), "dv": Storage("sbhd")}, covers=("exhaustive:heads",))


def _exh_small_axes() -> Iterable[Case]:
    """The full product of dtype x heads x mask x scale x deterministic x stats on one small shape."""
    names = ("dtype", "heads", "mask", "scale", "deterministic", "stats")
    fixed = {"head_dim": "32", "batch": "2", "seq": "65/33", **{t: "bshd" for t in ax.TENSOR_AXES}}
    for values in product(*(ax.AXES[n] for n in names)):
        row = dict(fixed, **dict(zip(names, values)))
        if violations(row):
            continue
        yield _case("exh-small-" + "-".join(v.replace("/", "_") for v in values), covers=("exhaustive:small-axes",),
                    **ax.assignment_fields(row))


EXHAUSTIVE = {
    "orders": (_exh_orders, "storage orders of Q, K, V, dO, dQ (6^5 = 7776)"),
    "bands": (_exh_bands, "every band on S_q, S_kv <= 6, both alignments"),
    "heads": (_exh_heads, "every H_q <= 8 with every H_k, H_v dividing it"),
    "small-axes": (_exh_small_axes, "dtype x heads x mask x scale x deterministic x stats, legal ones"),
}


def exhaustive(subspace: str) -> list[Case]:
    if subspace not in EXHAUSTIVE:
        raise ValueError(f"no exhaustive sub-space {subspace!r}; declared: {', '.join(EXHAUSTIVE)}")
    return list(EXHAUSTIVE[subspace][0]())
