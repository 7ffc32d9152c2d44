"""The Dask backend of ``acesim.common.tasks.map_tasks`` (``pip install acesim[dask]``).

``--scheduler tcp://HOST:PORT`` connects to a running Dask scheduler;
``--scheduler local:N`` starts a ``distributed.LocalCluster`` of N worker
processes on this machine for the run.  The plan (chunks and their seeds) is
made before anything is submitted, so the records are the same as a local
run's whatever the number of workers, and a task that Dask runs again after a
worker died computes the same chunk.

Who writes a chunk's Parquet file (``acesim.runs.simulate`` decides, from ``shares_files``):

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

import time
from collections.abc import Iterator
from contextlib import contextmanager

from acesim.common.errors import AcesimError
from acesim.common.tasks import Backend, LocalProcesses, check_workers

LOCAL = "local:"


def check_scheduler(spec: str) -> str:
    """``tcp://HOST:PORT`` (``tls://`` with Dask's TLS configured) or ``local:N``; else a one-line error."""
    if spec.startswith(LOCAL):
        n = spec[len(LOCAL):]
        if not n.isascii() or not n.isdigit() or int(n) <= 0:
            raise AcesimError(f"--scheduler {spec!r}: local:N needs a positive number of workers")
        check_workers(int(n), f"--scheduler {spec!r}: the number of workers")
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
    except (TypeError, ValueError) as error:  # tls:// without Dask's TLS settings: "TLS expects a ssl_context"
        raise AcesimError(f"cannot connect to the Dask scheduler at {spec}: {error}") from None


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


class Dask:
    """Tasks on the Dask scheduler ``spec`` (a ``LocalCluster`` started for ``local:N``), open for a ``with`` block.

    ``shares_files`` is true for ``local:N``, whose workers see this machine's files.
    """

    def __init__(self, spec: str) -> None:
        self.spec = check_scheduler(spec)
        self.shares_files = spec.startswith(LOCAL)
        self._session = None
        self._client = None

    def __enter__(self) -> Dask:
        self._session = _session(self.spec)
        self._client, _ = self._session.__enter__()
        return self

    def __exit__(self, *exc) -> None:
        session, self._session = self._session, None
        if session is not None:
            session.__exit__(*exc)

    def map(self, fn, tasks, on_result, stop) -> None:
        """Submit every task, hand on results as they finish; cancel everything on a stop or an error."""
        from distributed import as_completed

        if not tasks:
            return
        client = self._client
        futures = []
        try:
            stamp = time.time_ns()
            futures = [client.submit(fn, *task, pure=False, key=f"acesim-{fn.__name__}-{i}-{stamp}")
                       for i, task in enumerate(tasks)]
            index = {future.key: i for i, future in enumerate(futures)}
            pending = as_completed(futures)
            while not pending.is_empty():
                stop.check()
                batch = pending.next_batch(block=False)
                if not batch:
                    time.sleep(0.05)
                    continue
                for future in batch:
                    on_result(index[future.key], future.result())
        except BaseException:
            client.cancel(futures)
            raise


@contextmanager
def backend_for(workers: int = 1, scheduler: str | None = None) -> Iterator[Backend]:
    """The backend of a command's ``--workers`` and ``--scheduler``, open for the block."""
    if scheduler is not None:
        with Dask(scheduler) as dask:
            yield dask
        return
    with LocalProcesses(workers) as local:
        yield local
