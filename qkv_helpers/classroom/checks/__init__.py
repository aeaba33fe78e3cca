"""Exercise checks: feedback on a learner's answer, in the lesson's language.

Every "직접 해보기 / Try it" cell ends with a call to a check here. The contract of every
check, whatever the learner typed (any object, a ragged list, ``10**400``, NaN, a string,
complex numbers, a function that raises or returns ``...``):

- it never raises: it returns a :class:`Feedback`, shown as one coloured line;
- the feedback, in the lesson's language, names the learner's variable and says what is
  wrong: not answered yet, wrong type, ragged, not finite, wrong shape, wrong values;
- the right answer passes as an ndarray, a nested list or a numpy scalar; numbers given as
  strings, complex numbers and shapes that are not whole numbers are refused;
- the expected answer always comes from the package itself.

    >>> from qkv_helpers.lang import set_language
    >>> set_language("en")
    >>> check_array(..., np.ones(2), "weights")
    ✏️ Not answered yet: replace the ... with your answer and run the cell again.
    >>> check_array(np.ones(3), np.ones(2), "weights")
    ❌ weights has shape (3,), but it should have shape (2,).
    >>> check_array([1, 1], np.ones(2), "weights")
    ✅ Right! weights is correct.
    >>> check_array([[1, 2], [3]], np.ones(2), "weights")
    ❌ weights is a ragged list: every row must have the same length.

A solution cell shows its check as the solution's: ``check(...).as_solution()``.

    >>> check_array([1, 1], np.ones(2), "weights").as_solution()
    ✅ Solution check: Right! weights is correct.
"""

from __future__ import annotations

import numpy as np  # noqa: F401 (the doctest above)

from ._answers import check_array, check_value, check_weights
from ._feedback import Feedback, never_raises, not_answered
from .lesson_00 import check_q_shape
from .lesson_01 import check_new_key, check_new_scores
from .lesson_02 import check_angle, check_reordered_scores
from .lesson_03 import check_score_spread
from .lesson_04 import check_stable_log_softmax, check_stable_softmax
from .lesson_05 import check_prefix_context
from .lesson_06 import check_head_output, check_prefix_head
from .lesson_07 import check_causal_mask, check_changed_rows
from .lesson_08 import check_cross_shape, check_cross_weights_shape
from .lesson_09 import check_kv_cache_bytes, check_max_batch
from .lesson_10 import check_masked_output
from .lesson_11 import check_head_weights
from .lesson_12 import check_rope_score, check_same_distance
from .lesson_13 import check_gqa_group, check_merged_halves
from .lesson_14 import check_attention_backward, check_break_it, check_row_attention
from .lesson_15 import check_fixed_length, check_induction_score, check_induction_targets

__all__ = [
    "Feedback",
    "check_angle",
    "check_array",
    "check_attention_backward",
    "check_break_it",
    "check_causal_mask",
    "check_changed_rows",
    "check_cross_shape",
    "check_cross_weights_shape",
    "check_gqa_group",
    "check_head_output",
    "check_fixed_length",
    "check_head_weights",
    "check_induction_score",
    "check_induction_targets",
    "check_kv_cache_bytes",
    "check_masked_output",
    "check_max_batch",
    "check_merged_halves",
    "check_new_key",
    "check_new_scores",
    "check_prefix_context",
    "check_prefix_head",
    "check_q_shape",
    "check_reordered_scores",
    "check_rope_score",
    "check_row_attention",
    "check_same_distance",
    "check_score_spread",
    "check_stable_log_softmax",
    "check_stable_softmax",
    "check_value",
    "check_weights",
    "never_raises",
    "not_answered",
]
