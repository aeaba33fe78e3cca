"""Lesson 03's exercise checks."""

from __future__ import annotations

import functools
import math

import numpy as np  # noqa: F401  (the examples below use it)

from ._answers import _close_number, _number, _show, close_but_not_right
from ._feedback import Feedback, never_raises, right, wrong


@never_raises
def check_score_spread(answer, d_k: int, name: str = "my_std") -> Feedback:
    """Lesson 03: the standard deviation of ``q·k`` for random q, k of width ``d_k`` (mean 0,
    variance 1), before scaling: √d_k. Right within 1%; the message adds the measurement.

    >>> check_score_spread(np.sqrt(96), 96).ok, check_score_spread(96, 96).ok
    (True, False)
    >>> check_score_spread(10, 96).key, check_score_spread(42, 96).key
    ('check_close', 'check_l03_wrong')
    """
    got = _number(answer, name)
    if isinstance(got, Feedback):
        return got
    measured = f"{_measured_std(d_k):.2f}"
    expected = math.sqrt(d_k)
    if _close_number(got, expected, 1e-2):
        return right("check_l03_right", name=name, measured=measured)
    if _close_number(got, d_k, 1e-2):
        return wrong("check_l03_variance", name=name, d_k=d_k)
    if _close_number(got, 1.0, 1e-2):
        return wrong("check_l03_after_scaling", name=name)
    if _close_number(got, 1 / expected, 1e-2):
        return wrong("check_l03_factor", name=name)
    if _close_number(got, d_k / 2, 1e-2) or _close_number(got, math.sqrt(d_k / 2), 1e-2):
        return wrong("check_l03_half", name=name, d_k=d_k)
    close = close_but_not_right(got, expected, name)
    if close is not None:
        return close
    return wrong("check_l03_wrong", name=name, got=_show(got), d_k=d_k)


@functools.lru_cache(maxsize=8)
def _measured_std(d_k: int) -> float:
    """The standard deviation of q·k over the package's 20,000 seeded random pairs."""
    from ...score_scale import dot_product_variance

    return math.sqrt(dot_product_variance(d_k)[0])
