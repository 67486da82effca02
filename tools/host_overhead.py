"""Host time of one call of our backward and forward against cuDNN's, on a problem too small to be
GPU-bound (the CPU's launch path is what a call costs there).

    PYTHONPATH=src python3 tools/host_overhead.py [--shape 1,1,128,64] [--calls 200] [--profile]
    PYTHONPATH=src python3 tools/host_overhead.py --python-only [--profile]
    PYTHONPATH=src python3 tools/host_overhead.py --python-only --threads   # Linux, 2 cores or more
    PYTHONPATH=src python3 tools/host_overhead.py --python-only --api       # the public door's step and its floor

``--python-only`` needs no GPU: it times our launcher's own Python (checks, configs, buffers, argument
lists) on CPU tensors with every kernel launch replaced by a no-op, i.e. the host time a call costs
before Triton's launcher. It is the part of the host path this repository controls. ``--threads`` times
it as autograd runs a CUDA step: the forward on the calling thread, the backward handed to another thread
(autograd's device thread) and waited for, that thread on the same core or on another, beside the bare
hand-off: what a backward on another core costs our Python (``bench_host.py --split`` measures the step on a GPU).

For each engine it times ``calls`` back-to-back calls and a synchronize, and prints microseconds
per call; with the GPU idle between launches this is the host side (Python, argument checks,
buffer allocation, Triton's launcher). Issue 7's benchmark rows that run under ~0.5 ms of GPU time
are bounded below by it.
"""

import argparse
import os
import sys
import time

import torch
import torch.nn.functional as F
from torch.nn.attention import SDPBackend, sdpa_kernel

from sdpa_bwd.engine import launch

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))


def per_call_us(fn, calls, sync=None):
    sync = torch.cuda.synchronize if sync is None else sync
    for _ in range(10):
        fn()
    sync()
    t0 = time.perf_counter()
    for _ in range(calls):
        fn()
    sync()
    return (time.perf_counter() - t0) / calls * 1e6


def print_profile(fn, calls, top, sync=lambda: None):
    """cProfile of ``calls`` calls of fn (then ``sync``), the ``top`` functions by own time."""
    import cProfile
    import pstats
    prof = cProfile.Profile()
    prof.enable()
    for _ in range(calls):
        fn()
    sync()
    prof.disable()
    pstats.Stats(prof).sort_stats("tottime").print_stats(top)


class _NoLaunch:
    """Stands in for a Triton kernel: ``kernel[grid](*args, **kwargs)`` does nothing."""

    def __getitem__(self, grid):
        return lambda *args, **kwargs: None


def _stub_kernels() -> list:
    """Every kernel the launcher names replaced by a no-op, on CPU tensors: the names replaced."""
    os.environ["TRITON_INTERPRET"] = "1"  # the launcher takes CPU tensors only then; no kernel runs anyway
    kernels = [n for n in dir(launch) if n.startswith("attention_") and n.endswith(("_kernel", "_any_len"))]
    for name in kernels:
        setattr(launch, name, _NoLaunch())
    return kernels


def python_only(shape, calls, profile):
    kernels = _stub_kernels()
    B, H, S, D = shape
    q, k, v, o, do = (torch.randn(B, H, S, D, dtype=torch.bfloat16) for _ in range(5))
    st = torch.randn(B, H, S)
    for causal in (False, True):
        rb = 0 if causal else None
        fn = lambda: launch.attention_backward(q, k, v, o, do, st, right_bound=rb)  # noqa: E731
        # the least of seven: a shared CPU's noise only ever adds
        runs = [per_call_us(fn, calls, sync=lambda: None) for _ in range(7)]
        print(f"{','.join(map(str, shape))} {'causal' if causal else 'nc'}: our launcher's Python {min(runs):.1f} us a "
              f"backward call on the CPU (least of 7 x {calls} calls, median {sorted(runs)[3]:.1f}; {len(kernels)} "
              "kernels stubbed; the interpreter's config)", flush=True)
    if profile:
        print_profile(lambda: launch.attention_backward(q, k, v, o, do, st), calls, 15)


def api_floor(shape, calls):
    """``--api``: the public door's host time a step on CPU tensors, kernels stubbed: a forward + backward through
    ``sdpa_bwd.attention`` and ``torch.autograd.grad`` beside its parts (the launcher's forward and backward alone,
    the forward alone through the Function) and the floor any Python ``autograd.Function`` pays (one whose forward
    and backward only allocate their outputs), and a native op's step (``q + k + v``) for scale; us a call, the least
    of five loops. On a CPU tensor autograd runs the backward on the calling thread; ``--threads`` times the hand-off
    a CUDA backward takes."""
    import timeit

    import sdpa_bwd
    from sdpa_bwd.engine import api

    _stub_kernels()
    B, H, S, D = shape
    q, k, v = (torch.randn(B, H, S, D, dtype=torch.bfloat16, requires_grad=True) for _ in range(3))
    do = torch.randn(B, H, S, D, dtype=torch.bfloat16)
    qd, kd, vd = (t.detach() for t in (q, k, v))
    o_, st_ = launch.attention_forward(qd, kd, vd, right_bound=0)

    class Empty(torch.autograd.Function):
        @staticmethod
        def forward(ctx, q, k, v, scale, left_bound, right_bound, alignment):
            o = torch.empty_like(q)
            ctx.save_for_backward(q, k, v, o, torch.empty(B, H, S))
            return o

        @staticmethod
        @torch.autograd.function.once_differentiable
        def backward(ctx, g):
            q, k, v, _, _ = ctx.saved_tensors
            return torch.empty_like(q), torch.empty_like(k), torch.empty_like(v), None, None, None, None

    def step():
        torch.autograd.grad(sdpa_bwd.attention(q, k, v, causal=True), (q, k, v), do)

    rows = [("api forward + backward (autograd.grad)", step),
            ("api forward alone (the Function's apply)", lambda: api._EagerAttention.classic.apply(q, k, v, 0.125, None, 0,
                                                                                             "top_left")),
            ("launcher forward alone", lambda: launch.attention_forward(qd, kd, vd, right_bound=0)),
            ("launcher backward alone, outputs given", lambda: launch.attention_backward(
                qd, kd, vd, o_, do, st_, right_bound=0, dq=torch.empty_like(qd), dk=torch.empty_like(kd),
                dv=torch.empty_like(vd))),
            ("an empty autograd.Function's step (floor)", lambda: torch.autograd.grad(
                Empty.apply(q, k, v, 0.125, None, 0, "top_left"), (q, k, v), do)),
            ("a native op's step (q + k + v)", lambda: torch.autograd.grad(q + k + v, (q, k, v), do))]
    for name, fn in rows:
        us = min(timeit.repeat(fn, number=calls, repeat=5)) / calls * 1e6
        print(f"{','.join(map(str, shape))} causal: {name:44s} {us:7.1f} us a call (least of 5 x {calls})", flush=True)


def threads(shape, calls):
    """``--threads``: the launcher's Python (kernels stubbed) a forward + backward on one thread, and with the
    backward handed to a second thread pinned to the calling thread's core or to another core (as autograd hands a
    CUDA backward to its device thread), beside the hand-off alone; us a step, the least of five loops."""
    import queue
    import threading

    _stub_kernels()
    cores = sorted(os.sched_getaffinity(0))
    if len(cores) < 2:
        raise SystemExit(f"--threads: this process may run on {len(cores)} core(s); it needs two")
    q, k, v, do = (torch.randn(*shape, dtype=torch.bfloat16) for _ in range(4))

    def fwd():
        return launch.attention_forward(q, k, v, right_bound=0)

    def bwd(o, st):
        launch.attention_backward(q, k, v, o, do, st, right_bound=0)

    def handed(core, payload):
        os.sched_setaffinity(0, {cores[0]})
        inbox, done = queue.SimpleQueue(), threading.Event()

        def worker():
            os.sched_setaffinity(0, {core})
            while (item := inbox.get()) is not None:
                if payload:
                    bwd(*item)
                done.set()

        t = threading.Thread(target=worker)
        t.start()
        t0 = time.perf_counter()
        for _ in range(calls):
            item = fwd() if payload else (None, None)
            done.clear()
            inbox.put(item)
            done.wait()
        dt = (time.perf_counter() - t0) / calls * 1e6
        inbox.put(None)
        t.join()
        return dt

    def one(_core, _payload):
        os.sched_setaffinity(0, {cores[0]})
        t0 = time.perf_counter()
        for _ in range(calls):
            bwd(*fwd())
        return (time.perf_counter() - t0) / calls * 1e6

    rows = [("forward + backward, one thread", one, cores[0], True),
            ("hand-off alone, same core", handed, cores[0], False),
            ("hand-off alone, another core", handed, cores[1], False),
            ("backward handed off, same core", handed, cores[0], True),
            ("backward handed off, another core", handed, cores[1], True)]
    for name, fn, core, payload in rows:
        print(f"{','.join(map(str, shape))} causal: {name:36s} {min(fn(core, payload) for _ in range(5)):7.1f} us a "
              "step (least of 5)", flush=True)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--shape", default="1,1,128,64")
    ap.add_argument("--calls", type=int, default=200)
    ap.add_argument("--profile", action="store_true", help="also cProfile our backward calls (top 25 by own time) and sum their kernels' GPU time")
    ap.add_argument("--python-only", action="store_true",
                    help="no GPU: time our launcher's Python on CPU tensors, kernel launches stubbed out")
    ap.add_argument("--threads", action="store_true",
                    help="with --python-only: the backward handed to a thread on the same core and on another")
    ap.add_argument("--api", action="store_true",
                    help="with --python-only: a step through sdpa_bwd.attention and autograd, its parts, and the "
                         "floor of any Python autograd.Function")
    args = ap.parse_args()
    B, H, S, D = (int(x) for x in args.shape.split(","))
    if args.python_only and args.threads:
        return threads((B, H, S, D), args.calls * 10)
    if args.python_only and args.api:
        return api_floor((B, H, S, D), args.calls * 10)
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
            print(f"cProfile, {'causal' if causal else 'nc'} backward:")
            print_profile(lambda: launch.attention_backward(q, k, v, o, do, st, right_bound=rb), args.calls, 25,
                          sync=torch.cuda.synchronize)
            from ab_perf import split  # the profiler's per-kernel device time (ms a call, mean of 5 calls)

            parts = split(lambda: launch.attention_backward(q, k, v, o, do, st, right_bound=rb))
            print(f"GPU time a call {sum(parts.values()) * 1000:.1f} us: "
                  + ", ".join(f"{n} {t * 1000:.1f}" for n, t in parts.items()))


if __name__ == "__main__":
    main()
