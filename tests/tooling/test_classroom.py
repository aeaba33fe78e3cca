"""The classroom kit (tools/classroom.py): student copies, slide decks, the static site.

No npm and no network here: the decks and pages are built from stand-in npm tarballs (empty
files of the right names), which is enough to check how the pages are wired.
"""

from __future__ import annotations

import base64
import io
import re
import subprocess
import sys
import tarfile
from html.parser import HTMLParser
from pathlib import Path

import nbformat
import pytest

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "tools"))

import classroom  # noqa: E402

LANGS = ("ko", "en")
STEMS = [p.stem for p in classroom.lesson_paths("ko")]


def read(lang: str, stem: str):
    return nbformat.read(ROOT / "notebooks" / lang / f"{stem}.ipynb", as_version=4)


def test_there_are_lessons_in_both_languages():
    assert "00_start_here" in STEMS
    assert STEMS == [p.stem for p in classroom.lesson_paths("en")]


# --- student copies -------------------------------------------------------------------------

@pytest.fixture(scope="module")
def student(tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("student")
    classroom.build_student(out)
    return out


@pytest.mark.parametrize("lang", LANGS)
@pytest.mark.parametrize("stem", STEMS)
def test_student_copy_is_the_lesson_without_its_solution_cells(student, stem, lang):
    original = read(lang, stem)
    copy = nbformat.read(student / lang / f"{stem}.ipynb", as_version=4)
    solutions = [c for c in original.cells if "solution" in c.metadata.get("tags", [])]
    assert solutions, f"{stem} has no solution cell, so there is nothing to hand out"
    assert not [c for c in copy.cells if "solution" in c.metadata.get("tags", [])]
    kept = [c for c in original.cells if "solution" not in c.metadata.get("tags", [])]
    assert copy.cells == kept  # same cells, sources, outputs and metadata, in order
    assert len(copy.cells) == len(original.cells) - len(solutions)
    assert copy.metadata == original.metadata  # widget state and kernel unchanged
    exercises = [c for c in copy.cells if "exercise" in c.metadata.get("tags", [])]
    assert exercises, f"{stem} has no exercise cell"


def test_without_solutions_leaves_its_input_alone():
    nb = read("en", "00_start_here")
    before = len(nb.cells)
    out = classroom.without_solutions(nb)
    assert len(nb.cells) == before > len(out.cells)


def _not_answered_text(lang: str) -> str:
    from qkv_helpers import lang as lang_table

    return lang_table.STRINGS[lang]["check_not_answered"]


@pytest.mark.parametrize("lang", LANGS)
def test_exercise_cells_show_not_answered_yet(student, lang):
    needle = _not_answered_text(lang)
    for stem in STEMS:
        nb = nbformat.read(student / lang / f"{stem}.ipynb", as_version=4)
        for cell in nb.cells:
            if "exercise" in cell.metadata.get("tags", []):
                shown = "".join(str(o.get("data", {}).get("text/plain", ""))
                                for o in cell.outputs)
                assert needle in shown, f"{lang}/{stem} cell {cell.id}: {shown!r}"


@pytest.mark.slow
def test_student_copies_run_top_to_bottom_under_nbval_lax(student, tmp_path):
    """Every copy runs without an error, and each exercise still says "not answered yet".

    ``--nbval-lax`` only fails on errors; the exercise cells of this test's own copy get
    ``nbval-check-output``, so their feedback is compared with the saved "not answered".

    make test-all (CI) only: the copies' code cells are the lessons' own, outputs included
    (test_student_copy_is_the_lesson_without_its_solution_cells), and make test's strict
    nbval already runs those cells in that order in a fresh kernel.
    """
    for lang in LANGS:
        (tmp_path / lang).mkdir()
        for path in sorted((student / lang).glob("*.ipynb")):
            nb = nbformat.read(path, as_version=4)
            for cell in nb.cells:
                if "exercise" in cell.metadata.get("tags", []):
                    cell.metadata["tags"] = [*cell.metadata["tags"], "nbval-check-output"]
            nbformat.write(nb, tmp_path / lang / path.name)
    env = {"OMP_NUM_THREADS": "1", "OPENBLAS_NUM_THREADS": "1", "MKL_NUM_THREADS": "1"}
    result = subprocess.run(
        [sys.executable, "-m", "pytest", "--nbval-lax", "--nbval-current-env", "-q",
         "-p", "no:cacheprovider", "--rootdir", str(tmp_path), str(tmp_path)],
        capture_output=True, text=True, cwd=tmp_path,
        env={**_clean_env(), **env})
    tail = result.stdout[-3000:]
    assert result.returncode == 0, tail
    passed = int(re.search(r"(\d+) passed", tail).group(1))
    cells = sum(1 for lang in LANGS for p in (tmp_path / lang).glob("*.ipynb")
                for c in nbformat.read(p, as_version=4).cells if c.cell_type == "code")
    assert passed == cells, tail


def _clean_env() -> dict:
    import os

    env = dict(os.environ)
    env.pop("MPLBACKEND", None)  # run as the notebooks were executed (inline plots)
    return env


# --- slides ---------------------------------------------------------------------------------

@pytest.mark.parametrize("stem", STEMS)
def test_every_lesson_has_slide_metadata(stem):
    for lang in LANGS:
        nb = read(lang, stem)
        kinds = [classroom.slide_type(c) for c in nb.cells]
        assert kinds[0] == "slide", "the title starts the first slide"
        assert "skip" in kinds, "the setup cell is skipped"
        headings = [c for c in nb.cells if c.cell_type == "markdown"
                    and c.source.lstrip().startswith("## ")]
        for cell in headings:
            assert classroom.slide_type(cell) in ("slide", "subslide"), (
                f"{stem}: section {cell.source.splitlines()[0]!r} does not start a slide")
        # lesson 14 (90 minutes, two periods) is the longest deck: 42 slides
        assert 4 <= classroom.count_slides(classroom.for_slides(nb)) <= 45


def test_count_slides_counts_what_reveal_shows():
    nb = nbformat.v4.new_notebook()
    kinds = ["slide", "skip", "-", "subslide", "fragment", "notes", "slide"]
    for kind in kinds:
        cell = nbformat.v4.new_markdown_cell("x")
        cell.metadata.slideshow = {"slide_type": kind}
        nb.cells.append(cell)
    assert classroom.count_slides(nb) == 3
    nb.cells[0].metadata.slideshow = {"slide_type": "skip"}
    assert classroom.count_slides(nb) == 3  # the "-" cell then opens the first slide


def test_solutions_get_a_slide_of_their_own():
    nb = read("en", "00_start_here")
    deck = classroom.for_slides(nb)
    shown = [c for c in deck.cells if "course-widget-note" not in c.source]  # notes added
    assert len(shown) == len(nb.cells)
    for before, after in zip(nb.cells, shown):
        if "solution" in before.metadata.get("tags", []):
            assert classroom.slide_type(after) == "subslide"
            assert after.cell_type == "code" and after.source == before.source
            assert not after.outputs, "a deck shows the solution's code, not its result"
    assert classroom.count_slides(deck) > classroom.count_slides(nb)


class _Sections(HTMLParser):
    """Counts reveal.js slides: the <section> elements at the second level."""

    def __init__(self):
        super().__init__()
        self.depth = 0
        self.slides = 0

    def handle_starttag(self, tag, attrs):
        if tag == "section":
            self.depth += 1
            self.slides += self.depth == 2

    def handle_endtag(self, tag):
        if tag == "section":
            self.depth -= 1


@pytest.fixture(scope="module")
def decks(tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("slides")
    _build_with_fake_vendor("slides", out, tmp_path_factory.mktemp("vendor"))
    return out


def _build_with_fake_vendor(kind: str, out: Path, vendor: Path, **kw) -> None:
    before = classroom.VENDOR
    _fake_tarballs(vendor)
    classroom.VENDOR = vendor
    try:
        classroom.build_pages(kind, out, **kw)
    finally:
        classroom.VENDOR = before


@pytest.mark.parametrize("lang", LANGS)
@pytest.mark.parametrize("stem", STEMS)
def test_deck_builds_with_one_section_per_slide(decks, stem, lang):
    page = (decks / lang / f"{stem}.slides.html").read_text(encoding="utf-8")
    parser = _Sections()
    parser.feed(page)
    expected = classroom.count_slides(classroom.for_slides(read(lang, stem)))
    assert parser.slides == expected
    assert 4 <= parser.slides <= 45  # lesson 14 (two periods) is the longest
    assert "application/vnd.jupyter.widget-state+json" in page  # sliders keep their state
    lesson_links = re.findall(r'href="(\d\d_[\w-]+[^"]*)"', page)
    assert all(link.endswith(".slides.html") for link in lesson_links), lesson_links


def test_slides_index_links_every_deck(decks):
    index = (decks / "index.html").read_text(encoding="utf-8")
    for lang in LANGS:
        for stem in STEMS:
            assert f'href="{lang}/{stem}.slides.html"' in index
            assert (decks / lang / f"{stem}.slides.html").exists()


# --- the static site ------------------------------------------------------------------------

@pytest.fixture(scope="module")
def site(tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("site")
    _build_with_fake_vendor("html", out, tmp_path_factory.mktemp("vendor"))
    return out


@pytest.mark.parametrize("lang", LANGS)
@pytest.mark.parametrize("stem", STEMS)
def test_site_page_has_the_lesson_its_widgets_and_folded_solutions(site, stem, lang):
    page = (site / lang / f"{stem}.html").read_text(encoding="utf-8")
    nb = read(lang, stem)
    assert f'<html lang="{lang}">' in page
    assert "application/vnd.jupyter.widget-state+json" in page
    assert page.count('<details class="course-solution">') == sum(
        "solution" in c.metadata.get("tags", []) for c in nb.cells)
    assert "Solution check" not in page and "풀이 확인" not in page, "no solution's result"
    assert re.search(r'\]\(\d\d_\w+\.ipynb\)|href="\d\d_\w+\.ipynb"', page) is None, (
        "links between lessons point at the .html pages")
    other = "en" if lang == "ko" else "ko"
    assert f'href="../{other}/{stem}.html"' in page


def test_site_index_lists_every_lesson_with_its_title(site):
    index = (site / "index.html").read_text(encoding="utf-8")
    for lang in LANGS:
        for stem in STEMS:
            assert f'href="{lang}/{stem}.html"' in index
            title = classroom.title_of(read(lang, stem))
            assert title and title in index.replace("&#x27;", "'").replace("&quot;", '"')


def test_relink_changes_only_links_to_lessons():
    text = "[a](03_scaling.ipynb) [b](03_scaling.ipynb#top) [c](x.ipynb) [d](https://x/01_a.ipynb)"
    assert classroom.relink(text, ".html") == (
        "[a](03_scaling.html) [b](03_scaling.html#top) [c](x.ipynb) [d](https://x/01_a.ipynb)")


# --- offline --------------------------------------------------------------------------------

def _fake_tarballs(folder: Path) -> None:
    """npm tarballs holding empty stand-ins for the files tools/classroom.py copies."""
    for name, (version, files) in classroom.NPM_PACKAGES.items():
        path = folder / f"{name.lstrip('@').replace('/', '-')}-{version}.tgz"
        with tarfile.open(path, "w:gz") as tar:
            for inner, _dest in files:
                leaves = [inner] if "." in Path(inner).name else [
                    f"{inner}/reveal.js", f"{inner}/reveal.css", f"{inner}/theme/white.css",
                    f"{inner}/notes.js", f"{inner}/embed-amd.js", f"{inner}/x.js.map"]
                for leaf in leaves:
                    info = tarfile.TarInfo(f"package/{leaf}")
                    info.size = 0
                    tar.addfile(info, io.BytesIO(b""))


class _Links(HTMLParser):
    def __init__(self):
        super().__init__()
        self.urls = []

    def handle_starttag(self, tag, attrs):
        attrs = dict(attrs)
        if tag == "script" and attrs.get("src"):
            self.urls.append(attrs["src"])
        if tag == "link" and attrs.get("href"):
            self.urls.append(attrs["href"])


@pytest.mark.parametrize("kind", ["html", "slides"])
def test_offline_pages_load_nothing_from_the_internet(site, decks, kind):
    """Every page of the site and of the decks (built once, by the fixtures)."""
    out = site if kind == "html" else decks
    stems = STEMS
    suffix = ".slides.html" if kind == "slides" else ".html"
    for lang in LANGS:
        for stem in stems:
            page_path = out / lang / f"{stem}{suffix}"
            page = page_path.read_text(encoding="utf-8")
            links = _Links()
            links.feed(page)
            assert links.urls
            for url in links.urls:
                assert not url.startswith(("http:", "https:", "//")), url
                assert (page_path.parent / url).resolve().exists(), url
            assert not re.search(r"""(src|href)=["']https?://(unpkg|cdn|cdnjs)""", page)
            for url in re.findall(r'"(\.\./_static/[^"]+\.js)"', page):
                assert (page_path.parent / url).exists(), url
    assert not list(out.rglob("*.map")), "source maps are left out"


def test_pages_load_the_javascript_of_the_pinned_versions_from_static(site):
    page = (site / "en" / "00_start_here.html").read_text(encoding="utf-8")
    assert '"../_static/html-manager/embed-amd.js"' in page
    assert "https://" not in "".join(re.findall(r'<script[^>]*src="([^"]+)"', page))


def test_without_npm_or_tarballs_no_page_is_built_and_the_error_says_why(tmp_path, monkeypatch):
    monkeypatch.setattr(classroom, "VENDOR", tmp_path / "vendor")  # empty
    monkeypatch.setattr(classroom.shutil, "which", lambda name: None)  # no npm
    out = tmp_path / "out"
    with pytest.raises(RuntimeError, match=r"Install Node\.js \(npm\).*copy .*vendor"):
        classroom.build_pages("html", out, stems=STEMS[:1])
    assert not out.exists(), "nothing written, not even a page that would link a CDN"
    assert not hasattr(classroom, "CDN")


def test_embedded_font_holds_the_hangul_the_pages_use():
    from fontTools.ttLib import TTFont

    css = classroom.font_face_css({"고", "양", "이"})
    data = re.search(r"base64,([A-Za-z0-9+/=]+)", css).group(1)
    font = TTFont(io.BytesIO(base64.b64decode(data)))
    cmap = font.getBestCmap()
    assert {ord("고"), ord("양"), ord("이")} <= set(cmap)
    assert ord("가") not in cmap  # only what the pages use: small enough to embed
    assert len(data) < 60_000


def test_site_css_embeds_every_hangul_character_of_the_lessons(site):
    css = (site / "_static" / "course.css").read_text(encoding="utf-8")
    from fontTools.ttLib import TTFont

    fonts = [TTFont(io.BytesIO(base64.b64decode(d))) for d in re.findall(
        r'font-family: "NanumGothic";[^}]*base64,([A-Za-z0-9+/=]+)', css)]
    assert fonts
    used = classroom.hangul_in([(ROOT / "notebooks" / "ko" / f"{s}.ipynb").read_text(
        encoding="utf-8") for s in STEMS])
    assert "고" in used
    for font in fonts:
        missing = {c for c in used if ord(c) not in font.getBestCmap()}
        assert not missing - {"\u3000"}, sorted(missing)[:10]


# --- tarballs that try to write outside the folder -------------------------------------------

def _tarball_with(path: Path, names: list[str]) -> Path:
    with tarfile.open(path, "w:gz") as tar:
        for name in names:
            info = tarfile.TarInfo(name)
            data = b"alert('escaped')"
            info.size = len(data)
            tar.addfile(info, io.BytesIO(data))
    return path


@pytest.mark.parametrize("evil", ["package/dist/../../escaped.js",
                                  "package/dist/../escaped.js",
                                  "package/dist/../../../../escaped.js"])
def test_extract_refuses_a_member_that_escapes_the_folder(tmp_path, evil):
    tgz = _tarball_with(tmp_path / "evil.tgz", ["package/dist/ok.js", evil])
    dest = tmp_path / "a" / "b" / "static" / "dist"
    with pytest.raises(ValueError, match="refusing member"):
        classroom._extract(tgz, "dist", dest)
    assert not [p for p in tmp_path.rglob("escaped.js")], "nothing written outside"


def test_extract_still_copies_an_honest_tarball(tmp_path):
    tgz = _tarball_with(tmp_path / "ok.tgz", ["package/dist/ok.js", "package/dist/sub/x.js",
                                              "package/dist/x.js.map", "package/other.js"])
    dest = tmp_path / "static" / "dist"
    classroom._extract(tgz, "dist", dest)
    assert sorted(p.relative_to(dest).as_posix() for p in dest.rglob("*.js")) == [
        "ok.js", "sub/x.js"]
    classroom._extract(tgz, "other.js", tmp_path / "static" / "other.js")
    assert (tmp_path / "static" / "other.js").read_bytes() == b"alert('escaped')"


# --- issue 12: linear navigation, translated-text cells, a note beside each widget ----------

def test_decks_navigate_linearly():
    template = (ROOT / "tools" / "classroom_templates" / "course_reveal" / "index.html.j2")
    assert re.search(r'navigationMode:\s*"linear"', template.read_text(encoding="utf-8"))


def test_deck_pages_use_linear_navigation(decks):
    page = (decks / "ko" / "07_decoder_masked_self_attention.slides.html").read_text("utf-8")
    assert re.search(r'navigationMode:\s*"linear"', page)


@pytest.mark.parametrize("lang", LANGS)
def test_every_code_cell_keeps_its_code_on_slides(lang):
    """Lesson cells print their own words now (no qk.t), so no slide hides a cell's code."""
    nb = read(lang, "03_scaling")
    slides = classroom.for_slides(nb, lang).cells
    hidden = [c for c in slides if c.get("metadata", {}).get("transient", {}).get("remove_source")]
    assert not hidden
    code = [c.source for c in nb.cells if c.cell_type == "code"]
    assert code and all(source in [c.source for c in slides] for source in code)


@pytest.mark.parametrize("lang", LANGS)
@pytest.mark.parametrize("stem", STEMS)
def test_every_widget_is_followed_by_a_note_in_the_pages_language(stem, lang):
    nb = read(lang, stem)
    widgets = sum(classroom.shows_a_widget(c) for c in nb.cells)
    assert widgets >= 1  # every lesson has a widget
    for page in (classroom.for_site(nb, lang), classroom.for_slides(nb, lang)):
        cells = page.cells
        notes = [i for i, c in enumerate(cells) if "course-widget-note" in c.source]
        assert len(notes) == widgets
        assert all(classroom.shows_a_widget(cells[i - 1]) for i in notes)
        assert all(classroom.TEXTS[lang]["widget_note"] in cells[i].source for i in notes)


def test_site_page_shows_the_widget_note(site):
    page = (site / "ko" / "00_start_here.html").read_text(encoding="utf-8")
    assert 'class="course-widget-note"' in page
    assert classroom.TEXTS["ko"]["widget_note"] in page


# --- figures, symbols and speaker notes --------------------------------------------------------

@pytest.mark.parametrize("lang", LANGS)
def test_every_figure_has_alt_text_in_the_pages_language(site, decks, lang):
    stem = "13_attention_at_scale"
    for page in (site / lang / f"{stem}.html", decks / lang / f"{stem}.slides.html"):
        text = page.read_text(encoding="utf-8")
        alts = re.findall(r'<img[^>]*\salt="([^"]*)"', text)
        images = len(re.findall(r"<img\s", text))
        assert images >= 4 and len(alts) == images, (page.name, images, len(alts))
        assert "No description has been provided" not in text
        word = classroom.TEXTS[lang]["figure"]
        assert all(alt.startswith(f"{word}: ") for alt in alts), alts[:3]
        title = classroom.title_of(read(lang, stem))
        assert all(html_unescape(alt).startswith(f"{word}: {title}") for alt in alts)
        if lang == "ko":
            assert all(classroom.hangul_in([alt]) for alt in alts)
        else:
            assert not any(classroom.hangul_in([alt]) for alt in alts)


def html_unescape(text: str) -> str:
    import html

    return html.unescape(text)


def test_figure_alt_names_the_section_and_the_cells_comment():
    nb = nbformat.v4.new_notebook()
    nb.cells = [nbformat.v4.new_markdown_cell("# 03. Scaling"),
                nbformat.v4.new_markdown_cell("text\n\n## 2. The **histogram**"),
                nbformat.v4.new_code_cell("# the spread at d_k = 256\nax = plot()")]
    nb.cells[2].outputs = [nbformat.v4.new_output(
        "display_data", data={"image/png": "iVBORw0KGgo=", "text/plain": "<Figure>"})]
    page = classroom.for_site(nb, "en")
    alt = page.cells[2].outputs[0].metadata["image/png"]["alt"]
    assert alt == "Figure: 03. Scaling · 2. The histogram — the spread at d_k = 256"


@pytest.mark.parametrize("lang", LANGS)
def test_widget_notes_carry_the_widget_pictures_alt_text(lang):
    nb = read(lang, "12_positions")
    for page in (classroom.for_site(nb, lang), classroom.for_slides(nb, lang)):
        notes = [c.source for c in page.cells if "course-widget-note" in c.source]
        assert notes and all('data-alt="' + classroom.TEXTS[lang]["figure"] + ": " in n
                             for n in notes)
    for name in ("course_lab", "course_reveal"):
        template = (classroom.TEMPLATES / name / "index.html.j2").read_text(encoding="utf-8")
        assert "courseWidgetAlt" in template and "note.dataset.alt" in template


def test_symbol_font_draws_the_feedback_symbols():
    from fontTools.ttLib import TTFont

    css = classroom.symbol_font_css()
    assert 'font-family: "CourseSymbols"' in css
    data = re.search(r"base64,([A-Za-z0-9+/=]+)", css).group(1)
    cmap = TTFont(io.BytesIO(base64.b64decode(data))).getBestCmap()
    for shown, drawn_as in classroom.SYMBOLS.items():
        assert cmap[ord(shown)] == cmap[ord(drawn_as)], shown
    assert ord("A") not in cmap and len(data) < 20_000  # only the symbols: small
    assert "var(--course-symbols)" in classroom.COURSE_CSS
    assert '"CourseSymbols"' in classroom.COURSE_CSS


def test_site_css_embeds_the_symbol_font(site):
    css = (site / "_static" / "course.css").read_text(encoding="utf-8")
    assert 'font-family: "CourseSymbols"' in css


def test_feedback_template_gets_the_symbol_font(tmp_path):
    import assignments
    import jinja2

    template = (ROOT / "tools" / "feedback_template" / "index.html.j2").read_text(
        encoding="utf-8")
    assert "[[symbols]]" in template and '"CourseSymbols"' in template
    assignments.write_feedback_template(tmp_path, "ko")
    written = (tmp_path / "feedback_template" / assignments.FEEDBACK_NAME / "index.html.j2")
    text = written.read_text(encoding="utf-8")
    assert "[[symbols]]" not in text and classroom.symbol_font_css().strip() in text
    jinja2.Environment().parse(text)  # still a template nbgrader can read


@pytest.mark.parametrize("lang", LANGS)
def test_guide_gives_every_lesson_speaker_notes(lang):
    notes = classroom.guide_notes(lang)
    assert set(notes) == {stem[:2] for stem in STEMS}
    ask = classroom.NOTE_LABELS[lang][0]
    for number, text in notes.items():
        assert f"**{ask}**" in text, number
        assert "**Answer**" not in text and "**답**" not in text  # no exercise answers


@pytest.mark.parametrize("lang", LANGS)
def test_decks_carry_the_guides_notes_on_the_title_and_exercise_slides(decks, lang):
    stem = "03_scaling"
    page = (decks / lang / f"{stem}.slides.html").read_text(encoding="utf-8")
    asides = re.findall(r'<aside class="notes">(.*?)</aside>', page, flags=re.S)
    exercises = sum("exercise" in classroom.tags(c) for c in read(lang, stem).cells)
    assert exercises >= 1 and len(asides) == 1 + exercises
    label = classroom.NOTE_LABELS[lang][1]  # "Watch for" / "조심할 점"
    assert all(label in aside for aside in asides)
    nb = classroom.for_slides(read(lang, stem), lang, "notes")
    assert classroom.count_slides(nb) == classroom.count_slides(
        classroom.for_slides(read(lang, stem), lang))  # notes add no slide
