"""Every slide of every deck fits a 1280 × 720 projector (make test-slides).

Opens each deck built by ``make slides`` (``build/slides/{ko,en}/*.slides.html``) in one
headless Chromium (Debian's ``/usr/bin/chromium``, driven by Python Playwright) at 1280 × 720,
walks its slides in JavaScript and, on each, measures:

- its height: a slide taller than 720 px hides its bottom (the deck's CSS makes it scroll,
  which a projector audience does not see);
- every block of code and of printed text: a line wider than its block (``scrollWidth >
  clientWidth``) is cut at the right edge;
- anything wider than the slide itself;

and, per deck, that every picture (plots and widgets) has alt text.

Each deck shrinks the font of a slide that does not fit, down to 80 % (``courseFit`` in
``tools/classroom_templates/course_reveal/index.html.j2``); the measurements are taken
after it, as the projector shows the slide, and what still does not fit fails.

No screenshot per slide: the numbers are read from the page's layout. ``--shots DIR`` saves
a picture of each slide that fails. Prints one line per failing slide and a summary; the
exit status is 0 only when every slide fits.

Usage::

    python tools/slide_fit_test.py                 # build the decks, then check them
    python tools/slide_fit_test.py --no-build      # check build/slides/ as it is
    python tools/slide_fit_test.py --only 13_      # decks whose file name contains a text
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tools"))

import classroom  # noqa: E402  (tools/classroom.py builds the decks)

WIDTH, HEIGHT = 1280, 720
SLACK = 2  # px: rounding of borders and sub-pixel layout

# Waits for what changes a slide's size after "load": the web fonts, MathJax's typesetting,
# the widget manager's views (the widgets' saved state), and every image.
_READY = """async () => {
  await document.fonts.ready;
  if (window.MathJax && MathJax.startup && MathJax.startup.promise) {
    await MathJax.startup.promise;
  }
  const images = Array.from(document.images);
  await Promise.all(images.map(i => i.complete ? null : new Promise(r => {
    i.addEventListener('load', r); i.addEventListener('error', r); })));
  const waiting = document.querySelectorAll(
      'script[type="application/vnd.jupyter.widget-view+json"]').length;
  for (let t = 0; waiting && t < 50; t++) {
    if (document.querySelectorAll('.jupyter-widgets, .widget-image').length) break;
    await new Promise(r => setTimeout(r, 100));
  }
  return !!window.courseReveal;
}"""

# Walks every slide: Reveal.slide() shows it at once, and reading a size lays it out.
_MEASURE = """(limits) => {
  const R = window.courseReveal;
  const out = [], shrunk = [];
  const text = el => (el.innerText || '').split('\\n')
      .reduce((a, b) => (b.length > a.length ? b : a), '').slice(0, 70);
  R.getSlides().forEach((slide, index) => {
    const at = R.getIndices(slide);
    R.slide(at.h, at.v || 0);
    const s = R.getCurrentSlide();
    // the deck's own fitting (a smaller font, within a limit), as on the projector
    const scale = window.courseFit ? window.courseFit(s) : 1;
    if (scale < 1) shrunk.push(scale);
    const height = Math.max(s.scrollHeight, ...Array.from(s.children).map(
        c => c.offsetTop + c.offsetHeight));
    const cut = [];
    s.querySelectorAll('.jp-InputArea-editor pre, .highlight pre, .jp-OutputArea-output pre')
      .forEach(el => {
        if (el.scrollWidth > el.clientWidth + limits.slack) {
          cut.push({kind: el.closest('.jp-OutputArea-output') ? 'output' : 'code',
                    over: el.scrollWidth - el.clientWidth, line: text(el)});
        }
      });
    const wide = s.scrollWidth > s.clientWidth + limits.slack ? s.scrollWidth : 0;
    if (height > limits.height + limits.slack || cut.length || wide) {
      out.push({slide: index + 1, h: at.h, v: at.v || 0, height: Math.round(height),
                wide: wide, cut: cut});
    }
  });
  const noAlt = Array.from(document.images).filter(i => !i.alt).length;
  return {slides: R.getTotalSlides(), bad: out, shrunk: shrunk, no_alt: noAlt};
}"""


def check_decks(decks: list[Path], shots: Path | None = None) -> tuple[int, int, list[str]]:
    """Open each deck and measure every slide; return (slides, failing slides, report lines)."""
    from playwright.sync_api import sync_playwright

    total, failing, lines, shrunk = 0, 0, [], []
    limits = {"height": HEIGHT, "slack": SLACK}
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path="/usr/bin/chromium",
                                    args=classroom.CHROMIUM_FLAGS)
        page = browser.new_page(viewport={"width": WIDTH, "height": HEIGHT})
        errors: list[str] = []
        page.on("pageerror", lambda e: errors.append(str(e)))
        for deck in decks:
            errors.clear()
            name = f"{deck.parent.name}/{deck.name}"
            page.goto(deck.resolve().as_uri())
            page.wait_for_load_state("load")
            page.wait_for_function("() => !!window.courseReveal", timeout=30_000)
            page.evaluate(_READY)
            facts = page.evaluate(_MEASURE, limits)
            total += facts["slides"]
            shrunk += facts["shrunk"]
            failing += len(facts["bad"])
            for bad in facts["bad"]:
                what = []
                if bad["height"] > HEIGHT + SLACK:
                    what.append(f"{bad['height']} px tall")
                if bad["wide"]:
                    what.append(f"{bad['wide']} px wide")
                for cut in bad["cut"]:
                    what.append(f"{cut['kind']} cut by {cut['over']} px: {cut['line']!r}")
                lines.append(f"FAIL {name} slide {bad['slide']} ({bad['h']}/{bad['v']}): "
                             + "; ".join(what))
                if shots is not None:
                    shots.mkdir(parents=True, exist_ok=True)
                    page.evaluate(f"() => window.courseReveal.slide({bad['h']}, {bad['v']})")
                    page.screenshot(path=str(shots / f"{deck.parent.name}_{deck.stem}_"
                                                     f"{bad['slide']:02d}.png"))
            if errors:
                failing += 1
                lines.append(f"FAIL {name}: page errors {errors[:2]}")
            if facts["no_alt"]:
                failing += 1
                lines.append(f"FAIL {name}: {facts['no_alt']} picture(s) without alt text")
        browser.close()
    if shrunk:
        lines.append(f"({len(shrunk)} slides shown in a smaller font to fit, down to "
                     f"{min(shrunk):.0%} of it)")
    return total, failing, lines


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--slides", type=Path, default=classroom.BUILD / "slides",
                        help="folder of the built decks (default: build/slides)")
    parser.add_argument("--no-build", action="store_true", help="check the decks as built")
    parser.add_argument("--only", nargs="*", help="decks whose file name contains a text")
    parser.add_argument("--shots", type=Path, help="save a picture of each failing slide here")
    args = parser.parse_args(argv)
    if not args.no_build:
        stems = None
        if args.only:
            stems = [p.stem for p in classroom.lesson_paths("ko")
                     if any(o in p.stem for o in args.only)]
        classroom.build_pages("slides", args.slides, stems=stems)
    decks = [deck for lang in classroom.LANGS
             for deck in sorted((args.slides / lang).glob("*.slides.html"))
             if not args.only or any(o in deck.name for o in args.only)]
    if not decks:
        print(f"no decks under {args.slides}: run make slides first")
        return 1
    total, failing, lines = check_decks(decks, args.shots)
    print("\n".join(lines))
    print(f"{len(decks)} decks, {total} slides: {failing} do not fit {WIDTH} x {HEIGHT}")
    return 1 if failing else 0


if __name__ == "__main__":
    sys.exit(main())
