"""What a feedback page shows beyond the graded notebook itself: widgets and stopped cells.

A feedback page (``nbgrader generate_feedback``: the graded notebook as HTML) runs no kernel
and loads no script from elsewhere, so a widget's output would be blank. The autograder
saved every widget's state in the notebook (nbclient stores it), and that state holds what
the widget showed: the picture (an ``Image``'s PNG bytes, or an ``Output``'s outputs), its
caption (``HTML``/``Label`` values) and its controls with their values. :func:`snapshot`
draws that as plain HTML, under a line (in the course's language) saying the controls move
in JupyterLab; :func:`replace_widgets` puts it in place of each widget output.

A cell the autograder stopped at its time limit shows the course's message ("did not finish
in 5 s ... look at your loop"); :func:`drop_interrupts` removes the ``KeyboardInterrupt``
the kernel printed just before it (the same news, as English jargon).

:class:`FeedbackPage`, an nbconvert preprocessor, does both. ``tools/assignments.py`` copies
this file into every course folder (``feedback_template/feedback_page.py``) and names the
preprocessor in the folder's ``nbgrader_config.py``. Standard library only, besides
nbconvert's ``Preprocessor``.
"""

from __future__ import annotations

import html
import re

WIDGET_VIEW = "application/vnd.jupyter.widget-view+json"
WIDGET_STATE = "application/vnd.jupyter.widget-state+json"
REFERENCE = "IPY_MODEL_"

# Models that hold other widgets (ipywidgets 7 and 8): their children, in order.
CONTAINERS = {"VBoxModel": "column", "HBoxModel": "row", "BoxModel": "row",
              "GridBoxModel": "row", "AccordionModel": "column", "TabModel": "column",
              "StackModel": "column"}
IMAGE_FORMATS = re.compile(r"^[a-z0-9.+-]{1,20}$")
CONTROL_STYLE = ("display:inline-block;border:1px solid #ccc;border-radius:3px;"
                 "padding:1px 8px;margin:2px 6px 2px 0;background:#f5f5f5;color:#555")


def widget_states(nb) -> dict:
    """model id -> saved model (``model_name``, ``state``, ``buffers``) of a notebook."""
    saved = nb.get("metadata", {}).get("widgets", {}).get(WIDGET_STATE, {})
    return dict(saved.get("state", {}))


def _model(states: dict, reference) -> tuple[str, dict] | None:
    if not isinstance(reference, str):
        return None
    model_id = reference[len(REFERENCE):] if reference.startswith(REFERENCE) else reference
    return (model_id, states[model_id]) if model_id in states else None


def _hidden(states: dict, state: dict) -> bool:
    found = _model(states, state.get("layout"))
    layout = found[1].get("state", {}) if found else {}
    return layout.get("display") == "none" or layout.get("visibility") == "hidden"


def _image(model: dict, state: dict, states: dict) -> str:
    data = next((b.get("data") for b in model.get("buffers", [])
                 if b.get("path") == ["value"] and b.get("encoding", "base64") == "base64"),
                None)
    kind = str(state.get("format") or "png")
    if not data or not IMAGE_FORMATS.match(kind):
        return ""
    kind = "svg+xml" if kind == "svg" else kind
    found = _model(states, state.get("layout"))
    width = (found[1].get("state", {}).get("width") if found else None) or state.get("width")
    style = "max-width:100%;height:auto" + (f";width:{html.escape(str(width))}"
                                           if width else "")
    return f'<img src="data:image/{kind};base64,{data}" style="{style}" alt="">'


def _output_area(outputs) -> str:
    """An Output widget's outputs: pictures, HTML, text and errors (one line)."""
    parts = []
    for output in outputs or []:
        data = output.get("data", {})
        if output.get("output_type") == "stream":
            parts.append(f"<pre>{html.escape(output.get('text', ''))}</pre>")
        elif output.get("output_type") == "error":
            parts.append(f"<pre>{html.escape(output.get('ename', ''))}: "
                         f"{html.escape(output.get('evalue', ''))}</pre>")
        elif "image/png" in data:
            parts.append(f'<img src="data:image/png;base64,{data["image/png"]}" '
                         'style="max-width:100%" alt="">')
        elif "text/html" in data:
            value = data["text/html"]
            parts.append("".join(value) if isinstance(value, list) else value)
        elif "text/plain" in data:
            value = data["text/plain"]
            text = "".join(value) if isinstance(value, list) else value
            parts.append(f"<pre>{html.escape(text)}</pre>")
    return "".join(parts)


def _value_text(state: dict) -> str:
    """A control's value as its label shows it (a selection's label, a range as a–b)."""
    labels = state.get("_options_labels")
    index = state.get("index")
    if labels is not None and index is not None:
        picked = index if isinstance(index, (list, tuple)) else [index]
        return ", ".join(str(labels[i]) for i in picked
                         if isinstance(i, int) and 0 <= i < len(labels))
    value = state.get("value")
    if isinstance(value, (list, tuple)):
        return "–".join(str(v) for v in value)
    if isinstance(value, bool):
        return "☑" if value else "☐"
    return "" if value is None else str(value)


def _draw(states: dict, model_id: str, seen: set) -> str:
    if model_id in seen:  # a widget shown twice inside itself: once is enough
        return ""
    seen = seen | {model_id}
    model = states[model_id]
    state = model.get("state", {})
    if _hidden(states, state):
        return ""
    name = model.get("model_name", "")
    description = html.escape(str(state.get("description") or ""))
    children = [found for found in (_model(states, ref) for ref in state.get("children", []))
                if found is not None]
    if name in CONTAINERS or children:  # a box, or any widget that holds others
        direction = CONTAINERS.get(name, "column")
        inner = "".join(_draw(states, child_id, seen) for child_id, _ in children)
        wrap = "flex-wrap:wrap;align-items:center;" if direction == "row" else ""
        return (f'<div style="display:flex;flex-direction:{direction};{wrap}gap:4px">'
                f"{inner}</div>") if inner else ""
    if name == "ImageModel":
        return _image(model, state, states)
    if name in ("HTMLModel", "HTMLMathModel"):
        label = f"{description} " if description else ""
        return f"<div>{label}{state.get('value') or ''}</div>"
    if name == "LabelModel":
        return f"<div>{html.escape(str(state.get('value') or ''))}</div>"
    if name == "OutputModel":
        return _output_area(state.get("outputs"))
    if name in ("ButtonModel", "ToggleButtonModel"):
        return f'<span style="{CONTROL_STYLE}">{description}</span>' if description else ""
    if "value" in state or "index" in state:  # sliders, dropdowns, boxes, text fields
        value = html.escape(_value_text(state))
        label = f"{description} " if description else ""
        return f'<span style="{CONTROL_STYLE}">{label}<b>{value}</b></span>'
    return ""


def snapshot(states: dict, model_id: str, note: str) -> str:
    """HTML of what the widget ``model_id`` showed, under ``note``; only the note when its
    state was not saved."""
    body = _draw(states, model_id, set()) if model_id in states else ""
    return ('<div class="qkv-widget-snapshot" style="border:1px dashed #bbb;'
            'border-radius:4px;padding:6px;margin:4px 0">'
            f'<p class="qkv-widget-note" style="color:#555;margin:0 0 4px 0">'
            f"{html.escape(note)}</p>{body}</div>")


def replace_widgets(nb, note: str) -> int:
    """Put a snapshot in place of every widget output of ``nb`` (in place); how many."""
    states = widget_states(nb)
    count = 0
    for cell in nb.get("cells", []):
        for output in cell.get("outputs", []):
            data = output.get("data", {})
            view = data.get(WIDGET_VIEW)
            if view is None:
                continue
            model_id = view.get("model_id", "") if isinstance(view, dict) else ""
            new = {"text/html": snapshot(states, model_id, note)}
            if "text/plain" in data:
                new["text/plain"] = data["text/plain"]
            output["data"] = new
            count += 1
    return count


TIMEOUT_ERROR = "TimeoutError"  # the autograder's error for a cell it stopped (nbgrader_config)


def drop_interrupts(nb) -> int:
    """Remove the ``KeyboardInterrupt`` error of each cell the autograder stopped (a cell that
    also shows the autograder's ``TimeoutError`` message); how many. A learner's own
    KeyboardInterrupt elsewhere stays."""
    count = 0
    for cell in nb.get("cells", []):
        outputs = cell.get("outputs", [])
        errors = [o.get("ename") for o in outputs if o.get("output_type") == "error"]
        if TIMEOUT_ERROR not in errors or "KeyboardInterrupt" not in errors:
            continue
        kept = [o for o in outputs if not (o.get("output_type") == "error"
                                           and o.get("ename") == "KeyboardInterrupt")]
        count += len(outputs) - len(kept)
        cell["outputs"] = kept
    return count


try:
    from nbconvert.preprocessors import Preprocessor
    from traitlets import Unicode
except ImportError:  # only the functions above, without nbconvert
    pass
else:
    class FeedbackPage(Preprocessor):
        """nbconvert preprocessor: widgets as :func:`snapshot` draws them, and stopped cells
        without the kernel's KeyboardInterrupt (:func:`drop_interrupts`)."""

        widget_note = Unicode(
            "The widget as the autograder ran it: its controls move in JupyterLab.",
            help="The line above each widget's picture.").tag(config=True)

        def preprocess(self, nb, resources):
            replace_widgets(nb, self.widget_note)
            drop_interrupts(nb)
            return nb, resources
