"""Workload benchmarks: large tensors against raw numpy, an MLP training step against PyTorch,
and the cost of tracing (what `render` and `grad` switch on) against not tracing.

Every figure is a median over --repeats runs; every ratio compares two things measured in
this same run, alternating between them so machine load hits both alike.

    python scripts/bench_workloads.py [--repeats 7] [--sizes 1000000,10000000] [--only tracing]
"""

from __future__ import annotations

import argparse
import contextlib
import gc
import importlib
import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from detachviz import torch as dt  # noqa: E402
from detachviz.engine import trace  # noqa: E402


def median_pair(
    a: Callable[[], Any],
    b: Callable[[], Any],
    repeats: int,
    clock: Callable[[], float] = time.perf_counter,
) -> tuple[float, float]:
    """Median seconds of a() and b(), run alternately, by `clock`."""
    ta, tb = [], []
    for _ in range(repeats):
        for fn, out in ((a, ta), (b, tb)):
            gc.collect()
            start = clock()
            fn()
            out.append(clock() - start)
    return statistics.median(ta), statistics.median(tb)


# ---- large tensors: y = tanh(x * 1.0001 + 0.5) * x, then sum and backward -------------------
def large_detachviz(n: int) -> Callable[[], None]:
    x = dt.ones(n, requires_grad=True)

    def run() -> None:
        x.grad = None
        (((x * 1.0001 + 0.5).tanh()) * x).sum().backward()

    return run


def large_numpy(n: int) -> Callable[[], None]:
    """The same forward and the hand-written backward, in plain numpy: the floor."""
    x = np.ones(n, dtype=np.float32)

    def run() -> None:
        a = x * np.float32(1.0001) + np.float32(0.5)
        t = np.tanh(a)
        y = t * x
        y.sum()
        g = np.ones_like(y)
        gt = g * x
        ga = gt * (1 - t * t)
        gx = ga * np.float32(1.0001) + g * t
        gx.sum()

    return run


# ---- an MLP training step: batch 64, 784 -> 256 -> 10, cross-entropy, SGD -------------------
def mlp_step(torch: Any) -> Callable[[], None]:
    nn = torch.nn
    torch.manual_seed(0)
    model = nn.Sequential(nn.Linear(784, 256), nn.ReLU(), nn.Linear(256, 10))
    opt = torch.optim.SGD(model.parameters(), lr=0.01, momentum=0.9)
    x = torch.randn(64, 784)
    y = torch.randint(0, 10, (64,))

    def run() -> None:
        opt.zero_grad()
        loss = nn.functional.cross_entropy(model(x), y)
        loss.backward()
        opt.step()

    return run


# ---- tracing: a 500-op chain, fwd + bwd, with the recorder on and off -------------------------
def chain(record: bool) -> Callable[[], None]:
    w = dt.ones(20) * 1.0001
    x = dt.ones(20, requires_grad=True)

    def run() -> None:
        with trace.recording(__file__) if record else contextlib.nullcontext():
            y = x
            for _ in range(500):
                y = y * w
            y.sum().backward()

    return run


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--repeats", type=int, default=7)
    ap.add_argument("--sizes", default="1000000,10000000")
    ap.add_argument("--only", choices=["large", "mlp", "tracing"], help="one workload only")
    args = ap.parse_args()
    rows = []
    sizes = args.sizes.split(",") if args.only in (None, "large") else []
    for n in (int(s) for s in sizes):
        ours, floor = median_pair(large_detachviz(n), large_numpy(n), args.repeats)
        rows.append((f"elementwise chain fwd+bwd, {n:,} floats", "raw numpy", ours, floor))
    if args.only in (None, "mlp"):
        try:
            torch = importlib.import_module("torch")
        except ImportError:
            print("PyTorch not installed: MLP step not compared", file=sys.stderr)
        else:
            torch.set_num_threads(1)
            ours, peer = median_pair(mlp_step(dt), mlp_step(torch), args.repeats)
            rows.append(("MLP step (64 x 784-256-10, SGD)", "PyTorch, 1 thread", ours, peer))
            torch.set_num_threads(2)
            ours, peer = median_pair(mlp_step(dt), mlp_step(torch), args.repeats)
            rows.append(("MLP step (64 x 784-256-10, SGD)", "PyTorch, 2 threads", ours, peer))
    if args.only in (None, "tracing"):
        # NOTE: CPU time of this process: on a shared machine the wall clock of a few ms
        # mostly measures the other processes
        on, off = median_pair(chain(True), chain(False), args.repeats * 3, time.process_time)
        rows.append(("500-op chain fwd+bwd, tracing on", "tracing off", on, off))
    print(f"Medians of {args.repeats} runs (tracing: {args.repeats * 3}, CPU time), alternating.\n")
    print("| workload | compared with | detachviz | peer | ratio |")
    print("|---|---|---:|---:|---:|")
    for what, peer_name, ours, peer in rows:
        print(f"| {what} | {peer_name} | {ours * 1e3:.2f} ms | {peer * 1e3:.2f} ms "
              f"| {ours / peer:.2f}× |")  # fmt: skip
    return 0


if __name__ == "__main__":
    sys.exit(main())
