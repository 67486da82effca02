"""``sdpa-bwd explain``: the launch plan (``planner``) for a problem given on the command line, forward and backward,
with no GPU and no tensor: the path taken, why each other path was not, the config, every launch's kernel, grid
and keywords, and the side buffers. ``--device sm90`` plans as on an H100 / H200 (132 SMs); ``--device cpu`` as
under Triton's interpreter.

    sdpa-bwd explain --B 2 --H 16 --S 4096 --D 128 --dtype bf16 --causal --device sm90
"""

from __future__ import annotations

import math

import torch

from . import planner
from .reasons import Target, TensorMeta

DTYPES = {"fp16": torch.float16, "bf16": torch.bfloat16, "fp32": torch.float32}


def _meta(shape, layout: str, dtype, device, sm90) -> TensorMeta:
    """(B, H, S, D) in the named storage layout, packed: bhsd, bshd ((B, S, H, D) in memory) or sbhd."""
    B, H, S, D = shape
    strides = {"bhsd": (H * S * D, S * D, D, 1), "bshd": (S * H * D, D, H * D, 1),
               "sbhd": (H * D, D, B * H * D, 1)}[layout]
    return TensorMeta(tuple(shape), strides, dtype, device, True, sm90)


def problem(args) -> tuple:
    """(metas by name, call keywords, target) for the parsed arguments. Q, K, V, dO (and O in the backward) in
    ``--layout``; the outputs the launcher allocates, packed (B, H, S, D)."""
    dtype = DTYPES[args.dtype]
    sm90 = args.device == "sm90"
    device = torch.device("cuda", 0) if sm90 else torch.device("cpu")
    flag = True if sm90 else None
    B, H, S, D = args.B, args.H, args.S, args.D
    H_kv, S_kv, Dv = args.H_kv or H, args.S_kv or S, args.Dv or D
    lay = args.layout
    t = dict(q=_meta((B, H, S, D), lay, dtype, device, flag), k=_meta((B, H_kv, S_kv, D), lay, dtype, device, flag),
             v=_meta((B, H_kv, S_kv, Dv), lay, dtype, device, flag), do=_meta((B, H, S, Dv), lay, dtype, device, flag),
             o=_meta((B, H, S, Dv), lay, dtype, device, flag))
    t["o_new"] = TensorMeta.packed((B, H, S, Dv), dtype, device, flag)
    t["stats"] = TensorMeta.packed((B, H, S), torch.float32, device, flag)
    for name, ref in (("dq", "q"), ("dk", "k"), ("dv", "v")):
        t[name] = TensorMeta.packed(t[ref].shape, dtype, device, flag)
    right = 0 if args.causal else args.right_bound
    kw = dict(scale=args.scale if args.scale is not None else 1.0 / math.sqrt(D), left_bound=args.left_bound,
              right_bound=right, alignment=args.alignment)
    return t, kw, Target(interpreter=not sm90, sm_count=args.sms if sm90 else None)


def plans(args) -> tuple:
    """(forward plan, backward plan) for the parsed arguments."""
    t, kw, target = problem(args)
    fwd = planner.plan_forward(t["q"], t["k"], t["v"], t["o_new"], t["stats"], **kw)
    bwd = planner.plan_backward(t["q"], t["k"], t["v"], t["o"], t["do"], t["stats"], t["dq"], t["dk"], t["dv"],
                                deterministic=args.deterministic, target=target, **kw)
    return fwd, bwd


def _arg(a) -> str:
    if isinstance(a, planner.Ref):
        return a.name
    if isinstance(a, planner.Desc):
        return f"desc({a.tensor} {list(a.shape)} block {list(a.block)})"
    return repr(a)


def format_plan(plan) -> str:
    title = "forward" if plan.direction == "fwd" else "backward"
    lines = [f"{title}: {plan.path}", f"  config: {plan.config if plan.config is not None else '- (a Gluon kernel)'}"]
    for i, s in enumerate(plan.steps, 1):
        lines.append(f"  launch {i}: {s.kernel} grid {tuple(s.grid)}")
        lines.append("    keywords: " + ", ".join(f"{k}={v!r}" for k, v in s.kwargs.items()))
        lines.append("    arguments: " + ", ".join(_arg(a) for a in s.args))
    if plan.buffers:
        lines.append("  side buffers:")
        for b in plan.buffers:
            what = (f"= {b.alias}" if b.fill == "alias" else
                    f"{b.dtype} {list(b.shape)}, part of {b.alias} from element {b.offset}" if b.fill == "part" else
                    f"{b.alias}'s keys {b.offset}..{b.offset + b.shape[2] - 1}"
                    + (", zeroed" if b.fill == "zero_view" else "") if b.fill in ("view", "zero_view") else
                    f"{b.dtype} {list(b.shape)}, {b.fill}")
            lines.append(f"    {b.name}: {what}")
    else:
        lines.append("  side buffers: none")
    lines.append("  not taken:")
    for path, why in plan.declined.items():
        lines.append(f"    {path}: " + "; ".join(why))
    return "\n".join(lines)


def cmd_explain(args) -> int:
    for plan in plans(args):
        print(format_plan(plan))
    return 0


def add_commands(sub) -> None:
    p = sub.add_parser("explain", help="the launch plan for a problem: path taken, why not the others, config, "
                                       "grids, side buffers (forward and backward; no GPU needed)")
    p.add_argument("--B", type=int, default=1)
    p.add_argument("--H", type=int, required=True, help="query heads")
    p.add_argument("--H-kv", dest="H_kv", type=int, help="K / V heads (GQA, MQA; default H)")
    p.add_argument("--S", type=int, required=True, help="query length")
    p.add_argument("--S-kv", dest="S_kv", type=int, help="key length (default S)")
    p.add_argument("--D", type=int, required=True, help="D_qk")
    p.add_argument("--Dv", type=int, help="D_v (default D)")
    p.add_argument("--dtype", choices=sorted(DTYPES), default="bf16")
    p.add_argument("--causal", action="store_true", help="right_bound 0, no left bound")
    p.add_argument("--left-bound", dest="left_bound", type=int)
    p.add_argument("--right-bound", dest="right_bound", type=int)
    p.add_argument("--alignment", choices=("top_left", "bottom_right"), default="top_left")
    p.add_argument("--scale", type=float, help="default 1 / sqrt(D)")
    p.add_argument("--layout", choices=("bhsd", "bshd", "sbhd"), default="bhsd")
    p.add_argument("--deterministic", action="store_true")
    p.add_argument("--device", choices=("sm90", "cpu"), default="sm90",
                   help="sm90: as on an H100 / H200; cpu: as under Triton's interpreter")
    p.add_argument("--sms", type=int, default=132, help="the GPU's SM count (sm90; default 132)")
    p.set_defaults(func=cmd_explain)
