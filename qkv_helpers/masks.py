"""Masks: which keys each query may look at.

The convention is PyTorch's boolean ``attn_mask``: **True = may attend**.
"""

from __future__ import annotations

import numpy as np

from ._checks import size_int

__all__ = ["causal_mask"]


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
    n_q = size_int(n_q, "n_q", 2**20, "a mask row per query")
    n_k = n_q if n_k is None else size_int(n_k, "n_k", 2**20, "a mask column per key")
    if n_q * n_k > 2**32:
        raise ValueError(f"n_q · n_k must be at most 2**32 entries for a mask held in memory, "
                         f"got n_q = {n_q}, n_k = {n_k}")
    if n_k < n_q:
        raise ValueError(
            f"n_k must be at least n_q (the queries are the last n_q of the n_k positions), "
            f"got n_q = {n_q}, n_k = {n_k}: a mask of shape ({n_q}, {n_k}) would leave "
            f"query rows with no key"
        )
    return np.tri(n_q, n_k, k=n_k - n_q, dtype=bool)  # (n_q, n_k)
