"""Which Triton kernels a case compiled, and which it loaded from Triton's disk cache.

A warm run should compile nothing; a case that takes seconds where it took a tenth of
one in the last run usually compiled. :class:`CompileWatch` hooks Triton's compilation
listener (``triton.knobs.compilation.listener``, Triton >= 3.4) for the length of a
``with`` block and counts what Triton's ``compile()`` did:

* ``compiled``: kernels built from source (a disk-cache miss), with the seconds Triton
  spent and, for the first few, the kernel's name and specialisation, its cache hash, its own seconds and a
  short digest of each part of Triton's cache key (``fn`` source, ``attrs``, ``sig``,
  ``const``, ``backend``, ``opts``, ``env``), so that a warm run's recompile can be set
  beside its cold compile part by part (that is how the Triton 3.6 key-order bug that
  ``sdpa_bwd.engine.kernels`` works around was found);
* ``loaded``: kernels found in the disk cache (first use in this process).

Kernels already in the process's in-memory cache never reach ``compile()`` and are not
counted. Before Triton is imported, under ``TRITON_INTERPRET=1`` (the interpreter compiles nothing),
or on a Triton without the listener, the watch records nothing and says so in ``None``.
"""

from __future__ import annotations

import hashlib
import os
import sys
import threading
from typing import Any, Optional

KEEP = 6  # compiled kernels described per case; the rest are only counted

_lock = threading.Lock()


def _knobs():
    """Triton's compilation knobs, where Triton is already imported: an engine that never imported
    Triton compiles nothing with it, and the watch does not import it for them (0.2 s a process)."""
    if "triton" not in sys.modules:
        return None
    try:
        from triton import knobs
    except ImportError:
        return None
    compilation = getattr(knobs, "compilation", None)
    return compilation if compilation is not None and hasattr(compilation, "listener") else None


def describe_source(src: Any) -> str:
    """A kernel's name and specialisation, short: ``_dkdv[BLOCK_M=64, H_q=1, q:16]`` (constexprs and
    arguments specialised to a value, then the arguments Triton assumed divisible by 16)."""
    fn = getattr(src, "fn", None)
    name = getattr(src, "name", None) or getattr(fn, "__name__", None) or type(src).__name__
    names = list(getattr(fn, "arg_names", []) or [])

    def label(key) -> str:
        index = key[0] if isinstance(key, tuple) and len(key) == 1 else key
        return names[index] if isinstance(index, int) and 0 <= index < len(names) else str(index)

    parts = [f"{label(k)}={v}" for k, v in (getattr(src, "constants", None) or {}).items()
             if isinstance(v, (bool, int, float, str))]
    attrs = getattr(src, "attrs", None) or {}
    aligned = [label(k) for k, values in attrs.items()
               if any(isinstance(v, (list, tuple)) and len(v) == 2 and v[1] == 16 for v in values or ())]
    parts += [f"{a}:16" for a in aligned]
    return f"{name}[{', '.join(parts)}]" if parts else str(name)


def key_parts(src, backend, backend_options, env_vars) -> dict[str, str]:
    """The parts Triton's disk-cache key is made of (``triton.runtime.cache.get_cache_key``), as text:
    the kernel function's own key, its specialisation, signature and constants, the backend, the
    compile options and the cache-invalidating environment."""
    return {"fn": src.fn.cache_key, "attrs": str(src.attrs), "sig": str(sorted(src.signature.items())),
            "const": str(sorted((k, str(v)) for k, v in src.constants.items())),
            "backend": backend.hash(), "opts": str(sorted((k, str(v)) for k, v in backend_options.__dict__.items())),
            "env": str(sorted(env_vars.items()))}


class CompileWatch:
    """``with CompileWatch() as watch: ...`` then ``watch.summary()`` (None where nothing is watched)."""

    def __init__(self) -> None:
        self.compiled = 0
        self.loaded = 0
        self.compile_us = 0
        self.kernels: list[str] = []
        self._compilation = None
        self._previous = None
        # Per thread: compiles ahead of a case (``launch_cache.compiling_ahead``) run on several threads at once,
        # each computing its kernel's key and then reporting it.
        self._keys = threading.local()
        self._unwrap = None
        self.watched = False

    def listen(self, *, src, metadata, metadata_group, times, cache_hit) -> None:
        with _lock:
            if cache_hit:
                self.loaded += 1
            else:
                us = int(getattr(times, "total", 0) or 0)
                self.compiled += 1
                self.compile_us += us
                if len(self.kernels) < KEEP:
                    digest = str(metadata.get("hash", ""))[:12] if isinstance(metadata, dict) else ""
                    parts = getattr(self._keys, "parts", None)
                    self.kernels.append(describe_source(src) + (f" #{digest}" if digest else "") + f" {us / 1e6:.1f}s"
                                        + (f" {parts}" if parts else ""))
            self._keys.parts = None
        if self._previous is not None:
            self._previous(src=src, metadata=metadata, metadata_group=metadata_group, times=times,
                           cache_hit=cache_hit)

    def __enter__(self) -> "CompileWatch":
        import os

        if os.environ.get("TRITON_INTERPRET", "0") not in ("", "0"):
            return self
        self._compilation = _knobs()
        if self._compilation is not None:
            self._previous = self._compilation.listener
            self._compilation.listener = self.listen
            self.watched = True
            self._watch_keys()
        return self

    def _watch_keys(self) -> None:
        """Note a digest of each part of the disk-cache key Triton computes next (kernel source,
        specialisation, signature, constants, backend, options, environment), so that a kernel a
        warm run compiled again can be compared part by part with its cold compile."""
        try:
            import triton.compiler.compiler as cc
        except ImportError:
            return
        original = getattr(cc, "get_cache_key", None)
        if original is None:
            return

        def keyed(src, backend, backend_options, env_vars):
            key = original(src, backend, backend_options, env_vars)
            try:
                parts = key_parts(src, backend, backend_options, env_vars)
                self._keys.parts = " ".join(f"{k}:{hashlib.sha1(v.encode()).hexdigest()[:6]}" for k, v in parts.items())
            except Exception:  # another Triton's source objects: the key itself is still returned
                self._keys.parts = None
            return key

        cc.get_cache_key = keyed

        def unwrap():
            cc.get_cache_key = original

        self._unwrap = unwrap

    def __exit__(self, *exc) -> None:
        if self._compilation is not None:
            self._compilation.listener = self._previous
            self._compilation = None
        if self._unwrap is not None:
            self._unwrap()
            self._unwrap = None

    def summary(self) -> Optional[dict]:
        if not self.watched:
            return None
        out = {"compiled": self.compiled, "loaded": self.loaded,
               "compile_s": round(self.compile_us / 1e6, 3)}
        if self.kernels:
            out["kernels"] = list(self.kernels)
        return out


def compile_totals(results) -> dict:
    """Kernels compiled and loaded over a run's results (nothing where no case was watched)."""
    watched = [r.compiles for r in results if r.compiles]
    if not watched:
        return {}
    return {"compiled": sum(w["compiled"] for w in watched), "loaded": sum(w["loaded"] for w in watched),
            "compile_s": round(sum(w["compile_s"] for w in watched), 1),
            "cases_compiling": sum(1 for w in watched if w["compiled"])}


def triton_cache_dir() -> str:
    """Where Triton keeps compiled kernels on disk: ``TRITON_CACHE_DIR``, else ``$TRITON_HOME/.triton/cache``
    (``TRITON_HOME`` defaulting to the home folder), as Triton 3.6 and 3.9 decide it."""
    home = os.environ.get("TRITON_HOME") or os.path.expanduser("~")
    return os.environ.get("TRITON_CACHE_DIR") or os.path.join(home, ".triton", "cache")


def triton_cache_empty() -> bool:
    """True when Triton's disk cache holds no kernel: a run now compiles every kernel it needs (a fresh machine,
    a CI job without a kept cache)."""
    try:
        with os.scandir(triton_cache_dir()) as entries:
            return next(entries, None) is None
    except (FileNotFoundError, NotADirectoryError):
        return True
