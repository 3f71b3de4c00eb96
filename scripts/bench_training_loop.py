"""Training loops: `detachviz render` and `detachviz grad` against `detachviz run` of the same file.

A training loop makes a new graph every step; `run` lets each step's tensors go as soon as
the script drops them, and `render`/`grad` must too: they draw only the last step's graph
(and the cuts that reach it), so their peak memory and time should stay near `run`'s.

Each command runs as a fresh process; its peak RSS comes from the kernel (wait4's ru_maxrss),
its time from the wall clock and its CPU time (user + system, which machine load inflates
far less) from the kernel too. BLAS runs single-threaded (OPENBLAS_NUM_THREADS=1 and
friends): on a small shared machine its spinning threads made a run 10x slower and noisy.
`render -f dot` is timed as well: it is `render` without the layout, which is what the
target (time <= 1.5x run's plus layout) compares. Every figure is a median over --repeat
runs, the commands alternating so machine load hits them alike; ratios are against `run`
from the same run.

    python scripts/bench_training_loop.py [--repeat 3] [--steps 200,2000] [--json OUT]
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]

# The tutorial "dynamic net": a few tiny layers reused a random number of times per step,
# SGD with momentum, the loss printed now and then.
DYNAMIC_NET = """
import random
import torch

random.seed(0)
torch.manual_seed(0)
N, D_in, H, D_out = 64, 1000, 100, 10
x = torch.randn(N, D_in)
y = torch.randn(N, D_out)


class DynamicNet(torch.nn.Module):
    def __init__(self, D_in, H, D_out):
        super().__init__()
        self.input_linear = torch.nn.Linear(D_in, H)
        self.middle_linear = torch.nn.Linear(H, H)
        self.output_linear = torch.nn.Linear(H, D_out)

    def forward(self, x):
        h_relu = self.input_linear(x).clamp(min=0)
        for _ in range(random.randint(0, 3)):
            h_relu = self.middle_linear(h_relu).clamp(min=0)
        return self.output_linear(h_relu)


model = DynamicNet(D_in, H, D_out)
criterion = torch.nn.MSELoss(reduction="sum")
optimizer = torch.optim.SGD(model.parameters(), lr=1e-4, momentum=0.9)
for t in range({steps}):
    y_pred = model(x)
    loss = criterion(y_pred, y)
    if t % 100 == 99:
        print(t, f"{{loss.item():.4f}}")
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()
"""

# The tutorial polynomial fit written by hand: tensors that require grad, an update under
# no_grad, grads zeroed in place.
POLYNOMIAL = """
import math
import torch

x = torch.linspace(-math.pi, math.pi, 2000)
y = torch.sin(x)
a = torch.randn((), requires_grad=True)
b = torch.randn((), requires_grad=True)
c = torch.randn((), requires_grad=True)
d = torch.randn((), requires_grad=True)
learning_rate = 1e-6
for t in range({steps}):
    y_pred = a + b * x + c * x ** 2 + d * x ** 3
    loss = (y_pred - y).pow(2).sum()
    if t % 100 == 99:
        print(t, f"{{loss.item():.2f}}")
    loss.backward()
    with torch.no_grad():
        a -= learning_rate * a.grad
        b -= learning_rate * b.grad
        c -= learning_rate * c.grad
        d -= learning_rate * d.grad
        a.grad = None
        b.grad = None
        c.grad = None
        d.grad = None
"""

PROGRAMS = {"dynamic_net": DYNAMIC_NET, "polynomial": POLYNOMIAL}


THREADS = ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS")


def measure(cmd: list[str], cwd: str) -> tuple[float, float, float]:
    """(seconds, CPU seconds, peak RSS in MB) of one fresh process."""
    env = {**os.environ, "PYTHONPATH": str(ROOT), **dict.fromkeys(THREADS, "1")}
    start = time.perf_counter()
    proc = subprocess.Popen(cmd, cwd=cwd, env=env, stdout=subprocess.DEVNULL)
    _, status, usage = os.wait4(proc.pid, 0)
    seconds = time.perf_counter() - start
    proc.returncode = os.waitstatus_to_exitcode(status)
    if proc.returncode != 0:
        raise SystemExit(f"{' '.join(cmd)} failed with exit code {proc.returncode}")
    cpu = usage.ru_utime + usage.ru_stime
    return seconds, cpu, usage.ru_maxrss / 1024  # ru_maxrss is in KiB on Linux


COMMANDS = {
    "run": ["run"],
    "render": ["render", "-o", "out.svg"],
    "render -f dot": ["render", "-o", "out.dot"],
    "grad": ["grad"],
}


def bench(program: str, steps: int, repeat: int, commands: list[str]) -> dict[str, dict]:
    with tempfile.TemporaryDirectory() as tmp:
        script = Path(tmp) / f"{program}.py"
        script.write_text(PROGRAMS[program].format(steps=steps))
        times: dict[str, list[float]] = {c: [] for c in commands}
        cpus: dict[str, list[float]] = {c: [] for c in commands}
        peaks: dict[str, list[float]] = {c: [] for c in commands}
        for _ in range(repeat):
            for c in commands:
                cmd = [sys.executable, "-m", "detachviz", *COMMANDS[c][:1], script.name]
                cmd += COMMANDS[c][1:]
                s, cpu, mb = measure(cmd, tmp)
                times[c].append(s)
                cpus[c].append(cpu)
                peaks[c].append(mb)
    out = {}
    for c in commands:
        out[c] = {
            "seconds": statistics.median(times[c]),
            "cpu_seconds": statistics.median(cpus[c]),
            "peak_mb": statistics.median(peaks[c]),
        }
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--steps", default="200,2000")
    ap.add_argument("--programs", default=",".join(PROGRAMS))
    ap.add_argument("--commands", default=",".join(COMMANDS))
    ap.add_argument("--json", help="also write the figures here")
    args = ap.parse_args()
    commands = args.commands.split(",")
    rows = []
    print("| program | steps | command | time s | × run | CPU s | × run | peak MB | × run |")
    print("|---|---:|---|---:|---:|---:|---:|---:|---:|")
    for program in args.programs.split(","):
        for steps in (int(s) for s in args.steps.split(",")):
            got = bench(program, steps, args.repeat, commands)
            base = got["run"]
            for c in commands:
                g = got[c]
                t_ratio = g["seconds"] / base["seconds"]
                c_ratio = g["cpu_seconds"] / base["cpu_seconds"]
                m_ratio = g["peak_mb"] / base["peak_mb"]
                print(
                    f"| {program} | {steps} | `{c}` | {g['seconds']:.2f} | {t_ratio:.2f} "
                    f"| {g['cpu_seconds']:.2f} | {c_ratio:.2f} "
                    f"| {g['peak_mb']:.0f} | {m_ratio:.2f} |",
                    flush=True,
                )
                rows.append({"program": program, "steps": steps, "command": c, **g})
    if args.json:
        Path(args.json).write_text(json.dumps(rows, indent=1) + "\n")


if __name__ == "__main__":
    main()
