"""What the runs are asked for: the options of ``simulate`` and of the analyses, with their defaults.

Written once here, read by the command line (its options' defaults) and by
the runs (``simulate.plan_for``, ``report.analysis_plan``); light on purpose,
so that ``acesim --help`` reads the defaults without importing the runs.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from acesim.common.limits import DEFAULT_TURN_CAP


@dataclass(frozen=True)
class AnalysisOptions:
    """The rule sets, sizes, player, seed and equity model of one analysis run."""

    rules: str = "european,american,navy,backgammon"  # preset names or rules files, comma-separated
    rules_files: tuple[Path, ...] = ()  # more rules files, each a rule set
    overrides: tuple[str, ...] = ()  # knob=value, applied to every rule set
    sweep: str | None = None  # knob=v1,v2,...: vary one knob over the first rule set
    games: int = 10_000  # games per rule set for the comparison and the bonus-roll figures
    strategy: str = "best"  # the one player of every rule set (strategies.best_spec)
    equity_games: int | None = None  # None: derived from games (report.report_sizes_from_numbers)
    luck_games: int | None = None
    ladder_games: int | None = None
    seed: int = 42
    equity: str = "auto"  # the equity model V: auto, logistic or learned:PATH (analyses.equity)


@dataclass(frozen=True)
class SimulateOptions:
    """What ``simulate`` is asked for.  ``None`` is an option not given: a new run takes its default
    (``SIMULATE_DEFAULTS``), a resumed run its plan's, and a value given must agree with the plan."""

    rules: str | None = None  # preset names or rules files, comma-separated
    overrides: tuple[str, ...] = ()  # knob=value, applied to every rule set
    strategy: str | None = None  # seat A's
    vs: str | None = None  # seat B's
    strategies_file: Path | None = None  # a weights file instead of the built-in one
    games: int | None = None  # per rule set
    seed: int | None = None
    chunk_size: int | None = None  # None: simulate.default_chunk_size
    turn_cap: int | None = None

    def given(self) -> bool:
        """Whether any option was given at all."""
        return bool(self.overrides) or any(
            v is not None for v in (self.rules, self.strategy, self.vs, self.strategies_file, self.games,
                                    self.seed, self.chunk_size, self.turn_cap))


SIMULATE_DEFAULTS = SimulateOptions(rules="european", strategy="expert", vs="expert", games=10_000, seed=42,
                                    turn_cap=DEFAULT_TURN_CAP)


@dataclass(frozen=True)
class ExploreOptions:
    """What ``explore`` is asked for: the design around a base rule set, the player and the sizes.
    Sizes left ``None`` derive from ``games`` (``explore.sizes_from_games``)."""

    base: str = "european"  # a preset or a rules file
    overrides: tuple[str, ...] = ()  # knob=value, applied to the base
    vary: tuple[str, ...] = ()  # KNOB or KNOB=V1,V2,...; none: every knob
    design: str = "auto"  # auto, full or random
    rule_sets: int = 128  # of a random design, the four presets and the base among them
    max_rule_sets: int = 1024  # a larger design is refused
    strategy: str = "best"  # the one player of every rule set
    games: int = 4_000  # self-play games per rule set
    skill_games: int | None = None
    equity_games: int | None = None
    luck_games: int | None = None
    seed: int = 42
    turn_cap: int = DEFAULT_TURN_CAP
