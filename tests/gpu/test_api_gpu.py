"""Our engine through the door users use, on the GPU: ``sdpa_bwd.attention`` under autograd, each test in a
fresh process (nothing that ran before it can set up state it depends on, such as Triton's allocator on the
thread that launches, issue 51).

* every kernel path the launcher chooses by default (``PATHS``; ``tests/test_api_paths.py`` checks on the CPU
  that every kernel the launcher can launch has one), forward and backward, with the kernels each launched;
* a random-layout fuzz against the float64 oracle (``--api-fuzz-seed``, ``--api-fuzz-cases``);
* ``torch.compile(fullgraph=True)`` of a small transformer block on views of one fused QKV projection;
* two Python threads calling forward + backward at once;
* deterministic mode: no more fill launches than the default mode, gradients bitwise repeatable;
* the varlen level's claims and regressions (packed sequences, ``cu_seqlens_*``) through the launcher and the API.

Run on the device machine: ``PYTHONPATH=src python3 -m pytest -q -m gpu tests/gpu/test_api_gpu.py``.
"""

from __future__ import annotations

import multiprocessing
import os
import sys
from concurrent.futures import ProcessPoolExecutor

import pytest
import torch

sys.path.insert(0, os.path.dirname(os.path.dirname(__file__)))

from api_paths import PATHS  # noqa: E402

pytestmark = [pytest.mark.gpu, pytest.mark.skipif(not torch.cuda.is_available(), reason="needs a CUDA device")]


def in_fresh_process(fn, *args):
    """``fn(*args)`` in a new Python process (spawned: no CUDA context, no Triton state, no threads inherited)."""
    with ProcessPoolExecutor(max_workers=1, mp_context=multiprocessing.get_context("spawn")) as pool:
        return pool.submit(fn, *args).result(timeout=900)


# ----------------------------------------------------------------------------
# Every path


def _run_path(name: str) -> dict:
    """Forward + backward of ``PATHS[name]`` through the API; the kernels launched; the verdict."""
    import re

    from sdpa_bwd.engine import launch, launch_cache
    from sdpa_bwd.backends import get_engine
    from sdpa_bwd.conformance.runner import run_case

    # By object, not by __name__: a kernel's _any_len twin wraps the same Python function.
    names = {}
    for module in (launch, launch.attention_fwd_gluon, launch.attention_bwd_gluon, launch.attention_bwd_gluon_192):
        for n, obj in vars(module).items():
            if re.fullmatch(r"attention_\w+_kernel(_any_len)?", n):
                names.setdefault(id(obj), n)
    launched = []
    real = launch_cache.Recorder.launch

    def spy(self, fn, *a, **kw):
        launched.append(names.get(id(fn), repr(fn)))
        return real(self, fn, *a, **kw)

    launch_cache.Recorder.launch = spy
    case, _ = PATHS[name]
    result = run_case(get_engine("triton-api"), case, reruns=2 if case.deterministic else 1)
    return {"verdict": result.verdict, "message": result.message, "kernels": sorted(set(launched))}


@pytest.mark.parametrize("name", sorted(PATHS))
def test_every_path_through_the_public_api(name):
    got = in_fresh_process(_run_path, name)
    _, kernels = PATHS[name]
    assert got["verdict"] == "passed", f"{name}: {got['verdict']}: {got['message']}"
    assert set(got["kernels"]) == set(kernels), (
        f"{name}: launched {got['kernels']}, the table says {sorted(kernels)}: the launcher's routing moved; "
        "fix the case so it reaches the path it names, or the table's kernels")


# ----------------------------------------------------------------------------
# Fuzz


def _fuzz(seed: int, count: int, part: int, parts: int) -> list:
    from api_fuzz import random_cases

    from sdpa_bwd.backends import get_engine
    from sdpa_bwd.conformance.runner import run_case

    engine = get_engine("triton-api")
    bad = []
    for case in random_cases(seed, count, max_seq=700)[part::parts]:
        r = run_case(engine, case, reruns=2 if case.deterministic else 1)
        if r.verdict != "passed":
            bad.append(f"{case.describe()} (seed {case.seed}): {r.verdict}: {r.message[:400]}")
    return bad


def test_random_layouts_through_the_public_api(request):
    seed, count = request.config.getoption("--api-fuzz-seed"), request.config.getoption("--api-fuzz-cases")
    # Most of a case's time is Triton compiling its kernels (CPU-bound), so the cases go to fresh processes in
    # parallel, each taking every parts-th case.
    parts = max(1, min(8, (os.cpu_count() or 1) // 2))
    with ProcessPoolExecutor(max_workers=parts, mp_context=multiprocessing.get_context("spawn")) as pool:
        bad = sum((f.result(timeout=1800) for f in [pool.submit(_fuzz, seed, count, i, parts)
                                                     for i in range(parts)]), [])
    assert not bad, f"{len(bad)} of {count} random cases (seed {seed}) not passed:\n" + "\n".join(bad)


# ----------------------------------------------------------------------------
# torch.compile of a transformer block


def _compiled_block() -> dict:
    import torch.nn.functional as F

    import sdpa_bwd

    torch.manual_seed(0)
    B, S, H, D, E = 2, 256, 4, 64, 256

    class Block(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.norm = torch.nn.LayerNorm(E)
            self.qkv = torch.nn.Linear(E, 3 * H * D)
            self.out = torch.nn.Linear(H * D, E)

        def forward(self, x, attend):
            qkv = self.qkv(self.norm(x)).view(B, S, 3, H, D)
            q, k, v = (qkv[:, :, i].transpose(1, 2) for i in range(3))  # BSHD views of one buffer
            o = attend(q, k, v)
            return x + self.out(o.transpose(1, 2).reshape(B, S, H * D))

    ours = lambda q, k, v: sdpa_bwd.attention(q, k, v, causal=True)  # noqa: E731
    theirs = lambda q, k, v: F.scaled_dot_product_attention(q, k, v, is_causal=True)  # noqa: E731
    block = Block().cuda().to(torch.bfloat16)
    x = torch.randn(B, S, E, device="cuda", dtype=torch.bfloat16)

    def grads(fn, module):
        module.zero_grad()
        xx = x.clone().requires_grad_()
        fn(xx).float().square().mean().backward()
        return [xx.grad.double()] + [p.grad.double() for p in module.parameters()]

    compiled = torch.compile(lambda xx: block(xx, ours), fullgraph=True)
    got = grads(compiled, block)
    eager = grads(lambda xx: block(xx, ours), block)
    ref_block = Block().cuda().double()
    ref_block.load_state_dict(block.state_dict())
    ref = grads(lambda xx: ref_block(xx.double(), theirs), ref_block)

    def rel(a, b):
        return max(((x - y).norm() / y.norm().clamp_min(1e-30)).item() for x, y in zip(a, b))

    return {"compiled_vs_eager": rel(got, eager), "compiled_vs_fp64": rel(got, ref), "eager_vs_fp64": rel(eager, ref)}


def test_torch_compile_fullgraph_of_a_block_on_fused_qkv_views():
    got = in_fresh_process(_compiled_block)
    # bf16 activations and weights: the eager bf16 block against float64 is the same-precision bound.
    assert got["compiled_vs_fp64"] <= 2 * got["eager_vs_fp64"] + 1e-3, got
    assert got["compiled_vs_eager"] <= 5e-2, got


# ----------------------------------------------------------------------------
# Threads


def _two_threads() -> list:
    import threading

    from sdpa_bwd.problem.cases import Case
    from sdpa_bwd.backends import get_engine
    from sdpa_bwd.conformance.runner import run_case

    engine = get_engine("triton-api")
    cases = [Case("thread-a", B=2, H_q=4, S_q=300, D_qk=96, dtype="bfloat16", right_bound=0, seed=1),
             Case("thread-b", B=1, H_q=8, H_k=2, S_q=257, S_kv=513, D_qk=128, dtype="float16", seed=2)]
    out: list = [None, None]
    barrier = threading.Barrier(2)

    def body(i):
        barrier.wait()
        for _ in range(3):
            r = run_case(engine, cases[i])
            if r.verdict != "passed":
                out[i] = f"{cases[i].id}: {r.verdict}: {r.message[:300]}"
                return
        out[i] = "passed"

    threads = [threading.Thread(target=body, args=(i,)) for i in range(2)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    return out


def test_two_threads_call_forward_and_backward_at_once():
    assert in_fresh_process(_two_threads) == ["passed", "passed"]


# ----------------------------------------------------------------------------
# Deterministic mode's allocations (engine.alloc)


_EMPTY_OPS = ("aten::empty", "aten::empty_like", "aten::empty_strided")


def _deterministic_fills() -> dict:
    """A forward + backward through the API at two hd128 shapes (one Gluon causal, one GQA) in deterministic mode and
    in the default mode: on a repeated call, the NaN fills deterministic mode gives a ``torch.empty`` (``fill_``
    inside an empty op) and the ``zero_`` calls (buffers the kernels accumulate or count in: deterministic mode's
    turn counters); and whether the deterministic gradients are bitwise those of a second call and within bf16
    rounding of the default's. (On a GPU a ``zero_`` runs a ``fill_`` inside it, so counting every fill counted
    the turn counters' one zero twice, H100, 2026-12-06.)"""
    from torch.profiler import ProfilerActivity, profile

    import sdpa_bwd

    out = {}
    for name, (B, H_q, H_kv, S) in {"causal": (1, 4, 4, 512), "gqa": (1, 8, 2, 384)}.items():
        gen = torch.Generator(device="cuda").manual_seed(0)
        q = torch.randn(B, H_q, S, 128, device="cuda", generator=gen).bfloat16().requires_grad_()
        k, v = (torch.randn(B, H_kv, S, 128, device="cuda", generator=gen).bfloat16().requires_grad_()
                for _ in range(2))
        do = torch.randn(B, H_q, S, 128, device="cuda", generator=gen).bfloat16()

        def step():
            return torch.autograd.grad(sdpa_bwd.attention(q, k, v, causal=True), (q, k, v), do)

        row = {}
        for det in (True, False):
            torch.use_deterministic_algorithms(det)
            try:
                first = step()
                with profile(activities=[ProfilerActivity.CPU], record_shapes=True) as prof:
                    again = step()
                    torch.cuda.synchronize()
            finally:
                torch.use_deterministic_algorithms(False)
            mode = "det" if det else "default"
            events = [e for e in prof.events() if e.input_shapes and e.input_shapes[0] and 0 not in e.input_shapes[0]]
            row[f"nan_fills_{mode}"] = sum(1 for e in events if e.name == "aten::fill_" and e.cpu_parent is not None
                                           and e.cpu_parent.name in _EMPTY_OPS)
            row[f"zeros_{mode}"] = sum(1 for e in events if e.name == "aten::zero_")
            if det:
                row["bitwise"] = all(torch.equal(a, b) for a, b in zip(first, again))
                det_grads = again
            else:
                row["rel"] = max(((a.float() - b.float()).norm() / b.float().norm()).item()
                                 for a, b in zip(det_grads, again))
        out[name] = row
    return out


def test_deterministic_mode_allocates_without_fills_and_stays_bitwise():
    got = in_fresh_process(_deterministic_fills)
    for name, row in got.items():
        assert row["nan_fills_det"] == 0, (
            f"{name}: deterministic mode NaN-filled {row['nan_fills_det']} buffers (its rule for torch.empty): some "
            f"buffer is allocated with torch.empty again - allocate it with engine.alloc ({row})")
        assert row["bitwise"], f"{name}: deterministic gradients differ between two calls"
        assert row["rel"] < 2e-2, f"{name}: deterministic gradients {row['rel']:.3g} from the default's (bf16)"


def _memory_left_after_calls() -> dict:
    """CUDA memory still allocated after forward + backward calls through the API at three call keys (hd128 bf16
    causal: the Gluon kernels and their host TMA descriptors), every tensor of the calls dropped."""
    import gc

    import sdpa_bwd

    torch.cuda.synchronize()
    before = torch.cuda.memory_allocated()
    for S in (1024, 1536, 2048):  # a call key each: a plan recorded each
        q, k, v = (torch.randn(2, 8, S, 128, device="cuda", dtype=torch.bfloat16, requires_grad=True)
                   for _ in range(3))
        torch.autograd.grad(sdpa_bwd.attention(q, k, v, causal=True), (q, k, v), torch.randn_like(q))
        del q, k, v
    gc.collect()
    torch.cuda.synchronize()
    return {"before": before, "after": torch.cuda.memory_allocated()}


def test_the_api_keeps_no_call_tensors_alive():
    # The launch cache's plans kept each Gluon descriptor's base (the recorded call's tensor) alive, one call's
    # tensors per call key (2026-12-06); here each of a call's inputs is 4-8 MiB.
    got = in_fresh_process(_memory_left_after_calls)
    assert got["after"] - got["before"] < 1 << 20, (
        f"{(got['after'] - got['before']) >> 20} MiB still allocated after three calls whose tensors were all "
        "dropped: something the engine keeps between calls holds a call's tensor - keep no tensor in a cache")


# ----------------------------------------------------------------------------
# Packed variable-length sequences


def _varlen_level(part: int, parts: int) -> list:
    """Every ``parts``-th of the varlen level's claims and regressions, from ``part``, on the launcher's door and
    the API's (GPU kernels, GPU sizes of the level: a few hundred tokens), each miss with its verdict and message.
    Bits that change between two runs miss only where the case asked for determinism (GQA's dK / dV reductions
    are atomic by default)."""
    from sdpa_bwd.backends import get_engine
    from sdpa_bwd.conformance.plan.ragged import claim_cases, regression_cases
    from sdpa_bwd.conformance.runner import run_case

    bad = []
    for engine in ("triton", "triton-api"):
        for case in (claim_cases() + regression_cases())[part::parts]:
            r = run_case(get_engine(engine), case, reruns=2)
            if r.verdict != "passed" and (r.verdict != "nondeterministic" or r.deterministic_requested):
                bad.append(f"{engine} {case.id} ({case.describe()}): {r.verdict}: {r.message[:300]}")
    return bad


def test_packed_sequences_through_both_doors():
    # Serially the two doors' ~60 cases compile ~120 kernels (~5 minutes on an H100's host, 2026-12-06): the
    # cases go to fresh processes in parallel, as the fuzz's do.
    parts = max(1, min(8, (os.cpu_count() or 1) // 2))
    with ProcessPoolExecutor(max_workers=parts, mp_context=multiprocessing.get_context("spawn")) as pool:
        bad = sum((f.result(timeout=900) for f in [pool.submit(_varlen_level, i, parts) for i in range(parts)]), [])
    assert not bad, "\n".join(bad)


def _nested_against_packed() -> dict:
    """Nested jagged q, k, v (B, H, j, D) through the API against the packed call on their values and offsets: each
    of O, dQ, dK, dV's largest difference relative to its largest value, and whether each came back nested."""
    import sdpa_bwd

    gen = torch.Generator(device="cuda").manual_seed(66)
    lens_q, lens_kv = [300, 0, 777, 5], [512, 64, 900, 70]

    def nested(lengths, H, offsets=None):
        values = torch.randn(sum(lengths), H, 128, device="cuda", dtype=torch.bfloat16, generator=gen)
        if offsets is None:
            offsets = torch.tensor([0] + torch.tensor(lengths).cumsum(0).tolist(), device="cuda")
        return torch.nested.nested_tensor_from_jagged(values, offsets).transpose(1, 2).detach().requires_grad_()

    q, k = nested(lens_q, 8), nested(lens_kv, 2)
    v = nested(lens_kv, 2, k.transpose(1, 2).offsets())
    o = sdpa_bwd.attention(q, k, v, causal=True, alignment="bottom_right")
    do = torch.nested.nested_tensor_from_jagged(torch.randn_like(o.transpose(1, 2).values()),
                                                q.transpose(1, 2).offsets()).transpose(1, 2)
    grads = torch.autograd.grad(o, (q, k, v), do)
    flat = [t.transpose(1, 2).values().detach().requires_grad_() for t in (q, k, v)]
    cu = [t.transpose(1, 2).offsets().to(torch.int32) for t in (q, k)]
    o_ref = sdpa_bwd.attention(*flat, causal=True, alignment="bottom_right", cu_seqlens_q=cu[0], cu_seqlens_kv=cu[1])
    refs = torch.autograd.grad(o_ref, flat, do.transpose(1, 2).values())
    out = {}
    for name, got, ref in zip(("o", "dq", "dk", "dv"), (o, *grads), (o_ref, *refs)):
        vals = got.transpose(1, 2).values().float()
        out[name] = (got.is_nested, (vals - ref.float()).abs().max().item() / max(ref.float().abs().max().item(), 1e-6))
    return out


def test_nested_jagged_tensors_through_the_public_api():
    """Nested jagged inputs on the GPU: O a nested tensor, gradients nested to the nested inputs, each within bf16
    summation-order noise of the packed call's (the nested call's offsets stay on the device, their lengths cached
    by the nested tensors; the packed call's are read on the host); causal bottom-right, lengths that differ between
    queries and keys, an empty sequence."""
    got = in_fresh_process(_nested_against_packed)
    for name, (nested, err) in got.items():
        assert nested, f"{name} came back a dense tensor: nested inputs give nested outputs"
        assert err < 1e-2, f"{name} is {err:.2e} (relative to its largest) off the packed call's"


def _autocast_against_sdpa() -> dict:
    """fp32 q, k, v under CUDA autocast (bf16), through the API and through SDPA (cuDNN or whichever it picks): both
    outputs' dtypes, the largest difference between them relative to SDPA's largest, and the gradients' dtypes."""
    import torch.nn.functional as F

    import sdpa_bwd

    gen = torch.Generator(device="cuda").manual_seed(67)
    q, k, v = (torch.randn(2, 8, 1000, 128, device="cuda", generator=gen).requires_grad_() for _ in range(3))
    with torch.autocast("cuda", dtype=torch.bfloat16):
        o = sdpa_bwd.attention(q, k, v, causal=True)
        ref = F.scaled_dot_product_attention(q, k, v, is_causal=True)
    grads = torch.autograd.grad(o, (q, k, v), torch.randn_like(o))
    err = (o.float() - ref.float()).abs().max().item() / ref.float().abs().max().item()
    return dict(dtypes=(o.dtype, ref.dtype), err=err, grad_dtypes=[g.dtype for g in grads])


def test_autocast_gives_sdpas_dtype():
    got = in_fresh_process(_autocast_against_sdpa)
    assert got["dtypes"][0] == got["dtypes"][1] == torch.bfloat16, f"O's dtype and SDPA's under autocast: {got}"
    assert got["err"] < 2e-2, f"O is {got['err']:.2e} (relative) off SDPA's under autocast"
    assert got["grad_dtypes"] == [torch.float32] * 3, got


def _per_sample_gradients_against_sdpa() -> dict:
    """Per-sample gradients through torch.func (vmap of grad) on CUDA bf16, ours and SDPA's (its own vmap rule); each
    gradient's largest difference relative to SDPA's largest, and the dims ours came back in."""
    import torch.nn.functional as F

    import sdpa_bwd

    gen = torch.Generator(device="cuda").manual_seed(71)
    x = torch.randn(6, 1, 8, 777, 128, device="cuda", dtype=torch.bfloat16, generator=gen)
    loss = lambda f: lambda q, k, v: f(q, k, v).float().square().sum()  # noqa: E731
    ours = torch.func.vmap(torch.func.grad(loss(lambda q, k, v: sdpa_bwd.attention(q, k, v, causal=True)),
                                           argnums=(0, 1, 2)))(x, x.flip(-2), x * 0.5)
    ref = torch.func.vmap(torch.func.grad(loss(lambda q, k, v: F.scaled_dot_product_attention(q, k, v, is_causal=True)),
                                          argnums=(0, 1, 2)))(x, x.flip(-2), x * 0.5)
    return {name: (tuple(a.shape), (a.float() - b.float()).abs().max().item() / b.float().abs().max().item())
            for name, a, b in zip(("dq", "dk", "dv"), ours, ref)}


def test_per_sample_gradients_through_torch_func():
    got = in_fresh_process(_per_sample_gradients_against_sdpa)
    for name, (dims, err) in got.items():
        assert dims == (6, 1, 8, 777, 128), f"per-sample {name} of dims {dims}"
        assert err < 2e-2, f"per-sample {name} is {err:.2e} (relative to its largest) off SDPA's through torch.func"


_MALFORMED_ON_DEVICE = """
import torch, sdpa_bwd
x = torch.randn(9, 1, 16, device="cuda", dtype=torch.bfloat16)
cu_q = torch.tensor([0, 6, 4], dtype=torch.int32, device="cuda")  # a decreasing step
cu_kv = torch.tensor([0, 4, 9], dtype=torch.int32, device="cuda")
sdpa_bwd.attention(x, x, x, cu_seqlens_q=cu_q, cu_seqlens_kv=cu_kv, max_seqlen_q=9, max_seqlen_kv=9)
torch.cuda.synchronize()
print("NOT STOPPED")
"""


def test_malformed_device_offsets_stop_the_stream():
    """Offsets on the device with max_seqlen_* are checked there (``varlen.on_device``): a decreasing step stops
    the stream with a device-side assertion at the next synchronisation. In a subprocess: the CUDA context is
    unusable after it."""
    import subprocess

    env = dict(os.environ, PYTHONPATH=os.pathsep.join(filter(None, ["src", os.environ.get("PYTHONPATH")])))
    done = subprocess.run([sys.executable, "-c", _MALFORMED_ON_DEVICE], capture_output=True, text=True, env=env,
                          timeout=300)
    said = done.stdout + done.stderr
    assert done.returncode != 0 and "NOT STOPPED" not in said, f"a malformed batch ran to the end:\n{said[-2000:]}"
    assert "assert" in said.lower(), f"the call stopped, but not at the device-side assertion:\n{said[-2000:]}"


_DATALOADER_LOOP = """
import sys
import torch, torch.nn.functional as F
from torch.utils.data import DataLoader, Dataset
import sdpa_bwd


class Batches(Dataset):
    def __len__(self):
        return 6

    def __getitem__(self, i):
        g = torch.Generator().manual_seed(1000 + i)
        return tuple(torch.randn(2, 8, 512, 128, generator=g).bfloat16() for _ in range(4))


def step(q, k, v, do):
    qg, kg, vg = (t.cuda(non_blocking=True).requires_grad_() for t in (q, k, v))
    do = do.cuda(non_blocking=True)
    got = (sdpa_bwd.attention(qg, kg, vg, causal=True),) + torch.autograd.grad(
        sdpa_bwd.attention(qg, kg, vg, causal=True), (qg, kg, vg), do)
    q64, k64, v64 = (t.double().requires_grad_() for t in (qg, kg, vg))
    o64 = F.scaled_dot_product_attention(q64, k64, v64, is_causal=True)
    want = (o64,) + torch.autograd.grad(o64, (q64, k64, v64), do.double())
    for name, a, b in zip(("o", "dq", "dk", "dv"), got, want):
        rel = ((a.double() - b).norm() / b.norm()).item()
        assert rel < 2e-2, f"{name}: {rel:.3g} from float64 in a loop fed by DataLoader workers"


if __name__ == "__main__":
    step(*Batches()[0])  # the API runs before the workers start: a forked worker inherits its state
    loader = DataLoader(Batches(), batch_size=None, num_workers=2, multiprocessing_context=sys.argv[1],
                        pin_memory=True, timeout=300)
    n = sum(step(*b) is None for b in loader)
    torch.cuda.synchronize()
    print("LOOP OK", n)
"""


@pytest.mark.parametrize("context", ["fork", "spawn"])
def test_a_training_loop_fed_by_dataloader_workers(context, tmp_path):
    """The loop users write: a DataLoader with worker processes (forked after the API has run in the parent, or
    spawned) and pinned memory feeding forward + backward through ``sdpa_bwd.attention`` on the GPU. In a
    subprocess with its own main module (spawned workers import it)."""
    import subprocess

    script = tmp_path / "loop.py"
    script.write_text(_DATALOADER_LOOP)
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(filter(None, [os.path.abspath("src"),
                                                                     os.environ.get("PYTHONPATH")])))
    done = subprocess.run([sys.executable, str(script), context], capture_output=True, text=True, env=env,
                          timeout=600)
    said = done.stdout + done.stderr
    assert done.returncode == 0 and "LOOP OK 6" in said, f"the loop fed by {context}ed workers failed:\n{said[-3000:]}"
