"""Lesson 12's exercise checks."""

from __future__ import annotations

from ._answers import _close_number, _number, _show
from ._feedback import Feedback, never_raises, right, wrong


def _rope_score(example, query_token: str, m: int, key_token: str, n: int) -> float:
    from ..positions import apply_rope

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
