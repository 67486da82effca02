#!/usr/bin/env python3
"""Standalone reproduction of 'reg-stale-state-between-cases-do-2-bshd'
on engine 'torch-cudnn', written by `sdpa-bwd repro`.

Needs PyTorch only.
Builds the case's tensors (dims, strides, storage offsets, dtype, values) as the harness did;
runs
    reg-stale-state-between-cases-do-1-packed
first (the cases run before it in the same process: an order-dependent failure shows only after them),
then the case; calls the engine's backward, compares dQ, dK, dV (and O and the stats, where the engine's
call makes its own) with the float64 reference below and prints the max error of each against the bound used.
Exit status: 0 the case passes, 1 it fails, 2 the engine declines it.
Run: python cudnn-do-order.py [--device cpu|cuda] [--repeat N]
"""

import argparse
import base64
import math
import sys

import torch

ENGINE = 'torch-cudnn'
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



SDPA_BACKEND = 'CUDNN_ATTENTION'   # the torch.nn.attention.SDPBackend member the adapter pins


def run_engine(c, views):
    """The engine's backward into the dQ, dK, dV views; None, or the reasons it declines."""
    # As sdpa_bwd's torch-* adapters call it: the caller's strided Q, K, V, dO, the backend pinned.
    import torch.nn.functional as F
    from torch.nn.attention import SDPBackend, sdpa_kernel

    q, k, v = (views[n].detach().requires_grad_() for n in ("q", "k", "v"))
    S_q, S_kv = q.shape[2], k.shape[2]
    masked = c["left_bound"] is not None or c["right_bound"] is not None
    causal = (c["left_bound"] is None and c["right_bound"] == 0
              and (c["alignment"] == "top_left" or S_q == S_kv))
    kwargs = dict(attn_mask=band_keep(S_q, S_kv, c["left_bound"], c["right_bound"], c["alignment"], q.device)
                  if masked and not causal else None, is_causal=causal, scale=c["scale"])
    if k.shape[1] != q.shape[1]:
        kwargs["enable_gqa"] = True
    with sdpa_kernel([getattr(SDPBackend, SDPA_BACKEND)]):
        out = F.scaled_dot_product_attention(q, k, v, **kwargs)
        FORWARD["o"] = out.detach()  # the backend's own O, judged beside the gradients
        grads = torch.autograd.grad(out, (q, k, v), views["do"])
    for n, g in zip(("dq", "dk", "dv"), grads):
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
CASES = [{'id': 'reg-stale-state-between-cases-do-1-packed',
  'case': {'id': 'reg-stale-state-between-cases-do-1-packed',
           'S_q': 21,
           'D_qk': 16,
           'S_kv': 21,
           'seed': 2023126723,
           'purpose': 'regression',
           'covers': ['regression:stale-state-between-cases', 'order-probe:do'],
           'level': 'quick'},
  'dtype': 'bfloat16',
  'seed': 2023126723,
  'scale': 0.25,
  'left_bound': None,
  'right_bound': None,
  'alignment': 'top_left',
  'deterministic': False,
  'tensors': {'q': {'dims': [1, 2, 21, 16],
                    'strides': [672, 336, 16, 1],
                    'offset': 0,
                    'dtype': 'bfloat16',
                    'buffer': 'q'},
              'k': {'dims': [1, 2, 21, 16],
                    'strides': [672, 336, 16, 1],
                    'offset': 0,
                    'dtype': 'bfloat16',
                    'buffer': 'k'},
              'v': {'dims': [1, 2, 21, 16],
                    'strides': [672, 336, 16, 1],
                    'offset': 0,
                    'dtype': 'bfloat16',
                    'buffer': 'v'},
              'o': {'dims': [1, 2, 21, 16],
                    'strides': [672, 336, 16, 1],
                    'offset': 0,
                    'dtype': 'bfloat16',
                    'buffer': 'o'},
              'do': {'dims': [1, 2, 21, 16],
                     'strides': [672, 336, 16, 1],
                     'offset': 0,
                     'dtype': 'bfloat16',
                     'buffer': 'do'},
              'stats': {'dims': [1, 2, 21],
                        'strides': [42, 21, 1],
                        'offset': 0,
                        'dtype': 'float32',
                        'buffer': 'stats'},
              'dq': {'dims': [1, 2, 21, 16],
                     'strides': [672, 336, 16, 1],
                     'offset': 0,
                     'dtype': 'bfloat16',
                     'buffer': 'dq'},
              'dk': {'dims': [1, 2, 21, 16],
                     'strides': [672, 336, 16, 1],
                     'offset': 0,
                     'dtype': 'bfloat16',
                     'buffer': 'dk'},
              'dv': {'dims': [1, 2, 21, 16],
                     'strides': [672, 336, 16, 1],
                     'offset': 0,
                     'dtype': 'bfloat16',
                     'buffer': 'dv'}},
  'inputs': {'q': 'dRcdPgUdkj9V2su+f8mGP/FQtz5pTgW/92Xkvt+bFb5ICde+NfjhvvSMcz9bMvO9luJHv/VAKL8CBSi/sYbaPhYX4r65q2i/jHg3vhYCib+ZhUG/f/QrP/hqS78/fVs/cBWuP7GGWL6UNgXAca0DwEFf6b21XwLAEPNtP4g4Nj9mvs29st+QP92NAj815NO+Vq+AvaElh7zzyi2+0PwaP+oaSr9iAo0+vv82P+BQzL+1jR8/rOSvvyr2qj5rMW2/Rk7/P7nItT8ecfQ/F0qRv3pnyz+fBZM/zaRcPxW/az8am+2+ujdQP6otV77cyse+UFcNv0ygDL90ZiO/PnoXP8ifHD9viQA/lp6XvX3/wz7BqQK/7Gx9P7+EJT+GvB0+IGQuvn9AIEBhgwHArs6fP/HNqL4g6Yw/+1XePjXYkz+Ghys9Zp5jvwYttr9sE7K/5THLPjeu9z4Waq4/wLiuPnTJUL+v8iG/I8jHPpObBD4Tty+/vUQJveXZRz9iwnI/HG7KvT2MRz4YJAQ9ALFRvyaYSL0Y1A0/q6EMwLufzz4ryJ8/5S5Qv7Kzb75Vvw+/Vr/0vFDSYr9biE8/xUHJPXz3lr/MfeG/+oqeP+m3nr1fhbO8NNrpvlvxbj69PNG/voSbPiJxWL82nry/9KGqv9RCbz9Nrf+/AmKfvvODDsBQ0Qk/zl4bPfZtMz8I8ae/f4h+P1tiUz9RvXC/H+FoPzGGzT+nWhm+V/wgPzCpUz7I/94/pxh6vwHsn7+vHwW+WfkLPxiBCb+3xZO+cuRZPwU3wD7PWZk/kUwLv3DImT8+Hmu+0e9av0dtEMBS0wW+A29FPpyq0T69SVy/0qjBP1MSWb+FACc/p2o7vxShrT5OeFK+raNjPs2UNz4t9rA/JXmkvq+u0D8pIZO/OpmPP9+BLz4FX8m+fmiBP6UXjb737J++H9qVP2Dcrj3clq0/Pt/KPwoCiD/fe8c/l32APo/9tb+/nE8/9riaP8rCjr1x5lq/iUbwvpSaUz9cEiC/FNvLPzNj/r/LFQs+g3JfProCPb/8Ypm/dls7P+x9ob/cxVG/c7QowKe+9b7n2k29qIXRvYXlvz84AM++OZmgvx5tPb/X4/W/fDSMP9/daD/EKuA+N2sTvxrMOcCDPUW/zqJWvmAqxr+f+6S+I46ZPqXbob4xBsI++o8EP4NMsT865SE9ub4rPd2sdD8X7449h+4Nv4tEhr5J8tY8qjbcviKoKz3FhMo+6aiCP9aELr2widq+18gCvzlCGz++zRO/MCcVPwsVzr/NgCI/f9J7v/2lBMALXYg9zQ2Lv7XZBj/NUUW/2i2fPxwzUL69yN4+HkiQvy4OJL8q+R++6ohZv3ceQr4nv8G+MMCIP6CIDcDjA9M/rGYOwMIBUD8zotO8GIsaP5R7zz8T9FK+hJVjv6cyfT+NhxbAxxuKPQvkGL6fGBQ/QO2WPgMGtb96ORk+ho2CP96Isb/Aqgs/pz0Bv4o5hr5ak8E+WY/JvnzZVz8Y6c++FXBav/DSBUB8a1a/WjwWP3tqgz5NaxS/kDeUPzOISD/qBLS/lL86P/OVMb8xdpI9UrsdQIQXN7vDbuu/kNsiQO7mkD952SM/SlXtPwQlwj4PDzq/MLcHQFPWUL9NsYy9vuB0vNMYCj+O+B++sopOvj2qbL8vDxM/ahGePjPBCcA6sbI/whYmPyBKHb9g9aY/e1ZAvxpn8L5boBs+BAc+PvWFKr/HTPe+3KaAPzcpYz+6u4C/g3WNPSArt7/kPEa/GD0pv564pr4twLG/zHiVP4ak077dp7w/i8EJP+nsIj8c5eS9d5rPvm4lzD/0gaY/vHa2voRS1r//xvC/2OMcv7QaPT83i2i/sUBtvmhQ3j98GkY+t4xevRJ9mL4NfU0/4LKov8bdo75/pgS/G3Revz3VGj6tvd8/qZWXPbmsEr+uu52/sJR3P8dFMj8TkSU/sAKlPmZlkb/6VEO/djFjP0lGjr6bz4O/ywWcPz+47b+JGFq/adb6v6KP6j++K3S+Ey8av28ADL9PWAc/5uoFPw7CDb8uW7K/IhwaPwau6z4JwoM/mZUbP0fjMz9BdTO/KFecv3xRPz8RXec/f90cQO4Pmb3MuNk+jeyHPuW2ir6FuhW+AwgNQO9nfr+XqOE+a9MpP7XM4D1tIKC/zC+9P8CmwT9IqYu/x4RAP0MNaL9AY7I/1ls1v6dApr4yAXQ/GdPEP3bCwj547lo+ifrVvgo/eb7MExPAHzpJP4YADD91e8S92I49v4bGLT9hrApAyyMAvkq1or+5B7M/yUTiP3O77b/aLlC+1obFvnih3r5kFpc+CSEZvr/Ugj5Z//a+J7FuPm8uPL9zhiO/DHMqQIK+Uz+B3im/0DLLPl0dFj+eEvc+oId2v2CYWr+3X7e+iQaKPyxiTL4iHdY+I3+ZPvMahD/ENos+AFwIPxehuL/iXbE9z85bv2/Aej41dOi+i0RAvvqirr8QeSw/hEQqP6U7Ij6DUBa9BKXXvwLnVD8G0DI/X7I0Pu3ggL9sRrg/yfc0v4Ynn786jgA/dRvNvtGo4b0Ocpq/8i/gPlfBkD+/Spm/MdppvyY+kj6TbNK/FZNAPi99tr4ohy4/sP1Yv1gVZLwTzKs+RZPfvqpJMz7/EZs+RQHfvvJkgj9fSGI/QhNjv7KTgD+C67C/eTc2PxaNGT4dBGA/3acowKbsgz4QfNq+2IP/v0WdmD9/iKU9II6oPxozDz707Qy/NNy6voxrur08ASO+zyWRvtQ2hb9GUjXAGF8bP4U0xL/vxlc/mSfIvvyjKL/sGag/UsGbv14A17yLo62+6Tcfv4euXD8fQfo/VfuGv0DkGb+ACvE+F6wmvCgsAr+ZIJi+luwMwByGnT9mk0+96GkZPvgB9j/DwxpAEnuyP+OU1r8AuUU/uLDTPov9q7/ywBa/DKm5v7AGgL6TOWk/w/I5PtRA/r4gCLQ+537nPrbie70wiok/y+cXv99xwL+Uc/s+ddDsPxWgcL9d0Ai+vN0PP0uHQD/3isM/60xdvjk3ScCkCqE+UGrAP80cKD/ZM6K/rfyqvl+WAkBfnxXAxczsvvJ0jr4kj/6+WyL/vr3s0b9pOZs/+l3Cv6zvs74Gtle/FZOUvaYCxr5YrX8+lwp+vr7Iuz1NwUs/tNt9v2tBub8L6T6/3wmVP6/yl7/kwcm9KRbpPySFOT93w0Y/gH4yv5gwub1gemq/ikA2v7kQdr49F8i/++IPvsixZb8k53y9DdiPP5I5Tz9csjA+6Z0FP63FAb96M3o9hQxePrFnsT3aROy/CBj4v+3iVD7J/4y/B0+9PhgCLL9XhLo+nxMZP+DOZz9+xvo+/ofVvhM5Rr8K9nS/Iq0BPi+Rfz9csoI/39J8PkVo9z6Fo6y/ApNev7UkhD/+oLU+aljZvpDtjL/fRdo+PYrNPi4seD/EU1G/fH0Yv5xzgL9OokQ+KQU3v3RA4L6dSms/bI+RPlrIWT8dbA+/DsGHvn04Gr+HsW4//Bf1Pu4XCz+f2c++N0J9v6jQ0j6CAnm/YIBTPzBB1D7R+ya/+f4kvt+Rtz7f9Ho/',
             'k': '7R7pP7281j5dmDs/vP2Pv2WDGz8v3gm/CFG9vQSxij6Tzow+usnGP52x/T8o+X6+QIzaPxtrw75aNJA+RAETP1BG7T+g206/HaxlvyCtkL+XEJQ/es/evnUNgL5l/HE+AQqyP1zS7L5aqSE/sBbjvQ4nzb+t4ea9/UGAvwswzr4uEHk/lIAKPssHFj/C+grAombHPpBWCUC8SPs/kxuKP5yLUcDOKRc/rWodv8xakb5Xq3K/WQ45P9knub29Xbi/6thwPx/DB76dgKQ9Vcm3vrgD4T6/WMA9aOl0vsffuz2ENZS/Av7aPz3Wlz7FALO+sNGIv8dbFr6qPZw/MJE+vxXIDD+Ln8m/pBM8P+ppdL8fP2g/atpGQODsPz+yaDa+lGiIP/0jFz+PgzE+h68UP3BTMz+Wtp8+KKRYv3F2zb6uL/w+QawNPofFT77Jsgk/ehOAv4WsdT6+fxI/haGzv05WlD8HGxG/V69fP1v6d77SgFA+rl1IPvTlrj7wKSy//SwxPSNneb6OjyBAzcIJPp2lqr/4cDw/UcXzvIaQcj9/PM8+DmUjv8Jvij/zXOs+pbLuPjfi3b93eQFAAjWEvzsP+L78arY+LrySv3UgQz+6ySTAggkZvotKZb+nYV4/+d3Cv8Sy8b5pNSo/JnpAP5wTir4B9r2/M1muvtMmK7/K34e/RbEJQCoDcr9gxoU/gCAdP0rBLr/Ri1M/6WlvPiHYgr6+eu2+WcTtvku2+z4McRfANDcUPxb28D+PJGa+T3Olvx1F4r25/aY/RcNXP8Zh1DsGJ46/u4NyvqoElr8szjg/ovIOP6xSpr4DxpG/a5XuvLqjqz+GhYs/ASPvvjQvcD94Dpe/8jiBPtR8Pr7TftY/2Wg4PzhlvD5krdW9CqkoPvMbsb7fv2O/r2joPgavkj6NEuG+dP40v4vstby5fzy/QJT0v4b2Dj+YaYk/a57ivh52JD9rwKK/RwmTv23TDL9uV24/IlzBPrxvZD8fl78+2c6EP51cgT9q7a6/MEXPP/5+KD7gsng/Ojd5Pn92YD9JzoS+mZOKvQHGgj+SD0o/T/3LPqDk1TtdrhE/DOB8PyXpgT8cJDY/7HR4P0dNkL+gacY+AySyP9jhRb9U/bI/kLutvznJUD6RHoU/r5xsvmY7tD6gJ42/Dd6hPxu49j+1or4/9bAsP9EvR79Wk0Q+yWsVPhie/TvyktU+kfyjPhQwqj7rFm0/NNMwv8Wf3L+2Q42/ZBjFPo8AQ79dcoU+jSKzvv+L7L6AEzS/vbk2Pui/jL6Btyu9FtadP2Qydb+ExBA/bz8LPylXYD5iuJ28UBGRP+A7OT8ZnXy/MW8pP+4goj59b3M/LtSxPyDxZj9sdXa/MSMqP/Wrl7/DfT69jxOovZ4vxT9cFOU+kMU7P0gmGz6LIwjA8AwEwOWaBEDt64C+1yh1vsHBkz9UYxs+oDYqvuN2tz6Cvm+/0pqtPwoWjD/BorO/DovUPlewp76q7W4/myTyv7xJ3z6H46q+ktI/vnqlq7+tReQ9YEnuv+dNEL9RQ3a+E+Z3PkxQC7/Hmm0/hfqLPy9HEz8YLag/c26ov7X07D+awYK/MwXnvzNker9T1eg/3lACwNxjoT5TZoC/dQBgP+StX7+CDOQ9d1MFQLJmgj9fQMi/Msb0P6ifs781zlY/RMUHP+a2Fr+BEM++47umP/0oAMBWjUc+S3VjP5JIub9xXw4/v88Ov0/oYL8SDrE/aflpv3BEFL9o0u6+aYMRvxNUzb7Efau/pug3vub1B8CCqOm+iZAPvx7WHT2A/5M+QMqUP/Wx4T++OZo/yGeFvyvmp75GJus+bW6EPoIkZr/cmBdAm13Gvrrspj+o+0u+i3VJP9i4mD6OMjA/ZUxlvnfDAT9jy7I+04qxv5BTlb5g17o/m6gNv80E6T8p3gG+5zpSvcf5ZD642rE+qOnDv/yEFj9kG7C/fgkvP31PeL+Ms1o/vu7uPQlbeD/XnWG/74S/vu21Fb93CJA+oZFFv6m83b4xMB6/n9SdPo3Nzrxdwpo/hqcSwKPvjb99yRk/IIaqP3wTC7/YbNs9kXzhPnAjg797udc9tmDmvhueLr+FdnU/vvdEP1u4Xj8TLA5AR3W9v/I55DoKS0i/pkAgvqeyuL+aLM0+7QiIPm2yED/BEAvAlNYKvoH3gT/daem9CbF7PRlT4D7mqfm+gR9avi96Iz5aH6q/IPmKP/wpPD9bXJK9leInvWCmB0B38L6/NmUYwMKXxz7dvai/7WTOPlJaf79VkjE/ltS4vt9vUT2ZD4I+367kPqNkrj9QiGo/opOhPtwmuT9O6gI/YZMCv/0tvr4+Zms/9icHv+96KT6R2iK/fm+dv5Sfzz5HIY2/3M9MPycVnj9K5hI/Jl8Hv98SYL/TJeK+F8SyPliaSb9S/Ls+cPUtPuknu74sg1s/aCfGP7KajL9bSXE/l9ViPyEnvT/aAhi/hX4Wv6xYgb6DPA+/xPaAP+tHi7+zd1++B24vv0ORBj9KG+Q85ZZ4v5dKaT+5nLy/Ed2ev88ODT4YHPI+Zhbzvu6DTr/KawQ/NcIGPSJsyb9jj8i+oBmmP3IrWj/yuek+9BULwAF+2D1h78A/PnnGPm+M+r4QTvq/OGgVvkHZV79iHuy/f8akvuzAp77xs9c/Jc29P8u5iL6xQOy/fLLPvxsdmD+rpNo/FgGePwAKY79YFCs/t5rfv5CIHL4yFF+/1kFVPx2qCT9LJuy9uDUdP9faMcCM9Gu/RXF5PxRSsz+eBwnAkHWGv1M3Xz9VmIU+WS0IvqLOcD7OrZM/bxuEPwHtF8DHBqM/gG9XvzDEiL6j90C/i8CXvfvUzL59y7o+hmrpvqvM6790r9G+RVPPvysqn73XMfe+YpgWv1RfV7/hXh+/BSjKv1HAnD75VWu/uaCNPaA8k79Y6vc+dZrYP3jwqz6/t20/34o/vyovuLtZO0g+A9Bgv9cVhD6/D9c+K2eqv4i19r2QoJC+LKaRvt3veT9cimu9BcF6P9C66b5IBiI/Fq28P5POzz++qAy/4/7Lv6zzij+RmYi/BFS9PpLMs73Rjwa/yP68v5MVVL4wjK+/3eiUPn6Rib7iBAW/1EoNPyWaHj+gnFG/KGfePPrfCr9/jvI+V5kqP6D6oL93C6S/GDyKPyilpj6PV4u+kyGDvxgzqj8N+Is+L84lv4MHpT2eelY/3UIWwJv1YL/ufbW+6Gw0vxKAnL+bHCE/8XmLvysAAsAb+x6/zg+pP7i4ez4wuTc/Ww1PP3nnjL9WTtS+Gm7Sv0meCD+Ay44/fNxpPqeBjL+41yA/wB/MvjKZk78/9fs/LdpQP9pmrL4WMjS/hKb/vvlNgL9IdSI/0bPNPnYC/T7omyu/ZC4Dv3WoLT+Mqxy/CE6yPneQCb8Re+k/KvQevkeRvz4WH4c+4qqCP4cUjj89tbM7woOGPwxC/7+ih/I+WpAKwIs6QD8v4dK/uwUiwC004b+pCRa/cuOyPbr5278op76+DKgsvr6xoj/Ujd++89uoP+nMib6/7RW9ISyQP+wTZz6Cn7U+kFnZv+L4HsBI9NA+',
             'v': 'tjvcP9nFnT9LckG/6MujP29Hub/QY8k/3pG3v9poMz/DJpE/yrCOv/fneT8CVHe+lgNGQOgdfj/2FF6+SXYHvy2kkL5xlEu/ZCMBPwh5Oz5lHqq/BnoNQC4KSD6ZDyM+hgjjv9yONT4zvY+/rSkDwBwVuz56si2/AhBAvwl0gz8D5Ek/mjIbP2hl6T8+O9u7J5OyvTAZTj87PhK9UE8CQOY0lT+W+wY+Z9Hxvw337r71Hqq+zGftPr3SQb+NbOq9LmPMP1N46z9UEr8/4zSPPfze/r76HOE/v951PTZ6Cb9pWTO/4bl3P0sx+L/e2xS/f6G7PqeliL9g9Hi/5YAnPy9kmD3C/sg/QVcCPzDFjr8xQQi/Im+2v0MRsL4Xl5U/knm7v64Glr96axc/Z3rEv686Oz8ksKa+NFI4v1o4lz9cEwC/PljUPiEI1T4tCwtAdHB5P50b7T02Uaa/XT19P1VWEb9rZ+0/sOtXv89O9r+/nr8+LwW7vi7zTD87Dqo/req/P7KDWT508nS/pZzHvpk00L5G5CY/D5gXP8+Axb9oR96+HRO9PAan3b4fzQE/licbvm0UoL1nNlk+bVt/vwxisD/FpoS/MEPbv/kO/b7ghrY/oJILwInfQT+8pVs7JKmEvyKsir89XN68RGWGP06fEkCRsABATw+YPuSxuL5dulY9u1u5v/jxmj8jGJ2/bmLpv37BvL71qJW/bJYmvzdVe78W/rM/3ZMzv7aMSz8OH8i/xYFqvzKREUC977O/7ylnPungrj7GCL4/jwjAPmSElj6idJk+8yvgv/8bzr6XKuI/onIYP3BfMD9pkcA8+KoFvmjZR7+Hssa9iG7/Pprrrz9DdXe+KUFPPgK7mb1AHJ0/kOEHvn7vFsBrAwM/zYnSPoYvfL8UjII+DYDmv9NZAcAoB84/67Nivx1nlLxWpYU/7rzXv8obQj9QM5M/bS6Cv8Zsij01HpC+Mr0wQPhsaL/acRu+fun/vz4cNj8gAoU/mf1zP/HYbT8be0q+wQtMujVSIj7RaZe9eieYvweBEEBNtGa/6ZIQP+c/yj+eBd4/MaZHPusear+XD2m/PK2nv9pACr643uM/LvSbP1FohL88PI+/721XPVgY+D5nh7G/OZbVPuTBEL78NFs/pS4jvicNIr9Y75u/uEMiP2dfBL/ioyu/acCiP/Hk8j4oLL2/dQ2oPjQ5G0C3yaS8WuKuv9IYnz+xTnE/nfbHv2+Pxr1a3yu//gO5PiiDED+G5mQ/wURZuzBROT8wcw4/rEeOP0YVjD+4x5i/uBQZPR0X0r7z1iq/KqknPo+sqD4H7aU+OjMTP5C90L+7EJ6/+L6YvZ7Agb64tnW/nnykv8CC8r4s7IY/WQccPz84GL/6ClY9o3ITvz5Nbz+iHn+/xVf0vsTmC74FbUi/3LwiP7vAoT4wg6M/ZA96P4/Dej/WH5c/5sEgvuFAwj/Vu7a7bHEeP5RcVr+OUg+/AO0ZP5zBBsDYO6k/TeCbP298tL8Yc3O+Xf7MvhKLU0C0EZ29+OQePpeDbL8NqbS/AYqmv9cK2z4rsuG/koxNP0o3XL96FdM+m6IIwPoSMD+M6QZAdVAKP557ur/FQEG9r5+Ivtbo8b6IZbO/o0RoP+i2AL/Vxgq/FK2MPzCxxz9NN0w/+dRjPwRFUz0Yxfe+uhuAvel5AD+XPe4+aHcgvhV1GL/HY2a/IOSRv1gTVL+rAQrAtVCAv/Aq5L6rTK++1WuFv08dk7+Uu1O+XPSVv5oDAj9Wv+e/ulsdPmVdJD8VbPu+7AbtPepy/T8Iz/69MsWNPxVYAj80dEI/6ptvvnXqJz9RS8A/PngePxH/sT0HuUs/lphjv2p75D9/OKo+/OaQv6tJoz+G7oQ/gTNbP3d/cL37FtS/VhnGvzNd9b6v3UK+0AyYvtljmT5tPz89DE9fwL84Q7/u1Lk9+vVGP4YW4r6SWwG/CWQxvzB7Dr7OThO/Nb0Hv/dzkD2MuS4/gTTiPrbF/b9sMgI++97uviRUkz8hIlw/Ql0iv2S+S750rNY/wDWdP8zMlb96K808G+WovwiIFb8MNNk+6UHUvtE5lL95zxfAC0JkP3FUNL8tUNC+0cWLv4mFoD6qSQo+aqfGv2wnsz6MVDa/8sZfvqwsID9eFxM/PoCpv46J7T+ug2e/e59ePqXmbz7JiLE/wMVnvzF+qr/tGC09eehBv5Jp4j46b7u/Nq9HP70z7z8kCK6/K1iNPAQ8zL3ZLgHAwsRvPxJ3ij7MiLu+l5gOP+ibOD9dRhk/0FS8vh3TH7/nmk8/s7HJvYpUd79mqMo/2rvgv1XpKb+CuKK+qC7nv5bfZj4KvA0/vQwAPm84C79sLXS+cOcjvqa1Z75CC6W/hLzkvsfWYz+WJwG/SZ9oP0Dy1j90vGa/rEvBv178fD4wyQm97eWTv2m71z/rIzC+SqouwJ6adjuGl9C+D39mvz/3TD/Y7oK+yNt1vlo6Ur/KiuY/gv3UPrzHqL+TBXi7UzVAPpK+XD77ScS/lTOFPqz2K7+ie+K+PvbNv59eNr+sA7S+7l1JPqtnJD+pOkc/cYlcP3waCb+VONs/4cPyvSyMHMAhziS+F9K6vx6WI7/3DOo/PpQ1P+Ya+r4sJgG+w9ZQPhfn7T1ljqw/sa/kvlKytD5yQCZAGXDKv18rVb2WPLY9uMn7P3aZQL8rurc/8LMYv7vj4z6+mt4+ncEaP/qzkr7JGRQ/lT2JPmyGg78986c9QhrlPGb7R76UTcu/9cP1PspjRz8hxUK/266tPTeEbD8ZEvE+LeqHv+ZY1r4wPqS/NzhJv7k4fb7pVKY+9JkUvt1jjT5+LHs+kjl0P74SeD9DPF4/eZXnvaDrzb6oIgPA17uIPos4gz8kiQM/PuGWP09MIrvIA7s+A1cfP+mQHr8r+lY+FQnOP6kMNb8j9bs+TWjrPrsld79v3UQ/YygrP/s8qr/a7Fc/NnbLPqjhOj+jVa89KC+Xv/rUyr1PmZy9JhwCvXxuhz8Jv8m+cm8lv8QwG7/LUwo+joHtPmjQrz5Urhw/ui2aPzhhtL6xNXI/s5wOPquHQ7+Ju0u+PDVBP9dFjr9MpbG+IfWmPw0EaL6vDJU+ktUOPoJheT4SGoI9nAnTPpo1pr44JaU/MPaZv/KEHL+BBWW/FNkYv2YQcT6fUqI/splFP/YiRj/b5jm/Dlj7v8XZgz6GljM/ATYiu6xxOz0vi3G+MQKvvygtdj+FT5I/vtcbvyHgmj+isSy/8k/VvUxmZL+KifY/xXEgP4t7wj8JWj4+UJXkvkHTHj9BQ3S/hQoNP7PjnD6cYpg/8iGIvkS28b4aoAtAQURcvwZsFr+hS7o+2hy+viqzsj6vgNU+PE0JwLXYJL2qeII/x/EcP6cqHr+PvtI+fyYLwCE1u75vE7C/yDcjP30g5z53aIc/BPbfvtNZBUDXxHO/nixHPx+9br+2VGW+tFDVPgmERz5eILg/siGUPw6gEr5uMQs/RoE6P3/dJ8A0OrG84R3kvsXTjD8XEnq+qxJuv78pcr6y1gU+DTbcP3dt4j+3tfO+bquKPhV20D4eB8I/',
             'do': 'e4Rxv2ntoj5Vt3I/SDvzvgBr775iln0/6P6dv2oVTb9REYW/a6wcv5OGqj9akqI+aNYBP/FVhj4oMCw/09VwP11+8D+xzru/B1pIv5KgmD+iSeY/u9mbv9Na2r6SsXQ+yOzBPyjuTr4xoHu+f82GP5GYjz/h9ag/Jq1lP+Bt0D9KuOk/aUOoPst5QT9ms9K/CE0cvu4kp794d1A+3jQwv0Gm7z7lM4C/v968P02v878NpqS/etOAPiZHjL/yz+++lVFgviJDxD3tlzC/eUTtv1qtrr8ThKK+jzGfvkTuCj8H47k/6isGv5+k477eQVw/QTYsPnWImj85OT4/SLduP5tA678bHky/Zk3lv8roBz+PnEpAAWLRPAJXJL//bTO/rwaJvu0iGL6zgFm/iyEVv1MgBD8a33a/JpR3P1UTWL74ekfAd4AwP59PeD7Px4w/vdMKv0/OET86H+G+0pINQFxrHj5exR0/jQUzvz29e71AEZK/eAu3P1VUDL/2XS+9/vwSwKeYlz/6eIq+kiY+PhsjgT8vCX6/qp/uPmeshL6EcZG+bLvOvlI0dT8Ep/08TXBMv6Oon78nvju/l4BPPhibtz5KvVq+D8AOv7LuUz+R+Vy/1x/jPqfAhr9nb6c+nclAPsamVb9PoUU/qazNvllRZ7+ye/A+mjj2PjZox75hDje/k9t7P/JSMT7OJfe9B0HDu4XVRj/pmkY/eaiWP4OyBT9r42y/zd4qvn/PCD8tiYQ+TtcjvJuaDz0Aqag/zxnNvnXjDD9QMi0/vZe6vf+Rjj8IZnc8Rdu2P8mf0L/EvS2/ZCk2v1EInj9G44E+J/YDv25xPr/ABKk+h84IPztaGj8m9oo/Z9OGP5KtN79RSa++Jea1v80GuT9xRTO/vrvTPU0I2T45xyc/JVPTP5QpIT+tUW6+zlpfP5lLYr64E2a/NDJuv1fJ7L6fwG++y0b6PjAAyL5XYm+/4tO0PrQUOb+2yhW/yJ6dv463lb8XyEi/z0oqwBsVOcAf5+W9f68RP0E01D6ecIO/03RRPETdaT/HCcW/nsHsPgUOAj5FMAA/uGmtvpYE7z9Kkr8/WmIoP+TCGT7j2TO+32LQvteaSj9KK86+18/KPpHOer/ZCQ3AnvygP+LHhj8rj0G/U3l7v0fAez9KyVW6NO0Sv5ALGb8OuBzAiTLCP+pt9b+8rtE/i6gAv0j6ML/1W7K/xS5DP6Gcwj8UXPY9gLHVvzO9or+q0Yg+i1DfvdPi+73KpFo/vK8pwFrsTL8Ysy2/0TnHvojPsj8mGJy+P37gv9+nd7/jLpo95B7WPrM3HT8z4j4/+Myvvyno/L9jQ7u/ngnnvts0KT4TyEm/OXIqv2YIAEAxMga/62zNP92g3b2UeKg/kc8IQH780z49mWw+HXvVvkDakb/Vx4G/L2URP3/dhT5eFRG+Om2/v/x1jb+YhUo/A1r2Pxm/kT/uYEA/NMzgP4z+0b/4gHm/stKZvxvKTz9St/w+HXSiPjodwD02952+L1UhP6ssk7+oG+w+jwh6v4XXsT9z7oq/LmFOv+fy7D7JXpy+RGYrv8GoFb9IWyy+DO+Mv+5rGEDpI68+O0soP6Xh7D9K9IG/qhO7PtLnkT/8LtG/NogrP2fHob08Rls+80NeP/X2VL+jj5Q+H3fxv53zXL+xKD4/Ph2/P9xmyT5QC92/Ugt2v+nyqj9Kk+a9Yb2IvkBm3z7PiAA/OTaVP4bj1L+m23I/F8X+PlEKqL6Fo7k/4UKKv3oiHz94EZs/450uPwOr6L6+iOC+VkANPzsh2b46KqO9h79jvTthPr3r7eA/4QmuPyV1hz8cN+m+SNKTvNF43D5InZ2+uEIXv12mBj8c75s+BzCkv+7Tf7+als4+cyurv28y879SkuC/s6FcPjuUPD9pJms+STfiv3vAz74+WQq/A6kNvi89iD9x866/pHBJQIWDCr+ATDDAnGRWvzf3Qb9up8M/eigTPumi3z9OaBm/F4YMv6jqhD/FiNA+RqyMvzI5U793Eae/Dy+SvLP+e78XoPW+ekKNPq9H879xL7u/n9n1voDrJsDTcxs/RGK2vk6Y2r3ix3G+FdGnvfx6CD/wcp+/q7c1v0cBxj1T866+8nBkv/DZbL/vUWm+ey7Iv6Q3nr+hklu/5MrKvrOyTb7PptG/RxeyviHDv7+Jtra9xY2XPstwyT91wBbAyLk1vXr2jr7dRLC+EF+RPvc9AD9zc4Y9OuOWvzbgPz90bI69n8WHPE7gz761Lx/AVCtZv6+zkL+CYCK+EPGHPr6sXb8HX02/A9zRvh3Lqr8CVFg8rtiLP/2owT7GocI+5x+MvzC84T62bso9Gt47vhcbaT94G6++sGuHv8vzkD4yrne/1lmJvtp2uL7lw40/PSuSvmPdCL+5kcG+8EqlP4XzaL9zdqm/pzfgP+sd9b/Jr8k/Gks+vyG5xb+O+Uc/SugKP/HMEz+sxBm/MquyPleJWD7oSjk/UcjRvjebnj+OIQTAYhX1v7r/Qj+SVg4/dIemPt7ilz4hnjy/ZNpqP3J79D/2U6Q/gwC4PnGezj2PxJK8i5a5PtrCJL+VRqc7EQPJvQGwVb2IGL8+BTGCPk5VYj+r510/a3xjP7Drz76B/RM+eA8hQMegeL6mRFu+A9Y0PedXvr0S0k6+KYFSP0BsnL8NWk4/3YD/v26Wmr5GSXQ+uKWKwO0foD8KU6W+3qM1PbBPmD/JKAc/82omv+AVC72gbXu/kYOnvdsdfr++oCq/nu/xPj7DOT+EcT6/KXstPn8TjL54O5o+GUkSPJm4hj9k3yU/EUoTP32ImT5fxGa/w+hev/zAir+630w+1ZjsvhjoE76PdKW/11oDv5bRcD93NZc+ufekvsmynz980tc9Ai0SP6DowL4xfsu/Lg60P4RqjT79CUi/+1wFQHo5Ej+KKaY/w0LbP5mfFr9vt6y/1iZDvz53Wz16yd2+N4XTvabDzb/OQjG+jmsKv8tGJz8qgH8/oSGVPbHTN0DNsyI+/zIxP9gsQr9t178/T0IGv5TUJr24Zv89JjP9vkAU5j3VO4S/zG8nvxXLRr53e/o+GHmYvtUXdL91Dpo/jJ4qwPZP9L/nKI2/nC2EvuPgV78ToADAsdvbP32yvz6zvCO/3bx/PzUhn7/esnS/umrqPsJuYT7ZW9M+YUm+vT0a0r80vmA/Rlidv7zerD303CU8xuBlP8Tuwb3bqFc+KOKZvs+LOj8Ziso/0se4vvFWJD9MwG0/9bXtv3XZCT8Otzw+aiSgP6spTD0knkk+knWLP+AmOz+M2/S+lpW4votAY787EdU+daVHv1wndb+hgrW/muGev0Ibqb/Umqq/QqJ1vq4mbL8q0KW/FZYbQPqiCMDMFQ++bx57v28JjT0GNx88dcZ0v55owT8Jq8U+MEs9PsTcsT/PS3y+kfpBvl7SA8BC7Lc9yIwMvylkqT858Dw/YiqtvTK4z7/EXXO+yGWtvlW3Zr+D4549qoplv/kIaz9+P0Y9YJ+Vv8DqSr+UrWY+CLb2PeA68L/f3yI/CYRivzLs3r/k6eI+px6cvvHatD9nWJc/'},
  'bounds': None},
 {'id': 'reg-stale-state-between-cases-do-2-bshd',
  'case': {'id': 'reg-stale-state-between-cases-do-2-bshd',
           'S_q': 21,
           'D_qk': 16,
           'S_kv': 21,
           'storage': {'do': {'order': 'bshd'}},
           'seed': 2023126723,
           'purpose': 'regression',
           'covers': ['regression:stale-state-between-cases', 'order-probe:do'],
           'level': 'quick'},
  'dtype': 'bfloat16',
  'seed': 2023126723,
  'scale': 0.25,
  'left_bound': None,
  'right_bound': None,
  'alignment': 'top_left',
  'deterministic': False,
  'tensors': {'q': {'dims': [1, 2, 21, 16],
                    'strides': [672, 336, 16, 1],
                    'offset': 0,
                    'dtype': 'bfloat16',
                    'buffer': 'q'},
              'k': {'dims': [1, 2, 21, 16],
                    'strides': [672, 336, 16, 1],
                    'offset': 0,
                    'dtype': 'bfloat16',
                    'buffer': 'k'},
              'v': {'dims': [1, 2, 21, 16],
                    'strides': [672, 336, 16, 1],
                    'offset': 0,
                    'dtype': 'bfloat16',
                    'buffer': 'v'},
              'o': {'dims': [1, 2, 21, 16],
                    'strides': [672, 336, 16, 1],
                    'offset': 0,
                    'dtype': 'bfloat16',
                    'buffer': 'o'},
              'do': {'dims': [1, 2, 21, 16],
                     'strides': [672, 16, 32, 1],
                     'offset': 0,
                     'dtype': 'bfloat16',
                     'buffer': 'do'},
              'stats': {'dims': [1, 2, 21],
                        'strides': [42, 21, 1],
                        'offset': 0,
                        'dtype': 'float32',
                        'buffer': 'stats'},
              'dq': {'dims': [1, 2, 21, 16],
                     'strides': [672, 336, 16, 1],
                     'offset': 0,
                     'dtype': 'bfloat16',
                     'buffer': 'dq'},
              'dk': {'dims': [1, 2, 21, 16],
                     'strides': [672, 336, 16, 1],
                     'offset': 0,
                     'dtype': 'bfloat16',
                     'buffer': 'dk'},
              'dv': {'dims': [1, 2, 21, 16],
                     'strides': [672, 336, 16, 1],
                     'offset': 0,
                     'dtype': 'bfloat16',
                     'buffer': 'dv'}},
  'inputs': {'q': 'dRcdPgUdkj9V2su+f8mGP/FQtz5pTgW/92Xkvt+bFb5ICde+NfjhvvSMcz9bMvO9luJHv/VAKL8CBSi/sYbaPhYX4r65q2i/jHg3vhYCib+ZhUG/f/QrP/hqS78/fVs/cBWuP7GGWL6UNgXAca0DwEFf6b21XwLAEPNtP4g4Nj9mvs29st+QP92NAj815NO+Vq+AvaElh7zzyi2+0PwaP+oaSr9iAo0+vv82P+BQzL+1jR8/rOSvvyr2qj5rMW2/Rk7/P7nItT8ecfQ/F0qRv3pnyz+fBZM/zaRcPxW/az8am+2+ujdQP6otV77cyse+UFcNv0ygDL90ZiO/PnoXP8ifHD9viQA/lp6XvX3/wz7BqQK/7Gx9P7+EJT+GvB0+IGQuvn9AIEBhgwHArs6fP/HNqL4g6Yw/+1XePjXYkz+Ghys9Zp5jvwYttr9sE7K/5THLPjeu9z4Waq4/wLiuPnTJUL+v8iG/I8jHPpObBD4Tty+/vUQJveXZRz9iwnI/HG7KvT2MRz4YJAQ9ALFRvyaYSL0Y1A0/q6EMwLufzz4ryJ8/5S5Qv7Kzb75Vvw+/Vr/0vFDSYr9biE8/xUHJPXz3lr/MfeG/+oqeP+m3nr1fhbO8NNrpvlvxbj69PNG/voSbPiJxWL82nry/9KGqv9RCbz9Nrf+/AmKfvvODDsBQ0Qk/zl4bPfZtMz8I8ae/f4h+P1tiUz9RvXC/H+FoPzGGzT+nWhm+V/wgPzCpUz7I/94/pxh6vwHsn7+vHwW+WfkLPxiBCb+3xZO+cuRZPwU3wD7PWZk/kUwLv3DImT8+Hmu+0e9av0dtEMBS0wW+A29FPpyq0T69SVy/0qjBP1MSWb+FACc/p2o7vxShrT5OeFK+raNjPs2UNz4t9rA/JXmkvq+u0D8pIZO/OpmPP9+BLz4FX8m+fmiBP6UXjb737J++H9qVP2Dcrj3clq0/Pt/KPwoCiD/fe8c/l32APo/9tb+/nE8/9riaP8rCjr1x5lq/iUbwvpSaUz9cEiC/FNvLPzNj/r/LFQs+g3JfProCPb/8Ypm/dls7P+x9ob/cxVG/c7QowKe+9b7n2k29qIXRvYXlvz84AM++OZmgvx5tPb/X4/W/fDSMP9/daD/EKuA+N2sTvxrMOcCDPUW/zqJWvmAqxr+f+6S+I46ZPqXbob4xBsI++o8EP4NMsT865SE9ub4rPd2sdD8X7449h+4Nv4tEhr5J8tY8qjbcviKoKz3FhMo+6aiCP9aELr2widq+18gCvzlCGz++zRO/MCcVPwsVzr/NgCI/f9J7v/2lBMALXYg9zQ2Lv7XZBj/NUUW/2i2fPxwzUL69yN4+HkiQvy4OJL8q+R++6ohZv3ceQr4nv8G+MMCIP6CIDcDjA9M/rGYOwMIBUD8zotO8GIsaP5R7zz8T9FK+hJVjv6cyfT+NhxbAxxuKPQvkGL6fGBQ/QO2WPgMGtb96ORk+ho2CP96Isb/Aqgs/pz0Bv4o5hr5ak8E+WY/JvnzZVz8Y6c++FXBav/DSBUB8a1a/WjwWP3tqgz5NaxS/kDeUPzOISD/qBLS/lL86P/OVMb8xdpI9UrsdQIQXN7vDbuu/kNsiQO7mkD952SM/SlXtPwQlwj4PDzq/MLcHQFPWUL9NsYy9vuB0vNMYCj+O+B++sopOvj2qbL8vDxM/ahGePjPBCcA6sbI/whYmPyBKHb9g9aY/e1ZAvxpn8L5boBs+BAc+PvWFKr/HTPe+3KaAPzcpYz+6u4C/g3WNPSArt7/kPEa/GD0pv564pr4twLG/zHiVP4ak077dp7w/i8EJP+nsIj8c5eS9d5rPvm4lzD/0gaY/vHa2voRS1r//xvC/2OMcv7QaPT83i2i/sUBtvmhQ3j98GkY+t4xevRJ9mL4NfU0/4LKov8bdo75/pgS/G3Revz3VGj6tvd8/qZWXPbmsEr+uu52/sJR3P8dFMj8TkSU/sAKlPmZlkb/6VEO/djFjP0lGjr6bz4O/ywWcPz+47b+JGFq/adb6v6KP6j++K3S+Ey8av28ADL9PWAc/5uoFPw7CDb8uW7K/IhwaPwau6z4JwoM/mZUbP0fjMz9BdTO/KFecv3xRPz8RXec/f90cQO4Pmb3MuNk+jeyHPuW2ir6FuhW+AwgNQO9nfr+XqOE+a9MpP7XM4D1tIKC/zC+9P8CmwT9IqYu/x4RAP0MNaL9AY7I/1ls1v6dApr4yAXQ/GdPEP3bCwj547lo+ifrVvgo/eb7MExPAHzpJP4YADD91e8S92I49v4bGLT9hrApAyyMAvkq1or+5B7M/yUTiP3O77b/aLlC+1obFvnih3r5kFpc+CSEZvr/Ugj5Z//a+J7FuPm8uPL9zhiO/DHMqQIK+Uz+B3im/0DLLPl0dFj+eEvc+oId2v2CYWr+3X7e+iQaKPyxiTL4iHdY+I3+ZPvMahD/ENos+AFwIPxehuL/iXbE9z85bv2/Aej41dOi+i0RAvvqirr8QeSw/hEQqP6U7Ij6DUBa9BKXXvwLnVD8G0DI/X7I0Pu3ggL9sRrg/yfc0v4Ynn786jgA/dRvNvtGo4b0Ocpq/8i/gPlfBkD+/Spm/MdppvyY+kj6TbNK/FZNAPi99tr4ohy4/sP1Yv1gVZLwTzKs+RZPfvqpJMz7/EZs+RQHfvvJkgj9fSGI/QhNjv7KTgD+C67C/eTc2PxaNGT4dBGA/3acowKbsgz4QfNq+2IP/v0WdmD9/iKU9II6oPxozDz707Qy/NNy6voxrur08ASO+zyWRvtQ2hb9GUjXAGF8bP4U0xL/vxlc/mSfIvvyjKL/sGag/UsGbv14A17yLo62+6Tcfv4euXD8fQfo/VfuGv0DkGb+ACvE+F6wmvCgsAr+ZIJi+luwMwByGnT9mk0+96GkZPvgB9j/DwxpAEnuyP+OU1r8AuUU/uLDTPov9q7/ywBa/DKm5v7AGgL6TOWk/w/I5PtRA/r4gCLQ+537nPrbie70wiok/y+cXv99xwL+Uc/s+ddDsPxWgcL9d0Ai+vN0PP0uHQD/3isM/60xdvjk3ScCkCqE+UGrAP80cKD/ZM6K/rfyqvl+WAkBfnxXAxczsvvJ0jr4kj/6+WyL/vr3s0b9pOZs/+l3Cv6zvs74Gtle/FZOUvaYCxr5YrX8+lwp+vr7Iuz1NwUs/tNt9v2tBub8L6T6/3wmVP6/yl7/kwcm9KRbpPySFOT93w0Y/gH4yv5gwub1gemq/ikA2v7kQdr49F8i/++IPvsixZb8k53y9DdiPP5I5Tz9csjA+6Z0FP63FAb96M3o9hQxePrFnsT3aROy/CBj4v+3iVD7J/4y/B0+9PhgCLL9XhLo+nxMZP+DOZz9+xvo+/ofVvhM5Rr8K9nS/Iq0BPi+Rfz9csoI/39J8PkVo9z6Fo6y/ApNev7UkhD/+oLU+aljZvpDtjL/fRdo+PYrNPi4seD/EU1G/fH0Yv5xzgL9OokQ+KQU3v3RA4L6dSms/bI+RPlrIWT8dbA+/DsGHvn04Gr+HsW4//Bf1Pu4XCz+f2c++N0J9v6jQ0j6CAnm/YIBTPzBB1D7R+ya/+f4kvt+Rtz7f9Ho/',
             'k': '7R7pP7281j5dmDs/vP2Pv2WDGz8v3gm/CFG9vQSxij6Tzow+usnGP52x/T8o+X6+QIzaPxtrw75aNJA+RAETP1BG7T+g206/HaxlvyCtkL+XEJQ/es/evnUNgL5l/HE+AQqyP1zS7L5aqSE/sBbjvQ4nzb+t4ea9/UGAvwswzr4uEHk/lIAKPssHFj/C+grAombHPpBWCUC8SPs/kxuKP5yLUcDOKRc/rWodv8xakb5Xq3K/WQ45P9knub29Xbi/6thwPx/DB76dgKQ9Vcm3vrgD4T6/WMA9aOl0vsffuz2ENZS/Av7aPz3Wlz7FALO+sNGIv8dbFr6qPZw/MJE+vxXIDD+Ln8m/pBM8P+ppdL8fP2g/atpGQODsPz+yaDa+lGiIP/0jFz+PgzE+h68UP3BTMz+Wtp8+KKRYv3F2zb6uL/w+QawNPofFT77Jsgk/ehOAv4WsdT6+fxI/haGzv05WlD8HGxG/V69fP1v6d77SgFA+rl1IPvTlrj7wKSy//SwxPSNneb6OjyBAzcIJPp2lqr/4cDw/UcXzvIaQcj9/PM8+DmUjv8Jvij/zXOs+pbLuPjfi3b93eQFAAjWEvzsP+L78arY+LrySv3UgQz+6ySTAggkZvotKZb+nYV4/+d3Cv8Sy8b5pNSo/JnpAP5wTir4B9r2/M1muvtMmK7/K34e/RbEJQCoDcr9gxoU/gCAdP0rBLr/Ri1M/6WlvPiHYgr6+eu2+WcTtvku2+z4McRfANDcUPxb28D+PJGa+T3Olvx1F4r25/aY/RcNXP8Zh1DsGJ46/u4NyvqoElr8szjg/ovIOP6xSpr4DxpG/a5XuvLqjqz+GhYs/ASPvvjQvcD94Dpe/8jiBPtR8Pr7TftY/2Wg4PzhlvD5krdW9CqkoPvMbsb7fv2O/r2joPgavkj6NEuG+dP40v4vstby5fzy/QJT0v4b2Dj+YaYk/a57ivh52JD9rwKK/RwmTv23TDL9uV24/IlzBPrxvZD8fl78+2c6EP51cgT9q7a6/MEXPP/5+KD7gsng/Ojd5Pn92YD9JzoS+mZOKvQHGgj+SD0o/T/3LPqDk1TtdrhE/DOB8PyXpgT8cJDY/7HR4P0dNkL+gacY+AySyP9jhRb9U/bI/kLutvznJUD6RHoU/r5xsvmY7tD6gJ42/Dd6hPxu49j+1or4/9bAsP9EvR79Wk0Q+yWsVPhie/TvyktU+kfyjPhQwqj7rFm0/NNMwv8Wf3L+2Q42/ZBjFPo8AQ79dcoU+jSKzvv+L7L6AEzS/vbk2Pui/jL6Btyu9FtadP2Qydb+ExBA/bz8LPylXYD5iuJ28UBGRP+A7OT8ZnXy/MW8pP+4goj59b3M/LtSxPyDxZj9sdXa/MSMqP/Wrl7/DfT69jxOovZ4vxT9cFOU+kMU7P0gmGz6LIwjA8AwEwOWaBEDt64C+1yh1vsHBkz9UYxs+oDYqvuN2tz6Cvm+/0pqtPwoWjD/BorO/DovUPlewp76q7W4/myTyv7xJ3z6H46q+ktI/vnqlq7+tReQ9YEnuv+dNEL9RQ3a+E+Z3PkxQC7/Hmm0/hfqLPy9HEz8YLag/c26ov7X07D+awYK/MwXnvzNker9T1eg/3lACwNxjoT5TZoC/dQBgP+StX7+CDOQ9d1MFQLJmgj9fQMi/Msb0P6ifs781zlY/RMUHP+a2Fr+BEM++47umP/0oAMBWjUc+S3VjP5JIub9xXw4/v88Ov0/oYL8SDrE/aflpv3BEFL9o0u6+aYMRvxNUzb7Efau/pug3vub1B8CCqOm+iZAPvx7WHT2A/5M+QMqUP/Wx4T++OZo/yGeFvyvmp75GJus+bW6EPoIkZr/cmBdAm13Gvrrspj+o+0u+i3VJP9i4mD6OMjA/ZUxlvnfDAT9jy7I+04qxv5BTlb5g17o/m6gNv80E6T8p3gG+5zpSvcf5ZD642rE+qOnDv/yEFj9kG7C/fgkvP31PeL+Ms1o/vu7uPQlbeD/XnWG/74S/vu21Fb93CJA+oZFFv6m83b4xMB6/n9SdPo3Nzrxdwpo/hqcSwKPvjb99yRk/IIaqP3wTC7/YbNs9kXzhPnAjg797udc9tmDmvhueLr+FdnU/vvdEP1u4Xj8TLA5AR3W9v/I55DoKS0i/pkAgvqeyuL+aLM0+7QiIPm2yED/BEAvAlNYKvoH3gT/daem9CbF7PRlT4D7mqfm+gR9avi96Iz5aH6q/IPmKP/wpPD9bXJK9leInvWCmB0B38L6/NmUYwMKXxz7dvai/7WTOPlJaf79VkjE/ltS4vt9vUT2ZD4I+367kPqNkrj9QiGo/opOhPtwmuT9O6gI/YZMCv/0tvr4+Zms/9icHv+96KT6R2iK/fm+dv5Sfzz5HIY2/3M9MPycVnj9K5hI/Jl8Hv98SYL/TJeK+F8SyPliaSb9S/Ls+cPUtPuknu74sg1s/aCfGP7KajL9bSXE/l9ViPyEnvT/aAhi/hX4Wv6xYgb6DPA+/xPaAP+tHi7+zd1++B24vv0ORBj9KG+Q85ZZ4v5dKaT+5nLy/Ed2ev88ODT4YHPI+Zhbzvu6DTr/KawQ/NcIGPSJsyb9jj8i+oBmmP3IrWj/yuek+9BULwAF+2D1h78A/PnnGPm+M+r4QTvq/OGgVvkHZV79iHuy/f8akvuzAp77xs9c/Jc29P8u5iL6xQOy/fLLPvxsdmD+rpNo/FgGePwAKY79YFCs/t5rfv5CIHL4yFF+/1kFVPx2qCT9LJuy9uDUdP9faMcCM9Gu/RXF5PxRSsz+eBwnAkHWGv1M3Xz9VmIU+WS0IvqLOcD7OrZM/bxuEPwHtF8DHBqM/gG9XvzDEiL6j90C/i8CXvfvUzL59y7o+hmrpvqvM6790r9G+RVPPvysqn73XMfe+YpgWv1RfV7/hXh+/BSjKv1HAnD75VWu/uaCNPaA8k79Y6vc+dZrYP3jwqz6/t20/34o/vyovuLtZO0g+A9Bgv9cVhD6/D9c+K2eqv4i19r2QoJC+LKaRvt3veT9cimu9BcF6P9C66b5IBiI/Fq28P5POzz++qAy/4/7Lv6zzij+RmYi/BFS9PpLMs73Rjwa/yP68v5MVVL4wjK+/3eiUPn6Rib7iBAW/1EoNPyWaHj+gnFG/KGfePPrfCr9/jvI+V5kqP6D6oL93C6S/GDyKPyilpj6PV4u+kyGDvxgzqj8N+Is+L84lv4MHpT2eelY/3UIWwJv1YL/ufbW+6Gw0vxKAnL+bHCE/8XmLvysAAsAb+x6/zg+pP7i4ez4wuTc/Ww1PP3nnjL9WTtS+Gm7Sv0meCD+Ay44/fNxpPqeBjL+41yA/wB/MvjKZk78/9fs/LdpQP9pmrL4WMjS/hKb/vvlNgL9IdSI/0bPNPnYC/T7omyu/ZC4Dv3WoLT+Mqxy/CE6yPneQCb8Re+k/KvQevkeRvz4WH4c+4qqCP4cUjj89tbM7woOGPwxC/7+ih/I+WpAKwIs6QD8v4dK/uwUiwC004b+pCRa/cuOyPbr5278op76+DKgsvr6xoj/Ujd++89uoP+nMib6/7RW9ISyQP+wTZz6Cn7U+kFnZv+L4HsBI9NA+',
             'v': 'tjvcP9nFnT9LckG/6MujP29Hub/QY8k/3pG3v9poMz/DJpE/yrCOv/fneT8CVHe+lgNGQOgdfj/2FF6+SXYHvy2kkL5xlEu/ZCMBPwh5Oz5lHqq/BnoNQC4KSD6ZDyM+hgjjv9yONT4zvY+/rSkDwBwVuz56si2/AhBAvwl0gz8D5Ek/mjIbP2hl6T8+O9u7J5OyvTAZTj87PhK9UE8CQOY0lT+W+wY+Z9Hxvw337r71Hqq+zGftPr3SQb+NbOq9LmPMP1N46z9UEr8/4zSPPfze/r76HOE/v951PTZ6Cb9pWTO/4bl3P0sx+L/e2xS/f6G7PqeliL9g9Hi/5YAnPy9kmD3C/sg/QVcCPzDFjr8xQQi/Im+2v0MRsL4Xl5U/knm7v64Glr96axc/Z3rEv686Oz8ksKa+NFI4v1o4lz9cEwC/PljUPiEI1T4tCwtAdHB5P50b7T02Uaa/XT19P1VWEb9rZ+0/sOtXv89O9r+/nr8+LwW7vi7zTD87Dqo/req/P7KDWT508nS/pZzHvpk00L5G5CY/D5gXP8+Axb9oR96+HRO9PAan3b4fzQE/licbvm0UoL1nNlk+bVt/vwxisD/FpoS/MEPbv/kO/b7ghrY/oJILwInfQT+8pVs7JKmEvyKsir89XN68RGWGP06fEkCRsABATw+YPuSxuL5dulY9u1u5v/jxmj8jGJ2/bmLpv37BvL71qJW/bJYmvzdVe78W/rM/3ZMzv7aMSz8OH8i/xYFqvzKREUC977O/7ylnPungrj7GCL4/jwjAPmSElj6idJk+8yvgv/8bzr6XKuI/onIYP3BfMD9pkcA8+KoFvmjZR7+Hssa9iG7/Pprrrz9DdXe+KUFPPgK7mb1AHJ0/kOEHvn7vFsBrAwM/zYnSPoYvfL8UjII+DYDmv9NZAcAoB84/67Nivx1nlLxWpYU/7rzXv8obQj9QM5M/bS6Cv8Zsij01HpC+Mr0wQPhsaL/acRu+fun/vz4cNj8gAoU/mf1zP/HYbT8be0q+wQtMujVSIj7RaZe9eieYvweBEEBNtGa/6ZIQP+c/yj+eBd4/MaZHPusear+XD2m/PK2nv9pACr643uM/LvSbP1FohL88PI+/721XPVgY+D5nh7G/OZbVPuTBEL78NFs/pS4jvicNIr9Y75u/uEMiP2dfBL/ioyu/acCiP/Hk8j4oLL2/dQ2oPjQ5G0C3yaS8WuKuv9IYnz+xTnE/nfbHv2+Pxr1a3yu//gO5PiiDED+G5mQ/wURZuzBROT8wcw4/rEeOP0YVjD+4x5i/uBQZPR0X0r7z1iq/KqknPo+sqD4H7aU+OjMTP5C90L+7EJ6/+L6YvZ7Agb64tnW/nnykv8CC8r4s7IY/WQccPz84GL/6ClY9o3ITvz5Nbz+iHn+/xVf0vsTmC74FbUi/3LwiP7vAoT4wg6M/ZA96P4/Dej/WH5c/5sEgvuFAwj/Vu7a7bHEeP5RcVr+OUg+/AO0ZP5zBBsDYO6k/TeCbP298tL8Yc3O+Xf7MvhKLU0C0EZ29+OQePpeDbL8NqbS/AYqmv9cK2z4rsuG/koxNP0o3XL96FdM+m6IIwPoSMD+M6QZAdVAKP557ur/FQEG9r5+Ivtbo8b6IZbO/o0RoP+i2AL/Vxgq/FK2MPzCxxz9NN0w/+dRjPwRFUz0Yxfe+uhuAvel5AD+XPe4+aHcgvhV1GL/HY2a/IOSRv1gTVL+rAQrAtVCAv/Aq5L6rTK++1WuFv08dk7+Uu1O+XPSVv5oDAj9Wv+e/ulsdPmVdJD8VbPu+7AbtPepy/T8Iz/69MsWNPxVYAj80dEI/6ptvvnXqJz9RS8A/PngePxH/sT0HuUs/lphjv2p75D9/OKo+/OaQv6tJoz+G7oQ/gTNbP3d/cL37FtS/VhnGvzNd9b6v3UK+0AyYvtljmT5tPz89DE9fwL84Q7/u1Lk9+vVGP4YW4r6SWwG/CWQxvzB7Dr7OThO/Nb0Hv/dzkD2MuS4/gTTiPrbF/b9sMgI++97uviRUkz8hIlw/Ql0iv2S+S750rNY/wDWdP8zMlb96K808G+WovwiIFb8MNNk+6UHUvtE5lL95zxfAC0JkP3FUNL8tUNC+0cWLv4mFoD6qSQo+aqfGv2wnsz6MVDa/8sZfvqwsID9eFxM/PoCpv46J7T+ug2e/e59ePqXmbz7JiLE/wMVnvzF+qr/tGC09eehBv5Jp4j46b7u/Nq9HP70z7z8kCK6/K1iNPAQ8zL3ZLgHAwsRvPxJ3ij7MiLu+l5gOP+ibOD9dRhk/0FS8vh3TH7/nmk8/s7HJvYpUd79mqMo/2rvgv1XpKb+CuKK+qC7nv5bfZj4KvA0/vQwAPm84C79sLXS+cOcjvqa1Z75CC6W/hLzkvsfWYz+WJwG/SZ9oP0Dy1j90vGa/rEvBv178fD4wyQm97eWTv2m71z/rIzC+SqouwJ6adjuGl9C+D39mvz/3TD/Y7oK+yNt1vlo6Ur/KiuY/gv3UPrzHqL+TBXi7UzVAPpK+XD77ScS/lTOFPqz2K7+ie+K+PvbNv59eNr+sA7S+7l1JPqtnJD+pOkc/cYlcP3waCb+VONs/4cPyvSyMHMAhziS+F9K6vx6WI7/3DOo/PpQ1P+Ya+r4sJgG+w9ZQPhfn7T1ljqw/sa/kvlKytD5yQCZAGXDKv18rVb2WPLY9uMn7P3aZQL8rurc/8LMYv7vj4z6+mt4+ncEaP/qzkr7JGRQ/lT2JPmyGg78986c9QhrlPGb7R76UTcu/9cP1PspjRz8hxUK/266tPTeEbD8ZEvE+LeqHv+ZY1r4wPqS/NzhJv7k4fb7pVKY+9JkUvt1jjT5+LHs+kjl0P74SeD9DPF4/eZXnvaDrzb6oIgPA17uIPos4gz8kiQM/PuGWP09MIrvIA7s+A1cfP+mQHr8r+lY+FQnOP6kMNb8j9bs+TWjrPrsld79v3UQ/YygrP/s8qr/a7Fc/NnbLPqjhOj+jVa89KC+Xv/rUyr1PmZy9JhwCvXxuhz8Jv8m+cm8lv8QwG7/LUwo+joHtPmjQrz5Urhw/ui2aPzhhtL6xNXI/s5wOPquHQ7+Ju0u+PDVBP9dFjr9MpbG+IfWmPw0EaL6vDJU+ktUOPoJheT4SGoI9nAnTPpo1pr44JaU/MPaZv/KEHL+BBWW/FNkYv2YQcT6fUqI/splFP/YiRj/b5jm/Dlj7v8XZgz6GljM/ATYiu6xxOz0vi3G+MQKvvygtdj+FT5I/vtcbvyHgmj+isSy/8k/VvUxmZL+KifY/xXEgP4t7wj8JWj4+UJXkvkHTHj9BQ3S/hQoNP7PjnD6cYpg/8iGIvkS28b4aoAtAQURcvwZsFr+hS7o+2hy+viqzsj6vgNU+PE0JwLXYJL2qeII/x/EcP6cqHr+PvtI+fyYLwCE1u75vE7C/yDcjP30g5z53aIc/BPbfvtNZBUDXxHO/nixHPx+9br+2VGW+tFDVPgmERz5eILg/siGUPw6gEr5uMQs/RoE6P3/dJ8A0OrG84R3kvsXTjD8XEnq+qxJuv78pcr6y1gU+DTbcP3dt4j+3tfO+bquKPhV20D4eB8I/',
             'do': 'e4Rxv2ntoj5Vt3I/SDvzvgBr775iln0/6P6dv2oVTb9REYW/a6wcv5OGqj9akqI+aNYBP/FVhj4oMCw/09VwP11+8D+xzru/B1pIv5KgmD+iSeY/u9mbv9Na2r6SsXQ+yOzBPyjuTr4xoHu+f82GP5GYjz/h9ag/Jq1lP+Bt0D9KuOk/aUOoPst5QT9ms9K/CE0cvu4kp794d1A+3jQwv0Gm7z7lM4C/v968P02v878NpqS/etOAPiZHjL/yz+++lVFgviJDxD3tlzC/eUTtv1qtrr8ThKK+jzGfvkTuCj8H47k/6isGv5+k477eQVw/QTYsPnWImj85OT4/SLduP5tA678bHky/Zk3lv8roBz+PnEpAAWLRPAJXJL//bTO/rwaJvu0iGL6zgFm/iyEVv1MgBD8a33a/JpR3P1UTWL74ekfAd4AwP59PeD7Px4w/vdMKv0/OET86H+G+0pINQFxrHj5exR0/jQUzvz29e71AEZK/eAu3P1VUDL/2XS+9/vwSwKeYlz/6eIq+kiY+PhsjgT8vCX6/qp/uPmeshL6EcZG+bLvOvlI0dT8Ep/08TXBMv6Oon78nvju/l4BPPhibtz5KvVq+D8AOv7LuUz+R+Vy/1x/jPqfAhr9nb6c+nclAPsamVb9PoUU/qazNvllRZ7+ye/A+mjj2PjZox75hDje/k9t7P/JSMT7OJfe9B0HDu4XVRj/pmkY/eaiWP4OyBT9r42y/zd4qvn/PCD8tiYQ+TtcjvJuaDz0Aqag/zxnNvnXjDD9QMi0/vZe6vf+Rjj8IZnc8Rdu2P8mf0L/EvS2/ZCk2v1EInj9G44E+J/YDv25xPr/ABKk+h84IPztaGj8m9oo/Z9OGP5KtN79RSa++Jea1v80GuT9xRTO/vrvTPU0I2T45xyc/JVPTP5QpIT+tUW6+zlpfP5lLYr64E2a/NDJuv1fJ7L6fwG++y0b6PjAAyL5XYm+/4tO0PrQUOb+2yhW/yJ6dv463lb8XyEi/z0oqwBsVOcAf5+W9f68RP0E01D6ecIO/03RRPETdaT/HCcW/nsHsPgUOAj5FMAA/uGmtvpYE7z9Kkr8/WmIoP+TCGT7j2TO+32LQvteaSj9KK86+18/KPpHOer/ZCQ3AnvygP+LHhj8rj0G/U3l7v0fAez9KyVW6NO0Sv5ALGb8OuBzAiTLCP+pt9b+8rtE/i6gAv0j6ML/1W7K/xS5DP6Gcwj8UXPY9gLHVvzO9or+q0Yg+i1DfvdPi+73KpFo/vK8pwFrsTL8Ysy2/0TnHvojPsj8mGJy+P37gv9+nd7/jLpo95B7WPrM3HT8z4j4/+Myvvyno/L9jQ7u/ngnnvts0KT4TyEm/OXIqv2YIAEAxMga/62zNP92g3b2UeKg/kc8IQH780z49mWw+HXvVvkDakb/Vx4G/L2URP3/dhT5eFRG+Om2/v/x1jb+YhUo/A1r2Pxm/kT/uYEA/NMzgP4z+0b/4gHm/stKZvxvKTz9St/w+HXSiPjodwD02952+L1UhP6ssk7+oG+w+jwh6v4XXsT9z7oq/LmFOv+fy7D7JXpy+RGYrv8GoFb9IWyy+DO+Mv+5rGEDpI68+O0soP6Xh7D9K9IG/qhO7PtLnkT/8LtG/NogrP2fHob08Rls+80NeP/X2VL+jj5Q+H3fxv53zXL+xKD4/Ph2/P9xmyT5QC92/Ugt2v+nyqj9Kk+a9Yb2IvkBm3z7PiAA/OTaVP4bj1L+m23I/F8X+PlEKqL6Fo7k/4UKKv3oiHz94EZs/450uPwOr6L6+iOC+VkANPzsh2b46KqO9h79jvTthPr3r7eA/4QmuPyV1hz8cN+m+SNKTvNF43D5InZ2+uEIXv12mBj8c75s+BzCkv+7Tf7+als4+cyurv28y879SkuC/s6FcPjuUPD9pJms+STfiv3vAz74+WQq/A6kNvi89iD9x866/pHBJQIWDCr+ATDDAnGRWvzf3Qb9up8M/eigTPumi3z9OaBm/F4YMv6jqhD/FiNA+RqyMvzI5U793Eae/Dy+SvLP+e78XoPW+ekKNPq9H879xL7u/n9n1voDrJsDTcxs/RGK2vk6Y2r3ix3G+FdGnvfx6CD/wcp+/q7c1v0cBxj1T866+8nBkv/DZbL/vUWm+ey7Iv6Q3nr+hklu/5MrKvrOyTb7PptG/RxeyviHDv7+Jtra9xY2XPstwyT91wBbAyLk1vXr2jr7dRLC+EF+RPvc9AD9zc4Y9OuOWvzbgPz90bI69n8WHPE7gz761Lx/AVCtZv6+zkL+CYCK+EPGHPr6sXb8HX02/A9zRvh3Lqr8CVFg8rtiLP/2owT7GocI+5x+MvzC84T62bso9Gt47vhcbaT94G6++sGuHv8vzkD4yrne/1lmJvtp2uL7lw40/PSuSvmPdCL+5kcG+8EqlP4XzaL9zdqm/pzfgP+sd9b/Jr8k/Gks+vyG5xb+O+Uc/SugKP/HMEz+sxBm/MquyPleJWD7oSjk/UcjRvjebnj+OIQTAYhX1v7r/Qj+SVg4/dIemPt7ilz4hnjy/ZNpqP3J79D/2U6Q/gwC4PnGezj2PxJK8i5a5PtrCJL+VRqc7EQPJvQGwVb2IGL8+BTGCPk5VYj+r510/a3xjP7Drz76B/RM+eA8hQMegeL6mRFu+A9Y0PedXvr0S0k6+KYFSP0BsnL8NWk4/3YD/v26Wmr5GSXQ+uKWKwO0foD8KU6W+3qM1PbBPmD/JKAc/82omv+AVC72gbXu/kYOnvdsdfr++oCq/nu/xPj7DOT+EcT6/KXstPn8TjL54O5o+GUkSPJm4hj9k3yU/EUoTP32ImT5fxGa/w+hev/zAir+630w+1ZjsvhjoE76PdKW/11oDv5bRcD93NZc+ufekvsmynz980tc9Ai0SP6DowL4xfsu/Lg60P4RqjT79CUi/+1wFQHo5Ej+KKaY/w0LbP5mfFr9vt6y/1iZDvz53Wz16yd2+N4XTvabDzb/OQjG+jmsKv8tGJz8qgH8/oSGVPbHTN0DNsyI+/zIxP9gsQr9t178/T0IGv5TUJr24Zv89JjP9vkAU5j3VO4S/zG8nvxXLRr53e/o+GHmYvtUXdL91Dpo/jJ4qwPZP9L/nKI2/nC2EvuPgV78ToADAsdvbP32yvz6zvCO/3bx/PzUhn7/esnS/umrqPsJuYT7ZW9M+YUm+vT0a0r80vmA/Rlidv7zerD303CU8xuBlP8Tuwb3bqFc+KOKZvs+LOj8Ziso/0se4vvFWJD9MwG0/9bXtv3XZCT8Otzw+aiSgP6spTD0knkk+knWLP+AmOz+M2/S+lpW4votAY787EdU+daVHv1wndb+hgrW/muGev0Ibqb/Umqq/QqJ1vq4mbL8q0KW/FZYbQPqiCMDMFQ++bx57v28JjT0GNx88dcZ0v55owT8Jq8U+MEs9PsTcsT/PS3y+kfpBvl7SA8BC7Lc9yIwMvylkqT858Dw/YiqtvTK4z7/EXXO+yGWtvlW3Zr+D4549qoplv/kIaz9+P0Y9YJ+Vv8DqSr+UrWY+CLb2PeA68L/f3yI/CYRivzLs3r/k6eI+px6cvvHatD9nWJc/'},
  'bounds': {'dq': 0.13459342761680565,
             'dk': 0.15802450484730754,
             'dv': 0.18057373368241733,
             'o': 0.10087231967469458,
             'stats': 0.028834316707904345}}]
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
