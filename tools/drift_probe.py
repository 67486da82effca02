"""Does a timing's place in a row decide it? The card's state over a benchmark row, sampled beside the timings.

Stop 32's benchmark (run 1 of docs/data/h200-2026-12-03d) timed each hd128 row's second pair of timings 5-11%
slower than the first, for our call and cuDNN's alike (4.51 then 5.03 ms for the same GQA call), while the hd64 and
192/128 rows repeated within 1%. A row's ratios then depend on which call held the early slots: the deterministic
timing (slot 2 of a BHSD row) is compared with slot 1's default, cuDNN's with ours in an ours-first alternation.

This probe times two calls (ours and cuDNN's, or ours default and deterministic) in alternation, several times
over, with `nvidia-smi` sampling SM clock, power and throttle reasons every 20 ms beside them, and with a rest
of 0 and 2 s before each timing. Writes drift.json (every timing with its start and end on the samples'
clock, and the samples) and prints per timing: ms, mean SM clock and power while it ran.

    PYTHONPATH=src python3 tools/drift_probe.py --out $OUT
"""
from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import time

import torch
import torch.nn.functional as F
from torch.nn.attention import SDPBackend, sdpa_kernel

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "benchmarks"))
from common import bench, make, row_seed  # noqa: E402

from sdpa_bwd.engine import launch  # noqa: E402

QUERY = "timestamp,clocks.sm,power.draw,temperature.gpu,clocks_throttle_reasons.active"
SHAPES = {"gqa": (1, 32, 8, 8192, 128, 128), "hd128": (2, 16, 16, 4096, 128, 128)}


def calls(shape, causal, dtype=torch.bfloat16):
    B, H_q, H_kv, S, D_qk, D_v = shape
    gen = torch.Generator(device="cuda").manual_seed(row_seed(shape, causal, "bhsd"))
    q, k, v = (make(B, h, S, d, "bhsd", dtype, gen) for h, d in ((H_q, D_qk), (H_kv, D_qk), (H_kv, D_v)))
    do = make(B, H_q, S, D_v, "bhsd", dtype, gen)
    rb = 0 if causal else None
    o, stats = launch.attention_forward(q, k, v, right_bound=rb)
    qg, kg, vg = (t.detach().requires_grad_() for t in (q, k, v))
    with sdpa_kernel(SDPBackend.CUDNN_ATTENTION):
        out = F.scaled_dot_product_attention(qg, kg, vg, is_causal=causal, enable_gqa=H_q != H_kv)
    return {
        "ours": lambda: launch.attention_backward(q, k, v, o, do, stats, right_bound=rb),
        "det": lambda: launch.attention_backward(q, k, v, o, do, stats, right_bound=rb, deterministic=True),
        "cudnn": lambda: torch.autograd.grad(out, (qg, kg, vg), do, retain_graph=True),
    }


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--out", default="/tmp/drift")
    ap.add_argument("--cases", default="gqa:nc,gqa:causal,hd128:nc", help="shape:mask pairs (shapes: gqa, hd128)")
    ap.add_argument("--rests", default="0,2", help="seconds of rest before each timing, one sequence each")
    ap.add_argument("--rounds", type=int, default=3, help="alternations (A, B) per sequence")
    args = ap.parse_args(argv)
    os.makedirs(args.out, exist_ok=True)
    smi_path = os.path.join(args.out, "smi.csv")
    query = QUERY
    if "clocks_event_reasons.active" in subprocess.run(["nvidia-smi", "--help-query-gpu"], capture_output=True,
                                                        text=True).stdout:
        query = QUERY.replace("clocks_throttle_reasons", "clocks_event_reasons")  # the field's newer name
    smi_file = open(smi_path, "w")
    smi = subprocess.Popen(["nvidia-smi", f"--query-gpu={query}", "--format=csv,noheader,nounits", "-lms", "20"],
                           stdout=smi_file, stderr=subprocess.DEVNULL)
    t0 = time.time()
    seqs = []
    try:
        time.sleep(1.0)
        for case in args.cases.split(","):
            name, mask = case.split(":")
            causal = mask == "causal"
            fns = calls(SHAPES[name], causal)
            for f in fns.values():  # compile and warm every call before the sequences
                f()
            torch.cuda.synchronize()
            for pair in (("ours", "cudnn"), ("ours", "det")):
                for rest in (float(r) for r in args.rests.split(",")):
                    seq = dict(shape=name, causal=causal, pair=pair, rest=rest, timings=[])
                    time.sleep(2.0)
                    for i in range(args.rounds * 2):
                        who = pair[i % 2]
                        time.sleep(rest)
                        a = time.time() - t0
                        ms = bench(fns[who])
                        seq["timings"].append(dict(who=who, ms=ms, start=a, end=time.time() - t0))
                    seqs.append(seq)
                    print(name, "causal" if causal else "nc", pair, f"rest {rest}",
                          " ".join(f"{t['who'][0]}{t['ms']:.3f}" for t in seq["timings"]), flush=True)
            del fns
            torch.cuda.empty_cache()
    finally:
        smi.terminate()
        smi.wait()
        smi_file.close()  # flushed before the samples are read back
    samples = []
    with open(smi_path) as f:
        lines = f.readlines()
    for line in lines:
        parts = [p.strip() for p in line.split(",")]
        if len(parts) < 5:
            continue
        try:
            ts = time.mktime(time.strptime(parts[0].split(".")[0], "%Y/%m/%d %H:%M:%S")) + float(
                "0." + parts[0].split(".")[1]) - t0
            samples.append(dict(t=ts, sm=float(parts[1]), power=float(parts[2]), temp=float(parts[3]),
                                reasons=parts[4]))
        except (ValueError, IndexError):
            continue
    for seq in seqs:
        for t in seq["timings"]:
            inside = [s for s in samples if t["start"] <= s["t"] <= t["end"]]
            t["sm_mhz"] = sum(s["sm"] for s in inside) / len(inside) if inside else None
            t["power_w"] = sum(s["power"] for s in inside) / len(inside) if inside else None
            t["reasons"] = sorted({s["reasons"] for s in inside})
    json.dump(dict(sequences=seqs, samples=samples), open(os.path.join(args.out, "drift.json"), "w"))
    print("\nper timing: who ms | SM MHz | W | throttle reasons")
    for seq in seqs:
        print(seq["shape"], "causal" if seq["causal"] else "nc", seq["pair"], "rest", seq["rest"])
        for t in seq["timings"]:
            print(f"  {t['who']:5s} {t['ms']:.3f} | {t['sm_mhz'] or 0:.0f} | {t['power_w'] or 0:.0f} | {t['reasons']}")


if __name__ == "__main__":
    main()
