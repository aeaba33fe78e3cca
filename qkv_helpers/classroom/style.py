"""Fonts and plot style: Korean text that renders everywhere, readable on a projector.

:func:`apply` is called by :func:`qkv_helpers.setup`; a notebook never calls it itself.
It

- registers the NanumGothic font files shipped by the pip package ``koreanize-matplotlib``
  (found on disk, **without importing** that package: it imports ``distutils``, which
  Python >= 3.12 lacks), so Hangul renders on a machine with no system Korean font;
  when they are missing it falls back to a system Korean font (Malgun Gothic on Windows,
  AppleGothic on macOS, Noto Sans CJK KR or NanumGothic on Linux) and warns once if
  there is none;
- lists DejaVu Sans (shipped with matplotlib) after the Korean font, so the few symbols
  NanumGothic lacks (the superscript in ``Kᵀ``, the minus sign ``−``) are drawn from it;
- sets ``axes.unicode_minus = False``, so tick labels use the ASCII hyphen-minus;
- sets a projector-friendly style: large text, thick lines, ``viridis`` for images and
  the colour-blind-safe Okabe-Ito colours for lines.

The constants below are the course's colour and size choices; the plotting modules use
them instead of spelling colours out::

    >>> from qkv_helpers import style
    >>> style.CMAP, style.DIVERGING_CMAP
    ('viridis', 'PuOr')
    >>> len(style.COLORS)
    8
"""

from __future__ import annotations

import importlib.util
import warnings
from pathlib import Path

import matplotlib
from matplotlib import font_manager

__all__ = [
    "CMAP",
    "COLORS",
    "DIVERGING_CMAP",
    "DPI",
    "FIGSIZE",
    "FIGSIZE_SQUARE",
    "FIGSIZE_WIDE",
    "FONT_SIZE",
    "KOREAN_FONT",
    "MASK_COLOR",
    "MASK_HATCH",
    "SYSTEM_KOREAN_FONTS",
    "apply",
    "font_families",
    "korean_font_name",
]

# --- colours ---------------------------------------------------------------
#: Sequential colour map for values in [0, 1] such as attention weights. It gets lighter
#: monotonically, so it reads in greyscale and for every kind of colour blindness.
CMAP = "viridis"
#: Diverging colour map for signed values such as raw scores (centre it on 0). Orange for
#: negative, purple for positive: distinguishable with red-green colour blindness.
DIVERGING_CMAP = "PuOr"
#: Fill of a masked (hidden) cell; always draw it with :data:`MASK_HATCH` as well, so it
#: stays distinct from a weight of the same grey level when printed in greyscale.
MASK_COLOR = "#d9d9d9"
#: Hatch pattern for masked cells (matplotlib ``hatch=``).
MASK_HATCH = "///"
#: Okabe-Ito colours (Okabe & Ito, 2008), safe for colour-blind viewers, ordered so that
#: neighbours differ in lightness too. The default line colour cycle.
COLORS = (
    "#0072B2",  # blue
    "#E69F00",  # orange
    "#009E73",  # bluish green
    "#D55E00",  # vermillion
    "#CC79A7",  # reddish purple
    "#56B4E9",  # sky blue
    "#F0E442",  # yellow
    "#000000",  # black
)

# --- sizes -----------------------------------------------------------------
#: Base font size in points: readable from the back of a room on a projector.
FONT_SIZE = 13
#: Figure resolution for notebooks (pixels per inch).
DPI = 100
#: Default figure size in inches (width, height) for a line plot.
FIGSIZE = (8.0, 5.0)
#: A square-ish figure for one heat map (tokens x tokens).
FIGSIZE_SQUARE = (6.5, 5.5)
#: A wide figure for two or three panels side by side.
FIGSIZE_WIDE = (12.0, 4.5)

# --- fonts -----------------------------------------------------------------
#: The Korean font shipped by ``koreanize-matplotlib`` (installed by pip with this package).
KOREAN_FONT = "NanumGothic"
#: Korean fonts that come with operating systems, tried when the shipped font is missing.
SYSTEM_KOREAN_FONTS = (
    "Malgun Gothic",  # Windows
    "AppleGothic",  # macOS
    "Apple SD Gothic Neo",  # macOS
    "Noto Sans CJK KR",  # Linux (fonts-noto-cjk)
    "Noto Sans KR",
    "NanumGothic",  # Linux (fonts-nanum)
)
#: Always available (matplotlib ships it); has the symbols the Korean fonts lack.
_LATIN_FALLBACK = "DejaVu Sans"
_PACKAGE_WITH_FONTS = "koreanize_matplotlib"

# State kept between calls, so that a second apply() is cheap.
_state: dict[str, object] = {"fonts_done": False, "family": None}


def _packaged_font_files() -> list[Path]:
    """The NanumGothic .ttf files of ``koreanize-matplotlib``, found without importing it."""
    try:
        spec = importlib.util.find_spec(_PACKAGE_WITH_FONTS)
    except (ImportError, ValueError):
        return []
    if spec is None:
        return []
    folders = list(spec.submodule_search_locations or [])
    if not folders and spec.origin:
        folders = [str(Path(spec.origin).parent)]
    files: list[Path] = []
    for folder in folders:
        files.extend(sorted((Path(folder) / "fonts").glob("NanumGothic*.ttf")))
    return files


def _installed_families() -> set[str]:
    return {entry.name for entry in font_manager.fontManager.ttflist}


def _setup_fonts() -> None:
    """Register the Korean font once and remember which one is in use."""
    packaged = _packaged_font_files()
    for path in packaged:
        font_manager.fontManager.addfont(str(path))
    installed = _installed_families()
    family = None
    if KOREAN_FONT in installed:
        family = KOREAN_FONT
    else:
        for name in SYSTEM_KOREAN_FONTS:
            if name in installed:
                family = name
                break
    if family is None:
        warnings.warn(
            "qkv_helpers: no Korean font found, so Hangul in plots will show as empty boxes. "
            "The font comes with the pip package 'koreanize-matplotlib': "
            "run `pip install koreanize-matplotlib` (or `pip install -e .` in the course "
            "folder) and restart the kernel.",
            UserWarning,
            stacklevel=4,
        )
    _state.update(fonts_done=True, family=family)


def korean_font_name() -> str | None:
    """Name of the font family used for Hangul, or None if no Korean font is installed.

    Examples
    --------
    >>> from qkv_helpers import style
    >>> style.korean_font_name()
    'NanumGothic'
    """
    if not _state["fonts_done"]:
        _setup_fonts()
    return _state["family"]  # type: ignore[return-value]


def font_families() -> list[str]:
    """The ``font.family`` list :func:`apply` sets: Korean fonts first, then DejaVu Sans.

    Only installed fonts are listed (matplotlib logs a warning for every listed family it
    cannot find). matplotlib draws each character with the first font in the list that
    has it.

    Examples
    --------
    >>> from qkv_helpers import style
    >>> families = style.font_families()
    >>> families[0], families[-1]
    ('NanumGothic', 'DejaVu Sans')
    """
    first = korean_font_name()
    installed = _installed_families()
    families = [first] if first else []
    families += [name for name in SYSTEM_KOREAN_FONTS if name in installed and name != first]
    families.append(_LATIN_FALLBACK)
    return families


def _rc() -> dict[str, object]:
    return {
        # fonts
        "font.family": font_families(),
        "axes.unicode_minus": False,  # NanumGothic has no U+2212: use "-"
        "mathtext.fontset": "dejavusans",
        # sizes for a projector
        "font.size": FONT_SIZE,
        "axes.titlesize": FONT_SIZE + 2,
        "axes.labelsize": FONT_SIZE + 1,
        "xtick.labelsize": FONT_SIZE - 1,
        "ytick.labelsize": FONT_SIZE - 1,
        "legend.fontsize": FONT_SIZE - 1,
        "figure.titlesize": FONT_SIZE + 3,
        "figure.dpi": DPI,
        "savefig.dpi": DPI,
        "figure.figsize": FIGSIZE,
        "lines.linewidth": 2.2,
        "lines.markersize": 7,
        "axes.linewidth": 1.0,
        "axes.spines.top": False,
        "axes.spines.right": False,
        # colours that read in greyscale and for colour-blind viewers
        "image.cmap": CMAP,
        "axes.prop_cycle": matplotlib.cycler(color=list(COLORS)),
        "figure.facecolor": "white",
        "savefig.facecolor": "white",
    }


def apply() -> None:
    """Set fonts and style for every plot that follows. Safe and cheap to call again.

    The fonts are registered on the first call only; the style settings are written again
    on every call, so calling it restores the course's look after experiments.

    Examples
    --------
    >>> import matplotlib
    >>> from qkv_helpers import style
    >>> style.apply()
    >>> matplotlib.rcParams["font.family"][0], matplotlib.rcParams["axes.unicode_minus"]
    ('NanumGothic', False)
    >>> matplotlib.rcParams["image.cmap"]
    'viridis'
    """
    if not _state["fonts_done"]:
        _setup_fonts()
    matplotlib.rcParams.update(_rc())
