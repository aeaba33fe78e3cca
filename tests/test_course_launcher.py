"""course.py, the course's commands without make (python course.py lab|test|setup)."""

from __future__ import annotations

import re
import shlex
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
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


def test_the_install_steps_are_the_makefiles():
    recipe = [line.replace("$(PY) ", "") for line in _makefile_recipe("$(STAMP)")
              if line.startswith("$(PY) ")]
    assert [shlex.split(line, comments=True) for line in recipe] == course.INSTALL


def test_the_test_commands_are_make_tests():
    """make test and python course.py test run the same pytest arguments (keep in step)."""
    nbval = re.search(r"^NBVAL\s*:=\s*(.*)$", (ROOT / "Makefile").read_text(), re.M).group(1)
    made = []
    for line in _makefile_recipe("test"):
        jobs = re.search(r"^TEST_JOBS\s*\?=\s*(\S+)", (ROOT / "Makefile").read_text(), re.M)
        args = (line.split("-m pytest", 1)[1].replace("$(NBVAL)", nbval)
                .replace("$(TEST_JOBS)", jobs.group(1)))
        made.append(shlex.split(args))
    assert made == [args for args, _env in course.TESTS]


def test_the_virtual_environment_is_where_make_puts_it():
    assert course.STAMP == ROOT / ".venv" / ".installed"
    assert course.venv_python().parent.parent == ROOT / ".venv"
