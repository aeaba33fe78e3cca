"""KV caches and their arithmetic: the keys and values a decoder keeps, and what they cost.

- :mod:`~qkv_helpers.kv_cache.plain` -- :class:`KVCache`, every token kept (lesson 09);
- :mod:`~qkv_helpers.kv_cache.arithmetic` -- its bytes, the FLOPs of decoding, the
  speed-up, as formulas (lesson 09, and lesson 13's model sizes);
- :mod:`~qkv_helpers.measure.kv_cache_experiments` -- lesson 09's measurements on a small decoder
  (imported by ``qkv_helpers`` itself: it needs the decoder, which needs the cache);
- :mod:`~qkv_helpers.kv_cache.sliding_window` -- :class:`SlidingWindowKVCache`, the last
  ``window`` tokens only (lesson 13);
- :mod:`~qkv_helpers.kv_cache.paged` -- :class:`PagedKVCache`, fixed-size blocks shared
  by many sequences, as vLLM does (lesson 13).

What they hand out: ``KVCache.keys`` / ``.values`` are read-only views
(:class:`~qkv_helpers.kv_cache.plain.CacheView`: writing into one raises an error that
says what to do); the sliding-window and paged caches hand out copies.
"""

from __future__ import annotations

from . import arithmetic, paged, plain, sliding_window
from .paged import PagedKVCache
from .plain import KVCache
from .sliding_window import SlidingWindowKVCache

__all__ = ["KVCache", "PagedKVCache", "SlidingWindowKVCache", "arithmetic", "paged", "plain",
           "sliding_window"]
