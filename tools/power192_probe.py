"""Is the 192 / 128 causal call's gap to cuDNN a matter of the card's power cap (stop 41)? On the H200:

    PYTHONPATH=src python3 tools/power192_probe.py --out $OUT

Stop 41 run 1 (``side192_probe.py``) profiled ten calls after three warm-up calls, at the boost clock: our call's
kernels span 596 us against cuDNN's 604, while the benchmark (do_bench, 250 ms warm-up, past the cap's onset) has
ours at 0.62 ms against 0.61. Here, at (1,16,4096) causal bf16 BHSD, each engine's ``triton.testing.do_bench``
exactly as the benchmark runs it (warm-up 250 ms, rep 40 ms, L2 flushed before each call) runs under
torch.profiler, twice, the engines alternating, with nvidia-smi sampling the SM clock and the power draw every 20 ms
beside it. Reported: do_bench's median, and from the profile the timed calls' median kernel durations and span
(first kernel's start to the last one's end) and the median gap from the flush's end to the call's first kernel;
and the same for do_bench's first four calls, its estimate's, at the boost clock (its warm-up calls run without
flushes, so they fall into the fifth's group). One JSON in ``--out``.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import time


def _calls(evs, flush_min_us: float = 20.0):
    """The profile's kernels grouped into calls, each started by the L2 flush (do_bench's ``cache.zero_()``, the
    only fill of more than ``flush_min_us``): a list of (flush end, [(name, start, end)])."""
    calls = []
    for e in evs:
        dur = e.time_range.end - e.time_range.start
        if "FillFunctor" in e.name and dur > flush_min_us:
            calls.append((e.time_range.end, []))
        elif calls:
            calls[-1][1].append((e.name, e.time_range.start, e.time_range.end))
    return [c for c in calls if c[1]]


def _summary(calls):
    n = min(len(k) for _, k in calls)
    slots = []
    for s in range(n):
        slots.append(dict(name=calls[0][1][s][0][:70],
                          dur_us=round(statistics.median(k[s][2] - k[s][1] for _, k in calls), 2),
                          start_us=round(statistics.median(k[s][1] - k[0][1] for _, k in calls), 2)))
    return dict(calls=len(calls), kernels=slots,
                span_us=round(statistics.median(max(x[2] for x in k) - k[0][1] for _, k in calls), 2),
                flush_gap_us=round(statistics.median(k[0][1] - f for f, k in calls), 2))


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--out", default="/tmp/power192")
    args = ap.parse_args()
    import torch
    import triton

    from sdpa_bwd.engine import launch

    sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
    from gluon_probe_common import cudnn_backward, inputs192

    os.makedirs(args.out, exist_ok=True)
    q, k, v, o, do, stats, band = inputs192()
    fns = {"ours": lambda: launch.attention_backward(q, k, v, o, do, stats, **band),
           "cudnn": cudnn_backward(q, k, v, do, True)}
    smi = subprocess.Popen(["nvidia-smi", "--query-gpu=timestamp,clocks.sm,power.draw,clocks_throttle_reasons.active",
                            "--format=csv,noheader", "-lms", "20"], stdout=open(os.path.join(args.out, "smi.csv"), "w"))
    time.sleep(1.0)
    res = []
    for rnd in range(2):
        for name, fn in fns.items():
            fn()
            torch.cuda.synchronize()
            time.sleep(1.0)  # the card back below its cap before each engine's run
            t0 = time.time()
            with torch.profiler.profile(activities=[torch.profiler.ProfilerActivity.CUDA]) as prof:
                ms = triton.testing.do_bench(fn, warmup=250, rep=40)
                torch.cuda.synchronize()
            t1 = time.time()
            evs = sorted((e for e in prof.events() if e.device_type == torch.autograd.DeviceType.CUDA),
                         key=lambda e: e.time_range.start)
            calls = _calls(evs)
            timed = int(round(40 / ms))
            row = dict(round=rnd, engine=name, do_bench_ms=round(ms, 5), wall=(t0, t1),
                       first10=_summary(calls[:4]), timed=_summary(calls[-timed:]))
            print(json.dumps(dict(round=rnd, engine=name, ms=row["do_bench_ms"],
                                  first10_span=row["first10"]["span_us"], timed_span=row["timed"]["span_us"],
                                  timed_gap=row["timed"]["flush_gap_us"],
                                  timed_kernels=[(x["name"][:30], x["dur_us"]) for x in row["timed"]["kernels"]],
                                  first10_kernels=[(x["name"][:30], x["dur_us"]) for x in row["first10"]["kernels"]])),
                  flush=True)
            res.append(row)
    time.sleep(0.5)
    smi.terminate()
    with open(os.path.join(args.out, "power192_probe.json"), "w") as f:
        json.dump(res, f, indent=1)


if __name__ == "__main__":
    main()
