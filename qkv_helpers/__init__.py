"""qkv_helpers: every computation and picture of the Q/K/V attention course.

The math lives in small modules named for the course's ideas:

- :mod:`qkv_helpers.attention` -- softmax, scaled dot-product attention, multi-head attention
- :mod:`qkv_helpers.masks` -- the causal mask
- :mod:`qkv_helpers.examples` -- the running example "The cat sat on the mat."
- :mod:`qkv_helpers.lang` -- the language tables (Korean and English)

Pictures and widgets (:mod:`qkv_helpers.plots`, :mod:`qkv_helpers.widgets`) import
matplotlib and ipywidgets, so they load only when first used: ``import qkv_helpers``
stays quick and needs neither.
"""

from __future__ import annotations

import importlib

from .attention import (
    AttentionResult,
    MultiHeadAttention,
    Projection,
    scaled_dot_product_attention,
    softmax,
)
from .examples import RunningExample, TranslationExample, running_example, translation_example
from .fast import tiled_attention  # lesson 13
from .grouped_query import grouped_query_attention  # lesson 13
from .lang import get_language, set_language, t
from .masks import (
    causal_mask,
    sliding_window_mask,  # lesson 13
)
from .paged_kv_cache import PagedKVCache  # lesson 13

__version__ = "0.1.0"

__all__ = [
    "AttentionResult",
    "MultiHeadAttention",
    "Projection",
    "RunningExample",
    "TranslationExample",
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

# Optional names, loaded on first use (they import matplotlib or ipywidgets or
# belong to later parts of the course): name -> module that defines it.
_LAZY = {
    "plots": "qkv_helpers.plots",
    "widgets": "qkv_helpers.widgets",
    "checks": "qkv_helpers.checks",
    "style": "qkv_helpers.style",
    "KVCache": "qkv_helpers.kv_cache",
    "TinyTransformer": "qkv_helpers.decoding",
    # lessons 01-05 (numpy only)
    "similarity": "qkv_helpers.similarity",
    "scaling": "qkv_helpers.scaling",
    "numerics": "qkv_helpers.numerics",
    "weighted_sum": "qkv_helpers.weighted_sum",
    # lessons 06-08, 10 (numpy only)
    "encoder_decoder": "qkv_helpers.encoder_decoder",
    "pipeline": "qkv_helpers.pipeline",
    "quiz": "qkv_helpers.quiz",
    # lesson 09 (numpy only)
    "kv_math": "qkv_helpers.kv_math",
    "kv_experiments": "qkv_helpers.kv_experiments",
    # lesson 12 (numpy only)
    "positions": "qkv_helpers.positions",
    "apply_rope": "qkv_helpers.positions",
    # lesson 11 (numpy, safetensors, tokenizers; the model package)
    "pretrained": "qkv_helpers.pretrained",
    # lesson 13 (numpy only)
    "at_scale": "qkv_helpers.at_scale",
    # the fast paths, apart from the readable attention (issue 14)
    "fast": "qkv_helpers.fast",
}


def __getattr__(name: str):
    if name in _LAZY:
        module = importlib.import_module(_LAZY[name])
        value = module if module.__name__.endswith("." + name) else getattr(module, name)
        globals()[name] = value
        return value
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
