"""scaled_dot_product_attention against torch's, measured side by side.

For q, k, v of shape (1, 8, L, 64), float32, L = 128, 512 and 1024, without a mask and
with the causal mask, prints the ratio of our time to
``torch.nn.functional.scaled_dot_product_attention`` on CPU. Run with BLAS pinned to one
thread (``make bench`` does, and installs torch 2.13.0, a CPU build)::

    OMP_NUM_THREADS=1 OPENBLAS_NUM_THREADS=1 MKL_NUM_THREADS=1 \\
        .venv/bin/python benchmarks/bench_attention.py

torch is called two ways with the causal mask: with the same boolean mask
(``attn_mask``, True = may attend, our convention too) and with ``is_causal=True``, its
own causal kernel. The ratio compares us with the faster of the two, the honest bar; the
ratio against the same boolean mask is printed beside it. Note that ours also returns the
full (..., L, L) weights, which torch's fused kernel never builds.

The machine may be shared, so the three calls are interleaved (order alternating) over
many rounds and the medians reported. Times are CPU times of this process
(``time.process_time``: with one thread, the time the work itself took, without the time
other programs held the core); the wall-clock ratio is printed too. Targets are printed
with PASS/MISS; nothing here asserts a time.
"""

from __future__ import annotations

import functools
import os
import platform
import statistics
import sys
import time
from typing import NamedTuple

import numpy as np

from qkv_helpers import causal_mask, scaled_dot_product_attention

LENGTHS = (128, 512, 1024)
HEADS, HEAD_DIM = 8, 64
ROUNDS = {128: 41, 512: 31, 1024: 21}  # interleaved rounds per case, after a warm-up


def target(length: int, causal: bool) -> float | None:
    """The issue's targets: <= 1.3x at L <= 512, <= 1.5x at L = 1024 causal."""
    if length <= 512:
        return 1.3
    return 1.5 if causal else None


class Timing(NamedTuple):
    """Median times of repeated runs, in seconds."""

    cpu: float
    wall: float


def time_interleaved(runs: dict, rounds: int) -> dict[str, Timing]:
    """Median CPU and wall times of each callable, run in turn, order alternating."""
    names = list(runs)
    cpu = {n: [] for n in names}
    wall = {n: [] for n in names}
    for name in names:  # warm-up: first-call costs (allocation, torch dispatch) left out
        runs[name]()
    for i in range(rounds):
        for name in (names if i % 2 == 0 else names[::-1]):
            c, w = time.process_time(), time.perf_counter()
            runs[name]()
            cpu[name].append(time.process_time() - c)
            wall[name].append(time.perf_counter() - w)
    return {n: Timing(statistics.median(cpu[n]), statistics.median(wall[n])) for n in names}


def blas_description() -> str:
    """Which BLAS numpy uses, and its kernel and threads where they can be read."""
    try:
        from threadpoolctl import threadpool_info
    except ImportError:
        threadpool_info = None
    if threadpool_info is not None:
        return "; ".join(
            f"{i.get('internal_api')} {i.get('version')} {i.get('architecture', '')} "
            f"threads={i.get('num_threads')}" for i in threadpool_info()
        )
    blas = np.show_config(mode="dicts")["Build Dependencies"]["blas"]
    text = f"{blas.get('name')} {blas.get('version')}"
    core = _openblas_corename()
    return text + (f", kernel {core}" if core else "") + " (threadpoolctl not installed)"


def _openblas_corename() -> str | None:
    """The OpenBLAS kernel in use, read from the loaded library (Linux), else None."""
    import ctypes
    import re

    try:
        with open("/proc/self/maps") as maps:
            paths = sorted(set(re.findall(r"(/\S*openblas\S*\.so\S*)", maps.read())))
        for path in paths:
            lib = ctypes.CDLL(path)
            for name in ("scipy_openblas_get_corename64_", "scipy_openblas_get_corename",
                         "openblas_get_corename64_", "openblas_get_corename"):
                if hasattr(lib, name):
                    fn = getattr(lib, name)
                    fn.restype = ctypes.c_char_p
                    return fn().decode()
    except OSError:
        pass
    return None


def main() -> int:
    try:
        import torch
    except ImportError:
        print("torch is not installed: `make bench` installs the CPU build (torch==2.13.0).")
        return 0
    torch.set_num_threads(1)
    sdpa_torch = torch.nn.functional.scaled_dot_product_attention

    print(f"python {platform.python_version()}, numpy {np.__version__}, torch {torch.__version__}"
          f" (CPU capability {torch.backends.cpu.get_cpu_capability()}, "
          f"threads {torch.get_num_threads()})")
    print(f"numpy BLAS: {blas_description()}")
    env = ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS",
           "OPENBLAS_CORETYPE", "OPENBLAS_L2_SIZE")
    print("environment: " + ", ".join(f"{k}={os.environ.get(k, '(unset)')}" for k in env))
    print(f"cpu: {platform.processor() or platform.machine()}, {os.cpu_count()} cores visible")
    print()

    rng = np.random.default_rng(0)
    rows = []
    for length in LENGTHS:
        shape = (1, HEADS, length, HEAD_DIM)
        q, k, v = (rng.standard_normal(shape, dtype=np.float32) for _ in range(3))
        tq, tk, tv = (torch.from_numpy(a) for a in (q, k, v))
        for causal in (False, True):
            mask = causal_mask(length) if causal else None
            runs = {
                "ours": functools.partial(scaled_dot_product_attention, q, k, v, mask=mask),
                "torch": functools.partial(
                    sdpa_torch, tq, tk, tv,
                    attn_mask=None if mask is None else torch.from_numpy(mask)),
            }
            if causal:
                runs["torch is_causal"] = functools.partial(sdpa_torch, tq, tk, tv,
                                                            is_causal=True)
            ours = runs["ours"]().output
            diff = max(float(np.abs(ours - run().numpy()).max())
                       for name, run in runs.items() if name != "ours")
            times = time_interleaved(runs, ROUNDS[length])
            best = min((n for n in times if n != "ours"), key=lambda n: times[n].cpu)
            rows.append((length, causal, times, best, diff))

    header = (f"{'L':>5} {'mask':>6} {'ours ms':>8} {'torch ms':>9} {'is_causal':>9} "
              f"{'ratio':>6} {'vs mask':>7} {'wall':>5} {'target':>6} {'':>4}  max|Δout|")
    print(header)
    print("-" * len(header))
    for length, causal, times, best, diff in rows:
        ours, torch_mask = times["ours"], times["torch"]
        ratio = ours.cpu / times[best].cpu
        wall = ours.wall / times[best].wall
        goal = target(length, causal)
        verdict = "" if goal is None else ("PASS" if ratio <= goal else "MISS")
        is_causal = f"{times['torch is_causal'].cpu * 1e3:9.2f}" if causal else f"{'-':>9}"
        vs_mask = f"{ours.cpu / torch_mask.cpu:7.2f}" if causal else f"{'-':>7}"
        print(f"{length:>5} {'causal' if causal else 'none':>6} {ours.cpu * 1e3:8.2f} "
              f"{torch_mask.cpu * 1e3:9.2f} {is_causal} {ratio:6.2f} {vs_mask} {wall:5.2f} "
              f"{'-' if goal is None else f'{goal:.1f}x':>6} {verdict:>4}  {diff:.1e}")
    print()
    print("ratio: ours / the faster torch call (causal rows: the boolean attn_mask or "
          "is_causal=True, whichever was faster); vs mask: ours / torch with the same "
          "boolean mask; wall: the ratio in wall-clock time. CPU-time medians of interleaved "
          "rounds, float32, q, k, v of shape (1, 8, L, 64).")
    return 0


if __name__ == "__main__":
    sys.exit(main())
