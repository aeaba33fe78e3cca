"""The machinery every widget shares: a figure that redraws in place, inside a panel.

A widget in this course is a :class:`Panel` (an ``ipywidgets.VBox``) holding controls and
a :class:`LiveFigure`. The figure is drawn once into a matplotlib ``Figure`` that pyplot
never sees (so figures do not pile up), rendered to PNG, and shown in an
``ipywidgets.Image``. When a control moves, the widget redraws the same figure and swaps
the image's bytes: no flicker, no new output, and the picture survives in a saved
notebook and in the static HTML site (the widget state holds the PNG).

Every widget of the course uses the figure's update mode: the artists are built once, a
control change only changes those that move (``qkv_helpers.classroom.widgets._artists`` has the
helpers) and only they are drawn again, over a kept picture of the rest (blitting). That
keeps a redraw well under the course's 50 ms target (``make bench``).
"""

from __future__ import annotations

import io
from collections.abc import Callable

import ipywidgets as widgets
import numpy as np
import PIL.Image
from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.figure import Figure

__all__ = ["SHARPNESS", "LiveFigure", "Panel"]

#: Pixels of the PNG per pixel of the picture on the page. The picture is shown at
#: ``figsize × dpi`` CSS pixels (its layout width says so, so the page never stretches it)
#: and drawn with 1.5 times as many pixels each way: sharp on a projector with the page
#: zoomed to 150 %, nearly so on a high-density screen. Each redraw costs about 1.5 times
#: the time of drawing at 1 (measured side by side); 2 would cost about 2.3 times.
SHARPNESS = 1.5


class LiveFigure:
    """A matplotlib figure shown as an ``ipywidgets.Image`` and redrawn in place.

    Parameters
    ----------
    draw : callable
        ``draw(fig, *args)`` draws the current state into the (already cleared) figure;
        ``args`` are those given to :meth:`redraw` (a :class:`Panel` passes itself).
    figsize : (float, float)
        Size in inches.
    dpi : int
        CSS pixels per inch of the picture on the page: it is shown ``figsize × dpi``
        pixels wide (less only if the page is narrower), from a PNG of :data:`SHARPNESS`
        times as many pixels each way.

    update : callable, optional
        Update mode: ``draw(fig, *args)`` builds the figure once and returns a handle (e.g.
        a dict of artists); on each later redraw ``update(handle, *args)`` changes those
        artists in place (``set_data``, ``set_text``, ``set_height``, ...) instead of
        drawing anew. Artists that change are marked ``set_animated(True)`` when built:
        the rest of the figure is rendered once as a background and only the animated
        artists are drawn over it (blitting). ``update`` returns True when it changed a
        static part too (limits, tick labels), so the background is rendered again.

    The first drawing is laid out by matplotlib's constrained layout; later drawings reuse
    its axes positions (as long as they make the same number of axes), which halves the
    time of a redraw.

    Examples
    --------
    >>> live = LiveFigure(lambda fig: fig.add_subplot().plot([0, 1], [1, 0]), figsize=(2, 2))
    >>> live.redraw()
    >>> bytes(live.image.value[:4])
    b'\\x89PNG'
    >>> live.image.layout.width, PIL.Image.open(io.BytesIO(live.image.value)).size
    ('160px', (240, 240))

    Update mode: build once, then only move the line.

    >>> def build(fig, y):
    ...     return fig.add_subplot().plot([0, 1], [y, 0], animated=True)[0]
    >>> def move(line, y):
    ...     line.set_ydata([y, 0])
    >>> live = LiveFigure(build, figsize=(2, 2), update=move)
    >>> live.redraw(1.0)
    >>> first = bytes(live.image.value)
    >>> live.redraw(0.5)
    >>> bytes(live.image.value) != first, live.redraws
    (True, 2)
    """

    def __init__(self, draw: Callable[[Figure], object], figsize=(6.4, 4.0), dpi: int = 80,
                 update: Callable[..., object] | None = None):
        self.draw = draw
        self.update = update
        self.figure = Figure(figsize=figsize, dpi=dpi * SHARPNESS, layout="constrained")
        FigureCanvasAgg(self.figure)
        self.image = widgets.Image(format="png")
        # Shown at its own size: an explicit width, so the panel (a flex column) does not
        # stretch it to the page; narrower only when the page is.
        layout = self.image.layout
        layout.width, layout.height = f"{round(figsize[0] * dpi)}px", "auto"
        layout.max_width, layout.align_self = "100%", "flex-start"
        self.redraws = 0
        self._positions = None  # the axes' places, fixed after the first drawing
        self._handle = None  # what ``draw`` returned (update mode)
        self._background = None  # the rendered static parts (update mode)
        self._animated: list = []  # the artists drawn over the background (update mode)

    def redraw(self, *args) -> None:
        """Show the new state: redraw in full, or (update mode) change and blit the artists."""
        if self.update is None:
            self._full_redraw(*args)
        else:
            if self._handle is None:
                self._build(*args)
            elif self.update(self._handle, *args):
                self._capture()  # the static parts changed: render them again
            self._blit()
        self.image.value = _png(np.asarray(self.figure.canvas.buffer_rgba()))
        self.redraws += 1

    def _full_redraw(self, *args) -> None:
        """Clear the figure and draw it anew."""
        fig = self.figure
        fig.clear()
        self.draw(fig, *args)
        if self._positions is not None and len(fig.axes) == len(self._positions):
            # Constrained layout costs a second drawing each time: instead, the axes go
            # where the first, laid-out drawing put them.
            for ax, position in zip(fig.axes, self._positions):
                ax.set_position(position)
        else:
            fig.set_layout_engine("constrained")
        fig.canvas.draw()
        if self._positions is None or len(fig.axes) != len(self._positions):
            self._positions = [ax.get_position() for ax in fig.axes]
            fig.set_layout_engine("none")

    def _build(self, *args) -> None:
        """Update mode, first drawing: build the artists once and lay the figure out."""
        fig = self.figure
        fig.clear()
        self._handle = self.draw(fig, *args)
        fig.set_layout_engine("constrained")
        fig.canvas.draw()
        fig.set_layout_engine("none")
        self._capture(draw=False)

    def _capture(self, draw: bool = True) -> None:
        """Render the static artists and keep that picture as the background."""
        fig = self.figure
        if draw:
            fig.canvas.draw()
        self._background = fig.canvas.copy_from_bbox(fig.bbox)
        animated = fig.findobj(lambda artist: artist.get_animated())
        self._animated = sorted(animated, key=lambda artist: artist.get_zorder())

    def _blit(self) -> None:
        """Restore the background and draw the changing artists over it."""
        fig = self.figure
        fig.canvas.restore_region(self._background)
        for artist in self._animated:
            fig.draw_artist(artist)


def _png(rgba: np.ndarray) -> bytes:
    """PNG bytes of an RGBA image; light compression, since speed matters more here."""
    buffer = io.BytesIO()
    PIL.Image.fromarray(rgba[..., :3]).save(buffer, format="png", compress_level=1)
    return buffer.getvalue()


class Panel(widgets.VBox):
    """The container every widget function returns: controls, a figure and a caption.

    Its text form is short and fixed (``<Panel: name>``), so a notebook that displays it
    has the same saved output on every run.

    Parameters
    ----------
    name : str
        Shown in the panel's text form.
    controls : dict
        Controls by name; any change of a control's ``value`` calls ``update(panel)`` and
        then redraws the figure.
    live : LiveFigure or None
        Its ``draw(fig, panel)`` reads what to draw from ``panel.state``.
    update : callable
        ``update(panel)`` recomputes ``panel.state`` (a dict: what the figure shows, also
        what tests look at) and sets ``panel.caption``.

    Attributes
    ----------
    controls : dict
        The panel's controls by name (sliders, dropdowns, buttons), for tests and teachers.
    live : LiveFigure or None
        The figure that redraws.
    caption : ipywidgets.HTML
        A line of text under the figure, updated with the figure (numbers, feedback).
    """

    def __init__(self, name: str, controls: dict, live: LiveFigure | None,
                 update: Callable[[Panel], None], caption: bool = True):
        self.name = name
        self.controls = controls
        self.live = live
        self.caption = widgets.HTML()
        self._update = update
        self.state: dict = {}
        children = [widgets.HBox(list(controls.values()))] if controls else []
        if live is not None:
            children.append(live.image)
        if caption:
            children.append(self.caption)
        super().__init__(children=children)
        for control in controls.values():
            if hasattr(control, "value"):
                control.observe(self._on_change, names="value")
        self.refresh()

    def _on_change(self, change) -> None:
        self.refresh()

    def refresh(self) -> None:
        """Recompute and redraw from the controls' current values."""
        self._update(self)
        if self.live is not None:
            self.live.redraw(self)

    def __repr__(self) -> str:
        return f"<Panel: {self.name}>"
