"""Every widget of the course: functions that return a :class:`Panel` to display.

Each panel holds controls and a figure that redraws in place when a control moves (see
:mod:`qkv_helpers.classroom.widgets._live`). Tests set a control's value in Python and check that
the panel's data and picture changed.
"""

from ._live import LiveFigure, Panel
from .attention_steps import pipeline_explorer

# Each part of the course adds its widgets below, one import line per module.
from .cross import cross_attention_explorer
from .heads import head_selector
from .induction import induction_explorer, induction_progress  # lesson 15
from .kv_cache import kv_cache_stepper
from .long_context import paged_cache_view, tiling_animation  # lesson 13
from .masking import causal_mask_explorer
from .positions import rope_explorer
from .real_model import minilm_explorer
from .scores_and_weights import (
    dot_product_explorer,
    query_explorer,
    scaling_explorer,
    temperature_explorer,
    weighted_sum_stepper,
)
from .start import widget_check
from .training import (  # lesson 14
    attention_learning_explorer,
    sentence_translator,
    training_progress,
)
