"""Label quoting: nasty names reach the DOT source escaped and come out of the renderer intact."""

from __future__ import annotations

import html
import re

import graphviz
import pytest

from detachviz.graph.model import Graph, Node
from detachviz.render import draw
from detachviz.render.dotwriter import DotWriter
from detachviz.render.quoting import Label, label

# (text as the user wrote it, how it must appear inside the DOT statement)
NASTY = [
    ("plain", "label=plain"),
    ('say "hi"', 'label="say \\"hi\\""'),
    ("back\\slash", 'label="back\\\\slash"'),
    ("ends\\", 'label="ends\\\\"'),
    ("two\nlines", 'label="two\\nlines"'),
    ("crlf\r\nline", 'label="crlf\\nline"'),
    ("<html>", 'label="<html>"'),
    ("<<b>bold</b>>", 'label="<<b>bold</b>>"'),
    ("a\\nb", 'label="a\\\\nb"'),  # a literal backslash-n, not a line break
    ("\\N \\G \\l", 'label="\\\\N \\\\G \\\\l"'),  # Graphviz escapes stay literal
    ("ünïcödé λ×", 'label="ünïcödé λ×"'),
    ("", 'label=""'),
    ("graph", 'label="graph"'),  # a DOT keyword
    ("semi;colon {x}", 'label="semi;colon {x}"'),
]


@pytest.mark.parametrize(("text", "dot"), NASTY)
def test_label_is_quoted_once(text, dot):
    g = DotWriter()
    g.node("n0", label(text))
    assert g.body == [f"\tn0 [{dot}]\n"]


# Ids, attribute names and values the DOT rules treat differently: bare names and numbers,
# keywords, HTML-like strings, quotes escaped or not, ports.
IDS = ["n0", "_a1", "1", "-2.5", ".5", "1.", "n3~n7~0", "graph", "Node", "<b>", "a b", 'q"', "e\\"]


@pytest.mark.parametrize("ident", IDS)
def test_writer_writes_what_graphviz_writes(ident):
    """DotWriter's statements are graphviz.Digraph's for the same calls, byte for byte (the
    drawing no longer imports graphviz, `to_digraph` hands the body to a real Digraph)."""
    ours, theirs = DotWriter(graph_attr={"rankdir": ident}), graphviz.Digraph()
    theirs.graph_attr = {"rankdir": ident}
    for g, wrap in ((ours, Label), (theirs, graphviz.nohtml)):
        g.node(ident, wrap(label(ident)), **{ident: ident, "color": "red"})
        g.node(ident + ":p", label=None, shape=ident)
        g.edge(ident, f"{ident}:port:ne", label=wrap(label(ident)), style=ident)
        g.edge("x", ident)
        with g.subgraph(name="cluster_" + ident, graph_attr={"label": ident}) as sub:
            sub.node(ident, "")
            sub.edge(ident, "b", penwidth="2")
    assert ours.source == theirs.source


@pytest.mark.parametrize(("text", "dot"), NASTY)
def test_label_survives_the_renderer(text, dot):
    """The svg shows exactly the user's text (line by line, xml-escaped)."""
    svg = draw(Graph([Node("n0", "untracked", text)]), fmt="svg").decode()
    shown = [html.unescape(t) for t in re.findall(r"<text[^>]*>(.*?)</text>", svg)]
    expected = [ln for ln in text.replace("\r\n", "\n").split("\n") if ln.strip()]
    assert [t.replace("\xa0", " ") for t in shown] == expected
