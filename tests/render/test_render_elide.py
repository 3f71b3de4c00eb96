"""Eliding long chains of different ops into one `… N ops …` box: what is elided, what stays
visible, and how to see it all."""

from __future__ import annotations

import pytest

from detachviz.errors import ScriptFailed
from detachviz.graph.capture import capture
from detachviz.graph.model import Edge, Graph, Node
from detachviz.render import draw, to_digraph
from detachviz.render.collapse import ELIDE_KEEP, ELIDE_MIN_RUN, collapse
from detachviz.render.dot import drawn_graph, legend_entries
from detachviz.render.options import DrawOptions
from detachviz.runner import pick_roots, run_script, tensor_names

OPS = ["TanhBackward0", "SinBackward0", "SigmoidBackward0", "CosBackward0", "AbsBackward0"]


def chain(n, *, named=(), cuts=(), side=(), kind="function", line=7):
    """loss <- SumBackward0 <- op_1 <- ... <- op_n <- x: ops cycling through OPS with no
    period (so nothing collapses), `named` positions named `h`, a `cuts` position's input
    arriving through a detach cut, a `side` position also fed by leaf w."""
    labels = [OPS[(i * i + i // 3) % len(OPS)] for i in range(n)]
    nodes = [Node("n0", "output", "loss", shape=()), Node("n1", kind, "SumBackward0", line=8)]
    nodes += [
        Node(f"n{i + 2}", kind, lab, name="h" if i in named else None, line=line)
        for i, lab in enumerate(labels)
    ]
    nodes += [Node("x", "leaf", "x", shape=(2,)), Node("w", "leaf", "w", shape=(2,))]
    edges = [Edge("n1", "n0"), Edge("n2", "n1")]
    for i in range(n):
        source = f"n{i + 3}" if i < n - 1 else "x"
        edges.append(Edge(source, f"n{i + 2}", "detach" if i in cuts else None))
        if i in side:
            edges.append(Edge("w", f"n{i + 2}"))
    return Graph(nodes, edges, ["n0"])


def boxes(out):
    return [f"{out.runs[n.id]} ops" if n.id in out.elided else n.label for n in out.graph.nodes]


def test_a_long_chain_of_different_ops_is_one_box_between_its_ends():
    g = chain(100)
    out = collapse(g)
    # SumBackward0 and the 100 ops are one run of 101: two kept at each end, 97 in the box
    kept = [n.label for n in g.nodes[:3]], [n.label for n in g.nodes[-4:-2]]
    assert boxes(out) == [*kept[0], "97 ops", *kept[1], "x", "w"]
    assert out.runs == {"n3": 97}
    assert out.elided == {"n3": (7, 7)}
    assert out.members["n99"] == "n3" and "n2" not in out.members
    assert [(e.source, e.target) for e in out.graph.edges] == [
        ("n1", "n0"),
        ("n2", "n1"),
        ("n3", "n2"),
        ("n100", "n3"),
        ("n101", "n100"),
        ("x", "n101"),
    ]
    assert len(g.nodes) == 104  # the model is untouched: JSON is always the full graph


def test_the_box_says_how_many_ops_and_from_which_lines():
    source = to_digraph(chain(100)).source
    assert 'n3 [label="… 97 ops …\\nline 7" fillcolor=lightgrey peripheries=2]' in source
    assert "×" not in source
    g = chain(40)
    g.nodes[20] = Node("n20", "function", "ExpBackward0", line=3)
    assert "… 37 ops …\\nlines 3–7" in to_digraph(g).source


@pytest.mark.parametrize(
    ("n", "elided"),
    [(ELIDE_MIN_RUN - 2, None), (ELIDE_MIN_RUN - 1, ELIDE_MIN_RUN - 2 * ELIDE_KEEP)],
)
def test_shorter_runs_are_drawn_in_full(n, elided):
    # n ops plus SumBackward0: elided from ELIDE_MIN_RUN ops in a row
    out = collapse(chain(n))
    assert list(out.runs.values()) == ([elided] if elided else [])


def test_named_ops_cuts_and_side_inputs_split_the_run_and_stay_visible():
    out = collapse(chain(60, named=(30,)))
    labels = boxes(out)
    assert labels.count("h") == 0 and "h" in {n.name for n in out.graph.nodes}
    assert [lab for lab in labels if lab.endswith(" ops")] == ["27 ops", "25 ops"]
    out = collapse(chain(60, cuts=(30,)))
    assert any(e.cut == "detach" for e in out.graph.edges)
    # the cut's two ends are each in a run's kept ends, never inside a box
    cut = next(e for e in out.graph.edges if e.cut)
    assert cut.source not in out.elided and cut.target not in out.elided
    out = collapse(chain(60, side=(30,)))
    assert ("w", "n32") in {(e.source, e.target) for e in out.graph.edges}
    assert "n32" not in out.members


def test_untracked_chains_elide_too_but_never_together_with_tracked_ops():
    out = collapse(chain(50, kind="untracked"))
    assert list(out.runs.values()) == [47]
    g = chain(50)
    g.nodes[25] = Node("n25", "untracked", "sin", line=7)
    assert sorted(collapse(g).runs.values()) == [20, 22]


def test_a_box_of_one_repeated_op_is_elided_with_the_chain_around_it():
    # 40 equal ops (a ×40 box) between runs of different ops: one run of 29 + 1 + 32 boxes
    g = chain(100)
    for i in range(30, 70):
        g.nodes[i] = Node(f"n{i}", "function", "MulBackward0", line=7)
    out = collapse(g)
    assert out.runs == {"n3": 97} and out.elided == {"n3": (7, 7)}
    # a repeated block (its way back is a second arrow in) is never elided
    for i in range(30, 70):
        g.nodes[i] = Node(f"n{i}", "function", "AB"[i % 2], line=7)
    out = collapse(g)
    assert out.runs["n30"] == out.runs["n31"] == 20 and out.loops == {("n30", "n31")}
    assert sorted(out.runs[b] for b in out.elided) == [25, 28]


def test_expand_and_expand_node_draw_the_elided_ops():
    g = chain(100)
    assert len(drawn_graph(g, DrawOptions(expand=True)).graph.nodes) == 104
    by_line = drawn_graph(g, DrawOptions(expand_nodes=("7",)))
    assert len(by_line.graph.nodes) == 104 and not by_line.elided
    # any op in the box names it (AbsBackward0 is only inside: the kept ends are others)
    inside = {n.label for n in g.nodes[3:100]} - {n.label for n in g.nodes[:3] + g.nodes[100:]}
    by_op = drawn_graph(g, DrawOptions(expand_nodes=(sorted(inside)[0],)))
    assert len(by_op.graph.nodes) == 104
    with pytest.raises(ScriptFailed) as e:
        drawn_graph(g, DrawOptions(expand_nodes=("h",)))
    assert str(e.value).endswith("collapsed: … 97 ops … (line 7)")


def test_the_legend_lists_an_elided_chain():
    out = collapse(chain(100))
    assert legend_entries(out) == ["output", "function", "leaf", "elided"]
    source = to_digraph(chain(100), DrawOptions(legend=True)).source
    assert 'legend_elided [label="… N ops …' in source


def test_a_random_10000_op_script_draws_as_a_small_picture(script):
    path = script("""
        import random
        import torch

        random.seed(0)
        x = torch.ones(2, requires_grad=True)
        ops = [torch.tanh, torch.sin, torch.sigmoid, lambda t: t * 1.0001, torch.cos]
        y = x
        for _ in range(10000):
            y = random.choice(ops)(y)
        loss = y.sum()
    """)
    result = run_script(path, record=True, quiet=True)
    graph = capture(pick_roots(result), result.recorder, tensor_names(result.namespace))
    assert len(graph.nodes) == 10_003
    svg = draw(graph, "svg").decode()
    # loss, SumBackward0, `y = ...` (named), two ops, the box, two ops, x
    assert svg.count('class="node"') == 9
    assert "… 9,995 ops …" in svg and "lines 6–9" in svg


def test_the_passes_pause_the_collector_and_restore_it():
    import gc

    from detachviz.graph.model import paused_gc

    seen = []
    with paused_gc():
        seen.append(gc.isenabled())
    assert seen == [False] and gc.isenabled()
    gc.disable()
    try:
        with paused_gc():
            pass
        assert not gc.isenabled()  # left as the caller had it
    finally:
        gc.enable()
