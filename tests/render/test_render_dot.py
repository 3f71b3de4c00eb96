"""DOT building: golden files for hand-built models, labels, edge styles, marker, legend."""

from __future__ import annotations

import pytest
import render_samples as samples

from detachviz.errors import UserError
from detachviz.graph.model import Edge, Graph, Node
from detachviz.render import draw, theme, to_digraph
from detachviz.render.dot import (
    attrs_block,
    cut_text,
    failure_text,
    node_text,
    resize_like_torchviz,
    size_to_str,
)
from detachviz.render.options import DrawOptions


@pytest.mark.parametrize(
    ("name", "make", "options"),
    [
        ("simple.dot", samples.simple, {}),
        ("detach.dot", samples.detach, {}),
        ("all_cuts.dot", samples.all_cuts, {}),
        ("failure.dot", samples.failure, {}),
        ("saved_attrs.dot", samples.saved, {"show_saved": True, "show_attrs": True}),
        ("legend_lr.dot", samples.detach, {"legend": True, "rankdir": "LR"}),
        ("collapsed.dot", lambda: samples.mul_chain(10), {}),
        ("collapsed_rnn.dot", lambda: samples.rnn(6), {}),
    ],
)
def test_golden_dot(golden, name, make, options):
    golden(name, to_digraph(make(), DrawOptions(**options)).source)


def test_draw_dot_format_is_the_source():
    g = samples.detach()
    assert draw(g, fmt="dot") == to_digraph(g).source.encode()


@pytest.mark.parametrize(
    ("shape", "text"), [((), "()"), ((20,), "(20)"), ((3, 4), "(3, 4)"), ((1, 2, 3), "(1, 2, 3)")]
)
def test_size_to_str_is_torchvizs(shape, text):
    assert size_to_str(shape) == text


@pytest.mark.parametrize(
    ("node", "run", "text"),
    [
        (Node("n0", "leaf", "w", shape=(20,)), 1, "w\n (20)"),
        (Node("n0", "output", "", shape=(3, 4)), 1, "\n (3, 4)"),
        (Node("n0", "saved", "self", shape=()), 1, "self\n ()"),
        (Node("n0", "untracked", "a", shape=(2,)), 1, "a\n (2)"),
        (Node("n0", "untracked", "pow"), 1, "pow"),
        (Node("n0", "function", "MulBackward0"), 1, "MulBackward0"),
        (Node("n0", "function", "MulBackward0"), 2998, "MulBackward0 ×2998"),
    ],
)
def test_node_text(node, run, text):
    assert node_text(node, run=run) == text


def test_attrs_block_matches_torchviz_layout():
    text = attrs_block("PowBackward0", {"exponent": "2", "self_sym_sizes": "(3,)"})
    assert text == (
        "PowBackward0\n--------------------\nexponent      :    2\nself_sym_sizes: (3,)"
    )


def test_attrs_shown_only_with_show_attrs():
    n = Node("n1", "function", "PowBackward0", attrs={"exponent": "2"})
    assert node_text(n) == "PowBackward0"
    assert node_text(n, show_attrs=True).endswith("exponent: 2")


@pytest.mark.parametrize(
    ("cut", "text"),
    [
        ("detach", "cut: detach()\nline 3"),
        ("detach_", "cut: detach_()\nline 3"),
        ("data", "cut: .data\nline 3"),
        ("no_grad", "cut: no_grad\nline 3"),
        ("copy", "cut: torch.tensor() copy\nline 3"),
    ],
)
def test_cut_text_spells_the_mechanism_as_code(cut, text):
    assert cut_text(Edge("a", "b", cut, 3)) == text


def test_cut_text_without_line():
    assert cut_text(Edge("a", "b", "detach")) == "cut: detach()"


def test_every_cut_kind_is_drawn_red_dashed():
    source = to_digraph(samples.all_cuts()).source
    lines = [ln.strip() for ln in source.splitlines()]
    cut_labels = [ln for ln in lines if "cut: " in ln]
    assert len(cut_labels) == len(samples.CUT_OPS)
    for ln in cut_labels:
        # the label is a node of the edge's colour splitting the edge: tail to the label
        # without an arrowhead, the label to head with it, both halves red and dashed
        assert "shape=plain" in ln and "fontcolor=red" in ln
        ident = ln.split()[0]
        tail, head, _ = ident.strip('"').split("~")
        into = next(ln for ln in lines if ln.startswith(f"{tail} -> {ident} "))
        out = next(ln for ln in lines if ln.startswith(f"{ident} -> {head} "))
        assert "arrowhead=none" in into and "arrowhead" not in out
        for half in (into, out):
            assert "color=red" in half and "style=dashed" in half


def test_untracked_nodes_and_edges_are_faded():
    source = to_digraph(samples.detach()).source
    pow_line = next(ln for ln in source.splitlines() if ln.strip().startswith("n4 ["))
    assert 'style="filled,dashed"' in pow_line
    assert f"fontcolor={theme.NODE_STYLE['untracked']['fontcolor']}" in pow_line
    assert "n5 -> n4 [color=gray60]" in source


def test_saved_nodes_hidden_unless_asked():
    hidden = to_digraph(samples.saved()).source
    shown = to_digraph(samples.saved(), DrawOptions(show_saved=True)).source
    assert "self" not in hidden and "n2 ->" not in hidden
    assert 'label="self\\n (3)" fillcolor=orange' in shown
    assert "n1 -> n2 [dir=none]" in shown  # torchviz: from the node to what it saved


def test_failure_marker_hangs_from_the_last_node():
    source = to_digraph(samples.failure()).source
    assert "failure [label=" in source and "shape=octagon" in source
    assert "n0 -> failure" in source  # the root made on the highest line


def test_failure_text_wraps_and_shortens():
    text = failure_text({"message": "ValueError: " + "x" * 500 + "\nTraceback...", "line": 7})
    lines = text.split("\n")
    assert lines[0] == "script failed here (line 7):"
    assert all(len(ln) <= theme.FAILURE_WRAP for ln in lines[1:])
    assert "Traceback" not in text and text.endswith("…")


def test_failure_on_an_empty_graph_is_just_the_marker():
    g = Graph(error={"message": "NameError: name 'x' is not defined", "line": 1})
    source = to_digraph(g).source
    assert "NameError" in source and "->" not in source


def test_legend_is_a_cluster_of_the_kinds_drawn():
    source = to_digraph(samples.detach(), DrawOptions(legend=True)).source
    assert "subgraph cluster_legend {" in source
    for kind in ("output", "function", "leaf", "untracked"):
        assert f"legend_{kind} [" in source
    assert "legend_saved" not in source  # samples.detach saves nothing drawn


def test_ids_are_the_models():
    source = to_digraph(samples.simple()).source
    assert [ln.split()[0] for ln in source.splitlines() if "[label=" in ln] == [
        "n0",
        "n1",
        "n2",
        "n3",
    ]


def test_bad_rankdir_is_a_usage_error():
    with pytest.raises(UserError, match="unknown rankdir 'XX': use one of TB, LR, BT, RL"):
        DrawOptions(rankdir="XX")


def test_bad_kind_is_a_value_error():
    with pytest.raises(ValueError, match="unknown kind 'tensor'"):
        to_digraph(Graph([Node("n0", "tensor", "x")]))


def test_drawing_is_sized_by_its_content():
    # No `size`: the layout's own size keeps the 10 pt text at 10 pt, whatever the rankdir.
    assert "size" not in to_digraph(samples.detach()).graph_attr
    assert "size" not in to_digraph(samples.detach(), DrawOptions(rankdir="LR")).graph_attr
    assert to_digraph(samples.detach(), DrawOptions(size="8,10!")).graph_attr["size"] == "8,10!"


def test_make_dot_keeps_torchviz_resize_graph():
    small, big = to_digraph(samples.simple()), to_digraph(samples.add_tree(200))
    resize_like_torchviz(small)
    resize_like_torchviz(big)
    assert small.graph_attr["size"] == "12,12"
    assert next(iter(small.graph_attr)) == "size"  # first, where torchviz writes it
    statements = len(big.body)
    expected = f"{round(statements * theme.SIZE_PER_STATEMENT, 1):g}"
    assert big.graph_attr["size"] == f"{expected},{expected}"


@pytest.mark.parametrize("size", ["3x4", "", "0,5", "-1", "a,b", "1,2,3", "inf"])
def test_bad_size_is_a_user_error(size):
    with pytest.raises(UserError, match="bad size"):
        DrawOptions(size=size)


@pytest.mark.parametrize("dpi", [0.0, -5.0, 1e6])
def test_bad_dpi_is_a_user_error(dpi):
    with pytest.raises(UserError, match="bad dpi"):
        DrawOptions(dpi=dpi)
