"""Each kernel is compiled once per argument types, never once per constant value.

A kernel called from another with a constant argument (``play_dice(..., False,
...)``, ``_runs(..., 0, ...)``) is typed by Numba with that constant's literal
type and compiled again for it, with all it calls: before this was checked,
such copies were a third of the minutes ``make install`` spends compiling.
The callers pass such values as ``np.int64(...)`` or ``np.bool_(...)``
(``acesim.kernels``).  This reads the signatures in Numba's cache, which
``make install`` filled by playing through every entry point
(``acesim.runs.warmup``), and the tests' own calls added to.
"""

from __future__ import annotations

from numba.core import types

from acesim.engine.games import play_games, trace_games
from acesim.engine.rules import Ruleset
from acesim.engine.strategies import load_strategy
from acesim.kernels import cache_folder, cache_is_warm
from acesim.runs import warmup
from tests.helpers import cache_index

# Small kernels that call nothing costly: a copy per constant costs a fraction of a second to compile,
# and may fold the constant into a hot loop (the reference enumerator's levels, a die's six faces).
SMALL = {
    "cube.cubeful_equity", "game_loop._note_roll", "scoring.points_won", "plays._expand", "plays._expand_level",
    "plays._is_new", "plays._new_level", "plays._set_byte", "plays.segment_of", "rng.below", "rng.seed_game_streams",
    "trials._roll",
}


def _cached_signatures() -> dict[str, list[tuple]]:
    """Every cached kernel's compiled argument types, by ``module.function``, as Numba's cache index keeps them."""
    found: dict[str, list[tuple]] = {}
    for index in sorted(cache_folder().glob("*.nbi")):
        name = index.name.split("-")[0]
        found.setdefault(name, []).extend(key[0] for key in cache_index(index))
    return found


def test_no_kernel_is_compiled_for_a_constant_value():
    assert cache_is_warm(), "the kernels are not compiled yet: run make install"
    signatures = _cached_signatures()
    assert len(signatures) > 50 and SMALL <= set(signatures)  # the index was read, with every layer's kernels
    literal = sorted(
        f"{name}{tuple(str(t) for t in args if isinstance(t, types.Literal))}"
        for name, sigs in signatures.items()
        if name not in SMALL
        for args in sigs
        if any(isinstance(t, types.Literal) for t in args)
    )
    assert not literal, (
        "compiled for a constant (pass it as np.int64(...) or np.bool_(...)): " + "; ".join(literal)
    )


def test_the_warmups_first_stage_compiles_the_searches_for_the_types_the_games_pass():
    """``make install`` compiles the searches by calling them directly, two of them from their signatures
    (``warmup.STAGES``' first stage), then plays games that link them; were the direct calls' types not
    the game loop's, each search would hold two signatures, compiled twice, and the stage would save
    nothing."""
    for step in ("tangent beam", "random search", "linear searches", "network search"):
        warmup.STEPS[step]()
    european = Ruleset.preset("european")
    for a, b in (("random", "expert@full"), ("learned:european", "expert")):
        play_games(european, 4, 1, load_strategy(a), load_strategy(b))
    signatures = _cached_signatures()
    # the tangent beam and the two-dice search are compiled from their signatures (``Dispatcher.compile``), as
    # their callers in the game loop type them
    for name in ("uniform.uniform_play", "choice.linear_search", "choice.net_best_play", "choice.exhaustive_play",
                 "choice._tangent_beam", "choice._net_two_dice"):
        assert len(signatures[name]) == 1, (name, signatures[name])


def test_every_kind_of_game_is_played_by_one_compiled_kernel():
    """The records' games, the analyses' traced games and training's self-play all run
    ``game_loop.play_games`` with the same argument types: the game loop, the largest thing compiled, is
    compiled once, not once for each kind of game (nor once more inside a kernel that wraps it)."""
    european = Ruleset.preset("european")
    learned, expert = load_strategy("learned:european"), load_strategy("expert")
    play_games(european, 2, 1, learned, expert)
    trace_games(european, learned, expert, 1, 0, 2)
    warmup.STEPS["training"]()
    signatures = _cached_signatures()
    assert len(signatures["game_loop.play_games"]) == 1, signatures["game_loop.play_games"]
