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
    arr = np.asarray(x)
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


# --- added for issue 14 (bad input gets a clear error) ----------------------------------


def real_array(x, name: str, min_ndim: int = 1, nonempty: bool = True) -> np.ndarray:
    """``x`` as a finite float array, every failure named after ``name``.

    Like :func:`as_float_array` (float dtypes kept, integers made float64), and also:
    a ragged or unreadable ``x`` is a TypeError that says so instead of numpy's message;
    booleans are refused (a mask passed where numbers belong); with ``nonempty`` an
    axis of length 0 is a ValueError naming the axis.

    >>> real_array([[1, 2]], "q").dtype
    dtype('float64')
    >>> real_array(np.zeros((0, 3)), "k")
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
