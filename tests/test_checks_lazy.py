"""The lazy student, tried automatically on every exercise of every lesson (found by glob).

For each lesson, the student copy is built (the lesson's cells without its solution cells,
as ``make student`` hands them out) and its code cells are run, in order, in one
namespace. At each exercise cell, before running it, the check of that cell is offered
every value already in the namespace, their attributes, and one-step transforms of them
(a transpose, a row, a column, ``.shape``, a sum; the package's own functions for an
exercise that asks for a function). None may pass: an exercise must ask for something
the learner computes. Every offer must also come back as feedback, never an exception.

Rules for an exercise cell (new lessons too):

- exactly one answer, a top-level ``my_name = ...`` or a ``def my_name(...)`` whose body is
  ``return ...``;
- its last statement is an expression whose value is the check's ``Feedback``
  (``qk.checks.check_...(my_name, ...)``); other statements (inputs such as
  ``order = [...]``) may come before it;
- the exercise asks for something that none of the offers above is.
"""

from __future__ import annotations

import ast
import os
import sys
import types
import warnings
from pathlib import Path

import numpy as np
import pytest

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tools"))

STEMS = sorted(p.stem for p in (ROOT / "notebooks" / "src").glob("[0-9][0-9]_*.py"))


class Exercise:
    """One exercise cell: its answer's name and kind, and the code of its check."""

    def __init__(self, stem: str, index: int, source: str):
        self.stem, self.index, self.source = stem, index, source
        tree = ast.parse(source)
        answers, rest = [], []
        for node in tree.body:
            if _is_answer(node):
                answers.append(node)
            else:
                rest.append(node)
        assert len(answers) == 1, (
            f"{stem}, exercise cell {index}: one answer per exercise cell "
            f"(`my_name = ...` or `def my_name(...): return ...`), found {len(answers)}")
        answer = answers[0]
        self.is_function = isinstance(answer, ast.FunctionDef)
        self.name = answer.name if self.is_function else answer.targets[0].id
        assert rest and isinstance(rest[-1], ast.Expr), (
            f"{stem}, exercise cell {index}: the last statement must be the check's call")
        body = ast.Module(body=rest[:-1], type_ignores=[])
        self.setup = compile(body, f"<{stem} exercise {index}>", "exec")
        self.check = compile(ast.Expression(rest[-1].value), f"<{stem} check {index}>", "eval")

    def run(self, namespace: dict, answer):
        """The check's result with ``answer`` in place of the learner's."""
        scope = dict(namespace)
        scope[self.name] = answer
        exec(self.setup, scope)
        return eval(self.check, scope)

    def __repr__(self) -> str:
        return f"{self.stem}:{self.name}"


def _is_answer(node) -> bool:
    if isinstance(node, ast.Assign) and len(node.targets) == 1:
        target = node.targets[0]
        return (isinstance(target, ast.Name) and target.id.startswith("my_")
                and isinstance(node.value, ast.Constant) and node.value.value is Ellipsis)
    if isinstance(node, ast.FunctionDef) and node.name.startswith("my_"):
        body = node.body
        return (len(body) == 1 and isinstance(body[0], ast.Return)
                and isinstance(body[0].value, ast.Constant) and body[0].value.value is Ellipsis)
    return False


def student_cells(stem: str) -> list[tuple[str, list[str]]]:
    """The English student copy's code cells, as (source, tags), built from the source."""
    import build_notebooks
    import classroom

    nb = classroom.without_solutions(build_notebooks.to_notebook(build_notebooks.load(stem),
                                                                 "en"))
    return [(cell.source, list(cell.metadata.get("tags", [])))
            for cell in nb.cells if cell.cell_type == "code"]


_RUNS: dict = {}


def lesson_run(stem: str):
    """Run the student copy of ``stem``: a list of (Exercise, namespace before it)."""
    if stem in _RUNS:
        return _RUNS[stem]
    import matplotlib
    import matplotlib.pyplot as plt

    matplotlib.use("Agg")
    namespace: dict = {"__name__": "__lesson__"}
    found = []
    cwd = os.getcwd()
    os.chdir(ROOT / "notebooks" / "en")
    try:
        for index, (source, tags) in enumerate(student_cells(stem)):
            if "exercise" in tags:
                found.append((Exercise(stem, index, source), dict(namespace)))
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                exec(compile(source, f"<{stem} cell {index}>", "exec"), namespace)
            plt.close("all")
    finally:
        os.chdir(cwd)
    import qkv_helpers

    qkv_helpers.setup(lang="en")
    _RUNS[stem] = found
    return found


def all_exercises():
    return [pytest.param(stem, i, id=f"{stem}-{i}")
            for stem in STEMS for i in range(_count_exercises(stem))]


def _count_exercises(stem: str) -> int:
    text = (ROOT / "notebooks" / "src" / f"{stem}.py").read_text(encoding="utf-8")
    return text.count("exercise=True")


# --- what the lazy student offers ------------------------------------------------------------

_SKIP_TYPES = (types.ModuleType, type)


def _transforms(value):
    """One-step transforms of an array-like value: .T, rows, columns, .shape, sums."""
    try:
        arr = np.asarray(value)
    except Exception:  # noqa: BLE001
        return
    if arr.dtype.kind not in "biuf" or arr.size > 100_000 or arr.ndim == 0:
        return
    yield arr.shape
    yield arr.T
    yield arr.sum()
    for axis in range(arr.ndim):
        yield arr.sum(axis=axis)
    for i in range(min(arr.shape[0], 16)):
        yield arr[i]
    if arr.ndim >= 2:
        for j in range(min(arr.shape[1], 16)):
            yield arr[:, j]
        for i in range(min(arr.shape[0], 16)):
            yield arr[i].T


def _attributes(value, depth: int):
    if depth == 0 or isinstance(value, (types.ModuleType, np.ndarray, str, bytes, int, float)):
        return
    for attr in dir(value):
        if attr.startswith("_"):
            continue
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                found = getattr(value, attr)
        except Exception:  # noqa: BLE001
            continue
        if callable(found) and not isinstance(found, np.ndarray):
            continue
        yield found
        yield from _attributes(found, depth - 1)


def lazy_offers(namespace: dict, want_function: bool):
    """Everything the lazy student may try: values, attributes, transforms (and functions)."""
    values = []
    for name, value in namespace.items():
        if name.startswith("_") or isinstance(value, _SKIP_TYPES):
            continue
        values.append(value)
        values.extend(_attributes(value, depth=2))
    for value in list(values):
        if isinstance(value, (list, tuple)) and len(value) <= 64:
            values.extend(value)
    offers = []
    for value in values:
        offers.append(value)
        offers.extend(_transforms(value))
    if want_function:
        offers.extend(_package_functions())
        offers.extend(v for v in namespace.values() if callable(v) and isinstance(
            v, types.FunctionType))
    return offers


def _package_functions():
    """The package's own public functions (qk.softmax, qk.numerics.naive_softmax...)."""
    found = []
    for name, module in list(sys.modules.items()):
        if not name.startswith("qkv_helpers") or any(
                part in name for part in ("plots", "widgets", "style")):
            continue
        for attr in dir(module):
            value = getattr(module, attr, None)
            if not attr.startswith("_") and isinstance(value, types.FunctionType) and (
                    value.__module__ or "").startswith("qkv_helpers"):
                found.append(value)
    return found


@pytest.mark.parametrize("stem,number", all_exercises())
def test_no_exercise_passes_with_what_is_already_there(stem, number):
    import qkv_helpers

    found = lesson_run(stem)
    assert len(found) > number, f"{stem}: exercise {number} not found in the student copy"
    exercise, namespace = found[number]
    qkv_helpers.setup(lang="en")
    assert exercise.run(namespace, ...).ok is None, f"{exercise}: '...' is 'not answered yet'"
    offers = lazy_offers(namespace, exercise.is_function)
    assert len(offers) > 20, "the lazy student should have plenty to try"
    passed = []
    for offer in offers:
        with warnings.catch_warnings():
            warnings.simplefilter("error")  # a check must not even warn
            feedback = exercise.run(namespace, offer)
        assert type(feedback).__name__ == "Feedback", (exercise, type(feedback))
        if feedback.ok is True:
            passed.append(offer)
    assert not passed, f"{exercise} passes with a value already there: {passed[0]!r}"


def test_lazy_student_catches_a_copyable_exercise():
    """The harness can fail: an exercise whose answer is on screen is caught."""
    import qkv_helpers
    from qkv_helpers import checks

    qkv_helpers.setup(lang="en")
    ex = qkv_helpers.running_example()
    namespace = {"ex": ex, "qk": qkv_helpers, "scores": ex.q @ ex.k.T}
    copyable = Exercise("demo", 0, "my_k = ...\nqk.checks.check_projection_k(my_k, ex)")
    offers = lazy_offers(namespace, want_function=False)
    assert any(copyable.run(namespace, offer).ok for offer in offers)  # ex.k
    scores = Exercise("demo", 1, "my_s = ...\nqk.checks.check_score_matrix(my_s, ex)")
    assert any(scores.run(namespace, offer).ok for offer in offers)  # scores
    softmax = Exercise("demo", 2, "def my_f(x):\n    return ...\n"
                                  "qk.checks.check_array(my_f([1.0]), [1.0], 'f')")
    assert softmax.is_function and softmax.name == "my_f"
    assert checks.check_stable_softmax(qkv_helpers.softmax).ok is False  # the package's own


SOLUTION_FIRST_LINE = ("# 풀이 · Solution (열어 보기 전에 먼저 풀어 보세요 · "
                       "try it before you open this)")


@pytest.mark.parametrize("stem", STEMS)
def test_solution_cells_hide_their_answer_and_label_their_check(stem):
    """A collapsed solution shows only its first line: the comment, not the answer. Its
    check is shown as the solution's (``.as_solution()``)."""
    import build_notebooks

    lesson = build_notebooks.load(stem)
    solutions = [cell for cell in lesson.cells if "solution" in cell.tags]
    assert solutions, f"{stem} has no solution cell"
    for cell in solutions:
        for language, text in cell.source.items():
            first, *rest = text.splitlines()
            assert first == SOLUTION_FIRST_LINE, (stem, language, first)
            tree = ast.parse(text)
            last = tree.body[-1]
            assert isinstance(last, ast.Expr) and isinstance(last.value, ast.Call) and \
                getattr(last.value.func, "attr", "") == "as_solution", (stem, language)
