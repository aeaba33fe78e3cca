"""Exercise checks: feedback on a learner's answer, in the lesson's language.

Every "직접 해보기 / Try it" cell ends with a call to a check here. A check never raises
on the learner's answer: it returns a :class:`Feedback`, which the notebook shows as a
coloured line. An answer left as ``...`` (the notebook ships that way) gets "not answered
yet". The expected answer always comes from the package itself.

    >>> from qkv_helpers.lang import set_language
    >>> set_language("en")
    >>> check_array(..., np.ones(2), "weights")
    ✏️ Not answered yet: replace the ... with your answer and run the cell again.
    >>> check_array(np.ones(3), np.ones(2), "weights")
    ❌ weights has shape (3,), but it should have shape (2,).
    >>> check_array(np.ones(2), np.ones(2), "weights")
    ✅ Right! weights is correct.
"""

from __future__ import annotations

import html
from dataclasses import dataclass

import numpy as np

from .lang import t

__all__ = ["Feedback", "check_array", "check_value", "check_weights", "not_answered"]


@dataclass(frozen=True)
class Feedback:
    """The result of a check: ``ok`` is True (right), False (wrong) or None (not answered)."""

    ok: bool | None
    message: str

    @property
    def symbol(self) -> str:
        return {True: "✅", False: "❌", None: "✏️"}[self.ok]

    def __bool__(self) -> bool:
        return self.ok is True

    def __repr__(self) -> str:
        return f"{self.symbol} {self.message}"

    def _repr_html_(self) -> str:
        colour = {True: "#1b7837", False: "#b2182b", None: "#555555"}[self.ok]
        return (f'<div style="border-left: 4px solid {colour}; padding: 4px 10px; '
                f'font-size: 1.05em">{self.symbol} {html.escape(self.message)}</div>')


def not_answered(answer) -> bool:
    """True for an answer still left as ``...`` (or None)."""
    return answer is Ellipsis or answer is None


def right(detail_key: str = "check_right", **values) -> Feedback:
    return Feedback(True, t(detail_key, **values))


def wrong(key: str, **values) -> Feedback:
    return Feedback(False, t(key, **values))


def unanswered() -> Feedback:
    return Feedback(None, t("check_not_answered"))


def _answer_array(answer, expected, name: str):
    """The answer as a float array of the expected shape, or the Feedback that says why not."""
    if not_answered(answer):
        return unanswered()
    try:
        got = np.asarray(answer, dtype=float)
    except (TypeError, ValueError):
        return wrong("check_not_numbers", name=name, kind=type(answer).__name__)
    if got.shape != np.shape(expected):
        return wrong("check_shape", name=name, got=got.shape, needed=np.shape(expected))
    if not np.isfinite(got).all():
        return wrong("check_not_finite", name=name)
    return got


def check_array(answer, expected, name: str, atol: float = 1e-6) -> Feedback:
    """Compare an array answer with the expected one: first the shape, then the values."""
    got = _answer_array(answer, expected, name)
    if isinstance(got, Feedback):
        return got
    expected = np.asarray(expected, dtype=float)
    diff = np.abs(got - expected)
    if diff.max(initial=0.0) > atol + 1e-6 * np.abs(expected).max(initial=0.0):
        index = tuple(int(i) for i in np.unravel_index(diff.argmax(), diff.shape))
        return wrong("check_values", name=name, index=index,
                     got=f"{got[index]:.4g}", needed=f"{expected[index]:.4g}")
    return right(name=name)


def check_value(answer, expected, name: str, rtol: float = 1e-6) -> Feedback:
    """Compare a single number (or a tuple such as a shape) with the expected one."""
    if not_answered(answer):
        return unanswered()
    if isinstance(expected, tuple):
        ok = tuple(answer) == expected if isinstance(answer, (tuple, list)) else False
    else:
        try:
            ok = bool(np.isclose(float(answer), float(expected), rtol=rtol, atol=0.0))
        except (TypeError, ValueError):
            return wrong("check_not_numbers", name=name, kind=type(answer).__name__)
    if ok:
        return right(name=name)
    return wrong("check_wrong_value", name=name, got=answer)


def check_weights(answer, expected, name: str = "weights") -> Feedback:
    """Check attention weights: shape, no negatives, rows summing to 1, then the values."""
    got = _answer_array(answer, expected, name)
    if isinstance(got, Feedback):
        return got
    if (got < 0).any():
        return wrong("check_negative", name=name)
    sums = got.sum(axis=-1)
    if not np.allclose(sums, 1.0, atol=1e-6):
        bad = sums.flat[np.abs(sums - 1.0).argmax()]
        return wrong("check_rows_sum", name=name, total=f"{bad:.3g}")
    return check_array(got, expected, name)


# Each lesson's own checks follow, in sections, built on the functions above.
# --- lessons 01-05 ---


def check_projection_k(answer, example) -> Feedback:
    """Lesson 01: the keys ``K = X·W_K`` of the running example, shape (7, 4).

    >>> from qkv_helpers import running_example
    >>> from qkv_helpers.lang import set_language
    >>> set_language("en")
    >>> ex = running_example()
    >>> check_projection_k(ex.x @ ex.w_k, ex).ok, check_projection_k(ex.q, ex).ok
    (True, False)
    """
    if not_answered(answer):
        return unanswered()
    for other, matrix in (("Q", example.q), ("V", example.v)):
        if np.shape(answer) == matrix.shape and _close(answer, matrix):
            return wrong("check_l01_other_matrix", name="K", other=f"{other} = X·W_{other}")
    return check_array(answer, example.k, "K")


def check_score_matrix(answer, example) -> Feedback:
    """Lesson 02: the raw score matrix ``Q·Kᵀ``, shape (tokens, tokens).

    >>> from qkv_helpers import running_example
    >>> ex = running_example()
    >>> check_score_matrix(ex.q @ ex.k.T, ex).ok, check_score_matrix(ex.k @ ex.q.T, ex).ok
    (True, False)
    """
    if not_answered(answer):
        return unanswered()
    raw = example.q @ example.k.T  # (n_q, n_k)
    if np.shape(answer) == raw.shape and not _close(answer, raw):
        if _close(answer, raw.T):
            return wrong("check_l02_transposed", name="scores")
        if _close(answer, raw / np.sqrt(example.d_k)):
            return wrong("check_l02_scaled", name="scores")
    return check_array(answer, raw, "scores")


def check_scaled_scores(answer, example) -> Feedback:
    """Lesson 03: the scaled scores ``Q·Kᵀ/√d_k``.

    >>> from qkv_helpers import running_example
    >>> ex = running_example()
    >>> check_scaled_scores(ex.q @ ex.k.T / 2.0, ex).ok, check_scaled_scores(ex.q @ ex.k.T, ex).ok
    (True, False)
    """
    if not_answered(answer):
        return unanswered()
    raw = example.q @ example.k.T  # (n_q, n_k)
    d_k = example.d_k
    root = f"{np.sqrt(d_k):.3g}"
    if np.shape(answer) == raw.shape:
        if _close(answer, raw):
            return wrong("check_l03_unscaled", name="scaled", root=root)
        if _close(answer, raw / d_k):
            return wrong("check_l03_by_dk", d_k=d_k, root=root)
    return check_array(answer, raw / np.sqrt(d_k), "scaled")


def check_stable_softmax(fn, name: str = "my_softmax") -> Feedback:
    """Lesson 04: a learner's softmax function, on small scores and then on huge ones.

    >>> from qkv_helpers import softmax
    >>> check_stable_softmax(softmax).ok
    True
    >>> check_stable_softmax(lambda x: np.exp(x) / np.exp(x).sum(axis=-1, keepdims=True)).ok
    False
    >>> check_stable_softmax(lambda x: ...).ok is None
    True
    """
    from .attention import softmax

    if not_answered(fn):
        return unanswered()
    if not callable(fn):
        return wrong("check_l04_not_function", name=name)
    small = np.array([[1.0, 2.0, 3.0], [0.5, 0.5, -1.0]])  # (2, 3)
    big = np.array([[1000.0, 1001.0, 1002.0]])  # (1, 3)
    results = []
    for scores in (small, big):
        try:
            with np.errstate(all="ignore"):
                results.append(fn(scores.copy()))
        except Exception as error:  # the learner's code: report, never raise
            return wrong("check_l04_raised", name=name, error=f"{type(error).__name__}: {error}")
    if not_answered(results[0]):
        return unanswered()
    first = check_weights(results[0], softmax(small), name)
    if not first.ok:
        return first
    got = np.asarray(results[1], dtype=float)
    if got.shape != big.shape or not np.isfinite(got).all():
        return wrong("check_l04_overflow", name=name, got=np.array2string(got, precision=3))
    second = check_weights(got, softmax(big), name)
    if not second.ok:
        return second
    return right("check_l04_right", name=name, weights=np.array2string(got[0], precision=3))


def check_contextual_vector(answer, example, token: str = "cat") -> Feedback:
    """Lesson 05: the contextual vector of one token, ``weights[token] @ V``, shape (d_v,).

    >>> from qkv_helpers import running_example, scaled_dot_product_attention
    >>> ex = running_example()
    >>> out = scaled_dot_product_attention(ex.q, ex.k, ex.v).output
    >>> check_contextual_vector(out[1], ex).ok, check_contextual_vector(out, ex).ok
    (True, False)
    """
    from .attention import scaled_dot_product_attention

    if not_answered(answer):
        return unanswered()
    output = scaled_dot_product_attention(example.q, example.k, example.v).output  # (n, d_v)
    expected = output[example.index(token)]  # (d_v,)
    shape = np.shape(answer)
    if shape == output.shape:
        return wrong("check_l05_all_rows", name="context", got=shape, token=token,
                     needed=expected.shape)
    if shape == expected.shape and _close(answer, example.v.sum(axis=0)):
        return wrong("check_l05_unweighted", name="context")
    return check_array(answer, expected, "context")


def _close(answer, expected) -> bool:
    """True if ``answer`` is numbers of ``expected``'s shape and equal to it (quietly)."""
    try:
        got = np.asarray(answer, dtype=float)
    except (TypeError, ValueError):
        return False
    return got.shape == np.shape(expected) and bool(np.allclose(got, expected, atol=1e-6))


# --- lessons 06-08, 10 ---


def check_head_output(answer, mha, x, head: int, name: str = "my_head") -> Feedback:
    """Lesson 06: one head's output ``softmax(q·kᵀ/√d_k)·v`` from ``mha.project(x)``.

    Recognises three slips: no scaling, no softmax, and another head.

    >>> from qkv_helpers.lang import set_language
    >>> from qkv_helpers.encoder_decoder import encoder_example
    >>> set_language("en")
    >>> enc = encoder_example()
    >>> check_head_output(..., enc.mha, enc.x, head=1).ok is None
    True
    >>> check_head_output(np.zeros((7, 8)), enc.mha, enc.x, head=1)
    ❌ my_head has shape (7, 8), but it should have shape (7, 4).
    """
    if not_answered(answer):
        return unanswered()
    from .attention import scaled_dot_product_attention, softmax

    p = mha.project(x)  # each (n_heads, tokens, head_dim)
    expected = scaled_dot_product_attention(p.q[head], p.k[head], p.v[head]).output
    feedback = check_array(answer, expected, name)
    if feedback.ok is not False or np.shape(answer) != expected.shape:
        return feedback
    got = np.asarray(answer, dtype=float)
    scores = p.q[head] @ p.k[head].T  # (tokens, tokens)
    root = float(np.sqrt(mha.head_dim))
    if np.allclose(got, softmax(scores) @ p.v[head], atol=1e-6):
        return wrong("check_l06_unscaled", name=name, root=f"{root:.0f}")
    if np.allclose(got, scores / root @ p.v[head], atol=1e-6):
        return wrong("check_l06_no_softmax", name=name)
    for other in range(mha.n_heads):
        if other != head and np.allclose(
                got, scaled_dot_product_attention(p.q[other], p.k[other], p.v[other]).output,
                atol=1e-6):
            return wrong("check_l06_other_head", name=name, other=other, head=head)
    return feedback


def check_causal_mask(answer, n_q: int, n_k: int, name: str = "my_mask") -> Feedback:
    """Lesson 07: a causal mask for ``n_q`` queries that are the last of ``n_k`` positions.

    True (or 1) = may attend. The feedback names the first row that sees the future or
    hides its past.

    >>> from qkv_helpers.lang import set_language
    >>> set_language("en")
    >>> check_causal_mask(np.ones((2, 5), bool), 2, 5)
    ❌ In my_mask, query row 0 (position 3) may see key 4, which is in its future.
    >>> check_causal_mask(np.tri(2, 5, k=3, dtype=bool), 2, 5)
    ✅ Right! my_mask is correct.
    """
    if not_answered(answer):
        return unanswered()
    from .masks import causal_mask

    try:
        got = np.asarray(answer)
    except (TypeError, ValueError):
        return wrong("check_not_numbers", name=name, kind=type(answer).__name__)
    if got.dtype.kind not in "biuf":
        return wrong("check_not_numbers", name=name, kind=type(answer).__name__)
    if got.shape != (n_q, n_k):
        return wrong("check_shape", name=name, got=got.shape, needed=(n_q, n_k))
    if not np.isin(got, (0, 1)).all():
        return wrong("check_l07_not_bool", name=name)
    got = got.astype(bool)
    expected = causal_mask(n_q, n_k)  # (n_q, n_k)
    for row, col in np.argwhere(got != expected):
        key = "check_l07_sees_future" if got[row, col] else "check_l07_hides_past"
        return wrong(key, name=name, row=int(row), col=int(col),
                     position=int(n_k - n_q + row))
    return right(name=name)


def check_cross_weights_shape(answer, example, name: str = "my_shape") -> Feedback:
    """Lesson 08: the shape of cross-attention's weights, (target tokens, source tokens).

    >>> from qkv_helpers.lang import set_language
    >>> from qkv_helpers import translation_example
    >>> set_language("en")
    >>> check_cross_weights_shape((5, 7), translation_example())
    ✅ Right! my_shape is correct.
    >>> check_cross_weights_shape((7, 5), translation_example()).ok
    False
    """
    if not_answered(answer):
        return unanswered()
    needed = (len(example.target_tokens), len(example.source_tokens))
    try:
        got = tuple(int(n) for n in answer)
    except (TypeError, ValueError):
        return wrong("check_wrong_value", name=name, got=answer)
    if got == needed[::-1] and needed[0] != needed[1]:
        return wrong("check_l08_transposed", name=name, got=got)
    return check_value(got, needed, name)


def check_decoder_output(answer, example, name: str = "my_output") -> Feedback:
    """Lesson 10: the whole pipeline with the causal mask, from ``x`` and the projections.

    Recognises the output computed without the mask, and without the scaling.

    >>> from qkv_helpers.lang import set_language
    >>> from qkv_helpers import running_example
    >>> set_language("en")
    >>> ex = running_example()
    >>> check_decoder_output(..., ex).ok is None
    True
    >>> from qkv_helpers import scaled_dot_product_attention
    >>> check_decoder_output(scaled_dot_product_attention(ex.q, ex.k, ex.v).output, ex).ok
    False
    """
    if not_answered(answer):
        return unanswered()
    from .attention import softmax
    from .masks import causal_mask
    from .pipeline import pipeline_steps

    mask = causal_mask(example.x.shape[0])  # (tokens, tokens)
    steps = pipeline_steps(example.x, example.w_q, example.w_k, example.w_v, mask=mask)
    feedback = check_array(answer, steps.output, name)
    if feedback.ok is not False or np.shape(answer) != steps.output.shape:
        return feedback
    got = np.asarray(answer, dtype=float)
    unmasked = pipeline_steps(example.x, example.w_q, example.w_k, example.w_v).output
    if np.allclose(got, unmasked, atol=1e-6):
        return wrong("check_l10_unmasked", name=name)
    if np.allclose(got, softmax(np.where(mask, steps.scores, -np.inf)) @ steps.v, atol=1e-6):
        return wrong("check_l06_unscaled", name=name, root=f"{np.sqrt(steps.q.shape[1]):.0f}")
    return feedback


# --- lesson 09 ---


def check_kv_cache_bytes(answer, *, layers: int, kv_heads: int, head_dim: int, tokens: int,
                         batch: int, bytes_per_value: int, query_heads: int | None = None,
                         name: str = "my_bytes") -> Feedback:
    """Lesson 09: the bytes of a KV cache, ``2 · layers · kv_heads · head_dim · tokens ·
    batch · bytes_per_value``.

    Recognises the usual slips: K or V (or the 2 bytes of fp16) forgotten, 4 bytes per
    value, the batch or the layers left out, the query heads used instead of the K/V
    heads, an answer in GiB or in bits.

    >>> from qkv_helpers.lang import set_language
    >>> set_language("en")
    >>> config = dict(layers=2, kv_heads=4, head_dim=4, tokens=10, batch=1, bytes_per_value=4)
    >>> check_kv_cache_bytes(2560, **config)
    ✅ Right! my_bytes = 2,560 bytes (2.50 KiB) is correct.
    >>> check_kv_cache_bytes(1280, **config).ok
    False
    >>> check_kv_cache_bytes(..., **config).ok is None
    True
    """
    if not_answered(answer):
        return unanswered()
    from .kv_math import format_bytes, kv_cache_bytes

    expected = kv_cache_bytes(layers, kv_heads, head_dim, tokens, batch, bytes_per_value)
    try:
        got = float(answer)
    except (TypeError, ValueError):
        return wrong("check_not_numbers", name=name, kind=type(answer).__name__)
    if not np.isfinite(got):
        return wrong("check_not_finite", name=name)
    if got == expected:  # exact: a byte count is a whole number
        return right("check_l09_right", name=name, bytes=f"{expected:,}",
                     readable=format_bytes(expected))
    slips = [  # (what the answer would be, message key), most telling first
        (expected / 2**30, "check_l09_gib"),
        (expected * 8, "check_l09_bits"),
        (expected / 2, "check_l09_half"),
        (expected * 2, "check_l09_double"),
        (expected / batch, "check_l09_no_batch"),
        (expected / layers, "check_l09_no_layers"),
        (expected / bytes_per_value, "check_l09_values"),
    ]
    if query_heads is not None and query_heads != kv_heads:
        slips.insert(0, (expected * query_heads / kv_heads, "check_l09_query_heads"))
    for value, key in slips:
        if value != expected and np.isclose(got, value, rtol=1e-9, atol=0.0):
            return wrong(key, name=name, got=f"{got:,.0f}", bytes_per_value=bytes_per_value,
                         batch=batch, layers=layers, kv_heads=kv_heads,
                         query_heads=query_heads)
    return wrong("check_l09_wrong", name=name, got=f"{got:,.0f}",
                 ratio=f"{got / expected:.3g}")


# --- lesson 13 ---
# Self-contained: every answer is first made a plain number (or array of numbers) here;
# strings, complex numbers, None and anything else become feedback, never an exception.


def _l13_integer(answer):
    """``answer`` as an int, or None if it is not a whole real number (bools, strings: None)."""
    if isinstance(answer, (bool, str, bytes, complex)) or isinstance(answer, np.bool_):
        return None
    try:
        value = float(answer)
    except (TypeError, ValueError, OverflowError):
        return None
    if not np.isfinite(value) or value != int(value):
        return None
    return int(value)


def check_gqa_kv_head(answer, *, n_q_heads: int, n_kv_heads: int, query_head: int,
                      name: str = "my_kv_head") -> Feedback:
    """Lesson 13: which K/V head a query head uses in grouped-query attention.

    The expected answer comes from :func:`~qkv_helpers.grouped_query_attention` itself:
    each query head's output is compared with attention on every K/V head.

    >>> from qkv_helpers.lang import set_language
    >>> set_language("en")
    >>> check_gqa_kv_head(3, n_q_heads=32, n_kv_heads=8, query_head=13).ok
    True
    >>> check_gqa_kv_head(5, n_q_heads=32, n_kv_heads=8, query_head=13).ok   # 13 mod 8
    False
    >>> check_gqa_kv_head("3", n_q_heads=32, n_kv_heads=8, query_head=13).ok
    False
    """
    if not_answered(answer):
        return unanswered()
    expected = _l13_used_kv_head(n_q_heads, n_kv_heads, query_head)
    got = _l13_integer(answer)
    if got is None:
        return wrong("check_not_numbers", name=name, kind=type(answer).__name__)
    group = n_q_heads // n_kv_heads
    if got == expected:
        return right("check_l13_kv_head_right", head=query_head, answer=expected, group=group)
    if not 0 <= got < n_kv_heads:
        return wrong("check_l13_kv_head_range", name=name, last=n_kv_heads - 1, got=got)
    if got == query_head % n_kv_heads:
        return wrong("check_l13_kv_head_interleaved", name=name, got=got, head=query_head,
                     n_kv=n_kv_heads)
    return wrong("check_l13_kv_head_wrong", name=name, got=got, group=group)


def _l13_used_kv_head(n_q_heads: int, n_kv_heads: int, query_head: int) -> int:
    """The K/V head whose attention gives query head ``query_head``'s output, measured."""
    from .attention import scaled_dot_product_attention
    from .grouped_query import grouped_query_attention

    rng = np.random.default_rng(0)
    q = rng.normal(size=(n_q_heads, 2, 4))
    k, v = rng.normal(size=(2, n_kv_heads, 3, 4))
    out = grouped_query_attention(q, k, v).output[query_head]  # (2, 4)
    for h in range(n_kv_heads):
        if np.allclose(out, scaled_dot_product_attention(q[query_head], k[h], v[h]).output):
            return h
    raise AssertionError("no K/V head gives this query head's output")  # pragma: no cover


def check_merged_halves(answer, scores, v, name: str = "my_output") -> Feedback:
    """Lesson 13: one query's output from two halves of its keys, merged by rescaling.

    ``scores (n_k,)`` and ``v (n_k, d_v)``; the expected answer is
    ``softmax(scores) @ v`` from the package. Recognises the average of the two halves'
    outputs and the sum without rescaling.

    >>> from qkv_helpers.lang import set_language
    >>> set_language("en")
    >>> s, v = np.array([0.0, 1.0, 3.0, 2.0]), np.arange(8.0).reshape(4, 2)
    >>> from qkv_helpers import softmax
    >>> check_merged_halves(softmax(s) @ v, s, v).ok
    True
    >>> halves = (softmax(s[:2]) @ v[:2] + softmax(s[2:]) @ v[2:]) / 2
    >>> check_merged_halves(halves, s, v).message.startswith("my_output is the average")
    True
    >>> check_merged_halves("1, 2", s, v).ok, check_merged_halves(1j, s, v).ok
    (False, False)
    """
    if not_answered(answer):
        return unanswered()
    from .attention import softmax

    try:  # the notebook passes these; a learner may have overwritten them
        scores = np.asarray(scores, dtype=float)
        v = np.asarray(v, dtype=float)
        expected = softmax(scores) @ v  # (d_v,)
        if scores.ndim != 1 or expected.ndim != 1:
            raise ValueError
    except (TypeError, ValueError, OverflowError):
        return wrong("check_not_numbers", name="scores, v", kind=type(scores).__name__)
    if isinstance(answer, (str, bytes)) or np.iscomplexobj(answer):
        return wrong("check_not_numbers", name=name, kind=type(answer).__name__)
    try:
        got = np.asarray(answer, dtype=float)
    except (TypeError, ValueError, OverflowError):
        return wrong("check_not_numbers", name=name, kind=type(answer).__name__)
    if got.shape != expected.shape:
        got = got.reshape(-1) if got.size == expected.size else got
        if got.shape != expected.shape:
            return wrong("check_shape", name=name, got=got.shape, needed=expected.shape)
    if not np.isfinite(got).all():
        return wrong("check_not_finite", name=name)
    shown = np.array2string(got, precision=3)
    if np.allclose(got, expected, rtol=1e-6, atol=1e-9):
        return right("check_l13_merge_right", name=name, got=shown)
    half = scores.size // 2
    parts = [(scores[:half], v[:half]), (scores[half:], v[half:])]
    average = sum(softmax(s) @ w for s, w in parts) / 2
    exps = [(np.exp(s - s.max()), w) for s, w in parts]
    no_rescale = sum(e @ w for e, w in exps) / sum(e.sum() for e, _ in exps)
    if np.allclose(got, average, rtol=1e-6, atol=1e-9):
        return wrong("check_l13_merge_average", name=name)
    if np.allclose(got, no_rescale, rtol=1e-6, atol=1e-9):
        return wrong("check_l13_merge_no_rescale", name=name)
    return wrong("check_l13_merge_wrong", name=name, got=shown,
                 needed=np.array2string(expected, precision=3))
