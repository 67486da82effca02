# Stop 47, run 5 (no device): compile the forward Gluon kernel specialisations in /tmp/fptx/specs.json (from
# enum_specs.py) for sm_90a and write their PTX, debug lines cut, as <tag>_<i>.ptx; prints their sha1s.
#   cd /tmp/fptx && PYTHONPATH=<a checkout>/src python comp.py <tag> > <tag>.txt   (once at 16b46e6, once at HEAD)
import hashlib, importlib, json, re, sys
import triton
from triton.backends.compiler import GPUTarget
from triton.experimental.gluon._runtime import GluonASTSource
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
    ptx = "\n".join(ln for ln in k.asm["ptx"].splitlines()
                    if not ln.strip().startswith((".loc", ".file")) and not re.fullmatch(r"\$L__tmp\d+:", ln))
    cut = ptx.find(".section\t.debug")
    ptx = ptx[:ptx.rfind("\n", 0, cut)] if cut > 0 else ptx
    open(f"{sys.argv[1]}_{len(res)}.ptx", "w").write(ptx)
    res.append(hashlib.sha1(ptx.encode()).hexdigest()[:12])
print(json.dumps(res))
