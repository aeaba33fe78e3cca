"""Autoregressive decoding, token by token, with and without a KV cache.

:class:`TinyTransformer` is a small encoder–decoder with seeded random weights (no
training): enough to watch what a decoder computes at each step. Greedy decoding feeds
the tokens so far, takes the most likely next token, appends it and repeats.

Without a cache, every step runs the decoder over the *whole* sequence again: the keys
and values of every earlier token, in every layer, are recomputed although they have
not changed. With a cache (:class:`~qkv_helpers.kv_cache.KVCache`, one per layer), a
step runs the decoder on the *new* token only and takes the earlier keys and values
from the cache. The two paths in :meth:`TinyTransformer.generate` differ in exactly
that, so the ids they produce are the same and the logits agree to float rounding.

The cross-attention keys and values come from the encoder output, which does not
change while decoding: with a cache they are computed once per source sentence.

Attention is the package's own: each layer's
:class:`~qkv_helpers.attention.MultiHeadAttention` projects Q, K and V, and
:func:`~qkv_helpers.attention.scaled_dot_product_attention` attends. One switch,
``TinyTransformer(..., fast_attention=True)``, makes the decoder call the fast paths of
:mod:`qkv_helpers.fast` instead (same numbers to float rounding, for long benchmarks);
the lessons keep the default, the readable attention.

A cached decoding is two public calls: :meth:`TinyTransformer.start` runs the prompt
(the prefill) and returns a :class:`DecodeState` holding each layer's
:class:`~qkv_helpers.kv_cache.KVCache` and the next token's logits;
:meth:`TinyTransformer.step` feeds one more token and updates that state.
:meth:`TinyTransformer.generate` is greedy decoding on top of them.

FLOPs are counted for the matrix products only, ``2·m·k·n`` for an ``(m, k) @ (k, n)``
product (a multiply and an add per term); layer norms, softmax, ReLU, the embedding
lookup and the residual additions are not counted, though they take time too. The
attention products are counted in full, ``q·kᵀ`` over every key, masked or not.
"""

from __future__ import annotations

import math
import time
from typing import NamedTuple

import numpy as np

from . import _validate as validate
from . import fast
from .attention import MultiHeadAttention, _attention
from .kv_cache import KVCache
from .layer_norm import layer_norm
from .masks import causal_mask
from .positions import sinusoidal_positions

__all__ = [
    "FLOP_PARTS",
    "DecodeState",
    "Generation",
    "Step",
    "TinyTransformer",
]

FLOP_PARTS = ("encoder", "cross_kv", "projections", "attention", "mlp", "logits")
"""The parts a step's FLOPs are split into (:attr:`Step.flops_by_part`):

- ``encoder``: the whole encoder pass over the source sentence (the first step only);
- ``cross_kv``: the cross-attention key and value projections of the encoder output;
- ``projections``: the decoder's Q, K, V projections (self-attention), Q projections
  (cross-attention) and output projections W_O;
- ``attention``: the products ``q·kᵀ`` and ``weights·v``, self- and cross-attention;
- ``mlp``: the decoder's two-layer MLPs;
- ``logits``: the projection of the last position onto the vocabulary.
"""


class Step(NamedTuple):
    """What one decoding step did: it produced one new token."""

    new_tokens: int
    """Tokens run through the decoder in this step (the prompt, one token, or everything)."""
    context: int
    """Tokens the self-attention attends over: the prompt and the tokens generated so far."""
    flops: int
    """FLOPs of the step's matrix products (multiply-add = 2)."""
    flops_by_part: dict
    """The same FLOPs split into :data:`FLOP_PARTS`."""
    cache_bytes: int
    """Bytes of keys and values kept for later steps after this one (0 without a cache)."""
    seconds: float
    """Wall-clock time of the step."""


class Generation(NamedTuple):
    """The result of :meth:`TinyTransformer.generate`."""

    ids: np.ndarray
    """``(max_new_tokens,)``: the generated token ids (not the prompt)."""
    logits: np.ndarray
    """``(max_new_tokens, vocab_size)``: the logits each id was chosen from (its argmax)."""
    steps: list
    """One :class:`Step` per generated token."""

    @property
    def flops(self) -> int:
        """Total FLOPs of every step."""
        return sum(step.flops for step in self.steps)

    @property
    def seconds(self) -> float:
        """Total time of every step."""
        return sum(step.seconds for step in self.steps)


class DecodeState:
    """Where a cached decoding stands: made by :meth:`TinyTransformer.start`, advanced
    by :meth:`TinyTransformer.step` (which updates it in place and returns it).

    Attributes
    ----------
    ids : list of int
        Every token fed so far: the prompt, then one per step.
    logits : numpy.ndarray, shape (vocab_size,)
        The scores of the token after ``ids[-1]``.
    caches : list of KVCache
        Each decoder layer's kept keys and values, ``len(ids)`` tokens each.
    cross_kv : list of (keys, values), or None
        Each decoder layer's cross-attention keys and values of the encoder output,
        ``(n_heads, source_tokens, head_dim)`` each; None without a source sentence.
    new_tokens : int
        Tokens run through the decoder by the last call (the prompt, then 1).
    flops_by_part : dict
        The last call's FLOPs, split into :data:`FLOP_PARTS`.
    """

    __slots__ = ("caches", "cross_kv", "flops_by_part", "ids", "logits", "new_tokens")

    def __init__(self, ids, logits, caches, cross_kv, new_tokens, flops_by_part):
        self.ids, self.logits, self.caches, self.cross_kv = ids, logits, caches, cross_kv
        self.new_tokens, self.flops_by_part = new_tokens, flops_by_part

    def __repr__(self) -> str:
        return (f"DecodeState(tokens={len(self.ids)}, cache_bytes={self.cache_bytes}, "
                f"source={self.cross_kv is not None})")

    @property
    def flops(self) -> int:
        """FLOPs of the last call."""
        return sum(self.flops_by_part.values())

    @property
    def cache_bytes(self) -> int:
        """Bytes of keys and values kept: every layer's cache, and the cross-attention's."""
        cross = 0 if self.cross_kv is None else sum(k.nbytes + v.nbytes
                                                    for k, v in self.cross_kv)
        return cross + sum(cache.nbytes for cache in self.caches)


class _FlopCounter:
    """FLOPs of matrix products, counted from their shapes under one of :data:`FLOP_PARTS`.

    An ``(m, k) @ (k, n)`` product is ``2·m·k·n`` FLOPs (a multiply and an add per term).
    The model computes first and counts after, from the shapes, so that its products
    read as the formulas they are.
    """

    def __init__(self):
        self.parts = dict.fromkeys(FLOP_PARTS, 0)

    def product(self, part: str, m: int, k: int, n: int, times: int = 1) -> None:
        """Count ``times`` products ``(m, k) @ (k, n)`` under ``part``."""
        self.parts[part] += 2 * m * k * n * times

    def attention(self, part: str, q: np.ndarray, n_k: int) -> None:
        """``q·kᵀ`` and ``weights·v`` for ``q (n_heads, n_q, head_dim)`` over ``n_k`` keys."""
        n_heads, n_q, head_dim = q.shape
        self.product(part, n_q, head_dim, n_k, times=2 * n_heads)

    def layer(self, d_model: int, d_ff: int, n: int) -> None:
        """A layer's self-attention projections and MLP for ``n`` new tokens."""
        self.product("projections", n, d_model, d_model, times=4)  # Q, K, V and W_O
        self.product("mlp", n, d_model, d_ff)  # W_1
        self.product("mlp", n, d_ff, d_model)  # W_2

    @property
    def total(self) -> int:
        return sum(self.parts.values())


class _Layer:
    """One encoder or decoder layer's weights: attention (and cross-attention), MLP."""

    def __init__(self, rng, d_model, n_heads, d_ff, cross: bool, dtype):
        def seed():
            return int(rng.integers(2**31))

        self.self_attn = MultiHeadAttention(d_model, n_heads, seed(), bias=False, dtype=dtype)
        self.cross_attn = (MultiHeadAttention(d_model, n_heads, seed(), bias=False, dtype=dtype)
                           if cross else None)
        self.w_1 = rng.normal(0.0, 1 / math.sqrt(d_model), (d_model, d_ff)).astype(dtype)
        self.w_2 = rng.normal(0.0, 1 / math.sqrt(d_ff), (d_ff, d_model)).astype(dtype)


class TinyTransformer:
    """A small encoder–decoder Transformer with seeded random weights, for decoding lessons.

    Pre-norm layers, as in GPT-2: each sub-layer reads ``layer_norm(x)`` and adds its
    output to ``x``::

        x = token embedding + sinusoidal position             # (tokens, d_model)
        encoder layer:  x += self_attention(LN(x));  x += mlp(LN(x))
        decoder layer:  x += masked_self_attention(LN(x))
                        x += cross_attention(LN(x), encoder output)   # with a source
                        x += mlp(LN(x))
        logits = LN(x) @ W_out                                 # (tokens, vocab_size)

    The MLP is ``relu(x·W_1)·W_2`` with ``d_ff = 4·d_model`` by default. No layer has
    biases (as in LLaMA), and layer norm has no learned scale or shift.
    Without ``source_ids`` the encoder and the cross-attention are skipped: a
    decoder-only model, like GPT.

    The weights are random (no training) and fixed at construction; they are scaled
    so that the logits are spread out and greedy decoding mostly moves from token to
    token (like any greedy decoding it can fall into a loop).

    Parameters
    ----------
    vocab_size : int
        Number of token ids, ``0 .. vocab_size - 1``.
    d_model : int
        Width of the token vectors.
    n_heads : int
        Attention heads; must divide ``d_model``.
    n_layers : int
        Layers in the encoder and in the decoder (each).
    seed : int
        Seed of every random weight, >= 0.
    d_ff : int, optional
        Width of the MLP's hidden layer; ``4 · d_model`` by default.
    dtype : numpy float dtype
        float32 (default) or float64.
    fast_attention : bool
        False (default): attention is :func:`~qkv_helpers.attention.scaled_dot_product_attention`,
        the one the lessons read. True: the fast paths of :mod:`qkv_helpers.fast`
        (same results to float rounding), for benchmarks and long runs.

    Examples
    --------
    >>> model = TinyTransformer(vocab_size=50, d_model=32, n_heads=4, n_layers=2, seed=3)
    >>> cached = model.generate([1, 2, 3], max_new_tokens=6)
    >>> uncached = model.generate([1, 2, 3], max_new_tokens=6, use_cache=False)
    >>> cached.ids
    array([38, 17, 19, 37, 24, 36])
    >>> bool((cached.ids == uncached.ids).all())
    True
    >>> bool(np.allclose(cached.logits, uncached.logits, atol=1e-4))
    True
    >>> [s.new_tokens for s in cached.steps], [s.new_tokens for s in uncached.steps]
    ([3, 1, 1, 1, 1, 1], [3, 4, 5, 6, 7, 8])
    >>> cached.steps[-1].cache_bytes      # 2 · 2 layers · 32 · 8 tokens · 4 bytes
    4096
    >>> model.generate([1], 4, source_ids=[5, 6, 7]).ids   # with a source sentence
    array([37, 25, 28, 43])

    One step at a time, as ``generate`` does it with the cache:

    >>> state = model.start([1, 2, 3])            # the prefill: the prompt's K, V kept
    >>> int(state.logits.argmax()), len(state.caches[0])
    (38, 3)
    >>> state = model.step(state, 38)             # one token in, its K, V appended
    >>> int(state.logits.argmax()), len(state.caches[0])
    (17, 4)
    """

    def __init__(self, vocab_size: int, d_model: int, n_heads: int, n_layers: int,
                 seed: int = 0, d_ff: int | None = None, dtype=np.float32,
                 fast_attention: bool = False):
        self.vocab_size = validate.integer(vocab_size, "vocab_size", 1, 2**20,
                                           why="an embedding row each")
        self.d_model = validate.integer(d_model, "d_model", 1, 2**12, why="a small model")
        self.n_layers = validate.integer(n_layers, "n_layers", 1, 64, why="a small model")
        self.d_ff = 4 * self.d_model if d_ff is None else validate.integer(d_ff, "d_ff", 1, 2**14,
                                                                           why="a small model")
        self.dtype = validate.float_dtype(dtype, allowed=(np.float32, np.float64))
        self.fast_attention = validate.flag(fast_attention, "fast_attention")
        self._heads = _fast_heads if self.fast_attention else _heads  # each head's attention
        rng = np.random.default_rng(validate.seed(seed))
        dtype = self.dtype
        # Standard deviation 2: the token just read, more than the slowly changing position
        # and context, decides the next one, so greedy decoding wanders over the vocabulary
        # instead of settling on one token.
        self.embedding = rng.normal(0.0, 2.0, (vocab_size, d_model)).astype(dtype)  # (V, d)
        self.encoder_layers = [_Layer(rng, d_model, n_heads, self.d_ff, False, dtype)
                               for _ in range(n_layers)]
        self.decoder_layers = [_Layer(rng, d_model, n_heads, self.d_ff, True, dtype)
                               for _ in range(n_layers)]
        self.n_heads = self.decoder_layers[0].self_attn.n_heads
        self.head_dim = self.decoder_layers[0].self_attn.head_dim
        self.w_out = rng.normal(0.0, 1 / math.sqrt(d_model), (d_model, vocab_size)).astype(
            dtype)  # (d_model, vocab_size)
        self._positions = sinusoidal_positions(64, d_model, dtype)  # grown when needed

    def __repr__(self) -> str:
        return (f"TinyTransformer(vocab_size={self.vocab_size}, d_model={self.d_model}, "
                f"n_heads={self.n_heads}, n_layers={self.n_layers}, d_ff={self.d_ff}, "
                f"dtype={self.dtype})")

    # --- public ------------------------------------------------------------------

    def encode(self, source_ids) -> np.ndarray:
        """The encoder output for a source sentence, ``(source_tokens, d_model)``."""
        source = self._check_ids(source_ids, "source_ids")
        return self._encode(source, _FlopCounter())

    def forward(self, ids, source_ids=None) -> np.ndarray:
        """Logits at every position in one pass, ``(tokens, vocab_size)``, as in training.

        Row ``i`` is the prediction for the token after ``ids[i]``, seeing ``ids[: i+1]``
        only (causal mask). With ``source_ids`` the decoder also attends to the encoder.

        >>> model = TinyTransformer(50, 32, 4, 1)
        >>> model.forward([1, 2, 3]).shape
        (3, 50)
        """
        ids = self._check_ids(ids, "ids")
        flops = _FlopCounter()
        cross_kv = None
        if source_ids is not None:
            memory = self._encode(self._check_ids(source_ids, "source_ids"), flops)
            cross_kv = self._cross_kv(memory, flops)
        x = self._decoder(self._embed(ids, 0), None, cross_kv, flops)
        return layer_norm(x) @ self.w_out  # (tokens, vocab_size)

    def start(self, prompt_ids, source_ids=None, capacity: int | None = None) -> DecodeState:
        """The prefill: run the prompt once, keep its keys and values, score the next token.

        With ``source_ids`` the encoder runs first and each decoder layer's
        cross-attention keys and values of its output are computed, once: they are kept
        in the state too.

        Parameters
        ----------
        prompt_ids : sequence of int
            The tokens to start from (at least one).
        source_ids : sequence of int, optional
            A source sentence for the encoder; None for a decoder-only model.
        capacity : int, optional
            Tokens to reserve cache room for (the caches grow if needed); by default
            the prompt's length.

        Returns
        -------
        DecodeState
            ``logits (vocab_size,)`` of the token after the prompt, each layer's
            :class:`KVCache` holding the prompt's keys and values.
        """
        prompt = self._check_ids(prompt_ids, "prompt_ids")
        source = None if source_ids is None else self._check_ids(source_ids, "source_ids")
        capacity = len(prompt) if capacity is None else validate.integer(
            capacity, "capacity", 1, 2**24, why="tokens kept in memory")
        flops = _FlopCounter()
        cross_kv = None
        if source is not None:
            cross_kv = self._cross_kv(self._encode(source, flops), flops)
        caches = [KVCache(self.n_heads, self.head_dim, max(capacity, len(prompt)), self.dtype)
                  for _ in self.decoder_layers]
        x = self._decoder(self._embed(prompt, 0), caches, cross_kv, flops)  # (tokens, d_model)
        logits = self._next_logits(x, flops)
        return DecodeState([int(i) for i in prompt], logits, caches, cross_kv, len(prompt),
                           flops.parts)

    def step(self, state: DecodeState, token_id: int) -> DecodeState:
        """One cached step: feed ``token_id``, append its keys and values, score the next.

        Only the new token runs through the decoder; its query attends over the keys
        and values kept in ``state.caches``. ``state`` is updated in place and returned.
        """
        if not isinstance(state, DecodeState):
            raise TypeError(f"state must be the DecodeState that start() returned, "
                            f"got {type(state).__name__}")
        token = self._check_ids([token_id], "token_id")
        position = len(state.ids)
        self._grow_positions(position + 1)
        flops = _FlopCounter()
        x = self._decoder(self._embed(token, position), state.caches, state.cross_kv, flops)
        state.logits = self._next_logits(x, flops)
        state.ids.append(int(token[0]))
        state.new_tokens, state.flops_by_part = 1, flops.parts
        return state

    def generate(self, prompt_ids, max_new_tokens: int, source_ids=None,
                 use_cache: bool = True) -> Generation:
        """Greedy decoding: append the most likely next token, ``max_new_tokens`` times.

        Step 0 runs the decoder over the prompt. After that, with ``use_cache=True`` a
        step runs the decoder on the one token generated last, its queries attending to
        the keys and values kept in each layer's :class:`KVCache` (:meth:`start`, then
        :meth:`step`); with ``use_cache=False`` a step runs the decoder over the whole
        sequence so far and keeps nothing.

        With ``source_ids`` the encoder runs once, in step 0, either way. The
        cross-attention keys and values of its output are computed once (step 0) with
        the cache and again at every step without it.

        Parameters
        ----------
        prompt_ids : sequence of int
            The tokens to start from (at least one).
        max_new_tokens : int
            Number of tokens to generate, one per step.
        source_ids : sequence of int, optional
            A source sentence for the encoder; None for a decoder-only model.
        use_cache : bool
            Keep keys and values between steps (True) or recompute them (False).

        Returns
        -------
        Generation
            ``ids (max_new_tokens,)``, ``logits (max_new_tokens, vocab_size)`` and
            ``steps``, one :class:`Step` per token with its FLOPs, cache bytes and time.
            ``cache_bytes`` is ``2 · n_layers · n_heads · head_dim · itemsize`` times
            the tokens kept: the ``context`` tokens of the self-attention, plus the
            source tokens of the cross-attention.
        """
        prompt = self._check_ids(prompt_ids, "prompt_ids")
        max_new_tokens = validate.integer(max_new_tokens, "max_new_tokens", 1, 2**20,
                                          why="one step each, and logits kept for each")
        source = None if source_ids is None else self._check_ids(source_ids, "source_ids")
        use_cache = validate.flag(use_cache, "use_cache")
        ids = [int(i) for i in prompt]  # the prompt, then the new tokens
        logits = np.empty((max_new_tokens, self.vocab_size), self.dtype)  # (new, vocab)
        steps = []
        memory = None
        for i in range(max_new_tokens):
            start_time = time.perf_counter()
            context = len(ids)  # tokens known so far; the next one is predicted now
            if use_cache:
                if i == 0:
                    state = self.start(prompt, source, capacity=len(prompt) + max_new_tokens)
                else:
                    state = self.step(state, ids[-1])
                row, parts, new_tokens = state.logits, state.flops_by_part, state.new_tokens
                cache_bytes = state.cache_bytes
            else:  # the whole sequence again; only the encoder output is kept
                flops = _FlopCounter()
                if source is not None and i == 0:
                    memory = self._encode(source, flops)
                cross_kv = None if source is None else self._cross_kv(memory, flops)
                x = self._decoder(self._embed(np.array(ids), 0), None, cross_kv, flops)
                row, parts, new_tokens = self._next_logits(x, flops), flops.parts, context
                cache_bytes = 0
            logits[i] = row
            ids.append(int(row.argmax()))
            seconds = time.perf_counter() - start_time
            steps.append(Step(new_tokens, context, sum(parts.values()), parts, cache_bytes,
                              seconds))
        return Generation(np.array(ids[len(prompt):]), logits, steps)

    # --- the layers ----------------------------------------------------------------

    def _decoder(self, x, caches, cross_kv, flops) -> np.ndarray:
        """Run the decoder layers on ``x (new_tokens, d_model)``, the tokens fed this step.

        With ``caches`` (a KVCache per layer) the new tokens' keys and values are
        appended and the queries attend over everything kept; without, ``x`` must be
        the whole sequence. ``cross_kv`` holds each layer's encoder keys and values.
        Each attention is :class:`MultiHeadAttention`'s own without its input checks
        (``_project``, ``_output``: the model's own arrays need none); the FLOPs are
        counted after each product, from the shapes.
        """
        for i, layer in enumerate(self.decoder_layers):
            # masked self-attention; the new tokens are the last positions
            a = layer.self_attn
            q, k, v = a._project(layer_norm(x), None)  # (n_heads, new_tokens, head_dim) each
            if caches is not None:  # keep the new keys and values, attend over all kept
                caches[i].append(k, v)
                k, v = caches[i].keys, caches[i].values  # (n_heads, context, head_dim)
            mask = causal_mask(q.shape[-2], k.shape[-2])  # (new_tokens, context)
            x = x + self._attend(a, q, k, v, mask)
            flops.attention("attention", q, k.shape[-2])
            # cross-attention: queries from the decoder, keys and values from the encoder
            if cross_kv is not None:
                c = layer.cross_attn
                q = c._project_q(layer_norm(x))  # (n_heads, new_tokens, head_dim)
                k, v = cross_kv[i]  # (n_heads, source_tokens, head_dim) each
                x = x + self._attend(c, q, k, v, None)
                flops.attention("attention", q, k.shape[-2])
                flops.product("projections", len(x), self.d_model, self.d_model, times=2)
            x = x + self._mlp(layer, layer_norm(x))
            flops.layer(self.d_model, self.d_ff, len(x))
        return x  # (new_tokens, d_model)

    def _encode(self, source, flops) -> np.ndarray:
        """The encoder output ``(source_tokens, d_model)``; its FLOPs count as ``encoder``."""
        own = _FlopCounter()
        x = self._embed(source, 0)
        for layer in self.encoder_layers:
            a = layer.self_attn
            q, k, v = a._project(layer_norm(x), None)  # (n_heads, source_tokens, head_dim)
            x = x + self._attend(a, q, k, v, None)  # no mask: sees every token
            x = x + self._mlp(layer, layer_norm(x))
            own.attention("attention", q, k.shape[-2])
            own.layer(self.d_model, self.d_ff, len(x))
        flops.parts["encoder"] += own.total
        return layer_norm(x)

    def _cross_kv(self, memory, flops) -> list:
        """Each decoder layer's cross-attention keys and values of the encoder output."""
        kv = [layer.cross_attn._project_kv(memory) for layer in self.decoder_layers]
        flops.product("cross_kv", len(memory), self.d_model, self.d_model,
                      times=2 * len(self.decoder_layers))  # K and V, every layer
        return kv  # each (n_heads, source_tokens, head_dim) twice

    def _attend(self, mha, q, k, v, mask) -> np.ndarray:
        """Each head's attention, heads merged, then ``W_O``: ``(n_q, d_model)``."""
        return mha._output(self._heads(q, k, v, mask))

    @staticmethod
    def _mlp(layer, h) -> np.ndarray:
        """``relu(h·W_1)·W_2``: ``(tokens, d_model)``."""
        return np.maximum(h @ layer.w_1, 0.0) @ layer.w_2  # (tokens, d_ff), then d_model

    def _next_logits(self, x, flops) -> np.ndarray:
        """The logits of the token after the last position, ``(vocab_size,)``."""
        flops.product("logits", 1, self.d_model, self.vocab_size)
        return (layer_norm(x[-1:]) @ self.w_out)[0]

    def _embed(self, ids, first: int) -> np.ndarray:
        """Token embeddings plus the positions ``first, first+1, ...``: ``(tokens, d_model)``."""
        self._grow_positions(first + len(ids))
        return self.embedding[ids] + self._positions[first : first + len(ids)]

    def _grow_positions(self, n: int) -> None:
        if n > len(self._positions):
            self._positions = sinusoidal_positions(max(n, 2 * len(self._positions)),
                                                   self.d_model, self.dtype)

    def _check_ids(self, ids, name: str) -> np.ndarray:
        try:
            arr = np.asarray(ids)
        except (ValueError, TypeError):
            arr = np.asarray(ids, dtype=object)
        if arr.ndim != 1 or arr.size == 0:
            raise ValueError(f"{name} must be a non-empty 1-D sequence of token ids, shape "
                             f"(tokens,); got shape {arr.shape}")
        if arr.dtype.kind not in "iu":
            raise TypeError(f"{name} must hold integer token ids, got dtype {arr.dtype}")
        bad = (arr < 0) | (arr >= self.vocab_size)
        if bad.any():
            i = int(np.argmax(bad))
            raise ValueError(f"{name} must hold ids in 0 .. {self.vocab_size - 1} "
                             f"(vocab_size = {self.vocab_size}); got {arr[i]} at index {i}")
        return arr.astype(np.int64, copy=False)


def _heads(q, k, v, mask) -> np.ndarray:
    """Each head's ``softmax(q·kᵀ/√d_k)·v``: the readable attention, without its checks."""
    return _attention(q, k, v, mask).output  # (n_heads, n_q, head_dim)


def _fast_heads(q, k, v, mask) -> np.ndarray:
    """The same through the fast paths (``TinyTransformer(..., fast_attention=True)``)."""
    return fast.decoder_attention(q, k, v, causal=mask is not None)
