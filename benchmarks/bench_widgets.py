"""How long a widget takes from a value change to a finished redraw (target: median ≤ 50 ms).

Every widget function exported by ``qkv_helpers.classroom.widgets`` is built: with its
defaults, or, for the widgets of a training run (lessons 14 and 15), from a short run made
here (:data:`BUILT`); each of its controls is then moved through several values (or clicked,
for buttons) and the time from setting the value to the new PNG being in place is measured.
A progress bar has no control: its ``update`` (one call per evaluation of a training) is
timed instead. Both languages' labels are the same length, so English is used.

``python benchmarks/bench_widgets.py query_explorer head_selector`` times only those.
"""

from __future__ import annotations

import inspect
import statistics
import sys
import time

import ipywidgets

import qkv_helpers as qk
from qkv_helpers import widgets
from qkv_helpers.classroom.widgets import Panel

TARGET_MS = 50.0
ROUNDS = 3


def values_for(control) -> list:
    """A few values to move a control through, different from its current one."""
    if isinstance(control, ipywidgets.Button):
        return []
    if hasattr(control, "options") and control.options:
        options = list(control.options)
        values = [opt[1] if isinstance(opt, tuple) else opt for opt in options]
        return values[1:] + values[:1]
    if hasattr(control, "min") and hasattr(control, "max"):
        lo, hi = control.min, control.max
        steps = [lo + (hi - lo) * f for f in (0.1, 0.35, 0.6, 0.85, 0.5)]
        return [type(control.value)(v) for v in steps]
    return []


def time_panel(panel: Panel) -> list[float]:
    times = []
    for _ in range(ROUNDS):
        for control in panel.controls.values():
            if isinstance(control, ipywidgets.Button):
                start = time.perf_counter()
                control.click()
                times.append(time.perf_counter() - start)
                continue
            for value in values_for(control):
                if value == control.value:
                    continue
                start = time.perf_counter()
                control.value = value  # observers run synchronously: refresh + redraw
                times.append(time.perf_counter() - start)
    return times


def _translator_run():
    from qkv_helpers import translator

    return translator.train(steps=60, eval_every=10)  # 7 evaluated steps to slide through


def _induction_run():
    from qkv_helpers import induction

    return induction.train(steps=300, eval_every=50, n_eval=50)


def _sentence_translator():
    from qkv_helpers import translator

    return widgets.sentence_translator(translator.load_trained()[0])


BUILT = {
    "attention_learning_explorer": lambda: widgets.attention_learning_explorer(_translator_run()),
    "sentence_translator": _sentence_translator,
    "induction_explorer": lambda: widgets.induction_explorer(_induction_run()),
}
"""Widgets that need a model or a training run, and how this benchmark builds them."""

PROGRESS = {
    "training_progress": {"loss": 1.234, "exact_match": 0.5, "alignment": 0.75},
    "induction_progress": {"repeat": 2.5, "previous_token": 0.4, "induction": 0.6},
}
"""Progress bars (no control): the record their ``update`` receives, besides its step."""


def time_progress(name: str) -> list[float]:
    bar = getattr(widgets, name)(1000)
    times = []
    for step in range(0, 1000, 10):
        start = time.perf_counter()
        bar.update({"step": step, **PROGRESS[name]})
        times.append(time.perf_counter() - start)
    return times


def main(names: list[str] | None = None) -> int:
    """Time every widget (or only those in ``names``) and print a table."""
    qk.setup(lang="en")
    public = [name for name, fn in vars(widgets).items()
              if inspect.isfunction(fn) and not name.startswith("_")
              and (not names or name in names)]
    factories = [
        (name, BUILT.get(name, getattr(widgets, name))) for name in public
        if name not in PROGRESS and (name in BUILT or all(
            p.default is not p.empty or p.kind in (p.VAR_POSITIONAL, p.VAR_KEYWORD)
            for p in inspect.signature(getattr(widgets, name)).parameters.values()))
    ]
    factories += [(name, name) for name in public if name in PROGRESS]
    untimed = sorted(set(public) - {name for name, _ in factories})
    header = f"{'widget':<28}{'changes':>8}{'median ms':>11}{'max ms':>9}"
    print(f"{header}  target ≤ {TARGET_MS:.0f} ms")
    missed = 0
    for name, factory in sorted(factories):
        times = time_progress(name) if name in PROGRESS else time_panel(factory())
        if not times:
            print(f"{name:<28}{'-':>8}  (no control to move)")
            continue
        median = statistics.median(times) * 1000
        ok = median <= TARGET_MS
        missed += not ok
        print(f"{name:<28}{len(times):>8}{median:>11.1f}{max(times) * 1000:>9.1f}  "
              f"{'PASS' if ok else 'MISS'}")
    print(f"{len(factories) - missed} passed, {missed} missed the {TARGET_MS:.0f} ms target")
    if untimed:
        print(f"NOT TIMED (needs arguments this benchmark does not build): {', '.join(untimed)}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
