"""Lesson 14's English→Korean translator: trained in numpy, every gradient written out.

The model is :class:`~qkv_helpers.decoding.TinyTransformer`'s architecture with one
encoder and one decoder layer (pre-norm, ReLU feed-forward, sinusoidal positions, no
biases, layer norm without learned scale or shift, one embedding table for both
languages)::

    encoder:  x = E[src] + PE;  x += self_attn(LN(x));  x += ffn(LN(x));  memory = LN(x)
    decoder:  y = E[tgt] + PE;  y += masked_self_attn(LN(y))
              y += cross_attn(LN(y), memory);  y += ffn(LN(y))
              logits = LN(y) · W_out

The encoder and the decoder are one :class:`~qkv_helpers.block.Block` each, the block
every model of the course runs. :meth:`Translator.forward` runs them on a padded batch
and keeps what the backward needs; :meth:`Translator.backward` walks the same lines in
reverse (:func:`~qkv_helpers.block.block_backward`, each op's backward from
:mod:`qkv_helpers.backprop`). :func:`train` runs Adam with warm-up, cosine decay and
clipping, and records the curve. :meth:`Translator.as_tiny_transformer` hands the same
blocks to ``TinyTransformer`` for lessons 08 and 09.

``encoder_self_attention=False`` leaves the encoder's self-attention out: each
memory vector then depends on its own word and position only, so a cross-attention
head that reads a word must read it from that word's own position.
"""

from __future__ import annotations

import json
import math
import time
from pathlib import Path
from typing import NamedTuple

import numpy as np

from . import _validate as validate
from . import backprop as bp
from ._text import t
from ._threads import threadpool_limits
from .block import AttentionWeights, Block, block, block_backward
from .decoding import sinusoidal_positions
from .layer_norm import layer_norm_backward, normalize
from .masks import causal_mask
from .toy_corpus import (  # noqa: F401
    ADJECTIVES,
    PLACES,
    PREPOSITIONS,
    SUBJECTS,
    VERBS,
    Pair,
    Vocabulary,  # (Pair: doctests)
    build_sentence,
    make_corpus,
)

__all__ = [
    "Batch",
    "TrainingRun",
    "Translator",
    "alignment_agreement",
    "alignment_by_role",
    "chance_agreement",
    "token_accuracy",
    "push_agreement",
    "score_push",
    "TRAINED_WEIGHTS",
    "TRAINING_SETTINGS",
    "exact_match",
    "describe_landing",
    "gradient_check",
    "gradient_check_by_eps",
    "load_trained",
    "make_batch",
    "trained_translation_example",
    "train",
    "where_attention_lands",
]

_ATTN = ("w_q", "w_k", "w_v", "w_o")
_SAVED_NAMES = {"w_in": "w_1", "w_out": "w_2"}  # the block's names, the saved file's names

TRAINED_WEIGHTS = Path(__file__).parent / "data" / "translator.npz"
"""The committed weights of lesson 14's translator, written by ``make train``."""

TRAINING_SETTINGS = {"steps": 300, "batch_size": 32, "lr": 1e-2, "warmup": 20, "n_heads": 1,
                     "encoder_self_attention": False, "seed": 0}
"""The settings :data:`TRAINED_WEIGHTS` was trained with (``train``'s defaults)."""


class Batch(NamedTuple):
    """A padded batch: ids, with 0 (``<pad>``) after each sentence's end."""

    source: np.ndarray
    """``(B, n_src)``: English ids, then ``<eos>``."""
    target_in: np.ndarray
    """``(B, n_tgt)``: ``<bos>``, then the Korean ids (what the decoder reads)."""
    target_out: np.ndarray
    """``(B, n_tgt)``: the Korean ids, then ``<eos>`` (what it must predict)."""


def _check_ids(ids, name: str, vocab_size: int) -> np.ndarray:
    return validate.token_ids(ids, name, vocab_size, ndim=2, array_only=True,
                              shape="(B, n), e.g. make_batch(pairs, vocab).source")


def _check_batch(batch, vocab_size: int) -> Batch:
    validate.instance_of(batch, "batch", Batch, "make_batch(pairs, vocab)")
    return Batch(*(_check_ids(getattr(batch, field), f"batch.{field}", vocab_size)
                   for field in Batch._fields))


def _check_weights(weights, pairs, heads) -> np.ndarray:
    """Cross-attention ``(B, H, n_tgt, n_src)`` in 0..1 for ``pairs``; ``heads`` checked."""
    weights = validate.array(weights, "weights", ndim=4, empty=False,
                             shape="(B, H, n_tgt, n_src)")
    if weights.min() < 0 or weights.max() > 1 + 1e-6:
        raise ValueError(t("err_attention_weights_range", low=f"{weights.min():g}",
                           high=f"{weights.max():g}"))
    if not isinstance(pairs, (list, tuple)) or not pairs or not all(
            isinstance(p, Pair) for p in pairs):
        raise TypeError(t("err_pairs_list", got=f"{type(pairs).__name__} {pairs!r}"[:150]))
    b, _, n_tgt, n_src = weights.shape
    if len(pairs) != b or any(len(p.korean) > n_tgt or len(p.english) + 1 > n_src
                              for p in pairs):
        raise ValueError(t("err_pairs_weights", n=len(pairs), shape=weights.shape))
    if not (isinstance(heads, str) and heads == "mean"):
        validate.integer(heads, "heads", 0, weights.shape[1] - 1)
    return weights


def make_batch(pairs, vocab: Vocabulary) -> Batch:
    """Token ids of ``pairs``, padded to the longest sentence of the batch."""
    validate.instance_of(vocab, "vocab", Vocabulary, "e.g. qk.toy_corpus.Vocabulary()")
    if not isinstance(pairs, (list, tuple)) or not pairs or not all(
            isinstance(p, Pair) for p in pairs):
        raise TypeError(t("err_pairs_list", got=f"{type(pairs).__name__} {pairs!r}"[:150]))
    return _padded([(vocab.encode(p.english), vocab.encode(p.korean)) for p in pairs], vocab)


def _padded(encoded, vocab: Vocabulary) -> Batch:
    """:func:`make_batch` of sentences already encoded: ``[(english ids, korean ids), …]``."""
    src = [english + [vocab.eos] for english, _ in encoded]
    ko = [korean for _, korean in encoded]
    n_src, n_tgt = max(map(len, src)), max(map(len, ko)) + 1
    source = np.zeros((len(src), n_src), np.int64)  # (B, n_src)
    target_in = np.zeros((len(src), n_tgt), np.int64)  # (B, n_tgt)
    target_out = np.zeros((len(src), n_tgt), np.int64)
    for i, (s, k) in enumerate(zip(src, ko)):
        source[i, : len(s)] = s
        target_in[i, : len(k) + 1] = [vocab.bos, *k]
        target_out[i, : len(k) + 1] = [*k, vocab.eos]
    return Batch(source, target_in, target_out)


class Translator:
    """A one-layer encoder–decoder with a hand-written backward pass.

    Parameters
    ----------
    vocab_size : int
    d_model : int
        Width of the token vectors (32 in lesson 14).
    n_heads : int
        Heads of every attention; must divide ``d_model``.
    d_ff : int, optional
        Feed-forward width, ``4 · d_model`` by default.
    encoder_self_attention : bool
        Whether the encoder has its self-attention sub-layer.
    seed : int
        Seed of the initial weights: normal with standard deviation ``1/√fan_in``.
    dtype : float64 (the default) or float32
        Training is chaotic: in float32 another CPU's BLAS kernel, summing in another
        order, changes the trained weights in their 2nd digit; in float64 by about 1e-12.

    Attributes
    ----------
    params : dict of str → ndarray
        ``embedding (V, d)``, ``enc.self.w_q`` …, ``enc.w_1 (d, d_ff)``, ``enc.w_2``,
        ``dec.self.*``, ``dec.cross.*``, ``dec.w_1``, ``dec.w_2``, ``w_out (d, V)``.

    Examples
    --------
    >>> vocab = Vocabulary()
    >>> model = Translator(len(vocab), d_model=32, n_heads=1, seed=0)
    >>> model.n_parameters
    34560
    >>> pairs = make_corpus(n_train=4, n_valid=1, n_heldout=1).train
    >>> logits, cache = model.forward(make_batch(pairs, vocab))
    >>> logits.shape, logits.dtype                      # (B, n_tgt, vocab_size)
    ((4, 7, 92), dtype('float64'))
    """

    def __init__(self, vocab_size: int, d_model: int = 32, n_heads: int = 1,
                 d_ff: int | None = None, encoder_self_attention: bool = True,
                 seed: int = 0, dtype=np.float64):
        self.vocab_size = validate.integer(vocab_size, "vocab_size", 1)
        self.d_model = validate.integer(d_model, "d_model", 1)
        self.n_heads = validate.heads(self.d_model, n_heads)
        self.d_ff = 4 * self.d_model if d_ff is None else validate.integer(d_ff, "d_ff", 1)
        self.encoder_self_attention = validate.flag(encoder_self_attention,
                                                    "encoder_self_attention")
        self.dtype = validate.float_dtype(dtype, allowed=(np.float32, np.float64))
        rng = np.random.default_rng(validate.seed(seed))
        d, f, v = self.d_model, self.d_ff, self.vocab_size
        shapes = {"embedding": (v, d)}
        attentions = (["enc.self"] if self.encoder_self_attention else []) + [
            "dec.self", "dec.cross"]
        for a in attentions:
            shapes.update({f"{a}.{w}": (d, d) for w in _ATTN})
        for part in ("enc", "dec"):
            shapes.update({f"{part}.w_1": (d, f), f"{part}.w_2": (f, d)})
        shapes["w_out"] = (d, v)
        self.params = {}
        for name, shape in shapes.items():
            std = 1.0 if name == "embedding" else 1 / math.sqrt(shape[0])
            self.params[name] = rng.normal(0.0, std, shape).astype(self.dtype)
        self._positions = sinusoidal_positions(32, d, self.dtype)  # (32, d)

    @property
    def n_parameters(self) -> int:
        """Number of trained numbers."""
        return sum(p.size for p in self.params.values())

    # --- forward: two blocks (qkv_helpers.block) ------------------------------------------

    def blocks(self):
        """``(encoder, decoder)``: the two :class:`~qkv_helpers.block.Block` s, over
        :attr:`params`' own arrays (training updates them in place)."""
        p = self.params

        def attention(prefix):
            if prefix + ".w_q" not in p:  # the encoder without self-attention
                return None
            return AttentionWeights(self.n_heads, *(p[f"{prefix}.{w}"] for w in _ATTN))

        encoder = Block(attention("enc.self"), p["enc.w_1"], p["enc.w_2"])
        decoder = Block(attention("dec.self"), p["dec.w_1"], p["dec.w_2"],
                        cross_attention=attention("dec.cross"))
        return encoder, decoder

    def as_tiny_transformer(self):
        """This translator as a :class:`~qkv_helpers.decoding.TinyTransformer` (lessons 08
        and 09): the same two blocks and arrays, so ``generate`` (cached or not) translates.

        >>> tiny = load_trained()[0].as_tiny_transformer()
        >>> vocab = Vocabulary()
        >>> source = vocab.encode(["the", "cat", "sat", "on", "the", "mat", "<eos>"])
        >>> vocab.decode(tiny.generate([vocab.bos], 5, source_ids=source).ids)
        ['고양이가', '매트', '위에', '앉았다', '<eos>']
        """
        from .decoding import TinyTransformer

        encoder, decoder = self.blocks()
        return TinyTransformer.from_weights(self.params["embedding"], [encoder], [decoder],
                                            self.params["w_out"])

    def _embed_tokens(self, ids):
        n = ids.shape[1]
        if n > len(self._positions):
            self._positions = sinusoidal_positions(2 * n, self.d_model, self.dtype)
        return bp.embedding(self.params["embedding"], ids) + self._positions[:n]  # (B, n, d)

    def encode(self, source, cache=None):
        """The memory ``(B, n_src, d)`` of a padded source batch ``(B, n_src)``."""
        cache = {} if cache is None else cache
        key_mask = (source != 0)[:, None, None, :]  # (B, 1, 1, n_src): not padding
        x = self._embed_tokens(source)  # (B, n_src, d)
        x, cache["enc"] = block(self.blocks()[0], x, mask=key_mask)
        cache["enc.self"] = cache["enc"].attention  # (None without it)
        cache["enc.ln_out"] = normalize(x)  # memory = LN(x), and its 1/σ
        return cache["enc.ln_out"].y  # (B, n_src, d)

    def decode(self, target_in, memory, source, cache=None):
        """Logits ``(B, n_tgt, V)`` of the token after each position of ``target_in``."""
        cache = {} if cache is None else cache
        n = target_in.shape[1]
        self_mask = causal_mask(n) & (target_in != 0)[:, None, None, :]  # (B, 1, n, n)
        cross_mask = (source != 0)[:, None, None, :]  # (B, 1, 1, n_src)
        y = self._embed_tokens(target_in)  # (B, n_tgt, d)
        y, cache["dec"] = block(self.blocks()[1], y, mask=self_mask, memory=memory,
                                memory_mask=cross_mask)
        cache["dec.self"], cache["dec.cross"] = cache["dec"].attention, cache[
            "dec"].cross_attention
        cache["dec.ln_out"] = normalize(y)
        h = cache["logits_in"] = cache["dec.ln_out"].y  # LN(y)
        return bp.linear(h, self.params["w_out"])  # (B, n_tgt, V)

    def forward(self, batch: Batch):
        """Logits ``(B, n_tgt, V)`` and the cache of everything the backward needs.

        ``cache["enc.self"]``, ``cache["dec.self"]``, ``cache["dec.cross"]`` are each
        attention's :class:`~qkv_helpers.block.AttentionTrace` (``.weights``
        ``(B, H, n_q, n_k)``); ``cache["enc"]``, ``cache["dec"]`` the blocks' traces.
        """
        cache = {"batch": batch}
        memory = self.encode(batch.source, cache)
        return self.decode(batch.target_in, memory, batch.source, cache), cache

    def loss(self, batch: Batch) -> float:
        """The mean cross-entropy of the batch's Korean tokens (and ``<eos>``)."""
        logits, _ = self.forward(batch)
        return float(bp.cross_entropy(logits, batch.target_out)[0])

    # --- backward: the same lines, in reverse ---------------------------------------------

    def backward(self, d_logits, cache) -> dict:
        """The gradient of the loss with respect to every parameter, from ``d_logits``."""
        grads = {}
        batch = cache["batch"]
        encoder, decoder = self.blocks()
        # logits = LN(y)·W_out
        d_h, grads["w_out"] = bp.linear_backward(d_logits, cache["logits_in"],
                                                 self.params["w_out"])
        d_y = layer_norm_backward(d_h, *cache["dec.ln_out"])  # (B, n_tgt, d)
        d_y, d_memory, weights, cache["dec.cross.d_heads"] = block_backward(
            decoder, d_y, cache["dec"])
        grads.update(_named("dec", weights))
        d_table = bp.embedding_backward(d_y, batch.target_in, self.vocab_size)
        # the encoder: memory = LN(x)
        d_x = layer_norm_backward(d_memory, *cache["enc.ln_out"])  # (B, n_src, d)
        d_x, _, weights, _ = block_backward(encoder, d_x, cache["enc"])
        grads.update(_named("enc", weights))
        grads["embedding"] = d_table + bp.embedding_backward(d_x, batch.source, self.vocab_size)
        return grads

    def loss_and_grads(self, batch: Batch):
        """``(loss, grads)``: one forward, one backward."""
        logits, cache = self.forward(batch)
        loss, probabilities = bp.cross_entropy(logits, batch.target_out)
        return float(loss), self.backward(bp.cross_entropy_backward(probabilities,
                                                                    batch.target_out), cache)

    # --- using it ----------------------------------------------------------------------------

    def cross_attention(self, batch: Batch) -> np.ndarray:
        """The decoder's cross-attention weights, teacher-forced: ``(B, H, n_tgt, n_src)``.

        Row ``i`` is the query that predicts Korean token ``i`` (reading ``<bos>`` and
        the tokens before it).
        """
        batch = _check_batch(batch, self.vocab_size)
        _, cache = self.forward(batch)
        return cache["dec.cross"].weights

    def greedy(self, source, max_len: int = 8) -> np.ndarray:
        """Greedy translation of a padded source batch: ``(B, ≤ max_len)`` ids, each
        sentence's tokens then ``<eos>`` (and padding after it)."""
        source = _check_ids(source, "source", self.vocab_size)
        max_len = validate.integer(max_len, "max_len", 1)
        memory = self.encode(source)
        out = np.full((len(source), 1), 1, np.int64)  # (B, 1): <bos>
        done = np.zeros(len(source), bool)
        for _ in range(max_len):
            logits = self.decode(out, memory, source)  # (B, t, V)
            nxt = np.where(done, 0, logits[:, -1].argmax(-1))  # (B,)
            out = np.concatenate([out, nxt[:, None]], axis=1)
            done |= nxt == 2
            if done.all():
                break
        return out[:, 1:]

    def translate(self, pairs, vocab: Vocabulary) -> list:
        """Greedy translations of ``pairs`` as lists of Korean tokens (without ``<eos>``)."""
        ids = self.greedy(make_batch(pairs, vocab).source)
        result = []
        for row in ids:
            row = list(row)
            result.append(vocab.decode(row[: row.index(2)] if 2 in row else row))
        return result


def _named(part: str, block_grads: dict) -> dict:
    """A block's gradients under :attr:`Translator.params`' names: ``self.w_q`` →
    ``enc.self.w_q``; the feed-forward's ``w_in``, ``w_out`` → ``enc.w_1``, ``enc.w_2``
    (the names the saved file keeps)."""
    return {f"{part}.{_SAVED_NAMES.get(name, name)}": g for name, g in block_grads.items()}


def gradient_check(model: Translator, batch: Batch, entries: int = 10, eps: float = 1e-5,
                   seed: int = 0, names=None) -> dict:
    """Relative error, by norm, of :meth:`Translator.backward` against central differences.

    For each parameter, ``entries`` random entries (those of the embedding among the rows
    the batch uses) are nudged by ``±eps`` and the loss recomputed. The norm-based error
    ``‖g − g_num‖ / (‖g‖ + ‖g_num‖)`` is pooled over a tensor's entries, so one entry whose
    gradient is exactly 0 (a ``<pad>`` row) does not divide by zero. If every entry picked
    from a tensor has gradient exactly 0 both ways, nothing was checked: that is an error,
    not a perfect 0. Use a float64 model: float32 rounding alone would give errors near 1e-3.
    ``names``: the parameters to check (all by default).

    ``eps`` trades two errors (:func:`gradient_check_by_eps` measures them): the central
    difference is off by about ε²·(third derivative) (truncation), and the loss's rounding
    error, about 1e-16 of it or somewhat more, divided by 2ε (rounding). In float64 the sum
    is smallest near ε = 1e-4; at ε = 1e-5 rounding already dominates, yet the error stays
    about 100 times below 1e-6. Much larger, and ε may step across a kink of ReLU.
    """
    validate.instance_of(model, "model", Translator,
                         "e.g. Translator(len(vocab), dtype=np.float64)")
    if names is not None:
        names = [validate.token_of(n, "names", model.params) for n in names]
    batch = _check_batch(batch, model.vocab_size)
    entries = validate.integer(entries, "entries", 1)
    eps = validate.positive_number(eps, "eps")
    seed = validate.seed(seed)
    _, grads = model.loss_and_grads(batch)
    rng = np.random.default_rng(seed)
    used = np.unique(np.concatenate([batch.source.ravel(), batch.target_in.ravel()]))
    errors = {}
    for name, param in model.params.items():
        if names is not None and name not in names:
            continue
        flat = param.reshape(-1)
        if name == "embedding":
            rows = (used[:, None] * model.d_model + np.arange(model.d_model)).ravel()
            picks = rng.choice(rows, min(entries, len(rows)), replace=False)
        else:
            picks = rng.choice(flat.size, min(entries, flat.size), replace=False)
        numeric = np.empty(len(picks))
        for j, i in enumerate(picks):
            old = flat[i]
            flat[i] = old + eps
            up = model.loss(batch)
            flat[i] = old - eps
            down = model.loss(batch)
            flat[i] = old
            numeric[j] = (up - down) / (2 * eps)
        analytic = grads[name].reshape(-1)[picks]
        denom = np.linalg.norm(analytic) + np.linalg.norm(numeric)
        if denom == 0:
            raise ValueError(t("err_gradient_check_zero", n=len(picks), name=repr(name),
                               shape=param.shape))
        errors[name] = float(np.linalg.norm(analytic - numeric) / denom)
    return errors


def gradient_check_by_eps(model: Translator, batch: Batch, name: str = "dec.cross.w_q",
                          eps_values=(1e-2, 1e-3, 1e-4, 1e-5, 1e-6, 1e-7, 1e-8, 1e-9),
                          entries: int = 10, seed: int = 0) -> dict:
    """:func:`gradient_check`'s relative error for one parameter ``name`` at each ε:
    ``{eps: error}``, the same entries each time. On log axes it falls as ε² while the
    truncation error dominates, then rises as 1/ε once rounding does.

    >>> vocab = Vocabulary()
    >>> model = Translator(len(vocab), 8, seed=1, dtype=np.float64)
    >>> batch = make_batch(make_corpus(n_train=2, n_valid=1, n_heldout=1).train, vocab)
    >>> errors = gradient_check_by_eps(model, batch, eps_values=(1e-2, 1e-5, 1e-9))
    >>> errors[1e-5] < errors[1e-2] and errors[1e-5] < errors[1e-9]
    True
    """
    validate.instance_of(model, "model", Translator,
                         "e.g. Translator(len(vocab), dtype=np.float64)")
    if not isinstance(eps_values, (list, tuple)) or not eps_values:
        raise ValueError(t("err_eps_values", got=repr(eps_values)[:150]))
    return {eps: gradient_check(model, batch, entries, eps, seed, [name])[name]
            for eps in eps_values}


def exact_match(model: Translator, pairs, vocab: Vocabulary) -> float:
    """The fraction of ``pairs`` whose greedy translation is exactly the gold Korean."""
    validate.instance_of(model, "model", Translator, "e.g. train(...).model")
    translations = model.translate(pairs, vocab)
    return float(np.mean([tuple(words) == p.korean for words, p in zip(translations, pairs)]))


def token_accuracy(logits, batch: Batch, with_eos: bool = True) -> float:
    """Teacher-forced per-token accuracy: how often the most likely next token is the gold
    one, over the batch's Korean tokens and ``<eos>`` (padding left out).

    ``logits (B, n_tgt, V)`` from :meth:`Translator.forward` on ``batch``. The per-token
    counterpart of :func:`alignment_agreement`; exact match needs every token of a sentence.
    ``with_eos=False`` leaves the ``<eos>`` rows out too: the rows the alignment counts.

    >>> b = Batch(np.ones((1, 2), int), np.ones((1, 3), int), np.array([[4, 2, 0]]))
    >>> token_accuracy(np.eye(5)[[[4, 3, 0]]], b), token_accuracy(np.eye(5)[[[4, 3, 0]]], b, False)
    (0.5, 1.0)
    """
    logits = np.asarray(logits)
    kept = (batch.target_out != 0) & (with_eos or (batch.target_out != 2))  # 2: <eos>
    if logits.shape[:2] != batch.target_out.shape:
        raise ValueError(t("err_logits_shape", needed=batch.target_out.shape, got=logits.shape))
    return float((logits.argmax(-1) == batch.target_out)[kept].mean())


def score_push(model: Translator, batch: Batch) -> np.ndarray:
    """The push of one gradient step on each cross-attention score, teacher-forced:
    ``−∂loss/∂S`` ``(B, H, n_tgt, n_src)``, ``S = q·kᵀ/√d`` before the softmax.

    It is minus ``d_S`` of :func:`~qkv_helpers.backprop.attention_backward`'s middle line:
    positive where the step would raise a score (the loss falls if that key is read more),
    negative where it would lower it. Each row sums to 0 (the softmax's Jacobian: raising
    one weight lowers the others); a padding key gets 0. The scores are not parameters:
    W_Q and W_K (and the decoder below them) change so as to follow the push.

    >>> model, vocab = load_trained()[0], Vocabulary()
    >>> push = score_push(model, make_batch([build_sentence("cat", "sat", "on", "mat")], vocab))
    >>> push.shape, bool(np.allclose(push.sum(-1), 0))
    ((1, 1, 5, 7), True)
    """
    validate.instance_of(model, "model", Translator, "e.g. train(...).model")
    batch = _check_batch(batch, model.vocab_size)
    return _loss_grads_and_push(model, batch)[2]


def _loss_grads_and_push(model: Translator, batch: Batch):
    """:meth:`Translator.loss_and_grads`, and the cross-attention's push ``−d_S`` that the
    backward went through on the way (``(B, H, n_tgt, n_src)``)."""
    logits, cache = model.forward(batch)
    loss, probabilities = bp.cross_entropy(logits, batch.target_out)
    grads = model.backward(bp.cross_entropy_backward(probabilities, batch.target_out), cache)
    v, weights = cache["dec.cross"].v, cache["dec.cross"].weights
    d_p = cache["dec.cross.d_heads"] @ v.swapaxes(-1, -2)  # (B, H, n_tgt, n_src)
    return float(loss), grads, -bp.softmax_backward(d_p, weights)


def push_agreement(push, pairs) -> float:
    """How often a Korean token's row is pushed up most at its gold English word.

    ``push (B, H, n_tgt, n_src)`` from :func:`score_push`, heads averaged; the same rows
    as :func:`alignment_agreement` (the Korean tokens', not ``<eos>``'s), and only each
    sentence's own source tokens (a padding key's push is 0).

    >>> pair = Pair(("the", "cat"), ("고양이가",), (1,))
    >>> push_agreement(np.array([[[[-0.2, 0.3, -0.1], [0.5, 0, -0.5]]]]), [pair])
    1.0
    """
    push = validate.array(push, "push", ndim=4, empty=False, shape="(B, H, n_tgt, n_src)")
    _check_weights(np.zeros_like(push), pairs, "mean")  # the shapes fit the sentences
    maps = push.mean(axis=1)  # (B, n_tgt, n_src)
    n_src = np.array([len(p.english) + 1 for p in pairs])  # (B,)
    own = np.arange(maps.shape[-1]) < n_src[:, None, None]  # (B, 1, n_src): not padding
    strongest = np.where(own, maps, -np.inf).argmax(-1)  # (B, n_tgt)
    gold = np.full(strongest.shape, -1)  # (B, n_tgt): -1 where no Korean token
    for i, p in enumerate(pairs):
        gold[i, : len(p.alignment)] = p.alignment
    return float((strongest == gold).sum() / (gold >= 0).sum())


def chance_agreement(pairs) -> float:
    """The alignment agreement of a row that peaks on a random source token: the mean of
    ``1 / n_src`` over the Korean tokens of ``pairs`` (``n_src`` counts ``<eos>``).

    >>> chance_agreement([Pair(("the", "cat"), ("고양이가",), (1,))])   # 3 source tokens
    0.3333333333333333
    """
    shares = [1 / (len(p.english) + 1) for p in pairs for _ in p.korean]
    if not shares:
        raise ValueError(t("err_pairs_no_korean"))
    return float(np.mean(shares))


def alignment_agreement(weights, pairs, heads="mean") -> float:
    """How often a Korean token's cross-attention row peaks on its gold English word.

    ``weights (B, H, n_tgt, n_src)`` are teacher-forced (:meth:`Translator.cross_attention`).
    The rows counted are the Korean tokens' (not ``<eos>``'s); ``heads="mean"`` takes
    the argmax of the head-averaged row, an int takes that head's row.

    >>> pair = Pair(("the", "cat"), ("고양이가",), (1,))
    >>> alignment_agreement(np.array([[[[0.2, 0.7, 0.1], [1, 0, 0]]]]), [pair])
    1.0
    """
    weights = _check_weights(weights, pairs, heads)
    maps = weights.mean(axis=1) if heads == "mean" else weights[:, heads]  # (B, n_tgt, n_src)
    hits = total = 0
    for m, p in zip(maps, pairs):
        n = len(p.korean)
        hits += int((m[:n].argmax(-1) == np.array(p.alignment)).sum())
        total += n
    return hits / total


ROLES = ("adjective", "subject", "place", "postposition", "verb")
"""A Korean token's roles, named by the English word it translates (:func:`alignment_by_role`)."""


def alignment_by_role(weights, pairs, heads="mean") -> dict:
    """:func:`alignment_agreement` for each role of the Korean token: ``{role: (agreement,
    rows)}`` over :data:`ROLES`, a role's rows those whose gold word is an adjective, a
    subject, a place, a preposition (the postposition's row) or a verb; a role with no rows
    in ``pairs`` is left out.

    >>> pair = Pair(("the", "cat", "sat"), ("고양이가", "앉았다"), (1, 2))
    >>> w = np.array([[[[0, 1, 0, 0], [0, 0, 0, 1], [1, 0, 0, 0]]]])   # 앉았다 → <eos>
    >>> alignment_by_role(w, [pair])["verb"], alignment_by_role(w, [pair])["subject"]
    ((0.0, 1), (1.0, 1))
    """
    weights = _check_weights(weights, pairs, heads)
    maps = weights.mean(axis=1) if heads == "mean" else weights[:, heads]  # (B, n_tgt, n_src)
    tables = {"adjective": ADJECTIVES, "subject": SUBJECTS, "place": PLACES,
              "postposition": PREPOSITIONS, "verb": VERBS}
    hits, rows = dict.fromkeys(ROLES, 0), dict.fromkeys(ROLES, 0)
    for m, p in zip(maps, pairs):
        for i, gold in enumerate(p.alignment):
            role = next(r for r in ROLES if p.english[gold] in tables[r])
            rows[role] += 1
            hits[role] += int(m[i].argmax() == gold)
    return {r: (hits[r] / rows[r], rows[r]) for r in ROLES if rows[r]}


def where_attention_lands(weights, pairs, heads="mean") -> dict:
    """Where each Korean token's cross-attention row peaks: fractions of the rows.

    ``"gold"`` its gold English word, ``"the"``, ``"<eos>"``, or ``"other word"``. Same rows
    and heads as :func:`alignment_agreement`, whose value is the ``"gold"`` fraction.

    >>> pair = Pair(("the", "cat", "sat"), ("고양이가", "앉았다"), (1, 2))
    >>> w = np.array([[[[0, 1, 0, 0], [0, 0, 0, 1], [1, 0, 0, 0]]]])   # 앉았다 → <eos>
    >>> where_attention_lands(w, [pair])
    {'gold': 0.5, 'the': 0.0, '<eos>': 0.5, 'other word': 0.0}
    """
    weights = _check_weights(weights, pairs, heads)
    maps = weights.mean(axis=1) if heads == "mean" else weights[:, heads]  # (B, n_tgt, n_src)
    counts = dict.fromkeys(("gold", "the", "<eos>", "other word"), 0)
    for m, p in zip(maps, pairs):
        source = [*p.english, "<eos>"]
        for i, gold in enumerate(p.alignment):
            j = int(m[i].argmax())
            kind = "gold" if j == gold else source[j] if source[j] in ("the", "<eos>") else (
                "other word")
            counts[kind] += 1
    total = sum(counts.values())
    return {kind: n / total for kind, n in counts.items()}


def describe_landing(lands: dict) -> str:
    """:func:`where_attention_lands`'s fractions as one line in the lesson's language.

    >>> from qkv_helpers import setup
    >>> setup(lang="en")
    >>> describe_landing({"gold": 0.5, "the": 0.25, "<eos>": 0.25, "other word": 0.0})
    'gold word 0.50, "the" 0.25, <eos> 0.25, other word 0.00'
    """
    keys = {"gold": "l14_land_gold", "the": "l14_land_the", "<eos>": "l14_land_eos",
            "other word": "l14_land_other"}
    if not isinstance(lands, dict) or set(lands) != set(keys):
        raise ValueError(t("err_lands_dict", keys=list(keys), got=repr(lands)[:150]))
    return ", ".join(f"{t(keys[kind])} {share:.2f}" for kind, share in lands.items())


class TrainingRun(NamedTuple):
    """What :func:`train` gives back."""

    model: Translator
    history: list
    """One dict per evaluation: ``step``, ``loss`` (mean of the steps since the last),
    ``exact_match`` (greedy, held-out), ``token_accuracy`` (teacher-forced, held-out, per
    token), ``token_accuracy_words`` (the same without the ``<eos>`` rows), ``alignment``
    (teacher-forced, held-out, head-averaged), ``alignment_per_head``, ``push``
    (:func:`push_agreement` of the training batches since the last evaluation), ``grad_norm``
    (the largest norm of all gradients together, before clipping, over those steps); at
    step 0, the loss, push and norm are the held-out sentences'."""
    snapshots: list
    """The cross-attention ``(H, n_tgt, n_src)`` of ``corpus.heldout[0]`` at each
    evaluation (step 0 first)."""
    steps: int
    """Training steps taken."""
    seconds: float
    """Wall-clock time, evaluations included."""
    corpus: object
    vocab: Vocabulary
    settings: dict | None = None
    pushes: list | None = None
    """:func:`score_push` ``(H, n_tgt, n_src)`` of ``corpus.heldout[0]`` at each evaluation,
    beside :attr:`snapshots`."""
    """The arguments :func:`train` was called with (``steps``, ``lr``, ``n_train`` …), so a
    check can tell a run that was stopped early from one that broke."""


def train(steps: int = 300, batch_size: int = 32, lr: float = 1e-2, warmup: int = 20,
          n_heads: int = 1, encoder_self_attention: bool = False, seed: int = 0,
          n_train: int = 3000, eval_every: int = 10, n_eval: int = 100,
          stop_at: float | None = None, callback=None, dtype=np.float64) -> TrainingRun:
    """Train a :class:`Translator` on :func:`~qkv_helpers.toy_corpus.make_corpus`.

    Adam (β = 0.9, 0.98), the learning rate warmed up linearly over ``warmup`` steps
    to ``lr`` then decayed to 0 at ``steps`` along a cosine, the gradients' global norm
    clipped at 1.0. Every ``eval_every`` steps the first ``n_eval`` held-out sentences
    (combinations never seen in training) are translated greedily and their
    cross-attention compared with the gold alignment. ``stop_at``: stop at the first
    evaluation whose exact match reaches it. ``callback(record)`` after each evaluation.

    Everything follows from ``seed``: the corpus, the initial weights, the batches. In
    float64 (the default) every CPU and BLAS kernel gives the same printed digits: the
    kernels round the products differently, by about 1e-16, and after 300 chaotic steps
    the weights differ by about 1e-12. In float32 the same rounding (about 1e-7) grows
    into differences in the 2nd digit of the weights, and of the curve.
    """
    steps = validate.integer(steps, "steps", 1)
    batch_size = validate.integer(batch_size, "batch_size", 1)
    lr = validate.positive_number(lr, "lr")
    warmup = validate.integer(warmup, "warmup", 0)
    n_heads = validate.integer(n_heads, "n_heads", 1)
    validate.flag(encoder_self_attention, "encoder_self_attention")
    seed = validate.seed(seed)
    eval_every = validate.integer(eval_every, "eval_every", 1)
    n_eval = validate.integer(n_eval, "n_eval", 1)
    if stop_at is not None:
        validate.real_number(stop_at, "stop_at", 0.0, 1.0)
    if callback is not None:
        validate.a_function(callback, "callback")
    validate.float_dtype(dtype, allowed=(np.float32, np.float64))
    corpus = make_corpus(n_train=n_train, seed=seed)
    vocab = Vocabulary()
    model = Translator(len(vocab), 32, n_heads, encoder_self_attention=encoder_self_attention,
                       seed=seed, dtype=dtype)
    rng = np.random.default_rng(seed + 1)
    evaluation = corpus.heldout[:n_eval]
    eval_batch = make_batch(evaluation, vocab)
    shown = make_batch(corpus.heldout[:1], vocab)
    encoded = [(vocab.encode(p.english), vocab.encode(p.korean)) for p in corpus.train]
    history, snapshots, push_snapshots, state = [], [], [], {}
    losses, pushes, norms = [], [], []  # of the steps since the last evaluation
    start = time.perf_counter()

    def evaluate(step):
        if not losses:  # step 0: the held-out sentences stand in for the training batches
            loss, grads, push = _loss_grads_and_push(model, eval_batch)
            losses.append(loss)
            pushes.append(push_agreement(push, evaluation))
            norms.append(bp.clip_by_norm(grads, math.inf))
        logits, cache = model.forward(eval_batch)  # teacher-forced
        weights = cache["dec.cross"].weights
        record = {
            "step": step,
            "loss": float(np.mean(losses)),
            "exact_match": exact_match(model, evaluation, vocab),
            "token_accuracy": token_accuracy(logits, eval_batch),
            "token_accuracy_words": token_accuracy(logits, eval_batch, with_eos=False),
            "alignment": alignment_agreement(weights, evaluation),
            "alignment_per_head": [alignment_agreement(weights, evaluation, h)
                                   for h in range(n_heads)],
            "push": float(np.mean(pushes)),
            "grad_norm": float(np.max(norms)),
        }
        for window in (losses, pushes, norms):
            window.clear()
        history.append(record)
        snapshots.append(model.cross_attention(shown)[0])
        push_snapshots.append(_loss_grads_and_push(model, shown)[2][0])
        if callback is not None:
            callback(record)
        return record

    # One BLAS thread while training: the products are small, and more threads cost time
    # without speeding them up (in float32 they also made the run take another path).
    with threadpool_limits(limits=1, user_api="blas"):
        evaluate(0)
        order = rng.permutation(len(corpus.train))
        position = 0
        step = 0
        for step in range(1, steps + 1):
            if position + batch_size > len(order):
                order, position = rng.permutation(len(corpus.train)), 0
            chosen = order[position: position + batch_size]
            pairs = [corpus.train[i] for i in chosen]
            batch = _padded([encoded[i] for i in chosen], vocab)  # make_batch(pairs, vocab)
            position += batch_size
            loss, grads, push = _loss_grads_and_push(model, batch)
            pushes.append(push_agreement(push, pairs))
            norms.append(bp.clip_by_norm(grads, 1.0))
            bp.adam_step(model.params, grads, state, bp.learning_rate(step - 1, lr, warmup, steps))
            losses.append(loss)
            if step % eval_every == 0 or step == steps:
                record = evaluate(step)
                if stop_at is not None and record["exact_match"] >= stop_at:
                    break
    settings = {"steps": steps, "batch_size": batch_size, "lr": lr, "warmup": warmup,
                "n_heads": n_heads, "encoder_self_attention": encoder_self_attention,
                "seed": seed, "n_train": n_train}
    return TrainingRun(model, history, snapshots, step, time.perf_counter() - start, corpus,
                       vocab, settings, push_snapshots)


def load_trained(path=TRAINED_WEIGHTS):
    """The translator ``make train`` wrote: ``(model, meta)``, meta holding its curve.

    >>> model, meta = load_trained()
    >>> model.translate([build_sentence("fox", "sat", "behind", "rock")], Vocabulary())
    [['여우가', '바위', '뒤에', '앉았다']]
    >>> meta["history"][-1]["exact_match"] >= 0.95
    True
    """
    with np.load(Path(path)) as data:
        meta = json.loads(str(data["meta"]))
        params = {name: data[name] for name in data.files if name != "meta"}
    model = Translator(meta["vocab_size"], meta["d_model"], meta["n_heads"], meta["d_ff"],
                       meta["encoder_self_attention"], seed=0, dtype=params["w_out"].dtype)
    if params.keys() != model.params.keys():
        raise ValueError(t("err_translator_file", path=path, has=sorted(params),
                           needed=sorted(model.params)))
    model.params = params
    return model, meta


def trained_translation_example(model: Translator | None = None):
    """Lesson 08's pair, "the cat sat on the mat" → "고양이가 매트 위에 앉았다", as the
    trained translator's cross-attention sees it: a
    :class:`~qkv_helpers.examples.TranslationExample` whose ``q``, ``k``, ``v`` give the
    trained weights.

    ``source_x`` is the encoder output (the memory, ``(7, d_model)``: six words and
    ``<eos>``); ``target_x`` the decoder states the cross-attention reads, ``LN(y)``
    teacher-forced (``(5, d_model)``: row ``i`` is the query that predicts Korean token
    ``i``, the last one ``<eos>``); ``w_q``, ``w_k``, ``w_v`` the cross-attention's
    matrices. One head, so ``d_k = d_model``.

    >>> ex = trained_translation_example()
    >>> ex.q.shape, ex.k.shape
    ((4, 32), (7, 32))
    >>> from qkv_helpers.attention import scaled_dot_product_attention
    >>> w = scaled_dot_product_attention(ex.q, ex.k, ex.v).weights
    >>> [ex.source_tokens[j] for j in w.argmax(axis=1)]
    ['cat', 'mat', 'on', 'sat']
    """
    from .examples import TranslationExample

    model = load_trained()[0] if model is None else model
    if model.n_heads != 1:
        raise ValueError(t("err_one_head", n_heads=model.n_heads))
    vocab = Vocabulary()
    pair = build_sentence("cat", "sat", "on", "mat")
    batch = make_batch([pair], vocab)
    _, cache = model.forward(batch)
    target_x, memory = cache["dec.cross"].x_q, cache["dec.cross"].x_kv  # (1, 5, d), (1, 7, d)
    p = model.params
    return TranslationExample(
        source_sentence=" ".join(pair.english), target_sentence=" ".join(pair.korean),
        source_tokens=(*pair.english, "<eos>"), target_tokens=pair.korean,
        source_x=memory[0], target_x=target_x[0, : len(pair.korean)],
        w_q=p["dec.cross.w_q"], w_k=p["dec.cross.w_k"], w_v=p["dec.cross.w_v"],
        alignment=pair.alignment)
