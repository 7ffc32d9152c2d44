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
