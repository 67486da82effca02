"""``torch-flash``: PyTorch SDPA's FlashAttention-2 backend."""

from torch.nn.attention import SDPBackend

from .torch_sdpa import TorchSdpaEngine, sdpa_capabilities


class TorchFlashEngine(TorchSdpaEngine):
    name = "torch-flash"
    description = "scaled_dot_product_attention, SDPBackend.FLASH_ATTENTION (FlashAttention-2)"
    backend = SDPBackend.FLASH_ATTENTION
    can_use = "can_use_flash_attention"
    capabilities = sdpa_capabilities(dtypes=("float16", "bfloat16"), max_head_dim=256,
                                     distinct_head_dims=False)
