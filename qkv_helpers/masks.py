"""Masks: which keys each query may look at.

The convention is PyTorch's boolean ``attn_mask``: **True = may attend**.
"""

from __future__ import annotations

import numpy as np

from . import _validate as validate
from ._text import t

__all__ = ["causal_mask", "sliding_window_mask"]


@validate.by(validate.mask_sizes)
def causal_mask(n_q: int, n_k: int | None = None) -> np.ndarray:
    """The causal mask of a decoder: each query sees its own position and earlier ones.

    Parameters
    ----------
    n_q : int
        Number of queries.
    n_k : int, optional
        Number of keys, at least ``n_q``; defaults to ``n_q``. With ``n_k > n_q`` the
        queries are the *last* ``n_q`` positions, as when a decoder with a KV cache
        feeds only its new tokens: query ``i`` sits at position ``n_k - n_q + i``.

    Returns
    -------
    numpy.ndarray of bool, shape (n_q, n_k)
        True where the query may attend to the key.

    Examples
    --------
    >>> causal_mask(3).astype(int)
    array([[1, 0, 0],
           [1, 1, 0],
           [1, 1, 1]])
    >>> causal_mask(1, 4).astype(int)     # one new token, three cached before it
    array([[1, 1, 1, 1]])
    >>> causal_mask(2, 4).astype(int)
    array([[1, 1, 1, 0],
           [1, 1, 1, 1]])
    """
    return np.tri(n_q, n_k, k=n_k - n_q, dtype=bool)  # (n_q, n_k)


def sliding_window_mask(n_q: int, n_k: int | None = None, window: int | None = None) -> np.ndarray:
    """A causal mask that also forgets: each query sees only the last ``window`` positions.

    Query ``i`` sits at position ``p = n_k - n_q + i`` (the last ``n_q`` positions, as in
    :func:`causal_mask`) and may attend to key ``j`` when ``0 <= p - j < window``: itself
    and the ``window - 1`` positions before it. With ``window >= n_k`` it is the causal mask.

    Parameters
    ----------
    n_q : int
        Number of queries.
    n_k : int, optional
        Number of keys, at least ``n_q``; defaults to ``n_q``.
    window : int
        How many positions each query sees, itself included (at least 1). Required.

    Returns
    -------
    numpy.ndarray of bool, shape (n_q, n_k)
        True where the query may attend to the key.

    Examples
    --------
    >>> sliding_window_mask(5, window=2).astype(int)
    array([[1, 0, 0, 0, 0],
           [1, 1, 0, 0, 0],
           [0, 1, 1, 0, 0],
           [0, 0, 1, 1, 0],
           [0, 0, 0, 1, 1]])
    >>> sliding_window_mask(1, 6, window=3).astype(int)   # one new token, five cached
    array([[0, 0, 0, 1, 1, 1]])
    """
    if window is None:
        raise TypeError(t("err_window_needed"))
    window = validate.integer(window, "window", 1)
    causal = causal_mask(n_q, n_k)  # (n_q, n_k), checks n_q and n_k
    n_q, n_k = causal.shape
    # Keys at or before p - window are too old: the lower triangle from that diagonal on.
    # (A window longer than n_k sees everything a causal mask does: hold it at n_k + 1.)
    too_old = np.tri(n_q, n_k, k=n_k - n_q - min(window, n_k + 1), dtype=bool)  # (n_q, n_k)
    return causal & ~too_old  # (n_q, n_k)
