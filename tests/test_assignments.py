"""nbgrader assignments generated from the lessons (tools/assignments.py, make assignments).

The structure is checked for every lesson in both languages; the real nbgrader then runs on
one lesson (04, whose answers are the learner's own functions): ``generate_assignment``, and
``autograde`` of a simulated class of five (the solutions; the untouched release; the last
answer made wrong; the first answer a function that raises; the first answer a function
that never returns), with the scores read back from the gradebook and the timed-out
student's feedback read from the graded notebook.
"""

from __future__ import annotations

import ast
import re
import sys
import time
from pathlib import Path

import nbformat
import pytest

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tools"))

import assignments  # noqa: E402
from nbsource import LANGS  # noqa: E402

STEMS = sorted(p.stem for p in (ROOT / "notebooks" / "src").glob("[0-9][0-9]_*.py"))
AUTOGRADED = "04_softmax"  # the lesson the real nbgrader runs on: its answers are functions


def _graded(nb, kind: str):
    return [c for c in nb.cells
            if c.metadata.get("nbgrader", {}).get(kind) and c.cell_type == "code"]


@pytest.mark.parametrize("lang", LANGS)
@pytest.mark.parametrize("stem", STEMS)
def test_every_exercise_becomes_an_answer_and_a_test(stem, lang):
    lesson = assignments.load(stem)
    n_exercises = sum("exercise" in c.tags for c in lesson.cells)
    nb, exercises = assignments.assignment_notebook(stem, lang, points=2)
    answers, tests = _graded(nb, "solution"), _graded(nb, "grade")
    assert len(answers) == len(tests) == len(exercises) == n_exercises
    assert not [c for c in nb.cells if "solution" in c.metadata.get("tags", [])]
    grade_ids = [c.metadata.nbgrader.grade_id for c in answers + tests]
    assert len(set(grade_ids)) == len(grade_ids)
    for answer, test, exercise in zip(answers, tests, exercises):
        lines = answer.source.splitlines()
        begin, end = lines.index(assignments.BEGIN), lines.index(assignments.END)
        assert begin < end - 1, "an empty solution region"
        after = "\n".join(lines[end + 1:])
        for call in exercise.checks:  # the learner still sees the check after the answer
            assert call in after
            assert f"_feedback = graded({call.strip()!r}, " in test.source
        assert test.source.count("assert _feedback.ok is True") == len(exercise.checks)
        ast.parse(answer.source)
        ast.parse(test.source)
        meta = test.metadata.nbgrader
        assert meta["points"] == 2 and meta["locked"] and meta["grade"]
        assert not answer.metadata.nbgrader["locked"]


def test_an_exercise_without_a_checker_call_is_a_clear_error():
    with pytest.raises(assignments.AssignmentError, match="no checker call"):
        assignments.answer_and_test("my_x = ...\nprint(my_x)", "my_x = 1", "en", "g", 1,
                                    "lesson 99 cell 3")


def test_a_checker_call_kept_in_a_variable_is_found():
    answer, test, exercise = assignments.answer_and_test(
        "my_x = ...\nfb = qk.checks.check_value(my_x, 2, 'x')\nfb", "my_x = 2", "en", "g", 1, "t")
    assert exercise.checks == ["qk.checks.check_value(my_x, 2, 'x')"]
    assert answer.splitlines()[-2:] == ["fb = qk.checks.check_value(my_x, 2, 'x')", "fb"]
    assert "_feedback = graded(\"qk.checks.check_value(my_x, 2, 'x')\", seconds=" in test


def test_the_checker_call_is_found_whatever_the_module_alias():
    answer, test, exercise = assignments.answer_and_test(
        "my_x = ...  # here\nhelpers.checks.check_value(my_x,\n    2, 'x')\n",
        "# Solution\nmy_x = 2\nhelpers.checks.check_value(my_x, 2, 'x')", "en", "g", 1, "t")
    assert answer.splitlines() == [
        "my_x = ...  # here", assignments.BEGIN, "# Solution", "my_x = 2", assignments.END,
        "helpers.checks.check_value(my_x,", "    2, 'x')"]
    assert exercise.answer_names == ["my_x"]
    assert "_feedback = graded(\"helpers.checks.check_value(my_x,\\n    2, 'x')\", " in test


# --- the real nbgrader ----------------------------------------------------------------------

# Appended to one answer: the same kind of answer, but wrong (never equal to the right one).
MAKE_WRONG = '''
def _make_wrong(x):
    import numpy as _np
    if callable(x):
        return lambda *a, **k: _make_wrong(x(*a, **k))
    if isinstance(x, str):
        return x + "?"
    if isinstance(x, (bool, _np.bool_)):
        return not x
    if isinstance(x, (tuple, list)):
        return type(x)([*x, 1])
    a = _np.asarray(x)
    return ~a if a.dtype == bool else a + 1
{name} = _make_wrong({name})
'''


def _answer_body(source: str) -> str:
    """What a student who solved it writes: the exercise cell with the solution code in it."""
    return "\n".join(line for line in source.splitlines()
                     if line not in (assignments.BEGIN, assignments.END))


# The first answer of each kind of broken submission: a function (lesson 04's answers are).
# Each prints a line when it is called, so the graded notebook shows how often it ran.
RAISES = '''def {name}(x):
    raise ValueError("my mistake")
'''
LOOPS = '''def {name}(x):
    print("{name} called")
    i = 0
    while i < len(x):   # i never grows: this never ends
        x = x * 1.0
    return x
'''


def _outputs_text(cell) -> str:
    parts = []
    for output in cell.get("outputs", []):
        if output.output_type == "stream":
            parts.append(output.text)
        elif output.output_type == "error":
            parts += [output.ename, output.evalue, *output.traceback]
        else:
            parts += [str(v) for v in output.get("data", {}).values()]
    return "\n".join(parts)


def simulated_class(course: Path, stem: str, exercises) -> dict[str, dict[str, str]]:
    """Write the five submissions of one assignment into course/submitted/; returns the
    answers of each student (grade id of the answer cell -> its source)."""
    name = f"{stem}.ipynb"
    source = nbformat.read(course / "source" / stem / name, as_version=4)
    solved = {c.metadata.nbgrader.grade_id: _answer_body(c.source)
              for c in _graded(source, "solution")}
    answer_ids = list(solved)
    first, last = exercises[0], exercises[-1]
    assert first.answer_names and last.answer_names, f"{stem}: answers are not names"
    checks = "\n".join(first.checks)

    def with_first(template):
        answers = dict(solved)
        answers[answer_ids[0]] = template.format(name=first.answer_names[0]) + checks
        return answers

    wrong = dict(solved)
    wrong[answer_ids[-1]] += MAKE_WRONG.format(name=last.answer_names[0])
    students = {"right": solved, "untouched": {}, "wrong": wrong,
                "raising": with_first(RAISES), "looping": with_first(LOOPS)}
    for student, answers in students.items():
        nb = nbformat.read(course / "release" / stem / name, as_version=4)
        for cell in _graded(nb, "solution"):
            cell.source = answers.get(cell.metadata.nbgrader.grade_id, cell.source)
        folder = course / "submitted" / student / stem
        folder.mkdir(parents=True)
        nbformat.write(nb, folder / name)
    return students


@pytest.mark.parametrize("lang", LANGS)
def test_nbgrader_autogrades_a_class_of_five(tmp_path, lang):
    pytest.importorskip("nbgrader")
    from nbgrader.api import Gradebook

    from qkv_helpers.lang import STRINGS

    found = assignments.write_course(tmp_path, lang, [AUTOGRADED], points=2)
    exercises = found[AUTOGRADED]
    course = tmp_path / lang
    name = f"{AUTOGRADED}.ipynb"
    done = assignments.nbgrader(course, "generate_assignment", AUTOGRADED, "--force",
                                check=False)
    assert done.returncode == 0, done.stdout + done.stderr
    source = nbformat.read(course / "source" / AUTOGRADED / name, as_version=4)
    release = nbformat.read(course / "release" / AUTOGRADED / name, as_version=4)
    for cell in _graded(release, "solution"):  # the release hides the solutions
        solution = next(c for c in _graded(source, "solution")
                        if c.metadata.nbgrader.grade_id == cell.metadata.nbgrader.grade_id)
        assert cell.source != solution.source and assignments.STUB[lang] in cell.source
    assert len(_graded(release, "grade")) == len(exercises)

    simulated_class(course, AUTOGRADED, exercises)
    start = time.perf_counter()
    done = assignments.nbgrader(course, "autograde", AUTOGRADED, "--force", check=False)
    seconds = time.perf_counter() - start
    log = done.stdout + done.stderr
    assert done.returncode == 0, log
    assert "not a recognised" not in log and "not recognized" not in log, log
    print(f"\nautograde, five submissions of {AUTOGRADED} ({lang}): {seconds:.1f} s")

    points = 2
    total = points * len(exercises)
    first, last = exercises[0].grade_id, exercises[-1].grade_id
    with Gradebook(f"sqlite:///{course / 'gradebook.db'}") as gradebook:
        def score(student, grade_id=None):
            if grade_id is None:
                submission = gradebook.find_submission(AUTOGRADED, student)
                assert submission.max_score == total
                return submission.score
            return gradebook.find_grade(grade_id, AUTOGRADED, AUTOGRADED, student).score

        assert score("right") == total
        assert score("untouched") == 0
        assert score("wrong") == total - points and score("wrong", last) == 0
        for student in ("raising", "looping"):  # the other answers still count
            assert score(student) == total - points and score(student, first) == 0

    graded = nbformat.read(course / "autograded" / "looping" / AUTOGRADED / name,
                           as_version=4)
    answer = next(c for c in _graded(graded, "solution"))
    test = next(c for c in _graded(graded, "grade")
                if c.metadata.nbgrader.grade_id == first)
    # nbgrader's per-cell time limit stopped the answer cell (its message in the lesson's
    # language), and the test cell graded that without calling the function again.
    assert assignments.TIMEOUT_TEXT[lang].format(
        seconds=assignments.EXERCISE_SECONDS) in _outputs_text(answer)
    expected = STRINGS[lang]["grade_timeout"].format(seconds=assignments.EXERCISE_SECONDS)
    assert expected in _outputs_text(test)
    name_called = f"{exercises[0].answer_names[0]} called"
    assert sum(_outputs_text(c).count(name_called) for c in graded.cells) == 1
    # Tracebacks are one line: no file of the server shows.
    every_output = "\n".join(_outputs_text(c) for c in graded.cells)
    assert "site-packages" not in every_output and str(tmp_path) not in every_output

    # The feedback pages: the course's language around the notebook, MathJax in the page
    # (formulas render offline: no script is loaded from elsewhere).
    done = assignments.nbgrader(course, "generate_feedback", AUTOGRADED, "--force",
                                check=False)
    assert done.returncode == 0, done.stdout + done.stderr
    page = (course / "feedback" / "looping" / AUTOGRADED / f"{AUTOGRADED}.html").read_text(
        encoding="utf-8")
    if (course / "feedback_template" / assignments.FEEDBACK_NAME / "tex-svg.js").exists():
        assert "MathJax" in page and "cdnjs" not in page
    assert not re.search(r"<script[^>]+src=", page)
    text = assignments.FEEDBACK_TEXT[lang]
    assert f"{text['test_cell']}</a>" in page and f"{text['score']}: 0.0 / 2.0" in page
    assert expected in page
    if lang == "ko":
        assert "Student's answer" not in page and "Score:" not in page


def test_graded_reports_a_missing_answer_instead_of_raising():
    from qkv_helpers.grading import graded
    from qkv_helpers.lang import set_language

    set_language("en")
    feedback = graded("qk.checks.check_value(nowhere, 2, 'x')", seconds=5,
                      namespace={"qk": __import__("qkv_helpers")})
    assert feedback.ok is False and "NameError" in feedback.message
