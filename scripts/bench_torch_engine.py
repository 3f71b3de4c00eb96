"""What tracing costs on real PyTorch: a ~1,000-op training script, untraced vs traced.

Both runs go through `detachviz.runner.run_script` on the torch engine in one process, so
the difference is the tracing alone (the TorchFunctionMode, one record per op, the saved
tensors each backward node keeps): `record=False` runs the script as `python` would, on
real torch; `record=True` is what `detachviz render --engine torch` and `grad` run.
Capturing the graph model from the trace is timed separately (it runs once, at the end).

Every figure is the median of --repeat runs, after one warm-up run of each.
Usage: python scripts/bench_torch_engine.py [--repeat 7] [--steps 20] [--width 64] [--threads 1]
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

SCRIPT = """
import torch
import torch.nn.functional as F
from torch import nn

torch.manual_seed(0)
model = nn.Sequential(nn.Linear({width}, {width}), nn.ReLU(), nn.Linear({width}, {width}),
                      nn.ReLU(), nn.Linear({width}, 10))
opt = torch.optim.SGD(model.parameters(), lr=0.01, momentum=0.9, foreach=False)
x = torch.randn(32, {width})
y = torch.randint(0, 10, (32,))
for step in range({steps}):
    h = model(x)
    loss = F.cross_entropy(h, y) + 1e-4 * sum((p ** 2).sum() for p in model.parameters())
    acc = (h.detach().argmax(1) == y).float().mean()
    opt.zero_grad()
    loss.backward()
    opt.step()
"""


def timed(fns: list[Callable[[], object]], repeat: int) -> list[float]:
    """Median seconds of each function; the runs are interleaved (a, b, a, b, ...) so that
    a busy machine slows every candidate alike."""
    for fn in fns:
        fn()  # warm-up: imports, torch's first-call caches
    samples: list[list[float]] = [[] for _ in fns]
    for _ in range(repeat):
        for fn, times in zip(fns, samples):
            start = time.perf_counter()
            fn()
            times.append(time.perf_counter() - start)
    return [statistics.median(times) for times in samples]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=7)
    parser.add_argument("--steps", type=int, default=20)
    parser.add_argument("--width", type=int, default=64)
    parser.add_argument("--threads", type=int, default=1, help="torch's intra-op threads")
    args = parser.parse_args()
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
    import torch

    torch.set_num_threads(args.threads)  # intra-op threads fight other processes for cores
    from detachviz.graph.capture import capture
    from detachviz.runner import pick_roots, run_script, tensor_names

    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "train.py"
        path.write_text(SCRIPT.format(width=args.width, steps=args.steps))
        probe = run_script(path, record=True, quiet=True, engine="torch")
        assert probe.error is None, probe.error_text
        ops = len(probe.recorder.records) if probe.recorder else 0

        def plain() -> None:
            run_script(path, record=False, quiet=True, engine="torch")

        def traced() -> None:
            run_script(path, record=True, quiet=True, engine="torch")

        def captured() -> None:
            capture(pick_roots(probe), probe.recorder, tensor_names(probe.namespace))

        untraced_s, traced_s = timed([plain, traced], args.repeat)
        [capture_s] = timed([captured], args.repeat)
    print(f"script: {args.steps} training steps of a 3-layer MLP (width {args.width}, batch 32)")
    print(f"ops traced: {ops} records")
    print(f"untraced (real torch):  {untraced_s * 1e3:8.1f} ms  (median of {args.repeat})")
    print(f"traced (--engine torch): {traced_s * 1e3:7.1f} ms  ({traced_s / untraced_s:.2f}x)")
    print(f"graph capture, once:     {capture_s * 1e3:7.1f} ms")


if __name__ == "__main__":
    main()
