"""The dot product as similarity (lessons 01 and 02): angles, lengths, one query's scores.

For two vectors, ``q·k = |q| |k| cos θ``: the score grows with both lengths and is
largest when the vectors point the same way, zero at a right angle and negative when
they point apart. numpy only.
"""

from __future__ import annotations

import math
from typing import NamedTuple

import numpy as np

from ._checks import as_float_array
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
    theta = math.radians(float(angle_deg))
    return float(length) * np.array([math.cos(theta), math.sin(theta)])  # (2,)


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
        Two vectors of the same length, neither of them zero.

    Examples
    --------
    >>> d = dot_and_angle([1.0, 0.0], [1.0, 1.0])
    >>> round(d.dot, 3), round(d.angle_deg, 1), round(d.length_b, 3)
    (1.0, 45.0, 1.414)
    >>> round(dot_and_angle([1.0, 0.0], [-2.0, 0.0]).cos_angle, 3)
    -1.0
    """
    a = as_float_array(a, "a")
    b = as_float_array(b, "b")
    if a.ndim != 1 or a.shape != b.shape:
        raise ValueError(f"a and b must be 1-D vectors of the same length, got shapes "
                         f"{a.shape} and {b.shape}, needed (d,) and (d,)")
    length_a, length_b = float(np.linalg.norm(a)), float(np.linalg.norm(b))
    if length_a == 0.0 or length_b == 0.0:
        raise ValueError("a and b must not be zero vectors: a zero vector has no angle")
    dot = float(a @ b)
    cos = max(-1.0, min(1.0, dot / (length_a * length_b)))
    # The angle from unit vectors' difference and sum: accurate even near 0° and 180°.
    unit_a, unit_b = a / length_a, b / length_b  # (d,) each
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
        Which query (row of ``q``).

    Examples
    --------
    >>> from qkv_helpers import running_example
    >>> ex = running_example()
    >>> s = query_scores(ex.q, ex.k, ex.index("cat"))
    >>> ex.tokens[int(s.weights.argmax())], round(float(s.weights.max()), 2)
    ('sat', 0.47)
    """
    q = as_float_array(q, "q", min_ndim=2)
    k = as_float_array(k, "k", min_ndim=2)
    if q.ndim != 2 or k.ndim != 2 or q.shape[1] != k.shape[1]:
        raise ValueError(f"q and k must be (n_q, d_k) and (n_k, d_k) with the same d_k, "
                         f"got {q.shape} and {k.shape}")
    if not -q.shape[0] <= index < q.shape[0]:
        raise ValueError(f"index {index} is out of range for q with {q.shape[0]} rows")
    scores = k @ q[index]  # (n_k,)
    scaled = scores / math.sqrt(q.shape[1])  # (n_k,)
    return QueryScores(scores, scaled, softmax(scaled))
