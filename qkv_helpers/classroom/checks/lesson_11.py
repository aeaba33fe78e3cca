"""Lesson 11's exercise checks."""

from __future__ import annotations

import numpy as np

from ...examples import SENTENCE
from ._answers import check_array
from ._feedback import Feedback, never_raises, not_answered, right, unanswered, wrong


def _real_matrix(answer, shape: tuple, name: str):
    """``answer`` as a finite float array of ``shape``, or the Feedback saying why not.

    Never raises: strings, complex numbers, ragged lists and objects are refused with a
    message, not converted.
    """
    if isinstance(answer, (str, bytes)):
        return wrong("check_not_numbers", name=name, kind=type(answer).__name__)
    try:
        arr = np.asarray(answer)
        if arr.dtype.kind not in "biuf":
            return wrong("check_not_numbers", name=name, kind=type(answer).__name__)
        got = arr.astype(float)
    except Exception:  # anything a learner might type
        return wrong("check_not_numbers", name=name, kind=type(answer).__name__)
    if got.shape != shape:
        return wrong("check_l11_not_square", name=name, got=got.shape, needed=shape)
    if not np.isfinite(got).all():
        return wrong("check_not_finite", name=name)
    return got


def _head_weights(model, x, layer: int, head: int, hidden, scale: bool = True,
                  bias: bool = True) -> np.ndarray:
    """One head's weights from ``x (n, d_model)`` with layer ``layer``'s W_Q, W_K (and biases),
    keys in ``hidden`` masked out; ``(n, n)``."""
    from ...attention import scaled_dot_product_attention

    mha = model.layers[layer].attention
    cols = slice(head * mha.head_dim, (head + 1) * mha.head_dim)
    q = x @ mha.w_q[:, cols] + (mha.b_q[cols] if bias else 0.0)  # (n, head_dim)
    k = x @ mha.w_k[:, cols] + (mha.b_k[cols] if bias else 0.0)  # (n, head_dim)
    mask = np.ones(len(x), bool)  # (n,): True = may attend; the same for every query
    mask[list(hidden)] = False
    return scaled_dot_product_attention(q, k, k, mask=mask,
                                        scale=None if scale else 1.0).weights


@never_raises
def check_head_weights(answer, model, text: str, layer: int, head: int, hide_keys=(),
                       name: str = "my_weights") -> Feedback:
    """Lesson 11: one head's attention weights in the real model, for a new sentence,
    optionally with some keys hidden (masked out, as padding is).

    The expected weights come from the package: this layer's input
    ``model(text).hidden_states[layer]``, the head's columns of W_Q and W_K with their
    biases, and :func:`scaled_dot_product_attention` with a mask that hides the key
    positions ``hide_keys`` from every query. With no key hidden they are the model's own
    ``attentions[layer][0, head]``. Compared to 1e-5 (the model computes in float32).
    Recognises the usual slips: the keys not hidden, the mask inverted (True at the keys to
    hide, so that only they are seen), no scaling, the biases left out, keys
    as rows (transposed), another head of the layer, the lesson's example sentence
    (:data:`~qkv_helpers.examples.SENTENCE`, the lesson's ``out``) in place of ``text``,
    another layer's input.

    >>> from qkv_helpers.lang import set_language
    >>> from qkv_helpers.pretrained import load_minilm
    >>> set_language("en")
    >>> model = load_minilm()
    >>> check_head_weights(..., model, "A dog ran.", layer=0, head=2).ok is None
    True
    >>> check_head_weights("0.5", model, "A dog ran.", layer=0, head=2)
    ❌ my_weights should be numbers (an array), but it is of type str.
    >>> right_answer = model("A dog ran.").attentions[0][0, 2]
    >>> check_head_weights(right_answer, model, "A dog ran.", layer=0, head=2).ok
    True
    >>> check_head_weights(right_answer, model, "A dog ran.", 0, 2, hide_keys=[0]).ok
    False
    """
    if not_answered(answer):
        return unanswered()
    n = len(model.tokenize(text)[0][0])  # the sentence's tokens, [CLS] and [SEP] included
    got = _real_matrix(answer, (n, n), name)  # refused before the model runs
    if isinstance(got, Feedback):
        return got
    out = model(text)
    hidden = [int(i) for i in hide_keys]
    x = out.hidden_states[layer][0].astype(float)  # (n, d_model): this layer's input
    expected = _head_weights(model, x, layer, head, hidden)  # (n, n)
    if np.allclose(got, expected, rtol=0, atol=1e-5):
        return right("check_l11_right", name=name, layer=layer, head=head)

    def close(candidate) -> bool:
        return bool(np.allclose(got, candidate, rtol=0, atol=1e-4))

    mha = model.layers[layer].attention
    d = mha.head_dim
    keys = ", ".join(out.tokens[0][i] for i in hidden)
    if hidden and close(_head_weights(model, x, layer, head, [])):
        return wrong("check_l11_not_hidden", name=name, keys=keys)
    shown = [i for i in range(n) if i not in hidden]  # an inverted mask hides these instead
    if hidden and shown and close(_head_weights(model, x, layer, head, shown)):
        return wrong("check_l11_inverted_mask", name=name, keys=keys)
    if close(expected.T):
        return wrong("check_l11_transposed", name=name)
    if close(_head_weights(model, x, layer, head, hidden, scale=False)):
        return wrong("check_l11_unscaled", name=name, head_dim=d)
    if close(_head_weights(model, x, layer, head, hidden, bias=False)):
        return wrong("check_l11_no_bias", name=name)
    for other in range(mha.n_heads):
        if other != head and close(_head_weights(model, x, layer, other, hidden)):
            return wrong("check_l11_other_head", name=name, other=other, head=head,
                         start=head * d, end=(head + 1) * d)
    if text != SENTENCE and len(model.tokenize(SENTENCE)[0][0]) == n:
        x_example = model(SENTENCE).hidden_states[layer][0].astype(float)  # (n, d_model)
        if close(_head_weights(model, x_example, layer, head, hidden)):
            return wrong("check_l11_example_sentence", name=name, sentence=SENTENCE,
                         layer=layer)
    for other_layer in range(len(model.layers)):
        x_other = out.hidden_states[other_layer][0].astype(float)
        if other_layer != layer and close(_head_weights(model, x_other, layer, head, hidden)):
            return wrong("check_l11_other_layer", name=name, head=head, layer=layer)
    return check_array(got, expected, name, atol=1e-5)
