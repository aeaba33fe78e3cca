"""The dot product as similarity (lessons 01 and 02): angles, lengths, one query's scores.

For two vectors, ``q·k = |q| |k| cos θ``: the score grows with both lengths and is
largest when the vectors point the same way, zero at a right angle and negative when
they point apart. numpy only.
"""

from __future__ import annotations

import math
from typing import NamedTuple

import numpy as np

from . import _validate as validate
from ._text import t
from .attention import softmax

__all__ = ["DotProduct", "QueryScores", "dot_and_angle", "query_scores", "vector_from_angle"]


def vector_from_angle(angle_deg: float, length: float = 1.0) -> np.ndarray:
    """The 2-D vector of the given length pointing ``angle_deg`` degrees from the x-axis.

    Examples
    --------
    >>> vector_from_angle(90, 2.0).round(6)
    array([0., 2.])
    >>> vector_from_angle(0)
    array([1., 0.])
    """
    angle_deg = validate.real_number(angle_deg, "angle_deg")
    length = validate.real_number(length, "length", low=0.0)
    theta = math.radians(angle_deg)
    return length * np.array([math.cos(theta), math.sin(theta)])  # (2,)


class DotProduct(NamedTuple):
    """``dot = length_a · length_b · cos_angle``; ``angle_deg`` in 0..180."""

    dot: float
    length_a: float
    length_b: float
    cos_angle: float
    angle_deg: float


def dot_and_angle(a, b) -> DotProduct:
    """The dot product of two vectors, with the lengths and the angle that make it up.

    Parameters
    ----------
    a, b : array_like, shape (d,)
        Two vectors of the same length, neither of them zero. Entries as large as 1e300 or
        as small as 1e-320 still give the right lengths and angle; a dot product beyond
        float64's range is an error.

    Examples
    --------
    >>> d = dot_and_angle([1.0, 0.0], [1.0, 1.0])
    >>> round(d.dot, 3), round(d.angle_deg, 1), round(d.length_b, 3)
    (1.0, 45.0, 1.414)
    >>> round(dot_and_angle([1.0, 0.0], [-2.0, 0.0]).cos_angle, 3)
    -1.0
    """
    a = validate.array(a, "a", ndim=1, shape="(d,)", widen=True, empty=False)
    b = validate.array(b, "b", ndim=1, shape="(d,)", widen=True, empty=False)
    if a.shape != b.shape:
        raise ValueError(t("err_ab_lengths", a=a.shape, b=b.shape))
    if not a.any() or not b.any():
        raise ValueError(t("err_ab_zero"))
    big_a, big_b = float(np.abs(a).max()), float(np.abs(b).max())
    # Directions first: each vector divided by its largest entry before it is squared, so
    # the lengths and the angle are right even for entries near 1e308 or 1e-320.
    norm_a, norm_b = np.linalg.norm(a / big_a), np.linalg.norm(b / big_b)
    unit_a, unit_b = a / big_a / norm_a, b / big_b / norm_b  # (d,) each
    length_a, length_b = float(big_a * norm_a), float(big_b * norm_b)
    with np.errstate(over="ignore", invalid="ignore"):
        dot = float(a @ b)
        if not math.isfinite(dot):  # a term overflowed: the same sum on the scaled vectors
            dot = float((a / big_a) @ (b / big_b)) * big_a * big_b
    if not (math.isfinite(length_a) and math.isfinite(length_b) and math.isfinite(dot)):
        raise ValueError(t("err_ab_overflow", a=f"{big_a:.3g}", b=f"{big_b:.3g}"))
    cos = max(-1.0, min(1.0, float(unit_a @ unit_b)))
    # The angle from unit vectors' difference and sum: accurate even near 0° and 180°.
    angle = 2.0 * math.atan2(np.linalg.norm(unit_a - unit_b), np.linalg.norm(unit_a + unit_b))
    return DotProduct(dot, length_a, length_b, cos, math.degrees(angle))


class QueryScores(NamedTuple):
    """One query's view of the sentence: raw scores, scaled scores and weights (n_k,)."""

    scores: np.ndarray
    scaled: np.ndarray
    weights: np.ndarray


def query_scores(q, k, index: int) -> QueryScores:
    """The scores ``q_i·k_j`` of query ``index`` against every key, scaled, and softmaxed.

    Parameters
    ----------
    q : array_like, shape (n_q, d_k)
    k : array_like, shape (n_k, d_k)
    index : int
        Which query (row of ``q``): ``0 <= index < n_q``.

    Examples
    --------
    >>> from qkv_helpers import running_example
    >>> ex = running_example()
    >>> s = query_scores(ex.q, ex.k, ex.index("cat"))
    >>> ex.tokens[int(s.weights.argmax())], round(float(s.weights.max()), 2)
    ('sat', 0.47)
    """
    q = validate.array(q, "q", ndim=2, shape="(n_q, d_k)", widen=True, empty=False)
    k = validate.array(k, "k", ndim=2, shape="(n_k, d_k)", widen=True, empty=False)
    if q.shape[1] != k.shape[1]:
        raise ValueError(t("err_q_k_width", q=q.shape, k=k.shape, d_k=q.shape[1]))
    index = validate.integer(index, "index", 0, q.shape[0] - 1)
    with np.errstate(over="ignore", invalid="ignore"):
        scores = k @ q[index]  # (n_k,)
    if not np.isfinite(scores).all():
        raise ValueError(t("err_query_scores_overflow", index=index, q=f"{np.abs(q).max():.3g}",
                           k=f"{np.abs(k).max():.3g}"))
    scaled = scores / math.sqrt(q.shape[1])  # (n_k,)
    return QueryScores(scores, scaled, softmax(scaled))
