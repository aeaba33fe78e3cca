"""``t(key, **fields)`` for the math modules: a message in the learner's language.

Every text of the course (errors, labels, feedback) is in :mod:`qkv_helpers.lang`, a table
of some 1,600 lines. The math modules import this ``t`` instead: it loads ``lang`` the first
time a text is needed (an error raised, a label drawn), so ``import qkv_helpers`` does not.

    >>> from qkv_helpers._text import t
    >>> from qkv_helpers.lang import set_language
    >>> set_language("en"); t("err_online_state").split()[:3]
    ['state', 'must', 'hold']
"""

from __future__ import annotations


def t(key: str, **fields) -> str:
    """The text for ``key`` in the current language: :func:`qkv_helpers.lang.t`."""
    from .lang import t as lang_t

    return lang_t(key, **fields)
