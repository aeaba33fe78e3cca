"""nbgrader course folders for both languages, generated from the lesson sources.

    python tools/assignments.py                      # every lesson, build/assignments/{ko,en}/
    python tools/assignments.py 03_scaling           # some lessons
    python tools/assignments.py --out DIR --no-release

For each language this writes an nbgrader course folder::

    build/assignments/ko/nbgrader_config.py
    build/assignments/ko/source/03_scaling/03_scaling.ipynb     # the teacher's version
    build/assignments/ko/release/03_scaling/03_scaling.ipynb    # after generate_assignment

and then runs ``nbgrader generate_assignment`` on it (unless ``--no-release``), which strips
the solutions and outputs and records the autograder tests in ``gradebook.db``.

How a lesson's exercise becomes an autograded exercise (nothing here knows any particular
exercise: it works from the cells' tags and the checker call):

- each cell tagged ``exercise`` is paired with the next cell tagged ``solution`` (before
  the next exercise);
- the exercise cell becomes an nbgrader *answer* cell: its own lines, with the solution
  cell's code (less its checker call) inside ``### BEGIN SOLUTION`` / ``### END SOLUTION``
  just before the checker call. The release replaces that region with a one-line stub, so
  students see the exercise cell as in the lesson (``my_x = ...`` and the check);
- after it comes a read-only autograder *test* cell worth ``--points`` points that calls
  the same ``qkv_helpers.classroom.checks`` function and asserts that its :class:`Feedback` says
  right (``ok is True``; ``None`` is "not answered", ``False`` wrong);
- solution cells are dropped (their code lives in the solution region); every other cell
  is kept as it is.

A checker call is a top-level expression statement calling ``<something>.checks.<name>(...)``
(``qk.checks.check_score_spread(my_std, 64)``). An exercise cell without one, or without
a solution cell after it, is an error that names the lesson and the cell.
"""

from __future__ import annotations

import argparse
import ast
import os
import re
import shutil
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

import nbformat

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(Path(__file__).resolve().parent))

from build_notebooks import SRC, load, to_notebook  # noqa: E402
from nbsource import LANGS  # noqa: E402

OUT = ROOT / "build" / "assignments"
POINTS = 1
BEGIN, END = "### BEGIN SOLUTION", "### END SOLUTION"
SCHEMA_VERSION = 3

# What the release shows where the solution was, and the test cell's first line.
STUB = {
    "ko": "# 여기에 답을 써요 (위의 ... 을 바꿔도 돼요)",
    "en": "# your answer here (or replace the ... above)",
}
TEST_HEADER = {
    "ko": "# 자동 채점 테스트 ({points}점): 고치지 마세요. 위 셀의 답을 같은 검사로 확인해요.",
    "en": "# Autograder test ({points} point(s)): do not edit. It runs the same check on the "
          "answer above.",
}
COURSE_TITLE = {"ko": "qkv-attention-ko", "en": "qkv-attention-en"}

# Time limits (seconds) when autograding. An exercise's cells (the learner's answer with its
# check, and the test cell) get EXERCISE_SECONDS: every exercise cell of every lesson, solved,
# took at most 0.1 s to autograde (measured on a shared 2-core machine at load 5), so 5 s
# leaves fifty times that for a slower answer or a busier server, and a learner's loop that
# never ends costs 5 s, once. Other cells (the lesson's own code, some of which measure
# timings) get LESSON_CELL_SECONDS.
EXERCISE_SECONDS = 5
LESSON_CELL_SECONDS = 120

# What a timed-out cell shows (nbgrader interrupts its kernel and records this error).
TIMEOUT_TEXT = {
    "ko": "⏱ 이 셀이 {seconds}초 안에 끝나지 않아서 채점기가 멈췄어요. "
          "반복문이 끝나는지 살펴보세요.",
    "en": "⏱ This cell did not finish in {seconds} s, so the autograder stopped it. Look at "
          "your loop: does it ever end?",
}

CONFIG = '''\
# nbgrader course folder for the attention course ({lang}), written by tools/assignments.py
# (make assignments). Edit the lessons in notebooks/src and run make assignments again.
# Nothing here names a folder: the course is the folder this file is in, wherever it is
# copied or moved (nbgrader reads this file from the folder it is run in).
import os
c = get_config()  # noqa: F821
c.CourseDirectory.course_id = {course!r}
c.CourseDirectory.root = os.path.dirname(os.path.abspath(__file__))
c.ClearSolutions.code_stub = {{"python": {stub!r}}}


def _seconds(cell):
    """A cell's time limit when autograding: short for an exercise's answer, a little longer
    for its test cell (which stops the learner's code itself after {exercise} s, with a
    message), long for the lesson's own cells."""
    nbgrader = cell.metadata.get("nbgrader", {{}})
    if nbgrader.get("solution"):
        return {exercise}
    if nbgrader.get("grade"):
        return {exercise} + 5
    return {lesson}


c.Execute.timeout_func = _seconds
c.Execute.interrupt_on_timeout = True  # and go on with the next cells
c.Execute.error_on_timeout = {{
    "ename": "TimeoutError", "evalue": "",
    "traceback": [{timeout_text!r}]}}
# Tracebacks as one line (the error and its message): no paths of the server's files.
c.Execute.extra_arguments = ["--HistoryManager.hist_file=:memory:",
                             "--InteractiveShell.xmode=Minimal"]
# Feedback pages (nbgrader generate_feedback) in this course's language, MathJax inlined.
c.HTMLExporter.template_name = {template!r}
c.HTMLExporter.extra_template_basedirs = [
    os.path.join(c.CourseDirectory.root, "feedback_template")]
# Feedback pages (feedback_template/feedback_page.py): each widget as it was when graded
# (no kernel runs there), from the state saved in the notebook; a cell stopped at its time
# limit shows the message above, without the kernel's KeyboardInterrupt.
import sys  # noqa: E402
_here = os.path.join(c.CourseDirectory.root, "feedback_template")
if _here not in sys.path:
    sys.path.insert(0, _here)
c.HTMLExporter.preprocessors = ["feedback_page.FeedbackPage"]
c.FeedbackPage.widget_note = {widget_note!r}
'''

# The feedback page's own texts (the rest of the page is the graded notebook).
FEEDBACK_TEMPLATE = Path(__file__).resolve().parent / "feedback_template" / "index.html.j2"
FEEDBACK_PAGE = FEEDBACK_TEMPLATE.with_name("feedback_page.py")
FEEDBACK_NAME = "qkv_feedback"
FEEDBACK_TEXT = {
    "ko": {"lang": "ko", "score": "점수", "answer": "내 답", "test_cell": "자동 채점 테스트",
           "comment": "선생님 코멘트", "top": "맨 위로", "late": "늦은 제출 감점",
           "widget": "🎛 채점기가 노트북을 실행했을 때 위젯이 보여 준 모습이에요. 컨트롤은 "
                     "JupyterLab에서 노트북을 실행해야 움직여요."},
    "en": {"lang": "en", "score": "Score", "answer": "Your answer", "test_cell": "Autograder test",
           "comment": "Teacher's comment", "top": "top", "late": "Late submission penalty",
           "widget": "🎛 What the widget showed when the autograder ran the notebook. Its "
                     "controls move when the notebook runs in JupyterLab."},
}
MATHJAX = ("mathjax", "3.2.2", "es5/tex-svg.js")  # the npm package classroom.py vendors too

_CHECK_CALL = re.compile(r"(^|\.)checks\.\w+$")


class AssignmentError(ValueError):
    pass


@dataclass
class Exercise:
    """One exercise of a lesson: what the checker is called with."""

    grade_id: str
    checks: list[str]  # the checker call statements, as written in the exercise cell
    answer_names: list[str]  # the first argument of each checker call, when it is a name


def _dotted(node: ast.AST) -> str:
    if isinstance(node, ast.Name):
        return node.id
    if isinstance(node, ast.Attribute):
        return f"{_dotted(node.value)}.{node.attr}"
    return ""


def split_checks(source: str, where: str) -> tuple[list[tuple[int, int]], list[ast.Call]]:
    """The line spans (0-based, end exclusive) of the checker call statements and the calls."""
    try:
        tree = ast.parse(source)
    except SyntaxError as error:
        raise AssignmentError(f"{where}: the code does not parse: {error}") from error
    spans, calls = [], []
    for statement in tree.body:  # `check(...)` or `feedback = check(...)`
        value = getattr(statement, "value", None)
        if (isinstance(statement, (ast.Expr, ast.Assign)) and isinstance(value, ast.Call)
                and _CHECK_CALL.search(_dotted(value.func))):
            spans.append((statement.lineno - 1, statement.end_lineno))
            calls.append(value)
    return spans, calls


def _without(lines: list[str], spans: list[tuple[int, int]]) -> list[str]:
    drop = {i for start, end in spans for i in range(start, end)}
    return [line for i, line in enumerate(lines) if i not in drop]


def answer_and_test(exercise: str, solution: str, lang: str, grade_id: str, points: int,
                    where: str) -> tuple[str, str, Exercise]:
    """The answer cell's source (with the solution region) and the test cell's source."""
    lines = exercise.splitlines()
    spans, calls = split_checks(exercise, f"{where} (exercise cell)")
    if not spans:
        raise AssignmentError(
            f"{where}: the exercise cell has no checker call (qk.checks.check_...(answer, ...)):"
            f"\n{exercise}")
    sol_lines = solution.splitlines()
    sol_spans, _ = split_checks(solution, f"{where} (solution cell)")
    region = _without(sol_lines, sol_spans)
    while region and not region[-1].strip():
        region.pop()
    first = spans[0][0]
    answer = lines[:first] + [BEGIN, *region, END] + lines[first:]
    check_sources = [ast.get_source_segment(exercise, call) for call in calls]
    names = [c.args[0].id for c in calls if c.args and isinstance(c.args[0], ast.Name)]
    test = [TEST_HEADER[lang].format(points=points),
            "from qkv_helpers.classroom.grading import graded"]
    for text in check_sources:
        test.append(f"_feedback = graded({text.strip()!r}, seconds={EXERCISE_SECONDS})")
        test.append("assert _feedback.ok is True, _feedback.message")
    return "\n".join(answer), "\n".join(test), Exercise(grade_id, check_sources, names)


def nbgrader_meta(grade_id: str, *, solution: bool, grade: bool, locked: bool,
                  points: int | None = None) -> dict:
    meta = {"grade": grade, "grade_id": grade_id, "locked": locked,
            "schema_version": SCHEMA_VERSION, "solution": solution, "task": False}
    if points is not None:
        meta["points"] = points
    return meta


def assignment_notebook(stem: str, lang: str, points: int = POINTS):
    """The nbgrader source notebook of one lesson and its exercises."""
    nb = to_notebook(load(stem), lang)
    cells = nb.cells
    out, exercises = [], []
    used_solutions: set[int] = set()
    for index, cell in enumerate(cells):
        tags = cell.metadata.get("tags", [])
        if "solution" in tags:
            if index not in used_solutions:
                raise AssignmentError(
                    f"{stem} ({lang}) cell {index}: a solution cell with no exercise cell "
                    "before it")
            continue
        if "exercise" not in tags:
            out.append(cell)
            continue
        where = f"{stem} ({lang}) cell {index}"
        pair = None
        for later in range(index + 1, len(cells)):
            later_tags = cells[later].metadata.get("tags", [])
            if "exercise" in later_tags:
                break
            if "solution" in later_tags:
                pair = later
                break
        if pair is None:
            raise AssignmentError(f"{where}: an exercise cell with no solution cell after it")
        used_solutions.add(pair)
        number = len(exercises) + 1
        answer, test, exercise = answer_and_test(
            cell.source, cells[pair].source, lang, f"{stem}_exercise_{number}", points, where)
        answer_cell = nbformat.v4.new_code_cell(answer)
        answer_cell.id = f"{cell.id}-answer"
        answer_cell.metadata.tags = list(tags)
        answer_cell.metadata.nbgrader = nbgrader_meta(
            f"{stem}_answer_{number}", solution=True, grade=False, locked=False)
        test_cell = nbformat.v4.new_code_cell(test)
        test_cell.id = f"{cell.id}-test"
        test_cell.metadata.nbgrader = nbgrader_meta(
            exercise.grade_id, solution=False, grade=True, locked=True, points=points)
        test_cell.metadata.deletable = False
        test_cell.metadata.editable = False
        out += [answer_cell, test_cell]
        exercises.append(exercise)
    nb.cells = out
    return nb, exercises


def write_course(out: Path, lang: str, stems: list[str], points: int = POINTS) -> dict:
    """Write (or rewrite) the course folder's config and source/; returns stem -> exercises."""
    course = out / lang
    course.mkdir(parents=True, exist_ok=True)
    (course / "nbgrader_config.py").write_text(
        CONFIG.format(lang=lang, course=COURSE_TITLE[lang], stub=STUB[lang],
                      exercise=EXERCISE_SECONDS, lesson=LESSON_CELL_SECONDS,
                      timeout_text=TIMEOUT_TEXT[lang].format(seconds=EXERCISE_SECONDS),
                      template=FEEDBACK_NAME, widget_note=FEEDBACK_TEXT[lang]["widget"]),
        encoding="utf-8")
    write_feedback_template(course, lang)
    found = {}
    for stem in stems:
        nb, exercises = assignment_notebook(stem, lang, points)
        if not exercises:
            continue  # a lesson without an exercise is no assignment
        folder = course / "source" / stem
        if folder.exists():
            shutil.rmtree(folder)
        folder.mkdir(parents=True)
        nbformat.write(nb, folder / f"{stem}.ipynb")
        found[stem] = exercises
    return found


def _mathjax_source() -> str | None:
    """MathJax 3 (one self-contained SVG build) from build/vendor/, fetched with npm once;
    None without npm (the feedback pages then show formulas as TeX)."""
    import tarfile

    import classroom

    name, version, inner = MATHJAX
    try:
        tgz = classroom._tarball(name, version)
    except (FileNotFoundError, subprocess.CalledProcessError):
        return None
    with tarfile.open(tgz) as tar:
        return tar.extractfile(f"package/{inner}").read().decode("utf-8")


def write_feedback_template(course: Path, lang: str) -> bool:
    """The feedback page's template in ``course/feedback_template/``; True if MathJax is in it."""
    import classroom

    folder = course / "feedback_template" / FEEDBACK_NAME
    folder.mkdir(parents=True, exist_ok=True)
    shutil.copyfile(FEEDBACK_PAGE, folder.parent / FEEDBACK_PAGE.name)
    mathjax = _mathjax_source()
    if mathjax is None:
        print("warning: npm could not fetch MathJax: feedback pages will show formulas as "
              "TeX. Install Node.js (npm) and run make assignments again.", file=sys.stderr)
        (folder / "tex-svg.js").unlink(missing_ok=True)
    else:
        (folder / "tex-svg.js").write_text(mathjax, encoding="utf-8")
    text = dict(FEEDBACK_TEXT[lang], mathjax="{{ resources.include_js('tex-svg.js') }}"
                if mathjax is not None else "<!-- no MathJax: formulas stay TeX -->",
                symbols=classroom.symbol_font_css())  # ✅ ❌ ✏️ without an emoji font
    template = FEEDBACK_TEMPLATE.read_text(encoding="utf-8")
    for key, value in text.items():
        template = template.replace(f"[[{key}]]", value)
    (folder / "index.html.j2").write_text(template, encoding="utf-8")
    (folder / "conf.json").write_text(
        '{"base_template": "classic", "mimetypes": {"text/html": true}}\n', encoding="utf-8")
    return mathjax is not None


def nbgrader(course: Path, *args: str, check: bool = True,
             env: dict | None = None) -> subprocess.CompletedProcess:
    """Run the nbgrader command line in a folder (a course folder: its nbgrader_config.py
    applies); ``env``: the environment (default: this one)."""
    env = dict(os.environ if env is None else env)  # nbgrader runs its environment's `alembic`
    env["PATH"] = os.pathsep.join([str(Path(sys.executable).parent), env.get("PATH", "")])
    env.pop("MPLBACKEND", None)  # the kernels draw inline, as in the lessons
    return subprocess.run([sys.executable, "-m", "nbgrader", *args], cwd=course, check=check,
                          capture_output=True, text=True, env=env)


LESSON_PATTERN = "[0-9][0-9]_*"  # every lesson's folder name (nbgrader globs assignment names)


def release_patterns(course: Path, stems: list[str]) -> list[str]:
    """The assignment names to give ``nbgrader generate_assignment`` for these lessons: one
    pattern for all of them when they are every lesson folder in ``source/`` (each nbgrader
    command spends seconds starting, 3-8 s on a busy machine: one call instead of fifteen),
    else one name each."""
    folders = {p.name for p in (course / "source").glob(LESSON_PATTERN) if p.is_dir()}
    if len(stems) > 1 and folders == set(stems):
        return [LESSON_PATTERN]
    return list(stems)


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("stems", nargs="*", help="lessons (default: all)")
    parser.add_argument("--out", type=Path, default=OUT)
    parser.add_argument("--points", type=int, default=POINTS, help="points per exercise")
    parser.add_argument("--no-release", action="store_true",
                        help="write source/ only, do not run nbgrader generate_assignment")
    args = parser.parse_args(argv)
    stems = args.stems or sorted(p.stem for p in SRC.glob("[0-9][0-9]_*.py"))
    for lang in LANGS:
        found = write_course(args.out, lang, stems, args.points)
        course = args.out / lang
        total = sum(len(e) for e in found.values())
        print(f"{course}: {len(found)} assignments, {total} exercises, "
              f"{args.points} point(s) each")
        if args.no_release:
            continue
        for pattern in release_patterns(course, list(found)):
            result = nbgrader(course, "generate_assignment", pattern, "--force", check=False)
            if result.returncode != 0:
                print(result.stdout + result.stderr, file=sys.stderr)
                return 1
        print(f"  release/: {', '.join(found)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
