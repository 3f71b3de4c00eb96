"""Benchmark the renderer: render.draw to svg (graphviz-pure) against system dot on the same DOT.

    python scripts/bench_render.py [--sizes 100,1000,5000,20000] [--dot-timeout 300]

For each graph shape and size it builds a hand-made graph model (no engine involved), times
`render.draw(graph, "svg", DrawOptions(expand=True))` — DOT building plus graphviz-pure — and
the system `dot -Tsvg` on exactly the DOT source `draw` lays out, and prints a markdown table
with the medians and the ratio. `expand=True` makes the layout really see every node; one extra row
shows the default (collapsed) drawing of the unrolled-loop chain, and one the raster cap on
a long png. Timing only, nothing asserted.
"""

from __future__ import annotations

import argparse
import os
import resource
import shutil
import statistics
import struct
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from detachviz.graph.model import Edge, Graph, Node  # noqa: E402
from detachviz.render import DrawOptions, draw, to_digraph  # noqa: E402

SYSTEM_DOT = "/usr/bin/dot"


def chain(n: int) -> Graph:
    """x = x.exp(), n times: n backward nodes in a line."""
    nodes = [Node("n0", "output", "", shape=(1,))]
    nodes += [Node(f"n{i}", "function", "ExpBackward0") for i in range(1, n + 1)]
    nodes.append(Node(f"n{n + 1}", "leaf", "x", shape=(1,)))
    edges = [Edge(f"n{i}", f"n{i - 1}") for i in range(1, n + 2)]
    return Graph(nodes, edges, ["n0"])


def tree(n: int) -> Graph:
    """A binary tree of n AddBackward0 (a sum of sums): wide, nothing to collapse."""
    nodes = [Node("n0", "output", "", shape=(1,))]
    nodes += [Node(f"n{i}", "function", "AddBackward0") for i in range(1, n + 1)]
    edges = [Edge("n1", "n0")] + [Edge(f"n{i}", f"n{i // 2}") for i in range(2, n + 1)]
    return Graph(nodes, edges, ["n0"])


def mul_chain(n: int) -> Graph:
    """x = x * w, n times: the unrolled loop, every MulBackward0 also fed by w."""
    nodes = [Node("n0", "output", "", shape=(1,))]
    nodes += [Node(f"n{i}", "function", "MulBackward0") for i in range(1, n + 1)]
    nodes.append(Node(f"n{n + 1}", "leaf", "w", shape=(1,)))
    edges = [Edge(f"n{i}", f"n{i - 1}") for i in range(1, n + 1)]
    edges += [Edge(f"n{n + 1}", f"n{i}") for i in range(1, n + 1)]
    return Graph(nodes, edges, ["n0"])


def rnn(steps: int) -> Graph:
    """h = tanh(h @ W + x_t @ U) unrolled: W and U feed every step (long edges, hard to lay out)."""
    nodes = [Node("n0", "output", "", shape=()), Node("n1", "function", "SumBackward0")]
    nodes += [Node("n2", "leaf", "W", shape=(3, 3)), Node("n3", "leaf", "U", shape=(2, 3))]
    edges = [Edge("n1", "n0")]
    prev = None
    for t in range(steps):
        mm_h, mm_x, add, tanh = (f"n{4 + 4 * t + k}" for k in range(4))
        nodes += [
            Node(mm_h, "function", "MmBackward0"),
            Node(mm_x, "function", "MmBackward0"),
            Node(add, "function", "AddBackward0"),
            Node(tanh, "function", "TanhBackward0"),
        ]
        edges += [Edge("n2", mm_h), Edge("n3", mm_x), Edge(mm_h, add), Edge(mm_x, add)]
        edges.append(Edge(add, tanh))
        if prev is not None:
            edges.append(Edge(prev, mm_h))
        prev = tanh
    edges.append(Edge(prev, "n1"))
    return Graph(nodes, edges, ["n0"])


SHAPES: dict[str, Callable[[int], Graph]] = {"chain": chain, "tree": tree}


def repeats_for(n: int) -> int:
    return 5 if n <= 1000 else 3 if n <= 5000 else 1


def median_time(fn: Callable[[], object], repeats: int) -> float:
    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        fn()
        times.append(time.perf_counter() - start)
    return statistics.median(times)


def time_system_dot(source: bytes, repeats: int, timeout: float) -> float | None:
    """Median seconds of `dot -Tsvg` on source; None if it timed out."""

    def once() -> None:
        subprocess.run(
            [SYSTEM_DOT, "-Tsvg"], input=source, capture_output=True, check=True, timeout=timeout
        )

    try:
        return median_time(once, repeats)
    except subprocess.TimeoutExpired:
        return None


def fmt_s(t: float | None, timeout: float) -> str:
    return f"> {timeout:g}" if t is None else f"{t:.3f}"


def bench_rows(sizes: list[int], dot_timeout: float) -> list[str]:
    have_dot = os.path.exists(SYSTEM_DOT) or shutil.which("dot") is not None
    rows = [
        "| graph | nodes | repeats | draw svg, graphviz-pure (s) | dot -Tsvg, same DOT (s) "
        "| dot / pure |",
        "|---|---:|---:|---:|---:|---:|",
    ]
    for shape, make in SHAPES.items():
        for n in sizes:
            g = make(n)
            reps = repeats_for(n)
            pure = median_time(lambda g=g: draw(g, "svg", DrawOptions(expand=True)), reps)
            dot_t: float | None = None
            ratio = "n/a"
            if have_dot:
                source = to_digraph(g, DrawOptions(expand=True)).source.encode()
                dot_t = time_system_dot(source, reps, dot_timeout)
                ratio = (
                    f"{dot_t / pure:.1f}×" if dot_t is not None else f"> {dot_timeout / pure:.0f}×"
                )
            dot_text = fmt_s(dot_t, dot_timeout) if have_dot else "not installed"
            rows.append(
                f"| {shape} (expanded) | {n:,} | {reps} | {pure:.3f} | {dot_text} | {ratio} |"
            )
            print(rows[-1], file=sys.stderr, flush=True)
    n = max(sizes)
    g = mul_chain(n)
    collapsed = median_time(lambda: draw(g, fmt="svg"), 3)
    rows.append(f"| x = x * w loop, collapsed (default) | {n:,} | 3 | {collapsed:.3f} | | |")
    return rows


def rnn_rows(
    expanded_steps: list[int], collapsed_steps: list[int], dot_timeout: float
) -> list[str]:
    """The unrolled RNN: expanded (what torchviz would draw) vs collapsed (the default)."""
    rows = [
        "| unrolled RNN | steps | backward nodes | expanded, graphviz-pure (s) "
        "| expanded, dot (s) | collapsed, graphviz-pure (s) |",
        "|---|---:|---:|---:|---:|---:|",
    ]
    for steps in sorted(set(expanded_steps) | set(collapsed_steps)):
        g = rnn(steps)
        collapsed = median_time(lambda g=g: draw(g, fmt="svg"), 3)
        pure_text = dot_text = ""
        if steps in expanded_steps:
            pure = median_time(lambda g=g: draw(g, "svg", DrawOptions(expand=True)), 1)
            pure_text = f"{pure:.3f}"
            if os.path.exists(SYSTEM_DOT):
                source = to_digraph(g, DrawOptions(expand=True)).source.encode()
                dot_text = fmt_s(time_system_dot(source, 1, dot_timeout), dot_timeout)
        rows.append(
            f"| h = tanh(h @ W + x @ U) | {steps:,} | {4 * steps + 1:,} | {pure_text} "
            f"| {dot_text} | {collapsed:.3f} |"
        )
        print(rows[-1], file=sys.stderr, flush=True)
    return rows


def raster_row(n: int) -> str:
    """Time and size of a png of an uncollapsed n-node chain (the 37 GB case, capped)."""
    g = chain(n)
    start = time.perf_counter()
    png = draw(g, "png", DrawOptions(expand=True))
    took = time.perf_counter() - start
    w, h = struct.unpack(">II", png[16:24])
    peak_mb = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024
    return (
        f"png of a {n:,}-node chain (expanded): {took:.2f} s, {w}×{h} px, "
        f"peak renderer memory so far {peak_mb:.0f} MB"
    )


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", default="100,1000,5000,20000")
    parser.add_argument("--dot-timeout", type=float, default=300.0)
    parser.add_argument("--png-nodes", type=int, default=5000)
    parser.add_argument("--rnn-expanded", default="10,25,50")
    parser.add_argument("--rnn-collapsed", default="1000,20000")
    args = parser.parse_args(argv)
    sizes = [int(s) for s in args.sizes.split(",") if s]
    rows = bench_rows(sizes, args.dot_timeout)
    print("\n".join(rows))
    print()
    expanded = [int(x) for x in args.rnn_expanded.split(",") if x]
    collapsed = [int(x) for x in args.rnn_collapsed.split(",") if x]
    print("\n".join(rnn_rows(expanded, collapsed, args.dot_timeout)))
    print()
    print(raster_row(args.png_nodes))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
