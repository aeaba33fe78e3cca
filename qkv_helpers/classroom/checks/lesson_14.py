"""The exercise checks of lesson 14 (the translator trained in numpy).

Like every check of the course they never raise (``never_raises``) and give feedback in
the lesson's language; none accepts an answer already on screen.
"""

from __future__ import annotations

import math
import sys

import numpy as np

from ... import backprop as _backprop
from ...lang import t
from ...measure import attention_backward as _attention_backward
from ...toy_corpus import Pair, Vocabulary
from ...translator import TRAINING_SETTINGS, TrainingRun, Translator, make_batch
from ._feedback import (
    Feedback,
    call_watched,
    never_raises,
    not_answered,
    right,
    unanswered,
    wrong,
)
from .lesson_04 import _is_package_function

__all__ = ["check_attention_backward", "check_break_it", "check_row_attention"]


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


def _relative_error(a, b) -> float:
    denom = np.linalg.norm(a) + np.linalg.norm(b)
    return 0.0 if denom == 0 else float(np.linalg.norm(a - b) / denom)


def _mistaken_backwards(q, k, v, d_out) -> dict:
    """``(d_q, d_k, d_v)`` as the usual mistakes give them, each named by its message key.

    The scale 1/√d left out of d_q and d_k; the Jacobian's second term left out
    (``d_s = p ⊙ d_p``); the softmax's Jacobian left out altogether (``d_s = d_p``).
    """
    scale = 1 / math.sqrt(len(q))
    s = k @ q * scale  # (n,)
    p = np.exp(s - s.max())
    p /= p.sum()  # (n,)
    d_v = np.outer(p, d_out)  # (n, d_v)
    d_p = v @ d_out  # (n,)
    d_s = p * (d_p - p @ d_p)  # (n,)
    return {
        "check_l14_backward_no_scale": (d_s @ k, np.outer(d_s, q), d_v),
        "check_l14_backward_no_jacobian_term": (
            (p * d_p) @ k * scale, np.outer(p * d_p, q) * scale, d_v),
        "check_l14_backward_no_softmax": (d_p @ k * scale, np.outer(d_p, q) * scale, d_v),
    }


def _read_gradients(got, shapes, name):
    """The three arrays a learner's function returned, or the Feedback that says why not."""
    if got is None:  # a function that ends without return
        return wrong("check_l14_backward_returned_none", name=name)
    if isinstance(got, (np.ndarray, np.generic, int, float)):
        return wrong("check_l14_backward_one_array", name=name, shape=np.shape(got))
    if not isinstance(got, (tuple, list)):
        return wrong("check_l14_backward_not_three", name=name, kind=type(got).__name__)
    if len(got) != 3:
        return wrong("check_l14_backward_count", name=name, count=len(got))
    arrays = []
    for which, g in zip(("d_q", "d_k", "d_v"), got):
        try:
            array = np.asarray(g, dtype=float)
        except (TypeError, ValueError):
            return wrong("check_l14_backward_not_numbers", name=name, which=which,
                         kind=type(g).__name__)
        arrays.append(array)
    if [a.shape for a in arrays] != shapes:
        return wrong("check_l14_backward_shape", name=name, q=shapes[0], k=shapes[1],
                     v=shapes[2], got=", ".join(str(a.shape) for a in arrays))
    return arrays


@never_raises
def check_attention_backward(fn, name: str = "my_backward") -> Feedback:
    """``fn(q, k, v, d_out)`` → ``(d_q, d_k, d_v)`` for one query, against finite differences.

    Tried on two new cases (queries the lesson never shows), float64: each gradient
    within 1e-6 relative error by norm. A function still returning ``...`` is not
    answered yet; one returning None forgot its ``return``. The usual mistakes (the scale
    1/√d left out, the Jacobian's second term left out) are named.

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
            got, used = call_watched(fn, (q.copy(), k.copy(), v.copy(), d_out.copy()),
                                      _package_backward_code())
        except Exception as error:  # noqa: BLE001 - the learner's function
            return wrong("check_l14_backward_raised", name=name, n=n,
                         error=f"{type(error).__name__}: {error}"[:160])
        if used:  # the package's own backward (or this checker's differences) did the work
            return wrong("check_l14_backward_package", name=name)
        if got is Ellipsis:  # the cell's ``return ...`` still there
            return unanswered()
        got = _read_gradients(got, [q.shape, k.shape, v.shape], name)
        if isinstance(got, Feedback):
            return got
        expected = _numeric_gradients(q, k, v, d_out)
        errors = [_relative_error(g, e) for g, e in zip(got, expected)]
        if all(e <= 1e-6 for e in errors):
            continue
        for key, mistake in _mistaken_backwards(q, k, v, d_out).items():
            if all(_relative_error(g, m) <= 1e-6 for g, m in zip(got, mistake)):
                return wrong(key, name=name, root=f"{math.sqrt(d):.2f}", d=d)
        for which, err in zip(("d_q", "d_k", "d_v"), errors):
            if not err <= 1e-6:  # also NaN
                return wrong("check_l14_backward_wrong", name=name, which=which,
                             err=f"{err:.1e}")
    dq, dk, dv = (f"{e:.0e}" for e in errors)
    return right("check_l14_backward_right", name=name, dq=dq, dk=dk, dv=dv)


@never_raises
def check_row_attention(answer, model, pair, row, head="mean",
                        name: str = "my_word") -> Feedback:
    """Which source token (an English word or ``"<eos>"``) the cross-attention row of the
    Korean token ``row`` (a token of ``pair.korean``, e.g. ``"뒤에"``) peaks on
    (teacher-forced), for ``pair``: in head ``head``, or heads averaged (``"mean"``).

    A wrong answer is told only that it is wrong, never which token it is. A right one that
    is not the word the row translates is told, for one head, how much of that word the token
    took in the encoder's self-attention (heads averaged), against an even spread over the
    sentence's source tokens: it "moved part of the word" only at twice the even share or more.

    >>> from qkv_helpers.toy_corpus import build_sentence
    >>> from qkv_helpers.translator import load_trained
    >>> model = load_trained()[0]
    >>> pair = build_sentence("duck", "lay", "in", "bag", "white")
    >>> check_row_attention("lay", model, pair, "누웠다").ok
    True
    >>> check_row_attention("bag", model, pair, "누웠다").ok
    False
    """
    if not_answered(answer):
        return unanswered()
    if not isinstance(model, Translator) or not isinstance(pair, Pair) or not (
            head == "mean" if isinstance(head, str) else
            isinstance(head, int) and 0 <= head < model.n_heads) or not (
            isinstance(row, str) and row in pair.korean):
        return wrong("check_l14_row_setup")
    source = [*pair.english, "<eos>"]
    words = list(dict.fromkeys(source))
    if not isinstance(answer, str):
        return wrong("check_l14_row_not_word", name=name, words=", ".join(words))
    if answer.strip().lower() not in words:  # quoted, but not a token of this sentence
        return wrong("check_l14_row_not_in_sentence", name=name, guess=answer.strip()[:40],
                     words=", ".join(words))
    batch = make_batch([pair], Vocabulary())
    maps = model.cross_attention(batch)[0]  # (H, n_tgt, n_src)
    weights = maps.mean(axis=0) if head == "mean" else maps[head]
    i = pair.korean.index(row)  # the Korean token's row
    j, gold = int(weights[i].argmax()), pair.alignment[i]
    one_head = "" if head == "mean" else "_head"
    said = dict(name=name, korean=row, word=source[j], english=source[gold],
                weight=f"{weights[i, j]:.2f}")
    if answer.strip().lower() == source[j]:
        if j == gold:  # the word the row translates: no mixing to tell of
            return right("check_l14_row_right_gold", **said)
        if one_head:  # did the encoder move the gold word into that token? (heads averaged)
            mixed = 0.0
            if model.encoder_self_attention:
                mixed = float(model.forward(batch)[1]["enc.self"].weights[0, :, j, gold].mean())
            even = 1 / len(source)  # the share of each token if the row spread evenly
            return right("check_l14_row_right_head" if mixed >= 2 * even else
                         "check_l14_row_right_head_empty", head=head, mixed=f"{mixed:.2f}",
                         chance=f"{even:.2f}", **said)
        return right("check_l14_row_right", **said)
    return wrong("check_l14_row_wrong" + one_head, name=name, korean=row,
                 guess=answer.strip().lower(), head=head)


@never_raises
def check_break_it(run, diagnosis, name: str = "my_diagnosis") -> Feedback:
    """A training run the learner broke, and what they read from its curves.

    ``diagnosis``: ``"a"`` the loss stalled far above a normal run's (steps too large),
    ``"b"`` the loss went to about 0 but held-out sentences stay wrong (memorised too few
    sentences), ``"c"`` nothing went wrong. A wrong diagnosis is told what to compare, not
    the answer.

    Two runs are not broken, so no diagnosis passes them; the feedback (✏️, still to do)
    says what to change: a run that learned (held-out exact match 95% or more), where
    ``"c"`` is the right reading; and a run with the normal learning rate or a smaller one
    that has not finished learning (too few steps), whose loss was still falling.
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
    memorised = loss < 0.3 and last["exact_match"] < 0.5
    settings = run.settings or {}
    gentle = settings.get("lr", math.inf) <= TRAINING_SETTINGS["lr"]
    if last["exact_match"] >= 0.95:
        if diagnosis == "c":
            return _still_to_do("check_l14_break_not_broken_seen", exact=exact)
        return wrong("check_l14_break_not_broken", exact=exact)
    if gentle and not memorised:  # the normal lr or a smaller one: only stopped too soon
        return _still_to_do("check_l14_break_unfinished", steps=run.steps, lr=f"{settings['lr']:g}",
                            loss=f"{loss:.3f}", exact=exact)
    if last["exact_match"] >= 0.5:
        return wrong("check_l14_break_not_broken", exact=exact)
    happened = "a" if not memorised else "b"  # a NaN loss counts as high
    if diagnosis == happened:
        key = "check_l14_break_lr" if happened == "a" else "check_l14_break_data"
        return right("check_l14_break_right", explanation=t(key, loss=f"{loss:.3f}",
                                                             exact=exact))
    return wrong("check_l14_break_wrong", name=name)


def _still_to_do(key: str, **values) -> Feedback:
    """Neither right nor wrong (✏️): the answer may read the run right, but the run is not
    what the exercise asks for yet."""
    return Feedback(None, t(key, **values), key=key)
