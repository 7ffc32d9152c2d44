"""The interval formulas of docs/statistics.md, shared by every figure acesim reports."""

from __future__ import annotations

import math

import numpy as np

Z95 = 1.959963984540054


def wilson(successes: int, n: int, z: float = Z95) -> tuple[float, float]:
    """Wilson score interval of a proportion; ``(nan, nan)`` when ``n == 0``."""
    if n <= 0:
        return (math.nan, math.nan)
    return wilson_share(successes / n, n, z)


def wilson_share(p: float, n: float, z: float = Z95) -> tuple[float, float]:
    """Wilson's interval of a share ``p`` over a size ``n`` that may be fractional (an effective size)."""
    denom = 1 + z * z / n
    centre = (p + z * z / (2 * n)) / denom
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / denom
    return (max(0.0, centre - half), min(1.0, centre + half))


def mean_ci(n: int, total: float, total_sq: float, z: float = Z95) -> tuple[float, float, float]:
    """``(mean, low, high)`` with ``mean ± z·sd/√n`` from a count, a sum and a sum of squares."""
    if n <= 0:
        return (math.nan, math.nan, math.nan)
    mean = total / n
    if n == 1:
        return (mean, math.nan, math.nan)
    var = max(0.0, (total_sq - n * mean * mean) / (n - 1))
    half = z * math.sqrt(var / n)
    return (mean, mean - half, mean + half)


def sample_mean_ci(x: np.ndarray, z: float = Z95) -> tuple[float, float, float]:
    """``(mean, low, high)``: ``mean ± z·sd/√n`` of the values ``x`` (sd with n − 1); nan where undefined."""
    n = len(x)
    if n == 0:
        return (math.nan, math.nan, math.nan)
    mean = float(np.mean(x))
    if n == 1:
        return (mean, math.nan, math.nan)
    half = z * float(np.std(x, ddof=1)) / math.sqrt(n)
    return (mean, mean - half, mean + half)


# Units within one game (its turns, the positions it passes through, its 1-2 choices) are not
# independent: a stuck position forfeits turn after turn, a race makes every double worth more for
# the rest of the game, every position of a game shares its result.  A share or a mean over such
# units is therefore a ratio R = Σ y_g / Σ x_g over games g, the sampling unit (docs/statistics.md).


def ratio_variance(numerator: np.ndarray, denominator: np.ndarray) -> tuple[float, float, float]:
    """``(R, Var(R), Σ x_g)`` of ``R = Σ y_g / Σ x_g`` with games as clusters, by the delta method:
    ``Var(R) ≈ Σ (y_g − R·x_g)² / (n (n − 1) · x̄²)``; nan where undefined (no game, one game, Σ x = 0)."""
    y = np.asarray(numerator, dtype=np.float64)
    x = np.asarray(denominator, dtype=np.float64)
    n = len(x)
    total = float(x.sum())
    if n == 0 or total <= 0:
        return (math.nan, math.nan, total)
    r = float(y.sum() / total)
    if n == 1:
        return (r, math.nan, total)
    return (r, delta_variance(float(((y - r * x) ** 2).sum()), n, total), total)


def delta_variance(residual_squares: float, n: int, total: float) -> float:
    """``Var(R)`` from ``Σ (y_g − R·x_g)²`` over ``n ≥ 2`` games whose ``x_g`` sum to ``total``
    (``ratio_variance``)."""
    return residual_squares / (n * (n - 1)) / (total / n) ** 2


def share_interval(r: float, var: float, total: float, z: float = Z95) -> tuple[float, float]:
    """Wilson's interval of a clustered share ``r`` with variance ``var`` over ``total`` units: Wilson at the
    effective number of units ``r (1 − r) / var`` (Kish's design effect), since docs/statistics.md wants no
    plain normal interval near 0 or 1.  A variance of 0 (no unit counted, or the same share in every
    game) leaves the number of units."""
    if math.isnan(r) or math.isnan(var):
        return (math.nan, math.nan)
    n_eff = r * (1 - r) / var if var > 0 and 0 < r < 1 else total
    return wilson_share(r, n_eff, z)


def ratio_ci(numerator: np.ndarray, denominator: np.ndarray, z: float = Z95) -> tuple[float, float, float]:
    """``(R, low, high)`` of the share ``R = Σ y_g / Σ x_g`` (units counted ``y_g`` of ``x_g`` in game ``g``),
    games as clusters: ``ratio_variance``, then ``share_interval``."""
    r, var, total = ratio_variance(numerator, denominator)
    return (r, *share_interval(r, var, total, z))


def ratio_mean_ci(numerator: np.ndarray, denominator: np.ndarray, z: float = Z95) -> tuple[float, float, float]:
    """``(R, low, high)`` of the mean ``R = Σ y_g / Σ x_g`` of a value over units (``y_g`` the sum of game
    ``g``'s ``x_g`` values), games as clusters: ``R ± z·√Var(R)`` (``ratio_variance``)."""
    r, var, _ = ratio_variance(numerator, denominator)
    half = z * math.sqrt(var) if not math.isnan(var) else math.nan
    return (r, r - half, r + half)


def per_game(games: np.ndarray, *values: np.ndarray) -> tuple[np.ndarray, ...]:
    """The units of each game summed: ``(units per game, Σ values[0] per game, ...)``, games in sorted order."""
    _, which = np.unique(np.asarray(games), return_inverse=True)
    counts = np.bincount(which).astype(np.float64)
    return (counts, *(np.bincount(which, weights=np.asarray(v, dtype=np.float64), minlength=len(counts))
                      for v in values))
