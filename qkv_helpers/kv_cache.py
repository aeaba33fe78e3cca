"""The KV cache: the keys and values a decoder layer has already computed, kept for reuse.

When a decoder generates token by token, each new token's query attends to the keys
and values of every earlier token. Those keys and values do not change once computed,
so a decoder keeps them and, at each step, computes K and V only for the new token::

    step t:   k_new, v_new = project_kv(x_new)     # (n_heads, 1, head_dim) each
              cache.append(k_new, v_new)            # now len(cache) == t
              attention(q_new, cache.keys, cache.values)

The cache does **not** save memory: it spends memory to save compute. It holds, per
layer, ``2 · n_heads · head_dim · tokens · bytes_per_value`` bytes, growing linearly
with every token kept; for a whole model that is::

    bytes = 2 · layers · kv_heads · head_dim · tokens · batch · bytes_per_value

What shrinks it is fewer K/V heads (multi-query / grouped-query attention), keeping
only a window of recent tokens, or storing the values in a lower precision.
"""

from __future__ import annotations

import numpy as np

from ._checks import positive_int

__all__ = ["KVCache"]

_ndarray = np.ndarray  # looked up at every append


class KVCache:
    """One decoder layer's cached keys and values, shaped ``(n_heads, tokens, head_dim)``.

    Storage is preallocated for ``capacity`` tokens. Appending writes only the new
    tokens into the free space: it costs O(new tokens), never a copy of what is
    already kept. When an append does not fit, the storage grows geometrically (to at
    least twice its capacity) and the kept keys and values are copied over once; over
    many appends that copy costs O(1) per token on average.

    Memory is what the cache costs: :attr:`nbytes` are the bytes holding the kept keys
    and values, ``2 · len · n_heads · head_dim · itemsize``; :attr:`allocated_nbytes`
    are the bytes reserved, used or not, ``2 · capacity · n_heads · head_dim · itemsize``.

    Parameters
    ----------
    n_heads : int
        Number of key/value heads.
    head_dim : int
        Width of each head's keys and values.
    capacity : int
        Number of tokens to reserve space for.
    dtype : numpy float dtype
        Dtype of the stored keys and values (float32 by default); appended arrays must
        have it.

    Examples
    --------
    >>> cache = KVCache(n_heads=2, head_dim=4, capacity=8)
    >>> k = np.ones((2, 3, 4), np.float32)        # (n_heads, new_tokens, head_dim)
    >>> cache.append(k, 2 * k)                    # a 3-token prompt
    >>> cache.append(k[:, :1], 2 * k[:, :1])      # then one token at a time
    >>> len(cache), cache.keys.shape, cache.values.shape
    (4, (2, 4, 4), (2, 4, 4))
    >>> cache.nbytes                              # 2 · 4 tokens · 2 heads · 4 · 4 bytes
    256
    >>> cache.capacity, cache.allocated_nbytes    # reserved for 8 tokens
    (8, 512)
    """

    __slots__ = ("_capacity", "_k", "_k_tokens", "_len", "_token_size", "_v", "_v_tokens",
                 "dtype", "head_dim", "n_heads")

    def __init__(self, n_heads: int, head_dim: int, capacity: int, dtype=np.float32):
        self.n_heads = positive_int(n_heads, "n_heads")
        self.head_dim = positive_int(head_dim, "head_dim")
        capacity = positive_int(capacity, "capacity")
        self.dtype = np.dtype(dtype)
        if self.dtype.kind != "f":
            raise TypeError(f"dtype must be a float dtype, got {self.dtype}")
        self._len = 0
        self._token_size = self.n_heads * self.head_dim  # numbers in one token's k or v
        self._allocate(capacity)

    def _allocate(self, capacity: int) -> None:
        """New storage for ``capacity`` tokens, with the kept tokens copied over."""
        shape = (self.n_heads, capacity, self.head_dim)
        old = getattr(self, "_k", None), getattr(self, "_v", None)
        self._k, self._v = np.empty(shape, self.dtype), np.empty(shape, self.dtype)
        if self._len:
            self._k[:, : self._len] = old[0][:, : self._len]
            self._v[:, : self._len] = old[1][:, : self._len]
        # The same storage seen token by token, (capacity, n_heads, 1, head_dim): slot t
        # has exactly the shape of one new token's k, so storing it is `_k_tokens[t] = k`,
        # which numpy does with less work than the slice `_k[:, t:t+1] = k`.
        self._capacity = capacity
        self._k_tokens = self._k.swapaxes(0, 1)[:, :, None]
        self._v_tokens = self._v.swapaxes(0, 1)[:, :, None]

    def __len__(self) -> int:
        return self._len

    def __repr__(self) -> str:
        return (f"KVCache(n_heads={self.n_heads}, head_dim={self.head_dim}, len={self._len}, "
                f"capacity={self.capacity}, dtype={self.dtype})")

    @property
    def capacity(self) -> int:
        """Number of tokens the storage has room for before it must grow."""
        return self._k.shape[1]

    @property
    def keys(self) -> np.ndarray:
        """The kept keys, ``(n_heads, len, head_dim)``: a view, not a copy."""
        return self._k[:, : self._len]

    @property
    def values(self) -> np.ndarray:
        """The kept values, ``(n_heads, len, head_dim)``: a view, not a copy."""
        return self._v[:, : self._len]

    @property
    def nbytes(self) -> int:
        """Bytes holding the kept keys and values: ``2 · len · n_heads · head_dim · itemsize``."""
        return 2 * self._len * self.n_heads * self.head_dim * self.dtype.itemsize

    @property
    def allocated_nbytes(self) -> int:
        """Bytes reserved for keys and values: ``2 · capacity · n_heads · head_dim · itemsize``."""
        return self._k.nbytes + self._v.nbytes

    def append(self, k, v) -> None:
        """Keep the keys and values of new tokens, after those already kept.

        Parameters
        ----------
        k, v : numpy.ndarray, shape (n_heads, new_tokens, head_dim)
            The new tokens' keys and values, of the cache's dtype.
        """
        # The usual case, one token of a plain array of the cache's dtype, in a few cheap
        # tests; anything else (a subclass, an equal but distinct dtype object, several
        # tokens) goes through the full checks. Of the 3-D shapes with n_heads·head_dim
        # numbers, (n_heads, 1, head_dim) is the only one numpy will store in a token's
        # slot (the others cannot broadcast to it: numpy raises), so numpy checks the shape.
        dtype = self.dtype
        if (type(k) is _ndarray and type(v) is _ndarray and k.ndim == 3 == v.ndim
                and k.size == self._token_size == v.size
                and k.dtype is dtype and v.dtype is dtype):
            try:
                self._append_one(k, v)
            except ValueError:
                self._check(k, v)  # raises the error that says what is wrong
                raise
        else:
            self._check(k, v)
            self._append(k, v)

    def _append_one(self, k: np.ndarray, v: np.ndarray) -> None:
        """Keep one token's ``k`` and ``v``, each ``(n_heads, 1, head_dim)``; no checks."""
        t = self._len
        if t == self._capacity:
            self._allocate(2 * t)
        self._k_tokens[t] = k
        self._v_tokens[t] = v
        self._len = t + 1

    def _append(self, k: np.ndarray, v: np.ndarray) -> None:
        """:meth:`append` without the checks, for the decoder: any number of tokens."""
        if k.shape[1] == 1:
            self._append_one(k, v)
            return
        start = self._len
        stop = start + k.shape[1]
        if stop > self._capacity:
            self._allocate(max(stop, 2 * self._capacity))  # at least double the capacity
        self._k[:, start:stop] = k
        self._v[:, start:stop] = v
        self._len = stop

    def _check(self, k, v) -> None:
        """Raise the error that says what is wrong with ``k`` or ``v``, if anything is."""
        shape = (self.n_heads, "new_tokens", self.head_dim)
        for name, a in (("k", k), ("v", v)):
            if not isinstance(a, np.ndarray):
                raise TypeError(f"{name} must be a numpy array of shape {shape}, "
                                f"got {type(a).__name__}")
            if a.ndim != 3 or a.shape[0] != self.n_heads or a.shape[2] != self.head_dim:
                raise ValueError(
                    f"{name} must have shape (n_heads, new_tokens, head_dim) = "
                    f"({self.n_heads}, new_tokens, {self.head_dim}), got {a.shape}"
                )
            if a.dtype != self.dtype:
                raise TypeError(
                    f"{name} must have the cache's dtype {self.dtype}, got {a.dtype} "
                    f"(convert with {name}.astype(np.{self.dtype}))"
                )
        if k.shape != v.shape:
            raise ValueError(
                f"k and v must have the same shape (n_heads, new_tokens, head_dim): "
                f"k has shape {k.shape}, v has shape {v.shape}"
            )

    def clear(self) -> None:
        """Forget every kept token (the reserved storage stays)."""
        self._len = 0
