"""qkv_helpers: every computation and picture of the Q/K/V attention course.

The math lives in small numpy-only modules named for the course's ideas, all imported
here (``README.md`` in this folder is the map, in lesson order). Pictures and widgets
(:mod:`qkv_helpers.plots`, :mod:`qkv_helpers.widgets`) import matplotlib and ipywidgets,
so they load only when first used: ``import qkv_helpers`` needs neither.
"""

from __future__ import annotations

import importlib

# Every numpy-only module is imported here, so that "go to definition" (jedi, in Jupyter
# and editors) finds each name a lesson uses: qk.KVCache, qk.apply_rope, qk.kv_cache.arithmetic...
from . import (
    attention_steps,
    checks,
    decoding,
    encoder_decoder,
    fast,
    float_limits,
    grouped_query,
    induction,
    kv_cache,
    layer_norm,
    long_context,
    positions,
    pretrained,
    quiz,
    score_scale,
    similarity,
    source_code,
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
from .kv_cache import experiments as _kv_experiments  # noqa: F401 (qk.kv_cache.experiments)
from .lang import get_language, set_language, t
from .masks import (
    causal_mask,
    sliding_window_mask,  # lesson 13
)
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

# Pictures and widgets import matplotlib and ipywidgets: loaded on first use, so that
# ``import qkv_helpers`` needs neither.
_LAZY = ("plots", "widgets", "style")


def __getattr__(name: str):
    if name in _LAZY:
        module = importlib.import_module(f"qkv_helpers.{name}")
        globals()[name] = module
        return module
    raise AttributeError(f"module 'qkv_helpers' has no attribute {name!r}")


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
    set_language(lang)
    from . import style  # imports matplotlib: only here, not at package import

    style.apply()
