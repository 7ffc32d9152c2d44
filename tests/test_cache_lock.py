"""Processes that compile one kernel for different types at once leave a cache whose every entry holds its own code.

Numba writes a kernel's cache index and its data files in separate steps with no lock (numba/numba#10128):
processes that all read the index before any writes it all take data file 1, and the index can end up naming,
for one signature, the code another process compiled for its own (the suite's two workers once ran a kernel
that way and got a wrong answer).  ``acesim.kernels.jit`` holds a lock on the cache folder across each read and
write.  Here three processes compile a toy kernel for three types at the same moment, each slowed inside
Numba's cache writes so that, unlocked, all three read an empty index, write the index in one order and the
data in the opposite one: the index's one entry then holds another signature's code.
"""

from __future__ import annotations

import os
import pickle
import subprocess
import sys
import textwrap
import time
from pathlib import Path

from numba.core.typing.templates import Signature

from tests.helpers import cache_index

TYPES = ("1", "1.5", "1j")

KERNEL = """
from acesim.kernels.jit import njit


@njit(cache=True)
def twice(x):
    return x + x
"""

# Slows Numba's cache at the steps where an unlocked race goes wrong: every process reads the index, then
# process i writes the index i steps later than process 0 and its data 2 (n - 1 - i) steps after that: the last
# to write the index is the first to write its data.
CHILD = """
import sys, time
from numba.core import caching

i, n, start = int(sys.argv[1]), int(sys.argv[2]), float(sys.argv[3])
step = 0.3
files = caching.IndexDataCacheFile
load_index, save_index, save_data = files._load_index, files._save_index, files._save_data

def slow_load_index(self):
    found = load_index(self)
    time.sleep(2 * step)
    return found

def slow_save_index(self, overloads):
    time.sleep(i * step)
    save_index(self, overloads)

def slow_save_data(self, name, data):
    time.sleep(2 * (n - 1 - i) * step)
    save_data(self, name, data)

files._load_index, files._save_index, files._save_data = slow_load_index, slow_save_index, slow_save_data
sys.path.insert(0, sys.argv[4])
import toy  # acesim.kernels.jit is imported, and locks, before the patched methods run

while time.time() < start:
    time.sleep(0.005)
print(toy.twice(eval(sys.argv[5])))
"""


def _entries(cache: Path) -> list[tuple[tuple, tuple]]:
    """Each index entry's types, with the types of the code its data file holds."""
    (index,) = cache.rglob("toy.twice-*.nbi")
    found = []
    for key, name in cache_index(index).items():
        data = pickle.loads((index.parent / name).read_bytes())
        held = next(x for x in _walk(data) if isinstance(x, Signature))
        found.append((tuple(key[0]), tuple(held.args)))
    return found


def _walk(obj, depth=0):
    yield obj
    if depth < 4 and isinstance(obj, (tuple, list)):
        for x in obj:
            yield from _walk(x, depth + 1)


def test_kernels_compiled_at_once_for_different_types_keep_each_its_own_code(tmp_path, monkeypatch):
    (tmp_path / "toy.py").write_text(KERNEL)
    (tmp_path / "child.py").write_text(textwrap.dedent(CHILD))
    env = {**os.environ, "NUMBA_CACHE_DIR": str(tmp_path / "cache")}
    start = time.time() + 3  # every child has imported Numba by then
    children = [
        subprocess.Popen(
            [sys.executable, str(tmp_path / "child.py"), str(i), str(len(TYPES)), str(start), str(tmp_path), value],
            env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
        )
        for i, value in enumerate(TYPES)
    ]
    outputs = [child.communicate(timeout=120) for child in children]
    assert all(child.returncode == 0 for child in children), [err for _, err in outputs]
    assert [out.strip() for out, _ in outputs] == ["2", "3.0", "2j"]
    monkeypatch.syspath_prepend(str(tmp_path))  # the cached code's environment names the toy module
    entries = _entries(tmp_path / "cache")
    assert entries, "nothing was cached"
    assert all(key == held for key, held in entries), entries
