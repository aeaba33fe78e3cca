"""Exercise checks: feedback on a learner's answer, in the lesson's language.

Every "직접 해보기 / Try it" cell ends with a call to a check here. A check never raises
on the learner's answer: it returns a :class:`Feedback`, which the notebook shows as a
coloured line. An answer left as ``...`` (the notebook ships that way) gets "not answered
yet". The expected answer always comes from the package itself.

    >>> from qkv_helpers.lang import set_language
    >>> set_language("en")
    >>> check_array(..., np.ones(2), "weights")
    ✏️ Not answered yet: replace the ... with your answer and run the cell again.
    >>> check_array(np.ones(3), np.ones(2), "weights")
    ❌ weights has shape (3,), but it should have shape (2,).
    >>> check_array(np.ones(2), np.ones(2), "weights")
    ✅ Right! weights is correct.
"""

from __future__ import annotations

import html
from dataclasses import dataclass

import numpy as np

from .lang import t

__all__ = ["Feedback", "check_array", "check_value", "check_weights", "not_answered"]


@dataclass(frozen=True)
class Feedback:
    """The result of a check: ``ok`` is True (right), False (wrong) or None (not answered)."""

    ok: bool | None
    message: str

    @property
    def symbol(self) -> str:
        return {True: "✅", False: "❌", None: "✏️"}[self.ok]

    def __bool__(self) -> bool:
        return self.ok is True

    def __repr__(self) -> str:
        return f"{self.symbol} {self.message}"

    def _repr_html_(self) -> str:
        colour = {True: "#1b7837", False: "#b2182b", None: "#555555"}[self.ok]
        return (f'<div style="border-left: 4px solid {colour}; padding: 4px 10px; '
                f'font-size: 1.05em">{self.symbol} {html.escape(self.message)}</div>')


def not_answered(answer) -> bool:
    """True for an answer still left as ``...`` (or None)."""
    return answer is Ellipsis or answer is None


def right(detail_key: str = "check_right", **values) -> Feedback:
    return Feedback(True, t(detail_key, **values))


def wrong(key: str, **values) -> Feedback:
    return Feedback(False, t(key, **values))


def unanswered() -> Feedback:
    return Feedback(None, t("check_not_answered"))


def check_array(answer, expected, name: str, atol: float = 1e-6) -> Feedback:
    """Compare an array answer with the expected one: first the shape, then the values."""
    if not_answered(answer):
        return unanswered()
    try:
        got = np.asarray(answer, dtype=float)
    except (TypeError, ValueError):
        return wrong("check_not_numbers", name=name, kind=type(answer).__name__)
    expected = np.asarray(expected, dtype=float)
    if got.shape != expected.shape:
        return wrong("check_shape", name=name, got=got.shape, needed=expected.shape)
    if not np.isfinite(got).all():
        return wrong("check_not_finite", name=name)
    diff = np.abs(got - expected)
    if diff.max(initial=0.0) > atol + 1e-6 * np.abs(expected).max(initial=0.0):
        index = tuple(int(i) for i in np.unravel_index(diff.argmax(), diff.shape))
        return wrong("check_values", name=name, index=index,
                     got=f"{got[index]:.4g}", needed=f"{expected[index]:.4g}")
    return right(name=name)


def check_value(answer, expected, name: str, rtol: float = 1e-6) -> Feedback:
    """Compare a single number (or a tuple such as a shape) with the expected one."""
    if not_answered(answer):
        return unanswered()
    if isinstance(expected, tuple):
        ok = tuple(answer) == expected if isinstance(answer, (tuple, list)) else False
    else:
        try:
            ok = bool(np.isclose(float(answer), float(expected), rtol=rtol, atol=0.0))
        except (TypeError, ValueError):
            return wrong("check_not_numbers", name=name, kind=type(answer).__name__)
    if ok:
        return right(name=name)
    return wrong("check_wrong_value", name=name, got=answer)


def check_weights(answer, expected, name: str = "weights") -> Feedback:
    """Check attention weights: shape, no negatives, rows summing to 1, then the values."""
    if not_answered(answer):
        return unanswered()
    try:
        got = np.asarray(answer, dtype=float)
    except (TypeError, ValueError):
        return wrong("check_not_numbers", name=name, kind=type(answer).__name__)
    expected = np.asarray(expected, dtype=float)
    if got.shape != expected.shape:
        return wrong("check_shape", name=name, got=got.shape, needed=expected.shape)
    if not np.isfinite(got).all():
        return wrong("check_not_finite", name=name)
    if (got < 0).any():
        return wrong("check_negative", name=name)
    sums = got.sum(axis=-1)
    if not np.allclose(sums, 1.0, atol=1e-6):
        bad = sums.flat[np.abs(sums - 1.0).argmax()]
        return wrong("check_rows_sum", name=name, total=f"{bad:.3g}")
    return check_array(got, expected, name)


# Each lesson's own checks follow, in sections, built on the functions above.
# --- lessons 01-05 ---
# --- lessons 06-08, 10 ---
# --- lesson 09 ---
