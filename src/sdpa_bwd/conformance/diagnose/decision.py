"""The decision table: every defect class scores the evidence; the best named class, or "unclassified"."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable, Optional

from ...problem.cases import Case
from ...problem.layout import Storage
from ...problem import OUTPUTS, TENSORS
from ...backends import Engine
from .controls import is_packed_case
from .evidence import Evidence, gather_evidence

# A class needs this much evidence to be named; below it the answer is "unclassified".
THRESHOLD = 4
# The runner's failing verdicts (judge.FAILING) that a diagnosis can start from; a probe the engine
# accepted or an invalid case is not an engine's wrong answer.
REPORT_FAILURES = ("failed", "error", "fault", "order-dependent", "nondeterministic")


# ----------------------------------------------------------------------------
# The decision table


@dataclass(frozen=True)
class DefectClass:
    name: str
    symptom: str
    next_step: str
    rule: Callable[[Evidence], list]


def _storage_dependent(e: Evidence) -> bool:
    return e.baseline == "passed"


def _dtype_independent(e: Evidence) -> list:
    return [(-2, "the same case in float32 passes: the defect depends on the element size")] \
        if e.float32 == "passed" else []


def _q_batch_stride(case: Case) -> int:
    return case.to_problem().q.strides[0]


def _rule_lse_base(e: Evidence) -> list:
    out = []
    z = e.case.sizes
    derived = _q_batch_stride(e.case) // z["D_qk"]
    if z["B"] == 1:
        out.append((-3, "B = 1: a wrong batch base cannot show"))
    elif derived == z["H_q"] * z["S_q"]:
        out.append((-3, f"Q's batch stride / D_qk = {derived} = H_q x S_q: a stats base taken from it is right here"))
    else:
        out.append((1, f"Q's batch stride / D_qk = {derived} != H_q x S_q = {z['H_q'] * z['S_q']}"))
    if "q" in e.triggers:
        out.append((3, "Q stored as in the case fails alone (every other tensor packed)"))
    others = [t for t in e.triggers if t not in ("q", "stats")]
    if others:
        out.append((-2, f"tensors other than Q and the stats fail alone too: {others}"))
    if e.pattern_everywhere("every batch after the first"):
        out.append((2, "batch 0 is right and every later batch is wrong, in every failing output"))
    if e.failing == set(OUTPUTS):
        out.append((1, "dQ, dK and dV all fail (P is wrong: the stats are read from the wrong place)"))
    if e.failing == {"dq"}:
        out.append((-3, "only dQ fails; a wrong stats base would break dK and dV too"))
    if e.baseline == "failed":
        out.append((-2, "every tensor packed BHSD fails too: not layout-specific"))
    return out + _dtype_independent(e)


def _rule_dq_accum(e: Evidence) -> list:
    out = []
    z = e.case.sizes
    if z["B"] == 1:
        out.append((-3, "B = 1: a wrong batch term cannot show"))
    elif _q_batch_stride(e.case) == z["H_q"] * z["S_q"] * z["D_qk"]:
        out.append((-3, "Q's batch stride is the packed H_q x S_q x D_qk: an accumulator batch term from it is right"))
    if e.failing == {"dq"}:
        out.append((3, "only dQ fails; dK and dV pass"))
    if "q" in e.triggers:
        out.append((2, "Q stored as in the case fails alone: the dQ accumulator's batch term follows Q's batch stride"))
    if "dq" in e.triggers:
        out.append((-1, "dQ stored as in the case fails alone: its own strides matter, not only Q's"))
    if e.like.get("dQ like Q") == "passed":
        out.append((-3, "storing dQ like Q makes it pass"))
    if e.baseline == "failed":
        out.append((-2, "every tensor packed BHSD fails too"))
    return out + _dtype_independent(e)


def _rule_head_dim(e: Evidence) -> list:
    out = []
    p = e.case.to_problem()
    if all(p.tensor(n).strides[3] == 1 or p.tensor(n).dims[3] == 1 for n in OUTPUTS + ("q", "k", "v", "o", "do")):
        out.append((-3, "every head-dim stride is 1"))
    hits = e.feature_passes("inner stride")
    if hits:
        out.append((5, f"the inner (head-dim) stride set to 1 makes it pass: {hits}"))
    elif e.case and any(e.case.storage_of(n).inner_stride != 1 for n in TENSORS):
        out.append((1, "the case has a head-dim stride other than 1"))
    if e.nan or e.outside_writes or e.unwritten:
        out.append((1, "garbage reads or stray writes: NaN, writes outside or unwritten elements"))
    return out + _dtype_independent(e)


def _short_row_tensors(case: Case) -> list[str]:
    problem = case.to_problem()
    out = []
    for n in ("q", "k", "v", "o", "do", "dq", "dk", "dv"):
        spec = problem.tensor(n)
        S, D = spec.dims[2], spec.dims[3]
        ss, sd = spec.strides[2], spec.strides[3]
        if (S - 1) * ss + (D - 1) * sd >= S * ss:
            out.append(n)
    return out


def _rule_short_rows(e: Evidence) -> list:
    out = []
    short = _short_row_tensors(e.case)
    if short:
        out.append((2, f"sequence stride below the row's span (S x stride ends inside the last row) in {short}"))
        hit = [t for t in e.triggers if t in short]
        if hit:
            out.append((2, f"those tensors fail alone: {hit}"))
        fixed = e.feature_passes("explicit strides") + e.feature_passes("order")
        if fixed:
            out.append((1, f"ordinary strides make it pass: {fixed}"))
    else:
        out.append((-2, "no tensor has a sequence stride shorter than its rows"))
    if e.pattern_everywhere("last row of each slice"):
        out.append((2, "only the last row of each slice is wrong"))
    return out + _dtype_independent(e)


def _odd_record_tensors(case: Case) -> list[str]:
    p = case.to_problem()
    if p.dtype == "float32":
        return []
    out = []
    for n in ("q", "k", "v", "do", "dk", "dv"):
        spec = p.tensor(n)
        axes = (1, 2) if n in ("dk", "dv") else (2,)
        if any(spec.strides[a] % 2 and spec.dims[a] > 1 for a in axes):
            out.append(n)
    return out


def _rule_odd_stride(e: Evidence) -> list:
    out = []
    odd = _odd_record_tensors(e.case)
    if odd:
        out.append((1, f"2-byte tensors with an odd stride on a record-indexed axis: {odd}"))
    else:
        out.append((-3, "no 2-byte tensor has an odd sequence stride (or an odd dK/dV head stride)"))
    parity = e.feature_passes("parity flipped")
    if parity:
        out.append((3, f"flipping the parity of the padded stride makes it pass: {parity}"))
    if e.float32 == "passed":
        out.append((2, "the same case in float32 (4-byte elements) passes"))
    elif e.float32 == "failed":
        out.append((-2, "the same case in float32 fails too"))
    alone = set(e.triggers)
    if alone and alone <= {"q", "k", "v", "do", "dk", "dv"}:
        out.append((1, f"the tensors that fail alone are among those DQDKDV indexes in records: {sorted(alone)}"))
    if any("one element early" in p for l in e.loc.values() for p in l.patterns):
        out.append((1, "values sit one element early"))
    if e.case.dtype == "float32":
        out.append((-3, "float32 elements are whole records"))
    return out


def _rule_stats_ignored(e: Evidence) -> list:
    out = []
    if "stats" in e.triggers:
        out.append((3, "the stats stored as in the case fail alone (every other tensor packed)"))
        fixed = [f for f in e.feature_passes("") if f.startswith("stats:")]
        if fixed:
            out.append((1, f"removing a stats storage feature makes it pass: {fixed}"))
    if e.case.storage_of("stats") == Storage() and "stats" not in dict(e.case.strides):
        out.append((-3, "the case's stats are packed"))
    if "q" in e.triggers:
        out.append((-2, "Q's storage alone also fails"))
    if e.pattern_everywhere("every batch after the first") and "stats" in e.triggers:
        out.append((-1, "batch 0 is right: the stats' head and row strides are honoured"))
    return out + _dtype_independent(e)


def _rule_stats_swapped(e: Evidence) -> list:
    out = []
    B, H = e.case.sizes["B"], e.case.sizes["H_q"]
    if B == 1 and H == 1:
        out.append((-4, "B = H = 1: swapped batch and head strides cannot show"))
    if e.baseline == "failed" or is_packed_case(e.case):
        out.append((2, "fails with every tensor packed BHSD: not a layout of the case"))
    elif e.baseline == "passed" and B > 1 and H > 1:
        out.append((-3, "passes with every tensor packed BHSD, where swapped strides would fail"))
    if e.pattern_everywhere("every slice after the first"):
        out.append((3, "slice (batch 0, head 0) is right, the other slices wrong"))
    if e.failing == set(OUTPUTS):
        out.append((1, "dQ, dK and dV all fail (P is wrong)"))
    if e.failing and e.failing != set(OUTPUTS):
        out.append((-2, f"only {sorted(e.failing)} fail"))
    return out + _dtype_independent(e)


def _rule_v_heads(e: Evidence) -> list:
    z = e.case.sizes
    if z["H_k"] == z["H_v"]:
        return [(-4, "H_k == H_v: V's head count cannot be confused with K's")]
    out = [(2, f"H_k = {z['H_k']} != H_v = {z['H_v']}")]
    if any(b for b in e.outside_writes if "dv" in b) or "dv" in e.unwritten:
        out.append((3, "dV's buffer is written outside its heads, or dV heads are left unwritten"))
    if "dv" in e.failing:
        out.append((1, "dV fails"))
    return out + _dtype_independent(e)


def _rule_aliased(e: Evidence) -> list:
    out = []
    if e.hyp.get("dV holds the oracle's dK") or e.hyp.get("dK holds the oracle's dV"):
        out.append((5, "one gradient's buffer holds the other gradient's values"))
    for n in ("dk", "dv"):
        if n in e.loc and "never written" in e.loc[n].patterns:
            out.append((2, f"{n} is never written at all"))
    return out


def _rule_do_o(e: Evidence) -> list:
    out = []
    if e.like.get("dO like O") == "passed":
        out.append((4, "storing dO like O makes it pass"))
    elif e.like.get("dO like O") == "failed":
        out.append((-2, "storing dO like O still fails"))
    else:
        out.append((-2, "dO is stored like O in this case"))
    if e.triggers and set(e.triggers) <= {"do", "o"}:
        out.append((1, f"only {sorted(e.triggers)} fail alone"))
    return out + _dtype_independent(e)


def _rule_layout_assumed(e: Evidence) -> list:
    if e.baseline == "passed":
        return [(-4, "passes with every tensor packed BHSD: no tensor's layout is assumed")]
    passing = [n for n, v in e.bshd_alone.items() if v == "passed"]
    if not passing:
        return [(-3, "no tensor stored BSHD alone makes it pass")] if e.bshd_alone else []
    return [(5, f"fails with every tensor packed BHSD and passes with only {' or '.join(passing)} stored BSHD: "
                f"{passing[0]} is read as BSHD whatever its strides")] + _dtype_independent(e)


def _rule_dq_q(e: Evidence) -> list:
    out = []
    if e.like.get("dQ like Q") == "passed":
        out.append((4, "storing dQ like Q makes it pass"))
    elif "dQ like Q" not in e.like:
        out.append((-2, "dQ is stored like Q in this case"))
    if e.failing == {"dq"}:
        out.append((1, "only dQ fails"))
    if e.triggers and set(e.triggers) <= {"dq", "q"}:
        out.append((1, f"only {sorted(e.triggers)} fail alone"))
    return out + _dtype_independent(e)


def _rule_scale(e: Evidence) -> list:
    p = e.case.to_problem()
    if p.effective_scale > 0:
        return [(-4, "the scale is positive")]
    out = [(2, f"scale = {p.effective_scale:g} <= 0")]
    hits = [k for k, v in e.hyp.items() if "scale" in k and v]
    if hits:
        out.append((4, "; ".join(hits)))
    return out


def _rule_low_precision(e: Evidence) -> list:
    out = []
    if e.case.dtype == "float32":
        return [(-4, "float32 inputs")]
    if e.float32 == "passed":
        out.append((2, "the same case in float32 passes"))
    elif e.float32 == "failed":
        out.append((-2, "the same case in float32 fails too"))
    locs = [e.loc[n] for n in e.failing if n in e.loc]
    # A 16-bit accumulator drifts every element a little (its bias grows with the reduction length);
    # misaddressing puts whole values in the wrong place, and a point defect touches few elements.
    if locs and all(l.nan == 0 and l.unwritten == 0 and l.spread >= 0.2 for l in locs):
        out.append((2, f"every failing output drifts over most elements (>= {min(l.spread for l in locs):.0%} off by "
                       "a tenth of the tolerance), no NaN, nothing unwritten"))
    elif locs and any(l.nan or l.unwritten for l in locs):
        out.append((-3, "NaN or unwritten elements: not a rounding problem"))
    if locs and all(l.rel_err < 0.5 for l in locs):
        out.append((1, f"relative L2 error {max(l.rel_err for l in locs):.3f}: a drift, not misplaced values"))
    elif locs:
        out.append((-1, "relative L2 error of the order of the values"))
    if e.outside_writes:
        out.append((-2, "writes outside the tensors"))
    if e.baseline == "failed" or is_packed_case(e.case):
        out.append((1, "independent of the storage"))
    elif e.baseline == "passed":
        out.append((-2, "passes with every tensor packed BHSD: rounding does not depend on the layout"))
    if len(e.failing) == 1:
        out.append((1, f"only {next(iter(e.failing))} fails (one accumulator)"))
    return out


def _rule_tail(e: Evidence) -> list:
    out = []
    tails = [f"{n}: {p}" for n, l in e.loc.items() for p in l.patterns if "unwritten (the tail" in p]
    if tails:
        out.append((5, "unwritten rows are exactly a trailing partial tile: " + "; ".join(tails)))
    elif not e.unwritten:
        out.append((-2, "nothing is left unwritten"))
    return out


def _rule_alignment(e: Evidence) -> list:
    p = e.case.to_problem()
    if not p.has_mask:
        return [(-4, "no mask")]
    out = []
    if p.S_q != p.S_kv:
        out.append((1, f"a band mask with S_q = {p.S_q} != S_kv = {p.S_kv}"))
    else:
        out.append((-3, "S_q == S_kv: both alignments are the same band"))
    hits = [k for k, v in e.hyp.items() if "alignment" in k and v]
    if hits:
        out.append((5, hits[0]))
    return out


def _rule_stale(e: Evidence) -> list:
    out = []
    if e.report_verdict == "order-dependent":
        out.append((3, "the runner already found it order-dependent (failed in sequence, passed alone)"))
    if e.fresh_verdict == "passed" and (e.repro.failed or e.report_verdict in REPORT_FAILURES):
        out.append((6, "fails after other cases ran in the same process, passes alone in a fresh process"))
    elif e.fresh_verdict == "failed":
        out.append((-3, "fails alone in a fresh process too"))
    if not e.repro.failed and e.report_verdict in REPORT_FAILURES:
        out.append((2, "failed in the report, passes when reproduced here"))
    if e.rerun_identical is False:
        out.append((1, "two runs in this process differ"))
    return out


DECISION_TABLE: tuple[DefectClass, ...] = (
    DefectClass("lse-base-from-layout",
                "side buffer (LSE/D) base derived from a layout stride: SBHD fails, BSHD and BHSD pass, D passes",
                "rerun with Q stored BSHD and SBHD, every other tensor packed: only SBHD (or padded Q) may fail; "
                "audit the stats/delta base: it must be (b * H_q + h) * S_q from the dims",
                _rule_lse_base),
    DefectClass("dq-accum-batch-term",
                "the fp32 dQ accumulator has its own batch term from Q's batch stride: only dQ fails, for SBHD Q",
                "rerun with Q SBHD and every other tensor packed: only dQ must fail; audit the dq_accum base",
                _rule_dq_accum),
    DefectClass("head-dim-stride-ignored", "the head-dim stride is read as 1",
                "rerun with one tensor's inner stride 2 at a time; audit the d-axis stride arguments",
                _rule_head_dim),
    DefectClass("short-rows-cut", "a (batch, head) slice is cut at S x sequence stride",
                "rerun with the short-stride tensor given ordinary strides; then with the stride 1 on a length-1 axis",
                _rule_short_rows),
    DefectClass("odd-stride-4byte", "offsets taken in 4-byte records: odd strides of 2-byte tensors one element early",
                "rerun with the padding made even, and in float32: both must pass; audit the record index (offset >> 2)",
                _rule_odd_stride),
    DefectClass("stats-strides-ignored", "the stats are read as packed whatever their strides",
                "rerun with the stats packed, then padded on one axis at a time",
                _rule_stats_ignored),
    DefectClass("stats-batch-head-swapped", "the stats' batch and head strides are swapped",
                "rerun with B = 1, H = 1 (must pass), B = 2, H = 1 and B = 1, H = 2 (must fail)",
                _rule_stats_swapped),
    DefectClass("v-with-k-heads", "V and dV addressed with K's head count",
                "rerun with H_v = H_k (must pass), then H_k = H_q > H_v; audit the V/dV head index",
                _rule_v_heads),
    DefectClass("aliased-outputs", "one output written through another's pointer",
                "give dK and dV different dims (D_v != D_qk) and rerun; audit the output pointers",
                _rule_aliased),
    DefectClass("do-with-o-strides", "dO addressed with O's strides",
                "rerun with dO stored like O (must pass) and with only dO's storage changed (must fail)",
                _rule_do_o),
    DefectClass("layout-assumed",
                "a tensor read as if stored BSHD whatever its strides (PyTorch's memory-efficient backward reads O "
                "at a token stride of H x D_v)",
                "rerun with that tensor stored BSHD (must pass), then BHSD and SBHD (must fail); audit its token "
                "stride: it must come from the tensor, not from the dims",
                _rule_layout_assumed),
    DefectClass("dq-with-q-strides", "dQ addressed with Q's strides",
                "rerun with dQ stored like Q (must pass) and with only dQ's storage changed (must fail)",
                _rule_dq_q),
    DefectClass("non-positive-scale", "a scale <= 0 is not honoured",
                "rerun the case with scale = |scale|: it must pass; then with scale = 0",
                _rule_scale),
    DefectClass("low-precision-accumulator", "an accumulator kept in 16 bits",
                "rerun in float32 (must pass) and with a longer S (the error must grow faster than the tolerance)",
                _rule_low_precision),
    DefectClass("unwritten-tail-tile", "the last partial tile is not stored",
                "rerun with S a multiple of the tile (must pass) and S = tile + 1",
                _rule_tail),
    DefectClass("wrong-causal-alignment", "top-left and bottom-right alignment swapped",
                "rerun with S_q == S_kv (must pass) and with the other alignment",
                _rule_alignment),
    DefectClass("stale-state", "order-dependent: state left by an earlier case",
                "run the report's preceding cases and this one in one fresh process: it must fail; alone it passes",
                _rule_stale),
)
CLASS_NAMES = tuple(c.name for c in DECISION_TABLE) + ("unclassified",)


@dataclass
class Verdict:
    name: str
    score: int
    evidence: list
    next_step: str


def classify(e: Evidence) -> list[Verdict]:
    """Every class scored on the evidence, best first; 'unclassified' placed by THRESHOLD."""
    if not e.repro.failed and e.report_verdict not in REPORT_FAILURES:
        return [Verdict("unclassified", THRESHOLD, ["the case passes: nothing to classify"],
                        "check the case id, engine and source of the failure")]
    scored = []
    for c in DECISION_TABLE:
        items = c.rule(e)
        score = sum(w for w, _ in items)
        scored.append(Verdict(c.name, score, [f"{'+' if w > 0 else ''}{w} {text}" for w, text in items], c.next_step))
    scored.sort(key=lambda v: -v.score)
    floor = Verdict("unclassified", THRESHOLD - 1,
                    [f"no class scored {THRESHOLD} or more"] + [f"{x}" for x in _summary_facts(e)],
                    "read the localisation table and the heatmap; add a class to DECISION_TABLE if it is new")
    ranked = [v for v in scored if v.score >= THRESHOLD] + [floor] + [v for v in scored if v.score < THRESHOLD]
    return ranked


def _summary_facts(e: Evidence) -> list[str]:
    facts = [f"failing outputs: {sorted(e.failing) or 'none'}", f"alone: {e.only}", f"baseline: {e.baseline}"]
    return facts


@dataclass
class Diagnosis:
    evidence: Evidence
    ranking: list

    @property
    def best(self) -> Verdict:
        return self.ranking[0]

    @property
    def runner_up(self) -> Verdict:
        """The best-scoring named class after the answer (``unclassified`` only marks the threshold)."""
        return next((v for v in self.ranking[1:] if v.name != "unclassified"), self.ranking[1])

    def to_dict(self) -> dict:
        return {"evidence": self.evidence.to_dict(),
                "ranking": [{"class": v.name, "score": v.score, "evidence": v.evidence, "next_step": v.next_step}
                            for v in self.ranking]}


def diagnose(engine: Engine, case: Case, *, engine_name: Optional[str] = None, replay: bool = True,
             report_verdict: Optional[str] = None) -> Diagnosis:
    e = gather_evidence(engine, case, engine_name=engine_name, replay=replay, report_verdict=report_verdict)
    return Diagnosis(e, classify(e))
