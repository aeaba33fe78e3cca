"""The course's running examples, built once here so every lesson uses the same numbers.

- :func:`running_example`: "The cat sat on the mat." with small seeded embeddings and
  projections W_Q, W_K, W_V, chosen (by seed) so that the query of "cat" gives the key
  of "sat" the highest score, as in the article the course grows from.
- :func:`translation_example`: the toy translation "The cat sat on the mat." →
  "고양이가 매트 위에 앉았다." for cross-attention.

The numbers are random, not learned: they stand in for what training would produce.
Every call builds fresh arrays, so a learner may change them without harm.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from . import _validate as validate

__all__ = ["RunningExample", "TranslationExample", "running_example", "translation_example"]

SENTENCE = "The cat sat on the mat."
TOKENS = ("The", "cat", "sat", "on", "the", "mat", ".")
D_MODEL = 8  # width of an embedding
D_K = 4  # width of a query, key and value
# Seeds found once by tools/find_example_seeds.py; tests check the properties they give.
RUNNING_SEED = 20

TARGET_SENTENCE = "고양이가 매트 위에 앉았다."
TARGET_TOKENS = ("고양이가", "매트", "위에", "앉았다", ".")
# Which source token each target token translates: 고양이가→cat, 매트→mat, 위에→on, ...
ALIGNMENT = (1, 5, 3, 2, 6)
TRANSLATION_SEED = 243


@dataclass
class RunningExample:
    """ "The cat sat on the mat." as vectors.

    Attributes
    ----------
    sentence : str
    tokens : tuple of str
        ``("The", "cat", "sat", "on", "the", "mat", ".")``
    x : ndarray, shape (tokens, d_model) = (7, 8)
        The embeddings, one row per token.
    w_q, w_k, w_v : ndarray, shape (d_model, d_k) = (8, 4)
        The projections: Q = X·W_Q, K = X·W_K, V = X·W_V.

    Examples
    --------
    >>> ex = running_example()
    >>> ex.x.shape, ex.w_q.shape, ex.q.shape
    ((7, 8), (8, 4), (7, 4))
    >>> scores = ex.q @ ex.k.T                  # (tokens, tokens)
    >>> ex.tokens[scores[ex.index("cat")].argmax()]
    'sat'
    """

    sentence: str
    tokens: tuple[str, ...]
    x: np.ndarray
    w_q: np.ndarray
    w_k: np.ndarray
    w_v: np.ndarray

    @property
    def q(self) -> np.ndarray:
        """Queries ``X·W_Q``, shape (tokens, d_k)."""
        return self.x @ self.w_q

    @property
    def k(self) -> np.ndarray:
        """Keys ``X·W_K``, shape (tokens, d_k)."""
        return self.x @ self.w_k

    @property
    def v(self) -> np.ndarray:
        """Values ``X·W_V``, shape (tokens, d_v)."""
        return self.x @ self.w_v

    @property
    def d_model(self) -> int:
        return self.x.shape[1]

    @property
    def d_k(self) -> int:
        return self.w_q.shape[1]

    def index(self, token: str) -> int:
        """Position of ``token`` in the sentence (the first one, if it repeats)."""
        return self.tokens.index(validate.token_of(token, "token", self.tokens))


def _example_arrays(seed: int, n_tokens: int):
    """Seeded embeddings (n_tokens, D_MODEL) and projections (D_MODEL, D_K) × 3."""
    rng = np.random.default_rng(seed)
    x = rng.normal(0.0, 1.0, (n_tokens, D_MODEL)).round(2)  # (tokens, d_model)
    w = rng.normal(0.0, 1.0 / np.sqrt(D_MODEL), (3, D_MODEL, D_K)).round(2)  # 3 × (d_model, d_k)
    return x, w[0], w[1], w[2]


def running_example(seed: int = RUNNING_SEED) -> RunningExample:
    """The running example, "The cat sat on the mat.", as embeddings and projections.

    With the default seed, "cat"'s query scores "sat" highest. Other seeds give other
    random numbers of the same shapes, for experiments.
    """
    x, w_q, w_k, w_v = _example_arrays(validate.seed(seed), len(TOKENS))
    return RunningExample(SENTENCE, TOKENS, x, w_q, w_k, w_v)


@dataclass
class TranslationExample:
    """The toy translation "The cat sat on the mat." → "고양이가 매트 위에 앉았다.".

    Cross-attention takes its queries from the decoder (the Korean side being written)
    and its keys and values from the encoder's output (the English sentence).

    Attributes
    ----------
    source_tokens : tuple of str
        The English tokens, encoder side (7).
    target_tokens : tuple of str
        The Korean tokens, decoder side (5).
    source_x : ndarray, shape (source tokens, d_model) = (7, 8)
        The encoder's output, one row per source token.
    target_x : ndarray, shape (target tokens, d_model) = (5, 8)
        The decoder's states, one row per target token.
    w_q, w_k, w_v : ndarray, shape (d_model, d_k) = (8, 4)
        Cross-attention's projections. Q = target_x·W_Q, K = source_x·W_K, V = source_x·W_V.
    alignment : tuple of int
        For each target token, the source token it translates (for checking the picture).

    Examples
    --------
    >>> ex = translation_example()
    >>> ex.q.shape, ex.k.shape                     # (target tokens, d_k), (source tokens, d_k)
    ((5, 4), (7, 4))
    >>> [ex.source_tokens[j] for j in (ex.q @ ex.k.T).argmax(axis=1)]
    ['cat', 'mat', 'on', 'sat', '.']
    """

    source_sentence: str
    target_sentence: str
    source_tokens: tuple[str, ...]
    target_tokens: tuple[str, ...]
    source_x: np.ndarray
    target_x: np.ndarray
    w_q: np.ndarray
    w_k: np.ndarray
    w_v: np.ndarray
    alignment: tuple[int, ...]

    @property
    def q(self) -> np.ndarray:
        """Queries from the decoder, ``target_x·W_Q``: (target tokens, d_k)."""
        return self.target_x @ self.w_q

    @property
    def k(self) -> np.ndarray:
        """Keys from the encoder, ``source_x·W_K``: (source tokens, d_k)."""
        return self.source_x @ self.w_k

    @property
    def v(self) -> np.ndarray:
        """Values from the encoder, ``source_x·W_V``: (source tokens, d_v)."""
        return self.source_x @ self.w_v


def translation_example(seed: int = TRANSLATION_SEED) -> TranslationExample:
    """The toy translation pair for cross-attention.

    The encoder output is the running example's embeddings. Each decoder state is made
    near the embedding of the English word it translates, and W_Q = W_K, so the dot
    product of a query and a key is large where the words match: the picture a trained
    model's cross-attention often shows.
    """
    source = running_example()
    rng = np.random.default_rng(validate.seed(seed))
    noise = rng.normal(0.0, 0.3, (len(TARGET_TOKENS), D_MODEL))
    target_x = (source.x[list(ALIGNMENT)] + noise).round(2)  # (target tokens, d_model)
    w_qk = rng.normal(0.0, 1.0 / np.sqrt(D_K), (D_MODEL, D_K)).round(2)  # (d_model, d_k)
    return TranslationExample(
        source_sentence=SENTENCE,
        target_sentence=TARGET_SENTENCE,
        source_tokens=TOKENS,
        target_tokens=TARGET_TOKENS,
        source_x=source.x,
        target_x=target_x,
        w_q=w_qk,
        w_k=w_qk.copy(),
        w_v=source.w_v,
        alignment=ALIGNMENT,
    )
