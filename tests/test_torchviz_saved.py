"""`--show-saved` draws what torchviz's `make_dot(show_saved=True)` draws under real torch:
one orange box per (backward node, saved attribute) — `_saved_*` tensors, tuples of them as
`name[i]` — joined to its node by an undirected edge, and, for a root that is a view, the
view's `_base` (dark green) with a dotted edge to the root. Checked for both engines, for
`render` and for the torchviz shim (`from torchviz import make_dot` inside a script).

torchviz keys DOT nodes by `id()` of the Python object, so a tensor saved by two nodes, or a
parameter that is also saved, is one DOT node whose label the last statement wins. Its body
is read in order instead: every saved edge is followed by the statement of its saved node,
which gives each (node, attribute) pair on its own. Leaves are folded into their
AccumulateGrad as detachviz draws them (tests/test_torchviz_compat.py), and tensors are
compared by colour and shape (torchviz names only `params`; detachviz names variables)."""

from __future__ import annotations

import re
import textwrap
from collections import Counter
from pathlib import Path

import pytest

# Each script builds `out` (the root) under plain `import torch`, as a user writes it.
SCRIPTS = {
    "seed_attached": """
        a = torch.ones(5, requires_grad=True)
        b = a**4
        c = a**6
        out = (b + c).sum()
    """,
    "seed_detached": """
        a = torch.ones(5, requires_grad=True)
        b = a**4
        c = a.detach() ** 6
        out = (b + c).sum()
    """,
    "mlp": """
        torch.manual_seed(0)
        model = torch.nn.Sequential(
            torch.nn.Linear(4, 3), torch.nn.ReLU(), torch.nn.Linear(3, 2), torch.nn.Tanh()
        )
        out = model(torch.randn(5, 4)).pow(2).mean()
    """,
    "relu_shared_save": """
        torch.manual_seed(0)
        x = torch.randn(2, 3)
        w1 = torch.randn(3, 4, requires_grad=True)
        w2 = torch.randn(4, 1, requires_grad=True)
        h = torch.relu(x @ w1)
        out = (h @ w2).sum()
    """,
    "conv": """
        torch.manual_seed(0)
        conv = torch.nn.Conv2d(2, 3, 3, padding=1)
        pool = torch.nn.MaxPool2d(2)
        x = torch.randn(1, 2, 6, 6)
        out = pool(torch.relu(conv(x))).flatten(1).sum()
    """,
    "layernorm": """
        torch.manual_seed(0)
        ln = torch.nn.LayerNorm(4)
        x = torch.randn(3, 4, requires_grad=True)
        out = (ln(x) * x).sum()
    """,
    "softmax_cross_entropy": """
        torch.manual_seed(0)
        logits = torch.randn(4, 5, requires_grad=True)
        target = torch.tensor([1, 0, 3, 4])
        p = torch.softmax(logits, dim=1)
        out = torch.nn.functional.cross_entropy(logits, target) + p.max()
    """,
    "log_softmax_nll": """
        torch.manual_seed(0)
        x = torch.randn(3, 4, requires_grad=True)
        target = torch.tensor([0, 2, 1])
        out = torch.nn.functional.nll_loss(torch.log_softmax(x, 1), target)
    """,
    "views": """
        a = torch.ones(2, 3, requires_grad=True)
        b = (a * 2).t()
        c = b.reshape(6)[1:4].unsqueeze(0)
        out = c.expand(2, 3).sum()
    """,
    "view_root": """
        a = torch.ones(2, 3, requires_grad=True)
        b = a * 2
        out = b.view(6)
    """,
    "view_root_of_leaf": """
        a = torch.ones(2, 3, requires_grad=True)
        out = a[0]
    """,
    "inplace": """
        a = torch.ones(3, requires_grad=True)
        b = a * 2
        b.mul_(3)
        b.exp_()
        out = (b + a).sum()
    """,
    "pow_scalar": """
        a = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
        b = a**2.5
        c = b * 3
        d = 2 ** a
        out = (c / 2 + d - 1).sum()
    """,
    "scalar_tensor_other": """
        a = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
        s = torch.tensor(2.0, requires_grad=True)
        out = (a * s / s.exp()).sum() + (a - s).pow(s).mean()
    """,
    "cat_stack_tuple": """
        a = torch.ones(2, 2, requires_grad=True)
        b = torch.ones(2, 2, requires_grad=True)
        c = torch.cat([a * b, b], 0)
        out = torch.stack([c.sum(0), c.max(0).values]).sigmoid().sum()
    """,
    "index_tensor_tuple": """
        a = torch.ones(4, 3, requires_grad=True)
        idx = torch.tensor([0, 2])
        out = (a[idx] * a[[1, 3]]).sum()
    """,
    "batchnorm_dropout": """
        torch.manual_seed(0)
        net = torch.nn.Sequential(
            torch.nn.Linear(3, 4), torch.nn.BatchNorm1d(4), torch.nn.ReLU(inplace=True),
            torch.nn.Dropout(0.5),
        )
        out = net(torch.randn(6, 3)).sum()
    """,
    "custom_function": """
        class Square(torch.autograd.Function):
            @staticmethod
            def forward(ctx, x):
                ctx.save_for_backward(x)
                return x * x

            @staticmethod
            def backward(ctx, g):
                (x,) = ctx.saved_tensors
                return 2 * x * g

        a = torch.ones(3, requires_grad=True)
        out = (Square.apply(a).exp() * a).sum()
    """,
    "double_backward_via_backward": """
        torch.manual_seed(0)
        w = torch.randn(3, 2, requires_grad=True)
        x = torch.randn(4, 3)
        (x @ w).sigmoid().sum().backward(create_graph=True)
        out = (w.grad * w.grad.exp()).sum()
    """,
    "gradient_penalty": """
        torch.manual_seed(0)
        w = torch.randn(3, 3, requires_grad=True)
        x = torch.randn(4, 3, requires_grad=True)
        y = torch.tanh(x @ w).sum()
        (g,) = torch.autograd.grad(y, x, create_graph=True)
        out = (g.norm(2, dim=1) - 1).pow(2).mean()
    """,
}

STATEMENT = re.compile(
    r'^\t(\w+) -> (\w+)(?: \[([^\]]*)\])?$|^\t(\w+) \[label=("(?:[^"\\]|\\.)*"|[^ \]]+)(.*?)\]$',
    re.M | re.S,
)
FILL = re.compile(r"fillcolor=(\S+?)(?: |$)")
SHAPE = re.compile(r"\(([\d, ]*)\)$")

Desc = tuple  # a node description: ("fn", label) or (colour, shape[, saved name])


def _parse(source: str) -> tuple[Counter, Counter]:
    """(saved triples, edges) of a DOT source, both as Counters of descriptions."""
    regular: dict[str, Desc] = {}
    saved_of: dict[tuple[str, str], Desc] = {}  # (fn id, saved id) -> its saved description
    edges: list[tuple[str, str, str]] = []
    pending: tuple[str, str] | None = None
    for m in STATEMENT.finditer(source):
        if m.group(1) is not None:
            a, b, attrs = m.group(1), m.group(2), m.group(3) or ""
            if a.startswith("legend_") or b.startswith("legend_") or "label=" in attrs:
                continue  # the legend, and detachviz's cut and write edges (labelled)
            style = "saved" if "dir=none" in attrs else "dotted" if "dotted" in attrs else ""
            edges.append((a, b, style))
            pending = (a, b) if style == "saved" else None
            continue
        node, text, rest = m.group(4), m.group(5), m.group(6)
        if node.startswith("legend_"):
            continue
        text = text[1:-1] if text.startswith('"') else text
        text = text.replace("\\n", "\n")
        fill = FILL.search(rest)
        colour = fill.group(1) if fill else "lightgrey"
        head, _, tail = text.partition("\n")
        shape = SHAPE.search(tail.strip())
        if shape is None and colour == "lightgrey":  # a backward node (detachviz: `h = ...`)
            desc: Desc = ("fn", head.split(" = ")[-1])
        else:  # a tensor (detachviz's faded boxes may have no shape: dropped below)
            size = shape.group(1) if shape is not None else ""
            desc = (colour, size, head.strip() if colour == "orange" else "")
        if colour == "orange" and pending is not None and node in pending:
            fn = pending[0] if pending[1] == node else pending[1]
            saved_of[(fn, node)] = desc
        else:
            regular[node] = desc
        pending = None

    faded = {k for k, v in regular.items() if v[0] == theme_faded()}
    edges = [(a, b, s) for a, b, s in edges if a not in faded and b not in faded]
    acc = {k for k, v in regular.items() if v == ("fn", "AccumulateGrad")}
    into = {b: a for a, b, s in edges if b in acc and not s}  # AccumulateGrad <- its leaf

    def saved(fn: str, t: str) -> Desc:
        # torchviz: the statement right after the edge; detachviz: the node's own box
        return saved_of.get((fn, t)) or regular[t]

    drawn: Counter = Counter()
    triples: Counter = Counter()
    for a, b, style in edges:
        if b in acc and not style:
            continue
        if style == "saved":
            fn, t = (a, b) if regular.get(a, ("",))[0] == "fn" else (b, a)
            what = saved(fn, t)
            assert what[0] == "orange", what
            triples[(regular[fn][1], *what[1:])] += 1
            drawn[(regular[fn], ("saved", *what[1:]), style)] += 1
        else:
            drawn[(regular[into.get(a, a)], regular[into.get(b, b)], style)] += 1
    return triples, drawn


def theme_faded() -> str:
    """The fill of detachviz's untracked boxes (beyond a cut: torchviz draws none)."""
    from detachviz.graph import vocab
    from detachviz.render import theme

    return theme.NODE_STYLE[vocab.UNTRACKED]["fillcolor"]


def _code(name: str) -> str:
    return "import torch\n" + textwrap.dedent(SCRIPTS[name])


def torchviz_saved(name: str) -> tuple[Counter, Counter]:
    torch = pytest.importorskip("torch")
    torchviz = pytest.importorskip("torchviz")
    ns: dict = {}
    with torch.random.fork_rng():
        exec(_code(name), ns)
    return _parse(torchviz.make_dot(ns["out"], show_saved=True).source)


def render_saved(path: Path, engine: str) -> tuple[Counter, Counter]:
    from detachviz.pipeline import Request, build
    from detachviz.render import DrawOptions

    request = Request(roots=("out",), engine=engine, draw=DrawOptions(show_saved=True))
    data, failure = build(str(path), request, "dot")
    assert not failure, failure
    return _parse(data.decode())


def shim_saved(path: Path, engine: str) -> tuple[Counter, Counter]:
    from detachviz.runner import run_script

    path.write_text(
        path.read_text() + "from torchviz import make_dot\n"
        "source = make_dot(out, show_saved=True).source\n"
    )
    result = run_script(path, quiet=True, engine=engine)
    assert result.error is None, result.error_text
    return _parse(result.namespace["source"])


ENGINES = ["detachviz", "torch"]


@pytest.mark.parametrize("engine", ENGINES)
@pytest.mark.parametrize("name", sorted(SCRIPTS))
def test_render_draws_torchviz_saved_nodes(tmp_path, name, engine):
    want = torchviz_saved(name)
    path = tmp_path / f"{name}.py"
    path.write_text(_code(name))
    triples, edges = render_saved(path, engine)
    assert triples == want[0]
    assert edges == want[1]


@pytest.mark.parametrize("engine", ENGINES)
@pytest.mark.parametrize("name", ["relu_shared_save", "view_root", "pow_scalar", "mlp"])
def test_torchviz_shim_draws_torchviz_saved_nodes(tmp_path, name, engine):
    want = torchviz_saved(name)
    path = tmp_path / f"{name}.py"
    path.write_text(_code(name))
    triples, edges = shim_saved(path, engine)
    assert triples == want[0]
    assert edges == want[1]


ATTR_LABEL = re.compile(r'\[label="((?:[^"\\]|\\.)*)"')


def _attr_blocks(source: str) -> Counter:
    """(backward name, its `key: value` rows) of every box with a show_attrs block."""
    found: Counter = Counter()
    for m in ATTR_LABEL.finditer(source):
        lines = m.group(1).replace("\\n", "\n").split("\n")
        if len(lines) < 3 or set(lines[1]) != {"-"}:
            continue
        rows = tuple(tuple(p.strip() for p in row.split(": ", 1)) for row in lines[2:])
        found[(lines[0].split(" = ")[-1], rows)] += 1
    return found


@pytest.mark.parametrize("engine", ENGINES)
@pytest.mark.parametrize("name", sorted(SCRIPTS))
def test_show_attrs_rows_are_torchviz(tmp_path, name, engine):
    """With --show-attrs, every backward box lists torchviz's rows: each `_saved_*`
    attribute, tensors as `[saved tensor]`, Python values as torch prints them."""
    torch = pytest.importorskip("torch")
    torchviz = pytest.importorskip("torchviz")
    from detachviz.pipeline import Request, build
    from detachviz.render import DrawOptions

    ns: dict = {}
    with torch.random.fork_rng():
        exec(_code(name), ns)
    want = _attr_blocks(torchviz.make_dot(ns["out"], show_attrs=True).source)
    path = tmp_path / f"{name}.py"
    path.write_text(_code(name))
    request = Request(roots=("out",), engine=engine, draw=DrawOptions(show_attrs=True))
    data, failure = build(str(path), request, "dot")
    assert not failure, failure
    assert _attr_blocks(data.decode()) == want


@pytest.mark.parametrize("engine", ENGINES)
@pytest.mark.parametrize(
    "name",
    [
        "gradient_penalty",
        "double_backward_via_backward",
        "relu_shared_save",
        "layernorm",
        "pow_scalar",
        "mlp",
    ],  # fmt: skip
)
def test_saved_tensors_are_drawn_after_backward_freed_them(tmp_path, name, engine):
    """torch frees saved tensors at backward (torchviz then raises); detachviz draws them
    from the trace, the derivative graph of a gradient penalty included."""
    want = torchviz_saved(name)
    path = tmp_path / f"{name}.py"
    path.write_text(_code(name) + "out.backward()\n")
    triples, edges = render_saved(path, engine)
    assert triples == want[0]
    assert edges == want[1]
