"""Run cases against an engine, each judged against the float64 oracle by ``judge.run_case``.

``run_cases`` runs them in this process. ``run_isolated`` is the full runner:
worker processes (``worker``), replays of failures alone, packed-layout
controls, several workers at once. One case, start to end, and the verdicts
are described in ``judge``.
"""

from __future__ import annotations

import copy
import heapq
import os
import threading
import time
from collections import deque
from typing import Optional, Sequence

import torch

from ..problem.cases import Case
from ..backends import Engine
from .judge import CaseResult, run_case
from .outcome import out_of_memory

def skipped_result(engine: str, case: Case, reason: str, source: Optional[str] = None) -> CaseResult:
    """A case not to run (a skip list says it hangs or crashes, or it needs more memory than
    this machine has): recorded with why, not run."""
    return CaseResult(case.id, engine, "skipped", case.describe(), purpose=case.purpose, covers=case.covers,
                      repro=case.repro(engine, source), case=case.to_dict(),
                      deterministic_requested=case.deterministic, skip_reason=reason,
                      message=f"not run: {reason}")


def run_cases(engine: Engine, cases: Sequence[Case], *, source: Optional[str] = None, progress: bool = True,
              on_result=None, reruns: int = 1, skip: Optional[dict] = None) -> list[CaseResult]:
    """Run ``cases`` in order in this process; a rich progress bar when ``progress`` and the run is long.
    ``skip`` maps case ids to reasons for cases not to run at all."""
    skip = skip or {}

    def one(case: Case) -> CaseResult:
        if case.id in skip:
            return skipped_result(engine.name, case, skip[case.id], source)
        return run_case(engine, case, source=source, reruns=reruns)

    results: list[CaseResult] = []
    if progress and len(cases) > 1:
        from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

        with Progress(TextColumn("[bold]{task.description}"), BarColumn(), MofNCompleteColumn(),
                      TimeElapsedColumn(), TextColumn("{task.fields[current]}"), transient=True) as bar:
            task = bar.add_task(engine.name, total=len(cases), current="")
            for case in cases:
                bar.update(task, current=case.id)
                results.append(one(case))
                if on_result:
                    on_result(results[-1])
                bar.advance(task)
    else:
        for case in cases:
            results.append(one(case))
            if on_result:
                on_result(results[-1])
    return results


# -- the full runner: isolation, replays, controls, shards, several workers ----------
def shard(cases: Sequence[Case], index: int, count: int) -> list[Case]:
    """Shard ``index`` (1-based) of ``count``: the cases whose id hashes there, in their order.

    A stable hash of the id alone (sha256, not Python's salted ``hash``), so a
    CI matrix of machines splits any case list the same way every time and the
    shards together are exactly the list.
    """
    import hashlib

    if not (count >= 1 and 1 <= index <= count):
        raise ValueError(f"shard {index}/{count}: need 1 <= i <= n (e.g. --shard 1/4 ... --shard 4/4)")
    return [c for c in cases
            if int.from_bytes(hashlib.sha256(c.id.encode()).digest()[:8], "big") % count == index - 1]


def parse_shard(text: str) -> tuple[int, int]:
    try:
        i, n = (int(x) for x in text.split("/"))
    except ValueError:
        raise ValueError(f"--shard {text!r}: expected i/n with integers, e.g. 2/4") from None
    shard([], i, n)  # validates
    return i, n


def packed_control(case: Case) -> Optional[Case]:
    """The same values (same sizes, attributes, seed) with every tensor packed BHSD; None if already so
    (or a varlen case, whose layout controls are its own storage axis)."""
    from dataclasses import replace

    if getattr(case, "ragged", False) or (not case.storage and not case.strides and not case.buffers):
        return None
    return replace(case, id=case.id + "@packed", storage=(), strides=(), buffers=(), purpose="claim",
                   expected_rejection=None, covers=())


def _control_conclusion(control: CaseResult) -> str:
    if control.verdict == "passed":
        return "the layout's: the same values stored packed BHSD pass"
    if control.verdict in ("failed", "error", "fault", "nondeterministic"):
        return f"not only the layout's: packed BHSD {control.verdict} too"
    return f"no control: packed BHSD {control.verdict}"


def _gpu_env(workers: int) -> list[dict]:
    """CUDA_VISIBLE_DEVICES for each worker: with several GPUs visible, worker i gets GPU i mod n
    (workers beyond the GPU count share them round robin); with one or none, inherit."""
    if workers <= 1:
        return [{}]
    visible = os.environ.get("CUDA_VISIBLE_DEVICES")
    ids = [x.strip() for x in visible.split(",") if x.strip()] if visible else \
        [str(i) for i in range(torch.cuda.device_count())]
    if len(ids) >= 2:
        return [{"CUDA_VISIBLE_DEVICES": ids[i % len(ids)]} for i in range(workers)]
    return [{} for _ in range(workers)]


def _case_costs(cases: Sequence[Case], machine: str) -> tuple[list[float], list[int]]:
    """Estimated seconds and bytes of each case (the plan's cost model; zeros without it)."""
    try:
        from .plan.cost import case_cost
    except ImportError:  # no plan package: every case costs the same
        return [0.0] * len(cases), [0] * len(cases)
    costs = [case_cost(c) for c in cases]
    return [c.seconds(machine) for c in costs], [c.bytes for c in costs]


def worker_envs(workers: int) -> list[dict]:
    """The environment each of ``workers`` worker processes adds to the runner's: its GPU, its share
    of the CPU threads, expandable CUDA segments."""
    from .worker import WORKER_THREADS_ENV

    # torch's CPU threads: a share of the cores each, not every core in every worker (16 workers x 16
    # threads on 16 cores thrash on the host-side work of each case)
    threads = str(max(1, (os.cpu_count() or 1) // workers))
    # expandable segments: a 2^31-element case's float64 judging otherwise fails on fragmentation
    # (2026-12-01, H200: 16 GiB reserved but unallocated when a 16 GiB request failed)
    alloc = {} if "PYTORCH_CUDA_ALLOC_CONF" in os.environ else {"PYTORCH_CUDA_ALLOC_CONF": "expandable_segments:True"}
    return [{**e, **alloc, WORKER_THREADS_ENV: threads} for e in _gpu_env(workers)]


def prestart_workers(workers: int, engine: str, timeout: float = 300.0) -> list:
    """Start ``workers`` worker processes now, for ``run_isolated(..., pool=...)`` to use later.

    The CLI calls this before it loads the plan, so that the workers' start (importing torch and
    the engine, a CUDA context, a warm-up case through the harness: ``worker.WARM_ENV``) overlaps
    the runner's own. Started with the run instead, 16 workers on one H200 spent 4.5-7 s each on their
    first case, all at once, against 0.43 s for a typical one (2026-12-01, docs/data/h200-2026-12-01d).
    """
    from .worker import WARM_ENV, Worker

    pool = []
    for env in worker_envs(max(1, workers)):
        w = Worker(env={**env, WARM_ENV: engine}, timeout=timeout)
        w.spawn()
        pool.append(w)
    return pool


def run_isolated(engine: str, cases: Sequence[Case], *, source: Optional[str] = None, reruns: int = 2,
                 timeout: float = 300.0, workers: int = 1, replay: bool = True, replay_limit: int = 20,
                 replay_budget: Optional[float] = None, controls: bool = True, progress: bool = True,
                 skip: Optional[dict] = None, on_result=None, memory_limit: Optional[int] = None, machine: str = "cpu",
                 timing: Optional[dict] = None, measured: Optional[dict] = None,
                 pool: Optional[list] = None, cold_cache: bool = False) -> list[CaseResult]:
    """Run ``cases`` against the engine named ``engine`` in worker processes.

    Cases go to ``workers`` processes in contiguous chunks of about equal
    estimated cost, costliest first, each worker taking the next chunk when it
    is done (``sdpa_bwd.conformance.schedule``); a chunk never splits two neighbours of the
    same sizes (the plan puts cases that differ in one attribute next to each
    other, and an order effect needs them in one process). With several GPUs,
    worker i runs on GPU i mod n. ``memory_limit`` (bytes, per device) gates
    the cases: a case waits until the memory the cost model says it needs is
    free on its device (``machine``: whose rates estimate the seconds); one that
    runs out of device memory anyway runs again once the gate's whole limit is
    free (``memory_retry`` on its result).
    Every failing case (up to ``replay_limit``, the first in the plan's order)
    runs again alone in a fresh process, and, if it is not stored packed, so
    does its packed-BHSD control; replays start as soon as a failure is found,
    beside the workers, the waiting failure with the smallest share of elements off first
    (``_replay_priority``). ``replay_budget`` (seconds): once the cases have run, no
    replay but an order probe's starts after that long (those left say so in ``replay.skipped``): a
    bound on the run's time where a count is not (a full level's hundred failures
    on one adapter, 2026-12-07). ``skip`` maps case ids to reasons for cases not to run at all.
    ``timing``, a dict, receives the wall seconds of the phases (``cases_s``, ``replays_s``).
    ``measured`` maps case ids to seconds an earlier run took (``schedule.measured_seconds``): those
    replace the cost model's estimates, and the chunks get finer.
    Results come back in the order of ``cases``; a run stopped by SIGTERM or
    ^C kills its workers and leaves the cases in flight without a result (not
    run, rather than a fault the engine did not cause).
    ``pool``: workers started earlier (``prestart_workers``) that the run takes over, each for the
    part whose environment it has; it closes them all, used or not.
    ``cold_cache``: Triton's disk cache is empty and the engine compiles Triton kernels: the estimates add
    each kernel family's compiles (``schedule.cold_compile_seconds``).
    """
    from concurrent.futures import Future, ThreadPoolExecutor

    from .schedule import MemoryGate, cold_compile_seconds, dispatch_order, plan_chunks
    from .worker import WARM_ENV, Worker

    workers = max(1, min(workers, len(cases) or 1))
    envs = worker_envs(workers)
    pool = list(pool or [])

    def from_pool(env) -> Optional[Worker]:
        with lock:
            for w in pool:
                if {k: v for k, v in w.env.items() if k != WARM_ENV} == env:
                    pool.remove(w)
                    return w
        return None

    skip = skip or {}
    t0 = time.perf_counter()
    results: list[Optional[CaseResult]] = [None] * len(cases)
    seconds, needs = _case_costs(cases, machine)
    if cold_cache:
        seconds = [s + c for s, c in zip(seconds, cold_compile_seconds(cases))]
    parts = plan_chunks(cases, workers, seconds, measured)
    todo = deque(dispatch_order(parts) if workers > 1 else parts)  # one worker: the plan's order
    devices = [e.get("CUDA_VISIBLE_DEVICES") for e in envs]
    gates = {key: MemoryGate(memory_limit, slots=devices.count(key)) for key in set(devices)} \
        if memory_limit else {}
    lock = threading.Lock()
    live: set = set()   # workers running now: killed when the run is stopped
    bar = task = None
    if progress and len(cases) > 1:
        from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

        bar = Progress(TextColumn("[bold]{task.description}"), BarColumn(), MofNCompleteColumn(),
                       TimeElapsedColumn(), TextColumn("{task.fields[current]}"), transient=True)
        task = bar.add_task(engine, total=len(cases), current="")
        bar.start()

    def done(i: int, r: CaseResult) -> None:
        with lock:
            results[i] = r
            if on_result:
                on_result(r)
            if bar is not None:
                bar.update(task, advance=1, current=r.case_id)

    stop = threading.Event()  # set when the caller is interrupted: threads end after their current case

    def need_on(gate: Optional[MemoryGate], i: int, before: Optional[CaseResult] = None) -> int:
        """What case i reserves on its device: the cost model's bytes, at most the whole limit; the whole limit
        (the device to itself) when its run ``before`` ran out of memory, since beside the other workers it would
        again (the full level on an H100, 2026-12-06: five replays of such cases "failed alone too", each beside
        15 busy workers)."""
        if not gate:
            return 0
        return gate.limit if before is not None and out_of_memory(before) else min(needs[i], gate.limit)

    def halt() -> None:
        """SIGTERM or ^C in the caller: stop handing out work and kill every process running a case."""
        stop.set()
        with lock:
            for w in list(live):
                w.kill()
            unreplayed_say_so()
        if replayer is not None:
            replayer.shutdown(wait=False, cancel_futures=True)

    def unreplayed_say_so() -> None:
        """A stopped run's report holds the results as they first came (``on_result``'s objects): a failing
        one takes its replay where that finished, and otherwise says it was not replayed, rather than a
        ``replay`` of None that reads as "not a replay suspect" (2026-12-02, H200: a full-level run stopped by its
        time cap left a fault whose replay was cancelled, and nothing in the report told)."""
        for i, r in enumerate(results):
            if r is None or not _replay_suspect(r) or r.replay is not None:
                continue
            future = replays.get(i)
            copy_done = future is not None and future.done() and not future.cancelled() \
                and future.exception() is None and future.result() is not None
            if copy_done:
                vars(r).update(vars(future.result()))
            else:
                r.replay = {"skipped": "the run was stopped before this case was replayed alone"}

    # Replays of failing cases alone in fresh processes start as soon as a failure is found, on
    # up to two threads beside the workers, instead of after the last case (a serial tail of
    # process starts). Each replays a copy of the result; the chosen copies replace the results.
    # A replay thread takes the waiting failure that ``_replay_priority`` puts first, not the oldest: each submitted
    # task runs one replay, the best one waiting when it starts, and fulfils that case's Future.
    replays: dict = {}  # case index -> Future of its replayed copy (None if the run was stopped)
    waiting: list = []  # heap of (priority, case index, slot, result copy, Future)
    replayer = ThreadPoolExecutor(max(1, min(2, workers)), thread_name_prefix="sdpa-bwd-replay") \
        if replay else None
    spares: dict[int, Worker] = {}  # per replay thread: its next process, already starting

    def spawned(env) -> Worker:
        w = Worker(env=env, timeout=timeout)
        w.spawn()
        return w

    def fresh_worker(env) -> Worker:
        me = threading.get_ident()
        with lock:
            w = spares.pop(me, None)
        if w is None or w.env != env:
            if w is not None:
                w.close()
            w = spawned(env)
        spare = spawned(env)
        with lock:
            spares[me] = spare
        return w

    cases_done: list = [None]  # when the case phase ended (``replay_budget`` counts from there)

    def replay_one(slot: int, i: int, result: CaseResult) -> Optional[CaseResult]:
        if replay_budget is not None and cases_done[0] is not None and not _always_replayed(cases[i]) \
                and time.perf_counter() - cases_done[0] > replay_budget:
            result.replay = {"skipped": f"over --replay-budget {replay_budget:g} s"}
            return result
        env = envs[slot % len(envs)]
        gate = gates.get(env.get("CUDA_VISIBLE_DEVICES"))
        need = need_on(gate, i, result)
        if stop.is_set() or (gate and not gate.reserve(need, stop)):
            return None
        w = fresh_worker(env)
        with lock:
            live.add(w)
        try:
            _replay(engine, cases[i], result, source=source, reruns=reruns, controls=controls, worker=w)
        finally:
            with lock:
                live.discard(w)
            if gate:
                gate.release(need)
        return None if stop.is_set() else result

    def submit_replay(slot: int, i: int, r: CaseResult) -> None:  # under the lock
        future: Future = Future()
        heapq.heappush(waiting, (_replay_priority(r), i, slot, r, future))
        replays[i] = future
        replayer.submit(replay_next)

    def replay_next() -> None:
        with lock:
            _, i, slot, r, future = heapq.heappop(waiting)
        if not future.set_running_or_notify_cancel():
            return
        try:
            future.set_result(replay_one(slot, i, r))
        except BaseException as exc:  # the waiting caller raises it, as the executor's own Future would
            future.set_exception(exc)

    def replay_early(i: int, r: CaseResult, slot: int) -> None:
        if replayer is None or not _replay_suspect(r):
            return
        with lock:
            limited = sum(1 for j in replays if not _always_replayed(cases[j]))
            if (limited < replay_limit or _always_replayed(cases[i])) and not stop.is_set():
                submit_replay(slot, i, copy.copy(r))

    def run_one(w: Worker, gate: Optional[MemoryGate], i: int, slot: int) -> None:
        case = cases[i]
        if case.id in skip:
            done(i, skipped_result(engine, case, skip[case.id], source))
            return
        need = need_on(gate, i)
        if gate and not gate.reserve(need, stop):
            return
        started = time.perf_counter() - t0
        try:
            r = w.run(engine, case, source=source, reruns=reruns)
            r.started, r.worker = round(started, 3), slot
        finally:
            if gate:
                gate.release(need)
        if gate and out_of_memory(r) and not stop.is_set():
            r = alone_on_device(w, gate, i, slot, r)
        if not stop.is_set():  # a case in flight when the run was stopped: its worker was killed, no verdict
            done(i, r)
            replay_early(i, r, slot)

    def alone_on_device(w: Worker, gate: MemoryGate, i: int, slot: int, first: CaseResult) -> CaseResult:
        """Case i ran out of device memory beside the other workers' cases: the cost model's estimate fell short
        of what it took, or the other processes' contexts and caches (which the gate does not count) left too
        little. That is this run's limit, not the engine's (an H100, 2026-12-06: 5 errors and 13 order-dependent
        verdicts of the full level, every one an out-of-memory error, where the same commit passes each alone).
        The case runs again in the same worker once the gate's whole limit is free, so no other case runs on the
        device meanwhile; what that run gives is the verdict, and ``memory_retry`` says so."""
        need = need_on(gate, i, first)
        if not gate.reserve(need, stop):
            return first
        try:
            again = w.run(engine, cases[i], source=source, reruns=reruns)
        finally:
            gate.release(need)
        again.started, again.worker = first.started, slot
        seen = first.message.split(". ")[0][:160]
        again.memory_retry = (f"out of memory beside other cases ({seen}); run again with the device's memory "
                              f"({gate.limit / (1 << 30):.1f} GiB under the gate) to itself: {again.verdict}")
        return again

    def run_part(part: int) -> None:
        gate = gates.get(envs[part].get("CUDA_VISIBLE_DEVICES"))
        with (from_pool(envs[part]) or Worker(env=envs[part], timeout=timeout)) as w:
            with lock:
                live.add(w)
            try:
                while not stop.is_set():
                    with lock:
                        if not todo:
                            return
                        chunk = todo.popleft()
                    for i in range(chunk.start, chunk.stop):
                        if stop.is_set():
                            return
                        run_one(w, gate, i, part)
            finally:
                with lock:
                    live.discard(w)

    def in_threads(fn, items) -> None:
        pool = ThreadPoolExecutor(workers)
        try:
            list(pool.map(fn, items))
        except BaseException:  # SIGTERM or ^C in the caller: do not wait for the remaining cases
            halt()
            pool.shutdown(wait=False, cancel_futures=True)
            raise
        pool.shutdown()

    try:
        in_threads(run_part, range(workers))
    finally:
        for w in pool:   # started for parts this run did not have
            w.close()
        if bar is not None:
            bar.stop()
        if timing is not None:
            timing["cases_s"] = round(time.perf_counter() - t0, 3)
        if gates and timing is not None:
            timing["memory_peak_bytes"] = max(g.peak for g in gates.values())

    if replay:
        # Deterministic choice: the first ``replay_limit`` failing cases in the plan's order.
        # Those already replayed during the case phase keep their replay; the rest run now;
        # replays of later failures that started early are waited for and dropped.
        # Order probes (plan.order_probes) are always replayed: their verdict is the replay's.
        suspects = [i for i, r in enumerate(results) if r is not None and _replay_suspect(r)]
        limited = [i for i in suspects if not _always_replayed(cases[i])]
        chosen = sorted(set(limited[:replay_limit]) | {i for i in suspects if _always_replayed(cases[i])})
        for i in limited[replay_limit:]:
            results[i].replay = {"skipped": f"over --replay-limit {replay_limit}"}
        replays_t0 = cases_done[0] = time.perf_counter()
        try:
            with lock:
                for i in chosen:
                    if i not in replays:
                        submit_replay(i % len(envs), i, copy.copy(results[i]))
            for i, future in list(replays.items()):
                replayed = future.result()
                if i in chosen and replayed is not None:
                    results[i] = replayed
        except BaseException:  # SIGTERM or ^C while waiting for replays
            halt()
            raise
        finally:
            if timing is not None:
                timing["replays_s"] = round(time.perf_counter() - replays_t0, 3)
    if replayer is not None:
        replayer.shutdown()
        for w in spares.values():  # the replays closed their own workers; the spares are left
            w.close()
    return results  # type: ignore[return-value]


def _always_replayed(case: Case) -> bool:
    """An order probe's failure is replayed alone whatever ``--replay-limit`` says: the probe exists to
    tell an order effect (``order-dependent``) from a failure of the case itself, and only the replay
    tells them apart (``plan.order_probes``)."""
    from .plan.order_probes import is_order_probe

    return is_order_probe(case)


def _replay_priority(r: CaseResult) -> float:
    """Which waiting failure a replay thread takes first: the one with the smallest share of its failing tensors'
    elements off; a fault or an error (no tensor checked) first of all. A few elements off in one run is how a race,
    stale state or an order effect shows, and only the replay alone tells those from a failure of the case itself; a
    tensor off wholesale is a layout's error, which fails alone too. (H100, 2026-12-07: a full level's 35 s of
    replays on torch-cudnn-op, taken in the order the failures appeared, reached 46 of 141, not the three with 4-54
    of 32768 elements off that pass alone when their repro files run.) Ties go in the plan's order."""
    failed = [c for c in r.checks.values() if not c.passed and c.numel]
    if not failed:
        return 0.0
    return sum(max(c.mismatches, c.nan + c.inf) for c in failed) / sum(c.numel for c in failed)


def _replay_suspect(r: CaseResult) -> bool:
    """Is this result's case replayed alone (and its packed control run)?"""
    return r.failing and r.purpose != "probe" and r.verdict != "invalid-case"


def _replay(engine: str, case: Case, result: CaseResult, *, source, reruns, controls, worker) -> None:
    """Rerun a failing case alone in ``worker`` (a fresh process that has run nothing yet),
    then its packed control; update ``result``."""
    with worker as w:
        alone = w.run(engine, case, source=source, reruns=reruns)
        result.replay = alone.brief()
        if not alone.failing and out_of_memory(result):
            # Memory held by other processes or by the cases before it in its worker: a limit of the run, not an
            # order effect of the engine's (no state of the engine's changes what fits), so the verdict is the
            # run alone's.
            first = result.message
            vars(result).update({k: v for k, v in vars(alone).items()
                                 if k not in ("previous_case", "started", "worker", "replay", "memory_retry")})
            result.replay["conclusion"] = "out of memory in its worker, passes alone: the run's limit, not the engine's"
            result.message = (f"{alone.verdict} alone in a fresh process, after running out of memory in its "
                              f"worker ({first.split('. ')[0][:160]})")
            return
        if not alone.failing:
            if result.previous_case:
                result.replay["conclusion"] = (f"order-dependent: {result.verdict} after {result.previous_case} "
                                               "in one process, passes alone")
                result.message = (f"order-dependent: {result.verdict} when run after {result.previous_case}, "
                                  f"{alone.verdict} alone in a fresh process (stale cache or uninitialised "
                                  f"memory?); in sequence: {result.message}")
                result.verdict = "order-dependent"
            else:
                result.replay["conclusion"] = ("flaky: ran first in its process and still passed when "
                                               "replayed alone")
                result.message += f"; flaky: {alone.verdict} when replayed alone in a fresh process"
        else:
            result.replay["conclusion"] = "fails alone too"
        if not alone.failing:   # not a layout question: the case itself passes
            return
        control = packed_control(case) if controls else None
        if control is None:
            if controls:
                result.layout_control = {"conclusion": "no control: already packed BHSD"}
            return
        c = w.run(engine, control, source=None, reruns=reruns)
        result.layout_control = {**c.brief(), "conclusion": _control_conclusion(c)}
        if result.verdict != "order-dependent":
            result.message += f"; layout control: {result.layout_control['conclusion']}"

