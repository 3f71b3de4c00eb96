"""Engine micro-benchmarks against PyTorch (when importable), printed as a markdown table.

Per op: a chain of CHAIN ops on 20-element float32 tensors, then one backward; the forward
time and the forward+backward time are divided by CHAIN (medians over REPEATS runs).
Then a 100,000-op chain (`x = x * 1.0001`): forward and backward time and memory. Memory is
the growth of the process's resident set (/proc/self/statm) over the run, for both engines
(torch runs first so our allocations do not hide its growth), and for detachviz also
tracemalloc's peak (numpy reports its buffers to it; torch's C++ allocator does not).

Then the layer ops at tutorial sizes (conv2d, an LSTM cell step, layer_norm, embedding,
batch_norm, max_pool2d, cross_entropy): one forward + `.sum().backward()` per call, LOOPS
calls per run, medians over REPEATS runs, both engines alternating.

Times are the process's CPU time (time.process_time; the 100,000-op chain's seconds are
wall time). Both engines run single-threaded (torch.set_num_threads(1); OpenBLAS, numpy's
BLAS, via OPENBLAS_NUM_THREADS=1 unless the variable is set): on a shared 2-core machine a
second thread mostly measures the other processes (torch's conv2d ran 10-30x slower with 2
threads under load), and one thread each is the comparison that repeats.

Run: python scripts/bench_engine.py [--repeats N] [--chain N] [--long N] [--only-layers]
  [--only-ops] [--match TEXT] [--save run.json] [--before earlier.json]
--save writes the medians; --before takes an earlier run's file and prints the per-op and
layer tables as before/after ratios (the form docs/performance.md shows).
"""

from __future__ import annotations

import argparse
import gc
import importlib
import json
import os
import resource
import statistics
import time
import tracemalloc
from collections.abc import Callable
from typing import Any

os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")  # before numpy loads (see the docstring)

# the per-op and layer tables time the process's CPU time: both engines run single-threaded,
# so on an idle machine it is the wall time, and on a loaded one it leaves out the time the
# process waited for a core (wall-clock ratios under load moved by +-30% between runs)
_clock = time.process_time

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


def _conv2d(ns: Any, batch: int, size: int) -> Callable[[], None]:
    x = ns.randn(batch, 3, size, size, requires_grad=True)
    w = ns.randn(16, 3, 3, 3, requires_grad=True)
    b = ns.randn(16, requires_grad=True)
    f = ns.nn.functional.conv2d
    return lambda: f(x, w, b, padding=1).sum().backward()


def _lstm_cell(ns: Any, batch: int, hidden: int) -> Callable[[], None]:
    cell = ns.nn.LSTMCell(hidden, hidden)
    x = ns.randn(batch, hidden, requires_grad=True)
    h0, c0 = ns.randn(batch, hidden), ns.randn(batch, hidden)

    def run() -> None:
        h, c = cell(x, (h0, c0))
        (h.sum() + c.sum()).backward()

    return run


def _layer_norm(ns: Any, rows: int, width: int) -> Callable[[], None]:
    x = ns.randn(rows, width, requires_grad=True)
    w = ns.randn(width, requires_grad=True)
    b = ns.randn(width, requires_grad=True)
    f = ns.nn.functional.layer_norm
    return lambda: f(x, (width,), w, b).sum().backward()


def _embedding(ns: Any, vocab: int, dim: int) -> Callable[[], None]:
    emb = ns.nn.Embedding(vocab, dim)
    idx = ns.randint(0, vocab, (32, 20))
    return lambda: emb(idx).sum().backward()


def _batch_norm(ns: Any, batch: int, size: int) -> Callable[[], None]:
    bn = ns.nn.BatchNorm2d(16)
    x = ns.randn(batch, 16, size, size, requires_grad=True)
    return lambda: bn(x).sum().backward()


def _max_pool2d(ns: Any, batch: int, size: int) -> Callable[[], None]:
    x = ns.randn(batch, 16, size, size, requires_grad=True)
    f = ns.nn.functional.max_pool2d
    return lambda: f(x, 2).sum().backward()


def _cross_entropy(ns: Any, batch: int, classes: int) -> Callable[[], None]:
    x = ns.randn(batch, classes, requires_grad=True)
    t = ns.randint(0, classes, (batch,))
    f = ns.nn.functional.cross_entropy
    return lambda: f(x, t).backward()


# row name -> (calls per run, factory(torch-like module) -> one fwd+bwd call)
LAYERS: dict[str, tuple[int, Callable[[Any], Callable[[], None]]]] = {
    "conv2d 8x3x28x28 -> 16, k3 pad1": (20, lambda ns: _conv2d(ns, 8, 28)),
    "conv2d 32x3x32x32 -> 16, k3 pad1": (5, lambda ns: _conv2d(ns, 32, 32)),
    "LSTMCell step, batch 16, hidden 32": (50, lambda ns: _lstm_cell(ns, 16, 32)),
    "LSTMCell step, batch 64, hidden 128": (20, lambda ns: _lstm_cell(ns, 64, 128)),
    "layer_norm 32x128": (50, lambda ns: _layer_norm(ns, 32, 128)),
    "embedding 1000x64, 32x20 ids": (50, lambda ns: _embedding(ns, 1000, 64)),
    "batch_norm2d 16x16x28x28 (train)": (10, lambda ns: _batch_norm(ns, 16, 28)),
    "max_pool2d 16x16x28x28, k2": (10, lambda ns: _max_pool2d(ns, 16, 28)),
    "cross_entropy 64x10": (50, lambda ns: _cross_entropy(ns, 64, 10)),
}


def _layers(
    engines: list[Any], repeats: int, match: str = "", before: dict[str, Any] | None = None
) -> dict[str, list[float]]:
    """One table row per layer op: µs per forward+backward call, medians, alternating.
    With `before` (an earlier run's --save), the rows compare it with this run."""
    real = len(engines) > 1
    print(f"## layer ops at tutorial sizes, fwd + sum().backward(), median of {repeats}\n")
    old = (before or {}).get("layers", {})
    if old and real:
        print(
            "| op | before dv µs | before torch µs | ratio before | after dv µs | after torch µs "
            "| ratio after |"
        )
        print("|---|---:|---:|---:|---:|---:|---:|")
    else:
        print("| op | detachviz µs | torch µs | ratio (dv/torch) |")
        print("|---|---:|---:|---:|")
    ratios, old_ratios = [], []
    results: dict[str, list[float]] = {}
    for name, (loops, make) in LAYERS.items():
        if match not in name:
            continue
        calls = []
        for lib in engines:
            lib.manual_seed(0)
            calls.append(make(lib))
        runs: list[list[float]] = [[] for _ in engines]
        for _ in range(repeats):
            for k, call in enumerate(calls):
                gc.collect()
                gc.disable()
                try:
                    t0 = _clock()
                    for _ in range(loops):
                        call()
                    runs[k].append((_clock() - t0) / loops * 1e6)
                finally:
                    gc.enable()
        med = [statistics.median(r) for r in runs]
        results[name] = med
        if not real:
            print(f"| {name} | {med[0]:.1f} | - | - |")
            continue
        ratios.append(med[0] / med[1])
        if name in old:
            b = old[name]
            old_ratios.append(b[0] / b[1])
            print(
                f"| {name} | {b[0]:.0f} | {b[1]:.0f} | {b[0] / b[1]:.2f} | {med[0]:.0f} "
                f"| {med[1]:.0f} | {med[0] / med[1]:.2f} |"
            )
        elif old:
            print(f"| {name} | - | - | - | {med[0]:.0f} | {med[1]:.0f} | {med[0] / med[1]:.2f} |")
        else:
            print(f"| {name} | {med[0]:.1f} | {med[1]:.1f} | {med[0] / med[1]:.2f} |")
    if ratios and old:
        gb = f"{statistics.geometric_mean(old_ratios):.2f}" if old_ratios else "-"
        print(f"| geometric mean | | | {gb} | | | {statistics.geometric_mean(ratios):.2f} |\n")
    elif ratios:
        print(f"\ngeometric mean ratio: {statistics.geometric_mean(ratios):.2f}\n")
    return results


def _run_chain(torch: Any, spec: tuple[int, Callable[..., Any]], chain: int) -> tuple[float, float]:
    """One run: (forward µs, forward+backward µs) per op."""
    per_link, op = spec
    c = {"w": torch.ones(20) * 1.0001, "m": torch.ones(20, 20) * 0.05}
    x = torch.ones(20, requires_grad=True)
    gc.disable()
    try:
        t0 = _clock()
        y = x
        for _ in range(chain):
            y = op(y, c)
        t1 = _clock()
        y.sum().backward()
        t2 = _clock()
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
    ap.add_argument("--only-layers", action="store_true", help="just the layer-op table")
    ap.add_argument("--only-ops", action="store_true", help="just the per-op table")
    ap.add_argument("--match", default="", help="only the rows whose name contains this")
    ap.add_argument("--save", help="write this run's medians to this JSON file")
    ap.add_argument(
        "--before", help="an earlier run's --save file: print before/after ratio tables"
    )
    args = ap.parse_args()
    before = None
    if args.before:
        with open(args.before) as f:
            before = json.load(f)
    saved: dict[str, Any] = {"ops": {}, "layers": {}}
    import detachviz.torch as dv

    try:
        real: Any = importlib.import_module("torch")
        real.set_num_threads(1)
    except ImportError:
        real = None
    if args.only_layers:
        saved["layers"] = _layers(
            [dv] if real is None else [dv, real], args.repeats, args.match, before
        )
        _save(args.save, saved)
        return
    print(f"## per op, 20-element float32, chain of {args.chain}, median of {args.repeats}\n")
    print(
        "| op | detachviz fwd µs | detachviz fwd+bwd µs | torch fwd µs | torch fwd+bwd µs "
        "| ratio fwd+bwd (dv/torch) |"
    )
    print("|---|---:|---:|---:|---:|---:|")
    ratios = []
    engines = [dv] if real is None else [dv, real]
    for name, spec in OPS.items():
        if args.match not in name:
            continue
        res = _chain(engines, spec, args.chain, args.repeats)
        f, tot = res[0]
        if real is not None:
            rf, rtot = res[1]
            ratios.append(tot / rtot)
            saved["ops"][name] = [f, tot, rf, rtot]
            print(f"| {name} | {f:.2f} | {tot:.2f} | {rf:.2f} | {rtot:.2f} | {tot / rtot:.2f} |")
        else:
            print(f"| {name} | {f:.2f} | {tot:.2f} | - | - | - |")
    if ratios:
        print(f"\ngeometric mean ratio: {statistics.geometric_mean(ratios):.2f}\n")
    if before and before.get("ops") and ratios:
        _compare_ops(before["ops"], saved["ops"])
    if args.only_ops:
        _save(args.save, saved)
        return
    print(f"## {args.long:,}-op chain `y = y * 1.0001`, then backward\n")
    print("| engine | forward s | backward s | RSS growth MiB | tracemalloc peak MiB |")
    print("|---|---:|---:|---:|---:|")
    engines = [("torch", real)] if real is not None else []
    engines.append(("detachviz", dv))  # torch first: its RSS is not inflated by ours
    for name, lib in engines:
        f, b, rss, peak = _long_chain(lib, args.long)
        shown = "-" if peak is None else f"{peak:.1f}"
        print(f"| {name} | {f:.3f} | {b:.3f} | {rss:.1f} | {shown} |")
    print()
    engines_ = [dv] if real is None else [dv, real]
    saved["layers"] = _layers(engines_, args.repeats, args.match, before)
    _save(args.save, saved)


def _compare_ops(old: dict[str, list[float]], new: dict[str, list[float]]) -> None:
    """The per-op table as before/after ratios (fwd+bwd, dv/torch)."""
    print("| op (fwd+bwd, 20-element chain) | ratio before | ratio after |")
    print("|---|---:|---:|")
    rb, ra = [], []
    for name, v in new.items():
        after = v[1] / v[3]
        ra.append(after)
        if name in old:
            b = old[name][1] / old[name][3]
            rb.append(b)
            print(f"| {name} | {b:.2f} | {after:.2f} |")
        else:
            print(f"| {name} | - | {after:.2f} |")
    gb = f"{statistics.geometric_mean(rb):.2f}" if rb else "-"
    print(f"| geometric mean | {gb} | {statistics.geometric_mean(ra):.2f} |\n")


def _save(path: str | None, saved: dict[str, Any]) -> None:
    if path:
        with open(path, "w") as f:
            json.dump(saved, f, indent=1, sort_keys=True)


if __name__ == "__main__":
    main()
