"""Hand-built graph models for the renderer tests and the legend page (no engine involved)."""

from __future__ import annotations

from detachviz.graph.model import Edge, Graph, Node


def simple() -> Graph:
    """y = w * x."""
    return Graph(
        [
            Node("n0", "output", "y", name="y", shape=(3,), line=3),
            Node("n1", "function", "MulBackward0", line=3),
            Node("n2", "leaf", "w", name="w", shape=(3,), line=1),
            Node("n3", "leaf", "x", name="x", shape=(3,), line=2),
        ],
        [Edge("n1", "n0"), Edge("n2", "n1"), Edge("n3", "n1")],
        ["n0"],
    )


def detach() -> Graph:
    """z = (a * 2).pow(2).detach(); y = (z * w).sum(): a's history is untracked."""
    return Graph(
        [
            Node("n0", "output", "", shape=(), line=4),
            Node("n1", "function", "SumBackward0", line=4),
            Node("n2", "function", "MulBackward0", line=4),
            Node("n3", "leaf", "w", name="w", shape=(3,), line=2),
            Node("n4", "untracked", "pow", line=3),
            Node("n5", "untracked", "mul", line=3),
            Node("n6", "untracked", "a", name="a", shape=(3,), line=1),
        ],
        [
            Edge("n1", "n0"),
            Edge("n2", "n1"),
            Edge("n3", "n2"),
            Edge("n4", "n2", "detach", 3),
            Edge("n5", "n4"),
            Edge("n6", "n5"),
        ],
        ["n0"],
    )


CUT_OPS = {"detach": "exp", "detach_": "sin", "data": "cos", "no_grad": "relu", "copy": "neg"}


def all_cuts() -> Graph:
    """p feeds five untracked ops, each cut a different way, all summed into the output."""
    nodes = [
        Node("n0", "output", "", shape=(2,), line=9),
        Node("n1", "function", "AddBackward0", line=9),
        Node("n2", "leaf", "p", name="p", shape=(2,), line=1),
    ]
    edges = [Edge("n1", "n0"), Edge("n2", "n1")]
    for i, (cut, op) in enumerate(CUT_OPS.items()):
        node_id = f"n{3 + i}"
        nodes.append(Node(node_id, "untracked", op, line=3 + i))
        edges += [Edge("n2", node_id), Edge(node_id, "n1", cut, 3 + i)]
    return Graph(nodes, edges, ["n0"])


def failure() -> Graph:
    g = simple()
    g.error = {"message": "RuntimeError: element 0 of tensors does not require grad", "line": 5}
    return g


def saved() -> Graph:
    """y = x ** 2 with --show-saved --show-attrs."""
    return Graph(
        [
            Node("n0", "output", "", shape=(3,), line=2),
            Node("n1", "function", "PowBackward0", line=2, attrs={"exponent": "2"}),
            Node("n2", "saved", "self", shape=(3,)),
            Node("n3", "leaf", "x", name="x", shape=(3,), line=1),
        ],
        [Edge("n1", "n0"), Edge("n2", "n1"), Edge("n3", "n1")],
        ["n0"],
    )


def mul_chain(n: int) -> Graph:
    """x = x * w, n times: n MulBackward0 in a line, each also fed by w."""
    nodes = [Node("n0", "output", "", shape=(1,), line=3)]
    edges = []
    for i in range(1, n + 1):
        nodes.append(Node(f"n{i}", "function", "MulBackward0", line=3))
        edges.append(Edge(f"n{i}", f"n{i - 1}"))
    w, x = f"n{n + 1}", f"n{n + 2}"
    nodes += [
        Node(w, "leaf", "w", name="w", shape=(1,), line=1),
        Node(x, "leaf", "x", name="x", shape=(1,), line=2),
    ]
    edges += [Edge(w, f"n{i}") for i in range(1, n + 1)]
    edges.append(Edge(x, f"n{n}"))
    return Graph(nodes, edges, ["n0"])


def exp_chain(n: int) -> Graph:
    """x = x.exp(), n times: a plain line of n ExpBackward0, cheap to lay out uncollapsed."""
    nodes = [Node("n0", "output", "", shape=(1,), line=3)]
    edges = []
    for i in range(1, n + 1):
        nodes.append(Node(f"n{i}", "function", "ExpBackward0", line=3))
        edges.append(Edge(f"n{i}", f"n{i - 1}"))
    nodes.append(Node(f"n{n + 1}", "leaf", "x", name="x", shape=(1,), line=1))
    edges.append(Edge(f"n{n + 1}", f"n{n}"))
    return Graph(nodes, edges, ["n0"])


def add_tree(n: int) -> Graph:
    """A binary tree of n AddBackward0 nodes under one output (nothing to collapse)."""
    nodes = [Node("n0", "output", "", shape=(1,), line=1)]
    nodes += [Node(f"n{i}", "function", "AddBackward0", line=1) for i in range(1, n + 1)]
    edges = [Edge("n1", "n0")]
    edges += [Edge(f"n{i}", f"n{i // 2}") for i in range(2, n + 1)]
    return Graph(nodes, edges, ["n0"])


def rnn(steps: int) -> Graph:
    """h = tanh(h @ W + x_t @ U) unrolled `steps` times from a leaf h0, then summed."""
    nodes = [
        Node("n0", "output", "loss", name="loss", shape=(), line=6),
        Node("n1", "function", "SumBackward0", line=6),
        Node("n2", "leaf", "h0", name="h0", shape=(1, 3), line=1),
        Node("n3", "leaf", "W", name="W", shape=(3, 3), line=2),
        Node("n4", "leaf", "U", name="U", shape=(2, 3), line=3),
    ]
    edges = []
    prev = "n2"
    for t in range(steps):
        mm_h, mm_x, add, tanh = (f"n{5 + 4 * t + k}" for k in range(4))
        nodes += [
            Node(mm_h, "function", "MmBackward0", line=5),
            Node(mm_x, "function", "MmBackward0", line=5),
            Node(add, "function", "AddBackward0", line=5),
            Node(tanh, "function", "TanhBackward0", line=5),
        ]
        edges += [Edge(prev, mm_h), Edge("n3", mm_h), Edge("n4", mm_x)]
        edges += [Edge(mm_h, add), Edge(mm_x, add), Edge(add, tanh)]
        prev = tanh
    edges += [Edge(prev, "n1"), Edge("n1", "n0")]
    return Graph(nodes, edges, ["n0"])
