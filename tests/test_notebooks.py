"""Every notebook runs top to bottom on a small game count, so the walkthroughs never rot.

The code cells are executed in order in one namespace (what a kernel would
do), without a Jupyter server: acesim does not depend on Jupyter.
"""

from __future__ import annotations

import json
from pathlib import Path

import matplotlib
import pytest

NOTEBOOKS = sorted((Path(__file__).parent.parent / "notebooks").glob("*.ipynb"))


def test_there_is_a_notebook():
    assert NOTEBOOKS


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.name)
def test_notebook_runs(path, monkeypatch):
    matplotlib.use("Agg")
    monkeypatch.setenv("ACESIM_NOTEBOOK_GAMES", "150")
    notebook = json.loads(path.read_text())
    namespace: dict = {"__name__": "__notebook__"}
    cells = [c for c in notebook["cells"] if c["cell_type"] == "code"]
    assert cells
    for i, cell in enumerate(cells):
        source = "".join(cell["source"])
        exec(compile(source, f"{path.name}[cell {i}]", "exec"), namespace)  # noqa: S102
    if path.name == "house_rule_walkthrough.ipynb":
        assert namespace["table"]["n"].tolist() == [150, 150]
        assert namespace["fig"].axes
