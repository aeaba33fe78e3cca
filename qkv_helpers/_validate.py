"""Input validation for the whole package, in one place (the math modules call it).

Every message names the argument, the shape it got and the shape it needed, in the
terms of the lesson. One helper per kind of input:

- :func:`array` -- an array of real numbers, with options: float dtypes kept or widened,
  bools allowed or not, the number of dimensions, empty axes, NaN and infinity. It refuses
  what numpy would silently drop: masked arrays (their mask), complex numbers, strings
  such as ``'(7, 4)'``, ragged lists, and object arrays with an entry that is not a real
  number (None, a string, a list, a bool). An object array of real numbers only (Python
  ints, floats, ``Fraction``s...) is read as float64, as a list of them would be.
- :func:`integer` -- a whole number (a count, a position, a size): bools, floats such as
  2.7 (or even 2.0), strings and arrays are refused.
- :func:`flag` -- True or False, nothing else.
- :func:`seed` -- a seed for ``np.random.default_rng``: an integer >= 0.

and a few small ones for numbers, dtypes, axes, labels and tokens. The learner-facing
exercise feedback is elsewhere (``checks``).
"""

from __future__ import annotations

import functools
import inspect
import math
import numbers
import sys

import numpy as np

from ._text import t


def array(x, name: str, *, min_ndim: int = 1, ndim: int | tuple[int, ...] | None = None,
          shape: str | None = None, widen: bool = False, bools: bool = True,
          empty: bool = True, finite: bool = True) -> np.ndarray:
    """``x`` as a float array of real numbers, or a TypeError/ValueError naming ``name``.

    Options: ``widen`` makes every float dtype at least float64 (else float16/32 are kept;
    integers and bools always become float64); ``bools=False`` refuses a boolean array
    (a mask passed where numbers belong); ``ndim`` is the exact number of dimensions (an
    int or a tuple of them), else at least ``min_ndim``; ``empty=False`` refuses an axis
    of length 0; ``finite`` refuses NaN and infinity; ``shape`` describes the shape needed
    in the lesson's terms, e.g. ``"(n_k, d_v)"``, for the messages.

    >>> array([[1, 2]], "q").dtype
    dtype('float64')
    >>> array(np.zeros((0, 3)), "k", empty=False)
    Traceback (most recent call last):
    ...
    ValueError: k must not be empty: got shape (0, 3), axis 0 has length 0
    >>> array("(7, 4)", "shape")
    Traceback (most recent call last):
    ...
    TypeError: shape must be an array of real numbers, got dtype <U6: the string '(7, 4)'
    >>> array(np.ma.masked_array([1.0, 2.0], mask=[0, 1]), "v")  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    TypeError: v is a masked array, whose mask numpy would ignore: pass v.filled(value)...
    """
    __tracebackhide__ = True  # IPython shows the learner's line and the lesson's function
    need = t("err_need_shape", shape=shape) if shape else ""
    not_masked(x, name)
    if isinstance(x, (str, bytes)):
        raise TypeError(t("err_array_string", name=name, need=need,
                          dtype=np.asarray(x).dtype, got=repr(x)))
    if x is None:
        raise TypeError(t("err_array_none", name=name, need=need))
    try:
        arr = np.asarray(x)
    except (ValueError, TypeError) as err:  # ragged nested lists, objects numpy refuses
        raise TypeError(t("err_array_unreadable", name=name, need=need, err=err)) from None
    if arr.dtype == object:
        bad = [e for e in arr.flat if not isinstance(e, numbers.Real)
               or isinstance(e, (bool, np.bool_))][:1]  # None, strings, lists, bools...
        if arr.size == 0 or bad:
            shown = _describe(bad[0] if bad else arr)
            raise TypeError(t("err_array_objects", name=name, need=need, got=shown))
        try:
            arr = arr.astype(np.float64)
        except OverflowError:  # an int beyond 1e308
            raise ValueError(t("err_array_huge_int", name=name, need=need)) from None
    if arr.dtype.kind == "b" and not bools:
        raise TypeError(t("err_array_bool", name=name, shape=arr.shape))
    if arr.dtype.kind in "biu":
        arr = arr.astype(np.float64)
    elif arr.dtype.kind != "f":
        raise TypeError(t("err_array_dtype", name=name, need=need, dtype=arr.dtype))
    if widen:
        arr = arr.astype(np.promote_types(arr.dtype, np.float64), copy=False)
    if ndim is not None:
        allowed = (ndim,) if isinstance(ndim, int) else tuple(ndim)
        if arr.ndim not in allowed:
            raise ValueError(t("err_ndim", name=name, ndim=" or ".join(map(str, allowed)),
                               need=t("err_need_shape", shape=shape) if shape else "",
                               got=arr.shape))
    elif arr.ndim < min_ndim:
        needed = shape or "(" + ", ".join(["..."] + [f"dim{i}" for i in range(min_ndim)]) + ")"
        raise ValueError(t("err_min_ndim", name=name, ndim=min_ndim, needed=needed,
                           got=arr.shape))
    if not empty and arr.size == 0:
        axis = arr.shape.index(0) if arr.ndim else 0
        raise ValueError(t("err_array_empty", name=name, got=arr.shape, axis=axis,
                           need=t("err_array_empty_shape", shape=shape) if shape else ""))
    if finite:
        require_finite(arr, name)
    return arr


def _masked(x) -> bool:
    """Whether ``x`` is a numpy masked array (without importing numpy.ma if nothing did)."""
    ma = sys.modules.get("numpy.ma")
    return ma is not None and isinstance(x, ma.MaskedArray)


def not_masked(x, name: str) -> None:
    """Refuse a numpy masked array: numpy's arithmetic and copies into plain arrays would
    use the hidden entries as if no mask were there."""
    if _masked(x):
        raise TypeError(t("err_masked", name=name))


def integer(x, name: str, low: int | None = None, high: int | None = None, *,
            why: str | None = None) -> int:
    """``x`` as an int in ``low..high`` (either end may be open), or a clear error.

    Bools, floats (even 2.0, and 2.7 where a count is meant), strings and arrays are a
    TypeError: a position, a count or a seed is a whole number. ``low=1`` reads "a positive
    integer"; with ``why``, ``high`` is a size limit and the message says why.

    >>> integer(2.7, "n_heads", 1)
    Traceback (most recent call last):
    ...
    TypeError: n_heads must be a positive integer, got float 2.7
    >>> integer(10**12, "d_model", 1, 2**16, why="weights of d_model² numbers")
    Traceback (most recent call last):
    ...
    ValueError: d_model must be at most 65536 (weights of d_model² numbers), got 1000000000000
    """
    __tracebackhide__ = True
    if low == 1 and (high is None or why is not None):
        needs = t("err_int_positive")
    elif low is not None and high is not None:
        needs = t("err_int_range", low=low, high=high)
    elif low is not None:
        needs = t("err_int_low", low=low)
    elif high is not None:
        needs = t("err_int_high", high=high)
    else:
        needs = t("err_int_any")
    if isinstance(x, (bool, np.bool_)) or not isinstance(x, numbers.Integral):
        raise TypeError(t("err_int_needed", name=name, needs=needs, got=_describe(x)))
    value = int(x)
    if why is not None and high is not None and value > high:
        shown = value if len(str(value)) <= 30 else t("err_int_digits", digits=len(str(value)))
        raise ValueError(t("err_int_at_most", name=name, high=high, why=why, got=shown))
    if (low is not None and value < low) or (high is not None and value > high):
        raise ValueError(t("err_int_needed", name=name, needs=needs, got=value))
    return value


def flag(x, name: str) -> bool:
    """``x`` as a bool; only True or False (a string like "no" would count as True)."""
    if not isinstance(x, (bool, np.bool_)):
        raise TypeError(t("err_flag", name=name, got=_describe(x)))
    return bool(x)


def seed(x, name: str = "seed") -> int:
    """A seed for ``np.random.default_rng``: an int >= 0, so that a result can be repeated.

    >>> seed(-1)
    Traceback (most recent call last):
    ...
    ValueError: seed must be an integer >= 0, got -1
    """
    return integer(x, name, low=0)


# --- smaller helpers: numbers, dtypes, axes, sequences, labels ---------------------------

def require_finite(arr: np.ndarray, name: str) -> None:
    """Raise ValueError if ``arr`` holds NaN or infinity, saying where the first one is."""
    # The sum of squares (one BLAS call, no temporary array, no warning when it overflows)
    # is finite when every entry is; only when it is not are the entries looked at.
    if arr.dtype.kind == "f" and math.isfinite(np.vdot(arr, arr)):
        return
    finite = np.isfinite(arr)
    if not finite.all():
        where = tuple(int(i) for i in np.argwhere(~finite)[0])
        raise ValueError(t("err_not_finite", name=name, got=arr[where], index=where,
                           shape=arr.shape))


def finite_result(arr: np.ndarray, what: str, names: str) -> np.ndarray:
    """``arr`` if every entry is finite; otherwise a ValueError: the inputs were too large."""
    if not np.isfinite(arr).all():
        raise ValueError(t("err_result_overflow", what=what, names=names))
    return arr


def positive_number(x, name: str) -> float:
    """``x`` as a Python float, which must be finite and > 0."""
    if isinstance(x, bool) or not isinstance(x, numbers.Real):
        raise TypeError(t("err_positive_type", name=name, got=_describe(x)))
    try:
        value = float(x)
    except OverflowError:  # an int beyond the largest float
        raise ValueError(t("err_positive_huge", name=name, digits=len(str(abs(x))))) from None
    if not (np.isfinite(value) and value > 0):
        raise ValueError(t("err_positive_value", name=name, got=value))
    return value


def real_number(x, name: str, low: float | None = None, high: float | None = None, *,
                low_open: bool = False) -> float:
    """``x`` as a finite Python float in ``[low, high]`` (``(low, high]`` if ``low_open``)."""
    if isinstance(x, (bool, np.bool_)) or not isinstance(x, numbers.Real):
        raise TypeError(t("err_real_type", name=name, got=_describe(x)))
    value = float(x)
    if not math.isfinite(value):
        raise ValueError(t("err_real_finite", name=name, got=value))
    if low is not None and (value < low or (low_open and value == low)):
        raise ValueError(t("err_real_above" if low_open else "err_real_low", name=name,
                           low=f"{low:g}", got=f"{value:g}"))
    if high is not None and value > high:
        raise ValueError(t("err_real_high", name=name, high=f"{high:g}", got=f"{value:g}"))
    return value


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
        raise TypeError(t("err_float_dtype" if allowed is None else "err_float_dtype_of",
                          name=name, names=names, got=got))
    return dt


def axis_index(axis, ndim: int, shape: tuple, name: str = "axis") -> int:
    """``axis`` as an int in ``[-ndim, ndim)`` for an array of ``shape``.

    >>> axis_index(None, 2, (2, 3))
    Traceback (most recent call last):
    ...
    TypeError: axis must be an integer (one axis), got NoneType None
    """
    if isinstance(axis, bool) or not isinstance(axis, numbers.Integral):
        raise TypeError(t("err_axis_type", name=name, got=_describe(axis)))
    if not -ndim <= axis < ndim:
        raise ValueError(t("err_axis_range", name=name, axis=axis, shape=shape))
    return int(axis)


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
        raise TypeError(t("err_int_seq_type", name=name, low=low, got=_describe(values)))
    values = list(values)
    for i, value in enumerate(values):
        if isinstance(value, (bool, np.bool_)) or not isinstance(value, numbers.Integral):
            raise TypeError(t("err_int_seq_entry", name=name, low=low, got=_describe(value),
                              entry=i))
        if value < low:
            raise ValueError(t("err_int_seq_entry", name=name, low=low, got=value, entry=i))
    if len(values) < min_len:
        raise ValueError(t("err_int_seq_short", name=name, min_len=min_len, got=len(values)))
    return np.array([int(v) for v in values], dtype=np.int64)


def token_of(x, name: str, tokens) -> str:
    """``x`` if it is one of ``tokens`` (exactly, case included), else a clear error."""
    tokens = tuple(tokens)
    if not isinstance(x, str):
        raise TypeError(t("err_token_of", name=name, tokens=tokens, got=_describe(x)))
    if x not in tokens:
        raise ValueError(t("err_token_value", name=name, tokens=tokens, got=repr(x)))
    return x


def label_list(labels, n: int, name: str, what: str) -> list[str]:
    """``labels`` as ``n`` strings, one per entry of ``what``; a bare string is refused."""
    if isinstance(labels, (str, bytes)) or labels is None or isinstance(labels, np.ndarray) \
            and labels.ndim != 1:
        raise TypeError(t("err_labels_type", name=name, n=n, what=what,
                          got=_describe(labels)))
    try:
        labels = [str(label) for label in labels]
    except TypeError:
        raise TypeError(t("err_labels_type", name=name, n=n, what=what,
                          got=_describe(labels))) from None
    if len(labels) != n:
        raise ValueError(t("err_labels_count", name=name, got=len(labels), n=n, what=what))
    return labels


def instance_of(x, name: str, cls: type, hint: str):
    """``x`` if it is a ``cls``; otherwise a TypeError that says where to get one."""
    if not isinstance(x, cls):
        raise TypeError(t("err_instance", name=name, cls=cls.__name__, hint=hint,
                          got=_describe(x)))
    return x


def a_function(fn, name: str = "fn"):
    """``fn`` if it can be called; otherwise a TypeError naming ``name``."""
    if not callable(fn):
        raise TypeError(t("err_function", name=name, got=_describe(fn)))
    return fn


def _describe(x) -> str:
    """``x`` for a message: its type and a short repr."""
    text = repr(x)
    if len(text) > 60:
        text = text[:57] + "..."
    return f"{type(x).__name__} {text}"


# --- the entry points: validate once, then the formula ------------------------------------


def by(check):
    """Decorate a function a lesson calls: ``check`` validates its arguments, once.

    The decorated function's body is then the formula alone, on validated arguments;
    the body without the checks stays reachable as ``fn.unchecked`` (what other entry
    points call, having validated their own arguments already). ``check`` takes the
    function's arguments by name (defaults filled in) and returns them, validated, as a
    tuple in the function's order.
    """
    def decorate(formula):
        signature = inspect.signature(formula)

        @functools.wraps(formula)
        def entry(*args, **kwargs):
            __tracebackhide__ = True
            try:
                bound = signature.bind(*args, **kwargs)
            except TypeError as err:  # a missing or unknown argument: Python's own message
                raise TypeError(t("err_call", function=formula.__name__, err=err)) from None
            bound.apply_defaults()
            checked = check(**bound.arguments)  # in the function's order
            return formula(**dict(zip(bound.arguments, checked)))

        entry.unchecked = formula
        return entry

    return decorate


class ScoresOverflowError(ValueError):
    """Finite inputs whose scores or products overflowed the dtype."""


def finite_scores(scores: np.ndarray, q=None, k=None, scale=None) -> None:
    """Raise if the scores ``q·kᵀ·scale`` overflowed to infinity (or became NaN).

    Given ``q``, ``k`` (in the scores' dtype) and ``scale``, the error names ``scale`` when
    q·kᵀ itself fits the dtype and only the scaling overflowed it (a very large scale).
    """
    row_max = scores.max(axis=-1)  # -inf only if a whole row overflowed to -inf
    if not np.isfinite(row_max).all():
        if q is not None:
            with np.errstate(over="ignore", invalid="ignore"):
                unscaled = q @ k.swapaxes(-1, -2)  # (..., n_q, n_k)
            if np.isfinite(unscaled).all():
                # float16 inputs are scored in float32 (as flash-attention does): name that dtype
                wider = t("err_scale_overflow_wider") if scores.dtype != np.float64 else ""
                raise ScoresOverflowError(t(
                    "err_scale_overflow", scale=f"{float(scale):g}", dtype=scores.dtype,
                    largest=f"{np.finfo(scores.dtype).max:g}",
                    unscaled=f"{float(np.abs(unscaled).max(initial=0.0)):g}",
                    wider=wider)) from None
        raise ScoresOverflowError(t("err_scores_overflow", dtype=scores.dtype,
                                    largest=row_max.max()))


def finite_product(result: np.ndarray, what: str, **inputs) -> None:
    """Raise if ``result`` overflowed although its inputs were finite, naming them."""
    if not np.isfinite(result).all():
        largest = ", ".join(f"largest |{n}| = {float(np.abs(a).max()):.3g}"
                            for n, a in inputs.items())
        raise ScoresOverflowError(t("err_product_overflow", what=what, dtype=result.dtype,
                                    largest=largest))


def softmax_args(x, axis, temperature, out=None):
    """``x`` as softmax takes it (a float array, no NaN or +inf, a finite entry per row),
    ``axis`` as an int, ``temperature`` as a float > 0, ``out`` None or a writable array of
    x's shape and (float) dtype."""
    temperature = positive_number(temperature, "temperature")
    arr = array(x, "x", min_ndim=0, finite=False)
    if arr.ndim == 0:
        raise ValueError(t("err_softmax_scalar"))
    axis = axis_index(axis, arr.ndim, arr.shape)
    if arr.shape[axis] == 0:
        raise ValueError(t("err_softmax_empty_axis", axis=axis, shape=arr.shape))
    if np.isnan(arr).any() or np.isposinf(arr).any():
        raise ValueError(t("err_softmax_nan", shape=arr.shape))
    if arr.size and np.isneginf(arr).all(axis=axis).any():
        row = tuple(int(i) for i in np.argwhere(np.isneginf(arr).all(axis=axis))[0])
        raise ValueError(t("err_softmax_all_neginf", axis=axis, row=row, shape=arr.shape))
    if out is not None:
        not_masked(out, "out")
        if not isinstance(out, np.ndarray):
            raise TypeError(t("err_out_type", shape=arr.shape, dtype=arr.dtype,
                              got=type(out).__name__))
        if out.shape != arr.shape or out.dtype != arr.dtype:
            raise ValueError(t("err_out_like_x", shape=arr.shape, dtype=arr.dtype,
                               got=out.shape, got_dtype=out.dtype))
        if not out.flags.writeable:
            raise ValueError(t("err_out_readonly", shape=out.shape))
    return arr, axis, temperature, out


def pipeline_args(x, w_q, w_k, w_v, mask=None):
    """The arguments of ``pipeline_steps`` (lesson 10's recap), validated.

    ``x`` is ``(tokens, d_model)``; ``w_q``, ``w_k``, ``w_v`` are ``(d_model, d)``, with
    ``w_q`` and ``w_k`` of one shape; ``mask`` follows attention's rules
    (:func:`attention_mask`, with the scores ``(tokens, tokens)``).
    """
    x = array(x, "x", ndim=2, shape="(tokens, d_model)", widen=True, empty=False)
    weights = []
    for w, name in ((w_q, "w_q"), (w_k, "w_k"), (w_v, "w_v")):
        w = array(w, name, ndim=2, shape="(d_model, d)", widen=True, empty=False)
        if w.shape[0] != x.shape[1]:
            raise ValueError(t("err_pipeline_weight", name=name, d_model=x.shape[1],
                               x=x.shape, got=w.shape))
        weights.append(w)
    w_q, w_k, w_v = weights
    if w_q.shape != w_k.shape:
        raise ValueError(t("err_pipeline_qk", w_q=w_q.shape, w_k=w_k.shape))
    if mask is not None:
        mask = attention_mask(mask, (x.shape[0], x.shape[0]))
    return x, w_q, w_k, w_v, mask


def attention_args(q, k, v, mask=None, scale=None):
    """The arguments of ``scaled_dot_product_attention``, validated.

    Returns ``q, k, v`` as float arrays of one dtype, ``mask`` as a bool array that
    broadcasts to the scores ``(..., n_q, n_k)`` with a True in every row (or None), and
    ``scale`` as a float > 0 (or None: the formula's default). Each failure is an error
    naming the argument, what it got and what it needs.
    """
    __tracebackhide__ = True
    for x, name in ((q, "q"), (k, "k"), (v, "v")):
        if isinstance(x, np.ndarray) and x.ndim == 1:  # one token's vector, (d,)
            raise ValueError(t("err_attention_one_vector", name=name, got=x.shape,
                               row=(1, *x.shape)))
    q, k, v = (array(x, name, min_ndim=2, bools=False, empty=False)
               for x, name in ((q, "q"), (k, "k"), (v, "v")))
    dtype = np.result_type(q, k, v)
    q, k, v = (a.astype(dtype, copy=False) for a in (q, k, v))
    batch = attention_shapes(q.shape, k.shape, v.shape)
    if mask is not None:
        mask = attention_mask(mask, (*batch, q.shape[-2], k.shape[-2]))
    scale = None if scale is None else positive_number(scale, "scale")
    return q, k, v, mask, scale


def _weights_in_range(p: np.ndarray, name: str) -> None:
    """Attention weights: in 0..1, each row summing to 1 (up to float32 rounding)."""
    if p.size and (p.min() < 0 or p.max() > 1 + 1e-6):
        raise ValueError(t("err_weights_range", name=name, low=f"{p.min():g}",
                           high=f"{p.max():g}", shape=p.shape))
    sums = p.sum(axis=-1)
    if p.size and np.abs(sums - 1).max() > 1e-3:
        where = tuple(int(i) for i in np.argwhere(np.abs(sums - 1) > 1e-3)[0])
        raise ValueError(t("err_weights_rows", name=name, total=f"{sums[where]:g}",
                           index=where, shape=p.shape))


def _same_dtype(*arrays):
    dtype = np.result_type(*arrays)
    return tuple(a.astype(dtype, copy=False) for a in arrays)


def softmax_backward_args(d_p, p):
    """``softmax_backward``'s ``d_p`` and ``p``: real arrays of one shape, p in 0..1."""
    p = array(p, "p", bools=False, empty=False, shape="(..., n_q, n_k)")
    _weights_in_range(p, "p")
    d_p = array(d_p, "d_p", bools=False, shape=f"{p.shape}, p's")
    if d_p.shape != p.shape:
        raise ValueError(t("err_d_p_shape", p=p.shape, got=d_p.shape))
    return _same_dtype(d_p, p)


def attention_backward_args(d_out, q, k, v, p):
    """``attention_backward``'s arguments: q, k, v that fit (as for the forward), the
    forward's weights ``p (..., n_q, n_k)`` and ``d_out`` shaped like the output."""
    q, k, v = (array(x, name, min_ndim=2, bools=False, empty=False)
               for x, name in ((q, "q"), (k, "k"), (v, "v")))
    batch = attention_shapes(q.shape, k.shape, v.shape)
    n_q, n_k, d_v = q.shape[-2], k.shape[-2], v.shape[-1]
    p_shape, out_shape = (*batch, n_q, n_k), (*batch, n_q, d_v)
    p = array(p, "p", min_ndim=2, bools=False, shape="(..., n_q, n_k)")
    if p.shape != p_shape:
        raise ValueError(t("err_p_shape", needed=p_shape, q=q.shape, k=k.shape, got=p.shape))
    _weights_in_range(p, "p")
    d_out = array(d_out, "d_out", min_ndim=2, bools=False, shape="(..., n_q, d_v)")
    if d_out.shape != out_shape:
        raise ValueError(t("err_out_shape", name="d_out", needed=out_shape, q=q.shape,
                           v=v.shape, got=d_out.shape))
    return _same_dtype(d_out, q, k, v, p)


def one_head_args(q, k, v):
    """q, k, v of one head: 2-D ``(n, d)`` arrays that fit, in one dtype."""
    q, k, v = (array(x, name, ndim=2, bools=False, empty=False, shape=shape)
               for x, name, shape in ((q, "q", "(n_q, d_k)"), (k, "k", "(n_k, d_k)"),
                                      (v, "v", "(n_k, d_v)")))
    attention_shapes(q.shape, k.shape, v.shape)
    return _same_dtype(q, k, v)


def recompute_backward_args(d_out, q, k, v, out, lse, block_size):
    """``recompute_backward``'s arguments: one head's q, k, v, the forward's ``out
    (n_q, d_v)`` and ``lse (n_q,)``, ``d_out`` shaped like ``out``, a block size >= 1."""
    q, k, v = one_head_args(q, k, v)
    out_shape = (q.shape[0], v.shape[1])
    named = {}
    for x, name in ((d_out, "d_out"), (out, "out")):
        named[name] = array(x, name, ndim=2, bools=False, shape="(n_q, d_v)")
        if named[name].shape != out_shape:
            raise ValueError(t("err_out_shape", name=name, needed=out_shape, q=q.shape,
                               v=v.shape, got=named[name].shape))
    lse = array(lse, "lse", ndim=1, bools=False, shape="(n_q,)")
    if lse.shape != (q.shape[0],):
        raise ValueError(t("err_lse_shape", n_q=q.shape[0], q=q.shape, got=lse.shape))
    block_size = integer(block_size, "block_size", 1)
    d_out, q, k, v, out, lse = _same_dtype(named["d_out"], q, k, v, named["out"], lse)
    return d_out, q, k, v, out, lse, block_size


def attention_shapes(q_shape, k_shape, v_shape) -> tuple[int, ...]:
    """Check that q, k, v of these shapes fit together; return their batch shape."""
    n_q, d_k = q_shape[-2:]
    n_k = k_shape[-2]
    if k_shape[-1] != d_k:
        raise ValueError(t("err_q_k_width", q=q_shape, k=k_shape, d_k=d_k))
    if v_shape[-2] != n_k:
        raise ValueError(t("err_k_v_tokens", k=k_shape, v=v_shape, n_k=n_k))
    try:
        return np.broadcast_shapes(q_shape[:-2], k_shape[:-2], v_shape[:-2])
    except ValueError:
        raise ValueError(t("err_batch_broadcast", shapes=f"q {q_shape}, k {k_shape} and "
                                                         f"v {v_shape}")) from None


def attention_mask(mask, score_shape: tuple[int, ...], every_row: bool = True) -> np.ndarray:
    """The mask as a bool array that broadcasts to ``score_shape`` with a key in every row.

    The one place of the mask's rules (attention, its steps, tiled attention, the masked-
    scores plot). ``every_row=False`` lets a row hide every key: lesson 04's
    ``fill_and_softmax`` shows what such a row does to a softmax.
    """
    __tracebackhide__ = True
    if _masked(mask):
        raise TypeError(t("err_masked", name="mask"))
    if isinstance(mask, (str, bytes)):
        raise TypeError(t("err_mask_string", got=repr(mask)))
    try:
        mask = np.asarray(mask)
    except (ValueError, TypeError) as err:
        raise TypeError(t("err_mask_unreadable", err=err)) from None
    if mask.dtype != np.bool_:
        raise TypeError(t("err_mask_dtype", dtype=mask.dtype))
    try:
        shape = np.broadcast_shapes(mask.shape, score_shape)
    except ValueError:
        shape = None
    if shape is None or shape[-2:] != score_shape[-2:]:
        raise ValueError(t("err_mask_shape", shape=mask.shape, scores=score_shape))
    rows = mask.reshape((1,) * (2 - mask.ndim) + mask.shape)  # a scalar or 1-D mask: one row
    no_key = ~rows.any(axis=-1)
    if every_row and no_key.any():
        where = tuple(int(i) for i in np.argwhere(no_key)[0])
        raise ValueError(t("err_mask_no_key", row=where[-1], index=where[:-1],
                           shape=mask.shape))
    return mask


def heads(d_model: int, n_heads) -> int:
    """``n_heads`` as a positive int that divides ``d_model`` into equal heads."""
    n_heads = integer(n_heads, "n_heads", 1)
    if d_model % n_heads:
        raise ValueError(t("err_heads_divide", d_model=d_model, n_heads=n_heads,
                           rest=d_model % n_heads))
    return n_heads


def mha_args(self, **args):
    """The arguments of a :class:`~qkv_helpers.MultiHeadAttention` method, validated.

    ``x_q``, ``x_kv`` (None: self-attention) are ``(..., tokens, d_model)``; ``heads`` is
    ``(..., n_heads, n_q, head_dim)``; ``q, k, v`` are projected heads, checked as
    attention checks them; ``mask`` broadcasts to ``(..., n_heads, n_q, n_k)``. Returns
    ``self`` and the arguments in the method's order.
    """
    def tokens(x, name):
        x = array(x, name, min_ndim=2, bools=False, empty=False)
        if x.shape[-1] != self.d_model:
            raise ValueError(t("err_mha_tokens", name=name, d_model=self.d_model,
                               got=x.shape))
        return x.astype(np.result_type(x, self.dtype), copy=False)

    if "q" in args:  # attend(q, k, v, mask): the checks of attention itself
        q, k, v, mask, _ = attention_args(args["q"], args["k"], args["v"], args["mask"])
        return self, q, k, v, mask
    out = {}
    if "x_q" in args:
        out["x_q"] = tokens(args["x_q"], "x_q")
    if "x_kv" in args:
        out["x_kv"] = None if args["x_kv"] is None else tokens(args["x_kv"], "x_kv")
    if "heads" in args:
        h = array(args["heads"], "heads", min_ndim=3, bools=False, empty=False)
        if h.shape[-3:-2] != (self.n_heads,) or h.shape[-1] != self.head_dim:
            raise ValueError(t("err_mha_heads", n_heads=self.n_heads, head_dim=self.head_dim,
                               got=h.shape))
        out["heads"] = h
    if "mask" in args:
        mask = args["mask"]
        if mask is not None:
            x_q, x_kv = out["x_q"], out["x_kv"]
            x_kv = x_q if x_kv is None else x_kv
            try:
                batch = np.broadcast_shapes(x_q.shape[:-2], x_kv.shape[:-2])
            except ValueError:
                raise ValueError(t("err_batch_broadcast", shapes=f"x_q {x_q.shape} and "
                                                                 f"x_kv {x_kv.shape}")) from None
            mask = attention_mask(mask, (*batch, self.n_heads, x_q.shape[-2], x_kv.shape[-2]))
        out["mask"] = mask
    return (self, *out.values())


def repeat_kv_args(x, group):
    """``x (..., n_kv_heads, n, d)`` and ``group`` for ``repeat_kv``."""
    return array(x, "x", min_ndim=3, bools=False, empty=False), integer(group, "group", 1)


def gqa_args(q, k, v, mask=None):
    """The arguments of ``grouped_query_attention``: q, k, v once, with their heads."""
    __tracebackhide__ = True
    q, k, v = (array(x, name, min_ndim=3, bools=False, empty=False)
               for x, name in ((q, "q"), (k, "k"), (v, "v")))
    n_q_heads, n_kv_heads = q.shape[-3], k.shape[-3]
    if v.shape[-3] != n_kv_heads:
        raise ValueError(t("err_gqa_kv_heads", k=k.shape, v=v.shape, n_kv_heads=n_kv_heads))
    if n_q_heads % n_kv_heads:
        raise ValueError(t("err_gqa_groups", n_q_heads=n_q_heads, q=q.shape,
                           n_kv_heads=n_kv_heads, k=k.shape))
    dtype = np.result_type(q, k, v)
    q, k, v = (a.astype(dtype, copy=False) for a in (q, k, v))
    group = n_q_heads // n_kv_heads  # k and v as attention will see them, heads repeated:
    k_shape, v_shape = (x.shape[:-3] + (n_kv_heads * group,) + x.shape[-2:] for x in (k, v))
    batch = attention_shapes(q.shape, k_shape, v_shape)
    if mask is not None:
        mask = attention_mask(mask, (*batch, q.shape[-2], k.shape[-2]))
    return q, k, v, mask


# --- positions and masks --------------------------------------------------------------

#: The largest position accepted: whole numbers up to 2⁵³ are exact in float64.
MAX_POSITION = 2**53


def token_positions(positions, n: int | None, name: str = "positions") -> np.ndarray:
    """``positions`` as an int64 array of non-negative integers (``0..n-1`` when None)."""
    __tracebackhide__ = True
    if positions is None and n is not None:
        return np.arange(n)
    if positions is None or isinstance(positions, (str, bytes)):
        raise TypeError(t("err_positions_type", name=name, got=_describe(positions)))
    if _masked(positions):
        raise TypeError(t("err_masked", name=name))
    if isinstance(positions, numbers.Integral) and not isinstance(positions, bool):
        positions = [positions]
    try:
        arr = np.asarray(positions)
    except ValueError:  # ragged nested lists
        raise TypeError(t("err_positions_type", name=name,
                          got=t("err_positions_ragged"))) from None
    if arr.dtype.kind == "b" or arr.dtype.kind not in "iuf" or arr.ndim != 1:
        raise TypeError(t("err_positions_type", name=name,
                          got=f"{np.asarray(positions).dtype} {arr.shape}"))
    if arr.dtype.kind == "f":
        if not np.all(np.isfinite(arr)) or np.any(arr != np.round(arr)):
            raise TypeError(t("err_positions_whole", name=name, got=arr.tolist()))
        arr = arr.astype(np.float64)  # (float16 cannot even hold MAX_POSITION)
        if np.any(np.abs(arr) > MAX_POSITION):
            raise ValueError(t("err_positions_max", name=name, high=MAX_POSITION,
                               got=arr.tolist()))
        arr = arr.astype(np.int64)
    if np.any(arr < 0):
        raise ValueError(t("err_positions_negative", name=name, got=arr.tolist()))
    if np.any(arr > MAX_POSITION):  # beyond it, m · θ in float64 is no longer exact
        raise ValueError(t("err_positions_max", name=name, high=MAX_POSITION,
                           got=arr.tolist()))
    if n is not None and arr.shape[0] != n:
        raise ValueError(t("err_positions_count", name=name, count=arr.shape[0], n=n))
    return arr.astype(np.int64)


def even_dim(d, name: str) -> int:
    d = integer(d, name, 1, 2**14, why="a size of vectors or of a (d, d) matrix")
    if d % 2:
        raise ValueError(t("err_even_dim", name=name, got=d))
    return d


def rope_args(x, positions, base):
    """``x (..., n, d)`` with ``d`` even, its ``n`` positions (``0..n-1`` when None), ``base``."""
    __tracebackhide__ = True
    x = array(x, "x", min_ndim=1)
    if x.ndim == 1:  # one vector: apply_rope turns rows, one per position
        raise ValueError(t("err_rope_one_vector", shape=x.shape, row=(1, *x.shape)))
    n, d = x.shape[-2], x.shape[-1]
    if d % 2:
        raise ValueError(t("err_even_dim", name="d (x.shape[-1])", got=x.shape))
    if d == 0 or n == 0:
        raise ValueError(t("err_rope_empty", got=x.shape))
    even_dim(d, "d")
    return x, token_positions(positions, n), positive_number(base, "base")


def mask_sizes(n_q, n_k=None):
    """``n_q`` and ``n_k`` (``n_q`` when None) for a mask held in memory, ``n_k >= n_q``."""
    __tracebackhide__ = True
    n_q = integer(n_q, "n_q", 1, 2**20, why="a mask row per query")
    n_k = n_q if n_k is None else integer(n_k, "n_k", 1, 2**20, why="a mask column per key")
    if n_q * n_k > 2**32:
        raise ValueError(t("err_mask_too_big", n_q=n_q, n_k=n_k))
    if n_k < n_q:
        raise ValueError(t("err_mask_sizes", n_q=n_q, n_k=n_k))
    return n_q, n_k


# --- tiled attention and the online softmax (lesson 13) ---------------------------------


def tiled_args(q, k, v, mask=None, block_size=64, scale=None, skip_hidden_blocks=True):
    """The arguments of ``tiled_attention``: attention's, a block size and a flag."""
    q, k, v, mask, scale = attention_args(q, k, v, mask, scale)
    if mask is not None:  # as (..., n_q, n_k), a view: the tiles are cut from it
        mask = np.broadcast_to(mask, (*mask.shape[:-2], q.shape[-2], k.shape[-2]))
    return (q, k, v, mask, integer(block_size, "block_size", 1), scale,
            flag(skip_hidden_blocks, "skip_hidden_blocks"))


def online_start_args(shape_rows, d_v, dtype=np.float64):
    """``shape_rows`` as a tuple of sizes >= 1, ``d_v`` >= 1 and a float dtype."""
    if not isinstance(shape_rows, (tuple, list)):
        raise TypeError(t("err_shape_rows", got=_describe(shape_rows)))
    shape_rows = tuple(integer(size, "shape_rows", low=1) for size in shape_rows)
    return shape_rows, integer(d_v, "d_v", 1), float_dtype(dtype)


def online_update_args(state, scores, v_block, *, state_type):
    """``state``'s arrays, ``scores`` and ``v_block``, checked for one online-softmax update.

    ``state`` must be a ``state_type`` (tiled.py's ``OnlineSoftmaxState``, passed in by
    tiled.py: this module imports nothing of the math it checks)."""
    instance_of(state, "state", state_type, "from online_softmax_start")
    m, l, o = (np.asarray(a) for a in state)  # noqa: E741
    if any(a.dtype.kind != "f" for a in (m, l, o)) or np.isnan(m).any() or \
            np.isposinf(m).any() or not (np.isfinite(l).all() and np.isfinite(o).all()):
        raise ValueError(t("err_online_state"))
    scores = array(scores, "scores", min_ndim=0, finite=False)
    if np.isnan(scores).any() or np.isposinf(scores).any():
        raise ValueError(t("err_online_scores_nan", shape=scores.shape))
    if scores.ndim < 1 or scores.shape[:-1] != m.shape[:-1] or scores.shape[-1] == 0:
        raise ValueError(t("err_online_scores_shape", needed=m.shape[:-1] + ("block",),
                           got=scores.shape))
    v_block = array(v_block, "v_block", min_ndim=2, bools=False, empty=False)
    if v_block.shape[-2] != scores.shape[-1] or v_block.shape[-1] != o.shape[-1] or \
            v_block.shape[:-2] != o.shape[:-2][len(o.shape) - v_block.ndim:]:
        raise ValueError(t("err_online_v_block", block=scores.shape[-1], d_v=o.shape[-1],
                           got=v_block.shape))
    return state_type(m, l, o), scores, v_block


def finite_running_sums(l, o) -> None:  # noqa: E741
    """Raise if the online softmax's running sums ``l`` or ``o`` overflowed."""
    if not (np.isfinite(l).all() and np.isfinite(o).all()):
        raise ValueError(t("err_running_sums", dtype=o.dtype))


def token_ids(ids, name: str, vocab_size: int, ndim: int = 1, shape: str = "(tokens,)",
              array_only: bool = False) -> np.ndarray:
    """Token ids: an integer array of ``ndim`` axes (``shape`` names them), none empty, each
    in ``0 .. vocab_size - 1``; returned as int64. The one token-id check of the models
    (TinyTransformer, the translator, lesson 15's model). ``array_only``: a numpy array
    only (a batch the lesson's helpers made), not a list."""
    if array_only and not isinstance(ids, np.ndarray):
        raise TypeError(t("err_token_ids_array", name=name, shape=shape,
                          got=type(ids).__name__))
    try:
        arr = np.asarray(ids)
    except (ValueError, TypeError):  # ragged lists
        arr = np.asarray(ids, dtype=object)
    if arr.ndim != ndim or arr.size == 0:
        raise ValueError(t("err_token_ids_shape", name=name, ndim=ndim, shape=shape,
                           got=arr.shape))
    if arr.dtype.kind not in "iu":
        raise TypeError(t("err_token_ids_dtype", name=name, dtype=arr.dtype))
    bad = (arr < 0) | (arr >= vocab_size)
    if bad.any():
        where = np.unravel_index(int(np.argmax(bad)), arr.shape)
        raise ValueError(t("err_token_ids_range", name=name, last=vocab_size - 1,
                           vocab_size=vocab_size, got=arr[where],
                           index=where[0] if ndim == 1 else where))
    return arr.astype(np.int64, copy=False)
