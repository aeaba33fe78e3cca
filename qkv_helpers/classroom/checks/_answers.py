"""Reading a learner's answer: numbers, arrays and shapes, or the feedback that says why not.

And the three general checks (:func:`check_array`, :func:`check_value`,
:func:`check_weights`) that a teacher's own exercise can call."""

from __future__ import annotations

import math
import numbers

import numpy as np

from ._feedback import Feedback, never_raises, not_answered, right, unanswered, wrong


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
    except ValueError:  # _scan found only numbers: nested rows of different lengths
        if isinstance(answer, (list, tuple)):
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
    """A short text for a learner's value in a message, numbers rounded for reading
    (4 significant digits: 1.1000442649886781 is shown as 1.1)."""
    try:
        if isinstance(value, (float, np.floating)):
            text = f"{float(value):.4g}"
        elif isinstance(value, np.ndarray) and value.dtype.kind in "iuf" and value.size <= 64:
            text = np.array2string(value, precision=4, separator=", ", suppress_small=True)
        else:
            text = repr(value)
    except Exception:  # noqa: BLE001
        text = type(value).__name__
    return text if len(text) <= 60 else text[:57] + "..."


def _apart(got, expected) -> tuple[str, str]:
    """Both values as text, rounded for reading: 4 significant digits (3 decimals for
    arrays), or as many more as it takes for the two texts to differ.

    >>> _apart(2.2, 2.2000885)
    ('2.2', '2.2001')
    >>> _apart(np.array([-0.308, 0.755]), np.array([-0.30812, 0.75533]))
    ('[-0.308, 0.755]', '[-0.3081, 0.7553]')
    >>> _apart(np.array([-0.308, 0.755, -0.124]), np.array([-0.30843, 0.75472, -0.12402]))
    ('[-0.308, 0.755, -0.124]', '[-0.3084, 0.7547, -0.124]')
    """
    if np.ndim(got) == 0 and np.ndim(expected) == 0:
        for digits in range(4, 18):
            a, b = f"{float(got):.{digits}g}", f"{float(expected):.{digits}g}"
            if a != b:
                return a, b
        return a, b
    got, expected = np.asarray(got, dtype=float), np.asarray(expected, dtype=float)
    for digits in range(3, 18):
        a, b = (_decimals(x, digits) for x in (got, expected))
        if a != b:
            return a, b
    return a, b


def _decimals(x: np.ndarray, digits: int) -> str:
    """``x`` as a flat list rounded to ``digits`` decimals, trailing zeros dropped."""
    items = (np.format_float_positional(v, precision=digits, unique=False, trim="-")
             for v in x.ravel())
    return "[" + ", ".join(items) + "]"


def _rounded(got, expected, rtol: float = 1e-3) -> bool:
    """Whether ``got`` looks like ``expected`` rounded (to some number of decimals or of
    significant digits, as a learner copies printed digits), or is within ``rtol`` of it.

    Only roundings that keep ``expected`` within 5% count: 0 is not 0.4 "rounded".

    >>> _rounded(2.2, 2.2000885), _rounded(10, np.sqrt(96)), _rounded(0, 0.4)
    (True, True, False)
    >>> _rounded(np.array([-0.308, 0.755]), np.array([-0.30812, 0.75533]))
    True
    """
    got, expected = np.asarray(got, dtype=float), np.asarray(expected, dtype=float)
    if got.shape != expected.shape or not np.isfinite(got).all():
        return False
    scale = float(np.abs(expected).max(initial=0.0))
    if scale == 0.0:
        return False
    if float(np.abs(got - expected).max(initial=0.0)) <= rtol * scale:
        return True
    candidates = [np.round(expected, d) for d in range(0, 10)]
    if expected.ndim == 0:
        candidates += [float(f"{float(expected):.{s}g}") for s in range(1, 10)]
    for rounded in candidates:
        if (float(np.abs(rounded - expected).max(initial=0.0)) <= 0.05 * scale
                and np.allclose(got, rounded, rtol=1e-9, atol=1e-12)):
            return True
    return False


def close_but_not_right(got, expected, name: str) -> Feedback | None:
    """The "close: you may have rounded" feedback when ``got`` is ``expected`` rounded
    (see :func:`_rounded`), both values shown to the digits where they differ; else None.
    Every check calls it after its own tolerance has failed."""
    if not _rounded(got, expected):
        return None
    if np.size(expected) > 8:  # a whole matrix is too long to read: the worst entry
        got, expected = np.asarray(got, dtype=float), np.asarray(expected, dtype=float)
        diff = np.abs(got - expected)
        index = tuple(int(i) for i in np.unravel_index(diff.argmax(), diff.shape))
        shown, needed = _apart(got[index], expected[index])
        return wrong("check_close_at", name=name, index=index, got=shown, needed=needed)
    shown, needed = _apart(got, expected)
    return wrong("check_close", name=name, got=shown, needed=needed)


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
        if _rounded(got, expected):
            shown, needed = _apart(got[index], expected[index])
            return wrong("check_close_at", name=name, index=index, got=shown, needed=needed)
        shown, _ = _apart(got[index], expected[index])  # the expected entry is not shown
        return wrong("check_values", name=name, index=index, got=shown)
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
    if not isinstance(expected, tuple):
        close = close_but_not_right(got, expected, name)
        if close is not None:
            return close
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
