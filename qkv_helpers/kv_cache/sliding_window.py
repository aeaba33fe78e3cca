"""A KV cache that keeps only the last ``window`` tokens (lesson 13): memory bounded by it.

Sliding-window attention (Mistral, Gemma 2) lets each query see only the last ``window``
positions (:func:`~qkv_helpers.sliding_window_mask`); a decoder then needs to keep only
those keys and values.
"""

from __future__ import annotations

import numpy as np

from .. import _validate as validate
from .._text import t

__all__ = ["SlidingWindowKVCache"]


class SlidingWindowKVCache:
    """A KV cache that keeps only the last ``window`` tokens: memory bounded by the window.

    A ring of ``window`` slots per head; token ``t`` goes to slot ``t mod window``,
    overwriting the token ``window`` positions before it, which no later query may see.

    >>> cache = SlidingWindowKVCache(n_heads=1, head_dim=1, window=3)
    >>> for t in range(5):
    ...     cache.append(np.full((1, 1, 1), float(t)), np.zeros((1, 1, 1)))
    >>> cache.keys.ravel(), len(cache), cache.tokens_seen
    (array([2., 3., 4.]), 3, 5)
    """

    def __init__(self, n_heads: int, head_dim: int, window: int, dtype=np.float64):
        self.n_heads = validate.integer(n_heads, "n_heads", 1)
        self.head_dim = validate.integer(head_dim, "head_dim", 1)
        self.window = validate.integer(window, "window", 1)
        self.dtype = validate.float_dtype(dtype)
        self._k = np.zeros((self.n_heads, self.window, self.head_dim), self.dtype)
        self._v = np.zeros_like(self._k)
        self.tokens_seen = 0

    def __len__(self) -> int:
        return min(self.tokens_seen, self.window)

    def append(self, k, v) -> None:
        """Keep one token's ``k``, ``v`` (``(n_heads, 1, head_dim)``), forgetting the oldest."""
        k, v = validate.array(k, "k", min_ndim=0, bools=False, empty=False), validate.array(v, "v",
                              min_ndim=0, bools=False, empty=False)
        for name, a in (("k", k), ("v", v)):
            if a.shape != (self.n_heads, 1, self.head_dim):
                raise ValueError(t("err_window_kv_shape", name=name, n_heads=self.n_heads,
                                   head_dim=self.head_dim, got=a.shape))
        slot = self.tokens_seen % self.window
        self._k[:, slot] = k[:, 0]
        self._v[:, slot] = v[:, 0]
        self.tokens_seen += 1

    def _in_order(self, x: np.ndarray) -> np.ndarray:
        n = len(self)
        if self.tokens_seen <= self.window:
            return x[:, :n].copy()  # a copy: the next appends overwrite these slots
        start = self.tokens_seen % self.window  # the oldest kept token's slot
        return np.concatenate([x[:, start:], x[:, :start]], axis=1)  # (n_heads, window, head_dim)

    @property
    def keys(self) -> np.ndarray:
        """The kept keys, oldest first, ``(n_heads, len, head_dim)``: a copy (the slots are
        reused as the window slides)."""
        return self._in_order(self._k)

    @property
    def values(self) -> np.ndarray:
        """The kept values, oldest first, ``(n_heads, len, head_dim)``: a copy."""
        return self._in_order(self._v)

    @property
    def nbytes(self) -> int:
        """Bytes of the ring, ``2 · n_heads · window · head_dim · itemsize``, for any length."""
        return self._k.nbytes + self._v.nbytes
