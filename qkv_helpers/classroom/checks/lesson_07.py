"""Lesson 07's exercise checks."""

from __future__ import annotations

import numbers

import numpy as np

from ._answers import _real_array
from ._feedback import Feedback, never_raises, not_answered, right, unanswered, wrong
from ._source import assigning_cell, depends_on


def _uses_causal_mask(name: str) -> bool:
    """Whether the learner's cell that assigned ``name`` computes it with ``causal_mask``."""
    tree = assigning_cell(name)
    return tree is not None and depends_on(tree, name, calls={"causal_mask"})


@never_raises
def check_changed_rows(answer, example, position: int, name: str = "my_rows") -> Feedback:
    """Lesson 07: which output rows of masked self-attention change when the token at
    ``position`` changes: the learner's list of row indices, in any order.

    >>> from qkv_helpers import running_example
    >>> ex = running_example()
    >>> check_changed_rows([3, 4, 5, 6], ex, 3).ok, check_changed_rows([3], ex, 3).ok
    (True, False)
    """
    from ...encoder_decoder import change_future_token

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
    >>> check_causal_mask(np.tri(2, 5, dtype=bool), 2, 5).key
    'check_l07_top_left'

    The exercise says "not ``qk.causal_mask``": when the cell that assigned the answer
    can be read (a notebook's cell), an answer computed with it is refused.
    """
    from ...masks import causal_mask

    got = _real_array(answer, name)
    if isinstance(got, Feedback):
        return got
    if _uses_causal_mask(name):
        return wrong("check_l07_used_causal_mask", name=name)
    if got.shape == (n_k, n_k) and n_k != n_q:
        return wrong("check_l07_square", name=name, got=got.shape, n_q=n_q, needed=(n_q, n_k))
    if got.shape != (n_q, n_k):
        return wrong("check_shape", name=name, got=got.shape, needed=(n_q, n_k))
    if not np.isin(got, (0, 1)).all():
        return wrong("check_l07_not_bool", name=name)
    got = got.astype(bool)
    expected = causal_mask(n_q, n_k)  # (n_q, n_k)
    if (got == ~expected).all():
        return wrong("check_l07_inverted", name=name)
    if n_q != n_k and (got == np.tri(n_q, n_k, dtype=bool)).all():
        return wrong("check_l07_top_left", name=name, first=n_k - n_q, last=n_k - 1)
    for row, col in np.argwhere(got != expected):
        key = "check_l07_sees_future" if got[row, col] else "check_l07_hides_past"
        return wrong(key, name=name, row=int(row), col=int(col),
                     position=int(n_k - n_q + row))
    return right(name=name)
