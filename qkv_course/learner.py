"""The learner's own copy of the lessons, kept across updates of the course.

The learner works in a folder of their own (``DIR/ko/*.ipynb``, ``DIR/en/*.ipynb``), never
in the course's files. :func:`sync` copies the course's notebooks there and, on every later
run, brings in an update without losing anything typed:

- a lesson the learner does not have yet is copied (a new lesson appears);
- a lesson the learner has not changed since it was copied is replaced by the new version;
- a lesson the learner changed stays as it is; when the course's version of it changed, the
  new version is written beside it as ``NN_stem_update_<hash>.ipynb``, whose first cell says
  (in the lesson's language) what happened.

What was copied is remembered in ``DIR/.qkv-course.json`` (a SHA-256 of each file): a file
whose hash is still the copied one is unedited. A notebook that JupyterLab saved without a
change may count as edited: then the update arrives beside it, which loses nothing.
"""

from __future__ import annotations

import hashlib
import json
import shutil
from dataclasses import dataclass, field
from pathlib import Path

MANIFEST = ".qkv-course.json"
LANGS = ("ko", "en")

NOTE = {
    "ko": ("**코스 업데이트**: 코스를 업데이트하면서 이 레슨의 새 버전이 나왔어요. "
           "내가 고친 `{mine}`는 그대로 두고, 새 버전을 이 노트북(`{new}`)으로 옆에 받아 두었어요. "
           "내가 쓴 답과 메모는 `{mine}`에 그대로 있어요. 필요한 부분을 골라서 옮겨 쓰세요."),
    "en": ("**Course update**: the course was updated and this lesson has a new version. "
           "Your edited `{mine}` was left as it is; the new version was saved beside it as "
           "this notebook (`{new}`). Your answers and notes are still in `{mine}`: copy over "
           "what you need."),
}


@dataclass
class Report:
    """What :func:`sync` did, each a list of paths relative to the learner's folder."""

    copied: list[str] = field(default_factory=list)  # new to the learner
    refreshed: list[str] = field(default_factory=list)  # unedited, replaced by the new version
    beside: list[str] = field(default_factory=list)  # edited: the new version written beside
    kept: list[str] = field(default_factory=list)  # edited, the course's version unchanged


def digest(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def course_files(source: Path) -> list[str]:
    """The lessons under ``source`` (``ko/*.ipynb``, ``en/*.ipynb``), as relative paths."""
    return sorted(p.relative_to(source).as_posix() for lang in LANGS
                  for p in (source / lang).glob("*.ipynb"))


def sync(source: Path, dest: Path) -> Report:
    """Copy or update the lessons from ``source`` (the course) into ``dest`` (the learner's)."""
    source, dest = Path(source), Path(dest)
    files = course_files(source)
    if not files:
        raise FileNotFoundError(f"no lessons (ko/*.ipynb, en/*.ipynb) under {source}")
    manifest_path = dest / MANIFEST
    manifest = json.loads(manifest_path.read_text(encoding="utf-8")) if manifest_path.exists() \
        else {}
    report = Report()
    for rel in files:
        new, target = source / rel, dest / rel
        new_hash = digest(new)
        entry = manifest.get(rel, {})  # base: the copied version; latest: the newest offered
        if not target.exists():
            report.copied.append(rel)
        elif digest(target) == new_hash:
            manifest[rel] = {"base": new_hash, "latest": new_hash}
            continue
        elif digest(target) == entry.get("base"):
            report.refreshed.append(rel)
        else:  # the learner's edit (or a file of theirs with this name): never overwritten
            if new_hash != entry.get("latest"):
                report.beside.append(_write_beside(new, target, new_hash))
                entry = {"base": entry.get("base"), "latest": new_hash}
            else:
                report.kept.append(rel)
            manifest[rel] = entry
            continue
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(new, target)
        manifest[rel] = {"base": new_hash, "latest": new_hash}
    dest.mkdir(parents=True, exist_ok=True)
    manifest_path.write_text(json.dumps(manifest, indent=1, sort_keys=True) + "\n",
                             encoding="utf-8")
    return report


def _write_beside(new: Path, target: Path, new_hash: str) -> str:
    """The new version next to the learner's, with a first cell saying what happened."""
    lang = target.parent.name if target.parent.name in LANGS else "en"
    beside = target.with_name(f"{target.stem}_update_{new_hash[:8]}.ipynb")
    nb = json.loads(new.read_text(encoding="utf-8"))
    note = NOTE[lang].format(mine=target.name, new=beside.name)
    nb["cells"].insert(0, {"cell_type": "markdown", "id": "course-update-note",
                           "metadata": {}, "source": note})
    beside.write_text(json.dumps(nb, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
    return beside.relative_to(target.parent.parent).as_posix()
