"""How long a lesson takes in class, estimated the same way for every lesson.

    python tools/lesson_time.py            # a table: counts, estimate, stated time
    python tools/lesson_time.py --check    # exit 1 if a stated time disagrees
    python tools/lesson_time.py --write    # write the estimates into the lessons and guides

The method (the teacher guides describe it, so a teacher can apply it by hand):

- **Reading**: the lesson's English prose at ``WORDS_PER_MINUTE`` words a minute, a pace
  for reading technical text with formulas in it, not for skimming. (The Korean cells say
  the same things; counting one language keeps the two versions' times equal.)
- **Code cells**: ``CODE_CELL_MINUTES`` for each cell a learner runs and reads the output of
  (solution cells are not counted: learners write them).
- **Widgets**: ``WIDGET_MINUTES`` for each widget, to move its controls and look.
- **Exercises**: ``EXERCISE_MINUTES`` for each "Try it" cell.

The sum, rounded up to 5 minutes, is the lesson's **full** time (a class that does the whole
notebook together). A **demo** time is for a teacher who shows the lesson on the projector:
half the reading (the teacher summarises), half a minute per code cell, ``DEMO_WIDGET_MINUTES``
per widget and no exercises. Session plans in the teacher guides use these two numbers and
nothing else (``tests/tooling/test_lesson_time.py`` checks that they fit their slots).
"""

from __future__ import annotations

import argparse
import math
import re
import sys
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
SRC = ROOT / "notebooks" / "src"
sys.path.insert(0, str(Path(__file__).resolve().parent))

WORDS_PER_MINUTE = 100
CODE_CELL_MINUTES = 1.5
WIDGET_MINUTES = 3.0
EXERCISE_MINUTES = 6.0
DEMO_CODE_CELL_MINUTES = 0.5
DEMO_WIDGET_MINUTES = 2.0

# A code cell that shows a widget: it calls something in qk.widgets, or the quiz.
WIDGET_CALL = re.compile(r"qk\.widgets\.\w+\(|qk\.quiz\.quiz_widget\(")
# The time a lesson states at its top, in each language.
STATED = {"ko": re.compile(r"\*\*수업 시간\*\*\s*:\s*약\s*(\d+)\s*분"),
          "en": re.compile(r"\*\*Class time\*\*\s*:\s*about\s*(\d+)\s*minutes")}


@dataclass(frozen=True)
class LessonTime:
    stem: str
    words: int
    code_cells: int
    widgets: int
    exercises: int

    @property
    def reading_minutes(self) -> float:
        return self.words / WORDS_PER_MINUTE

    @property
    def full(self) -> int:
        """Minutes for the whole notebook done in class, rounded up to 5."""
        minutes = (self.reading_minutes + CODE_CELL_MINUTES * self.code_cells
                   + WIDGET_MINUTES * self.widgets + EXERCISE_MINUTES * self.exercises)
        return _round_up(minutes)

    @property
    def demo(self) -> int:
        """Minutes for showing the lesson on the projector, without the exercises."""
        minutes = (self.reading_minutes / 2 + DEMO_CODE_CELL_MINUTES * self.code_cells
                   + DEMO_WIDGET_MINUTES * self.widgets)
        return _round_up(minutes)


def _round_up(minutes: float) -> int:
    return max(5, 5 * math.ceil(minutes / 5 - 1e-9))


def _words(markdown: str) -> int:
    """Words of prose: code spans, formulas and link targets count once as one word each."""
    text = re.sub(r"\$\$.*?\$\$", " formula ", markdown, flags=re.S)
    text = re.sub(r"\]\([^)]*\)", "]", text)
    return len(re.findall(r"[\w·′'’\-]+", text))


def measure(stem: str, cells=None) -> LessonTime:
    """Count what :func:`LessonTime` needs from ``notebooks/src/<stem>.py`` (or from some of
    its ``cells``)."""
    from build_notebooks import load

    words = code = widgets = exercises = 0
    for cell in load(stem).cells if cells is None else cells:
        if cell.kind == "markdown":
            words += _words(cell.source["en"])
        elif "solution" in cell.tags:
            continue
        elif "exercise" in cell.tags:
            exercises += 1
        elif WIDGET_CALL.search(cell.source["en"]):
            widgets += 1
        else:
            code += 1
    return LessonTime(stem, words, code, widgets, exercises)


def headings(stem: str) -> list[dict[str, str]]:
    """The lesson's section headings (``## ...``), each in both languages."""
    from build_notebooks import load

    found = []
    for cell in load(stem).cells:
        if cell.kind != "markdown":
            continue
        pair = {lang: next((line[3:].strip() for line in cell.source[lang].splitlines()
                            if line.startswith("## ")), None) for lang in ("ko", "en")}
        if pair["en"]:
            found.append(pair)
    return found


def parts(stem: str, cuts: list[str]) -> list[LessonTime]:
    """The lesson cut before each heading in ``cuts`` (English, in order): each part counted
    by the same method, so a teacher sees whether each fits a period."""
    from build_notebooks import load

    lesson = load(stem)
    bounds, remaining = [0], list(cuts)
    for index, cell in enumerate(lesson.cells):
        if (remaining and cell.kind == "markdown"
                and any(line[3:].strip() == remaining[0]
                        for line in cell.source["en"].splitlines() if line.startswith("## "))):
            bounds.append(index)
            remaining.pop(0)
    if remaining:
        raise ValueError(f"{stem}: no heading {remaining[0]!r} (in this order)")
    bounds.append(len(lesson.cells))
    return [measure(stem, lesson.cells[a:b]) for a, b in zip(bounds, bounds[1:])]


def stated(stem: str) -> dict[str, int | None]:
    """The class time written at the top of the lesson, per language (None if missing)."""
    from build_notebooks import load

    first = load(stem).cells[0].source
    found = {}
    for lang, pattern in STATED.items():
        match = pattern.search(first[lang])
        found[lang] = int(match.group(1)) if match else None
    return found


GUIDE_HEADING = {
    "ko": (ROOT / "docs" / "teacher-guide.ko.md", "(전체 {full}분 · 시연 {demo}분{rest})"),
    "en": (ROOT / "docs" / "teacher-guide.en.md", "({full} min full · {demo} min demo{rest})"),
}


def write(times: dict[str, LessonTime]) -> None:
    """Put each lesson's full time at its top and both times in the guides' headings."""
    for stem, t in times.items():
        path = SRC / f"{stem}.py"
        text = path.read_text(encoding="utf-8")
        text = STATED["ko"].sub(f"**수업 시간**: 약 {t.full}분", text, count=1)
        text = STATED["en"].sub(f"**Class time**: about {t.full} minutes", text, count=1)
        path.write_text(text, encoding="utf-8")
    for path, template in GUIDE_HEADING.values():
        lines = path.read_text(encoding="utf-8").split("\n")
        for i, line in enumerate(lines):
            match = re.match(r"^### (\d\d)\. (.*?) \(([^()]*)\)$", line)
            if not match or match.group(1) not in {stem[:2] for stem in times}:
                continue
            t = next(t for stem, t in times.items() if stem[:2] == match.group(1))
            note = re.split(r"[,;] ", match.group(3), maxsplit=1)
            rest = ", " + note[1] if len(note) > 1 and not re.search(r"\d+\s*(분|min)", note[1]) \
                else ""
            lines[i] = f"### {match.group(1)}. {match.group(2)} " + template.format(
                full=t.full, demo=t.demo, rest=rest)
        path.write_text("\n".join(lines), encoding="utf-8")


def stems() -> list[str]:
    return sorted(p.stem for p in SRC.glob("[0-9][0-9]_*.py"))


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true", help="fail if a stated time differs")
    parser.add_argument("--write", action="store_true",
                        help="write the estimates into the lessons' tops and the guides' headings")
    args = parser.parse_args()
    if args.write:
        write({stem: measure(stem) for stem in stems()})
    bad = 0
    print(f"{'lesson':34} {'words':>5} {'code':>4} {'widg':>4} {'exer':>4} "
          f"{'full':>4} {'demo':>4} {'stated':>7}")
    for stem in stems():
        t = measure(stem)
        s = stated(stem)
        mark = "" if s["ko"] == s["en"] == t.full else "  <- differs"
        bad += bool(mark)
        print(f"{stem:34} {t.words:5} {t.code_cells:4} {t.widgets:4} {t.exercises:4} "
              f"{t.full:4} {t.demo:4} {str(s['ko']) + '/' + str(s['en']):>7}{mark}")
    return 1 if (args.check and bad) else 0


if __name__ == "__main__":
    sys.exit(main())
