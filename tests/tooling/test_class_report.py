"""The class report (tools/class_report.py) and the grading steps' checks (tools/grading.py),
without nbgrader: a report built by hand, folders written by hand. The real nbgrader runs in
tests/tooling/test_assignments.py (slow)."""

from __future__ import annotations

import sys
from pathlib import Path
from types import SimpleNamespace

import pytest

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "tools"))

import class_report  # noqa: E402
import grading  # noqa: E402

from qkv_helpers.lang import STRINGS, t  # noqa: E402


def _message(lang: str, key: str, **values) -> str:
    return STRINGS[lang][key].format(**values)


def _report(mistakes: dict[str, list[str]], lang: str = "en", students=None,
            unanswered=(), missing=()):
    """A report of one exercise: message -> students who failed with it."""
    exercise = class_report.Exercise("04_softmax_exercise_1", "04_softmax")
    students = sorted(students or {s for group in mistakes.values() for s in group}
                      | set(unanswered) | set(missing) | {"right"})
    status = {s: {} for s in students}
    for message, who in mistakes.items():
        exercise.mistakes[class_report.mistake_of(message, lang)] = list(who)
        for s in who:
            status[s][exercise.grade_id] = "wrong"
    for s in unanswered:
        status[s][exercise.grade_id] = "unanswered"
    for s in missing:
        status[s][exercise.grade_id] = "missing"
    exercise.unanswered = len(unanswered)
    exercise.handed_in = len(students) - len(missing)
    exercise.right = 1
    status["right"][exercise.grade_id] = "right"
    return class_report.Report("qkv-attention-en", students,
                               {"04_softmax": [exercise]}, status)


EIGHT = {  # eight different wrong answers, the first by two students
    _message("en", "check_l04_raised", name="my_softmax", scores="[[1000, 1001]]",
             error="ValueError: my mistake"): ["ann", "bob"],
    _message("en", "check_l04_raised", name="my_softmax", scores="[[-1000, -999]]",
             error="ValueError: my mistake"): ["cy"],
    _message("en", "grade_timeout", seconds="5"): ["dee"],
    _message("en", "check_l12_one_rotated", name="my_score"): ["eve"],
    _message("en", "check_l12_swapped", name="my_score"): ["fay"],
    _message("en", "grade_answer_raised", error="ValueError: my mistake"): ["gus"],
    _message("en", "grade_error", call="qk.checks.check_x(my_x)",
             error="NameError: name 'my_x' is not defined"): ["hal"],
    "A message no text of the course explains.": ["ivy"],
}


@pytest.mark.parametrize("lang", ["en", "ko"])
def test_every_wrong_answer_is_shown_with_its_input_and_error(lang):
    report = _report(EIGHT, unanswered=["una"], missing=["max"])
    text = class_report.render(report, lang, top=5)
    words = class_report.TEXT[lang]
    # the counts: not answered and not handed in apart from the wrong answers
    assert words["exercise"].format(number=1, grade_id="04_softmax_exercise_1", n=12, right=1,
                                    wrong=9, unanswered=1, missing=1) in text
    assert words["unanswered"] not in text
    # the five most common one per line, the three others on one line: all eight shown
    first = _message(lang, "check_l04_raised", name="my_softmax", scores="[[1000, 1001]]",
                     error="ValueError: my mistake")
    assert words["mistake"].format(count=2, text=first, students="ann, bob") in text
    assert words["more"].split("{")[0] in text
    for key in ("check_l12_one_rotated", "check_l12_swapped"):
        assert _message(lang, key, name="my_score") in text
    assert _message(lang, "grade_timeout", seconds="5") in text
    assert "A message no text of the course explains." in text
    assert "…" not in text
    # the two inputs that broke my_softmax are two lines, never one
    second = _message(lang, "check_l04_raised", name="my_softmax", scores="[[-1000, -999]]",
                      error="ValueError: my mistake")
    assert first in text and second in text and first != second
    # the student's own exception is not the grader's
    own = _message(lang, "grade_answer_raised", error="ValueError: my mistake")
    assert own in text and words["grader"] + own not in text
    assert words["grader"] + _message(lang, "grade_error", call="qk.checks.check_x(my_x)",
                                      error="NameError: name 'my_x' is not defined") in text


def test_all_lists_every_wrong_answer_on_its_own_line():
    report = _report(EIGHT)
    listed = class_report.render(report, "en", top=None)
    words = class_report.TEXT["en"]
    assert words["more"].split("{")[0] not in listed
    rows = [line for line in listed.splitlines() if line.startswith("      ")]
    assert len(rows) == len(EIGHT)
    assert "and 3 more" in class_report.render(report, "en", top=5)
    assert class_report.main  # --all is the command line's way to top=None


def test_the_student_row_tells_wrong_unanswered_and_missing_apart():
    report = _report(EIGHT, unanswered=["una"], missing=["max"])
    rows = class_report.render(report, "en").splitlines()
    assert any(r.split()[:3] == ["una", "0/1", "04_softmax"] and r.endswith("·") for r in rows)
    assert any(r.split()[:1] == ["max"] and r.endswith("–") for r in rows)
    assert any(r.split()[:1] == ["ann"] and r.endswith("✘") for r in rows)


def test_a_message_is_explained_with_its_values_in_the_other_language():
    message = _message("ko", "check_l04_raised", name="my_softmax", scores="[[1, 2]]",
                       error="ValueError: 음수")
    assert class_report.mistake_text(class_report.mistake_of(message, "ko"), "en") == \
        _message("en", "check_l04_raised", name="my_softmax", scores="[[1, 2]]",
                 error="ValueError: 음수")


def test_the_report_finds_the_course_where_the_guide_puts_it(tmp_path):
    home, elsewhere = tmp_path / "home", tmp_path / "elsewhere"
    for folder in (home / "course-ko", elsewhere):
        folder.mkdir(parents=True)
        (folder / "nbgrader_config.py").write_text("")
    found = class_report.where_courses_are(cwd=elsewhere, home=home)
    assert found[:2] == [elsewhere.resolve(), (home / "course-ko").resolve()]
    assert class_report.where_courses_are(cwd=home, home=home)[0] == (home / "course-ko")


# --- tools/grading.py: which folders a step leaves out, and why ---------------------------

def _course(tmp_path: Path) -> Path:
    course = tmp_path / "course"
    (course / "source" / "04_softmax").mkdir(parents=True)
    (course / "source" / "04_softmax" / "04_softmax.ipynb").write_text('{"cells": []}')
    (course / "nbgrader_config.py").write_text("")
    return course


def _submission(course: Path, folder: str, student: str, files: dict[str, str]) -> None:
    where = course / folder / student / "04_softmax"
    where.mkdir(parents=True)
    for name, text in files.items():
        (where / name).write_text(text)


def test_each_step_names_the_submissions_it_cannot_use(tmp_path):
    course = _course(tmp_path)
    notebook = '{"cells": [], "metadata": {}, "nbformat": 4, "nbformat_minor": 5}'
    _submission(course, "submitted", "fine", {"04_softmax.ipynb": notebook})
    _submission(course, "submitted", "garbled", {"04_softmax.ipynb": "not json"})
    _submission(course, "submitted", "renamed", {"my_work.ipynb": notebook})
    assert set(grading.problems(course, "autograde", "04_softmax")) == {"garbled", "renamed"}
    assert "not a notebook" in grading.problems(course, "autograde", "04_softmax")["garbled"]

    page = {"04_softmax.html": "<html></html>"}
    _submission(course, "feedback", "exchange", {**page, "timestamp.txt": "t",
                                                 "submission_secret.txt": "s"})
    _submission(course, "feedback", "by_hand", {**page, "timestamp.txt": "t"})
    found = grading.problems(course, "release_feedback", "04_softmax")
    assert list(found) == ["by_hand"]
    message = grading.skip_message(course, "release_feedback", "04_softmax", "by_hand",
                                   found["by_hand"])
    assert "by_hand" in message and "feedback/by_hand/04_softmax/04_softmax.html" in message


def test_hand_in_writes_the_timestamp_nbgrader_reads(tmp_path):
    import datetime

    course = _course(tmp_path)
    received = tmp_path / "whatever name.ipynb"
    received.write_text('{"cells": [], "metadata": {}, "nbformat": 4, "nbformat_minor": 5}')
    when = datetime.datetime(2026, 12, 4, 9, 30, tzinfo=datetime.timezone.utc)
    folder = grading.hand_in(course, "kim", received, "04_softmax", when)
    assert (folder / "04_softmax.ipynb").read_text() == received.read_text()
    stamp = (folder / "timestamp.txt").read_text()
    assert stamp == "2026-12-04 09:30:00.000000 UTC"
    from nbgrader.utils import parse_utc  # how nbgrader reads it back

    assert parse_utc(stamp) == when.replace(tzinfo=None)
    assert grading.problems(course, "autograde", "04_softmax") == {}
    broken = tmp_path / "04_softmax.ipynb"
    broken.write_text("not a notebook")
    with pytest.raises(SystemExit, match="not a notebook"):
        grading.hand_in(course, "lee", broken, "04_softmax")


# --- qkv_helpers.classroom.grading: the learner's exception is the learner's -------------------

def test_an_answer_cell_that_raised_is_graded_as_the_learners_error(monkeypatch):
    from qkv_helpers import grading as grader
    from qkv_helpers.lang import set_language

    set_language("en")
    try:
        int("my mistake")
    except ValueError as error:
        raised = error
    cell = SimpleNamespace(info=SimpleNamespace(raw_cell="my_x = int('my mistake')\n"
                                                         "qk.checks.check_value(my_x, 2, 'x')"),
                           error_in_exec=raised, result=None)
    monkeypatch.setattr(grader, "_last_cell", lambda: cell)
    feedback = grader.graded("qk.checks.check_value(my_x, 2, 'x')", seconds=5,
                             namespace={"qk": __import__("qkv_helpers")})
    assert feedback.ok is False
    assert feedback.message == t("grade_answer_raised", error=f"ValueError: {raised}")
    assert grader._learners_error(raised) and not grader._learners_error(KeyboardInterrupt())
