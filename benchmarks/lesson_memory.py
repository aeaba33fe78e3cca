"""Each lesson's kernel: the peak RSS and the CPU seconds of a fresh kernel's Run All.

    python benchmarks/lesson_memory.py                 # every lesson, Korean notebooks
    python benchmarks/lesson_memory.py 03_scaling 12_positions --lang en
    python benchmarks/lesson_memory.py 15_induction_heads --cells   # each code cell too

What a hub's per-student memory limit sees of one open lesson is its kernel (plus the
student's Jupyter server, the same for every lesson, which tools/hub_test.py measures). The
kernel's RSS is sampled every 50 ms while nbclient runs the notebook, as the lessons run in
JupyterLab (inline figures, widgets built; one BLAS thread as make lab sets). It prints a
table in MiB: the peak, and the RSS at the end (what the kernel keeps while the student
reads on). The budget the teacher guide plans with: 200 MiB per lesson, 260 for lesson 11.
The same run gives the CPU seconds of the Run All: the kernel's user + system time from the
moment it is ready (started, connected) to its last cell's end, what one student's *Run All*
costs the hub (the kernel's start is not counted; the student's server adds a little).
With --cells it also prints, for each code cell, its CPU seconds, the peak RSS while it ran and
the RSS after it: where a lesson's time and memory go.
"""

from __future__ import annotations

import argparse
import os
import sys
import threading
import time
from pathlib import Path

import nbformat
import psutil
from jupyter_client.manager import KernelManager
from nbclient import NotebookClient

ROOT = Path(__file__).resolve().parent.parent
BUDGET_MIB = {"11_real_model": 260}
DEFAULT_BUDGET_MIB = 200


def _cpu(process: psutil.Process) -> float:
    times = process.cpu_times()
    return times.user + times.system


def measure(path: Path, interval: float = 0.05, cells: list | None = None,
            solutions: bool = False) -> tuple[int, int, float]:
    """(peak RSS, RSS at the end) in bytes of a fresh kernel running the notebook at path,
    and the CPU seconds of its Run All. If ``cells`` is a list, one (cell index, first line,
    CPU seconds, peak RSS during the cell, RSS after it) is appended to it per code cell.
    ``solutions``: the solution cells run too (shipped as raw cells, which Run All skips)."""
    nb = nbformat.read(path, as_version=4)
    for cell in nb.cells if solutions else ():
        if "solution" in cell.metadata.get("tags", []):
            cell.cell_type, cell.outputs, cell.execution_count = "code", [], None
    env = dict(os.environ, OMP_NUM_THREADS="1", OPENBLAS_NUM_THREADS="1", MKL_NUM_THREADS="1")
    env.pop("MPLBACKEND", None)  # inline figures, as in JupyterLab
    km = KernelManager(kernel_name="python3")
    km.start_kernel(cwd=str(path.parent), env=env)
    process = psutil.Process(km.provisioner.process.pid)
    peak = [0, 0]  # the whole run's, the current cell's
    lock = threading.Lock()
    done = threading.Event()

    def sample() -> None:
        while not done.is_set():
            try:
                rss = process.memory_info().rss
            except psutil.Error:
                return
            with lock:
                peak[:] = max(peak[0], rss), max(peak[1], rss)
            done.wait(interval)

    sampler = threading.Thread(target=sample, daemon=True)
    sampler.start()
    try:
        client = NotebookClient(nb, km=km, timeout=1200, allow_errors=False)
        with client.setup_kernel():
            start = _cpu(process)
            for index, cell in enumerate(nb.cells):
                before = _cpu(process)
                with lock:
                    peak[1] = 0
                client.execute_cell(cell, index)
                if cells is not None and cell.cell_type == "code":
                    after = process.memory_info().rss
                    with lock:
                        cell_peak = max(peak[1], after)
                    cells.append((index, (cell.source.strip().splitlines() or [""])[0][:50],
                                  _cpu(process) - before, cell_peak, after))
            cpu = _cpu(process) - start
        end = process.memory_info().rss
    finally:
        done.set()
        sampler.join()
        km.shutdown_kernel(now=True)
    return max(peak[0], end), end, cpu


def report_run_all(stem: str, lang: str = "en", target_mib: int = DEFAULT_BUDGET_MIB) -> None:
    """The benchmarks' line on a lesson's Run All (solutions included): wall clock against
    the 30 s target, the kernel's CPU seconds, its peak RSS against ``target_mib``."""
    start = time.perf_counter()
    peak, _, cpu = measure(ROOT / "notebooks" / lang / f"{stem}.ipynb", solutions=True)
    seconds, peak_mib = time.perf_counter() - start, peak / 2**20
    print(f"2. Run All of lesson {stem[:2]} ({lang}, fresh kernel, solutions included)")
    print(f"   wall clock {seconds:.1f} s (target <= 30 s: {'PASS' if seconds <= 30 else 'MISS'}); "
          f"the kernel's CPU time {cpu:.1f} s (what a machine of one's own would take, about); "
          f"load average {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores")
    print(f"   kernel peak RSS {peak_mib:.0f} MiB (target <= {target_mib}: "
          f"{'PASS' if peak_mib <= target_mib else 'MISS'})")


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("stems", nargs="*")
    parser.add_argument("--lang", default="ko", choices=["ko", "en"])
    parser.add_argument("--cells", action="store_true",
                        help="also each code cell's CPU seconds and RSS (peak, after)")
    args = parser.parse_args(argv)
    folder = ROOT / "notebooks" / args.lang
    stems = args.stems or sorted(p.stem for p in folder.glob("[0-9][0-9]_*.ipynb"))
    print(f"| lesson ({args.lang}) | kernel peak RSS | at the end | budget | CPU of a Run All |")
    print("|---|---|---|---|---|")
    over = []
    per_cell = {}
    for stem in stems:
        cells = per_cell[stem] = [] if args.cells else None
        peak, end, cpu = measure(folder / f"{stem}.ipynb", cells=cells)
        budget = BUDGET_MIB.get(stem, DEFAULT_BUDGET_MIB)
        mark = "" if peak <= budget * 2**20 else " (over)"
        if mark:
            over.append(stem)
        print(f"| {stem} | {peak / 2**20:.0f} MiB{mark} | {end / 2**20:.0f} MiB | "
              f"{budget} MiB | {cpu:.1f} s |", flush=True)
    for stem, cells in per_cell.items() if args.cells else ():
        print(f"\n| {stem}: cell | CPU | peak RSS | RSS after | first line |")
        print("|---|---|---|---|---|")
        for index, first, cpu, peak, after in cells:
            print(f"| {index} | {cpu:.2f} s | {peak / 2**20:.0f} MiB | {after / 2**20:.0f} MiB | "
                  f"`{first}` |")
    if over:
        print(f"over the budget: {', '.join(over)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
