"""Where the 128-key 192 / 128 kernel's time goes (stop 41): timing probes, wrong results by design, on the H200:

    PYTHONPATH=src python3 tools/k128_probes.py --out $OUT

Stop 41's first 128-key build (``kernels/attention_bwd_gluon_192_k128.py``) is right but 25% slower than the
64-key persistent kernel (0.697 against 0.557 ms at (1,16,4096) causal bf16). Each probe here is the module's source
with one change (``PROBES``), loaded as a module of its own and swapped in for the launcher's
(``launch.attention_bwd_gluon_192_k128``); the pass kernel's time is the mean of 20 calls (torch.profiler), beside the
unchanged build's and the launcher's default (the 64-key persistent form). One JSON in ``--out``.
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import os
import sys

# (what it says, [(old, new)] source replacements)
PROBES = {
    "no-chunk2": ("consumer 0 takes no second dQ chunk (columns 128-191 missing): the cost of its extra product and "
                  "of its wait for the first chunk's reduce to read the staging buffer",
                  [("                dq_tok = _dq_chunk(2, ds_smem, k_smem)\n"
                    "                dq, dk0, dk1, dk2 = warpgroup_mma_wait(0, deps=(dq_tok, dk0, dk1, dk2))\n"
                    "                mbarrier.arrive(ds_free.index(1), count=1)\n"
                    "                _stage_reduce(dq, stage, dq_desc, row, 2 * CHUNK)\n",
                    "                dk0, dk1, dk2 = warpgroup_mma_wait(0, deps=(dk0, dk1, dk2))\n"
                    "                mbarrier.arrive(ds_free.index(1), count=1)\n")]),
    "no-wait-other": ("no consumer waits for the other's dS before its dQ products (a race: dQ wrong): the cost of the "
                      "two consumers' lockstep",
                      [("            mbarrier.wait(ds_full.index(1 - CID), t & 1)\n", "")]),
}


def load_variant(name: str):
    """The 128-key module with ``PROBES[name]``'s replacements (or none: ``name`` "base"), as a module of its own
    beside the package's (its relative imports resolved as the package's)."""
    from sdpa_bwd.kernels import attention_bwd_gluon_192_k128 as base

    src = open(base.__file__).read()
    for old, new in ([] if name == "base" else PROBES[name][1]):
        if old not in src:
            raise ValueError(f"probe {name}: its source line is not in {base.__file__}; update PROBES")
        src = src.replace(old, new)
    path = os.path.join(os.path.dirname(base.__file__), f"_probe_k128_{name.replace('-', '_')}.py")
    with open(path, "w") as f:
        f.write(src)
    spec = importlib.util.spec_from_file_location(f"sdpa_bwd.kernels._probe_k128_{name.replace('-', '_')}", path)
    mod = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = mod
    spec.loader.exec_module(mod)
    return mod, path


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--out", default="/tmp/k128_probes")
    args = ap.parse_args()
    from sdpa_bwd import launch, launch_cache

    sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
    from gluon_probe_common import inputs192
    from program_cost import kernel_times

    rows = []
    base_mod = launch.attention_bwd_gluon_192_k128
    # each variant loaded (and so compiled) once for both masks: stop 41 run 9 loaded them per mask and its six
    # compiles ran past the call's 250 s before a row was printed
    variants = {name: load_variant(name) for name in ["base"] + list(PROBES)}
    for causal in (True, False):
        q, k, v, o, do, stats, band = inputs192(causal=causal)

        def call():
            return launch.attention_backward(q, k, v, o, do, stats, **band)
        launch_cache.clear()
        row = dict(causal=causal, default=kernel_times(call, 20))
        for name, (mod, _) in variants.items():
            launch.attention_bwd_gluon_192_k128 = mod
            launch_cache.clear()
            with launch.switches(gluon_bwd192_k128=True):
                row[name] = kernel_times(call, 20)
            launch.attention_bwd_gluon_192_k128 = base_mod
            launch_cache.clear()
        print(json.dumps(dict(causal=causal, **{n: {kk: t for kk, t in v.items() if "gluon_192" in kk}
                                                for n, v in row.items() if n != "causal"})), flush=True)
        rows.append(row)
    for _, path in variants.values():
        os.unlink(path)
    os.makedirs(args.out, exist_ok=True)
    with open(os.path.join(args.out, "k128_probes.json"), "w") as f:
        json.dump(dict(probes={k: v[0] for k, v in PROBES.items()}, rows=rows), f, indent=1)


if __name__ == "__main__":
    main()
