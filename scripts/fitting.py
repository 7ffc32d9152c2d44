"""What the fitting scripts share (`ply2-fit`, `rollout-fit`, `rank-fit`): a one-layer network's
layers taken out of its model array and put back, and minibatch Adam on a cosine-decayed step.

The scripts run as `.venv/bin/python scripts/NAME`, which puts this folder on the import path.
"""
import numpy as np

from acesim.kernels import net as N


def one_layer(array: np.ndarray) -> list[np.ndarray]:
    """Copies of a one-hidden-layer network's first layer (inputs x units), its biases, the output layer
    (units x outputs) and its biases, in single precision, as the fits train them."""
    n_in, H, K = int(array[N.M_INPUTS]), int(array[N.M_HIDDEN1]), int(array[N.M_OUTPUTS])
    first = N.HEADER + n_in * H
    layers = [array[N.HEADER:first].reshape(n_in, H), array[first : first + H],
              array[first + H : first + H + H * K].reshape(H, K), array[first + H + H * K : first + H + H * K + K]]
    return [np.array(layer, dtype=np.float32) for layer in layers]


def with_layers(array: np.ndarray, layers: list[np.ndarray]) -> np.ndarray:
    """A copy of the model array ``array`` with ``one_layer``'s four layers put back."""
    n_in, H, K = int(array[N.M_INPUTS]), int(array[N.M_HIDDEN1]), int(array[N.M_OUTPUTS])
    first = N.HEADER + n_in * H
    fitted = array.copy()
    fitted[N.HEADER:first] = layers[0].ravel()
    fitted[first : first + H] = layers[1]
    fitted[first + H : first + H + H * K] = layers[2].ravel()
    fitted[first + H + H * K : first + H + H * K + K] = layers[3]
    return fitted


class Adam:
    """Adam's steps for ``params`` (updated in place), the step decayed from ``step0`` to 0 on a cosine
    over ``steps`` steps."""

    def __init__(self, params: list[np.ndarray], step0: float, steps: int) -> None:
        self.params, self.step0, self.steps, self.t = params, step0, steps, 0
        self.first_moment = [np.zeros_like(p) for p in params]
        self.second_moment = [np.zeros_like(p) for p in params]

    def step(self, grads: list[np.ndarray]) -> None:
        self.t += 1
        t = self.t
        size = self.step0 * 0.5 * (1 + np.cos(np.pi * t / self.steps))
        for p, g, m1, m2 in zip(self.params, grads, self.first_moment, self.second_moment):
            m1 *= 0.9
            m1 += 0.1 * g
            m2 *= 0.999
            m2 += 0.001 * g * g
            p -= size * (m1 / (1 - 0.9**t)) / (np.sqrt(m2 / (1 - 0.999**t)) + 1e-8)
