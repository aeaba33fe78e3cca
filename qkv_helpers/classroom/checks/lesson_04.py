"""Lesson 04's exercise checks."""

from __future__ import annotations

import sys
import warnings

import numpy as np

from ._answers import _close, _real_array, check_array, check_weights
from ._feedback import (
    Feedback,
    _describe_error,
    never_raises,
    not_answered,
    right,
    unanswered,
    wrong,
)

# The inputs a learner's softmax is tried on, each with what it catches.
SOFTMAX_TRIALS = (
    ("small", np.array([[1.0, 2.0, 3.0], [0.5, 0.5, -1.0]])),
    # exp overflows without a shift
    ("large", np.array([[1000.0, 1001.0, 1002.0]])),
    # the global maximum (1000) leaves row 0 all exp(-1000) = 0: 0/0
    ("rows_apart", np.array([[0.0, 1.0, 2.0], [998.0, 999.0, 1000.0]])),
    # the row minimum (-1000) or mean leaves 1000 - (-1000) = 2000: exp overflows
    ("wide_row", np.array([[-1000.0, 0.0, 1000.0], [3.0, 1.0, 2.0]])),
    # a row mean of 400 leaves 1100 − 400 = 700 fine, but 1500 − 500 overflows
    ("mean_shift", np.array([[-500.0, 0.0, 2000.0]])),
    # more than a few numbers: a function that works only on short rows (or returns
    # nothing for long ones) is caught
    ("many", np.linspace(-50.0, 50.0, 600).reshape(2, 300)),
)


LOG_SOFTMAX_TRIALS = (
    ("small", np.array([[1.0, 2.0, 3.0], [0.5, 0.5, -1.0]])),
    ("large", np.array([[1000.0, 1001.0, 1002.0]])),
    # softmax underflows to 0 here, so log(softmax) is −∞: only x − max − log Σ exp works
    ("far_apart", np.array([[0.0, -1000.0, -2.0]])),
    ("many", np.linspace(-50.0, 50.0, 600).reshape(2, 300)),
)


def _call(fn, scores):
    """``fn(scores.copy())``: its result, or the exception it raised."""
    try:
        with warnings.catch_warnings(), np.errstate(all="ignore"):
            warnings.simplefilter("ignore")
            return fn(scores.copy()), None
    except (KeyboardInterrupt, SystemExit):
        raise
    except BaseException as error:  # noqa: BLE001 - the learner's code: report, never raise
        return None, error


def _show_scores(scores: np.ndarray) -> str:
    """``[[0, 1, 2], [998, 999, 1000]]``: a trial input on one line (a long one as the
    ``np.linspace`` call that makes it)."""
    if scores.size > 12:
        return (f"np.linspace({scores.min():g}, {scores.max():g}, {scores.size})"
                f".reshape{scores.shape}")
    rows = ("[" + ", ".join(f"{v:g}" for v in row) + "]" for row in scores)
    return "[" + ", ".join(rows) + "]"


def _is_package_function(fn) -> bool:
    """True for a library's own function (``qk.softmax``, scipy's...), or a partial of one."""

    target = getattr(fn, "func", fn)  # functools.partial
    module = getattr(target, "__module__", "") or ""
    if module.split(".")[0] not in ("qkv_helpers", "scipy", "torch", "numpy"):
        return False
    return getattr(sys.modules.get(module), getattr(target, "__name__", ""), None) is target


def _not_a_learner_function(fn, name: str) -> Feedback | None:
    """Feedback when ``fn`` is not a function of the learner's own to try, else None."""
    if not_answered(fn):
        return unanswered()
    if not callable(fn):
        return wrong("check_l04_not_function", name=name)
    if _is_package_function(fn):
        return wrong("check_l04_package", name=name)
    return None


def _trial_answer(fn, scores: np.ndarray, name: str, not_finite_key: str,
                  first: bool = True):
    """What ``fn(scores)`` returns, as a real array, or the Feedback that says why not.

    ``not_finite_key`` is the message for a NaN or infinity: what that means depends on
    the exercise (an overflowed softmax, an underflowed log). ``...`` (the template's
    answer) from the first trial is "not answered yet"; None (a function without return),
    or ``...`` from a later trial, is "returned nothing".
    """
    result, error = _call(fn, scores)
    shown = _show_scores(scores)
    if error is not None:
        return wrong("check_l04_raised", name=name, scores=shown,
                     error=_describe_error(error))
    if result is None:  # the template returns ...: None is a function without return
        return wrong("check_l04_returned_nothing", name=name, scores=shown)
    if not_answered(result):
        if not first:
            return wrong("check_l04_returned_nothing", name=name, scores=shown)
        return unanswered()
    got = _real_array(result, name)
    if isinstance(got, Feedback):
        if got.key == "check_not_finite":
            return wrong(not_finite_key, name=name, scores=shown)
        return wrong("check_l04_bad_result", name=name, scores=shown, problem=got.message)
    return got


@never_raises
def check_stable_softmax(fn, name: str = "my_softmax") -> Feedback:
    """Lesson 04: a learner's softmax function, over the last axis, on inputs chosen so that
    exp overflows without a shift and so that shifting by the global maximum, the row
    minimum or the row mean fails. The message names the input that broke it.

    >>> from qkv_helpers.lang import set_language
    >>> set_language("en")
    >>> def mine(x):
    ...     e = np.exp(x - x.max(axis=-1, keepdims=True))
    ...     return e / e.sum(axis=-1, keepdims=True)
    >>> check_stable_softmax(mine).ok
    True
    >>> check_stable_softmax(lambda x: np.exp(x) / np.exp(x).sum(axis=-1, keepdims=True)).ok
    False
    >>> def global_max(x):
    ...     e = np.exp(x - x.max())
    ...     return e / e.sum(axis=-1, keepdims=True)
    >>> check_stable_softmax(global_max).ok
    False
    >>> check_stable_softmax(lambda x: ...).ok is None
    True
    """
    from ...attention import softmax

    problem = _not_a_learner_function(fn, name)
    if problem is not None:
        return problem
    for i, (_label, scores) in enumerate(SOFTMAX_TRIALS):
        got = _trial_answer(fn, scores, name, not_finite_key="check_l04_overflow",
                            first=i == 0)
        if isinstance(got, Feedback):
            return got
        shown = _show_scores(scores)
        if scores.shape[0] > 1 and _close(got, softmax(scores, axis=0)):
            return wrong("check_l04_columns", name=name, scores=shown)
        if scores.size > scores.shape[-1] and _close(got, softmax(scores.ravel()).reshape(
                scores.shape)):
            return wrong("check_l04_whole_array", name=name, scores=shown)
        feedback = check_weights(got, softmax(scores), name)
        if not feedback.ok:
            return wrong("check_l04_wrong_on", name=name, scores=shown,
                         problem=feedback.message)
    result, _ = _call(fn, SOFTMAX_TRIALS[1][1])
    weights = np.asarray(result, dtype=float)[0]  # (3,)
    return right("check_l04_right", name=name,
                 weights="[" + ", ".join(f"{w:.3f}" for w in weights) + "]")


def _forgot_the_max(fn, scores: np.ndarray) -> bool:
    """Whether ``fn(scores)`` is ``x − log Σ exp(x)`` without the shift by the row maximum
    (exp overflows: −∞ or NaN where the stable formula is finite)."""
    result, error = _call(fn, scores)
    if error is not None:
        return False
    with np.errstate(all="ignore"):
        naive = scores - np.log(np.exp(scores).sum(axis=-1, keepdims=True))
        try:
            got = np.asarray(result, dtype=float)
        except (TypeError, ValueError):
            return False
    return got.shape == naive.shape and bool(np.array_equal(got, naive, equal_nan=True))


@never_raises
def check_stable_log_softmax(fn, name: str = "my_log_softmax") -> Feedback:
    """Lesson 04: a learner's ``log(softmax(x))`` over the last axis that stays finite where
    softmax underflows to 0 (so ``np.log(qk.softmax(x))`` gives −∞).

    Expected: ``x − m − log Σ exp(x − m)`` with m the row maximum, compared with the
    package's softmax where that is not 0.

    >>> def mine(x):
    ...     s = x - x.max(axis=-1, keepdims=True)
    ...     return s - np.log(np.exp(s).sum(axis=-1, keepdims=True))
    >>> check_stable_log_softmax(mine).ok
    True
    >>> from qkv_helpers import softmax
    >>> check_stable_log_softmax(lambda x: np.log(softmax(x))).key
    'check_l04_log_underflow'
    >>> no_max = lambda x: x - np.log(np.exp(x).sum(axis=-1, keepdims=True))
    >>> check_stable_log_softmax(no_max).key
    'check_l04_log_no_max'
    """
    from ...attention import softmax

    problem = _not_a_learner_function(fn, name)
    if problem is not None:
        return problem
    for i, (_label, scores) in enumerate(LOG_SOFTMAX_TRIALS):
        got = _trial_answer(fn, scores, name, not_finite_key="check_l04_log_underflow",
                            first=i == 0)
        if isinstance(got, Feedback):
            if got.key == "check_l04_log_underflow" and _forgot_the_max(fn, scores):
                return wrong("check_l04_log_no_max", name=name, scores=_show_scores(scores))
            return got
        shown = _show_scores(scores)
        shift = scores - scores.max(axis=-1, keepdims=True)  # (rows, n), each row's max 0
        expected = shift - np.log(np.exp(shift).sum(axis=-1, keepdims=True))
        weights = softmax(scores)
        assert np.allclose(np.exp(expected), weights)  # the same weights as the package's
        if _close(got, weights):
            return wrong("check_l04_not_log", name=name)
        feedback = check_array(got, expected, name, atol=1e-6)
        if not feedback.ok:
            return wrong("check_l04_wrong_on", name=name, scores=shown,
                         problem=feedback.message)
    return right(name=name)
