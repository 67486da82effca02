"""The 192 / 128 backward call under sustained load: time a call and energy a call, per launch form, beside cuDNN's
(stop 41), on the H200:

    PYTHONPATH=src python3 tools/sustained192.py --out $OUT [--config NAME:switch=value,...]... [--seconds 2.5]

Stop 41 run 3 (``clock_trace192.py``) found both engines' calls at (1,16,4096) causal bf16 held by the card's 700 W
cap under sustained load: ours reaches the cap ~0.1 s into a run, cuDNN's ~0.9 s; past that a call's time follows
its energy. So each form here is measured as a sustained job runs it: after 1.5 s of rest, the call back to back
for ``--seconds`` (the L2 flushed before each call, as do_bench does), each call timed by CUDA events, and NVML's
energy counter read before and after. Reported per form and round: ``burst_ms`` (median call of the first 80 ms,
the boost clock), ``sustained_ms`` (mean call after the first second, cap and clock dips included), ``j_per_call``
and the mean power. ``--config`` (repeatable; default: the launcher's form and cuDNN's): ``cudnn``, or a name and
``launch.switches`` values (``hg4:head_group=4``, ``single:gluon_bwd192_persist=0``), to which ``probe=NAME`` adds a
timing probe (``PROBES``: wrong results by design); the forms alternate in each of ``--rounds`` rounds. One JSON in
``--out``. ``--kernel-probe NAME`` swaps a part of the kernel for a probe's (``KERNEL_PROBES``) for the whole run.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import time
from contextlib import nullcontext
from unittest import mock

# timing probes a config may name (``probe=NAME``): what each leaves out of the call
PROBES = {
    "no_convert": "DQ_CONVERT (dQ left in the fp32 accumulator, never written to dQ): the most that converting dQ "
                  "inside the pass, as each query tile's last reduce lands, could save (stop 42)",
}


def probe(name, launch):
    """A context with the launcher's part that probe ``name`` leaves out replaced by nothing (None: as it is)."""
    if name is None:
        return nullcontext()
    if name not in PROBES:
        raise ValueError(f"probe {name!r} is not one of {sorted(PROBES)}; name one of those or add it to PROBES")
    return mock.patch.object(launch, "_launch_dq_convert", lambda *a, **kw: None)


# timing probes inside the 192 / 128 kernel (``--kernel-probe``, ``bwd192_probes``): swapped in before the process's
# first compile, so they apply to every config of the run but cuDNN's
KERNEL_PROBES = {
    "kv_none": "no K / V loads (``load_kv_none``): what a block's K and V load costs its start (stop 44)",
    "no_store": "no dK / dV stores (``store_rows_none``): what a block's end pays to write them (stop 44)",
}


def kernel_probe(name: str) -> None:
    """Swap the 192 / 128 kernel's part that probe ``name`` (``KERNEL_PROBES``) replaces, before any compile."""
    if name not in KERNEL_PROBES:
        raise ValueError(f"kernel probe {name!r} is not one of {sorted(KERNEL_PROBES)}; name one of those or add it")
    import bwd192_probes as pr

    from sdpa_bwd.engine.kernels import attention_bwd_gluon_192 as g

    if name == "kv_none":
        g._load_kv = pr.load_kv_none
    else:
        g._store_rows = pr.store_rows_none


def _parse(spec: str):
    name, _, rest = spec.partition(":")
    values = {}
    for kv in filter(None, rest.split(",")):
        k, _, v = kv.partition("=")
        values[k] = int(v) if v.lstrip("-").isdigit() else v
    return name, values


def timed_calls(fn, n: int, cache):
    """``fn`` ``n`` times back to back, the L2 flushed (``cache`` zeroed) before each, as do_bench does: each call's
    start (ms after the first) and time (ms), by CUDA events."""
    import torch

    ev = [(torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)) for _ in range(n)]
    first = torch.cuda.Event(enable_timing=True)
    first.record()
    for a, b in ev:
        cache.zero_()
        a.record()
        fn()
        b.record()
    torch.cuda.synchronize()
    return [first.elapsed_time(a) for a, _ in ev], [a.elapsed_time(b) for a, b in ev]


def sustained(fn, seconds: float, dev, pynvml, cache) -> dict:
    """``fn`` back to back for ``seconds`` after a rest, as the module docstring says."""
    import torch

    fn()
    torch.cuda.synchronize()
    time.sleep(1.5)
    n = max(10, int(seconds / 0.00062))
    e0 = pynvml.nvmlDeviceGetTotalEnergyConsumption(dev) if dev is not None else None
    at, ms = timed_calls(fn, n, cache)
    e1 = pynvml.nvmlDeviceGetTotalEnergyConsumption(dev) if dev is not None else None
    gpu_s = (at[-1] + ms[-1]) / 1000.0
    late = [m for t, m in zip(at, ms) if t >= 1000.0]
    energy = (e1 - e0) / 1000.0 if e0 is not None else None
    return dict(calls=n, burst_ms=round(statistics.median([m for t, m in zip(at, ms) if t < 80.0]), 5),
                sustained_ms=round(statistics.fmean(late), 5) if late else None,
                j_per_call=round(energy / n, 5) if energy else None,
                watts=round(energy / gpu_s, 1) if energy else None)


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--out", default="/tmp/sustained192")
    ap.add_argument("--config", action="append", default=None)
    ap.add_argument("--seconds", type=float, default=2.5)
    ap.add_argument("--rounds", type=int, default=2)
    ap.add_argument("--dtype", default="bfloat16")
    ap.add_argument("--nc", action="store_true", help="without the causal mask")
    ap.add_argument("--kernel-probe", default=None, choices=sorted(KERNEL_PROBES),
                    help="a timing probe inside the kernel for every config of the run (wrong gradients)")
    args = ap.parse_args()
    import torch

    from sdpa_bwd.engine import launch, launch_cache

    sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
    from gluon_probe_common import cudnn_backward, inputs192
    if args.kernel_probe:
        kernel_probe(args.kernel_probe)

    try:
        import pynvml
        pynvml.nvmlInit()
        dev = pynvml.nvmlDeviceGetHandleByIndex(torch.cuda.current_device())
    except Exception as e:  # noqa: BLE001 - no NVML binding: times only
        print("no NVML:", e)
        pynvml = dev = None
    configs = [_parse(c) for c in (args.config or ["default:", "cudnn:"])]
    q, k, v, o, do, stats, band = inputs192(args.dtype, causal=not args.nc)
    peer = cudnn_backward(q, k, v, do, not args.nc)
    cache = torch.empty(256 * 1024 * 1024 // 4, dtype=torch.int32, device="cuda")
    rows = []
    for rnd in range(args.rounds):
        for name, values in configs:
            if name == "cudnn":
                row = sustained(peer, args.seconds, dev, pynvml, cache)
            else:
                switches = {k: v for k, v in values.items() if k != "probe"}
                with launch.switches(**switches), probe(values.get("probe"), launch):
                    launch_cache.clear()
                    row = sustained(lambda: launch.attention_backward(q, k, v, o, do, stats, **band), args.seconds,
                                    dev, pynvml, cache)
                launch_cache.clear()
            row.update(round=rnd, config=name, switches=values, dtype=args.dtype, causal=not args.nc,
                       kernel_probe=args.kernel_probe)
            print(json.dumps(row), flush=True)
            rows.append(row)
    os.makedirs(args.out, exist_ok=True)
    tag = f"{'_nc' if args.nc else ''}{'_' + args.kernel_probe if args.kernel_probe else ''}"
    with open(os.path.join(args.out, f"sustained192_{args.dtype}{tag}.json"), "w") as f:
        json.dump(rows, f, indent=1)

    def mean(values, width, digits):  # "-" where no call gave one (a run under a second has no sustained calls)
        values = [x for x in values if x is not None]
        return f"{statistics.fmean(values):{width}.{digits}f}" if values else f"{'-':>{width}}"

    print("config          burst_ms  sustained_ms  J/call   W")
    for name, _ in configs:
        mine = [r for r in rows if r["config"] == name]
        print(f"{name:14s} {mean([r['burst_ms'] for r in mine], 9, 4)} "
              f"{mean([r['sustained_ms'] for r in mine], 12, 4)} "
              f"{mean([r['j_per_call'] for r in mine], 8, 4)} {mean([r['watts'] for r in mine], 6, 1)}")


if __name__ == "__main__":
    main()
