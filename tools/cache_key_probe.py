"""Why does a warm run recompile kernels it compiled before? Compare Triton's disk-cache keys
across fresh processes that run the same cases.

    PYTHONPATH=src python3 tools/cache_key_probe.py --cases pair-041,pair-006 --procs 8

Each child process runs the cases with the triton engine and records, for every kernel Triton's
``compile()`` is asked for (a disk-cache hit or a miss), the parts its cache key is made of
(``triton.runtime.cache.get_cache_key``: the kernel function's key, the specialisation
attributes, signature, constants, the backend, the options, the environment). The parent groups
the records by kernel and specialisation and prints every part that differs between processes:
a part that differs for one specialisation is why the disk cache misses. Needs a GPU.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
from collections import defaultdict


def child(case_ids: list[str]) -> int:
    import triton.compiler.compiler as cc
    from triton import knobs

    from sdpa_bwd.engine.compiles import key_parts
    from sdpa_bwd.backends import get_engine
    from sdpa_bwd.conformance.plan import load_level
    from sdpa_bwd.conformance.runner import run_case

    pending: dict = {}
    original = cc.get_cache_key

    def keyed(src, backend, backend_options, env_vars):
        key = original(src, backend, backend_options, env_vars)
        pending["parts"] = key_parts(src, backend, backend_options, env_vars)
        return key

    cc.get_cache_key = keyed
    records = []

    def listen(*, src, metadata, metadata_group, times, cache_hit):
        parts = pending.pop("parts", {})
        records.append({"name": src.name, "hit": cache_hit, "hash": metadata.get("hash"), **parts})

    knobs.compilation.listener = listen
    cases = {c.id: c for c in load_level("full")}
    engine = get_engine("triton")
    for cid in case_ids:
        result = run_case(engine, cases[cid])
        records.append({"case": cid, "verdict": result.verdict})
    print(json.dumps(records))
    return 0


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--cases", required=True)
    ap.add_argument("--procs", type=int, default=8)
    ap.add_argument("--child", action="store_true")
    args = ap.parse_args(argv)
    ids = args.cases.split(",")
    if args.child:
        return child(ids)
    procs = [subprocess.Popen([sys.executable, __file__, "--child", "--cases", args.cases],
                              stdout=subprocess.PIPE, text=True, env=dict(os.environ)) for _ in range(args.procs)]
    runs = []
    for p in procs:
        out, _ = p.communicate()
        lines = [ln for ln in out.splitlines() if ln.startswith("[")]
        runs.append(json.loads(lines[-1]) if lines else [])
    groups: dict = defaultdict(list)
    for i, records in enumerate(runs):
        for r in records:
            if "name" in r:
                groups[(r["name"], r.get("sig"), r.get("const"))].append((i, r))
    print(f"{len(runs)} processes; verdicts: {[[r for r in rs if 'case' in r] for rs in runs][:2]}")
    differing = 0
    for (name, _, consts), items in groups.items():
        hashes = {r["hash"] for _, r in items}
        hits = sum(r["hit"] for _, r in items)
        line = f"{name} {consts[:80]}: {len(items)} uses, {hits} hits, {len(hashes)} distinct hashes"
        print(line)
        if len(hashes) > 1:
            differing += 1
            for part in ("fn", "attrs", "sig", "const", "backend", "opts", "env"):
                values = defaultdict(list)
                for i, r in items:
                    values[r.get(part)].append(i)
                if len(values) > 1:
                    print(f"   {part} differs:")
                    for v, who in values.items():
                        print(f"      processes {who}: {str(v)[:600]}")
    print(f"{differing} of {len(groups)} specialisations had more than one cache key")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
