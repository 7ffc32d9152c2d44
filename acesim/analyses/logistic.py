"""Logistic regression by Newton's method (iteratively reweighted least squares).

Small and dependency-free: the models here have at most a few dozen
coefficients and up to a few million rows, where Newton converges in a
handful of steps.  A tiny ridge penalty keeps separable data finite.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from threadpoolctl import threadpool_limits

from acesim.common.errors import AcesimError

# A product summed over several BLAS threads depends, in its last bits, on how many there are;
# a fit and its predictions must be the same on every machine, locally or on a cluster.
ONE_BLAS_THREAD = threadpool_limits.wrap(limits=1, user_api="blas")

# on the standardised slopes, per row: keeps separable data finite and moves nothing else visibly
RIDGE = 1e-6


@dataclass(frozen=True)
class LogisticFit:
    """Coefficients (intercept first) and the standardisation they apply to."""

    coef: np.ndarray  # intercept, then one per column, on the standardised columns
    mean: np.ndarray
    scale: np.ndarray
    iterations: int

    @ONE_BLAS_THREAD
    def linear(self, x: np.ndarray) -> np.ndarray:
        z = (np.asarray(x, dtype=np.float64) - self.mean) / self.scale
        return self.coef[0] + z @ self.coef[1:]

    def design(self, x: np.ndarray) -> np.ndarray:
        """The rows of ``x`` as the fit saw them: a column of ones, then the standardised columns."""
        z = (np.asarray(x, dtype=np.float64) - self.mean) / self.scale
        return np.column_stack([np.ones(len(z)), z])

    def predict(self, x: np.ndarray) -> np.ndarray:
        """P(y = 1 | x) for the rows of ``x``."""
        return sigmoid(self.linear(x))

    def raw_coefficients(self) -> tuple[float, np.ndarray]:
        """Intercept and slopes on the original (unstandardised) columns."""
        slopes = self.coef[1:] / self.scale
        return float(self.coef[0] - slopes @ self.mean), slopes


def sigmoid(t: np.ndarray) -> np.ndarray:
    return 0.5 * (1.0 + np.tanh(0.5 * np.asarray(t, dtype=np.float64)))


def information(design: np.ndarray, mu: np.ndarray, ridge: float = RIDGE) -> np.ndarray:
    """Minus the Hessian of the penalised log-likelihood at the probabilities ``mu`` (column 0, the
    intercept, unpenalised; a trace of the identity keeps it invertible)."""
    w = mu * (1 - mu)
    return (design * w[:, None]).T @ design + np.diag(_penalty(design, ridge)) + 1e-12 * np.eye(design.shape[1])


def _penalty(design: np.ndarray, ridge: float) -> np.ndarray:
    penalty = np.full(design.shape[1], ridge * len(design))
    penalty[0] = 0.0
    return penalty


@ONE_BLAS_THREAD
def fit_logistic(
    x: np.ndarray, y: np.ndarray, ridge: float = RIDGE, max_iter: int = 50, tol: float = 1e-10
) -> LogisticFit:
    """Maximum likelihood (with ``ridge`` on the slopes) of ``y ~ x``; ``y`` in {0, 1}."""
    x = np.asarray(x, dtype=np.float64)
    y = np.asarray(y, dtype=np.float64)
    if x.ndim == 1:
        x = x[:, None]
    if x.shape[0] != y.shape[0] or x.shape[0] < 2:
        raise AcesimError(f"logistic fit needs matching rows, got {x.shape[0]} and {y.shape[0]}")
    if not np.isfinite(x).all() or not np.isin(y, (0.0, 1.0)).all():
        raise AcesimError("logistic fit needs finite inputs and outcomes of 0 or 1")
    mean = x.mean(axis=0)
    scale = x.std(axis=0)
    scale[scale == 0] = 1.0
    design = np.column_stack([np.ones(len(x)), (x - mean) / scale])
    penalty = _penalty(design, ridge)
    coef = np.zeros(design.shape[1])
    p = y.mean()
    coef[0] = np.log(max(p, 1e-9) / max(1 - p, 1e-9))
    for it in range(1, max_iter + 1):
        mu = sigmoid(design @ coef)
        gradient = design.T @ (y - mu) - penalty * coef
        hessian = information(design, mu, ridge)
        step = np.linalg.solve(hessian, gradient)
        coef = coef + step
        if np.max(np.abs(step)) < tol:
            break
    return LogisticFit(coef, mean, scale, it)
