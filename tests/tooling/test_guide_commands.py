"""Every command the teacher guides give exists as written, and the cheap ones run.

The guides' commands are read from their code spans and code blocks: ``make <target>`` must be
a target of the Makefile, ``python course.py <command>`` a command of course.py (which the
Makefile calls: one list), ``python tools/<x>.py`` a file a fresh clone has (tracked by git),
and the cheap ones run here with the course's Python: each tool's ``--help``,
``python course.py lesson-time --check``, the class report on a folder that is no course.
"""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

import course  # noqa: E402

GUIDES = [ROOT / "docs" / "teacher-guide.ko.md", ROOT / "docs" / "teacher-guide.en.md"]


def _code(text: str) -> list[str]:
    """The code spans and the lines of the code blocks of a markdown text."""
    blocks = re.findall(r"^```[^\n]*\n(.*?)^```", text, re.M | re.S)
    spans = re.findall(r"`([^`\n]+)`", re.sub(r"^```.*?^```", "", text, flags=re.M | re.S))
    return spans + [line for block in blocks for line in block.splitlines()]


def commands(pattern: str) -> list[str]:
    found = []
    for guide in GUIDES:
        for code in _code(guide.read_text(encoding="utf-8")):
            found += re.findall(pattern, code)
    return sorted(set(found))


MAKE = commands(r"\bmake ([a-z][\w.-]*)")
COURSE_PY = commands(r"\b(?:python|py) course\.py ([a-z][\w-]*)")
TOOLS = commands(r"\bpython[\w/.]* (tools/\w+\.py)")


def make_targets() -> set[str]:
    makefile = (ROOT / "Makefile").read_text(encoding="utf-8")
    targets = set(re.findall(r"^([\w.-]+):", makefile, re.M))
    targets |= set(re.search(r"^TOOLS\s*:=\s*(.*)$", makefile, re.M).group(1).split())
    return targets


def test_the_guides_give_commands_of_each_kind():
    assert {"student", "assignments", "class-report", "hub-test"} <= set(MAKE)
    assert {"student", "assignments", "class-report", "clean", "lesson-time"} <= set(COURSE_PY)
    assert {"tools/grading.py", "tools/nbgrader_hub.py"} <= set(TOOLS)


@pytest.mark.parametrize("target", MAKE)
def test_every_make_command_of_the_guides_is_a_target(target):
    assert target in make_targets(), f"make {target}: no such target in the Makefile"


@pytest.mark.parametrize("name", COURSE_PY)
def test_every_course_py_command_of_the_guides_exists(name, monkeypatch):
    ran = []
    monkeypatch.setattr(course, "setup", lambda: None)
    monkeypatch.setattr(course, "run", lambda args, **extra: ran.append(args) or 0)
    monkeypatch.setattr(course, "clean", lambda: ran.append(["clean"]) or 0)
    monkeypatch.setattr(course, "lab", lambda *a: ran.append(["lab"]) or 0)
    assert course.main([name]) == 0 and ran, f"python course.py {name}: not a command"


def test_every_course_py_command_is_a_make_target_too():
    assert set(course.COMMANDS) | {"lab", "test", "test-all", "clean"} <= make_targets()


@pytest.mark.parametrize("tool", TOOLS)
def test_every_tool_of_the_guides_is_in_a_fresh_clone_and_answers_help(tool):
    tracked = subprocess.run(["git", "ls-files", "--error-unmatch", tool], cwd=ROOT,
                             capture_output=True, text=True)
    assert tracked.returncode == 0, f"{tool} is not committed: a fresh clone lacks it"
    done = subprocess.run([sys.executable, tool, "--help"], cwd=ROOT, capture_output=True,
                          text=True)
    assert done.returncode == 0 and "usage" in done.stdout, done.stderr


def test_lesson_time_runs_as_the_guide_writes_it():
    """`python course.py lesson-time` runs tools/lesson_time.py with the course's Python (the
    guide's former `python tools/lesson_time.py` failed with a Python lacking nbformat)."""
    assert "lesson-time" in COURSE_PY
    done = subprocess.run([sys.executable, str(ROOT / "course.py"), "lesson-time", "--check"],
                          cwd=ROOT, capture_output=True, text=True)
    assert done.returncode == 0, done.stdout + done.stderr
    assert "14_watch_attention_learn" in done.stdout


def test_the_class_report_says_what_to_do_when_it_finds_no_course(tmp_path):
    done = subprocess.run([sys.executable, str(ROOT / "tools" / "class_report.py"),
                           str(tmp_path)], capture_output=True, text=True)
    assert done.returncode == 1 and "no gradebook.db here" in done.stderr
