"""The roll sequence (``kernels.sequence``) and the one kernel that plays it (``kernels.turn``) against docs/rules.md section 3, read step by step."""

from __future__ import annotations

import itertools

import numpy as np
import pytest

from acesim.engine.rules import PRESETS
from acesim.kernels import layout as L, sequence as T
from acesim.kernels.choice import rolls_again


def _reference(acey, bonus_extra, doubles_extra, full_use, a, b, bonus, n, used, won):
    """docs/rules.md section 3 as written, one numbered step after another."""
    complete = used == n
    if won:
        return T.GAME_OVER  # 4: a turn that reaches 15 off ends the game at once
    if bonus:  # 2, after the chosen double's segment
        if not bonus_extra:
            return T.PASS
        return T.ROLL_AGAIN if complete or not full_use else T.FORFEIT
    if {a, b} == {1, 2} and acey != L.ACEY_DEUCEY_NONE:  # 2
        return T.FORFEIT if full_use and not complete else T.BONUS
    if a == b and doubles_extra:  # 3
        return T.FORFEIT if full_use and not complete else T.ROLL_AGAIN
    return T.PASS  # 4


KNOBS = list(itertools.product((L.ACEY_DEUCEY_NONE, L.ACEY_DEUCEY_CHOOSE, L.ACEY_DEUCEY_ROLL_DIE),
                               (0, 1), (0, 1), (0, 1)))


@pytest.mark.parametrize("knobs", KNOBS)
def test_after_segment_follows_the_rules_text(knobs):
    acey, bonus_extra, doubles_extra, full_use = knobs
    rules = np.zeros(L.RULES_SIZE, dtype=L.RULES_DTYPE)
    rules[L.R_ACEY_DEUCEY], rules[L.R_ACEY_DEUCEY_EXTRA_ROLL] = acey, bonus_extra
    rules[L.R_DOUBLES_EXTRA_ROLL], rules[L.R_BONUS_NEEDS_FULL_USE] = doubles_extra, full_use
    seq = T.roll_sequence(rules)
    assert T.bonus_die_rolled(seq) == (acey == L.ACEY_DEUCEY_ROLL_DIE)
    for a in range(1, 7):
        for b in range(1, 7):
            for bonus in ((False, True) if a == b else (False,)):
                n = 4 if a == b else 2
                for used in range(n + 1):
                    for won in (False, True):
                        want = _reference(acey, bonus_extra, doubles_extra, full_use, a, b, bonus, n, used, won)
                        assert T.after_segment(seq, a, b, bonus, n, used, won) == want, (a, b, bonus, used, won)
                # the learned strategy's "still on roll if every die is used" is the same sequence
                assert rolls_again(rules, a, b, bonus) == T.still_on_roll(
                    _reference(acey, bonus_extra, doubles_extra, full_use, a, b, bonus, n, n, False))


@pytest.mark.parametrize("name", list(PRESETS))
def test_the_presets_roll_sequence_knobs_reach_the_turn_kernel(name):
    rules = PRESETS[name]
    seq = T.roll_sequence(rules.to_array())
    assert T.bonus_die_rolled(seq) == (rules.acey_deucey == "roll-die")
    assert (T.after_segment(seq, 2, 1, False, 2, 2, False) == T.BONUS) == (rules.acey_deucey != "none")
    assert (T.after_segment(seq, 5, 5, False, 4, 4, False) == T.ROLL_AGAIN) == rules.doubles_extra_roll


# --- the one kernel that plays a roll (kernels.turn) ------------------------------------------

from pathlib import Path  # noqa: E402

from acesim.engine.games import trace_games  # noqa: E402
from acesim.engine.rules import load_ruleset  # noqa: E402
from acesim.engine.sampling import sample_positions  # noqa: E402
from acesim.engine.strategies import load_strategy, lowered  # noqa: E402
from acesim.kernels import turn as TK  # noqa: E402
from acesim.kernels.board import flip  # noqa: E402
from acesim.kernels.choice import choose_and_play_double  # noqa: E402
from acesim.kernels.game_loop import T_BOARD, T_BONUS_DOUBLE, T_DIE_A, T_DIE_B, T_SIDE  # noqa: E402
from acesim.kernels.memory import worker_memory  # noqa: E402
from acesim.kernels.rng import die  # noqa: E402

KERNELS = Path(__file__).resolve().parents[1] / "acesim" / "kernels"


def test_the_roll_sequence_is_played_by_one_kernel():
    """Only ``turn.py`` plays the sequence: no other kernel asks what follows a segment (but the
    learned strategy's look-ahead, ``choice.rolls_again``), reads whether the 1-2's double is
    rolled, or plays that double itself."""
    readers = {}
    for path in sorted(KERNELS.glob("*.py")):
        text = path.read_text()
        for call in ("after_segment(", "bonus_die_rolled(", "choose_and_play_double(", "choose_double("):
            n = text.count(call) - text.count(f"def {call}")
            if n:
                readers.setdefault(call, {})[path.name] = n
    # finish_roll (play_roll's second half) and play_bonus; the learned look-ahead and the rollouts'
    # deeper trial player (what follows its candidate plays); the game loop, after its own fast segment
    # searches
    assert readers["after_segment("] == {"turn.py": 3, "choice.py": 1, "lookahead.py": 1, "game_loop.py": 1}
    # play_bonus, and bonus_doubles: the doubles a ply-2 player's bonus is searched among
    assert readers["bonus_die_rolled("] == {"turn.py": 2}
    assert readers["choose_and_play_double("] == {"turn.py": 1}
    assert readers["choose_double("] == {"choice.py": 1}  # inside choose_and_play_double


SPECS = ["expert", "random", "learned:training/rules-h80.ckpt.npz"]


@pytest.mark.parametrize("acey", ["choose", "roll-die"])
@pytest.mark.parametrize("spec", SPECS)
def test_play_roll_plays_the_segment_then_the_double_a_1_2_earns(acey, spec):
    """A 1-2 from sampled positions: ``play_roll`` equals the segment, then the double as
    ``choose_and_play_double`` or a rolled die plays it, drawing the same from both streams;
    ``expected`` gives, under roll-die, each of the six doubles from the segment's position."""
    rules = load_ruleset("european", [f"acey_deucey={acey}"])
    ra = rules.to_array()
    seq = T.roll_sequence(ra)
    s = load_strategy(spec)
    weights = lowered(s, s, rules).weights[0]
    boards, _ = sample_positions(rules, 30, seed=8)
    outcomes = np.zeros((TK.MAX_OUTCOMES, L.BOARD_SIZE), dtype=L.BOARD_DTYPE)
    steps = np.zeros(TK.MAX_OUTCOMES, dtype=np.int64)
    bonuses = 0
    for k, board in enumerate(boards):
        ws, uniform, out, sc = worker_memory(max(s.width, s.choice_width))
        dice = np.array([k + 1, 2, 3, 4], dtype=np.uint64)
        choices = np.array([5, 6, 7, k + 8], dtype=np.uint64)
        played, d1, c1 = board.copy(), dice.copy(), choices.copy()
        ws, uniform, count, chosen, lost = TK.play_roll(played, ra, seq, 1, 2, s.kind, s.width, s.choice_width,
                                                        weights, d1, c1, ws, uniform, out, sc, False,
                                                        outcomes, steps)
        by_hand, d2, c2 = board.copy(), dice.copy(), choices.copy()
        ws, uniform, n, used = TK.play_dice(by_hand, ra, 1, 2, False, s.kind, s.width, weights, c2, ws, uniform,
                                            out, sc)
        step = T.after_segment(seq, 1, 2, False, n, used, by_hand[L.OFF] == L.N_CHECKERS)
        segment_played = by_hand.copy()
        assert count == 1
        if step != T.BONUS:
            assert chosen == 0 and steps[0] == step and lost == n - used
        else:
            bonuses += 1
            if acey == "roll-die":
                d = die(d2)
                ws, uniform, n2, used2 = TK.play_dice(by_hand, ra, d, d, True, s.kind, s.width, weights, c2, ws,
                                                      uniform, out, sc)
            else:
                ws, uniform, d, n2, used2 = choose_and_play_double(by_hand, ra, s.kind, s.width, s.choice_width,
                                                                   weights, c2, ws, uniform, out, sc)
            assert chosen == d and lost == n - used + n2 - used2
            assert steps[0] == T.after_segment(seq, d, d, True, n2, used2, by_hand[L.OFF] == L.N_CHECKERS)
            assert np.array_equal(outcomes[0], segment_played)
        assert np.array_equal(played, by_hand)
        assert np.array_equal(d1, d2) and np.array_equal(c1, c2)
        # valued rather than played
        valued, c3 = board.copy(), choices.copy()
        ws, uniform, count, chosen, _ = TK.play_roll(valued, ra, seq, 1, 2, s.kind, s.width, s.choice_width,
                                                     weights, dice.copy(), c3, ws, uniform, out, sc, True,
                                                     outcomes, steps)
        if step != T.BONUS or acey == "choose":
            assert count == 1 and np.array_equal(valued, played)
            continue
        assert count == 6 and chosen == 0 and np.array_equal(valued, segment_played)
        c4 = choices.copy()
        ws, uniform, _, _ = TK.play_dice(board.copy(), ra, 1, 2, False, s.kind, s.width, weights, c4, ws, uniform,
                                         out, sc)
        for d in range(1, 7):
            six = segment_played.copy()
            ws, uniform, n2, used2 = TK.play_dice(six, ra, d, d, True, s.kind, s.width, weights, c4, ws, uniform,
                                                  out, sc)
            assert np.array_equal(outcomes[d - 1], six)
            assert steps[d - 1] == T.after_segment(seq, d, d, True, n2, used2, six[L.OFF] == L.N_CHECKERS)
        assert np.array_equal(c3, c4)
    assert bonuses >= 10


@pytest.mark.parametrize("name", ["european", "navy", "backgammon"])
@pytest.mark.parametrize("spec", ["expert", "racer", "learned:{name}"])
def test_the_game_loops_rolls_are_play_rolls(name, spec):
    """Every roll of traced games, replayed from its board through ``play_roll``, reaches the next traced
    board (flipped when the turn passed) with the double the game played, and the last one wins."""
    rules = load_ruleset(name)
    ra = rules.to_array()
    seq = T.roll_sequence(ra)
    s = load_strategy(spec.format(name=name))
    weights = lowered(s, s, rules).weights[0]
    traces = trace_games(rules, s, s, seed=6, first_game=0, n_games=6)
    outcomes = np.zeros((TK.MAX_OUTCOMES, L.BOARD_SIZE), dtype=L.BOARD_DTYPE)
    steps = np.zeros(TK.MAX_OUTCOMES, dtype=np.int64)
    flipped = np.zeros(L.BOARD_SIZE, dtype=L.BOARD_DTYPE)
    ws, uniform, out, sc = worker_memory(max(s.width, s.choice_width))
    no_dice = np.array([1, 2, 3, 4], dtype=np.uint64)  # the presets choose their double: no die is rolled
    rolls = 0
    for g in range(len(traces.games)):
        trace = traces.game_rolls(g)
        for k, row in enumerate(trace):
            board = row[T_BOARD:].astype(L.BOARD_DTYPE)
            ws, uniform, count, chosen, _ = TK.play_roll(board, ra, seq, row[T_DIE_A], row[T_DIE_B], s.kind, s.width,
                                                         s.choice_width, weights, no_dice, no_dice.copy(), ws,
                                                         uniform, out, sc, False, outcomes, steps)
            assert count == 1 and chosen == row[T_BONUS_DOUBLE]
            if k + 1 == len(trace):
                assert steps[0] == T.GAME_OVER
                continue
            following = trace[k + 1]
            if following[T_SIDE] == row[T_SIDE]:
                assert steps[0] == T.ROLL_AGAIN and np.array_equal(board, following[T_BOARD:])
            else:
                assert steps[0] in (T.PASS, T.FORFEIT)
                flip(board, flipped)
                assert np.array_equal(flipped, following[T_BOARD:])
            rolls += 1
    assert rolls > 100
