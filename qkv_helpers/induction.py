"""Lesson 15's decoder that learns to copy: induction heads formed in numpy.

The task (:func:`make_sequences`): 32 random tokens whose last part is a segment
repeated once, ``[noise][segment][segment]``, the segment's length drawn anew for
every sequence. Nothing predicts a random token, except in the repeat: there the
token that follows is the one that followed the same token in the first occurrence.
Only copying from the context can predict it.

The model (:class:`InductionModel`): lesson 07's causal self-attention, lesson 12's
learned positions, and nothing else: no feed-forward, no layer norm, one head per
layer, every sub-layer added to the residual stream::

    x0 = E[tokens] + P[positions]          (B, n, d)
    x1 = x0 + attn_0(x0)                    layer 0
    x2 = x1 + attn_1(x1)                    layer 1
    logits = x2 · W_U                       (B, n, V)
    attn_l(x) = softmax(mask(x·W_Q (x·W_K)ᵀ / √d_head)) · (x·W_V) · W_O

Each layer is the course's one transformer block (:func:`qkv_helpers.block.block`, as in
lesson 14's translator) with only its self-attention: ``Block(attention, None, None,
norm="none")``. :meth:`InductionModel.forward` keeps what the backward needs;
:meth:`backward` walks the same lines in reverse: lesson 14's
:func:`~qkv_helpers.block.block_backward` for each layer, :mod:`qkv_helpers.backprop`'s
operations for the rest.
:func:`train` runs Adam and records, every ``eval_every`` steps, the loss on the first
occurrence and on the repeat, and the two heads' scores:

- :func:`previous_token_score`: layer 0's mean weight on the token just before;
- :func:`induction_score`: in the repeat, layer 1's mean weight on the token right
  *after* the earlier occurrence of the current token.

Everything is float64 and trains on one BLAS thread, so that the printed numbers are
the same on every CPU.
"""

from __future__ import annotations

import math
import time
from typing import NamedTuple

import numpy as np

from . import _validate as validate
from . import backprop as bp
from ._text import t
from ._threads import threadpool_limits
from .block import AttentionWeights, Block, block, block_backward
from .masks import causal_mask

__all__ = [
    "InductionModel",
    "InductionRun",
    "Sequences",
    "TRAINING_SETTINGS",
    "REPEAT_LENGTHS",
    "cliff_step",
    "copying_targets",
    "duplicate_token_score",
    "gradient_check",
    "induction_score",
    "loss_by_part",
    "loss_per_position",
    "make_sequences",
    "previous_token_score",
    "train",
]

SEQUENCE_LENGTH = 32
"""Tokens per sequence."""

VOCAB_SIZE = 32
"""Different tokens."""

REPEAT_LENGTHS = (8, 16)
"""The segment lengths of training and of every held-out evaluation (both ends included)."""

TRAINING_SETTINGS = {"steps": 1200, "batch_size": 32, "lr": 2e-2, "n_layers": 2,
                     "repeat_lengths": REPEAT_LENGTHS, "seed": 0}
""":func:`train`'s defaults: the run lesson 15 shows."""

_ATTN = ("w_q", "w_k", "w_v", "w_o")


class Sequences(NamedTuple):
    """A batch of ``[noise][segment][segment]`` sequences and where their parts are."""

    tokens: np.ndarray
    """``(B, n)`` token ids."""
    first: np.ndarray
    """``(B,)`` position where the segment first occurs."""
    repeat: np.ndarray
    """``(B,)`` position where its repeat starts (``first + length``)."""
    length: np.ndarray
    """``(B,)`` the segment's length."""


def make_sequences(n_sequences: int, seed=0, repeat_lengths=REPEAT_LENGTHS,
                   length: int = SEQUENCE_LENGTH, vocab_size: int = VOCAB_SIZE) -> Sequences:
    """``n_sequences`` sequences: random tokens, then a random segment twice, ending the
    sequence. Each sequence draws its segment's length from ``repeat_lengths`` (both
    ends included; ``(16, 16)`` fixes it).

    ``seed`` is an int or a ``numpy.random.Generator`` (training draws batch after
    batch from one generator).

    >>> s = make_sequences(2, seed=0, repeat_lengths=(3, 3), length=8, vocab_size=5)
    >>> s.tokens.shape, s.first.tolist(), s.repeat.tolist(), s.length.tolist()
    ((2, 8), [2, 2], [5, 5], [3, 3])
    >>> bool((s.tokens[:, 2:5] == s.tokens[:, 5:8]).all())
    True
    """
    n_sequences = validate.integer(n_sequences, "n_sequences", 1)
    length = validate.integer(length, "length", 2)
    vocab_size = validate.integer(vocab_size, "vocab_size", 2)
    low, high = _repeat_lengths(repeat_lengths, length)
    rng = seed if isinstance(seed, np.random.Generator) else np.random.default_rng(
        validate.seed(seed))
    tokens = rng.integers(0, vocab_size, (n_sequences, length))  # (B, n): noise everywhere
    seg = rng.integers(low, high + 1, n_sequences)  # (B,) segment lengths
    repeat = length - seg  # (B,) the repeat fills the end
    first = repeat - seg  # (B,)
    positions = np.arange(length)  # (n,)
    # position t of the repeat reads position t − length of the segment: the same token
    source = np.where(positions >= repeat[:, None], positions - seg[:, None], positions)
    return Sequences(np.take_along_axis(tokens, source, axis=1), first, repeat, seg)


KNOCK_OUTS = (None, "head0", "head0_keys", "head0_queries", "head0_values")
"""What :meth:`InductionModel.forward` can take out: nothing, layer 0's head from the stream,
or from only one input of layer 1 (its keys, queries or values)."""

_READS_X0 = {"head0_keys": "x_k", "head0_queries": "x_q", "head0_values": "x_v"}
"""Which of layer 1's inputs reads ``x0``, the stream before layer 0's head (:func:`block`'s
argument), for each knock-out that takes the head from one input only."""


def _repeat_lengths(repeat_lengths, length):
    if not (isinstance(repeat_lengths, (tuple, list)) and len(repeat_lengths) == 2):
        raise TypeError(t("err_l15_repeat_lengths_type", got=repr(repeat_lengths)[:200]))
    low = validate.integer(repeat_lengths[0], "repeat_lengths[0]", 2)
    high = validate.integer(repeat_lengths[1], "repeat_lengths[1]", low)
    if 2 * high > length:
        raise ValueError(t("err_l15_repeat_lengths_fit", high=high, length=length,
                           most=length // 2))
    return low, high


def copying_targets(seqs: Sequences):
    """The predictions only copying can make: ``(sequence, query, key)`` index arrays.

    Query position ``repeat + i`` (``i = 0 … length − 2``) reads the segment's token
    ``i``; the next token is its token ``i + 1``, which in the first occurrence sits at
    ``first + i + 1``: the key an induction head attends to.

    >>> s = Sequences(np.zeros((1, 8), int), np.array([2]), np.array([5]), np.array([3]))
    >>> [a.tolist() for a in copying_targets(s)]
    [[0, 0], [5, 6], [3, 4]]
    """
    rows, queries, keys = [], [], []
    for b, (first, repeat, seg) in enumerate(zip(seqs.first, seqs.repeat, seqs.length)):
        i = np.arange(seg - 1)
        rows.append(np.full(seg - 1, b))
        queries.append(repeat + i)
        keys.append(first + i + 1)
    return np.concatenate(rows), np.concatenate(queries), np.concatenate(keys)


class InductionModel:
    """A causal, attention-only transformer: ``n_layers`` layers of one head each.

    Parameters
    ----------
    n_layers : int
        2 in the lesson; 1 for the control that cannot copy.
    d_model, d_head, vocab_size, n_positions : int
    seed : int
        Initial weights, normal: the embedding and positions with standard deviation
        ``1/√d_model``, each matrix ``1/√fan_in``.

    Attributes
    ----------
    params : dict of str → ndarray (float64)
        ``embedding (V, d)``, ``positions (n_positions, d)``, ``l0.w_q (d, d_head)``,
        ``l0.w_k``, ``l0.w_v``, ``l0.w_o (d_head, d)``, the same for ``l1``, ``w_u (d, V)``.

    Examples
    --------
    >>> model = InductionModel(seed=0)
    >>> model.n_parameters
    5120
    >>> logits, cache = model.forward(make_sequences(3).tokens[:, :-1])
    >>> logits.shape, cache["l1"].weights.shape      # (B, n, V), layer 1's weights (B, 1, n, n)
    ((3, 31, 32), (3, 1, 31, 31))
    """

    def __init__(self, n_layers: int = 2, d_model: int = 32, d_head: int = 8,
                 vocab_size: int = VOCAB_SIZE, n_positions: int = SEQUENCE_LENGTH,
                 seed: int = 0):
        self.n_layers = validate.integer(n_layers, "n_layers", 1)
        self.d_model = validate.integer(d_model, "d_model", 1)
        self.d_head = validate.integer(d_head, "d_head", 1)
        self.vocab_size = validate.integer(vocab_size, "vocab_size", 2)
        self.n_positions = validate.integer(n_positions, "n_positions", 1)
        rng = np.random.default_rng(validate.seed(seed))
        d, h, v = self.d_model, self.d_head, self.vocab_size
        shapes = {"embedding": (v, d), "positions": (self.n_positions, d)}
        for layer in range(self.n_layers):
            shapes.update({f"l{layer}.w_q": (d, h), f"l{layer}.w_k": (d, h),
                           f"l{layer}.w_v": (d, h), f"l{layer}.w_o": (h, d)})
        shapes["w_u"] = (d, v)
        self.params = {}
        for name, shape in shapes.items():
            std = 1 / math.sqrt(d if name in ("embedding", "positions") else shape[0])
            self.params[name] = rng.normal(0.0, std, shape)

    @property
    def n_parameters(self) -> int:
        """Number of trained numbers."""
        return sum(p.size for p in self.params.values())

    def blocks(self) -> list:
        """Each layer as a :class:`~qkv_helpers.block.Block`: one causal head, no layer norm,
        no feed-forward, over the arrays of :attr:`params` themselves (not copies)."""
        p = self.params
        return [Block(AttentionWeights(1, *(p[f"l{layer}.{w}"] for w in _ATTN)), None, None,
                      norm="none") for layer in range(self.n_layers)]

    # --- forward -------------------------------------------------------------------------

    def forward(self, tokens, knock_out=None):
        """Logits ``(B, n, V)`` of the token after each position, and the cache.

        ``knock_out``: ``None``; ``"head0"`` removes layer 0's head from the residual
        stream; ``"head0_keys"`` removes it only from the input of layer 1's keys (its
        queries and values still see it); ``"head0_queries"`` and ``"head0_values"`` remove
        it only from the input of layer 1's queries, or of its values (the controls).
        ``cache["l0"].weights``, ``cache["l1"].weights`` are the heads' attention weights
        ``(B, 1, n, n)`` (:class:`~qkv_helpers.block.AttentionTrace`).
        """
        tokens = self._check_tokens(tokens)
        if knock_out not in KNOCK_OUTS or (
                knock_out is not None and self.n_layers < 2):
            raise ValueError(t("err_l15_knock_out", layers=self.n_layers,
                               got=repr(knock_out)[:100]))
        cache = {"tokens": tokens}
        n = tokens.shape[1]
        x = bp.embedding(self.params["embedding"], tokens) + self.params["positions"][:n]
        x0 = x  # (B, n, d): what the stream holds before any head
        for layer, b in enumerate(self.blocks()):
            reads = {}  # queries, keys and values all read x ...
            if layer == 1 and knock_out == "head0":
                x = x0  # layer 0's head taken out of the stream
            elif layer == 1 and knock_out is not None:
                reads = {_READS_X0[knock_out]: x0}  # ... but one reads x0, without layer 0
            x, cache[f"block{layer}"] = block(b, x, causal_mask, **reads)  # x + attn(x)
            cache[f"l{layer}"] = cache[f"block{layer}"].attention  # q, k, v, weights
        cache["final"] = x
        return bp.linear(x, self.params["w_u"]), cache  # (B, n, V)

    def _check_tokens(self, tokens):
        tokens = validate.token_ids(tokens, "tokens", self.vocab_size, ndim=2, array_only=True,
                                    shape="(B, n), e.g. make_sequences(8).tokens")
        if tokens.shape[1] > self.n_positions:
            raise ValueError(t("err_l15_tokens_positions", positions=self.n_positions,
                               shape=tokens.shape))
        return tokens

    def loss_and_grads(self, tokens):
        """``(loss, grads)`` of next-token prediction on ``tokens (B, n)``: every position
        but the last predicts the next token."""
        logits, cache = self.forward(tokens[:, :-1])
        loss, probabilities = bp.cross_entropy(logits, tokens[:, 1:], ignore=-1)
        d_logits = bp.cross_entropy_backward(probabilities, tokens[:, 1:], ignore=-1)
        return float(loss), self.backward(d_logits, cache)

    # --- backward: the same lines, in reverse ---------------------------------------------

    def backward(self, d_logits, cache) -> dict:
        """The gradient of the loss with respect to every parameter, from ``d_logits``."""
        grads = {}
        # logits = x·W_U
        d_x, grads["w_u"] = bp.linear_backward(d_logits, cache["final"], self.params["w_u"])
        # x_{l+1} = x_l + attn_l(x_l)
        blocks = self.blocks()
        for layer in reversed(range(self.n_layers)):
            d_x, _, weights, _ = block_backward(blocks[layer], d_x, cache[f"block{layer}"])
            for name, g in weights.items():  # "self.w_q" → "l0.w_q"
                grads[f"l{layer}." + name.removeprefix("self.")] = g
        # x0 = E[tokens] + P[positions]
        tokens = cache["tokens"]
        grads["embedding"] = bp.embedding_backward(d_x, tokens, self.vocab_size)
        d_positions = np.zeros_like(self.params["positions"])  # (n_positions, d)
        d_positions[: tokens.shape[1]] = d_x.sum(axis=0)
        grads["positions"] = d_positions
        return grads

    # --- reading it ----------------------------------------------------------------------

    def attention_maps(self, tokens, knock_out=None) -> np.ndarray:
        """Each layer's attention weights: ``(n_layers, B, n, n)``."""
        _, cache = self.forward(tokens, knock_out)
        return np.stack([cache[f"l{layer}"].weights[:, 0] for layer in range(self.n_layers)])


def _check_model(model):
    validate.instance_of(model, "model", InductionModel, "e.g. InductionModel(seed=0)")


def _check_sequences(seqs):
    validate.instance_of(seqs, "seqs", Sequences, "make_sequences(n)")


def _token_losses(logits, tokens):
    """``-log p(tokens[:, t+1])`` from ``logits (B, n − 1, V)``: ``(B, n − 1)``."""
    shifted = logits - logits.max(axis=-1, keepdims=True)
    log_p = shifted - np.log(np.exp(shifted).sum(axis=-1, keepdims=True))  # (B, n-1, V)
    return -np.take_along_axis(log_p, tokens[:, 1:, None], axis=-1)[..., 0]


def loss_per_position(model: InductionModel, tokens, knock_out=None) -> np.ndarray:
    """``-log p(token t+1 | tokens ≤ t)`` at every position: ``(B, n − 1)``."""
    _check_model(model)
    logits, _ = model.forward(tokens[:, :-1], knock_out)  # (B, n-1, V)
    return _token_losses(logits, tokens)


def _parts(losses, seqs) -> dict:
    """:func:`loss_by_part` from the per-position losses ``(B, n − 1)`` of ``seqs``."""
    first = [losses[b, f: f + s].mean() for b, (f, s) in  # targets f+1 … f+s
             enumerate(zip(seqs.first, seqs.length))]
    rows, queries, _ = copying_targets(seqs)
    return {"first": float(np.mean(first)), "repeat": float(losses[rows, queries].mean())}


def loss_by_part(model: InductionModel, seqs: Sequences, knock_out=None) -> dict:
    """The mean loss on the tokens of the first occurrence (each predicted from the tokens
    before it) and on the repeat's tokens that copying can predict (all but its first).

    "first" averages the targets ``first + 1 … first + length``: the segment's tokens from its
    second on, and the repeat's first token (which nothing earlier predicts either).

    Chance is ``ln V`` (3.47 for 32 tokens) on both.
    """
    _check_model(model)
    _check_sequences(seqs)
    return _parts(loss_per_position(model, seqs.tokens, knock_out), seqs)


def previous_token_score(weights) -> float:
    """The mean weight a head puts on the token just before: ``mean_t w[t, t−1]``.

    ``weights (B, n, n)`` (or ``(n, n)``), causal; rows ``t ≥ 1``. 1.0 for a head that
    always reads the previous token; 1/(t+1) on average for one that spreads evenly.

    >>> previous_token_score(np.eye(3, k=-1) + np.eye(3) * [[1], [0], [0]])
    1.0
    """
    weights = validate.array(weights, "weights", empty=False)
    if weights.ndim == 2:
        weights = weights[None]
    if weights.ndim != 3 or weights.shape[1] != weights.shape[2] or weights.shape[1] < 2:
        raise ValueError(t("err_l15_square_maps", shape=weights.shape))
    return float(np.diagonal(weights, offset=-1, axis1=1, axis2=2).mean())


def duplicate_token_score(weights, seqs: Sequences) -> float:
    """The mean weight a token of the segment or of its repeat puts on its other copy:
    ``w[repeat + i, first + i]`` and ``w[first + i, repeat + i]`` for i = 0 … length − 1.

    A **duplicate-token head** looks at the other occurrence of the same token. In a causal
    decoder the second half (the first copy looking forward) is always 0, so its best score
    is 0.5; a bidirectional encoder can reach 1.
    """
    _check_sequences(seqs)
    weights = validate.array(weights, "weights", ndim=3, empty=False, shape="(B, n, n)")
    if len(weights) != len(seqs.tokens) or int(seqs.repeat.max() + seqs.length.max()) > (
            weights.shape[1]):
        raise ValueError(t("err_l15_maps_of_seqs", shape=weights.shape,
                           seqs=seqs.tokens.shape))
    picked = []
    for b, (first, repeat, length) in enumerate(zip(seqs.first, seqs.repeat, seqs.length)):
        i = np.arange(length)
        picked.append(weights[b, repeat + i, first + i])  # the repeat looks back
        picked.append(weights[b, first + i, repeat + i])  # the first copy looks forward
    return float(np.concatenate(picked).mean())


def induction_score(weights, seqs: Sequences) -> float:
    """In the repeat, the mean weight on the token right after the earlier occurrence of
    the current token: ``mean w[repeat + i, first + i + 1]`` (:func:`copying_targets`).

    ``weights (B, n, n)``: a head's maps on ``seqs.tokens`` (or on ``tokens[:, :-1]``).
    """
    _check_sequences(seqs)
    weights = validate.array(weights, "weights", ndim=3, empty=False, shape="(B, n, n)")
    rows, queries, keys = copying_targets(seqs)
    if len(weights) != len(seqs.tokens) or queries.max() >= weights.shape[1]:
        raise ValueError(t("err_l15_maps_of_seqs", shape=weights.shape,
                           seqs=seqs.tokens.shape))
    return float(weights[rows, queries, keys].mean())


def cliff_step(history, drop: float = 1.0):
    """The first evaluated step whose loss on the repeat is ``drop`` nats below chance
    (``ln V``), or None: where the loss falls off its plateau.

    >>> cliff_step([{"step": 0, "repeat": 3.5}, {"step": 50, "repeat": 3.3},
    ...             {"step": 100, "repeat": 2.1}])
    100
    """
    drop = validate.positive_number(drop, "drop")
    if not isinstance(history, (list, tuple)) or not all(
            isinstance(r, dict) and {"step", "repeat"} <= r.keys() for r in history):
        raise ValueError(t("err_l15_history"))
    return next((r["step"] for r in history if r["repeat"] <= math.log(VOCAB_SIZE) - drop),
                None)


class InductionRun(NamedTuple):
    """What :func:`train` gives back."""

    model: InductionModel
    history: list
    """One dict per evaluation: ``step``, ``loss`` (mean training loss since the last),
    ``first`` and ``repeat`` (held-out losses, :func:`loss_by_part`), ``previous_token``
    (layer 0's score) and ``induction`` (the last layer's score)."""
    snapshots: list
    """The attention maps ``(n_layers, n, n)`` of :attr:`shown` at each evaluation."""
    shown: Sequences
    """One held-out sequence, the one whose maps are kept."""
    evaluation: Sequences
    """The held-out sequences the history measures (lengths :data:`REPEAT_LENGTHS`)."""
    repeat_lengths: tuple
    """The segment lengths the model was trained on."""
    steps: int
    seconds: float
    """Wall-clock time, evaluations included."""


def train(steps: int = 1200, batch_size: int = 32, lr: float = 2e-2, n_layers: int = 2,
          repeat_lengths=REPEAT_LENGTHS, seed: int = 0, eval_every: int = 50, n_eval: int = 200,
          callback=None) -> InductionRun:
    """Train an :class:`InductionModel` on fresh :func:`make_sequences` batches with Adam.

    Adam (β = 0.9, 0.98) at a constant ``lr``. ``repeat_lengths`` is the training data's;
    the ``n_eval`` held-out sequences always have :data:`REPEAT_LENGTHS`. ``callback(record)``
    after each evaluation. Everything follows from ``seed``.
    """
    steps = validate.integer(steps, "steps", 1)
    batch_size = validate.integer(batch_size, "batch_size", 1)
    lr = validate.positive_number(lr, "lr")
    seed = validate.seed(seed)
    eval_every = validate.integer(eval_every, "eval_every", 1)
    n_eval = validate.integer(n_eval, "n_eval", 1)
    _repeat_lengths(repeat_lengths, SEQUENCE_LENGTH)
    if callback is not None:
        validate.a_function(callback, "callback")
    model = InductionModel(n_layers, seed=seed)
    data = np.random.default_rng([seed, 1])
    evaluation = make_sequences(n_eval, np.random.default_rng([seed, 2]))
    shown = Sequences(*(a[:1] for a in evaluation))
    history, snapshots, losses, state = [], [], [], {}
    start = time.perf_counter()

    def evaluate(step):
        # one forward per 50 sequences: the maps and the losses, little memory at a time
        maps, held_out = [], []
        for start in range(0, n_eval, 50):
            tokens = evaluation.tokens[start: start + 50]
            logits, cache = model.forward(tokens[:, :-1])
            held_out.append(_token_losses(logits, tokens))  # (50, n-1)
            maps.append(np.stack([cache[f"l{layer}"].weights[:, 0]
                                  for layer in range(n_layers)]))
        maps = np.concatenate(maps, axis=1)  # (layers, B, n, n)
        parts = _parts(np.concatenate(held_out), evaluation)
        record = {"step": step,  # loss: the training batches' mean since the last record
                  "loss": float(np.mean(losses)) if losses else math.nan,
                  "first": parts["first"], "repeat": parts["repeat"],
                  "previous_token": previous_token_score(maps[0]),
                  "induction": induction_score(maps[-1], evaluation)}
        losses.clear()
        history.append(record)
        snapshots.append(maps[:, 0].copy())  # a copy: a view would keep all of maps alive
        if callback is not None:
            callback(record)

    # One BLAS thread: the same sums in the same order on every machine.
    with threadpool_limits(limits=1, user_api="blas"):
        evaluate(0)
        for step in range(1, steps + 1):
            tokens = make_sequences(batch_size, data, repeat_lengths).tokens
            loss, grads = model.loss_and_grads(tokens)
            bp.adam_step(model.params, grads, state, lr)
            losses.append(loss)
            if step % eval_every == 0 or step == steps:
                evaluate(step)
    return InductionRun(model, history, snapshots, shown, evaluation, tuple(repeat_lengths),
                        steps, time.perf_counter() - start)


def gradient_check(model: InductionModel, tokens, entries: int = 10, eps: float = 1e-5,
                   seed: int = 0) -> dict:
    """Relative error, by norm, of :meth:`InductionModel.backward` against central
    differences, ``entries`` random entries per parameter (as lesson 14's
    :func:`qkv_helpers.translator.gradient_check`)."""
    _check_model(model)
    tokens = model._check_tokens(tokens)
    entries = validate.integer(entries, "entries", 1)
    eps = validate.positive_number(eps, "eps")
    rng = np.random.default_rng(validate.seed(seed))
    _, grads = model.loss_and_grads(tokens)

    def loss():
        logits, _ = model.forward(tokens[:, :-1])
        return float(bp.cross_entropy(logits, tokens[:, 1:], ignore=-1)[0])

    errors = {}
    for name, param in model.params.items():
        flat = param.reshape(-1)
        picks = rng.choice(flat.size, min(entries, flat.size), replace=False)
        numeric = np.empty(len(picks))
        for j, i in enumerate(picks):
            old = flat[i]
            flat[i] = old + eps
            up = loss()
            flat[i] = old - eps
            down = loss()
            flat[i] = old
            numeric[j] = (up - down) / (2 * eps)
        analytic = grads[name].reshape(-1)[picks]
        denom = np.linalg.norm(analytic) + np.linalg.norm(numeric)
        if denom == 0:
            raise ValueError(t("err_l15_gradient_zero", count=len(picks), name=repr(name)))
        errors[name] = float(np.linalg.norm(analytic - numeric) / denom)
    return errors
