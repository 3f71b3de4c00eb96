"""float32 transcendentals (engine.transcendental) against torch and numpy: bit-identical
fractions and speed, for both backends: MKL's VML (the `exact` extra, engine/mkl.py: "mkl")
and the numpy fallback ("ours"; sigmoid is the same emulation under both).

Match table: for each op, the fraction of elements whose float32 bits equal torch's (nan
counts as equal to nan), over a broad input set (uniform over the op's typical range, large
arguments, denormals, +-0, +-inf, nan) at every size in SIZES, for ours and for numpy's own
float32 kernel (what detachviz used before). Speed table: one call each way, median of runs.
Nothing here is asserted; tests/engine/test_transcendental.py holds the checked claims.
Usage: python scripts/bench_numerics.py [--repeat 5] [--number 20]
"""

from __future__ import annotations

import argparse
import timeit
from typing import Any

import numpy as np

from detachviz.engine import mkl, transcendental

SIZES = (1, 3, 7, 8, 9, 15, 16, 17, 31, 64, 100, 1000, 100000)
OPS = ("sin", "cos", "exp", "log", "tanh", "sigmoid", "sqrt")
_SPECIAL = np.array(
    [0.0, -0.0, np.inf, -np.inf, np.nan, 1e-40, -1e-40, 1e-45, 3e-39, 88.7, -88.7, -103.9, 1e30],
    dtype=np.float32,
)


def inputs(op: str, n: int, seed: int) -> np.ndarray:
    rng = np.random.default_rng(seed)
    lo, hi = {"log": (0.0, 100.0), "sqrt": (0.0, 100.0), "exp": (-90.0, 90.0)}.get(op, (-10, 10))
    parts = [
        rng.uniform(lo, hi, n),
        rng.uniform(-1.0, 1.0, n),
        np.exp(rng.uniform(-40.0, 40.0, n)) * rng.choice([-1.0, 1.0], n),  # wide magnitudes
    ]
    x = np.concatenate(parts).astype(np.float32)
    if op == "sqrt":
        x = np.abs(x)
    x[rng.integers(0, x.size, min(n, _SPECIAL.size))] = _SPECIAL[: min(n, _SPECIAL.size)]
    return rng.permutation(x)[:n]


def _fallback(op: str) -> Any:
    fn = getattr(transcendental, op)
    return getattr(fn, "fallback", fn)


def _mkl(op: str) -> Any:
    """The MKL-backed op, or None without the extra (sigmoid: the emulation either way)."""
    return getattr(transcendental, op) if mkl.available() else None


def _numpy_f32(op: str, x: np.ndarray) -> np.ndarray:
    if op == "sigmoid":
        with np.errstate(over="ignore"):
            return np.float32(1) / (np.float32(1) + np.exp(-x))
    return getattr(np, op)(x)


def _same(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    return (a.view(np.int32) == b.view(np.int32)) | (np.isnan(a) & np.isnan(b))


def match_table(torch: Any) -> None:
    """Pooled over SIZES up to EXACT_MAX (3 seeds each), then the 100000-element inputs (above
    EXACT_MAX: numpy's float32 kernels), then linspace(-pi, pi, 2000) (the tutorial's data)."""
    print(f"MKL: {mkl._State.version if mkl.available() else 'absent'}; ours = numpy fallback")
    print(
        f"{'op':8} {'mkl':>8} {'ours':>8} {'numpy32':>8} {'ours@1e5':>9} {'linspace':>9}"
        f" {'worst n':>8}"
    )
    grid = np.linspace(-np.pi, np.pi, 2000, dtype=np.float32)
    for op in OPS:
        small = [0, 0, 0, 0]  # ours, numpy, total, mkl
        big = [0, 0]
        worst = (1.0, 0)
        with np.errstate(all="ignore"):
            for n in SIZES:
                for seed in (0, 1, 2):
                    x = inputs(op, n, seed)
                    t = getattr(torch, op)(torch.from_numpy(x)).numpy()
                    hit = int(_same(_fallback(op)(x), t).sum())
                    fast = _mkl(op)
                    if n > transcendental.EXACT_MAX:
                        big[0] += hit
                        big[1] += n
                        continue
                    small[0] += hit
                    small[3] += int(_same(fast(x), t).sum()) if fast else 0
                    small[1] += int(_same(_numpy_f32(op, x), t).sum())
                    small[2] += n
                    worst = min(worst, (hit / n, n))
            g = np.abs(grid) if op == "log" else grid
            lin = _same(_fallback(op)(g), getattr(torch, op)(torch.from_numpy(g)).numpy())
        print(
            f"{op:8} {small[3] / small[2]:8.4f} {small[0] / small[2]:8.4f}"
            f" {small[1] / small[2]:8.4f} {big[0] / big[1]:9.4f}"
            f" {lin.mean():9.4f} {worst[1]:8} ({worst[0]:.3f})"
        )


def _time(fn: Any, repeat: int, number: int) -> float:
    return min(timeit.repeat(fn, number=number, repeat=repeat)) / number  # min: a busy machine


def speed_table(torch: Any, repeat: int, number: int) -> None:
    """Per call, in microseconds: the MKL backend, the numpy fallback, numpy's own float32
    kernel, torch; then the ratios to numpy (the issue's budget: at most 1.10 at large sizes).
    At 20 elements every column is per-call overhead (sigmoid's exact Sleef path: ~45 numpy
    calls; see docs/performance.md, "Transcendentals at small sizes")."""
    print(
        f"\n{'op':8} {'n':>8} {'mkl us':>9} {'ours us':>9} {'numpy32':>9} {'torch us':>9}"
        f" {'mkl/np':>7} {'ours/np':>8}"
    )
    for n in (20, 1000, 100_000, 1_000_000):  # 20: bench_engine's per-op size
        for op in OPS:
            x = inputs(op, n, 0)
            fast = _mkl(op)
            with np.errstate(all="ignore"):
                m = _time(lambda x=x, f=fast: f(x), repeat, number) if fast else float("nan")
                a = _time(lambda op=op, x=x: _fallback(op)(x), repeat, number)
                b = _time(lambda op=op, x=x: _numpy_f32(op, x), repeat, number)
            c = (
                _time(lambda op=op, x=x: getattr(torch, op)(torch.from_numpy(x)), repeat, number)
                if torch
                else float("nan")
            )
            print(
                f"{op:8} {n:8} {m * 1e6:9.1f} {a * 1e6:9.1f} {b * 1e6:9.1f} {c * 1e6:9.1f}"
                f" {m / b:7.2f} {a / b:8.2f}"
            )


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--repeat", type=int, default=5)
    ap.add_argument("--number", type=int, default=20)
    ap.add_argument("--speed-only", action="store_true")
    args = ap.parse_args()
    try:
        import torch
    except ImportError:
        torch = None
    if torch is not None:
        print(
            f"torch {torch.__version__}, CPU capability {torch.backends.cpu.get_cpu_capability()}"
        )
        if not args.speed_only:
            match_table(torch)
        torch.set_num_threads(1)  # numpy and VML run one thread: compare like with like
    speed_table(torch, args.repeat, args.number)


if __name__ == "__main__":
    main()
