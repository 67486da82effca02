"""Does the forward kernel compile to the same code as at another revision? (no GPU, no torch)

    python tools/forward_ptx_diff.py [--rev HEAD] [FLAG=VALUE ...]

Compiles ``kernels.attention_fwd.attention_fwd_kernel`` for sm_90a at the hd128 16-bit default config
(128/128 tiles, 8 warps, 3 stages; TMA and pointer paths, with and without a right bound) from the working
tree and from ``--rev``, drops the debug information (file names, line numbers), and compares the PTX. Extra
constexprs (a new flag at its default, e.g. FUSED_SOFTMAX=False) are passed where the kernel has them; so are
other tiles and head dims (BLOCK_N=64 D_QK=64 ...), and num_warps=N / num_stages=N set the launch. Used in
session 10 to show that the fused-softmax flag, off, leaves the default forward's code as it was (so the full
plan of the code before it still holds). Needs Triton (3.6 for the device's code) and no torch: the kernels
package is imported without ``sdpa_bwd/__init__``.
"""

import argparse
import ast
import os
import subprocess
import sys
import tempfile
import types

HERE = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
FILES = ("__init__.py", "attention_fwd.py", "attention_bwd.py")


def code_of(root: str, extra: dict) -> list:
    for name in [m for m in sys.modules if m == "sdpa_bwd" or m.startswith("sdpa_bwd.")]:
        del sys.modules[name]
    pkg = types.ModuleType("sdpa_bwd")
    pkg.__path__ = [os.path.join(root, "sdpa_bwd")]
    sys.modules["sdpa_bwd"] = pkg
    import triton
    from triton.backends.compiler import GPUTarget
    from triton.compiler import ASTSource

    from sdpa_bwd.kernels.attention_fwd import attention_fwd_kernel as fn

    out = []
    for tma in (True, False):
        for right in (False, True):
            consts = dict(BLOCK_M=128, BLOCK_N=128, D_QK=128, D_QK_PAD=128, D_V=128, D_V_PAD=128, HAS_LEFT=False,
                          HAS_RIGHT=right, DOT_PRECISION="tf32", WIDE=False, TMA=tma, D_QK_SPLIT=0, HEAD_GROUP=4)
            consts.update({k: v for k, v in extra.items() if k in fn.arg_names})
            sig, attrs = {}, {}
            for i, n in enumerate(fn.arg_names):
                if n in consts:
                    sig[n] = "constexpr"
                elif n.endswith("_ptr"):
                    sig[n] = "*fp32" if n == "stats_ptr" else "*bf16"
                else:
                    sig[n] = "fp32" if n == "qk_scale_log2" else "i32"
                if sig[n].startswith("*") or (n.startswith("stride_") and not n.endswith("d")) or n in ("S_q", "S_kv"):
                    attrs[(i,)] = [["tt.divisibility", 16]]
            k = triton.compile(ASTSource(fn, sig, consts, attrs), target=GPUTarget("cuda", 90, 32),
                               options=dict(num_warps=extra.get("num_warps", 8), num_stages=extra.get("num_stages", 3)))
            ptx = "\n".join(ln for ln in k.asm["ptx"].splitlines() if not ln.strip().startswith((".loc", ".file")))
            cut = ptx.find("// Length of Unit")  # the DWARF blob after the code
            out.append(ptx[:ptx.rfind("\n", 0, cut)] if cut > 0 else ptx)
    return out


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--rev", default="HEAD")
    ap.add_argument("flags", nargs="*", help="NAME=VALUE constexprs for kernels that have them")
    args = ap.parse_args()
    extra = {k: ast.literal_eval(v) for k, v in (f.split("=", 1) for f in args.flags)}
    with tempfile.TemporaryDirectory() as old:
        os.makedirs(os.path.join(old, "sdpa_bwd", "kernels"))
        for f in FILES:
            src = subprocess.run(["git", "show", f"{args.rev}:src/sdpa_bwd/kernels/{f}"], cwd=HERE, check=True,
                                 capture_output=True, text=True).stdout
            open(os.path.join(old, "sdpa_bwd", "kernels", f), "w").write(src)
        before = code_of(old, extra)
    after = code_of(os.path.join(HERE, "src"), extra)
    labels = [f"TMA={t} right_bound={r}" for t in (True, False) for r in (False, True)]
    same = [a == b for a, b in zip(before, after)]
    for lab, s, a in zip(labels, same, after):
        print(f"{lab}: {'same PTX' if s else 'PTX DIFFERS'} ({len(a)} chars)")
    sys.exit(0 if all(same) else 1)


if __name__ == "__main__":
    main()
