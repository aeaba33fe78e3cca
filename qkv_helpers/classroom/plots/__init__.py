"""Every picture of the course. Each function returns the matplotlib Axes (or Figure) it drew.

Pass ``ax=`` to draw into an existing Axes (the widgets do); otherwise a new figure is made
and the notebook shows it. Labels come from the language table (:mod:`qkv_helpers.lang`).

Importing this module applies the course's fonts and style
(:func:`qkv_helpers.classroom.style.apply`), so Korean labels render even before
``qkv_helpers.setup()`` is called.
"""

from .. import style

style.apply()

from .attention_maps import (
    plot_attention_heatmap,
    plot_cross_attention,
    plot_masked_scores,
    plot_query_bars,
)
from .attention_steps import plot_pipeline

# Each part of the course adds its plots below, one import line per module.
# (isort: these come after style.apply() on purpose.)
from .induction import (  # lesson 15
    plot_induction_curves,
    plot_induction_maps,
    plot_loss_per_position,
)
from .kv_cache import (
    plot_cache_fill,
    plot_cache_growth,
    plot_flops_per_step,
    plot_speedup,
    plot_step_memory,
    plot_step_times,
    plot_total_flops,
)
from .long_context import plot_cost_loglog, plot_roofline, plot_serving_memory  # lesson 13
from .positions import (
    plot_position_similarity,
    plot_position_vectors,
    plot_rope_score_by_distance,
)
from .pretrained import plot_head_scores, plot_weight_vs_contribution
from .score_scale import plot_score_histogram, plot_variance_vs_dk
from .similarity import plot_vectors_2d
from .softmax_curves import plot_softmax_curves
from .training import (  # lesson 14
    plot_alignment_maps,
    plot_backward_memory,
    plot_gradient_check,
    plot_optimiser,
    plot_score_push,
    plot_training_curves,
)
