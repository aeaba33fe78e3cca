"""Lesson 09's experiments: decode token by token, with and without a KV cache, and measure.

- :func:`lesson_model` is the small decoder the lesson and its widget decode with, over
  the words of the running example (:data:`WORDS`); :func:`to_words` and :func:`to_ids`
  translate.
- :class:`CachedDecoder` decodes **one token per call** of :meth:`CachedDecoder.step`,
  keeping a :class:`~qkv_helpers.kv_cache.KVCache` per layer, so the lesson's "next
  token" button can show the cache growing. It makes the same tokens, FLOPs and cache
  bytes as ``TinyTransformer.generate`` (a test checks). :func:`cache_growth` measures
  the cache's arrays after every step.
- :func:`measure_speedup` times cached and uncached generation for several lengths and
  sets the measured speed-up beside the FLOP ratio and a per-step-overhead model.

numpy only.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from ._checks import positive_int
from .decoding import TinyTransformer
from .kv_math import StepTimeFit, fit_step_time, predicted_speedup, step_flops

__all__ = [
    "LESSON_SEED",
    "WORDS",
    "CachedDecoder",
    "DecodeStep",
    "SpeedupMeasurement",
    "cache_growth",
    "lesson_model",
    "measure_speedup",
    "to_ids",
    "to_words",
]

WORDS = ("The", "cat", "sat", "on", "the", "mat", ".")
"""The lesson model's vocabulary: the running example's tokens, id = position here."""

#: Seed of :func:`lesson_model`, chosen (among the first 40) so that greedy decoding from
#: "The cat sat" uses six of the seven words instead of repeating one: the weights are
#: random, not trained, so the words it writes mean nothing.
LESSON_SEED = 4


def lesson_model(seed: int = LESSON_SEED) -> TinyTransformer:
    """The lesson's decoder: 7 words, ``d_model = 16``, 4 heads of width 4, 2 layers.

    Examples
    --------
    >>> model = lesson_model()
    >>> model.n_layers, model.n_heads, model.head_dim, model.dtype
    (2, 4, 4, dtype('float32'))
    >>> to_words(model.generate(to_ids("The cat sat"), 4).ids)
    'cat on sat .'
    """
    return TinyTransformer(vocab_size=len(WORDS), d_model=16, n_heads=4, n_layers=2,
                           seed=seed)


def to_ids(text: str) -> list[int]:
    """Token ids of space-separated words of :data:`WORDS`.

    >>> to_ids("The cat sat")
    [0, 1, 2]
    """
    ids = []
    for word in text.split():
        if word not in WORDS:
            raise ValueError(f"text may hold only the words {WORDS}; got {word!r}")
        ids.append(WORDS.index(word))
    return ids


def to_words(ids) -> str:
    """The words of token ids, joined by spaces.

    >>> to_words([1, 2, 6])
    'cat sat .'
    """
    return " ".join(WORDS[int(i)] for i in ids)


class DecodeStep(NamedTuple):
    """One call of :meth:`CachedDecoder.step`: one new token."""

    token: int
    """The id chosen (greedy: the largest logit)."""
    context: int
    """Tokens the self-attention attended over: the tokens so far, before this one."""
    new_tokens: int
    """Tokens run through the decoder: the prompt in the first step, then 1."""
    flops: int
    """FLOPs counted in this step, with the cache."""
    flops_uncached: int
    """FLOPs the same step costs without a cache (every token run again)."""
    cache_bytes: int
    """Bytes of keys and values kept after this step."""


class CachedDecoder:
    """Greedy decoding with a KV cache, one token per :meth:`step`.

    The first step runs the prompt and keeps its keys and values; every later step runs
    only the newest token: its query attends over the keys and values in the cache, and
    its own key and value are appended. Queries are not kept: no later step needs them.

    Parameters
    ----------
    model : TinyTransformer
        Used decoder-only (no source sentence).
    prompt_ids : sequence of int
        The tokens to start from.
    capacity : int
        Tokens to reserve cache room for (it grows if needed).

    Examples
    --------
    >>> decoder = CachedDecoder(lesson_model(), to_ids("The cat sat"))
    >>> first = decoder.step()                 # the prompt: 3 tokens run
    >>> second = decoder.step()                # then one token at a time
    >>> first.new_tokens, second.new_tokens, len(decoder), to_words(decoder.ids)
    (3, 1, 4, 'The cat sat cat on')
    >>> second.cache_bytes                     # 2 · 2 layers · 4 heads · 4 · 4 tokens · 4 bytes
    1024
    >>> second.flops, second.flops_uncached
    (13024, 51424)
    """

    def __init__(self, model: TinyTransformer, prompt_ids, capacity: int = 32):
        if not isinstance(model, TinyTransformer):
            raise TypeError(f"model must be a TinyTransformer, got {type(model).__name__}")
        self.model = model
        self.capacity = positive_int(capacity, "capacity")
        self.state = model.start(prompt_ids, capacity=self.capacity)  # checks the prompt
        self.prompt = np.array(self.state.ids)
        self.reset()

    def reset(self) -> None:
        """Forget every generated token and empty the caches."""
        self.ids = [int(i) for i in self.prompt]
        self.state = None  # the next step() runs the prompt again: model.start
        self.steps: list[DecodeStep] = []

    def __len__(self) -> int:
        """Tokens in the cache (each layer keeps the same number)."""
        return 0 if self.state is None else len(self.state.caches[0])

    @property
    def caches(self) -> list:
        """Each layer's :class:`~qkv_helpers.kv_cache.KVCache` (none before the first step)."""
        return [] if self.state is None else self.state.caches

    @property
    def cache_bytes(self) -> int:
        """Bytes of every layer's kept keys and values."""
        return sum(cache.nbytes for cache in self.caches)

    def key_norms(self) -> np.ndarray:
        """Length of every kept key: ``(layers · heads, tokens)``, layer by layer."""
        return np.concatenate([np.linalg.norm(c.keys, axis=-1) for c in self.caches])

    def step(self) -> DecodeStep:
        """Decode one token: run the new tokens, append their K and V, pick the next id."""
        model = self.model
        context = len(self.ids)
        if self.state is None:  # the prompt first: model.start, the prefill
            self.state = model.start(self.prompt, capacity=self.capacity)
        else:  # then the newest token: model.step
            model.step(self.state, self.ids[-1])
        token = int(self.state.logits.argmax())
        self.ids.append(token)
        sizes = dict(d_model=model.d_model, n_layers=model.n_layers,
                     vocab_size=model.vocab_size, d_ff=model.d_ff)
        step = DecodeStep(token, context, self.state.new_tokens, self.state.flops,
                          step_flops(context, context, **sizes), self.cache_bytes)
        self.steps.append(step)
        return step


def cache_growth(model: TinyTransformer, prompt_ids, new_tokens: int
                 ) -> tuple[np.ndarray, np.ndarray]:
    """Decode with a cache and measure it after every step.

    Returns
    -------
    tokens : numpy.ndarray, shape (new_tokens,)
        Tokens kept in the cache after each step.
    nbytes : numpy.ndarray, shape (new_tokens,)
        Bytes of the kept keys and values after each step, as numpy reports them for the
        arrays themselves (``keys.nbytes + values.nbytes``, summed over the layers).

    Examples
    --------
    >>> cache_growth(lesson_model(), to_ids("The cat sat"), 3)
    (array([3, 4, 5]), array([ 768, 1024, 1280]))
    """
    decoder = CachedDecoder(model, prompt_ids)
    tokens, nbytes = [], []
    for _ in range(positive_int(new_tokens, "new_tokens")):
        decoder.step()
        tokens.append(len(decoder))
        nbytes.append(sum(c.keys.nbytes + c.values.nbytes for c in decoder.caches))
    return np.array(tokens), np.array(nbytes)


class SpeedupMeasurement(NamedTuple):
    """Cached and uncached generation timed for several lengths (see :func:`measure_speedup`)."""

    lengths: np.ndarray
    """``(n,)``: tokens generated, T."""
    seconds_cached: np.ndarray
    """``(n,)``: time of generating T tokens with the cache (the fastest run)."""
    seconds_uncached: np.ndarray
    """``(n,)``: the same without the cache."""
    flops_cached: np.ndarray
    """``(n,)``: total FLOPs counted with the cache."""
    flops_uncached: np.ndarray
    """``(n,)``: total FLOPs counted without."""
    fit: StepTimeFit
    """Step time = overhead + seconds_per_flop · FLOPs, fitted to every run."""

    @property
    def speedup(self) -> np.ndarray:
        """Measured: uncached over cached time."""
        return self.seconds_uncached / self.seconds_cached

    @property
    def flop_ratio(self) -> np.ndarray:
        """Theory: uncached over cached FLOPs."""
        return self.flops_uncached / self.flops_cached

    @property
    def predicted(self) -> np.ndarray:
        """Theory with the fitted per-step overhead."""
        return predicted_speedup(self.fit, self.lengths, self.flops_cached,
                                 self.flops_uncached)


def measure_speedup(model: TinyTransformer, prompt_ids, lengths, repeats: int = 3
                    ) -> SpeedupMeasurement:
    """Time greedy generation of each length in ``lengths``, with and without the cache.

    Each length runs ``repeats`` times per variant, the two interleaved, and the fastest
    run counts: the one other work on the machine disturbed least. The
    FLOPs are those counted by the model, which :func:`~qkv_helpers.kv_math.decoding_flops`
    predicts exactly.

    Examples
    --------
    >>> m = measure_speedup(lesson_model(), [0, 1, 2], [4, 8], repeats=1)
    >>> m.flops_uncached > m.flops_cached
    array([ True,  True])
    >>> bool((m.seconds_cached > 0).all())
    True
    """
    lengths = np.asarray([positive_int(int(t), "lengths") for t in lengths])  # (n,)
    repeats = positive_int(repeats, "repeats")
    model.generate(prompt_ids, 4)  # warm up
    model.generate(prompt_ids, 4, use_cache=False)
    seconds = {True: [], False: []}
    flops = {True: [], False: []}
    for t in lengths:
        runs = {True: [], False: []}
        counted = {}
        for r in range(repeats):
            for use_cache in ((True, False) if r % 2 == 0 else (False, True)):
                gen = model.generate(prompt_ids, int(t), use_cache=use_cache)
                runs[use_cache].append(gen.seconds)
                counted[use_cache] = gen.flops  # the same in every repeat
        for use_cache in (True, False):
            seconds[use_cache].append(min(runs[use_cache]))
            flops[use_cache].append(counted[use_cache])
    cached_s, uncached_s = np.array(seconds[True]), np.array(seconds[False])  # (n,)
    cached_f, uncached_f = np.array(flops[True]), np.array(flops[False])  # (n,)
    fit = fit_step_time(np.concatenate([lengths, lengths]),
                        np.concatenate([cached_f, uncached_f]),
                        np.concatenate([cached_s, uncached_s]))
    return SpeedupMeasurement(lengths, cached_s, uncached_s, cached_f, uncached_f, fit)
