"""CNN benchmark: one training step (forward + backward) of a small conv net on a CIFAR-shaped
batch, detachviz against PyTorch, alternating the two so machine load hits both alike.

    python scripts/bench_conv.py [--repeats 5] [--batch 32]
"""

from __future__ import annotations

import argparse
import gc
import importlib
import statistics
import sys
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import detachviz.nn as dnn  # noqa: E402
from detachviz import torch as dt  # noqa: E402


def _net(nn: Any) -> Any:
    return nn.Sequential(
        nn.Conv2d(3, 16, 3, padding=1),
        nn.BatchNorm2d(16),
        nn.ReLU(),
        nn.MaxPool2d(2),
        nn.Conv2d(16, 32, 3, padding=1),
        nn.ReLU(),
        nn.AvgPool2d(2),
        nn.Conv2d(32, 32, 3, padding=1, groups=4),
        nn.AdaptiveAvgPool2d(1),
        nn.Flatten(),
        nn.Linear(32, 10),
    )


def _step(ns: Any, nn: Any, batch: int) -> Any:
    ns.manual_seed(0)
    model = _net(nn)
    x = ns.randn(batch, 3, 32, 32)

    def run() -> None:
        model(x).sum().backward()

    return run


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--repeats", type=int, default=5)
    ap.add_argument("--batch", type=int, default=32)
    args = ap.parse_args()
    runs: dict[str, Any] = {"detachviz": _step(dt, dnn, args.batch)}
    try:
        torch = importlib.import_module("torch")
        runs["torch"] = _step(torch, importlib.import_module("torch.nn"), args.batch)
    except ImportError:
        pass
    times: dict[str, list[float]] = {k: [] for k in runs}
    for _ in range(args.repeats):
        for name, fn in runs.items():
            gc.collect()
            start = time.perf_counter()
            fn()
            times[name].append(time.perf_counter() - start)
    med = {k: statistics.median(v) for k, v in times.items()}
    for name, t in med.items():
        print(f"{name:10s} {t * 1000:8.1f} ms per step (batch {args.batch})")
    if "torch" in med:
        print(f"ratio      {med['detachviz'] / med['torch']:8.2f}x torch")


if __name__ == "__main__":
    main()
