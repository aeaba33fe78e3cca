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

Each layer is the package's one transformer block (:func:`qkv_helpers.block.block`): its
:class:`~qkv_helpers.attention.MultiHeadAttention` weights project Q, K and V, and
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
attention products are counted in full, ``q·kᵀ`` over every key, masked or not. A step's
FLOPs are read from its shapes (tokens run, tokens attended over, source tokens) by
:func:`~qkv_helpers.kv_cache.arithmetic.step_flops_by_part`, the formula lesson 09 shows;
the forward pass itself counts nothing.
"""

from __future__ import annotations

import math
import time
from typing import NamedTuple

import numpy as np

from . import _validate as validate
from .attention import MultiHeadAttention
from .block import Block, block, project
from .kv_cache import KVCache, arithmetic
from .layer_norm import normalize
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


def _random_block(rng, d_model, n_heads, d_ff, cross: bool, dtype) -> Block:
    """One encoder or decoder block of seeded random weights, without biases."""
    def seed():
        return int(rng.integers(2**31))

    attention = MultiHeadAttention(d_model, n_heads, seed(), bias=False, dtype=dtype)
    cross_attention = (MultiHeadAttention(d_model, n_heads, seed(), bias=False, dtype=dtype)
                       if cross else None)
    w_in = rng.normal(0.0, 1 / math.sqrt(d_model), (d_model, d_ff)).astype(dtype)  # (d, d_ff)
    w_out = rng.normal(0.0, 1 / math.sqrt(d_ff), (d_ff, d_model)).astype(dtype)  # (d_ff, d)
    return Block(attention, w_in, w_out, cross_attention=cross_attention)


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
        rng = np.random.default_rng(validate.seed(seed))
        dtype = self.dtype
        # Standard deviation 2: the token just read, more than the slowly changing position
        # and context, decides the next one, so greedy decoding wanders over the vocabulary
        # instead of settling on one token.
        self.embedding = rng.normal(0.0, 2.0, (vocab_size, d_model)).astype(dtype)  # (V, d)
        self.encoder_layers = [_random_block(rng, d_model, n_heads, self.d_ff, False, dtype)
                               for _ in range(n_layers)]  # Blocks
        self.decoder_layers = [_random_block(rng, d_model, n_heads, self.d_ff, True, dtype)
                               for _ in range(n_layers)]
        self.n_heads = self.decoder_layers[0].attention.n_heads
        self.head_dim = self.d_model // self.n_heads
        self.w_out = rng.normal(0.0, 1 / math.sqrt(d_model), (d_model, vocab_size)).astype(
            dtype)  # (d_model, vocab_size)
        self._positions = sinusoidal_positions(64, d_model, dtype)  # grown when needed

    @classmethod
    def from_weights(cls, embedding, encoder_layers, decoder_layers, w_out,
                     fast_attention: bool = False) -> TinyTransformer:
        """A TinyTransformer of given weights, shared (not copied): ``embedding (V, d)``,
        the encoder's and the decoder's :class:`~qkv_helpers.block.Block` s (pre-norm,
        layer norm without γ, β, as above), ``w_out (d, V)``. Lesson 14's trained
        translator decodes this way
        (:meth:`~qkv_helpers.translator.Translator.as_tiny_transformer`).
        """
        embedding = validate.array(embedding, "embedding", ndim=2, bools=False, empty=False)
        from .lang import t

        for name, layers in (("encoder_layers", encoder_layers),
                             ("decoder_layers", decoder_layers)):
            if not (isinstance(layers, (list, tuple)) and layers
                    and all(isinstance(b, Block) for b in layers)):
                raise TypeError(t("err_blocks_list", name=name, got=type(layers).__name__))
        self = cls.__new__(cls)
        self.vocab_size, self.d_model = embedding.shape
        self.n_layers = len(decoder_layers)
        self.d_ff = decoder_layers[0].w_in.shape[1]
        self.dtype = embedding.dtype
        self.fast_attention = validate.flag(fast_attention, "fast_attention")
        self.embedding, self.w_out = embedding, w_out
        self.encoder_layers, self.decoder_layers = list(encoder_layers), list(decoder_layers)
        self.n_heads = self.decoder_layers[0].attention.n_heads
        self.head_dim = self.d_model // self.n_heads
        self._positions = sinusoidal_positions(64, self.d_model, self.dtype)
        return self

    def __repr__(self) -> str:
        return (f"TinyTransformer(vocab_size={self.vocab_size}, d_model={self.d_model}, "
                f"n_heads={self.n_heads}, n_layers={self.n_layers}, d_ff={self.d_ff}, "
                f"dtype={self.dtype})")

    # --- public ------------------------------------------------------------------

    def encode(self, source_ids) -> np.ndarray:
        """The encoder output for a source sentence, ``(source_tokens, d_model)``."""
        source = self._check_ids(source_ids, "source_ids")
        return self._encode(source)

    def forward(self, ids, source_ids=None) -> np.ndarray:
        """Logits at every position in one pass, ``(tokens, vocab_size)``, as in training.

        Row ``i`` is the prediction for the token after ``ids[i]``, seeing ``ids[: i+1]``
        only (causal mask). With ``source_ids`` the decoder also attends to the encoder.

        >>> model = TinyTransformer(50, 32, 4, 1)
        >>> model.forward([1, 2, 3]).shape
        (3, 50)
        """
        ids = self._check_ids(ids, "ids")
        cross_kv = None
        if source_ids is not None:
            cross_kv = self._cross_kv(self._encode(self._check_ids(source_ids, "source_ids")))
        x = self._decoder(self._embed(ids, 0), None, cross_kv)
        return normalize(x).y @ self.w_out  # (tokens, vocab_size)

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
        cross_kv = None if source is None else self._cross_kv(self._encode(source))
        caches = [KVCache(self.n_heads, self.head_dim, max(capacity, len(prompt)), self.dtype)
                  for _ in self.decoder_layers]
        x = self._decoder(self._embed(prompt, 0), caches, cross_kv)  # (tokens, d_model)
        logits = (normalize(x[-1:]).y @ self.w_out)[0]  # (vocab_size,)
        flops = self.step_flops(len(prompt), len(prompt), cross_kv, first=True)
        return DecodeState([int(i) for i in prompt], logits, caches, cross_kv, len(prompt),
                           flops)

    def step(self, state: DecodeState, token_id: int) -> DecodeState:
        """One cached step: feed ``token_id``, append its keys and values, score the next.

        Only the new token runs through the decoder; its query attends over the keys
        and values kept in ``state.caches``. ``state`` is updated in place and returned.
        """
        if not isinstance(state, DecodeState):
            from .lang import t

            raise TypeError(t("err_decode_state", got=type(state).__name__))
        token = self._check_ids([token_id], "token_id")
        position = len(state.ids)
        self._grow_positions(position + 1)
        x = self._decoder(self._embed(token, position), state.caches, state.cross_kv)
        state.logits = (normalize(x[-1:]).y @ self.w_out)[0]  # (vocab_size,)
        state.ids.append(int(token[0]))
        state.new_tokens = 1
        state.flops_by_part = self.step_flops(1, len(state.ids), state.cross_kv, first=False)
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
        memory = cross_kv = None
        caches = [KVCache(self.n_heads, self.head_dim, len(prompt) + max_new_tokens, self.dtype)
                  if use_cache else None for _ in self.decoder_layers]
        for i in range(max_new_tokens):
            start_time = time.perf_counter()
            # the tokens run this step: the prompt first; then, with a cache, the last
            # token only (the others' keys and values are kept), without one, all again
            new = ids[:] if i == 0 or not use_cache else ids[-1:]
            if source is not None and i == 0:
                memory = self._encode(source)  # (source_tokens, d_model), once
            if source is not None and (i == 0 or not use_cache):
                cross_kv = self._cross_kv(memory)  # each layer's K, V of the memory
            x = self._embed(np.array(new), len(ids) - len(new))  # (new, d_model)
            for layer, cache, kv in zip(self.decoder_layers, caches,
                                        cross_kv or [None] * self.n_layers):
                x = block(layer, x, causal_mask, cross_kv=kv, kv_cache=cache,
                          fast=self.fast_attention, keep=False).x  # (new, d_model)
            logits[i] = (normalize(x[-1:]).y @ self.w_out)[0]  # the next token's scores
            parts = self.step_flops(len(new), len(ids), cross_kv, first=i == 0,
                                    cross_kv_again=not use_cache)
            cache_bytes = sum(c.nbytes for c in caches) + sum(
                k.nbytes + v.nbytes for k, v in cross_kv or []) if use_cache else 0
            ids.append(int(logits[i].argmax()))
            seconds = time.perf_counter() - start_time
            steps.append(Step(len(new), len(ids) - 1, sum(parts.values()), parts,
                              cache_bytes, seconds))
        return Generation(np.array(ids[len(prompt):]), logits, steps)

    # --- the layers ----------------------------------------------------------------

    def step_flops(self, new_tokens: int, context: int, cross_kv, first: bool,
                   cross_kv_again: bool = False) -> dict:
        """A step's FLOPs by part (:data:`FLOP_PARTS`), from its shapes: ``new_tokens``
        run over ``context`` keys, with a source sentence if ``cross_kv`` holds its keys;
        the encoder and the cross K, V in the ``first`` step (and again when
        ``cross_kv_again``). :func:`~qkv_helpers.kv_cache.arithmetic.step_flops_by_part`."""
        source_tokens = 0 if cross_kv is None else cross_kv[0][0].shape[-2]
        return arithmetic.step_flops_by_part(
            new_tokens, context, d_model=self.d_model, n_layers=self.n_layers,
            vocab_size=self.vocab_size, d_ff=self.d_ff, source_tokens=source_tokens,
            cross_kv=source_tokens > 0 and (first or cross_kv_again),
            encoder=source_tokens > 0 and first)

    # --- the layers ----------------------------------------------------------------

    def _decoder(self, x, caches, cross_kv) -> np.ndarray:
        """Run the decoder blocks on ``x (new_tokens, d_model)``, the tokens fed this step.

        With ``caches`` (a KVCache per layer) the new tokens' keys and values are
        appended and the queries attend over everything kept; without, ``x`` must be
        the whole sequence. ``cross_kv`` holds each layer's encoder keys and values.
        """
        for i, layer in enumerate(self.decoder_layers):
            x = block(layer, x, causal_mask, cross_kv=None if cross_kv is None else cross_kv[i],
                      kv_cache=None if caches is None else caches[i],
                      fast=self.fast_attention, keep=False).x
        return x  # (new_tokens, d_model)

    def _encode(self, source) -> np.ndarray:
        """The encoder output ``(source_tokens, d_model)``: no mask, each token sees all."""
        x = self._embed(source, 0)
        for layer in self.encoder_layers:
            x = block(layer, x, fast=self.fast_attention, keep=False).x
        return normalize(x).y

    def _cross_kv(self, memory) -> list:
        """Each decoder layer's cross-attention keys and values of the encoder output."""
        return [project(layer.cross_attention, memory, memory)[1:]
                for layer in self.decoder_layers]  # each (n_heads, source_tokens, head_dim) twice

    def _embed(self, ids, first: int) -> np.ndarray:
        """Token embeddings plus the positions ``first, first+1, ...``: ``(tokens, d_model)``."""
        self._grow_positions(first + len(ids))
        return self.embedding[ids] + self._positions[first : first + len(ids)]

    def _grow_positions(self, n: int) -> None:
        if n > len(self._positions):
            self._positions = sinusoidal_positions(max(n, 2 * len(self._positions)),
                                                   self.d_model, self.dtype)

    def _check_ids(self, ids, name: str) -> np.ndarray:
        return validate.token_ids(ids, name, self.vocab_size)
