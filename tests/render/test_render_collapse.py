"""Collapsing repeated chains: counts, labels, what links and what does not."""

from __future__ import annotations

import pytest
import render_samples as samples

from detachviz.errors import ScriptFailed, UserError
from detachviz.graph.model import Edge, Graph, Node
from detachviz.render import draw, to_digraph
from detachviz.render.collapse import MIN_RUN, collapse
from detachviz.render.dot import drawn_graph, node_text
from detachviz.render.options import DrawOptions


def test_20000_node_chain_becomes_one_box():
    # x * w first (two leaves in), then (x * w) * w ... 19,999 times: one box for the loop.
    g = samples.mul_chain(20_000)
    out = collapse(g)
    assert [(n.id, n.label) for n in out.graph.nodes] == [
        ("n0", ""),
        ("n1", "MulBackward0"),
        ("n20000", "MulBackward0"),
        ("n20001", "w"),
        ("n20002", "x"),
    ]
    assert out.runs == {"n1": 19_999}
    assert out.repeats == {("n20001", "n1", None, None): 19_999}
    assert len(out.graph.edges) == 5
    assert len(g.nodes) == 20_003  # the model itself is untouched


def test_20000_node_chain_draws_as_a_small_svg():
    svg = draw(samples.mul_chain(20_000), fmt="svg").decode()
    assert "MulBackward0 ×19999" in svg
    assert svg.count('class="node"') == 5


def test_expand_keeps_every_node():
    source = to_digraph(samples.mul_chain(50), DrawOptions(expand=True)).source
    assert source.count("MulBackward0") == 50
    assert "×" not in source


def test_expand_node_draws_one_collapsed_box_in_full():
    # Two loops: x * w (line 3) and, after it, x.exp() (line 4); only the named one expands.
    g = samples.mul_chain(10)
    nodes = list(g.nodes)
    edges = [e for e in g.edges if e.target != "n0"]
    nodes += [Node(f"e{i}", "function", "ExpBackward0", line=4) for i in range(6)]
    edges += [Edge("n1", "e0")] + [Edge(f"e{i}", f"e{i + 1}") for i in range(5)]
    edges.append(Edge("e5", "n0"))
    g = Graph(nodes, edges, ["n0"])
    labels = lambda options: sorted(  # noqa: E731
        n.label + f"×{drawn.runs.get(n.id, 1)}"
        for drawn in [drawn_graph(g, options)]
        for n in drawn.graph.nodes
        if n.kind == "function"
    )
    # (the first x * w is fed by x, not by the previous step: it is drawn on its own)
    assert labels(DrawOptions()) == ["ExpBackward0×6", "MulBackward0×1", "MulBackward0×9"]
    by_op = labels(DrawOptions(expand_nodes=("ExpBackward0",)))
    assert by_op == ["ExpBackward0×1"] * 6 + ["MulBackward0×1", "MulBackward0×9"]
    # by line: the 10 multiplications drawn; the exps stay collapsed (the first one, now fed
    # by a drawn MulBackward0 rather than by the run, on its own)
    by_line = labels(DrawOptions(expand_nodes=("3",)))
    assert by_line == ["ExpBackward0×1", "ExpBackward0×5"] + ["MulBackward0×1"] * 10
    assert len(labels(DrawOptions(expand_nodes=("3", "4")))) == 16


def test_expand_node_of_an_rnn_block_draws_the_whole_block():
    drawn = drawn_graph(samples.rnn(6), DrawOptions(expand_nodes=("TanhBackward0",)))
    assert not any(drawn.runs.values()) or max(drawn.runs.values()) == 1
    assert sum(n.label == "TanhBackward0" for n in drawn.graph.nodes) == 6


def test_expand_node_that_names_no_collapsed_box_says_what_does():
    with pytest.raises(ScriptFailed) as e:
        drawn_graph(samples.mul_chain(10), DrawOptions(expand_nodes=("h",)))
    assert str(e.value) == (
        "--expand-node 'h' names no collapsed box (an op, variable or line); "
        "collapsed: MulBackward0 (line 3)"
    )
    with pytest.raises(UserError, match="needs a name"):
        DrawOptions(expand_nodes=(" ",))


def _line(labels, cuts=None):
    nodes = [Node(f"n{i}", "function", lab) for i, lab in enumerate(labels)]
    cuts = cuts or {}
    edges = [Edge(f"n{i}", f"n{i + 1}", cuts.get(i)) for i in range(len(labels) - 1)]
    return Graph(nodes, edges)


@pytest.mark.parametrize(("n", "boxes"), [(MIN_RUN - 1, MIN_RUN - 1), (MIN_RUN, 1), (7, 1)])
def test_short_runs_stay(n, boxes):
    assert len(collapse(_line(["A"] * n)).graph.nodes) == boxes


@pytest.mark.parametrize(
    ("graph", "labels"),
    [
        # a different op splits the run
        (_line(["A"] * 4 + ["B"] + ["A"] * 4), ["A ×4", "B", "A ×4"]),
        # a cut edge is never folded away: the op after it differs (it has a cut input)
        (_line(["A"] * 9, cuts={3: "detach"}), ["A ×4", "A", "A ×4"]),
        # a repeated block of three, then a tail
        (_line(list("ABC") * 5 + ["D"]), ["A ×5", "B ×5", "C ×5", "D"]),
        # too short on either side of the split
        (_line(["A"] * 3 + ["B"] + ["A"] * 3), ["A"] * 3 + ["B"] + ["A"] * 3),
    ],
)
def test_what_splits_a_run(graph, labels):
    out = collapse(graph)
    assert [
        f"{n.label} ×{out.runs[n.id]}" if n.id in out.runs else n.label for n in out.graph.nodes
    ] == labels


def test_branching_does_not_link():
    # n0 feeds two equal ops: neither link is one-to-one, so n0 stays, and n1 (fed by n0)
    # differs from the n3..n6 run after it.
    nodes = [Node(f"n{i}", "function", "A") for i in range(7)]
    edges = [Edge("n0", "n1"), Edge("n0", "n2"), Edge("n1", "n3")]
    edges += [Edge(f"n{i}", f"n{i + 1}") for i in range(3, 6)]
    out = collapse(Graph(nodes, edges))
    assert out.runs == {"n3": 4}
    assert [n.id for n in out.graph.nodes] == ["n0", "n1", "n2", "n3"]


def test_attrs_split_runs_only_when_shown():
    nodes = [
        Node(f"n{i}", "function", "PowBackward0", attrs={"exponent": str(i)}) for i in range(4)
    ]
    g = Graph(nodes, [Edge(f"n{i}", f"n{i + 1}") for i in range(3)])
    assert collapse(g).runs == {"n0": 4}
    assert collapse(g, with_attrs=True).runs == {}


def test_untracked_runs_collapse_but_tensors_do_not():
    nodes = [Node(f"n{i}", "untracked", "mul") for i in range(5)]
    nodes += [Node(f"t{i}", "leaf", "w", shape=(1,)) for i in range(5)]
    edges = [Edge(f"n{i}", f"n{i + 1}") for i in range(4)]
    edges += [Edge(f"t{i}", f"t{i + 1}") for i in range(4)]
    out = collapse(Graph(nodes, edges))
    assert out.runs == {"n0": 5}


def test_unrolled_rnn_collapses_to_one_step():
    # Step 0 reads h0 (a leaf), steps 1..999 read the previous tanh: step 0 is drawn alone,
    # the other 999 as one block with the loop's way back from its tanh to its h @ W.
    out = collapse(samples.rnn(1000))
    labels = [
        f"{n.label} ×{out.runs[n.id]}" if n.id in out.runs else n.label for n in out.graph.nodes
    ]
    assert labels == [
        "loss",
        "SumBackward0",
        "h0",
        "W",
        "U",
        *["MmBackward0", "MmBackward0", "AddBackward0", "TanhBackward0"],  # n5..n8: step 0
        *["MmBackward0 ×999", "MmBackward0 ×999", "AddBackward0 ×999", "TanhBackward0 ×999"],
    ]
    repeats = {(s, t): c for (s, t, _, _), c in out.repeats.items()}
    assert repeats == {
        ("n3", "n9"): 999,  # W -> h @ W in every later step
        ("n4", "n10"): 999,  # U -> x_t @ U
        ("n12", "n9"): 998,  # the recurrence
        ("n9", "n11"): 999,
        ("n10", "n11"): 999,
        ("n11", "n12"): 999,
    }
    assert ("n8", "n9", None, None) not in out.repeats  # step 0's tanh feeds step 1 once
    assert out.loops == {("n12", "n9")}


def test_unrolled_rnn_draws_fast():
    svg = draw(samples.rnn(2000), fmt="svg").decode()
    assert svg.count('class="node"') == 13 and "TanhBackward0 ×1999" in svg


def test_saved_tensors_and_per_step_inputs_merge_with_their_op():
    # y = y * x_i for 6 distinct leaves x_i, each Mul saving `other`: one box of each.
    nodes = [Node("n0", "output", "", shape=(1,))]
    edges = []
    for i in range(6):
        mul, x, saved = f"m{i}", f"x{i}", f"s{i}"
        nodes += [
            Node(mul, "function", "MulBackward0"),
            Node(x, "leaf", "", shape=(1,)),
            Node(saved, "saved", "other", shape=(1,)),
        ]
        edges += [Edge(x, mul), Edge(saved, mul)]
        edges.append(Edge(mul, f"m{i + 1}" if i < 5 else "n0"))
    out = collapse(Graph(nodes, edges))
    assert out.runs == {"m0": 6, "x0": 6, "s0": 6}
    assert [n.id for n in out.graph.nodes] == ["n0", "m0", "x0", "s0"]


@pytest.mark.parametrize(
    ("node", "text"),
    [
        (Node("x0", "leaf", "x", shape=(1, 3)), "x ×6\n (1, 3)"),
        (Node("m0", "function", "MulBackward0"), "MulBackward0 ×6"),
    ],
)
def test_collapsed_labels(node, text):
    assert node_text(node, run=6) == text


def test_a_cut_in_every_step_stays_visible_as_a_loop():
    out = collapse(_line(["A"] * 6, cuts={i: "detach" for i in range(5)}))
    assert out.runs == {"n1": 5}
    assert [(e.source, e.target, e.cut) for e in out.graph.edges] == [
        ("n0", "n1", "detach"),
        ("n1", "n1", "detach"),
    ]
    assert out.repeats == {("n1", "n1", "detach", None): 4}
    source = to_digraph(_line(["A"] * 6, cuts={i: "detach" for i in range(5)})).source
    assert 'n1 -> n1 [label="cut: detach() ×4"' in source


def _fan_in(branches):
    """One StackBackward0 fed by a chain per branch, each chain's labels as given, all
    reading the same leaf x."""
    nodes = [Node("n0", "output", "", shape=(3,)), Node("n1", "function", "StackBackward0")]
    edges = [Edge("n1", "n0")]
    leaf = Node("x", "leaf", "x", shape=(3,))
    for b, labels in enumerate(branches):
        below = "n1"
        for k, label in enumerate(labels):
            nid = f"b{b}_{k}"
            nodes.append(Node(nid, "function", label))
            edges.append(Edge(nid, below))
            below = nid
        edges.append(Edge("x", below))
    return Graph([*nodes, leaf], edges, ["n0"])


def test_equal_parallel_branches_merge_into_one():
    # ys = [(x * (i + 1)).tanh() for i in range(6)]; torch.stack(ys): one branch drawn x6
    out = collapse(_fan_in([["TanhBackward0", "MulBackward0"]] * 6))
    assert [n.id for n in out.graph.nodes] == ["n0", "n1", "b0_0", "b0_1", "x"]
    assert out.runs == {"b0_0": 6, "b0_1": 6}
    assert out.repeats == {
        ("b0_0", "n1", None, None): 6,
        ("b0_1", "b0_0", None, None): 6,
        ("x", "b0_1", None, None): 6,
    }
    assert out.members["b5_1"] == "b0_1"


def test_parallel_branches_merge_only_when_equal_and_enough():
    # three equal branches stay (fewer than MIN_REPEATS); a different branch stays apart
    assert len(collapse(_fan_in([["MulBackward0"]] * (MIN_RUN - 1))).graph.nodes) == MIN_RUN + 2
    out = collapse(_fan_in([["MulBackward0"]] * 5 + [["ExpBackward0"]]))
    assert [n.label for n in out.graph.nodes] == [
        "",
        "StackBackward0",
        "MulBackward0",
        "ExpBackward0",
        "x",
    ]
    assert out.runs == {"b0_0": 5}
