"""Random draws and torch-ordered sums: engine.random/summation against their peers.

Rows time one call each way, in this process, median of --repeat runs of --number calls:

- torch:  real PyTorch (the oracle) when it is installed
- numpy:  numpy's own Generator (what detachviz drew from before issue 12) / np.sum
- ours:   engine.random's bit-identical emulation / engine.summation.total

Ratios are ours / numpy and ours / torch from this run (never asserted anywhere).
Usage: python scripts/bench_random.py [--repeat 5] [--number 20]
"""

from __future__ import annotations

import argparse
import statistics
import timeit
from collections.abc import Callable
from typing import Any

import numpy as np

from detachviz.engine import random as rnd
from detachviz.engine import summation


def _time(fn: Callable[[], Any], repeat: int, number: int) -> float:
    return statistics.median(timeit.repeat(fn, number=number, repeat=repeat)) / number


def rows() -> list[tuple[str, Callable[[], Any], Callable[[], Any], Callable[[], Any] | None]]:
    try:
        import torch
    except ImportError:
        torch = None
    g, peer = rnd.Generator(0), np.random.default_rng(0)
    small = np.random.default_rng(1).standard_normal(2000).astype(np.float32)
    small_t = torch.from_numpy(small) if torch else None
    table = []
    for n in (15, 1000, 1_000_000):
        table.append(
            (
                f"randn({n})",
                lambda n=n: rnd.normal(g, (n,), np.float32),
                lambda n=n: peer.standard_normal(n, dtype=np.float32),
                (lambda n=n: torch.randn(n)) if torch else None,
            )
        )
    for n in (1000, 1_000_000):
        table.append(
            (
                f"rand({n})",
                lambda n=n: rnd.uniform(g, (n,), np.float32),
                lambda n=n: peer.random(n, dtype=np.float32),
                (lambda n=n: torch.rand(n)) if torch else None,
            )
        )
    table += [
        (
            "randint(0, 10, (100000,))",
            lambda: rnd.random_int(g, (100_000,), np.int64, 0, 10),
            lambda: peer.integers(0, 10, 100_000),
            (lambda: torch.randint(0, 10, (100_000,))) if torch else None,
        ),
        (
            "randperm(60000)",
            lambda: rnd.randperm(g, 60_000),
            lambda: peer.permutation(60_000),
            (lambda: torch.randperm(60_000)) if torch else None,
        ),
        (
            "dropout mask (100000,)",
            lambda: rnd.bernoulli_scalar(g, (100_000,), 0.5),
            lambda: peer.random(100_000) < 0.5,
            (lambda: torch.empty(100_000).bernoulli_(0.5)) if torch else None,
        ),
        (
            "sum of 2000 float32",
            lambda: summation.total(small),
            lambda: small.sum(),
            (lambda: small_t.sum()) if torch else None,
        ),
    ]
    return table


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--repeat", type=int, default=5)
    ap.add_argument("--number", type=int, default=20)
    args = ap.parse_args()
    print(f"{'draw':28} {'ours':>10} {'numpy':>10} {'torch':>10} {'/numpy':>7} {'/torch':>7}")
    for name, ours, numpy_peer, torch_peer in rows():
        t_ours = _time(ours, args.repeat, args.number)
        t_np = _time(numpy_peer, args.repeat, args.number)
        t_t = _time(torch_peer, args.repeat, args.number) if torch_peer else float("nan")
        print(
            f"{name:28} {t_ours * 1e6:8.0f}us {t_np * 1e6:8.0f}us {t_t * 1e6:8.0f}us "
            f"{t_ours / t_np:7.1f} {t_ours / t_t:7.1f}"
        )


if __name__ == "__main__":
    main()
