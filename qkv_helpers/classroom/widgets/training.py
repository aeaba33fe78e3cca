"""Lesson 14's widgets: a training progress bar, attention forming step by step, and a
sentence the learner builds and the trained translator translates."""

from __future__ import annotations

import ipywidgets as widgets
import numpy as np

from ..._validate import instance_of, integer
from ...lang import t
from ...toy_corpus import (
    ADJECTIVES,
    PLACES,
    PREPOSITIONS,
    SUBJECTS,
    VERBS,
    build_sentence,
    nonsense,
)
from ...translator import TrainingRun, Translator, make_batch
from ..plots.training import alignment_formed_step, draw_alignment_maps, draw_training_curves
from ._artists import animate
from ._live import LiveFigure, Panel

__all__ = ["attention_learning_explorer", "sentence_translator", "training_progress"]


class TrainingProgress(widgets.VBox):
    """A progress bar and a line of numbers; pass :meth:`update` as ``train(callback=...)``.

    ``runs`` trainings of ``steps`` each may report to the same bar, one after another: a
    record of step 0 after the first starts the next run.
    """

    def __init__(self, steps: int, runs: int = 1):
        self.steps, self.runs, self.run = int(steps), int(runs), 0
        self.bar = widgets.IntProgress(value=0, min=0, max=self.steps * self.runs,
                                       description=t("w_l14_training"))
        self.label = widgets.HTML()
        self._started = False
        super().__init__(children=[self.bar, self.label])

    def update(self, record: dict) -> None:
        if record["step"] == 0 and self._started:
            self.run = min(self.run + 1, self.runs - 1)
        self._started = True
        if record["step"] > self.steps:  # a run longer than the bar was made for
            self.steps = record["step"]
            self.bar.max = self.steps * self.runs
        step = record["step"]
        self.bar.value = min(self.bar.max, self.run * self.steps + step)
        text = t("w_l14_progress", step=record["step"], steps=self.steps,
                 loss=f"{record['loss']:.3f}", exact=f"{100 * record['exact_match']:.0f}",
                 align=f"{record['alignment']:.2f}")
        if self.runs > 1:
            text = t("w_l14_run", run=self.run + 1, runs=self.runs) + " · " + text
        self.label.value = text

    def __repr__(self) -> str:
        return "<TrainingProgress>"


def training_progress(steps: int, runs: int = 1) -> TrainingProgress:
    """A progress bar for ``train(steps=steps, callback=bar.update)``, or for ``runs`` such
    trainings one after another.

    >>> bar = training_progress(300)
    >>> bar.update({"step": 150, "loss": 0.5, "exact_match": 0.4, "alignment": 0.9})
    >>> bar.bar.value
    150
    >>> bar = training_progress(300, runs=3)
    >>> for step in (0, 300, 0, 300, 0):                  # the third run has started
    ...     bar.update({"step": step, "loss": 0.5, "exact_match": 0.4, "alignment": 0.9})
    >>> bar.bar.value, bar.bar.max
    (600, 900)
    """
    steps = integer(steps, "steps", 1)
    runs = integer(runs, "runs", 1)
    return TrainingProgress(steps, runs)


def _labels(pair):
    return [*pair.korean, "<eos>"], [*pair.english, "<eos>"]


def attention_learning_explorer(run: TrainingRun) -> Panel:
    """A slider over the evaluated training steps: the decoder's cross-attention for the
    first held-out sentence at that step (per head and averaged, gold outlined), and the
    curves with the step marked.

    Row ``i`` is the query that predicts Korean token ``i``; it is labelled with that token.
    """
    instance_of(run, "run", TrainingRun, "what qk.translator.train(...) returns")
    pair = run.corpus.heldout[0]
    target, source = _labels(pair)
    steps = [r["step"] for r in run.history]
    formed = alignment_formed_step(run.history)
    slider = widgets.SelectionSlider(options=steps, value=steps[0],
                                     description=t("w_l14_step"), continuous_update=True)
    n_heads = run.snapshots[0].shape[0]
    n_maps = 1 if n_heads == 1 else n_heads + 1

    def update(panel: Panel) -> None:
        i = steps.index(slider.value)
        w = run.snapshots[i]  # (H, n_tgt, n_src)
        r = run.history[i]
        mean = w.mean(axis=0)
        hits = int((mean[: len(pair.korean)].argmax(-1) == np.array(pair.alignment)).sum())
        panel.state = dict(step=r["step"], weights=w, hits=hits, record=r)
        panel.caption.value = t("w_l14_caption", step=r["step"], hits=hits,
                                n=len(pair.korean), exact=f"{100 * r['exact_match']:.0f}",
                                align=f"{r['alignment']:.2f}")

    def maps_of(w):
        return [w[0]] if len(w) == 1 else [*w, w.mean(axis=0)]

    def draw(fig, panel: Panel) -> dict:
        if n_maps == 1:  # one row: the map, then the two curves
            grid = fig.add_gridspec(1, 3, width_ratios=[1.1, 1.0, 1.0])
            map_axes = [fig.add_subplot(grid[0, 0])]
            curve_axes = [fig.add_subplot(grid[0, 1]), fig.add_subplot(grid[0, 2])]
        else:  # the maps above, the curves below
            grid = fig.add_gridspec(2, 2 * n_maps, height_ratios=[1.25, 1.0])
            map_axes = [fig.add_subplot(grid[0, 2 * j: 2 * j + 2]) for j in range(n_maps)]
            curve_axes = [fig.add_subplot(grid[1, :n_maps]), fig.add_subplot(grid[1, n_maps:])]
        handle = draw_alignment_maps(map_axes, panel.state["weights"], target, source,
                                     pair.alignment)
        draw_training_curves(curve_axes, run.history, formed)
        for ax in curve_axes:  # narrower than the lesson's own figure: the title on two lines
            ax.set_title(ax.get_title().replace(" (", "\n(", 1))
        handle["marks"] = [ax.axvline(panel.state["step"], color="black", linewidth=2)
                           for ax in curve_axes]
        gold = [p for ax in map_axes for p in ax.patches]  # drawn over the changing maps
        animate(*handle["images"], *handle["marks"], *gold)
        return handle

    def change(handle: dict, panel: Panel) -> None:
        for image, m in zip(handle["images"], maps_of(panel.state["weights"])):
            image.set_data(m)
        for mark in handle["marks"]:
            mark.set_xdata([panel.state["step"]] * 2)

    return Panel("attention_learning_explorer", {"step": slider},
                 LiveFigure(draw, update=change,
                            figsize=(13.0, 4.2) if n_maps == 1 else (3.4 * n_maps, 7.0)),
                 update)


_MAX_SOURCE, _MAX_TARGET = 9, 7  # the grammar's longest sentences, with <eos>


def sentence_translator(model: Translator, vocab=None) -> Panel:
    """Dropdowns build an English sentence; the model translates it (greedy) and shows its
    cross-attention, the gold alignment outlined where the translation is right.

    >>> from qkv_helpers.translator import load_trained
    >>> panel = sentence_translator(load_trained()[0])
    >>> panel.state["translation"]
    ['고양이가', '매트', '위에', '앉았다']
    >>> panel.controls["place"].value = "bed"
    >>> panel.state["translation"], panel.state["correct"]
    (['고양이가', '침대', '위에', '앉았다'], True)

    A sentence that makes no sense is not translated: the caption says why, the picture
    stays on the last sentence that made sense.

    >>> panel.controls["preposition"].value = "in"
    >>> panel.state["nonsense"][0], panel.state["translation"]
    ('place', ['고양이가', '침대', '위에', '앉았다'])
    """
    from ...toy_corpus import Vocabulary

    instance_of(model, "model", Translator, "e.g. qk.translator.load_trained()[0]")
    vocab = Vocabulary() if vocab is None else instance_of(
        vocab, "vocab", Vocabulary, "qk.toy_corpus.Vocabulary(), or leave it out")
    # "" for no adjective: a Dropdown shows a value of None as no selection at all
    adjectives = [(t("w_l14_none"), ""), *((a, a) for a in ADJECTIVES)]

    def dropdown(options, value, label):
        return widgets.Dropdown(options=options, value=value, description=t(label),
                                style={"description_width": "initial"},
                                layout={"width": "auto"})

    controls = {
        "subject_adjective": dropdown(adjectives, "", "w_l14_adjective"),
        "subject": dropdown(list(SUBJECTS), "cat", "w_l14_subject"),
        "verb": dropdown(list(VERBS), "sat", "w_l14_verb"),
        "preposition": dropdown(list(PREPOSITIONS), "on", "w_l14_preposition"),
        "place_adjective": dropdown(adjectives, "", "w_l14_adjective"),
        "place": dropdown(list(PLACES), "mat", "w_l14_place"),
    }

    def update(panel: Panel) -> None:
        c = {name: control.value for name, control in controls.items()}
        words = (c["subject"], c["verb"], c["preposition"], c["place"],
                 c["subject_adjective"] or None, c["place_adjective"] or None)
        why = nonsense(*words)
        if why is not None and panel.state:  # keep the last sentence that made sense
            rule, fields = why
            panel.state["nonsense"] = why
            panel.caption.value = t("w_l14_nonsense", why=t(f"w_l14_nonsense_{rule}", **fields))
            return
        pair = build_sentence(*words)
        translation = model.translate([pair], vocab)[0]
        batch = make_batch([pair], vocab)
        ids = vocab.encode(translation)[: _MAX_TARGET - 1]
        target_in = np.array([[vocab.bos, *ids]])  # (1, n): the model's own translation
        memory = model.encode(batch.source)
        cache = {}
        model.decode(target_in, memory, batch.source, cache)
        weights = cache["dec.cross"].weights[0].mean(axis=0)  # (n_tgt, n_src), heads averaged
        correct = tuple(translation) == pair.korean
        panel.state = dict(pair=pair, translation=translation, weights=weights,
                           correct=correct, nonsense=None)
        panel.caption.value = t("w_l14_translation", english=" ".join(pair.english),
                                korean=" ".join(translation),
                                verdict=t("w_l14_right" if correct else "w_l14_wrong",
                                          gold=" ".join(pair.korean)))

    def padded(state):
        w = np.full((_MAX_TARGET, _MAX_SOURCE), np.nan)
        n_t, n_s = state["weights"].shape
        w[:n_t, :n_s] = state["weights"]
        target = [*state["translation"], "<eos>"] + [""] * (_MAX_TARGET - n_t)
        source = [*state["pair"].english, "<eos>"] + [""] * (_MAX_SOURCE - n_s)
        return w, target[:_MAX_TARGET], source

    def draw(fig, panel: Panel) -> dict:
        from matplotlib.patches import Rectangle

        from .. import style

        # Fixed places (add_axes: the layout engine leaves them alone), so that the labels
        # of another sentence do not move the axes: an update then draws what a fresh build does.
        fig.add_subplot().set_axis_off()  # an empty grid cell, for the layout engine to lay out
        ax = fig.add_axes([0.2, 0.24, 0.62, 0.68])
        w, target, source = padded(panel.state)
        image = ax.imshow(w, cmap=style.CMAP, vmin=0.0, vmax=1.0)
        fig.colorbar(image, cax=fig.add_axes([0.86, 0.3, 0.03, 0.56]))
        ax.set_xlabel(t("source_tokens"))
        ax.set_ylabel(t("p_l14_translation_rows"))
        ax.set_title(t("cross_attention"))
        outlines = [ax.add_patch(Rectangle((0, 0), 1, 1, fill=False, linewidth=2.5,
                                           edgecolor=style.COLORS[1]))
                    for _ in range(_MAX_TARGET)]
        handle = dict(ax=ax, image=image, outlines=outlines)
        animate(image, *outlines)
        set_labels(handle, panel.state)
        return handle

    def set_labels(handle, state) -> None:
        w, target, source = padded(state)
        handle["image"].set_data(np.ma.masked_invalid(w))
        ax = handle["ax"]
        ax.set_xticks(range(_MAX_SOURCE), source, rotation=60, ha="right")
        ax.set_yticks(range(_MAX_TARGET), target)
        gold = state["pair"].alignment if state["correct"] else ()
        for i, box in enumerate(handle["outlines"]):
            box.set_visible(i < len(gold))
            if i < len(gold):
                box.set_xy((gold[i] - 0.5, i - 0.5))

    def change(handle: dict, panel: Panel) -> bool:
        set_labels(handle, panel.state)
        return True  # the tick labels are part of the background

    panel = Panel("sentence_translator", controls,
                  LiveFigure(draw, figsize=(6.4, 4.8), update=change), update)
    panel.children[0].layout.flex_flow = "row wrap"  # six labelled dropdowns: two rows if need be
    return panel
