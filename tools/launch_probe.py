"""Where the host time of one Triton launch goes (GPU only; Triton 3.6's JITFunction.run internals).

    PYTHONPATH=src python3 tools/launch_probe.py [--shape 1,1,128,64] [--causal] [--calls 2000]

Runs one backward, records each kernel launch it makes (the JITFunction, grid, arguments), then times each
launch N times in four ways, microseconds a launch:
  full      fn[grid](*args, **kwargs), what the launcher does
  binder    Triton's generated binder alone (argument binding and specialisation of every argument)
  key       binder + the cache key and the compiled-kernel lookup
  direct    the compiled kernel's launcher, arguments bound in advance (what a call would cost if our
            launcher kept the compiled kernel for a specialisation it has seen)
The difference full - direct is what a launch path of our own could save; the GPU idles throughout (the
launches are tiny), so these are host times.
"""

import argparse
import time

import torch
import triton
from triton import knobs
from triton.runtime.driver import driver
from triton.runtime.jit import compute_cache_key

from sdpa_bwd.engine import launch


class Recorder:
    def __init__(self, fn, log):
        self.fn, self.log = fn, log

    def __getitem__(self, grid):
        def call(*args, **kwargs):
            self.log.append((self.fn, grid, args, kwargs))
            return self.fn[grid](*args, **kwargs)
        return call


def per_launch_us(fn, calls):
    for _ in range(20):
        fn()
    torch.cuda.synchronize()
    best = float("inf")
    for _ in range(5):
        t0 = time.perf_counter()
        for _ in range(calls):
            fn()
        torch.cuda.synchronize()
        best = min(best, (time.perf_counter() - t0) / calls * 1e6)
    return best


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--shape", default="1,1,128,64")
    ap.add_argument("--causal", action="store_true")
    ap.add_argument("--calls", type=int, default=2000)
    args = ap.parse_args()
    B, H, S, D = (int(x) for x in args.shape.split(","))
    q, k, v, do = (torch.randn(B, H, S, D, device="cuda", dtype=torch.bfloat16) for _ in range(4))
    rb = 0 if args.causal else None
    o, st = launch.attention_forward(q, k, v, right_bound=rb)
    log = []
    real_kernel, real_pre = launch._kernel, launch.attention_bwd_preprocess_kernel
    launch._kernel = lambda *a: Recorder(real_kernel(*a), log)
    launch.attention_bwd_preprocess_kernel = Recorder(real_pre, log)
    launch.attention_backward(q, k, v, o, do, st, right_bound=rb)
    launch._kernel, launch.attention_bwd_preprocess_kernel = real_kernel, real_pre
    device = driver.active.get_current_device()
    stream = driver.active.get_current_stream(device)
    total = dict(full=0.0, direct=0.0)
    for fn, grid, a, kw in log:
        kernel_cache, key_cache, _, _, binder = fn.device_caches[device]
        kwd = dict(kw, debug=False, instrumentation_mode=knobs.compilation.instrumentation_mode)
        bound, spec, options = binder(*a, **kwd)
        kernel = kernel_cache[compute_cache_key(key_cache, spec, options)]
        values = list(bound.values())
        g = tuple(grid) + (1,) * (3 - len(grid))

        def direct():
            kernel.run(g[0], g[1], g[2], stream, kernel.function, kernel.packed_metadata, None,
                       knobs.runtime.launch_enter_hook, knobs.runtime.launch_exit_hook, *values)

        def key():
            _, s, opt = binder(*a, **kwd)
            return kernel_cache.get(compute_cache_key(key_cache, s, opt))

        t = dict(full=per_launch_us(lambda: fn[grid](*a, **kw), args.calls),
                 binder=per_launch_us(lambda: binder(*a, **kwd), args.calls),
                 key=per_launch_us(key, args.calls),
                 direct=per_launch_us(direct, args.calls))
        total["full"] += t["full"]
        total["direct"] += t["direct"]
        print(f"{fn.fn.__name__:40s} {len(a):3d} args {len(kw):3d} kwargs: " +
              ", ".join(f"{n} {x:.1f} us" for n, x in t.items()), flush=True)
    print(f"a backward's {len(log)} launches: full {total['full']:.1f} us, direct {total['direct']:.1f} us "
          f"(triton {triton.__version__})")
    print("backward call: " + f"{per_launch_us(lambda: launch.attention_backward(q, k, v, o, do, st, right_bound=rb), 300):.1f} us")


if __name__ == "__main__":
    main()
