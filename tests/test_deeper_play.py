"""Ply-2 players (``learned:MODEL@ply=2``): their spec, their games, and where they are refused."""

from __future__ import annotations

import re

import numpy as np
import pytest

from acesim.common.errors import AcesimError
from acesim.engine.games import play_records, trace_games
from acesim.engine.rules import Ruleset
from acesim.engine.strategies import DEFAULT_KEEP, DEFAULT_MARGIN, load_strategy, lowered
from acesim.kernels import game_loop as K
from acesim.kernels.board import flip
from acesim.kernels.choice import MARGIN_UNIT, deeper_filter
from acesim.kernels.layout import BOARD_DTYPE, BOARD_SIZE
from acesim.kernels.lookahead import deeper_bonus, deeper_segment
from acesim.kernels.memory import worker_memory
from acesim.kernels.sequence import roll_sequence


def test_ply_two_sets_the_filter_and_keeps_the_search():
    plain = load_strategy("learned:any")
    deep = load_strategy("learned:any@ply=2")
    assert (deep.keep, deep.margin) == (DEFAULT_KEEP, DEFAULT_MARGIN) and "ply-2 search" in deep.description
    assert (deep.width, deep.choice_width, deep.tangent, deep.weights) == (
        plain.width, plain.choice_width, plain.tangent, plain.weights)
    tuned = load_strategy("learned:any@tangent@ply=2@keep=3@margin=0.25@beam=8")
    assert (tuned.keep, tuned.margin, tuned.width) == (3, 0.25, 8)
    assert load_strategy("learned:any@ply=1").keep == 0
    european = Ruleset.preset("european")
    seats = lowered(tuned, plain, european)
    assert seats.widths.tolist() == [[8, 4, 3, 250], [16, 4, 0, 0]]
    assert deeper_filter(seats.widths, 0) == (3, 250 * MARGIN_UNIT) and deeper_filter(seats.widths, 1)[0] == 0
    # a pairing's two widths columns alone (training's self-play) is a ply-1 pairing
    assert deeper_filter(seats.widths[:, :2].copy(), 0)[0] == 0


@pytest.mark.parametrize("spec, fragment", [
    ("learned:any@keep=3", "'learned:any@keep=3': @keep and @margin need @ply=2"),
    ("learned:any@margin=0.2", "@keep and @margin need @ply=2"),
    ("learned:any@ply=1@keep=3", "@keep and @margin need @ply=2"),
    ("learned:any@ply=3", "@ply must be 1 or 2, got 'learned:any@ply=3'"),
    ("learned:any@ply=", "@ply must be 1 or 2"),
    ("learned:any@ply=2@ply=2", "search option 'ply' given twice"),
    ("learned:any@ply=2@keep=0", "@keep must be an integer in 1..16"),
    ("learned:any@ply=2@keep=17", "@keep must be an integer in 1..16"),
    ("learned:any@ply=2@keep=x", "@keep must be an integer in 1..16"),
    ("learned:any@ply=2@margin=-0.1", "@margin must be a number in 0..2 in steps of 0.001"),
    ("learned:any@ply=2@margin=nan", "@margin must be a number in 0..2"),
    ("learned:any@ply=2@margin=0.1234", "@margin must be a number in 0..2 in steps of 0.001"),
    ("learned:any@ply=2@wide", "unknown search option"),
    ("expert@ply=2", "@ply, @keep and @margin look one roll deeper with a network's equity"),
])
def test_bad_ply_options_are_one_line_errors(spec, fragment):
    with pytest.raises(AcesimError, match=re.escape(fragment)):
        load_strategy(spec)


@pytest.mark.parametrize("acey_deucey", ["choose", "roll-die"])
def test_keeping_one_play_plays_the_ply_one_players_games(acey_deucey):
    """With one play kept, the look deeper changes nothing: the play is the best at ply 1 among every
    play of a two-dice segment and the search's shortlist of a double, the ply-1 player's own; after a
    1-2, the best of the six doubles' shortlists, which is the ply-1 player's choice when it ranks the
    six by its own search (``@rank=16``; by default it ranks them by beams of 4), or under ``roll-die``
    the drawn double's, drawn from the same dice."""
    european = Ruleset.preset("european").with_overrides({"acey_deucey": acey_deucey})
    expert = load_strategy("expert")
    plain = play_records(european, load_strategy("learned:any@rank=16"), expert, 17, 0, 6)
    one = play_records(european, load_strategy("learned:any@rank=16@ply=2@keep=1"), expert, 17, 0, 6)
    assert np.array_equal(plain, one)
    deep = play_records(european, load_strategy("learned:any@rank=16@ply=2"), expert, 17, 0, 6)
    assert not np.array_equal(plain, deep)


@pytest.mark.parametrize("rules", ["european", "backgammon"])
def test_a_ply_two_seat_plays_each_segment_as_deeper_segment_chooses(rules):
    """Every roll of the ply-2 seat in traced games is replayed by ``lookahead.deeper_segment`` from the
    board the trace holds: the position after it is the next roll's (flipped when the turn passed)."""
    ruleset = Ruleset.preset(rules)
    deep = load_strategy(f"learned:{'any' if rules == 'european' else 'backgammon'}@ply=2@keep=3@margin=0.2")
    other = load_strategy("expert")
    seats = lowered(deep, other, ruleset)
    traces = trace_games(ruleset, deep, other, 5, 0, 3)
    ra, seq = ruleset.to_array(), roll_sequence(ruleset.to_array())
    ws, uniform, out, sc = worker_memory(int(seats.widths[:, :2].max()))
    choices = np.zeros(4, dtype=np.uint64)
    played = np.empty(BOARD_SIZE, dtype=BOARD_DTYPE)
    after = np.empty(BOARD_SIZE, dtype=BOARD_DTYPE)
    checked = bonuses = 0
    for i in range(len(traces.games)):
        rolls = traces.game_rolls(i)
        for k in range(len(rolls) - 1):
            row, following = rolls[k], rolls[k + 1]
            if row[K.T_SIDE] != 0:  # the ply-2 seat's rolls
                continue
            board = row[K.T_BOARD:].astype(BOARD_DTYPE)
            ws, uniform, _, _ = deeper_segment(board, ra, seq, row[K.T_DIE_A], row[K.T_DIE_B], deep.kind, deep.width,
                                               deep.choice_width, np.asarray(seats.weights[0]), deep.keep,
                                               deep.margin, np.bool_(True), choices, ws, uniform, out, sc, played)
            if row[K.T_BONUS_DOUBLE]:  # then the double the 1-2 earned, chosen and played at ply 2
                board[:] = played
                ws, uniform, chosen, _, _ = deeper_bonus(board, ra, seq, 1, 6, deep.kind, deep.width,
                                                         deep.choice_width, np.asarray(seats.weights[0]), deep.keep,
                                                         deep.margin, choices, ws, uniform, out, sc, played)
                assert chosen == row[K.T_BONUS_DOUBLE]
                bonuses += 1
            nxt = following[K.T_BOARD:].astype(BOARD_DTYPE)
            if following[K.T_SIDE] == 0:
                after[:] = nxt
            else:
                flip(nxt, after)
            assert np.array_equal(played, after), (traces.games[i], k)
            checked += 1
    assert checked > 50 and (bonuses > 0 or rules == "backgammon")


@pytest.mark.parametrize("args, fragment", [
    (["hint", "-p", "start", "-d", "6-3", "-r", "european"], "hint looks deeper by --ply"),
    (["rollout", "-p", "start", "-d", "6-3", "-r", "european"], "a rollout's trials look one roll deeper by --trial-ply 2"),
    (["luck", "-r", "european", "--games", "20"], "per-roll luck value each roll by the player's own 1-ply search"),
    (["bonus", "-r", "european", "--games", "20"], "the value of rolls and per-roll luck value each roll"),
])
def test_a_ply_two_player_is_refused_where_only_ply_one_has_a_meaning(args, fragment, tmp_path):
    """The hint and the rollouts have their own deeper looks; luck and the value of rolls value each roll by
    the player's 1-ply search, which a ply-2 player does not play by. Refused before anything is played."""
    from typer.testing import CliRunner

    from acesim.cli import app
    from tests.test_faults_input import one_line_error

    result = CliRunner().invoke(app, [*args, "--strategy", "learned:any@ply=2", *(
        ["--out", str(tmp_path / "out")] if args[0] in ("luck", "bonus") else [])])
    one_line_error(result, fragment)
    assert not (tmp_path / "out").exists()
