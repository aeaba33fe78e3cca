"""What ``import qkv_helpers`` costs beyond numpy (target: ≤ 50 ms on a quiet machine).

Each run starts fresh Python processes, alternately ``python -c "import numpy"`` and
``python -c "import qkv_helpers"`` (the bytecode cache warm: one unmeasured import first),
and takes the median of each; the cost is the difference of the medians. Three runs, as the
issue asks, and the modules the import leaves in ``sys.modules`` that a learner's first
computation does not need (matplotlib, lang, checks ...).

``python benchmarks/bench_import.py [processes per run]`` (default 9).
"""

from __future__ import annotations

import statistics
import subprocess
import sys
import time

TARGET_MS = 50.0
RUNS = 3
CLASSROOM = ("matplotlib", "ipywidgets", "threadpoolctl", "qkv_helpers.lang",
             "qkv_helpers.checks", "qkv_helpers.grading", "qkv_helpers.quiz",
             "qkv_helpers.plots", "qkv_helpers.widgets", "qkv_helpers.style")


def wall_ms(code: str) -> float:
    """Milliseconds from starting ``python -c code`` to its exit."""
    start = time.perf_counter()
    subprocess.run([sys.executable, "-c", code], check=True)
    return (time.perf_counter() - start) * 1000


def one_run(processes: int) -> tuple[float, float]:
    """The medians (numpy, qkv_helpers) in ms over ``processes`` fresh processes each."""
    numpy_ms, package_ms = [], []
    for _ in range(processes):
        numpy_ms.append(wall_ms("import numpy"))
        package_ms.append(wall_ms("import qkv_helpers"))
    return statistics.median(numpy_ms), statistics.median(package_ms)


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
    wall_ms("import qkv_helpers")  # bytecode written, files in the page cache
    extra = []
    for run in range(1, RUNS + 1):
        numpy_ms, package_ms = one_run(processes)
        extra.append(package_ms - numpy_ms)
        print(f"run {run}: import numpy {numpy_ms:.0f} ms, import qkv_helpers {package_ms:.0f} ms:"
              f" {package_ms - numpy_ms:.0f} ms beyond numpy (median of {processes})")
    verdict = "within" if max(extra) <= TARGET_MS else "over"
    print(f"beyond numpy: {', '.join(f'{x:.0f}' for x in extra)} ms ({verdict} {TARGET_MS:.0f} ms)")
    loaded = loaded_after_import()
    print("classroom modules loaded by the import:", " ".join(loaded) or "none")


if __name__ == "__main__":
    main()
