"""nbgrader's grading steps for a class in which some submissions are odd: handed in by hand
(no exchange), or broken. Run it in the course folder, or give ``--course``.

    python tools/grading.py hand-in STUDENT NOTEBOOK 04_softmax   # a notebook you received
    python tools/grading.py autograde 04_softmax                  # nbgrader autograde
    python tools/grading.py generate_feedback 04_softmax          # nbgrader generate_feedback
    python tools/grading.py release_feedback 04_softmax           # nbgrader release_feedback

``hand-in`` places a notebook received outside nbgrader's exchange (the school's learning
platform, a USB stick, e-mail) where nbgrader looks for it,
``submitted/<student>/<lesson>/<lesson>.ipynb``, with the ``timestamp.txt`` that nbgrader's
``submit`` writes (the hand-in time: now, or ``--time``), so autograde records when it was
handed in (and a late penalty, if the course sets a due date).

The other three run the nbgrader command of that name for the lesson (or a pattern such as
``'[0-9][0-9]_*'``), after looking at every student's folder the step reads. A folder the step
cannot use is left out (``--CourseDirectory.student_id_exclude``) with a line naming it and why,
so one odd submission does not stop the class; the others are graded, get feedback, and have
it released. What each step needs:

- autograde: ``submitted/<student>/<lesson>/`` holds each notebook of the assignment, and
  each one reads as a notebook (a file that is not one is named);
- generate_feedback: ``autograded/<student>/<lesson>/`` holds each notebook (autograde ran);
- release_feedback: ``feedback/<student>/<lesson>/`` holds the page, ``timestamp.txt`` and
  ``submission_secret.txt``. The secret is written by ``nbgrader submit`` and known only to
  that student's JupyterLab: a notebook handed in by hand has none, so the exchange cannot
  deliver its page (nbgrader 0.9 stops for the whole class with ``FileNotFoundError``). The
  line names the page to give that student yourself.

Nothing but nbgrader (and nbformat, which it brings) is needed: run it with the Python that
has nbgrader (on a TLJH hub ``/opt/tljh/user/bin/python``). Any other argument goes to nbgrader
(``--force``, ``--Exchange.root=...``).
"""

from __future__ import annotations

import argparse
import datetime
import fnmatch
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

STEPS = {  # step -> (the folder it reads, the files each student's folder needs besides notebooks)
    "autograde": ("submitted", ()),
    "generate_feedback": ("autograded", ()),
    "release_feedback": ("feedback", ("timestamp.txt", "submission_secret.txt")),
}
TIMESTAMP_FORMAT = "%Y-%m-%d %H:%M:%S.%f %Z"  # nbgrader 0.9's Exchange.timestamp_format


def lessons(course: Path, pattern: str) -> list[str]:
    """The assignments of ``course/source/`` that ``pattern`` names (a name or a glob)."""
    return sorted(p.name for p in (course / "source").iterdir()
                  if p.is_dir() and fnmatch.fnmatchcase(p.name, pattern))


def notebooks(course: Path, lesson: str) -> list[str]:
    """The notebook names (without .ipynb) of one assignment."""
    return sorted(p.stem for p in (course / "source" / lesson).glob("*.ipynb"))


def _not_a_notebook(path: Path) -> str | None:
    """Why ``path`` is not a notebook nbgrader can read, or None."""
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, ValueError) as error:
        return f"{path.name} is not a notebook ({type(error).__name__}: {error})"
    if not isinstance(data, dict) or not isinstance(data.get("cells"), list):
        return f"{path.name} is not a notebook (no list of cells)"
    return None


def problems(course: Path, step: str, lesson: str) -> dict[str, str]:
    """student -> why their folder for ``lesson`` cannot go through ``step`` (only those)."""
    folder, files = STEPS[step]
    found = {}
    for student_dir in sorted((course / folder).glob(f"*/{lesson}")):
        if not student_dir.is_dir():
            continue
        student, reasons = student_dir.parent.name, []
        if step == "release_feedback":
            names = [f"{n}.html" for n in notebooks(course, lesson)]
        else:
            names = [f"{n}.ipynb" for n in notebooks(course, lesson)]
        for name in names:
            path = student_dir / name
            if not path.exists():
                reasons.append(f"no {name}")
            elif name.endswith(".ipynb") and (why := _not_a_notebook(path)):
                reasons.append(why)
        for name in files:
            if not (student_dir / name).exists():
                reasons.append(f"no {name}")
        if reasons:
            found[student] = "; ".join(reasons)
    return found


def skip_message(course: Path, step: str, lesson: str, student: str, why: str) -> str:
    folder = STEPS[step][0]
    where = Path(folder) / student / lesson
    text = f"skipped {student} ({where}): {why}"
    if step == "release_feedback" and "submission_secret.txt" in why and "html" not in why:
        pages = ", ".join(str(where / f"{n}.html") for n in notebooks(course, lesson))
        text += (" - handed in without the exchange, so the exchange cannot deliver it: "
                 f"give this student {pages} yourself")
    elif step == "autograde":
        text += " - put the right notebook there (python tools/grading.py hand-in) and run again"
    return text


def nbgrader(course: Path, *args: str) -> int:
    env = dict(os.environ)  # nbgrader runs its environment's `alembic`
    env["PATH"] = os.pathsep.join([str(Path(sys.executable).parent), env.get("PATH", "")])
    print("$ nbgrader", " ".join(args), flush=True)
    return subprocess.run([sys.executable, "-m", "nbgrader", *args], cwd=course,
                          env=env).returncode


def run_step(course: Path, step: str, pattern: str, extra: list[str]) -> int:
    """The nbgrader step for every lesson ``pattern`` names, each odd folder left out."""
    names = lessons(course, pattern)
    if not names:
        print(f"{course / 'source'}: no assignment named {pattern}", file=sys.stderr)
        return 1
    skipped = {lesson: problems(course, step, lesson) for lesson in names}
    for lesson, found in skipped.items():
        for student, why in found.items():
            print(skip_message(course, step, lesson, student, why), flush=True)
    if not any(skipped.values()):  # one nbgrader start for them all
        return nbgrader(course, step, pattern, *extra)
    code = 0
    for lesson in names:
        exclude = ",".join(sorted(skipped[lesson]))
        options = [f"--CourseDirectory.student_id_exclude={exclude}"] if exclude else []
        code = nbgrader(course, step, lesson, *options, *extra) or code
    return code


def hand_in(course: Path, student: str, notebook: Path, lesson: str,
            when: datetime.datetime | None = None) -> Path:
    """Place a notebook received by hand as nbgrader's collect would; its folder."""
    if not (course / "source" / lesson).is_dir():
        raise SystemExit(f"{course / 'source'}: no assignment {lesson}")
    names = notebooks(course, lesson)
    name = notebook.stem if notebook.stem in names else (names[0] if len(names) == 1 else None)
    if name is None:
        raise SystemExit(f"{notebook.name}: {lesson} has the notebooks {', '.join(names)}: "
                         "name the file after one of them")
    if (why := _not_a_notebook(notebook)) is not None:
        raise SystemExit(f"{student}: {why}")
    folder = course / "submitted" / student / lesson
    folder.mkdir(parents=True, exist_ok=True)
    shutil.copyfile(notebook, folder / f"{name}.ipynb")
    when = when or datetime.datetime.now(datetime.timezone.utc)
    (folder / "timestamp.txt").write_text(when.strftime(TIMESTAMP_FORMAT), encoding="utf-8")
    print(f"{folder / (name + '.ipynb')} (handed in {when.strftime(TIMESTAMP_FORMAT)})")
    return folder


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--course", type=Path, default=Path("."),
                        help="the course folder (default: this folder)")
    steps = parser.add_subparsers(dest="step", required=True)
    placed = steps.add_parser("hand-in", help="place a notebook received outside the exchange")
    placed.add_argument("student")
    placed.add_argument("notebook", type=Path)
    placed.add_argument("lesson")
    placed.add_argument("--time", type=datetime.datetime.fromisoformat,
                        help="when it was handed in, ISO 8601 (default: now)")
    placed.add_argument("--course", type=Path, default=argparse.SUPPRESS)
    for step in STEPS:
        sub = steps.add_parser(step, help=f"nbgrader {step}, leaving out odd submissions")
        sub.add_argument("lesson", help="an assignment name or a pattern ('[0-9][0-9]_*')")
        sub.add_argument("--course", type=Path, default=argparse.SUPPRESS)
    args, extra = parser.parse_known_args(argv)
    course = args.course.resolve()
    if not (course / "nbgrader_config.py").exists():
        parser.error(f"{course} is not a course folder (no nbgrader_config.py): cd into one, "
                     "or give --course")
    if args.step == "hand-in":
        if extra:
            parser.error(f"unrecognized arguments: {' '.join(extra)}")
        when = args.time
        if when is not None and when.tzinfo is None:
            when = when.astimezone()  # the computer's time zone
        hand_in(course, args.student, args.notebook, args.lesson,
                when.astimezone(datetime.timezone.utc) if when else None)
        return 0
    return run_step(course, args.step, args.lesson, extra)


if __name__ == "__main__":
    sys.exit(main())
