"""Measure an engine's errors against the oracle, raw, to derive tolerance classes.

For every executed case of a level, and every output, records the engine's
max error against the float64 oracle, the same-dtype reference's max error,
max |oracle| and the reduction length, so that

    ratio = err / ref_err            (what k must exceed)
    ulps  = err / (eps * max|oracle| * sqrt(reduction))   (what the floor must exceed)

can be read per dtype, head dim and reduction length. ``data/tolerances.toml``
cites the numbers this produced.

    python -m sdpa_bwd.conformance.plan.tolerance_survey --engine triton --level nightly --out survey.jsonl
"""

from __future__ import annotations

import argparse
import json
import math
import sys
import time

import torch


def survey_case(engine, case) -> list[dict]:
    from ...problem import oracle
    from ..compare import EPS
    from ...problem import OUTPUTS
    from ..tensors import TORCH_DTYPE, materialize
    from ..tolerance import reduction_length

    problem = case.to_problem().validate()
    if engine.not_supported_reasons(problem):
        return []
    attrs = dict(scale=problem.effective_scale, left_bound=problem.left_bound,
                 right_bound=problem.right_bound, alignment=problem.alignment)
    m = materialize(problem, seed=case.seed, device=engine.device())
    t = m.tensors
    want = oracle.backward(t.q, t.k, t.v, t.o, t.do, t.stats, **attrs)
    ref = oracle.backward(t.q, t.k, t.v, t.o, t.do, t.stats, compute_dtype=TORCH_DTYPE[problem.dtype], **attrs)
    engine.backward(problem, t)
    rows = []
    for i, name in enumerate(OUTPUTS):
        got = getattr(t, name).to(torch.float64)
        w = want[i].to(torch.float64)
        err = float((got - w).abs().nan_to_num(math.inf).max())
        ref_err = float((ref[i].to(torch.float64) - w).abs().max())
        amax = float(w.abs().max())
        n = reduction_length(problem, name)
        unit = EPS[problem.dtype] * max(amax, 1e-6) * math.sqrt(max(n, 1))
        rows.append({"case": case.id, "level": case.level, "tensor": name, "dtype": problem.dtype,
                     "D_qk": problem.D_qk, "D_v": problem.D_v, "reduction": n, "err": err, "ref_err": ref_err,
                     "amax": amax, "ratio": err / ref_err if ref_err else (0.0 if err == 0 else math.inf),
                     "ulps": err / unit, "ref_ulps": ref_err / unit})
    return rows


def main(argv=None) -> int:
    from ...backends import get_engine
    from . import load_level

    parser = argparse.ArgumentParser(prog="python -m sdpa_bwd.conformance.plan.tolerance_survey", description=__doc__)
    parser.add_argument("--engine", required=True)
    parser.add_argument("--level", default="standard")
    parser.add_argument("--out", required=True, help="JSON lines, one per (case, output)")
    parser.add_argument("--max-bytes", type=int, default=None, help="skip cases over this many bytes (cost model)")
    args = parser.parse_args(argv)
    from .cost import case_cost

    engine = get_engine(args.engine)
    started = time.time()
    with open(args.out, "w", encoding="utf-8") as out:
        for case in load_level(args.level):
            if case.purpose == "probe" or (args.max_bytes and case_cost(case).bytes > args.max_bytes):
                continue
            try:
                rows = survey_case(engine, case)
            except Exception as exc:  # record and go on: a survey, not a verdict
                rows = [{"case": case.id, "error": f"{type(exc).__name__}: {exc}"[:300]}]
            for row in rows:
                out.write(json.dumps(row) + "\n")
            out.flush()
    print(f"{args.engine} {args.level}: done in {time.time() - started:.1f} s", file=sys.stderr)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
