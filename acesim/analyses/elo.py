"""Bradley–Terry strengths of a round-robin, as Elo (docs/statistics.md, "Skill ladder").

The model: strategy ``i`` beats ``j`` with probability ``σ(θ_i − θ_j)``.
Strengths are fitted by maximum likelihood (Newton's method on ``θ``, one
strategy held at 0) from the ladder's per-pairing wins, both seats pooled, and
shown as Elo, ``400 · log10`` odds: 400 Elo apart means 10-to-1 odds.

A strategy that wins (or loses) every game has no finite maximum likelihood
strength.  Every pairing therefore gets ``prior`` virtual wins for each side
(default ½, one virtual drawn game): a sweep of ``n`` games then reads as odds
of about ``2n + 1`` to 1, finite, and ladders of hundreds of games per pairing
move by well under the interval width.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from acesim.common.errors import AcesimError

ELO_PER_NAT = 400.0 / np.log(10.0)
ANCHOR = "random"


def _win_matrix(table: pd.DataFrame) -> tuple[list[str], np.ndarray, np.ndarray]:
    """Strategy order, wins ``W[i, j]`` of ``i`` over ``j`` and games ``N[i, j]`` from a ladder table."""
    for column in ("strategy", "opponent", "wins", "games"):
        if column not in table.columns:
            raise AcesimError(f"a ladder table needs a {column!r} column (see acesim.runs.ladder.ladder_table)")
    names: list[str] = []
    for name in list(table["strategy"]) + list(table["opponent"]):
        if name not in names:
            names.append(str(name))
    if len(names) < 2:
        raise AcesimError("Bradley–Terry strengths need at least two strategies")
    index = {name: i for i, name in enumerate(names)}
    k = len(names)
    wins = np.zeros((k, k))
    games = np.zeros((k, k))
    seen = np.zeros((k, k), dtype=bool)
    for r in table.itertuples(index=False):
        i, j = index[str(r.strategy)], index[str(r.opponent)]
        if i == j:
            raise AcesimError(f"strategy {r.strategy!r} is listed against itself")
        if seen[i, j]:
            raise AcesimError(f"pairing {r.strategy!r} v {r.opponent!r} is listed twice")
        if not 0 <= r.wins <= r.games:
            raise AcesimError(f"{r.strategy!r} v {r.opponent!r}: {r.wins} wins in {r.games} games")
        seen[i, j] = True
        wins[i, j] = r.wins
        games[i, j] = r.games
    for i in range(k):
        for j in range(i + 1, k):
            if seen[i, j] and seen[j, i]:
                if games[i, j] != games[j, i] or wins[i, j] + wins[j, i] != games[i, j]:
                    raise AcesimError(f"{names[i]!r} v {names[j]!r}: the two rows do not add up")
            elif seen[i, j] or seen[j, i]:  # one direction only: the other is implied
                a, b = (i, j) if seen[i, j] else (j, i)
                wins[b, a] = games[a, b] - wins[a, b]
                games[b, a] = games[a, b]
    if not _connected(games > 0):
        raise AcesimError("the ladder's pairings do not connect every strategy; strengths are not comparable")
    return names, wins, games


def _connected(adjacent: np.ndarray) -> bool:
    reached = {0}
    frontier = [0]
    while frontier:
        i = frontier.pop()
        for j in np.flatnonzero(adjacent[i]):
            if int(j) not in reached:
                reached.add(int(j))
                frontier.append(int(j))
    return len(reached) == len(adjacent)


def _fit(wins: np.ndarray, games: np.ndarray, anchor: int, prior: float) -> np.ndarray:
    """Maximum likelihood ``θ`` (natural log odds, ``θ[anchor] = 0``) with ``prior`` virtual wins a side."""
    played = games > 0
    w = wins + prior * played
    n = games + 2 * prior * played
    k = len(w)
    free = np.array([i for i in range(k) if i != anchor])
    theta = np.zeros(k)

    def loglik(t: np.ndarray) -> float:
        d = t[:, None] - t[None, :]
        return float(np.sum(w * -np.logaddexp(0.0, -d)))

    current = loglik(theta)
    for _ in range(100):
        p = 0.5 * (1.0 + np.tanh(0.5 * (theta[:, None] - theta[None, :])))
        gradient = (w - n * p).sum(axis=1)
        v = n * p * (1 - p)
        hessian = v - np.diag(v.sum(axis=1))
        step = np.linalg.solve(hessian[np.ix_(free, free)], -gradient[free])
        scale = 1.0
        while True:  # step halving keeps each Newton step uphill
            trial = theta.copy()
            trial[free] += scale * step
            value = loglik(trial)
            if value >= current - 1e-12 or scale < 1e-6:
                break
            scale /= 2
        theta, current = trial, value
        if np.max(np.abs(scale * step)) < 1e-10:
            break
    return theta


def bradley_terry(table: pd.DataFrame, bootstrap: int = 200, seed: int = 0, prior: float = 0.5) -> pd.DataFrame:
    """Elo of each strategy from a ladder table (``acesim.runs.ladder.ladder_table``), anchored ``random = 0``.

    Intervals are bootstrap percentiles (2.5 %, 97.5 %) over ``bootstrap``
    resamples: each pairing's games are redrawn, so its wins are binomial
    with the observed win rate, from ``numpy.random.default_rng(seed)``.
    Without a ``random`` strategy the first strategy is the anchor; the
    ``anchor`` column names it in every case.  ``prior`` virtual wins per
    side and pairing keep sweeps finite (see the module docstring).

    One row per strategy, in the table's order.  Columns: ``strategy``,
    ``elo``, ``ci95_low``, ``ci95_high``, ``games``, ``wins``, ``win_rate``
    (over all its games), ``rank`` (1 = strongest), ``anchor``,
    ``resamples``, ``prior``.
    """
    if bootstrap < 200:
        raise AcesimError(f"the bootstrap needs at least 200 resamples, got {bootstrap}")
    if not prior > 0:
        raise AcesimError(f"the prior must be positive to keep sweeps finite, got {prior}")
    names, wins, games = _win_matrix(table)
    anchor = names.index(ANCHOR) if ANCHOR in names else 0
    theta = _fit(wins, games, anchor, prior)

    rng = np.random.default_rng(seed)
    upper = np.triu(games > 0, 1)
    rate = np.divide(wins, games, out=np.zeros_like(wins), where=games > 0)
    draws = np.empty((bootstrap, len(names)))
    for b in range(bootstrap):
        redrawn = np.zeros_like(wins)
        redrawn[upper] = rng.binomial(games[upper].astype(np.int64), rate[upper])
        redrawn = redrawn + (games - redrawn.T) * upper.T
        draws[b] = _fit(redrawn, games, anchor, prior)

    elo = theta * ELO_PER_NAT
    low = np.percentile(draws, 2.5, axis=0) * ELO_PER_NAT
    high = np.percentile(draws, 97.5, axis=0) * ELO_PER_NAT
    total_games = games.sum(axis=1)
    total_wins = wins.sum(axis=1)
    rank = pd.Series(elo).rank(ascending=False, method="min").astype(int).to_numpy()
    return pd.DataFrame(
        {
            "strategy": names,
            "elo": elo,
            "ci95_low": low,
            "ci95_high": high,
            "games": total_games.astype(np.int64),
            "wins": total_wins.astype(np.int64),
            "win_rate": np.divide(total_wins, total_games, out=np.full(len(names), np.nan), where=total_games > 0),
            "rank": rank,
            "anchor": names[anchor],
            "resamples": bootstrap,
            "prior": prior,
        }
    )


def skill_spread(elo: pd.DataFrame) -> float:
    """``Elo(best) − Elo(random)``: how far skill carries above pure dice under a rule set.

    With ``random`` as the anchor (its Elo is 0), the best strategy's own
    interval in ``elo`` is the interval of the spread.
    """
    if ANCHOR not in set(elo["strategy"]):
        raise AcesimError("the skill spread needs the 'random' strategy in the ladder")
    base = float(elo.loc[elo["strategy"] == ANCHOR, "elo"].iloc[0])
    return float(elo["elo"].max()) - base
