"""The look of a drawing: every colour, shape and line style, in tables keyed by kind.

Follows torchviz's `make_dot` conventions (grey backward nodes, light-blue leaves, orange
saved tensors, green outputs, 10pt boxes) and adds the cut edge, faded untracked nodes and
the failure marker. Nothing outside this module names a colour; docs/legend.md documents it.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import NamedTuple

from detachviz.graph import vocab

# NOTE: torchviz uses fontname="monospace". graphviz-pure has no metrics for that generic
# name (it falls back to Times and draws boxes ~16% too narrow); Courier has metrics in
# both graphviz-pure (drawn with its bundled Cousine) and system Graphviz.
FONT = "Courier"

# torchviz's node_attr, font aside. `align` and `ranksep` are not node attributes in
# Graphviz (they are ignored), but torchviz sets them and users diff against its DOT.
NODE_ATTR: dict[str, str] = {
    "style": "filled",
    "shape": "box",
    "align": "left",
    "fontsize": "10",
    "ranksep": "0.1",
    "height": "0.2",
    "fontname": FONT,
}

# The smallest text a drawing has (cut, write and repeat labels): a png/jpg where it would be
# under `backend.MIN_TEXT_PX` pixels tall is refused as unreadable.
SMALLEST_FONT_PT = 9.0

# torchviz's resize_graph: the drawing may grow by this many inches per DOT statement,
# never below the 12-inch default, so big graphs are not squeezed into 12 inches.
SIZE_PER_STATEMENT = 0.15
MIN_SIZE = 12.0

# Per node kind: attributes added to NODE_ATTR's defaults.
NODE_STYLE: dict[str, dict[str, str]] = {
    vocab.OUTPUT: {"fillcolor": "darkolivegreen1"},
    vocab.FUNCTION: {"fillcolor": "lightgrey"},
    vocab.LEAF: {"fillcolor": "lightblue"},
    vocab.SAVED: {"fillcolor": "orange"},
    vocab.BASE: {"fillcolor": "darkolivegreen3"},  # torchviz's colour for a view's base
    # Faded: exists in the forward computation, but no gradient reaches it from the root.
    vocab.UNTRACKED: {
        "style": "filled,dashed",
        "fillcolor": "gray97",
        "color": "gray60",
        "fontcolor": "gray45",
    },
}

# Per edge type. "gradient" is torchviz's plain arrow; "saved" links a saved tensor to its
# backward node without an arrowhead (torchviz: dir=none); "faded" joins untracked nodes.
EDGE_STYLE: dict[str, dict[str, str]] = {
    "gradient": {},
    "saved": {"dir": "none"},
    "view": {"style": "dotted"},  # from a view root's base to the root, as torchviz
    "faded": {"color": "gray60"},
    "cut": {
        "color": "red",
        "fontcolor": "red",
        "style": "dashed",
        "penwidth": "1.5",
        "fontname": FONT,
        "fontsize": "9",
    },
    # An in-place write into a tensor a backward node saved (torch raises at backward, or
    # for a write through .data silently uses the new values): the cause, drawn as an arrow.
    "write": {
        "color": "red3",
        "fontcolor": "red3",
        "style": "bold",
        "penwidth": "2",
        "fontname": FONT,
        "fontsize": "9",
    },
    # A collapsed chain's repeated side input: one arrow standing for N.
    "repeat": {"fontcolor": "gray40", "fontname": FONT, "fontsize": "9"},
    "failure": {"color": "red", "style": "dashed", "arrowhead": "none"},
    # A collapsed loop's way back (end of the repeated block to its start).
    "loop": {"constraint": "false"},
}

# How each cut mechanism and each kind of write is spelled on its edge: the vocabulary's.
CUT_TEXT: dict[str, str] = {c.name: c.label for c in vocab.CUTS}
WRITE_TEXT: dict[str, str] = {w.name: w.label for w in vocab.WRITES}

# A cut's or a write's label is a small node of its own that splits the edge in two (tail to
# label without an arrowhead, label to head with it): Graphviz routes every other edge around
# a node, never through it, so no edge crosses the label and no box covers it (an edge label
# is placed after routing and was crossed, e.g. in a GAN step). The text takes its edge's
# colour and font (`EDGE_STYLE`).
LABEL_NODE_STYLE: dict[str, str] = {
    "shape": "plain",
    "style": "solid",
    "margin": "0",
}
# The edge's first half, into its label: no arrowhead (the second half has the edge's own).
LABEL_TAIL_STYLE: dict[str, str] = {"arrowhead": "none"}
# Separates the ends in a label node's id ("n3~n7~0"): not in any model id, nor a DOT port.
LABEL_ID_SEP = "~"

# NOTE: a scissors glyph (U+2702) would be nicer, but the fonts bundled with graphviz-pure
# have no glyph for it and png output shows a box; plain words render everywhere.
CUT_PREFIX = "cut: "

# The script's failure point: a red octagon hung below the last node drawn.
FAILURE_STYLE: dict[str, str] = {
    "shape": "octagon",
    "fillcolor": "mistyrose",
    "color": "red",
    "fontcolor": "red3",
}
FAILURE_TEXT_LIMIT = 160  # characters of the error message shown in the picture
FAILURE_WRAP = 44  # ... wrapped into lines this wide

# Collapsed runs ("MulBackward0 ×2998") get a double border: a stack of boxes.
COLLAPSED_STYLE: dict[str, str] = {"peripheries": "2"}
REPEAT_MARK = "×"
# An elided chain of different ops: "… 99,996 ops …" over "line 12" (or "lines 9–12").
ELIDED_TEXT = "… {count:,} ops …"

LEGEND_GRAPH_ATTR: dict[str, str] = {
    "label": "legend",
    "fontname": FONT,
    "fontsize": "10",
    "style": "dashed",
    "color": "gray60",
}

# The legend lists what the drawing contains, one sample per entry, in the order of
# `LEGEND_ROWS`: node kinds, cuts, writes, then a collapsed run, an elided chain and the
# failure marker.
LEGEND_KIND_TEXT: dict[str, str] = {
    vocab.OUTPUT: "output",
    vocab.FUNCTION: "backward function",
    vocab.LEAF: "leaf tensor\n(requires grad)",
    vocab.SAVED: "saved tensor",
    vocab.BASE: "base of a\nview output",
    vocab.UNTRACKED: "untracked\n(no gradient)",
}
LEGEND_COLLAPSED_TEXT = f"repeated op {REPEAT_MARK}N\n(drawn once)"
LEGEND_ELIDED_TEXT = "… N ops …\n(a chain of N ops,\ndrawn as one box)"
LEGEND_FAILURE_TEXT = "script failed here"
LEGEND_LINE_TEXT = "line N"  # stands for the script line on a sample cut or write edge


class LegendRow(NamedTuple):
    """One legend entry: the key `dot.legend_entries` gives when the drawing has it (a node
    kind, `cut:<name>`, `write:<name>`, `collapsed`, `elided`, `failure`), its text, and its
    sample's style: a box, or with `arrow` a labelled arrow between two dots (`EDGE_STYLE`'s)."""

    entry: str
    text: str
    style: Mapping[str, str]
    arrow: bool = False


# The one table of legend entries: adding a kind of drawn element is one row here (and, in
# `dot.legend_entries`, when a drawing has it).
LEGEND_ROWS: tuple[LegendRow, ...] = (
    *(LegendRow(k, LEGEND_KIND_TEXT[k], NODE_STYLE[k]) for k in vocab.KINDS),
    *(
        LegendRow(
            f"cut:{c.name}", f"{CUT_PREFIX}{c.label}\n{LEGEND_LINE_TEXT}", EDGE_STYLE["cut"], True
        )
        for c in vocab.CUTS
    ),
    *(
        LegendRow(f"write:{w.name}", f"{w.label}\n{LEGEND_LINE_TEXT}", EDGE_STYLE["write"], True)
        for w in vocab.WRITES
    ),
    LegendRow(
        "collapsed", LEGEND_COLLAPSED_TEXT, {**NODE_STYLE[vocab.FUNCTION], **COLLAPSED_STYLE}
    ),
    LegendRow("elided", LEGEND_ELIDED_TEXT, {**NODE_STYLE[vocab.FUNCTION], **COLLAPSED_STYLE}),
    LegendRow("failure", LEGEND_FAILURE_TEXT, FAILURE_STYLE),
)
LEGEND_ROW: dict[str, LegendRow] = {row.entry: row for row in LEGEND_ROWS}
# The two ends of a sample edge: small dots, so the entry is the arrow and its label.
LEGEND_END_STYLE: dict[str, str] = {
    "shape": "point",
    "width": "0.06",
    "height": "0.06",
    "color": "gray60",
    "fillcolor": "gray60",
}
# Keeps the entries in one column (one row with rankdir LR), in order.
LEGEND_ORDER_STYLE: dict[str, str] = {"style": "invis"}
