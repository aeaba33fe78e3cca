"""Exercise checks: feedback on a learner's answer, in the lesson's language.

Every "직접 해보기 / Try it" cell ends with a call to a check here. The contract of every
check, whatever the learner typed (any object, a ragged list, ``10**400``, NaN, a string,
complex numbers, a function that raises or returns ``...``):

- it never raises: it returns a :class:`Feedback`, shown as one coloured line;
- the feedback, in the lesson's language, names the learner's variable and says what is
  wrong: not answered yet, wrong type, ragged, not finite, wrong shape, wrong values;
- the right answer passes as an ndarray, a nested list or a numpy scalar; numbers given as
  strings, complex numbers and shapes that are not whole numbers are refused;
- the expected answer always comes from the package itself.

    >>> from qkv_helpers.lang import set_language
    >>> set_language("en")
    >>> check_array(..., np.ones(2), "weights")
    ✏️ Not answered yet: replace the ... with your answer and run the cell again.
    >>> check_array(np.ones(3), np.ones(2), "weights")
    ❌ weights has shape (3,), but it should have shape (2,).
    >>> check_array([1, 1], np.ones(2), "weights")
    ✅ Right! weights is correct.
    >>> check_array([[1, 2], [3]], np.ones(2), "weights")
    ❌ weights is a ragged list: every row must have the same length.

A solution cell shows its check as the solution's: ``check(...).as_solution()``.

    >>> check_array([1, 1], np.ones(2), "weights").as_solution()
    ✅ Solution check: Right! weights is correct.
"""

from __future__ import annotations

import functools
import html
import math
import numbers
import warnings
from dataclasses import dataclass

import numpy as np

from .lang import t

__all__ = ["Feedback", "check_array", "check_value", "check_weights", "not_answered"]


@dataclass(frozen=True)
class Feedback:
    """The result of a check: ``ok`` is True (right), False (wrong) or None (not answered)."""

    ok: bool | None
    message: str
    label: str = ""
    """Shown before the message: "Solution check" on a solution cell's check."""

    @property
    def symbol(self) -> str:
        return {True: "✅", False: "❌", None: "✏️"}[self.ok]

    def as_solution(self) -> Feedback:
        """The same verdict, labelled as the check of the solution cell."""
        return Feedback(self.ok, self.message, t("check_solution_label"))

    def __bool__(self) -> bool:
        return self.ok is True

    def _text(self) -> str:
        return f"{self.label}: {self.message}" if self.label else self.message

    def __repr__(self) -> str:
        return f"{self.symbol} {self._text()}"

    def _repr_html_(self) -> str:
        colour = {True: "#1b7837", False: "#b2182b", None: "#555555"}[self.ok]
        label = f"<b>{html.escape(self.label)}:</b> " if self.label else ""
        return (f'<div style="border-left: 4px solid {colour}; padding: 4px 10px; '
                f'font-size: 1.05em">{self.symbol} {label}{html.escape(self.message)}</div>')


def not_answered(answer) -> bool:
    """True for an answer still left as ``...`` (or None)."""
    return answer is Ellipsis or answer is None


def right(detail_key: str = "check_right", **values) -> Feedback:
    return Feedback(True, t(detail_key, **values))


def wrong(key: str, **values) -> Feedback:
    return Feedback(False, t(key, **values))


def unanswered() -> Feedback:
    return Feedback(None, t("check_not_answered"))


def never_raises(check):
    """Make ``check`` keep the contract: any exception becomes "could not read" feedback.

    The checks below handle every answer they know how to read; this is the net under
    them, for an object whose ``__array__``, ``__len__`` or ``__eq__`` itself raises.
    """
    import inspect

    signature = inspect.signature(check)

    @functools.wraps(check)
    def safe(*args, **kwargs):
        try:
            with warnings.catch_warnings(), np.errstate(all="ignore"):
                warnings.simplefilter("ignore")
                feedback = check(*args, **kwargs)
        except (KeyboardInterrupt, SystemExit):
            raise
        except BaseException as error:  # noqa: BLE001 - the learner's object misbehaved
            return wrong("check_unreadable", name=_name_of(signature, args, kwargs),
                         error=_describe_error(error))
        return feedback
    return safe


def _name_of(signature, args, kwargs) -> str:
    """The ``name`` a check was called with (or its default)."""
    try:
        bound = signature.bind(*args, **kwargs)
        bound.apply_defaults()
        name = bound.arguments.get("name", "answer")
    except TypeError:
        return "answer"
    return name if isinstance(name, str) else "answer"


def _describe_error(error: BaseException) -> str:
    try:
        text = str(error)
    except Exception:  # noqa: BLE001
        text = ""
    text = text if len(text) <= 120 else text[:117] + "..."
    return f"{type(error).__name__}: {text}" if text else type(error).__name__


def _kind(answer) -> str:
    """A short, readable name of the answer's type (``str``, ``function``, ``list``...)."""
    if callable(answer) and not isinstance(answer, type):
        return "function"
    return type(answer).__name__


def _scan(answer, depth: int = 0):
    """The first thing in ``answer`` (a number or nested lists/tuples) that is not a real
    number, as a message key, or None. Walks at most 10,000 items."""
    stack, seen = [(answer, 0)], 0
    while stack:
        item, level = stack.pop()
        seen += 1
        if seen > 10_000:
            return None
        if isinstance(item, (str, bytes)):
            return "check_string"
        if isinstance(item, (complex, np.complexfloating)):
            return "check_complex"
        if isinstance(item, (list, tuple)):
            if level > 32:
                return "check_not_numbers"
            stack.extend((x, level + 1) for x in item)
    return None


def _real_array(answer, name: str, *, allow_bool: bool = True):
    """``answer`` as a float array, or the Feedback that says why it cannot be one.

    Accepts an ndarray, nested lists or tuples, a number or numpy scalar of real numbers;
    refuses strings (even "1.5"), complex numbers, ragged lists, other objects, and
    numbers too large for a float.
    """
    if not_answered(answer):
        return unanswered()
    if callable(answer) and not isinstance(answer, np.ndarray):
        return wrong("check_not_numbers", name=name, kind=_kind(answer))
    problem = _scan(answer)
    if problem is not None:
        return wrong(problem, name=name, kind=_kind(answer))
    try:
        raw = np.asarray(answer)
    except ValueError as error:
        if "inhomogeneous" in str(error) or "sequence" in str(error):
            return wrong("check_ragged", name=name)
        return wrong("check_not_numbers", name=name, kind=_kind(answer))
    except (TypeError, OverflowError, RecursionError):
        return wrong("check_not_numbers", name=name, kind=_kind(answer))
    kind = raw.dtype.kind
    if kind == "c":
        return wrong("check_complex", name=name)
    if kind in "US":
        return wrong("check_string", name=name)
    if kind == "b" and not allow_bool:
        return wrong("check_not_numbers", name=name, kind=_kind(answer))
    if kind == "O":
        flat = raw.ravel().tolist() if raw.size <= 10_000 else []
        if any(isinstance(x, (list, tuple, np.ndarray)) for x in flat):
            return wrong("check_ragged", name=name)
        if not flat or not all(isinstance(x, numbers.Real) for x in flat):
            return wrong("check_not_numbers", name=name, kind=_kind(answer))
        try:
            got = np.array([float(x) for x in flat], dtype=float).reshape(raw.shape)
        except OverflowError:
            return wrong("check_not_finite", name=name)
    elif kind in "biuf":
        got = raw.astype(float)
    else:
        return wrong("check_not_numbers", name=name, kind=_kind(answer))
    if not np.isfinite(got).all():
        return wrong("check_not_finite", name=name)
    return got


def _answer_array(answer, expected, name: str):
    """The answer as a float array of the expected shape, or the Feedback that says why not."""
    got = _real_array(answer, name)
    if isinstance(got, Feedback):
        return got
    if got.shape != np.shape(expected):
        return wrong("check_shape", name=name, got=got.shape, needed=np.shape(expected))
    return got


def _number(answer, name: str):
    """A single real number (int, float, numpy scalar or 0-d array), or the Feedback why not.

    Python ints stay ints (exact, however large); everything else becomes a float.
    """
    if not_answered(answer):
        return unanswered()
    if isinstance(answer, bool) or isinstance(answer, np.bool_):
        return wrong("check_not_a_number", name=name, kind=_kind(answer))
    if isinstance(answer, numbers.Integral) and not isinstance(answer, np.integer):
        return int(answer)
    if isinstance(answer, np.integer):
        return int(answer)
    got = _real_array(answer, name, allow_bool=False)
    if isinstance(got, Feedback):
        if got.message == t("check_not_finite", name=name):
            return got
        return got
    if got.shape != ():
        return wrong("check_not_a_number", name=name, kind=f"{_kind(answer)} {got.shape}")
    return float(got)


def _close_number(got, expected, rtol: float) -> bool:
    if isinstance(got, int) and isinstance(expected, int):
        return got == expected
    try:
        return math.isclose(float(got), float(expected), rel_tol=rtol, abs_tol=0.0)
    except OverflowError:
        return False


def _shape(answer, name: str, ndim: int):
    """A shape: ``ndim`` whole numbers (a tuple, list or integer array), or Feedback."""
    if not_answered(answer):
        return unanswered()
    if isinstance(answer, (str, bytes)):
        return wrong("check_shape_string", name=name)
    if isinstance(answer, np.ndarray):
        if answer.ndim != 1 or answer.dtype.kind not in "iu":
            return wrong("check_shape_not_ints", name=name)
        answer = answer.tolist()
    if not isinstance(answer, (tuple, list)):
        return wrong("check_shape_not_tuple", name=name, kind=_kind(answer))
    items = list(answer)
    if not all(isinstance(n, (numbers.Integral, np.integer))
               and not isinstance(n, (bool, np.bool_)) for n in items):
        return wrong("check_shape_not_ints", name=name)
    if len(items) != ndim:
        return wrong("check_shape_length", name=name, count=len(items), ndim=ndim)
    return tuple(int(n) for n in items)


def _show(value) -> str:
    """A short text for a learner's value in a message."""
    try:
        text = repr(value)
    except Exception:  # noqa: BLE001
        text = type(value).__name__
    return text if len(text) <= 60 else text[:57] + "..."


@never_raises
def check_array(answer, expected, name: str, atol: float = 1e-6) -> Feedback:
    """Compare an array answer with the expected one: first the shape, then the values."""
    got = _answer_array(answer, expected, name)
    if isinstance(got, Feedback):
        return got
    expected = np.asarray(expected, dtype=float)
    diff = np.abs(got - expected)
    if diff.max(initial=0.0) > atol + 1e-6 * np.abs(expected).max(initial=0.0):
        index = tuple(int(i) for i in np.unravel_index(diff.argmax(), diff.shape))
        return wrong("check_values", name=name, index=index,
                     got=f"{got[index]:.4g}", needed=f"{expected[index]:.4g}")
    return right(name=name)


@never_raises
def check_value(answer, expected, name: str, rtol: float = 1e-6) -> Feedback:
    """Compare a single number (or a tuple such as a shape) with the expected one."""
    if not_answered(answer):
        return unanswered()
    if isinstance(expected, tuple):
        got = _shape(answer, name, len(expected))
        if isinstance(got, Feedback):
            return got
        ok = got == expected
    else:
        got = _number(answer, name)
        if isinstance(got, Feedback):
            return got
        ok = _close_number(got, expected, rtol)
    if ok:
        return right(name=name)
    return wrong("check_wrong_value", name=name, got=_show(got))


@never_raises
def check_weights(answer, expected, name: str = "weights") -> Feedback:
    """Check attention weights: shape, no negatives, rows summing to 1, then the values."""
    got = _answer_array(answer, expected, name)
    if isinstance(got, Feedback):
        return got
    if (got < 0).any():
        return wrong("check_negative", name=name)
    sums = got.sum(axis=-1)
    if not np.allclose(sums, 1.0, atol=1e-6):
        bad = sums.flat[np.abs(sums - 1.0).argmax()]
        return wrong("check_rows_sum", name=name, total=f"{bad:.3g}")
    return check_array(got, expected, name)


def _close(answer, expected) -> bool:
    """True if ``answer`` is real numbers of ``expected``'s shape and equal to it (quietly)."""
    got = answer if isinstance(answer, np.ndarray) and answer.dtype == float else None
    if got is None:
        got = _real_array(answer, "answer")
        if isinstance(got, Feedback):
            return False
    return got.shape == np.shape(expected) and bool(np.allclose(got, expected, atol=1e-6))


# Each lesson's own checks follow, in sections, built on the functions above.
# --- lesson 00 ---


@never_raises
def check_q_shape(answer, example, n_tokens: int, name: str = "my_shape") -> Feedback:
    """Lesson 00: the shape of ``Q = X·W_Q`` for a sentence of ``n_tokens`` tokens.

    >>> from qkv_helpers import running_example
    >>> from qkv_helpers.lang import set_language
    >>> set_language("en")
    >>> ex = running_example()
    >>> check_q_shape((12, 4), ex, n_tokens=12).ok, check_q_shape((7, 4), ex, n_tokens=12).ok
    (True, False)
    >>> check_q_shape((12.0, 4.0), ex, n_tokens=12).ok
    False
    """
    x = np.zeros((n_tokens, example.x.shape[1]))  # (n_tokens, d_model)
    needed = (x @ example.w_q).shape  # (n_tokens, d_k)
    got = _shape(answer, name, 2)
    if isinstance(got, Feedback):
        return got
    if got == example.q.shape and got != needed:
        return wrong("check_l00_shown_sentence", name=name, got=got, n_tokens=n_tokens)
    if got == needed[::-1] and got != needed:
        return wrong("check_l00_transposed", name=name, got=got)
    return check_value(got, needed, name)


# --- lessons 01-05 ---


@never_raises
def check_new_key(answer, example, x_new, name: str = "my_key") -> Feedback:
    """Lesson 01: the key ``x_new·W_K`` of a new token with embedding ``x_new`` (d_model,).

    >>> from qkv_helpers import running_example
    >>> ex = running_example()
    >>> x = np.linspace(-1, 1, 8)
    >>> check_new_key(x @ ex.w_k, ex, x).ok, check_new_key(x @ ex.w_q, ex, x).ok
    (True, False)
    """
    got = _real_array(answer, name)
    if isinstance(got, Feedback):
        return got
    x_new = np.asarray(x_new, dtype=float)  # (d_model,)
    for other, w in (("Q", example.w_q), ("V", example.w_v)):
        if _close(got, x_new @ w):
            return wrong("check_l01_other_matrix", name=name, other=f"x·W_{other}")
    return check_array(got, x_new @ example.w_k, name)


@never_raises
def check_new_scores(answer, example, x_new, name: str = "my_scores") -> Feedback:
    """Lesson 01: the new token's query against every key of the sentence, ``K·q_new`` (n,).

    >>> from qkv_helpers import running_example
    >>> ex = running_example()
    >>> x = np.linspace(-1, 1, 8)
    >>> check_new_scores(ex.k @ (x @ ex.w_q), ex, x).ok
    True
    >>> check_new_scores(ex.q @ (x @ ex.w_k), ex, x).ok
    False
    """
    got = _real_array(answer, name)
    if isinstance(got, Feedback):
        return got
    x_new = np.asarray(x_new, dtype=float)  # (d_model,)
    expected = example.k @ (x_new @ example.w_q)  # (n_k,)
    if _close(got, example.q @ (x_new @ example.w_k)):
        return wrong("check_l01_roles_swapped", name=name)
    if _close(got, expected / np.sqrt(example.d_k)):
        return wrong("check_l02_scaled", name=name)
    return check_array(got, expected, name)


def _reordered(example, order):
    order = np.asarray(order, dtype=int)
    x = example.x[order]  # (n, d_model)
    return x @ example.w_q, x @ example.w_k  # (n, d_k) each


@never_raises
def check_reordered_scores(answer, example, order, name: str = "my_scores") -> Feedback:
    """Lesson 02: the raw score matrix ``Q·Kᵀ`` of the sentence with its tokens in ``order``.

    >>> from qkv_helpers import running_example
    >>> ex = running_example()
    >>> order = [0, 5, 2, 3, 4, 1, 6]
    >>> x = ex.x[order]
    >>> check_reordered_scores((x @ ex.w_q) @ (x @ ex.w_k).T, ex, order).ok
    True
    >>> check_reordered_scores(ex.q @ ex.k.T, ex, order).ok
    False
    """
    got = _real_array(answer, name)
    if isinstance(got, Feedback):
        return got
    q, k = _reordered(example, order)
    raw = q @ k.T  # (n_q, n_k)
    if not _close(got, raw):
        if _close(got, raw.T):
            return wrong("check_l02_transposed", name=name)
        if _close(got, raw / np.sqrt(example.d_k)):
            return wrong("check_l02_scaled", name=name)
        if _close(got, example.q @ example.k.T):
            return wrong("check_l02_original_sentence", name=name)
    return check_array(got, raw, name)


@never_raises
def check_angle(answer, example, query: str, key: str, name: str = "my_angle") -> Feedback:
    """Lesson 02: the angle in degrees between the query of ``query`` and the key of ``key``.

    >>> from qkv_helpers import running_example
    >>> from qkv_helpers.similarity import dot_and_angle
    >>> ex = running_example()
    >>> d = dot_and_angle(ex.q[5], ex.k[1])
    >>> check_angle(d.angle_deg, ex, "mat", "cat").ok, check_angle(d.cos_angle, ex, "mat", "cat").ok
    (True, False)
    """
    from .similarity import dot_and_angle

    d = dot_and_angle(example.q[example.index(query)], example.k[example.index(key)])
    got = _number(answer, name)
    if isinstance(got, Feedback):
        return got
    if not _close_number(got, d.angle_deg, 1e-3):
        if _close_number(got, math.radians(d.angle_deg), 1e-3):
            return wrong("check_l02_radians", name=name)
        if _close_number(got, d.cos_angle, 1e-3):
            return wrong("check_l02_cosine", name=name)
        if _close_number(got, d.dot, 1e-3):
            return wrong("check_l02_dot", name=name)
        return wrong("check_wrong_value", name=name, got=f"{got:.4g}")
    return right(name=name)


@never_raises
def check_score_spread(answer, d_k: int, name: str = "my_std") -> Feedback:
    """Lesson 03: the standard deviation of ``q·k`` for random q, k of width ``d_k`` (mean 0,
    variance 1), before scaling: √d_k. Right within 1%; the message adds the measurement.

    >>> check_score_spread(np.sqrt(96), 96).ok, check_score_spread(96, 96).ok
    (True, False)
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
    return wrong("check_wrong_value", name=name, got=f"{got:.4g}")


@functools.lru_cache(maxsize=8)
def _measured_std(d_k: int) -> float:
    """The standard deviation of q·k over the package's 20,000 seeded random pairs."""
    from .scaling import dot_product_variance

    return math.sqrt(dot_product_variance(d_k)[0])


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
    import sys

    target = getattr(fn, "func", fn)  # functools.partial
    module = getattr(target, "__module__", "") or ""
    if module.split(".")[0] not in ("qkv_helpers", "scipy", "torch", "numpy"):
        return False
    return getattr(sys.modules.get(module), getattr(target, "__name__", ""), None) is target


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
    the exercise (an overflowed softmax, an underflowed log). ``...`` or None from the
    first trial is "not answered yet"; from a later one (the function answered the first
    input), it is wrong.
    """
    result, error = _call(fn, scores)
    shown = _show_scores(scores)
    if error is not None:
        return wrong("check_l04_raised", name=name, scores=shown,
                     error=_describe_error(error))
    if not_answered(result):
        if not first:
            return wrong("check_l04_returned_nothing", name=name, scores=shown)
        return unanswered()
    got = _real_array(result, name)
    if isinstance(got, Feedback):
        if got.message == t("check_not_finite", name=name):
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
    from .attention import softmax

    problem = _not_a_learner_function(fn, name)
    if problem is not None:
        return problem
    for i, (_label, scores) in enumerate(SOFTMAX_TRIALS):
        got = _trial_answer(fn, scores, name, not_finite_key="check_l04_overflow",
                            first=i == 0)
        if isinstance(got, Feedback):
            return got
        shown = _show_scores(scores)
        feedback = check_weights(got, softmax(scores), name)
        if not feedback.ok:
            return wrong("check_l04_wrong_on", name=name, scores=shown,
                         problem=feedback.message)
    result, _ = _call(fn, SOFTMAX_TRIALS[1][1])
    weights = np.asarray(result, dtype=float)[0]  # (3,)
    return right("check_l04_right", name=name,
                 weights="[" + ", ".join(f"{w:.3f}" for w in weights) + "]")


LOG_SOFTMAX_TRIALS = (
    ("small", np.array([[1.0, 2.0, 3.0], [0.5, 0.5, -1.0]])),
    ("large", np.array([[1000.0, 1001.0, 1002.0]])),
    # softmax underflows to 0 here, so log(softmax) is −∞: only x − max − log Σ exp works
    ("far_apart", np.array([[0.0, -1000.0, -2.0]])),
    ("many", np.linspace(-50.0, 50.0, 600).reshape(2, 300)),
)


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
    >>> check_stable_log_softmax(lambda x: np.log(softmax(x))).ok
    False
    """
    from .attention import softmax

    problem = _not_a_learner_function(fn, name)
    if problem is not None:
        return problem
    for i, (_label, scores) in enumerate(LOG_SOFTMAX_TRIALS):
        got = _trial_answer(fn, scores, name, not_finite_key="check_l04_log_underflow",
                            first=i == 0)
        if isinstance(got, Feedback):
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


@never_raises
def check_prefix_context(answer, example, token: str, n_tokens: int,
                         name: str = "my_context") -> Feedback:
    """Lesson 05: the contextual vector of ``token`` when the sentence is only its first
    ``n_tokens`` tokens: softmax over those keys only, then the weighted sum of their values.

    >>> from qkv_helpers import running_example, scaled_dot_product_attention
    >>> ex = running_example()
    >>> short = scaled_dot_product_attention(ex.q[:3], ex.k[:3], ex.v[:3]).output
    >>> check_prefix_context(short[1], ex, "cat", 3).ok
    True
    >>> full = scaled_dot_product_attention(ex.q, ex.k, ex.v)
    >>> check_prefix_context(full.output[1], ex, "cat", 3).ok
    False
    """
    got = _real_array(answer, name)
    if isinstance(got, Feedback):
        return got
    from .attention import scaled_dot_product_attention

    i = example.index(token)
    q, k, v = example.q[:n_tokens], example.k[:n_tokens], example.v[:n_tokens]
    short = scaled_dot_product_attention(q, k, v)
    expected = short.output[i]  # (d_v,)
    full = scaled_dot_product_attention(example.q, example.k, example.v)
    if not _close(got, expected):
        if got.shape == short.output.shape:
            return wrong("check_l05_all_rows", name=name, got=short.output.shape, token=token,
                         needed=expected.shape)
        if _close(got, full.output[i]):
            return wrong("check_l05_whole_sentence", name=name, n=n_tokens)
        if _close(got, full.weights[i, :n_tokens] @ v):
            return wrong("check_l05_not_renormalised", name=name, n=n_tokens)
        if _close(got, v.sum(axis=0)) or _close(got, example.v.sum(axis=0)):
            return wrong("check_l05_unweighted", name=name)
    return check_array(got, expected, name)


# --- lessons 06-08, 10 ---


@never_raises
def check_prefix_head(answer, mha, x, head: int, n_tokens: int,
                      name: str = "my_head") -> Feedback:
    """Lesson 06: one head's output for the first ``n_tokens`` tokens of ``x`` only.

    >>> from qkv_helpers.encoder_decoder import encoder_example
    >>> enc = encoder_example()
    >>> p = enc.mha.project(enc.x[:4])
    >>> from qkv_helpers import scaled_dot_product_attention as sdpa
    >>> right = sdpa(p.q[0], p.k[0], p.v[0]).output
    >>> check_prefix_head(right, enc.mha, enc.x, head=0, n_tokens=4).ok
    True
    """
    got = _real_array(answer, name)
    if isinstance(got, Feedback):
        return got
    from .attention import scaled_dot_product_attention

    full = mha.project(x)  # each (n_heads, tokens, head_dim)
    full_out = scaled_dot_product_attention(full.q[head], full.k[head], full.v[head]).output
    if _close(got, full_out[:n_tokens]):
        return wrong("check_l06_rows_of_full", name=name, n=n_tokens)
    return check_head_output(got, mha, np.asarray(x)[:n_tokens], head, name=name)


@never_raises
def check_changed_rows(answer, example, position: int, name: str = "my_rows") -> Feedback:
    """Lesson 07: which output rows of masked self-attention change when the token at
    ``position`` changes: the learner's list of row indices, in any order.

    >>> from qkv_helpers import running_example
    >>> ex = running_example()
    >>> check_changed_rows([3, 4, 5, 6], ex, 3).ok, check_changed_rows([3], ex, 3).ok
    (True, False)
    """
    from .encoder_decoder import change_future_token

    result = change_future_token(example.x, example.w_q, example.w_k, example.w_v, position)
    expected = sorted(int(i) for i in np.flatnonzero(result.row_change > 0))
    if not_answered(answer):
        return unanswered()
    if isinstance(answer, (str, bytes)):
        return wrong("check_rows_not_ints", name=name)
    if isinstance(answer, (range, set, frozenset)):
        answer = sorted(answer) if all(isinstance(i, int) for i in answer) else list(answer)
    if isinstance(answer, np.ndarray):
        if answer.ndim != 1 or answer.dtype.kind not in "iu":
            return wrong("check_rows_not_ints", name=name)
        answer = answer.tolist()
    if not isinstance(answer, (list, tuple)) or not all(
            isinstance(i, (numbers.Integral, np.integer))
            and not isinstance(i, (bool, np.bool_)) for i in answer):
        return wrong("check_rows_not_ints", name=name)
    got = sorted(int(i) for i in answer)
    if got == expected:
        return right(name=name)
    missing = [i for i in expected if i not in got]
    extra = [i for i in got if i not in expected]
    if extra and min(extra) < position:
        return wrong("check_l07_earlier_row", name=name, row=min(extra), position=position)
    if missing:
        return wrong("check_l07_missing_row", name=name, row=missing[0], position=position)
    return wrong("check_l07_extra_row", name=name, row=extra[0])


@never_raises
def check_cross_shape(answer, example, n_target: int, n_source: int,
                      name: str = "my_shape") -> Feedback:
    """Lesson 08: the shape of cross-attention's weights for ``n_target`` decoder tokens and
    ``n_source`` encoder tokens, computed by the package on arrays of those sizes.

    >>> from qkv_helpers import translation_example
    >>> tr = translation_example()
    >>> check_cross_shape((9, 12), tr, 9, 12).ok, check_cross_shape((12, 9), tr, 9, 12).ok
    (True, False)
    """
    from .attention import scaled_dot_product_attention

    d_k = example.q.shape[1]
    weights = scaled_dot_product_attention(
        np.zeros((n_target, d_k)), np.zeros((n_source, d_k)), np.zeros((n_source, d_k))
    ).weights
    return check_cross_weights_shape(answer, None, name=name, needed=weights.shape)


@never_raises
def check_masked_output(answer, x, w_q, w_k, w_v, name: str = "my_output") -> Feedback:
    """Lesson 10: causally masked self-attention from the embeddings ``x`` and projections.

    >>> from qkv_helpers import translation_example, scaled_dot_product_attention, causal_mask
    >>> tr = translation_example()
    >>> x = tr.target_x
    >>> q, k, v = x @ tr.w_q, x @ tr.w_k, x @ tr.w_v
    >>> out = scaled_dot_product_attention(q, k, v, mask=causal_mask(5)).output
    >>> check_masked_output(out, x, tr.w_q, tr.w_k, tr.w_v).ok
    True
    >>> check_masked_output(scaled_dot_product_attention(q, k, v).output, x, tr.w_q, tr.w_k,
    ...                     tr.w_v).ok
    False
    """
    got = _real_array(answer, name)
    if isinstance(got, Feedback):
        return got
    from .attention import softmax
    from .masks import causal_mask
    from .pipeline import pipeline_steps

    x = np.asarray(x, dtype=float)
    mask = causal_mask(x.shape[0])  # (tokens, tokens)
    steps = pipeline_steps(x, w_q, w_k, w_v, mask=mask)
    if not _close(got, steps.output):
        if _close(got, pipeline_steps(x, w_q, w_k, w_v).output):
            return wrong("check_l10_unmasked", name=name, n=x.shape[0])
        if _close(got, softmax(np.where(mask, steps.q @ steps.k.T, -np.inf)) @ steps.v):
            return wrong("check_l06_unscaled", name=name,
                         root=f"{np.sqrt(steps.q.shape[1]):.0f}")
    return check_array(got, steps.output, name)


# --- earlier exercises' checks, kept for teachers' own exercises ---


@never_raises
def check_projection_k(answer, example, name: str = "K") -> Feedback:
    """The keys ``K = X·W_K`` of the running example, shape (7, 4).

    >>> from qkv_helpers import running_example
    >>> from qkv_helpers.lang import set_language
    >>> set_language("en")
    >>> ex = running_example()
    >>> check_projection_k(ex.x @ ex.w_k, ex).ok, check_projection_k(ex.q, ex).ok
    (True, False)
    """
    got = _real_array(answer, name)
    if isinstance(got, Feedback):
        return got
    for other, matrix in (("Q", example.q), ("V", example.v)):
        if _close(got, matrix):
            return wrong("check_l01_other_matrix", name=name, other=f"{other} = X·W_{other}")
    return check_array(got, example.k, name)


@never_raises
def check_score_matrix(answer, example, name: str = "scores") -> Feedback:
    """The raw score matrix ``Q·Kᵀ``, shape (tokens, tokens).

    >>> from qkv_helpers import running_example
    >>> ex = running_example()
    >>> check_score_matrix(ex.q @ ex.k.T, ex).ok, check_score_matrix(ex.k @ ex.q.T, ex).ok
    (True, False)
    """
    return check_reordered_scores(answer, example, np.arange(len(example.tokens)), name=name)


@never_raises
def check_scaled_scores(answer, example, name: str = "scaled") -> Feedback:
    """The scaled scores ``Q·Kᵀ/√d_k``.

    >>> from qkv_helpers import running_example
    >>> ex = running_example()
    >>> check_scaled_scores(ex.q @ ex.k.T / 2.0, ex).ok, check_scaled_scores(ex.q @ ex.k.T, ex).ok
    (True, False)
    """
    got = _real_array(answer, name)
    if isinstance(got, Feedback):
        return got
    raw = example.q @ example.k.T  # (n_q, n_k)
    d_k = example.d_k
    root = f"{np.sqrt(d_k):.3g}"
    if _close(got, raw):
        return wrong("check_l03_unscaled", name=name, root=root)
    if _close(got, raw / d_k):
        return wrong("check_l03_by_dk", name=name, d_k=d_k, root=root)
    return check_array(got, raw / np.sqrt(d_k), name)


@never_raises
def check_contextual_vector(answer, example, token: str = "cat",
                            name: str = "context") -> Feedback:
    """The contextual vector of one token, ``weights[token] @ V``, shape (d_v,).

    >>> from qkv_helpers import running_example, scaled_dot_product_attention
    >>> ex = running_example()
    >>> out = scaled_dot_product_attention(ex.q, ex.k, ex.v).output
    >>> check_contextual_vector(out[1], ex).ok, check_contextual_vector(out, ex).ok
    (True, False)
    """
    got = _real_array(answer, name)
    if isinstance(got, Feedback):
        return got
    from .attention import scaled_dot_product_attention

    output = scaled_dot_product_attention(example.q, example.k, example.v).output  # (n, d_v)
    expected = output[example.index(token)]  # (d_v,)
    if _close(got, output):
        return wrong("check_l05_all_rows", name=name, got=output.shape, token=token,
                     needed=expected.shape)
    if _close(got, example.v.sum(axis=0)):
        return wrong("check_l05_unweighted", name=name)
    return check_array(got, expected, name)


@never_raises
def check_head_output(answer, mha, x, head: int, name: str = "my_head") -> Feedback:
    """One head's output ``softmax(q·kᵀ/√d_k)·v`` from ``mha.project(x)``.

    Recognises three slips: no scaling, no softmax, and another head.

    >>> from qkv_helpers.lang import set_language
    >>> from qkv_helpers.encoder_decoder import encoder_example
    >>> set_language("en")
    >>> enc = encoder_example()
    >>> check_head_output(..., enc.mha, enc.x, head=1).ok is None
    True
    >>> check_head_output(np.zeros((7, 8)), enc.mha, enc.x, head=1)
    ❌ my_head has shape (7, 8), but it should have shape (7, 4).
    """
    got = _real_array(answer, name)
    if isinstance(got, Feedback):
        return got
    from .attention import scaled_dot_product_attention, softmax

    p = mha.project(x)  # each (n_heads, tokens, head_dim)
    expected = scaled_dot_product_attention(p.q[head], p.k[head], p.v[head]).output
    if not _close(got, expected):
        scores = p.q[head] @ p.k[head].T  # (tokens, tokens)
        root = float(np.sqrt(mha.head_dim))
        if _close(got, softmax(scores) @ p.v[head]):
            return wrong("check_l06_unscaled", name=name, root=f"{root:.0f}")
        if _close(got, scores / root @ p.v[head]):
            return wrong("check_l06_no_softmax", name=name)
        for other in range(mha.n_heads):
            out = scaled_dot_product_attention(p.q[other], p.k[other], p.v[other]).output
            if other != head and _close(got, out):
                return wrong("check_l06_other_head", name=name, other=other, head=head)
    return check_array(got, expected, name)


@never_raises
def check_causal_mask(answer, n_q: int, n_k: int, name: str = "my_mask") -> Feedback:
    """Lesson 07: a causal mask for ``n_q`` queries that are the last of ``n_k`` positions.

    True (or 1) = may attend. The feedback names the first row that sees the future or
    hides its past.

    >>> from qkv_helpers.lang import set_language
    >>> set_language("en")
    >>> check_causal_mask(np.ones((2, 5), bool), 2, 5)
    ❌ In my_mask, query row 0 (position 3) may see key 4, which is in its future.
    >>> check_causal_mask(np.tri(2, 5, k=3, dtype=bool), 2, 5)
    ✅ Right! my_mask is correct.
    """
    from .masks import causal_mask

    got = _real_array(answer, name)
    if isinstance(got, Feedback):
        return got
    if got.shape != (n_q, n_k):
        return wrong("check_shape", name=name, got=got.shape, needed=(n_q, n_k))
    if not np.isin(got, (0, 1)).all():
        return wrong("check_l07_not_bool", name=name)
    got = got.astype(bool)
    expected = causal_mask(n_q, n_k)  # (n_q, n_k)
    for row, col in np.argwhere(got != expected):
        key = "check_l07_sees_future" if got[row, col] else "check_l07_hides_past"
        return wrong(key, name=name, row=int(row), col=int(col),
                     position=int(n_k - n_q + row))
    return right(name=name)


@never_raises
def check_cross_weights_shape(answer, example, name: str = "my_shape",
                              needed: tuple[int, int] | None = None) -> Feedback:
    """Lesson 08: the shape of cross-attention's weights, (target tokens, source tokens).

    >>> from qkv_helpers.lang import set_language
    >>> from qkv_helpers import translation_example
    >>> set_language("en")
    >>> check_cross_weights_shape((5, 7), translation_example())
    ✅ Right! my_shape is correct.
    >>> check_cross_weights_shape((7, 5), translation_example()).ok
    False
    >>> check_cross_weights_shape((5.9, 7.2), translation_example()).ok
    False
    """
    if needed is None:
        needed = (len(example.target_tokens), len(example.source_tokens))
    got = _shape(answer, name, 2)
    if isinstance(got, Feedback):
        return got
    if got == needed[::-1] and needed[0] != needed[1]:
        return wrong("check_l08_transposed", name=name, got=got)
    return check_value(got, tuple(needed), name)


@never_raises
def check_decoder_output(answer, example, name: str = "my_output") -> Feedback:
    """The whole pipeline with the causal mask, from the running example's ``x``.

    >>> from qkv_helpers.lang import set_language
    >>> from qkv_helpers import running_example
    >>> set_language("en")
    >>> ex = running_example()
    >>> check_decoder_output(..., ex).ok is None
    True
    >>> from qkv_helpers import scaled_dot_product_attention
    >>> check_decoder_output(scaled_dot_product_attention(ex.q, ex.k, ex.v).output, ex).ok
    False
    """
    return check_masked_output(answer, example.x, example.w_q, example.w_k, example.w_v,
                               name=name)


# --- lesson 09 ---


@never_raises
def check_kv_cache_bytes(answer, *, layers: int, kv_heads: int, head_dim: int, tokens: int,
                         batch: int, bytes_per_value: int, query_heads: int | None = None,
                         name: str = "my_bytes") -> Feedback:
    """Lesson 09: the bytes of a KV cache, ``2 · layers · kv_heads · head_dim · tokens ·
    batch · bytes_per_value``.

    Recognises the usual slips: K or V (or the 2 bytes of fp16) forgotten, 4 bytes per
    value, the batch or the layers left out, the query heads used instead of the K/V
    heads, an answer in GiB or in bits.

    >>> from qkv_helpers.lang import set_language
    >>> set_language("en")
    >>> config = dict(layers=2, kv_heads=4, head_dim=4, tokens=10, batch=1, bytes_per_value=4)
    >>> check_kv_cache_bytes(2560, **config)
    ✅ Right! my_bytes = 2,560 bytes (2.50 KiB).
    >>> check_kv_cache_bytes(1280, **config).ok
    False
    >>> check_kv_cache_bytes(..., **config).ok is None
    True
    """
    from .kv_math import format_bytes, kv_cache_bytes

    expected = kv_cache_bytes(layers, kv_heads, head_dim, tokens, batch, bytes_per_value)
    got = _number(answer, name)
    if isinstance(got, Feedback):
        return got
    if _close_number(got, expected, 0.0) or got == expected:  # exact: a whole number of bytes
        return right("check_l09_right", name=name, bytes=f"{expected:,}",
                     readable=format_bytes(expected))
    try:
        shown = f"{float(got):,.0f}"
        ratio = f"{float(got) / expected:.3g}"
    except OverflowError:
        return wrong("check_l09_huge", name=name)
    slips = [  # (what the answer would be, message key), most telling first
        (expected / 2**30, "check_l09_gib"),
        (expected * 8, "check_l09_bits"),
        (expected / 2, "check_l09_half"),
        (expected * 2, "check_l09_double"),
        (expected / batch, "check_l09_no_batch"),
        (expected / layers, "check_l09_no_layers"),
        (expected / bytes_per_value, "check_l09_values"),
    ]
    if query_heads is not None and query_heads != kv_heads:
        slips.insert(0, (expected * query_heads / kv_heads, "check_l09_query_heads"))
    for value, key in slips:
        if value != expected and _close_number(float(got), value, 1e-9):
            return wrong(key, name=name, got=shown, bytes_per_value=bytes_per_value,
                         batch=batch, layers=layers, kv_heads=kv_heads,
                         query_heads=query_heads)
    return wrong("check_l09_wrong", name=name, got=shown, ratio=ratio)


@never_raises
def check_max_batch(answer, *, memory_gib: float, layers: int, kv_heads: int, head_dim: int,
                    tokens: int, bytes_per_value: int, name: str = "my_batch") -> Feedback:
    """Lesson 09: how many sequences of ``tokens`` tokens fit in ``memory_gib`` GiB of KV
    cache: the largest whole batch, ``floor(memory / bytes per sequence)``.

    >>> config = dict(layers=32, kv_heads=8, head_dim=128, tokens=12000, bytes_per_value=2)
    >>> check_max_batch(27, memory_gib=40, **config).ok
    True
    >>> check_max_batch(28, memory_gib=40, **config).ok
    False
    """
    from .kv_math import kv_cache_bytes

    per_sequence = kv_cache_bytes(layers, kv_heads, head_dim, tokens, 1, bytes_per_value)
    expected = int(memory_gib * 2**30 // per_sequence)
    got = _number(answer, name)
    if isinstance(got, Feedback):
        return got
    if isinstance(got, float):
        if not got.is_integer():
            return wrong("check_l09_whole_batch", name=name)
        got = int(got)
    if got == expected:
        return right(name=name)
    if got == expected + 1:
        return wrong("check_l09_rounded_up", name=name)
    return wrong("check_wrong_value", name=name, got=_show(got))


# --- lesson 11 ---


def _real_matrix(answer, shape: tuple, name: str):
    """``answer`` as a finite float array of ``shape``, or the Feedback saying why not.

    Never raises: strings, complex numbers, ragged lists and objects are refused with a
    message, not converted.
    """
    if isinstance(answer, (str, bytes)):
        return wrong("check_not_numbers", name=name, kind=type(answer).__name__)
    try:
        arr = np.asarray(answer)
        if arr.dtype.kind not in "biuf":
            return wrong("check_not_numbers", name=name, kind=type(answer).__name__)
        got = arr.astype(float)
    except Exception:  # anything a learner might type
        return wrong("check_not_numbers", name=name, kind=type(answer).__name__)
    if got.shape != shape:
        return wrong("check_l11_not_square", name=name, got=got.shape, needed=shape)
    if not np.isfinite(got).all():
        return wrong("check_not_finite", name=name)
    return got


def _head_weights(model, x, layer: int, head: int, hidden, scale: bool = True,
                  bias: bool = True) -> np.ndarray:
    """One head's weights from ``x (n, d_model)`` with layer ``layer``'s W_Q, W_K (and biases),
    keys in ``hidden`` masked out; ``(n, n)``."""
    from .attention import scaled_dot_product_attention

    mha = model.layers[layer].attention
    cols = slice(head * mha.head_dim, (head + 1) * mha.head_dim)
    q = x @ mha.w_q[:, cols] + (mha.b_q[cols] if bias else 0.0)  # (n, head_dim)
    k = x @ mha.w_k[:, cols] + (mha.b_k[cols] if bias else 0.0)  # (n, head_dim)
    mask = np.ones(len(x), bool)  # (n,): True = may attend; the same for every query
    mask[list(hidden)] = False
    return scaled_dot_product_attention(q, k, k, mask=mask,
                                        scale=None if scale else 1.0).weights


@never_raises
def check_head_weights(answer, model, text: str, layer: int, head: int, hide_keys=(),
                       name: str = "my_weights") -> Feedback:
    """Lesson 11: one head's attention weights in the real model, for a new sentence,
    optionally with some keys hidden (masked out, as padding is).

    The expected weights come from the package: this layer's input
    ``model(text).hidden_states[layer]``, the head's columns of W_Q and W_K with their
    biases, and :func:`scaled_dot_product_attention` with a mask that hides the key
    positions ``hide_keys`` from every query. With no key hidden they are the model's own
    ``attentions[layer][0, head]``. Compared to 1e-5 (the model computes in float32).
    Recognises the usual slips: the keys not hidden, no scaling, the biases left out, keys
    as rows (transposed), another head of the layer, another layer's input.

    >>> from qkv_helpers.lang import set_language
    >>> from qkv_helpers.pretrained import load_minilm
    >>> set_language("en")
    >>> model = load_minilm()
    >>> check_head_weights(..., model, "A dog ran.", layer=0, head=2).ok is None
    True
    >>> check_head_weights("0.5", model, "A dog ran.", layer=0, head=2)
    ❌ my_weights should be numbers (an array), but it is a str.
    >>> right_answer = model("A dog ran.").attentions[0][0, 2]
    >>> check_head_weights(right_answer, model, "A dog ran.", layer=0, head=2).ok
    True
    >>> check_head_weights(right_answer, model, "A dog ran.", 0, 2, hide_keys=[0]).ok
    False
    """
    if not_answered(answer):
        return unanswered()
    n = len(model.tokenize(text)[0][0])  # the sentence's tokens, [CLS] and [SEP] included
    got = _real_matrix(answer, (n, n), name)  # refused before the model runs
    if isinstance(got, Feedback):
        return got
    out = model(text)
    hidden = [int(i) for i in hide_keys]
    x = out.hidden_states[layer][0].astype(float)  # (n, d_model): this layer's input
    expected = _head_weights(model, x, layer, head, hidden)  # (n, n)
    if np.allclose(got, expected, rtol=0, atol=1e-5):
        return right("check_l11_right", name=name, layer=layer, head=head)

    def close(candidate) -> bool:
        return bool(np.allclose(got, candidate, rtol=0, atol=1e-4))

    mha = model.layers[layer].attention
    d = mha.head_dim
    if hidden and close(_head_weights(model, x, layer, head, [])):
        return wrong("check_l11_not_hidden", name=name,
                     keys=", ".join(out.tokens[0][i] for i in hidden))
    if close(expected.T):
        return wrong("check_l11_transposed", name=name)
    if close(_head_weights(model, x, layer, head, hidden, scale=False)):
        return wrong("check_l11_unscaled", name=name, head_dim=d)
    if close(_head_weights(model, x, layer, head, hidden, bias=False)):
        return wrong("check_l11_no_bias", name=name)
    for other in range(mha.n_heads):
        if other != head and close(_head_weights(model, x, layer, other, hidden)):
            return wrong("check_l11_other_head", name=name, other=other, head=head,
                         start=head * d, end=(head + 1) * d)
    for other_layer in range(len(model.layers)):
        x_other = out.hidden_states[other_layer][0].astype(float)
        if other_layer != layer and close(_head_weights(model, x_other, layer, head, hidden)):
            return wrong("check_l11_other_layer", name=name, head=head, layer=layer)
    return check_array(got, expected, name, atol=1e-5)


# --- lesson 12: positions ---


def _rope_score(example, query_token: str, m: int, key_token: str, n: int) -> float:
    from .positions import apply_rope

    q = example.q[example.index(query_token)][None, :]  # (1, d_k)
    k = example.k[example.index(key_token)][None, :]  # (1, d_k)
    return float(apply_rope(q, [m])[0] @ apply_rope(k, [n])[0])


@never_raises
def check_rope_score(answer, example, *, query_token: str, query_position: int,
                     key_token: str, key_position: int, name: str = "my_score") -> Feedback:
    """Lesson 12: the RoPE score of one token's query at one position with another's key.

    >>> from qkv_helpers.examples import running_example
    >>> ex = running_example()
    >>> args = dict(query_token="cat", query_position=7, key_token="sat", key_position=3)
    >>> check_rope_score("1.0", ex, **args).ok, check_rope_score(ex.q[1] @ ex.k[2], ex, **args).ok
    (False, False)
    """
    expected = _rope_score(example, query_token, query_position, key_token, key_position)
    got = _number(answer, name)
    if isinstance(got, Feedback):
        return got
    if _close_number(got, expected, 1e-6):
        return right(name=name)
    swapped = _rope_score(example, query_token, key_position, key_token, query_position)
    if _close_number(got, swapped, 1e-6):
        return wrong("check_l12_swapped", name=name)
    if _close_number(got, _rope_score(example, query_token, 0, key_token, 0), 1e-6):
        return wrong("check_l12_not_rotated", name=name)
    return wrong("check_wrong_value", name=name, got=_show(got))


@never_raises
def check_same_distance(answer, *, query_position: int, key_position: int,
                        new_query_position: int, name: str = "my_n") -> Feedback:
    """Lesson 12: the key position that keeps the same distance as (m, n) with a new m.

    >>> check_same_distance(8, query_position=7, key_position=3, new_query_position=12).ok
    True
    >>> check_same_distance(8.0, query_position=7, key_position=3, new_query_position=12).ok
    False
    """
    got = _number(answer, name)
    if isinstance(got, Feedback):
        return got
    if not isinstance(got, int):
        return wrong("check_l12_whole_position", name=name)
    if got == new_query_position - (query_position - key_position):
        return right(name=name)
    if got == new_query_position + (query_position - key_position):
        return wrong("check_l12_distance_sign", name=name)
    return wrong("check_wrong_value", name=name, got=_show(got))


# --- lesson 13 ---


@never_raises
def check_gqa_group(answer, *, n_q_heads: int, n_kv_heads: int, kv_head: int,
                    name: str = "my_heads") -> Feedback:
    """Lesson 13: which query heads share one K/V head in grouped-query attention.

    The expected heads are measured with :func:`~qkv_helpers.grouped_query_attention`
    (:func:`_l13_used_kv_head` for every query head); any order is accepted.

    >>> from qkv_helpers.lang import set_language
    >>> set_language("en")
    >>> check_gqa_group([40, 41, 42, 43, 44, 45, 46, 47], n_q_heads=64, n_kv_heads=8, kv_head=5).ok
    True
    >>> check_gqa_group(list(range(5, 64, 8)), n_q_heads=64, n_kv_heads=8, kv_head=5).ok
    False
    """
    if not_answered(answer):
        return unanswered()
    if isinstance(answer, (str, bytes)) or not isinstance(answer, (list, tuple, np.ndarray)):
        return wrong("check_rows_not_ints", name=name)
    items = list(np.asarray(answer).ravel()) if isinstance(answer, np.ndarray) else list(answer)
    if not all(isinstance(i, (int, np.integer)) and not isinstance(i, (bool, np.bool_))
               for i in items):
        return wrong("check_rows_not_ints", name=name)
    got = sorted(int(i) for i in items)
    expected = [h for h in range(n_q_heads)
                if _l13_used_kv_head(n_q_heads, n_kv_heads, h) == kv_head]
    if got == expected:
        return right("check_l13_group_right", name=name, kv_head=kv_head, first=expected[0],
                     last=expected[-1])
    if got == [h for h in range(n_q_heads) if h % n_kv_heads == kv_head]:
        return wrong("check_l13_group_interleaved", name=name, group=len(expected))
    if len(got) != len(expected):
        return wrong("check_l13_group_size", name=name, count=len(got), group=len(expected))
    return wrong("check_l13_group_wrong", name=name, group=len(expected))


@functools.lru_cache(maxsize=1024)
def _l13_used_kv_head(n_q_heads: int, n_kv_heads: int, query_head: int) -> int:
    """The K/V head whose attention gives query head ``query_head``'s output, measured
    (once per arguments: the measurement depends on nothing else)."""
    from .attention import scaled_dot_product_attention
    from .grouped_query import grouped_query_attention

    rng = np.random.default_rng(0)
    q = rng.normal(size=(n_q_heads, 2, 4))
    k, v = rng.normal(size=(2, n_kv_heads, 3, 4))
    out = grouped_query_attention(q, k, v).output[query_head]  # (2, 4)
    for h in range(n_kv_heads):
        if np.allclose(out, scaled_dot_product_attention(q[query_head], k[h], v[h]).output):
            return h
    raise AssertionError("no K/V head gives this query head's output")  # pragma: no cover


@never_raises
def check_merged_halves(answer, scores, v, name: str = "my_output") -> Feedback:
    """Lesson 13: one query's output from two halves of its keys, merged by rescaling.

    ``scores (n_k,)`` and ``v (n_k, d_v)``; the expected answer is
    ``softmax(scores) @ v`` from the package. Recognises the average of the two halves'
    outputs and the sum without rescaling.

    >>> from qkv_helpers.lang import set_language
    >>> set_language("en")
    >>> s, v = np.array([0.0, 1.0, 3.0, 2.0]), np.arange(8.0).reshape(4, 2)
    >>> from qkv_helpers import softmax
    >>> check_merged_halves(softmax(s) @ v, s, v).ok
    True
    >>> halves = (softmax(s[:2]) @ v[:2] + softmax(s[2:]) @ v[2:]) / 2
    >>> check_merged_halves(halves, s, v).message.startswith("my_output is the average")
    True
    >>> check_merged_halves("1, 2", s, v).ok, check_merged_halves(1j, s, v).ok
    (False, False)
    """
    if not_answered(answer):
        return unanswered()
    from .attention import softmax

    try:  # the notebook passes these; a learner may have overwritten them
        scores = np.asarray(scores, dtype=float)
        v = np.asarray(v, dtype=float)
        expected = softmax(scores) @ v  # (d_v,)
        if scores.ndim != 1 or expected.ndim != 1:
            raise ValueError
    except (TypeError, ValueError, OverflowError):
        return wrong("check_not_numbers", name="scores, v", kind=type(scores).__name__)
    if isinstance(answer, (str, bytes)) or np.iscomplexobj(answer):
        return wrong("check_not_numbers", name=name, kind=type(answer).__name__)
    numbers_only = _real_array(answer, name)  # refuses "4.171" (numpy would convert it)
    if isinstance(numbers_only, Feedback) and numbers_only.ok is False:
        return numbers_only
    try:
        got = np.asarray(answer, dtype=float)
    except (TypeError, ValueError, OverflowError):
        return wrong("check_not_numbers", name=name, kind=type(answer).__name__)
    if got.shape != expected.shape:
        got = got.reshape(-1) if got.size == expected.size else got
        if got.shape != expected.shape:
            return wrong("check_shape", name=name, got=got.shape, needed=expected.shape)
    if not np.isfinite(got).all():
        return wrong("check_not_finite", name=name)
    shown = np.array2string(got, precision=3)
    if np.allclose(got, expected, rtol=1e-6, atol=1e-9):
        return right("check_l13_merge_right", name=name, got=shown)
    half = scores.size // 2
    parts = [(scores[:half], v[:half]), (scores[half:], v[half:])]
    average = sum(softmax(s) @ w for s, w in parts) / 2
    exps = [(np.exp(s - s.max()), w) for s, w in parts]
    no_rescale = sum(e @ w for e, w in exps) / sum(e.sum() for e, _ in exps)
    if np.allclose(got, average, rtol=1e-6, atol=1e-9):
        return wrong("check_l13_merge_average", name=name)
    if np.allclose(got, no_rescale, rtol=1e-6, atol=1e-9):
        return wrong("check_l13_merge_no_rescale", name=name)
    return wrong("check_l13_merge_wrong", name=name, got=shown,
                 needed=np.array2string(expected, precision=3))
