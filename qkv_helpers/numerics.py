"""Softmax in floating point (lesson 04): why plain ``exp`` overflows, and the fix.

``exp(x)`` is larger than the largest float64 (about 1.8e308) once x > 709.78, and then
it is ``inf``; ``inf / inf`` is NaN. Softmax does not change when the same number is
subtracted from every score, so subtracting the row's maximum first makes the largest
exponent ``exp(0) = 1``: nothing overflows, and the sum is at least 1. numpy only.
"""

from __future__ import annotations

import math
from typing import NamedTuple

import numpy as np

from ._checks import float_dtype, real_array

__all__ = ["MaxSubtraction", "exp_limit", "max_subtraction_steps", "naive_softmax"]


def exp_limit(dtype=np.float64) -> float:
    """The largest x whose ``exp(x)`` is still finite in ``dtype``: ``ln(max float)``.

    Examples
    --------
    >>> round(exp_limit(np.float64), 2), round(exp_limit(np.float32), 2)
    (709.78, 88.72)
    """
    return math.log(float(np.finfo(float_dtype(dtype)).max))


def naive_softmax(x) -> np.ndarray:
    """Softmax the textbook way, ``exp(x) / sum(exp(x))`` along the last axis, no guard.

    Shown to fail: large scores overflow to ``inf`` and the result is NaN. (Warnings
    about the overflow are silenced; the NaN speaks for itself.)

    Examples
    --------
    >>> naive_softmax([1.0, 2.0, 3.0]).round(3)
    array([0.09 , 0.245, 0.665])
    >>> naive_softmax([1000.0, 1001.0])
    array([nan, nan])
    """
    x = real_array(x, "x").astype(np.float64)  # finite numbers in; only exp overflows
    with np.errstate(over="ignore", invalid="ignore"):
        e = np.exp(x)  # same shape as x; inf where x > 709.78
        return e / e.sum(axis=-1, keepdims=True)


class MaxSubtraction(NamedTuple):
    """The stable softmax of one row, step by step (each shaped like the row)."""

    shifted: np.ndarray
    """``x − max(x)``: every entry ≤ 0, the largest exactly 0."""
    exps: np.ndarray
    """``exp(shifted)``: every entry in (0, 1], the largest exactly 1."""
    weights: np.ndarray
    """``exps / sum(exps)``."""


def max_subtraction_steps(x) -> MaxSubtraction:
    """The max-subtraction trick on ``x`` (along the last axis), with every step kept.

    Examples
    --------
    >>> steps = max_subtraction_steps([1000.0, 1001.0, 1002.0])
    >>> steps.shifted
    array([-2., -1.,  0.])
    >>> steps.weights.round(3)
    array([0.09 , 0.245, 0.665])
    """
    x = real_array(x, "x")
    shifted = x - x.max(axis=-1, keepdims=True)  # same shape as x, entries <= 0
    exps = np.exp(shifted)  # same shape, entries in (0, 1]
    return MaxSubtraction(shifted, exps, exps / exps.sum(axis=-1, keepdims=True))
