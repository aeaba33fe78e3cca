"""Open every notebook in a real browser and check what a learner would see (make test-ui).

For each notebook under ``notebooks/`` (``ko/`` and ``en/``) this script

1. opens it in JupyterLab in headless Chromium (Debian's ``/usr/bin/chromium``, driven by
   Python Playwright; ``playwright install`` is never needed),
2. presses Run All (the menu command ``runmenu:run-all``) the moment JupyterLab shows it,
   without waiting for the kernel, as a learner following the lesson's first instruction:
   every code cell must run once, in order, in one kernel, with no "Select Kernel" dialog
   and no output wiped (:func:`run_all_at_once`),
3. fails on any error output, any text written to stderr, or a widget that did not render,
4. moves one slider with the keyboard and checks that an output changed (an ``<img>``
   redrawn or a text updated by the kernel); a notebook without a slider (a quiz) gets
   the same test with a dropdown, radio buttons or a button (pressed with Enter),
5. saves a screenshot of the whole notebook to ``build/ui/<lang>_<stem>.png``.

One pass, one kernel run per notebook (:func:`check_notebook`). Each of the (two) browsers
loads JupyterLab once, with its first notebook's URL, and opens the next notebooks in it,
as a learner goes on from one lesson to the next; after a notebook with a problem the next
one gets a fresh page.

JupyterLab runs on a free port of 127.0.0.1 with a random token, a fresh server per run (so
execution counts start at 1), temporary settings, workspaces and runtime folders, and serves
a *copy* of the notebooks with autosave off, so nothing is written into the files under
test. The server is stopped by its process id at the end, whatever happens.

Usage::

    python tools/ui_test.py                      # every notebook under notebooks/
    python tools/ui_test.py --notebooks DIR      # another folder
    python tools/ui_test.py --only 03_scaling    # notebooks whose path contains a text
    python tools/ui_test.py --jobs 2             # two at once (make test-ui), each with
                                                 # a server and a browser of its own

Prints one line per notebook and a summary ``N passed, M failed``; the exit status is 0
only when every notebook passed. The server loads the course's JupyterLab extension
(tools/lab_ext), as make lab does.
"""

from __future__ import annotations

import argparse
import json
import os
import secrets
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
import urllib.error
import urllib.parse
import urllib.request
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
LAB_UI = ROOT / "tools" / "lab_ui"  # make lab passes --LabApp.app_settings_dir=LAB_UI/<ko|en>
LAB_EXT = ROOT / "tools" / "lab_ext"  # the course's JupyterLab extension (jupyter_lab_config)
CHROMIUM = os.environ.get("CHROMIUM", "/usr/bin/chromium")
CHROMIUM_FLAGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
    "--disable-quic",
]
VIEWPORT = {"width": 1280, "height": 900}
MAX_SCREENSHOT_HEIGHT = 16000  # Chromium cannot capture much taller pages in one image

# JupyterLab user settings for the temporary server: no autosave (the notebooks under test
# must not change), no news or update toasts, every cell kept in the page (no windowing),
# so that every output can be checked and appears in the screenshot.
LAB_SETTINGS = {
    "@jupyterlab/docmanager-extension/plugin.jupyterlab-settings": {"autosave": False},
    "@jupyterlab/apputils-extension/notification.jupyterlab-settings": {
        "fetchNews": "false",
        "checkForUpdates": False,
    },
    "@jupyterlab/notebook-extension/tracker.jupyterlab-settings": {
        "windowingMode": "none",
        "scrollPastEnd": False,
    },
}

INSTALL_CHROMIUM = """\
make test-ui needs Chromium, and found none at {path}.
Install Debian's package:

    sudo apt-get install chromium

or point to another Chromium or Chrome with  CHROMIUM=/path/to/chromium make test-ui
(`playwright install` is not needed and not used).
"""

INSTALL_PLAYWRIGHT = """\
make test-ui needs the Python package playwright (part of the dev extra):

    .venv/bin/pip install -e '.[dev]'      # or: pip install playwright

No `playwright install` is needed: the test drives the system's Chromium.
"""

# --- JavaScript run in the page (JupyterLab exposes itself as window.jupyterapp) ----------
# Each snippet is a function of the notebook's path; FIND_PANEL is replaced by a function
# that returns the open notebook panel of that path (or null).

FIND_PANEL = """
(path) => {
  const app = window.jupyterapp;
  if (!app || !app.shell) return null;
  return Array.from(app.shell.widgets('main'))
      .find(w => w.context && w.context.path === path && w.content) || null;
}
"""


def _js(body: str) -> str:
    return body.replace("FIND_PANEL", FIND_PANEL.strip())


JS_KERNEL_IDLE = _js("""
(path) => {
  const panel = (FIND_PANEL)(path);
  if (!panel || !panel.sessionContext.isReady) return false;
  const kernel = panel.sessionContext.session && panel.sessionContext.session.kernel;
  return !!kernel && kernel.status === 'idle' && panel.content.widgets.length > 0;
}
""")

JS_RUN_ALL = _js("""
async (path) => {
  const app = window.jupyterapp;
  const panel = (FIND_PANEL)(path);
  app.shell.activateById(panel.id);
  await app.commands.execute('runmenu:run-all');
  return true;
}
""")

# Run All at once, as a learner who presses it the moment the lesson shows: the command is
# started and not awaited (its promise settles when every cell has run).
JS_RUN_ALL_NOW = _js("""
(path) => {
  const app = window.jupyterapp;
  const panel = (FIND_PANEL)(path);
  app.shell.activateById(panel.id);
  void app.commands.execute('runmenu:run-all');
  return true;
}
""")

# The lesson is on screen: its file is loaded and its panel shows its cells (the kernel may
# still be starting). Before the file is loaded a panel shows one empty placeholder cell.
JS_CELLS_SHOWN = _js("""
(path) => {
  const panel = (FIND_PANEL)(path);
  return !!panel && panel.context.isReady && panel.content.widgets.length > 0;
}
""")

# The non-empty code cells, and how many outputs they hold now (from the notebook's model:
# a long notebook's cell widgets are still being created when it first shows).
JS_CODE_OUTPUTS = _js("""
(path) => {
  const panel = (FIND_PANEL)(path);
  return Array.from(panel.content.model.cells)
      .filter(c => c.type === 'code' && c.sharedModel.getSource().trim() !== '')
      .map(c => c.outputs.length);
}
""")

# The execution counts of the non-empty code cells (null: not run).
JS_EXECUTION_COUNTS = _js("""
(path) => {
  const panel = (FIND_PANEL)(path);
  return Array.from(panel.content.model.cells)
      .filter(c => c.type === 'code' && c.sharedModel.getSource().trim() !== '')
      .map(c => c.executionCount);
}
""")

# The kernel is idle and connected and no prompt shows [*].
JS_IDLE = _js("""
(path) => {
  const panel = (FIND_PANEL)(path);
  if (!panel || !panel.sessionContext.isReady) return false;
  const kernel = panel.sessionContext.session && panel.sessionContext.session.kernel;
  if (!kernel || kernel.status !== 'idle') return false;
  const prompts = Array.from(panel.node.querySelectorAll('.jp-InputArea-prompt'));
  return !prompts.some(p => p.textContent.includes('*'));
}
""")

# Done when the kernel is idle, no prompt shows [*] and every non-empty code cell has an
# execution count, or when an error stopped the run (the cells after it never run).
JS_ALL_DONE = _js("""
(path) => {
  const panel = (FIND_PANEL)(path);
  if (!panel) return false;
  const kernel = panel.sessionContext.session && panel.sessionContext.session.kernel;
  if (!kernel || kernel.status !== 'idle') return false;
  const prompts = Array.from(panel.node.querySelectorAll('.jp-InputArea-prompt'));
  if (prompts.some(p => p.textContent.includes('*'))) return false;
  const code = panel.content.widgets.filter(c => c.model.type === 'code');
  if (code.some(c => c.model.outputs.toJSON().some(o => o.output_type === 'error'))) {
    return true;
  }
  return code.filter(c => c.model.sharedModel.getSource().trim() !== '')
      .every(c => c.model.executionCount !== null);
}
""")

# Errors and stderr are read from the cells' models (JupyterLab draws both the same way);
# widgets are counted in the page, where a learner sees them.
JS_REPORT = _js("""
(path) => {
  const panel = (FIND_PANEL)(path);
  const code = panel.content.widgets.filter(c => c.model.type === 'code');
  const outputs = code.flatMap((c, i) => c.model.outputs.toJSON().map(o => [i + 1, o]));
  const joined = (t) => (Array.isArray(t) ? t.join('') : String(t || '')).trim();
  return {
    cells: panel.content.widgets.length,
    code_cells: code.length,
    not_run: code.filter(c => c.model.sharedModel.getSource().trim() !== ''
                           && c.model.executionCount === null).length,
    errors: outputs.filter(([, o]) => o.output_type === 'error')
        .map(([i, o]) => `code cell ${i}: ${o.ename}: ${o.evalue}`.slice(0, 600)),
    stderr: outputs.filter(([, o]) => o.output_type === 'stream' && o.name === 'stderr')
        .map(([i, o]) => `code cell ${i}: ${joined(o.text)}`.slice(0, 600)),
    widgets: panel.node.querySelectorAll('.jp-OutputArea .jupyter-widgets').length,
    // widget outputs drawn as their text (the model's text/plain) instead of the widget
    widgets_as_text: code.flatMap((c, i) => {
      const views = c.outputArea ? c.outputArea.widgets : [];
      return c.model.outputs.toJSON().map((o, j) => [o, views[j]])
          .filter(([o, v]) => o.data && o.data['application/vnd.jupyter.widget-view+json'] && v
                  && !v.node.querySelector('.jupyter-widgets'))
          .map(([, v]) => `code cell ${i + 1}: ${v.node.innerText.slice(0, 200)}`);
    }),
    widget_errors: Array.from(panel.node.querySelectorAll('.jp-OutputArea-output'))
        .map(e => e.innerText)
        .filter(t => t.includes('Error displaying widget') || t.includes('Model not found'))
        .map(t => t.slice(0, 300)),
  };
}
""")

# What the notebook's outputs show, without the sliders themselves (a slider's own readout
# changes in the browser alone): image sources and text. A change after a slider moved
# proves that the kernel ran its callback and that the page shows the result.
JS_OUTPUT_STATE = """
() => {
  const areas = Array.from(document.querySelectorAll('.jp-Notebook .jp-OutputArea'));
  return JSON.stringify(areas.map(area => {
    const copy = area.cloneNode(true);
    copy.querySelectorAll('.widget-slider').forEach(e => e.remove());
    return [Array.from(area.querySelectorAll('img')).map(i => i.src), copy.textContent];
  }));
}
"""

# Whether the browser draws Hangul with a real font: with none, every syllable becomes the
# same empty box, so two different syllables give the same pixels. Only asked when the
# notebook has Hangul in it.
JS_HANGUL_DRAWN = _js("""
(path) => {
  const panel = (FIND_PANEL)(path);
  if (!/[\uac00-\ud7a3]/.test(panel.node.innerText)) return true;
  const canvas = document.createElement('canvas');
  canvas.width = canvas.height = 48;
  const g = canvas.getContext('2d');
  const family = getComputedStyle(panel.node).fontFamily;
  const draw = (text) => {
    g.clearRect(0, 0, 48, 48);
    g.font = `36px ${family}`;
    g.fillText(text, 4, 40);
    return Array.from(g.getImageData(0, 0, 48, 48).data).join(',');
  };
  return draw('\uac00') !== draw('\ud7a3');
}
""")

JS_NOTEBOOK_HEIGHT = _js("""
(path) => {
  const panel = (FIND_PANEL)(path);
  const scroller = panel.node.querySelector('.jp-WindowedPanel-outer') || panel.content.node;
  return scroller.scrollHeight + (window.innerHeight - scroller.clientHeight);
}
""")


@dataclass
class Result:
    name: str
    seconds: float = 0.0
    problems: list[str] = field(default_factory=list)
    screenshot: Path | None = None
    note: str = ""
    timing: str = ""

    @property
    def passed(self) -> bool:
        return not self.problems


# --- the server --------------------------------------------------------------------------


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


class LabServer:
    """A JupyterLab server in its own process group, in temporary folders."""

    def __init__(self, root_dir: Path, work: Path, log_path: Path, extra_args=()):
        self.root_dir = root_dir
        self.extra_args = list(extra_args)
        self.port = free_port()
        self.token = secrets.token_hex(24)
        self.base = f"http://127.0.0.1:{self.port}"
        self.log_path = log_path
        self.process: subprocess.Popen | None = None
        self.env = dict(os.environ)
        self.env.pop("MPLBACKEND", None)  # the kernel must use the inline backend
        for name, sub in [
            ("JUPYTERLAB_SETTINGS_DIR", "settings"),
            ("JUPYTERLAB_WORKSPACES_DIR", "workspaces"),
            ("JUPYTER_RUNTIME_DIR", "runtime"),
            ("JUPYTER_CONFIG_DIR", "config"),
            ("JUPYTER_DATA_DIR", "data"),
            ("IPYTHONDIR", "ipython"),
        ]:
            (work / sub).mkdir(parents=True, exist_ok=True)
            self.env[name] = str(work / sub)
        self.env["PYDEVD_DISABLE_FILE_VALIDATION"] = "1"
        for relative, values in LAB_SETTINGS.items():
            path = work / "settings" / relative
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(json.dumps(values), encoding="utf-8")

    def start(self, timeout: float = 120.0) -> None:
        command = [
            sys.executable,
            "-m",
            "jupyterlab",
            "--no-browser",
            "--ServerApp.ip=127.0.0.1",
            f"--ServerApp.port={self.port}",
            "--ServerApp.port_retries=0",
            f"--IdentityProvider.token={self.token}",
            f"--ServerApp.root_dir={self.root_dir}",
            "--LabApp.expose_app_in_browser=True",
            "--LabApp.news_url=None",
            "--LabApp.check_for_updates_class=jupyterlab.NeverCheckForUpdate",
            f"--LabApp.extra_labextensions_path={LAB_EXT}",  # as tools/jupyter_lab_config.py
            *self.extra_args,
        ]
        if hasattr(os, "geteuid") and os.geteuid() == 0:  # CI containers run as root
            command.append("--allow-root")
        self.log = open(self.log_path, "w", encoding="utf-8")  # noqa: SIM115
        self.process = subprocess.Popen(
            command,
            env=self.env,
            cwd=self.root_dir,
            stdout=self.log,
            stderr=subprocess.STDOUT,
            start_new_session=True,  # its own process group, stopped as a whole
        )
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                raise RuntimeError(f"JupyterLab exited early; see {self.log_path}")
            try:
                status = self.api("GET", "/api/status")
                if "started" in status:
                    return
            except (urllib.error.URLError, ConnectionError, OSError):
                pass
            time.sleep(0.25)
        raise RuntimeError(f"JupyterLab did not answer within {timeout:.0f} s; see {self.log_path}")

    def api(self, method: str, path: str):
        request = urllib.request.Request(
            self.base + path, method=method, headers={"Authorization": f"token {self.token}"}
        )
        with urllib.request.urlopen(request, timeout=10) as response:
            body = response.read()
        return json.loads(body) if body else None

    def shutdown_kernels(self) -> None:
        for session in self.api("GET", "/api/sessions") or []:
            self.api("DELETE", f"/api/sessions/{session['id']}")

    def stop(self) -> None:
        if self.process is None:
            return
        if self.process.poll() is None:
            try:
                os.killpg(self.process.pid, signal.SIGTERM)
                self.process.wait(timeout=15)
            except subprocess.TimeoutExpired:
                os.killpg(self.process.pid, signal.SIGKILL)
                self.process.wait(timeout=15)
            except ProcessLookupError:
                pass
        self.log.close()


# --- one notebook ------------------------------------------------------------------------


def dismiss_toasts(page) -> None:
    """Answer "No" to the "Jupyter news" question if JupyterLab asks it anyway."""
    for button in page.locator(".jp-toast-button, .Toastify__toast button").all():
        try:
            if button.is_visible() and button.inner_text().strip().lower() in {"no", "dismiss"}:
                button.click(timeout=2000)
        except Exception:  # a toast that went away by itself is fine
            pass


def _changed(page, before: str, timeout_ms: int = 15_000) -> bool:
    try:
        page.wait_for_function(
            f"(before) => ({JS_OUTPUT_STATE})() !== before", arg=before, timeout=timeout_ms
        )
        return True
    except Exception:
        return False


def _press_keys(page, handle, forward: str, back: str, attribute: str | None) -> bool:
    """Focus *handle*, press *forward* (or *back* if nothing moved); True if it moved.

    A ``<select>`` (dropdown) opens a pop-up on arrow keys in some Chromium builds: if
    the keys did not change it, the next option is chosen as a click would.
    """
    handle.scroll_into_view_if_needed()
    handle.focus()

    def state():
        if attribute is None:
            return handle.evaluate("e => e.tagName + e.value + '|' + e.checked")
        return handle.get_attribute(attribute)

    start = state()
    for _ in range(3):
        page.keyboard.press(forward)
    if state() == start:  # already at the end of its range
        for _ in range(3):
            page.keyboard.press(back)
    if state() == start and start.startswith("SELECT"):
        page.keyboard.press("Escape")
        n_options = handle.evaluate("e => e.options.length")
        index = handle.evaluate("e => e.selectedIndex")
        if n_options > 1:
            handle.select_option(index=(index + 1) % n_options)
    return state() != start


# Controls tried, in order, with the keyboard: (name, container, focusable part, keys,
# attribute that shows the control moved; None: its value or checked state).
CONTROLS = [
    ("slider", ".widget-slider", ".noUi-handle, [role=slider], input[type=range]",
     ("ArrowRight", "ArrowLeft"), "aria-valuenow"),
    ("dropdown", ".widget-dropdown", "select", ("ArrowDown", "ArrowUp"), None),
    ("radio buttons", ".widget-radio-box", "input[type=radio]", ("Space", "ArrowDown"), None),
    ("button", ".widget-button", "", ("Enter", ""), ""),  # pressed once; it has no state
]


def exercise_a_control(page, problems: list[str], tries: int = 3) -> str:
    """Move a slider with the keyboard; some output of the notebook must change.

    Tries the first few sliders in turn (one may need another control set first) and stops
    at the first that changes an output. A notebook with no slider (a quiz, a stepper) gets
    the same test with a dropdown, radio buttons or a button. Returns what was moved.
    """
    tried = []
    for name, container, part, (forward, back), attribute in CONTROLS:
        controls = page.locator(f".jp-OutputArea {container}")
        for index in range(min(controls.count(), tries)):
            label = f"{name} {index + 1}"
            handle = controls.nth(index).locator(part).first if part else controls.nth(index)
            before = page.evaluate(JS_OUTPUT_STATE)
            if name == "button":
                handle.scroll_into_view_if_needed()
                handle.focus()
                page.keyboard.press(forward)
                moved = True
            else:
                moved = _press_keys(page, handle, forward, back, attribute)
            if not moved:
                tried.append(f"{label} did not move with the arrow keys")
            elif _changed(page, before):
                verb = "pressed" if name == "button" else "moved"
                return f"{label} {verb}, output changed"
            else:
                tried.append(f"moving {label} changed no output")
        if tried:  # there were controls of this kind: do not fall back to another kind
            break
    problems.append("; ".join(tried) or "no slider, dropdown, radio buttons or button to use")
    return ""


KERNEL_STARTING = "still initializing"  # JupyterLab's notice (enableKernelInitNotification)


def _dialogs(page) -> list[str]:
    """The titles of the dialogs open now, each closed with Escape (as a learner might)."""
    titles = []
    for header in page.locator(".jp-Dialog .jp-Dialog-header").all():
        try:
            titles.append(header.inner_text().strip() or "(untitled)")
        except Exception:
            titles.append("(untitled)")
    if titles:
        page.keyboard.press("Escape")
    return titles


def run_all_at_once(page, path: str, problems: list[str], timeout_s: float, sent: list,
                    replies: list, result: Result) -> None:
    """Press Run All the moment the lesson shows, without waiting for its kernel.

    Passes when that one press runs every code cell, in one kernel, with no dialog ("Select
    Kernel"), no notice and no output wiped. JupyterLab 4.6 alone cannot queue cells for a
    kernel that is still starting: it asks for a kernel once per cell and wipes their
    outputs, or (enableKernelInitNotification) says "still initializing" and runs nothing.
    The course's extension (tools/lab_ext) makes the cells wait for the kernel instead.
    """
    code_outputs = page.evaluate(JS_CODE_OUTPUTS, path)
    n_code = len(code_outputs)
    if n_code == 0:
        problems.append("no code cell to run")
        return
    page.evaluate(JS_RUN_ALL_NOW, path)
    deadline = time.monotonic() + timeout_s
    dialogs: list[str] = []
    toasts: list[str] = []
    while time.monotonic() < deadline:
        dialogs += _dialogs(page)
        toasts += [t for t in page.locator(".Toastify__toast").all_inner_texts()
                   if t not in toasts]
        if len(replies) >= n_code and page.evaluate(JS_IDLE, path):
            break
        if not sent and page.evaluate(JS_IDLE, path):
            page.wait_for_timeout(2000)  # idle, and nothing sent: give it a moment
            if not sent:
                problems.append("Run All pressed at once ran nothing"
                                + (f"; JupyterLab said: {' | '.join(toasts)}" if toasts else ""))
                if page.evaluate(JS_CODE_OUTPUTS, path) != code_outputs:
                    problems.append("... and it changed outputs without running")
                return
        page.wait_for_timeout(250)
    else:
        problems.append(f"cells still running after {timeout_s:.0f} s "
                        f"({len(sent)} of {n_code} sent to the kernel)")
    for title in dialogs:
        problems.append(f"a dialog appeared during Run All: {title!r}")
    for text in toasts:
        if KERNEL_STARTING in text:
            problems.append(f"JupyterLab said: {text!r}")
    if len(sent) != n_code:
        problems.append(f"{len(sent)} execute requests for {n_code} code cells")


def _watch_kernel_messages(page, sent: list, replies: list):
    """Count the execute requests the page sends to a kernel, and the replies it gets.

    Returns the listener (``page.remove_listener("websocket", it)`` stops the counting)."""

    def counter(kind: bytes, found: list):
        def count(payload) -> None:
            data = payload if isinstance(payload, bytes) else str(payload).encode()
            if kind in data:
                found.append(1)
        return count

    def watch(ws) -> None:
        ws.on("framesent", counter(b"execute_request", sent))
        ws.on("framereceived", counter(b"execute_reply", replies))

    page.on("websocket", watch)
    return watch


# A lesson done with: its tab closed (disposed, so its unsaved outputs bring no "Save?"
# dialog), before its kernel is shut down.
JS_CLOSE_ALL = """
() => {
  for (const widget of Array.from(window.jupyterapp.shell.widgets('main'))) widget.dispose();
  return true;
}
"""

# The next lesson, opened in the JupyterLab already on the page (as from the file browser).
JS_OPEN_IN_APP = """
(path) => {
  void window.jupyterapp.commands.execute('docmanager:open', {path});
  return true;
}
"""


def check_notebook(page, server: LabServer, path: str, shot: Path, timeout_s: float,
                   in_app: bool = False) -> Result:
    """One pass per notebook, as a learner: open it, press Run All the moment it shows
    (:func:`run_all_at_once`: every code cell runs once, in order, in one kernel, with no
    dialog and no output wiped), then check what is on screen (no error, nothing on stderr,
    every widget rendered, Hangul drawn), move a control (the output must change) and take
    the screenshot.

    ``in_app=False`` loads JupyterLab with the notebook's URL (a fresh workspace);
    ``in_app=True`` opens it in the JupyterLab already loaded on ``page``.
    """
    result = Result(path)
    start = time.monotonic()
    sent: list[int] = []
    replies: list[int] = []
    watch = _watch_kernel_messages(page, sent, replies)
    try:
        problems = result.problems
        if in_app:
            page.set_viewport_size(VIEWPORT)  # the last screenshot made it as tall as its lesson
            page.evaluate(JS_OPEN_IN_APP, path)
        else:
            page.goto(
                f"{server.base}/lab/workspaces/ui-{secrets.token_hex(4)}/tree/"
                f"{urllib.parse.quote(path)}?token={server.token}"
            )
        page.wait_for_function(JS_CELLS_SHOWN, arg=path, timeout=90_000, polling=50)
        # JupyterLab is up (its plugins active: the menus a learner clicks); the notebook's
        # kernel may still be starting.
        page.evaluate("async () => { await window.jupyterapp.restored; return true; }")
        opened = time.monotonic()
        saved_outputs = page.evaluate(JS_CODE_OUTPUTS, path)
        run_all_at_once(page, path, problems, timeout_s, sent, replies, result)
        ran = time.monotonic()
        dismiss_toasts(page)
        if not page.evaluate(JS_HANGUL_DRAWN, path):
            problems.append(
                "Hangul shows as empty boxes in the browser: it has no Korean font "
                "(sudo apt-get install fonts-nanum)"
            )
        report = page.evaluate(JS_REPORT, path)
        if (report["widgets"] == 0 or report["widgets_as_text"]) and not report["errors"]:
            try:  # widget views render a moment after the kernel replied
                page.wait_for_function(f"(path) => ({JS_REPORT})(path).widgets > 0 && "
                                       f"({JS_REPORT})(path).widgets_as_text.length === 0",
                                       arg=path, timeout=20_000, polling=250)
            except Exception:
                pass
            report = page.evaluate(JS_REPORT, path)
        for text in report["errors"]:
            problems.append("error output: " + text.replace("\n", " | "))
        for text in report["widgets_as_text"]:
            problems.append("a widget shows as text: " + text.replace("\n", " | "))
        for text in report["stderr"]:
            problems.append("stderr output: " + text.replace("\n", " | "))
        for text in report["widget_errors"]:
            problems.append("widget failed: " + text.replace("\n", " | "))
        if report["not_run"] and not report["errors"]:
            problems.append(f"{report['not_run']} code cells did not run")
        if report["widgets"] == 0:
            problems.append("no widget rendered")
        counts = page.evaluate(JS_EXECUTION_COUNTS, path)
        if not report["errors"] and counts != list(range(1, len(counts) + 1)):
            problems.append(f"execution counts {counts}: not every cell once, in order, "
                            "in one kernel")
        wiped = [i + 1 for i, (before, after) in enumerate(
            zip(saved_outputs, page.evaluate(JS_CODE_OUTPUTS, path))) if before and not after]
        if wiped and not report["errors"]:
            problems.append(f"code cells {wiped} had outputs and have none after Run All")
        if not problems:
            moved = exercise_a_control(page, problems)
            result.note = "; ".join(n for n in (result.note, moved) if n)
        dismiss_toasts(page)
        height = min(page.evaluate(JS_NOTEBOOK_HEIGHT, path), MAX_SCREENSHOT_HEIGHT)
        page.set_viewport_size({"width": VIEWPORT["width"], "height": max(height, 600)})
        page.wait_for_timeout(300)  # let the layout settle at the new size
        page.screenshot(path=str(shot), full_page=True)
        result.screenshot = shot
        result.timing = (
            f"open {opened - start:.1f} s ({'in the open JupyterLab' if in_app else 'by URL'}), "
            f"run {ran - opened:.1f} s, check {time.monotonic() - ran:.1f} s"
        )
    finally:
        page.remove_listener("websocket", watch)  # the next lesson counts its own
    result.seconds = time.monotonic() - start
    return result


# --- the interface in Korean (make lab LANG_UI=ko) -----------------------------------------


KOREAN_MENUS = ["파일", "편집", "보기", "실행", "커널", "설정", "도움말"]
ENGLISH_MENUS = ["File", "Edit", "View", "Run", "Kernel", "Settings", "Help"]


def check_korean_ui(browser, served: Path, work: Path, out: Path) -> Result:
    """JupyterLab started the way ``make lab LANG_UI=ko`` starts it shows Korean menus.

    A server of its own with the same ``--LabApp.app_settings_dir`` as ``make lab``; the
    menu bar's titles are read from the page and the opened File menu is photographed
    (build/ui/lab_ui_ko.png).
    """
    result = Result("JupyterLab interface in Korean (make lab LANG_UI=ko)")
    start = time.monotonic()
    server = LabServer(served, work, out / "jupyterlab-ko.log",
                       extra_args=[f"--LabApp.app_settings_dir={LAB_UI / 'ko'}"])
    page = None
    try:
        server.start()
        page = browser.new_page(viewport=VIEWPORT)
        page.goto(f"{server.base}/lab/tree/ko/00_start_here.ipynb?token={server.token}")
        page.wait_for_selector("#jp-menu-panel .lm-MenuBar-itemLabel", timeout=90_000)
        page.wait_for_function(JS_KERNEL_IDLE, arg="ko/00_start_here.ipynb", timeout=90_000)
        dismiss_toasts(page)
        titles = [t.strip() for t in
                  page.locator("#jp-menu-panel .lm-MenuBar-itemLabel").all_inner_texts()]
        result.note = "menus: " + " ".join(titles)
        missing = [m for m in KOREAN_MENUS if m not in titles]
        english = [m for m in ENGLISH_MENUS if m in titles]
        if missing or english:
            result.problems.append(
                f"menu bar shows {titles}: Korean menus missing {missing}, English ones {english}"
            )
        page.locator("#jp-menu-panel .lm-MenuBar-itemLabel", has_text="파일").first.click()
        page.wait_for_selector(".lm-Menu", timeout=10_000)
        shot = out / "lab_ui_ko.png"
        page.screenshot(path=str(shot))
        result.screenshot = shot
    except Exception as error:
        result.problems.append(f"{type(error).__name__}: {error}")
    finally:
        if page is not None:
            page.close()
        server.stop()
    result.seconds = time.monotonic() - start
    return result


# --- main --------------------------------------------------------------------------------


def find_notebooks(folder: Path, only: str | None) -> list[Path]:
    found = sorted(
        p.relative_to(folder)
        for p in folder.rglob("*.ipynb")
        if ".ipynb_checkpoints" not in p.parts
    )
    return [p for p in found if only is None or only in p.as_posix()]


def screenshot_name(relative: Path) -> str:
    parts = [*relative.parent.parts, relative.stem]
    return "_".join(parts[-2:]) + ".png"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--notebooks", type=Path, default=ROOT / "notebooks")
    parser.add_argument("--out", type=Path, default=ROOT / "build" / "ui")
    parser.add_argument("--only", help="test only notebooks whose path contains this text")
    parser.add_argument(
        "--timeout", type=float, default=300.0, help="seconds allowed for one notebook's cells"
    )
    parser.add_argument("--chromium", default=CHROMIUM, help="path of the Chromium binary")
    parser.add_argument("--ui-language-only", action="store_true",
                        help="only check that the Korean run shows Korean menus")
    parser.add_argument("--jobs", type=int, default=1,
                        help="notebooks tested at once, each set by a server and browser of "
                             "its own (make test-ui: 2)")
    parser.add_argument("--shard", help=argparse.SUPPRESS)  # "k/n": every n-th notebook from k
    args = parser.parse_args(argv)

    if not Path(args.chromium).exists():
        print(INSTALL_CHROMIUM.format(path=args.chromium), file=sys.stderr)
        return 2
    try:
        from playwright.sync_api import sync_playwright
    except ImportError:
        print(INSTALL_PLAYWRIGHT, file=sys.stderr)
        return 2

    notebooks = [] if args.ui_language_only else find_notebooks(args.notebooks, args.only)
    if not notebooks and not args.ui_language_only:
        print(f"no notebooks found under {args.notebooks}", file=sys.stderr)
        return 1
    args.out.mkdir(parents=True, exist_ok=True)
    if args.only is None and not args.ui_language_only and not args.shard:
        for old in args.out.glob("*.png"):  # no screenshot of a gone notebook
            old.unlink()
    if args.jobs > 1 and not args.shard and not args.ui_language_only:
        return run_in_shards(args, argv if argv is not None else sys.argv[1:])
    korean_ui = args.only is None
    claims = None
    if args.shard:  # the shards share the notebooks: each takes the next one nobody took
        k, _n = (int(x) for x in args.shard.split("/"))
        korean_ui = korean_ui and k == 0
        claims = args.out / ".claims"
        # the later lessons (longer runs) first, so that no shard ends alone with a long one
        notebooks = sorted(notebooks, key=lambda p: (p.stem, p.as_posix()), reverse=True)

    results: list[Result] = []

    def report(result: Result, shot: Path | None) -> None:
        status = "PASS" if result.passed else "FAIL"
        where = f" -> {shot}" if shot else ""
        print(f"{status} {result.name} ({result.seconds:.1f} s){where}", flush=True)
        for detail in (result.timing, result.note):
            if detail:
                print(f"     {detail}", flush=True)
        for problem in result.problems:
            print(f"     {problem}", flush=True)

    with tempfile.TemporaryDirectory(prefix="qkv-ui-") as tmp:
        work = Path(tmp)
        served = work / "notebooks"  # a copy: nothing can write into the files under test
        shutil.copytree(
            args.notebooks, served, ignore=shutil.ignore_patterns(".ipynb_checkpoints")
        )
        # The lessons' server has make lab's settings (tools/lab_ui), English interface.
        log = "jupyterlab.log" if not args.shard else f"jupyterlab-{args.shard[0]}.log"
        server = LabServer(served, work, args.out / log,
                           extra_args=[f"--LabApp.app_settings_dir={LAB_UI / 'en'}"])
        try:
            server.start()
            print(f"JupyterLab (pid {server.process.pid}) on {server.base}; "
                  f"{len(notebooks)} notebooks", flush=True)
            with sync_playwright() as playwright:
                browser = playwright.chromium.launch(
                    executable_path=args.chromium, args=CHROMIUM_FLAGS, headless=True
                )
                try:
                    if korean_ui:  # the interface's language, once per full run
                        result = check_korean_ui(browser, served, work / "ui-ko", args.out)
                        results.append(result)
                        status = "PASS" if result.passed else "FAIL"
                        print(f"{status} {result.name} ({result.seconds:.1f} s) "
                              f"-> {result.screenshot}", flush=True)
                        for detail in [result.note, *result.problems]:
                            if detail:
                                print(f"     {detail}", flush=True)
                    # One page: the first lesson loads JupyterLab by its URL, the next ones
                    # open in it, as a learner goes on from lesson to lesson (loading
                    # JupyterLab again took ~10 of a lesson's ~25 s on 2 busy cores). After
                    # a lesson with a problem, the next one gets a fresh page.
                    page = None
                    console_errors: list[str] = []
                    for relative in notebooks:
                        if claims is not None and not claim(claims, relative):
                            continue
                        path = relative.as_posix()
                        in_app = page is not None
                        if page is None:
                            page = browser.new_page(viewport=VIEWPORT)
                            page.on("pageerror",
                                    lambda e, sink=console_errors: sink.append(str(e)))
                        console_errors.clear()
                        shot = args.out / screenshot_name(relative)
                        try:
                            result = check_notebook(page, server, path, shot, args.timeout,
                                                    in_app=in_app)
                        except Exception as error:  # report, then go on with the next one
                            result = Result(path, problems=[f"{type(error).__name__}: {error}"])
                            try:
                                page.screenshot(path=str(shot), full_page=True)
                            except Exception:
                                pass
                        try:  # the lesson's tab closed: errors on closing are its own
                            if result.passed:
                                page.evaluate(JS_CLOSE_ALL)
                        except Exception as error:
                            result.problems.append(
                                f"closing the lesson: {type(error).__name__}: {error}")
                        for text in console_errors:
                            result.problems.append("JavaScript error: " + text[:300])
                        if not result.passed:
                            page.close()
                            page = None
                        server.shutdown_kernels()
                        results.append(result)
                        report(result, shot)
                    if page is not None:
                        page.close()

                finally:
                    browser.close()
        finally:
            server.stop()

    passed = sum(r.passed for r in results)
    failed = len(results) - passed
    print(f"{passed} passed, {failed} failed")
    if args.shard:
        k = args.shard.split("/")[0]
        (args.out / f"shard-{k}.json").write_text(json.dumps([passed, failed]))
        return 0 if failed == 0 else 1  # a shard may get no notebook (--only)
    return 0 if failed == 0 and passed > 0 else 1


def claim(folder: Path, relative: Path) -> bool:
    """Take a notebook for this shard: True for the one shard that created its claim file."""
    try:
        os.close(os.open(folder / relative.as_posix().replace("/", "_"),
                         os.O_CREAT | os.O_EXCL | os.O_WRONLY))
        return True
    except FileExistsError:
        return False


def run_in_shards(args, argv: list[str]) -> int:
    """``--jobs n``: n copies of this script at once, each with its own JupyterLab server and
    browser, each taking the next notebook no other has taken (on two cores one kernel
    computes while the other notebook's page draws); then one summary."""
    rest = []
    skip = False
    for arg in argv:  # the same arguments, without --jobs
        if skip:
            skip = False
        elif arg == "--jobs":
            skip = True
        elif not arg.startswith("--jobs="):
            rest.append(arg)
    for old in args.out.glob("shard-*.json"):
        old.unlink()
    shutil.rmtree(args.out / ".claims", ignore_errors=True)
    (args.out / ".claims").mkdir()
    shards = [subprocess.Popen([sys.executable, str(Path(__file__).resolve()), *rest,
                                "--shard", f"{k}/{args.jobs}"]) for k in range(args.jobs)]
    codes = [shard.wait() for shard in shards]
    shutil.rmtree(args.out / ".claims", ignore_errors=True)
    passed = failed = 0
    for k in range(args.jobs):
        path = args.out / f"shard-{k}.json"
        if path.exists():
            p, f = json.loads(path.read_text())
            passed, failed = passed + p, failed + f
            path.unlink()
        else:
            failed += 1  # a shard that stopped before its summary
    print(f"all {args.jobs} shards: {passed} passed, {failed} failed", flush=True)
    return 0 if failed == 0 and passed > 0 and not any(codes) else 1


if __name__ == "__main__":
    sys.exit(main())
