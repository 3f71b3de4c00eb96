"""For graphs without cuts, detachviz draws the same function nodes, leaves and edges that
torchviz's make_dot draws for the same code under real PyTorch (the oracle).

torchviz draws each leaf as `leaf -> AccumulateGrad -> consumer`; detachviz folds the
AccumulateGrad into the leaf (DESIGN.md), so the comparison contracts those nodes first."""

from __future__ import annotations

import re
from collections import Counter

import pytest

from detachviz.graph.capture import capture
from detachviz.runner import run_script, tensor_names

CASES = {
    "seed_attached": """
a = torch.ones(5, requires_grad=True)
b = a**4
c = a**6
out = (b + c).sum()
params = {"a": a}
""",
    "matmul_chain": """
w = torch.ones(3, 3, requires_grad=True)
x = torch.ones(3, 2)
h = (w @ x).tanh()
out = (h * h.sigmoid()).mean()
params = {"w": w}
""",
    "mlp": """
torch.manual_seed(0)
model = torch.nn.Sequential(torch.nn.Linear(4, 3), torch.nn.ReLU(), torch.nn.Linear(3, 1))
out = model(torch.ones(2, 4)).pow(2).mean()
params = dict(model.named_parameters())
""",
    "shared_leaf_and_exp": """
a = torch.ones(2, 2, requires_grad=True)
b = torch.ones(2, 2, requires_grad=True)
out = ((a * b).exp() + a.log() - b / 2).sum()
params = {"a": a, "b": b}
""",
    "activation_family": """
torch.manual_seed(0)
nn = torch.nn
model = nn.Sequential(nn.Linear(4, 4), nn.GELU(), nn.Linear(4, 4), nn.LeakyReLU(0.1),
                      nn.Linear(4, 4), nn.ELU(inplace=True), nn.Linear(4, 2), nn.ReLU6())
h = model(torch.ones(2, 4))
F = nn.functional
out = (F.softplus(h) + F.hardtanh(F.silu(h))).sum()
params = dict(model.named_parameters())
""",
}

LABEL = re.compile(r'^\s*(\d+) \[label=(?:"([^"]*)"|(\S+?))[ \]]', re.M)
EDGE = re.compile(r"^\s*(\d+) -> (\d+)", re.M)


def torchviz_graph(code: str) -> tuple[Counter, Counter]:
    """Node labels and labelled edges of torchviz's make_dot under real torch."""
    torch = pytest.importorskip("torch")
    torchviz = pytest.importorskip("torchviz")
    ns: dict = {"torch": torch}
    exec(code, ns)
    source = torchviz.make_dot(ns["out"], params=ns["params"]).source
    labels = {m[0]: (m[1] or m[2]).replace("\\n", "\n") for m in LABEL.findall(source)}
    edges = EDGE.findall(source)
    acc = {k for k, v in labels.items() if v == "AccumulateGrad"}
    into = {b: a for a, b in edges if b in acc}  # AccumulateGrad <- its leaf
    edges = [(into.get(a, a), b) for a, b in edges if b not in acc]
    labels = {k: v for k, v in labels.items() if k not in acc}
    return _normalise(labels, edges)


def detachviz_graph(script) -> tuple[Counter, Counter]:
    result = run_script(script, record=True)
    assert result.error is None, result.error_text
    names = {id(t): n for n, t in result.namespace["params"].items()}
    names.update((k, v) for k, v in tensor_names(result.namespace).items() if k not in names)
    g = capture([(None, result.namespace["out"])], result.recorder, names)
    labels = {n.id: _label(n) for n in g.nodes}
    return _normalise(labels, [(e.source, e.target) for e in g.edges])


def _label(node) -> str:
    if node.shape is None:
        return node.label
    size = "(" + ", ".join(str(d) for d in node.shape) + ")"
    return f"{node.label if node.kind == 'leaf' else ''}\n {size}"


def _normalise(labels: dict, edges: list) -> tuple[Counter, Counter]:
    clean = {k: v.strip() for k, v in labels.items()}
    return Counter(clean.values()), Counter((clean[a], clean[b]) for a, b in edges)


@pytest.mark.parametrize("name", sorted(CASES))
def test_same_nodes_and_edges_as_torchviz(script, name):
    want_nodes, want_edges = torchviz_graph(CASES[name])
    got_nodes, got_edges = detachviz_graph(script(CASES[name]))
    assert got_nodes == want_nodes
    assert got_edges == want_edges
