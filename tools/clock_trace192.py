"""The 192 / 128 causal call's time against time under load, ours and cuDNN's, with the SM clock and the energy
a call takes (stop 41), on the H200:

    PYTHONPATH=src python3 tools/clock_trace192.py --out $OUT [--seconds 3]

Stop 41 run 2 (``power192_probe.py``) found our pass 2.7% slower in do_bench's timed calls (~0.25 s into a run)
than in its first ones, cuDNN's not, with nvidia-smi showing the software power cap (throttle reason 0x4) and the
SM clock at 1845-1965 MHz in the run's first ~0.5 s, 1980 after. Here each engine, after 2 s idle, runs its call
back to back for ``--seconds`` (the L2 flushed before each call, as do_bench does), each call timed by CUDA
events; NVML (through pynvml, where the machine has it) samples the SM clock and the throttle reasons every ~5 ms
in a thread and reads the card's energy counter before and after. Printed: per 100 ms bin, the median call time
and the clock; each engine's energy per call (J) and mean power. Also the power limits NVML reports. One JSON in
``--out``.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import threading
import time


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--out", default="/tmp/clock_trace192")
    ap.add_argument("--seconds", type=float, default=3.0)
    args = ap.parse_args()
    import torch

    from sdpa_bwd.engine import launch

    sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
    from gluon_probe_common import cudnn_backward, inputs192
    from sustained192 import timed_calls

    try:
        import pynvml
        pynvml.nvmlInit()
        dev = pynvml.nvmlDeviceGetHandleByIndex(torch.cuda.current_device())
    except Exception as e:  # noqa: BLE001 - a machine without NVML's Python binding: times only
        print("no NVML:", e)
        pynvml = dev = None
    info = {}
    if dev is not None:
        for name in ("nvmlDeviceGetEnforcedPowerLimit", "nvmlDeviceGetPowerManagementLimit",
                     "nvmlDeviceGetPowerManagementDefaultLimit"):
            try:
                info[name] = getattr(pynvml, name)(dev)
            except Exception as e:  # noqa: BLE001
                info[name] = str(e)
        print("power limits (mW):", info)
    os.makedirs(args.out, exist_ok=True)
    q, k, v, o, do, stats, band = inputs192()
    fns = {"ours": lambda: launch.attention_backward(q, k, v, o, do, stats, **band),
           "cudnn": cudnn_backward(q, k, v, do, True)}
    cache = torch.empty(256 * 1024 * 1024 // 4, dtype=torch.int32, device="cuda")
    result = dict(limits=info, engines={})
    for rnd in range(2):
        for name, fn in fns.items():
            fn()
            torch.cuda.synchronize()
            time.sleep(2.0)
            samples, stop = [], threading.Event()

            def sample():
                while not stop.is_set():
                    try:
                        samples.append((time.time(), pynvml.nvmlDeviceGetClockInfo(dev, pynvml.NVML_CLOCK_SM),
                                        pynvml.nvmlDeviceGetCurrentClocksThrottleReasons(dev)))
                    except Exception:  # noqa: BLE001
                        pass
                    time.sleep(0.005)
            th = threading.Thread(target=sample)
            if dev is not None:
                e0 = pynvml.nvmlDeviceGetTotalEnergyConsumption(dev)
                th.start()
            n = int(args.seconds / 0.00065)
            t_start = time.time()
            at, ms = timed_calls(fn, n, cache)  # at: ms since the loop's first event
            t_end = time.time()
            if dev is not None:
                e1 = pynvml.nvmlDeviceGetTotalEnergyConsumption(dev)
                stop.set()
                th.join()
            bins = {}
            for t, m in zip(at, ms):
                bins.setdefault(int(t // 100), []).append(m)
            gpu_s = at[-1] / 1000.0 + ms[-1] / 1000.0
            clk = {}
            for t, c, r in samples:  # host time; the GPU's loop starts about when the host's does
                clk.setdefault(int((t - t_start) * 10), []).append((c, r))
            rows = []
            for i in sorted(bins):
                cs = clk.get(i, [])
                rows.append(dict(t_ms=i * 100, call_ms=round(statistics.median(bins[i]), 4), calls=len(bins[i]),
                                 clock_mhz=round(statistics.median(c for c, _ in cs)) if cs else None,
                                 throttle=sorted({hex(r) for _, r in cs}) if cs else None))
            energy = (e1 - e0) / 1000.0 if dev is not None else None
            out = dict(bins=rows, calls=n, gpu_s=round(gpu_s, 3), host_s=round(t_end - t_start, 3),
                       energy_j=energy, j_per_call=round(energy / n, 5) if energy else None,
                       watts=round(energy / gpu_s, 1) if energy else None)
            result["engines"][f"{name}{rnd}"] = out
            print(f"{name} round {rnd}: {n} calls, GPU {gpu_s:.2f} s, host {t_end - t_start:.2f} s, "
                  f"J/call {out['j_per_call']}, W {out['watts']}")
            for r in rows:
                print(f"   {r['t_ms']:5d} ms  {r['call_ms']:.4f} ms x{r['calls']:4d}  "
                      f"{r['clock_mhz']} MHz {r['throttle']}")
            sys.stdout.flush()
    with open(os.path.join(args.out, "clock_trace192.json"), "w") as f:
        json.dump(result, f, indent=1)


if __name__ == "__main__":
    main()
