# 2026-12-06 (no device; the forward record check of h200-2026-12-06a): the forward Gluon launches of the backward
# benchmark's rows, as compile specs.
#   PYTHONPATH=src python enum_specs.py   (writes /tmp/fptx/specs.json)
import importlib.util, json, os, sys
sys.path.insert(0, "/work/main/tools")
spec = importlib.util.spec_from_file_location("compile_times", "/work/main/tools/compile_times.py")
ct = importlib.util.module_from_spec(spec); sys.modules["compile_times"] = ct; spec.loader.exec_module(ct)
from sdpa_bwd.cases import Case
out = {}
for dt in ("bfloat16", "float16"):
    for (hq, hk, S, dqk, dv) in ((16, 16, 4096, 128, 128), (16, 16, 2048, 64, 64), (32, 8, 8192, 128, 128),
                                 (32, 8, 8192, 64, 64), (16, 16, 4096, 192, 128)):
        for rb in (None, 0):
            c = Case("g", B=1, H_q=hq, H_k=hk, H_v=hk, S_q=S, D_qk=dqk, D_v=dv, dtype=dt, right_bound=rb)
            for ln in ct.case_launches(c):
                if ln.kernel == ct.GLUON_KERNEL:
                    out[ln.key()] = ln.to_dict()
json.dump(list(out.values()), open("/tmp/fptx/specs.json", "w"))
print(len(out), "forward Gluon specialisations")
