"""qkv_helpers: every computation and picture of the Q/K/V attention course.

The folders show the layers (``README.md`` in this folder is the map, in lesson order):
the math lives in small numpy-only modules at the top, named for the course's ideas, all
imported here; ``measure/`` holds what measures them (memory, time, costs), also imported
here; ``classroom/`` holds what the classroom adds (exercise checks, quiz, grading,
pictures, widgets, style), loaded on first use (``qk.checks``, ``qk.plots`` ...), as are
the texts (``lang.py``): ``import qkv_helpers`` loads numpy and the math only.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING

# Every numpy-only module is imported here, so that "go to definition" (jedi, in Jupyter
# and editors) finds each name a lesson uses: qk.KVCache, qk.apply_rope, qk.kv_cache.arithmetic...
from . import (
    attention_steps,
    decoding,
    encoder_decoder,
    fast,
    float_limits,
    grouped_query,
    induction,
    kv_cache,
    layer_norm,
    positions,
    pretrained,
    score_scale,
    similarity,
    tiled,
    weighted_sum,
)
from .attention import (
    AttentionResult,
    MultiHeadAttention,
    Projection,
    scaled_dot_product_attention,
    softmax,
)
from .decoding import TinyTransformer  # lessons 08-09
from .examples import RunningExample, TranslationExample, running_example, translation_example
from .grouped_query import grouped_query_attention  # lesson 13
from .kv_cache import (
    KVCache,  # lesson 09
    PagedKVCache,  # lesson 13
)
from .masks import (
    causal_mask,
    sliding_window_mask,  # lesson 13
)

# The measurements of the math (measure/): lessons 09, 13 and 14 read them by these names too.
from .measure import attention_backward, kv_cache_experiments, long_context
from .positions import apply_rope  # lesson 12
from .tiled import tiled_attention  # lesson 13

__version__ = "0.1.0"

__all__ = [
    "AttentionResult",
    "KVCache",
    "MultiHeadAttention",
    "Projection",
    "RunningExample",
    "TinyTransformer",
    "TranslationExample",
    "apply_rope",
    "causal_mask",
    "get_language",
    "running_example",
    "scaled_dot_product_attention",
    "set_language",
    "setup",
    "softmax",
    "t",
    "translation_example",
    # lesson 13
    "PagedKVCache",
    "grouped_query_attention",
    "sliding_window_mask",
    "tiled_attention",
]

# The classroom's parts, loaded on first use (PEP 562's module __getattr__): pictures and
# widgets import matplotlib and ipywidgets, the checks and the quiz the texts of every
# lesson. Go to definition (jedi, editors) reads the imports under TYPE_CHECKING.
if TYPE_CHECKING:
    from . import lang
    from .classroom import checks, grading, plots, quiz, source_code, style, widgets
    from .lang import get_language, set_language, t

# name -> the module it loads (classroom/ holds what the classroom adds to the math)
_LAZY_MODULES = {
    "lang": "lang",
    **{name: f"classroom.{name}"
       for name in ("checks", "grading", "plots", "quiz", "source_code", "style", "widgets")},
}
_LAZY_NAMES = {"get_language": "lang", "set_language": "lang", "t": "lang"}


def __getattr__(name: str):
    if name in _LAZY_MODULES:
        value = importlib.import_module(f"qkv_helpers.{_LAZY_MODULES[name]}")
    elif name in _LAZY_NAMES:
        value = getattr(importlib.import_module(f"qkv_helpers.{_LAZY_NAMES[name]}"), name)
    else:
        raise AttributeError(f"module 'qkv_helpers' has no attribute {name!r}")
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(_LAZY_MODULES) | set(_LAZY_NAMES))


def setup(lang: str = "ko") -> None:
    """Set up a notebook: the language of every label and message, fonts, and plot style.

    Call it once at the top of every lesson::

        import qkv_helpers as qk
        qk.setup(lang="ko")   # or "en"

    Parameters
    ----------
    lang : {"ko", "en"}
        Language of every plot label, widget description and feedback message.
    """
    from .classroom import style  # imports matplotlib: only here, not at package import
    from .lang import set_language

    set_language(lang)

    style.apply()
