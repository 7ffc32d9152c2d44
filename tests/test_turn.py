"""The roll sequence (``kernels.turn``) against docs/rules.md section 3, read step by step."""

from __future__ import annotations

import itertools

import numpy as np
import pytest

from acesim.kernels import layout as L
from acesim.kernels import turn as T
from acesim.kernels.strategy import rolls_again
from acesim.rules import PRESETS


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
