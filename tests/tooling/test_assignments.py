"""nbgrader assignments generated from the lessons (tools/assignments.py, make assignments).

The structure is checked for every lesson in both languages; the real nbgrader then runs on
two lessons, 04 (whose answers are the learner's own functions) in Korean and 09 (whose
answers are numbers) in English: ``generate_assignment``, and ``autograde`` of a simulated
class of five (the solutions; the untouched release; the last answer made wrong; the first
answer raising; the first answer a loop that never ends), with the scores read back from
the gradebook, the timed-out student's feedback read from the graded notebook, and the
feedback pages.
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

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "tools"))
sys.path.insert(0, str(ROOT / "tools" / "feedback_template"))  # feedback_page

import assignments  # noqa: E402
from nbsource import LANGS  # noqa: E402

STEMS = sorted(p.stem for p in (ROOT / "notebooks" / "src").glob("[0-9][0-9]_*.py"))
AUTOGRADED = "04_softmax"  # the lesson the real nbgrader runs on: its answers are functions
# The class of five: each lesson once, each language once (the suite's time stays that of two).
CLASSES = [("ko", "04_softmax"), ("en", "09_kv_cache")]
# The mistakes the class report names for the broken answers (first exercise: the loop, the
# error, the untouched release; last exercise: the untouched release, the wrong answer).
# Not answered is counted apart; the student's own ValueError in lesson 09's answer cell is
# theirs (grade_answer_raised), not the grader's (grade_error).
CLASS_MISTAKES = {
    "04_softmax": ({"grade_timeout", "check_l04_raised"}, {"check_l04_wrong_on"}),
    "09_kv_cache": ({"grade_timeout", "grade_answer_raised"}, {"check_l09_rounded_up"}),
}


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


# The first answer of each kind of broken submission: a function (lesson 04's answers are)
# or a value (lesson 09's). Each loop prints a line when it starts, so the graded notebook
# shows how often it ran.
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
RAISES_VALUE = '''{name} = int("my mistake")
'''
LOOPS_VALUE = '''print("{name} called")
{name} = 0
while {name} >= 0:   # this never ends
    {name} += 1
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
    function = f"def {first.answer_names[0]}(" in solved[answer_ids[0]]
    raises, loops = (RAISES, LOOPS) if function else (RAISES_VALUE, LOOPS_VALUE)
    students = {"right": solved, "untouched": {}, "wrong": wrong,
                "raising": with_first(raises), "looping": with_first(loops)}
    for student, answers in students.items():
        nb = nbformat.read(course / "release" / stem / name, as_version=4)
        for cell in _graded(nb, "solution"):
            cell.source = answers.get(cell.metadata.nbgrader.grade_id, cell.source)
        folder = course / "submitted" / student / stem
        folder.mkdir(parents=True)
        nbformat.write(nb, folder / name)
    return students


# make test-all's (CI): five submissions, each executing the whole lesson in a fresh kernel,
# and a loop waiting out the time limit (25-50 s a class).
@pytest.mark.slow
@pytest.mark.parametrize("lang,stem", CLASSES)
def test_nbgrader_autogrades_a_class_of_five(tmp_path, lang, stem):
    pytest.importorskip("nbgrader")
    from nbgrader.api import Gradebook

    from qkv_helpers.lang import STRINGS

    found = assignments.write_course(tmp_path, lang, [stem], points=2)
    exercises = found[stem]
    course = tmp_path / lang
    name = f"{stem}.ipynb"
    done = assignments.nbgrader(course, "generate_assignment", stem, "--force",
                                check=False)
    assert done.returncode == 0, done.stdout + done.stderr
    source = nbformat.read(course / "source" / stem / name, as_version=4)
    release = nbformat.read(course / "release" / stem / name, as_version=4)
    for cell in _graded(release, "solution"):  # the release hides the solutions
        solution = next(c for c in _graded(source, "solution")
                        if c.metadata.nbgrader.grade_id == cell.metadata.nbgrader.grade_id)
        assert cell.source != solution.source and assignments.STUB[lang] in cell.source
    assert len(_graded(release, "grade")) == len(exercises)

    simulated_class(course, stem, exercises)
    start = time.perf_counter()
    done = assignments.nbgrader(course, "autograde", stem, "--force", check=False)
    seconds = time.perf_counter() - start
    log = done.stdout + done.stderr
    assert done.returncode == 0, log
    assert "not a recognised" not in log and "not recognized" not in log, log
    print(f"\nautograde, five submissions of {stem} ({lang}): {seconds:.1f} s")

    points = 2
    total = points * len(exercises)
    first, last = exercises[0].grade_id, exercises[-1].grade_id
    with Gradebook(f"sqlite:///{course / 'gradebook.db'}") as gradebook:
        def score(student, grade_id=None):
            if grade_id is None:
                submission = gradebook.find_submission(stem, student)
                assert submission.max_score == total
                return submission.score
            return gradebook.find_grade(grade_id, stem, stem, student).score

        assert score("right") == total
        assert score("untouched") == 0
        assert score("wrong") == total - points and score("wrong", last) == 0
        for student in ("raising", "looping"):  # the other answers still count
            assert score(student) == total - points and score(student, first) == 0

    graded = nbformat.read(course / "autograded" / "looping" / stem / name,
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
    done = assignments.nbgrader(course, "generate_feedback", stem, "--force",
                                check=False)
    assert done.returncode == 0, done.stdout + done.stderr
    page = (course / "feedback" / "looping" / stem / f"{stem}.html").read_text(
        encoding="utf-8")
    if (course / "feedback_template" / assignments.FEEDBACK_NAME / "tex-svg.js").exists():
        assert "MathJax" in page and "cdnjs" not in page
    assert not re.search(r"<script[^>]+src=", page)
    text = assignments.FEEDBACK_TEXT[lang]
    assert f"{text['test_cell']}</a>" in page and f"{text['score']}: 0.0 / 2.0" in page
    assert expected in page
    if lang == "ko":
        assert "Student's answer" not in page and "Score:" not in page
    # Each widget shows what it showed when graded (its picture, its caption and controls),
    # under a line in the course's language, instead of an empty box.
    import copy
    import html

    import feedback_page

    snapshots = copy.deepcopy(graded)
    assert feedback_page.replace_widgets(snapshots, text["widget"]) >= 1
    shown = [o.data["text/html"] for c in snapshots.cells for o in c.get("outputs", [])
             if "qkv-widget-snapshot" in o.get("data", {}).get("text/html", "")]
    pictures = [re.findall(r'<img src="data:image/png;base64,([^"]+)"', s) for s in shown]
    assert shown and all(len(p) == 1 for p in pictures)
    assert page.count('class="qkv-widget-snapshot"') == len(shown)
    assert all(p in page for (p,) in pictures) and feedback_page.WIDGET_VIEW not in page
    assert page.count(html.escape(text["widget"])) == len(shown)
    # The stopped cell: the course's message, without the kernel's KeyboardInterrupt.
    assert "KeyboardInterrupt" in _outputs_text(answer) and "KeyboardInterrupt" not in page
    assert html.escape(assignments.TIMEOUT_TEXT[lang].format(
        seconds=assignments.EXERCISE_SECONDS)) in page

    # The class report: per exercise who got it right and which mistakes, per student.
    import class_report

    report = class_report.read(course)
    assert report.students == ["looping", "raising", "right", "untouched", "wrong"]
    (listed,) = report.assignments.values()
    assert [(e.right, e.handed_in, e.unanswered) for e in listed] == [(2, 5, 1), (3, 5, 1)]
    first_mistakes, last_mistakes = CLASS_MISTAKES[stem]
    assert {m[0] for m in listed[0].mistakes} == first_mistakes
    assert {m[0] for m in listed[-1].mistakes} == last_mistakes
    assert sorted(s for students in listed[0].mistakes.values() for s in students) == [
        "looping", "raising"]
    status = {s: "".join(class_report.SYMBOL[report.status[s][e.grade_id]] for e in listed)
              for s in report.students}
    assert status == {"looping": "✘✔", "raising": "✘✔", "right": "✔✔", "untouched": "··",
                      "wrong": "✔✘"}
    for teacher in LANGS:  # the teacher's language, whatever the course's
        text = class_report.render(report, teacher)
        words = class_report.TEXT[teacher]
        assert words["exercise"].format(number=1, grade_id=exercises[0].grade_id, n=5,
                                        right=2, wrong=2, unanswered=1, missing=0) in text
        timeout = STRINGS[teacher]["grade_timeout"].format(
            seconds=assignments.EXERCISE_SECONDS)
        assert words["mistake"].format(count=1, text=timeout, students="looping") in text
        assert "my mistake" in text and "…" not in text  # the input and the error are shown
        assert text.count(words["unanswered"]) == 0  # counted, not listed as a mistake
        assert words["students"] in text
        print(text)


def test_graded_reports_a_missing_answer_instead_of_raising():
    from qkv_helpers.classroom.grading import graded
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
    (through_exchange,) = [p.name for p in (course / "submitted").iterdir()]  # the login name
    # The guide's path without the exchange, beside it: one notebook handed in by hand
    # (tools/grading.py hand-in), and one folder holding a file that is not a notebook.
    handed_in = tmp_path / "received.ipynb"
    shutil.copyfile(fetched, handed_in)
    import grading

    grading.hand_in(course, "handed", handed_in, AUTOGRADED)
    assert (course / "submitted" / "handed" / AUTOGRADED / "timestamp.txt").exists()
    broken = course / "submitted" / "broken" / AUTOGRADED
    broken.mkdir(parents=True)
    (broken / f"{AUTOGRADED}.ipynb").write_text("not a notebook")

    def step(*args) -> str:
        """tools/grading.py, as the guide runs it in the course folder."""
        done = subprocess.run([sys.executable, str(ROOT / "tools" / "grading.py"), *args],
                              cwd=course, env=teacher, capture_output=True, text=True)
        assert done.returncode == 0, done.stdout + done.stderr
        return done.stdout

    graded = step("autograde", AUTOGRADED)
    assert "skipped broken (submitted/broken/04_softmax): 04_softmax.ipynb is not a notebook" \
        in graded
    assert graded.split("$")[0].count("skipped") == 1  # the hand-in and the exchange's: graded
    with Gradebook(f"sqlite:///{course / 'gradebook.db'}") as gradebook:
        scores = {s.student.id: (s.score, s.max_score, s.timestamp)
                  for s in gradebook.find_assignment(AUTOGRADED).submissions}
    assert {s: score[:2] for s, score in scores.items()} == {
        through_exchange: (len(exercises), len(exercises)),
        "handed": (len(exercises), len(exercises))}
    assert scores["handed"][2] is not None  # the hand-in time reached the gradebook
    step("generate_feedback", AUTOGRADED)
    released = step("release_feedback", AUTOGRADED)  # nbgrader alone: FileNotFoundError
    page = f"feedback/handed/{AUTOGRADED}/{AUTOGRADED}.html"
    assert (f"skipped handed (feedback/handed/{AUTOGRADED}): no submission_secret.txt" in released
            and f"give this student {page} yourself" in released), released
    assert (course / page).exists()
    run(student, home, "fetch_feedback", AUTOGRADED, "--course", assignments.COURSE_TITLE["ko"])
    (feedback,) = (home / AUTOGRADED / "feedback").glob(f"*/{AUTOGRADED}.html")
    assert assignments.FEEDBACK_TEXT["ko"]["test_cell"] in feedback.read_text(encoding="utf-8")


# --- widgets on the feedback pages -------------------------------------------------------------

def _saved(models: dict) -> dict:
    """A notebook's widget metadata as nbclient saves it: model id -> (name, state[, png])."""
    state = {}
    for model_id, (name, values, *png) in models.items():
        entry = {"model_name": name, "model_module": "@jupyter-widgets/controls",
                 "model_module_version": "2.0.0", "state": values}
        if png:
            entry["buffers"] = [{"data": png[0], "encoding": "base64", "path": ["value"]}]
        state[model_id] = entry
    return {"widgets": {"application/vnd.jupyter.widget-state+json": {
        "state": state, "version_major": 2, "version_minor": 0}}}


def test_a_widget_becomes_what_it_showed_on_the_feedback_page():
    import feedback_page

    ref = "IPY_MODEL_{}".format
    nb = nbformat.v4.new_notebook(metadata=_saved({
        "panel": ("VBoxModel", {"children": [ref("controls"), ref("picture"), ref("caption"),
                                              ref("secret")]}),
        "controls": ("HBoxModel", {"children": [ref("next"), ref("slider"), ref("menu"),
                                                "IPY_MODEL_gone"]}),
        "next": ("ButtonModel", {"description": "next token ▶"}),
        "slider": ("FloatSliderModel", {"description": "temperature", "value": 0.5}),
        "menu": ("DropdownModel", {"description": "head", "index": 1,
                                   "_options_labels": ["head 0", "head 1 <b>"]}),
        "picture": ("ImageModel", {"format": "png", "layout": ref("wide")}, "iVBORw0KGgo="),
        "wide": ("LayoutModel", {"width": "512px"}),
        "caption": ("HTMLModel", {"value": "Cache: <b>3</b> tokens"}),
        "secret": ("LabelModel", {"value": "hidden text", "layout": ref("none")}),
        "none": ("LayoutModel", {"display": "none"}),
    }))
    view = {"model_id": "panel", "version_major": 2, "version_minor": 0}
    nb.cells = [
        nbformat.v4.new_code_cell("qk.widgets.kv_cache_stepper()", outputs=[
            nbformat.v4.new_output("display_data", data={
                feedback_page.WIDGET_VIEW: view, "text/plain": "<Panel: kv_cache_stepper>"})]),
        nbformat.v4.new_code_cell("unsaved()", outputs=[nbformat.v4.new_output(
            "display_data", data={feedback_page.WIDGET_VIEW: {"model_id": "lost"}})]),
        nbformat.v4.new_code_cell("1", outputs=[nbformat.v4.new_output(
            "execute_result", data={"text/plain": "1"}, execution_count=1)]),
    ]
    assert feedback_page.replace_widgets(nb, "Moves in <JupyterLab>") == 2
    first, lost = (c.outputs[0].data for c in nb.cells[:2])
    assert set(first) == {"text/html", "text/plain"} and set(lost) == {"text/html"}
    page = first["text/html"]
    assert page.index("Moves in &lt;JupyterLab&gt;") < page.index("next token ▶")
    assert page.index("next token ▶") < page.index("temperature <b>0.5</b>")
    assert "head <b>head 1 &lt;b&gt;</b>" in page  # the label chosen, as text
    assert '<img src="data:image/png;base64,iVBORw0KGgo="' in page and "width:512px" in page
    assert page.index("<img") < page.index("Cache: <b>3</b> tokens")  # HTML stays HTML
    assert "hidden text" not in page and "IPY_MODEL" not in page
    assert "Moves in &lt;JupyterLab&gt;" in lost["text/html"] and "<img" not in lost["text/html"]
    assert nb.cells[2].outputs[0].data == {"text/plain": "1"}


def test_an_output_widget_shows_its_outputs_and_a_loop_of_children_ends():
    import feedback_page

    states = _saved({
        "out": ("OutputModel", {"outputs": [
            {"output_type": "stream", "name": "stdout", "text": "a < b\n"},
            {"output_type": "display_data", "data": {"image/png": "AAAA", "text/plain": "F"}},
            {"output_type": "error", "ename": "ValueError", "evalue": "bad", "traceback": []}]}),
        "box": ("VBoxModel", {"children": ["IPY_MODEL_box", "IPY_MODEL_out"]}),
    })["widgets"]["application/vnd.jupyter.widget-state+json"]["state"]
    page = feedback_page.snapshot(states, "box", "note")
    assert "<pre>a &lt; b\n</pre>" in page and 'src="data:image/png;base64,AAAA"' in page
    assert "ValueError: bad" in page and page.count("AAAA") == 1


def test_every_lesson_is_released_by_one_nbgrader_call_and_some_by_one_each(tmp_path):
    for stem in ("03_scaling", "04_softmax", "09_kv_cache"):
        (tmp_path / "source" / stem).mkdir(parents=True)
    (tmp_path / "source" / "my_quiz").mkdir()  # a teacher's own: never matched
    every = ["03_scaling", "04_softmax", "09_kv_cache"]
    assert assignments.release_patterns(tmp_path, every) == [assignments.LESSON_PATTERN]
    import fnmatch
    assert fnmatch.filter(["my_quiz", *every], assignments.LESSON_PATTERN) == every
    assert assignments.release_patterns(tmp_path, every[:2]) == every[:2]
    assert assignments.release_patterns(tmp_path, ["04_softmax"]) == ["04_softmax"]


def test_make_assignments_writes_every_lesson_with_exercises_lesson_09_too(tmp_path):
    """What make assignments writes (without nbgrader's release): a folder per lesson that
    has exercises, with an answer and a test cell per exercise (lesson 09: two)."""
    assert assignments.main(["--out", str(tmp_path), "--no-release"]) == 0
    with_exercises = [s for s in STEMS
                      if any("exercise" in c.tags for c in assignments.load(s).cells)]
    assert "09_kv_cache" in with_exercises
    for lang in LANGS:
        written = sorted(p.name for p in (tmp_path / lang / "source").iterdir())
        assert written == with_exercises
        nb = nbformat.read(tmp_path / lang / "source" / "09_kv_cache" / "09_kv_cache.ipynb",
                           as_version=4)
        assert len(_graded(nb, "grade")) == len(_graded(nb, "solution")) == 2


def test_a_stopped_cell_keeps_the_courses_message_and_loses_the_keyboardinterrupt():
    import feedback_page

    def error(ename, text):
        return nbformat.v4.new_output("error", ename=ename, evalue="", traceback=[text])

    stopped = nbformat.v4.new_code_cell("while True: pass", outputs=[
        nbformat.v4.new_output("stream", name="stdout", text="started\n"),
        error("KeyboardInterrupt", "KeyboardInterrupt"), error("TimeoutError", "⏱ 5 s")])
    own = nbformat.v4.new_code_cell("raise KeyboardInterrupt", outputs=[
        error("KeyboardInterrupt", "KeyboardInterrupt")])
    nb = nbformat.v4.new_notebook(cells=[stopped, own])
    assert feedback_page.drop_interrupts(nb) == 1
    assert [o.get("ename", o.output_type) for o in stopped.outputs] == ["stream", "TimeoutError"]
    assert own.outputs[0].ename == "KeyboardInterrupt"  # not stopped by the autograder: kept
