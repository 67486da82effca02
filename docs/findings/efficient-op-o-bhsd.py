#!/usr/bin/env python3
"""Standalone reproduction of 'reg-stale-state-between-cases-o-1-packed'
on engine 'torch-efficient-op', written by `sdpa-bwd repro`.

Needs PyTorch only.
Builds the case's tensors (dims, strides, storage offsets, dtype, values) as the harness did;
runs the case alone; calls the engine's backward, compares dQ, dK, dV (and O and the stats, where the engine's
call makes its own) with the float64 reference below and prints the max error of each against the bound used.
Exit status: 0 the case passes, 1 it fails, 2 the engine declines it.
Run: python efficient-op-o-bhsd.py [--device cpu|cuda] [--repeat N]
"""

import argparse
import base64
import math
import sys

import torch

ENGINE = 'torch-efficient-op'
DTYPES = {"float16": torch.float16, "bfloat16": torch.bfloat16, "float32": torch.float32}
NAMES = ("q", "k", "v", "o", "do", "stats", "dq", "dk", "dv")
FORWARD = {}  # the engine's own forward outputs where its call makes them (O), judged beside the gradients
REFERENCES = {}  # the judged case's float64 reference (O, stats, gradients): its inputs are the same every run


def judged_reference(c, views):
    """The float64 reference of the judged (last) case, computed once for every run of it (--repeat); the cases
    before it get theirs afresh, so no reference of theirs stays in memory beside the next case."""
    if c["id"] not in REFERENCES:
        REFERENCES[c["id"]] = reference(c, views["q"], views["k"], views["v"], views["do"])
    return REFERENCES[c["id"]]


def element_index(dims, strides, offset, device):
    """Flat storage index of each logical element, shaped dims."""
    idx = torch.full((), int(offset), dtype=torch.int64, device=device)
    for d, s in zip(dims, strides):
        idx = idx[..., None] + torch.arange(int(d), dtype=torch.int64, device=device) * int(s)
    return idx


def band_keep(S_q, S_kv, left, right, alignment, device, rows=None):
    """cuDNN's band semantics: query i keeps key j where 1 - left <= j - i - shift <= right (the query rows
    in range(*rows) only, where given)."""
    shift = S_kv - S_q if alignment == "bottom_right" else 0
    first, last = rows if rows is not None else (0, S_q)
    i = torch.arange(first, last, device=device)[:, None]
    j = torch.arange(S_kv, device=device)[None, :]
    keep = torch.ones(last - first, S_kv, dtype=torch.bool, device=device)
    if left is not None:
        keep &= (j - i) >= 1 - left + shift
    if right is not None:
        keep &= (j - i) <= right + shift
    return keep


def expand_heads(t, H_q):
    return t.repeat_interleave(H_q // t.shape[1], dim=1)


def reduce_heads(t, H):
    B, H_q, S, D = t.shape
    return t.reshape(B, H, H_q // H, S, D).sum(dim=2)


# Score elements the reference holds at once (float64: 512 MiB a block): it walks the query rows in blocks
# of that size, so a long case's reference fits beside the case (S 32768 x 32 heads whole: 256 GiB).
REF_BLOCK = 1 << 26


def reference(c, q, k, v, do):
    """float64: O, stats (natural-log LSE, -inf for a row without keys), dQ, dK, dV."""
    q, k, v, do = (x.double() for x in (q, k, v, do))
    B, H_q, S_q, S_kv = q.shape[0], q.shape[1], q.shape[2], k.shape[2]
    kk, vv = expand_heads(k, H_q), expand_heads(v, H_q)
    o = q.new_empty(B, H_q, S_q, vv.shape[-1])
    lse = q.new_empty(B, H_q, S_q)
    dq, dkk, dvv = torch.empty_like(q), torch.zeros_like(kk), torch.zeros_like(vv)
    step = max(1, REF_BLOCK // max(1, B * H_q * S_kv))
    for first in range(0, S_q, step):
        rows = slice(first, min(S_q, first + step))
        keep = band_keep(S_q, S_kv, c["left_bound"], c["right_bound"], c["alignment"], q.device,
                         rows=(rows.start, rows.stop))
        s = (q[:, :, rows] @ kk.transpose(-1, -2)) * c["scale"]
        s = s.masked_fill(~keep, float("-inf"))
        lse[:, :, rows] = torch.logsumexp(s, dim=-1)
        p = torch.exp(s - lse[:, :, rows].masked_fill(torch.isinf(lse[:, :, rows]), 0.0)[..., None])
        p = p.masked_fill(~keep, 0.0)
        o[:, :, rows] = p @ vv
        dp = do[:, :, rows] @ vv.transpose(-1, -2)
        ds = p * (dp - (p * dp).sum(-1, keepdim=True))
        dq[:, :, rows] = ds @ kk * c["scale"]
        dkk += ds.transpose(-1, -2) @ q[:, :, rows] * c["scale"]
        dvv += p.transpose(-1, -2) @ do[:, :, rows]
    return o, lse, {"dq": dq, "dk": reduce_heads(dkk, k.shape[1]), "dv": reduce_heads(dvv, v.shape[1])}


def build(c, device):
    """One NaN-filled flat buffer per allocation, each tensor a strided view into it; inputs written."""
    specs = c["tensors"]
    sizes = {}
    for n in NAMES:
        sp = specs[n]
        span = sum((d - 1) * st for d, st in zip(sp["dims"], sp["strides"])) + 1
        sizes[sp["buffer"]] = max(sizes.get(sp["buffer"], 0), sp["offset"] + span)
    flats = {b: torch.full((size,), float("nan"), dtype=DTYPES[next(specs[n]["dtype"] for n in NAMES
                                                                   if specs[n]["buffer"] == b)], device=device)
             for b, size in sizes.items()}
    views = {n: flats[specs[n]["buffer"]].as_strided(specs[n]["dims"], specs[n]["strides"], specs[n]["offset"])
             for n in NAMES}

    def write(n, values):
        sp = specs[n]
        idx = element_index(sp["dims"], sp["strides"], sp["offset"], device).reshape(-1)
        flats[sp["buffer"]][idx] = values.reshape(-1).to(device=device, dtype=flats[sp["buffer"]].dtype)

    if c["inputs"] is not None:   # the harness's own draws, embedded
        for n in ("q", "k", "v", "do"):
            raw = base64.b64decode(c["inputs"][n])
            write(n, torch.frombuffer(bytearray(raw), dtype=torch.float32).reshape(specs[n]["dims"]))
    else:                         # drawn as the harness draws them (same values on the CPU)
        gen = torch.Generator(device=device).manual_seed(c["seed"])
        for n in ("q", "k", "v", "do"):
            write(n, torch.randn(specs[n]["dims"], generator=gen, dtype=torch.float32, device=device))
    o, lse, _ = (judged_reference(c, views) if c is CASES[-1]
                 else reference(c, views["q"], views["k"], views["v"], views["do"]))
    write("o", o)
    write("stats", lse.reshape(specs["stats"]["dims"]))
    return flats, views


def outside_writes(c, flats, device):
    """Per buffer holding an output: elements outside every tensor of it that lost their NaN."""
    out = {}
    for b, flat in flats.items():
        members = [n for n in NAMES if c["tensors"][n]["buffer"] == b]
        if not any(n in ("dq", "dk", "dv") for n in members):
            continue
        inside = torch.zeros(flat.numel(), dtype=torch.bool, device=device)
        for n in members:
            sp = c["tensors"][n]
            inside[element_index(sp["dims"], sp["strides"], sp["offset"], device).reshape(-1)] = True
        lost = int((~torch.isnan(flat) & ~inside).sum())
        if lost:
            out[b] = lost
    return out



OP = 'efficient'   # which of PyTorch's attention operators: _scaled_dot_product_{OP}_attention[_backward]


def run_engine(c, views):
    """The engine's backward into the dQ, dK, dV views; None, or the reasons it declines."""
    # As sdpa_bwd's torch-*-op adapters call it: the backend's forward operator on the caller's Q, K, V
    # gives the logsumexp container its backward reads (and the extra outputs it takes: with dropout 0
    # they carry no data); the caller's stats go into it (rows without keys keep the backend's value);
    # then the backward operator on the caller's strided Q, K, V, O, dO.
    aten = torch.ops.aten
    q, k, v, o, do = (views[n] for n in ("q", "k", "v", "o", "do"))
    B, H, S_q, S_kv = q.shape[0], q.shape[1], q.shape[2], k.shape[2]
    masked = c["left_bound"] is not None or c["right_bound"] is not None
    causal = (c["left_bound"] is None and c["right_bound"] == 0
              and (c["alignment"] == "top_left" or S_q == S_kv))
    bias = None
    if masked and not causal:  # the band as the additive mask PyTorch's front door hands this operator
        keep = band_keep(S_q, S_kv, c["left_bound"], c["right_bound"], c["alignment"], q.device)
        fill = -65504.0 if OP == "cudnn" else float("-inf")  # cuDNN: the front door's finite fill
        align = 16 if OP == "efficient" else 1               # efficient: rows padded, then sliced
        row = -(-S_kv // align) * align
        bias = torch.zeros(S_q, row, dtype=q.dtype, device=q.device)[:, :S_kv].masked_fill_(~keep, fill)
        if OP == "efficient":
            bias = bias.expand(B, H, S_q, S_kv)
    scale = c["scale"]
    if OP == "cudnn":
        out, lse, cum_q, cum_k, max_q, max_k, seed, offset, _ = aten._scaled_dot_product_cudnn_attention(
            q, k, v, bias, True, 0.0, causal, False, scale=scale)
    elif OP == "flash":
        out, lse, cum_q, cum_k, max_q, max_k, seed, offset, _ = aten._scaled_dot_product_flash_attention(
            q, k, v, 0.0, causal, False, scale=scale)
    else:
        out, lse, seed, offset = aten._scaled_dot_product_efficient_attention(
            q, k, v, bias, True, 0.0, causal, scale=scale)
    FORWARD["o"] = out  # the forward operator's own O, judged beside the gradients
    rows = (lse.select(-1, 0) if lse.dim() == 4 else lse)[..., :S_q]
    FORWARD["stats"] = rows.clone()  # and its own stats (the adapter's forward writes them), before ours go in
    ours = views["stats"].select(-1, 0) if views["stats"].dim() == 4 else views["stats"]
    rows.copy_(torch.where(torch.isneginf(ours), rows, ours))
    if OP == "cudnn":
        grads = aten._scaled_dot_product_cudnn_attention_backward(
            do, q, k, v, o, lse, seed, offset, bias, cum_q, cum_k, max_q, max_k, 0.0, causal, scale=scale)
    elif OP == "flash":
        grads = aten._scaled_dot_product_flash_attention_backward(
            do, q, k, v, o, lse, cum_q, cum_k, max_q, max_k, 0.0, causal, seed, offset, scale=scale)
    else:
        grads = aten._scaled_dot_product_efficient_attention_backward(
            do, q, k, v, bias, o, lse, seed, offset, 0.0, [True, True, True, False], causal, scale=scale)
    for n, g in zip(("dq", "dk", "dv"), grads[:3]):
        views[n].copy_(g)
    return None


def check(c, views, flats, device):
    """Max error per gradient (and of O and the stats where the engine's call made them) against the float64
    reference and the bound used; True when all pass."""
    o, lse, want = judged_reference(c, views)
    want = dict(want, o=o, stats=lse)
    ok = True
    for n in ("dq", "dk", "dv") + tuple(FORWARD):
        got = (FORWARD[n] if n in FORWARD else views[n]).double()
        # equal infinities (the -inf stats of a row without keys) are no error
        err = torch.where(got == want[n], 0.0, (got - want[n]).abs())
        worst = float(err.nan_to_num(float("inf")).max()) if err.numel() else 0.0
        if c["bounds"] is not None and n in c["bounds"]:
            bound, how = c["bounds"][n], "the harness's tolerance (k x same-dtype reference error + floor)"
        else:
            dtype = "float32" if n == "stats" else c["dtype"]
            eps = {"float16": 2.0 ** -10, "bfloat16": 2.0 ** -7, "float32": 2.0 ** -23}[dtype]
            reduction = max(views["q"].shape[2], views["k"].shape[2])
            size = float(want[n].abs().nan_to_num(0.0, posinf=0.0).max()) if want[n].numel() else 0.0
            bound = 8 * eps * size * math.sqrt(reduction)
            how = "8 ulps x max|ref| x sqrt(S) (the harness's tolerance was not computed: case too large)"
        nan = int(torch.isnan(got).sum())
        bad = int((err.nan_to_num(float("inf")) > bound).sum())
        fine = worst <= bound
        ok &= fine
        print(f"  {n}: max error {worst:.3e} against bound {bound:.3e} [{how}]: "
              f"{'ok' if fine else 'FAILS'} ({bad} of {err.numel()} elements over, {nan} NaN: unwritten or NaN read)")
    stray = outside_writes(c, flats, device)
    if stray:
        ok = False
        print(f"  writes outside the tensors (elements of the allocation no tensor holds): {stray}: FAILS")
    return ok


# The cases, in the order they run (the failing one last): the harness's description, each tensor's
# dims, strides, offset, dtype and allocation, the inputs (base64 float32, or None: drawn from the
# seed) and, for the last, the bound per gradient (None: a rounding floor, see check()).
CASES = [{'id': 'reg-stale-state-between-cases-o-1-packed',
  'case': {'id': 'reg-stale-state-between-cases-o-1-packed',
           'S_q': 20,
           'D_qk': 16,
           'S_kv': 20,
           'seed': 1818231580,
           'purpose': 'regression',
           'covers': ['regression:stale-state-between-cases', 'order-probe:o'],
           'level': 'quick'},
  'dtype': 'bfloat16',
  'seed': 1818231580,
  'scale': 0.25,
  'left_bound': None,
  'right_bound': None,
  'alignment': 'top_left',
  'deterministic': False,
  'tensors': {'q': {'dims': [1, 2, 20, 16],
                    'strides': [640, 320, 16, 1],
                    'offset': 0,
                    'dtype': 'bfloat16',
                    'buffer': 'q'},
              'k': {'dims': [1, 2, 20, 16],
                    'strides': [640, 320, 16, 1],
                    'offset': 0,
                    'dtype': 'bfloat16',
                    'buffer': 'k'},
              'v': {'dims': [1, 2, 20, 16],
                    'strides': [640, 320, 16, 1],
                    'offset': 0,
                    'dtype': 'bfloat16',
                    'buffer': 'v'},
              'o': {'dims': [1, 2, 20, 16],
                    'strides': [640, 320, 16, 1],
                    'offset': 0,
                    'dtype': 'bfloat16',
                    'buffer': 'o'},
              'do': {'dims': [1, 2, 20, 16],
                     'strides': [640, 320, 16, 1],
                     'offset': 0,
                     'dtype': 'bfloat16',
                     'buffer': 'do'},
              'stats': {'dims': [1, 2, 20],
                        'strides': [40, 20, 1],
                        'offset': 0,
                        'dtype': 'float32',
                        'buffer': 'stats'},
              'dq': {'dims': [1, 2, 20, 16],
                     'strides': [640, 320, 16, 1],
                     'offset': 0,
                     'dtype': 'bfloat16',
                     'buffer': 'dq'},
              'dk': {'dims': [1, 2, 20, 16],
                     'strides': [640, 320, 16, 1],
                     'offset': 0,
                     'dtype': 'bfloat16',
                     'buffer': 'dk'},
              'dv': {'dims': [1, 2, 20, 16],
                     'strides': [640, 320, 16, 1],
                     'offset': 0,
                     'dtype': 'bfloat16',
                     'buffer': 'dv'}},
  'inputs': {'q': 'e5GFPwNuOL8RgmG/XxA0v1GdQb+qy3q/EeO+P8J0Wb+ulI0/NwoKQH7Brj/Q4DI/yPZvvqO0Iz7vkAXABlsEP1nkBDwY1pc+NVqFvuH6g75um+S+Wk8PwLBwKr80SXq/ePUZwNcKDsA/lgY//WyaPu+wkz4dxis/lltaPu4NmD/lfL6/nxe1vya5B0CCwxY+WjYpv0Sm3r6UonE/OUQrQClZXL/w+HC/651XP1Qn7r6bYaQ/EG5Iv0SUhr8gL+6/VNX3vrjIYj7jNcc+709TP/crFb8IxBw/YBGFPvlU5D1owRc+fYElv0s2kr+vSFu/WpDNv/zI0r6L+Ha+lTHGvgi1iL49Qka9r9GJP0XKm7+RDgY/e8gMPzWvxb6j/jE/6ASxvvr6SD+4BE29NXIFwP5Gh79IW4S831WsvZpq/D9uRiC/sDDdP+QrOD45/EQ/MPJCP9p2f76JMku9+XIeP8Aomz9DbwJAS0s4v7F7tL7NQmm92rwAwH/zwT7k7k6/W+aRvyr+ZD/GujQ+BECWv6kGIT8/5L8/MLkpv0IwIcApUpc/WUjvvyWaIr8M+uk/JBTyv2Rrpz/EFqC/TTu7v7l3OL9fIpc/fcSPvzyhxj9aQk0/J7nZP9ucRz9FDqW/lZjNvlpYCUBJ0Z2/nbwuP6BXMz+LtfU9NEz6v1DiYb+dnpS/m4PvPx+PlL+I/2e+US4iPmuj0L6Fibi9ZUOdPv9bh7+E9/e/jFynv18hwz9Z5SA/kUsYwCXNS76A4BA+dV4DQLY4Dj9Wsqm8pzB3P1HDpT2LaFE+V7DgP2qu777KJ5Y/6WtiPpAhCz98iXy/ZvAyPwZuIr9Ctw/A0vaQvw5Kjb8rk6S+AbsHPx55lD/YzSHAdg3Ov0hDAT8fRYQ/bD5gP4jWxT5EajU+x0AyPkp4FD+Ub8y/DepTPw/1wr/FFfY/y7eQv4vrej/hruS/igc5wDlGlT+FZsW+y/qQvxRDTL+vYgQ/xaCxv40Dlj/wKOW9Znkdvr6m6r5p8Uw/XNuTv/WUJj/hvhk+acO4v1VzyT5rF/E+Fa8EwNzo4z/yyeA+WtQivlvhqb/yFGy/9EU8PqVpkT+got4/+Z6BP1GtUz80FwPAzknuvo6bqb90EXw/pUaUv37JgT4LGqm/hhjTv35QWr+NXwE/NiMyP2FU5L4u6BY/l9ENPpMwl7/q5KG+lETFPxpBDz8c0IA/DT7AvubCyb1C+C4/VJBSvuQDor823t49NteMPh7xwT7YTJI/xHQzP8vg0j/yASg/VV/CvfUcmj75nYs/K6kvvwA9b7/BWAE+Sq5eP2ABVz8sfK4+sGMPwIO0nb/HMc2/1TPRPsgLyb8A5jLASED7P5SJDT9WJco+hhu4vgFyDUDR+Cq+VfhAvwXUgL+J182/lw8APsGETb8M7KY+ISVePzf2hz4+Jcu+COMuPyJhlb7SuJ0/5b7ouxMinL/BFYK+EpyYP1tkzL+tHy/Agh3JPjAbwr9f9Xc+/kpNv04FIT+/vlE+/uMPQDAzgT+rMl++laxXvutqzz+Ho2O/EdVTv4zd4T2H02u+AMEEPy+QuD5ScDC9vQaFPOQ/CsC6bFU/YKxEv8Qanb+7p7K+UmHEPxDhGr5/JOG9ZDpRv1IU2D8OWkc/pgZeP//WsL2YoLW+t7VZP1W0gb4o1L4/0wOHvn+tPr7AvrQ/Dw+WPvZM0b/k2ZM/M3yNPBxPkT/vrVY/ga26vlbCQL9NWipAo9DqviBSsL8kqQ8+npauv4ZANb46VzU/CDzOvueqf75jmIE+eIVuv9O8Y79iT2K/OYUKv1Ue+bwgFL29FkAfP8JmTr8Tl1k/4v8OwEfS6T6586q/Rzf0v6WFor5ivb+/TqQuPzoStz6KYh5AFIEsPzke/L7Bg7O/RJUDQFETyz8xBoi/g++fvpPzrL/fOXo/FcNyP9H+Iz+As8M+/wsiPqs22b4oL9e/TpXYvNa4hD8emYe/Qk9qP+W81z/n+nW9J/pjP+NO5Dy3IAk+1PonvqSSCT4y+9e/VGcZv1uumD/EZXg/MzRYv8Eupj8du8o+5mpMP7lExr95gGM+uVMHvzwRUz82zwlAnwbuP79rmL947p4/4+DJPOSexz5ugq0/Rbs3P9Jg6b3L8JG/L1W3v+EynD6zhN2+FM/EuvmjnD80zdc+PpGyvhB2SL/RGN4+EVIFv/+iGj8fj9w+2HW3P8VP2D3FR42+5azHv/6Lpr7pSIe/0mr+PUt3dD9rdj2/c/hyv2mykT5QFeU/JzDePvJtoD/zPzM/DjFmPwb9+j+1gse/OiDzvsD6Sb+cd5y/2zIkP6hP8L+VaUa/eMh5v4whFT83c5U//cFzvBrjBECTx8E/ZBZav+pnn79dlRy+dZbHvqIslr5+zh0/FzpBP2RRUD/bNxK/hAYXv8q7yj9QpK6/RRCwvpdv/D8P82K/z56Svjadf71WHxC/4iG4PszShT0z7RI9gm2HvjZPsz7gxe+/DYojQGh1C0DvTHW/5SF7Pte2Gb4DZts/yYG6P6/Xk7+HOwe+goocvwBSrj6ozGE/wgrgvmDj4L8JLnO/D67/v2+PZD/aJta+DEevvpC+WL8z5H++UrYaPgYMUr+zCCy+c7LHPqTufL46EQFAi8U0vwF06b/DrJi/3j1LPhC6ZL/XqmE/41btvRh9JT9U02A/28xMP8j+Yb8JP7a+W+6qv50r5b78/Js+mqBrv5FIijzykXs/Bi6HvyF1uz+pk5I+Rvu9Prcrpb05Y1C/eb6gv2Ws9j+97LS+1EUKwP99D8AaEq0+A7OHPyI9Fr7I6Ja/kBlWvzf/6z+sFw0/zP0XvylIIr62T58/p6+/PthyAsBj/Yg/ajH6vUALNb/qS7y+2hSlvynMEz/qYcc/Rf4LvyJ/nL9qax4+EzQbvtdsbb8CkkS9PFLbPt3HOb8Zfwi/sBAGQHh5hb8Qs7s+tL7kPmZPyb6nYVQ/UV7BPzKkJz6SeD0/om6vvm5QmD+eS9c+G66dv+DPjD/B3EA9+Ne6v0qFUL6IM6k/v+N4v9NHXT62B20+V7LLvqAOFD9ZFpS/xvGWP9KIZb/cgAW+ud/AvrnTZr5fc4S+u2kEP+BWJT8su2a+6E/1v7zO6b9fY/C9vvHbvqDx7z/J1Q6/ka/qP0nkBT9L1EY/p8LVP2wi1r7s5IO/jIcDQLsPYr6sOfA+lMbbP+YEWD6m6KO/HOSSvyThDj8BjzC/U82TvqXu5DyutlI+YQl7P5vZLL9vfCK9uwnevoWLeD/Gixy/BNnzvt+q+r4cMuw/2KrnPnri3D3p3NC+k2P0vtQ99L510Sc/sT+fP1hNGr8Sxjs/+qMYvk+d8z4wM2k+nFbDvlC2wz5dKi2/EUWUv4R1bD7Rge0/8ohIPl2c4r/6YkY+HVYwPw==',
             'k': 'LTSfv9CyEz5Mite/EuznvvPhrD9QWjK/MAoNP3cSaT467iU5ew6RPuiOaL91zIa8zaFWvy6Akz9o92++KLr5PgJKVD7IFpC8aBduP/oE9r6sUC8/644nPjaVEL/KWXK/nIcnQKghjT81rgm+jXwJvm+s7bzgYJ2/SjlvP/kpoL86Zm8/Oiigv+/y6D4ROZE/7VXkP4sbPD9M94C+DjcCwIDa5z4Agh+/Gi00Pyluv74vqw8/h3mNvvjGDj/isng/GRYcvwbGyL5HhKo/ZfZHvQTiTr+G2CE/TRCwPz4rL78ACky+Q7uNPtBpGD+mdJ6+mPGTv8Gq7j6GdyC/3JStvxHHgL9UIwvAfq6+P55wKb/r3aI+bhK6vq1eYz/4tuK/oIaUv1Jau7/QVK4+uv8Av9PJ1r5Ig3a+tF3ZP7jv/75mXUe/q7auvjT0nr+JA3W/0bZAv1TOWr/bw92/oku/v2qZ/D5ISa+92h/xvlEsJT91RBC/WuI1PwTcIj7gw4O/phAqP4EiIz/8prS86UTPPVOd9r7abME+HWm4v5ViJz3I+1s/TWCRv0nmx7/rbBE/hXP6PmAy0T9jcJM/kfWyv/vb9z/MQmu/D7hcPVtWKz/Q0i++ijvaP4iuUL5M66q9XjhiP2yCsz6ZHGc+P6eXv3iFJcBdbis/YG93va2Yn70HArs+W4oJP3PSxj7JNBo+29QSv4rEsr46k+Q+q3IYvT96+D5tgci/d3eTv6tAmj+CyI+/f1iLv1aoM7/e4ag/j5FmP9lxo79TzqA/p1LCv7zk4z2n8Og+wgEAP1r2Ob/KY9o/7mDTv5sPgD/YOQg+ABK0PbZ8Cbzlq/++F3w2vo/EuD5wgkA+NGUdvvyWnb0j8e4/Eicyv/G8Kr/Jm7K/pooEvhJ2GL+vHjU9iES3v/y55D1UG8y/jqaiv6FtGEDyzb2/FCAvvj46pD748U4/6hj8vot5vj9W/QxAd8VUv316ij+GGis/ofUQvu4X5b/gbDu/DCOeP51W9r5PTmy/gRCHPj15kL/cyu0/MVw6v7Ofm78PmfI/HOT2P+yhm76ROzZACb8Sv0TbVT0gpTU+264evdSIMb+dbya/WTE9v0K5nD+svvG/Z7c0PykkCkAZmfE+HEs1Psymeb/6pClA6jHiPrqbpb70uoi/N2+svC88rD5kGcc/JaSdPznpar8YGRU/pcbLvhkMfb9knGe/adUyPe1PCD7BgHu+cPDGv+6bCj4bmyw+3NhUv8OObr9guVa+mwJtP/FCib88EU8/EkbcvydRFUAfto0/K0TGviFnhj/09Ri/EV+nv5sGGsAPfkm/46zsvx8dTr9JKh4/fG33PjvVu75pfrw+d7GKv/WWKT840hQ/8ylkPonVEj7zkjy/5uJNvv8Jir4DQnI/wjORvgV5lz/n2zo/IpeRvwY5Pb7X02E/y7lDv2LzTb9IHEM9BW8QPgWMM78/eY8/zgWvv4YKSj8583O/m4mNvxusKMDJWKq/7yOlP5ymkL8PtZk/K8MQv6Yzdr9Lmo+/c1IIPtxd/T0iKiM+hXGGP4/1Az6qyyk/7aOnPCfHzD/4jTC/ApgCPj+Boz9pAqE/Y7svPwgzsL6tr8m/q2+kP7EwEkD2FAs/Gj8KP4Hykj/HVyhAOD4Zv3TljTwWQmE+q33mP4UPLL/uoyC/a89pP/DRjT4Nzfq/+RRMP4VIIz+HNqQ/fCEoP4jI+r+JQII/3boUP8eVST8Repi+jGx4PxdG2D/IAsk+FNU/P8XsqD8lfos9G16dP84ZWz7XCMI/3+CcPnqW3r9vP1K95mgtPz/Kmr6ip4M8lAULv8t32T7Xa2G+/Yu+vvjdGD9AHHi/CxSHv4LVCj/hU8g/IcqYv08wvr8Fxva+sgq5P8CHHz+w8lU/qjhAP/+VHL+eUk6+fLGHv2lRBD+Enx++mSYLvycVZT8hOFk+nrvFP453uD81BO8+EOGOv24kDD8BX9g/esqcP2/8F79loQdAYSWpPwKInr644gFA2MzuP+Kqnj5e7JG/cXVlP8ZRHD8R3BJAwOaCv+p5T75Uhru/JUhlvkhcBcCXytS+OeWsvpJDPT+o5ea9j+dtv0yXEr8b386957c/v88gO7zymY0/ksqPvYty8r0GD/2+FkgPv9xK6L6v0Oq+q+iyPzzpmL4U0oa/cKRKP4rj0L8RIim/yAudvt4uiL9TiLM+H2nPvnHHCb9Htf69S1gBv2qwkL85Pm6+HtSSv58+1b85Daq+nF1Pv0O/zr/+1hi+OicFPmpQ3T7L18W/2P8ZQBGAYb/kAbs87DlkP/ssDT8Shww/EUtQvslBqj8GZuw+YdISv+xI4j6Lry+/XEXAvwTxP74S1qo/EEdNP1kmr78En1O9tcATP5N9FT429I6/8gokv3l9Lb+Xmba+Gqs9P3q3nr7wF+C9XrAnvwu9sj/jRMK/FgE+Pkk4Lr8arfw+/zg0P0NUPj82mJU/hwoJv+wBJT+mhI69O3JcPz1JnD8DsFG/0lQsPng5u7+rmIG+5oOZu0PkZz7rdJI/NXVgv/j6z77tCsA8RNUkPpcV2b611bs/gFh/P1QmXD+m3a8/o6DmPjrqk769Muq/RSUTP9ssej8JNMQ/IJK6PuJ9mz8pdIe/Be6Nv7pliL8DGvU/qRvdP+yIC7/pKhi/2qmWP7RnSz71qxo/Trknv9ZybT/l5mC/41l5P+DnKEAMIhO/VHPgPkxA7z1kqQVAPhepv+Z9dD9RpVM+s5aKv3clRrzgFb+/4oPfvxwpGT+c846/dvOLPzz/m70cL4g/BrjPPn1MRb8EBLY/9DVHv4fbFcCO65s+T9YAP7faKb48KFA/8xv9vic4wD6+UEs/ZymNO97Cbr+Im4S/uC6iPYZv4j6jUf09eEM7PzsEgL7eaQY/A2EZPyDzijwJE58/HN0dvkWPIr+ET7O+1DDkv5Banr8CGuS/FrW2v1yxMj8WwEi/eM2hPizPqL88PXG9lQKePqCCij92qLQ+aFpAvlpvmL/Om6g91nJbP9niGb9Ikdk+qRWRvjttPMDTT2y+iZs/P/J2VT8nqAG/fet7P5a9jL7haY0/WjSCP4gVXj/G/lu/TgwIwLQyqD5bF48/OEejPpR3rj/l8iY+3PmRv5RknL9X3RA/lwylviPEtj7dZIa/TKzlP0KNlT47mQ2/DCL3PwR/vzy4/IC/KxndvgSKjr+RsN0/paYWP49GIL84IuI/h8nBv1k7Yb9NuZ2/U23OPMfkZL/GDJ8/ernfPIQoCUCZjw1AOQxpP9qGqj8Ml4m9aOYVvya6dz8aC4e8rTYaP/5TQzueQuU/4F8+PtX2GD9flBI/lDIuP6F9Qb0n+Am/HICNP9RKc7717FLATuiyviB+ID9H1x1AY8aEP/pJeb4D6ae+2hEKPg==',
             'v': '5xEBP3UaZj/wAyY/Ax6sP8sK0D8E5iq/g84nvEHzmD/hQw+/TkGxvgG3gj+f2V0+PGfyPiy90T+mBOu+0omaP0L+cD7VpVg/36vHPjrdrb4uuOk/e0AfPmlkGr4gtZu/OSidPulQMT7a+Hu/cm97v2eke77JGCy/sITwPYhUX75zAG4+2vyXP9y+Dr/u0ac/SEkgPxW5jb9mPfA+KciMPyzSwr0XEsM/RSktP8ksYD5+v/i+jOhiv3e8lb8p1RG/5sY6v3xM7T7yfzI/XYX6uljnFcCB8li/he+NP55mrT8QUn8/czHQv6pE3L7q+LI+nSV9v2DWr78sjUA/AMSUP/HfLT+tE2S92ekBvzwGcz+74ca+L9kjPzH5VT+JJZI//6qGPv4GcD+L98w6588/PiHqED03hn0+zDwpPzSY17+4YkC/A3d3v4gyGb77zDW/keTvvi4hXr4/c4u/97IKPmQRgT4i88Q/gHUEvwGSFb9pIQfAghL8PlopJ7++xN29fxWhvhNCnzz1uoC/jZg3vxSPhb+Viq4+j/GMP5cSSj+we2e/vLxPP3KOLb94KI0+80kKv/I58byXF4G/VjWWP5mKsT1o/cQ/neFLvqWbgT9wu5I++6utv/CXar9xX1C/632zP4I8775IW4++ggCMPuckb785u56+WgxAvjjFb71GmA+/7reBPbmlpj9tg9k/YnL8P7KgYL7BOk89i4ymv8zXLb5KI26/w8hovjZg/r6I0rE+RqMBP9FcXz9hpge/688fPz/AqT4v7n0/OWc9PuW6H7/sKKq/IeAkwIKCtT6VjUc/6h8AvrnnSz7a5gM+rU60vm4+LDzPLJ29rqhQQCZyEz8Irec9/UdUPlEQ3j4Etc8/FVlIP+AGAb0tQTq+Cto7PtgvuT9SYZa/S2C7v4wWjT9285U/pPEIv0BqxT9Kmza//yyTPyON+D40Yc0+aK/iPrxdtz+hUZW/rG7dPjgTkb8A+8o+71/0ve7RPb5KT8c9iTOEP5wXtj9rLcu+GGiavq5oEb+VKju+BoqgP6+9WT5OnLA+Nx8lv/JYy76nwY0/4r6Ov1PLrT9RxY+/Mm7UPiQ5YD+UdKE/isJAv4pDfD7UASG/HclavpC2jT24+Y4/WefLv9wRFb560Wi/uLWAP8CGeb8CBxo+3koLPlHUM7/myrW/mMLmvfcdMr+gXD2/iB0+Pi42oD+iBes/Z3/Jvl5JYT/GHjA/y3wDP4OZ1j/RiOu/u2AIQJ7RFT/YrF4+kZnfP9Vikz9GqAXAuT9mv7qvR781pva+Ij1Avx7YTj4GG0s/8hJzPSorcT38RQw+QAFeQDx3hT6edgnAsPHwvbbDlr6mOME/9HUfP9/fMT+1Sry/LCCtv9Qv/b0F30+/KqknPkgM+b6MrxpAmSe1O/bvTb8Lu1w+F7kxP7cyr79wDcu/L4Ivv5yRND5BhXa/tG2gPX0ftb9vICG/6cKZvVQRgr+fvZw/fD3NvYaLQD/sVMA+iK+VP7keib0ikAQ9A8wYvtOmxL41UCY9N6C5Pzvd6D0AZMe+/7bBP/VcQb8TQtA+BUEBP9QmNr92gia+oJNbvhLouD4fDS0/smWmvmh4oT8n3008vKUcwOLKWD/9x28+E0Ofvywb9T6KFFy/sTTAP4Jn6D7yVOe8WlDRvZUMuL9bH9w9li0Svn8mLT63by5AFFIFwE/s+T8MDVo/h2eIP6JCKL//eOO/H4CjPzCJw7uIPbc9gy5mvj0ETD5BwZq94lWyvolCcT+rJTA/gH2LP2Mzyj5i0RE/KiJ2vcohvL9hQKa/ytKOP811UT8egVI/mFomv6yJir5vaxG/ZZ11P/VPV78b9J6+T3igPmsSVz2y7K6+A42Xv0Ztp77HCSY/ocQ1P1ZDoD4TA4m+RuImvgb8wr9w+pu//n4FPRCP9T4dYCK9tVkpPXxCmD9ywbm/qbg1v/3yTD/FedQ9ZCmEv5kfjr+9HuK/dYyYvlTsOz2QZ5Q/o28oPUAKhL9OJXI/UVOzv4T0Cr1NYVu/GG+mv3xctL6u3Cw+tocQv3girj7IsVW/tz+WPyl39r+90PE/1OYwwHnwxL4cB3u/WKSWP3iEWz6L1N691WQFvwJAuD0hHs49fgANQPVyLr4TjSK/6xyHv/Rhaj/ifYK+JkbivoCiir/mk5s/J6H2vslRPD4uMDe/xpzAv1Kgoj9dFuq+7Zy8v8lsHD/tWGK/IqOUvw6xZT92mqs+TH00vwOO3b8Qub0+6EvePsT3zr8Xxyk96JKdP0YM+77lOoY/waVxv0G8875vO5Q/CPmVv7dg976Mnsi+bz48PhjBJj+ogCA/qQHRP5tJaL7xdpM/8j12P8t1m7/nbAK/GNT2vTCWK797U72+9OSpP03JPD8ng/o/Vk1HPj9Rb7/3LcM/nFVjvuNJgj/S56A+REoVwIBwIz+stpa/4w8LwM9tWj4M9sW+Muqbv/Angb8ixpy9eFmzPnzn575XjZm/dpPmO3gxDj4+yHC/NcdhPvqPaT9Wpps/JGTVv7d6mr7NA7i+63vNvyz6AsDXMDw/Ob6svuedoj+uMK8/VTKIP2rQAz8fgTM/uDipvwN/ET8lcdC9vufGPpfeM7+zlJs/qUJoPfzULb7sjmI/xnsPQE0MfT79Pzy/bHVrPkzrEb8IIU+/YCCBPgik+D1c5Tk/tqT6voKA979UxSS/IpmJvinYwj5Mpb4+gGbpPbQj0r+TV+i+Jeg5P3OhuL0RSQZAbZZDvYbJCj1C+PA/d/gDv0eae79OMJY/iMcAwJOs/b6kJzO/aqEoQLU5gT8axMS90nFXv2vNvT42ybI/lYWtv/UE0z2W7rO/HSuPvs47mr+0xpW/isoRwCWUFz7mcE+/CLOTP7tCT76Umf6+XVa3PFsOxL/MhJG/TkWuvgDVQz+Gxye/d+wLv2yE4L3ZLs6+WgloPg4OTr/8O18+++UYP+IrwT7w56E+sczoPysJxz6aVaO/M4yvv3M50b3yDFQ/UWh+P/H5X751lb+/7LTsv3XKMD/Ggqy/XHanP0BOCL9yYZy//ZpDP9FeFj6bjg4/L4bevgmazT87PrQ/DeBBP+dHh79Rfd0/nlUCP6ebxT4jS/A/3I3jPsdokD8lVEm/29eMv/Exbz/WWoy/0vfNPws3lD8QJ32/shrEvvp0Fz9Um5y/XggHQBLGcr/rmmm/A4j/PnLIXT/XFQS/1sKaPuZLbr+PeV+/WUWjPUbqbz7EpbI+fGJ0P8qOAr+Mmv+/yXyyvhprRj8K5p8/tkc3v6iYcL5wr1+/N+HVP6znSL/1w0a+S5Eov+tDir5Ncdo/v2F2P1blnL+I9Tq/0oslvgqSjD/AobO+ulADvtboIT9l0gm/GPNDP8rni76vmE4+13iQv+uP3j8doWq+a6Gjvw==',
             'do': 'sY+8Py5xWb/AQmc9iWcuPxHaUL+7tB49naI3PyCLMr/Mz1i/l6lBv66dkb/7C3W+haiZPkawhb4kSoC/cEDhv9f3Jz/Zh3y/i2yjv+Asrr6p5nc+9uPev+LpkL8xsJO/hy0rP9mRKb+CwUE/mfeRP14I4L7SSNQ/HxkUv1yL17/nWyc+xx1lv8Zh/b2CNqE/iM0rQNZpkL4rRNU+PBMtP4tM/L4Xz4G/awqpPw52HL986PO+912kP/Veuj6omAm/4DCjvwchLMCexvQ/hZJbvixfD77M/Zg/MDWLP97klD//1qg+Hpx7v3F8hT4P/8o+6GmLP5QHdr6QdEy/MwqFP7ZNrr7hz2m/EF8bP27ksb/vbwE/j7SfvVQT6r8AU88+Y8CeP7G0Pr/Euug+cGg6PvCr/T/nwpm+MdcMvnwxzrt7O2k/wrbIvmrK+r4M6Lq/eWWjP7SVcz76n54+G62Sv5BUAD9RpY6/M2HJPjd9uT+rErw+FoZsvsIEsr7HJxI/jOnyvjJZsj/sVR5AFX2ZP29WCT8/YrM+KTJ8PPW+gj5pkuo/lR0YPj1efD/d2jO/cQGIP11NzT6p0WO+sbmFvy8Nsz4VL/W9HVH0P3EDJT9JX1M/1fJvvrHf1L6wYQs/ytALvkFKer+mMMW9cQwtv9AIez0P7fc/gjdyv8Fipz9j3Gq+Co+JPtBXhb6H0vA/Kp1Hv9JaET9MBCG/VoRovRy8QL5g3w8/kZGFPrO7J78BJ/0+4I2yv+JaNT9qiN+/JIwmPzyruL0q3gVAdpDPv2OBeL3W+Eg/Vsufv0itkT9igpm/6BkLv72BQ77Kwzu/zPAAv4RWlz1/1nG/y7I6v/CTsD8rOLg+A0CvviIGXb+7iQZAatK0P7i+u7/PgVi+OtHLv20gFkAoLdE9YLeWv5lZ/z6qlmS/OwqjPgbYQL4Op82/3cuCv5bwvD4PW8k/cLwWPiR7cr80nLI+p16NPtPWLMBya/g+OekVv8CMob/dHrQ/ROVEPx6Nnz/M2iK/2B9JPzy9Az9iVsw/ldTLvwS1sj6MNzXAZzwyPwk+Dz5I3dS/TdPlP+wCHr5fD40/YHdGvyqetL9QWYe/G+/iv+cIw76MJ1Y99QscP4kqY786b1K/RIaCPwpx+b568Fc/a0czv1Yigr9QFaq9Jihuv50uGz/PzS8/TYRrv0YklD9ji5Q+82zYPltgzj8pr3i9Tu2jvyeGYL7QGFS/Nrlgvx8Aez9VhQfAvLKXvxX1rr4Gh8C/RtdAP3MyIL8ymqO/oUpCvyX1gD9v0CS/GPnnPqoC6D7fnCG/NacEv20LjL+VxDO/Y0ImP9iELj/8Yyk+g+ZgP2ienD8gNOa+no4iv1XPED/qEkc99FhjvlNfGsAufeI+cJOXv3Vyl78ggQDARzkRPziSoj/ktpA/T+KEP9QoKr5UQM+/Z7uuv/vnhj7oHIi9ok/wvyFLtz9RAh8+6q3Qv058/j5bKsK+SnilvhogQj+rJXY+JAjVPmHHGj/cKyK+ICeZvXrATj8bdrc+SoRsP6HdlT98HJk9ikrev0+fgr6V7Ya/dePxPWs4ZL/tIIY9t1C5v5SRbT4+QJ4+b0gnv37MQL/AlF89HzMZvwGVfL/OX2e+aNrMvnXwPb9Uz0k+PGmTP+iSJr/PSZ6/TFyaP+8Dar56SkK/zmYVwGgbeDyHgCo/QfPnv7Ncub/WoSK/vXg9v/HDJL9KjxC/s0ehv7DgZr8P7yU/Rd7BPuM/d701j1A/HcJovJsYWD/wnRnAvhAEPmjGuj/Gfaw/XpwdQBmalL6sgzQ/iNGyviL+jb5bzmk/FplyP5FFDD8foArAUqiQP0CZpT9POuw/0ugAvQdy/77q5YI/J0g/v1xOk7/2x48/WMVXPzdPoD92FXU/CnmLPtb5Mz7XS68+y2jqvk8ldj/aU/O/qIeuP9k3ML900lg+sTCwP5p3ar4Mx/s+opqNP6VkVr/1HCo9sWQ1QOqmez8BDxZAxk4ewCahYr/iCuK/N0eBv3WX4b4glii/or7Rv0wwOT/pyya/HMdSP3dHqj0KC4G+o47APyNFpD6DC5C/3HE/vfWyzL+aWYs+oTzBvlr+fr8I5wu/SxEyPpzfWT8/PLs/7KWmPxHbIb9rG8i+/UPuP162yb8Hg6W/i8T2PvtnYT9nQkO9AmEiPnQJRj5Vv7W+6CJOvzf8Rz/wJhS/7EHHP8FOuj8hvjU/wixDP8Dhej6tlii/0uvcv5zxxr4uxVO9lBUcPnYnVUAj99u+xq89vk0ebz48gyM/agbnP5x2Mr9NXEC/nckCwGSLZ7+Qayw/FCFAP9/FRL/rErA+XBADvzulC8C9qQU/4JOxvGTolz+Tjpa/v0e8P6tEx77iK48+evBoQMf7N7/d8Zu/oLPJviK/0L8MDB2/+blkPjN7Nr93/LW+3rEuPwuk4b84zTy/Pnr8vRX1BkA7s+U+1S1qv876xDuTvR++pfz0vdfcQz/X+Nu/2jG7P1doHkAK37g/qjsGQOEltL8djQBAl2jcPj3Hmj7PYLY/62VSPxO6Nry9MlQ/z5Q6PzAZxL4FgM8/4kKzvyIhrT9f2Ro/ZOAZPyVogr7ERGU/eJN4PiFY0r7Ur3c/r3NWPwpYnL4+GSO/oDQZQLy9OT/1Msy+gTWGv8Wr1r+rn/c9qxEEv3aPjT2pBr6/muGqvucftz5TNzi/NpzCPxh/kj+nOnE/Hp12vVdsmD/4YYO9vaaVPrGCrT6dqTY/HuOgP3AXtr8xpvc+Af0sP4V0JL+rrdK+feYlPwi7Hj9Z6Iu/rYXmvimCUr7KpAS/Rv6CPlPQKT0kWWG/qYIXP5rlnb4LGqO+kbabP1o9n7/fopq/b0o9P6upPL88+y8/ND6dvwbilT8J4g6+xSO5PsrPvr4Z6X69BXvbPsQLnj+l9gc/7WFIP+z1m74417U//9CFvboPzz7iFUI/oANBv+MxYz9yT42+SIJPP08k7D6gSGO+c0dSvzalIT3xY4s/6fRgPaPWuj+HEFI/fFkKPgN+6T5bAqA9d6dZPuynJT/fuoo/YXIGwCwz+L/Fmgi/5UaKPzMVxT9HIB8/hsgYvsnjSD6veG+/g3ZFv5x7bL8nMsu8NAV4vq8SZT8f0GI/x0QyPuZEl77IZ7y7dg4SP4tjdr78p7K+sHmtP6jIO778cjo/FYj+vnHZwT6ccSK/+fBfvxsCZb/J+QO/glDCP0+99j4UVqu+EFjIv9QFuz1Bwz4+bBObPvMcPr5VFyK+yCITPwN5TD/hgHu+qoHjP3JKSD/TqVe/IPsUv1UHzb6y7oS/cCABv/I9Mr4iAza/Kd5nP6rPFz8Ja6A/vbkSwO/a2z+IlKw/t+V5PqmYGb/uH7o/7Wq+v8+b9b75NFC/TM01Pg4eGr9Ky5M+fQvxPw=='},
  'bounds': {'dq': 0.1127525521061114,
             'dk': 0.17219944936825016,
             'dv': 0.15734993324483007,
             'o': 0.13193564516603007,
             'stats': 0.023498471331555203}}]
REPEAT = 1
REPEAT_WHY = 'one run'


def run_once(device):
    """Every case in order, in this process; 0 the last passes, 1 it fails, 2 the engine declines it."""
    for i, c in enumerate(CASES):
        last = i == len(CASES) - 1
        print(("case " if last else "run before it, same process: ") + c["id"])
        flats, views = build(c, device)
        FORWARD.clear()
        reasons = run_engine(c, views)
        if reasons:
            print("  the engine declines it: " + "; ".join(reasons))
            if last:
                return 2
            continue
        if last:
            return 0 if check(c, views, flats, device) else 1
    return 0


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--device", default="cuda" if torch.cuda.is_available() else "cpu")
    ap.add_argument("--repeat", type=int, default=REPEAT,
                    help=f"run the sequence up to this many times, fresh tensors each, stopping at the first "
                         f"failure (default {REPEAT}: {REPEAT_WHY})")
    args = ap.parse_args()
    last = CASES[-1]["id"]
    for attempt in range(1, max(1, args.repeat) + 1):
        if args.repeat > 1:
            print(f"attempt {attempt} of {args.repeat}")
        status = run_once(args.device)
        if status:
            break
    if status == 0:
        print(f"{ENGINE} on {last}: passes" + (f" ({args.repeat} attempts)" if args.repeat > 1 else ""))
    elif status == 1:
        print(f"{ENGINE} on {last}: FAILS" + (f" at attempt {attempt} of {args.repeat}" if args.repeat > 1 else "")
              + ": a gradient or O is off by more than its bound (see above); diagnose with "
              f"`sdpa-bwd diagnose {last} --engine {ENGINE}`")
    return status


if __name__ == "__main__":
    sys.exit(main())
