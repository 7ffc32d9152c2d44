# What are a 1-2 and the first move worth at our club? The club's house rules
# (examples/club-rules.toml) against the European game they start from, on the
# same dice, with acesim's library API, pandas and matplotlib.
#
# Run it from the repository root:   python examples/snippet.py
# or paste it into a notebook cell (started in the repository root, or change
# CLUB_RULES below). The chart is shown inline in a notebook and saved as
# club-one-two.png in $OUT (the current folder when OUT is not set).
import os
from pathlib import Path

import matplotlib.pyplot as plt
import pandas as pd

from acesim.analyses.bonus import win_by_difference
from acesim.analyses.compare import paired_differences, rule_set_table
from acesim.engine.games import play_games
from acesim.engine.rules import Ruleset

CLUB_RULES = Path("examples/club-rules.toml")
GAMES = 4000  # per rule set; intervals shrink with the square root of this
SEED = 42  # the same seed plays the same games, so every number here repeats

club = Ruleset.from_file(CLUB_RULES)
rule_sets = [Ruleset.preset(club.base), club]

# Game i rolls the same dice under both rule sets (common random numbers), so
# the two tables pair game by game. Both seats play the expert heuristic: the
# shipped learned players know only the presets' exact rules.
records = {
    r.name: play_games(r, GAMES, seed=SEED, strategy_a="expert", strategy_b="expert")
    for r in rule_sets
}

# The headline figures with 95% intervals, one row per rule set.
table = rule_set_table(records).set_index("rules")
headline = pd.DataFrame({
    "games": table["finished"],
    "first mover wins (%)": (100 * table["first_mover_win_rate"]).round(1),
    "95% interval (%)": [
        f"{100 * lo:.1f} to {100 * hi:.1f}"
        for lo, hi in zip(table["first_mover_win_rate_low"], table["first_mover_win_rate_high"])
    ],
    "rolls per game": table["rolls_per_game"].round(1),
})
print(headline.to_string(), end="\n\n")

# Plain pandas on the records: what one game is worth. Under the club's rules
# every 1-2 either player rolls doubles the stake.
finished = pd.concat(records.values())
finished = finished[finished["unfinished"] == 0]
stakes = pd.crosstab(finished["rules"], finished["points"].clip(upper=64), normalize="index")
stakes.columns = [f"{p}{'+' if p == 64 else ''} pt" for p in stakes.columns]
print("share of games by points paid (%)")
print((100 * stakes).round(1).to_string(), end="\n\n")

# The same games under both rule sets, club minus European: how much shorter is
# a club game, and does moving first matter more or less?
diffs = paired_differences(records, base=rule_sets[0].name, metrics=("rolls", "first_mover_win"))
print(diffs[["rules", "metric", "n", "diff", "paired_low", "paired_high"]].round(3).to_string(index=False))

# A side's result by how many more 1-2s it rolled than its opponent.
by_lead = {name: win_by_difference(df, "one_two_diff", clip=3) for name, df in records.items()}
fig, (wins, points) = plt.subplots(1, 2, figsize=(11, 4), layout="constrained")
for name, t in by_lead.items():
    (line,) = wins.plot(t["bin"], 100 * t["win_rate"], marker="o", label=name)
    wins.fill_between(t["bin"], 100 * t["ci95_low"], 100 * t["ci95_high"], color=line.get_color(), alpha=0.2)
    points.plot(t["bin"], t["mean_points"], marker="o", label=name)
    points.fill_between(t["bin"], t["points_ci95_low"], t["points_ci95_high"], color=line.get_color(), alpha=0.2)
labels = by_lead[club.name].set_index("bin")["label"]
for ax, what in ((wins, "win chance (%)"), (points, "points won per game")):
    ax.set_xticks(labels.index, labels)
    ax.set_xlabel("1-2 rolls: side minus opponent")
    ax.set_ylabel(f"{what}, 95% band")
    ax.grid(alpha=0.3)
    ax.legend(title="rule set")
fig.suptitle(f"What a 1-2 is worth: {GAMES:,} games per rule set, expert against expert, seed {SEED}")

chart = Path(os.environ.get("OUT", ".")) / "club-one-two.png"
fig.savefig(chart, dpi=100)
print(f"\nchart: {chart}")
