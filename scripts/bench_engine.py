"""Engine micro-benchmarks against PyTorch (when importable), printed as a markdown table.

Per op: a chain of CHAIN ops on 20-element float32 tensors, then one backward; the forward
time and the forward+backward time are divided by CHAIN (medians over REPEATS runs).
Then a 100,000-op chain (`x = x * 1.0001`): forward and backward time and memory. Memory is
the growth of the process's resident set (/proc/self/statm) over the run, for both engines
(torch runs first so our allocations do not hide its growth), and for detachviz also
tracemalloc's peak (numpy reports its buffers to it; torch's C++ allocator does not).

Run: python scripts/bench_engine.py [--repeats N] [--chain N] [--long N]
"""

from __future__ import annotations

import argparse
import gc
import importlib
import resource
import statistics
import time
import tracemalloc
from collections.abc import Callable
from typing import Any

# op name -> (ops per link, f(y, c) producing the next link of the chain); `c` holds the
# constants: w (20,) of 1.0001 and m (20, 20) of 0.05, so values stay bounded
OPS: dict[str, tuple[int, Callable[[Any, dict[str, Any]], Any]]] = {
    "mul (tensor)": (1, lambda y, c: y * c["w"]),
    "add (tensor)": (1, lambda y, c: y + c["w"]),
    "sub (tensor)": (1, lambda y, c: y - c["w"]),
    "div (tensor)": (1, lambda y, c: y / c["w"]),
    "mul (scalar)": (1, lambda y, c: y * 1.0001),
    "pow (scalar)": (1, lambda y, c: y**1.0),
    "exp, sub (scalar)": (2, lambda y, c: y.exp() - 2.0),
    "tanh": (1, lambda y, c: y.tanh()),
    "sigmoid": (1, lambda y, c: y.sigmoid()),
    "relu": (1, lambda y, c: y.relu()),
    "view": (1, lambda y, c: y.view(4, 5) if y.dim() == 1 else y.view(20)),
    "unsqueeze, expand, mean(dim)": (3, lambda y, c: y.unsqueeze(0).expand(2, 20).mean(0)),
    "matmul (20x20 @ 20)": (1, lambda y, c: c["m"] @ y),
}


def _run_chain(torch: Any, spec: tuple[int, Callable[..., Any]], chain: int) -> tuple[float, float]:
    """One run: (forward µs, forward+backward µs) per op."""
    per_link, op = spec
    c = {"w": torch.ones(20) * 1.0001, "m": torch.ones(20, 20) * 0.05}
    x = torch.ones(20, requires_grad=True)
    gc.disable()
    try:
        t0 = time.perf_counter()
        y = x
        for _ in range(chain):
            y = op(y, c)
        t1 = time.perf_counter()
        y.sum().backward()
        t2 = time.perf_counter()
    finally:
        gc.enable()
    n = chain * per_link
    return (t1 - t0) / n * 1e6, (t2 - t0) / n * 1e6


def _chain(
    engines: list[Any], spec: tuple[int, Callable[..., Any]], chain: int, repeats: int
) -> list[tuple[float, float]]:
    """Medians per engine. Runs alternate between engines so that load from other processes
    hits both alike (this machine is shared)."""
    runs: list[list[tuple[float, float]]] = [[] for _ in engines]
    for _ in range(repeats):
        for k, lib in enumerate(engines):
            runs[k].append(_run_chain(lib, spec, chain))
    return [
        (statistics.median(r[0] for r in rs), statistics.median(r[1] for r in rs)) for rs in runs
    ]


def _rss_mib() -> float:
    """Current resident set size (Linux /proc; falls back to max RSS elsewhere)."""
    try:
        with open("/proc/self/statm") as f:
            return int(f.read().split()[1]) * resource.getpagesize() / 2**20
    except OSError:
        return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def _long_chain(torch: Any, n: int) -> tuple[float, float, float, float | None]:
    """(forward s, backward s, RSS growth MiB, tracemalloc peak MiB or None) of an n-op chain.
    Timed with tracemalloc off; tracemalloc (Python allocations, numpy included) runs in a
    second pass for detachviz only: torch's C++ allocator does not report to it."""
    gc.collect()
    rss0 = _rss_mib()
    x = torch.ones(20, requires_grad=True)
    t0 = time.perf_counter()
    y = x
    for _ in range(n):
        y = y * 1.0001
    t1 = time.perf_counter()
    rss1 = _rss_mib()
    y.sum().backward()
    t2 = time.perf_counter()
    rss = max(rss1, _rss_mib()) - rss0
    assert abs(float(x.grad[0]) - 1.0001**n) / 1.0001**n < 1e-2
    del x, y
    peak = None
    if torch.__name__.startswith("detachviz"):
        gc.collect()
        tracemalloc.start()
        x = torch.ones(20, requires_grad=True)
        y = x
        for _ in range(n):
            y = y * 1.0001
        y.sum().backward()
        peak = tracemalloc.get_traced_memory()[1] / 2**20
        tracemalloc.stop()
    return t1 - t0, t2 - t1, rss, peak


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--repeats", type=int, default=15)
    ap.add_argument("--chain", type=int, default=300)
    ap.add_argument("--long", type=int, default=100_000)
    args = ap.parse_args()
    import detachviz.torch as dv

    try:
        real: Any = importlib.import_module("torch")
    except ImportError:
        real = None
    print(f"## per op, 20-element float32, chain of {args.chain}, median of {args.repeats}\n")
    print(
        "| op | detachviz fwd µs | detachviz fwd+bwd µs | torch fwd µs | torch fwd+bwd µs "
        "| ratio fwd+bwd (dv/torch) |"
    )
    print("|---|---:|---:|---:|---:|---:|")
    ratios = []
    engines = [dv] if real is None else [dv, real]
    for name, spec in OPS.items():
        res = _chain(engines, spec, args.chain, args.repeats)
        f, tot = res[0]
        if real is not None:
            rf, rtot = res[1]
            ratios.append(tot / rtot)
            print(f"| {name} | {f:.2f} | {tot:.2f} | {rf:.2f} | {rtot:.2f} | {tot / rtot:.2f} |")
        else:
            print(f"| {name} | {f:.2f} | {tot:.2f} | - | - | - |")
    if ratios:
        print(f"\ngeometric mean ratio: {statistics.geometric_mean(ratios):.2f}\n")
    print(f"## {args.long:,}-op chain `y = y * 1.0001`, then backward\n")
    print("| engine | forward s | backward s | RSS growth MiB | tracemalloc peak MiB |")
    print("|---|---:|---:|---:|---:|")
    engines = [("torch", real)] if real is not None else []
    engines.append(("detachviz", dv))  # torch first: its RSS is not inflated by ours
    for name, lib in engines:
        f, b, rss, peak = _long_chain(lib, args.long)
        shown = "-" if peak is None else f"{peak:.1f}"
        print(f"| {name} | {f:.3f} | {b:.3f} | {rss:.1f} | {shown} |")


if __name__ == "__main__":
    main()
