"""Every picture of the course. Each function returns the matplotlib Axes (or Figure) it drew.

Pass ``ax=`` to draw into an existing Axes (the widgets do); otherwise a new figure is made
and the notebook shows it. Labels come from the language table (:mod:`qkv_helpers.lang`).
"""

from .attention_maps import (
    plot_attention_heatmap,
    plot_cross_attention,
    plot_masked_scores,
    plot_query_bars,
)

# Each part of the course adds its plots below, one import line per module.
