"""A paged KV cache (PagedAttention's idea, from vLLM): keys and values in fixed-size blocks.

A server decoding many requests at once does not know how long each will get. A plain
cache reserves room for ``max_len`` tokens per request up front, and most of it stays
empty. A paged cache cuts one shared pool of memory into blocks of ``block_size`` tokens,
like an operating system's pages: a sequence gets a new block only when its last one is
full, finds its blocks through its **block table** (block number ``i`` of the sequence →
a block of the pool), and gives them back when it is done, for other sequences to reuse.
At most ``block_size − 1`` token slots per sequence stay empty.

    pool keys:   (n_blocks, n_heads, block_size, head_dim)      (values the same)
    sequence 0:  block table [0, 3]      tokens 0..15 in block 0, tokens 16.. in block 3
    sequence 1:  block table [1, 2]
"""

from __future__ import annotations

import numbers

import numpy as np

from .. import _validate as validate
from .._text import t

__all__ = ["PagedKVCache"]


class PagedKVCache:
    """Keys and values of several sequences in one pool of fixed-size blocks.

    Parameters
    ----------
    n_heads : int
        Number of K/V heads.
    head_dim : int
        Width of each head's keys and values.
    block_size : int
        Tokens per block.
    n_blocks : int
        Blocks in the pool; together they hold ``n_blocks · block_size`` tokens.
    dtype : numpy float dtype
        Dtype of the stored keys and values; appended arrays are converted to it
        (float32 by default).

    Examples
    --------
    >>> cache = PagedKVCache(n_heads=2, head_dim=4, block_size=4, n_blocks=8)
    >>> a, b = cache.new_sequence(), cache.new_sequence()
    >>> k = np.ones((2, 6, 4), np.float32)          # (n_heads, new_tokens, head_dim)
    >>> cache.append(a, k, 2 * k)                   # 6 tokens: two blocks
    >>> cache.append(b, k[:, :1], k[:, :1])         # 1 token: one block
    >>> cache.block_table(a), cache.block_table(b)
    ([0, 1], [2])
    >>> cache.keys(a).shape, cache.length(a)
    ((2, 6, 4), 6)
    >>> cache.used_nbytes, cache.reserved_nbytes    # 7 tokens kept; 3 blocks of 4 held
    (448, 768)
    >>> cache.free(a); cache.free_blocks            # a's blocks go back to the pool
    7
    """

    def __init__(self, n_heads: int, head_dim: int, block_size: int, n_blocks: int,
                 dtype=np.float32):
        self.n_heads = validate.integer(n_heads, "n_heads", 1)
        self.head_dim = validate.integer(head_dim, "head_dim", 1)
        self.block_size = validate.integer(block_size, "block_size", 1)
        self.n_blocks = validate.integer(n_blocks, "n_blocks", 1)
        self.dtype = validate.float_dtype(dtype)
        shape = (self.n_blocks, self.n_heads, self.block_size, self.head_dim)
        self._k_pool = np.zeros(shape, self.dtype)  # (n_blocks, n_heads, block_size, head_dim)
        self._v_pool = np.zeros(shape, self.dtype)
        self._free = list(range(self.n_blocks - 1, -1, -1))  # a stack: block 0 comes out first
        self._tables: dict[int, list[int]] = {}  # sequence id -> its blocks, in order
        self._lengths: dict[int, int] = {}  # sequence id -> tokens kept
        self._next_id = 0

    def __repr__(self) -> str:
        return (f"PagedKVCache(n_heads={self.n_heads}, head_dim={self.head_dim}, "
                f"block_size={self.block_size}, n_blocks={self.n_blocks}, "
                f"sequences={len(self._tables)}, free_blocks={self.free_blocks}, "
                f"dtype={self.dtype})")

    # --- sequences -----------------------------------------------------------------

    def new_sequence(self) -> int:
        """Start an empty sequence and return its id (no block is taken yet)."""
        seq = self._next_id
        self._next_id += 1
        self._tables[seq] = []
        self._lengths[seq] = 0
        return seq

    def _check_id(self, seq) -> int:
        if (isinstance(seq, bool) or not isinstance(seq, numbers.Integral)
                or seq not in self._tables):
            raise KeyError(t("err_kv_seq", seq=repr(seq), live=sorted(self._tables)))
        return seq

    @property
    def sequences(self) -> list[int]:
        """The ids of the live sequences."""
        return list(self._tables)

    def length(self, seq_id: int) -> int:
        """Tokens kept for sequence ``seq_id``."""
        return self._lengths[self._check_id(seq_id)]

    def block_table(self, seq_id: int) -> list[int]:
        """The pool blocks of sequence ``seq_id``, in order (a copy)."""
        return list(self._tables[self._check_id(seq_id)])

    @property
    def free_blocks(self) -> int:
        """Blocks of the pool that no sequence holds."""
        return len(self._free)

    def append(self, seq_id: int, k, v) -> None:
        """Keep new tokens' keys and values after those of sequence ``seq_id``.

        ``k``, ``v`` are ``(n_heads, new_tokens, head_dim)``. New blocks are taken from the
        pool as needed. If the pool has too few free blocks, nothing is changed (no token of
        this append is kept) and a MemoryError says how many blocks were needed.
        """
        seq = self._check_id(seq_id)
        k, v = self._check_kv(k, "k"), self._check_kv(v, "v")
        if k.shape != v.shape:
            raise ValueError(t("err_kv_same_shape", k=k.shape, v=v.shape))
        table, length, new = self._tables[seq], self._lengths[seq], k.shape[1]
        needed = -(-(length + new) // self.block_size) - len(table)  # blocks to add
        if needed > len(self._free):
            raise MemoryError(t("err_pool_full", seq=seq, needed=needed,
                                block_size=self.block_size, new=new, free=len(self._free),
                                n_blocks=self.n_blocks))
        for _ in range(needed):
            table.append(self._free.pop())
        done = 0
        while done < new:  # block by block: position → (block, slot)
            position = length + done
            block, slot = table[position // self.block_size], position % self.block_size
            take = min(self.block_size - slot, new - done)  # tokens that fit in this block
            self._k_pool[block, :, slot:slot + take] = k[:, done:done + take]
            self._v_pool[block, :, slot:slot + take] = v[:, done:done + take]
            done += take
        self._lengths[seq] = length + new

    def _check_kv(self, a, name: str) -> np.ndarray:
        arr = validate.array(a, name, min_ndim=0)  # real numbers, finite
        if arr.ndim != 3 or arr.shape[0] != self.n_heads or arr.shape[2] != self.head_dim:
            raise ValueError(t("err_kv_shape", name=name, n_heads=self.n_heads,
                               head_dim=self.head_dim, got=arr.shape))
        with np.errstate(over="ignore"):  # reported just below
            stored = arr.astype(self.dtype, copy=False)
        if not np.isfinite(stored).all():
            raise ValueError(t("err_kv_too_large", name=name, dtype=self.dtype,
                               largest=f"{np.abs(arr).max():g}"))
        return stored

    def _gather(self, pool: np.ndarray, seq_id: int) -> np.ndarray:
        seq = self._check_id(seq_id)
        table, length = self._tables[seq], self._lengths[seq]
        if not table:
            return np.zeros((self.n_heads, 0, self.head_dim), self.dtype)
        blocks = pool[table]  # (blocks, n_heads, block_size, head_dim): a copy
        joined = blocks.transpose(1, 0, 2, 3).reshape(self.n_heads, -1, self.head_dim)
        return joined[:, :length]  # (n_heads, length, head_dim)

    def keys(self, seq_id: int) -> np.ndarray:
        """The keys of sequence ``seq_id`` in order, ``(n_heads, length, head_dim)`` (a copy)."""
        return self._gather(self._k_pool, seq_id)

    def values(self, seq_id: int) -> np.ndarray:
        """The values of sequence ``seq_id`` in order, ``(n_heads, length, head_dim)`` (a copy)."""
        return self._gather(self._v_pool, seq_id)

    def free(self, seq_id: int) -> None:
        """End sequence ``seq_id``: its blocks go back to the pool for other sequences."""
        seq = self._check_id(seq_id)
        self._free.extend(reversed(self._tables.pop(seq)))
        del self._lengths[seq]

    # --- memory ----------------------------------------------------------------------

    @property
    def token_nbytes(self) -> int:
        """Bytes of one token's keys and values: ``2 · n_heads · head_dim · itemsize``."""
        return 2 * self.n_heads * self.head_dim * self.dtype.itemsize

    @property
    def used_nbytes(self) -> int:
        """Bytes holding kept tokens: ``tokens kept · token_nbytes``, over every sequence."""
        return sum(self._lengths.values()) * self.token_nbytes

    @property
    def reserved_nbytes(self) -> int:
        """Bytes of the blocks sequences hold, used or not.

        ``blocks held · block_size · token_nbytes``.
        """
        held = sum(len(table) for table in self._tables.values())
        return held * self.block_size * self.token_nbytes
