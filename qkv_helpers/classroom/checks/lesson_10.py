"""Lesson 10's exercise checks."""

from __future__ import annotations

import numpy as np

from ._answers import _close, _real_array, check_array
from ._feedback import Feedback, never_raises, wrong


@never_raises
def check_masked_output(answer, x, w_q, w_k, w_v, name: str = "my_output") -> Feedback:
    """Lesson 10: causally masked self-attention from the embeddings ``x`` and projections.

    >>> from qkv_helpers import translation_example, scaled_dot_product_attention, causal_mask
    >>> tr = translation_example()
    >>> x = tr.target_x
    >>> q, k, v = x @ tr.w_q, x @ tr.w_k, x @ tr.w_v
    >>> out = scaled_dot_product_attention(q, k, v, mask=causal_mask(5)).output
    >>> check_masked_output(out, x, tr.w_q, tr.w_k, tr.w_v).ok
    True
    >>> check_masked_output(scaled_dot_product_attention(q, k, v).output, x, tr.w_q, tr.w_k,
    ...                     tr.w_v).ok
    False
    """
    got = _real_array(answer, name)
    if isinstance(got, Feedback):
        return got
    from ...attention import softmax
    from ...attention_steps import pipeline_steps
    from ...masks import causal_mask

    x = np.asarray(x, dtype=float)
    mask = causal_mask(x.shape[0])  # (tokens, tokens)
    steps = pipeline_steps(x, w_q, w_k, w_v, mask=mask)
    if not _close(got, steps.output):
        if _close(got, pipeline_steps(x, w_q, w_k, w_v).output):
            return wrong("check_l10_unmasked", name=name, n=x.shape[0])
        if _close(got, softmax(np.where(mask, steps.q @ steps.k.T, -np.inf)) @ steps.v):
            return wrong("check_l06_unscaled", name=name,
                         root=f"{np.sqrt(steps.q.shape[1]):.0f}")
        scaled = steps.q @ steps.k.T / np.sqrt(steps.q.shape[1])  # (tokens, tokens)
        if _close(got, softmax(np.where(mask, scaled, 0.0)) @ steps.v):
            return wrong("check_l10_masked_with_zero", name=name)
        if _close(got, (softmax(scaled) * mask) @ steps.v):
            return wrong("check_l10_masked_after_softmax", name=name)
        d_model, d_k = x.shape[1], steps.q.shape[1]
        by_d_model = steps.q @ steps.k.T / np.sqrt(d_model)  # (tokens, tokens): √8, not √d_k
        if d_model != d_k and _close(got, softmax(np.where(mask, by_d_model, -np.inf)) @ steps.v):
            return wrong("check_l10_scaled_by_d_model", name=name, d_model=d_model, d_k=d_k,
                         root=f"{np.sqrt(d_k):g}")
        if _close(got, softmax(np.where(mask, scaled, -np.inf), axis=0) @ steps.v):
            return wrong("check_l10_softmax_columns", name=name)  # each column summing to 1
    return check_array(got, steps.output, name)
