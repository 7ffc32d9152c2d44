"""One task runner: ``map_tasks(fn, tasks, backend)`` in this process, on local processes or on Dask.

Simulate, ladder, train and report hand it a module-level function and a
list of argument tuples; it returns ``fn(*task)`` for every task, in task
order, and calls ``on_result(index, result)`` in this process as each one
finishes (progress bars, files the client writes).  A backend never imports
the module whose function it runs.

Ctrl-C and SIGTERM stop a map: the workers are killed, nothing more is
returned, and ``KeyboardInterrupt`` is raised in the caller.  Workers ignore
Ctrl-C (it reaches the whole process group; the parent decides what stops)
and, on Linux, die with their parent instead of printing a
``BrokenPipeError`` when they try to hand back a result.
"""

from __future__ import annotations

import ctypes
import multiprocessing
import os
import signal
import sys
import threading
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from typing import Any, Protocol

from acesim.common.errors import AcesimError

# Far above any machine this runs on (and the chunk counts of real runs), far
# below the counts that fork a machine to a standstill.
MAX_WORKERS = 256

OnResult = Callable[[int, Any], None]
_PR_SET_PDEATHSIG = 1  # from <linux/prctl.h>


# What one worker process may take: about 120 MB measured (64 workers took 1.2 -> 8.6 GB), doubled
# for the learned players' search scratch and the records a chunk holds.
WORKER_MEMORY = 256 * 2**20


def check_workers(n: int, what: str = "the number of workers") -> int:
    """``n`` if it is a sane worker count (1..MAX_WORKERS, and no more than the memory this machine
    has free allows: ``memory_cap``), else a one-line error."""
    if n <= 0:
        raise AcesimError(f"{what} must be positive, got {n}")
    if n > MAX_WORKERS:
        raise AcesimError(f"{what} must be at most {MAX_WORKERS}, got {n}")
    cap = memory_cap()
    if n > cap:
        raise AcesimError(
            f"{what} must be at most {cap} here, got {n}: each worker takes up to "
            f"{WORKER_MEMORY // 2**20} MiB and this machine has {available_memory() / 2**30:.1f} GiB free"
        )
    return n


def available_memory() -> int:
    """Bytes of memory free for new processes (Linux's MemAvailable; elsewhere all of it)."""
    try:
        with open("/proc/meminfo", encoding="ascii") as handle:
            for line in handle:
                if line.startswith("MemAvailable:"):
                    return int(line.split()[1]) * 1024
    except (OSError, ValueError, IndexError):
        pass
    try:
        return os.sysconf("SC_PHYS_PAGES") * os.sysconf("SC_PAGE_SIZE")
    except (ValueError, OSError):
        return MAX_WORKERS * WORKER_MEMORY


def memory_cap() -> int:
    """The most workers the free memory holds (at least one)."""
    return max(1, min(MAX_WORKERS, available_memory() // WORKER_MEMORY))


def default_workers() -> int:
    """Every core this process may run on, as many as the free memory holds (``memory_cap``)."""
    try:
        n = len(os.sched_getaffinity(0))
    except AttributeError:  # not Linux
        n = os.cpu_count() or 1
    return min(n, memory_cap())


class Stop:
    """Set by SIGINT or SIGTERM; a map's loop notices it between results."""

    def __init__(self) -> None:
        self.requested = False

    def __call__(self, signum, frame) -> None:
        self.requested = True

    def check(self) -> None:
        if self.requested:
            raise KeyboardInterrupt


def _raise_interrupt(signum, frame):
    raise KeyboardInterrupt


_in_worker = False  # set in a pool's worker processes, whose signals the pool decides


@contextmanager
def _signals(handler) -> Iterator[None]:
    if _in_worker or threading.current_thread() is not threading.main_thread():
        yield  # only the main thread may set handlers; a worker's stay as its pool set them
        return
    previous = {s: signal.signal(s, handler) for s in (signal.SIGINT, signal.SIGTERM)}
    try:
        yield
    finally:
        for s, h in previous.items():
            signal.signal(s, h)


@contextmanager
def interruptible() -> Iterator[None]:
    """SIGTERM, like Ctrl-C, raises ``KeyboardInterrupt`` in this process for the block."""
    with _signals(_raise_interrupt):
        yield


class Backend(Protocol):
    """Where tasks run.  ``shares_files``: the workers see this machine's files."""

    shares_files: bool

    def map(self, fn: Callable, tasks: Sequence[tuple], on_result: OnResult, stop: Stop) -> None: ...


class InProcess:
    """Every task in this process, one after the other."""

    shares_files = True

    def map(self, fn, tasks, on_result, stop) -> None:
        for i, task in enumerate(tasks):
            on_result(i, fn(*task))
            stop.check()


def _init_worker(parent: int) -> None:
    global _in_worker
    _in_worker = True
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    # A forked worker inherits the parent's handlers; Pool.terminate() needs
    # SIGTERM to end it.
    signal.signal(signal.SIGTERM, signal.SIG_DFL)
    _die_with_parent(parent)


def _die_with_parent(parent: int) -> None:
    """End this worker when its parent dies (Linux), as an orphan's work is lost anyway.

    Left alone, an orphan (its parent killed by SIGKILL) plays on and prints
    a ``BrokenPipeError`` traceback when it hands back its result.  Elsewhere
    than Linux the orphan still does.
    """
    if not sys.platform.startswith("linux"):
        return
    try:
        ctypes.CDLL(None, use_errno=True).prctl(_PR_SET_PDEATHSIG, signal.SIGKILL)
    except (OSError, AttributeError):
        return
    if os.getppid() != parent:  # the parent died before the request took effect
        os._exit(1)


def _call(args: tuple) -> tuple[int, Any]:
    fn, i, task = args
    return i, fn(*task)


class LocalProcesses:
    """Up to ``workers`` forked processes, started at the first map and kept until ``close``.

    A process pool is started only when a map has more than one task, with
    no more processes than tasks.
    """

    shares_files = True

    def __init__(self, workers: int) -> None:
        self.workers = check_workers(workers)
        self._pool = None

    def map(self, fn, tasks, on_result, stop) -> None:
        if self.workers == 1 or len(tasks) <= 1 and self._pool is None:
            with _signals(_raise_interrupt):
                InProcess().map(fn, tasks, on_result, stop)
            return
        if self._pool is None:
            context = multiprocessing.get_context("fork" if hasattr(os, "fork") else "spawn")
            self._pool = context.Pool(min(self.workers, len(tasks)), initializer=_init_worker,
                                      initargs=(os.getpid(),))
        try:
            results = self._pool.imap_unordered(_call, [(fn, i, task) for i, task in enumerate(tasks)])
            for _ in tasks:
                while True:
                    stop.check()
                    try:
                        i, result = results.next(timeout=0.1)
                        break
                    except multiprocessing.TimeoutError:
                        continue
                on_result(i, result)
        except BaseException:
            self.close(kill=True)
            raise

    def close(self, kill: bool = False) -> None:
        if self._pool is not None:
            pool, self._pool = self._pool, None
            if kill:
                pool.terminate()
            else:
                pool.close()
            pool.join()

    def __enter__(self) -> LocalProcesses:
        return self

    def __exit__(self, kind, error, traceback) -> None:
        self.close(kill=kind is not None)


def map_tasks(fn: Callable, tasks: Sequence[tuple], backend: Backend | None = None,
              on_result: OnResult | None = None) -> list:
    """``[fn(*t) for t in tasks]`` on ``backend`` (this process if ``None``), results in task order.

    ``on_result(i, result)`` is called in this process as task ``i``
    finishes, in the order they finish.  On Ctrl-C or SIGTERM the map stops
    and ``KeyboardInterrupt`` is raised; on an error in a task, the others
    are cancelled and the error is raised here.
    """
    backend = backend or InProcess()
    results: list = [None] * len(tasks)

    def collect(i: int, result) -> None:
        results[i] = result
        if on_result is not None:
            on_result(i, result)

    stop = Stop()
    # In-process tasks are jitted code that a flag cannot interrupt: there a
    # signal raises as soon as the task returns.  With workers the parent only
    # waits, so a flag it polls is the robust way to stop.
    with _signals(_raise_interrupt if isinstance(backend, InProcess) else stop):
        backend.map(fn, list(tasks), collect, stop)
        stop.check()  # a signal caught after the last result would be lost with the handler
    return results
