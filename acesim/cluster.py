"""Chunks of a run on a Dask cluster (``pip install acesim[dask]``).

``--scheduler tcp://HOST:PORT`` connects to a running Dask scheduler;
``--scheduler local:N`` starts a ``distributed.LocalCluster`` of N worker
processes on this machine for the run.  The plan (chunks and their seeds) is
made before anything is submitted, so the records are the same as a local
run's whatever the number of workers, and a task that Dask runs again after a
worker died computes the same chunk.

Who writes a chunk's Parquet file:

* the **worker** when every worker can reach ``--out``: a ``local:N`` cluster
  (same machine), or ``--out file:///shared/path`` naming a filesystem that
  all workers mount (NFS and the like).  Nothing but partial sums travels
  back;
* the **client** otherwise (``tcp://`` and a plain path): the worker returns
  the chunk as Parquet bytes, which travel through the network and are
  written here.  Works with no shared storage, at the cost of moving every
  record to the client.

The Numba kernels are compiled (or loaded from the on-disk cache) once per
worker process, the first time a chunk runs there; ``timings`` shows it.
"""

from __future__ import annotations

import io
import os
import time
from contextlib import contextmanager
from pathlib import Path

from acesim.errors import AcesimError

LOCAL = "local:"


def check_scheduler(spec: str) -> str:
    """``tcp://HOST:PORT`` (``tls://`` with Dask's TLS configured) or ``local:N``; else a one-line error."""
    if spec.startswith(LOCAL):
        n = spec[len(LOCAL):]
        if not n.isdigit() or int(n) <= 0:
            raise AcesimError(f"--scheduler {spec!r}: local:N needs a positive number of workers")
        return spec
    for scheme in ("tcp://", "tls://"):
        if spec.startswith(scheme) and ":" in spec[len(scheme):]:
            return spec
    raise AcesimError(f"--scheduler {spec!r} must be tcp://HOST:PORT or local:N")


def _client(spec: str):
    try:
        from distributed import Client, LocalCluster
    except ImportError:
        raise AcesimError("--scheduler needs Dask: pip install 'acesim[dask]'") from None
    if spec.startswith(LOCAL):
        cluster = LocalCluster(
            n_workers=int(spec[len(LOCAL):]), threads_per_worker=1, processes=True,
            dashboard_address=None, silence_logs=50,
        )
        return Client(cluster), cluster
    try:
        return Client(spec, timeout="10s"), None
    except (OSError, TimeoutError) as error:
        raise AcesimError(f"cannot reach the Dask scheduler at {spec}: {error}") from None


@contextmanager
def _session(spec: str):
    """A client of the scheduler ``spec`` (a LocalCluster started for ``local:N``), closed after use."""
    client, cluster = _client(check_scheduler(spec))
    try:
        yield client, cluster
    finally:
        client.close()
        if cluster is not None:
            cluster.close()


@contextmanager
def cluster_address(spec: str):
    """The scheduler address to use for a series of runs: ``local:N`` is started once, here."""
    check_scheduler(spec)
    if not spec.startswith(LOCAL):
        yield spec
        return
    with _session(spec) as (_, cluster):
        yield cluster.scheduler_address


def submit_all(spec: str, function, arguments: list[tuple], progress=None) -> list:
    """``function(*a)`` for each ``a`` on the cluster, results in order; cancelled on an error."""
    with _session(spec) as (client, _):
        futures = []
        try:
            futures = [client.submit(function, *a, pure=False) for a in arguments]
            results = []
            for i, future in enumerate(futures):
                results.append(future.result())
                if progress:
                    progress(i)
            return results
        except BaseException:
            client.cancel(futures)
            raise


def _chunk_task(plan, task, out, workers_write):
    """On a worker: play one chunk; write it or return it as Parquet bytes."""
    from acesim.simulate import chunk_frame, chunk_path, partial, rules_folder, write_parquet

    start = time.perf_counter()
    i, first, n = task
    frame = chunk_frame(plan, i, first, n)
    payload = None
    if out is not None:
        if workers_write:
            write_parquet(frame, chunk_path(rules_folder(out, plan, plan.rules[i]), first, plan))
        else:
            for column in ("rules", "strategy_a", "strategy_b"):
                frame[column] = frame[column].astype("category")
            buffer = io.BytesIO()
            frame.to_parquet(buffer, index=False)
            payload = buffer.getvalue()
    return (i, first), n, partial(frame), payload, os.getpid(), time.perf_counter() - start


def _write_bytes(payload: bytes, path: Path) -> None:
    from acesim.simulate import PARTIAL_SUFFIX

    tmp = path.with_name(path.name + PARTIAL_SUFFIX)
    try:
        tmp.write_bytes(payload)
        os.replace(tmp, path)
    except BaseException:
        tmp.unlink(missing_ok=True)
        raise


def run_on_cluster(plan, tasks, out, scheduler, progress, partials, stop, timings, shared_out=False) -> None:
    """Submit every task, gather as they finish; cancel everything on a stop or an error."""
    from distributed import as_completed

    from acesim.simulate import chunk_path, rules_folder

    if not tasks:
        return
    workers_write = scheduler.startswith(LOCAL) or shared_out
    with _session(scheduler) as (client, _):
        futures = []
        try:
            futures = [
                client.submit(_chunk_task, plan, task, out, workers_write, pure=False,
                              key=f"acesim-chunk-{task[0]}-{task[1]}-{time.time_ns()}")
                for task in tasks
            ]
            pending = as_completed(futures)
            while not pending.is_empty():
                if stop.requested:
                    raise KeyboardInterrupt
                batch = pending.next_batch(block=False)
                if not batch:
                    time.sleep(0.05)
                    continue
                for future in batch:
                    key, n, part, payload, pid, seconds = future.result()
                    if payload is not None:
                        i, first = key
                        _write_bytes(payload, chunk_path(rules_folder(out, plan, plan.rules[i]), first, plan))
                    partials[key] = part
                    if timings is not None:
                        timings.append((pid, seconds))
                    if progress:
                        progress(n)
        except BaseException:
            client.cancel(futures)
            raise
