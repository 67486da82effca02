"""A/B of the D_qk 192 / D_v 128 Gluon backward against an earlier form of its kernel, in one GPU process.

    git show 4939d74:src/sdpa_bwd/kernels/attention_bwd_gluon_192.py > old192.py   # the form to compare with
    PYTHONPATH=src python3 tools/ab192.py --old old192.py --out $OUT
    PYTHONPATH=src python3 tools/ab192.py --switch gluon_pdl --out $OUT   # the launcher's switch on ("new") and off
    PYTHONPATH=src python3 tools/ab192.py --new a.py --switch head_group=2 --only bfloat16:causal --out $OUT
    PYTHONPATH=src python3 tools/ab192.py --switch gluon_pdl --shape 4,16,16,2048,64,64 --shape 1,32,8,8192,64,64

``--old``: a copy of ``kernels/attention_bwd_gluon_192.py`` from another commit. It is written beside the package's
kernels as ``_ab_old192.py`` (its relative imports made absolute; Triton's jit reads a kernel's source from its
file) and swapped in for the launcher's module (``launch.attention_bwd_gluon_192``) for the "old" timings.
``--switch NAME``: instead, the launcher's boolean switch NAME (``launch.switches``) on for "new", off for "old";
``--switch NAME=INT``: NAME set to INT for "new", the launcher's own value for "old" (``head_group``). ``--new FILE``:
a kernel file timed as "new" in place of the working tree's (written as ``_ab_new192.py``), so that two forms neither
of which is the working tree's can be compared. ``--only dtype:mask`` (``bfloat16:causal``): that one row.
``--shape B,H_q,H_kv,S,D_qk,D_v`` (repeatable): other shapes than (1,16,16,4096,192,128), e.g. a switch
at head dim 64 or 128 (whose calls the 192 kernel's forms do not touch).

By default at (1,16,4096) BHSD, bf16 and fp16, causal and not (the 192 kernel forced under both masks,
``gluon_bwd_192``): each form's whole backward call timed against the other in alternation
(``benchmarks/common.twin_timing``: the benchmark's warm-up past the card's power-cap onset), its kernels' device
times (torch.profiler, mean of 20 calls), its gradients against the other form's and against cuDNN's (relative L2
norm of the difference), and cuDNN's call and, without the mask, the launcher's default call (``default_ms``)
beside them. One JSON line a row; all rows in ``ab192.json`` under --out.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from collections import defaultdict

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..")


def load_form(path: str, name: str = "_ab_old192"):
    """The kernel module at ``path`` as ``sdpa_bwd.engine.kernels.<name>``."""
    import importlib

    src = open(path).read()
    if "attention_bwd_gluon_192_kernel" not in src:
        raise ValueError(f"{path} has no attention_bwd_gluon_192_kernel: pass a copy of "
                         "kernels/attention_bwd_gluon_192.py from another commit")
    src = src.replace("from .attention_bwd_gluon import", "from sdpa_bwd.engine.kernels.attention_bwd_gluon import")
    src = src.replace("from .attention_fwd_gluon import", "from sdpa_bwd.engine.kernels.attention_fwd_gluon import")
    dest = os.path.join(ROOT, "src", "sdpa_bwd", "engine", "kernels", f"{name}.py")
    with open(dest, "w") as f:
        f.write(src)
    return importlib.import_module(f"sdpa_bwd.engine.kernels.{name}")


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--old", default=None)
    ap.add_argument("--switch", default=None, help="NAME (a boolean switch: on for new, off for old) or NAME=INT "
                    "(the value for new; old keeps the launcher's)")
    ap.add_argument("--new", default=None, help="a kernel file to time as 'new' instead of the working tree's")
    ap.add_argument("--out", default=None)
    ap.add_argument("--only", default=None, help="one row, dtype:mask (e.g. bfloat16:causal)")
    ap.add_argument("--shape", action="append", default=None,
                    help="B,H_q,H_kv,S,D_qk,D_v (repeatable; default 1,16,16,4096,192,128)")
    args = ap.parse_args()
    import torch

    from sdpa_bwd.engine import launch, launch_cache

    sys.path.insert(0, os.path.join(ROOT, "benchmarks"))
    sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
    from common import bench, twin_timing
    from gluon_probe_common import cudnn_backward, save_rows
    from gluon_probe_common import rel_err as rel

    if (args.old is None) == (args.switch is None):
        raise SystemExit("ab192: pass --old FILE (another form of the kernel) or --switch NAME (a launch switch)")
    base_mod = launch.attention_bwd_gluon_192
    new_mod = load_form(args.new, "_ab_new192") if args.new else base_mod
    old_mod = load_form(args.old) if args.old else new_mod
    switch, _, value = (args.switch or "").partition("=")
    shapes = []
    for text in args.shape or ["1,16,16,4096,192,128"]:
        shape = tuple(int(x) for x in text.split(","))
        if len(shape) != 6 or shape[1] % shape[2]:
            raise SystemExit(f"ab192: --shape {text!r} is not B,H_q,H_kv,S,D_qk,D_v with H_kv dividing H_q")
        shapes.append(shape)
    rows = []
    for (B, H, H_kv, S, D_qk, D_v), dtype, causal in ((s, d, c) for s in shapes
                                                      for d in (torch.bfloat16, torch.float16) for c in (True, False)):
        if args.only and args.only != f"{str(dtype).split('.')[-1]}:{'causal' if causal else 'nc'}":
            continue
        gen = torch.Generator(device="cuda").manual_seed(33)
        q = torch.randn(B, H, S, D_qk, device="cuda", dtype=dtype, generator=gen)
        k = torch.randn(B, H_kv, S, D_qk, device="cuda", dtype=dtype, generator=gen)
        v, do = (torch.randn(B, h, S, D_v, device="cuda", dtype=dtype, generator=gen) for h in (H_kv, H))
        band = dict(right_bound=0) if causal else {}
        o, stats = launch.attention_forward(q, k, v, **band)

        def call(name):
            mod = new_mod if name == "new" else old_mod
            if not switch:
                on = {}
            elif value:
                on = {switch: int(value)} if name == "new" else {}
            else:
                on = {switch: name == "new"}

            def run():
                launch.attention_bwd_gluon_192 = mod
                with launch.switches(**on):
                    return launch.attention_backward(q, k, v, o, do, stats, **band)
            return run

        row = dict(shape=[B, H, H_kv, S, D_qk, D_v], dtype=str(dtype).split(".")[-1], causal=causal)
        with launch.switches(gluon_bwd_192=("causal", "nc")):
            grads = {}
            for name in ("new", "old"):
                launch_cache.clear()
                grads[name] = call(name)()
                torch.cuda.synchronize()
                with torch.profiler.profile(activities=[torch.profiler.ProfilerActivity.CUDA]) as prof:
                    for _ in range(20):
                        call(name)()
                    torch.cuda.synchronize()
                per = defaultdict(float)
                for e in prof.events():
                    if e.device_type == torch.autograd.DeviceType.CUDA:
                        per[e.name[:60]] += e.device_time_total / 20 / 1000
                row[f"{name}_kernels_ms"] = dict(per)
            launch_cache.clear()
            ratio, (new_runs, old_runs) = twin_timing(call("new"), call("old"))
            row.update(new_over_old=ratio, new_ms_runs=new_runs, old_ms_runs=old_runs)
        launch.attention_bwd_gluon_192 = base_mod
        launch_cache.clear()
        ref = cudnn_backward(q, k, v, do, causal)
        ref_grads = ref()
        row["cudnn_ms"] = bench(ref)
        row["new_ms"] = min(new_runs)
        row["ratio_vs_cudnn_new"] = row["cudnn_ms"] / min(new_runs)
        row["ratio_vs_cudnn_old"] = row["cudnn_ms"] / min(old_runs)
        for i, name in enumerate(("dq", "dk", "dv")):
            row[f"{name}_rel_new_vs_old"] = rel(grads["new"][i], grads["old"][i])
            row[f"{name}_rel_new_vs_cudnn"] = rel(grads["new"][i], ref_grads[i])
            row[f"{name}_rel_old_vs_cudnn"] = rel(grads["old"][i], ref_grads[i])
        if not causal:  # the launcher's default without the mask
            row["default_ms"] = bench(lambda: launch.attention_backward(q, k, v, o, do, stats))
        print(json.dumps(row), flush=True)
        rows.append(row)
    save_rows(args.out, "ab192.json", rows)


if __name__ == "__main__":
    main()
