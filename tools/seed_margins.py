"""How close to its tolerance does one plan case sit, over fresh seeds?

    PYTHONPATH=src python3 tools/seed_margins.py pair-015 --seeds 60 [--engine triton] [--level full]

Runs the case with seeds 1000, 1001, ... (everything else as the plan declares it) and prints the
failures and the distribution of the smallest margin (tolerance / max error over dQ, dK, dV): a
case that passes with margin 0.95 on one seed and at least 2.6 on sixty others is not the same
finding as one that fails on a third of them. Without CUDA, the triton engine runs in Triton's
interpreter (set here).
"""

from __future__ import annotations

import argparse
import dataclasses
import os
import statistics


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("case")
    ap.add_argument("--seeds", type=int, default=30)
    ap.add_argument("--engine", default="triton")
    ap.add_argument("--level", default="full")
    args = ap.parse_args(argv)
    import torch

    if not torch.cuda.is_available():
        os.environ.setdefault("TRITON_INTERPRET", "1")
    from sdpa_bwd.backends import get_engine
    from sdpa_bwd.conformance.plan import load_level
    from sdpa_bwd.conformance.runner import run_case

    cases = {c.id: c for c in load_level(args.level)}
    if args.case not in cases:
        raise SystemExit(f"no case {args.case!r} in the {args.level} level: give a case id as run reports name them "
                         f"(e.g. pair-015), or another --level")
    engine = get_engine(args.engine)
    margins, failed = [], []
    for seed in range(1000, 1000 + args.seeds):
        r = run_case(engine, dataclasses.replace(cases[args.case], seed=seed))
        if r.verdict not in ("passed", "failed"):
            raise SystemExit(f"seed {seed}: {r.verdict}: {r.message}")
        margins.append(r.margin)
        if r.verdict == "failed":
            failed.append(seed)
    margins.sort()
    print(f"{args.case} on {args.engine} ({engine.device()}): {len(failed)} of {args.seeds} seeds failed {failed[:10]}; "
          f"smallest margin {margins[0]:.3f}, 10th percentile {margins[len(margins) // 10]:.3f}, "
          f"median {statistics.median(margins):.3f}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
