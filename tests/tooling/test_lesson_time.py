"""Class time that adds up: each lesson's stated time follows one method, and every session
plan in the teacher guides fits its slot with the lessons' own times.

The method is ``tools/lesson_time.py`` (the guides describe it). A plan is a table whose rows
are ``| start–end | lessons | mode | what |``: mode full (the whole notebook, exercises
included), demo (shown on the projector) or questions; the rows follow each other from 0 to
the slot's length, and the last one leaves at least 5 minutes for questions, as the guides ask.
"""

from __future__ import annotations

import re
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "tools"))

import lesson_time  # noqa: E402

STEMS = lesson_time.stems()
GUIDES = {"ko": ROOT / "docs" / "teacher-guide.ko.md", "en": ROOT / "docs" / "teacher-guide.en.md"}
PLANS_HEADING = {"ko": "## 수업안", "en": "## Session plans"}
MODES = {"ko": {"전체": "full", "시연": "demo", "질문": "questions"},
         "en": {"full": "full", "demo": "demo", "questions": "questions"}}
SLOT = {"ko": re.compile(r"\((\d+)분"), "en": re.compile(r"\((\d+) min")}
ROW = re.compile(r"^\|\s*(\d+)\s*[–-]\s*(\d+)\s*\|([^|]*)\|([^|]*)\|")


def times() -> dict[str, lesson_time.LessonTime]:
    return {stem[:2]: lesson_time.measure(stem) for stem in STEMS}


@pytest.mark.parametrize("stem", STEMS)
def test_each_lesson_states_the_time_the_method_gives(stem):
    measured = lesson_time.measure(stem)
    assert lesson_time.stated(stem) == {"ko": measured.full, "en": measured.full}, (
        f"{stem}: the top of the lesson must say {measured.full} minutes in both languages "
        "(python tools/lesson_time.py shows how that is counted)")


@pytest.mark.parametrize("lang", GUIDES)
def test_guide_headings_give_each_lessons_full_and_demo_time(lang):
    text = GUIDES[lang].read_text(encoding="utf-8")
    for number, t in times().items():
        heading = re.search(rf"^### {number}\. .*$", text, flags=re.M)
        assert heading, f"teacher guide ({lang}) has no section for lesson {number}"
        numbers = [int(n) for n in re.findall(r"\d+", heading.group(0).split("(")[-1])]
        assert numbers[:2] == [t.full, t.demo], (
            f"{heading.group(0)!r}: should give {t.full} (full) and {t.demo} (demo) minutes")


def plans(lang: str) -> list[tuple[str, int, list[tuple[int, int, list[str], str]]]]:
    """Every plan table in a guide: (heading, slot minutes, rows)."""
    text = GUIDES[lang].read_text(encoding="utf-8")
    start = text.index(PLANS_HEADING[lang])
    end = text.find("\n## ", start + 1)
    section = text[start:end if end > 0 else None]
    found, heading, slot, rows = [], None, None, []
    for line in section.splitlines() + ["### end"]:
        if line.startswith("###"):
            if rows:
                found.append((heading, slot, rows))
            heading, rows = line, []
            match = SLOT[lang].search(line)
            slot = int(match.group(1)) if match else None
        elif (row := ROW.match(line)):
            lessons = re.findall(r"\b\d\d\b", row.group(3))
            mode = MODES[lang].get(row.group(4).strip().lower(), row.group(4).strip())
            rows.append((int(row.group(1)), int(row.group(2)), lessons, mode))
    return found


@pytest.mark.parametrize("lang", GUIDES)
def test_every_plan_fits_its_slot(lang):
    lessons = times()
    found = plans(lang)
    assert len(found) >= 5, f"expected the 50-minute, 90-minute and 3 session plans, got {found}"
    for heading, slot, rows in found:
        assert slot, f"{heading!r}: say the slot's length in its heading"
        assert rows[0][0] == 0 and rows[-1][1] == slot, f"{heading!r}: rows must run 0–{slot}"
        for (_, end, _, _), (start, _, _, _) in zip(rows, rows[1:]):
            assert start == end, f"{heading!r}: a gap or an overlap at minute {end}"
        first, last, _, mode = rows[-1]
        assert mode == "questions" and last - first >= 5, (
            f"{heading!r}: end with at least 5 minutes of questions")
        for start, end, named, mode in rows:
            assert mode in ("full", "demo", "questions"), f"{heading!r}: unknown mode {mode!r}"
            if mode == "questions":
                continue
            assert named, f"{heading!r}: row {start}–{end} names no lesson"
            need = sum(getattr(lessons[n], mode) for n in named)
            assert end - start >= need, (
                f"{heading!r}: {start}–{end} gives {end - start} minutes to {named} ({mode}), "
                f"which take {need}")


def test_the_guides_plan_the_same_lessons_in_both_languages():
    shape = {lang: [(slot, [(a, b, n, m) for a, b, n, m in rows]) for _, slot, rows in plans(lang)]
             for lang in GUIDES}
    assert shape["ko"] == shape["en"]


def test_the_method_counts_what_it_says():
    """A made-up lesson: 200 words, 3 code cells, 1 widget, 1 exercise."""
    t = lesson_time.LessonTime("xx", words=200, code_cells=3, widgets=1, exercises=1)
    raw = (200 / lesson_time.WORDS_PER_MINUTE + 3 * lesson_time.CODE_CELL_MINUTES
           + lesson_time.WIDGET_MINUTES + lesson_time.EXERCISE_MINUTES)
    assert t.full % 5 == 0 and raw <= t.full < raw + 5
    assert t.demo <= t.full
