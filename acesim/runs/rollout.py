"""Rollouts of one position, or of the candidate plays of one roll, on common dice.

``rollout(rules, position, trials)`` plays ``trials`` games on from
``position`` (the side on roll moves first) with one strategy on both sides
and reports the win probability and points per game of the side on roll,
each with a 95% interval, and the outcome shares.  With ``dice`` the trials
start from each candidate play of that roll, chosen by the move filter in
stages (``Choice``: ply 1, then ply 2 with a network, then the best within a
margin, and every play the user names; after a 1-2 that earns a double, from
the best play of each double), and every candidate sees the same dice in
trial ``i``, so the differences to the best are paired.

The luck of every roll is measured by the strategy's network, which values
the heuristic ranker's play of each of the 21 rolls (or, with ``luck_plays``
``"player"``, the trial player's own, at several times the cost;
``kernels.trials``), and subtracted from each trial's result when
``reduce`` is on (the default for learned strategies): the estimate stays
unbiased and its spread shrinks.  Both standard deviations per trial are
reported.  ``truncate`` stops each trial after that many rolls and values
the position by the network.  ``until_ci`` plays batches of 1,296 trials
(each first and second roll once) until every candidate's points interval
is at most that half-width, or the best is ahead of every other at 99% on
the paired difference, or ``trials`` (the cap) are played; ``attrs["stopped"]``
says which.

Trials are seeded by their index (``streams.block_keys``), so a rollout is
the same for any number of workers and on a Dask cluster.
"""

from __future__ import annotations

import math
import textwrap
import time
from collections.abc import Callable
from dataclasses import dataclass, field

import numpy as np
import pandas as pd

from acesim.analyses.hint import Filter, hint, json_records
from acesim.common.cluster import backend_for
from acesim.common.errors import AcesimError
from acesim.common.limits import DEFAULT_TURN_CAP
from acesim.common.stats import Z95, wilson
from acesim.common.tasks import map_tasks
from acesim.common.terminal import WIDTH, text_table
from acesim.engine.moves import parse_dice, segment_nodes
from acesim.engine.position import Position
from acesim.engine.rules import Ruleset
from acesim.engine.strategies import Strategy, as_strategy, lowered, resolve_spec
from acesim.engine.streams import block_keys, check_seed
from acesim.kernels import layout as L, trials as RK
from acesim.kernels.choice import LEARNED, RANDOM
from acesim.kernels.scoring import points_won
from acesim.kernels.memory import keep_memory, pairing_memory
from acesim.kernels.sequence import after_segment, roll_sequence, still_on_roll

BATCH = 1296  # every first and second roll once
# Whose play of each of the 21 rolls the network values to measure a roll's luck (``kernels.trials``).
LUCK_PLAYS = {"heuristic": RK.LUCK_HEURISTIC, "player": RK.LUCK_PLAYER}


def check_luck_plays(name: str) -> None:
    """A one-line error unless ``name`` is a way of measuring luck (a key of ``LUCK_PLAYS``)."""
    if name not in LUCK_PLAYS:
        raise AcesimError(f"luck plays must be one of {', '.join(LUCK_PLAYS)}, got {name!r}")


# With trial_ply 2, the plays of a trial's segment that go one roll deeper: the best 4 within 0.10 at ply 1.
TRIAL_FILTER = Filter(4, 0.10)
# Every trial's row (48 bytes) is kept for the paired differences: 4 * 10**7 rows, 1.9 GB, whatever
# the split into candidates (10**10 trials were accepted, and built 7.7 million tasks before the first).
MAX_TRIAL_ROWS = 4 * 10**7
ROUND = 64  # tasks handed out at a time, so that a long rollout starts at once and reports as it goes
Z99 = 2.5758293035489


@dataclass(frozen=True)
class Start:
    """Where a candidate's trials begin: the board of the side on roll first, and whose result is reported."""

    label: str  # the play (compact notation), or "" for the position itself
    double: int  # the double of a 1-2 decision, else 0
    position: str  # the ID after the play (mover's view)
    board: np.ndarray  # the first side to act, its view
    negate: bool  # the first side to act is the opponent: results are negated for the mover


@dataclass
class Rollout:
    """A rollout's estimates: ``candidates`` (one row per start) and ``outcomes`` (shares per result)."""

    candidates: pd.DataFrame
    outcomes: pd.DataFrame
    attrs: dict = field(default_factory=dict)


@dataclass(frozen=True)
class Choice:
    """Which plays of a roll are rolled out: the move filter, in stages, as analysis programs choose them.

    Every play is valued at ply 1; those ``first`` keeps (the best
    ``first.count`` within ``first.margin`` of the best) go on to ply 2 when
    the strategy has a network; of the plays at the deepest ply, the best
    ``count`` within ``margin`` of the best are rolled out, and every play
    named in ``plays`` besides.  A heuristic has no equity: its stages keep
    counts, not margins.  After a 1-2 that earns a double the candidates are
    each double's best play, chosen the same way.
    """

    count: int = 8
    margin: float = 0.10
    first: Filter = Filter(16, 0.16)
    plays: tuple[str, ...] = ()

    def __post_init__(self) -> None:
        if not 1 <= self.count <= 64:
            raise AcesimError(f"candidates must be in 1..64, got {self.count}")
        if not self.margin >= 0:
            raise AcesimError(f"the candidates' margin is an equity of 0 or more, got {self.margin}")
        if len(self.plays) > 64:
            raise AcesimError(f"at most 64 plays can be named, got {len(self.plays)}")


def _same_play(named: str, play: str) -> bool:
    """A play as the user wrote it names the play in compact notation: the same moves, in any order."""
    return sorted(named.replace(",", " ").split()) == sorted(play.split())


def _chosen_rows(frame: pd.DataFrame, choice: Choice, learned: bool) -> tuple[pd.DataFrame, bool]:
    """The rows of the hint frame to roll out, best first, and whether they are each double's best play."""
    doubles = frame[frame["stage"] == "double"]
    if len(doubles):
        if choice.plays:
            raise AcesimError("this 1-2 earns a double, and the rollout takes each double's best play: "
                              "--play names plays of a roll that earns none")
        rows, bonus = doubles, True
    else:
        rows, bonus = frame, False
        deepest = rows["ply"].max()
        rows = rows[rows["ply"] == deepest]
    if learned and len(rows):
        rows = rows[rows["equity"] >= rows["equity"].iloc[0] - choice.margin]
    chosen = rows.head(choice.count)
    for named in choice.plays:
        match = frame[[_same_play(named, p) for p in frame["play"]]]
        if not len(match):
            legal = ", ".join(frame["play"].head(6))
            raise AcesimError(f"--play {named!r} is not a legal play of this roll (its best: {legal})")
        if not chosen["position"].isin(match["position"]).any():
            chosen = pd.concat([chosen, match.head(1)])
    return chosen, bonus


def _starts(rules: Ruleset, position: Position, dice, strategy: Strategy, choice: Choice) -> list[Start]:
    if dice is None:
        if choice.plays:
            raise AcesimError("--play names a play of --dice; give the roll")
        return [Start("", 0, position.to_id(), position.to_board(), False)]
    roll = parse_dice(dice)
    learned = strategy.kind == LEARNED
    frame = hint(rules, position, roll, strategy, 2 if learned else 1, None, choice.first if learned else None)
    array = rules.to_array()
    seq = roll_sequence(array)
    rows, bonus = _chosen_rows(frame, choice, learned)
    starts = []
    for row in rows.itertuples():
        after = Position.from_id(row.position)
        a, b = (row.double, row.double) if bonus else roll
        if bonus:
            before = Position.from_id(frame[frame["stage"] == "1-2"]["position"].iloc[0])
        else:
            before = position
        nodes = segment_nodes(rules, before, (a, b), bonus)
        again = bool(still_on_roll(after_segment(seq, a, b, bonus, len(nodes.segment), nodes.dice_used, False)))
        # a 1-2 that earns a double is rolled out from each double's play (above), so a start is never
        # followed by a bonus double: either its mover rolls again or the opponent is on roll
        won = after.off[0] == L.N_CHECKERS
        if again or won:
            starts.append(Start(row.play, int(row.double), row.position, after.to_board(), False))
        else:
            starts.append(Start(row.play, int(row.double), row.position, after.flipped().to_board(), True))
    return starts


def candidate_plays(rules: Ruleset, position: Position, dice, strategy: Strategy | str = "best",
                    choice: Choice = Choice()) -> list[tuple[str, int]]:
    """The plays a rollout of ``dice`` from ``position`` would roll out, as ``(play, double)``, best first."""
    if isinstance(strategy, str):
        strategy = as_strategy(resolve_spec(strategy, rules))
    strategy.check_rules(rules)
    strategy.refuse_deeper("a rollout's trials look one roll deeper by --trial-ply 2")
    return [(s.label, s.double) for s in _starts(rules, position, dice, strategy, choice)]


def _trials(rules, rules_array, spec, boards, negate, seed, first, n, truncate, turn_cap, luck, deeper):
    """One task: trials ``first .. first + n - 1`` of every start; rows per start (side on roll at the start)."""
    strategy = as_strategy(spec).for_rules(rules)
    seats = lowered(strategy, strategy)
    memory = pairing_memory(seats)
    keys = block_keys(seed, first, n)
    out = []
    for board, flip_result in zip(boards, negate):
        rows = np.zeros((n, RK.N_TRIAL_COLUMNS))
        if board[L.OFF] == L.N_CHECKERS:  # the play won the game: nothing to roll
            rows[:, RK.X_POINTS] = _won_points(board, rules_array)
            rows[:, RK.X_WIN] = 1.0
        else:
            memory = RK.rollout_trials(board, rules_array, seats, keys, first, truncate, turn_cap, luck, deeper,
                                       memory, rows)
        if flip_result:
            rows[:, RK.X_POINTS] *= -1
            rows[:, RK.X_WIN] = 1.0 - rows[:, RK.X_WIN]
            rows[:, RK.X_LUCK_POINTS] *= -1
            rows[:, RK.X_LUCK_WIN] *= -1
        out.append(rows)
    keep_memory(memory)
    return out


def _won_points(board: np.ndarray, rules_array: np.ndarray) -> float:
    return float(points_won(board, rules_array, 0))


def _summary(rows: list[np.ndarray], reduce: bool) -> tuple[pd.DataFrame, np.ndarray]:
    """Per start: n, the estimates and their intervals; and the per-trial estimates (trials x starts)."""
    records, ys = [], []
    for r in rows:
        n = len(r)
        y_points = r[:, RK.X_POINTS] - (r[:, RK.X_LUCK_POINTS] if reduce else 0.0)
        y_win = r[:, RK.X_WIN] - (r[:, RK.X_LUCK_WIN] if reduce else 0.0)
        ys.append(y_points)
        sd_plain = float(np.std(r[:, RK.X_POINTS], ddof=1)) if n > 1 else math.nan
        sd = float(np.std(y_points, ddof=1)) if n > 1 else math.nan
        sd_win = float(np.std(y_win, ddof=1)) if n > 1 else math.nan
        points, win = float(y_points.mean()), float(y_win.mean())
        half, half_win = Z95 * sd / math.sqrt(n), Z95 * sd_win / math.sqrt(n)
        records.append({
            "n": n, "win": win, "win_low": win - half_win, "win_high": win + half_win,
            "points": points, "points_low": points - half, "points_high": points + half,
            "points_plain": float(r[:, RK.X_POINTS].mean()), "win_plain": float(r[:, RK.X_WIN].mean()),
            "sd_plain": sd_plain, "sd": sd,
            "truncated": int((r[:, RK.X_END] == RK.END_TRUNCATED).sum()),
            "capped": int((r[:, RK.X_END] == RK.END_CAPPED).sum()),
        })
    return pd.DataFrame(records), np.column_stack(ys)


def _half_width(r: np.ndarray, reduce: bool) -> float:
    y = r[:, RK.X_POINTS] - (r[:, RK.X_LUCK_POINTS] if reduce else 0.0)
    return Z95 * float(np.std(y, ddof=1)) / math.sqrt(len(y)) if len(y) > 1 else math.inf


def _paired(frame: pd.DataFrame, ys: np.ndarray, seed: int) -> pd.DataFrame:
    """The paired difference of each start to the best, with its interval, and the probability each is best."""
    n, k = ys.shape
    best = int(frame["points"].to_numpy().argmax())
    d = ys - ys[:, [best]]
    mean = d.mean(axis=0)
    sd = d.std(axis=0, ddof=1) if n > 1 else np.full(k, np.nan)
    half = Z95 * sd / math.sqrt(n)
    frame["diff"] = mean
    frame["diff_low"] = mean - half
    frame["diff_high"] = mean + half
    if k == 1:
        frame["p_best"] = 1.0
        return frame
    # the means are jointly normal with the trials' covariance / n: draw them and count who is best
    cov = np.cov(ys, rowvar=False) / n
    draws = np.random.default_rng(np.random.SeedSequence(seed, spawn_key=(1,))).multivariate_normal(
        ys.mean(axis=0), cov, size=20_000, method="eigh"
    )
    frame["p_best"] = np.bincount(draws.argmax(axis=1), minlength=k) / len(draws)
    return frame


def _outcomes(starts: list[Start], rows: list[np.ndarray]) -> pd.DataFrame:
    """Shares of each result (signed points of the mover) among the finished trials, with Wilson intervals."""
    records = []
    for s, r in zip(starts, rows):
        finished = r[r[:, RK.X_END] == RK.END_WON]
        values, counts = np.unique(finished[:, RK.X_POINTS], return_counts=True)
        for value, count in zip(values, counts):
            low, high = wilson(int(count), len(finished))
            records.append({"play": s.label, "double": s.double, "points": float(value), "n": len(finished),
                            "share": count / len(finished), "share_low": low, "share_high": high})
    return pd.DataFrame(records, columns=["play", "double", "points", "n", "share", "share_low", "share_high"])


# Why a rollout stopped (``attrs["stopped"]``).
STOP_TRIALS = "trials"  # the trials asked for were played (no target)
STOP_TARGET = "target"  # every points interval within the half-width asked for
STOP_SEPARATED = "separated"  # the best play ahead of every other at 99%
STOP_CAP = "cap"  # the target was not reached within the most trials allowed


def _done(frame: pd.DataFrame, ys: np.ndarray, until_ci: float) -> str | None:
    """Why ``until_ci`` stops here (``STOP_TARGET`` or ``STOP_SEPARATED``), or ``None`` to go on."""
    if (frame["points_high"] - frame["points"]).max() <= until_ci:
        return STOP_TARGET
    if ys.shape[1] < 2:
        return None
    n = ys.shape[0]
    best = int(frame["points"].to_numpy().argmax())
    d = ys[:, [best]] - np.delete(ys, best, axis=1)
    low = d.mean(axis=0) - Z99 * d.std(axis=0, ddof=1) / math.sqrt(n)
    return STOP_SEPARATED if bool((low > 0).all()) else None


def rollout(
    rules: Ruleset,
    position: Position,
    trials: int,
    strategy: Strategy | str = "best",
    dice=None,
    candidates: int | Choice = 4,
    truncate: int = 0,
    seed: int = 42,
    until_ci: float | None = None,
    reduce: bool | None = None,
    workers: int = 1,
    scheduler: str | None = None,
    turn_cap: int = DEFAULT_TURN_CAP,
    on_progress: Callable[[int, float], None] | None = None,
    luck_plays: str = "heuristic",
    trial_ply: int = 1,
) -> Rollout:
    """Roll out ``position`` (or the candidate plays of ``dice``); see the module docstring.

    ``reduce`` defaults to on for a learned strategy; a heuristic has no
    network to measure luck or to value a truncated trial, so it refuses
    both.  ``luck_plays`` (a key of ``LUCK_PLAYS``) is whose play of each
    roll the network values for the luck.  ``trial_ply`` 2 plays every
    segment of the trials at ply 2 (the best ``TRIAL_FILTER`` keeps at ply 1,
    one roll deeper), for a network strategy.  ``on_progress(trials, half-width)`` is called after every task
    with the trials it played of each candidate and the widest points
    interval's half-width so far.
    """
    start = time.perf_counter()
    check_seed(seed)
    choice = candidates if isinstance(candidates, Choice) else Choice(candidates)
    candidates = choice.count + len(choice.plays)
    most = MAX_TRIAL_ROWS // (candidates if dice is not None else 1)
    if not 1 <= trials <= most:
        raise AcesimError(f"the number of trials must be in 1..{most:,} (with {candidates} candidate(s): every "
                          f"trial is kept, 48 bytes each), got {trials:,}")
    if truncate < 0:
        raise AcesimError(f"truncate must be 0 (play to the end) or a number of rolls, got {truncate}")
    if until_ci is not None and not until_ci > 0:
        raise AcesimError(f"until-ci must be a positive half-width, got {until_ci}")
    if position.off[0] == L.N_CHECKERS or position.off[1] == L.N_CHECKERS:
        raise AcesimError("the game is over in this position: a side has borne off all 15")
    if isinstance(strategy, str):
        strategy = as_strategy(resolve_spec(strategy, rules))
    strategy.check_rules(rules)
    strategy.refuse_deeper("a rollout's trials look one roll deeper by --trial-ply 2")
    if strategy.kind == RANDOM:
        raise AcesimError("rollouts play a strategy that values its plays; the random strategy values none")
    learned = strategy.kind == LEARNED
    if reduce is None:
        reduce = learned
    if reduce and not learned:
        raise AcesimError(f"variance reduction needs a network to measure luck; {strategy.spec!r} has none")
    check_luck_plays(luck_plays)
    luck = LUCK_PLAYS[luck_plays] if reduce else RK.LUCK_OFF
    if trial_ply not in (1, 2):
        raise AcesimError(f"the trials' ply must be 1 (the network's value of each play) or 2 (one roll deeper), "
                          f"got {trial_ply}")
    if trial_ply == 2 and not learned:
        raise AcesimError(f"trials at ply 2 look one roll deeper with a network; {strategy.spec!r} has none")
    deeper = (TRIAL_FILTER.count, float(TRIAL_FILTER.margin)) if trial_ply == 2 else (0, 0.0)
    if truncate and not learned:
        raise AcesimError(f"a truncated rollout ends on a network's value; {strategy.spec!r} has none")
    starts = _starts(rules, position, dice, strategy, choice)
    array = rules.to_array()
    boards = [s.board for s in starts]
    negate = [s.negate for s in starts]
    # tasks of whole 36s, about four per worker, at most a batch: the trials' seeds do not depend on it
    per_task = 36 * min(36, max(1, math.ceil(trials / (36 * 4 * max(workers, 1)))))
    stopped = STOP_TRIALS if until_ci is None else None
    rows: list[list[np.ndarray]] = [[] for _ in starts]
    running: list[list[np.ndarray]] = [[] for _ in starts]  # as tasks finish, for the progress display
    done = 0
    with backend_for(workers, scheduler) as backend:
        while done < trials:
            batch = min(trials - done, BATCH if until_ci is not None else per_task * ROUND)
            tasks = [
                (rules, array, strategy.spec, boards, negate, seed, first, min(per_task, done + batch - first),
                 truncate, turn_cap, luck, deeper)
                for first in range(done, done + batch, per_task)
            ]

            def progress(i: int, result) -> None:
                if on_progress is None:
                    return
                for k, r in enumerate(result):
                    running[k].append(r)
                widest = max(_half_width(np.concatenate(r), reduce) for r in running)
                on_progress(len(result[0]), widest)

            results = map_tasks(_trials, tasks, backend, progress)
            for result in results:
                for k, r in enumerate(result):
                    rows[k].append(r)
            done += batch
            if until_ci is not None:
                stopped = _done(*_summary([np.concatenate(r) for r in rows], reduce), until_ci)
                if stopped is not None:
                    break
    merged = [np.concatenate(r) for r in rows]
    frame, ys = _summary(merged, reduce)
    frame = _paired(frame, ys, seed)
    frame.insert(0, "play", [s.label for s in starts])
    frame.insert(1, "double", [s.double for s in starts])
    frame.insert(2, "position", [s.position for s in starts])
    frame = frame.sort_values("points", ascending=False, kind="stable").reset_index(drop=True)
    frame.insert(0, "rank", np.arange(1, len(frame) + 1))
    return Rollout(frame, _outcomes(starts, merged), {
        "rules": rules.name, "strategy": strategy.spec, "position": position.to_id(),
        "dice": list(parse_dice(dice)) if dice is not None else None, "trials": int(ys.shape[0]),
        "truncate": truncate, "reduce": bool(reduce), "luck_plays": luck_plays if reduce else None,
        "trial_ply": trial_ply, "seed": seed,
        "seconds": time.perf_counter() - start,
        "until_ci": until_ci, "stopped": stopped or STOP_CAP, "max_trials": trials,
        "widest": float((frame["points_high"] - frame["points"]).max()),
        "choice": None if dice is None else {
            "ply": 2 if learned else 1, "count": choice.count, "margin": choice.margin if learned else None,
            "first_count": choice.first.count, "first_margin": choice.first.margin if learned else None,
            "named": list(choice.plays)},
    })


def _interval(mean: float, low: float, high: float, percent: bool = False) -> str:
    if percent:
        return f"{100 * mean:.1f}% [{100 * low:.1f}, {100 * high:.1f}]"
    return f"{mean:+.3f} [{low:+.3f}, {high:+.3f}]"


def format_rollout(result: Rollout, width: int = WIDTH) -> str:
    """The rollout as text no wider than ``width``: a header line, the candidates best first, and the
    outcome shares of the best (a wide table split, a long play wrapped: ``acesim.common.terminal``)."""
    a, frame = result.attrs, result.candidates
    method = f"luck-reduced by the {a['luck_plays']}'s plays" if a["reduce"] else "plain"
    cut = f", truncated after {a['truncate']} rolls" if a["truncate"] else ""
    cut += ", trials at ply 2" if a.get("trial_ply") == 2 else ""
    dice = f"; dice {a['dice'][0]}-{a['dice'][1]}" if a["dice"] else ""
    lines = textwrap.wrap(
        f"Rollout: rules {a['rules']}; strategy {a['strategy']}; position {a['position']}{dice}; "
        f"{a['trials']:,} trials each ({method}{cut}, seed {a['seed']}); {a['seconds']:.1f} s",
        width, break_long_words=False, break_on_hyphens=False,
    ) + textwrap.wrap(_stop_line(a), width, break_long_words=False) + textwrap.wrap(
        _choice_line(a), width, break_long_words=False) + [""]
    header = ["#"] + (["double"] if (frame["double"] > 0).any() else []) + (
        ["play"] if a["dice"] else []) + ["win [95% CI]", "points [95% CI]"]
    if len(frame) > 1:
        header += ["points vs best [95% CI]", "P(best)"]
    header += ["sd/trial plain", "sd/trial reduced" if a["reduce"] else "sd/trial"]
    body = []
    for r in frame.itertuples():
        row = [str(r.rank)] + ([str(r.double)] if "double" in header else []) + ([r.play] if "play" in header else [])
        row += [_interval(r.win, r.win_low, r.win_high, True), _interval(r.points, r.points_low, r.points_high)]
        if len(frame) > 1:
            row += ["best" if r.rank == 1 else _interval(r.diff, r.diff_low, r.diff_high), f"{r.p_best:.3f}"]
        row += [f"{r.sd_plain:.3f}", f"{r.sd:.3f}"]
        body.append(row)
    keys = header.index("play") + 1 if "play" in header else (2 if "double" in header else 1)
    lines += text_table(header, body, width, keys=keys, left=set(range(len(header))),
                        text={keys - 1} if "play" in header else set())
    separation = _separation_line(frame)
    if separation:
        lines += [""] + textwrap.wrap(separation, width, break_long_words=False)
    best = frame.iloc[0]
    shares = result.outcomes[(result.outcomes["play"] == best["play"]) & (result.outcomes["double"] == best["double"])]
    if len(shares):
        lines += ["", f"Outcomes of #1 (points to the side on roll; {int(shares['n'].iloc[0]):,} finished trials):"]
        lines += [f"  {p:+.0f}: {_interval(s, lo, hi, True)}"
                  for p, s, lo, hi in shares[["points", "share", "share_low", "share_high"]].itertuples(index=False)]
    unfinished = int(frame["capped"].sum())
    if unfinished:
        lines.append(f"{unfinished} trial(s) reached the turn cap and were valued by the network")
    if a["truncate"]:
        lines += [""] + textwrap.wrap(_truncation_note(a, frame), width, break_long_words=False)
    return "\n".join(lines)


def _separation_line(frame: pd.DataFrame) -> str:
    """Which candidates the rollout could not tell from the best: their paired interval holds 0."""
    if len(frame) < 2:
        return ""
    close = frame.iloc[1:][frame["diff_high"].iloc[1:] >= 0]
    if not len(close):
        return "#1 is ahead of every other candidate: each paired interval excludes 0."
    names = ", ".join(f"#{r.rank}" for r in close.itertuples())
    return (f"Not separated: {names} {'is' if len(close) == 1 else 'are'} within the noise of #1 (the "
            "paired interval holds 0); --until-ci plays on until the intervals are narrow enough to tell.")


def _choice_line(a: dict) -> str:
    """How the candidates were chosen (the move filter's stages)."""
    c = a.get("choice")
    if not c:
        return ""
    if c["ply"] == 2:
        line = (f"Candidates: of the plays within {c['first_margin']:.2f} of the best at ply 1 (at most "
                f"{c['first_count']}), the best {c['count']} within {c['margin']:.2f} at ply 2")
    else:
        line = f"Candidates: the best {c['count']} at ply 1 (a heuristic's scores are no equity: no margin)"
    if c["named"]:
        line += f", and {', '.join(c['named'])} as named"
    return line + "."


def _stop_line(a: dict) -> str:
    """Why the rollout stopped, when it had a target: plainly, when the target was not reached."""
    if a.get("until_ci") is None:
        return ""
    target, trials = f"±{a['until_ci']:.3f}", f"{a['trials']:,} trials"
    if a["stopped"] == STOP_TARGET:
        return f"Target {target} reached: every points interval is within it after {trials}."
    if a["stopped"] == STOP_SEPARATED:
        return (f"Stopped after {trials}: the best play is ahead of every other at 99% (widest interval "
                f"±{a['widest']:.3f}, target {target}).")
    return (f"Target {target} NOT reached: stopped at the cap of {a['max_trials']:,} trials with the widest "
            f"interval ±{a['widest']:.3f}; raise --max-trials to go on.")


def _truncation_note(attrs: dict, frame: pd.DataFrame) -> str:
    """What the intervals of a truncated rollout cover, and when they are no interval at all."""
    n = attrs["truncate"]
    note = (f"Each trial stops after {n} roll{'s' if n > 1 else ''} on the network's value: the intervals "
            "cover the dice rolled before that, not the network's error.")
    if attrs["reduce"] and (frame["sd"] < 1e-9).all():
        note += (" With the luck correction every trial here has the same value, the network's average over "
                 "the rolls it played: the figures are that value, and their interval has no width because "
                 "nothing was left to chance (truncate later for a rollout).")
    return note


def rollout_json(result: Rollout) -> dict:
    """The rollout as a JSON-ready object (NaN as null)."""
    return {**result.attrs, "candidates": json_records(result.candidates), "outcomes": json_records(result.outcomes)}
