"""One-off (issue 33): the proof that converting the lessons' sources changed no content.

    python tools/migrate/compare_cells.py [COMMIT]   # default: HEAD

For every notebook in notebooks/{ko,en}/ at COMMIT (as committed, built by the old format),
compares each cell's type, id, source and metadata (tags, slide type, hidden source) with
the cells tools/build_notebooks.py builds now from notebooks/src, for both languages. Exit
status 0 when every cell is identical.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "tools"))

import build_notebooks  # noqa: E402


def git(*args: str) -> str:
    return subprocess.run(["git", *args], cwd=ROOT, check=True, capture_output=True,
                          text=True).stdout


def cells(nb: dict) -> list[dict]:
    return [{"type": c["cell_type"], "id": c["id"], "metadata": c["metadata"],
             "source": c["source"] if isinstance(c["source"], str) else "".join(c["source"])}
            for c in nb["cells"]]


def main(argv=None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    commit = argv[0] if argv else "HEAD"
    committed = {}
    for lang in build_notebooks.LANGS:
        for name in git("ls-tree", "--name-only", f"{commit}:notebooks/{lang}").split():
            if name.endswith(".ipynb"):
                text = git("show", f"{commit}:notebooks/{lang}/{name}")
                committed[f"{lang}/{name[:-6]}"] = cells(json.loads(text))
    stems = sorted(p.stem for p in build_notebooks.SRC.glob("[0-9][0-9]_*.py"))
    built = {}
    for stem in stems:
        lesson = build_notebooks.load(stem)
        for lang in build_notebooks.LANGS:
            nb = json.loads(json.dumps(build_notebooks.to_notebook(lesson, lang)))
            built[f"{lang}/{stem}"] = cells(nb)
    differences = 0
    for name in sorted(set(committed) | set(built)):
        old, new = committed.get(name), built.get(name)
        if old is None or new is None:
            print(f"{name}: only {'built' if old is None else 'committed'}")
            differences += 1
            continue
        if len(old) != len(new):
            print(f"{name}: {len(old)} cells committed, {len(new)} built")
            differences += 1
        for a, b in zip(old, new):
            if a != b:
                print(f"{name} cell {a['id']}: differs in {[k for k in a if a[k] != b[k]]}")
                differences += 1
    n_cells = sum(map(len, committed.values()))
    print(f"{len(committed)} notebooks at {commit}, {n_cells} cells, against {len(built)} built: "
          + ("every cell identical (type, id, source, metadata)" if not differences
             else f"{differences} differences"))
    return 1 if differences else 0


if __name__ == "__main__":
    sys.exit(main())
