"""The kernels' Triton cache keys must not depend on which kernel a process launches first
(Triton 3.6 hashed callers before callees: warm runs recompiled kernels they had compiled)."""

import json
import os
import subprocess
import sys

import pytest

pytest.importorskip("triton")

PROBE = r"""
import hashlib, json, sys
import triton.runtime.jit as J
hashed = []  # the order in which this process computes keys (import first, then the first uses)
plain = J.JITFunction.cache_key.fget
def logged(self):
    if self.hash is None:
        hashed.append(self)
    return plain(self)
J.JITFunction.cache_key = property(logged)
if sys.argv[2] == "3.6-order":
    # Triton 3.6's DependenciesFinder._update_hash: the callee's globals are merged before the callee
    # is hashed (later Tritons hash first, triton-lang/triton#10494), so the order can leak into keys
    def update_hash_3_6(self, func):
        self.used_global_vals.update(func.used_global_vals)
        func_key = func.cache_key + str(getattr(func, "noinline", False))
        self.hasher.update(func_key.encode("utf-8"))
    J.DependenciesFinder._update_hash = update_hash_3_6
from sdpa_bwd.engine.kernels import attention_bwd as b, attention_fwd as f
from sdpa_bwd.engine.kernels import jit_callees, package_jit_functions
names = {"dkdv": b.attention_bwd_dkdv_kernel, "dkdv_any": b.attention_bwd_dkdv_kernel_any_len,
         "dq": b.attention_bwd_dq_kernel, "dq_any": b.attention_bwd_dq_kernel_any_len,
         "fwd": f.attention_fwd_kernel, "fwd_any": f.attention_fwd_kernel_any_len,
         "pre": b.attention_bwd_preprocess_kernel}
for n in sys.argv[1].split(","):
    names[n].cache_key
functions = package_jit_functions()
position = {}
for i, fn in enumerate(hashed):
    position.setdefault(id(fn), i)
print(json.dumps({
    "keys": {n: hashlib.sha1(k.cache_key.encode()).hexdigest() for n, k in sorted(names.items())},
    "unsettled": [fn.__name__ for fn in functions if fn.hash is None],
    "callee_after_caller": [f"{fn.__name__} -> {c.__name__}" for fn in functions for c in jit_callees(fn)
                            if position.get(id(c), -1) > position.get(id(fn), -1)],
    "with_callees": sum(1 for fn in functions if jit_callees(fn)),
}))
"""


def _probe(first: str, hashing: str = "installed") -> dict:
    env = dict(os.environ, TRITON_INTERPRET="0")  # real JITFunctions: hashing needs no GPU
    out = subprocess.run([sys.executable, "-c", PROBE, first, hashing], env=env, capture_output=True, text=True,
                         timeout=120)
    assert out.returncode == 0, out.stderr[-2000:]
    return json.loads(out.stdout.strip().splitlines()[-1])


def test_every_kernel_is_hashed_callees_first_at_import():
    got = _probe("dkdv")
    assert got["unsettled"] == [], f"jitted functions not hashed at import: {got['unsettled']}"
    assert got["callee_after_caller"] == [], f"hashed before their callees: {got['callee_after_caller']}"
    assert got["with_callees"] >= 5, "the kernels call helpers: the callee scan found too few"


@pytest.mark.parametrize("hashing", ["installed", "3.6-order"])
def test_cache_keys_do_not_depend_on_the_first_kernel_a_process_uses(hashing):
    """With the installed Triton, and with Triton 3.6's hashing order put back (the bug the
    import-time hashing works around: without it this case fails)."""
    orders = ["dkdv,dq", "dkdv_any,dkdv,dq_any,dq", "fwd,dkdv,dq", "dq_any,dq,dkdv", "pre,fwd_any"]
    keys = [_probe(o, hashing)["keys"] for o in orders]
    for order, k in zip(orders[1:], keys[1:]):
        assert k == keys[0], f"first use {order!r} gave other cache keys than {orders[0]!r}"
