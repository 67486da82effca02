"""Engines under test, one module each, behind the protocol in ``base``.

Built-in engines register by name below; third-party engines plug in through
the ``sdpa_bwd.backends`` entry-point group (``name = "pkg.module:EngineClass"``
in their own package metadata), so a kernel author can check their engine
without forking this project.
"""

from __future__ import annotations

import importlib
from importlib.metadata import entry_points

from .base import Capabilities, Engine, Tensors

# name -> "module:Class", imported on first use so `sdpa-bwd info` stays cheap
# and a peer whose import fails cannot break the others.
_BUILTIN = {
    "reference": "sdpa_bwd.backends.reference:ReferenceEngine",
    "triton": "sdpa_bwd.backends.triton:TritonEngine",
    "triton-api": "sdpa_bwd.backends.triton_api:TritonApiEngine",
    "torch-math": "sdpa_bwd.backends.torch_math:TorchMathEngine",
    "torch-flash": "sdpa_bwd.backends.torch_flash:TorchFlashEngine",
    "torch-efficient": "sdpa_bwd.backends.torch_efficient:TorchEfficientEngine",
    "torch-cudnn": "sdpa_bwd.backends.torch_cudnn:TorchCudnnEngine",
    "torch-flex": "sdpa_bwd.backends.torch_flex:TorchFlexEngine",
    "torch-njt": "sdpa_bwd.backends.torch_njt:TorchNjtEngine",
    "torch-flash-cpu-op": "sdpa_bwd.backends.torch_flash_cpu_op:TorchFlashCpuOpEngine",
    "torch-cudnn-op": "sdpa_bwd.backends.torch_cuda_ops:TorchCudnnOpEngine",
    "torch-flash-op": "sdpa_bwd.backends.torch_cuda_ops:TorchFlashOpEngine",
    "torch-efficient-op": "sdpa_bwd.backends.torch_cuda_ops:TorchEfficientOpEngine",
    "torch-flash-varlen": "sdpa_bwd.backends.torch_flash_varlen:TorchFlashVarlenEngine",
}
_REGISTERED: dict[str, type] = {}


def register(cls: type) -> type:
    """Register an Engine subclass under ``cls.name`` (usable as a decorator)."""
    if not (isinstance(cls, type) and issubclass(cls, Engine)):
        raise ValueError(f"{cls!r} is not a subclass of sdpa_bwd.backends.Engine")
    _REGISTERED[cls.name] = cls
    return cls


def _plugin_targets() -> dict[str, str]:
    return {ep.name: ep.value for ep in entry_points(group="sdpa_bwd.backends")}


def engine_names() -> list[str]:
    names = dict.fromkeys(list(_BUILTIN) + list(_plugin_targets()) + list(_REGISTERED))
    return list(names)


def _no_engine(names) -> str:
    """What a caller hears for names that are no registered engine: the names, the choices, what to do."""
    return (f"no engine named {', '.join(map(repr, names))}; registered engines: {', '.join(engine_names())} - pass "
            "one of those, or register yours (an `sdpa_bwd.backends` entry point, docs/runner.md)")


def require_engines(names, command: str) -> None:
    """End ``sdpa-bwd COMMAND`` with one line (SystemExit) where a name is no registered engine, before any work
    starts for them."""
    unknown = [n for n in names if n not in engine_names()]
    if unknown:
        raise SystemExit(f"sdpa-bwd {command}: {_no_engine(unknown)}")


def get_engine(name: str) -> Engine:
    """An instance of the engine registered as ``name``."""
    if name in _REGISTERED:
        return _REGISTERED[name]()
    target = _BUILTIN.get(name) or _plugin_targets().get(name)
    if target is None:
        raise ValueError(_no_engine([name]))
    module, _, attr = target.partition(":")
    cls = getattr(importlib.import_module(module), attr)
    if not (isinstance(cls, type) and issubclass(cls, Engine)):
        raise ValueError(f"engine {name!r} -> {target} is not a subclass of sdpa_bwd.backends.Engine")
    return cls()


__all__ = ["Capabilities", "Engine", "Tensors", "engine_names", "get_engine", "register"]
