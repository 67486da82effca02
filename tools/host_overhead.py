"""Host time of one call of our backward and forward against cuDNN's, on a problem too small to be
GPU-bound (the CPU's launch path is what a call costs there).

    PYTHONPATH=src python3 tools/host_overhead.py [--shape 1,1,128,64] [--calls 200] [--profile]
    PYTHONPATH=src TRITON_INTERPRET=1 python3 tools/host_overhead.py --python-only [--profile]

``--python-only`` needs no GPU: it times our launcher's own Python (checks, configs, buffers, argument
lists) on CPU tensors with every kernel launch replaced by a no-op, i.e. the host time a call costs
before Triton's launcher. It is the part of the host path this repository controls.

For each engine it times ``calls`` back-to-back calls and a synchronize, and prints microseconds
per call; with the GPU idle between launches this is the host side (Python, argument checks,
buffer allocation, Triton's launcher). Issue 7's benchmark rows that run under ~0.5 ms of GPU time
are bounded below by it.
"""

import argparse
import time

import torch
import torch.nn.functional as F
from torch.nn.attention import SDPBackend, sdpa_kernel

from sdpa_bwd import launch


def per_call_us(fn, calls):
    for _ in range(10):
        fn()
    torch.cuda.synchronize()
    t0 = time.perf_counter()
    for _ in range(calls):
        fn()
    torch.cuda.synchronize()
    return (time.perf_counter() - t0) / calls * 1e6


class _NoLaunch:
    """Stands in for a Triton kernel: ``kernel[grid](*args, **kwargs)`` does nothing."""

    def __getitem__(self, grid):
        return lambda *args, **kwargs: None


def python_only(shape, calls, profile):
    kernels = [n for n in dir(launch) if n.startswith("attention_") and n.endswith(("_kernel", "_any_len"))]
    for name in kernels:
        setattr(launch, name, _NoLaunch())
    B, H, S, D = shape
    q, k, v, o, do = (torch.randn(B, H, S, D, dtype=torch.bfloat16) for _ in range(5))
    st = torch.randn(B, H, S)
    for causal in (False, True):
        rb = 0 if causal else None
        fn = lambda: launch.attention_backward(q, k, v, o, do, st, right_bound=rb)  # noqa: E731
        for _ in range(50):
            fn()
        runs = []
        for _ in range(7):  # the least of seven: a shared CPU's noise only ever adds
            t0 = time.perf_counter()
            for _ in range(calls):
                fn()
            runs.append((time.perf_counter() - t0) / calls * 1e6)
        print(f"{','.join(map(str, shape))} {'causal' if causal else 'nc'}: our launcher's Python {min(runs):.1f} us a "
              f"backward call on the CPU (least of 7 x {calls} calls, median {sorted(runs)[3]:.1f}; {len(kernels)} "
              "kernels stubbed; the interpreter's config)", flush=True)
    if profile:
        import cProfile
        import pstats
        prof = cProfile.Profile()
        prof.enable()
        for _ in range(calls):
            launch.attention_backward(q, k, v, o, do, st)
        prof.disable()
        pstats.Stats(prof).sort_stats("tottime").print_stats(15)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--shape", default="1,1,128,64")
    ap.add_argument("--calls", type=int, default=200)
    ap.add_argument("--profile", action="store_true", help="also cProfile our backward calls (top 25 by own time)")
    ap.add_argument("--python-only", action="store_true",
                    help="no GPU: time our launcher's Python on CPU tensors, kernel launches stubbed out")
    args = ap.parse_args()
    B, H, S, D = (int(x) for x in args.shape.split(","))
    if args.python_only:
        return python_only((B, H, S, D), args.calls, args.profile)
    q, k, v, do = (torch.randn(B, H, S, D, device="cuda", dtype=torch.bfloat16) for _ in range(4))
    for causal in (False, True):
        rb = 0 if causal else None
        o, st = launch.attention_forward(q, k, v, right_bound=rb)
        ours_b = per_call_us(lambda: launch.attention_backward(q, k, v, o, do, st, right_bound=rb), args.calls)
        ours_f = per_call_us(lambda: launch.attention_forward(q, k, v, right_bound=rb), args.calls)
        qg, kg, vg = (t.detach().requires_grad_() for t in (q, k, v))
        with sdpa_kernel(SDPBackend.CUDNN_ATTENTION):
            out = F.scaled_dot_product_attention(qg, kg, vg, is_causal=causal)
            cud_b = per_call_us(lambda: torch.autograd.grad(out, (qg, kg, vg), do, retain_graph=True), args.calls)
            cud_f = per_call_us(lambda: F.scaled_dot_product_attention(q, k, v, is_causal=causal), args.calls)
        print(f"{args.shape} {'causal' if causal else 'nc'}: backward ours {ours_b:.0f} us, cuDNN {cud_b:.0f} us; "
              f"forward ours {ours_f:.0f} us, cuDNN {cud_f:.0f} us", flush=True)
    if args.profile:
        import cProfile
        import pstats
        o, st = launch.attention_forward(q, k, v)
        prof = cProfile.Profile()
        prof.enable()
        for _ in range(args.calls):
            launch.attention_backward(q, k, v, o, do, st)
        torch.cuda.synchronize()
        prof.disable()
        pstats.Stats(prof).sort_stats("tottime").print_stats(25)


if __name__ == "__main__":
    main()
