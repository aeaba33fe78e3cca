"""nbgrader assignments generated from the lessons (tools/assignments.py, make assignments).

The structure is checked for every lesson in both languages; the real nbgrader then runs on
one lesson: ``generate_assignment``, and ``autograde`` of three submissions (the solutions,
the untouched release, and the solutions with the last exercise's answer made wrong), with
the scores read back from the gradebook.
"""

from __future__ import annotations

import ast
import sys
from pathlib import Path

import nbformat
import pytest

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tools"))

import assignments  # noqa: E402
from nbsource import LANGS  # noqa: E402

STEMS = sorted(p.stem for p in (ROOT / "notebooks" / "src").glob("[0-9][0-9]_*.py"))
AUTOGRADED = "03_scaling"  # the lesson the real nbgrader runs on (a quick one)


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
            assert f"_feedback = {call.strip()}" in test.source
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
    assert "_feedback = qk.checks.check_value(my_x, 2, 'x')" in test


def test_the_checker_call_is_found_whatever_the_module_alias():
    answer, test, exercise = assignments.answer_and_test(
        "my_x = ...  # here\nhelpers.checks.check_value(my_x,\n    2, 'x')\n",
        "# Solution\nmy_x = 2\nhelpers.checks.check_value(my_x, 2, 'x')", "en", "g", 1, "t")
    assert answer.splitlines() == [
        "my_x = ...  # here", assignments.BEGIN, "# Solution", "my_x = 2", assignments.END,
        "helpers.checks.check_value(my_x,", "    2, 'x')"]
    assert exercise.answer_names == ["my_x"]
    assert "_feedback = helpers.checks.check_value(my_x,\n    2, 'x')" in test


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


def test_nbgrader_autogrades_solutions_release_and_one_wrong_answer(tmp_path):
    pytest.importorskip("nbgrader")
    from nbgrader.api import Gradebook

    found = assignments.write_course(tmp_path, "ko", [AUTOGRADED], points=2)
    exercises = found[AUTOGRADED]
    course = tmp_path / "ko"
    name = f"{AUTOGRADED}.ipynb"
    done = assignments.nbgrader(course, "generate_assignment", AUTOGRADED, "--force",
                                check=False)
    assert done.returncode == 0, done.stdout + done.stderr

    source = nbformat.read(course / "source" / AUTOGRADED / name, as_version=4)
    release = nbformat.read(course / "release" / AUTOGRADED / name, as_version=4)
    solved = {c.metadata.nbgrader.grade_id: _answer_body(c.source)
              for c in _graded(source, "solution")}
    # The release hides the solutions, keeps the tests.
    for cell in _graded(release, "solution"):
        region = solved[cell.metadata.nbgrader.grade_id]
        assert cell.source != region and assignments.STUB["ko"] in cell.source
    assert len(_graded(release, "grade")) == len(exercises)

    last = exercises[-1]
    assert last.answer_names, f"{AUTOGRADED}: the last checker call's answer is not a name"

    def submit(student: str, answers: dict[str, str]) -> None:
        nb = nbformat.read(course / "release" / AUTOGRADED / name, as_version=4)
        for cell in _graded(nb, "solution"):
            cell.source = answers.get(cell.metadata.nbgrader.grade_id, cell.source)
        folder = course / "submitted" / student / AUTOGRADED
        folder.mkdir(parents=True)
        nbformat.write(nb, folder / name)

    answer_ids = list(solved)
    wrong = dict(solved)
    wrong[answer_ids[-1]] += MAKE_WRONG.format(name=last.answer_names[0])
    submit("solutions", solved)
    submit("untouched", {})
    submit("one_wrong", wrong)

    done = assignments.nbgrader(course, "autograde", AUTOGRADED, "--force", check=False)
    assert done.returncode == 0, done.stdout + done.stderr

    points = 2
    total = points * len(exercises)
    with Gradebook(f"sqlite:///{course / 'gradebook.db'}") as gradebook:
        def score(student, grade_id=None):
            if grade_id is None:
                submission = gradebook.find_submission(AUTOGRADED, student)
                assert submission.max_score == total
                return submission.score
            return gradebook.find_grade(grade_id, AUTOGRADED, AUTOGRADED, student).score

        assert score("solutions") == total
        assert score("untouched") == 0
        assert score("one_wrong") == total - points
        assert score("one_wrong", last.grade_id) == 0
        for exercise in exercises[:-1]:
            assert score("one_wrong", exercise.grade_id) == points
