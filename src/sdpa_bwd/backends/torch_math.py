"""``torch-math``: PyTorch SDPA's math backend (composite ops, autograd), in the input dtype."""

from torch.nn.attention import SDPBackend

from .torch_sdpa import TorchSdpaEngine, sdpa_capabilities


class TorchMathEngine(TorchSdpaEngine):
    name = "torch-math"
    description = "torch.nn.functional.scaled_dot_product_attention, SDPBackend.MATH"
    backend = SDPBackend.MATH
    # It runs anywhere torch does (no dispatch check to ask). Deterministic: composite ops, no atomics.
    capabilities = sdpa_capabilities(devices=("cpu", "cuda"), deterministic=True, notes="computes in the input dtype")

    def device(self) -> str:
        import torch

        return "cuda" if torch.cuda.is_available() else "cpu"
