# 2026-12-06 (no device; the forward record check of h200-2026-12-06a): compile the forward Gluon kernel
# specialisations in /tmp/fptx/specs.json (from enum_specs.py) for sm_90a and write their PTX, debug lines cut, as
# <tag>_<i>.ptx; prints their sha1s.
#   cd /tmp/fptx && PYTHONPATH=<a checkout>/src python <this checkout>/docs/data/h200-2026-12-06a/forward-ptx/comp.py \
#       <tag> > <tag>.txt   (once at 16b46e6, once at HEAD; ptx_diff.code_only from this checkout's tools)
import hashlib, importlib, json, os, sys
import triton
from triton.backends.compiler import GPUTarget
from triton.experimental.gluon._runtime import GluonASTSource
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), *[os.pardir] * 4, "tools"))
from ptx_diff import code_only  # noqa: E402  (its debug-free PTX)
mod = importlib.import_module("sdpa_bwd.kernels.attention_fwd_gluon")
print(mod.__file__, file=sys.stderr)
fn = mod.attention_fwd_gluon_kernel
names = fn.arg_names
res = []
for spec in json.load(open("/tmp/fptx/specs.json")):
    sig = {n: ty for n, ty in spec["signature"]}
    consts = {(names.index(n),): v for n, v in spec["constexprs"]}
    attrs = {(names.index(n),): [["tt.divisibility", 16]] for n in spec["divisible"]}
    opts = {k: spec[k] for k in ("num_warps", "num_stages", "maxnreg") if spec.get(k) is not None}
    k = triton.compile(GluonASTSource(fn, sig, consts, attrs), target=GPUTarget("cuda", 90, 32), options=opts)
    ptx = code_only(k.asm["ptx"])
    open(f"{sys.argv[1]}_{len(res)}.ptx", "w").write(ptx)
    res.append(hashlib.sha1(ptx.encode()).hexdigest()[:12])
print(json.dumps(res))
