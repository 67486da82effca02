"""``sdpa_bwd.attention`` in a training loop fed by a ``torch.utils.data.DataLoader`` with worker processes, as
users run it: the loader's workers forked (and spawned) from a process that has already run forward + backward
through the API (its launch cache, compiled kernels and locks are what a forked worker inherits), and the API
called inside the workers too (a dataset that precomputes with attention). Under Triton's interpreter on the CPU;
``tests/gpu/test_api_gpu.py::test_a_training_loop_fed_by_dataloader_workers`` is the CUDA twin."""

import pytest
import torch
import torch.nn.functional as F
from torch.utils.data import DataLoader, Dataset

import sdpa_bwd

pytest.importorskip("triton")

SHAPE = (1, 2, 16, 16)  # B, H, S, D: interpreter sizes


class Batches(Dataset):
    """Q, K, V and dO of one small causal problem per index; with ``precompute``, also the API's forward of them,
    computed in the worker process."""

    def __init__(self, n: int, precompute: bool):
        self.n, self.precompute = n, precompute

    def __len__(self):
        return self.n

    def __getitem__(self, i):
        g = torch.Generator().manual_seed(1000 + i)
        q, k, v, do = (torch.randn(*SHAPE, generator=g) for _ in range(4))
        o = sdpa_bwd.attention(q, k, v, causal=True) if self.precompute else torch.empty(0)
        return q, k, v, do, o


def _check(q, k, v, do, o_worker):
    """Forward + backward through the API against PyTorch's math SDPA in float64, and the worker's forward."""
    qg, kg, vg = (t.detach().requires_grad_() for t in (q, k, v))
    o = sdpa_bwd.attention(qg, kg, vg, causal=True)
    grads = torch.autograd.grad(o, (qg, kg, vg), do)
    q64, k64, v64 = (t.double().requires_grad_() for t in (q, k, v))
    o64 = F.scaled_dot_product_attention(q64, k64, v64, is_causal=True)
    want = torch.autograd.grad(o64, (q64, k64, v64), do.double())
    for name, got, ref in zip(("o", "dq", "dk", "dv"), (o,) + grads, (o64,) + want):
        err = (got.double() - ref).abs().max().item()
        assert err < 1e-4, f"{name} off by {err:.3g} from float64 math SDPA: the API gave a wrong result in the loop"
    if o_worker.numel():
        err = (o_worker.double() - o64).abs().max().item()
        assert err < 1e-4, f"the worker process's forward is off by {err:.3g}: attention in a DataLoader worker"


@pytest.mark.parametrize("context", ["fork", "spawn"])
@pytest.mark.parametrize("precompute", [False, True], ids=["main-only", "in-workers-too"])
def test_a_training_loop_fed_by_dataloader_workers(context, precompute):
    # The main process runs the API first, so that a forked worker inherits a warm launch cache and Triton state.
    q, k, v, do, _ = Batches(1, False)[0]
    _check(q, k, v, do, torch.empty(0))
    loader = DataLoader(Batches(4, precompute), batch_size=None, num_workers=2, multiprocessing_context=context,
                        timeout=300)
    seen = 0
    for q, k, v, do, o_worker in loader:
        _check(q, k, v, do, o_worker)
        seen += 1
    assert seen == 4
