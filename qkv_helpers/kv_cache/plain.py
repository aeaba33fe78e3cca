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

from .. import _validate as validate
from .._text import t

__all__ = ["CacheView", "KVCache"]


class KVCache:
    """One decoder layer's cached keys and values, shaped ``(n_heads, tokens, head_dim)``.

    Storage is preallocated for ``capacity`` tokens. Appending writes only the new
    tokens into the free space (a slice assignment): it costs O(new tokens), never a
    copy of what is already kept. When an append does not fit, the storage doubles
    (at least) and the kept keys and values are copied over once; over many appends
    that copy costs O(1) per token on average.

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

    __slots__ = ("_k", "_keys", "_len", "_v", "_values", "dtype", "head_dim", "n_heads")

    def __init__(self, n_heads: int, head_dim: int, capacity: int, dtype=np.float32):
        self.n_heads = validate.integer(n_heads, "n_heads", 1, 2**12, why=t("err_why_head_keys"))
        self.head_dim = validate.integer(head_dim, "head_dim", 1, 2**14,
                                         why=t("err_why_key_numbers"))
        capacity = validate.integer(capacity, "capacity", 1, 2**24, why=t("err_why_reserved"))
        self.dtype = validate.float_dtype(dtype)
        shape = (self.n_heads, capacity, self.head_dim)
        self._use(np.empty(shape, self.dtype), np.empty(shape, self.dtype))
        self._len = 0  # tokens kept: _k[:, :_len] and _v[:, :_len]

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
        """The kept keys, ``(n_heads, len, head_dim)``: a read-only view, not a copy.

        Writing into it is an error that says what to do instead (it would change the
        cache; see :class:`CacheView`). A view kept for later never changes: appends
        write after it, and :meth:`clear` starts new storage.
        """
        return self._keys[:, : self._len]

    @property
    def values(self) -> np.ndarray:
        """The kept values, ``(n_heads, len, head_dim)``: a read-only view, as :attr:`keys`."""
        return self._values[:, : self._len]

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
            The new tokens' keys and values, of the cache's dtype, finite.
        """
        self._check(k, v)
        start = self._len
        stop = start + k.shape[1]
        if stop > self.capacity:
            self._grow(max(stop, 2 * self.capacity))  # at least double: O(1) per token
        self._k[:, start:stop] = k  # write the new tokens only
        self._v[:, start:stop] = v
        self._len = stop

    def _grow(self, capacity: int) -> None:
        """New storage for ``capacity`` tokens, with the kept tokens copied over once."""
        shape = (self.n_heads, capacity, self.head_dim)
        k, v = np.empty(shape, self.dtype), np.empty(shape, self.dtype)
        k[:, : self._len] = self.keys
        v[:, : self._len] = self.values
        self._use(k, v)

    def _check(self, k, v) -> None:
        """Raise the error that says what is wrong with ``k`` or ``v``, if anything is."""
        shape = (self.n_heads, "new_tokens", self.head_dim)
        for name, a in (("k", k), ("v", v)):
            if not isinstance(a, np.ndarray):
                raise TypeError(t("err_kv_type", name=name, shape=shape,
                                  got=type(a).__name__))
            validate.not_masked(a, name)
            if a.ndim != 3 or a.shape[0] != self.n_heads or a.shape[2] != self.head_dim:
                raise ValueError(t("err_kv_shape", name=name, n_heads=self.n_heads,
                                   head_dim=self.head_dim, got=a.shape))
            if a.dtype != self.dtype:
                raise TypeError(t("err_kv_dtype", name=name, dtype=self.dtype, got=a.dtype))
        if k.shape != v.shape:
            raise ValueError(t("err_kv_same_shape", k=k.shape, v=v.shape))
        validate.require_finite(k, "k")
        validate.require_finite(v, "v")

    def clear(self) -> None:
        """Forget every kept token; new storage of the same capacity is reserved, so that
        views of the old keys and values, if any were kept, keep showing them."""
        self._use(np.empty_like(self._k), np.empty_like(self._v))
        self._len = 0

    def _use(self, k: np.ndarray, v: np.ndarray) -> None:
        """Keep keys and values in the storage ``k``, ``v`` (``(n_heads, capacity, head_dim)``
        each), which the cache writes into; :attr:`keys` and :attr:`values` slice read-only
        views of it, made once here (slicing a read-only view is cheaper than marking
        each slice read-only)."""
        self._k, self._v = k, v
        self._keys, self._values = _read_only(k, "keys"), _read_only(v, "values")


class CacheView(np.ndarray):
    """What :attr:`KVCache.keys` / :attr:`~KVCache.values` hand out: a numpy array, a
    read-only view of the cache's storage, whose writes raise the course's error.

    Why a subclass: numpy refuses a write into a read-only array with its own message
    ("assignment destination is read-only"), in English and without saying what to do.
    The hooks below raise ours instead, naming the cache; everything else is numpy's own
    (a slice, ``.T`` or ``reshape`` of a view is a read-only ``CacheView`` again; results of
    arithmetic are plain numpy arrays). Handing out copies would make writes harmless, but
    cost O(tokens) at every decoding step; the views cost nothing measurable (the decoder
    itself computes on them as plain arrays, see :func:`~qkv_helpers.block.project`).

    Caught: ``view[...] = x`` (``__setitem__``) and a ufunc writing into the view, which is
    what ``view += x``, ``np.add(a, b, out=view)`` and ``np.add.at(view, i, x)`` are
    (``__array_ufunc__``). Not caught, numpy's message stays: ``np.copyto(view, x)``,
    ``view.fill(x)``, ``view.sort()``, and writes into ``np.asarray(view)`` (a plain array).
    """

    part = "keys"  # which of the cache's arrays it looks into: "keys" or "values"

    def __array_finalize__(self, parent):  # a slice of a view is a view of the same part
        self.part = getattr(parent, "part", "keys")

    def __repr__(self) -> str:  # printed as the numpy array it is
        return repr(self.view(np.ndarray))

    def __setitem__(self, index, value) -> None:
        _refuse_read_only(self)
        super().__setitem__(index, value)

    def __array_ufunc__(self, ufunc, method, *inputs, out=None, **kwargs):
        """``ufunc`` on plain arrays; refused if it writes into a read-only view."""
        for target in (*(out or ()), *(inputs[:1] if method == "at" else ())):
            _refuse_read_only(target)
        if out is not None:
            kwargs["out"] = tuple(_plain(target) for target in out)
        return getattr(ufunc, method)(*(_plain(a) for a in inputs), **kwargs)


def _refuse_read_only(target) -> None:
    """Raise the course's error if ``target`` is a read-only :class:`CacheView`."""
    if isinstance(target, CacheView) and not target.flags.writeable:
        raise ValueError(t("err_cache_view_write", part=target.part))


def _plain(a):
    """``a`` as a plain numpy array if it is a :class:`CacheView` (no copy)."""
    return a.view(np.ndarray) if isinstance(a, CacheView) else a


def _read_only(view: np.ndarray, part: str) -> CacheView:
    """``view`` as a read-only :class:`CacheView` (the storage it looks into stays writable
    for the cache)."""
    view = view.view(CacheView)
    view.part = part
    view.flags.writeable = False
    return view
