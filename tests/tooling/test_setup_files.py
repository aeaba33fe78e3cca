"""The course's set-up files: pyproject's licence, no placeholder links, `make lab`'s config."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from fnmatch import fnmatch
from pathlib import Path

import pytest

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover
    tomllib = pytest.importorskip("tomli")

ROOT = Path(__file__).resolve().parents[2]
PLACEHOLDERS = re.compile(r"OWNER/REPO|USER/REPO|YOUR[-_ ]?(USER|ORG|NAME)|example\.(com|org)"
                          r"|<this repository>/", re.IGNORECASE)
LINK = re.compile(r"\]\(([^)\s]+)\)")  # markdown [text](target)


def test_license_is_an_spdx_string():
    project = tomllib.loads((ROOT / "pyproject.toml").read_text("utf-8"))
    assert project["project"]["license"] == "MIT"  # PEP 639, not a {text = ...} table
    requires = project["build-system"]["requires"]
    assert any(re.fullmatch(r"setuptools>=(\d+)", r) and int(r.split(">=")[1]) >= 77
               for r in requires), requires  # the first setuptools that reads it


def _documents():
    return [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md")),
            *sorted((ROOT / "notebooks" / "src").glob("*.py"))]


@pytest.mark.parametrize("path", _documents(), ids=lambda p: p.name)
def test_no_placeholder_links(path):
    text = path.read_text("utf-8")
    for target in LINK.findall(text):
        assert not PLACEHOLDERS.search(target), f"{path.name}: placeholder link {target}"
        if "://" in target or target.startswith(("#", "mailto:")):
            continue
        if path.suffix == ".md":  # a relative link must lead to a file of the repository
            file = target.split("#")[0]
            assert (path.parent / file).exists(), f"{path.name}: {target} leads nowhere"
    assert "OWNER/REPO" not in text


def test_placeholder_pattern_finds_the_old_badge():
    old = "[![Binder](https://mybinder.org/badge_logo.svg)](https://mybinder.org/v2/gh/OWNER/REPO/HEAD)"
    assert any(PLACEHOLDERS.search(t) for t in LINK.findall(old))


def _lab_config():
    from traitlets.config.loader import PyFileConfigLoader

    return PyFileConfigLoader("jupyter_lab_config.py", path=str(ROOT / "tools")).load_config()


def test_lab_config_hides_the_sources_and_turns_off_the_news():
    config = _lab_config()
    assert config.LabApp.news_url is None
    assert config.LabApp.check_for_updates_class == "jupyterlab.NeverCheckForUpdate"
    # JupyterLab 4's news question is asked while the setting fetchNews is unset: the
    # settings folder make lab passes (tools/lab_ui/<lang>) answers it in both languages
    for lang in ("ko", "en"):
        overrides = ROOT / "tools" / "lab_ui" / lang / "overrides.json"
        notification = json.loads(overrides.read_text("utf-8"))[
            "@jupyterlab/apputils-extension:notification"]
        assert notification["fetchNews"] == "false"
    globs = config.ContentsManager.hide_globs
    hidden = [p.name for p in (ROOT / "notebooks").iterdir()
              if any(fnmatch(p.name, g) for g in globs)]
    assert hidden == ["src"]
    lessons = [p.name for p in (ROOT / "notebooks" / "ko").iterdir()]
    assert not [n for n in lessons if any(fnmatch(n, g) for g in globs)]


@pytest.mark.parametrize(("locale", "lang"), [("ko_KR.UTF-8", "ko"), ("C.UTF-8", "ko"),
                                              ("en_US.UTF-8", "en"), ("en_GB", "en")])
def test_make_lab_opens_the_first_lesson_in_the_learners_language(locale, lang, monkeypatch):
    env = {k: v for k, v in os.environ.items() if k not in ("LC_ALL", "COURSE_LANG")}
    env["LANG"] = locale
    try:
        out = subprocess.run(["make", "-n", "-W", "pyproject.toml", "lab"], cwd=ROOT, env=env,
                             capture_output=True, text=True, check=True).stdout
    except FileNotFoundError:  # pragma: no cover
        pytest.skip("make is not installed")
    # make lab is python course.py lab in the locale's language (the Makefile calls course.py)
    line = next(x for x in out.splitlines() if "course.py lab" in x)
    assert re.search(rf"--lang {lang}\b", line) and re.search(rf"--ui {lang}\b", line)
    sys.path.insert(0, str(ROOT))
    import course

    ran = []
    monkeypatch.setattr(course, "run", lambda args, **extra: ran.append(args) or 0)
    course.lab(lang, lang, [])
    (args,) = ran
    words = [str(a) for a in args]
    # course.py lab runs qkv_course on the learner's copy, my_lessons/
    assert words[words.index("lab") + 1:] == [str(ROOT / "my_lessons"), "--lang", lang,
                                               "--ui", lang]
    # the JupyterLab command qkv_course runs there (--dry-run: printed, nothing copied)
    command = [sys.executable, *words[words.index("-m"):], "--dry-run"]
    line = subprocess.run(command, cwd=ROOT, env=env, check=True, capture_output=True,
                          text=True).stdout
    assert f"--config={ROOT / 'tools' / 'jupyter_lab_config.py'}" in line
    assert f"--ServerApp.root_dir={ROOT / 'my_lessons'}" in line
    url = re.search(r"--LabApp\.default_url=/lab/tree/(\S+)", line).group(1)
    assert url == f"{lang}/00_start_here.ipynb"
    assert (ROOT / "notebooks" / url).exists()
