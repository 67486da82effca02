#!/usr/bin/env python3
"""Standalone reproduction of 'reg-non-positive-scale-zero'
on engine 'torch-flash-op', written by `sdpa-bwd repro`.

Needs PyTorch only.
Builds the case's tensors (dims, strides, storage offsets, dtype, values) as the harness did;
runs the case alone; calls the engine's backward, compares dQ, dK, dV (and O and the stats, where the engine's
call makes its own) with the float64 reference below and prints the max error of each against the bound used.
Exit status: 0 the case passes, 1 it fails, 2 the engine declines it.
Run: python flash-op-scale-zero.py [--device cpu|cuda] [--repeat N]
"""

import argparse
import base64
import math
import sys

import torch

ENGINE = 'torch-flash-op'
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



OP = 'flash'   # which of PyTorch's attention operators: _scaled_dot_product_{OP}_attention[_backward]


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
CASES = [{'id': 'reg-non-positive-scale-zero',
  'case': {'id': 'reg-non-positive-scale-zero',
           'S_q': 24,
           'scale': 0.0,
           'seed': 117,
           'purpose': 'regression',
           'covers': ['regression:non-positive-scale'],
           'level': 'quick'},
  'dtype': 'bfloat16',
  'seed': 117,
  'scale': 0.0,
  'left_bound': None,
  'right_bound': None,
  'alignment': 'top_left',
  'deterministic': False,
  'tensors': {'q': {'dims': [1, 2, 24, 32],
                    'strides': [1536, 768, 32, 1],
                    'offset': 0,
                    'dtype': 'bfloat16',
                    'buffer': 'q'},
              'k': {'dims': [1, 2, 24, 32],
                    'strides': [1536, 768, 32, 1],
                    'offset': 0,
                    'dtype': 'bfloat16',
                    'buffer': 'k'},
              'v': {'dims': [1, 2, 24, 32],
                    'strides': [1536, 768, 32, 1],
                    'offset': 0,
                    'dtype': 'bfloat16',
                    'buffer': 'v'},
              'o': {'dims': [1, 2, 24, 32],
                    'strides': [1536, 768, 32, 1],
                    'offset': 0,
                    'dtype': 'bfloat16',
                    'buffer': 'o'},
              'do': {'dims': [1, 2, 24, 32],
                     'strides': [1536, 768, 32, 1],
                     'offset': 0,
                     'dtype': 'bfloat16',
                     'buffer': 'do'},
              'stats': {'dims': [1, 2, 24],
                        'strides': [48, 24, 1],
                        'offset': 0,
                        'dtype': 'float32',
                        'buffer': 'stats'},
              'dq': {'dims': [1, 2, 24, 32],
                     'strides': [1536, 768, 32, 1],
                     'offset': 0,
                     'dtype': 'bfloat16',
                     'buffer': 'dq'},
              'dk': {'dims': [1, 2, 24, 32],
                     'strides': [1536, 768, 32, 1],
                     'offset': 0,
                     'dtype': 'bfloat16',
                     'buffer': 'dk'},
              'dv': {'dims': [1, 2, 24, 32],
                     'strides': [1536, 768, 32, 1],
                     'offset': 0,
                     'dtype': 'bfloat16',
                     'buffer': 'dv'}},
  'inputs': {'q': 'EVwovqR0E79aDLO/w/wwvkdwvr7EEcG/Oom1v246Tj6w8qK/slwiP0AaKz4MUVk+e6G5voaORL+QCA0+IciDPwMAgr+pIUq/T7d3Pmiet7/eP0C+6ibOvjjJbT+4RZM/IF0FP/eURT83xpk9s1OGv1yNGrwGSFW+ZMDoPj7vQz7JjrM/9HRpP9S5IT1PVce+a+Hdvnk37L/ao4g/EPHnvzos6D3VzE6/Ry45v6KUpj/OD5i+EslNv7Qm+L0Nv38/nZXsv0Fi2r9Udtk9gDuSP74ASLxjOaw+Sr1IvgKBj74aURQ/zyTtvqMHgrw7ALm+GLCevwhe+T5RBFI/VjjJv4vPmz/Ar+4/vEvJvoYoFD9CYo6/j9lUvfObdr26Xxm/d8GfPiCsRD0C7xE/F3JgPXTtBsBLZG4/9CnFP1O/3b8x6L4+8Tq4Pzlf/j6xPbo+x73Yv+2NQj9Cfge/W1qQvzo2rD5B1BA/HhfBPpmC3b+VuyPAjI1pPt+4fr81Hey/iXcJwN6gwL9ZalK/6ZcrPrkeXD9MhU2/fauKviy6Uj71NgO/EZlyP1P1kT/01AQ+wZedPUnCnj++d4A+/c8EwLrg7r+PdOi/pmUYvgiFgL33fI4/BzrVP8Mzsj6PpK8+hNSvP/c7575varg/fCiwv37Dlr/ZxwU/95d3PhCBtL8RljI/ABiBP0RKr751oyw/pqYMP0znrb9X5Uq/vXvuP+tq177VuGe/UIw/Puo8ND8y/84+5mkoPzCYWD7vETS/5t60PtJvuz+C62W+Vo3yPKpHkr8Ol2e/lfcEPfpgXD3w7aQ/XPGcv7kANL9ktQrAPRfKvsJbKL/mV+Q9saakPw1gtL+D6ag+MS0uvkQZPD+Te82+OQrGvixaHL9o2de/x+ESvt4NbL8WMoQ/YD12v7oYDb48XtG+4oiqvxwQxD0lM+M/sw0Xv8VFjD4zfTc/ehSDvuf4Ur/loUK/IbaqP8/Ui79dTrw/iRmHv1qdar8EIlA8suocvi5io78ozm4//IwUP5chAD1RTQtA3wwkQIQGrb+pC0G/67VYP8dpAb94Y7o+orfkvoBUhL8lP44/HREWPl98Eb+hYN+/H1UXv1UAPz6URnG9wluFvyTTCEAixJG+7L4aPwBLe7/7E+6+v58ZP5E3CkB3C4Y+96SYvzNKo763VIa/4dnMvTYIyL7sFn8/fzIePm3TOTwQoEa/rRhpPn6YKcD9Kok/OWmevdfwnb+Btqc/Z+2qvSUr/T5/Ceq+wmRMv2rQCb8skBi/rMW/P79fFr+Srxy+AeNqvstv7D7b95Y/aeAWwBvAxj8urJQ/XptEvi+x+r5YkLS+DRHvPpb9vj0qRr6+ayhIv0XZXb79S7m9MvJqPz+1oj/UUPo94qsKwEpA5D1ADRY+4gBvv8tUVb4lcz6/g+24vw2sVb/lqaG/toTiPwFCnz9im5K+JUSYPzFUOz/+zKG+//sPPxHJ+D5HR+G+VfCKvwrzM79TwAw/0ahOP+sPhT9P1s0/MTCsP3BBjL/taB8/7ESRPpVNrr7qylY/K+hhv4XVoz+NwHe/lDvfP1Rj/L+6RRG+rmClvpqGKD/nGJ2/k73HvukfjD5bUQG/wXPWvkPJsz1UE/Q/XX4Mvg4qwz9+yWo/1bzfP+Mtr75GZK6/rSUPvzSRA75MCse+W2z6Pcr+EUCRVj2+qzEiP5BnKT4vA3a+QnKsPwVzx78hr4W/Vm1ZP22cbL96lbm/ImpNPA9iS77OTSA/bKsQP8Ng8j5gegZARK8GP95OGr00YaW+uJE0v8hBj794M4I+iKivPhk47DzZuII/Re3/v4xvGT+la8S/5J4lv7B4OT9u8dY+pD4uP7e6P79yYSu/alxKPs56ej4IbZM+8422v+fr571zees+podyPiCkzb0Vi4A/QBagPy2UVj9XdvU/OMDeP/G4oL8Che4/QqhAPrPOij+QKhI/LUioPxkOlj5JdQQ/pHmtPe3Ucz9BHrQ/+HsbP4AE4T+C78M/0Urfv4pvgD/XjeC+1E24vhqutL5uHF0/mGXjvTycjj+jRYk+zF0nvlPibz+Htw+/fNrpvxbQbj8+h00+vMievxL3TT9hV+s+Ma4Bv6B2tb6r7ug/VRVDv4lYUb5Uh3G/MpqjP5cHF78XPTVATkgIPznsYD8i4Ja+A3uivRKmD8D3oOe+oG2VP3l2Vr8evq+/bMPRvq1I2797LpC/6uCbP8lrTz7f75++1z4FPwD2+L5rsgg/O3MOPpVdCcDGWCu/j0Chv8ACkj+Rs+e/WzKhv1za5T7T6E0+X6EOvy5gMD/dQu6/ytlZv0xGij6Vrp6/4FwRwM3RLz6lmy6/hsiYP5sKUL83hGm+kfKnPf8o0L5t7pU9KU5ZP1yVyb9gjKs/Zxufv4WlcT+oY5k/B0nOPmPTlz//l26/BuD8P8LwlD9LL5E+EbK5vhqp6r8Cf5g/HsWhv/S/Yr8g5ho8hBiNvxyMBL/spx++s2E4v08Qpb/8Saw/VvvrPhWoL0DKG0e/YqWMPO3whb+ZUcw/r/gVP5/GrD2NErO/os3JPhiU5j/xN9Q+w41wvT5JTD+NZx++p/a9vvWPKL9CfgtAaf2IP/+QF79JgNq+KtZovx/Xsb9hztQ/nFtgv+8aRL48frG+tiZmP+6iBT+GwNw/deUGwFFaSz9AtWY/tAEtviBOKr9uXYw+X6kRvhXSCUDuK/I9HqhvPgw/cr+hsic+WJCOPx4PAr+D9u++dBHyvy9N8j8tkWU/wzt7P0rbTL9Yu48/N7M4P7+yIr6G7SU/ZCUzPrc9gT9Cv469nzF5v1V1Hj/ORKA/TbqNvsxlUz/ZJtU/0KCPPhF4nD8MVJm/kcp3PQU60D/TNjU/8tA+PzTyCcA7YY0+EmoOQGj87r87yKU+FbxOvzC2N7/V0IE/nnvkvSZHh75SYLA/nom1v+ltQ7+lIBZAsY6Vv0Prxr+W/Cc8LCjqvnQFij50ipE/2bRqv0GqBj8v0hBAOlbGv9Iz2768uwPAlvJvv5ItxT4X7Pu+vPB3v0uidj+rkza+/sDPO7e1V7/tSNe/+1c3vyePNT4YiRXAcLKtv/iSk774bki/AuZAPX20BD8UiWu+eNPYvV/Qmr1hJYy/h9f2PQwz8L7oGzu/SdVXP4FteT/A6yTASBwYvyqJAUAPs4M/7XTFvybnYL6b4J6/LQPHv8zYPT8J6pW/VIFsP0zY+b90Jtq+TuKOv3H2eD6IdSW9ZbQcv6yCWb8/37a/jTmDPzjPqr1YKgvAHZ4PP+Feq75hSJG/JX4FwNalFr9dz7e7MsIlPwJDWD4Pwho+27CMvg03gL+1wAs+WUv/P7tpDsCk32M/YO5Bv7YWQj9UBxPAesSJv8lBbr5FbSA/fE4hvwYWAb8NBkI/BoYyv2uWDr7OzNq/wEzuvwtvNz7Zg8y/zw0lP7YOWr9dHQFA4hAOPsOWSb98tF0/WSfUvbhsKj/+rOu/e4sOwJHdBUCxo3c9dCPwvyA+Lb9vch+/QCGAP7n+tb93YzU99++svtQp1r8E3gO+fhVQvzoa2j8MeK+9ANdzPz/YmT857wi/m8jrP6Zs+74GFvU/uK2bvrB+Bj/Lrt8/s8qoP7V9OD8zOXs/STuHPud4ub77P28/CAAxP6coFb8PtpI+fTKTv1T7jT4tURC/4QH0PqiBEr88AJS/0UJtv+BTTr/xPMG+ITOPP0it2b8kRps/hOzRP63GWz+u6GQ/QQZIv4zjFL9l+Le+0NeSP4Jj4b46M2C+wMxPP64EH724Lli/Q+iePg0fu7/yGla/i2iLv51cXL28MvK/KsKSP2bmrz9Rra2+GpVTP+GjiL76mUE/QdqevZ4+5j9kNF+/NJG3vn7+gz9tBum+fcSrPstYLj5aV1s/hjjwvzUs1D96mbs/wtEawCeEyL/b7sA/ZmP9PpA/tT9hvWE/dih/vvj9DMB8Pza/ZH0tvyBFHb8ZUby+Vb7Hvp1oxj+YdvY+cfFTv6AyZr+Q+Vy/AD0iv5bPrD5zd++9oONKv5TITz7bdos9T7t7v1qwfD6dR5+/DMr2P+Yhoj97aAk/cCVBP2WETj4jWL6/Qnq/v9T+Hj/vzMu+l+MyP+irOL+OahU/dkDlv79kjz9Be7i/ux2EP4TMXj889Lw9qMnCP3Jx779K82E/VTLwvj4Jp7+p0ou/dKTDvjGDUb+B+Su+9QIZPxxb2T8Cnds9XNn7vicKyr6k3BS+vMWsvzc8yL5EhV2/tQcVPuz5iT7IwBO/TNpoPwdPsT8PPpg/P0p6vxXeKz8ru5U/89Pcvzldw7yKp5Q+99sYvlpb4j/Uh4M+nzRWv3tDZ7+tHDq/x8+yviFb877hu5C/yc1zPtBAvj7tTvc/ESLfPw1Dyz5aYQDA5jq8P+y1ZD9BO8y+HhfPPmGYrD7mSYK/2kDePpJpZ7/eH8Y/A7g+P3+LIb4qmsg9Vsiyv99/p793ADm95xWBvoTldT9Tc+G9nZURv8oyFL2UUaK+MqTYPqLIKT8yIYo/hZVNv0W9xL8CfAW/d7cnv3AtBT7A004/206sP17Byz04I5Y/5x45P3mYpD+sqqO+ov4AP5hbLj0bbCm/cOgCvw92Qb8myow/X4pHP+3Ls7+k6AbAT1+PPxurI77c74Y/+YStvsdQY7/0zja/+SahP8yDPr8i80u/hMKKP24+Eb7BzPY/GzaxvwIccz4wfsG+AOvGv8/Qrz/KQZa8Qa3IPNoyXz/CMSY/CoXVPueC0T9gfMm/6PPqP+bVlb4e1/S+cmz0v2KIAD44K9++HYgGPKuRjb/vVdQ+DykFQA/jJ76oqEO/Ctitv27eYT+u+pY/2cnjPSI/XL8JtNe98l5dPpMERj5MbkK/9IQaPjIqu75vTxo/teTqvr79Hz5tJve/OXQ7v2v02j5gmeY9DGsMPpq7m79tMxPA1UTeP7gI8L6J7NQ/z1WFv3RCUT/lP4o/nKiUP2i35D73jSM+1w8sv06cqL+voP+/5ykWvsHT+z9vnU+/uhJPv46JHr5Rvvg+g/8YwFZCAz/Bl78/D+4xP7ljeL+Wf92+Sf3rPl/+Nj/rYqO/nCdEPz9lgT/Wpkm/bn7FPw5S8D6DWwFAESXdPiFO0z1FWTM/juAKvvrLtj9QvO0+2neTP2RPQD6Ktjc/ZgwjwCRMb798Bha/P+h0PkjZAj+Ooh0/Y4O4v8dWkb0RBa6/4KYcQKq53L7BUbE+mlHtPh0rB7/TyNU/PXS1v2Ewdj+/lbC/dQg3v9APvz/+R4o+wvG6v2tmUr+lhGE9xBu2PtNpnj8dr46/At0KQM/6Sr8SbbY+y24DQJQMSr8Lz5q9aO4BQLK0cr8+FII+9wYEvsCDUD6gCwQ/e5UIPhiQqL6J55e+MYWnv0SkJD+PJMa/uzJfv9iA9T45Zp4/7eUcvw0ywD7g8ZI/Vgp1v0Chsr+Mrja+n97LvgDwiz+k2ic/3OExv+hskL5TNL+/dOGdv43Wrz8Tmaq/lPT8PiD7xr8TLsq/MdZgvor0DT8Iyy6/uECtv8xSCj+1o3i/6rd3v8e6+L6wRp89SpHnvkIPoD/DThG95AmgPUfYpL4xc0W/26UvPzZ7pL7I30K+izxQv+jVqT/7UJM+6cMcvyI8Wb9cuLS/qjX6P/ErST+o1i0/EFVbvx7qDj+iMIS+xKqGP2ong71QGgg+PJ9OP1LrRT7a8Rk+95WiPwPsk71FlIW/zedaP0De2r4E/pI/rsaHvpcgPb8IrH2/a6hBP7IHnz8NL5w9FA1YvlThVb6RE6G/yqlaPkuQ2T9vGZy+oD/9Px6k4L1ZDta+SdiMv2FsPD9K4zy/qQRAv7S1hL+kLlo+Bs/yPv1d971/tpw/fMk0P0EKBj+M9G0+NYCLPqFHgz9OwXC/4MJsPbRz9z5SKYu9qYLoPg8Ecj6RPrG+fYSov3cHOT9EPsi++z0xv6U6zD+JLSG/wrV5P43D/r/H4gJAlTIywGfQeL53hcQ/npTkvo9kVz+fdMs9sTJJPtMpOj8c9Ro/YqoqP38hjL8z+vc9ea0LP8r4nj3f4xC/3qx2PphlB79YUkE/jo9xv0/THr/esY4+J//BPvyvzL75O4o//aVnvyeFLMC2iyA9cb/HP5bfKD9zNhk/sLE3P28RjL+3JB6/cnOsv0iFJ8DUBDa/vX3PPsXTor89quM/2kDHPopxP78ce2o/Aqvuv8Kooj9a9vE/RhtbPcJ8Wj8wdzM/QjTzP+26Tz9mHSC/zKX5vp+cn78Jtm+/llkewEfphD/fLxm/OaAWwP5ZYj/OV98+Gv1vvryPUL8zohs+f6gJvwOtQj8bZ4E/2olJv1NPwTvTnVS/AMk5P1Eusz6TI9A/GUzpPmHkf796OQa8S9KtPxe/RT9phtg+SHP5vn3htT4fz88+XGPcvXr56z6eTcK/fXOnPrgT4D+EhUO/xQONP7y1a78sbWs/LSrLPzRJd78raSU/qb6/PcS6Vr/UZq2/pu0Lv8GCWT+AcRo/+4AEP6aYx703cHk/Xac2vjNzqryyjNo/ha0YPiyj0D6aq1c+/Eg2viqJEz9DaBrAy4tbvxmDhD9X8Q1AOgUMP/bF/LyS8oo/W1QKv1Kkp78ltYa/NKQsP54FFjyleLG/cKuxP/ekDj7n4T2/ycgSP6YJMz8vW5Q9FOUrv1x4z7+nGCW/8VK/PQBwib/Rado/GBucPkXzGr8P5u++mJMPP3Yhir+ixTi+zTuWP3kY078cwt86vJpDP6BHLr7MaeO/SQKrPg9DMz5BLww+yDhov/Hqdr4zW0s/3TdOv0dPG75lsYk/7EQZv8M0KT8SbWs+uJFWP0IIjj3eoLI/BEqIPyEQfL6W7UG/lJM4voNjPr4/weG+29+5v9GF4r4jx/k+OzuRvgf3M7+bfcY+CuFfuR1Z4b0TQoa+52uOv2368z0rDVm/dXV+v5oABj/GWjC/ub37v1fPI73fms8/GOnTv0BTRT0t/Yo/VgmWPVh+nb+Kf+Y/2cAAPzk3878kgok8m9+7vrPLU7+q+98+jijvvi5syz/L37q/jOImv9N9H74f/Cs/VIX0PoQNQ8BNvnW/AHISvwmu/r6/jSs/0vP0Pyzd2T5FRwhAbLlbPwoyuz+Si7M/iYlPP3IccL8ILrQ/G9xfP/2uQr5tPqo+Jk7CPqr34T4XiKS9zY0dPsPFmD9II92/zoSDv4rckj7B2wU/cPRSvK/q7b6Nnco+LGtqP7yavD8EfZO+QbdJv7b/PL9cR/2/v/Opv+g1sT8SBNA8lKtNv3Vb0L/SVrw/mRwRv2D9qr/XsKW/NDZovpm0B78rr/W+0r5uv+KGQL92TJw/Y7w9P4Prlj6VOxQ/tqsPvwGdrL43Szs9cld3v7yupzs3LVG+ZJ28vjX1AcA9zIa/M0UCP2yaVL8JT00/fVWeP2BvDj+pH0e/57IGPu4G7D5uNoo+YUQGvz+2XL91+As/DFrkv/64D79pzSy/V8mzv4mcAj4K/hQ+W78kPmaFELsrIsm+Kn1mvyDY8T9bMPm/yDxDPxf1Rj6eb1Q+/AQIv/61Zb98ZbA+uODMPn0N5b2fE/g/frx6P+5rMb9MVq0/fREbvr7RZ78CenY/qzdkPltEwT7+eF890htaPy9Hsb9aq1M/wkqFP4AfF7/qhgc/gUcWQFkvFz09lX2+PI8BQOzcy74H4/e+MmGmv5UXS7+ovwVA2rjFvQJxMT+MrX2+oj40P01Nxb8PJDA+MfzIvnTUPb87Pbs/jcuvPpFz17/M4LY+6avgvmJCK78jRrY/M5Y3vwmEnD0hu60+zH81PsmzLD+Tm8S/Y7aAviqiQUC6//e+ODXDPyv9qb0l8BU/pqS3PGKbcr+fvjU/DAujv3GZET7KDBq9x8lOv0TlKT9q+Ia/2vjePanhPL8BL9I/tWbYv0wGC0B53QS/AAQ+PyCeGT4sRM4/PY2BPhdAj77dvfg9UYEqvsvi5j+uneu9/L/hP7hDDb8NXOC/Ff2zv1nR5z+T+Sw/zn5uvyBrvT+je4i/UXwhP/Z0uj1yzC9ApFzEPsFPpr/tS4M/mImGPzAjwb+D6Le/5MBMP68/Oj/1q4A/Wu/Kv0+VdjzCK5c/02lbv9F1u77aNA6/8Sd8v0KlND+i7EA/4kPiv2Okl7+cvOm/tn7lPiJ8uz7i+H2/A+bMP+lUKz/x7xe/',
             'k': 'U4zXPo26Xb4FbdI/fhmoP9sfcz/ILJW+XrmHv/mxnD3L1O0/lYDHP5CgkT+TAX0+8RjfPqN0R78UWE4+6FmJv/MPUL+DQTi/iZwnPxJmYL9wKxLAlp//vuEWgb2c/jfAnfjXvqEe5D81k0g/YNjjPi9kM8Dd9Za/HkiEP25z0L9hDRU8BtRPv+xP7b52g5e/FEihv+qFTb0djUG/V3wOwJ5Llj+TqRK/EZCSPnY1x78VrrS9QD3bP4MRhj/ceYu/0PBsP/IktLu0Ej2/x82MP82QET+7znm+40ZnPyfGDMD/0yE/cdNUPgXS976j6oQ/pffFP8CCWb+aRJo/vvO8PR7/C77AHB++Vs/gP+rWIj4BVMG++tG/P3g1/T/hdLm9kCwmP7q1D8A3+ek/VJaSP2I1Cz9/qAM+Q4gVvtxcir7z4kQ/4I2JP8c0EjxMSA1A6mrEv/mQhz/9Hue+TYQyP4Fgnz8UrXI/a1EYvt1J9z4So6++srNyPRymF79pL18/nfnDP7LKkD5jGp4+/HOkPKj+vD6ebOK+T8B5PoUJDz+Ru2k+AZylv9q+Nz/OoSu/rNXmPp4oND+/tYU/JOVuP8uTyT5TtGg+5/0qP0olDr9ghIM/24QSPytgm7+53Iy/2aCHP5XAOUC/QwC/f7jyvtnj1j7mnp2/byuaP/Tui7/spMW/XSVqvjtRHj5Tlas+6bwyv4lxT7/JL50/BDA9PyzA4b7j14m+Ujdgv5tvdD9GNOw+clk/P1xvAD9r0Sw+qTLUPlNcdb29JD+/JIy2v9M+sT0l9ga/moLHvZST6z6i0eA9DRwdv9GXYD8raGu/t8nVP4SX3r5j4RtAcoUkP5YaJr9+EIA+F8vjvi2QxD+1V6c/LdsfPlW2JT41ans/lsG4vpC3aD+Uaoc+r8zNvzUVjj+bMuQ/+JUOQNxin79ItRm/ruSGPr1hNT79q1e8eC+eP7aVSz6kY4Q/VoAMvcGVKT/kYhS/rUp/P80fJL4YiGG/F4QEP6jRw7+hpqO/YWb9vtZXvD4oo6C/qcI0P051Zz6j1w6/MBKSP0BJIb7rVI4/EEVXvy01272OY0K/vFd+vz4lRL9svjg/P3oiQCnXi790huM+OzBNP0hKqL9D/3m/n8f/vz3Atj7lg5E/yFDnvilrgL85eco+I/XUPoPemb1yoHa/z96iv8m7bj7DbvA/ILKCP4YlK79N3NG/baeMv7WhhL5qFE4/wB4kv5t5wD3mYy5AutsQPppZMz5GKJu/mH1Zv7Fjob9Jv64/JF+zvtCjLL/2OQG/eCDcPkzjub875ou+lFyqPqo3E78Etus+jFSMvr4Wob/RvRs/3iV9Ph9Nx7w0KKK/wUwhP2jCLL+XscY/5heIPxfZ5T4nv5I+FwPhvkkpxT/pM2q/4lsDwM2VfL9LRJm/XrPlv4Uw4T6PqwS90PyxPXdqfL4+x5G+Jv4FvzGGWj9f3tg++ciOP1NHFT+MMXy+xaawvQVDGbt/E1q+I9Fhv42WhL8Kdss961Wlv774P7/XraE+oSG9v4Rpgb9pzeS+XyiRv35lqj918GG/kdCzPqBusL/haGy/GjuzPfk8lr93mVW+qs5yP81j6z8npUy9D9EDP5iY3D9ZY1s/d+jBvx9Aiz84v22/EhC7v30etT76Kr8/302RP8k8hT8FEgI/rQksve/Wpr6K9pe/c5KJPxbdEz9A+LC+2o7OPmG4DkAexYo95WnLP5foqb+hU80/f6L/vQmjyL/uqBE/8NEMv/5tlr/EmBi+zpkVQMvEmb6nyPm+gnJ9PgKHpj92BZy//dMqvqbLTr7GlRM/vdsYwKce4T8h1J2+pcB9vbbbij9NS2K/JkOYPr0L5T+A31U9TNTVPxQ9TD9KU16/lQ9AP0QqRz7hqm0+j57nvhMcZT4OCxS/fV0JvwriFz+U3Ng+oEIsParNC0C0upM+iXP1Pr0FyL7UiBc/qxFIv7KOX79+mkO+42gNvyPLLr5uVVw/K85Pv8ycWz8AVlg/RmjHv/K2wj6Pghi/9rusP7WpaT8r8O0+q0savvdddD8WZV4/fhmoP7MqRL+kGU+/iUHIPitETj9DzQu/t5iNPuzyqT8CZZo/OgNtPyswSr4bTo8/ZwJVvnxJaz6gEA8/GZ2fvlM8ML/GDTk/mPmsvfzA0z+AMUA+XJ75Pj32Ub5cWuG+Kl6fvzcBD7/6Kve+KWYFwCcNzD7JJkC9aXwZwJRg2j5yI0q/aBQ8vlbG4D4H+APAKTlRP6YmNj03aPg/QitPvyVsxb6+/QM/udNMPu92Dz/6Ray+R3dVPyQGjb8Qdzo/zUZMv3d1mz4kV6i/cWNyPyo2fT/qa4w/6+S9vwAZoL8KLmfAddPlPbCkdj09Iy0/9zj7vl5IZz5OD/i/myFkv0azlL70/Fo+o9RIv2UFIb/kLHa/dl72vo0RL78X6Y6/PCqlP9tvUz83sRQ/DFX2v+3Nub/dPSm+fBk/P81BfT4Lwgu+61M8voTYvj+VNNa9AqcZP7jRob41N8s+6HPUvYvkib9ppxc/oUJiP6YNHj9C5lw/EGWevx1dnz85SbC/kj3/vmB6FUCMQ+A/3jSZP/zstj/uW2E/ReMKQCbnlj7snO09X7hVP6hVMb/kRAjA1MApvkV4n79AOOu+VaW0vqZtJb+HVgU/R0l1P7KDBb8fr3E/H+AYPgG4oL2U28a9S3hbPiXBrL59KiQ/dTvav8/brz0S8sy/RXt6Pyr94L5nLVm+Ahruv6FNT7+AIny/2zc0P1SlyT+WUEk/38SfvgNJxD/F+R3ANps9Pukhg7+Aax8+r2Zhvyhq+D/YsSI+xZwbvqsTpj/TDn0+XhquPhMr5r1TBTm/9LWOPwBUgj+ifPo/1IHtv90Lhj5seMu+CHVUv19pRD2e14Y/VXuIvO/Npj6WKXw/jNoUP6nR7r61bJW9g8yJv8Ujaz97HtW/BEWNv1GxYD/uWjc/Yn+7vzzFZ72qx2o/83ePvx0Ckb+E2hi/7onYv0Nouj9rjbu//8FqPR9jYr8mMLS/vjxVPxIIRz+sayC/7so1P/YuQb5gwvu/mtyrvriXrj+rof4/iGO+PsQLzrzDt1s/PDrIvXcSLL6J7rM/UlxMP/2Ijz/h5Ms9eurfPcrlGT6wn70/1K4hv1wSez9ze6m9t1RmPlQ/tr76EjE/o2/FvsDLHb//zFw/AnD/P4phqr/YBOo+2UyIv3Ng0T6+aUM8wGoCwE/DIL92oLc/UgfSPRHjXb/eBQg/290YQPHAQT8YBBVAX/aevr+7IL/95hO/Hx3ovgBilL9eD3U/frK8vewnFL9ANLI+lM0Cv7uvi79JDpu+kVF/P/kBhT9e5uK/i9Gov1kAQDyPpvw+VZ+3Pd7ojT4K8Gk/3zIQP8cuwr1DbSw/J0PiPyjJsr4q4QI/ilz6v5+SVD1ZPdW+5mRpP85WYb1fsro/tx+UP0zimr90DZ6/KdOOPtJCcD7s61m+Y0/rPjT0gj6WgFk/F5QYv3gN7774uO891cTYP9pE5D6Lw9u+HzBUP4yn3T7mGIc/6fkRP90lFz0ZuVc/vY1/PvGHaj/VBv07l37jPmY/BD4K+eK8EYWUvlNf/j4J2Ba/Uvk0v0np1L5nqcm9ymo7P6/kMr+a8qQ+uY61Pv8qyj0DfIm+W31Sv+z6Dz8Efci+4mlQP6dVLb9QD/M8vB+SP5xXOz87Bji+8jygvo3fqD5ZIdS+ffa6v0UVjT6B7YI/ZIs5PqVwhT/j71Q/ItmCvf1xwD9HxJC/Hp4wv9ioir2X7ha+6yWHP99fWb9lVFC/74rIPhcP976X2N4/W4iBP60ev79GVoW+x/9Lveje4z5Kfj4/GmK/Pq7Nmz7iqYC+TslEvxSCRL4QGV292gfTPipatT+HeY6/uRGwv7bN8L4PitM+KU6ZPllPg78GpJk/BhQwv4NvhL0PWco+j0rZvrK5R7/fkEm/yLW8v+SFyz+Muou+GnCnvu3VJz9dRPQ8ji3GP1c3FEAbSco/CvaZv21pAr+nPx6/q0plv+fc4z70xa8/jvbyP9qxjr+Anz2/qnMSQDdPjL9vU+M/tZN1P5pi2j8RDtE/yiJbP3sR9783PRQ/PccKwBJM0r1UrqQ98rrkPyNNur/RJAA/UV+zvoBRkD+NRsk/+uOIP1s6Rj/SCH6+j1i1P6fjvz7Exyy/9wt2PYYgHj8hz8Y/nDmmP5ufm7+Qcb4/7XY/Pseenz920ju/C46DO67XTT9f/mO/VurXPxdWWr6m7Qs/H8HUvynWLT9CDCu/fCYBQLTeIr+vtoG94+/yv2aCcb8tUhlAn223vfGAnj6KRl4/k8+ZvRzMh73GUxdAZb2TPwaFjb9TXSk/T4f5vgcMk7/aTts+b0esv4CV0b5teUk+HaXCvoNijD7FFi8+a/6Ov+RKST4e4mA/Sh1Vv9cNHkDTiIO/UU8zPypgoz6a9RxA4m+ZP8P1qL8ciDw964HcPQsaZj+qHpQ/y1m2va+OzL2kY7e/q4Jhvq28Z79A7FE/FSWfvxs/4787Ulo+mlZ/vxDmfj8oKsi+vY1yP+0EH71TS1O/rzW4PZwAOb9pQJk/OuJ9v4CM0L2qnci+UBj/PvfRtL/IQcs9yEawP8asED+MOgjAL/3mvyZeHjx2HJ8/rbyPv2A6vL/bjQe/udVwPTh8d74Z9IO9Inl1P5c6s781Hgg/02ipv7KU074iHi9AFfoPvx4VsT4NEi+/53ZtvwaVrTxeu6G/+me7PUztKT8rsac/+IsWvw7R1T5AHCA/9yupvybSEz314/i9RS8HP1jVxr4/MR8/LYgbP3PeO77MH72/PRTEP+WW476uk3u/WOJBP6ppfL63Jp2/EKeEvh5QsT6LKL++dotLwKUnqT7jC0i/y6a1vvWlMj+JuwE+MQ1Iv8xzpb8XdbO/usE4vh+f7z8BCFs+qfkPwJHeEL8sjas/eriHvpf+Az/JF5+/ToTCPV5u0T/jkD0+9ZOBv4BLhD7dJDQ+cebQvkc3pT8hq0i/p8t2v2AYCMAxugO+VTCfPsHN6D7GQPS+UtmuP4i/2D7wjve+ce9FP3q5Ij8Jaau/zz+Pv3T69b8OIXk+avKRvzjSyz9UX/4+CQ7pvm/oiL88NUA/VLJxv90JYT8Ap6A/6ZCGP9/Vw70XP18+zj1qv0xJlL9sTQ06EsXDP7Tspj5IdGs+a1QQv9m0E78CTJS9iRyCv1dzk71BQo0/vEv1PaUgeT9841c/42HXvyTLe745wcW9f6iav/64Yr47vrW/sxOIPzXY+L96akY+HXZXPmehxL8+NyE/ugnNvbQ+1L4DKSU/L3Adv2hwR756FIM/6BKGPycPCj9xYPI9lbh2vxAlv7+uXIw+gROLv4kIAj/iyBa/J14DPmvBsb+G3zw+zCDpvovU0L3cbYa/izPDv5ESdL+CuKI/WBw8v3ZIGD9qSdk/BTNOv3v6QT9pIoa/47/NP4onwj9YB+c/k8DRP1V7BED4E1i+7BOavmfiyD4yBN49HSK0v6o7iD8OUOm+0HJZvqxUEEAj8du/48R+P0fZaj69APk9efl4P81iCUB3hYI/IsACv0SDhD/u9oI/cGOcvnjkmr5lUdQ9PYdWP9WbSb/z4Lw8/aaXPztOSr/2l5O/NBltP166Bb99nkG/uMYAP99+Jb81L+2/XeM+P8MPdD5aA1i/pMTlv5k0mr5WUqQ/1r48Pn5CiT8s6zy+FqSRvpFP1j1B1wbAZ8npPuPy6D4DsBo+uc9hPucLDr8nuQy/JI8awO6vnD+nu3C/ctfCPpPxQr/X0NE/H9PoPw8F4byHfww/beXjvZoVMT8tL6m/6KvYvwCoub90kWW/5B6YPi83Xz/Dpt6/KPOTP7sd9L38kxy/Cf9Qv52/hz8eZUvAFtVkPX+pQj+uaKE/3TzJvnzw3r/Dzn4/yg/5PhpHjb4wacW/c5vPPiX+oTyEwKY/w7Bfv5SXFcBvRx9AP6y0u690yT0UY3W/VdJVv2f6m7/pxQy+buIwwEs2jL6Ytj0+IUWKvix7B74govM7Vaw9PundtL9t6da91cZGPyRSNL/NnUC/yHXJvlEBX76O7OU//2kFv9ugH7+D/vi+uEqev1jU/76NQBE/digSP2pUlb58VzM/U++IvwqDZz0CU9E9sD+tP8gXlT/JL4A+fwJTP4+DjL/icku9wq6ovgeGPr568zk/CjAGvyI2gb/oUqy/RdR3v7kwlT/r/LC+s2Ebv5kb3LzzPYq+hA0xPmQZFj+Jmxi/kd2DPuwzaT/BvyG/6BJSOxnpkz+GQu4/QVPDP3S+PT8NiN++bKQgP/NNYj/vFWI+ER+2vxcNPT+0IqC/ulqyv2pAm77s5qO+Bg7zPzfjoD7HrUE+dFWPPfBlXz+vugM/qnI7vyVCqr8+uly/tqwpP+9ZCEB82z0/Ncjxv+zFHr96Tlg/ZPSWPhr3BEAuGNu/ep3sPvkYV70yO1W/8CmnPp6CGj+L5zY/+pMBPbRCMb/s2h+/jkWUvfGDnT0yf9++FtWuPohjHb8BVs6/VDsdwJgqzb/b6fU9sPR5PyGEFMCAJXM/KPltvyz75j5XGeq+Q2fcv6804r2p68i/9eDcPh/DJT+bqkS/96sWP7sdNT4oA4290ZVPvOMzND/JHHM+WDOPvuL/j7+ibKu+/aUhv676C8AZ1JO/weaLvoJSZT+aVFk/1cZHv086iL/qGJG/b1y1P5naUz/RkJU/47Fmvxye7b6iolc/j359P5xyJD81I5c/vl1Pv7xKHL/z4Ge/LxUWv1KdsL5PUSA/bQxBv8PGBD/Bx6y/9NuiPvjHrz4whbg+b3txvvEVsL4mP3o+5KQRvnhncr7rVmC/YD9qP3X7C0BmrL6/dPmHvnbOpD+VkU6/v0SqvrO+hb+26RnA2Ienv7hLrz0JWis/5xlqv3ygpD9wZpe9JG+ovBWgVb299/i9klTivSoibj8oYJi/RNNaPnLxnD9gmp+/QzsWvfA6OL/lvdg/vuNRP5sxwD/QWss/tRRvvxN0xr8+IUc/hZsuP0WKAj+zP7E+kDuuv197Az+MZfa9BOLtP4eyhb/WqFy/Kcrrvl46mT/Uch6/Ur45vrjVXr8ePpg+c1OhP9PzT78ggtq+hdkev60+sj68Pr0/h+2HP1OZ5z+R3v8+UMyIvht9kT3U/LC9mCMVP/ifNr83ymc/wSOxPrGC0T6p4ek/Mt+HP7zcBb9BeIQ/jfS8v/POXj8fdo09snC4P9xDR79aTEi/P2aCPmPesT/uLay6kshjPzSVyD/kXcS/OIX0PlCx6b5mug6+Ijo2P/TdHT8Axcc+JueBPfjNjL3rBn69bxJWPzy0rb9cboA/vkoJQDuqqj8mh+C+feiHPuvzUb+W/Z8+VOAov/1syT719pm/PF6Ov/LV+L7q/yE/lfupPrvIFb8myIC+V6ABv+Q5GT82c1a9uSo4P7NwSr918E8/02veP5OPobzLPUg/64amPra6Fb22eeC/QgNRv4m8kL864Is/zjmEPUgEzD92QJK/AZuaPiIYm75Ebfg+hPwFvwwbIb/sVcO+gb4Wv2XdAEDi3Bw887OHP8cInD7T4NG+otrVPhXELD+ol5I/SgZvv3YLEb+CPAW/zxNRv/WnK7/We9y/QjxAPn5VBT+A04s/5r4tP0hbXr5C22q/0D0Rvj1QXj/rfPO+UVs/P6GRnD1/V1e/Em8fvmuZGz+9Uko+Yqjzv2lxnb6+woQ+9TJrP3AnBEBEz7g/ap6JPhuSBT/pnJ6/s1EnP1jtzr6eLPK/5CtDPwCLkD+WKFu/Y5iSPkBfFbyLsKc+Q/Bav8xlOT3p7cs+qQ0jv7Lw478ZpDS8ogFzP2jOlT/225O/Z1uoP9PWsb4XHt0/64tDP+n9HMBxRPg/cutVP0tuab7cMEg//z5oP8LXjT3ZCp+++HA/v3k6Vj+ClEy/oAHgPls9EL/cY/i+4NvSvMOoaD9QoSu/pBkGP5lqdr9rdoU/1cMWPx2VOcAQ3dG+pspsvhi5mDw7pOs9tnQxP5Ke+r7D6tm+gVTGv6uCRT9N1f0++Q6bP+oPu7+IEo2/ATicPWPpRL8qNC2+//Gkvpasfj/Q7s6+fclJvwvVgT8QfcY+BCsLPqdMpz/yun2+q5tHv/nPpT8l4ek/f62lvrpbOT5wcgY/ndSWPnRMJD81jrA+',
             'v': 'WHiEv8qWjz+nNr69FN9oPiGOLD8dsrY/SPqCv+9TY74eKVS/wfMav2oziL+yStm9lZbMvw5Sfb43f2o8iyrovheAJMBFCmq/j8yZP5JDAT9fNDw/v/SkP71XkD7aILg8I0W4vSN1Lj7UrxO/oYOGvwOgfj+X6Te+QLgaP++KpD/PuwTAw+PMvExc475iYJ892poNvy/TvD5fgda+Rhy5P2IT8L34Yvq+Sf0qPt1Z+r8e55c+y1TjvpaSgj8WEAo/pHiKP4F9ub7uGb2/aVyZvv0rlj9oYQW/HK/mPtaXhrtGjOO/VHteP1+GA76V16M/zNJKvvC4L75GjDW+hjygv+WNVL/L2ee+h2CFPwC98j5jxgu/jcyxvYFPCkCTPZw/lIMuQL0uyz9BAIK/GWfXv3aAG7/hYLu+RZQOv1zOmT6yAjc/4GJevy7TH7/MAmW+ifV8vzkvxD9cNQk/HHsrv1kxKD9Oop4/x6Xiux/QXT/E9rq/vV2VPmcm6z71TTu+uIaNP7qPIL/FYua+mv5fv7R4Kj4T4jW9WmkbP26u9D610Au/P1tvP3Hs0T7q3eK/+bNRv6nsHb8HHe0/dKAgv0L9GUA8zOo96lMiPrQPC8B3mZU+uOI8P6wW8j/m94c+sxo4Pan5X0BQl4+/ORsDP9d6Ab/ovG4/ra+jPs0ek75C5aE/Bm2YvyUlXb2A11u/hBo/vjH7Jz/l4f+9PU5yvgVChT8/xxk/btK6v1C29D4U+pQ/gaUGv9K2Eb/MDwC++22Mv0+vS79MdI8+8Q0uvzDesrw5o6K/zjzRP4Ol477sgiq/aUotv+qgBL9QKL8+f39iv6pZEL8AQJS+kYU9PxBewb3LZrK+U/jBPx/FIL6DRiO/WT6cvcNUsr9WN2C/IQTRPhkVDr8GVzY/GU49Pzq4bD8jULc/ugoAvgqRAz6jOqW/YT+VPrJEeL+3IcW/aCaSv//eFD9tI7o/cNiJvhjD2L52yQtACuUEPzjr2j5Es58/rDhlP1bB0b1Uuoi/xOLJP+Ryu72nrs0+b9MHv/donz/dx5a8EuSjP4P+JL/CTR6/dAmWvQnvI7/wgle/e+yhv1lKn7riNqA/AiMOP5YEAEBQyMS/Aw6VPlvDqD4e8OQ/4huzvjuwdD/Ugak+pEyCPs3SDz0iQmw/Fq5tP3fTUL/2rpq/neZbPrQSXj+EEQ8/S/Lovw9ugb9WoaG+lN+mv4kmlT7fG/m+l+eIPytzFb/b3LI/khTQv2iHHj+pcqO+T8ZfP/C2wD5Zfq8+m3ccQKc5yj9DKsW9BnEKv9uEib/GTNU8vKKcPxPJVj/RAfA/zGNqPyw9QsAAjwo+qBvPvxqNrj4xH72/R00Gv2hcdT9LUwU/7n8ov40uQL6XqkC/Wd+vv00wAb/7yKW/i7MPP411yT6PTI2/FHwAP1qK2z80oLE9Tgr8PuTKg75EFMq9WDewv/p2ybwbic0+m/Y/v7yGjb+weZC+3xG9volezr4YFzC/02m/ve+kr7+NFRE/1mJbvpxO+z45H4i9aDFivz/Oj74veRe/mYSkvkzMBL/fxt8+nWOuPyZsoj+arRs/Hd3PvpyyK7784tQ/JYTwv7RMfT4JbK0+PDa2PxRyo79TV26/yPCDvwnh3b7Xyig/akGqvwL1Nr+usxq+/oE2v5LbFL4zfaS/m6ssP31NqL4wWnK/P0uAvvhNQj8+nDo/tgVpP8qLd78Zx2S+Vf5wvwUBET/fQZo+G/t0P7b8d79iJw+9Yqa/v7fItz9O/cG/QUeZP0TJbj9I446+XcoQQA7enD8P5R6/2r+Lv/RnlT+KBYW9BOjevuZWzr993qC/PBGUv5EWA77Aq7W+7oepPcKku7+eFQo/FnJKP+CqGz/x8rA/3W3aPsuH4L9mGbs+nAW0v9WKPL/StTI+GloBwI7bQL8Mm+y/5q2zvypbxj4UKDQ/Cb34PvOxfT18ZfA/btl3Psokt7+Yf6w/waPgv62Q8z8R1Kg+Z2EXvqbqN74xSJa+5hkrv6aKjz5ZwHo/CQnav+a6sz/jY+O/mmgOPxHIFz/u8mA/ksMlP4Ho6b5to74/A7icvoxmpT+J0gc/R9s7v06vYr+gCRe/q+qAv8vb4T4brbY+D4cvPszPk78YJnA8VIN/PYQZEb4FLQvAen0Lv4ZK1j/ALRg/hR0NQPM61zuqple/Z2k1Pj1fFj/QjbA/dk2YP8J9nj/iiUS9qDJ0P8G1fj8uDXW/1+W8P2tAOz+AxYq/eXsCwP0Y+7+uF5W+EdQMP7IMo79/0y08onuQv82Ckj+QfMS+bIg2Pm4u57/vEJs/Ua6LPzlZ2T+j7zs/F7Lfv1UboD6XURq/45kDP/+N87/6ouw/R4FwQEgMCUDG6i1A8xZbP7yY2L4GUU8/KMuxPp1PtD7cdI4/sEiTP1Jp+D4WENo/SycEv8Dtuz9O2+u9s74AwFKrPz3hBLU9XkKnP7dRjT//fqq/vQMOPzSSI7/SHbk/ehH4v1aVgr84NUA9awoOwF74Xr+GUo69aYqevUVCV7/FzD2+/iqpPhj5nz9P7Mc/3e7BPxT5nT5B3Iy8sDGMP26Rlb7uRXM/on0BvzYyyz+OmCe/o/aHvz6LXL+SHBa/z5eCvr+e7D+jGE++QeyGPvFhSsCz/4o+O0Iwv/pcar8+Vz0/Vm9BPyzCBMD5pp4+Ufv4P7a5kD/ZhAw8OaIjP1p3Hj+YAYi/+M4av1Bhqr7/ecM/QSL5v4Qfsbz/XH++CCqOv5HIwb7OG3u/vyukvf9m7b1TQ0s/BXMsP5GXLb8qrZ4/PzaKP+Pmnj8dwkZAFAzKvw8uRz/jRbG8j7F5vs8QEb9/JNQ/11IJPsWEyTsPutq+nVUIv0DLVL+N+BS/3q8gvzmZIb5Mx9i9jUJav1rO1j5HwOQ/OqypPkFvXL/NcWk/LFa/v/54Ur/GTYS/EL0KvyVHub9JktS+leuAvhzijLt28NE/gezXvuOkkj/N7YC/7zkzPz+6X70NiUo/3ytlv2ucmr8tktE+sOguvxgaJz9jk46/QjW9vq5FKz+NMQe+YCFTv8hUmj7a1rc8NrSVPuvc0z9VRNC9CFKPvnpDyb/J0LU++PmHP3Zipj5qG/A99HMUv/43Y7/BrKQ+HkaDvpOPuz9eJOm90Umav5E5PD+oQsg+Ib2Ov3BTN77t/T0/ldBgPpULFb+UUDI9ye2iPbsZnr/zPS4/E9RzPnaoxT6JUc++RGxbPxbzjb/lODW9kVgYwF670z+MvK6+svszP/VP77++s5G/rMHHPyh6xj59l5W/gbGqPQq5zb6A1SM/atDGPTCobr9r3cU9Eu+Pv1FdWr8Yhew/6LX2vru/Pjw8WCy/8uuvv8NmJj8btiQ+Nphdv34vUr9O9Py+jFDpvrm4XD9n5IK/h7WpP3goTD9nE4u/aJdbPyA1oz8tL8Q+nMXavnVkkr4TOfK/+92pvqTskT3z1x8/K+fpvuT5QcAOg+O/xvwEQA66JD/1l1y/dr/8vs4UGkDrnmw+CcI7PwqRcz8LvJW/L41gvmzu1z7SS5s+054RPh5zsD5Ztw0/dUqDPtiD0D67KUa/5XwevgJMgb1ZOLg/zVelPQTI0z/sOmA/b7xcv+NnQr4rbA1A7pqNP3E+0z5T9TW/HOTivjKYY7+2G62/FO7BP5K3BL86lVQ/2WeOvUwqOECdtCG/saWhv7HupD0G7Qi/ui4WP4VIpb8gZJw+nrouPxIo9z26hY8/fSTdvvETOD+aJ5M/7qKzvx/ziD4IlbK+P5LiPZB1zL8QRQ/AF4Ofvlv0lj+dr+0/XA+kvx4l5L6HCBw/N6CdP1Ck6T51E/i/zndYv8FaFMCyUYe/LrSMvlMIwj9Liik9+UpAP2pXdb9CUQS/qi1UPvM0Er+lS6W/eP6kv/L20b6SR8i+JTqjv53lhb90iYY+NUXGP443n74Il5S/vBQPv7JJDr/RfHY/mmUyv1hS+T5wm08/ZpdUPg/gKb7Semg/yJFuvsFy7j9MJ7Q/Lk5nPLn/Zb/ih5s80JBcvpL3PT9xM4+/M4k2P2PXLj5dZRe/voWyv4SmcjxSct2+T9u1PhJnoT5w0hJAAV78Pq4zcL+zoRO/aDa+vga4qb0PJIw/3aAaPXPKqz+j3T8+mZzHP0V5pT8li2c/ZBZevxSOvD94+s4/C51bv+krir5wblQ/JA1XP2BXfb75YaO+Mk//PvGoRT7BX8M/JGOHv+701j6e/7g/F+vVPV1bzD5IpK6/5/dVvmBqd7/rRCA+EP2wvjT06b9JYizAiZH3vh3ypT5WSAo/1twWviC/6b7CdFg+rkOpPeTRkL6gV9s/WtfCvhY0jL+eUva/lX1BP4EuFT9CyHE/4ABmv9J4KL/UlJU/YcV/P377gL+WJ5u/Nh2evya/nT9i4oK+kvsPv36lCD97v6w/oX2YP4l1qT/SCf4+74EQv6uicj9THa6/f2sAvyvBtL6pxGy/IeUCP6QMoz9GqZi/1S0vv3ctCj0i3RU/VJd0viX7pz4KlA+/q/PbPr/gIT/nZV++UxeVPPPkBj+hvLQ+7Fdyvxvl3D+/6X+/A40qv5pwoj/s54Y/2gAdv5L7YLxN/o+/EosHPzVHTL+yjMw+NE+hP9Fhhr9ldm2/Y2K6PnQmCD82/li+YRaHPxRkWL974rY+ZlqfP8kscb9jqD2//67QPt/jiT+N65S+L2rTvsUiU7+ZUhE/ivRrv6O1ET2A+jm/Bw5PP322DT9SfNW+XRhIPxQihT6QOac/XDAlvoUM+j48WIQ+yNh+vyTd+b0v9OM+EmqDv0jDID9JX4u/rWzHP2uQvL/fWrG9amj4v3OZAr66XAa/49sBP5v3ij/O8qS8xve6vs4Rsj+IG6k+Hksgv1/OeT+GpxC+FiYMwJPR1L2cE8m/qTKePorah78jYmU/9uWgvqiWpT/PYr++9Rt8vjMruT6e7wpAppGJve8juL8lzXq/ZXk9P3EC5r+4yC0/BfatPr8//D2kalA/hGk3QPk6bD5UCzi+a0LVv23fRLxqHo4/7sMVvyEc5T4IVd29q1Xhv22vAb86/4C+QJ0UQPwPh76AAI0+SJLpPum1mr+cAMO+wEOqP1nklj5v1/89wdNQv51qsLsVPdw+eyiOvzRTm7wQUi0/SikYv1vFiD9pFnG/Iibxv/9rDMAFQ7i/5xDzP0F79z6ojMQ+bD2aP+9J5D5Nj6a/BayPv+A3Jr9Iy30+eH9vPCpMML9ANOs+3AcdwNI0Fj9G+TBAtpNiPgFCET9kXAa+g8DZPoVgjb/WXLm/ke9XPsEP4L6kJaU+Oya/vs7SRz5Djam/aDh2PCQPOr8laOo+qCMqvyJQ0L8RlqU/0i2bP21Z5j8NT+C/4/uSvjq/kT/5iLw9Hca+v8d0IL+S9Fk/U9d6PgdjOL7pf3E/K3+VP8QVDT9Dc6Y/Pet5v1CrVj/ClmG9FJqOPzkXib8TmWK+bWEkP5R/cr988HK9PL4aP38Ap74Nn50/9qAAQFS/C0Comn6/cf7nP0dVaL8Nlra/ZVFvPlyXRL2jyAk+8D98vwK9BkCzweY/YNnBv3n0xb6AidS+PHvavz+JUj2IhgA/VU7UPrDfcL8vfw6+T83Sv+D8Hz91Uau/w+Skvk1mq795jJW+De1Rv/Hrgb8cjfy/JoyUP7bpyL+yKQbAfCR7vmkS+D83P1s9JpkkP+fKgT+/Cey+jCqrvsw1w7+4f8U+3HLNv2HUVb9J2I6/YtXHv6TIGcArn6e+hQSCu0EdqT5bpGe+mgyAv2eLVj5y+r28j/ZCv5yvbr+Qn4q/Nh0Lvz7pPr6VXdU/GksNwJCDLb9RBe6+0xgaP/KBSr+dd1A/9zQRv3jSVb6LXDBAFimtPKSIkr8QBo6/sxDYvshORT/aBVg++RgUO2cDYb8c+r8+0nY/P0DPTb9DIfK8/N3tPmflAEBRk6y/dxWvv1nTRD8+YV8/QeKuPnPzsr/YnK2/tGMDPwx8Bz9CoKM9+jhFvfDEoL5JOEU/Hhf9Pu/91j8mTVs/AHXUvmc9gb6oV8M/EBgeP4Lwmb//OEa/7nI/P79pSb7+sHW+1eynv5qryL4vQ8E9+oUuPxJuaj9ZggI+Ul4hv3nNMT88quC+ttonP+++hD6ekOc+PrWLPg3WbT7Yw1o/J82DP7DbmT4+XGC+CEi0v4kc9r/64XG95itzv/1XWb/z7iG+V1MxvyL1577Fw16+pu6IvxCdB0A5UMc7ZQfdvfw3f78vfu283E5qv2kbdr9BKwM/q0SEPnn5yb8dMD4+W8g0vvMZqT9+WcM/ViVgvXMf6765YJi8vaVhPqVsFT/HVqC/RE+0PzMUPT/kRA8+H/kxvtbg/T7E+Z++CuAdv5GsDT0UtdC+/FKqvwZIJb8DJr+/8XsSP8zyGD/i1Vy/sTgDv6NLhz9Zdrs/UsARQCX/ET7sDeA//SZGPp6f/r4e9Gw/Wq1aPwmtib/pluI+mS1/vRwTwL+fjVY/vbhlP4efhT2Kh0m/V8bKvoNmQj6FM3g+XvDZPyH4RL5w03s/i+SpP9wOqb+R50M/i2n2v27AGL/pUAK+kjgoP4JJZj6Ke00/F9s3v67jl76K3pq/hmmFP6YyyL4JPoO/T24VP8FQJz++u6c+hrEDPlMmV784Dg6/kqy4PhaTFb8164q/ZqvJv0AdpT+Yd5U9JMeJvk5tZj93oOc+sry7P6D2hj+khFy/RnyRv6kLfD/hUMO95Z5+v5Mt2T8AuiLACcwbPizcuL9LnjY+IyTgvHzo4T3h5Ko/Injtvn0rbj96DVi90TOsv6WQAD8hrzU9lhEovwR1Jb1WZwRAcIqjvey6DT9ZTlk/zEwUPyzldT/L/Hi/ph0JQKpRtL/iIwpAVzD+vqQKTT/alOe/1ucvPIsVsL9omIc/JE8PP6s9pD0a54Y/cdCOP9zlKT956yI9lEj+vv6epj9RtYK/6x9eP1KV5r4wuwA+JL0HvzIkCD5unBa/a1oZv4bQgj4pCSe/aMLxPznZBz/iJoi/R5xDPsTpuT+Ie+i/4hYBwG6Lg76SCQ6/3d5Ov18b7L+qChw/RHotP91dyr8VH0E/u/eOvgayC8DPqxA//0fDv8D1j72QtnW+Fx6cv6oYt79DTgzATZjvv7Gcjz8c7X49rFM2P9JEmDz64Gk/oltWvsuPtL7y1lO/9MXgP+YoGL8e3I4+8oEXv3YQmz/c/K6+p+XWPxGhOT4MU1g/7f3xv1PSib88LR4/R9Elv+b0sz+v0c2/0lzjv0U5wT4hmp6+h4m4P49+vj/jY9w+cfyCO7Izkj8zqBS/nVSCvy1TID+AChG+1zqHPjhl2j+Qux1AxgAaP0HI9b/xzRE/ZJsAPaLWMz+avSi/uhbcP1o/lD+WcX+/BuvAP4Iogj8mnFS+iyLTPsLuhD74m7g+qrZcP50ZkD+8wiHAyhaPPoU/Wj+BhYA/30mqv4CNp7+fBFG+P5YAPyGNE7+ItRC/iRcAP2Jdnj+gDRs+kxo/PpqBH79jVi6/C00SP335vT6vVYo+2LZqPuElHb/o7gi/YxO4v2WAlj9cuGA/zDyLvxYQLj9emFi/wHaev+7d/77hzQDAvsi0vrmnKz6KTHa/dUc6P6+uRz9c9Iq/dBBnvpxJD781Pri9BWP+PIej+77xg8E/VkqsP2GToj6Eg9Q+6P+9PnHzW78dhkk9xxC5P55l476tVwq/ZKX1vqq0Az6ecK6/JM+xvqOhnj5NZbg/QaKBvlJ6Uj8pdoa/cLi+vX5KpT8sPxtA2c/qvn/lAcCzMi6/jKnrP+8jZb/R/pQ/KzoNvx/VOr8/X8s+HJptPwp4xb2twtq+gj41Pw4Jp76ECFY/DKHvv4QM1D48R8C+sj0Lv5/czb0eZwU+wfupP3mjCb//PxW/IzADwE8wuD9i1oM9o+MxP8uhhzzOOtg+zK7PPlMomj8+PxQ/BTdkv97Nzz+i6Zc9Xy5WP6zQgT//x4G/cVu0v0/VBj+yedY/qEOgv0Cowr8UY0w+IHhyv4Wvkj+Snk0/Lb0vP9BzPT9K1S8/cEsFP9bTyb4G17g+GyHBP9ojtj7K52k+Vy6gPosQd7971M4+nWApP8egh7+dBPe94zyxPJHgAL9UIYo/rgVnv+gWmD9YA5C+fKGdPpXmYb8ikWK/GMoIPwIcdD+56/g+rvLvvrLoYb5XtuK/',
             'do': '2t6OPgokSb/GXHW+NIyUv8+Udz/+rAw+FWAuP6/5mT/BU8y+BGr4PgC8aL/fJye/mljXP8/DCj4V0zy/bmdCvb25Or35pVS/fiOWPk/6DkD9fxM/b3Wbv2EdH7+QX1E//W6RP26xL0Bfar+/7oLuvyAyZj5PkcC+0hqgv3bTN780J2E/ZvMSvlLZaT54ks0+JTuFPV90zr5W2kq+KSKkPqS0fT81BDa/n6Pcvyn4ML8glhY/s4WeP+pWEEC7pcA+c8cWvl6RLL6Ed+2/2//DPW+rrj/Q11u/rR2dvkfpRD4W7iW/GwMFvuYTr791nd8+xGG2vtX4Sj+2VcC/rdh+v085R78Fb1M/Qjixv6Haub+5NRY9t74pv8XjqT3ZUe8+6i4xvmMKhj/qRzA/Twiyvgx6I0C4Z4O/vAHfPWX7BT4/IcI/vpcHv/BdWb5MjBc/s9gKwAIr0L3msUs+/vdlP3cOcb5n1qI/Q9D3v0fTJb+MOY+9hK6Lv4t8zb4iGbY/tduBvokma7+c0Nq+8IW9vt7h4b5g9tC/wQTFugBTMj6f9eW+euw+P0tvtz53azs+VrlhP7sTbj+rh5g/8mWjPZxooD/5ar49TR4xPlDoEj8Qmp6/BJKXP7NMzD6RaLm8wYNsv3EgxD8JdCC/ZEbOv8pfAT656dm+qnA4vzGRiD8G0Yi+WkXQv1F1sj30o2e/+UWuvxxYzT9sF4a/RKoeQBqsED0zB5G+3GmGv2N3mT4eaBFAfMg1PQOimL90YL0+bLURvrfXhb/CVJO/xYCYPuIB3b7s5tk+Anxcv9UOLkBwPA2+DeO/vpyGDb8Jmo2+eUNevyWuZ79n+k4/qpUWP3ynCT+vwx+/RQIevyQhVb83MiBAFuNxPqRVZ7+rUCc/g3eovggFpr6LpSe/BtAYPszWD78t9SK/M5SMv+jSgb0zTGE/7dqNPt7Lg7/tCv4+mYqIP477OT0A2dS+ufBxP2eLKD+Y1n69ag8EQIZx8z5O+q+/ab3APssQF78s1fC/3rdhvii/HD4euNi+VE+Wv4hYHUBmMiI/EYaNP9W2kj+1MZ8+M+HMP59MGUCw9fs+61nFPeC1ljwkhKq/jnYnwDUl876B4qW+2VsZP8cxbL/GRgk/n5cEPtzH0D8moay+IqlQvk/Hmr8yase87tIOP09sSz+7EDE/7qcavyCvaL9G5f4+eXc6P/LfDr8BGc6/n0ziPlItsT2VqaU/nv0OP3PJGEA9/rw+ni1hv81TMb4Unvu+VGfcv8C1BcAtLHk+MVlMvxfZNj7b/0S/XtgovghFGL+8Z9W+263NPuGSkT/CHv89zeOWP7OehTyuNiq+YWFPv76di7/XcCa/7+fIv7OJ0j7yMFc8u9POv8AZqz4onfI+IujGvcEexT/Ad8a8wkEov9V37z2GSFy/9iSjvwQGNr7+7Vg/uQyov2jajLxPL4C/9DpDv8GGvr0BRYE//cB6v7cynL3BXNk/Hg8IPzC8sj3id7W/S8SDvcsDGb4HBEO/0KAUv9fEHT80XlW/++yGP9kBEr/tOzg/N3vNvimQZD77x4w/X0oAv+o90z/47pw+OOuAvt3RSj/QYQw/0SPdvj1/n72SsmS/v3DWPoPF5733UhC/PXumvrbMEj+KgyG/ziDCPihRPD+rl9q9nVatvkrzIz5tYeE9hJ/dvuBswL4bc2W/WiJPP0aG5b4no3S/xbK8v4xWD78zBro/U/P5PV7gPr6zSLa+5z1zPgDZ2L5GBgI+zR7BP9FV2z3wAMw+jLNav/0Abr90aNS/gqcOP2MkRr+Awjw+vrOlvnPp8D6NkJI9IhRwvnhdyT+XRz4+44SjPqwERb9PwRW+eoLov4bpdD1OYqc/AQJLPw5aqz54f3K+qRlLv+zIQL/ggCW/gIdkPs1YsD/Rio4+zuoCP9K4kb92ZKa/vVQ/Py83nj8zng8/hM3OvjNgtz55bjnAZz1HP2f7p79LYn4/TeGrv0+hrT59O8i9T2GLvrQB7j9KxLM92qoxPg3/9z5sg5O/I7jFv0OCv78ACSc/cCOWvrsfKr+NpW0/zwHlv7DNbj2FC/y+ty8vvq0foL3zNko+alS7vrXbEb+jm+s+OKetvyL0Ub4/wA/AMgHivIDh4D+HHFi+Kfqhvubzxr6wfAvAoP2Jvq0OL75ISqY/qWmNP3M8vT7xelI+j90yQE3gsz9J4Is/IVpNv/oDeb6+4gs/SVu+vOOZH7+WKau/ew3GPtZ9L75tQpU8ukxeP78ExD//5QK/4mUlPtpowT1OGgfA3a8XwOAB9j8NqTG+SRwPwIS3Ej9mMDA8p/UJwGEXij967/S98HYZv5LE8T4oti8/3w0+P7jl0r4YD0g/vOffv0Pufj/MITG+TgRGP/xOKb3flvE+IbRvv7xsIz82M0S+1l0yP6bar79DkzU/hzPFvdQANb+rmia/8iRRvmR31j56FR+/EH8Pv5mY8713L5y+RCCUvphdjD/A7oO/b/IRwHGSPL/9Xp8/szhIvzOImD977qQ/9hRUP+qsUz8O15c/X+u5Pw1bHD5uBwtA8reHv15Ye79pM0s/xvsIv3LTVb6zc9q/RMj3vIOm1r8wc2S/Zg5tP+hTPb4SBga+14divmNi2j1sm46/5/IyP+KmTr/s13+/NcZ7vri8ZL+GE8a/lI2YvwdVCb93Sbe/Q7JKPpiP2r54f8W/B2WFP7jGAkB5KMY/6700vzjQfb9pGlM9OZfiPkBAsT5o8NC/VFS9vpWy7r4XfMY/dhRAv8nI3j60Edg/VhY7PiYuXD7mxvy+D7JiPmVbsD5grPe/Ul0fPzhxxb8W0MO/t14YvUAArj8nGfE8qkE4P6rFUL8EKTq+vKh4PwbeJcC4L7a/LYGMvvLzHr/dzIU//1uhPxFtaT6xi8C9RkLYPqLuir1hE3u/KVWqvptiaD/0cAW/Vyjwvj6fO7+/sam/Zpzpvo2Y8T1s7LG/Qts3P9UnDzuxYZC/1qgeP2KHJz9ltLE9auiZPgx6Vr/UZS+/KeMTwLD7zb0BjV88GPRrv0Q+Mj/AwTm/r3b8P3WaFz990Qc+4EfKPWv3Ij/7AzW/AHahv0ycBD+Zfq6+X8obP8K9Mj67M5m/jkiAvlupMD4aMwK//G+DvgkzlL4yQGC/wubzPXfdF78vznI/QDF1PtyYRL6ITli/xb5rPXnIxb/UYKE+eRUSv7kd7z4PKD+/OYXjvUUdgr/5Zvs/3s+xvyyACD/f448+Pacqv3MXv7+Vc9G/5ulhPw0IsD7oQcc/Q8HkPjEToD+uu/E/3D6FPqIHEL/jvJi9JZ1IvhFRhT3YYT2/cMF5Pxsuor9/IZM//LmePjCNRL5xnbg/TPCMPSAWtj+HHJM/8vSwvyTmLr9t2uW9fKrhvd7LBb8MUgVA3P1pvwjtNz9ArxM/ItTMPs4Czz4Zy3a/11uMvwoQ/D4/3v0/glUEPlecrL5ibVs/bkv5PqDglD+KCj6/7FC3PZy55Ltf/Bw/eEHOv+rdDj+6J18/074Bvu34DT5I18s/4eAPQB62HL8PQ0a/goWDPyDkl749pLM+Yy8eP0rVR7/kQls/Pl3kP62EYr7XYYI/g5Fxv9T+kb/S/uy/qg4NP3oqob/jAq4/q2WkP2AcS75wwOq92tB/P3NP+D5uTJ0+n0VVP+y1Rb9AU4M/CzytP1O4Wz5Tp0e/Nl0UvwJeX787eek+oMuHP2JIGz76xCBACCziv4Lg9z8XF3o/kWMuP2i9d78hAke/9Ea7P0BIMj8q3bC8wojEPWfr+D0uqX+9JbFvP+w1SL/6SGi/YkDNvigsHz9nMq6/uCgKQDUl7DyQPsY/1CSfPqGNqT9etvo+w5FjPlheHL6qmEi/pWb8vo2MpT9KCwjA5+dEPjOLEcDNwbQ/BC26P+RX0r/fDQy/HxLPvsv3hT40p7S+071SP1oMZT7pgvO/D29xPzu95L50pqm/Ki/nPKjrsD8+cSdAGjyOPgflOr90toc/z2Vfvln2UT+LRom/XiefPrPTIj8jtaM+wDWtPgWC+r4/0ck+i5kHv15rAkDF/Fa+1bpGv+arBL9xX1c/Hf49vxkTrj9LJkw/5tidP/o7BkAwS0k+mEPLvQzEBMCHu1a/CmAZP+I6VT4vIXy/ibJsPlS1iz+ip4G/aS5iP3psjj5HpcQ/Giz+PTn8iL7alJ696vtqv2Kwgz+1fBG+qVEUP/7a5z43e5S+oH9jPl6Btb5i8Y+/E6a6vitOur5Lok2+pEKeP2q12b69skq+7aqLvwpqgL+21Ca/gSdLP3xLQr4fvkA/VoW8vwv41T/YQyzAK9Upv5wdqT8EIgjAFzOgvqQrgL8F5TG/2Pjgv3H6rb7dnQK+YjKNvy1SRD+LVFQ+8W5Ov0UaDT8djpW/7Mk9Pwt4AT4dtle/+ZihPmDHGL8X9BG/9suEv/VqgT6SfBi+jiqLP6h3uD7JwxvAjnPIPniFur9ZGIg/qFqFP999DL8UamC99iDUvjXDxL89h+A+aFfZvQ7R5T/t5wJAyLxbP7rT8b93Oq2+wFpoPw0LEb8yPQO+4OE3v+jsMj/ryVi/Bs1IP35OM7/7e3c9dA9Qv1KBCz/S0Z8/KaRQwBQuoL92ih+8CEP6vwuWCT6H6Yi//4lrvvwjwj25jD2/HPMnvlTjir3Xa8U/2kelvhFliL8DHjo/zF9sPm1WxT6URDy/Bg9aPz6Jkb87BUq/9eKmP2q8oD69HTe/N7pIvnKe/T52PrY9RAXSPqztcb9Cvd09uVuiPh0VAr7n1gw/hX2nPu0Jpr+tOQo9tsKGv439sj/UtlA+sZ/VvegbLL85PMk/8Mx7P5YPb7/8vY8/75+wvkWZmz5V0Q/AisgtvoD0IT8PWR0/YwQuv7WufLw2jaI966P1vtrkbr9kGzQ/k63PP82KOb973hm/FWXBPoo+4T+okpS/FW2HP1AgJ79Q/p++OlLIv0A40z4hrW++j1Swv28aib7HiCZAz/w6Ppldpj/sKJ8+hu9RPtPlKT6apTm/tHYnPiOTZ78aC5w/gE3Iv8txn7/xAB2/6E4sPwZZ5L68sYE+MaArO5goBUDYwLI/3+wgPKEj6T8nMsW//y4ivAKonb/jZ0G+/VDHPqG9LT9geFO/O7YnvvUBmr+VFKq/ZY6zPj3HAECuTYM/qi7qPZhjUL508lI/Zd6vP//7yr+yEKk+cLfQPls1mz+FAyU/MwGqP7Wjur7ahVs+V4LHP/dkRz/CkZO/GQcnv/nIIT9zxU8/P+8WQE9MhT9Flk6/9Q7+Po733r7dFEk+Lvm9vp2GHz9diyW/THeRv139tb3U+kw/eBPlP8pbkD9USl6/ystNvjsWkT9ZKqA/nHABv970AT8TkE6/5AiSPwOkHL7bSoY/MFulP/K5/r7oAQ2/AkwWvXXLxb8g4bS+o7gQP2ZqiT4sPFq/GJvIvnTuNj+AT98/QrOjvzEA1D5NLaw+ACoDv76cfz/ZF9a/LJG8PRrE877Kd1y/NbvFPsNAgD9XjDQ9QDwFvivE1D/aPkVAg2SLP34xB798uti9R+mxv4I/Bb6kTHq/g/j0P/Bjvz2iF1o/eibUPR0Nnb/uC/g+JVHrPtJt5j5GdAA/tRoXv014Gr+Nzow/llmMvyOZcz9c69W/NXeTPrzHmz9WII++Iopqv/7iY79QiXG/hT+SP0ykNkBVMnW/R0G7PvmgST6QdEu+MKMZvyV7ET7DiAq/nnI+v7jVxr9RPpM/dqlSvlowgb7C9Di/bN8EP353/L7FZiJAjLLOv02e+T5boA2+7OPMvvbE7j9Rw+i+tj+WvmnTpz9g1mW+zygcP3z3CkCSeD0/hXKav9nuuTrYlwq+nTlBvwWRFT8Gcjs/37evv7mmi736Pu66Wd/evkLNiD9sG1e+1E00v1OTCcCjXaE//QTJvk+gMj9w3gg/6KBVP6oJIr6KtHk/3fS8Pw2+W74sb/u/Wa6sv/vVKD9IqkE/M9nUPmx3Rr+L2M2+47NqP4usRr9JkbU+lN6RvYXreT+nyae/jNxTPzCFDMCdmLe+bOq7v2c0TD8kfAo/NBiYP25HUr+zToM/okSQP8tmC0CStoI+RlnZvZKMHj2Q1R8+XbQMP1xZl78fPjm/NC5dPweHLz93eYy+DECyviB2BUBvmoi/11jpv8hIBEC0dAi/ZplnvzsXaz+Ho5m+/FArv9MzvT9yz/U/mVPUv+n6Ar3Xx+W+9VzJP0qr8j5h7Lm+EnKIvywWez/jvCi+frEOQFpM/b010d2+0HTAPzHZ+D/SNAu/qPwVvk9ExD7ClLQ/wqoCQKmZ276/Mq2/tHk0vqOBDD6S+0s+KutYvzDwDL+w46O/BL8DPk2s7z57eSS/QogGv7pMgz7N3dy+qeB7PySqU75yH4m+wjjRvYjAnD+PHyFAND9Qv+Z2j7/od66/7KXyPghrAkCpuaG/57NwvtyNCb/hvL0/1ZPGv4t+jL9uzvM/jzPrvkl2Vz9YrjI/hwnhvzNdoD8qA3u++/C8P8Wflb4yVqm/ozwTvjyl1T/Tp689RPfuP2kUdj80o4c/fDIcP9ZWlz9EuWs/SmfiP7S1L79rh5g/VjSjP0nVA0DuMqw+mZqMP6DTqj1LI7w8iozdvrgh1z8ZK5a+beIDPhUYs74w99U/GGV3vwxPhT8rqpe+XYmtPsL0Db3yKKm/IUAdP/+uLEBMLuE/fE8FvgLkWL1hV0+/c4psP/GPTL/kPsa/9vaZP5V8Y7+8lo4/RTK2vDeSEL94bO2/7k7Rv4/urz4o+sk+8t2svfb1Wr/ES6g/i1xUPxkjhD5AtVK+dHSYP3Vyu7w6FTy/Pyk4P41J6j7sBkk923+wvl0W3D23nGI/Xm33PoUqkb92G9a+MRRcv7Pxub/cEI0+4ipEvxxU5T8rTJ8/+02DvyzBrz/et1u/EG9kPyNikj/OlUw/PIuwvofHkT59sag/TU+LPkrRB8AR3xg/94dhPqmc+r7rUS6/OLG+P9FreL8T60K/mhmaPzXWUzxs9Us+5PkWv0idXj8oqw9A3vqwPhv8ET/5nkE/r+3jv4JgjT/P91M+6IALP/4tcT8kXz4/JuOcPmjEMr2S00U/f58WPd+Umb9PK9m+wb9LviGCnr7RxX6/OiCFv21qkr9IvUe/gG9Pvk8wHD/T6QG+IgwYPu1D1D4EEuw+7DqMvy5bKj4M6sW+E9Bdv194jb/VcA+/QARev+lH4b8IRzm+Ii4jP2xb6r1vyXe9S1A8P+IHjj9TPes+8xp8P5vygT+PFoM/QZGjv+XEMD+h/Ig8mSKQv0YPpr/wJuu8Wp9yPsv9CT6nH7g/Dfi5P9Teqz8ynQ+/5A2bP5sNDT9IZhU/VjN9v6WUgD6giqw/vvZ8v4Jjq75ya4U/bkseP9j/XD+Mip8/DJ6Wvweqjz0ZMSK+W8WhPsjazT8/1Iq+65TnvBgpqj+DYz89syWVP940hz7xVCk/GvTiP8nmXL+QJp0/eqP8PihzhT/KEeo8/9QCwDkvaz+m1zK/F3Y6PqIwgr4geaO8ogObP93xwLwecsy/1lsfPjqY3j+3zuC+a0DrPptvQj8Jcaw/mTGFvnGuyL9lpTc/qUogv/fhoL26tZ0/OgrEv2NLQb9gv1a/lgAAwI3czr6xlGO/CpCLP+FOG76RyPc9CbiZPnHbTz97lIC+OKdLwNWex74NqDxABYnbvrVsB7/V21M/yoTpvlceRL4DtUI/kTmYP3aHwD+IwqS+bNv3v3dv275IyzW+BAyOPTMf3D8snJE+KK04P/YHcb8YKZ0/TvftvSVtab6dhEM/B8AhvwRBOD+UOYW/F6F4P/P1kb8sQ8++u4WTvxnlp7+oCg+/9B/GP33vDT+qgBM8sw0Mv3kqJb1sVS4+XBUOv/gFRz9eJD+/wu9JP/2Enj6flKy+oeqTPwCyhL4t5aS/RI9SP7lILL9j38O/MkwJP3AWQj5t008/QgasvzgvTr+tVRU/FB/NPxe3zr8yyzO/Dyu2vs2rHT9A3GA/GQ/AvrIlv77YhXM/hxX3vSc6lL+WZIM/bkNZP1rdLD7X5X++Atw6P8k96L1HZJC/NofrvgDKxj+juJY/A37Wv7N9i7/t0os/L17UPheWoD7yTrc/t5BCP80VDT+2zcK+0sMjwLWkH7+csdu/PnnVPgKmpb9/oom/3ldRv8hS7L8hmIO+'},
  'bounds': {'dq': 1.5625e-08,
             'dk': 1.5625e-08,
             'dv': 0.05475195132275541,
             'o': 0.046404931349159344,
             'stats': 0.012372508661626844}}]
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
