"""Label quoting: nasty names reach the DOT source escaped and come out of the renderer intact."""

from __future__ import annotations

import html
import re

import graphviz
import pytest

from detachviz.graph.model import Graph, Node
from detachviz.render import draw
from detachviz.render.quoting import label

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
    g = graphviz.Digraph()
    g.node("n0", label(text))
    assert g.body == [f"\tn0 [{dot}]\n"]


@pytest.mark.parametrize(("text", "dot"), NASTY)
def test_label_survives_the_renderer(text, dot):
    """The svg shows exactly the user's text (line by line, xml-escaped)."""
    svg = draw(Graph([Node("n0", "untracked", text)]), fmt="svg").decode()
    shown = [html.unescape(t) for t in re.findall(r"<text[^>]*>(.*?)</text>", svg)]
    expected = [ln for ln in text.replace("\r\n", "\n").split("\n") if ln.strip()]
    assert [t.replace("\xa0", " ") for t in shown] == expected
