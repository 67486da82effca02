"""Host time of a call as users make it: ``sdpa_bwd.attention`` + ``torch.autograd.grad`` against the same
through ``F.scaled_dot_product_attention`` on cuDNN and flash, on problems too small to be GPU-bound, so that
what a call costs is its host path (Python, the custom op's dispatch, autograd, argument binding, launches).

    PYTHONPATH=src python3 benchmarks/bench_host.py [--calls 300] [--profile] [--out DIR]
    PYTHONPATH=src python3 benchmarks/bench_host.py --split [--calls 200] [--out DIR]

For each shape and path it reports microseconds a call two ways:

* ``loop``: ``calls`` calls back to back, then one synchronize (what a training loop that never syncs sees: the
  host path's time wherever it exceeds the GPU's);
* ``sync``: one synchronize after every call (what a caller that syncs each step sees).

Paths: ours through the public API (forward + backward, forward alone, backward alone on a retained graph), our
custom ops called directly (``torch.ops.sdpa_bwd.attention_forward`` / ``attention_backward``: dispatch, no
autograd) and our launcher (``launch.attention_forward`` / ``attention_backward``: no custom op, no autograd);
cuDNN's and flash's SDPA the same three ways. ``--profile`` prints cProfile's top functions of our forward +
backward (the backward on the calling thread). ``--calling-thread`` runs every path's backward on the calling
thread (``torch.autograd.set_multithreading_enabled(False)``) instead of autograd's CUDA device thread, where
Python runs slower: on an H100 host (2026-12-06) a Python loop took 2.5 us there against 1.5 on the calling
thread, a Triton launch 18.3 against 13.7, and a forward + backward through ``sdpa_bwd.attention`` 581 against
289 us (PyTorch's open pull request 192004 keeps one-device graphs on the calling thread for this reason). The JSON
(``--out``) records the card, the versions, the commit and the thread.
"""

from __future__ import annotations

import argparse
import gc
import json
import os
import sys
import time

import torch
import torch.nn.functional as F
from common import git_commit
from torch.nn.attention import SDPBackend, sdpa_kernel

SHAPES = [(1, 2, 128, 64, True), (16, 16, 512, 64, False), (4, 8, 1024, 128, True)]  # B, H, S, D, causal


def per_call_us(fn, calls: int, sync_each: bool) -> float:
    for _ in range(20):
        fn()
    torch.cuda.synchronize()
    best = float("inf")
    for _ in range(3):  # the least of three: a shared host's noise only ever adds
        t0 = time.perf_counter()
        for _ in range(calls):
            fn()
            if sync_each:
                torch.cuda.synchronize()
        torch.cuda.synchronize()
        best = min(best, (time.perf_counter() - t0) / calls * 1e6)
    return best


def paths(B, H, S, D, causal):
    import sdpa_bwd
    from sdpa_bwd.engine import launch

    q, k, v, do = (torch.randn(B, H, S, D, device="cuda", dtype=torch.bfloat16) for _ in range(4))
    qg, kg, vg = (t.detach().requires_grad_() for t in (q, k, v))
    rb = 0 if causal else None
    out = {}

    def api_fwd():
        return sdpa_bwd.attention(qg, kg, vg, causal=causal)

    def api_step():
        torch.autograd.grad(api_fwd(), (qg, kg, vg), do)

    o_api = api_fwd()
    out["ours-api"] = (api_step, api_fwd, lambda: torch.autograd.grad(o_api, (qg, kg, vg), do, retain_graph=True))
    # The custom ops called directly (no autograd): between the launcher's row and the API's, this row splits
    # the API's extra host time into the ops' dispatch and autograd's part (its graph, its device thread).
    scale = 1.0 / D ** 0.5
    fwd_op, bwd_op = torch.ops.sdpa_bwd.attention_forward, torch.ops.sdpa_bwd.attention_backward
    o_op, st_op = fwd_op(q, k, v, scale, None, rb, "top_left")

    def op_step():
        o2, st2 = fwd_op(q, k, v, scale, None, rb, "top_left")
        bwd_op(q, k, v, o2, do, st2, scale, None, rb, "top_left", False)

    out["ours-op"] = (op_step, lambda: fwd_op(q, k, v, scale, None, rb, "top_left"),
                      lambda: bwd_op(q, k, v, o_op, do, st_op, scale, None, rb, "top_left", False))
    o, st = launch.attention_forward(q, k, v, right_bound=rb)

    def launcher_step():
        o2, st2 = launch.attention_forward(q, k, v, right_bound=rb)
        launch.attention_backward(q, k, v, o2, do, st2, right_bound=rb)

    out["ours-launcher"] = (launcher_step, lambda: launch.attention_forward(q, k, v, right_bound=rb),
                            lambda: launch.attention_backward(q, k, v, o, do, st, right_bound=rb))
    for name, backend in (("cudnn", SDPBackend.CUDNN_ATTENTION), ("flash", SDPBackend.FLASH_ATTENTION)):
        def fwd(backend=backend):
            with sdpa_kernel(backend):
                return F.scaled_dot_product_attention(qg, kg, vg, is_causal=causal)

        def step(fwd=fwd, backend=backend):
            with sdpa_kernel(backend):
                torch.autograd.grad(fwd(), (qg, kg, vg), do)

        try:
            o_peer = fwd()
        except RuntimeError as exc:  # the backend declines the shape
            print(f"  {name}: {str(exc).splitlines()[0][:120]}", flush=True)
            continue
        out[name] = (step, fwd, lambda o_peer=o_peer, backend=backend: torch.autograd.grad(
            o_peer, (qg, kg, vg), do, retain_graph=True))
    return out


def profile(B, H, S, D, causal, calls: int) -> None:
    import cProfile
    import pstats

    import sdpa_bwd

    q, k, v, do = (torch.randn(B, H, S, D, device="cuda", dtype=torch.bfloat16, requires_grad=True)
                   for _ in range(4))
    step = lambda: torch.autograd.grad(sdpa_bwd.attention(q, k, v, causal=causal), (q, k, v), do)  # noqa: E731
    # Autograd runs a CUDA backward on its own device thread, where cProfile (this thread's) would not see it:
    # the profile runs the backward on the calling thread instead.
    torch.autograd.set_multithreading_enabled(False)
    for _ in range(20):
        step()
    torch.cuda.synchronize()
    prof = cProfile.Profile()
    prof.enable()
    for _ in range(calls):
        step()
    torch.cuda.synchronize()
    prof.disable()
    torch.autograd.set_multithreading_enabled(True)
    print(f"cProfile of {calls} forward + backward calls through sdpa_bwd.attention at {(B, H, S, D)}, "
          f"causal={causal}:")
    stats = pstats.Stats(prof)
    stats.sort_stats("tottime").print_stats(30)
    stats.sort_stats("cumulative").print_stats(40)


def split(calls: int) -> dict:
    """Where the API's host time goes at (1, 2, 128, 64) causal bf16: us a call (the least of three loops of
    ``calls``, one synchronize each) of the API's forward + backward and its parts, the launcher's, an empty autograd
    Function's (autograd's own cost on this host) and cuDNN's, each of the last two on autograd's device thread and
    on the calling thread, the API's with a 10 us GIL switch interval, the API step timed inside (forward; ``autograd.grad`` to our
    backward's first line; our backward; its end to ``grad``'s return), the launch cache's replays a call, and
    deterministic mode with ``engine.alloc`` against the NaN fill it skips, at three shapes."""
    import time as _time

    import sdpa_bwd
    from sdpa_bwd.engine import alloc, api, launch, launch_cache

    B, H, S, D = 1, 2, 128, 64
    q, k, v, do = (torch.randn(B, H, S, D, device="cuda", dtype=torch.bfloat16) for _ in range(4))
    qg, kg, vg = (t.detach().requires_grad_() for t in (q, k, v))
    out: dict = {}

    def put(name, fn, n=calls):
        out[name] = round(per_call_us(fn, n, False), 1)
        print(f"  {name:58s} {out[name]:8.1f} us", flush=True)

    api_fwd = lambda: sdpa_bwd.attention(qg, kg, vg, causal=True)  # noqa: E731
    api_step = lambda: torch.autograd.grad(api_fwd(), (qg, kg, vg), do)  # noqa: E731

    def launcher_step():
        o2, s2 = launch.attention_forward(q, k, v, right_bound=0)
        launch.attention_backward(q, k, v, o2, do, s2, right_bound=0)

    class Empty(torch.autograd.Function):  # the API's Function with nothing inside: autograd's own cost
        @staticmethod
        def forward(ctx, q, k, v):
            o, st = torch.empty_like(q), q.new_empty(q.shape[:3], dtype=torch.float32)
            ctx.save_for_backward(q, k, v, o, st)
            return o

        @staticmethod
        def backward(ctx, g):
            a, b, c, _, _ = ctx.saved_tensors
            return torch.empty_like(a), torch.empty_like(b), torch.empty_like(c)

    o_ret = api_fwd()
    o_l, st_l = launch.attention_forward(q, k, v, right_bound=0)
    print(f"{torch.cuda.get_device_name()}: the API's host time split, (1, 2, 128, 64) causal bf16", flush=True)
    put("api fwd+bwd", api_step)
    put("api fwd", api_fwd)
    put("api fwd, no_grad", lambda: torch.no_grad()(api_fwd)())
    put("api bwd, graph retained", lambda: torch.autograd.grad(o_ret, (qg, kg, vg), do, retain_graph=True))
    put("api fwd+bwd, graph retained", lambda: torch.autograd.grad(api_fwd(), (qg, kg, vg), do, retain_graph=True))
    gc_was = gc.isenabled()
    gc.disable()
    put("api fwd+bwd, gc off", api_step)
    if gc_was:
        gc.enable()
    torch.autograd.set_multithreading_enabled(False)
    put("api fwd+bwd, calling thread", api_step)
    torch.autograd.set_multithreading_enabled(True)
    put("launcher fwd+bwd", launcher_step)
    put("launcher fwd", lambda: launch.attention_forward(q, k, v, right_bound=0))
    put("launcher bwd", lambda: launch.attention_backward(q, k, v, o_l, do, st_l, right_bound=0))
    empty_step = lambda: torch.autograd.grad(Empty.apply(qg, kg, vg), (qg, kg, vg), do)  # noqa: E731

    def cudnn_step():
        with sdpa_kernel(SDPBackend.CUDNN_ATTENTION):
            torch.autograd.grad(F.scaled_dot_product_attention(qg, kg, vg, is_causal=True), (qg, kg, vg), do)

    put("empty Function fwd+bwd", empty_step)
    put("cudnn fwd+bwd", cudnn_step)
    # The same steps with the backward on the calling thread: what autograd's device thread costs each path (on an
    # H100 host, 2026-12-06, the API's step took 605 us there and 247 here, the launcher's 155).
    torch.autograd.set_multithreading_enabled(False)
    put("empty Function fwd+bwd, calling thread", empty_step)
    put("cudnn fwd+bwd, calling thread", cudnn_step)
    torch.autograd.set_multithreading_enabled(True)
    # Python hands the GIL between threads on request after the switch interval (5 ms): a shorter one tells whether
    # the device thread waits for the GIL.
    interval = sys.getswitchinterval()
    sys.setswitchinterval(1e-5)
    try:
        put("api fwd+bwd, switch interval 10 us", api_step)
    finally:
        sys.setswitchinterval(interval)

    marks, sums = {}, dict(fwd=0.0, to_bwd=0.0, bwd=0.0, after=0.0)
    real = api._backward_into_fresh

    def timed(*a):
        marks["in"] = _time.perf_counter()
        r = real(*a)
        marks["out"] = _time.perf_counter()
        return r

    api._backward_into_fresh = timed
    try:
        for i in range(calls + 20):
            t0 = _time.perf_counter()
            o2 = api_fwd()
            t1 = _time.perf_counter()
            torch.autograd.grad(o2, (qg, kg, vg), do)
            t2 = _time.perf_counter()
            if i >= 20:
                for key, dt in (("fwd", t1 - t0), ("to_bwd", marks["in"] - t1), ("bwd", marks["out"] - marks["in"]),
                                ("after", t2 - marks["out"])):
                    sums[key] += dt
    finally:
        api._backward_into_fresh = real
    torch.cuda.synchronize()
    out["inside"] = {key: round(v / calls * 1e6, 1) for key, v in sums.items()}
    print(f"  inside an api step: forward {out['inside']['fwd']}, grad -> our backward {out['inside']['to_bwd']}, "
          f"our backward {out['inside']['bwd']}, its end -> grad returns {out['inside']['after']} us", flush=True)

    before = dict(launch_cache.counts)
    for _ in range(10):
        api_step()
    torch.cuda.synchronize()
    out["cache_per_step"] = {key: (launch_cache.counts[key] - before[key]) / 10 for key in before}
    print(f"  launch cache a step: {out['cache_per_step']}", flush=True)

    real_filling = alloc._filling
    for shape in [(1, 2, 128, 64), (4, 16, 1024, 64), (2, 16, 4096, 128)]:
        qq, kk, vv = (torch.randn(*shape, device="cuda", dtype=torch.bfloat16, requires_grad=True) for _ in range(3))
        dd = torch.randn(*shape, device="cuda", dtype=torch.bfloat16)
        step = lambda: torch.autograd.grad(sdpa_bwd.attention(qq, kk, vv, causal=True), (qq, kk, vv), dd)  # noqa
        n = calls if shape[2] <= 128 else max(10, calls // 10)
        put(f"default fwd+bwd {shape}", step, n)
        torch.use_deterministic_algorithms(True)
        try:
            put(f"deterministic fwd+bwd {shape}", step, n)
            alloc._filling = lambda: False  # as before engine.alloc: torch.empty, NaN-filled in this mode
            put(f"deterministic fwd+bwd {shape}, NaN-filled buffers", step, n)
        finally:
            alloc._filling = real_filling
            torch.use_deterministic_algorithms(False)
    return out


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--calls", type=int, default=300)
    ap.add_argument("--profile", action="store_true")
    ap.add_argument("--calling-thread", action="store_true",
                    help="run backwards on the calling thread (torch.autograd.set_multithreading_enabled(False))")
    ap.add_argument("--split", action="store_true",
                    help="only where the API's host time goes (``split``), written as bench_host_split.json")
    ap.add_argument("--out", help="write bench_host.json here (a folder)")
    args = ap.parse_args()
    if not torch.cuda.is_available():
        print("bench_host.py needs a CUDA device", file=sys.stderr)
        return 2
    card = torch.cuda.get_device_name()
    commit = git_commit()
    if args.split:
        got = split(args.calls)
        if args.out:
            os.makedirs(args.out, exist_ok=True)
            with open(os.path.join(args.out, "bench_host_split.json"), "w") as f:
                json.dump({"card": card, "torch": torch.__version__, "commit": commit, "split": got}, f, indent=1)
        return 0
    rows = []
    thread = "calling" if args.calling_thread else "device"
    torch.autograd.set_multithreading_enabled(not args.calling_thread)
    print(f"{card}, torch {torch.__version__}; us a call (loop: back to back, one sync; sync: a sync each call); "
          f"backward on autograd's {thread} thread")
    for shape in SHAPES:
        for name, (step, fwd, bwd) in paths(*shape).items():
            row = {"shape": shape[:4], "causal": shape[4], "path": name}
            for part, fn in (("fwd+bwd", step), ("fwd", fwd), ("bwd", bwd)):
                for timer in ("loop", "sync"):
                    row[f"{part} {timer}"] = round(per_call_us(fn, args.calls, timer == "sync"), 1)
            rows.append(row)
            print(f"  {shape}: {name:14s} " + "  ".join(f"{k} {v:7.1f}" for k, v in row.items()
                                                        if k not in ("shape", "causal", "path")), flush=True)
    if args.profile:
        profile(*SHAPES[0], calls=args.calls)
    if args.out:
        os.makedirs(args.out, exist_ok=True)
        with open(os.path.join(args.out, "bench_host.json"), "w") as f:
            json.dump({"card": card, "torch": torch.__version__, "commit": commit, "backward_thread": thread,
                       "rows": rows}, f, indent=1)
    return 0


if __name__ == "__main__":
    sys.exit(main())
