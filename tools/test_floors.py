"""The course at the oldest versions it declares, on another CPU's kernel (make test-floors, CI).

    python course.py test-floors          (make test-floors)

pyproject.toml promises, for instance, numpy >= 2.0: this checks the promise. It installs the
lowest version of every dependency pyproject.toml declares (uv's ``lowest-direct``
resolution, from PyPI) into ``.venv-floors`` — the same install steps as course.py's
INSTALL — and runs course.py's TESTS there (the unit tests, the doctests and every notebook
under strict nbval) with OpenBLAS's Prescott kernel, an older CPU's, which sums in another
order than this machine's: a printed number that depends on the CPU fails here too.
A failure means a floor in pyproject.toml is too low, or an output depends on the machine.
The install is skipped when .venv-floors is newer than pyproject.toml.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

import course  # noqa: E402

FLOORS = ROOT / ".venv-floors"
STAMP = FLOORS / ".installed"
KERNEL = "Prescott"


def floors_python() -> Path:
    return FLOORS / ("Scripts/python.exe" if os.name == "nt" else "bin/python")


def run(args: list, **env: str) -> None:
    print("$", " ".join(str(a) for a in args), flush=True)
    subprocess.run([str(a) for a in args], cwd=ROOT, env=dict(os.environ, **env), check=True)


def install() -> None:
    """.venv-floors with the lowest declared versions: course.INSTALL's steps, by uv."""
    pyproject = ROOT / "pyproject.toml"
    if STAMP.exists() and STAMP.stat().st_mtime >= pyproject.stat().st_mtime:
        return
    run([sys.executable, "-m", "pip", "install", "--quiet", "uv"])
    uv = [sys.executable, "-m", "uv"]
    run([*uv, "venv", "--quiet", "--clear", "--python", sys.executable, FLOORS])
    # pip itself, at its newest: the wheel test builds the course with it (uv's venvs have none)
    run([*uv, "pip", "install", "--python", floors_python(), "--quiet", "pip"])
    for step in course.INSTALL:
        if step[:3] == ["-m", "pip", "install"]:
            packages = [a for a in step[3:] if a not in ("--upgrade", "pip")]
            if not [a for a in packages if not a.startswith("-")]:
                continue  # upgrading pip: done above
            # --python: `python -m uv` would otherwise install into the Python that runs it
            run([*uv, "pip", "install", "--python", floors_python(), "--resolution",
                 "lowest-direct", *packages])
        else:
            run([floors_python(), *step], MPLCONFIGDIR=str(FLOORS / "matplotlib"))
    STAMP.touch()


def main() -> int:
    install()
    env = dict(course.THREADS, OPENBLAS_CORETYPE=KERNEL, MPLCONFIGDIR=str(FLOORS / "matplotlib"))
    for args, extra in course.TESTS:
        try:
            run([floors_python(), "-m", "pytest", *args, *sys.argv[1:]], **env, **extra)
        except subprocess.CalledProcessError as error:
            return error.returncode
    return 0


if __name__ == "__main__":
    sys.exit(main())
