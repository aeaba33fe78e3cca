"""The class at a glance, from an nbgrader course folder after ``nbgrader autograde``.

    python tools/class_report.py build/assignments/ko          # make class-report
    python tools/class_report.py COURSE_FOLDER --lang en       # the report's language

Per exercise: how many students got it right, and the most common mistakes, named by the
checks' own feedback (the one-line message each test cell failed with, in the graded
notebook). Per student: which exercises are done (✔), wrong (✘), not answered (·), or not
handed in (–). Only assignments someone handed in are shown.

How a mistake is named: a failed test cell's message is a text of ``qkv_helpers.lang``
filled with values ("my_softmax(x)를 실행하다가 오류가 났어요. 넣은 점수: ..."); the report
finds the text it was made from (placeholders match anything) and shows that text, in the
report's language, with ``…`` for the values. So the report needs no tag in the feedback and
knows every mistake any checker names.
"""

from __future__ import annotations

import argparse
import os
import re
import string
import sys
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

import nbformat

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from qkv_helpers.lang import STRINGS  # noqa: E402

TEXT = {
    "ko": {
        "title": "반 보고서: {course}, 학생 {n}명",
        "assignment": "{name}: {n}명 제출",
        "exercise": "  문제 {number} ({grade_id}): {n}명 중 {right}명 맞음",
        "mistakes": "    자주 나온 실수:",
        "mistake": "      {count}명  {text}",
        "unanswered": "(답을 쓰지 않음)",
        "unknown": "(검사 메시지 없음: 셀이 오류로 멈춤)",
        "students": "학생별 (✔ 맞음, ✘ 틀림, · 답 없음, – 제출 안 함)",
        "done": "{n}/{total}",
        "none": "아직 자동 채점한 제출물이 없어요: nbgrader autograde를 먼저 실행하세요.",
    },
    "en": {
        "title": "Class report: {course}, {n} students",
        "assignment": "{name}: {n} handed in",
        "exercise": "  exercise {number} ({grade_id}): {right} of {n} right",
        "mistakes": "    most common mistakes:",
        "mistake": "      {count}×  {text}",
        "unanswered": "(not answered)",
        "unknown": "(no check message: the cell stopped with an error)",
        "students": "Per student (✔ right, ✘ wrong, · not answered, – not handed in)",
        "done": "{n}/{total}",
        "none": "No autograded submission yet: run nbgrader autograde first.",
    },
}
SYMBOL = {"right": "✔", "wrong": "✘", "unanswered": "·", "missing": "–"}
UNANSWERED = "check_not_answered"


def _parts(template: str) -> list[tuple[str, str | None]]:
    return [(literal, name) for literal, name, *_ in string.Formatter().parse(template)]


def _pattern(template: str) -> re.Pattern:
    """A regex matching ``template`` with any value in each {placeholder}."""
    regex = "".join(re.escape(literal) + (r"(.+?)" if name is not None else "")
                    for literal, name in _parts(template))
    return re.compile(regex + r"\Z", re.S)


def _explained(message: str, lang: str, depth: int = 2):
    """(how many characters of ``message`` lang texts explain, the mistake): the mistake is
    ``(key, ((placeholder, inner mistake or None), ...))``. A check's message can hold
    another's ("On [..]: x is not right yet: ..."): the values are explained in turn."""
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
            inner.append((name, value_mistake))
        # a tie goes to the text that starts with its own words: it is the outer one
        leading = len(_parts(template)[0][0]) if _parts(template) else 0
        if (score, leading) > best:
            best, best_mistake = (score, leading), (key, tuple(inner))
    return best[0], best_mistake


def mistake_of(message: str, lang: str):
    """The mistake a failed check's ``message`` (in ``lang``) names, or None.

    >>> mistake_of("On [[1, 2]]: x is not right yet: at index 0 you have 1, expected 2.",
    ...            "en")[0]
    'check_l04_wrong_on'
    >>> mistake_of("something else", "en") is None
    True
    """
    return _explained(message.strip(), lang)[1]


def mistake_text(mistake, lang: str) -> str:
    """How the report names a mistake: its text in ``lang``, values shown as …

    >>> mistake_text(mistake_of("On [[1, 2]]: x is not right yet: at index 0 you have 1, "
    ...                         "expected 2.", "en"), "ko")
    '넣은 점수 …: … 값이 아직 달라요. 인덱스 …의 값: 지금 …, 정답 ….'
    """
    if mistake is None:
        return TEXT[lang]["unknown"]
    key, inner = mistake
    if key == UNANSWERED:
        return TEXT[lang]["unanswered"]
    inner = dict(inner)
    return "".join(literal + ("" if name is None else
                              mistake_text(inner[name], lang) if inner.get(name) else "…")
                   for literal, name in _parts(STRINGS[lang][key]))


@dataclass
class Exercise:
    grade_id: str
    notebook: str
    right: int = 0
    handed_in: int = 0
    mistakes: Counter = field(default_factory=Counter)  # mistake (see mistake_of) -> students


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
                    exercise.mistakes[mistake] += 1
                    unanswered = mistake is not None and mistake[0] == UNANSWERED
                    status[student][exercise.grade_id] = "unanswered" if unanswered else "wrong"
            if handed_in:
                assignments[assignment.name] = exercises
    return Report(course_id, students, assignments, status)


def _number(grade_id: str) -> int:
    digits = re.findall(r"\d+", grade_id)
    return int(digits[-1]) if digits else 0


def render(report: Report, lang: str, top: int = 3) -> str:
    text = TEXT[lang]
    lines = [text["title"].format(course=report.course, n=len(report.students)), ""]
    if not report.assignments:
        return "\n".join([*lines, text["none"]])
    for name, exercises in report.assignments.items():
        handed = max((e.handed_in for e in exercises), default=0)
        lines.append(text["assignment"].format(name=name, n=handed))
        for number, exercise in enumerate(exercises, 1):
            lines.append(text["exercise"].format(number=number, grade_id=exercise.grade_id,
                                                 n=exercise.handed_in, right=exercise.right))
            if exercise.mistakes:
                lines.append(text["mistakes"])
                for mistake, count in exercise.mistakes.most_common(top):
                    lines.append(text["mistake"].format(count=count,
                                                        text=mistake_text(mistake, lang)))
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


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("courses", nargs="*", type=Path,
                        help="course folders (default: build/assignments/ko and en)")
    parser.add_argument("--lang", choices=list(TEXT), default=None,
                        help="the report's language (default: the computer's)")
    parser.add_argument("--top", type=int, default=3, help="mistakes shown per exercise")
    args = parser.parse_args(argv)
    courses = args.courses or [p.parent for p in sorted(
        (ROOT / "build" / "assignments").glob("*/gradebook.db"))]
    if not courses:
        print("no gradebook.db: run make assignments, release, collect and autograde first",
              file=sys.stderr)
        return 1
    for course in courses:
        if not (course / "gradebook.db").exists():
            print(f"{course}: no gradebook.db here", file=sys.stderr)
            return 1
        print(render(read(course), args.lang or _language(), args.top))
        print()
    return 0


if __name__ == "__main__":
    sys.exit(main())
