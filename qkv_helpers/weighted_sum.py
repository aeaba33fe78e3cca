"""The weighted sum of values (lesson 05), one key at a time.

A query's output is ``Σ_j w_j · v_j``: each key's value row, scaled by the query's weight
for that key, added up. Doing it for every query at once is the matrix product
``weights @ V``. numpy only.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from . import _validate as validate
from ._text import t

__all__ = ["WeightedSumSteps", "weighted_sum_steps"]


class WeightedSumSteps(NamedTuple):
    """One query's weighted sum, key by key."""

    contributions: np.ndarray
    """``(n_k, d_v)``: row j is ``w_j · v_j``."""
    partial_sums: np.ndarray
    """``(n_k + 1, d_v)``: row s is the sum of the first s contributions (row 0 is zeros)."""
    output: np.ndarray
    """``(d_v,)``: the last partial sum, equal to ``weights @ v``."""


def weighted_sum_steps(weights, v) -> WeightedSumSteps:
    """Split ``weights @ v`` for one query into its terms and running sums.

    Parameters
    ----------
    weights : array_like, shape (n_k,)
        One query's attention weights.
    v : array_like, shape (n_k, d_v)
        The values, one row per key.

    Examples
    --------
    >>> steps = weighted_sum_steps([0.25, 0.75], [[4.0, 0.0], [0.0, 4.0]])
    >>> steps.contributions
    array([[1., 0.],
           [0., 3.]])
    >>> steps.partial_sums[1], steps.output
    (array([1., 0.]), array([1., 3.]))
    """
    w = validate.array(weights, "weights", ndim=1, shape="(n_k,)", widen=True, empty=False)
    v = validate.array(v, "v", ndim=2, shape="(n_k, d_v)", widen=True, empty=False)
    if v.shape[0] != w.shape[0]:
        raise ValueError(t("err_weights_v", w=w.shape, v=v.shape))
    with np.errstate(over="ignore", invalid="ignore"):
        contributions = w[:, None] * v  # (n_k, d_v)
        partial = np.vstack([np.zeros((1, v.shape[1])), np.cumsum(contributions, axis=0)])
    validate.finite_result(partial, t("err_what_weighted_sum"), t("err_names_weights_v"))
    return WeightedSumSteps(contributions, partial, partial[-1].copy())  # (n_k+1, d_v)
