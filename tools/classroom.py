"""The classroom kit: student copies, slide decks and a static site, all usable offline.

    python tools/classroom.py student   # build/student/{ko,en}/*.ipynb without solution cells
    python tools/classroom.py slides    # build/slides/{ko,en}/*.slides.html (reveal.js decks)
    python tools/classroom.py html      # build/site/index.html and {ko,en}/*.html
    python tools/classroom.py look      # open the decks and the site in headless Chromium

``make student``, ``make slides`` and ``make html`` call the first three.

Student copies
    Each executed notebook under ``notebooks/{ko,en}/`` with every cell tagged ``solution``
    removed. Nothing else changes (cells, outputs, metadata, widget state), so the exercise
    cells still show "not answered yet" and the copies run top to bottom.

Slides and site
    nbconvert turns the executed notebooks into HTML (templates in
    ``tools/classroom_templates/``). The widgets' saved state is embedded, so the sliders
    show the picture they were saved with. Nothing is loaded from the internet: reveal.js,
    require.js, jQuery, MathJax 3 and the widget manager ``@jupyter-widgets/html-manager``
    are copied into ``_static/`` beside the pages, with the NanumGothic font that pip
    installed (``koreanize-matplotlib``), so Hangul shows even on a machine without a Korean
    font. The folder can be copied to a USB stick and opened from ``file://``.

    The JavaScript comes from the npm registry, fetched once with ``npm pack`` (Node.js
    needed, any recent version) into ``build/vendor/``; later builds reuse it. Copying
    ``build/vendor/`` from a machine that has npm is enough. There is no fallback to a CDN:
    pages that load scripts from a third-party server run whatever it serves (nothing ties
    those files to the versions tested here), and they do not work offline.

    Solutions are shipped as raw cells (Run All skips them; nothing of them is saved). On
    the site a solution is its code, folded under "Show the solution", without its result;
    in the decks it becomes a slide of its own below the exercise, so the answer is not on
    the screen while the class works on it. Navigation is linear: →
    walks every slide in order, sub-slides included. A cell that only prints texts of the
    language table shows its output without its code. On the decks and the site, a note
    in the page's language follows each widget: with no kernel, its control moves but the
    picture stays.
"""

from __future__ import annotations

import argparse
import copy
import html
import importlib.util
import json
import logging
import os
import re
import shutil
import subprocess
import sys
import tarfile
import tempfile
from dataclasses import dataclass
from pathlib import Path

import nbformat

ROOT = Path(__file__).resolve().parent.parent
NOTEBOOKS = ROOT / "notebooks"
BUILD = ROOT / "build"
VENDOR = BUILD / "vendor"
TEMPLATES = Path(__file__).resolve().parent / "classroom_templates"
LANGS = ("ko", "en")
LESSON_GLOB = "[0-9][0-9]_*.ipynb"
SLIDE_STARTS = ("slide", "subslide")

# The JavaScript the pages need, as npm packages: (package, version, files to copy).
# Each file is (path inside the package, path under _static/).
NPM_PACKAGES = {
    "reveal.js": ("4.6.1", [("dist", "reveal.js/dist"),
                            ("plugin/notes", "reveal.js/plugin/notes")]),
    "@jupyter-widgets/html-manager": ("1.0.15", [("dist", "html-manager")]),
    "requirejs": ("2.3.7", [("require.js", "require.js")]),
    "jquery": ("3.7.1", [("dist/jquery.min.js", "jquery.min.js")]),
    "mathjax": ("3.2.2", [("es5/tex-svg.js", "mathjax/tex-svg.js")]),
}
SKIP_SUFFIXES = (".map", ".esm.js")  # source maps and ES-module builds are not loaded

TEXTS = {
    "ko": {"home": "목차", "prev": "이전", "next": "다음", "other": "English",
           "solution": "풀이 보기", "lessons": "레슨", "slides": "슬라이드",
           "title": "어텐션 Q·K·V 실습 코스", "figure": "그림",
           "widget_note": "이 페이지에는 실행 중인 파이썬이 없어서, 컨트롤을 움직여도 그림과 글이 "
                          "바뀌지 않아요. JupyterLab에서 노트북을 실행하면 움직여요."},
    "en": {"home": "Contents", "prev": "Previous", "next": "Next", "other": "한국어",
           "solution": "Show the solution", "lessons": "Lessons", "slides": "Slides",
           "title": "Hands-on Q/K/V attention", "figure": "Figure",
           "widget_note": "No Python runs behind this page: moving the control changes neither "
                          "the picture nor the text. Run the notebook in JupyterLab to use it."},
}
WIDGET_MIME = "application/vnd.jupyter.widget-view+json"


# --- lessons --------------------------------------------------------------------------------

def lesson_paths(lang: str, notebooks: Path = NOTEBOOKS) -> list[Path]:
    """The lesson notebooks of one language, in course order."""
    return sorted((notebooks / lang).glob(LESSON_GLOB))


def tags(cell) -> list[str]:
    return list(cell.get("metadata", {}).get("tags", []))


def is_solution(cell) -> bool:
    return "solution" in tags(cell)


def title_of(nb) -> str:
    """The lesson's title: the first ``# `` heading of its first markdown cell."""
    for cell in nb.cells:
        if cell.cell_type == "markdown":
            for line in cell.source.splitlines():
                if line.startswith("# "):
                    return line[2:].strip()
    return ""


def slide_type(cell) -> str:
    return cell.get("metadata", {}).get("slideshow", {}).get("slide_type", "-")


def count_slides(nb) -> int:
    """The number of slides (and sub-slides) reveal.js shows for ``nb``.

    A cell of type "slide" or "subslide" starts one; "skip" and "notes" cells are not shown,
    and the first shown cell always starts a slide.

    >>> nb = nbformat.v4.new_notebook()
    >>> nb.cells = [nbformat.v4.new_markdown_cell("# T"), nbformat.v4.new_code_cell("x")]
    >>> nb.cells[1].metadata.slideshow = {"slide_type": "slide"}
    >>> count_slides(nb)
    2
    """
    count = 0
    for cell in nb.cells:
        kind = slide_type(cell)
        if kind in ("skip", "notes"):
            continue
        if kind in SLIDE_STARTS or count == 0:
            count += 1
    return count


def relink(source: str, suffix: str) -> str:
    """Point markdown links to sibling lessons (``NN_stem.ipynb``) at ``NN_stem{suffix}``.

    >>> relink("[next](04_softmax.ipynb) and [x](http://a/b.ipynb)", ".html")
    '[next](04_softmax.html) and [x](http://a/b.ipynb)'
    """
    return re.sub(r"\]\((\d\d_[\w-]+)\.ipynb(#[^)]*)?\)",
                  lambda m: f"]({m.group(1)}{suffix}{m.group(2) or ''})", source)


# --- student copies -------------------------------------------------------------------------

def without_solutions(nb):
    """A copy of ``nb`` with every cell tagged ``solution`` removed; nothing else changes."""
    out = copy.deepcopy(nb)
    out.cells = [cell for cell in out.cells if not is_solution(cell)]
    return out


def build_student(out: Path = BUILD / "student", notebooks: Path = NOTEBOOKS) -> list[Path]:
    """Write the student copies to ``out/{ko,en}/``; return the paths written."""
    written = []
    for lang in LANGS:
        folder = out / lang
        if folder.exists():
            shutil.rmtree(folder)
        folder.mkdir(parents=True)
        for path in lesson_paths(lang, notebooks):
            nb = nbformat.read(path, as_version=4)
            removed = sum(is_solution(c) for c in nb.cells)
            target = folder / path.name
            nbformat.write(without_solutions(nb), target)
            written.append(target)
            print(f"wrote {_show(target)} ({removed} solution cell(s) removed)")
    return written


# --- offline assets -------------------------------------------------------------------------

@dataclass
class Assets:
    """Where a page finds its scripts: ``static`` is the URL of ``_static/`` seen from it."""

    static: str

    def urls(self) -> dict[str, str]:
        s = self.static
        return {"require_js": f"{s}/require.js", "jquery_js": f"{s}/jquery.min.js",
                "widgets_js": f"{s}/html-manager/embed-amd.js",
                "mathjax": f"{s}/mathjax/tex-svg.js", "reveal": f"{s}/reveal.js",
                "css": f"{s}/course.css"}


def _tarball(name: str, version: str) -> Path:
    """The npm tarball of ``name@version`` in build/vendor/, fetched with npm if missing."""
    stem = name.lstrip("@").replace("/", "-")
    path = VENDOR / f"{stem}-{version}.tgz"
    if not path.exists():
        npm = shutil.which("npm")
        if npm is None:
            raise FileNotFoundError("npm")
        VENDOR.mkdir(parents=True, exist_ok=True)
        # Packed into a folder of its own, then moved into place in one step: another
        # process (a second test worker, make slides beside make assignments) that finds
        # the file finds it whole, never half written.
        with tempfile.TemporaryDirectory(dir=VENDOR) as tmp:
            subprocess.run([npm, "pack", f"{name}@{version}", "--silent",
                            "--pack-destination", tmp], check=True,
                           stdout=subprocess.DEVNULL)
            os.replace(Path(tmp) / path.name, path)
    return path


def fetch_vendor() -> None:
    """Make sure build/vendor/ holds every npm tarball, or say clearly how to get them."""
    try:
        for name, (version, _files) in NPM_PACKAGES.items():
            _tarball(name, version)
    except (FileNotFoundError, subprocess.CalledProcessError) as error:
        raise RuntimeError(
            f"could not fetch the pages' JavaScript with npm ({error}). Install Node.js (npm) "
            f"and build again, or copy {_show(VENDOR)}/ from a machine that has npm "
            f"(it holds {', '.join(NPM_PACKAGES)})") from None


def _extract(tgz: Path, inner: str, dest: Path) -> None:
    """Copy ``package/<inner>`` (a file or a folder) from an npm tarball to ``dest``."""
    prefix = f"package/{inner}"
    with tarfile.open(tgz) as tar:
        members = [m for m in tar.getmembers() if m.isfile()
                   and (m.name == prefix or m.name.startswith(prefix + "/"))
                   and not m.name.endswith(SKIP_SUFFIXES)]
        if not members:
            raise FileNotFoundError(f"{inner} is not in {tgz.name}")
        for member in members:
            rel = member.name[len(prefix):].lstrip("/")
            target = _inside(dest, rel, member, tgz)
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_bytes(tar.extractfile(member).read())


def _inside(dest: Path, rel: str, member: tarfile.TarInfo, tgz: Path) -> Path:
    """Where ``member`` goes (``dest/rel``), or a ValueError if that is outside ``dest``.

    A crafted tarball can name a member ``package/dist/../../x``: written as it is named, it
    lands outside the folder. tarfile's ``data`` filter (Python 3.12, 3.11.4+ and other
    patched versions) rejects such names, absolute paths and special files; the check
    after it, that the resolved path stays in ``dest``, is the same rule for any Python.
    """
    if hasattr(tarfile, "data_filter"):
        try:
            tarfile.data_filter(member, str(dest))  # the whole name, from the package root
            if rel:
                tarfile.data_filter(member.replace(name=rel, deep=False), str(dest))
        except tarfile.FilterError as error:
            raise ValueError(f"{tgz.name}: refusing member {member.name!r}: {error}") from None
    root = dest.resolve()
    target = (dest / rel).resolve() if rel else root
    if target != root and root not in target.parents:
        raise ValueError(f"{tgz.name}: refusing member {member.name!r}, which would be "
                         f"written outside {dest}")
    return dest / rel if rel else dest


def korean_font_files() -> list[Path]:
    """NanumGothic (regular and bold) from the pip package koreanize-matplotlib."""
    spec = importlib.util.find_spec("koreanize_matplotlib")
    folders = list(spec.submodule_search_locations or []) if spec else []
    files = []
    for folder in folders:
        for name in ("NanumGothic.ttf", "NanumGothicBold.ttf"):
            if (Path(folder) / "fonts" / name).exists():
                files.append(Path(folder) / "fonts" / name)
    return files


COURSE_CSS = """\
/* The course's additions to nbconvert's styles (tools/classroom.py). */
:root {
  --course-symbols: "Apple Color Emoji", "Segoe UI Emoji", "Noto Color Emoji", "CourseSymbols";
  --jp-ui-font-family: system-ui, -apple-system, "Segoe UI", Roboto, "Noto Sans KR",
                       "Malgun Gothic", "Apple SD Gothic Neo", "NanumGothic", sans-serif,
                       var(--course-symbols);
  --jp-content-font-family: var(--jp-ui-font-family);
  --jp-code-font-family: "DejaVu Sans Mono", Menlo, Consolas, monospace, "NanumGothic",
                         var(--course-symbols);
}
body { font-family: var(--jp-ui-font-family); }
.course-nav { max-width: 1100px; margin: 8px auto 0; padding: 6px 20px;
              font-family: var(--jp-ui-font-family); font-size: 15px; }
.course-solution { border-left: 4px solid #009E73; margin: 6px 0; padding-left: 6px; }
.course-solution > summary { cursor: pointer; font-family: var(--jp-ui-font-family);
                             padding: 4px; color: #006d4f; }
/* A widget's picture at the size its layout gives (not stretched to the page), as in
   JupyterLab; its PNG has 1.5 times the pixels each way
   (qkv_helpers.classroom.widgets._live.SHARPNESS). */
img.widget-image { height: auto; max-width: 100%; align-self: flex-start; }
/* Slides: a 1280 x 720 projector; headings as written (no capitals); Korean fallback font. */
html:root {
  --r-main-font: "Source Sans Pro", Helvetica, "Noto Sans KR", "NanumGothic", sans-serif,
                 var(--course-symbols);
  --r-heading-font: var(--r-main-font);
  --r-main-font-size: 28px;
  --r-code-font: var(--jp-code-font-family);
  --r-heading-text-transform: none;
  --r-heading1-size: 1.8em;
  --r-heading2-size: 1.4em;
  --r-heading3-size: 1.15em;
  --r-block-margin: 12px;
}
.reveal .widget-label, .reveal .widget-readout, .reveal .jupyter-widgets {
  font-family: var(--r-main-font);
}
.reveal .jp-RenderedHTMLCommon { font-size: 0.85em; line-height: 1.35; }
.reveal .jp-RenderedHTMLCommon table { font-size: 0.8em; }
.reveal .jp-CodeCell { font-size: 0.85em; }
/* No "In [3]:" prompts on a slide: the code gets the whole width. */
.reveal .jp-InputPrompt, .reveal .jp-OutputPrompt { display: none; }
/* Plots fill the slide's width as far as a 720 px slide allows, centred (15.5em: 434 px at
   the deck's 28 px, smaller with the slide's font when the deck shrinks a slide to fit);
   a widget's picture keeps the size its layout gives (not distorted by a height limit). */
.reveal .jp-RenderedImage img { display: block; margin: 0 auto; width: auto; height: 15.5em;
                                max-width: 100%; object-fit: contain; }
.reveal img.widget-image { max-height: none; }
/* Printed text (tables of numbers) in one monospace font, Hangul two columns wide. An error
   message, and printed lines still too wide at the smallest font a slide may take
   (courseFit in the deck's template), wrap at the slide's edge rather than being cut. */
.reveal .jp-OutputArea-output pre { font-family: var(--jp-code-font-family);
                                    font-size: 0.75em; line-height: 1.3; white-space: pre; }
.reveal .jp-OutputArea-output[data-mime-type="application/vnd.jupyter.stderr"] pre,
.reveal .jp-OutputArea-output[data-mime-type="application/vnd.jupyter.error"] pre,
.reveal .jp-RenderedText[data-mime-type="application/vnd.jupyter.stderr"] pre,
.reveal .course-wrap .jp-OutputArea-output pre { white-space: pre-wrap;
                                                  overflow-wrap: anywhere; }
/* The quiz (lesson 10): its ten questions in two columns, the score below them, drawn at
   85 % (its widgets' sizes are in px: the slide's smaller font does not reach them). */
.reveal .course-quiz { display: grid !important; grid-template-columns: 1fr 1fr;
                       column-gap: 32px; zoom: 0.85; }
.reveal .course-quiz > :last-child { grid-column: 1 / -1; }
.course-widget-note { font-size: 0.8em; color: #555; border-left: 4px solid #E69F00;
                      padding: 2px 8px; margin: 4px 0; }
/* A slide that is still too tall scrolls instead of being cut off. */
.reveal .slides > section > section, .reveal .slides > section:not(.stack) {
  max-height: 720px; overflow-y: auto;
}
.course-index { max-width: 1000px; margin: 30px auto; padding: 0 20px;
                font-family: var(--jp-ui-font-family); line-height: 1.5; }
.course-index table { border-collapse: collapse; width: 100%; }
.course-index td, .course-index th { border-bottom: 1px solid #ddd; padding: 6px 8px;
                                     text-align: left; }
"""


def hangul_in(texts) -> set[str]:
    """The Korean characters (syllables, jamo, CJK punctuation) in some texts.

    >>> sorted(hangul_in(["고양이 cat", "「ㄱ」"]))
    ['「', '」', 'ㄱ', '고', '양', '이']
    """
    ranges = ((0x1100, 0x11FF), (0x3000, 0x303F), (0x3130, 0x318F), (0xAC00, 0xD7A3))
    used = set().union(*(set(text) for text in texts))  # each character once, not once per use
    return {c for c in used if any(a <= ord(c) <= b for a, b in ranges)}


def font_face_css(chars: set[str]) -> str:
    """``@font-face`` rules for NanumGothic cut down to ``chars``, embedded as data URLs.

    Chromium refuses fonts from ``file://`` URLs, so a font file beside the pages would not
    load offline; a subset holding only the Hangul the pages use is small enough to embed.
    """
    import base64
    import io

    from fontTools import subset

    logging.getLogger("fontTools").setLevel(logging.ERROR)  # "TSI5 NOT subset" and such
    rules = []
    for path in korean_font_files():
        options = subset.Options()
        options.layout_features = ["*"]
        font = subset.load_font(str(path), options)
        subsetter = subset.Subsetter(options)
        subsetter.populate(unicodes=sorted(ord(c) for c in chars | {" "}))
        subsetter.subset(font)
        buffer = io.BytesIO()
        font.save(buffer)
        data = base64.b64encode(buffer.getvalue()).decode("ascii")
        weight = "bold" if "Bold" in path.stem else "normal"
        rules.append(f'@font-face {{ font-family: "NanumGothic"; font-weight: {weight}; '
                     f'src: url("data:font/ttf;base64,{data}") format("truetype"); }}')
    return "\n".join(rules) + "\n"


# The feedback symbols the checkers print (qkv_helpers.classroom.checks): ✅ ❌ ✏️. They are
# emoji, in no font the course ships; on a machine without an emoji font they are empty boxes. The
# pages list the usual emoji fonts first, then "CourseSymbols": matplotlib's DejaVu Sans
# (always installed with the course) cut down to its ✔ ✖ ✏, with ✅ drawn as ✔ and ❌ as
# ✖ — plain outlines every browser draws, embedded like NanumGothic.
SYMBOLS = {"\u2705": "\u2714", "\u274c": "\u2716", "\u270f": "\u270f"}  # shown: drawn as


def symbol_font_css() -> str:
    """An ``@font-face`` rule for "CourseSymbols" (see :data:`SYMBOLS`), as a data URL."""
    import base64
    import io

    import matplotlib
    from fontTools import subset

    logging.getLogger("fontTools").setLevel(logging.ERROR)
    path = Path(matplotlib.get_data_path()) / "fonts" / "ttf" / "DejaVuSans.ttf"
    options = subset.Options()
    options.layout_features = []
    options.name_IDs = []  # no names: the page calls it by the @font-face name
    font = subset.load_font(str(path), options)
    subsetter = subset.Subsetter(options)
    subsetter.populate(unicodes=[ord(c) for c in set(SYMBOLS.values())] + [0xFE0F])
    subsetter.subset(font)
    for table in font["cmap"].tables:
        if table.isUnicode():
            for shown, drawn_as in SYMBOLS.items():
                table.cmap[ord(shown)] = table.cmap[ord(drawn_as)]
    buffer = io.BytesIO()
    font.save(buffer)
    data = base64.b64encode(buffer.getvalue()).decode("ascii")
    return (f'@font-face {{ font-family: "CourseSymbols"; '
            f'src: url("data:font/ttf;base64,{data}") format("truetype"); }}\n')


def install_static(static: Path, chars: set[str]) -> None:
    """Fill ``static`` (a page folder's ``_static/``) with the CSS (NanumGothic for
    ``chars`` embedded) and the JavaScript from the npm tarballs."""
    if static.exists():
        shutil.rmtree(static)
    static.mkdir(parents=True)
    (static / "course.css").write_text(font_face_css(chars) + symbol_font_css() + COURSE_CSS,
                                       encoding="utf-8")
    for name, (version, files) in NPM_PACKAGES.items():
        for inner, dest in files:
            _extract(_tarball(name, version), inner, static / dest)


# --- HTML -----------------------------------------------------------------------------------

def _exporter(kind: str, assets: Assets):
    from nbconvert import HTMLExporter, SlidesExporter

    common = dict(extra_template_basedirs=[str(TEMPLATES)])
    if kind == "slides":
        exporter = SlidesExporter(template_name="course_reveal",
                                  reveal_url_prefix=assets.urls()["reveal"],
                                  reveal_theme="white", reveal_transition="none",
                                  reveal_width="1280", reveal_height="720",
                                  reveal_number="c/t", **common)
    else:
        exporter = HTMLExporter(template_name="course_lab", **common)
    return exporter


# MathJax 3. The widget manager still calls MathJax 2's MathJax.Hub.Queue to typeset labels:
# a small stand-in forwards that to MathJax 3.
MATHJAX_HEAD = """<script>
window.MathJax = {
  tex: {inlineMath: [['$', '$'], ['\\\\(', '\\\\)']],
        displayMath: [['$$', '$$'], ['\\\\[', '\\\\]']], processEscapes: true},
  svg: {fontCache: 'global'},
  startup: {
    ready: function () {
      MathJax.startup.defaultReady();
      MathJax.Hub = {Queue: function (job) {
        if (job && job[2] && MathJax.typesetPromise) { MathJax.typesetPromise([job[2]]); }
      }};
    }
  },
  Hub: {Queue: function () {}}
};
</script>
<script src="%s" async></script>"""


def _course_resources(lang: str, stem: str, stems: list[str], suffix: str,
                      assets: Assets) -> dict:
    text = TEXTS[lang]
    other = "en" if lang == "ko" else "ko"
    index = stems.index(stem)
    course = dict(assets.urls(), home_label=text["home"], solution_label=text["solution"],
                  prev_label=text["prev"], next_label=text["next"],
                  other_label=text["other"], other_lang=other,
                  mathjax_head=MATHJAX_HEAD % html.escape(assets.urls()["mathjax"]),
                  other=f"../{other}/{stem}{suffix}",
                  prev=f"{stems[index - 1]}{suffix}" if index > 0 else "",
                  next=f"{stems[index + 1]}{suffix}" if index + 1 < len(stems) else "")
    return {"course": course, "metadata": {"name": stem}}


def shows_a_widget(cell) -> bool:
    """True for a code cell whose output is a widget."""
    return cell.cell_type == "code" and any(
        WIDGET_MIME in output.get("data", {}) for output in cell.get("outputs", []))


def _widget_note(lang: str, alt: str = ""):
    """A markdown cell saying, in ``lang``, that this page's widget needs a running kernel.

    ``alt`` is the widget picture's alt text: the widget manager draws the picture without
    one, and the page's script (``courseWidgetAlt`` in the templates) copies it from here.
    """
    data = f' data-alt="{html.escape(alt)}"' if alt else ""
    note = nbformat.v4.new_markdown_cell(
        f'<p class="course-widget-note"{data}>{html.escape(TEXTS[lang]["widget_note"])}</p>')
    note.metadata["slideshow"] = {"slide_type": "-"}  # on the widget's slide
    return note


def solution_as_code(cell):
    """A solution (shipped as a raw cell, which Run All skips) as a code cell with no
    output, so that a page shows it highlighted, folded, without its result."""
    code = nbformat.v4.new_code_cell(cell.source)
    code.metadata = copy.deepcopy(cell.metadata)
    if "id" in cell:
        code.id = cell.id
    return code


def _plain(markdown: str) -> str:
    """A line of markdown as plain text: no heading marks, emphasis, code ticks or links.

    >>> _plain("## 2. **Tiled** `attention` [here](x.ipynb)")
    '2. Tiled attention here'
    """
    text = re.sub(r"\[([^\]]*)\]\([^)]*\)", r"\1", markdown.lstrip("#").strip())
    return re.sub(r"[*_`]+", "", text).strip()


def figure_alt(lang: str, title: str, heading: str, code: str) -> str:
    r"""The alt text of a figure, in the lesson's language: where it is and what made it.

    The lesson's title, the section's heading and the code cell's first comment, which
    says what the cell shows (a plot's own title is not kept in its PNG).

    >>> figure_alt("en", "13. Attention at scale", "1. A cost", "# the slope\nax = plot()")
    'Figure: 13. Attention at scale · 1. A cost — the slope'
    >>> figure_alt("ko", "03. 스케일링", "", "ax = qk.plots.plot_score_histogram(256)")
    '그림: 03. 스케일링'
    """
    where = " · ".join(part for part in (title, heading) if part)
    first = code.strip().splitlines()[0] if code.strip() else ""
    comment = first.lstrip("#").strip() if first.startswith("#") else ""
    return f"{TEXTS[lang]['figure']}: {where}" + (f" — {comment}" if comment else "")


def _for_pages(nb, lang: str, suffix: str):
    """A copy of ``nb`` with links to other lessons ending in ``suffix``, solutions as code
    cells without output, alt text in ``lang`` on every figure (:func:`figure_alt`), and,
    after each widget, a note that it does not move without a kernel."""
    out = copy.deepcopy(nb)
    cells = []
    title, heading = title_of(out), ""
    for cell in out.cells:
        if cell.cell_type == "markdown":
            headings = [line for line in cell.source.splitlines() if line.startswith("#")]
            if headings and not headings[-1].startswith("# "):
                heading = _plain(headings[-1])
            cell.source = relink(cell.source, suffix)
        if cell.cell_type == "code":
            for output in cell.get("outputs", []):
                if "image/png" in output.get("data", {}):
                    meta = output.setdefault("metadata", {}).setdefault("image/png", {})
                    meta["alt"] = figure_alt(lang, title, heading, cell.source)
        if is_solution(cell) and cell.cell_type == "raw":
            cell = solution_as_code(cell)
        cells.append(cell)
        if shows_a_widget(cell):
            cells.append(_widget_note(lang, figure_alt(lang, title, heading, cell.source)))
    out.cells = cells
    return out


GUIDE = ROOT / "docs" / "teacher-guide.{lang}.md"
# The teacher guide's bullets that become speaker notes: its questions for the class and the
# misconceptions to watch for (not its answers to the exercises: a deck may be handed out).
NOTE_LABELS = {"ko": ("질문", "조심할 점", "주의할 오해"), "en": ("Ask", "Watch for")}


def guide_notes(lang: str, guide: Path | None = None) -> dict[str, str]:
    """The speaker notes of each lesson, from the teacher guide in ``lang``: lesson number
    ("03") → its "Ask" and "Watch for" bullets (markdown), in the guide's words.

    >>> notes = guide_notes("en")
    >>> notes["03"].startswith("**Ask**") and "**Watch for**" in notes["03"]
    True
    >>> "**질문**" in guide_notes("ko")["03"]
    True
    """
    path = guide or Path(str(GUIDE).format(lang=lang))
    notes: dict[str, list[str]] = {}
    lesson, keep = None, False
    for line in path.read_text(encoding="utf-8").splitlines():
        if line.startswith("#"):
            match = re.match(r"### (\d\d)\. ", line)
            lesson, keep = (match.group(1) if match else None), False
        elif lesson and line.startswith("- "):
            keep = any(line.startswith(f"- **{label}**") for label in NOTE_LABELS[lang])
            if keep:
                notes.setdefault(lesson, []).append(line[2:].strip())
        elif lesson and keep and line.startswith("  "):
            notes[lesson][-1] += " " + line.strip()
        elif not line.strip():
            keep = False
    return {number: "\n\n".join(items) for number, items in notes.items()}


def _speaker_notes(text: str):
    """A cell reveal.js shows only in its speaker view (press S): ``<aside class="notes">``."""
    cell = nbformat.v4.new_markdown_cell(text)
    cell.metadata["slideshow"] = {"slide_type": "notes"}
    return cell


def for_slides(nb, lang: str = "en", notes: str | None = None):
    """A copy of ``nb`` ready for a deck: solution cells on a sub-slide of their own, links
    to other lessons pointing at their decks, a note after each widget (see :func:`for_site`).
    Every code cell keeps its code: lesson cells print their own words (no ``qk.t``).

    notes : speaker notes (markdown; e.g. the lesson's from :func:`guide_notes`), put on the
        title slide and on every exercise's slide, where the class meets the mistakes.
    """
    out = _for_pages(nb, lang, ".slides.html")
    cells = []
    for index, cell in enumerate(out.cells):
        if is_solution(cell) and slide_type(cell) not in SLIDE_STARTS + ("skip",):
            cell.metadata["slideshow"] = {"slide_type": "subslide"}
        cells.append(cell)
        if notes and (index == 0 or "exercise" in tags(cell)):
            cells.append(_speaker_notes(notes))
    out.cells = cells
    return out


def for_site(nb, lang: str = "en"):
    """A copy of ``nb`` whose links to other lessons point at their pages, with a note in
    ``lang`` after each widget: the page has no kernel, so its control moves but the
    picture and the caption stay as they were saved."""
    return _for_pages(nb, lang, ".html")


def _write_index(out: Path, entries: dict[str, list[tuple[str, str]]], suffix: str,
                 heading: str) -> Path:
    """A bilingual index page: one table, a row per lesson, a link per language."""
    rows = []
    stems = [stem for stem, _ in entries["ko"]]
    titles = {lang: dict(entries[lang]) for lang in LANGS}
    for stem in stems:
        cells = "".join(
            f'<td lang="{lang}"><a href="{lang}/{stem}{suffix}">'
            f"{html.escape(titles[lang].get(stem, stem))}</a></td>" for lang in LANGS)
        rows.append(f"<tr><td><code>{stem[:2]}</code></td>{cells}</tr>")
    page = f"""<!DOCTYPE html>
<html lang="ko">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1.0">
<title>{TEXTS['ko']['title']} · {TEXTS['en']['title']} · {heading}</title>
<link rel="stylesheet" href="_static/course.css">
</head>
<body>
<main class="course-index">
<h1>{TEXTS['ko']['title']} · {TEXTS['en']['title']}</h1>
<p>{heading}</p>
<table>
<thead><tr><th>#</th><th lang="ko">한국어</th><th lang="en">English</th></tr></thead>
<tbody>
{chr(10).join(rows)}
</tbody>
</table>
</main>
</body>
</html>
"""
    path = out / "index.html"
    path.write_text(page, encoding="utf-8")
    return path


def build_pages(kind: str, out: Path, notebooks: Path = NOTEBOOKS,
                stems: list[str] | None = None) -> list[Path]:
    """Build the decks (``kind="slides"``) or the site (``kind="html"``) into ``out``.

    stems : only these lessons (default: all).
    """
    if kind not in ("slides", "html"):
        raise ValueError(f"kind must be 'slides' or 'html', got {kind!r}")
    fetch_vendor()  # before anything is written: without the JavaScript, no pages
    out.mkdir(parents=True, exist_ok=True)
    suffix = ".slides.html" if kind == "slides" else ".html"
    assets = Assets(static="../_static")
    exporter = _exporter(kind, assets)
    written, entries = [], {}
    for lang in LANGS:
        notes = guide_notes(lang) if kind == "slides" else {}
        folder = out / lang
        if folder.exists():
            shutil.rmtree(folder)
        folder.mkdir(parents=True)
        paths = [p for p in lesson_paths(lang, notebooks) if stems is None or p.stem in stems]
        all_stems = [p.stem for p in paths]
        entries[lang] = []
        for path in paths:
            nb = nbformat.read(path, as_version=4)
            entries[lang].append((path.stem, title_of(nb)))
            nb = (for_slides(nb, lang, notes.get(path.stem[:2])) if kind == "slides"
                  else for_site(nb, lang))
            resources = _course_resources(lang, path.stem, all_stems, suffix, assets)
            exporter.language_code = lang  # <html lang=...>: the browser picks Korean glyphs
            body, _ = exporter.from_notebook_node(nb, resources=resources)
            target = folder / f"{path.stem}{suffix}"
            target.write_text(body, encoding="utf-8")
            written.append(target)
            extra = f" ({count_slides(nb)} slides)" if kind == "slides" else ""
            print(f"wrote {_show(target)}{extra}")
    heading = ("슬라이드 · Slides" if kind == "slides"
               else "노트북 (실행 결과 포함) · Notebooks, executed")
    written.append(_write_index(out, entries, suffix, heading))
    texts = [p.read_text(encoding="utf-8") for lang in LANGS
             for p in lesson_paths(lang, notebooks)]  # widget state included
    texts += [p.read_text(encoding="utf-8") for p in written]
    texts = [json.dumps(json.loads(t), ensure_ascii=False) if t.startswith("{") else t
             for t in texts]
    install_static(out / "_static", hangul_in(texts))
    print(f"wrote {_show(written[-1])}")
    return written


def _show(path: Path) -> str:
    try:
        return str(path.relative_to(ROOT))
    except ValueError:
        return str(path)


# --- looking at it in a browser -------------------------------------------------------------

CHROMIUM_FLAGS = ["--no-sandbox", "--disable-gpu", "--disable-background-networking",
                  "--disable-component-update", "--disable-sync", "--no-first-run",
                  "--disable-quic"]

_PAGE_FACTS = """() => {
  const imgs = Array.from(document.querySelectorAll('img'));
  const hangul = /[\\uac00-\\ud7a3]/;
  return {
    images: imgs.length,
    broken_images: imgs.filter(i => !(i.complete && i.naturalWidth > 0)).length,
    widgets: document.querySelectorAll('.widget-slider, .widget-dropdown, .jupyter-widgets')
                     .length,
    widget_placeholders: document.querySelectorAll(
        'script[type="application/vnd.jupyter.widget-view+json"]').length,
    nanum_loaded: document.fonts.check('16px NanumGothic', '고양이'),
    has_hangul: hangul.test(document.body.innerText),
  };
}"""

_SLIDE_FACTS = """() => {
  const R = window.courseReveal;
  if (!R) return null;
  return {slides: R.getTotalSlides(), height: R.getConfig().height,
          indices: R.getSlides().map(s => { const i = R.getIndices(s); return [i.h, i.v || 0]; })};
}"""

_PRESENT_HEIGHT = """() => {
  const s = window.courseReveal.getCurrentSlide();
  return Math.max(s.scrollHeight, ...Array.from(s.children).map(c => c.offsetTop + c.offsetHeight));
}"""


def look(out: Path = Path("/tmp/classroom_look"), site: Path = BUILD / "site",
         slides: Path = BUILD / "slides", only: list[str] | None = None) -> int:
    """Open the site and the decks in headless Chromium; screenshot and report what shows.

    Reports, per page: requests that left file:// (should be none), images that did not
    load, widgets rendered, whether NanumGothic loaded; per deck: slides taller than the
    projector. Returns the number of problems found.
    """
    from playwright.sync_api import sync_playwright

    out.mkdir(parents=True, exist_ok=True)
    problems = 0
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path="/usr/bin/chromium", args=CHROMIUM_FLAGS)
        page = browser.new_page(viewport={"width": 1280, "height": 800})
        remote = []
        page.on("request", lambda r: remote.append(r.url)
                if not r.url.startswith(("file://", "data:", "blob:")) else None)
        errors = []
        page.on("pageerror", lambda e: errors.append(str(e)))
        targets = [site / "index.html"]
        for lang in LANGS:
            targets += sorted((site / lang).glob("*.html")) + sorted((slides / lang).glob("*.html"))
        if only:
            targets = [t for t in targets if t.name == "index.html"
                       or any(o in t.name for o in only)]
        for target in targets:
            if not target.exists():
                continue
            remote.clear()
            errors.clear()
            page.goto(target.resolve().as_uri())
            page.wait_for_load_state("load")
            page.wait_for_timeout(1500)  # the widget manager renders after load
            facts = page.evaluate(_PAGE_FACTS)
            deck = page.evaluate(_SLIDE_FACTS) if target.name.endswith(".slides.html") else None
            name = f"{target.parent.parent.name}_{target.parent.name}_{target.stem}"
            shot = out / f"{name}.png"
            page.screenshot(path=str(shot), full_page=deck is None and target.name != "index.html")
            overflowing = []
            if deck:  # a picture of every slide, as the projector shows it
                for index, (h, v) in enumerate(deck.pop("indices")):
                    page.evaluate(f"() => window.courseReveal.slide({h}, {v})")
                    page.wait_for_timeout(200)
                    height = page.evaluate(_PRESENT_HEIGHT)
                    if height > deck["height"] + 2:
                        overflowing.append((index + 1, height))
                    page.screenshot(path=str(out / f"{name}_{index + 1:02d}.png"))
                deck["overflowing (slide, px)"] = overflowing
            bad = bool(remote) or facts["broken_images"] or errors or overflowing
            if facts["widget_placeholders"] and not facts["widgets"]:
                bad = True
            problems += bool(bad)
            print(f"{'FAIL' if bad else 'ok  '} {_show(target)}: {json.dumps(facts)}"
                  + (f" deck={json.dumps(deck)}" if deck else "")
                  + (f" remote={remote[:3]}" if remote else "")
                  + (f" errors={errors[:2]}" if errors else "") + f" -> {shot}")
        browser.close()
    return problems


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("what", choices=["student", "slides", "html", "look"])
    parser.add_argument("--out", type=Path, help="output folder (default: build/<what>)")
    parser.add_argument("--only", nargs="*", help="lessons whose file name contains a text")
    args = parser.parse_args(argv)
    if args.what == "student":
        build_student(args.out or BUILD / "student")
    elif args.what in ("slides", "html"):
        default = BUILD / ("slides" if args.what == "slides" else "site")
        stems = None
        if args.only:
            stems = [p.stem for p in lesson_paths("ko") if any(o in p.stem for o in args.only)]
        build_pages(args.what, args.out or default, stems=stems)
    else:
        return 1 if look(args.out or Path("/tmp/classroom_look"), only=args.only) else 0
    return 0


if __name__ == "__main__":
    sys.exit(main())
