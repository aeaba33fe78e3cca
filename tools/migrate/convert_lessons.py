"""One-off (issue 33): convert notebooks/src/NN_stem.py from the old ``lesson.md(ko=, en=)`` /
``lesson.code(...)`` calls to the percent format tools/nbsource.py reads.

    python tools/migrate/convert_lessons.py [COMMIT]   # the sources at COMMIT (default HEAD)

Each old file is run with a recording ``Lesson`` (the old API's arguments, unprocessed). A
code cell given once stays once; a ko/en pair is written once with ``# ko:``/``# en:``
comments where only comments differ, and as a ``lang="ko"``/``lang="en"`` pair otherwise.
Every cell written is read back with nbsource and must give the old texts exactly, or the
cell is written as a pair; tools/migrate/compare_cells.py then compares whole notebooks.
"""

from __future__ import annotations

import difflib
import io
import json
import subprocess
import sys
import tokenize
import types
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "tools"))

import nbsource  # noqa: E402

SRC = ROOT / "notebooks" / "src"


class RecordingLesson:
    """The old API (nbsource.Lesson before issue 33), recording its arguments as given."""

    def __init__(self):
        self.cells = []

    def md(self, *, ko, en, slide=None):
        self.cells.append({"kind": "markdown", "ko": ko.strip("\n"), "en": en.strip("\n"),
                           "options": {"slide": slide}})

    def code(self, source=None, *, ko=None, en=None, solution=False, exercise=False,
             ignore_output=False, slide=None):
        if source is not None:
            assert ko is None and en is None
            ko = en = source
        self.cells.append({"kind": "code", "ko": ko.strip("\n"), "en": en.strip("\n"),
                           "options": {"slide": slide, "exercise": exercise,
                                       "solution": solution, "ignore_output": ignore_output}})


def old_lesson(commit: str, stem: str) -> list[dict]:
    text = subprocess.run(["git", "show", f"{commit}:notebooks/src/{stem}.py"], cwd=ROOT,
                          check=True, capture_output=True, text=True).stdout
    fake = types.ModuleType("nbsource")
    fake.Lesson = RecordingLesson
    saved = sys.modules.get("nbsource")
    sys.modules["nbsource"] = fake
    try:
        namespace = {}
        exec(compile(text, f"{stem}.py", "exec"), namespace)
    finally:
        sys.modules["nbsource"] = saved
    return namespace["lesson"].cells


def marker(markdown: bool, options: dict) -> str:
    words = ["# %%"] + (["[markdown]"] if markdown else [])
    for key in ("lang", "slide", "exercise", "solution", "ignore_output"):
        value = options.get(key)
        if value:
            words.append(f"{key}={json.dumps(value)}")
    return " ".join(words)


def markdown_lines(text: str) -> str:
    return "\n".join("#" if not line else f"# {line}" for line in text.split("\n"))


def split_line(line: str, comments: dict, number: int) -> tuple[str, str | None]:
    """(the code before the comment, the comment) of one line."""
    if number in comments:
        column = comments[number]
        return line[:column], line[column:]
    return line, None


def comment_columns(code: str) -> dict[int, int]:
    found = {}
    for token in tokenize.generate_tokens(io.StringIO(code).readline):
        if token.type == tokenize.COMMENT:
            found[token.start[0] - 1] = token.start[1]
    return found


def tag(comment: str, lang: str) -> str:
    body = comment[1:]
    space = " " if body.startswith(" ") else ""
    return f"#{space}{lang}: {body[len(space):]}"


def structure(code: str):
    """The code's lines as (code line, its comment or None, the comment-only lines after it);
    the comment-only lines before the first code line come first."""
    comments = comment_columns(code)
    head, rows = [], []
    for number, line in enumerate(code.split("\n")):
        before, comment = split_line(line, comments, number)
        if comment is not None and not before.strip():
            (rows[-1][2] if rows else head).append(line)
        else:
            rows.append((before, comment, []))
    return head, rows


def merge_comment_lines(ko: list[str], en: list[str]) -> list[str]:
    out = []
    matcher = difflib.SequenceMatcher(a=ko, b=en, autojunk=False)
    for op, a1, a2, b1, b2 in matcher.get_opcodes():
        if op == "equal":
            out += ko[a1:a2]
            continue
        for line in ko[a1:a2]:
            column = len(line) - len(line.lstrip())
            out.append(line[:column] + tag(line[column:], "ko"))
        for line in en[b1:b2]:
            column = len(line) - len(line.lstrip())
            out.append(line[:column] + tag(line[column:], "en"))
    return out


def merge_code(ko: str, en: str) -> str | None:
    """One text for both languages, differing in ko:/en: comments only; None if the code
    differs or the merge does not read back exactly."""
    if ko == en:
        return ko
    try:
        ko_head, ko_rows = structure(ko)
        en_head, en_rows = structure(en)
    except (tokenize.TokenError, SyntaxError):
        return None
    if [r[0].rstrip() for r in ko_rows] != [r[0].rstrip() for r in en_rows]:
        return None
    out = merge_comment_lines(ko_head, en_head)
    for (ko_code, ko_comment, ko_after), (en_code, en_comment, en_after) in zip(ko_rows,
                                                                                  en_rows):
        if ko_comment == en_comment and ko_code == en_code:
            out.append(ko_code + (ko_comment or ""))
        elif ko_comment is None and en_comment is None:
            return None  # differ in trailing spaces only
        elif en_comment is None:
            out.append(ko_code + tag(ko_comment, "ko"))
        elif ko_comment is None:
            out.append(en_code + tag(en_comment, "en"))
        else:
            out.append(ko_code + tag(ko_comment, "ko"))
            out.append(" " * len(en_code) + tag(en_comment, "en"))
        out += merge_comment_lines(ko_after, en_after)
    merged = "\n".join(out)
    try:
        back = {lang: nbsource.in_language(merged, lang) for lang in ("ko", "en")}
    except nbsource.SourceError:
        return None
    return merged if back == {"ko": ko, "en": en} else None


def convert(cells: list[dict], stem: str) -> tuple[str, dict]:
    counts = {"once": 0, "comments": 0, "pair": 0, "markdown": 0}
    parts = [f"# Lesson {stem[:2]}'s source: make notebooks LESSON={stem[:2]} builds "
             f"notebooks/{{ko,en}}/{stem}.ipynb.\n# The format: tools/nbsource.py."]
    for cell in cells:
        options = {k: v for k, v in cell["options"].items() if v}
        if cell["kind"] == "markdown":
            counts["markdown"] += 1
            parts.append(marker(True, {"lang": "ko", **options}) + "\n"
                         + markdown_lines(cell["ko"]))
            parts.append(marker(True, {"lang": "en"}) + "\n" + markdown_lines(cell["en"]))
            continue
        merged = merge_code(cell["ko"], cell["en"])
        if merged is not None:
            counts["once" if cell["ko"] == cell["en"] else "comments"] += 1
            parts.append(marker(False, options) + "\n" + merged)
        else:
            counts["pair"] += 1
            parts.append(marker(False, {"lang": "ko", **options}) + "\n" + cell["ko"])
            parts.append(marker(False, {"lang": "en"}) + "\n" + cell["en"])
    return "\n\n".join(parts) + "\n", counts


def main(argv=None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    commit = argv[0] if argv else "HEAD"
    listing = subprocess.run(["git", "ls-tree", "--name-only", f"{commit}:notebooks/src"],
                             cwd=ROOT, check=True, capture_output=True, text=True).stdout
    stems = sorted(Path(n).stem for n in listing.split() if n[:2].isdigit() and n.endswith(".py"))
    total = {}
    for stem in stems:
        text, counts = convert(old_lesson(commit, stem), stem)
        (SRC / f"{stem}.py").write_text(text, encoding="utf-8")
        print(stem, counts)
        total = {k: total.get(k, 0) + v for k, v in counts.items()}
    print("total", total)
    return 0


if __name__ == "__main__":
    sys.exit(main())
