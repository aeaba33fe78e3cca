"""What ``import qkv_helpers`` costs beyond numpy (target: ≤ 50 ms on a quiet machine).

Each run starts fresh Python processes, alternately ``python -c "import numpy"`` and
``python -c "import qkv_helpers"`` (the bytecode cache warm: one unmeasured import first),
and takes the median of each; the cost is the difference of the medians. Three runs, as the
issue asks, and the modules the import leaves in ``sys.modules`` that a learner's first
computation does not need (matplotlib, lang, checks ...). Wall-clock time is what a learner
waits on a quiet machine; the processes' CPU time (user + system) is printed beside it, as
it changes less when other programs share the cores.

``python benchmarks/bench_import.py [processes per run]`` (default 9).
"""

from __future__ import annotations

import os
import statistics
import subprocess
import sys
import time

TARGET_MS = 50.0
RUNS = 3
CLASSROOM = ("matplotlib", "ipywidgets", "threadpoolctl", "qkv_helpers.lang",
             "qkv_helpers.classroom")


def run_ms(code: str) -> tuple[float, float]:
    """Milliseconds from starting ``python -c code`` to its exit: wall clock, and CPU."""
    start = time.perf_counter()
    process = subprocess.Popen([sys.executable, "-c", code])
    _, status, usage = os.wait4(process.pid, 0)
    wall = (time.perf_counter() - start) * 1000
    process.returncode = os.waitstatus_to_exitcode(status)
    if process.returncode:
        raise subprocess.CalledProcessError(process.returncode, code)
    return wall, (usage.ru_utime + usage.ru_stime) * 1000


def one_run(processes: int) -> dict[str, float]:
    """The medians in ms over ``processes`` fresh processes each: numpy's and the package's
    wall-clock and CPU times."""
    times = {"numpy": [], "package": []}
    for _ in range(processes):
        times["numpy"].append(run_ms("import numpy"))
        times["package"].append(run_ms("import qkv_helpers"))
    return {f"{what}_{kind}": statistics.median(t[i] for t in times[what])
            for what in times for i, kind in enumerate(("wall", "cpu"))}


def loaded_after_import() -> list[str]:
    """The classroom modules (and heavy libraries) in sys.modules after the import."""
    code = ("import sys, qkv_helpers; print(' '.join(sorted(m for m in sys.modules if "
            f"m.split('.')[0] in {CLASSROOM!r} or m in {CLASSROOM!r} or "
            f"any(m.startswith(c + '.') for c in {CLASSROOM!r}))))")
    out = subprocess.run([sys.executable, "-c", code], check=True, capture_output=True,
                         text=True).stdout.split()
    return out


def main() -> None:
    processes = int(sys.argv[1]) if len(sys.argv) > 1 else 9
    run_ms("import qkv_helpers")  # bytecode written, files in the page cache
    extra, extra_cpu = [], []
    for run in range(1, RUNS + 1):
        m = one_run(processes)
        extra.append(m["package_wall"] - m["numpy_wall"])
        extra_cpu.append(m["package_cpu"] - m["numpy_cpu"])
        print(f"run {run}: import numpy {m['numpy_wall']:.0f} ms, import qkv_helpers "
              f"{m['package_wall']:.0f} ms: {extra[-1]:.0f} ms beyond numpy (CPU: "
              f"{extra_cpu[-1]:.0f} ms; medians of {processes})")
    verdict = "within" if max(extra) <= TARGET_MS else "over"
    print(f"beyond numpy: {', '.join(f'{x:.0f}' for x in extra)} ms ({verdict} {TARGET_MS:.0f} ms;"
          f" CPU {', '.join(f'{x:.0f}' for x in extra_cpu)} ms)")
    loaded = loaded_after_import()
    print("classroom modules loaded by the import:", " ".join(loaded) or "none")


if __name__ == "__main__":
    main()
