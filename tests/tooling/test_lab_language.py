"""make lab's interface language: the lessons' language (Korean unless the locale is English),
or LANG_UI=ko|en.

The Korean menus themselves are checked in a browser by make test-ui (tools/ui_test.py), with
the same settings folder this test finds on make lab's command line.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
LAB_UI = ROOT / "tools" / "lab_ui"

pytestmark = pytest.mark.skipif(shutil.which("make") is None, reason="needs make")


def _env(**env_overrides) -> dict:
    env = {k: v for k, v in os.environ.items()
           if k not in ("LANG", "LC_ALL", "LC_MESSAGES", "LANG_UI", "COURSE_LANG",
                        "MAKELEVEL", "MAKEFLAGS", "MFLAGS")}
    env.update(env_overrides)
    return env


def lab_command(**env_overrides) -> str:
    """The JupyterLab command make lab starts in this environment: make lab is
    ``python3 course.py lab --lang .. --ui ..`` (the Makefile reads the locale); course.py's lab
    runs qkv_course (the learner's copy of the lessons, then JupyterLab), whose --dry-run
    prints the JupyterLab command; course.THREADS is in its environment."""
    import course

    out = subprocess.run(["make", "-n", "-s", "--no-print-directory", "-W", "pyproject.toml",
                          "lab"], cwd=ROOT, env=_env(**env_overrides), check=True,
                         capture_output=True, text=True).stdout
    line = next(x for x in out.splitlines() if "course.py lab" in x).split()
    lang, ui = line[line.index("--lang") + 1], line[line.index("--ui") + 1]
    started = []
    real_run = course.run
    course.run = lambda args, **extra: started.append((args, extra)) or 0
    try:
        course.lab(lang, ui, [])
    finally:
        course.run = real_run
    (args, extra), = started
    words = [str(a) for a in args]
    command = [sys.executable, *words[words.index("-m"):], "--dry-run"]
    printed = subprocess.run(command, cwd=ROOT, env=course.environment(**extra), check=True,
                             capture_output=True, text=True).stdout
    threads = [f"{name}={value}" for name, value in course.environment(**extra).items()
               if name in course.THREADS]
    return " ".join([*threads, printed])


@pytest.mark.parametrize(("env", "lang"), [
    ({"LANG": "ko_KR.UTF-8"}, "ko"),
    ({"LANG": "en_US.UTF-8", "LC_ALL": "ko_KR.UTF-8"}, "ko"),
    ({"LANG": "ko_KR.UTF-8", "LC_ALL": "C.UTF-8"}, "ko"),
    ({"LANG": "en_GB.UTF-8"}, "en"),
    ({}, "ko"),
    ({"LANG": "ko_KR.UTF-8", "COURSE_LANG": "en"}, "en"),
    ({"LANG": "en_US.UTF-8", "LANG_UI": "ko"}, "ko"),
    ({"LANG": "ko_KR.UTF-8", "LANG_UI": "en"}, "en"),
])
def test_make_lab_chooses_the_interface_language(env, lang):
    command = lab_command(**env)
    assert f"--LabApp.app_settings_dir={LAB_UI / lang}" in command
    assert "--ServerApp.ip=127.0.0.1" in command


@pytest.mark.parametrize(("lang", "locale"), [("ko", "ko_KR"), ("en", "en")])
def test_the_settings_set_the_language_and_hide_nbgrader(lang, locale):
    overrides = json.loads((LAB_UI / lang / "overrides.json").read_text(encoding="utf-8"))
    assert overrides["@jupyterlab/translation-extension:plugin"] == {"locale": locale}
    # JupyterLab 4 asks its news question while fetchNews is unset
    assert overrides["@jupyterlab/apputils-extension:notification"]["fetchNews"] == "false"
    page = json.loads((LAB_UI / lang / "page_config.json").read_text(encoding="utf-8"))
    assert page["disabledExtensions"] == {"@jupyter/nbgrader": True}


@pytest.mark.parametrize("lang", ["ko", "en"])
def test_run_all_before_the_kernel_is_ready_waits_for_it(lang):
    """Run All pressed while the kernel starts: JupyterLab 4.6 alone asks "Select Kernel" once
    per code cell and wipes their outputs (or, with enableKernelInitNotification, says "still
    initializing" in English and runs nothing). make lab's JupyterLab loads the course's
    extension (tools/lab_ext), whose cell executor waits for the kernel, in place of
    JupyterLab's own; tools/ui_test.py presses Run All at once on every lesson."""
    from jupyterlab_server.config import get_page_config
    from traitlets.config.loader import PyFileConfigLoader

    config = PyFileConfigLoader("jupyter_lab_config.py", path=str(ROOT / "tools")).load_config()
    paths = list(config.LabApp.extra_labextensions_path)
    assert paths == [str(ROOT / "tools" / "lab_ext")]
    assert f"--config={ROOT / 'tools' / 'jupyter_lab_config.py'}" in lab_command(LANG_UI=lang)
    page = get_page_config(paths, app_settings_dir=str(LAB_UI / lang))
    assert "qkv-course-lab" in [e["name"] for e in page["federated_extensions"]]
    assert "@jupyterlab/notebook-extension:cell-executor" in page["disabledExtensions"]
    assert "@jupyter/nbgrader" in page["disabledExtensions"]
    # the notice would stop Run All before the cells reach the extension's executor
    overrides = json.loads((LAB_UI / lang / "overrides.json").read_text(encoding="utf-8"))
    tracker = overrides.get("@jupyterlab/notebook-extension:tracker", {})
    assert not tracker.get("enableKernelInitNotification", False)


def test_a_non_editable_install_puts_the_extension_where_jupyterlab_looks():
    """A hub's users' environment installs the course with pip (not editable) and runs no
    jupyter_lab_config.py: pyproject.toml's data-files put every file of the extension in
    <environment>/share/jupyter/labextensions/qkv-course-lab/ (make hub-test checks the
    students' JupyterLab then lists it)."""
    try:
        import tomllib
    except ModuleNotFoundError:  # Python 3.10: tomllib is new in 3.11
        tomllib = pytest.importorskip("tomli")
    table = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    data_files = {folder: files for folder, files in table["tool"]["setuptools"]["data-files"]
                  .items() if folder.startswith("share/jupyter/")}
    listed = {f"{folder}/{Path(f).name}" for folder, files in data_files.items() for f in files}
    extension = ROOT / "tools" / "lab_ext" / "qkv-course-lab"
    wanted = {f"share/jupyter/labextensions/qkv-course-lab/{p.relative_to(extension).as_posix()}"
              for p in extension.rglob("*") if p.is_file()}
    assert listed == wanted
    sources = {f for files in data_files.values() for f in files}
    assert sources == {p.relative_to(ROOT).as_posix() for p in extension.rglob("*")
                       if p.is_file()}


def test_make_lab_runs_the_lessons_with_one_blas_thread_as_make_test_and_the_hub_do():
    """One BLAS thread, as make test and the hub: the lessons' timings are steadier (lesson
    14's training, in float64, prints the same numbers with any thread count)."""
    import course

    command = lab_command()  # course.py runs qkv_course with them (and it sets them again)
    for name, value in course.THREADS.items():
        assert f"{name}={value}" in command.split(), command
