"""``torch-efficient``: PyTorch SDPA's memory-efficient (CUTLASS) backend."""

from torch.nn.attention import SDPBackend

from .torch_sdpa import TorchSdpaEngine, sdpa_capabilities


class TorchEfficientEngine(TorchSdpaEngine):
    name = "torch-efficient"
    description = "scaled_dot_product_attention, SDPBackend.EFFICIENT_ATTENTION (CUTLASS)"
    backend = SDPBackend.EFFICIENT_ATTENTION
    can_use = "can_use_efficient_attention"
    capabilities = sdpa_capabilities(dtypes=("float16", "bfloat16", "float32"))
