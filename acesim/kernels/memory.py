"""The memory area of a worker: every scratch array the game kernels need, in one value.

A kernel that plays games takes one ``Memory`` and returns it, since a search
that runs out of room replaces the part it outgrew with a larger one (a NumPy
array cannot grow in place):

* ``plays``: the level table of ``plays.enumerate_plays`` (its ``Workspace``);
* ``draws``: the depth-first search of the random strategy (``kernels.uniform``);
* ``found``: the three counters an enumeration reports (first play, end, dice used);
* ``search``: the scoring searches' beams, summaries and network units
  (``strategy.Scratch``), sized for the widest beam of the strategies in play.

``worker_memory`` is the one place that makes it; the Python layer calls it
for every batch of games and hands back what the kernels returned with
``keep_memory``, so a process keeps one area for its life and pays for its
growth once.  The kernels unpack it once per call (per game at most), not per
roll: binding a tuple of arrays costs atomic reference counting of each.

The area is kept per thread: a kernel holds the interpreter lock today, but
two threads of a Dask worker must never share scratch if that changes.
"""

import threading
from collections import namedtuple

import numpy as np

from acesim.kernels.choice import new_scratch
from acesim.kernels.plays import new_workspace
from acesim.kernels.uniform import new_uniform_scratch

Memory = namedtuple("Memory", ["plays", "draws", "found", "search"])

_kept = threading.local()


def _width_of(memory: Memory) -> int:
    return int(memory.search.beam.shape[1])


def worker_memory(width: int = 1) -> Memory:
    """This thread's memory area, with beams of at least ``width`` positions.

    Made at the first call; made again, wider, when a strategy with a wider
    beam comes along (the other parts, and what they grew to, are kept).
    """
    width = max(int(width), 1)
    memory = getattr(_kept, "memory", None)
    if memory is None:
        memory = Memory(new_workspace(), new_uniform_scratch(), np.zeros(3, dtype=np.int64), new_scratch(width))
    elif _width_of(memory) < width:
        memory = memory._replace(search=new_scratch(width))
    _kept.memory = memory
    return memory


def pairing_memory(seats) -> Memory:
    """``worker_memory`` for the searches of a pairing (``choice.Seats``): its widest beam, read from the
    widths' first two columns (the others hold a ply-2 player's filter, ``choice.deeper_filter``)."""
    return worker_memory(int(seats.widths[:, :2].max()))


def keep_memory(memory: Memory) -> None:
    """Keep what a kernel returned (parts it grew included) for this thread's next call."""
    kept = getattr(_kept, "memory", None)
    if kept is None or _width_of(memory) >= _width_of(kept):
        _kept.memory = memory
