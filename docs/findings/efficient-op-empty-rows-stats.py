#!/usr/bin/env python3
"""Standalone reproduction of 'pair-194'
on engine 'torch-efficient-op', written by `sdpa-bwd repro`.

Needs PyTorch only.
Builds the case's tensors (dims, strides, storage offsets, dtype, values) as the harness did;
runs the case alone; calls the engine's backward, compares dQ, dK, dV (and O and the stats, where the engine's
call makes its own) with the float64 reference below and prints the max error of each against the bound used.
Exit status: 0 the case passes, 1 it fails, 2 the engine declines it.
Run: python efficient-op-empty-rows-stats.py [--device cpu|cuda] [--repeat N]
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
CASES = [{'id': 'pair-194',
  'case': {'id': 'pair-194',
           'H_q': 1,
           'S_q': 37,
           'D_qk': 96,
           'H_k': 1,
           'H_v': 1,
           'S_kv': 1,
           'D_v': 96,
           'dtype': 'float16',
           'storage': {'dq': {'order': 'bsdh'}},
           'left_bound': 1,
           'right_bound': 0,
           'seed': 278619614,
           'covers': ['dtype=float16',
                      'head_dim=96',
                      'heads=1/1/1',
                      'batch=1',
                      'seq=37/1',
                      'mask=empty-rows',
                      'scale=default',
                      'deterministic=no',
                      'stats=packed3',
                      'q=bhsd',
                      'k=bhsd',
                      'v=bhsd',
                      'o=bhsd',
                      'do=bhsd',
                      'dq=bsdh',
                      'dk=bhsd',
                      'dv=bhsd'],
           'level': 'nightly'},
  'dtype': 'float16',
  'seed': 278619614,
  'scale': 0.10206207261596577,
  'left_bound': 1,
  'right_bound': 0,
  'alignment': 'top_left',
  'deterministic': False,
  'tensors': {'q': {'dims': [1, 1, 37, 96],
                    'strides': [3552, 3552, 96, 1],
                    'offset': 0,
                    'dtype': 'float16',
                    'buffer': 'q'},
              'k': {'dims': [1, 1, 1, 96],
                    'strides': [96, 96, 96, 1],
                    'offset': 0,
                    'dtype': 'float16',
                    'buffer': 'k'},
              'v': {'dims': [1, 1, 1, 96],
                    'strides': [96, 96, 96, 1],
                    'offset': 0,
                    'dtype': 'float16',
                    'buffer': 'v'},
              'o': {'dims': [1, 1, 37, 96],
                    'strides': [3552, 3552, 96, 1],
                    'offset': 0,
                    'dtype': 'float16',
                    'buffer': 'o'},
              'do': {'dims': [1, 1, 37, 96],
                     'strides': [3552, 3552, 96, 1],
                     'offset': 0,
                     'dtype': 'float16',
                     'buffer': 'do'},
              'stats': {'dims': [1, 1, 37],
                        'strides': [37, 37, 1],
                        'offset': 0,
                        'dtype': 'float32',
                        'buffer': 'stats'},
              'dq': {'dims': [1, 1, 37, 96],
                     'strides': [3552, 1, 96, 1],
                     'offset': 0,
                     'dtype': 'float16',
                     'buffer': 'dq'},
              'dk': {'dims': [1, 1, 1, 96],
                     'strides': [96, 96, 96, 1],
                     'offset': 0,
                     'dtype': 'float16',
                     'buffer': 'dk'},
              'dv': {'dims': [1, 1, 1, 96],
                     'strides': [96, 96, 96, 1],
                     'offset': 0,
                     'dtype': 'float16',
                     'buffer': 'dv'}},
  'inputs': {'q': 'NqPOP0y4pr9x6z4/EQuNv0lmC8Ajp/4+wbmtP76LEEAVZEm/mpUTP0RJnb3vWae+8sHaPeZxbb8za1g+oT78vehmoz/AMNS/gOgHvl4C271lQ08/5go0v8dWCb5teVG+Fh5sOo0YsD9AUZ0/u036vgo1rz9AJbk/0i4CP1zRgb8sziO/EkBSP19/3D7ndZk/kGERPp8xtr/Ocku9HEuBvrMENb+oDqu9ymTXPZuZDz8DJy4+JpoFP3hyrD/4ukG+4s4lP8UmZT3AYhS/E0V3PaZMUL9zp+e/FNi0PyOArj8xZ0HACptOv7tarz8b3wK/PoisvaS4mL/wVL6+55cePjP9AT+K+bC/knGqPzfMhD+RBwa/kBE2QPJQkz6H0ce8MOFav1XIqL6TQbe+ZHbKv6lsRz8b9JE+0zPmPgPVgb8A/IA/gZcHv7X7Az8TsAI/7RWvv+clTL/A2kg/y58Iv5ivWT96fha/cX0Kv/tDpb5QF04/RVQJPw8CTr8rboG/nCBUPwF1A0DsakC/5pJpv83qUz+K5Ia/E0iSPZaktr55Vva+68AYv7bVIb/5TH6/Gx7av0tCsT+lYT0/doc9vzeL+j8YftI+X3+ePxGlUr78Aus/cfnUv9wm2z4zNCw/70rLv2w+GL9GcDm+97OcvnsySb92V4m/hw1fPxlvG7/7cYk9IOLYv480k76Y9b0+u6Y7Pp4Gez7znjI/Dvunvs5Npj9H9NA/9OznPiwKRb86vZI/ufBUPxIGqT1F4Ek+nwMCvlcJXD61fBS/WndpP1T2xj0FtYg+G3LJP8nPzz9pqrw+xMIfv9VDuD+Kap6/grjWvxuIOT36muo+XJyJv1lreD/R0ke/ujG7P9Y+J7/KH3e9ixSFvkbsiz/MrMW+ebXZvtjmvD/kYfO//xUaP3h7/L7uZCw9QE+JPymT77yeP5A980nSPfbTwDwiEoU/dSZAvso64D/MxXm+uKVMPzCdAz9TOQC+N4J1vrD7Hj/SaE6/hg1nuyidJD0ImY6/25w4PycsoD6e1pw+CV9Dvg7IF0C+Oea/Ng4Mv+e2Lj9PP3C/jdGXPnjfVT/E8tk/AfbTPkWVPkB6zpW/giC9v2Bb5j5OKLg/k2d2vzRTBMBcKTo/XFSrPwaxLz6UPoM/DAOtP/tf9r0c4k6+ZhDIvXmJYr+0fh2/OwMRPeWAJz54zWi/2e1ePyLvAzxGeH0/N9p2PZjSMj5rTrC+a68oPzbNaT+wu+O/KptFPxq5wT90eXQ+8/bJPtjFFr8s5WU/zQGEPnRWl74BgznAhwmNPYIqtr8MP28/28sTP/zYJj8vesm+XwgCQHGDiz9zyrS/ZMD/v+6kbz8bCX0+L0pVPofp7L9TTiG/uUiWP4AkO7/XMyy/YnmjvzMAW76vNMW/q4FWPsso+b+DVQfAS9HOv9rbxb9Pkpy+bafJvTwoZj4NfU5AplS5Pyc64z0Tsx0/fK0qPxTeWbxz+7w++0cMP650Kr/mc3S/p6uOvg2hbz++bUG/zKeov2lMSz+qLn+9gzmWPdBGOj+craO/emfPP7Rk7z7xL1k/kg6DPi/4CT8a9l2/6dAMP+W7G7+8FXM/0HqGv/8KOz/dD60/hAmHv9Fk/z5N/gu/Fzp3PzhMnD2KWRBAEHkSvkuzgj8qUpw98n4jP2+iF7/3wra8EdUMP+TX0bzPm9M/szulv95kkb+EF8U/gI9ovgj9yT6o15G/xV0wv/Druz8QII6/J/inO2sMSr8mEmA/tbM4v+pxvT7vYMq+uaFXv6bYoT6+2yQ+lh7FPkyLVr1RJxG/z9qUP6mNbT/nVfa8Ve9MvbwK/77FW0g/35w1QMh307/Lq/u+hHENPBxGqb4IfMs/jHrVP5Q3zb6HbxS/syKwv4eO5T/QHT4/heD4P9rtKD2nIXC/zO89vxYDor4wdgTAIgYdPxkoLT8mygk/vZPEv+6LI7+KWvu+xMD1PVZz07/PaCW/kvk6P7vDZz/cEbk+sFYbwFQcR7+xSAe/0cWZPzqrkz5Oh6K/aJl2P0lLb79QbW8+5/v2vVXcS7+2baw/ZOZMP2ahlL8lKGW/x8JBv9Ido79U8u0/dKmmP1/anL/XNuC+inHLv1oiAL+EbEu9VePJPqzuLb9FSJ6+Ab6ev86V2T1+2Aw/WN0wPkuYHj+9Tjm/RBaOv/KjA8BCLKo+73x/v+Hcfr0ikoS/8BSNv2udgb7hp+I/m19ZP/oU1r/jKhpAZlAJvh/49r4ywM0/VrY0wGdBer8XYSu/bXV3Plmbx74oiqc+QRiNvVjcr74HhxA/p4AZv75uRb7zTs2+GI9BPw46tb7c+Dq/EbYRv9hbIb/eemI/HLLdPxO3kr5CPNG+LhCVv8b/AMAV2Eu/0tIdQEAOgz/FJ9g+aZwJvmdDND/71Aa/adeRPwYtrb9w/oA+THjTPSYKnb9GWN0//LY1v5DZzL7vB98+/fFmv6sAQb/ZoMy+n8giv2Rpxb+6aue9SO90v4YFBD9vUNY+PfsVP2KsMD90Q6i+RBS/v1GITb+HG2E+GVLkv2LPP7+XXa0+VlsPQGDZWD8sTKc+dVI6P+4dAr/cWIa/N70/QI5mhT9uPYa//TEvP14rtD7DPrM+1i4nP3WWMMDwO6w+8gXfPrfj9zwygGo/wIagv9IHyj6jUr++RZHCP4FEYb+8l2E/NIGNv4iItj0LzDo/BP28PzM1ML+s8CW+M7MOvwGXbb+U64g/sAbUvvaWZj+nsea+50yCv5ROiL+myOY/VNpov2/SRL/+hyW/0F2MvlHVoL/Vc3i/xeWHv04My76/w5Y+qDA0v0p9Kb8l2N2/ww0xPy1N4j57NZo+VkHPPwp4nL9vJ3Q/QNhFv3Q3r7+Hpvk925JCv5L4C0BIm5C+wwyAv7YNxL9u986/Q7EIPrEk7763ny+/+Lx8v8SNtD5NE8E+J0edv3Yw3r/snpm/hFECwM3Rwb9ZJge/Lm4XPmmPoT28dSO/i6GzP3PmXDxKcoc+SXaOv4mAgz4oggW/zZlQPu7lvD+aiQvAExy3vj+Ad7+7KKo/8zM3P5KNAkAXi5W+Fvfbvnv7qT+zDVw/OgnSP3m6uz9V4Oo+OL10P5HL0zzK/1c/tRy7vdwwnD92FfK+VOM1P9RepT8B0AM85I6iP/riuj91yIG/iImRv0zu4T+JFwBAz9yUP+B27T5NKgY/ew2qv1I2Er26vXi/hAQrvwzA3L+HJu0+d7Fivjsas78qSgq/DajUviTBDz+94yu+AsS4vne0mz5e3RY+Fe6dP/NJ+T9M7AE9mZHov2MvR7964Y0/BoeMv8KNtD639X0+XGVLv3gl479R9pq/ZQI+Pne4ij//jMW+kwlmPmnLtb6JOM6/FMyQvqUbDz8MtIA9XtEvP5aoCUAen6m+UKM1PwjSGr7Z55A/GICRvyj/3z4ozFu/4bIfPs7XJECxSmU+g2Rbv7+05j5hv5K/8jx+v4rBwT3ie4i/euxPv/bOOz6V7yI99y04P0zP6j04FwS/WX+nP/rjlz6hTw8/3phmv/09tLx0V9S/db9hPnFoFj32lss+Llyzv7uB1z31trm/LXUcv7ppwD4sF6s9VSOhP1h7sT/lgrM8zpidvr30uz2Ny4y/jK6rv6NJvr+/EBI/LFFsP4l1B0DOYpi/MU4GPzfmLD/Eb56/VsfGPnvniz9r3Jq/uY/jv/Mh1b76sRc+Qj8vPk+wZT9QZqa+ixN6P6eszD402Fm/0TiXvRuf8z99Euk/qIAUv2es5D908o4/3ggLv0DAmT7klAbAUafYv6k1ZD9zLZs/gztgP2ZS0b7DMOY+x9AkwHzwBb6IVMQ/TLyEP7Lugr8zKai/0ncIP8Z4u76GzNu+E4CgvxIt8L4lGwm+fSzlPiMFub9kPBi/fEUEP1N23r6DW+0+Svorvq+KxT7sBnO+Mhozv440rz9x7SC/bIh+uz6zpj8Mi6E/fPf4PiMxv75muMA/c1jmvh/Lg7tkLZi/UyObv+ANgD96diq/TplOP8m5BD81bFk/qMigP9C8Nj8Qs1c/mEOmPjqsDkC78Wg+J+Y5P04Lqr+emNe9OW1Yv1Qwlr/S/bS8977IP4UNcL6+XNI+DlByv/OxB7/XF9K/9m8dP9wKob4RGqM9eOpwP5YIuT7HxwZAqaa1Puyl6z7RvwC+COWKPw6V3j43WmC/NVe1v/mvHj/G3gDA4By7PxTMgr4N6dK/19k/v07Qgz5Zqjk/ZEmmPRrO4j6nSi/Aew+1P/34VL9YXJ0/ZtjdvTytLb5T0JS9vWO+PrUk675p1b6/7sK1vfyq0L8pAvM/pDR3vPoDSj/+YYk/AUM2Px0Iib8N48s/d7JBP8Sml760a7a/ucQbP0F/7D5hjqw+lhVfv/M3hD45PYG+mSAqQK/CeD+vK6k/oPxdPwSBpj+JOvs+oqsyv9CgPL7rBtI/juOGPSmbkL9du2E/YV+1PyZtvr9YPY0/lAwTP5lQYr5hnfy+hCsgP+h/YL8oD5M/U9aqv73G7T1MVKg+fynTPyk0Hb4NF3+/Vtciv45k4L0cwKo/vMCxv8Ayab9FJgTAxV5RP2tGZL+6eRy/k4hGP8NWHT8yvwA+KB8HQFbB076r9by/zrwVvyn/3b6Dc0Y/u3tDwKWtPr42HxXAfsG7P5H8ir4riHy/+XghP5jD2b/RM9s/KWUXPvx1sz6LQUW/f+oqvx9JmL8oeq4/JfcTP+vnV78E37c+zcBAv4HLAsDU4Jo+TUS9PlGpwT5VjhjAal3XP3g1cL7A+hE/z0GCPvlo0r/MruW+hgzWv1nxGT/S3qi/u0aNPj3XAr8L9o6/G6UHv2tPzj+kkVM/oxF/v1UUXz7Rr8E/blYVP3vHrb6kQ4Q/jIYPP9sKGD7ia9e/8irQPuEklz/ORf++cxKNP1Udrb/KDGO/Xx4cv7anIb9AFpe9fXpdP7vYpD+wfDG/1uZYvhdflbxBAGw+PPSbPxi7o79AAy6+CQ0KwP/4vT+sg9C+UfG6PlP9uj8jdA5AdpnNPglZTb/OZkC+mguYv7aGIr+c8uW9UJnDPTX15z+nwtc/g2OGPqFBPb9wj0XAtZicP7co7D5ax8a/+A8MPzyEn72vSRO/dsnJvYWD9j5eGvs+VjPxPgBUGr/dk0e+3wZDPtOrab+wxvy+agvVP0ZlDL9ginI8xxoRviVV6L7JuUS/DvcnP5Z1CkA2wY2/acGAP0qi1L/EUCM/xQfFPdBGOz87Ruo9WWGFvxRs5b17Qnu/ppKOPuQMBL8a5nG+2y/CP0wqI735BBlAKR9Dvuo3Yb+vhtk+iSWYvleZTj/G3X0+0PjKP2m6mj4R5qy+FKSnv13+Nz+EZ9O/PccGv1oXlr7TRNY/AQkEPqyWs74u1og/H9qoP9DxBEDZ+m09cYK6P5hcCz/GRQq/1RCtP07iRL5R+yS/cYLoPztHBb+A6aO/IsEDv+N5Qj9KMhe/KRYRPwExJL+ndZu+fzCpP/RQOD9mJeU+bKe9PXoXjL9+8US9UMF2v6/7BT0x59G+5AYGvqJB577rpAG/6KxwP5HHFr8vM4u+qTp7vygZnD+j4O08gmUWPeghUD/bACa+FN0DPy1m8D6G9M+7cCU+Pn8SGz8dKTu/kestvwtY8L5jI2W+E5+MP2Zuij9c5Ao/+MUQvyB/VT/t95E/zy21v0+4yr8/hAu/svPFvjATwD7O/JA+jljBP0HoJ76FXAg9recEP+xGib//+KY/MpckPz39Vb8A8Pu+y1glvv1LkL6eW+c/9tMBwAMZ1r418T2/pL7kv6NMsT/7wae/dYFrvnMxgr9p4aw/KixlP5X7JT/SOC5Ah/QZvqBREr97+xu/rCl8vhA7nz4kx9M+L9SCv8VMFEB8+4a/Yvxmv6IfyT6yy0w/okOWv7Q+c7+0Khg/CX4KPjh0mb8k4r+/COjDPagUnr9UXnc/tP1bvce0ZL4DcJ89Aqymv9f7nr7T3+i+O1NTPF4xF784Bje/BZUov9CqET5tVZu+owmxvx/UOr8jeUg/ecQpvw1Lo76UUMG+egWZvjnEjL590ou+nVp6Pxd0xL8YEDM/iQ32vwV1Fr80ul4/AJTBPsdOFj864YO+FezBv8GOkb7fB30/MIWkP9nPf75753C/jjeiv239xryvwitAjqqTPcT2VL7yeOU+G5/xvsewNL/mHg2/WUCFv+bF3T5fr0e/f4rRPoDfa7vGPvE/YvOevzeFFb9a7qq/NvGIvx/kh78hdxk+qUQWvdfPs70H13w/LaxdPgFij79Vt4U+GhRNv3xcvb4cWVc/H3tjP/Ay1797VCa+R9ksQEBZlr+1w3c+0qa5Px72NL5WHym/W89QPeuIzr43SS4/sM0Wv+3iC7/vlTU/WtLXv9wp5j5ceQY/QAI8P3cK3T8rlzg/QqOYPvd1Sj809B2+NGHOP7j9wb5V2+Y+3LvkvhcVc7+NsOU+tm/5vsMMf793gZc/0DCNP5WqScA/9Ye+JtxZv9P2P7/8phs95k6Cv/YcDr9MVkC/FhTFPnZ/BD8wSGu/5LUFP7tZvb23Q9I9fV4ZvzYHn7/lahM/VdwBQEDruz8Ce9O/HdhWPyEosj4EHwu/gxa6Ph9jpL+ApFY/aakOv7KNZz+N1ao+FzD+vm+fmb9OCcy/3I1iPlGBgD8SnHa/ZEievcgELL0WXEK9NpuVPRs4FL/4CoO98AopP245ob7fniQ/NanVvyNb1T8wwiPAfcxoP5f0d78sGgq/rTggP9s5Pr9BtZ8/bokbPnmVCr6XAQU+truNPaksjb5D64Y/yTqJPl10wr5U25+9gXbrvv7ZOr4KDLY+m8cXwMwnlj9ZxRS/s9ZxvuxbG79Recy/OpdTP+WipD+GboC+Hr68vi1tHD8c/QDAqQdIPoBe+D51yNm9bA6sv0fyD7+Mp0Y/dMrPv112jj9PwMy+UbzxvEL0DT/3FRrAVFAdvk6G9D5gNyu9WkTUPlVHy71aO1k/3+tNP8pz+LyVOxO/i94AP15dqj8IbT6/NI/APwDEVLxZAtu+YT/ovm7usL+HmrM/4gjxPma2lL8n2zW/5jIYP5j2qz9Sl5M/p5TKPpcYvj82n5W9mwaGPgQ2sr5gOQPA01bUP6r0dj8VZRa/M6mFv+E14j+bzE+/CPwvvL6taT+ND+i+eZwav7ndjj/DDsQ+CgTNvnvYkz8MMre/0Q91PuQ7qD+dj84+mribvxYbIr+sw5E+ICX3PifFxb+sVMU/Zq4SPpcjFL+Qxoc/u0lQPzJ/K7+f0w4/DiqDv+24DL65EBw9oy6zv4OiFr6AABM/O6Zgvu04u74/8oe+oRtfO+JVTj2BWh8/TbPfvqnwAj/iD1495QX9PgHWjD8ne/G/uXJGP2Nvvj+xwDE/IFM2vzzIDL1pzns/1s4Rvyn8sr/jmjU/0aleP8jcAb9wXmo/gIsRP0+n+b2BiTa/Q+sFP1Rqtr2QG3s/uFltv8U9ir97Op4/70uTv+0mUz+VM8E+zlZJP+k/5L+POKq/IjCsP5hBr78vNrO/z2oYvorq7D6QLLg/y0h0v01pWb+Pgvk+5hxSvqGmfz6c2gfAlHDMPu5CkL+0kRq/JpJ1v4DQ6b5nEz8/M3s6v3ejNj83EJw/j0GnPtBYkr2GjRa/WZmbP1V2Bj88p/6/WOEBv8cVI79eoja/jHH7vpTZvb65/P69dTdyvprUUT/W8rM/rvxjv6DY47/N3w/AlN4Gv4+iQ7/SzAW/WXl6v/w4Tr9Yx6g++J9nP25Ql75VnhC/iRGDvrmgnj9Tkke+zAJCvxaJiD98lKC+FNW8P1zcFcCuf8s9+hW1vTtETr+kkmC/OaXJP+5SAEAfUtW/cDBDPychSz59dLo9fIiyv1ZC1b/HtGw/bCmYPu7WuL6NqAJA63i3P0zOg7+ZW0Y+6Cugv3ExQD+kP5E/7o8ZPn0BnD1V1Y8/AIISv8K1Bz/bdxe/q3dtP+GusD4kvpi/sVbDP/snwr/6DKy/18R+v5qXOD2d1pi/u9ePvlqmpz0bTWE+wx3QvbAFkT80Mh49Z3gtvh6LjD/Sza++KBjRP/8a/r1u56U+9HkxP8LuUD8nEaq/uciKv94Bkj5Cn2C/k3GRPSosZj4CWvk+mnbXPhcFpT8sRqs+tL/dPxovxr+JEy2+NsXyP/YWDz9xh0k/ZjDFPxO2Fb9gUwM+TF5GPxr4zT0zCoi+WV5TPzhh4b2qhW4/HuAkPjhhEb+s+7M/tCtGvkYPrb3VNqK/lepPv2osCr8bUDi/YsAkP2jreDxU69q/Mr46v2fVuj7ZEhq/cT/Cv4DNnL89upm/sfcPvz/Uir/tM0W/UMVFPyASmz9w4yVAetwRPZWzKb+Fn5W/Bx/WviK7Or8NoCC8lql2v6uU5T7QnFQ/gxWKP08k7z5zZd4/HbqZvzXrCT+ba608g7/ovzKc/L4yyu+/9kPKvlOZBb+WU+S+zhsXv5QbDD92ano/qj1YPvUGK8AFCcA/4Z0zvrhrNz/LKYm9n+PKPm8Lkj1Nnvi/YDAXvn5qy772834/rtnKPg2IBcBgsPS++AZMPs/OY79cnlS/mrY6PsH7oLwSLGM/b9bKviN//L4w1TY+JxEQPwzVx7//Zs2/maiqvgOD0z1WarM+RZHDPtPn+r7KCja/qWiBP5v8O7+LIYE+Jbq9vxnmmT6Ni4u/a6nzvm9bWz8N3mM/ekOiv+DIl7+moaM+mQSPPxTYXD1h4Zm/A8Orvy6KtjzczC4/ptbCvwqmCMDgRlo+wnxYvw4UsD+GS4C+PUUxvg8gCD9Zh7c/M2zTvrHTTb9v7km/EqkTvxRaHz+bS4W/Lgo2vZDsyb7cV409wu0Vv5OKuz+lfNm+8IPrPhRcZz8BOpY/I8vKPx+UU7+V/wU+NeorPkCC8r5xkIi/Z7yPP5hNSz8pAJu/lEB9P++Sgj5b5Vu/BAG6vqBc1L5gM1c/sFqBPwcZk7+Tz749Rsq2vzHYxb9Fvb0+eQQhvmXvLD/Yspe+ygS2vscSUT8QPxa+oYAewDG4Kr8Dl0q9nkXJPWo2Xr9iY2S/itjfPTR6Ij4//8+9iCzCvpR1Vj8aeSC/s25sP7Fhcz/M+AI/rELyPt1oUD+ag82+mBMQPhfjrr8Z5JU+SWyOPgl0CT/uQ2o/yecaPQFS67+hXAm9kYHgvre/tjyrwFo/mFBVv4cIh7+jkdU+JbDjPw1yvz89Bg4/hKCBP/bCuj+Cq82/4eGIvnIGgT5cb74/OtsbPsOeMb5sTO4/KIGFvlyk8j4coki/qEpzPk5u8z+s1IS+qMMpv7XwEz9MEUq+Tk9YvksJAL6KU0e8fO85vv/0778JYKg/DlSEPwOtLD53tXe9l4bUvnbUET+0uV+/oZzHv0VWJj6ODy8+XU2cv7nVmr/kg/U+oGOKvgKjgD9rjIs+H4uyPU9ocT+97ok/+Qw2Pec0gr99Kco/6U7gP7Kheb258sg/SxFiv85Yjj/VUti/WecFPqmikD5y1yq/JE+MP8njQz/X24q/r7A8vb69nb+7B4E+rsPNvp/cQz94v5C9iAjpPtdZg7tCHx6/HQm6Pqq3xj7m3Zo/CRTDv3Wkkz7chne/vNKev8T3Dj8Z3kO/+uWNPo0Ycj8pMn+/VBPSvsD34r90Jsw+Zw6UP0HGcL+WitQ/q2sVP/W7yj8g34e/U9alvnmyFb2aI6O653pSP08Q2j/2Dhu/byOgv82ybr+ZMIM/CDLRvtvlcT3Eyve/+gvUvpGTWz8t6oU/r9XbPw5dAb/qycO/GRkGv9Vmmj5P4fo+beRnP0HspD/+qZc/FpALv5ArCD9MNbk9h4pmP7/hQj0PNEk/WdA+P8dDNz836Po+QRtEvxHAsr9uOkm/L2tFP1d6kz65qXu/QmgrPweV0D7M4py/98y5vNYVsD0NFtA+sdyPv4peP798Y02+6tlav7MUU7/ASUM+iHYfv1ptvD9vxIq/DdYKPzIlrr+TUT2/8zhEPSaWOj+gjVQ96xsjvmFnUr8SpRq/kju+Psd0GTzrkGm+VzOiviqfNb4Ubpe/J9g9P02ggD3UvpS+4a5iP/TQ4798uWk/HxaCv+Amlj8TGxm/NtmNvcxXwz8RmI4/2hZQv/gZpj8LBtA+clSmPzetu7/joP8/7FXPv8dhXL+FSKq+82jEvvTAXz+H/BK+htSpPhyOAD/2XQ9AZ0GDvxOAHD/epaI+iiRyPqGc5D7Pkk6/BWWNPxYyUD+VOJc/dz5LPwwfoj6yeJk/x2fdP+HNI75cNqK/yXALQPjJ3b4bwK6/j2qwPnNQT76Qk7w/+oWYPps/Qj+T+Sa/0n55P0A0HD/Bync+HMUyv4KcKj+FDMm+ZzrKP8ltZL+1CSW/CYuZv/L8tz8C7h2/CW9Dvyzflr+StUw/rGtFv4NZGcACXgjAG0evP4c3Gj6rUzLAzUKdv6tQtr+DSwa+ZDUbPgXv5T/TITy+L9owPyyjE7+S57E+H6o/v8JCZT8nRQ2/HPfNPz1GIL+1ePS+ODHiPkvgZb7qUju96Fm8vJrAWz8G9am+jaBiP1IuWj9FAR/ANwIwP33Uyj6/Pqi+yzGov47yrL69Yec+86HFPxLDOD/1hTG/LLSxv4iSBT/FEQu9KbFyvzUb2D150fy/53GevScI0z+EInM+pIobP3fFSD5t6jI/XME1v7dlOb8kBxa8qowQQMZXKD+Ysoe+2O8GQIxnC7+MM1K//6Rhvxfskr/IU58+kjrPv0dTFUDJfiM+3nB0v0lJHT/H2KM/6KdrPto31z6nOBW/OXe7P8Czlj54JFe/Ptu5PqqEE7+S9om/yswrP0tMIj/fX4++0Vcpvv288z7kBfY+Bc9hvhDPfLwCvGg/oHMlPzTobD+s2/I/zJN1v9JyAT9cMJK+m9gCvoT7fL8YuzM+oQ8KP62en791PTs/NCSiv+4Hmr6eeB8+dZSwP4aMkD+Lmgw/4qtUPxFc4D6wQZC/nIURwKjrED+lYJW/RA28vcJPLr8ji6i/1yC4v2p3H77zX4u/Gz6VPwD7oz+DfZq+IAhOv8qbND6SYLA/uNlvP/1Y478oebO+NsS3PxxneL/uHBU/gb6iPiEftb7pOIM+Sxowv2ElGr5IwgQ/dYmuP9sUFr+O+gNALe21P1cTsz7/wMs+L+lLvdmkH78e8gU+D0G0vx619r/0PQTAf5Miv0VoO79KwUm+aL5SP2D8NL8NVn+/+S8+P/eUf7//Uy4/AF3pPleOsD89CGm+OTGjP2ipu7/JG+C+AmFCvxv6dz4zYOo/UP4dPzV2R78qw4w/Y7woP3yVQz9bjfi90zLiP4tIrL70UjY/plX1v8Pz1D6QouG/Nus5v8GPlz0SDik/QLjvvvFl777nXoS/Tu/nP9qMMD7uB4S/yQoGv68HDsBS1jC/p2coP3ELOL91srQ/qTWvPpLffz9EB0Y/VLaaPtGMAMDXj4I+w+CXv2bnpr4AMRo/9i6eP8rLZz70Kyg/8X0zPniMFr8VYSa/xEosvsWroT/O3hg/99ENwMpV5D4Vt9c+izBWvEh4tb/jlsu/6AwSQCYOfz5ofTO/go5mv9jZzT5TgTw/pomvvazDbT8yOrM+mJFgvwKk6r7IGNs+rPLjv+BRFb5X134/5uPzPnL8V79G8jQ/BFx0P/cc776kIXc/MUBQP9c66z6ouzG/m/3lvpn4rb9bZ0u/lXE5Pi/Hqb6p46m/fCdfv8dARL/jSoy+s5LxP2tuvD9UPvA+bnOSv1cvqj/qO4W/uDw2PXZkRj/mvUS/4tbdPiXfET/jlUi/0s6WP3LWUj4mqvy/EGmaP0IMZL+HTBS/13fiPnu5ib83E6g/5NEVv5bjJL9voyu/gTVxv/NBdL8XOTw++/1oPq2dij8wpBk/iKrxPsHJuL3Qb/M+L2I4v1Xkab6zOVG/ZPnFP0gWEEBNVvK/3RvBP/wecL/Vfl7A7zkCPk8pJ0Bfxy2/8sUNPRWrXj8uaPO7ZXhcvfwFUD+nlYA8VkAtvhoKvT1XGcA+3FerPiK3GL4jXD+/8rXAP3g9S78mEIe/7CVFv7aZgr9gWtI+OnvVvgs2hz8Z5MY+o0kcvpsYiD01FI4/UcEEv6+SHj9Jini/tgSSPyckf78yzr0+lvLPv9Ad47/l6AS+k+mYPnjF/b454vw/9srBP69TqL8J/YM+jp+XPyQm7D+2A0C/l1i+P9yUN7+bRo6+enG2v3O71z5AS+w+mcWyv8l3RT/PosM+r8aMvj3/Mb+TSp2+a6KuPwZ9Hj+x4Ga/svCTv6/IKL8IZ1C/hgOdPR/4P7/Ekrc/R40BvfCjeD+/a2O/y0kzv/71Uj+uWJu/5ai2v0uDVT7xeku+el3fPuNEuL8eeoG/5VyePlG5IT0PodS+C6xRPw3SFr8a/JW/Nv4cv7dLUj4QLhq/u4AOQECF1r4vPGw+xmGwPzI13z81UjjAE7roPrZkYDx1+Qc+93sOP2pfTT+dfgi9yQTlvqOQMT+lPw4/7y7vPxe5wD+hl44+fo1dvXOIjj+FW3s+uxHAvmM4qT0JS3S+K8wnv7iseD/PsSW/jok7vmWXKr584zq+NyLpvn/ykD84gZu/FekGPcDiC78MBum/C6ypPlx0sb/Gm4o9lHYxvwKabT6JGNc/9xMKve5HND5Auls/V/twP/VEoL0sLl0+ePttv5UUbD88yam+j7ASv7AVpz6mJQ8+RtqFv2woi7/Wohc+3oWqP7zjOr/17E8+E4uTPm0jDkBUPcq/OPhTv9tOPsDs2oO/Eanmv7O4Cj4kqbW9UordPnAIM78Kw4g86MGjP2gmsT5Wvpk/H3GaPv+2EL4YyI+8QENQPzzFVL9Qlr0/lPmxvvwMlT6SsvM/LnOdP5AdLD33lCzANwZNPokSPD/5zZO/HonGPhVQ4b+sKKY+tq+HPhGWaT4WVwfAeIGBv1jFYD+BKBo/mf+Hv1kL6D+1Mjk/kaIhvy6E+z6P2NI/frdWP04cSjwq9QxA2FP5PYeLYb57yvm9bl8Av2/69j6dw6y/My0LvSTYLj3EQwg/y+2dvsscFMAoXKk+yUKbP9Sjnr/mWHK/wybOP8GQVj7hUbk/NBdJvofWkj7sZJW9GO88v70jEz8HgRK/04eTv3pSkz3Ept0+hrTiPx4a177lk+Q/iSidvmU4Kz/lPKI/1WKcv9c3nj+GAIO+C/ZiPdtuXb9kFBy/URKjvlBNLz31FhtA8IEsv600gb9L3+G97S+xv1wXjz4iYJ0+PFCkPW+G4b+NJli+pYamvuyagr+4hyQ+UpTgvsCNHz5Lb/K+I/tPPvyijL47MJa+qymQP9bn4b2lZ4k/IcCDv/BEjD76mDO+5+YbQLpJkL+QhTS+cTyOPvkriT8tur6+lGJGvy2CjT3P2QU+NysOP0lnQD9kzom/9QeWvxKsT79fzwW/5UCav255tL82XxC9GwGvP8DHBD+hy5E926EIv6ol774jPqS/zRv9P8f1Uj+Shoc+ICkYPckYgj0WObI/eNGbP+yrf78P5hE9gsFsPprsKT9gl0y/ytp0vRjxij4Bru4+XJpDP2KzLb+X1D6/E840v2mFhj92eUa992mtv+6YiL4DDxc+1gMTQIoNKj5Bk1K+BaY0vnJrFr79VES/lttdP1WwOL9bZtu/9fYqvwsO2r/vDRTA5BEfvpQtxb8Vliy/xJmev9p7A7+RVKk+/dsGwDUeXT88Kbu/LvazP2T6a74v0N4/b+2sP9Obvb5xzQW/Nk0qQGOV1D43zjO/A3PRP00HOL+mUxQ+X+EPwJIpEMC6V3O/qPGJvisyfD5zLZk+P0G1P4gd+j5+xQDAfkLHvL68Ez8DlfW+7t2YPzqrzT40oIa/vQi/vw1/kT9HjL4/IYy8vkxixj9EJTnAw5+mP1evtT8MOZE/DBRRv82Nkj8CmBS/tzj4PylYV7+Wbhm/DYcDv3zqpr9OW74/BybwPm4Pgj2htFs/gVYtP6jj977fRqK/oiK9PoLxfD+dfl2/uIi7v3mfeL/Nv2C/UIcbv0purL//ezc/VK6RP+w8RL9bFZm/WM2FvpuEh7/ohlu/9/5qv1xPJD5rwwo/dDd/vuMNrb+X6By+Pq6av0TpSr/L0NQ+JxsVv4OHtr79Xwq/fZPBv2sWYT9aMjQ/TwOtPxBZE763B7E/nJUKvitomj8z5AFAEY4yQAd7Mb84I1A/+c0qP5ClA7+E31C+/L7BvzP6vT5TfpG/5l+WvxSwlr/T1EQ/ptUPvllil78/iqw/l42tPtCtlj+s2KS9S0J3PzU1wjz7vnE/doaKP2sNSsBj1hDAP4dJv829+r8E0a4+C2ZgP9/gYD+oU5y+drAivxXgrb/rbqg//40+PxUnDb9B6XW/qq/Wv6pqsz7mRaA+q/ALP76bGr5Dpcc/dRSuv0l/dj/RaVM/I6yxvqmJ0z3hxNm/ut51PuThfD/N7nw/HlpbPqnr2j45M7w+wwQIv/vqvzylGIe/7Ydcv1R1OD/rkjO/cyngPw2bjb+nXZ++LyL5P0O4Gz8yzzU+mjBavitB2D+Qajy/sxMwvvVUTT96GL2/eZaiv68qYD08wDS/iT29vhGpDr/tN0c/61kYP/WGfD8fJcc9AfAFwDHaNb/ZPIO/FFh5P2NAZj8PnSw+NS3yv4PiXL5hynu/k76uviYjMj/l0T2/yl9lP9JlmD1U1fM+9kJSP/xBjr8naOq9Yzv9vxpztb6F/ry/6cLJv6ncrT6tk6i/ZTTcvrVfg78bmX8/6TpCPg37V7+gC1m/IfyLv7+PF7/FIrE/LAOMv1K9OT9AgLi/7kpGPj1OmD/T96+/qNNhP2QlcD7sJRE/QRg3v32z0D96eVK/4NoyPPmvML+SBTI/TOQuP83mZ7x2c3c/QtZbP9w9jz8p0x89F37zP5JoEz+xPeU/MayIvSqfqz9aOYy/8piavkCzfz8ZNTY/bcIjPo5lUj/pYnW/pNqZv7rbi776mQc+Qf8KwKWBLr36e9K/zu1av557nL7T1pC/o9iQv8pNmL7TXc8+jNRvPyYriz8F7e8/2XtsP4bXvT+HYd0/xrMHv/1agD1UT6U/843IPg+r9j+VSy6/Edu+PdLNqb/zP5u/75HQvhBJAL8PflU/r966v3Z2Wj6zwPK7YCavPl4JhD8/MDg/AYqUv2h2ET/8JtW9OqaEvibyLj+9uV+97xa/P2sFZL4Cw7i/VmhWPwPClj8nQBtA7trSv2qSIr8o5JA+FuTbPRkIdT9R0sO/2LgKPDogXTzF2pq/3wJOP3ZRpz/Y/5i+WaQaQLk4fL+pifw+VaeIP5mlRr+Go5Y+OJ+OPVhNRD8U9q+/1UWNv2XBib583Nu+AMRYPv58gr/ZPe4/aA23vkKuPr/DtlY/0bPlvmvW1z1tU+2906RGv14Pub5sLyG/IO9wvp53Dj4el8C/TRKLv1TrA0BRX+a/NWO3P1MHgT/RxBq+ExQuv3trPD/2agvARbW3Ps6lLz4XVyc+/aETv3wTSD457s8/xPOcvAgdKj84oXQ/0lSvv4+I8L5W4I++yZRjv9Hpsj9gUDW+Pms4v5ynEb+a87g/A11EP4dvYr9N5gy+ls+nvryLdT/cW4++zQGcP0Bsnr7QXga/20y9PixaiD+YgIa9JmeOv0kSKD5ErYa/Yl8Av9/Ppb+qpxc/vyDqPh8e977hMYG9ccFYvjka9T7TEnQ/XCmUvyqyhT+7Kp6+6ceJv4tDaD7mXEg+w/EcwOvr175oqRq/796IumcxNr++4Vk6jRgPPozU4b7w3lm+mnTdPoJ4FL8RNhO//tq6PXBh0b7HTVI/L8I1P89G5b6moWk/jK+LvUTCFzmGHBm/HQQzvqx+o79vhqA/amIQvvkBLL+RW1k+mrGjv6H9qL99E2E+Ue2gPv26bj+vNcY+L2XDvjrU3T4PRiY+TGeJPRbHN8BEXoY//D9SOxWUPb+ifCK8jlVzP5DDsD/eTwQ/P+pGv/V9XT+sru2+yz2qvwUK7rujJQC/gKW3vwvJlT+365m/RI2JvxzXhz5CYqo+cz7cP5VUEkA57ydA5X/TPp7lnr9Vt28/T66cvxGTCj6KGOM+YrFeP9/rpD/n3ac/qohJv9BAhb4ReaQ/KowhPw0Aaz/kK3i+yNKpvo6Hdj+ANpq9mCaCP6VpO7/lcK2/rJGTP4wYUL+5EG6/e25zP6WjKL7MMYa/dB8zPxA1q78qFCfAam6IPpzXpD5D0cO+NnlGvzjNvz8uUpK/GtRGvn4+Jr/WUvs/OaWHP9rIqL9RYkI/BHexv5Ppkz9Hc6U/i9KHP66yEb5v6RnARYI8Phvkeb/MkZ+/F77XvhWITD5WJ6A+4YqGP47YB7/xycO+xVIBPwPCKL9/Nma/XOCdPyDRA0BHyQC/0SoivmjJKD2eP4G+Ekdjv0xLCj/CMEi+57UyvvbwCMD0jqG/n8HqvRpTer+OQog/VNCjPjdI1j7cx7I+h+xVPnGQKL47dQm/qInavmF9Fb7sl9a9SpelPy3pwT9Qt9U/joIiv4zHZbxgUJE/vI2MPqtWXb9Hs6O+hrmwP23ewT5kpoa/I9wsvxTgq76HVyc+EWs6PyHIpD8U24K+riMMPxpQDj5o7D+/n5X9Pwocqb6jxWy/9G2nP1crRT8fdL+/5bmXP+gPKz807pG/DWobPxrDET/vt5O/l7wRvhMjJb+SGa2+aKR2v+NFWD87AN0/b+fKv3N4DT1Zr3m/39tBv8fCBL6fWx4/4UyfPqVEQj75WYQ/mWhSvpRZhT/CnT8+2nASPXwI2L8NFpe/yle6PlnrXz4+t/6/yzNiv1184r7m+aY9dUbZvvvVuz9yopu/OKfZvS0q2b9hc7E+vxykv1x8gT3BLxK/6PRuP4KAxj9r/DA/z+Bsv+3Znj7ZSyk/XI/Uvvnbg7+12ca/t7qXP21LVz8RCdY+ABbePsWUtD60kx9AEIgKvi51BD7ghg7AyKUxvwkdtr0WoUY/aJoBwGVFTL7Agc6+NickPg+Iob/qfIc+jz4pvzAdAkBUjW8/X70MP/C/uD7rTGE87UrTPjwIuD4+9eo9sbvAPlifgTy8XNW+9FQCP6UyP78q6Vc9HWSnv0hw776SbYk/SOjBv0dD8j+p7JO/+UWqvsUNRb97y46/dDw7PyTBHj4FBhc+MtVHv0lG2D6dZOo+BJOMPksR0j97Xa0+79onQFDisD4ta1g/BHQMv+vNmT8fn92/j9Axv1eStz8uNli/baDOv8TbDz+u6QY87eAJP9TLOD+iZtq+qNOfPVgJHT2cYZ4/uskKQDafBkCkxdS+miOwPhHQBcC3PUO/k89Nv/0Gq792QDBAhufIv1r3T77/hmO+tDm8Ppw3gL5Ll9M/Tpb7PMrM+r68kK2//H5Wv1O52j5IvfQ+GqFHQI9yk7663a4+Zn4wvjhJOb9mnbo/Jll0P3BcGr8ad5s+ei0DPwpRir/EBsw/vSUhP5Zpij+S3Eq/iSlxPo4jL7+IVTnAkLUbvygwBb5/a4W7ZiqRP6Jucr8posA+kYHZPisHVT9VwcO/AZ+1PilHsj6UhCA9w7atPwEQjr+COgQ/NgWsvgOwRb+wK44+6L8Sv1ye2b7djGE+p6FRv2g3XD8+DC8/P4TKPlbW5D64EF2/IaITQE7F+D4Yaj6/piaEv4yYar7MZ8I/h3zhvg1GML+05Qw9PM1zvncNED+WGHW/D1InP9n1yL3c2Ys/wQPGPs6Hl76QWU0/JGb9P/Of0z5C76C/4pIev3NHTT+iKeq/teFZP4Uvhj+5DLC+dABPPiSgX78tmcs/pCYEQJu3CL8/77s/1T+MPXTeaL+3OMQ+lAYDPhznQL/cyWE/zhvePiqlcD7oZtg/BGHlv+N18j01oNA8/5Z9v2nWfL9RSzK/J2OAvZpKIL/mnDG+MI+Rv4V0kT9W6M8+p7UuPypWpr/x3A4/HP2cPPIZUD+EKoy+MrVav/eG/b41Eva+cb6Hv/l7oT34Jz4+i18+vxA6pj2bn+G/8iKnv7hqmD6f07++zJ4ZwBehQD2IbTo/OzDCv4rTCj5OPci/AEFuPig7OUAGRTFAI2ymv/3jfD9EhMU+9aCLPiSqGT9XlfY+yj0EvwaPGT/VRMa/ajQKv4IuOr061aO/tm7HvngslD7m6kW/UBeRPikdzb9H9nu+Kb+vP0DzZb/5MOO+Xw6Kv9b6Uj98jaK/Y3AEwEbNSL9ygA+/lRGkvoWnib+L3pw/9BGPPk4yRD9FF7y+XZyzv3tkvr8HH82/NccDQIS1vb7nqt8/gnEDQHlHAr+MAv0/AThQP/6ccD8gq1c++mAnPqB7OT9PTgY/GuPmvrml4z5sF8I+/hoaP1GeoD+p6w/Azz+kv37VML/zMJq+kacrPommqz4Ck12/t23IP2Mjij5STrI+5sMHvxllwr+mu3K/nGtcPvBZiL5GJGq/uagFQFktaL792RG9oBLCvp868T6HXpG/lsamPhwz9r2ekqs/ubO9Pwcnob1atp88b+cgP/lwCz+5zAO+hSDfvwHMwjuUwGW+j3wKQM9RFb1xpvo+nwMlPoDQ0D/Zrfm+D/4jv8BnIr4iMzy/YAoFP6G9sb+9L6C8xDr9vzX0WL/EqR2/1zKJvwOR978xsk8/2Y+CvxabKr/CgUU+nZI7Pvwue78kocc+pUXZvqI+0b01l2I+UTrQPqkrlz9+zjg/1e9Ev4kjgj79h/A/RtMSv/C89j/QJ66/+FSTv2s0+D1AsL4/dfI1vmSD7D6x8eW+m4RnP/FeOj+lKmo/VoxFPmglh74mbak+OJSavxdQoD4T+2g/AxV0v8fsoT8UR74/0igUP1ltHj9uMya//1CyvfRpUL/o4f4+LOv5P2bKCT4T/uU+pyq8PSZegT5CHIA/n4eDPbzuYD/9zbo/fNKUPuDmmr8nPUA/hBEYv2G1hz66/kg/GetIP3I5O7/aKAdA',
             'k': 'i7OxP5FHKL8mYoS/HXpXvnAfBL8nAO8/9BGbP1jZAD8Gego/x9aVvaTIIb8lqmw+ePk6vsXZG79JE4m/qqCbv3Gfwj5XQvK+fLcHv+KqTD6+RNE/M4nQvwveAD7DFrQ/sQU7v0mzJT6iUSS/EQMUP35bKT8ePuq/W35tv+8E4754e1e/lwsVPtLex79c/PS+YOlcPyfU0T5IDWo+WJEqPsxucL/gLpy/rppXvlZHLT0kma4+1e64vhb0qT+GPeo+avv7PPyilD9VWF09N9hiPgsyVD/P/8K+jX6KvoeCCcDM76e/VOKcP2VyZz7dxRW/JwcKPk7pXT9r156/QGKuPvCUkj+kqKw+6IyzP50MiL3uspy/cBd2PmRB8b/cbYS/84yZPSK0Oj/kyis+fLpyv9u0nz9jXhg/Ald2P6TL1T72pF0/O/6EP56hGkCBXr6/PP5FP0JYa79b5g2/uqXBvnb4VT0j/+y/aGvJvxVAST/PZhI/vMiXvwR+ib/U+xi/',
             'v': 'PTYMv8yBaz6A6rO/4bZDvw4IOT9TCB6+QMFDPojVij2vCti/nB8vwAuWPb+AVM4+AUgJv8GJCj8dbJy/VxQavgYyrj/dYU+/7B79P8Kctb8ENa4/0TFkPxhyFr+ohss/QWWAP+pxrL9dfes9kunePYYckj9FCaE/QAtiP52qNb8WBo6+5RIpP2CnIkDoQ24/H4oLv9vAFr9OK3u/lf8xP4DLyz5HloY/vh6DP9vPV70L5bg+4ltBP7dGhj4NGU0/xD14P9wBVD8ehNU/OmI6v6btmz8H0ro/e1EuOrGz5T5WQR0+YHniPigeQD8OSTW+BgoCvw+B6T9yXJQ/sT8tvzpFuz5eg4G/TVZtPnDznD0O3VY+TrkUv58y+b4n4yM+HhPKv249gL3lKShAqGECQIwaRb4rtIG/G34ePzWNBT+XKBG8m7aiPxjsTr+Agia/FLHXvxYezz4HSOg+jZU1P4DvNz8J368/wyOHvs4B0j6UPOo+zrC3PxUkyT5wTxk+',
             'do': 'MhHpvLPpkD8+/vY+dqY/P6hS3z5wCTo/vMjrv7lqJT+M6WU9KG2svvrNWz/u0/4+kguOPpyeij+kjx2+EidmPwfWTb+jnxQ+2g5Iv4F7CkAWAV8+IbIVvyR3Kr91wpG/RBrjPjmim740/Ia+CJ8vviUi3D5axcO/vV+PPuekbj9KYKg+wtiyP5Xfszyg3rI87jyyvytkoL0600g/zscKv256nD/ENnk+jEwzP9QmGT973Lm/tjKGvJnZCb9Yzvs+1vnRvxLb6z56Rfc+FnCKv4aTgr9qwfQ/kkrAPzfjl71Wib0/csCjPtJd4r/g11a/gb98vxmVEL7VvBc/aguNvtGs/r5SBeo/PmekP5u93L7hkzi+peMUv65gC78BjW2/4LQLPwHYGztCIsW/0AgNwIDJPr96Qia/DKz8vNicFkBUxtC+sKkTP8Q3kr9SbzI/EelnvtRIYT+fHA4/501tvnJeYzwax1a/7RoqP0uvTT4cD2s/qVLLPpiUxT2I15s/AzbYvhyzsDzGQHK+i5uzvT8Nmj28dJm/sdeEP2ZIDT5a4Vs+TTMkP2ONgT8Dql8/u5mXPwnGgL9+H/29XGpEPg5tB8DZvis/CgOIPvvyrz9EB4I+RO91P5kVlb78hGW/ldcMv0dAvr7nHA+/jidPv4fW67563d4/hu2mP3D+n762ZXY/Tjd0PibyWT+D31+/TBh1PB+Sr778Rw7AyN5HPshXob5c1ei/EZYJwBYrWL9bm1o/JVIbP5obuT8RcKK/3CRqP8smuT41wvi+IW/rvzIp6r8e+M0+Ovw+v+ozsz8q/FO/UDsFwM3I5z98/No+116WPzCC3r6SbSc/dNqjPzUfAL6qIZ6/VCb5PkuGiL4lCiy/8rjFP15oET9IRWK/P3wtv1y5Rr/q4bE9i8psv+fJub8Geqs9w8zOv49tk79Lz+S/7gwxvvWkU8BrxrE/WhaBvpuSJ78WLwy8fEs3v7Tn1T0WcKS/Z8YGwL+Cmb8OQYi+lZsoPiE0oz9m/Jo/zAQCPy09Ez+8y5O9Sf6kv5LVTj/AcXC/ee6FP+CyFUBqxJ4++LwcP2uxXr9gO0m/qM2Pv4e1ZT+psk8+bF6nvztkRD5Xq8a+4Y40P3559b+CO8+/JC6GPn703z3ZyLm/9luyu+ZrDT+VCz4/g42WPhMoMb8WXDa/+P6UPT8bOT+aCAU//2k4PhR59j7FiV2/xlOUvvQVNb8o2Lq+xt8YPhJxJj/ByDw9P8u9vhIXI7+7wuk/0NNyP7fTQr/OHk+/+qfaPXhmKD/aSw8/hwmavvzvGL/bymq/fnZCvnUELT0YxtY/iO2iP1iVDMDPgzO+l+iHPwggrbxZsoe6L2O9v22uX74JB8A/sphtv1pk974YZuO+mg2NvR7hab9OpxU/kMbTvueolj/391A9oNruvBINqT9cHAY/yl7ePfT9FsBFhBVA4vnWvwuNDr+/MEA/plnmv1QdSb7xEKK93gDlPiNt/z733KA/DLmDv/ScXb8CYLO/6gT2vy2ANL6af82+7crWPj8iMr5dcrA+oM9SPynPfj9uAwfAmIwlv1fj2L5MfmM/9Nemv6OMWr++r6K+ZPaYvwW4oDx5WME+lgfmPo4rNr9ZfD4/mC6DP8U4S75hMpc+q7qdvnR9TsCclQA/D5plvk0i175oyy6/+xXhPMV8R79lLbs/OgqDvgKvLT/odRq/eHWSPzLWBL8B9se+bc/GvysXJb6K5BtAPVyePhUHYT+XgN898iSvP8vXgz/jbS2/oi6oPmRfib9grL0+z7JEv8f0cr+Z4LW+AbwxP0QrGz7Owvu/qjJDP80kGr8yJ0W5BScnv3yLCD9ZYpA/BVQov7kxgr8maSq+0N5kv2aiib9JJ4i/qEB5v5hTEL9cVmI9NnGhv+MmLr9KitI+az26vyX3fb8YqAy/RF9Vv/cLWr51lZs/BteSvhJLUT+zWhBARtUvPzWPZb93XkE9s0J+P2tOmL8KknI/Cni2P7yv8z7p9/w+ghZeP4GzrL9QUWy9kH7BvmWmNb4dViY/xzdZv0kSnD4S7oe/2pQYP0D/qj83NRW/ET3wP2qFk7+w4ck+uJ8tvqZjKMBrV448vyDhP1q84b4WV/G+KAaLP50GDb1K3bG//lCPviLEN7+eg86/k1jXu8enn7896ZC/c8QQv2LRib59OYw/VWAUwJbf2z5htom/oTjlvqxFK79Nw9E+/h2Kv0HPK7+lsh6/rEgUvxt3Fj+0chdAkmvMPmYm8j6IrXW/rJFiP22RT78JJBg/2QcGQLB5lz6ydY+/PtxvP8rdrj/Nf1S/2eVlP6c7EsCUp5A/Ix2dPl3w0r7Yree+TUZYP1ywLD8RTPS+A+urP/qfmz5j1BY+fahWP/3zvz86Q/W/jXhKP2HJVz8pzDm/O2y8v5Hvrb9/una/X8eFPsEpZz5ZrNY+daiUP8TQtL9P2a2+IrzYPyIkp7+vvUe+/2nvP91jn78SXgVAKl9zvgbN2T/90yG/0ieFvqar0b8xi7u9KojmvuUXDT4dfZ0+huZhv03ktr6Kpss/FBeKP0l2VT4B3qA/lrh4PxsBU79AwD4+o5RkPuBF7j7PH/a+CIPKPRXq+j4/UQFASZzVvyPFkr9P4SU/n6MDwMHihb+jL54+FkAnPKOgmT58nJ6/JTOoP6cbjL4ymbq+FB8LPyUbbD/0+Pm/UKuRvzNHvL9MegHAcQ5gP0WsuT+ROLE/CKm7PeIVH7+CuRK/CxetPuannr71nro+/h2Nvx1YN7+XJBxA09wTvz+H2r8C15O/gJ00PRUeMj8GKGE/WVsVPYaPAUBbi7k+bowvv1izCD9Sk9m/bNQJv3sXOr1Zj4g/DVnZPSclgj+6sDC+7Q6GvxwMab/kUZU/ZpnHPi/VrL/I1Ms/OJ9UvxbONj/yJ56/IShNPmvePL7Jpd28TJs7v9EFvzxbFpi/si6qPh/anz9zXos/UbZGPfhNNr+txsY/u7Qwv8VkvT6aC7G86nmRv/09xz7wKpK+7oYGvdpojT8XEk89nA53v7/zRb551de/f9oovkzW2r9lxo++iWVkv9JJIT81VzI/7cXOv9uAPT4NirE9vEcBPX+rhr9KAtI/8/lEPy5Lsz8qEeS9LAztvoAYBL8hah4/wOsFvx7O3j6ng+6/MX5Bv47iGj9VGxi/+g4HP2+HrL98KO6/qIfKPj//DT8iRps/3UDiPsrKML9odIm/J4UrPhT2gL+AIGy/+l7avwMSHUA280w+5g+4vvLlFT9dqak/eF2+PYLSRz9WHZM/RQBwPy90L77HIp49+TpVPs8YcT9Bo+W/t7o4viBqDL+REZ2/6dJRP5Gp+r+fIIO+ycCPv3EgVj7Zebg/TDtQv8Th+b/neH8/tozHvm2/K7/hu4+/J1sQwNpj176rjak/G6FoPkF+Cz8q2Uy/7uXLPlHBFj8NmGA/Ib24vysXMcDUmMy/YWWSPuvAxL74Xe4+KIsiPwZBfL944hDAIh3qvihF2j63ZIe/A5puvsoSYD/oHL0/caXGvpPMB8BLpBg/6pi0Ptc5pD+Lpvc+26LKP2YDKMD9CQE8fx1Fv1Sv0r+GkwQ/u4B0v5VsJb9GQCy/Y8bTPyzSg767ssO/qvZSvvCErD7oRVM/P33SvxDU5b1rx3s+K+aNP6noiT7VeIM/mtxHv2bgcr9eWkG/vpTSvUdEAj8c+ZC/7f6Tv7fCdz0GSng/rTfLv6aFF0Akcnc/4SNTP9sLT78u6LI828dOPwRUlT4gCuu/mjuKvl7oBD++lLa/62yBv1zrx78UBSq/awqavuyksz5pDEw/T7iiP4T2Pj9qQ5w/E6cMvxsGAT80I7g/6bLpv9kLh783xAi/LHYLv6QKp7/vY3o/Yo4RQBG9wz4S7SI/ei66vhuUVb+7Xo8/cnyPP3IHUr+wfBpAsEuXPmJdmT+Beq+++gviPknaGD+lhy8/of6Sv/1S9DyYudG/b2EgvRIQrj9/5os/uylCPjQ2yT4T8ry+cvt3PQ/55z/JeUg+hr89v73OXEC+Hfy+6BldPuu3Nz75gCW+eZn7PozQ1L/eTuM9QGoSP6pnVz0QfIs/vJ8wP2ZY77+rGYG/xZ2FP2Yhnb6Ldgk/6m4vvU8+a79jPd2+ys6JPkVIu72rXVK/s6acv/InPT8ylSa/xmyGP+sR2r4bKm8/7OgZwI+Ps756FqG+BOlNv4aRBb6uVLU+MloAwJ81gr68I7m+ubCmP9srcT7bfYo/mTL6P1Yxab8kW/i+32YZPvT+KcDtmyi9TxoAwKwxLT+zVlq/MGYBP9U75L7jIpQ/sDy+PuTBLT9FdfO+g8YLvzdIqD+yIWG+M3aEPiuTq76q3Fm/3IQGQKgumr7Bxk6/6oZBPxi2qr7/upa/SQ05Plcmi76F87A/vo7Tv3WsVz9zCNw+lRV7vn7sA78Rqog/7v7NPT0Dhb7JC0I+9BSlvhe8tL5kox3AQsezPUSJCcAFR4i/RWSPP3L4Tb4opXm/Cgsavz5wmb/WENy/X/GKvl3VAb5QdYQ/kUk8v39V4T5DHPK/tnW1PivxuD+qIps/TlXePofYkj/yacM9k0xwv21OEj4m9hI/RzzYv689s7+TFSu/MqQCPk78gj+OpyW+mJU3v/+0VD+DBTO/PN6nu7HqBT6Bq7y/sn/tPVdvpr8M3Oa+ubMjvx7qlb+idog/384zP5XIMD4+C8S/GzxFv1ur7b02Nfc+Fhpkv7Bakj6x2Vk/L/5IP2LnxD+xe5O/UhGhPylbcT/4gTQ+P7rbPTXcmT96OBS/6513PtAAd7+1NJK/r+2iP4DqjD+ls4W/xi9HvtSTDsCCk90+HgMpPx/byD9ZSpS9eTYNvw6Zwj7vaaM+3oiTv+8yS8CsrUQ/1qSMv/Fc7b94T1q/pXuCvhdGaD9leBg/95rVPkpqjL/a142/nCM1P3WRVj68Jni+YKd3vh5/oj9epRq/I7R5vyo6SL80TS0+Wtxrv0CXoT/2pSk/k6uxPoVpsT5vegs/oQJUPQcukr06Slc+YOO/vqayCD9//GW/ZnJyPkNZqT50/eA9mXFnv3f+Yj8XwIc+2MKmv35TzL9Q0D6/VFK8v4I8mj6f1BvAARxTP2AyIj/xjOU/bJk5P+jzPD/PCKe/CITSvakVer+tSjs/6gstv1uzHEBquU2+1s/pPxZIkL8NMwu/e9eIPk8hlb7cpZs+0GHXP2QOwD9RBJM+HZmWP+RFID+Z+aC/gM8kP4WGmj9pTpG9Y1KMPqRA3L0a9sY9JHcVv2v/sD75Jkw+DQ7iPp1pJL/kPK++YcnGPcFo4T8IOQQ/QtyoP+P8i77DcoE+jLSjvm9clz6q1oQ/UM8RwFc58b4GAVs+UYkAPtLT270IRkC+jFkXvodmdD+BHB+/hd4nvx1pXr4gYcs/cVwOPxw5hj69U1u/19QCwGqMy755FQFAouCxPo4fEEC/yjq+5iNvP+3Xgr8L/be/EJ8+P+oG7b74JdE/cjinPjXXCb6UBjo/XlWjP9JzCD7EbuY9HjyHvjvsFT5C8gM/edC3vgZNIsCLaDA/ZCOjvsnLAD9kQeU/eBvwP193Yj/Qhdk/00+CP1Vior+XGim/wwSBPge/xb/2Ubg/ldCovv2Znz9+1ZU/DTuCv+UeBkD5iAY+i9vCv4zjMz98nn0/tV/TvjXGKj7+ocs+GaIPv7cEi77sry6+RjXvPV3OLT4pvQXAqwkHv9E5MT/rcZU/YmSPv/sRTT8kAw1A9AY1vsHsjD8gbVe/eKqXv64Z2L8BIQPA1zARPyYg+L67Ska/raXFP57G8jwiUL695g2EP+Zyh7609PG+IyM3vyPXOj8CuDw+8drNvlYavz9vAve+rrw3P4PZ1L+r0h+/3Pksvrz3tj60xkA/kHhWP466jL5By+W/fliuvtVJfz8M5v8+W3/vP9ywIz9tiPE+p6E0QHNfdL32iVw97ZsoPzVXWT3Ra2g/L1Y/P/6MyD7/Zec+Yr5ev2OHar9Ufsu+cAnTPgSXjj8Fzbk+mXG2P2TdAUCMtzBAB4JOvhWsxT5p40E+mDfqvsZRzb/LF7q/MwsSv6GYTb9Nyqe+2swPvrjTWb7/Tqc+8ZnKv7gnLj99P+a+MZZcP+gbH79/0Si+hcgMv28glb+NcIe/YuezPi12i72DFPs+Zpm6vr1G2j8NCCa/U2yovqJW377RpME+1V28P4Yml7/SDpE+0X/PP0/3cDy/cy8/Gg+kvisHYj9xEzq/yn5vv/cJt7/pLB4/tK0lPpPE+b4uu5i/UAiSPifup79tDmE/mmlcv6Nr470zYxw/gh5Qvh28tT4q8s6/0OTFvvdHC8AWOCs/DoUYP7nLpj/O4o6+fJ8WwP2nib5bz9S/diGcv+HHlr/BqlI+c8nFvzU3fj+7IxS/ed5hv23RPb9TxTg/lTRmP2tun7+CmZY/2nEDv6jq4T5sWlA/V+aEvmfBET/FYso/HmyEu8UZLj/aQac+xi/bveFFxz9Jf8W8teFevgWj8j3L1CW+izT5P/8+NT/NcD8/3Vsqvz9lLD+3UW4/BOUCP5fCnz9vqS68sqDEPjtMGr0SNOE+OF0NP7eMAL9sDSe+NVWDvw7XPj95bAM/acYvPxXeiL5HMbe+w4gAPxSqnT/569a/X8x6P5ituT8GAmA9txWPPxPYCj+YPfY+n3kuPtS04b4GhVm/esZ0vtOPgT9oV2q+FMsmP9Upj7/v3R0+JH4av5Qp770DTk0/aR3NPlR4HL78mqC+Z5Rpv3VDhj+qtmo/cL0FP9TziL6R35c+2ZIIv7rQCb+bcnu/7zW9P3eECj/ktsO/O3NLPxqvrT9OjRi+ooAlPMc4yL6YanU/2KGOPp8iCj0914y/tpNdwCs9OL6btdC/Iv/VP4EHJb+dwxe/+A7MPq76Rb9AKOg/xwwMvWSLGL8O6dE+g6i2vdadIL8ntdw/7aiRP5Ttjj4fJCS9AwxiP5WLK8AyCY89K4XqP4Ix3r4WtIA8kZOivjKb4L/WF1Y/KW8CQKGLqj6O6i8/AzF9Px8JIb+AwO0+V+g9P6by6L/lcGC/BEmMv3PUX76HrRQ/2xcmvjk7t7zKh4g/bwWqv1Nqvz0LPK6/xtEKwCmnv73rxvy+qBA1v77ggD7+oNw+D9SAv8I2i79t9sG/Da47v/G05z4nmGC/vhgkPxF+Bj/ZiYw+i4I3v2dHez86lSu/xHofvyHKCTtH5gq//DQwP5VDSMBpDe4/u3CJP/Rjkr9p2ZG/HubEPrjknT8GRJG+qNykPardwb4k7Jq/whmYPzSwkj2NHIK+zJJVPzmdE8CruY6/z8v7PnKa8L6UTYY/IViUv0/WIr+iUj+/kzyBvgnhLj7zeQzASFGdPtQPwL+BT9K+umURPzcPhT2wd5G/hXaoPwyT/z5qEV0+tQ1Sv2gvqr4dkue9BN5NP71+ZD34WAXAeHb/vtmFgr8N/Um/8qUbvVZeCr/k5yO/StA9wMzG+b1+6b+/avgKv9STAL/jljC/KeCrPiEEwz517CC/NHzVvorZO7+ndJY/ykaJP9eYzjzhCK4+T96Bvt/ivzyHJ4w/b0kQQPaQrL4HTMq9iNDUPhB3sb/g0bW/y4PBvkO9Nz9R9DM/Wg0ivw8iBjod/Vy/yJbXP8dNR78XtUI9Bt/WPhG8JD9kDT0/0Bd3vjMFpL9BU86+LFdGvq1nGz6LezG/J8gQwNgLFb8vt7E+IJmQPwCRO792ZKg/NItXP2KV+z8ucda/JQ1gPz+EvL87jaA+kotAv/7wfT6iCGq/2bQnP7fgbr9dW5Q+zd2ivpu9Y77ej04/6C05v62Jm78yfLY+J3W7P2SeFb9CJ3U/U+YkvnOl5j/MjHI/a18APRYHer9+Dh0/ZP/5PnK13j7vVMO+sagSQDxCh7+tCbM/Vx0gPjBSOb9dv+i/aK9DvjptIL+xeli9TTkmPwip0j7268K/xP2jvuM2ET/eeDs/LHl2PwTHYb+QsbU/dtO1PWfcR75UzHO/QIe4v3ZwHL/7P90/HVo8vYkNQr/2/6u+PQ7DvngkQj+l44G+liDHv/j/Ar//BgA//OiTvtHcmz6G4pM/MpJAvhdCW71+yJm/e9PZv3BRgL65L8c/d88YPzf75T8bPpI+uHWGv5CrE8DkZz8/eXyGP2/4Tz96gB4/2in5vl4SDL92HtO+TJtCvyicCL+Uxjy+jMm8PsqerL3/3xq++skxP2Wi2r92FAo+uQkYvoByjL7KRA0/Aw2Jv1RTjb9GEsA/OHhtPyeUQ7/Om66+j+Qxvqo/2b7JU26+h8+Hv+2K3j4nHcA+feL7v0XKz79lxkM/JoOjP89DOzoUrSC/4LaEPsfr6b4klqa+JYQDPylWm782x72+mc/CP+KPLj65Rao+rAO3vCVtmb5ZMSq+qrYkv+3rVj//ybA+zr+PP2WmhL9RKY8+/u74vzP4Qj+vJIy+6waPvwKfhb/Z5Ms9Wl7Bv5e9f7/Cvc4+E22iP0l+Oj8a2js91NBPvzl1N8CsjZ45PXhbvsfdyL67nIg/ruciPjBRsb+xteU/Z5y5v85tjj2BvsW8CjyGP5Xbf7+OkmM/0nV0v8TL7T9ma3q/974TQG+n8b02rZO/37IHwMPTzD5HygLAhbf/P1eIar8YI/w+vgJiPXp7mb/zzc2/wXLAP+n+1b7vvzU/Y9RwvvKXA76QQZ09dBEsPz8Orj8wTjW/OpYUP2wDlL49Lbm/VSTwPhyu0D8RsXg9pv98v+LSe7/rZ7S+wp8wwCbHzTvITG0/QXghvz58oD5N3q08kyX+PqzQcT8Kr9u/tg7IvgwPf78mW1g/eikYPlAGHcBrucq/5KXUPjIAEL8aMYo/GNVRP+6km7/N7E4/7IgJv4H7Q7+rL7K/juHsvpMAhL9YPtc+6669v1atOT+qliI+oOFkP5jhFb97lJy/bARCPyUCvL/nRrG/CGOIP0/DSL5pROe/vhPsO9ERpz1F8sg9orsov7QJAL+ZwNy+0WnnPWXf7z+Z3ha/hKclwIvix7+5R/W9PPsnwFsreb+dOpo+2Mqxv6WmrD9TywS/7JdgP5w1Er+wsQE/20L4v970oz5rKxa+MCzHP7/Moj9bECk/RwctPx7Xsr7GUlY+9hkLv3n3Nz/GdcU/cDMTvxduNT60Up4/5LnNvn6767/A2Ic9jv4Ov9PPAz+yWrY+y9kIv00peD8ccxM/BruJv1zxEz+BirO+DFXKPjsV/r2HPEm+uGd4v2K9CECJzb8/c4VrPwP7bjzx7rS+V56pvhNcmL91SI8/7ODnv/tSLj4ySLc/zLT6PsWYlb9v+9I/bd05Pyq1Yb8hqOu+6gI8vXQYJT/nGKQ/fSgwP3NgwD8dfvO+Vn89v0TiLD/8bJG/Ebckv/bHrj5HVLG+blnhPsdogb9bvLU/9cAMwAxh2z64ycy/8cJpvgXSQT+Uw0A/kKXDvh6/Rz7+u1Y/njxXPzmDqb+osx3A5QlbQHCPCkBeDV+/T5AJPq30aL6MMLG771OuP8kxDkCa3ei+w8/Uvyohez7QbBNApLUMv5+z4b5bZ/C+n++UP2sl9r0SmeQ/DY2wP5tjBj7CS/e+3WeIvqZPMr/MbKO/aV+vvSrOGT9YzHc/HdPqviiYEb8qaIk/3Ff5vrXQRr+H8NK9mWXiP2687b0ko9M/PVP3PwFdUT7jCsi/oVjdP6uHVj4Kt+K/pMCLv1Vocr/+QeW+zr0/wESHor+xhss+uKizvoRPJj/eAAu/Z2sxv1+cqD6YWns/Sqm7vQgUHj2wRZy/v8KtPuWnyz9va5K+1vuIPpX5uD8YHjw/7OCKPyx2kb86+Qy/etuEv/Qtor6idTe/lEqrvaZasz4o7ba+TnmqvqtRT768+2w/4f9rPfvhnz6kJHa/zyyXviqMAb0YRTG/KIUBP/6zrL9OWbm6hBLFPpIHLD8Y2yY/WyoJvspzvb2vJpu+1BWAv1WxYr+2uIS+bCibvmybSb8QJrY/28ypP9MoH76zWac+I8VtvSwQkD4RaL6/XuFMv+Aa/L643Yi/lJHsvFnQIr6yjGE+foujP38lHL+Oa7I9eOwVPweZB8CM7RA7aCXvv9o40r8kWBs/8lwUP6pYuL8Em7q9trdoPwUUHr4BDKC/li+vPlcVC76Djjs/IvPTPgyVXb+4UTa+/VtAPyWsD78ODIi8xQdiPx7EJr+Xc3Q/MnqGP1M+Hj8VMKM+RC7PvdZiZz+oxL8+kpDtvxDh7L6m8my/kdgFvx37ur09k/g/Sk8tPmLf8Lq8nHQ+0nmDv36DJr9WPiPAXynOPkLo9T18fYc/jowCPnZrej5haTE/EPQ2vxhc0T8kpaS/WPmaP/0QIT9rwXE8uJLFv0DJDT/6Y0k90jvPP1JJhL/dbWy/p9KkPhmjwj/1Z1O/KMd2PoGdgT+gYlW/M+eIv03gYb9Ofki/OCb0PdgT5D745IO/guQvvoYFLD9rZiU/Wz4MQM4Leb9O/Im/z49VP6Sxqb7m00u/Gi0yPdaAtj4k/Jk/kYTpv71fmrwN8Vs+jV6Fvu3BgD5fMN4/Y72uPbYbdL0uzkS+fGV5P+oDsb2ut1G/rk3wP7CkvL5/GKi+JKRsv2PcZb7Eh3s/o3JcPiGcJL/Pw8a9Ek6Yv8L+lj7BY88+902hPlDScD+U5qC/UBZVv6Uuqj7MZr0/1roIP/y4Fr5vVKi/fCw6P/2fXj+dG3A//voav/jR1L7pFw8/sapfv3AoJT5LYQNAew61PKhbvr05Ml2/QQkGv2w9dz+QenA/jw3ZvtLbKT8kW1q/hv1Gv7v52z3dLby/piAgv0/5xj3DoQI/W8JdPufVIz4toQY//n/uP/FPwj/BMc8/1PYLP+8dnT7LuqM/zCK1PynsAUCtmjk/1VW2v9gCML+mAXc94LOiP+cNjT8KBsG/CriLPpIh5b++zQc/x+lJPll8uT+kCdM+3nNTvnQwmj8dogG/C4tZv1RPuD724Nc/VaWiP2VTk7+I7g1A/D6dv95Bjr4BPc2+kfIKP7jU07/wb7W/bZjNPkBvhT8V5Iq/Eli8PUjqLT2575U+HeUcPf1mA0CwDTm/+eaQv4s2Zr7na62/maRDPorZqj+3khg/u5a1PiTmAr8AOmM/LbJvPwQ0zr4X3Q6/VkvJPXdUST/e3Ug/NygEvw3FYb1cwKY+b/GiP5gMvr8fadi/yzwOwOl/4T6Gbwo+LdegPor1zj5Bzx6/I8F4P0yKlj2aL6O/HYXHP9/yqj+fU2i/QhvuvxrdVz9GRHa/gp4SvX5YBb3NhOY93NwcvxcEtD8n6ha/LNHTPg45cL/r2xu9o/IgP9fAeT8+0ro+e2qiP+5ZGD5/Vqu/0LUDP4hZx71NpSG/b2Q9PwGCPb7Ulma+UxHev6GIqD+G1Ik9acf6vjzYVT8hC1a+Is9Uv/hLW78fqUc/tWoYvvx8Jr4heiHAEuCwv2KcNz+/tKu/vebzPHBekT6GPWm+4FQ8O53Ojr9YJmO/zlgjP88GPL7g2eI+y+LuvcbUD79MtK0/waS4PuOUUL0cvcI+hI6nvxpcBj9UeAs/JKnEv9Qy+T4KMCM+jp8xP+rdLb4wfhS/anHlPWuipL8aueM+vnz3PlkxCECmowC/ikgOv5qJjz+nJ8495io7PvJo474pRag8Pg7bP9P+qr9cEgO/LQvlP5pOK0BdGGK+MMCHP2kxej8Yosk/WSYjPzfkYT/krDq/726Ivatw2L5L/1e/SiWiv6za3D7revI/3OyhPjql8D5Z7gpAK+2GPzJUgD+43bI9+Vm9v7yv1D84JoE/2e+4vvzZQz6+n84+ZclevxCGMD8j940/w0Y4v+2GhD+S3X8/2eF9P5LsjD8Ng68+r/2ovxqXpD79W9Y/ehWOP0N6Rr7NkoA+OMgNv1sdCMBhtjK+zqeNv2Ef3L+pZFY/vzQePwBXt78MrjQ/rbrTPtowlj+yhpk+D/+Fvxmz7D4mLnC+ZhjMvo5MCr9JWH2/uuyePaNKZz/wVWE/tKTQPoUXlj+HfJO+uzeUPU7wVD9z5EA/Lg9Yvjvpsz6xoLI/OzWmP9qYaz8oaye+MkIqvXgyBcDKRGI7xBRyvTQpET2in3I+bZ0Zv6QFjD7beZk+RJFkv0tjf741iS0/5h0VvujMgj+UK6o+w7N8vl8Xbr9fbhM/0oYDQJXBGb+yIR8/u+lvPjGD9DzoG5c+3/mlPxomFMCaTL+/U0fZvhEivb4zNeu+YaSqPlcSyr9Y/8A90zkDP2YVrb89MRY/36DGv5sgNL+Q6T0/e8YTv2kd8Lz95Y6/ekGlvzJ39j791sC+JgMPP1Dlqr3kscW/S7whv20K8b6BB72//OXIPuwJRz0MHaO/NyyTvF2yNL65CxU//ooTv1pD/j3jUEk/0ht7v1drib8/rxO/tpkcQBzgtD9zofa+pFg3v9SZoD/MOr6//PK4v9gpxj/fiws/TZuqPqlyn776oDk/Sj1Mv0oVsb+vpCY+UuF3v00iWL950Bc/N346vRiIZ7+aNq+8DMjrPtaNeT6PYlS/f+YJv4nJtL/5DU6+gaEXP3OXCb/Lg9686VkuP7jHG8CdIja7MBx/vwzC+r/vai4/5vfKv9BH3L7YBj4/U7AXPs5v6z1wtXO+AxOcP+NMtr9OA3M/4PGeur5mZj/RefK/qGhuv/H9Qb3L/Rm/FTwJvnTPZj99ICo+wx2zv/HKJb8saXE/i8MAP2ZumT6LwAPA53ohQLRrtT/8VAm/+xwDwEjWib9xM7K+eybhPu5KYz+tXAjAhIqmPJdkkzxJV28/8sHBPtKZgz0QMwW/x+Ahv/GoH7/FaLe+d0e+vqaMXr8hhpW/AM0ev3L/+T6RV3y/0BdTPxeKUj+QurS/P5Ixvht2qb5pAbA/Il2uPxyZvD8e8j0/L5Q/P7sIw77gH5s+DnRfP0Fb7D01iwy/nQWOPn9Nvj+gMKY/TDYZv7yW+jzAYgQ/h9QiwNB0iT/XFYe+/asmPycX170KEY49d0bbP3zVGT+ZQsO9vCyEP3LLLL/K566/Th26PzArsD91CKA/pqKtPrIuAr//6Eu/vuRVP0/TmT9W2DO/tWIvv6bC7D+6HZc/uY6RPiq68z6O24m/PcMxvwGT4L/Aj00/rBfMvvWAcD9tuDM+Hm/Wv6fzjT/7Q5k/5REwv+A0Dj+R2OW/LxiGvyB/pL65ABs/M6jRP8HGbzzI18o/yAc0v3+a4r9m6OE/vT3avwDIRT8o+SU/xIAEQJtVVD+q+cO+LjmKvk0pgz6zgRY/sicpvprI0j7UcQ8+mPeMP5nAoD2pyfQ+OauVP/u4wb/cueS+EPhyPv+0UL/ZoqI7FMDOPm9TT7+VpRC/AzRxv8VStr+BtTg9HOYvPpGh0L2SEBjADT1nPyHgnj5UR6y/gncTPg3LZ7/M/sC/ZTInPa9Bm7+8oka+QXUYv6zK3j/gwq8/Laeev9SZRb8/33U/NEfAvz13QbvOMpO+A9iFv0zDrz6odz6/YWU8PuT3A8CUeru/9SKdvkSlBr+ge1C9X+fqv3qKQz/unAzAxksevx/jpL9w6rE+abFQv1IQtL7Csis/r1ifunZLa7/3EZY8D4sKP/I4Uz/+UFI/LOFUPop7xj35+zk/P7D2vmM8gL/PRqw/mQtCP1NKRL8pBfi+cJtzv8KiFD+XH7k+HtKaP+nvt77Xb+U8naqcv98DID6P2xU+NoDMvlQqKj8l+Ba/0LKKP+vnhL8RYJG+w8p6PR4zDsDmEUe/cpRMPyhpMjsPRAK/xXVXPuJRQj/UHhO/+uguvrb1QL87wlG8wT01vyPKub7B1Ay5+em5P28U/z2wIiy/dOljP8/ccr66ire/4Uwxv/Ils79iA0g/qpiCP7FUAL8mDu4/eF4sP38uxb5kW/i+56HbPw+8UL7v4uS/5nNQv5sYyz4K5eQ/WMgJPbxfij8pyaa/rhoDPqP6kb/1Yde/ZuOmPzfR3L9ityw85CO5PIRQ0j6f8G4/3KmfP9ti87skcak+KBTnv+fgob8nR6K//LicvPJSKD+5Yug++Rq9P2e1gr+Eaj6+2tDvvvzHbr8ubQY/Gg6hv658rL3rzqy9oOfYvsQcQr8og8i97T8eP8S8pT5w1oK9qv3uP0RV9z8tDxU/t9qJP8IYMT8xhHa/xsJKv5Dcyr3O3EbAfWEZPllBaD/4EhK/kfIfQJVwhD9F1vS98SAPP/TPjD9rEwE/BWqQv9lZhL+DZyY/qIaYvi8W0b93x4M/hIa3vw/Ta7//dL8/MCglP9//Rb9wAy6/hkAMPvKu8D7bOwe+cjsHPzu69D7opXY/f0D7PzgcQb3Yxws++j/ePuGKDD9qXgtAJQrhvqcgRD7118E+hK2aP9JaZz9q4wO/m9snvv2hN7+iPgPA6KqdPxX/ab+TnAI/9P2Xv11Sw7vLkK8+e8UFP1CVNj/Z762/8RfwPlRAB0BjXRC/BU0Sv4n+Ir67Ebi/AV4YvfLnTj480gzAJYhGP9e05T80RK0+Dxv3vmG3jj9t0W4/VgMHwAHrSr+cdiBA6rvSv07QUb+L8DK/iVA0Plb+NT3cpuU+SIdHvZtymD7LIpA/YaNcP1X/nL/DjnQ/mv8gv7OZIL/77cC+eyvkPnNKij2irji+Dg4jQIBln79nvhK/Z8WVvyFhgL+gsXa+xaRIv/gXfL80enS90XmBPXfLor+stsC9JDyBv91G3D5G9vM+BcsHv4w/cT6YWQa/DRmcPsgYBEAlZqA/CIKrv4jNRT7bg5o+9vw5vt18Tj8M4M+/qSl4Pkbn6z+y7b+9TJ+xP3m5Uj8+rwA/haxcv/5mUr9b/nG/MgW0PQncLr/DVEY/PIuhPdDqgb4kneo+lPLWvf66Db7tjec+EXKovxCLID+GRhRAoxY9P+Wnb7+E9lQ/S2jRv/1OsD7fMJ8+JelPvgKkHr/To2m/vdAuv73lLj9fgN4+tYU0v7NRb75nFMY+ROcdP+9x/r4LFfw+CAOXvgmUF79a9oy/o8Qfvr4lir4OnqY8Wgecvn8KLT+Vk9w9I5cQPucwYj9bSbM8yljuPiKO675g9ApAR25RP//LO0BshVM/XaKxv1pQWz6J1Qa/uo1kvoy0ur6TxxVA5MfLvKOuxb9rIe4/aTsYv+hFLL+QmtQ+xtLePjzdbj/PDvU/szaTvp4Ynj/x8Lo869KBPzzLML8INEg//T00v3nyu7/5VAM/6Z+wP9WAZz9oIKm+JH99PyORYj6OYBw/RJv2P5IZnD42DYm+UTUHP6Zp9D7rTjW/4VEAPvD6wD/uudS+GW0GvwNn2L4qpZw/AYRlP6OQtD97BvI/oaYwP9D5jj/Y0OA/8jOYvz07gb97rzC+0hIkwIa1sL+LBYY/7/6pvhl7Cb+f9jQ+8ydbP+xLij4apqW/0IA8P2pHsj6fZqq+XWgvvzCLxz580XO+fTfavkg37z5sigS/GsWYvL1YAj44SjU/eGmMv+XXxr83Ki6+uqADwMGMTD3uEcy+fWbnPiSprr9FtuW/YHObv7Kulr4ODPa/0YJ2vxgbnb/PBqm/DDWnvu4j475mOs0/lHTSvnr4tb/TW1A/G9YZv6JfKT+WucO/5XAyPwEVmL8tL+C/mSWdPTBO7z9/1BQ/q3FmvxdNiT76BlW/YTQxPR2NZb9GLUS/0f2rP7TiYD8x1fC+Qwwbvwhocj/qGFw/FjIrv2Aypj8n2So/nwh3P8z1Kr8zc5K/A6f7v+Ec9r6Oy9g/PHKwvxULe7/YB/i/eTGaP6NkAMD1XPo9ub/7PgxbDD7Ti9G+t285v/by5z8jmxc+M49evxpftz1W+yo/jyaXv0OxBj4zZxO/9U5avral1L/eoLW/xjC/PvKx5j+Nepy/fqWxPtr0nL1e6ARAQ7U6v6K6mj9clgHAgmLMv0jslj6RI5Q/St4BwJoKIrwYkTS/9VJIv/yzqz+h6ra/m4L3PjWTX7/HtS4+iFH/Po+nbD/H2bw+Ab8CwHM8JD8K22k+R2p9P9yCoL8n8Qi/TmPBv/1Th7/4HtY+91wrP+6R7b7KPmc/RMzTPw90+j23sgW+TQvIv+RVEz9fb9q/5uzBPxqW/j5tQq2/e1AMwMiEJ78hco8/X980P+9Wob1fZLS/VWo1P8znIr+RjXC/nekuv+XmwT+47t29TEX/vl0AIb8jmvw+aD+OPufYTsAwzYg+ILj4P2Czxz0Cl2O/KeVXvtYyDT/xzSy/Dvgwvo3XTL+9xys+u0SMv02iv7+BVpK/66+yvZBKUb+xzdW/M5leP+4AFj+Qd9K/ruMgQPN5fT5yeks/xT/QP2OH679wnho9WvsbPtKeuTzD1JY+1qaAv+/T4L9zORE/48RHv1auiL+UHt4/v0fjvujsWD8i8Rw/BPHRPnuX0z/yl5G/jT6lP6kTYb4eL10/ys3Gv8wqd78xiZq/JZC5vpNLQT8CMQu/04aDP7HQnz5tr40+KKdgvyd46j+FW1G/hWKNv7O+cb+VNI49yvNqP1/N0T5QpWK/3QnbPu6Krz7Lo8Y+J6/2vk7tfb/r5y4+NhpqvW98Jb6q4Gi/rtydP4awhj/exLS9W6SgP0LJnr8j3rQ8PexVv2X+6T1o3ya/euJOP0fK+by1xC4+XqbvP3PlNz9WxmU/F0q+v6cAVz9F0x+/PZKsv5VhZz55OM6/kjvAvqZXvD62UIa/EzJMvye8gb+8/bm+nH1Fv2iqoD5nZYA/KpIgPtI9Yz9YoY0+8omwvaQbkj9P6KY/kmkOv79s7z/6gry/t6XzvebHRr84a2+/hw6MPw9fq77flYG/BvKGP5lozL9GhnE/UFGlPdFR9TorPQw+K3AYvmkeCsBlCUG/LPQRP2fcRbxyJ/s/wQRCv7is7TwMsoA/kX+5Pi6hqD8hbRG/61EZv2O7Wb/U4Fs+Fzb0Pnf6Ob/cVZM/yIKavjZfvD7MBwNAUySvP5PHgLw15K++wN+dP9nuWbtZWhK/ASSEPzhURz9UfK0/HawBv5bmWr/gPMC/CARGPTSWrD2zlIY/QGpYv5LjjD+MZDm/6e4pPU9gsb9kvxDAWs1MvwCSWb9gpQK/KEpfvms8ST9cc76/XRpPP9pnUr/nohS/Nc5xPYrlo7/17Me/oyicv8R3Jb285CpAXUDyP/gMQz/SzOS/fkMmPhKTRT+AooO+D5uMPuhCDL6DMnM+5iDWP3Jo8T5yl6s/Gm7Fv3uTMr221p+/D6QCv8j0Mb/HwJc+SAa3P6kX/b45+IY/XuEiP6hMuz5mYE8+u7qPv9NjrD92kQC/+Vd6v/kpPb63K5++ct0DP6dwPL/slR6/ySffP0/8eD/zXI4/X2Ohv87ONL9XkJ2/lfJ7vvUvF8CLo6q+zF0CP8ygZD9MpLw7CG9LvQ942z+j3fW+aXQovz3ADD5IONU8uCCRPjQpTT8Bqow+HLOLvTvBv7863IO+WOaev3mUkr4qUe++u0J7Pw2Iaj803de/4C9/Pi/Msr5If3M/ssnnvmsYyD+DORK/5iFNv0xvw78YHEG/l5sivwqe2j4Kp6c/rTK0v6gPsL+z8DK/Mzmdvr9DdL77cY++9e62P/TeIsCeG74+L35UvqJS4z+3fJe/Hurov3m29z7BZSY+S6pAP6AuhD5ljgfAXmbLP14bDcBtJYs+uacDQAA2mj+2bXc/XXuePbJEcL89B0q/3gcxvqvZ1z9i57y+oCCZPkUxIb9ojpI/L5Wlv9J4q7/rc1o/B3h4v7sDrL+0fcg9tyPSPwxBwr5odL29R2CwvveokT9kGl4/RQ56v2hkQT3+Au8+usTSvtpglb1jaUc/Np+Mv8n/3r9zeM2/VdM/v8mEMb8xen8+8VEdP4pyor9mY00/ZTkRQL59N8DPv9O+kwdOv8XIdr97t8+/HYfavTBBAkCED8g/Jya1v10flr97h76+iulrPhDqtj8NbbY/hTiEv9JhGj50Rv++ONYfv3/BKb+/KHe+TGbYPoBGeL42oyM/DauIP0CU8LyjuhNA1SRNv6mVhb+iIHK/F+6WPwQ0Lz8mbWW/HyyGP1O0ez9IKIw/H45fP1QhLz5y3oA/iDX4v6tswrw5eGm+jomgPOdu6T5l/Um/VK+NP0T7TL6FxK0/CEYEPxx79D7x600+t7HnvigWrj/mm9e9CMT+Pzk18b8Qnr2/jR10v+2HDLsIN4g/DOZav8NjKT9spvy/gU8LPnw08z0y+zm/2oJ2v18apT/45ci/F2+/P7uq1L7g3I0/P6+iP2Rvs75qqz6/p/CzvtTXq735cTK+6ialv/2RM760pKg+M2wVP0yucD8qTFc+oslbvzGPwb5IEFC/8L/+u9VPqz6DJZk/M3ZOP1KDBD91UbU/kwCSP8z3Aj/CqrE8ZofUPnE2Dj+t9sq/C6AdP6DedD8p9wm699bMvy9rzz+BXPE/MYSIv3KCID66PDe/OnQdv4eUvr3zwP69F1fKPkSGNUBDRP6+omThvg9z/b7l5Yg/8TI2vynlVT/2xaq/cAUXv5l8hz6PqA2+u3tnPqAmbz/gpoq+tIC3P1+hjT+v/Ks9z0wUQFUKhz9NLbE/5524PjCPJb9Y+hW/C0+Nv06XWD+Rro4/nTUlP+zzCL/kUNu9KSJsPh3NIr5qEa4+x/YjwMiAh79/ygVAw7lTP4hier8bDXc/M25avigvGj/mE7K/xCD7P1xayr+LNci+hL9vv4Bzx78MoMK/G66Wvg/F5z5hunE/XXslPxBKkz6BWtU+NO3svo6Na7/Aodw/UtoOPx/epj8vQZe/vQW4Ppekcb8DZZy/g9Jpv8EOQz7MKXg/kAZfPy60qD9g2Gm/3vydPh+DQr9J7jm/2RtHP0EzCr9r1I+/2MMzP4cwiT/k8bM/is6JPzaTM7+uKQE+yskbPw8YJL9k+p2/Na9qPuA1ib1wDPu+WqDjPWkjVb+k9NG8K7zLP2Oflj5Ki8O+'},
  'bounds': {'dq': 0.05360088650701941,
             'dk': 0.06703360665024982,
             'dv': 0.02796935703586667,
             'o': 0.005344390869140625,
             'stats': 8.20927415740553e-05}}]
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
