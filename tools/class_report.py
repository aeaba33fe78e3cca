"""The class at a glance, from an nbgrader course folder after ``nbgrader autograde``.

    python tools/class_report.py                               # make class-report
    python tools/class_report.py ~/course-ko --lang en         # a course folder, a language
    python tools/class_report.py ~/course-ko --all             # every wrong answer listed

With no folder it reports every course with autograded submissions among the folder it runs
in, ``~/course-ko`` and ``~/course-en`` (the teacher guide's folders on a hub) and
``build/assignments/ko`` and ``en`` (``make assignments``); ``make class-report
COURSE=<folder>`` names one.

Per exercise: how many students got it right, got it wrong, did not answer, did not hand
in; then each wrong answer, most common first, named by the check's own feedback (the
message the test cell failed with, in the graded notebook) with the students who gave it.
The first ``--top`` (5) are one per line, the others follow on one line (``--all``: one per
line). Per student: which exercises are done (✔), wrong (✘), not answered (·), or not
handed in (–). Only assignments someone handed in are shown.

How a mistake is named: a failed test cell's message is a text of ``qkv_helpers.lang``
filled with values ("my_softmax(x)를 실행하다가 오류가 났어요. 넣은 점수: ..."); the report
finds the text it was made from and shows that text in the report's language, with the
values the message held (the input and the error). Two messages are one line only when
they are the same message; a message no text explains is shown as it is. A student's own
exception (``grade_answer_raised``) reads as such; the grader failing to run the check
(``grade_error``) is marked as the grader's.
"""

from __future__ import annotations

import argparse
import os
import re
import string
import sys
from dataclasses import dataclass, field
from pathlib import Path

import nbformat

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from qkv_helpers.lang import STRINGS  # noqa: E402

LANGS = ("ko", "en")

TEXT = {
    "ko": {
        "title": "반 보고서: {course}, 학생 {n}명",
        "assignment": "{name}: {n}명 제출",
        "exercise": "  문제 {number} ({grade_id}): {n}명 중 {right}명 맞음, {wrong}명 틀림, "
                    "{unanswered}명 답 없음, {missing}명 제출 안 함",
        "mistakes": "    틀린 답 (많은 순서):",
        "mistake": "      {count}명  {text}  [{students}]",
        "more": "    그 밖에 {n}가지 더 (--all이면 위처럼 한 줄에 하나씩): {rest}",
        "more_item": "{count}명 {text}",
        "unanswered": "(답을 쓰지 않음)",
        "unknown": "검사 메시지가 없어요: 셀이 오류로 멈췄어요. 채점된 노트북을 열어 보세요.",
        "grader": "채점기 쪽 오류(학생의 답이 아니에요. 채점된 노트북을 열어 보세요): ",
        "students": "학생별 (✔ 맞음, ✘ 틀림, · 답 없음, – 제출 안 함)",
        "done": "{n}/{total}",
        "none": "아직 자동 채점한 제출물이 없어요: nbgrader autograde를 먼저 실행하세요.",
    },
    "en": {
        "title": "Class report: {course}, {n} students",
        "assignment": "{name}: {n} handed in",
        "exercise": "  exercise {number} ({grade_id}): {right} of {n} right, {wrong} wrong, "
                    "{unanswered} not answered, {missing} did not hand in",
        "mistakes": "    wrong answers (most common first):",
        "mistake": "      {count}×  {text}  [{students}]",
        "more": "    and {n} more (--all lists them as above): {rest}",
        "more_item": "{count}× {text}",
        "unanswered": "(not answered)",
        "unknown": "(no check message: the cell stopped with an error; open the graded "
                   "notebook)",
        "grader": "the grader's error (not the student's answer; open the graded notebook): ",
        "students": "Per student (✔ right, ✘ wrong, · not answered, – not handed in)",
        "done": "{n}/{total}",
        "none": "No autograded submission yet: run nbgrader autograde first.",
    },
}
SYMBOL = {"right": "✔", "wrong": "✘", "unanswered": "·", "missing": "–"}
UNANSWERED = "check_not_answered"
GRADER_ERROR = "grade_error"  # the grader could not run the check (not the learner's exception)
RAW = ""  # a message no text of qkv_helpers.lang explains: shown as it is
TOP = 5


def _parts(template: str) -> list[tuple[str, str | None]]:
    return [(literal, name) for literal, name, *_ in string.Formatter().parse(template)]


def _pattern(template: str) -> re.Pattern:
    """A regex matching ``template`` with any value in each {placeholder}."""
    regex = "".join(re.escape(literal) + (r"(.+?)" if name is not None else "")
                    for literal, name in _parts(template))
    return re.compile(regex + r"\Z", re.S)


def _explained(message: str, lang: str, depth: int = 2):
    """(how many characters of ``message`` lang texts explain, the mistake): the mistake is
    ``(key, ((placeholder, value), ...))``, each value the text it stands for or, when a
    text explains it in turn, that inner mistake. A check's message can hold another's
    ("On [..]: x is not right yet: ..."): the values are explained in turn."""
    best, best_mistake = (0, 0), None
    for key, template in STRINGS[lang].items():
        found = _pattern(template).match(message)
        if not found:
            continue
        names = [name for _, name in _parts(template) if name is not None]
        score, inner = sum(len(literal) for literal, _ in _parts(template)), []
        for name, value in zip(names, found.groups()):
            value_score, value_mistake = (_explained(value, lang, depth - 1) if depth > 0
                                          else (0, None))
            score += value_score
            inner.append((name, value if value_mistake is None else value_mistake))
        # a tie goes to the text that starts with its own words: it is the outer one
        leading = len(_parts(template)[0][0]) if _parts(template) else 0
        if (score, leading) > best:
            best, best_mistake = (score, leading), (key, tuple(inner))
    return best[0], best_mistake


def mistake_of(message: str, lang: str):
    """The mistake a failed check's ``message`` (in ``lang``) names: the text it was made
    from and the values in it; a message no text explains is kept as it is.

    >>> mistake_of("On [[1, 2]]: x is not right yet: at index 0 you have 1, expected 2.",
    ...            "en")[0]
    'check_l04_wrong_on'
    >>> mistake_of("something else", "en")
    ('', (('message', 'something else'),))
    """
    message = message.strip()
    found = _explained(message, lang)[1]
    return found if found is not None else (RAW, (("message", message),))


def mistake_text(mistake, lang: str) -> str:
    """How the report names a mistake: its text in ``lang`` with the values it was made with
    (the input and the error), so two different messages never read the same.

    >>> mistake_text(mistake_of("On [[1, 2]]: x is not right yet: at index 0 you have 1, "
    ...                         "expected 2.", "en"), "ko")
    '넣은 점수 [[1, 2]]: x 값이 아직 달라요. 인덱스 0의 값: 지금 1, 정답 2.'
    """
    if mistake is None:
        return TEXT[lang]["unknown"]
    key, inner = mistake
    if key == RAW:
        return dict(inner)["message"]
    if key == UNANSWERED:
        return TEXT[lang]["unanswered"]
    inner = dict(inner)
    text = "".join(literal + ("" if name is None else
                              inner[name] if isinstance(inner.get(name), str) else
                              mistake_text(inner[name], lang) if inner.get(name) else "")
                   for literal, name in _parts(STRINGS[lang][key]))
    return (TEXT[lang]["grader"] + text) if key == GRADER_ERROR else text


@dataclass
class Exercise:
    grade_id: str
    notebook: str
    right: int = 0
    handed_in: int = 0
    unanswered: int = 0
    # wrong answers: mistake (see mistake_of) -> the students who made it
    mistakes: dict = field(default_factory=dict)


@dataclass
class Report:
    course: str
    students: list[str]
    assignments: dict[str, list[Exercise]]  # only those someone handed in
    status: dict[str, dict[str, str]]  # student -> grade_id -> right/wrong/unanswered/missing


def _failure_message(cell) -> str | None:
    """The message a failed test cell stopped with (its AssertionError's text)."""
    for output in cell.get("outputs", []):
        if output.get("output_type") == "error":
            return output.get("evalue", "")
    return None


def read(course: Path) -> Report:
    """The class as the gradebook and the graded notebooks of ``course`` tell it."""
    from nbgrader.api import Gradebook, MissingEntry

    config = (course / "nbgrader_config.py").read_text(encoding="utf-8")
    found = re.search(r"course_id = '([^']*)'", config)
    course_id = found.group(1) if found else course.name
    course_lang = "en" if course_id.endswith("-en") else "ko"
    assignments: dict[str, list[Exercise]] = {}
    status: dict[str, dict[str, str]] = {}
    with Gradebook(f"sqlite:///{course / 'gradebook.db'}") as gradebook:
        students = sorted(s.id for s in gradebook.students)
        for student in students:
            status[student] = {}
        for assignment in sorted(gradebook.assignments, key=lambda a: a.name):
            exercises = []
            for notebook in assignment.notebooks:
                for cell in sorted(notebook.grade_cells, key=lambda c: c.name):
                    exercises.append(Exercise(cell.name, notebook.name))
            exercises.sort(key=lambda e: (e.notebook, _number(e.grade_id)))
            handed_in = False
            for student in students:
                try:
                    gradebook.find_submission(assignment.name, student)
                except MissingEntry:
                    for exercise in exercises:
                        status[student][exercise.grade_id] = "missing"
                    continue
                handed_in = True
                graded = {}
                for notebook in {e.notebook for e in exercises}:
                    path = (course / "autograded" / student / assignment.name
                            / f"{notebook}.ipynb")
                    if path.exists():
                        nb = nbformat.read(path, as_version=4)
                        graded.update({c.metadata.nbgrader.grade_id: c for c in nb.cells
                                       if c.metadata.get("nbgrader", {}).get("grade")})
                for exercise in exercises:
                    grade = gradebook.find_grade(exercise.grade_id, exercise.notebook,
                                                 assignment.name, student)
                    exercise.handed_in += 1
                    if grade.max_score and grade.score == grade.max_score:
                        exercise.right += 1
                        status[student][exercise.grade_id] = "right"
                        continue
                    cell = graded.get(exercise.grade_id)
                    message = _failure_message(cell) if cell is not None else None
                    mistake = mistake_of(message, course_lang) if message else None
                    if mistake is not None and mistake[0] == UNANSWERED:
                        exercise.unanswered += 1
                        status[student][exercise.grade_id] = "unanswered"
                        continue
                    exercise.mistakes.setdefault(mistake, []).append(student)
                    status[student][exercise.grade_id] = "wrong"
            if handed_in:
                assignments[assignment.name] = exercises
    return Report(course_id, students, assignments, status)


def _number(grade_id: str) -> int:
    digits = re.findall(r"\d+", grade_id)
    return int(digits[-1]) if digits else 0


def render(report: Report, lang: str, top: int | None = TOP) -> str:
    """The report as text; ``top``: wrong answers shown one per line for each exercise (the
    others follow on one line), None for all of them."""
    text = TEXT[lang]
    lines = [text["title"].format(course=report.course, n=len(report.students)), ""]
    if not report.assignments:
        return "\n".join([*lines, text["none"]])
    for name, exercises in report.assignments.items():
        handed = max((e.handed_in for e in exercises), default=0)
        lines.append(text["assignment"].format(name=name, n=handed))
        for number, exercise in enumerate(exercises, 1):
            wrong = sum(len(s) for s in exercise.mistakes.values())
            lines.append(text["exercise"].format(
                number=number, grade_id=exercise.grade_id, n=len(report.students),
                right=exercise.right, wrong=wrong, unanswered=exercise.unanswered,
                missing=len(report.students) - exercise.handed_in))
            ranked = sorted(exercise.mistakes.items(),
                            key=lambda item: (-len(item[1]), mistake_text(item[0], lang)))
            if ranked:
                lines.append(text["mistakes"])
            shown = ranked if top is None else ranked[:top]
            for mistake, students in shown:
                lines.append(text["mistake"].format(
                    count=len(students), text=mistake_text(mistake, lang),
                    students=", ".join(sorted(students))))
            rest = ranked[len(shown):]
            if rest:
                lines.append(text["more"].format(n=len(rest), rest=" / ".join(
                    text["more_item"].format(count=len(students),
                                             text=mistake_text(mistake, lang))
                    for mistake, students in rest)))
        lines.append("")
    lines.append(text["students"])
    width = max(len(s) for s in report.students)
    for student in report.students:
        cells, done, total = [], 0, 0
        for name, exercises in report.assignments.items():
            marks = [report.status[student].get(e.grade_id, "missing") for e in exercises]
            done += marks.count("right")
            total += len(marks)
            cells.append(f"{name} " + "".join(SYMBOL[m] for m in marks))
        lines.append(f"  {student:<{width}}  {text['done'].format(n=done, total=total):>7}  "
                     + "   ".join(cells))
    return "\n".join(lines)


def _language() -> str:
    name = os.environ.get("LC_ALL") or os.environ.get("LANG") or ""
    return "en" if name.lower().startswith("en") else "ko"


def where_courses_are(cwd: Path | None = None, home: Path | None = None) -> list[Path]:
    """Where the teacher guide's steps put a course folder, in this order: the folder the
    report runs in (when it is one), ``~/course-ko`` and ``~/course-en`` (the guide's folders on
    the hub), ``build/assignments/ko`` and ``en`` (make assignments)."""
    cwd, home = cwd or Path.cwd(), home or Path.home()
    places = [cwd, *(home / f"course-{lang}" for lang in LANGS),
              *(ROOT / "build" / "assignments" / lang for lang in LANGS)]
    found = []
    for place in places:
        if (place / "nbgrader_config.py").exists() and place.resolve() not in found:
            found.append(place.resolve())
    return found


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("courses", nargs="*", type=Path,
                        help="course folders (default: every course with autograded "
                             "submissions among this folder, ~/course-ko, ~/course-en, "
                             "build/assignments/ko and en)")
    parser.add_argument("--lang", choices=list(TEXT), default=None,
                        help="the report's language (default: the computer's)")
    parser.add_argument("--top", type=int, default=TOP,
                        help=f"wrong answers shown one per line per exercise (default {TOP}; "
                             "the others follow on one line)")
    parser.add_argument("--all", action="store_true", help="every wrong answer on its own line")
    args = parser.parse_args(argv)
    lang = args.lang or _language()
    top = None if args.all else args.top
    for course in args.courses:
        if not (course / "gradebook.db").exists():
            print(f"{course}: no gradebook.db here (is it the course folder, with "
                  "nbgrader_config.py?)", file=sys.stderr)
            return 1
    if args.courses:
        for course in args.courses:
            print(render(read(course), lang, top))
            print()
        return 0
    looked = where_courses_are()
    reports = [read(c) for c in looked if (c / "gradebook.db").exists()]
    reports = [r for r in reports if r.assignments]  # a course nobody handed in to: left out
    if not reports:
        print("No course folder with autograded submissions in: "
              + (", ".join(str(c) for c in looked) or "(none found)")
              + ".\nGive the course folder: make class-report COURSE=/home/<you>/course-ko "
              "(or python course.py class-report /home/<you>/course-ko).", file=sys.stderr)
        return 1
    for report in reports:
        print(render(report, lang, top))
        print()
    return 0


if __name__ == "__main__":
    sys.exit(main())
