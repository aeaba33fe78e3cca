"""The parts of tools/ui_test.py (make test-ui) that need no browser.

The browser run itself is `make test-ui`; these check what it does before it starts one.
"""

from __future__ import annotations

import importlib.util
import os
import subprocess
import sys
from pathlib import Path

import pytest

TOOL = Path(__file__).resolve().parents[2] / "tools" / "ui_test.py"


@pytest.fixture(scope="module")
def ui():
    spec = importlib.util.spec_from_file_location("ui_test", TOOL)
    module = importlib.util.module_from_spec(spec)
    sys.modules["ui_test"] = module  # dataclasses look their module up while it loads
    try:
        spec.loader.exec_module(module)
        yield module
    finally:
        sys.modules.pop("ui_test", None)


def test_without_chromium_it_says_how_to_install_it_and_fails(tmp_path):
    env = dict(os.environ, CHROMIUM=str(tmp_path / "no-chromium"))
    result = subprocess.run(
        [sys.executable, str(TOOL), "--out", str(tmp_path / "out")],
        capture_output=True, text=True, env=env,
    )
    assert result.returncode != 0
    assert "apt-get install chromium" in result.stderr
    assert str(tmp_path / "no-chromium") in result.stderr
    assert not (tmp_path / "out").exists()  # stopped before doing anything


def test_an_empty_folder_fails(ui, tmp_path):
    if not Path(ui.CHROMIUM).exists():
        pytest.skip("the check for notebooks comes after the check for Chromium")
    assert ui.main(["--notebooks", str(tmp_path), "--out", str(tmp_path / "out")]) == 1


def test_notebooks_are_found_in_both_languages_without_checkpoints(ui, tmp_path):
    for relative in ["ko/00_a.ipynb", "en/00_a.ipynb", "en/.ipynb_checkpoints/00_a.ipynb",
                     "ko/notes.txt"]:
        path = tmp_path / relative
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text("{}", encoding="utf-8")
    found = [p.as_posix() for p in ui.find_notebooks(tmp_path, None)]
    assert found == ["en/00_a.ipynb", "ko/00_a.ipynb"]
    assert [p.as_posix() for p in ui.find_notebooks(tmp_path, "ko/")] == ["ko/00_a.ipynb"]


@pytest.mark.parametrize("relative, name", [
    ("ko/03_scaling.ipynb", "ko_03_scaling.png"),
    ("en/10_review.ipynb", "en_10_review.png"),
    ("demo.ipynb", "demo.png"),
])
def test_screenshot_names(ui, relative, name):
    assert ui.screenshot_name(Path(relative)) == name


def test_the_server_cannot_write_into_the_notebooks_and_shows_no_news(ui):
    settings = ui.LAB_SETTINGS
    assert settings["@jupyterlab/docmanager-extension/plugin.jupyterlab-settings"] == {
        "autosave": False
    }
    notification = settings["@jupyterlab/apputils-extension/notification.jupyterlab-settings"]
    assert notification["fetchNews"] == "false"
    assert {"--no-sandbox", "--disable-gpu", "--disable-quic"} <= set(ui.CHROMIUM_FLAGS)


def test_the_server_runs_in_temporary_folders(ui, tmp_path):
    server = ui.LabServer(tmp_path / "notebooks", tmp_path / "work", tmp_path / "lab.log")
    for name in ["JUPYTERLAB_SETTINGS_DIR", "JUPYTERLAB_WORKSPACES_DIR", "JUPYTER_RUNTIME_DIR"]:
        assert Path(server.env[name]).is_relative_to(tmp_path / "work")
    assert "MPLBACKEND" not in server.env  # the kernel must draw with the inline backend
    assert len(server.token) >= 32
    written = Path(server.env["JUPYTERLAB_SETTINGS_DIR"])
    assert (written / "@jupyterlab/docmanager-extension/plugin.jupyterlab-settings").is_file()
