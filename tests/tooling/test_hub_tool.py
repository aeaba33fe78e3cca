"""The class-on-a-hub test's own pieces (tools/hub_test.py); the run itself is make hub-test."""

from __future__ import annotations

import re
import sys
import urllib.parse
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "tools"))

hub_test = pytest.importorskip("hub_test")


@pytest.fixture
def hub(tmp_path):
    return hub_test.Hub(tmp_path, "ko", tmp_path / "hub.log")


def test_everything_listens_on_127_0_0_1_only(hub, tmp_path):
    config = (tmp_path / "jupyterhub_config.py").read_text(encoding="utf-8")
    urls = re.findall(r"https?://([^:/\"]+)", config)
    assert urls and set(urls) == {"127.0.0.1"}
    assert 'c.Spawner.ip = "127.0.0.1"' in config


def test_the_password_is_random_and_never_written(hub, tmp_path):
    (tmp_path / "other").mkdir()
    other = hub_test.Hub(tmp_path / "other", "ko", tmp_path / "other.log")
    assert len(hub.password) >= 20 and hub.password != other.password
    for path in tmp_path.rglob("*"):
        if path.is_file():
            assert hub.password not in path.read_text(encoding="utf-8", errors="replace")
    assert "QKV_HUB_TEST_PASSWORD" in (tmp_path / "jupyterhub_config.py").read_text()


def test_the_lab_opens_in_the_lessons_language(hub, tmp_path):
    config = (tmp_path / "jupyterhub_config.py").read_text(encoding="utf-8")
    assert f"--LabApp.app_settings_dir={hub_test.LAB_UI / 'ko'}" in config
    assert (hub_test.LAB_UI / "ko" / "overrides.json").exists()


def test_the_nbgitpuller_link(hub, tmp_path):
    link = hub_test.puller_link(hub, tmp_path / "course.git", "ko", "03_scaling")
    url = urllib.parse.urlsplit(link)
    assert url.netloc == f"127.0.0.1:{hub.port}"
    assert url.path == "/hub/user-redirect/git-pull"
    query = dict(urllib.parse.parse_qsl(url.query))
    assert query == {"repo": (tmp_path / "course.git").as_uri(), "branch": "main",
                     "targetpath": "course",
                     "urlpath": "lab/tree/course/notebooks/ko/03_scaling.ipynb"}


def test_cpu_between_counts_new_processes_in_full_and_ignores_gone_ones():
    before = {(1, 0.0): 2.0, (2, 0.0): 5.0}
    after = {(1, 0.0): 3.5, (3, 9.0): 1.25}  # 2 ended, 3 is new
    assert hub_test.cpu_between(before, after) == pytest.approx(1.5 + 1.25)
    # a reused pid with another start time is another process
    assert hub_test.cpu_between({(1, 0.0): 2.0}, {(1, 7.0): 0.5}) == pytest.approx(0.5)


@pytest.mark.skipif(not (ROOT / ".git").exists(), reason="not a git checkout")
def test_the_course_repository_is_this_clones_head(tmp_path):
    import subprocess

    repo = hub_test.course_repo(tmp_path)
    head = subprocess.run(["git", "-C", str(ROOT), "rev-parse", "HEAD"], check=True,
                          capture_output=True, text=True).stdout.strip()
    main = subprocess.run(["git", "-C", str(repo), "rev-parse", "main"], check=True,
                          capture_output=True, text=True).stdout.strip()
    assert main == head
