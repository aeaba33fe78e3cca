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
    value = float(x)
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
