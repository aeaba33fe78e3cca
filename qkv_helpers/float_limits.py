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

from . import _validate as validate
from .lang import t

__all__ = ["MaxSubtraction", "exp_limit", "exp_underflow_limit", "fill_and_softmax",
           "max_subtraction_steps", "naive_softmax"]


def exp_limit(dtype=np.float64) -> float:
    """The largest x whose ``exp(x)`` is still finite in ``dtype``: ``ln(max float)``.

    Examples
    --------
    >>> round(exp_limit(np.float64), 2), round(exp_limit(np.float32), 2)
    (709.78, 88.72)
    >>> round(exp_limit(np.float16), 2)          # half precision: just 11.09
    11.09
    """
    # in float64, also for float16
    return math.log(float(np.finfo(validate.float_dtype(dtype)).max))


def exp_underflow_limit(dtype=np.float64) -> float:
    """The x below which ``exp(x)`` rounds to exactly 0 in ``dtype``.

    That is ``ln(s / 2)`` for the smallest positive (subnormal) number ``s``: anything
    smaller rounds to 0. In softmax, after the maximum is subtracted, a score this far
    below its row's maximum gets a weight of exactly 0, as if it were masked with −∞.

    Examples
    --------
    >>> round(exp_underflow_limit(np.float32), 2), round(exp_underflow_limit(np.float64), 2)
    (-103.97, -745.13)
    >>> float(np.exp(np.float32(-104.0))), float(np.exp(np.float32(-103.9))) > 0
    (0.0, True)
    """
    return math.log(float(np.finfo(validate.float_dtype(dtype)).smallest_subnormal)) - math.log(2.0)


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

    It computes in the dtype it is given; in float16 ``exp`` overflows above 11.09:

    >>> naive_softmax(np.array([2.0, 7.0, 12.0], dtype=np.float16))
    array([ 0.,  0., nan], dtype=float16)
    """
    x = validate.array(x, "x", bools=False,
                       empty=False)  # finite numbers in (float dtypes kept); only exp overflows
    with np.errstate(over="ignore", invalid="ignore"):
        e = np.exp(x)  # same shape and dtype as x; inf where x > exp_limit(x.dtype)
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
    x = validate.array(x, "x", bools=False, empty=False)
    shifted = x - x.max(axis=-1, keepdims=True)  # same shape as x, entries <= 0
    exps = np.exp(shifted)  # same shape, entries in (0, 1]
    return MaxSubtraction(shifted, exps, exps / exps.sum(axis=-1, keepdims=True))


def fill_and_softmax(scores, mask, fill=-np.inf) -> np.ndarray:
    """Masking the way libraries write it: ``fill`` where ``mask`` is False, then softmax.

    The softmax is the stable one (maximum subtracted), in the dtype of ``scores``. There
    is deliberately no guard for a row whose mask allows no key: with ``fill = −∞`` such
    a row is ``exp(−∞ − (−∞)) = exp(NaN)``, all NaN; with a large finite negative fill it
    is uniform weights over keys that should not be seen. (``qk.scaled_dot_product_attention``
    refuses such a row with an error instead.)

    Parameters
    ----------
    scores : array, shape (..., n_k)
    mask : bool array broadcastable to ``scores``; True = may attend.
    fill : the score put where ``mask`` is False.

    Examples
    --------
    >>> s = np.array([[1.0, 2.0], [1.0, 2.0]])
    >>> m = np.array([[True, False], [False, False]])       # row 1: nothing visible
    >>> fill_and_softmax(s, m)
    array([[ 1.,  0.],
           [nan, nan]])
    >>> fill_and_softmax(s, m, fill=-1e9)                     # no NaN, but meaningless
    array([[1. , 0. ],
           [0.5, 0.5]])
    """
    scores = validate.array(scores, "scores", bools=False, empty=False)
    mask = np.asarray(mask)
    if mask.dtype != bool:
        raise TypeError(t("err_mask_dtype", dtype=mask.dtype))
    try:
        filled = np.where(mask, scores, scores.dtype.type(fill))  # (..., n_k)
    except ValueError:
        raise ValueError(t("err_mask_shape", shape=mask.shape, scores=scores.shape)) from None
    with np.errstate(invalid="ignore"):
        shifted = filled - filled.max(axis=-1, keepdims=True)  # NaN on an all −∞ row
        e = np.exp(shifted)  # (..., n_k)
        return e / e.sum(axis=-1, keepdims=True)
