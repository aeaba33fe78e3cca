"""Lesson 09's experiments: decode token by token, with and without a KV cache, and measure.

- :func:`lesson_model` is the small decoder the lesson and its widget decode with, over
  the words of the running example (:data:`WORDS`); :func:`to_words` and :func:`to_ids`
  translate.
- :class:`CachedDecoder` decodes **one token per call** of :meth:`CachedDecoder.step`,
  keeping a :class:`~qkv_helpers.kv_cache.KVCache` per layer, so the lesson's "next
  token" button can show the cache growing. It makes the same tokens, FLOPs and cache
  bytes as ``TinyTransformer.generate`` (a test checks).

numpy only.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from .. import _text as lang  # lang.t: loads the texts when a message is needed
from .. import _validate as validate
from ..decoding import TinyTransformer
from ..kv_cache.arithmetic import StepTimeFit, fit_step_time, predicted_speedup, step_flops
from .long_context import measure_peak_memory

__all__ = [
    "LESSON_SEED",
    "TIMING_CONTEXTS",
    "WORDS",
    "CachedDecoder",
    "DecodeStep",
    "CacheMemory",
    "StepMemory",
    "StepTimes",
    "cache_memory",
    "is_increasing",
    "lesson_model",
    "measure_step_times",
    "step_memory",
    "timing_model",
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
    if not isinstance(text, str):
        raise TypeError(lang.t("err_words_text", got=f"{type(text).__name__} {text!r:.40}"))
    ids = []
    for word in text.split():
        if word not in WORDS:
            raise ValueError(lang.t("err_words_word", words=WORDS, got=repr(word)))
        ids.append(WORDS.index(word))
    return ids


def to_words(ids) -> str:
    """The words of token ids, joined by spaces.

    >>> to_words([1, 2, 6])
    'cat sat .'
    """


    if isinstance(ids, (str, bytes)) or not hasattr(ids, "__iter__"):
        raise TypeError(lang.t("err_ids_type", got=repr(ids)))
    return " ".join(WORDS[validate.integer(i, "each of ids", 0, len(WORDS) - 1)] for i in ids)


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
        validate.instance_of(model, "model", TinyTransformer, "e.g. lesson_model()")
        self.model = model
        self.capacity = validate.integer(capacity, "capacity", 1)
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


# --- lesson 09, measured: what one step allocates, what the cache reserves, per-step time ---


class CacheMemory(NamedTuple):
    """The cache of a decoding run, after every step (see :func:`cache_memory`)."""

    tokens: np.ndarray
    """``(steps,)``: tokens kept after each step."""
    used_nbytes: np.ndarray
    """``(steps,)``: bytes of the keys and values kept (``KVCache.nbytes``, all layers)."""
    allocated_nbytes: np.ndarray
    """``(steps,)``: bytes reserved for keys and values, used or not
    (``KVCache.allocated_nbytes``, all layers): room for prompt + new tokens from the start."""


def cache_memory(model: TinyTransformer, prompt_ids, new_tokens: int) -> CacheMemory:
    """Decode ``new_tokens`` tokens with a cache sized as ``generate`` sizes it, and measure.

    ``TinyTransformer.generate`` reserves room for ``prompt + new_tokens`` tokens before
    the first step, as most inference code does: the bytes *in use* grow by one token per
    step while the bytes *reserved* stay flat at their final size. Serving systems lose
    that gap for every sequence; a paged cache (lesson 13) reserves small blocks instead.

    Examples
    --------
    >>> mem = cache_memory(lesson_model(), to_ids("The cat sat"), 3)
    >>> mem.tokens.tolist(), mem.used_nbytes.tolist(), mem.allocated_nbytes.tolist()
    ([3, 4, 5], [768, 1024, 1280], [1536, 1536, 1536])
    """
    validate.instance_of(model, "model", TinyTransformer, "e.g. lesson_model()")
    new_tokens = validate.integer(new_tokens, "new_tokens", 1)
    if isinstance(prompt_ids, (str, bytes)) or not hasattr(prompt_ids, "__len__"):
        raise TypeError(lang.t("err_prompt_ids_type",
                               got=f"{type(prompt_ids).__name__} {prompt_ids!r}"))
    decoder = CachedDecoder(model, prompt_ids, capacity=len(prompt_ids) + new_tokens)
    tokens, used, allocated = [], [], []
    for _ in range(new_tokens):
        decoder.step()
        tokens.append(len(decoder))
        used.append(sum(c.nbytes for c in decoder.caches))
        allocated.append(sum(c.allocated_nbytes for c in decoder.caches))
    return CacheMemory(np.array(tokens), np.array(used), np.array(allocated))


class StepMemory(NamedTuple):
    """Memory of one decoding step at each context length (see :func:`step_memory`)."""

    contexts: np.ndarray
    """``(n,)``: tokens so far, t, when the step runs."""
    peak_uncached: np.ndarray
    """``(n,)``: peak bytes allocated while one uncached step runs (it keeps nothing):
    every token's activations and the ``(heads, t, t)`` scores of each layer."""
    peak_cached: np.ndarray
    """``(n,)``: peak bytes allocated while one cached step runs, beyond the cache it
    finds: one token's activations and ``(heads, 1, t)`` scores."""
    cache_nbytes: np.ndarray
    """``(n,)``: bytes of keys and values the cache keeps between steps (t tokens)."""


def step_memory(model: TinyTransformer, contexts, seed: int = 0) -> StepMemory:
    """Measure, with :mod:`tracemalloc`, the memory of one step with and without a cache.

    For each context length t the same random token ids run (``seed``): without a cache,
    one step of ``generate(ids[:t], 1, use_cache=False)`` (t tokens through the decoder);
    with a cache, the step after a prefill of t − 1 tokens (one token through the decoder,
    its query attending over t keys). numpy reports its arrays to tracemalloc, so the
    peak counts every temporary array the step makes.

    The comparison the lesson draws: the cache holds ``cache_nbytes`` *between* steps; a
    step without a cache holds nothing between steps but allocates more *during* one.

    Examples
    --------
    >>> mem = step_memory(lesson_model(), [8, 60])
    >>> mem.cache_nbytes.tolist()                  # 2 · 2 layers · 4 heads · 4 · t · 4 bytes
    [2048, 15360]
    >>> bool((mem.peak_uncached > mem.peak_cached).all())
    True
    """
    validate.instance_of(model, "model", TinyTransformer, "e.g. lesson_model()")
    # (n,): a prefill, then a cached step
    contexts = validate.int_sequence(contexts, "contexts", low=2)
    rng = np.random.default_rng(validate.seed(seed))
    ids = rng.integers(model.vocab_size, size=int(contexts.max()))
    peak_uncached, peak_cached, kept = [], [], []
    for t in contexts:
        prompt = ids[:t].tolist()
        peak_uncached.append(measure_peak_memory(
            lambda p=prompt: model.generate(p, 1, use_cache=False)))
        decoder = CachedDecoder(model, prompt[:-1], capacity=int(t))
        decoder.step()  # the prefill: t − 1 tokens into the cache
        peak_cached.append(measure_peak_memory(decoder.step))  # one token, t keys and values
        kept.append(decoder.cache_bytes)
    return StepMemory(contexts, np.array(peak_uncached), np.array(peak_cached),
                      np.array(kept))


class StepTimes(NamedTuple):
    """Time of one decoding step against the context length (see :func:`measure_step_times`)."""

    contexts: np.ndarray
    """``(n,)``: tokens so far, t, when the step runs."""
    seconds_cached: np.ndarray
    """``(n,)``: one cached step (one token run), the fastest of the repeats."""
    seconds_uncached: np.ndarray
    """``(n,)``: one uncached step (t tokens run), the fastest of the repeats."""
    flops_cached: np.ndarray
    """``(n,)``: FLOPs counted in the cached step."""
    flops_uncached: np.ndarray
    """``(n,)``: FLOPs counted in the uncached step."""
    fit: StepTimeFit
    """Step time = overhead + seconds_per_flop · FLOPs, fitted to both kinds of step
    (least squares of the relative errors)."""

    @property
    def speedup(self) -> np.ndarray:
        """Measured: uncached over cached step time, ``(n,)``."""
        return self.seconds_uncached / self.seconds_cached

    @property
    def flop_ratio(self) -> np.ndarray:
        """Theory: uncached over cached FLOPs, ``(n,)`` (close to t)."""
        return self.flops_uncached / self.flops_cached

    @property
    def predicted(self) -> np.ndarray:
        """Theory with the fitted per-step overhead, ``(n,)``."""
        return predicted_speedup(self.fit, np.ones(len(self.contexts)), self.flops_cached,
                                 self.flops_uncached)


def _one_blas_thread():
    """A context limiting BLAS to one thread, if threadpoolctl is installed.

    Without it the limit must come from ``OPENBLAS_NUM_THREADS=1`` (and ``OMP_…``,
    ``MKL_…``) set before numpy is imported, as lesson 09's first cell and ``make`` do.
    """
    import contextlib

    try:
        from threadpoolctl import threadpool_limits
    except ImportError:
        return contextlib.nullcontext()
    return threadpool_limits(limits=1, user_api="blas")


def measure_step_times(model: TinyTransformer, contexts, repeats: int = 5,
                       seed: int = 0) -> StepTimes:
    """Time one decoding step, with and without the cache, at each context length.

    At context t (the same random ids, ``seed``) the uncached step is
    ``generate(ids[:t], 1, use_cache=False)``: t tokens through the decoder. The cached
    step is the second step of ``generate(ids[:t - 1], 2)``: one token through the
    decoder, attending over t keys and values. Only the step itself is timed (the
    ``seconds`` of its :class:`~qkv_helpers.decoding.Step`).

    To measure the computation and not the machine's other work: one BLAS thread (see
    :func:`_one_blas_thread`), one untimed run of each kind first (warm-up), ``repeats``
    runs per context with the two kinds interleaved, and the fastest run kept.

    Examples
    --------
    >>> m = measure_step_times(lesson_model(), [4, 8], repeats=1)
    >>> m.flops_uncached.tolist(), m.flops_cached.tolist()
    ([51424, 106720], [13024, 13536])
    >>> bool((m.seconds_cached > 0).all())
    True
    """
    validate.instance_of(model, "model", TinyTransformer, "e.g. timing_model()")
    contexts = validate.int_sequence(contexts, "contexts", low=2,
                                     min_len=2)  # (n,): two to fit a line
    repeats = validate.integer(repeats, "repeats", 1)
    rng = np.random.default_rng(validate.seed(seed))
    ids = rng.integers(model.vocab_size, size=int(contexts.max()))
    ids = ids.tolist()

    def uncached(t):
        return model.generate(ids[:t], 1, use_cache=False).steps[0]

    def cached(t):
        return model.generate(ids[:t - 1], 2).steps[1]

    seconds = {cached: [], uncached: []}
    flops = {cached: [], uncached: []}
    with _one_blas_thread():
        for kind in (cached, uncached):  # warm-up
            kind(int(contexts[0]))
        for t in contexts.tolist():
            runs = {cached: [], uncached: []}
            counted = {}
            for r in range(repeats):
                for kind in ((cached, uncached) if r % 2 == 0 else (uncached, cached)):
                    step = kind(t)
                    runs[kind].append(step.seconds)
                    counted[kind] = step.flops  # the same in every repeat
            for kind in (cached, uncached):
                seconds[kind].append(min(runs[kind]))
                flops[kind].append(counted[kind])
    s_cached, s_uncached = np.array(seconds[cached]), np.array(seconds[uncached])  # (n,)
    f_cached, f_uncached = np.array(flops[cached]), np.array(flops[uncached])  # (n,)
    # Fitted to relative errors (each row divided by its time): otherwise the slowest
    # uncached steps decide the fit alone and the overhead of the cached steps is lost.
    seconds_all = np.concatenate([s_cached, s_uncached])  # (2n,)
    fit = fit_step_time(1 / seconds_all, np.concatenate([f_cached, f_uncached]) / seconds_all,
                        np.ones(2 * len(contexts)))
    return StepTimes(contexts, s_cached, s_uncached, f_cached, f_uncached, fit)


def is_increasing(values) -> bool:
    """True if every value is larger than the one before (a curve that only climbs).

    >>> is_increasing([1, 2, 5]), is_increasing([1, 3, 2])
    (True, False)
    """
    values = validate.array(values, "values", ndim=1, shape="(n,)", widen=True, empty=False)  # (n,)
    return bool((np.diff(values) > 0).all())


#: Context lengths at which lesson 09 (and ``benchmarks/bench_lesson09.py``) time one step.
TIMING_CONTEXTS = (16, 32, 64, 128, 256, 512)


def timing_model() -> TinyTransformer:
    """Lesson 09's model for counting and timing: vocabulary 256, d_model 128, 4 heads, 2 layers.

    Large enough that an uncached step's matrix products, not Python's per-call overhead,
    take most of its time once t reaches a few dozen tokens; small enough to time in
    about a second. Its attention costs less than its other matrix products while
    t < 6 · d_model = 768.

    >>> timing_model().d_model, timing_model().n_layers
    (128, 2)
    """
    return TinyTransformer(vocab_size=256, d_model=128, n_heads=4, n_layers=2, seed=0)
