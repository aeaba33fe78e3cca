"""Lesson 12's exercise checks."""

from __future__ import annotations

import numpy as np

from ._answers import _close_number, _number, _show, close_but_not_right
from ._feedback import Feedback, never_raises, right, wrong


def _rope_score(example, query_token: str, m: int, key_token: str, n: int,
                rows=None) -> float:
    """The dot product of ``query_token``'s query turned for position ``m`` and
    ``key_token``'s key turned for ``n`` (``rows``: other (q, k) rows, for the slips)."""
    from ...positions import apply_rope

    q = example.q[example.index(query_token)][None, :]  # (1, d_k)
    k = example.k[example.index(key_token)][None, :]  # (1, d_k)
    if rows is not None:
        q, k = (r[None, :] for r in rows)
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
    >>> check_rope_score(2.2, ex, **args).key  # the printed 2.2 for 2.2000885...
    'check_close'
    >>> check_rope_score(np.array([[2.2000885]]), ex, **args).key  # a (1, 1) array
    'check_l12_one_by_one'
    """
    expected = _rope_score(example, query_token, query_position, key_token, key_position)
    if isinstance(answer, np.ndarray) and answer.ndim > 0 and answer.size == 1:
        # apply_rope(q[None], [7]) @ apply_rope(k[None], [3]).T is a (1, 1) array
        return wrong("check_l12_one_by_one", name=name, shape=answer.shape)
    if (isinstance(answer, np.ndarray) and answer.dtype.kind in "iuf"
            and answer.size == example.q.shape[-1] > 1
            and _close_number(float(answer.sum()), expected, 1e-6)):
        # q_cat * k_sat: the products of the dot product, one per dimension, not yet added
        return wrong("check_l12_not_summed", name=name, shape=answer.shape)
    got = _number(answer, name)
    if isinstance(got, Feedback):
        return got
    if _close_number(got, expected, 1e-6):
        return right(name=name)
    root = float(np.sqrt(example.q.shape[-1]))
    m, n = query_position, key_position
    q, k = example.q[example.index(query_token)], example.k[example.index(key_token)]
    slips = [  # (what the answer would be, message key), most telling first
        (expected / root, "check_l12_scaled"),
        (_rope_score(example, query_token, n, key_token, m), "check_l12_swapped"),
        (float(q @ k), "check_l12_not_rotated"),
        (float(q @ k) / root, "check_l12_not_rotated"),
        (_rope_score(example, query_token, m, key_token, 0), "check_l12_one_rotated"),
        (_rope_score(example, query_token, 0, key_token, n), "check_l12_one_rotated"),
        (_rope_score(example, query_token, m, key_token, n,
                     rows=(example.q[example.index(key_token)],
                           example.k[example.index(query_token)])), "check_l12_tokens_swapped"),
        (_rope_score(example, query_token, m, key_token, n,
                     rows=(q, example.q[example.index(key_token)])), "check_l12_query_as_key"),
    ]
    for value, key in slips:
        if not _close_number(value, expected, 1e-6) and _close_number(got, value, 1e-6):
            return wrong(key, name=name, root=f"{root:.4g}", query_token=query_token,
                         key_token=key_token)
    close = close_but_not_right(got, expected, name)
    if close is not None:
        return close
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
    if got == query_position - key_position:  # m − n, not the key's position n
        return wrong("check_l12_distance_not_position", name=name, distance=got,
                     new_query_position=new_query_position)
    return wrong("check_wrong_value", name=name, got=_show(got))
