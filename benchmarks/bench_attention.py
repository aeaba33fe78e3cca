"""scaled_dot_product_attention, readable and fast, against torch's, side by side.

For q, k, v of shape (1, 8, L, 64), float32, L = 128, 256, 512 and 1024, without a mask
and with the causal mask, prints the time of

- ``qkv_helpers.scaled_dot_product_attention``, the readable one the lessons call
  (it also returns the full (..., L, L) weights);
- ``qkv_helpers.fast.blocked_attention``, the fast path (output only);
- ``torch.nn.functional.scaled_dot_product_attention`` on CPU, with the same boolean mask
  (``attn_mask``) and, for the causal rows, with ``is_causal=True``, its own kernel.

Run with BLAS pinned to one thread (``make bench`` does, and installs torch 2.13.0, a
CPU build)::

    OMP_NUM_THREADS=1 OPENBLAS_NUM_THREADS=1 MKL_NUM_THREADS=1 \\
        .venv/bin/python benchmarks/bench_attention.py

Targets (issue 14): the readable one within 2x of torch, the fast one within 1.2x; torch
is the faster of its calls (for the causal rows usually is_causal=True, which skips the
masked half). The machine may be shared, so the calls are interleaved (order alternating)
over many rounds; a ratio is taken within each round, and the table gives the median
ratio with the 10th-90th percentile range of the rounds beside it. Times are CPU times
of this process (``time.process_time``: with one thread, the time the work itself took).
Targets are printed with PASS/MISS; nothing here asserts a time.
"""

from __future__ import annotations

import functools
import os
import platform
import statistics
import sys
import time

import numpy as np

from qkv_helpers import causal_mask, scaled_dot_product_attention
from qkv_helpers.fast import blocked_attention

LENGTHS = (128, 256, 512, 1024)
HEADS, HEAD_DIM = 8, 64
ROUNDS = {128: 41, 256: 31, 512: 21, 1024: 15}  # interleaved rounds per case, after a warm-up


TARGETS = {"readable": 2.0, "fast": 1.2}  # at most this many times torch's time


def time_interleaved(runs: dict, rounds: int) -> dict[str, list[float]]:
    """CPU seconds of each callable in every round, run in turn, order alternating."""
    names = list(runs)
    cpu = {n: [] for n in names}
    for name in names:  # warm-up: first-call costs (allocation, torch dispatch) left out
        runs[name]()
    for i in range(rounds):
        for name in (names if i % 2 == 0 else names[::-1]):
            c = time.process_time()
            runs[name]()
            cpu[name].append(time.process_time() - c)
    return cpu


def spread(values) -> tuple[float, float, float]:
    """Median and the 10th and 90th percentiles."""
    p10, p50, p90 = np.percentile(values, [10, 50, 90])
    return float(p50), float(p10), float(p90)


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
                "readable": functools.partial(scaled_dot_product_attention, q, k, v, mask=mask),
                "fast": functools.partial(blocked_attention, q, k, v, mask=mask),
                "torch": functools.partial(
                    sdpa_torch, tq, tk, tv,
                    attn_mask=None if mask is None else torch.from_numpy(mask)),
            }
            if causal:
                runs["torch is_causal"] = functools.partial(sdpa_torch, tq, tk, tv,
                                                            is_causal=True)
            want = runs["torch"]().numpy()
            diff = max(float(np.abs(runs["readable"]().output - want).max()),
                       float(np.abs(runs["fast"]() - want).max()))
            cpu = time_interleaved(runs, ROUNDS[length])
            torch_names = [n for n in cpu if n.startswith("torch")]
            best = np.min([cpu[n] for n in torch_names], axis=0)  # per round: torch's faster
            ratios = {n: spread(np.array(cpu[n]) / best) for n in ("readable", "fast")}
            medians = {n: statistics.median(cpu[n]) for n in cpu}
            rows.append((length, causal, medians, ratios, diff))
            sys.stdout.flush()

    header = (f"{'L':>5} {'mask':>6} {'readable ms':>11} {'fast ms':>8} {'torch ms':>9} "
              f"{'is_causal':>9} {'readable/torch (p10-p90)':>25} {'':>4} "
              f"{'fast/torch (p10-p90)':>21} {'':>4} {'vs mask':>7}  max|Δout|")
    print(header)
    print("-" * len(header))
    verdicts = []
    for length, causal, medians, ratios, diff in rows:
        is_causal = f"{medians['torch is_causal'] * 1e3:9.2f}" if causal else f"{'-':>9}"
        vs_mask = (f"{medians['readable'] / medians['torch']:7.2f}" if causal
                   else f"{'-':>7}")
        cells = []
        for name in ("readable", "fast"):
            mid, lo, hi = ratios[name]
            ok = mid <= TARGETS[name]
            verdicts.append(ok)
            width = 25 if name == "readable" else 21
            cells.append(f"{f'{mid:.2f} ({lo:.2f}-{hi:.2f})':>{width}} "
                         f"{'PASS' if ok else 'MISS':>4}")
        print(f"{length:>5} {'causal' if causal else 'none':>6} "
              f"{medians['readable'] * 1e3:11.2f} {medians['fast'] * 1e3:8.2f} "
              f"{medians['torch'] * 1e3:9.2f} {is_causal} {cells[0]} {cells[1]} "
              f"{vs_mask}  {diff:.1e}")
    print()
    print(f"targets: readable <= {TARGETS['readable']}x torch, fast <= {TARGETS['fast']}x "
          f"torch (median of the per-round ratios; torch = its faster call, is_causal=True "
          f"or the boolean attn_mask). {sum(verdicts)} of {len(verdicts)} cells PASS. "
          "CPU-time medians of interleaved rounds, float32, q, k, v of shape (1, 8, L, 64); "
          "the readable one also builds the (1, 8, L, L) weights, which torch never does. "
          "vs mask: readable / torch given the same boolean attn_mask (no is_causal).")
    return 0


if __name__ == "__main__":
    sys.exit(main())
