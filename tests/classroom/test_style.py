"""Fonts and style: Hangul renders with no missing-glyph warning, and the check can fail."""

from __future__ import annotations

import io
import logging
import os
import subprocess
import sys
import warnings
from pathlib import Path

import matplotlib
import matplotlib.pyplot as plt
import numpy as np
import pytest
from matplotlib import font_manager, ft2font

import qkv_helpers
from qkv_helpers import lang, style

# Every kind of text a lesson puts in a plot, in Korean, with both minus signs.
TITLE = "스케일드 닷 프로덕트 어텐션"
XLABEL = "키 토큰"
YLABEL = "쿼리 토큰"
TICKS = ["고양이가", "매트", "위에", "앉았다", "."]
NOTES = ["유사도 점수 −1.5", "온도 -1.5", "어텐션 가중치 Q·Kᵀ/√d_k"]
HANGUL_USED = "".join(TITLE + XLABEL + YLABEL + "".join(TICKS) + "".join(NOTES))


@pytest.fixture(autouse=True)
def _restore_language_and_rc():
    before = lang.get_language()
    with matplotlib.rc_context():
        yield
    lang.set_language(before)


def _korean_figure():
    fig, (ax_line, ax_map) = plt.subplots(1, 2, figsize=style.FIGSIZE_WIDE)
    x = np.linspace(-3.0, 3.0, 25)  # (25,): negative ticks use the minus sign
    ax_line.plot(x, np.tanh(x), label=NOTES[2])
    ax_line.set_title(TITLE)
    ax_line.set_xlabel(XLABEL)
    ax_line.set_ylabel(YLABEL)
    ax_line.legend()
    for i, note in enumerate(NOTES[:2]):
        ax_line.text(-2.5, 0.8 - 0.3 * i, note)
    weights = qkv_helpers.softmax(np.arange(25.0).reshape(5, 5) / 10)  # (5, 5)
    ax_map.imshow(weights)
    ax_map.set_xticks(range(5), TICKS, rotation=45)
    ax_map.set_yticks(range(5), TICKS)
    fig.suptitle(TITLE)
    return fig


def _render_and_collect(caplog) -> tuple[bytes, list[str]]:
    """Draw the figure to PNG; return the PNG and every warning matplotlib raised or logged.

    Depending on its version, matplotlib reports a missing glyph as a UserWarning or
    through its logger, and a missing font family through its logger: catch both.
    """
    caplog.clear()
    with caplog.at_level(logging.WARNING, logger="matplotlib"):
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            fig = _korean_figure()
            buffer = io.BytesIO()
            try:
                fig.savefig(buffer, format="png")
            finally:
                plt.close(fig)
    messages = [str(w.message) for w in caught]
    messages += [r.getMessage() for r in caplog.records if r.levelno >= logging.WARNING]
    return buffer.getvalue(), messages


def test_hangul_figure_renders_without_any_warning(caplog):
    qkv_helpers.setup("ko")
    png, messages = _render_and_collect(caplog)
    assert messages == []
    assert png.startswith(b"\x89PNG")


def test_the_warning_check_detects_a_font_without_hangul(caplog):
    qkv_helpers.setup("ko")
    matplotlib.rcParams["font.family"] = ["DejaVu Sans"]  # has no Hangul
    _, messages = _render_and_collect(caplog)
    missing = [m for m in messages if "missing from font" in m]
    assert missing, messages
    assert any("HANGUL" in m for m in missing)


def test_the_warning_check_also_catches_what_matplotlib_logs(caplog):
    qkv_helpers.setup("ko")
    matplotlib.rcParams["font.family"] = ["No Such Font 3141", *style.font_families()]
    _, messages = _render_and_collect(caplog)
    assert any("No Such Font 3141" in m for m in messages), messages


def _korean_font_file() -> str:
    """The regular NanumGothic of koreanize-matplotlib, which setup() registers."""
    regular = [str(p) for p in style._packaged_font_files()
               if p.name == style.KOREAN_FONT + ".ttf"]
    assert len(regular) == 1
    assert regular[0] in {entry.fname for entry in font_manager.fontManager.ttflist}
    return regular[0]


def test_the_korean_font_has_every_character_used():
    qkv_helpers.setup("ko")
    path = _korean_font_file()
    assert Path(path).is_file()
    charmap = ft2font.FT2Font(path).get_charmap()
    hangul = {c for c in HANGUL_USED if "\uac00" <= c <= "\ud7a3"}
    assert len(hangul) > 20
    assert all(ord(c) in charmap for c in hangul)
    # The ASCII minus of tick labels is in the Korean font itself.
    assert ord("-") in charmap


def test_font_comes_from_the_pip_package_and_symbols_fall_back_to_dejavu():
    qkv_helpers.setup("ko")
    families = matplotlib.rcParams["font.family"]
    assert families[0] == style.KOREAN_FONT == style.korean_font_name()
    assert families[-1] == "DejaVu Sans"
    assert Path(_korean_font_file()).parent.parent.name == "koreanize_matplotlib"
    # NanumGothic lacks U+2212 and the superscript T: DejaVu Sans, listed after it, has them.
    nanum = ft2font.FT2Font(_korean_font_file()).get_charmap()
    dejavu = ft2font.FT2Font(font_manager.findfont("DejaVu Sans")).get_charmap()
    for symbol in "\u2212\u1d40":
        assert ord(symbol) not in nanum
        assert ord(symbol) in dejavu
    # Every listed family is installed: matplotlib logs a warning for each one that is not.
    installed = {entry.name for entry in font_manager.fontManager.ttflist}
    assert set(families) <= installed


def test_tick_labels_use_the_ascii_minus():
    qkv_helpers.setup("ko")
    assert matplotlib.rcParams["axes.unicode_minus"] is False
    fig, ax = plt.subplots()
    ax.plot([-2.0, 2.0], [-2.0, 2.0])
    fig.canvas.draw()
    labels = [label.get_text() for label in ax.get_xticklabels()]
    plt.close(fig)
    negatives = [text for text in labels if text.startswith(("-", "\u2212"))]
    assert negatives, labels
    assert all(text.startswith("-") for text in negatives)


def test_style_is_readable_and_colour_blind_safe():
    qkv_helpers.setup("en")
    rc = matplotlib.rcParams
    assert rc["font.size"] >= 12
    assert rc["axes.titlesize"] > rc["font.size"]
    assert rc["image.cmap"] == style.CMAP == "viridis"
    assert [c.lower() for c in rc["axes.prop_cycle"].by_key()["color"]] == [
        c.lower() for c in style.COLORS
    ]
    # viridis gets lighter monotonically: it reads in greyscale.
    rgb = matplotlib.colormaps[style.CMAP](np.linspace(0, 1, 64))[:, :3]  # (64, 3)
    luminance = rgb @ np.array([0.2126, 0.7152, 0.0722])  # (64,)
    assert np.all(np.diff(luminance) > 0)
    assert style.DIVERGING_CMAP in matplotlib.colormaps
    assert matplotlib.colors.is_color_like(style.MASK_COLOR)


def test_apply_is_idempotent_and_restores_the_style():
    qkv_helpers.setup("ko")
    first = dict(matplotlib.rcParams)
    matplotlib.rcParams["font.size"] = 5
    matplotlib.rcParams["font.family"] = ["DejaVu Sans"]
    n_fonts = len(font_manager.fontManager.ttflist)
    style.apply()
    assert len(font_manager.fontManager.ttflist) == n_fonts  # fonts registered once only
    assert dict(matplotlib.rcParams) == first


def test_setup_switches_the_language():
    qkv_helpers.setup("en")
    assert lang.get_language() == "en"
    assert qkv_helpers.t("query") == "query"
    qkv_helpers.setup(lang="ko")
    assert lang.get_language() == "ko"
    assert qkv_helpers.t("query") == "쿼리"


@pytest.mark.parametrize("bad", ["fr", "KO", "", "korean"])
def test_setup_rejects_an_unknown_language_naming_the_argument(bad):
    qkv_helpers.setup("en")
    with pytest.raises(ValueError, match="lang") as error:
        qkv_helpers.setup(bad)
    assert repr(bad) in str(error.value)
    assert lang.get_language() == "en"


def _python(code: str) -> str:
    env = {k: v for k, v in os.environ.items() if k != "MPLBACKEND"}
    env["MPLBACKEND"] = "Agg"
    result = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, env=env, check=True
    )
    return result.stdout.strip()


def test_import_loads_neither_matplotlib_nor_ipywidgets():
    out = _python(
        "import sys, qkv_helpers\n"
        "print(sorted(m for m in ('matplotlib', 'ipywidgets', 'koreanize_matplotlib')"
        " if m in sys.modules))"
    )
    assert out == "[]"


def test_setup_never_imports_koreanize_matplotlib():
    # Its module imports distutils, which Python >= 3.12 lacks: only its font files are used.
    out = _python(
        "import sys, qkv_helpers\n"
        "qkv_helpers.setup('ko')\n"
        "from qkv_helpers import style\n"
        "print('koreanize_matplotlib' in sys.modules, 'distutils' in sys.modules,"
        " style.korean_font_name())"
    )
    assert out == "False False NanumGothic"


def test_without_the_packaged_font_it_warns_once_or_uses_a_system_font():
    """Simulate a machine where koreanize-matplotlib's files are missing."""
    code = (
        "import warnings, importlib.util\n"
        "real = importlib.util.find_spec\n"
        "importlib.util.find_spec = lambda name, *a: None if name == 'koreanize_matplotlib'"
        " else real(name, *a)\n"
        "from matplotlib import font_manager\n"
        "font_manager.fontManager.ttflist = [e for e in font_manager.fontManager.ttflist"
        " if 'Nanum' not in e.name]\n"
        "import qkv_helpers\n"
        "with warnings.catch_warnings(record=True) as caught:\n"
        "    warnings.simplefilter('always')\n"
        "    qkv_helpers.setup('ko'); qkv_helpers.setup('ko')\n"
        "from qkv_helpers import style\n"
        "import matplotlib\n"
        "msgs = [str(w.message) for w in caught if 'Korean font' in str(w.message)]\n"
        "print(len(msgs), style.korean_font_name(), matplotlib.rcParams['font.family'])\n"
        "print(msgs[0] if msgs else '')\n"
    )
    first, message = (_python(code).splitlines() + [""])[:2]
    n_warnings, family = first.split(" ", 2)[:2]
    if family == "None":  # no system Korean font either (as on this CI machine)
        assert n_warnings == "1"
        assert "pip install koreanize-matplotlib" in message
        assert first.endswith("['DejaVu Sans']")
    else:  # a system Korean font took over, silently
        assert n_warnings == "0"
        assert family in style.SYSTEM_KOREAN_FONTS
