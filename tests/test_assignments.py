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
import os
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


# The Korean course's run (the same nbgrader steps, the Korean texts) is make test-all's.
@pytest.mark.parametrize("lang", [pytest.param(lang, marks=pytest.mark.slow) if lang == "ko"
                                  else lang for lang in LANGS])
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

    # The class report: per exercise who got it right and which mistakes, per student.
    import class_report

    report = class_report.read(course)
    assert report.students == ["looping", "raising", "right", "untouched", "wrong"]
    (listed,) = report.assignments.values()
    assert [(e.right, e.handed_in) for e in listed] == [(2, 5), (3, 5)]
    first_mistakes = {m[0] for m in listed[0].mistakes}
    assert first_mistakes == {"grade_timeout", "check_l04_raised", "check_not_answered"}
    assert {m[0] for m in listed[1].mistakes} == {"check_not_answered", "check_l04_wrong_on"}
    status = {s: "".join(class_report.SYMBOL[report.status[s][e.grade_id]] for e in listed)
              for s in report.students}
    assert status == {"looping": "✘✔", "raising": "✘✔", "right": "✔✔", "untouched": "··",
                      "wrong": "✔✘"}
    for teacher in LANGS:  # the teacher's language, whatever the course's
        text = class_report.render(report, teacher)
        words = class_report.TEXT[teacher]
        assert words["exercise"].format(number=1, grade_id=exercises[0].grade_id, n=5,
                                        right=2) in text
        timeout = STRINGS[teacher]["grade_timeout"].replace("{seconds}", "…")
        assert words["mistake"].format(count=1, text=timeout) in text
        assert words["students"] in text


def test_graded_reports_a_missing_answer_instead_of_raising():
    from qkv_helpers.grading import graded
    from qkv_helpers.lang import set_language

    set_language("en")
    feedback = graded("qk.checks.check_value(nowhere, 2, 'x')", seconds=5,
                      namespace={"qk": __import__("qkv_helpers")})
    assert feedback.ok is False and "NameError" in feedback.message


def _texts_under(folder: Path) -> str:
    return "\n".join(p.read_bytes().decode("utf-8", "replace")
                     for p in folder.rglob("*") if p.is_file())


FORMGRADER_LOADED = """
from jupyter_server.serverapp import ServerApp
app = ServerApp()
app.load_config_file()
app.init_server_extensions()
pkg = app.extension_manager.extensions.get("nbgrader.server_extensions.formgrader")
print("enabled" if pkg is not None and pkg.enabled else "disabled")
"""


@pytest.mark.slow  # a dozen nbgrader runs: make test-all (CI), with make hub-test
def test_a_moved_course_releases_and_grades_through_the_hub_exchange(tmp_path):
    """Built in one folder, moved, then run as the teacher guide says on a hub:
    tools/nbgrader_hub.py setup (exchange folder, everyone's config, formgrader off) and
    teacher (formgrader on for the teacher), release, a student fetches and submits,
    collect, autograde."""
    pytest.importorskip("nbgrader")
    import shutil
    import subprocess
    import sysconfig

    import nbgrader_hub
    from nbgrader.api import Gradebook

    built = tmp_path / "laptop" / "assignments"
    exercises = assignments.write_course(built, "ko", [AUTOGRADED])[AUTOGRADED]
    done = assignments.nbgrader(built / "ko", "generate_assignment", AUTOGRADED, "--force",
                                check=False)
    assert done.returncode == 0, done.stdout + done.stderr
    course = tmp_path / "hub" / "course"
    course.parent.mkdir()
    shutil.move(str(built / "ko"), course)
    shutil.rmtree(tmp_path / "laptop")
    assert str(tmp_path / "laptop") not in _texts_under(course)

    # The hub users' environment: a venv of its own (its sys.prefix is where --sys-prefix
    # writes) that sees this environment's packages.
    env_dir = tmp_path / "users-env"
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(env_dir)], check=True)
    users_python = env_dir / "bin" / "python"
    site = subprocess.run([str(users_python), "-c", "import sysconfig; print("
                           "sysconfig.get_paths()['purelib'])"], check=True,
                          capture_output=True, text=True).stdout.strip()
    Path(site, "course.pth").write_text(sysconfig.get_paths()["purelib"] + "\n")
    shutil.copytree(Path(sys.prefix) / "etc", env_dir / "etc")  # as pip would install them
    for command in ("jupyter-server", "jupyter-labextension"):
        script = (Path(sys.executable).parent / command).read_text().splitlines()
        (env_dir / "bin" / command).write_text("\n".join([f"#!{users_python}", *script[1:]]))
        (env_dir / "bin" / command).chmod(0o755)
    exchange, etc = tmp_path / "exchange", tmp_path / "etc-jupyter"
    assert nbgrader_hub.main(["setup", "--exchange", str(exchange), "--config-dir", str(etc),
                              "--python", str(users_python)]) == 0
    assert exchange.stat().st_mode & 0o777 == 0o777

    def as_user(name: str) -> dict:
        home = tmp_path / "home" / name
        home.mkdir(parents=True, exist_ok=True)
        return dict(os.environ, HOME=str(home), JUPYTER_CONFIG_DIR=str(home / ".jupyter"),
                    JUPYTER_CONFIG_PATH=str(etc))

    teacher, student = as_user("teacher"), as_user("student")
    old = dict(os.environ)
    try:
        os.environ.update(teacher)
        assert nbgrader_hub.main(["teacher", "--python", str(users_python)]) == 0
    finally:
        os.environ.clear()
        os.environ.update(old)

    def formgrader(env) -> str:
        """Whether a Jupyter server started by this user would load the formgrader."""
        done = subprocess.run([str(users_python), "-c", FORMGRADER_LOADED], env=env,
                              capture_output=True, text=True)
        assert done.returncode == 0, done.stderr
        return done.stdout.split()[-1]

    assert formgrader(teacher) == "enabled"
    assert formgrader(student) == "disabled"

    def run(env, cwd, *args):
        done = assignments.nbgrader(cwd, *args, check=False, env=env)
        assert done.returncode == 0, done.stdout + done.stderr
        return done

    run(teacher, course, "release_assignment", AUTOGRADED)
    home = Path(student["HOME"])
    run(student, home, "fetch_assignment", AUTOGRADED, "--course", assignments.COURSE_TITLE["ko"])
    fetched = home / AUTOGRADED / f"{AUTOGRADED}.ipynb"
    source = nbformat.read(course / "source" / AUTOGRADED / f"{AUTOGRADED}.ipynb", as_version=4)
    solved = {c.metadata.nbgrader.grade_id: _answer_body(c.source)
              for c in _graded(source, "solution")}
    nb = nbformat.read(fetched, as_version=4)
    for cell in _graded(nb, "solution"):
        cell.source = solved[cell.metadata.nbgrader.grade_id]
    nbformat.write(nb, fetched)
    run(student, home, "submit", AUTOGRADED, "--course", assignments.COURSE_TITLE["ko"])
    run(teacher, course, "collect", AUTOGRADED)
    run(teacher, course, "autograde", AUTOGRADED)
    with Gradebook(f"sqlite:///{course / 'gradebook.db'}") as gradebook:
        (submission,) = gradebook.find_assignment(AUTOGRADED).submissions
        assert submission.score == submission.max_score == len(exercises)
