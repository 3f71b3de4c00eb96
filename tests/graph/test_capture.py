"""Graph capture on the model: kinds, cut edges with mechanism and line, names, roots."""

from __future__ import annotations

import pytest

from detachviz.graph.capture import capture
from detachviz.runner import pick_roots, run_script, tensor_names


def graph_of(path, roots=()):
    result = run_script(path, record=True, quiet=True)
    assert result.error is None, result.error_text
    return capture(pick_roots(result, roots), result.recorder, tensor_names(result.namespace))


def by_label(graph):
    return {n.label: n for n in graph.nodes}


def cut_edges(graph):
    return [(graph.node(e.source).label, graph.node(e.target).label, e.cut, e.line)
            for e in graph.edges if e.cut]  # fmt: skip


def test_attached_graph_matches_torchviz_shape(script):
    g = graph_of(
        script("""
        a = torch.ones(5, requires_grad=True)
        b = a**4
        c = a**6
        i = (b + c).sum()
    """)
    )
    kinds = sorted((n.kind, n.label) for n in g.nodes)
    assert kinds == [
        ("function", "AddBackward0"),
        ("function", "PowBackward0"),
        ("function", "PowBackward0"),
        ("function", "SumBackward0"),
        ("leaf", "a"),
        ("output", "i"),
    ]
    assert cut_edges(g) == []
    assert by_label(g)["a"].shape == (5,)
    assert by_label(g)["i"].shape == ()


def test_detach_is_a_cut_edge_into_an_untracked_op(script):
    g = graph_of(
        script("""
        a = torch.ones(5, requires_grad=True)
        b = a**3
        c = a.detach()**6
        i = (b + c).sum()
        i.backward()
    """)
    )
    assert cut_edges(g) == [("a", "pow", "detach", 3)]
    pow_node = next(n for n in g.nodes if n.kind == "untracked")
    assert pow_node.label == "pow" and pow_node.line == 3
    # the untracked value still feeds the AddBackward0 it was used in
    targets = [g.node(e.target).label for e in g.edges if e.source == pow_node.id]
    assert targets == ["AddBackward0"]


@pytest.mark.parametrize(
    ("code", "mechanism"),
    [
        ("c = w.detach() * 2", "detach"),
        ("c = w.data * 2", "data"),
        ("c = torch.tensor(w) * 2", "copy"),
        ("c = w.new_tensor(w) * 2", "copy"),
        ("with torch.no_grad():\n    c = w * 2", "no_grad"),
    ],
)
def test_every_cut_mechanism_is_named(script, code, mechanism):
    g = graph_of(script(
        "w = torch.ones(3, requires_grad=True)\n"
        "v = torch.ones(3, requires_grad=True)\n"
        f"{code}\n"
        "loss = (v * c).sum()\n"
    ))  # fmt: skip
    cuts = cut_edges(g)
    assert len(cuts) == 1
    source, _, cut, line = cuts[0]
    assert (source, cut) == ("w", mechanism)
    assert line in (3, 4)  # the no_grad body is on line 4
    assert by_label(g)["w"].kind == "untracked"  # w gets no gradient from loss


def test_two_networks_detach_leaves_first_network_untracked(script):
    g = graph_of(
        script("""
        x = torch.ones(3)
        wa = torch.ones(3, 3, requires_grad=True)
        wb = torch.ones(3, 3, requires_grad=True)
        y = (wa @ x).tanh()
        z = (wb @ y.detach()).sum()
        z.backward()
    """)
    )
    labels = {(n.kind, n.label) for n in g.nodes}
    assert ("untracked", "wa") in labels
    assert ("untracked", "TanhBackward0") in labels
    assert ("leaf", "wb") in labels
    assert cut_edges(g) == [("TanhBackward0", "MvBackward0", "detach", 5)]


def test_detach_in_place_is_drawn_from_the_history_it_removed(script):
    g = graph_of(
        script("""
        x = torch.ones(3)
        wa = torch.ones(3, 3, requires_grad=True)
        wb = torch.ones(3, 3, requires_grad=True)
        y = (wa @ x).tanh()
        y.detach_()
        z = (wb @ y).sum()
        z.backward()
    """)
    )
    assert cut_edges(g) == [("TanhBackward0", "MvBackward0", "detach_", 5)]
    assert by_label(g)["wa"].kind == "untracked"


def test_constants_are_not_drawn(script):
    g = graph_of(
        script("""
        w = torch.ones(3, requires_grad=True)
        k = torch.ones(3) * 2 + 1
        loss = (w * k).sum()
    """)
    )
    assert all(n.kind != "untracked" for n in g.nodes)


def test_nn_parameters_are_named_by_module_path(script):
    nn = pytest.importorskip("detachviz.nn")
    assert nn.Linear
    g = graph_of(
        script("""
        model = nn.Linear(2, 3)
        out = model(torch.ones(4, 2)).sum()
    """)
    )
    names = {n.name for n in g.nodes if n.kind == "leaf"}
    assert names == {"model.weight", "model.bias"}


def test_roots_default_to_what_backward_ran_on(script):
    g = graph_of(
        script("""
        a = torch.ones(2, requires_grad=True)
        first = (a * 2).sum()
        second = (a * 3).sum()
        first.backward()
    """)
    )
    assert [g.node(r).label for r in g.roots] == ["first"]


def test_explicit_roots(script):
    g = graph_of(
        script("""
        a = torch.ones(2, requires_grad=True)
        first = (a * 2).sum()
        second = (a * 3).sum()
    """),
        roots=("first", "second"),
    )
    assert [g.node(r).label for r in g.roots] == ["first", "second"]
    assert sum(n.kind == "leaf" for n in g.nodes) == 1  # a is shared


ROOT_EXPRESSIONS = """
    W = torch.full((2, 2), 0.5, requires_grad=True)
    opt = torch.optim.SGD([W], lr=0.1)
    h = torch.ones(1, 2)
    losses = []
    for chunk in range(2):
        h = torch.tanh(h.detach() @ W)
        loss = h.sum() * (chunk + 1)
        opt.zero_grad()
        loss.backward()
        opt.step()
        losses.append(loss)
    model = torch.nn.Sequential(torch.nn.Linear(2, 1))
    outputs = {"logits": model(h.detach())}
"""


@pytest.mark.parametrize(
    ("expr", "label", "top"),
    [
        ("losses[0]", "losses[0]", "MulBackward0"),  # the first TBPTT chunk, not the last
        ("losses[-1]", "loss", "MulBackward0"),  # the script's own name wins
        ('outputs["logits"]', 'outputs["logits"]', "AddmmBackward0"),
        ("model[0].weight", "model.0.weight", None),  # a parameter, by its module path
    ],
)
def test_root_can_be_an_expression_in_the_final_namespace(script, expr, label, top):
    path = script(ROOT_EXPRESSIONS)
    g = graph_of(path, roots=(expr,))
    root = g.node(g.roots[0])
    assert root.label == label
    into_root = [g.node(e.source).label for e in g.edges if e.target == root.id]
    assert into_root == ([top] if top else [])
    if expr == "losses[0]":  # chunk 1 reaches W directly, with no cut behind it
        assert [e for e in g.edges if e.cut] == []


@pytest.mark.parametrize(
    ("expr", "message"),
    [
        ("losses[5]", "--root 'losses[5]' failed in the script's namespace: IndexError:"),
        ("model", "--root 'model' is a Sequential, not a tensor"),
        ("nope.weight", "--root 'nope.weight' names no tensor in the script (tensors: "),
        ("losses[", "--root 'losses[' is neither a tensor's name nor an expression"),
    ],
)
def test_a_root_expression_that_gives_no_tensor_is_one_clear_error(script, expr, message):
    from detachviz.errors import RootError

    with pytest.raises(RootError) as caught:
        graph_of(script(ROOT_EXPRESSIONS), roots=(expr,))
    assert str(caught.value).startswith(message)
    assert "\n" not in str(caught.value)


def test_ids_are_stable_and_in_traversal_order(script):
    path = script("""
        a = torch.ones(2, requires_grad=True)
        i = (a.exp() * a.detach()).sum()
    """)
    first, second = graph_of(path), graph_of(path)
    assert first.to_json() == second.to_json()
    assert [n.id for n in first.nodes] == [f"n{k}" for k in range(len(first.nodes))]


def test_long_chain_captures_without_recursion(script):
    g = graph_of(
        script("""
        x = torch.ones(2, requires_grad=True)
        y = x
        for _ in range(3000):
            y = y * 1.0001
        loss = y.sum()
    """)
    )
    assert sum(n.label == "MulBackward0" for n in g.nodes) == 3000


def test_json_round_trips_and_is_one_item_per_line(script):
    import json

    from detachviz.graph.model import Graph

    g = graph_of(
        script("""
        a = torch.ones(2, 3, requires_grad=True)
        loss = (a * a.detach().exp()).sum()
    """)
    )
    text = g.to_json()
    data = json.loads(text)
    assert Graph.from_dict(data).to_json() == text
    assert len(text.splitlines()) == len(g.nodes) + len(g.edges) + 9
    untracked = [n for n in data["nodes"] if n["kind"] == "untracked"]
    assert [(n["label"], n["shape"]) for n in untracked] == [("exp", [2, 3])]


def test_training_loop_draws_the_last_loss_once(script):
    g = graph_of(
        script("""
        w = torch.ones(3, requires_grad=True)
        opt = torch.optim.SGD([w], lr=0.1)
        for _ in range(4):
            opt.zero_grad()
            loss = (w * w).sum()
            loss.backward()
            opt.step()
    """)
    )
    assert [g.node(r).label for r in g.roots] == ["loss"]
    assert cut_edges(g) == []  # optimizer updates under no_grad cut nothing
    assert sum(n.kind == "function" for n in g.nodes) == 2


def writes(graph):
    return [(graph.node(e.source).label, graph.node(e.target).label, e.write, e.line)
            for e in graph.edges if e.write]  # fmt: skip


def graph_of_failing(path):
    result = run_script(path, record=True, quiet=True)
    roots = pick_roots(result)
    return capture(roots, result.recorder, tensor_names(result.namespace))


def test_inplace_write_behind_torchs_error_is_drawn(script):
    g = graph_of_failing(
        script("""
        m = torch.arange(5., requires_grad=True)
        n = m**2
        o = m.detach()
        o.zero_()
        n.sum().backward()
    """)
    )
    assert writes(g) == [("zero_", "PowBackward0", "inplace", 4)]
    assert cut_edges(g) == [("m", "zero_", "detach", 3)]
    zero = next(n for n in g.nodes if n.label == "zero_")
    assert (zero.kind, zero.name) == ("untracked", "o")


def test_silent_data_write_is_drawn(script):
    g = graph_of(
        script("""
        x = torch.ones(1, requires_grad=True)
        y = x * x
        x.data *= 100
        y.backward()
    """)
    )
    assert writes(g) == [("mul_", "MulBackward0", "data", 3)]


@pytest.mark.parametrize(
    "code",
    [
        "x = torch.ones(2, requires_grad=True)\ny = x * x\ny.sum().backward()\nx.data *= 3\n",
        "x = torch.ones(2, requires_grad=True)\nx.data *= 3\ny = (x * x).sum()\n",
        "w = torch.ones(2, requires_grad=True)\nopt = torch.optim.SGD([w], lr=0.1)\n"
        "loss = (w * w).sum()\nloss.backward()\nopt.step()\n",
    ],
    ids=["after-backward", "before-save", "optimizer-step"],
)
def test_harmless_writes_are_not_drawn(script, code):
    assert writes(graph_of(script(code))) == []


def test_tbptt_with_an_optimizer_draws_the_cut_and_no_write(script):
    # The optimizer's add_ changes W after chunk 1's backward already used it: torch runs
    # this fine, so no write edge may claim "backward will raise".
    g = graph_of(
        script("""
        W = torch.full((3, 3), 0.1, requires_grad=True)
        opt = torch.optim.SGD([W], lr=0.1)
        h = torch.zeros(1, 3)
        for chunk in range(3):
            h = h.detach()
            loss = 0
            for t in range(2):
                h = torch.tanh(h @ W + 1.0)
                loss = loss + h.sum()
            opt.zero_grad()
            loss.backward()
            opt.step()
    """)
    )
    assert writes(g) == []
    # each chunk's history is cut from the next one's: 3 chunks, 2 detach() edges
    assert cut_edges(g) == [("TanhBackward0", "MmBackward0", "detach", 5)] * 2


def test_adam_training_loop_draws_no_write(script):
    g = graph_of(
        script("""
        w = torch.ones(4, requires_grad=True)
        b = torch.zeros(1, requires_grad=True)
        opt = torch.optim.Adam([w, b], lr=0.01)
        x = torch.arange(8.).reshape(2, 4)
        for step in range(5):
            opt.zero_grad()
            loss = ((x @ w + b) ** 2).mean()
            loss.backward()
            opt.step()
    """)
    )
    assert writes(g) == []
    assert [g.node(r).label for r in g.roots] == ["loss"]


def test_write_before_a_retained_second_backward_is_drawn(script):
    # The first backward kept the graph; the second reads y after add_ changed it.
    g = graph_of_failing(
        script("""
        x = torch.ones(2, requires_grad=True)
        y = x * 2
        z = (y * y).sum()
        z.backward(retain_graph=True)
        y.add_(1)
        z.backward()
    """)
    )
    assert writes(g) == [("add_", "MulBackward0", "inplace", 5)]


def test_show_saved_draws_what_torch_exposes_even_after_backward(script):
    from detachviz.graph.capture import Options

    path = script("""
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
        loss = (Square.apply(a).exp() * a).sum()
        loss.backward()
    """)
    result = run_script(path, record=True, quiet=True)
    g = capture(pick_roots(result), result.recorder, tensor_names(result.namespace),
                Options(show_saved=True))  # fmt: skip
    saved_into = sorted(g.node(e.target).label for e in g.edges
                        if g.node(e.source).kind == "saved")  # fmt: skip
    # ExpBackward0 saved its result, MulBackward0 both operands (kept by the trace after
    # backward); the custom node's ctx.saved_tensors were freed by backward (torch raises on
    # reading them), so it shows none — before backward torchviz and detachviz draw them
    assert saved_into == ["ExpBackward0", "MulBackward0", "MulBackward0"]


def test_model_and_trace_name_the_same_cuts():
    from detachviz.engine import trace
    from detachviz.graph import model

    assert model.CUTS == trace.CUTS
