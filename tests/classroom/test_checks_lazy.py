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
import re
import sys
import types
import warnings
from pathlib import Path

import numpy as np
import pytest

ROOT = Path(__file__).resolve().parents[2]
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


def shipped_notebook(stem: str, lang: str = "en"):
    """The notebook as shipped (``make lab`` opens it), built from the source, unexecuted."""
    import build_notebooks

    return build_notebooks.to_notebook(build_notebooks.load(stem), lang)


def shipped_cells(stem: str, lang: str = "en") -> list:
    return shipped_notebook(stem, lang).cells


_RUNS: dict = {}
_SOLVED: dict = {}


def lesson_run(stem: str):
    """Run the notebook of ``stem`` as Run All does: a list of (Exercise, namespace before it).

    Run All runs the code cells and skips the solutions (raw cells). Each solution is also
    run here, as a learner who opens it would, right after its exercise, in a copy of the
    namespace (so nothing it binds reaches later cells); what it gives is kept for
    :func:`solutions_run`.
    """
    if stem in _RUNS:
        return _RUNS[stem]
    import matplotlib
    import matplotlib.pyplot as plt

    matplotlib.use("Agg")
    namespace: dict = {"__name__": "__lesson__"}
    found, solved = [], []
    code = [(cell.source, list(cell.metadata.get("tags", []))) for cell in shipped_cells(stem)
            if cell.cell_type == "code"]
    assert code == student_cells(stem), "the student copy is the notebook without solutions"
    cwd = os.getcwd()
    os.chdir(ROOT / "notebooks" / "en")
    try:
        for index, cell in enumerate(shipped_cells(stem)):
            tags = list(cell.metadata.get("tags", []))
            if cell.cell_type == "raw" and "solution" in tags:
                assert found, f"{stem} cell {index}: a solution with no exercise before it"
                exercise = found[-1][0]
                scope = dict(namespace)
                with warnings.catch_warnings():
                    warnings.simplefilter("ignore")
                    exec(compile(cell.source, f"<{stem} solution {index}>", "exec"), scope)
                    tree = ast.parse(cell.source)
                    last = ast.Expression(tree.body[-1].value)
                    feedback = eval(compile(last, f"<{stem} solution check>", "eval"), scope)
                solved.append((exercise, scope.get(exercise.name), feedback))
                plt.close("all")
                continue
            if cell.cell_type != "code":
                continue
            if "exercise" in tags:
                found.append((Exercise(stem, index, cell.source), dict(namespace)))
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                exec(compile(cell.source, f"<{stem} cell {index}>", "exec"), namespace)
            plt.close("all")
    finally:
        os.chdir(cwd)
    import qkv_helpers

    qkv_helpers.setup(lang="en")
    _RUNS[stem] = found
    _SOLVED[stem] = solved
    return found


def solutions_run(stem: str):
    """Each solution of ``stem`` as run by a learner who opens it: (Exercise, answer, check)."""
    lesson_run(stem)
    return _SOLVED[stem]


def all_exercises():
    return [pytest.param(stem, i, id=f"{stem}-{i}")
            for stem in STEMS for i in range(_count_exercises(stem))]


def _count_exercises(stem: str) -> int:
    import build_notebooks

    return sum("exercise" in cell.tags for cell in build_notebooks.load(stem).cells)


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
    """The package's own public functions (qk.softmax, qk.float_limits.naive_softmax...)."""
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
    copyable = Exercise("demo", 0, "my_k = ...\nqk.checks.check_array(my_k, ex.k, 'my_k')")
    offers = lazy_offers(namespace, want_function=False)
    assert any(copyable.run(namespace, offer).ok for offer in offers)  # ex.k
    scores = Exercise("demo", 1, "my_s = ...\nqk.checks.check_array(my_s, ex.q @ ex.k.T, 'my_s')")
    assert any(scores.run(namespace, offer).ok for offer in offers)  # scores
    softmax = Exercise("demo", 2, "def my_f(x):\n    return ...\n"
                                  "qk.checks.check_array(my_f([1.0]), [1.0], 'f')")
    assert softmax.is_function and softmax.name == "my_f"
    assert checks.check_stable_softmax(qkv_helpers.softmax).ok is False  # the package's own


@pytest.mark.parametrize("stem", STEMS)
def test_solutions_are_shown_on_request_and_say_what_they_are(stem):
    """A solution is a collapsed raw cell (Run All skips it, nothing of it is saved) whose
    first line, all a collapsed cell shows, says in the lesson's language that it is the
    solution; it ends with its check, shown as the solution's (``.as_solution()``)."""
    from nbsource import SOLUTION_HEADER

    for lang in ("ko", "en"):
        solutions = [c for c in shipped_cells(stem, lang) if "solution" in
                     c.metadata.get("tags", [])]
        assert solutions, f"{stem} has no solution cell"
        for cell in solutions:
            assert cell.cell_type == "raw", (stem, lang, "a solution Run All would run")
            assert cell.metadata["jupyter"]["source_hidden"] is True
            first = cell.source.splitlines()[0]
            assert first == SOLUTION_HEADER[lang], (stem, lang, first)
            assert ("풀이" in first) == (lang == "ko") and ("Solution" in first) == (lang == "en")
            last = ast.parse(cell.source).body[-1]
            assert isinstance(last, ast.Expr) and isinstance(last.value, ast.Call) and \
                getattr(last.value.func, "attr", "") == "as_solution", (stem, lang)


def all_solutions():
    return [pytest.param(stem, i, id=f"{stem}-{i}")
            for stem in STEMS for i in range(_count_exercises(stem))]


@pytest.mark.parametrize("stem,number", all_solutions())
def test_every_solution_passes_its_check(stem, number):
    """CI runs every solution (which Run All skips), right after its exercise."""
    solved = solutions_run(stem)
    assert len(solved) == _count_exercises(stem), f"{stem}: one solution per exercise"
    exercise, answer, feedback = solved[number]
    assert type(feedback).__name__ == "Feedback", (exercise, feedback)
    assert feedback.ok is True, f"{exercise}: the solution fails its check: {feedback.message}"
    assert answer is not None and answer is not Ellipsis, f"{exercise}: the solution sets it"
    assert exercise.run(lesson_run(stem)[number][1], answer).ok is True, exercise


# --- the notebook as shipped: after Run All, no answer on screen, no answer bound ------------

_NUMBER = re.compile(r"(?<![\w.])-?\d+(?:,\d{3})*(?:\.\d+)?(?:[eE][-+]?\d+)?(?![\w])"
                     r"|\bTrue\b|\bFalse\b")
_UNITS = {"KiB": 1024, "MiB": 1024 ** 2, "GiB": 1024 ** 3, "TiB": 1024 ** 4}
_WITH_UNIT = re.compile(r"(\d+(?:\.\d+)?)\s*(KiB|MiB|GiB|TiB)\b")


def _numbers(text: str) -> list[tuple[float, float]]:
    """The numbers printed in ``text``, each with the half-unit of its last printed digit."""
    found = []
    for token in _NUMBER.findall(text.replace("−", "-")):
        if token in ("True", "False"):
            found.append((float(token == "True"), 0.0))
            continue
        mantissa, _, exponent = token.lower().partition("e")
        decimals = len(mantissa.partition(".")[2]) - int(exponent or 0)
        found.append((float(token.replace(",", "")), 0.5 * 10.0 ** -decimals))
    return found


def _flat_numbers(answer) -> list[float] | None:
    try:
        values = np.asarray(answer, dtype=float).ravel()
    except (TypeError, ValueError):
        return None
    return [float(v) for v in values] if values.size and np.isfinite(values).all() else None


def shows_answer(text: str, answer) -> bool:
    """True when ``text`` prints ``answer``: the same numbers in a row, each to the digits
    printed (a mask as True/False or 1/0; a byte count also in KiB..TiB; a range of
    integers also as "40 to 47")."""
    values = _flat_numbers(answer)
    if values is None:
        return False
    printed = _numbers(text)
    n = len(values)

    def same(number, value):  # a whole number printed for a fraction is not the fraction
        p, tol = number
        return (abs(p - value) <= tol + 1e-12 * max(1.0, abs(value))
                and (value.is_integer() or tol < 0.5))

    def row_at(row, numbers):
        return len(numbers) == len(row) and all(same(p, a) for p, a in zip(numbers, row))

    shape = np.shape(answer)
    if len(shape) >= 2:  # a table: its rows on consecutive lines, each line one row
        rows = np.reshape(values, (-1, shape[-1])).tolist()
        lines = [_numbers(line) for line in text.splitlines()]
        for first in range(len(lines) - len(rows) + 1):
            if all(row_at(row, lines[first + i]) for i, row in enumerate(rows)):
                return True
        return False
    for start in range(len(printed) - n + 1):
        if all(same(number, a) for number, a in zip(printed[start:start + n], values)):
            return True
    if n == 1 and values[0] >= 1024:
        for number, unit in _WITH_UNIT.findall(text):
            decimals = len(number.partition(".")[2])
            if abs(float(number) - values[0] / _UNITS[unit]) <= 0.5 * 10.0 ** -decimals:
                return True
    if n > 2 and all(b - a == 1 for a, b in zip(values, values[1:])) and values[0].is_integer():
        first, last = int(values[0]), int(values[-1])
        if re.search(rf"(?<!\d){first}\s*(?:to|–|-|~|\.\.|부터)\s*(?:KV 헤드 )?{last}(?!\d)",
                     text):
            return True
    return False


def _html_text(value: str) -> str:
    return re.sub(r"<[^>]+>", " ", value)


def screen_texts(nb) -> list[tuple[str, str]]:
    """What a learner reads after Run All, as (where, text): every cell's printed and shown
    text (stream, text/plain, HTML, markdown outputs, errors) and the widgets' saved
    texts. (Pictures are not read.)"""
    found = []
    for index, cell in enumerate(nb.cells):
        for output in cell.get("outputs", []):
            parts = [output.get("text", "")] + output.get("traceback", [])
            for mime, value in output.get("data", {}).items():
                if mime in ("text/plain", "text/markdown", "text/latex"):
                    parts.append(value if isinstance(value, str) else "".join(value))
                elif mime == "text/html":
                    parts.append(_html_text(value if isinstance(value, str) else "".join(value)))
            text = "\n".join(p if isinstance(p, str) else "".join(p) for p in parts)
            if text.strip():
                found.append((f"cell {index} ({cell.get('id')})", text))
    state = nb.metadata.get("widgets", {}).get(
        "application/vnd.jupyter.widget-state+json", {}).get("state", {})
    for model_id, model in state.items():
        values = model.get("state", {})
        for key in ("value", "description", "placeholder"):
            if isinstance(values.get(key), str) and values[key].strip():
                found.append((f"widget {model_id[:8]} {key}", _html_text(values[key])))
    return found


def answer_leaks(executed_nb, answers: dict) -> list[str]:
    """Where an executed notebook shows an exercise's answer: ``answers`` maps each answer's
    name to its value (functions are not looked for)."""
    leaks = []
    for where, text in screen_texts(executed_nb):
        for name, answer in answers.items():
            if not callable(answer) and shows_answer(text, answer):
                leaks.append(f"{where} shows {name} = {answer!r}: {text[:160]!r}")
    return leaks


def _bound_names(source: str) -> set[str]:
    names = set()
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Name) and isinstance(node.ctx, (ast.Store, ast.Del)):
            names.add(node.id)
        elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            names.add(node.name)
        elif isinstance(node, ast.alias):
            names.add((node.asname or node.name).split(".")[0])
        elif isinstance(node, ast.Call) and getattr(node.func, "id", "") in ("globals", "exec"):
            names.add("<dynamic>")
    return names


def answer_bindings(nb) -> list[str]:
    """Code cells that Run All runs and that bind an exercise's answer name other than its
    own exercise cell (which binds it to ``...``); and any solution Run All would run."""
    exercises = {}
    for index, cell in enumerate(nb.cells):
        if cell.cell_type == "code" and "exercise" in cell.metadata.get("tags", []):
            exercises[index] = Exercise("shipped", index, cell.source).name
    found = []
    for index, cell in enumerate(nb.cells):
        if cell.cell_type != "code":
            continue
        if "solution" in cell.metadata.get("tags", []):
            found.append(f"cell {index}: a solution as a code cell: Run All runs it")
        bound = _bound_names(cell.source)
        if "<dynamic>" in bound:
            found.append(f"cell {index}: binds names through globals()/exec")
        for where, name in exercises.items():
            if name in bound and where != index:
                found.append(f"cell {index} binds {name}, the answer of cell {where}")
    return found


def answers_of(stem: str) -> dict:
    """Each exercise's answer, by name, as its solution computes it."""
    return {exercise.name: answer for exercise, answer, _ in solutions_run(stem)}


_EXECUTED: dict = {}


def executed_notebook(stem: str, lang: str, nbval_outputs: dict):
    """The notebook as shipped after Run All: its cells in order in a fresh kernel. Strict
    nbval has just run them when pytest was given the notebook (make test-all; conftest.py
    puts this test after the notebook's cells): then its outputs are this run's, every cell's,
    those tagged ``nbval-ignore-output`` too. Otherwise the notebook is executed here (nbclient,
    as tools/build_notebooks.py runs it), once per notebook and test session."""
    import copy

    import build_notebooks

    path = (ROOT / "notebooks" / lang / f"{stem}.ipynb").resolve()
    if (stem, lang) not in _EXECUTED:
        nb = copy.deepcopy(saved_notebook(stem, lang))
        code = [cell for cell in nb.cells if cell.cell_type == "code"]
        ran = nbval_outputs.get(path, {})
        if set(ran) == set(range(len(code))):  # nbval ran every code cell
            for number, cell in enumerate(code):
                cell.outputs = ran[number]
        else:
            nb = shipped_notebook(stem, lang)
            build_notebooks.execute(nb, ROOT / "notebooks" / lang)
        _EXECUTED[stem, lang] = nb
    return _EXECUTED[stem, lang]


@pytest.mark.parametrize("lang", ["ko", "en"])
@pytest.mark.parametrize("stem", STEMS)
def test_shipped_notebook_binds_no_answer(stem, lang):
    """Run All binds no answer: only the exercise cell names it (to ``...``)."""
    assert not answer_bindings(shipped_notebook(stem, lang))


def saved_notebook(stem: str, lang: str):
    """The notebook as committed (``make lab`` opens it with these outputs), checked to be
    the one its source builds. Its outputs are what Run All gives: make test's second step
    (strict nbval) executes it again and compares every output but those of the cells tagged
    ``nbval-ignore-output`` (timings), which the "fresh" run below reads too."""
    import nbformat

    nb = nbformat.read(ROOT / "notebooks" / lang / f"{stem}.ipynb", as_version=4)
    built = shipped_notebook(stem, lang)
    assert [(c.cell_type, c.source) for c in nb.cells] == [
        (c.cell_type, c.source) for c in built.cells], f"{lang}/{stem}: run make notebooks"
    return nb


# "saved": the committed outputs (one execution per notebook and run: strict nbval's);
# "fresh": this run's outputs, every cell's (make test-all, CI): strict nbval's when it ran
# the notebook just before, else the notebook executed here once more in a new kernel.
@pytest.mark.parametrize("run", ["saved", pytest.param("fresh", marks=pytest.mark.slow)])
@pytest.mark.parametrize("lang", ["ko", "en"])
@pytest.mark.parametrize("stem", STEMS)
def test_shipped_notebook_after_run_all_shows_no_answer(stem, lang, run, nbval_outputs):
    """The lazy student who presses Run All sees no exercise's answer anywhere, and every
    exercise still says 'not answered yet'."""
    nb = (saved_notebook(stem, lang) if run == "saved"
          else executed_notebook(stem, lang, nbval_outputs))
    leaks = answer_leaks(nb, answers_of(stem))
    assert not leaks, f"{stem} ({lang}) shows an answer after Run All:\n" + "\n".join(leaks)
    for cell in nb.cells:
        if "exercise" in cell.metadata.get("tags", []):
            shown = "".join(o.get("data", {}).get("text/plain", "") for o in cell.outputs)
            assert shown.startswith("✏️"), (stem, lang, cell.id, shown[:80])


def test_leak_finder_can_fail():
    """The finders above catch a notebook that shows or binds an answer."""
    import nbformat

    assert shows_answer("my_bytes = 4,294,967,296 bytes", 2 ** 32)
    assert shows_answer("4.00 GiB 16.00 GiB", 2 ** 32)
    assert shows_answer("[[1 1 1 1 0]\n [1 1 1 1 1]]",
                        np.array([[1, 1, 1, 1, 0], [1, 1, 1, 1, 1]], bool))
    assert not shows_answer("[[1 1 0 0 0 1 1]\n [1 1 1 1 1 1 1]]",
                            np.array([[1, 1, 1, 1, 0], [1, 1, 1, 1, 1]], bool))
    assert shows_answer("my_std = √d_k = 9.80", np.sqrt(96))
    assert shows_answer("query heads 40 to 47 share K/V head 5", list(range(40, 48)))
    assert shows_answer("[-0.308  0.755 -0.124]", [-0.30812, 0.75538, -0.12391])
    assert not shows_answer("[-0.308  0.756 -0.124]", [-0.30812, 0.75538, -0.12391])
    assert not shows_answer("9.9", np.sqrt(96))
    assert not shows_answer("<Figure size 700x400 with 2 Axes>", 2.2000885)
    assert not shows_answer("8 GiB", 2 ** 32)
    nb = nbformat.v4.new_notebook()
    nb.cells = [nbformat.v4.new_code_cell("my_n = ...\nqk.checks.check_value(my_n, 3, 'n')"),
                nbformat.v4.new_code_cell("my_n = 1003\nprint(my_n)")]
    nb.cells[0].metadata.tags = ["exercise"]
    nb.cells[1].metadata.tags = ["solution"]
    nb.cells[1].outputs = [nbformat.v4.new_output("stream", text="1003\n")]
    assert len(answer_bindings(nb)) == 2  # a solution Run All runs, binding my_n
    assert answer_leaks(nb, {"my_n": 1003})
    assert not answer_leaks(nb, {"my_n": 1004})


# --- code on screen: an expression a learner can paste into the exercise ------------------

# Calls that change the session or draw, or measure or train for seconds: not evaluated.
_NOT_EVALUATED = ("setup(", "widgets.", "plots.", "quiz", "print(", "set_printoptions",
                  "environ", "find_spec", "measure", "train", "display(")


def pastable_expressions(sources: list[str]) -> list[str]:
    """Every call or arithmetic in ``sources`` that needs nothing but modules and constants
    (``arithmetic.kv_cache_bytes(32, 8, 128, 8192, 4, 2)``): a learner can copy it from
    a cell on screen into an exercise, and it gives the same value there."""
    import builtins

    modules: dict = {}
    trees = [ast.parse(source) for source in sources]
    for tree in trees:
        for node in ast.walk(tree):
            if isinstance(node, (ast.Import, ast.ImportFrom)):
                exec(compile(ast.Module(body=[node], type_ignores=[]), "<imports>", "exec"),
                     modules)
    found = []
    for tree in trees:
        for node in ast.walk(tree):
            if not isinstance(node, (ast.Call, ast.BinOp)):
                continue
            text = ast.unparse(node)
            names = {n.id for n in ast.walk(node) if isinstance(n, ast.Name)}
            if (any(name in modules for name in names)
                    and all(name in modules or hasattr(builtins, name) for name in names)
                    and not any(word in text for word in _NOT_EVALUATED)):
                found.append(text)
    return found


def pasted_expressions_that_pass(exercises, sources: list[str]) -> list[str]:
    """The expressions of :func:`pastable_expressions` that pass an exercise when pasted."""
    import qkv_helpers

    passed = []
    for text in pastable_expressions(sources):
        for exercise, namespace in exercises:
            if exercise.is_function:
                continue
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                try:
                    value = eval(text, dict(namespace))
                except Exception:  # noqa: BLE001 - not an answer, then
                    continue
                qkv_helpers.setup(lang="en")
                if exercise.run(namespace, value).ok is True:
                    passed.append(f"{exercise}: {text}")
    return passed


@pytest.mark.parametrize("stem", STEMS)
def test_no_code_on_screen_pastes_into_an_answer(stem):
    """No expression in a code cell Run All shows (its exercises' included) passes an
    exercise when pasted into it: lesson 09 once showed
    ``arithmetic.kv_cache_bytes(32, 8, 128, 8192, 4, 2)``, exercise 1's answer, right after
    it; and no prose cell writes an exercise's answer out."""
    nb = shipped_notebook(stem)
    sources = [cell.source for cell in nb.cells if cell.cell_type == "code"]
    passed = pasted_expressions_that_pass(lesson_run(stem), sources)
    assert not passed, f"{stem}: code on screen passes an exercise:\n" + "\n".join(passed)
    answers = {name: value for name, value in answers_of(stem).items() if not callable(value)}
    for lang in ("ko", "en"):
        for index, cell in enumerate(shipped_cells(stem, lang)):
            if cell.cell_type == "markdown":
                shown = [name for name, value in answers.items()
                         if shows_answer(cell.source, value)]
                assert not shown, f"{stem} ({lang}) cell {index} writes out {shown}"


def test_pasted_expression_finder_can_fail():
    """The finder above catches lesson 09's old cell 47 (exercise 1's answer as code)."""
    import qkv_helpers

    qkv_helpers.setup(lang="en")
    from qkv_helpers.kv_cache import arithmetic

    exercise = Exercise("demo", 0, "my_bytes = ...\nqk.checks.check_kv_cache_bytes(my_bytes, "
                        "layers=32, kv_heads=8, head_dim=128, tokens=8192, batch=4, "
                        "bytes_per_value=2)")
    namespace = {"qk": qkv_helpers, "arithmetic": arithmetic}
    old = ("from qkv_helpers.kv_cache import arithmetic\n"
           "print(arithmetic.kv_cache_bytes(32, 32, 128, 8192, 4, 2)\n"
           "      / arithmetic.kv_cache_bytes(32, 8, 128, 8192, 4, 2))")
    assert pasted_expressions_that_pass([(exercise, namespace)], [old]) == [
        "demo:my_bytes: arithmetic.kv_cache_bytes(32, 8, 128, 8192, 4, 2)"]
    new = ("from qkv_helpers.kv_cache import arithmetic\n"
           "print(arithmetic.kv_cache_bytes(80, 64, 128, 4096, 1, 2)\n"
           "      / arithmetic.kv_cache_bytes(80, 8, 128, 4096, 1, 2))")
    assert pasted_expressions_that_pass([(exercise, namespace)], [new]) == []
    assert shows_answer("4,294,967,296 bytes", 2 ** 32)  # the prose check's finder


# --- a word asked for: the prose before the exercise does not say it -------------------------

_SENTENCE_END = re.compile(r"(?<=[.?!])\s+")


def prose_saying_where_a_row_looks(texts: list[str], row: str, answer: str) -> list[str]:
    """The sentences of ``texts`` (markdown) that name the row ``"row"`` with ``answer`` in
    the same sentence or the next one: "the row of "숨었다" does not look at "hid". Head 1
    looks at <eos>." answers a question about that row."""
    import html

    found = []
    for text in texts:
        sentences = [s for s in _SENTENCE_END.split(re.sub(r"\s+", " ", text)) if s]
        for i, sentence in enumerate(sentences):
            if f'"{row}"' not in sentence:
                continue
            window = " ".join(sentences[i:i + 2])
            if answer in window or html.escape(answer) in window:
                found.append(window)
    return found


def row_exercises(stem: str, lang: str):
    """Each exercise whose check asks where a Korean token's row looks (``row="..."``):
    (its row, the answer its solution gives, the markdown shown before it)."""
    cells = shipped_cells(stem, lang)
    found = []
    for index, cell in enumerate(cells):
        if cell.cell_type != "code" or "exercise" not in cell.metadata.get("tags", []):
            continue
        row = re.search(r'\brow="([^"]+)"', cell.source)
        if not row:
            continue
        solution = next(c for c in cells[index + 1:] if "solution" in c.metadata.get("tags", []))
        name = Exercise(stem, index, cell.source).name
        answer = next(node.value.value for node in ast.parse(solution.source).body
                      if isinstance(node, ast.Assign) and node.targets[0].id == name)
        before = [c.source for c in cells[:index] if c.cell_type == "markdown"]
        found.append((row.group(1), answer, before))
    return found


@pytest.mark.parametrize("lang", ["ko", "en"])
@pytest.mark.parametrize("stem", STEMS)
def test_no_prose_before_a_row_exercise_says_where_the_row_looks(stem, lang):
    """A teacher's read of lesson 14: the exercise asked where head 1's row of "숨었다"
    looks, and the prose above it said so ("헤드 1은 <eos>를 봐요"). The question is now
    one the prose does not answer."""
    for row, answer, before in row_exercises(stem, lang):
        said = prose_saying_where_a_row_looks(before, row, answer)
        assert not said, f"{stem} ({lang}): the prose answers where \"{row}\" looks: {said}"


def test_the_row_prose_finder_can_fail():
    """The old lesson 14 prose is caught, for its old question and for the new one."""
    old = ('앞에서 본 문장(`held`)을 헤드별로 그린 아래 그림을 보세요. "숨었다"의 행이 "hid"를 '
           '보지 않아요. 헤드 0은 두 "the"를, 헤드 1은 &lt;eos&gt;를 봐요. "뒤에"의 행도 '
           '"behind"가 아니라 &lt;eos&gt;를 봐요. 그 아래 셀은 인코더 셀프 어텐션에서 원문 토큰의 '
           '행마다 "hid"에 준 가중치를 출력해요.')
    assert prose_saying_where_a_row_looks([old], "숨었다", "<eos>")
    assert prose_saying_where_a_row_looks([old], "뒤에", "<eos>")
    assert not prose_saying_where_a_row_looks([old], "토끼가", "<eos>")
    assert not prose_saying_where_a_row_looks([old], "뒤에", "rabbit")
    assert row_exercises("14_watch_attention_learn", "ko"), "lesson 14 has a row exercise"
