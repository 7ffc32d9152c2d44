"""Round-robin of strategies: every pairing in both seats, on common random numbers.

Pairing ``(X, Y)`` plays games ``0..n-1`` with ``X`` in seat A, and ``(Y, X)``
plays the same game indices with the seats swapped, so both orders see the
same dice.  A strategy's score against another is its share of the finished
games of both orders, with a Wilson interval.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from itertools import combinations

import pandas as pd

from acesim.common.cluster import backend_for
from acesim.common.errors import AcesimError
from acesim.common.stats import wilson
from acesim.common.tasks import check_workers
from acesim.engine.rules import Ruleset
from acesim.engine.strategies import Strategy
from acesim.runs.simulate import make_plan, run


@dataclass(frozen=True)
class Match:
    first: str
    second: str
    games: int  # finished games, both orders
    first_wins: int
    unfinished: int

    @property
    def rate(self) -> float:
        return self.first_wins / self.games if self.games else float("nan")


def ladder(
    rules: Ruleset,
    strategies: Sequence[Strategy],
    games: int,
    seed: int,
    workers: int = 1,
    progress: Callable[[int], None] | None = None,
    scheduler: str | None = None,
) -> list[Match]:
    """Every pair of ``strategies``, ``games`` games in each seat order (on Dask with ``scheduler``).

    One backend (worker processes or a Dask session) serves every pairing.
    """
    check_workers(workers)
    specs = [s.spec for s in strategies]
    if len(strategies) < 2:
        raise AcesimError("a ladder needs at least two strategies")
    for spec in specs:
        if specs.count(spec) > 1:
            raise AcesimError(f"strategy {spec!r} is given twice")
    with backend_for(workers, scheduler) as backend:
        return [_match(rules, x, y, games, seed, workers, progress, backend)
                for x, y in combinations(strategies, 2)]


def _match(rules, x, y, games, seed, workers, progress, backend) -> Match:
    """Both seat orders of ``x`` against ``y`` on the same game indices."""
    wins, finished, unfinished = 0, 0, 0
    for a, b in ((x, y), (y, x)):
        plan = make_plan([rules], a, b, games, seed, workers=workers)
        (doc,) = run(plan, None, workers, progress, backend=backend)
        a_wins = doc["seat_a_wins"]
        wins += a_wins if a is x else doc["finished"] - a_wins
        finished += doc["finished"]
        unfinished += doc["unfinished"]
    return Match(x.spec, y.spec, finished, wins, unfinished)


def ladder_table(matches: Sequence[Match], strategies: Sequence[Strategy]) -> pd.DataFrame:
    """One row per (strategy, opponent): win rate, its Wilson 95% interval and n."""
    rows = []
    for m in matches:
        for me, other, wins in ((m.first, m.second, m.first_wins), (m.second, m.first, m.games - m.first_wins)):
            low, high = wilson(wins, m.games)
            rows.append(
                {
                    "strategy": me,
                    "opponent": other,
                    "games": m.games,
                    "wins": wins,
                    "win_rate": wins / m.games if m.games else float("nan"),
                    "ci95_low": low,
                    "ci95_high": high,
                    "unfinished": m.unfinished,
                }
            )
    order = {s.spec: i for i, s in enumerate(strategies)}
    table = pd.DataFrame(rows)
    return table.sort_values(["strategy", "opponent"], key=lambda c: c.map(order), ignore_index=True)


def ladder_matrix(table: pd.DataFrame, strategies: Sequence[Strategy]) -> pd.DataFrame:
    """Row strategy's win rate against the column strategy, as ``rate [low, high]`` text."""
    specs = [s.spec for s in strategies]
    cells = {
        (r.strategy, r.opponent): f"{r.win_rate:.3f} [{r.ci95_low:.3f}, {r.ci95_high:.3f}]"
        for r in table.itertuples()
    }
    return pd.DataFrame(
        [[cells.get((row, col), "—") for col in specs] for row in specs], index=specs, columns=specs
    )
