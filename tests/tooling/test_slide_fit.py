"""tools/slide_fit_test.py (make test-slides) finds the slides that do not fit, and only those.

A small page stands in for a deck: five slides, a stand-in for reveal.js's API, and the decks'
own fitting function (``courseFit``, taken from the deck template). The real decks are checked
by ``make test-slides``. Skipped without Chromium or Playwright.
"""

from __future__ import annotations

import re
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "tools"))
CHROMIUM = Path("/usr/bin/chromium")
TEMPLATE = ROOT / "tools" / "classroom_templates" / "course_reveal" / "index.html.j2"

pytest.importorskip("playwright.sync_api")
pytestmark = pytest.mark.skipif(not CHROMIUM.exists(), reason="needs /usr/bin/chromium")


def fit_script() -> str:
    """The deck template's courseFit, with the deck's height filled in."""
    text = TEMPLATE.read_text(encoding="utf-8")
    script = text[text.index("const COURSE_FIT_MIN"):text.index("window.courseFit = courseFit;")]
    return script.replace("{{ resources.reveal.height }}", "720") + "window.courseFit = courseFit;"


STAND_IN = """
const slides = Array.from(document.querySelectorAll('section'));
function show(i) { slides.forEach((s, j) => { s.style.display = i === j ? 'block' : 'none'; });
                   current = i; }
let current = 0; show(0);
window.courseReveal = {getSlides: () => slides, getIndices: s => ({h: slides.indexOf(s), v: 0}),
                       slide: h => show(h), getCurrentSlide: () => slides[current],
                       getTotalSlides: () => slides.length};
"""

SLIDES = [
    "<p>fits as it is</p>",
    # a little too tall: fits in a smaller font (every size in em)
    '<div style="height: 27em">text set in em</div>',
    # far too tall: a picture of fixed size
    '<div style="height: 1500px">a 1500 px picture</div>',
    # a line of code far too wide for its block, even in the smallest font
    '<div class="highlight"><pre style="overflow-x: auto">' + "x = 1  # " + "long comment " * 20
    + "</pre></div>",
    # a line a little too wide: fits in a smaller font
    '<div class="highlight"><pre style="overflow-x: auto">' + "y" * 75 + "</pre></div>",
]


def deck(tmp_path: Path) -> Path:
    sections = "\n".join(f"<section>{body}</section>" for body in SLIDES)
    page = f"""<!DOCTYPE html><html><head><meta charset="utf-8"><style>
body {{ margin: 0; }}
section {{ width: 1200px; max-height: 720px; overflow-y: auto; font-size: 28px;
           font-family: sans-serif; }}
pre {{ font-family: monospace; font-size: 1em; margin: 0; }}
</style></head><body>{sections}
<script>{fit_script()}
{STAND_IN}</script></body></html>"""
    path = tmp_path / "en" / "00_stand_in.slides.html"
    path.parent.mkdir(parents=True)
    path.write_text(page, encoding="utf-8")
    return path


def test_reports_the_slides_that_do_not_fit_and_only_those(tmp_path):
    import slide_fit_test

    total, failing, lines = slide_fit_test.check_decks([deck(tmp_path)],
                                                        shots=tmp_path / "shots")
    assert total == len(SLIDES)
    bad = {int(re.search(r"slide (\d+)", line).group(1)) for line in lines
           if line.startswith("FAIL")}
    assert bad == {3, 4}, lines
    assert failing == 2
    assert any("px tall" in line and "slide 3 " in line for line in lines)
    assert any("code cut by" in line and "slide 4 " in line for line in lines)
    assert any("smaller font" in line for line in lines)  # slides 2 and 5 were shrunk
    assert sorted(p.name for p in (tmp_path / "shots").iterdir()) == [
        "en_00_stand_in.slides_03.png", "en_00_stand_in.slides_04.png"]


def test_no_decks_is_a_failure(tmp_path):
    import slide_fit_test

    assert slide_fit_test.main(["--no-build", "--slides", str(tmp_path)]) == 1
