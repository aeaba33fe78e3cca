"""The exercise checks of lesson 14 (the translator trained in numpy).

Like every check of the course they never raise (``never_raises``) and give feedback in
the lesson's language; none accepts an answer already on screen.
"""

from __future__ import annotations

import math
import sys

import numpy as np

from .. import attention_backward as _attention_backward
from .. import backprop as _backprop
from ..lang import t
from ..toy_corpus import Pair, Vocabulary
from ..translator import TrainingRun, Translator, make_batch
from ._feedback import Feedback, never_raises, not_answered, right, unanswered, wrong
from .lesson_04 import _is_package_function

__all__ = ["check_attention_backward", "check_break_it", "check_verb_attention"]


def _one_query_attention(q, k, v):
    """``softmax(k·q/√d)·v`` for one query ``q (d,)``: ``(d_v,)``."""
    s = k @ q / math.sqrt(len(q))  # (n,)
    p = np.exp(s - s.max())
    return (p / p.sum()) @ v


def _numeric_gradients(q, k, v, d_out, eps=1e-6):
    """Central differences of ``out·d_out`` with respect to q, k and v."""
    grads = []
    for x in (q, k, v):
        g = np.zeros_like(x)
        for i in np.ndindex(x.shape):
            old = x[i]
            x[i] = old + eps
            up = _one_query_attention(q, k, v) @ d_out
            x[i] = old - eps
            down = _one_query_attention(q, k, v) @ d_out
            x[i] = old
            g[i] = (up - down) / (2 * eps)
        grads.append(g)
    return grads


def _package_backward_code() -> set:
    """The code objects of every backward the package (or this checker) already has."""
    codes = set()
    for module in (_backprop, _attention_backward, sys.modules[__name__]):
        for key, value in vars(module).items():
            # a validated entry point (validate.by) wraps its formula: look at the formula
            code = getattr(getattr(value, "unchecked", value), "__code__", None)
            if (code is not None and code.co_filename == module.__file__
                    and ("backward" in key or "gradient" in key)):
                codes.add(code)
    return codes


def _call_watched(fn, args):
    """``fn(*args)``, and whether it called one of the package's backwards on the way.

    A profiler sees every Python call, however the function was reached (``backprop.…``, an
    alias, ``from … import``), so a wrapper around ``backprop.attention_backward`` is caught.
    """
    forbidden = _package_backward_code()
    used = []

    def watch(frame, event, _arg):
        if event == "call" and frame.f_code in forbidden:
            used.append(frame.f_code.co_name)

    previous = sys.getprofile()
    sys.setprofile(watch)
    try:
        return fn(*args), used
    finally:
        sys.setprofile(previous)


def _relative_error(a, b) -> float:
    denom = np.linalg.norm(a) + np.linalg.norm(b)
    return 0.0 if denom == 0 else float(np.linalg.norm(a - b) / denom)


@never_raises
def check_attention_backward(fn, name: str = "my_backward") -> Feedback:
    """``fn(q, k, v, d_out)`` → ``(d_q, d_k, d_v)`` for one query, against finite differences.

    Tried on two new cases (queries the lesson never shows), float64: each gradient
    within 1e-6 relative error by norm.

    >>> from qkv_helpers import setup
    >>> setup(lang="en")
    >>> check_attention_backward(...).ok is None
    True
    >>> check_attention_backward(lambda q, k, v, d_out: (q, k, v)).ok
    False
    """
    if not_answered(fn):
        return unanswered()
    if not callable(fn):
        return wrong("check_l14_backward_not_function", name=name)
    if _is_package_function(fn):
        return wrong("check_l14_backward_package", name=name)
    rng = np.random.default_rng(1414)
    errors = None
    for n, d, d_v in ((6, 5, 3), (3, 4, 2)):
        q, k, v = rng.normal(size=d), rng.normal(size=(n, d)), rng.normal(size=(n, d_v))
        d_out = rng.normal(size=d_v)
        try:
            got, used = _call_watched(fn, (q.copy(), k.copy(), v.copy(), d_out.copy()))
        except Exception as error:  # noqa: BLE001 - the learner's function
            return wrong("check_l14_backward_raised", name=name, n=n,
                         error=f"{type(error).__name__}: {error}"[:160])
        if used:  # the package's own backward (or this checker's differences) did the work
            return wrong("check_l14_backward_package", name=name)
        if not_answered(got):  # the cell's ``return ...`` still there
            return unanswered()
        shapes = [q.shape, k.shape, v.shape]
        try:
            got = [np.asarray(g, dtype=float) for g in got]
        except (TypeError, ValueError):
            got = None
        if got is None or len(got) != 3 or [g.shape for g in got] != shapes:
            described = ([g.shape for g in got] if got is not None else type(got).__name__)
            return wrong("check_l14_backward_shape", name=name, q=q.shape, k=k.shape,
                         v=v.shape, got=described)
        expected = _numeric_gradients(q, k, v, d_out)
        errors = [_relative_error(g, e) for g, e in zip(got, expected)]
        for which, err in zip(("d_q", "d_k", "d_v"), errors):
            if not err <= 1e-6:  # also NaN
                return wrong("check_l14_backward_wrong", name=name, which=which,
                             err=f"{err:.1e}")
    dq, dk, dv = (f"{e:.0e}" for e in errors)
    return right("check_l14_backward_right", name=name, dq=dq, dk=dk, dv=dv)


@never_raises
def check_verb_attention(answer, model, pair, name: str = "my_word") -> Feedback:
    """Which source token (an English word or ``"<eos>"``) the Korean verb's
    cross-attention row peaks on (heads averaged, teacher-forced), for ``pair``.

    A wrong answer is told only that it is wrong, never which token it is.

    >>> from qkv_helpers.toy_corpus import build_sentence
    >>> from qkv_helpers.translator import load_trained
    >>> model = load_trained()[0]
    >>> pair = build_sentence("duck", "lay", "in", "bag", "white")
    >>> check_verb_attention("lay", model, pair).ok, check_verb_attention("bag", model, pair).ok
    (True, False)
    """
    if not_answered(answer):
        return unanswered()
    if not isinstance(model, Translator) or not isinstance(pair, Pair):
        return wrong("check_l14_verb_setup")
    source = [*pair.english, "<eos>"]
    words = list(dict.fromkeys(source))
    if not isinstance(answer, str) or answer.strip().lower() not in words:
        return wrong("check_l14_verb_not_word", name=name, words=", ".join(words))
    weights = model.cross_attention(make_batch([pair], Vocabulary()))[0].mean(axis=0)
    row = len(pair.korean) - 1  # the verb comes last
    j = int(weights[row].argmax())
    if answer.strip().lower() == source[j]:
        return right("check_l14_verb_right", name=name, verb=pair.korean[row], word=source[j],
                     weight=f"{weights[row, j]:.2f}")
    return wrong("check_l14_verb_wrong", name=name, verb=pair.korean[row],
                 guess=answer.strip().lower())


@never_raises
def check_break_it(run, diagnosis, name: str = "my_diagnosis") -> Feedback:
    """A training run the learner broke, and what they read from its curves.

    ``diagnosis``: ``"a"`` the loss stalled far above a normal run's (steps too large),
    ``"b"`` the loss went to about 0 but held-out sentences stay wrong (memorised too few
    sentences), ``"c"`` nothing went wrong. ``"c"`` is the right reading of a run that
    still learned (held-out exact match 50% or more), but the exercise asks for a broken
    run, so it does not pass. A wrong diagnosis is told what to compare, not the answer.
    """
    if not_answered(run) or not_answered(diagnosis):
        return unanswered()
    if not isinstance(run, TrainingRun):
        return wrong("check_l14_break_not_run", name="broken")
    if not isinstance(diagnosis, str) or diagnosis.strip().lower() not in ("a", "b", "c"):
        return wrong("check_l14_break_choice", name=name)
    diagnosis = diagnosis.strip().lower()
    last = run.history[-1]
    exact = f"{100 * last['exact_match']:.0f}"
    loss = last["loss"]
    if last["exact_match"] >= 0.5:
        key = "check_l14_break_not_broken_seen" if diagnosis == "c" else (
            "check_l14_break_not_broken")
        return wrong(key, exact=exact)
    happened = "a" if not loss < 0.3 else "b"  # a NaN loss counts as high
    if diagnosis == happened:
        key = "check_l14_break_lr" if happened == "a" else "check_l14_break_data"
        return right("check_l14_break_right", explanation=t(key, loss=f"{loss:.3f}",
                                                             exact=exact))
    return wrong("check_l14_break_wrong", name=name)
