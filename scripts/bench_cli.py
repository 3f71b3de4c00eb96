"""Whole commands from cold start: detachviz against PyTorch + torchviz + system Graphviz.

Each row runs one script both ways as a fresh process, so imports, tracing, layout and
writing the image are all counted, exactly as a user pays for them:

- peer:      `python script.py` under real PyTorch, whose `make_dot(...).render(...)` is
             torchviz's and runs the system `dot`
- detachviz: `detachviz run script.py` (the same file; `torch` and `torchviz` resolve to
             detachviz, layout by graphviz-pure) and `detachviz render script.py`

Every figure is a median over --repeat rounds, each running peer, `run` and `render` once in
turn; ratios are detachviz / peer from this run.
The peer runs under this Python (which has torch and torchviz); `--python` names the Python
detachviz runs under, e.g. a venv that installed it as the README says (`pip install .`,
not editable: `python -m venv /tmp/v && /tmp/v/bin/pip install .`).
Usage: python scripts/bench_cli.py [--repeat 5] [--sizes 100,1000,3000,5000] [--python PY]
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

SEED = """
import torch
from torchviz import make_dot

a = torch.ones(5, requires_grad=True)
b = a**4
c = a.detach()**6
i = (b + c).sum()
make_dot(i).render("{stem}", format="{fmt}")
"""

CHAIN = """
import torch
from torchviz import make_dot

x = torch.ones(2, requires_grad=True)
y = x
for _ in range({n}):
    y = y * 1.0001
loss = y.sum()
make_dot(loss).render("{stem}", format="svg")
"""


def timed(cmds: list[list[str] | None], cwd: Path, repeat: int) -> list[tuple[float | None, str]]:
    """Median wall time of each command over `repeat` rounds, or None and the error's last
    line. Each round runs every command once, in turn, so drift in the machine's speed (a
    virtual machine's moves between minutes) hits all of them alike. A None command is
    skipped (its peer is missing)."""
    times: list[list[float]] = [[] for _ in cmds]
    errors = ["" for _ in cmds]
    for _ in range(repeat):
        for k, cmd in enumerate(cmds):
            if cmd is None or errors[k]:
                continue
            start = time.perf_counter()
            proc = subprocess.run(cmd, cwd=cwd, capture_output=True, text=True)
            elapsed = time.perf_counter() - start
            if proc.returncode == 0:
                times[k].append(elapsed)
            else:
                last = (proc.stderr.strip().splitlines() or ["failed"])[-1]
                errors[k] = last[:60]
    return [
        (statistics.median(ts), "") if ts and not err else (None, err)
        for ts, err in zip(times, errors)
    ]


def fmt_s(t: float | None, err: str) -> str:
    return f"{t:.3f} s" if t is not None else f"fails: {err}"


def ratio(ours: float | None, peer: float | None) -> str:
    if ours is None or peer is None:
        return "n/a"
    return f"{ours / peer:.3f}×"


def have_peer() -> str:
    for module in ("torch", "torchviz"):
        probe = subprocess.run([sys.executable, "-c", f"import {module}"], capture_output=True)
        if probe.returncode != 0:
            return f"{module} is not installed"
    if shutil.which("dot") is None:
        return "system Graphviz (dot) is not installed"
    return ""


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--sizes", default="100,1000,3000,5000")
    parser.add_argument("--python", default=sys.executable, help="the Python detachviz runs under")
    args = parser.parse_args()
    detachviz = [args.python, "-m", "detachviz"]
    missing = have_peer()
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        work = Path(tmp)
        cases = [("seed example (jpg)", SEED.format(stem="seed_out", fmt="jpg"), "jpg")]
        for n in (int(s) for s in args.sizes.split(",")):
            cases.append((f"chain of {n} ops (svg)", CHAIN.format(n=n, stem="chain_out"), "svg"))
        for k, (what, code, fmt) in enumerate(cases):
            path = work / f"case{k}.py"
            path.write_text(code)
            peer_cmd = None if missing else [sys.executable, path.name]
            peer, run, render = timed(
                [
                    peer_cmd,
                    [*detachviz, "run", path.name],
                    [*detachviz, "render", path.name, "-f", fmt],
                ],
                work,
                args.repeat,
            )
            if missing:
                peer = (None, missing)
            rows.append((what, peer, run, render))
            print(f"measured {what}", file=sys.stderr)
    load = ", ".join(f"{x:.2f}" for x in os.getloadavg())
    print(f"Cold-start whole commands, median of {args.repeat} runs "
          f"({os.cpu_count()} cores, load average {load} at the end; "
          f"python {sys.version.split()[0]}; detachviz under {args.python}).\n")  # fmt: skip
    print("| script | torch + torchviz + dot | detachviz run | ratio | detachviz render | ratio |")
    print("|---|---:|---:|---:|---:|---:|")
    for what, peer, run, render in rows:
        print(
            f"| {what} | {fmt_s(*peer)} | {fmt_s(*run)} | {ratio(run[0], peer[0])} "
            f"| {fmt_s(*render)} | {ratio(render[0], peer[0])} |"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
