"""Measured autotuning of the Triton engine's tile configs, with a cached key.

Off unless ``SDPA_BWD_AUTOTUNE=1`` (or ``enable(True)``): the built-in tables in
``launch.backward_config`` / ``launch.forward_config`` are what the H200
measurements in docs/perf-log.md chose. With it on, the first call of each key
times every candidate config on the call's own tensors (``triton.testing.do_bench``)
and keeps the fastest; later calls of the key reuse it, also in later processes
through a JSON cache file. Nothing is timed at import.

Key: device name, Triton version, dtype, padded head dims, the band's kind (none,
causal-like right bound only, other), whether K/V heads are shared (GQA), the
deterministic flag, and the longer sequence length rounded up to a power of two
(128 .. 16384). Candidates that fail to compile (shared memory, registers) are
skipped and recorded as such; a key whose candidates all fail falls back to the table.

Cache file: ``$SDPA_BWD_TUNE_CACHE``, else ``~/.cache/sdpa-bwd/tuning.json``.
"""

from __future__ import annotations

import dataclasses
import json
import os
import threading
from pathlib import Path
from typing import Callable, Optional, Sequence

_lock = threading.Lock()
_enabled: Optional[bool] = None
_memory: dict[str, dict] = {}
_loaded_from: Optional[Path] = None


def enabled() -> bool:
    if _enabled is not None:
        return _enabled
    return os.environ.get("SDPA_BWD_AUTOTUNE", "0") not in ("", "0")


def enable(on: Optional[bool]) -> None:
    """Turn autotuning on or off for this process (None: back to $SDPA_BWD_AUTOTUNE)."""
    global _enabled
    _enabled = on


def cache_path() -> Path:
    env = os.environ.get("SDPA_BWD_TUNE_CACHE")
    return Path(env) if env else Path.home() / ".cache" / "sdpa-bwd" / "tuning.json"


def _load() -> None:
    global _loaded_from
    path = cache_path()
    if _loaded_from == path:
        return
    _memory.clear()
    _loaded_from = path
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return
    if isinstance(data, dict) and data.get("schema") == "sdpa-bwd.tuning/1":
        _memory.update(data.get("entries", {}))


def _save() -> None:
    path = cache_path()
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        tmp = path.with_suffix(".tmp")
        tmp.write_text(json.dumps({"schema": "sdpa-bwd.tuning/1", "entries": _memory}, indent=1, sort_keys=True),
                       encoding="utf-8")
        tmp.replace(path)
    except OSError:
        pass  # a read-only home: the choice still lives for this process


def length_bucket(n: int) -> int:
    b = 128
    while b < n and b < 16384:
        b *= 2
    return b


def make_key(kind: str, *, device: str, dtype, d_qk_pad: int, d_v_pad: int, band: str, gqa: bool,
             deterministic: bool, seq: int) -> str:
    import triton

    return "|".join([kind, device, f"triton {triton.__version__}", str(dtype).replace("torch.", ""),
                     f"d{d_qk_pad}/{d_v_pad}", band, "gqa" if gqa else "mha",
                     "det" if deterministic else "default", f"s{length_bucket(seq)}"])


def choose(key: str, candidates: Sequence, run: Callable[[object], object], config_type,
           timer: Optional[Callable[[Callable[[], object]], float]] = None):
    """The fastest of ``candidates`` for ``key`` (a config), timing them once per key.

    ``run(cfg)`` performs one call with that config; ``timer(fn)`` returns its time
    in ms (default: ``triton.testing.do_bench``, median). Returns None when every
    candidate failed, so the caller keeps its table's config.
    """
    with _lock:
        _load()
        hit = _memory.get(key)
    if hit is not None:
        return config_type(**hit["config"]) if hit.get("config") else None
    if timer is None:
        import triton

        def timer(fn):
            return triton.testing.do_bench(fn, warmup=5, rep=20, return_mode="median")

    timings, failures, best = [], [], None
    for cfg in candidates:
        try:
            ms = timer(lambda: run(cfg))
        except Exception as exc:  # a candidate that does not compile or launch here
            failures.append({"config": dataclasses.asdict(cfg), "error": f"{type(exc).__name__}: {str(exc)[:160]}"})
            continue
        timings.append({"config": dataclasses.asdict(cfg), "ms": ms})
        if best is None or ms < best[1]:
            best = (cfg, ms)
    entry = {"config": dataclasses.asdict(best[0]) if best else None, "timings": timings, "failures": failures}
    with _lock:
        _memory[key] = entry
        _save()
    return best[0] if best else None


def forget() -> None:
    """Drop the in-memory choices (the file stays); for tests."""
    global _loaded_from
    with _lock:
        _memory.clear()
        _loaded_from = None
