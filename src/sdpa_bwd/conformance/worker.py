"""Run engines in a worker process that can die without taking the run with it.

The engine under test may segfault, abort, hang, or raise a CUDA error that
poisons the process's CUDA context (every later kernel launch in that process
fails). None of that may cost the other cases their verdicts, so the runner
talks to ``python -m sdpa_bwd.conformance.worker``, a child process, over its stdin and
stdout (length-prefixed pickles), and:

* a worker that exits or is killed by a signal mid-case gives that case the
  verdict ``fault`` with its exit code or signal and the last lines of its
  stderr; the next case starts a fresh worker;
* a case that does not answer within ``timeout`` seconds is a ``fault`` too
  (the worker is killed: a hung kernel cannot be interrupted any other way);
* a case that raised a CUDA error, after which a one-element kernel cannot run
  any more, is a ``fault`` ("CUDA context poisoned") and the worker exits so
  the next case gets a clean context.

Engines are found by name as in-process (built-ins, the ``sdpa_bwd.backends``
entry points). Engines defined elsewhere (tests' deliberately faulty engines)
are loaded by naming their modules in ``SDPA_BWD_ENGINE_IMPORTS``: module names
or ``.py`` paths, separated by ``os.pathsep``; those modules call
``sdpa_bwd.backends.register``. The variable is inherited by every worker.
"""

from __future__ import annotations

import importlib
import importlib.util
import os
import pickle
import queue
import signal
import struct
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import Mapping, Optional

IMPORTS_ENV = "SDPA_BWD_ENGINE_IMPORTS"
RUNNER_PID_ENV = "SDPA_BWD_RUNNER_PID"
WORKER_THREADS_ENV = "SDPA_BWD_WORKER_THREADS"   # torch CPU threads of a worker (the runner's share of the cores)
WARM_ENV = "SDPA_BWD_WORKER_WARM"   # an engine name: import it and warm the harness up before saying ready
CACHE_KEEP_BYTES = 256 << 20  # a worker returns cached CUDA memory above this after each case (16 workers x 1 GiB
                              # kept was memory the gate did not see: a warm full level ran out, 2026-12-01, H200)
DEFAULT_TIMEOUT_S = 300.0    # per case: a Triton JIT compile on a cold cache takes tens of seconds
STARTUP_TIMEOUT_S = 120.0
STDERR_TAIL = 12
_HEADER = struct.Struct("<Q")
# Messages of errors after which a CUDA context is unusable (the CUDA runtime's
# own wording, as torch re-raises it).
_STICKY_CUDA = ("illegal memory access", "misaligned address", "unspecified launch failure",
                "illegal instruction", "CUDA error", "CUBLAS_STATUS_EXECUTION_FAILED", "device-side assert")


def import_engine_modules(spec: Optional[str] = None) -> list[str]:
    """Import the modules named in ``SDPA_BWD_ENGINE_IMPORTS`` (they register engines)."""
    spec = os.environ.get(IMPORTS_ENV, "") if spec is None else spec
    done = []
    for item in filter(None, spec.split(os.pathsep)):
        if item.endswith(".py"):
            path = Path(item).resolve()
            name = f"_sdpa_bwd_engines_{path.stem}"
            if name not in sys.modules:
                mod_spec = importlib.util.spec_from_file_location(name, path)
                if mod_spec is None or mod_spec.loader is None:
                    raise ImportError(f"{IMPORTS_ENV}: cannot load {path}")
                module = importlib.util.module_from_spec(mod_spec)
                sys.modules[name] = module
                mod_spec.loader.exec_module(module)
        else:
            importlib.import_module(item)
        done.append(item)
    return done


# -- the wire --------------------------------------------------------------------
def _send(stream, message) -> None:
    data = pickle.dumps(message, protocol=pickle.HIGHEST_PROTOCOL)
    stream.write(_HEADER.pack(len(data)) + data)
    stream.flush()


def _recv(stream):
    header = stream.read(_HEADER.size)
    if len(header) < _HEADER.size:
        return None
    (n,) = _HEADER.unpack(header)
    data = stream.read(n)
    if len(data) < n:
        return None
    return pickle.loads(data)


# -- the child ---------------------------------------------------------------------
def _context_poisoned(device: str) -> Optional[str]:
    """After an engine error on CUDA: can this process still launch a kernel? None if yes."""
    if not device.startswith("cuda"):
        return None
    import torch

    try:
        torch.cuda.synchronize()
        (torch.ones(1, device=device) + 1).item()
    except Exception as exc:  # the context is gone: every later case in this process would fail
        return f"{type(exc).__name__}: {exc}".strip()
    return None


def serve(proto_in, proto_out) -> int:
    import torch

    from ..backends import get_engine
    from .judge import run_case

    if os.environ.get(WORKER_THREADS_ENV):
        torch.set_num_threads(int(os.environ[WORKER_THREADS_ENV]))

    import_engine_modules()
    engines: dict = {}
    if os.environ.get(WARM_ENV):
        _warm_up(os.environ[WARM_ENV], engines)
    _send(proto_out, {"ready": os.getpid()})
    while True:
        request = _recv(proto_in)
        if request is None:
            return 0
        name, case = request["engine"], request["case"]
        try:
            engine = engines.get(name) or engines.setdefault(name, get_engine(name))
        except Exception as exc:  # unknown engine, or one whose import fails: the caller's mistake
            _send(proto_out, {"error": f"{type(exc).__name__}: {exc}"})
            continue
        print(f"[sdpa-bwd worker {os.getpid()}] {name}: case {case.id}", file=sys.stderr, flush=True)
        result = run_case(engine, case, source=request.get("source"), reruns=request.get("reruns", 1))
        poisoned = None
        if result.verdict == "error":
            poisoned = _context_poisoned(engine.device())
            if poisoned is None and any(s in result.message for s in _STICKY_CUDA) \
                    and engine.device().startswith("cuda"):
                poisoned = "the engine raised a sticky CUDA error"
        if poisoned:
            result.verdict = "fault"
            result.fault = {"kind": "cuda-context-poisoned", "after": poisoned}
            result.message = (f"CUDA context poisoned: {result.message}; afterwards: {poisoned} - "
                              "the worker exits and the next case runs in a fresh one")
        if not poisoned:
            _return_cached_memory()
        _send(proto_out, {"result": result})
        if poisoned:
            return 3


def _warm_up(name: str, engines: dict) -> None:
    """Before the first case: import the engine (Triton's kernels hash at import) and, on CUDA, put
    a tiny case through the harness with the reference engine, so that the CUDA context, the
    generator and the first uses of the oracle's and the judge's operations are paid while the
    runner is still loading its plan. No engine kernel runs: on a cold Triton cache every worker
    would compile the same kernels at once. A warm-up that fails changes nothing: the first case
    meets the same failure and reports it."""
    from ..problem.cases import Case
    from ..backends import get_engine
    from .judge import run_case

    try:
        engines[name] = get_engine(name)
        if engines[name].device().startswith("cuda"):
            run_case(get_engine("reference"), Case("worker-warm-up", B=1, H_q=2, H_k=1, S_q=16, D_qk=16,
                                                    right_bound=0, seed=1), reruns=2)
            _return_cached_memory()
    except Exception:
        engines.pop(name, None)


def _return_cached_memory() -> None:
    """Give the CUDA memory torch's allocator keeps cached back to the device after a large case:
    the runner's memory gate counts what each case needs while it runs, and a worker that kept
    a 2^31-element case's 90 GiB cached would starve the workers sharing its GPU."""
    torch = sys.modules.get("torch")
    if torch is None or not torch.cuda.is_initialized():
        return
    if torch.cuda.memory_reserved() > CACHE_KEEP_BYTES:
        torch.cuda.empty_cache()


def _die_with_parent() -> None:
    """Linux: SIGKILL this worker when the runner dies (it runs in a session of its own, so a
    signal to the runner's group does not reach it; without this a runner killed by SIGKILL would
    leave a worker busy in a long kernel behind). The kernel ties the signal to the runner *thread*
    that started the worker: every worker is closed by the thread that started it, or is a replay
    spare that is idle when its thread ends."""
    parent = int(os.environ.get(RUNNER_PID_ENV) or 0)
    try:
        import ctypes

        libc = ctypes.CDLL(None, use_errno=True)
        libc.prctl(1, signal.SIGKILL)  # PR_SET_PDEATHSIG
    except (OSError, AttributeError):  # not Linux: the worker still leaves on EOF after its case
        return
    if parent and os.getppid() != parent:  # the runner died before the call
        os._exit(0)


def main() -> int:
    _die_with_parent()
    # The protocol owns the real stdout; whatever the engine prints goes to stderr.
    proto_out = os.fdopen(os.dup(1), "wb")
    os.dup2(2, 1)
    return serve(sys.stdin.buffer, proto_out)


# -- the parent --------------------------------------------------------------------
class WorkerError(RuntimeError):
    """The worker could not be started or was asked something it cannot do (not the engine's fault)."""


def _describe_exit(code: Optional[int]) -> str:
    if code is None:
        return "still running"
    if code < 0:
        try:
            return f"killed by signal {signal.Signals(-code).name} ({-code})"
        except ValueError:
            return f"killed by signal {-code}"
    return f"exited with code {code}"


class Worker:
    """One child process running cases for the parent, replaced when it dies.

    ``env`` is added to the parent's environment (e.g. ``CUDA_VISIBLE_DEVICES``).
    ``last_case`` is the id of the case this process ran before the current one:
    what an order-dependent failure names.
    """

    def __init__(self, *, env: Optional[Mapping[str, str]] = None, timeout: float = DEFAULT_TIMEOUT_S,
                 startup_timeout: float = STARTUP_TIMEOUT_S):
        self._ready = False
        self.env = dict(env or {})
        self.timeout = timeout
        self.startup_timeout = startup_timeout
        self.proc: Optional[subprocess.Popen] = None
        self.last_case: Optional[str] = None
        self.started = 0             # processes started so far (1 + replacements)
        self._messages: "queue.Queue" = queue.Queue()
        self._stderr = None

    # lifecycle
    @property
    def alive(self) -> bool:
        return self.proc is not None and self.proc.poll() is None

    @property
    def pid(self) -> Optional[int]:
        return self.proc.pid if self.proc else None

    def start(self) -> None:
        """Start a process and wait until it is ready for cases."""
        self.spawn()
        self._await_ready()

    def spawn(self) -> None:
        """Start a process without waiting for it: ``run`` waits for its ready message."""
        self.close()
        self._stderr = tempfile.TemporaryFile()
        self._messages = queue.Queue()
        env = {**os.environ, **self.env, RUNNER_PID_ENV: str(os.getpid())}
        # A session of its own: a signal sent to the runner's process group (``timeout``, ^C in a
        # terminal) stops the runner, which then kills its workers, instead of killing the workers
        # mid-case and leaving faults the engine did not cause. The worker dies with its parent.
        self.proc = subprocess.Popen([sys.executable, "-m", "sdpa_bwd.conformance.worker"], stdin=subprocess.PIPE,
                                     stdout=subprocess.PIPE, stderr=self._stderr, env=env,
                                     start_new_session=True)
        self.started += 1
        self.last_case = None
        messages, stdout = self._messages, self.proc.stdout

        def pump():
            while True:
                try:
                    message = _recv(stdout)
                except Exception as exc:  # a torn pickle is a dying worker too
                    message = None
                    messages.put(("torn", repr(exc)))
                messages.put(message)
                if message is None:
                    return

        threading.Thread(target=pump, daemon=True, name=f"sdpa-bwd-worker-{self.proc.pid}").start()
        self._ready = False

    def _await_ready(self) -> None:
        ready = self._get(self.startup_timeout)
        if not (isinstance(ready, dict) and "ready" in ready):
            tail = self.stderr_tail()
            self.close()
            raise WorkerError(f"the worker process did not start ({ready!r}); its stderr ends:\n" + "\n".join(tail))
        self._ready = True

    def kill(self) -> None:
        """Kill the process now (the run is being stopped); ``run`` in flight returns a fault."""
        proc = self.proc
        if proc is not None and proc.poll() is None:
            proc.kill()

    def close(self) -> None:
        # Taken first: the CLI's cleanup of its prestarted pool and the runner's threads may close the same worker
        # at once (a SIGTERM mid-run), and the second must not find the process gone halfway through.
        proc, self.proc = self.proc, None
        stderr, self._stderr = self._stderr, None
        if proc is not None:
            if proc.poll() is None:
                try:
                    proc.stdin.close()
                    proc.wait(timeout=5)
                except Exception:  # it does not leave on EOF: it is stuck in the engine
                    proc.kill()
                    proc.wait()
            for stream in (proc.stdin, proc.stdout):
                try:
                    stream.close()
                except Exception:
                    pass
        if stderr is not None:
            stderr.close()

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    def stderr_tail(self, n: int = STDERR_TAIL) -> list[str]:
        if self._stderr is None:
            return []
        self._stderr.seek(0)
        lines = self._stderr.read().decode("utf-8", "replace").splitlines()
        return [l for l in lines if not l.startswith("[sdpa-bwd worker ")][-n:]

    def _get(self, timeout: float):
        try:
            message = self._messages.get(timeout=timeout)
        except queue.Empty:
            return "timeout"
        if isinstance(message, tuple) and message and message[0] == "torn":
            return self._messages.get()
        return message

    # one case
    def run(self, engine: str, case, *, source: Optional[str] = None, reruns: int = 1):
        """The case's ``CaseResult``; a ``fault`` verdict if the process died or hung meanwhile."""
        from .judge import CaseResult

        if not self.alive:
            self.start()
        elif not self._ready:
            self._await_ready()
        previous = self.last_case
        started = time.perf_counter()
        try:
            _send(self.proc.stdin, {"engine": engine, "case": case, "source": source, "reruns": reruns})
            message = self._get(self.timeout)
        except (BrokenPipeError, OSError):
            message = None
        seconds = time.perf_counter() - started
        if isinstance(message, dict) and "error" in message:
            raise WorkerError(f"worker cannot run engine {engine!r}: {message['error']}")
        if isinstance(message, dict) and "result" in message:
            result = message["result"]
            result.previous_case = previous
            self.last_case = case.id
            if result.verdict == "fault":   # the worker leaves on its own; reap it
                try:
                    self.proc.wait(timeout=30)
                except subprocess.TimeoutExpired:
                    self.proc.kill()
                result.fault = {**(result.fault or {}), "stderr_tail": self.stderr_tail()}
                self.close()
            return result
        if message == "timeout":
            self.proc.kill()
            self.proc.wait()
            how = f"no answer within {self.timeout:g} s (a hang): killed"
            kind = "timeout"
        else:
            try:
                self.proc.wait(timeout=30)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
            code = self.proc.returncode
            how = "the worker " + ("was " if code is not None and code < 0 else "") + _describe_exit(code)
            kind = "died"
        tail = self.stderr_tail()
        code = self.proc.returncode
        self.close()
        result = CaseResult(case.id, engine, "fault", case.describe(), purpose=case.purpose, covers=case.covers,
                            repro=case.repro(engine, source), case=case.to_dict(),
                            deterministic_requested=case.deterministic, previous_case=previous, seconds=seconds)
        result.fault = {"kind": kind, "exit_code": code, "exit": _describe_exit(code), "stderr_tail": tail,
                        "after_seconds": round(seconds, 3)}
        last = next((l.strip() for l in reversed(tail) if l.strip()), "")
        result.message = how + (f"; stderr ends: {last}" if last else "; nothing on stderr")
        return result


if __name__ == "__main__":
    # Run the imported module's main, not this __main__ copy, so that there is
    # one sdpa_bwd.conformance.worker module in the process (tests replace its context probe).
    from sdpa_bwd.conformance.worker import main as _main

    raise SystemExit(_main())
