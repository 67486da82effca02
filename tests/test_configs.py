"""The launch's config table: the 192/128 configs measured on the H200 are for 16-bit dtypes only."""

import torch

from sdpa_bwd import launch


def test_fp32_192_128_keeps_the_hd256_configs_that_fit_shared_memory():
    # Device run 2026-12-01: the 16-bit 192/128 tiles asked for 272-320 KiB of shared memory in fp32
    # (the H200 has 227 KiB) on plan cases pair-025 and pair-070.
    for det in (False, True):
        assert launch.backward_config(256, 128, torch.float32, "cuda", det) == \
            launch.backward_config(256, 256, torch.float32, "cuda", det)
    assert launch.forward_config(256, 128, torch.float32, "cuda") == launch.forward_config(256, 256, torch.float32, "cuda")


def test_bf16_192_128_has_its_measured_configs():
    cfg = launch.backward_config(256, 128, torch.bfloat16, "cuda", False)
    assert (cfg.block_m1, cfg.block_n1, cfg.block_m2, cfg.block_n2, cfg.num_stages) == (64, 64, 128, 32, 2)
    assert launch.forward_config(256, 128, torch.float16, "cuda") == launch.ForwardConfig(64, 64, 4, 3, head_group=4)


def test_fp32_forward_uses_the_small_tiles_at_every_head_dim():
    """fp32 dots are FMA loops: the 16-bit forward tiles only cost compile time (13 s a kernel at hd128)
    and shared memory (229,888 of 232,448 B); every fp32 head dim gets the hd256 config, which runs."""
    small = launch.forward_config(256, 256, torch.float32, "cuda")
    assert small == launch.ForwardConfig(64, 32, 4, 2)
    for d in (16, 32, 64, 128):
        assert launch.forward_config(d, d, torch.float32, "cuda") == small
    assert launch.forward_config(128, 128, torch.bfloat16, "cuda") == launch.ForwardConfig(128, 64, 8, 3, head_group=4)
