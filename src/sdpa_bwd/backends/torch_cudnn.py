"""``torch-cudnn``: PyTorch SDPA's cuDNN backend (the speed to beat on Hopper)."""

from torch.nn.attention import SDPBackend

from .torch_sdpa import TorchSdpaEngine, sdpa_capabilities


class TorchCudnnEngine(TorchSdpaEngine):
    name = "torch-cudnn"
    description = "scaled_dot_product_attention, SDPBackend.CUDNN_ATTENTION"
    backend = SDPBackend.CUDNN_ATTENTION
    can_use = "can_use_cudnn_attention"
    capabilities = sdpa_capabilities(dtypes=("float16", "bfloat16"), max_head_dim=256)
