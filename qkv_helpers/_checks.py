"""Input checks shared by the math modules.

Every message names the argument, the shape it got and the shape it needed, in the
terms of the lesson. (The learner-facing exercise checks are in ``checks.py``.)
"""

from __future__ import annotations

import math
import numbers

import numpy as np


def as_float_array(x, name: str, min_ndim: int = 1) -> np.ndarray:
    """``x`` as a float array: float dtypes kept, integers and bools made float64.

    Raises TypeError for non-numeric input, ValueError for too few dimensions or
    for NaN or infinity.
    """
    try:
        arr = np.asarray(x)
    except ValueError:  # ragged nested lists
        raise TypeError(f"{name} must be a rectangular array of real numbers; got rows of "
                        f"different lengths") from None
    if arr.dtype.kind in "biu":
        arr = arr.astype(np.float64)
    elif arr.dtype.kind != "f":
        raise TypeError(f"{name} must be an array of real numbers, got dtype {arr.dtype}")
    if arr.ndim < min_ndim:
        needed = ", ".join(["..."] + [f"dim{i}" for i in range(min_ndim)][-min_ndim:])
        raise ValueError(
            f"{name} must have at least {min_ndim} dimension(s), shape ({needed}); "
            f"got shape {arr.shape}"
        )
    require_finite(arr, name)
    return arr


def require_finite(arr: np.ndarray, name: str) -> None:
    """Raise ValueError if ``arr`` holds NaN or infinity, saying where the first one is."""
    # The sum of squares (one BLAS call, no temporary array, no warning when it overflows)
    # is finite when every entry is; only when it is not are the entries looked at.
    if arr.dtype.kind == "f" and math.isfinite(np.vdot(arr, arr)):
        return
    finite = np.isfinite(arr)
    if not finite.all():
        where = tuple(int(i) for i in np.argwhere(~finite)[0])
        raise ValueError(
            f"{name} must hold finite numbers; got {arr[where]} at index {where} "
            f"of an array of shape {arr.shape}"
        )


def positive_number(x, name: str) -> float:
    """``x`` as a Python float, which must be finite and > 0."""
    if isinstance(x, bool) or not isinstance(x, numbers.Real):
        raise TypeError(f"{name} must be a real number > 0, got {type(x).__name__} {x!r}")
    try:
        value = float(x)
    except OverflowError:  # an int beyond the largest float
        raise ValueError(f"{name} must be a finite number > 0, got an integer of "
                         f"{len(str(abs(x)))} digits, beyond the largest float") from None
    if not (np.isfinite(value) and value > 0):
        raise ValueError(f"{name} must be a finite number > 0, got {value}")
    return value


def positive_int(x, name: str) -> int:
    """``x`` as an int, which must be >= 1."""
    if isinstance(x, bool) or not isinstance(x, numbers.Integral):
        raise TypeError(f"{name} must be a positive integer, got {type(x).__name__} {x!r}")
    if x < 1:
        raise ValueError(f"{name} must be a positive integer, got {x}")
    return int(x)


# --- checks for the lesson helpers, plots and widgets ------------------------------------
# Each names the argument as the learner passed it, says what it got and what it needs.


def _describe(x) -> str:
    """``x`` for a message: its type and a short repr."""
    text = repr(x)
    if len(text) > 60:
        text = text[:57] + "..."
    return f"{type(x).__name__} {text}"


def real_array(x, name: str, ndim: int | tuple[int, ...], shape: str, *, allow_empty: bool = False,
               finite: bool = True) -> np.ndarray:
    """``x`` as a float64 (or wider) array of ``ndim`` dimensions (an int or a tuple of them).

    ``shape`` describes the shape needed in the lesson's terms, e.g. ``"(n_k, d_v)"``.
    Integers and bools become float64; float16 and float32 are widened to float64 so
    that sums of squares and products do not overflow where float64 would not. Strings,
    complex numbers, ragged lists and objects that are not numbers are a TypeError or
    ValueError naming ``name``; so are empty axes (unless ``allow_empty``) and NaN or
    infinity (unless ``finite=False``).
    """
    if x is None or isinstance(x, (str, bytes)):
        raise TypeError(f"{name} must be an array of real numbers, shape {shape}; "
                        f"got {_describe(x)}")
    try:
        arr = np.asarray(x)
    except ValueError:  # ragged nested lists
        raise ValueError(f"{name} must be a rectangular array of real numbers, shape {shape}; "
                         f"got rows of different lengths") from None
    if arr.dtype == object:
        try:
            arr = arr.astype(np.float64)
        except (TypeError, ValueError, OverflowError):  # OverflowError: an int beyond 1e308
            raise TypeError(f"{name} must hold real numbers, shape {shape}; got entries "
                            f"that are not numbers (e.g. {_describe(arr.flat[0])})"
                            if arr.size else f"{name} must hold real numbers") from None
    if arr.dtype.kind in "biu":
        arr = arr.astype(np.float64)
    elif arr.dtype.kind != "f":
        raise TypeError(f"{name} must be an array of real numbers, shape {shape}; got dtype "
                        f"{arr.dtype}")
    arr = arr.astype(np.promote_types(arr.dtype, np.float64), copy=False)
    allowed = (ndim,) if isinstance(ndim, int) else tuple(ndim)
    if arr.ndim not in allowed:
        raise ValueError(f"{name} must have {' or '.join(map(str, allowed))} dimension(s), "
                         f"shape {shape}; got shape {arr.shape}")
    if not allow_empty and arr.size == 0:
        raise ValueError(f"{name} must not be empty: it needs shape {shape} with every size "
                         f">= 1; got shape {arr.shape}")
    if finite:
        require_finite(arr, name)
    return arr


def finite_result(arr: np.ndarray, what: str, names: str) -> np.ndarray:
    """``arr`` if every entry is finite; otherwise a ValueError: the inputs were too large."""
    if not np.isfinite(arr).all():
        raise ValueError(f"{what} overflowed (became infinite): {names} hold numbers too large "
                         f"to compute with in float64; scale them down")
    return arr


def integer(x, name: str, low: int | None = None, high: int | None = None) -> int:
    """``x`` as an int in ``low..high`` (either end may be open), or a clear error.

    Bools, floats (even 2.0), strings and arrays are a TypeError: a position, a count or
    a seed is a whole number.
    """
    if low is not None and high is not None:
        needs = f"an integer in {low}..{high}"
    elif low is not None:
        needs = f"an integer >= {low}"
    elif high is not None:
        needs = f"an integer <= {high}"
    else:
        needs = "an integer"
    if isinstance(x, (bool, np.bool_)) or not isinstance(x, numbers.Integral):
        raise TypeError(f"{name} must be {needs}, got {_describe(x)}")
    value = int(x)
    if (low is not None and value < low) or (high is not None and value > high):
        raise ValueError(f"{name} must be {needs}, got {value}")
    return value


def seed_value(seed, name: str = "seed") -> int:
    """A seed for ``np.random.default_rng``: an int >= 0 (so a result can be repeated)."""
    return integer(seed, name, low=0)


def real_number(x, name: str, low: float | None = None, high: float | None = None, *,
                low_open: bool = False) -> float:
    """``x`` as a finite Python float in ``[low, high]`` (``(low, high]`` if ``low_open``)."""
    if isinstance(x, (bool, np.bool_)) or not isinstance(x, numbers.Real):
        raise TypeError(f"{name} must be a real number, got {_describe(x)}")
    value = float(x)
    if not math.isfinite(value):
        raise ValueError(f"{name} must be a finite number, got {value}")
    if low is not None and (value < low or (low_open and value == low)):
        raise ValueError(f"{name} must be {'>' if low_open else '>='} {low:g}, got {value:g}")
    if high is not None and value > high:
        raise ValueError(f"{name} must be <= {high:g}, got {value:g}")
    return value


def flag(x, name: str) -> bool:
    """``x`` as a bool; only True or False (a string like "no" would count as True)."""
    if not isinstance(x, (bool, np.bool_)):
        raise TypeError(f"{name} must be True or False, got {_describe(x)}")
    return bool(x)


def token_of(x, name: str, tokens) -> str:
    """``x`` if it is one of ``tokens`` (exactly, case included), else a clear error."""
    tokens = tuple(tokens)
    if not isinstance(x, str):
        raise TypeError(f"{name} must be one of the tokens {tokens} (a str), got {_describe(x)}")
    if x not in tokens:
        raise ValueError(f"{name} must be one of the tokens {tokens}, got {x!r}")
    return x


def label_list(labels, n: int, name: str, what: str) -> list[str]:
    """``labels`` as ``n`` strings, one per entry of ``what``; a bare string is refused."""
    if isinstance(labels, (str, bytes)) or labels is None or isinstance(labels, np.ndarray) \
            and labels.ndim != 1:
        raise TypeError(f"{name} must be a sequence of {n} labels, one per {what}, "
                        f"got {_describe(labels)}")
    try:
        labels = [str(label) for label in labels]
    except TypeError:
        raise TypeError(f"{name} must be a sequence of {n} labels, one per {what}, "
                        f"got {_describe(labels)}") from None
    if len(labels) != n:
        raise ValueError(f"{name} has {len(labels)} labels but there are {n} {what}")
    return labels


def instance_of(x, name: str, cls: type, hint: str):
    """``x`` if it is a ``cls``; otherwise a TypeError that says where to get one."""
    if not isinstance(x, cls):
        raise TypeError(f"{name} must be a {cls.__name__} ({hint}), got {_describe(x)}")
    return x


# --- the readable core's checks (attention, masks, KV cache, decoding, fast; issue 14) ---
# float_array keeps float dtypes (float16/32 stay as they are), unlike real_array above.

def float_array(x, name: str, min_ndim: int = 1, nonempty: bool = True) -> np.ndarray:
    """``x`` as a finite float array, every failure named after ``name``.

    Like :func:`as_float_array` (float dtypes kept, integers made float64), and also:
    a ragged or unreadable ``x`` is a TypeError that says so instead of numpy's message;
    booleans are refused (a mask passed where numbers belong); with ``nonempty`` an
    axis of length 0 is a ValueError naming the axis.

    >>> float_array([[1, 2]], "q").dtype
    dtype('float64')
    >>> float_array(np.zeros((0, 3)), "k")
    Traceback (most recent call last):
    ...
    ValueError: k must not be empty: got shape (0, 3), axis 0 has length 0
    """
    try:
        arr = np.asarray(x)
    except (ValueError, TypeError) as err:  # ragged nested lists, objects numpy refuses
        raise TypeError(
            f"{name} must be an array of real numbers (a numpy array or nested lists of "
            f"equal lengths); numpy could not read it as one: {err}"
        ) from None
    if arr.dtype.kind == "b":
        raise TypeError(
            f"{name} must be an array of real numbers, got dtype bool (shape {arr.shape}); "
            f"for 0/1 values use {name}.astype(float)"
        )
    arr = as_float_array(arr, name, min_ndim=min_ndim)
    if nonempty and arr.size == 0:
        axis = arr.shape.index(0)
        raise ValueError(
            f"{name} must not be empty: got shape {arr.shape}, axis {axis} has length 0"
        )
    return arr


def float_dtype(dtype, name: str = "dtype", allowed=None) -> np.dtype:
    """``dtype`` as a numpy float dtype; ``allowed`` optionally lists the accepted ones.

    >>> float_dtype("float32")
    dtype('float32')
    >>> float_dtype("banana")
    Traceback (most recent call last):
    ...
    TypeError: dtype must be a numpy float dtype such as np.float32 or np.float64, got 'banana'
    """
    try:
        dt = np.dtype(dtype)
    except (TypeError, ValueError):
        dt = None
    if dtype is None or dt is None or dt.kind != "f" or (
            allowed is not None and dt not in [np.dtype(a) for a in allowed]):
        names = ("np.float32 or np.float64" if allowed is None
                 else " or ".join(f"np.{np.dtype(a).name}" for a in allowed))
        got = repr(dtype) if dt is None or dtype is None else f"{dt.name}"
        needed = "a numpy float dtype such as" if allowed is None else "one of"
        raise TypeError(f"{name} must be {needed} {names}, got {got}")
    return dt


def seed_int(seed, name: str = "seed") -> int:
    """``seed`` as an int >= 0, as ``np.random.default_rng`` needs it.

    >>> seed_int(-1)
    Traceback (most recent call last):
    ...
    ValueError: seed must be an integer >= 0, got -1
    """
    if isinstance(seed, bool) or not isinstance(seed, numbers.Integral):
        raise TypeError(f"{name} must be an integer >= 0, got {type(seed).__name__} {seed!r}")
    if seed < 0:
        raise ValueError(f"{name} must be an integer >= 0, got {seed}")
    return int(seed)


def axis_index(axis, ndim: int, shape: tuple, name: str = "axis") -> int:
    """``axis`` as an int in ``[-ndim, ndim)`` for an array of ``shape``.

    >>> axis_index(None, 2, (2, 3))
    Traceback (most recent call last):
    ...
    TypeError: axis must be an integer (one axis), got NoneType None
    """
    if isinstance(axis, bool) or not isinstance(axis, numbers.Integral):
        raise TypeError(
            f"{name} must be an integer (one axis), got {type(axis).__name__} {axis!r}")
    if not -ndim <= axis < ndim:
        raise ValueError(f"{name} {axis} is out of range for x of shape {shape}")
    return int(axis)


def size_int(x, name: str, limit: int, why: str) -> int:
    """``x`` as an int in ``1 .. limit``: a size the package can allocate.

    >>> size_int(10**12, "d_model", 2**16, "weights of d_model² numbers")
    Traceback (most recent call last):
    ...
    ValueError: d_model must be at most 65536 (weights of d_model² numbers), got 1000000000000
    """
    x = positive_int(x, name)
    if x > limit:
        shown = x if len(str(x)) <= 30 else f"an integer of {len(str(x))} digits"
        raise ValueError(f"{name} must be at most {limit} ({why}), got {shown}")
    return x


def int_sequence(values, name: str, low: int = 0, min_len: int = 1) -> np.ndarray:
    """``values`` as a 1-D int64 array of at least ``min_len`` integers, each >= ``low``.

    Each entry must be a whole number (an int, not a bool, a float like 1.5 or a string).

    >>> int_sequence([16, 32], "contexts", low=2)
    array([16, 32])
    >>> int_sequence([16, 1.5], "contexts")
    Traceback (most recent call last):
    ...
    TypeError: each of contexts must be an integer >= 0, got float 1.5 (entry 1)
    """
    if values is None or isinstance(values, (str, bytes, numbers.Number)) or not hasattr(
            values, "__iter__") or isinstance(values, dict) or (
            isinstance(values, np.ndarray) and values.ndim != 1):
        raise TypeError(f"{name} must be a sequence of integers >= {low}, got "
                        f"{_describe(values)}")
    values = list(values)
    for i, value in enumerate(values):
        if isinstance(value, (bool, np.bool_)) or not isinstance(value, numbers.Integral):
            raise TypeError(f"each of {name} must be an integer >= {low}, got "
                            f"{_describe(value)} (entry {i})")
        if value < low:
            raise ValueError(f"each of {name} must be an integer >= {low}, got {value} "
                             f"(entry {i})")
    if len(values) < min_len:
        raise ValueError(f"{name} must hold at least {min_len} integer(s), got {len(values)}")
    return np.array([int(v) for v in values], dtype=np.int64)


def a_function(fn, name: str = "fn"):
    """``fn`` if it can be called; otherwise a TypeError naming ``name``."""
    if not callable(fn):
        raise TypeError(f"{name} must be a function to call (e.g. np.ones), got {_describe(fn)}")
    return fn
