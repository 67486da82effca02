"""Does a kernel compile to the same code as at another revision? (no GPU, no torch)

    python tools/ptx_diff.py [--rev HEAD] [--kernel fwd|dkdv|dq|fused] [FLAG=VALUE ...]
    python tools/ptx_diff.py --caches BEFORE AFTER
    python tools/ptx_diff.py --bench REV [--dtypes bf16,fp16] [--venv-python PY] [-j N]

Compiles one of the engine's kernels for sm_90a from the working tree and from ``--rev``, drops the debug
information (file names, line numbers), and compares the PTX, on TMA and pointer paths, with and without a
right bound. The default config is the hd128 16-bit table entry: the forward at 128/128 tiles, 8 warps, 3
stages; the DKDV pass at 64/128 and the dQ pass at 128/64, 8 warps, 3 stages. Extra constexprs (a new flag at
its default, e.g. FUSED_SOFTMAX=False) are passed where the kernel has them; so are other tiles and head dims
(BLOCK_N=64 D_QK=64 ...), and num_warps=N / num_stages=N set the launch. ``--kernel fused`` compiles the
one-launch backward only from the working tree and prints its PTX size (it has no older revision to compare).
It showed (2026-12-01) that the forward's softmax flags, at their defaults, leave the table's code as it was, and
that the backward kernels' bodies moved into ``_dkdv_program`` / ``_dq_program`` compile as before. Needs Triton
(3.6 for the device's code) and no torch: the kernels package is imported without ``sdpa_bwd/__init__``.
(Named ``forward_ptx_diff.py`` before commit 1541ea7.)

``--caches BEFORE AFTER`` compares two Triton cache folders instead (``TRITON_CACHE_DIR`` of two runs of the same
workload, e.g. the benchmark's rows from two revisions: ``tools/device.sh before REV``): each kernel name's
compiled PTX, debug information dropped, as a multiset, so every kernel the workload compiled is checked, Gluon's
included, with the constexprs and specialisations its real launches had. Exit 1 where a name's code differs.

``--bench REV`` needs no GPU: it records every kernel launch the backward benchmark's rows make (``SHAPES`` of
``benchmarks/common.py`` x causal x ``--dtypes``, BHSD, default and deterministic, forward and backward) as
``tools/compile_times.py`` records a plan level's (the launcher's own choices as on an H200, kernels replaced by
recorders), compiles each specialisation for sm_90a with Triton 3.6 (``--venv-python``) from the working tree's
kernels and from REV's, and compares the two PTX codes launch by launch (a REV kernel lacking a parameter the
working tree passes drops it; one the working tree lacks takes its default).
"""

import argparse
import ast
import inspect
import os
import re
import subprocess
import sys
import tempfile
import types

HERE = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


KERNELS = {
    "fwd": ("attention_fwd", "attention_fwd_kernel",
            dict(BLOCK_M=128, BLOCK_N=128, HEAD_GROUP=4)),
    "dkdv": ("attention_bwd", "attention_bwd_dkdv_kernel",
             dict(BLOCK_M=64, BLOCK_N=128, COMPUTE_DK=True, COMPUTE_DV=True, ATOMIC_DQ=False, DQ_TMA=False,
                  HEAD_GROUP=8, DV_AFTER_DP=True)),
    "dq": ("attention_bwd", "attention_bwd_dq_kernel", dict(BLOCK_M=128, BLOCK_N=64, HEAD_GROUP=8)),
    "fused": ("attention_bwd", "attention_bwd_fused_kernel",
              dict(BLOCK_M1=64, BLOCK_N1=128, BLOCK_M2=128, BLOCK_N2=64, HEAD_GROUP=8, DV_AFTER_DP=True)),
}
FP32_POINTERS = ("stats_ptr", "lse2_ptr", "delta_ptr", "dq_acc_ptr")
FLOATS = ("qk_scale_log2", "scale")


def sm90_source(fn, consts: dict):
    """Triton's ASTSource for ``fn`` with ``consts`` as constexprs (the kernel's other constexprs at their
    defaults, else they would be typed as i32 arguments) and the rest typed and marked as the launcher's calls
    specialise them: pointers and row / batch / head strides and the lengths divisible by 16. Head-dim strides
    are runtime i32 unless ``consts`` sets them (1, as the launch's contiguous rows have them: the spill counts
    of the device's compile, h200-2026-12-01k)."""
    from triton.compiler import ASTSource

    consts = {**{p.name: p.default for p in fn.params if p.is_constexpr and p.name not in consts
                 and p.default is not inspect.Parameter.empty}, **consts}
    sig, attrs = {}, {}
    for i, n in enumerate(fn.arg_names):
        if n in consts:
            sig[n] = "constexpr"
        elif n.endswith("_ptr"):
            sig[n] = "*fp32" if n in FP32_POINTERS else "*bf16"
        else:
            sig[n] = "fp32" if n in FLOATS else "i32"
        if sig[n].startswith("*") or (n.startswith("stride_") and not n.endswith("d")) or n in ("S_q", "S_kv"):
            attrs[(i,)] = [["tt.divisibility", 16]]
    return ASTSource(fn, sig, consts, attrs)


def code_of(root: str, kernel: str, extra: dict) -> list:
    for name in [m for m in sys.modules if m == "sdpa_bwd" or m.startswith("sdpa_bwd.")]:
        del sys.modules[name]
    pkg = types.ModuleType("sdpa_bwd")
    pkg.__path__ = [os.path.join(root, "sdpa_bwd")]
    sys.modules["sdpa_bwd"] = pkg
    import importlib

    import triton
    from triton.backends.compiler import GPUTarget

    module, name, tiles = KERNELS[kernel]
    fn = getattr(importlib.import_module(f"sdpa_bwd.engine.kernels.{module}"), name)

    out = []
    for tma in (True, False):
        for right in (False, True):
            consts = dict(D_QK=128, D_QK_PAD=128, D_V=128, D_V_PAD=128, HAS_LEFT=False, HAS_RIGHT=right,
                          DOT_PRECISION="tf32", WIDE=False, D_QK_SPLIT=0, **tiles)
            consts.update({k: tma for k in ("TMA", "TMA_QDO", "TMA_KV")})
            consts.update(extra)
            consts = {k: v for k, v in consts.items() if k in fn.arg_names}
            k = triton.compile(sm90_source(fn, consts), target=GPUTarget("cuda", 90, 32),
                               options=dict(num_warps=extra.get("num_warps", 8), num_stages=extra.get("num_stages", 3)))
            out.append((code_only(k.asm["ptx"]), k.metadata.shared))
    return out


def code_only(ptx: str) -> str:
    """``ptx`` without its debug information, so that two revisions' code compares line for line."""
    # debug lines, and the labels that only the debug sections (cut below) refer to: an inlined call's boundaries
    # are such labels, so moving code into a helper function adds some
    ptx = "\n".join(ln for ln in ptx.splitlines()
                    if not ln.strip().startswith((".loc", ".file")) and not re.fullmatch(r"\$L__tmp\d+:", ln))
    cut = ptx.find(".section\t.debug")  # the DWARF sections after the code
    return ptx[:ptx.rfind("\n", 0, cut)] if cut > 0 else ptx


def cache_codes(folder: str) -> dict:
    """{kernel name: sorted list of the code (``code_only``) of each PTX file of that name} of a Triton cache."""
    codes: dict = {}
    for entry in sorted(os.listdir(folder)):
        sub = os.path.join(folder, entry)
        if not os.path.isdir(sub):
            continue
        for f in os.listdir(sub):
            if f.endswith(".ptx"):
                codes.setdefault(f[:-4], []).append(code_only(open(os.path.join(sub, f)).read()))
    return {name: sorted(c) for name, c in codes.items()}


def compare_caches(before: str, after: str) -> int:
    a, b = cache_codes(before), cache_codes(after)
    if not a and not b:
        print(f"no PTX in {before} or {after}: was TRITON_CACHE_DIR set for both runs?")
        return 2
    differ = 0
    for name in sorted(set(a) | set(b)):
        na, nb = len(a.get(name, [])), len(b.get(name, []))
        if a.get(name) == b.get(name):
            print(f"{name}: same PTX ({na} specialisations)")
            continue
        differ += 1
        same = sum(min(a.get(name, []).count(c), b.get(name, []).count(c)) for c in set(a.get(name, [])))
        print(f"{name}: PTX DIFFERS ({na} before, {nb} after, {same} alike)")
    print(f"{len(set(a) | set(b)) - differ} kernels alike, {differ} differ")
    return 1 if differ else 0


def kernels_at(rev: str, root: str, files=None) -> None:
    """The kernels' files at ``rev`` (``files``, default all of them) written to ``root``/sdpa_bwd/engine/kernels:
    the folder is sdpa_bwd/engine/kernels since the package layout (2026-12-06), sdpa_bwd/kernels before."""
    pkg = os.path.join(root, "sdpa_bwd", "engine", "kernels")
    os.makedirs(pkg)
    for folder in ("src/sdpa_bwd/engine/kernels", "src/sdpa_bwd/kernels"):
        listed = subprocess.run(["git", "ls-tree", "--name-only", f"{rev}:{folder}"], cwd=HERE, capture_output=True,
                                text=True)
        if listed.returncode == 0:
            break
    else:
        raise SystemExit(f"ptx_diff: {rev} has neither kernels folder")
    for f in files or [f for f in listed.stdout.split() if f.endswith(".py")]:
        shown = subprocess.run(["git", "show", f"{rev}:{folder}/{f}"], cwd=HERE, capture_output=True, text=True)
        if shown.returncode != 0:
            raise SystemExit(f"ptx_diff: {f} is not in {folder} at {rev}")
        open(os.path.join(pkg, f), "w").write(shown.stdout)


def bench_specs(dtypes) -> dict:
    """{key: compile_times.Launch} of every kernel launch the backward benchmark's rows make (see the docstring)."""
    sys.path.insert(0, os.path.join(HERE, "tools"))
    sys.path.insert(0, os.path.join(HERE, "benchmarks"))
    import compile_times as ct
    from common import SHAPES

    from sdpa_bwd import make_problem

    specs: dict = {}
    for (B, H_q, H_kv, S, D_qk, D_v) in SHAPES:
        for causal in (False, True):
            for dtype in dtypes:
                for det in (False, True):
                    problem = make_problem(B=B, H_q=H_q, H_k=H_kv, S_q=S, D_qk=D_qk, D_v=D_v, causal=causal,
                                           dtype={"bf16": "bfloat16", "fp16": "float16"}[dtype], deterministic=det)
                    attrs = dict(scale=problem.effective_scale, left_bound=problem.left_bound,
                                 right_bound=problem.right_bound, alignment=problem.alignment)
                    sink: list = []
                    alloc = ct._Allocator()
                    with ct.recording(sink, alloc) as launch:
                        t = ct.fake_tensors(problem, alloc)  # the benchmark's calls: gradients fresh, packed
                        launch.attention_backward(t["q"], t["k"], t["v"], t["o"], t["do"], t["stats"],
                                                  deterministic=det, **attrs)
                        launch.attention_forward(t["q"], t["k"], t["v"], **attrs)
                    for ln in sink:
                        specs.setdefault(ln.key(), ln)
    return specs


def compare_bench(rev: str, dtypes, python: str, jobs: int) -> int:
    import compile_times as ct  # (bench_specs put tools/ on the path)

    specs = bench_specs(dtypes)
    print(f"{len(specs)} kernel specialisations in the benchmark's rows ({', '.join(dtypes)})", flush=True)
    with tempfile.TemporaryDirectory() as old:
        kernels_at(rev, old)
        for d in (os.path.join(old, "sdpa_bwd"), os.path.join(old, "sdpa_bwd", "engine")):
            open(os.path.join(d, "__init__.py"), "w").close()
        order = sorted(specs)
        quiet = lambda *_: None  # noqa: E731
        after = ct.compile_sample(specs, order, python=python, jobs=jobs, budget=float("inf"), log=quiet,
                                  extra=dict(ptx=True))
        before = ct.compile_sample(specs, order, python=python, jobs=jobs, budget=float("inf"), log=quiet,
                                   src=old, extra=dict(ptx=True, other_source=True))
    differ = 0
    by_kernel: dict = {}
    for key in order:
        a, b = before.get(key, {}), after.get(key, {})
        same = a.get("ptx_sha256") is not None and a.get("ptx_sha256") == b.get("ptx_sha256")
        tally = by_kernel.setdefault(specs[key].kernel, [0, 0])
        tally[0 if same else 1] += 1
        if not same:
            differ += 1
            print(f"PTX DIFFERS: {key}\n  {rev}: {a.get('error') or a.get('ptx_sha256')}\n  working tree: "
                  f"{b.get('error') or b.get('ptx_sha256')}")
    for kernel, (same, other) in sorted(by_kernel.items()):
        print(f"{kernel}: {same} specialisations same PTX, {other} differ")
    print(f"{len(order) - differ} of {len(order)} alike")
    return 1 if differ else 0


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--bench", metavar="REV", help="the benchmark's rows' kernels compiled from REV and the working "
                                                   "tree, compared (no GPU; Triton 3.6 in --venv-python)")
    ap.add_argument("--dtypes", default="bf16,fp16")
    ap.add_argument("--venv-python", default="/tmp/t36/bin/python", help="a python with Triton 3.6")
    ap.add_argument("-j", "--jobs", type=int, default=max(1, os.cpu_count() or 1))
    ap.add_argument("--caches", nargs=2, metavar=("BEFORE", "AFTER"),
                    help="compare two Triton cache folders' PTX kernel by kernel instead of compiling")
    ap.add_argument("--rev", default="HEAD")
    ap.add_argument("--kernel", default="fwd", choices=sorted(KERNELS))
    ap.add_argument("flags", nargs="*", help="NAME=VALUE constexprs for kernels that have them")
    args = ap.parse_args()
    if args.caches:
        sys.exit(compare_caches(*args.caches))
    if args.bench:
        sys.exit(compare_bench(args.bench, args.dtypes.split(","), args.venv_python, args.jobs))
    extra = {k: ast.literal_eval(v) for k, v in (f.split("=", 1) for f in args.flags)}
    labels = [f"TMA={t} right_bound={r}" for t in (True, False) for r in (False, True)]
    after = code_of(os.path.join(HERE, "src"), args.kernel, extra)
    if args.kernel == "fused":
        for lab, (a, shared) in zip(labels, after):
            print(f"{lab}: {len(a)} chars of PTX, {shared} B of shared memory")
        return
    with tempfile.TemporaryDirectory() as old:
        kernels_at(args.rev, old)
        before = code_of(old, args.kernel, extra)
    same = [a[0] == b[0] for a, b in zip(before, after)]
    for lab, s, (a, shared) in zip(labels, same, after):
        print(f"{lab}: {'same PTX' if s else 'PTX DIFFERS'} ({len(a)} chars, {shared} B of shared memory)")
    sys.exit(0 if all(same) else 1)


if __name__ == "__main__":
    main()
