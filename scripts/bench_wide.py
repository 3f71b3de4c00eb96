"""Wide graphs and long random chains: where `detachviz render -f svg` spends its time.

Two script shapes, at each size N:
- wide:  N parallel branches `x * (i + 1)` stacked and summed (one StackBackward0 fed by N
         MulBackward0, all from one leaf), the shape of a per-sample or per-head loop;
- chain: N random unary ops in a row (tanh, sin, mul, add, sigmoid, ...), nothing repeating,
         so no loop collapse can shorten it.
Each phase is timed in this process, on the same script: running it with the trace on
(`run`), capture (trace -> model), collapse, DOT building and the layout call
(graphviz-pure, svg), then the whole `detachviz render` as a fresh process. One run per
size (the big ones take long); `--repeat` takes medians. `cpu s` is this process's CPU time
for run + capture + collapse + dot: on a machine shared with other jobs the wall-clock
phases stretch with the load, the CPU time much less (`render cpu s`: the same for the
fresh `detachviz render` process and the layout program it runs).

    python scripts/bench_wide.py [--sizes 1000,5000,20000,100000] [--shapes wide,chain]
    python scripts/bench_wide.py --callgrind   # instructions per phase instead (valgrind)

`--callgrind` runs each script's phases in a process under valgrind's callgrind, which
dumps its counters at every phase boundary (`callgrind_control -d`): instruction counts do
not move with machine load, so they show how each phase scales with N (the wall-clock
phases also pay cache misses that grow with the heap).
"""

from __future__ import annotations

import argparse
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

WIDE = """
import torch

x = torch.ones(3, requires_grad=True)
ys = [x * (i + 1) for i in range({n})]
loss = torch.stack(ys).sum()
"""

CHAIN = """
import random
import torch

random.seed(0)
x = torch.ones(2, requires_grad=True)
ops = [torch.tanh, torch.sin, torch.sigmoid, lambda t: t * 1.0001, lambda t: t + 0.5,
       torch.cos, lambda t: t.abs(), torch.relu]
y = x
for _ in range({n}):
    y = random.choice(ops)(y)
loss = y.sum()
"""

SHAPES = {"wide": WIDE, "chain": CHAIN}


def phases(path: str) -> dict[str, float]:
    from detachviz.graph.capture import capture
    from detachviz.render import backend
    from detachviz.render.collapse import collapse
    from detachviz.render.dot import build_dot
    from detachviz.render.options import DrawOptions
    from detachviz.runner import pick_roots, run_script, tensor_names

    out: dict[str, float] = {}
    c0 = time.process_time()
    t0 = time.perf_counter()
    result = run_script(path, record=True, quiet=True)
    t1 = time.perf_counter()
    graph = capture(pick_roots(result), result.recorder, tensor_names(result.namespace))
    t2 = time.perf_counter()
    collapse(graph)
    t3 = time.perf_counter()
    source = build_dot(graph, DrawOptions()).source  # collapses again inside
    t4 = time.perf_counter()
    c4 = time.process_time()
    backend.render_source(source, "svg")
    t5 = time.perf_counter()
    out["run"] = t1 - t0
    out["capture"] = t2 - t1
    out["collapse"] = t3 - t2
    out["dot"] = t4 - t3
    out["layout"] = t5 - t4
    out["cpu"] = c4 - c0
    out["nodes"] = len(graph.nodes)
    return out


def counted_phases(path: str) -> None:
    """The phases of `phases`, with a callgrind dump after each (run under valgrind)."""
    from detachviz.graph.capture import capture
    from detachviz.render.collapse import collapse
    from detachviz.render.dot import build_dot
    from detachviz.render.options import DrawOptions
    from detachviz.runner import pick_roots, run_script, tensor_names

    def dump(name: str) -> None:
        subprocess.run(["callgrind_control", "-d", name, str(os.getpid())], capture_output=True)

    dump("start")
    result = run_script(path, record=True, quiet=True)
    dump("run")
    graph = capture(pick_roots(result), result.recorder, tensor_names(result.namespace))
    dump("capture")
    collapse(graph)
    dump("collapse")
    build_dot(graph, DrawOptions())
    dump("dot")


def instructions(path: str, tmp: str) -> dict[str, int]:
    """Instructions per phase of `counted_phases` on the script (millions)."""
    out = os.path.join(tmp, "cg.out")
    subprocess.run(
        ["valgrind", "--tool=callgrind", f"--callgrind-out-file={out}", "--dump-instr=no"]
        + [sys.executable, __file__, "--counted", path],
        check=True,
        capture_output=True,
    )
    counts: dict[str, int] = {}
    for dump in sorted(Path(tmp).glob("cg.out.*"), key=lambda f: int(f.suffix[1:])):
        text = dump.read_text()
        trigger = text.split("desc: Trigger: dump ", 1)[1].split("\n", 1)[0]
        counts[trigger] = int(text.split("\nsummary: ", 1)[1].split("\n", 1)[0])
        dump.unlink()
    Path(out).unlink(missing_ok=True)
    return counts


def whole(path: str, timeout: float) -> tuple[float, float]:
    """Wall-clock and CPU seconds of `detachviz render` in a fresh process."""
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    try:
        subprocess.run(
            [sys.executable, "-m", "detachviz", "render", path, "-o", path + ".svg"],
            env=env,
            check=True,
            capture_output=True,
            timeout=timeout,
        )
    except subprocess.TimeoutExpired:
        return float("inf"), float("inf")
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime
    return wall, cpu


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--sizes", default="1000,5000,20000,100000")
    ap.add_argument("--shapes", default="wide,chain")
    ap.add_argument("--repeat", type=int, default=1)
    ap.add_argument("--timeout", type=float, default=600)
    ap.add_argument("--no-whole", action="store_true", help="skip the fresh-process render")
    ap.add_argument("--callgrind", action="store_true", help="instructions per phase (valgrind)")
    ap.add_argument("--counted", help=argparse.SUPPRESS)  # the process valgrind runs
    args = ap.parse_args()
    if args.counted:
        counted_phases(args.counted)
        return
    if args.callgrind:
        count_table(args)
        return
    cols = ["run", "capture", "collapse", "dot", "layout", "cpu"]
    head = " | ".join(f"{c} s" for c in cols)
    print(f"| shape | N | model nodes | {head} | render s | render cpu s |")
    print("|---|---:|---:|" + "---:|" * (len(cols) + 2))
    with tempfile.TemporaryDirectory() as tmp:
        for shape in args.shapes.split(","):
            for n in (int(s) for s in args.sizes.split(",")):
                path = os.path.join(tmp, f"{shape}_{n}.py")
                Path(path).write_text(SHAPES[shape].format(n=n))
                runs = [phases(path) for _ in range(args.repeat)]
                med = {k: statistics.median(r[k] for r in runs) for k in runs[0]}
                total = "- | -"
                if not args.no_whole:
                    wall, cpu = whole(path, args.timeout)
                    total = f"{wall:.2f} | {cpu:.2f}"
                cells = " | ".join(f"{med[c]:.2f}" for c in cols)
                print(f"| {shape} | {n} | {int(med['nodes'])} | {cells} | {total} |", flush=True)


def count_table(args: argparse.Namespace) -> None:
    cols = ["run", "capture", "collapse", "dot"]
    print("| shape | N | " + " | ".join(f"{c} M instr (x prev)" for c in cols) + " |")
    print("|---|---:|" + "---:|" * len(cols))
    with tempfile.TemporaryDirectory() as tmp:
        for shape in args.shapes.split(","):
            prev: dict[str, int] = {}
            for n in (int(s) for s in args.sizes.split(",")):
                path = os.path.join(tmp, f"{shape}_{n}.py")
                Path(path).write_text(SHAPES[shape].format(n=n))
                counts = instructions(path, tmp)
                cells = []
                for c in cols:
                    ratio = f" ({counts[c] / prev[c]:.2f}x)" if prev else ""
                    cells.append(f"{counts[c] / 1e6:,.0f}{ratio}")
                print(f"| {shape} | {n} | " + " | ".join(cells) + " |", flush=True)
                prev = counts


if __name__ == "__main__":
    main()
