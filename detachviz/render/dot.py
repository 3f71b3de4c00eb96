"""Building the DOT drawing (a `DotWriter`) from a graph model: labels, styles, marker, legend.

Pure: no program runs here. Node ids come from the model, statements are emitted in model
order, and every style comes from `theme`, so the same model always gives the same DOT.
"""

from __future__ import annotations

import textwrap
from typing import Any

from detachviz.errors import ScriptFailed
from detachviz.graph import vocab
from detachviz.graph.model import KINDS, Edge, Graph, Node, paused_gc
from detachviz.render import theme
from detachviz.render.collapse import Collapsed, collapse, edge_key
from detachviz.render.dotwriter import DotWriter
from detachviz.render.options import DEFAULT_DRAW, DrawOptions
from detachviz.render.quoting import label

FAILURE_ID = "failure"  # model ids are "n<number>", so this cannot collide
LEGEND_PREFIX = "legend_"


def size_to_str(shape: tuple[int, ...]) -> str:
    """torchviz's shape text: (3, 4), (20), ()."""
    return "(" + ", ".join(str(int(v)) for v in shape) + ")"


def attrs_block(name: str, attrs: dict[str, str], max_attr_chars: int = 50) -> str:
    """torchviz's get_fn_name with show_attrs: the name, a rule, then `key: value` rows."""
    if not attrs:
        return name
    max_attr_chars = max(max_attr_chars, 3)
    col1 = max(len(k) for k in attrs)
    col2 = min(max(len(str(v)) for v in attrs.values()), max_attr_chars)
    sep = "-" * max(col1 + col2 + 2, len(name))

    def truncate(s: str) -> str:
        return s[: col2 - 3] + "..." if len(s) > col2 else s

    rows = "\n".join(f"{k:<{col1}}: {truncate(str(v)):>{col2}}" for k, v in attrs.items())
    return name + "\n" + sep + "\n" + rows


def node_text(node: Node, *, run: int = 1, show_attrs: bool = False) -> str:
    """What a node's box says, as torchviz would write it (plus `×N` for a collapsed run)."""
    name = node.label
    if node.kind in (vocab.UNTRACKED, vocab.FUNCTION) and node.name and node.name != node.label:
        # `c = pow`, `h = TanhBackward0`: the script's name for the value an op produced
        name = f"{node.name} = {node.label}"
    if run > 1:
        name = f"{name} {theme.REPEAT_MARK}{run}"
    if node.shape is not None:  # a tensor: "name\n (3, 4)"
        return f"{name}\n {size_to_str(node.shape)}"
    return attrs_block(name, node.attrs) if show_attrs else name


def elided_text(count: int, lines: tuple[int, int] | None) -> str:
    """An elided chain's box: `… 99,996 ops …` over the script line(s) its ops came from."""
    text = theme.ELIDED_TEXT.format(count=count)
    if lines is None:
        return text
    first, last = lines
    return text + (f"\nline {first}" if first == last else f"\nlines {first}–{last}")


def cut_text(edge: Edge) -> str:
    """A cut edge's label: `cut: detach()` over `line 3`."""
    text = theme.CUT_PREFIX + theme.CUT_TEXT.get(edge.cut or "", str(edge.cut))
    if edge.line is not None:
        text += f"\nline {edge.line}"
    return text


def failure_text(error: dict[str, object]) -> str:
    """The failure marker's text: the message's first line, shortened, and the line."""
    lines = str(error.get("message") or "").strip().splitlines()
    message = lines[0] if lines else "error"
    if len(message) > theme.FAILURE_TEXT_LIMIT:
        message = message[: theme.FAILURE_TEXT_LIMIT - 1] + "…"
    head = "script failed here"
    if error.get("line") is not None:
        head += f" (line {error['line']})"
    body = textwrap.wrap(message, theme.FAILURE_WRAP, break_long_words=True) or [""]
    return "\n".join([head + ":", *body])


def write_text(edge: Edge) -> str:
    """A write edge's label: what the write does, over `line 5`."""
    text = theme.WRITE_TEXT.get(edge.write or "", str(edge.write))
    return text + (f"\nline {edge.line}" if edge.line is not None else "")


# A plain edge from a base (or a leaf that is the base) into an output: the root is a view of it.
VIEW_SOURCES = (vocab.BASE, vocab.LEAF)


def _edge_type(edge: Edge, kinds: dict[str, str]) -> str:
    if edge.write is not None:
        return "write"
    if edge.cut is not None:
        return "cut"
    ends = (kinds.get(edge.source), kinds.get(edge.target))
    if vocab.SAVED in ends:
        return "saved"
    if ends[1] == vocab.OUTPUT and ends[0] in VIEW_SOURCES:
        return "view"
    if vocab.UNTRACKED in ends:
        return "faded"
    return "gradient"


def _anchor(graph: Graph) -> str | None:
    """The node the failure marker hangs from: the backward node that raised, when the
    model names it; else the one made last (highest line; among equals a root, then the
    latest in model order)."""
    failed = graph.error.get("node") if graph.error else None
    if isinstance(failed, str) and any(n.id == failed for n in graph.nodes):
        return failed  # the backward node that raised (an in-place error names it)
    roots = set(graph.roots)
    best: tuple[int, bool, int] | None = None
    best_id = None
    for i, n in enumerate(graph.nodes):
        rank = (n.line if n.line is not None else -1, n.id in roots, i)
        if best is None or rank > best:
            best, best_id = rank, n.id
    return best_id


def _without_saved(graph: Graph) -> Graph:
    saved = {n.id for n in graph.nodes if n.kind == vocab.SAVED}
    if not saved:
        return graph
    nodes = [n for n in graph.nodes if n.id not in saved]
    edges = [e for e in graph.edges if e.source not in saved and e.target not in saved]
    return Graph(nodes, edges, list(graph.roots), graph.error)


# What a label node's text takes from its edge's style; the rest stays on the two halves.
_TEXT_ATTRS = ("fontcolor", "fontname", "fontsize")


def label_node_id(tail: str, head: str, k: int) -> str:
    """The id of the label node of the `k`-th labelled edge from `tail` to `head`
    ("n3~n7~0"): the html view reads the edge's ends back from it."""
    sep = theme.LABEL_ID_SEP
    return f"{tail}{sep}{head}{sep}{k}"


def labelled_edge(
    dot: DotWriter, tail: str, head: str, ident: str, text: str, style: dict[str, str]
) -> None:
    """An edge whose label is a node splitting it (`theme.LABEL_NODE_STYLE`): `tail` to the
    label without an arrowhead, the label to `head` with the edge's own, both in its style."""
    text_style = {k: v for k, v in style.items() if k in _TEXT_ATTRS}
    line_style = {k: v for k, v in style.items() if k not in _TEXT_ATTRS and k != "label"}
    dot.node(ident, label(text), **theme.LABEL_NODE_STYLE, **text_style)
    dot.edge(tail, ident, **line_style, **theme.LABEL_TAIL_STYLE)
    dot.edge(ident, head, **line_style)


def legend_entries(drawn: Collapsed) -> list[str]:
    """What the legend lists for a drawing: the entries (`theme.LEGEND_ROWS`' keys) of what
    its picture contains, in the table's order."""
    graph = drawn.graph
    present = {n.kind for n in graph.nodes}
    present |= {f"cut:{e.cut}" for e in graph.edges if e.cut is not None and e.write is None}
    present |= {f"write:{e.write}" for e in graph.edges if e.write is not None}
    if any(run > 1 for box, run in drawn.runs.items() if box not in drawn.elided):
        present.add("collapsed")
    if drawn.elided:
        present.add("elided")
    if graph.error is not None:
        present.add("failure")
    return [row.entry for row in theme.LEGEND_ROWS if row.entry in present]


def _add_legend(dot: DotWriter, entries: list[str]) -> None:
    """A small cluster that is itself a graph in the drawing's style: one sample per entry
    (a box, or a labelled arrow between two dots), kept in order by invisible edges."""
    with dot.subgraph(name="cluster_legend", graph_attr=theme.LEGEND_GRAPH_ATTR) as lg:
        previous: str | None = None
        for entry in entries:
            row = theme.LEGEND_ROW[entry]
            ident = LEGEND_PREFIX + entry.replace(":", "_")
            first = last = ident
            if row.arrow:
                first, last = ident + "_from", ident + "_to"
                lg.node(first, "", **theme.LEGEND_END_STYLE)
                lg.node(last, "", **theme.LEGEND_END_STYLE)
                labelled_edge(lg, first, last, ident + "_label", row.text, dict(row.style))
            else:
                lg.node(ident, label(row.text), **row.style)
            if previous is not None:
                lg.edge(previous, first, **theme.LEGEND_ORDER_STYLE)
            previous = last


def resize_like_torchviz(dot: Any) -> None:
    """torchviz's resize_graph: allow more inches as the drawing gets more statements (what
    `detachviz.torchviz.make_dot` returns; detachviz's own images are sized by content).
    `dot` is a `DotWriter` or a `graphviz.Digraph`: both keep `body` and `graph_attr`."""
    size = max(theme.MIN_SIZE, len(dot.body) * theme.SIZE_PER_STATEMENT)
    text = f"{round(size, 1):g}"
    rest = {k: v for k, v in dot.graph_attr.items() if k != "size"}
    dot.graph_attr = {"size": f"{text},{text}", **rest}  # first, where torchviz has it


def box_names(node: Node) -> tuple[str, ...]:
    """What `--expand-node` may call a drawn box: its op, the variable it made, its line."""
    names = [node.label]
    if node.name:
        names.append(node.name)
    if node.line is not None:
        names.append(str(node.line))
    return tuple(names)


def _expanded(graph: Graph, drawn: Collapsed, wanted: tuple[str, ...]) -> frozenset[str]:
    """The model nodes the collapsed boxes named by `wanted` stand for; ScriptFailed (exit 1,
    like a `--root` that names no tensor) for a name that names no collapsed box."""
    boxes = {n.id: n for n in drawn.graph.nodes if drawn.runs.get(n.id, 1) > 1}
    names: dict[str, set[str]] = {box: set(box_names(n)) for box, n in boxes.items()}
    for n in graph.nodes:  # an elided box is named by what any op in it is named by
        box = drawn.members.get(n.id)
        if box in drawn.elided:
            names[box].update(box_names(n))
    chosen: set[str] = set()
    for name in wanted:
        hit = {box for box in boxes if name in names[box]}
        if not hit:
            known = sorted(
                {
                    f"{elided_text(drawn.runs[box], None)} (line {n.line})"
                    if box in drawn.elided
                    else f"{n.label} (line {n.line})"
                    for box, n in boxes.items()
                }
            )
            there = ", ".join(known[:6]) + (", ..." if len(known) > 6 else "") or "none"
            raise ScriptFailed(
                f"--expand-node {name!r} names no collapsed box (an op, variable or line); "
                f"collapsed: {there}"
            )
        chosen |= hit
    return frozenset(m for m, box in drawn.members.items() if box in chosen)


def drawn_graph(graph: Graph, options: DrawOptions = DEFAULT_DRAW) -> Collapsed:
    """What the picture draws: saved tensors only with show_saved, runs collapsed unless
    expand, those named by expand_nodes drawn in full (the html view maps the drawn boxes
    back to the model through it)."""
    if not options.show_saved:
        graph = _without_saved(graph)
    if options.expand:
        return Collapsed(graph)
    drawn = collapse(graph, with_attrs=options.show_attrs)
    if not options.expand_nodes:
        return drawn
    keep = _expanded(graph, drawn, options.expand_nodes)
    return collapse(graph, with_attrs=options.show_attrs, keep=keep)


def build_dot(graph: Graph, options: DrawOptions = DEFAULT_DRAW) -> DotWriter:
    """The drawing of `graph` as DOT statements (not yet laid out); `render.to_digraph`
    makes a torchviz-compatible `graphviz.Digraph` of them."""
    with paused_gc():
        return _build_dot(graph, options)


def _build_dot(graph: Graph, options: DrawOptions) -> DotWriter:
    show_attrs = options.show_attrs
    for n in graph.nodes:
        if n.kind not in KINDS:
            raise ValueError(f"node {n.id}: unknown kind {n.kind!r}")
    drawn = drawn_graph(graph, options)
    graph = drawn.graph

    dot = DotWriter(node_attr=dict(theme.NODE_ATTR), graph_attr={"rankdir": options.rankdir})
    for n in graph.nodes:
        run = drawn.runs.get(n.id, 1)
        style = dict(theme.NODE_STYLE[n.kind])
        if run > 1:
            style.update(theme.COLLAPSED_STYLE)
        if n.id in drawn.elided:
            text = elided_text(run, drawn.elided[n.id])
        else:
            text = node_text(n, run=run, show_attrs=show_attrs)
        dot.node(n.id, label(text), **style)

    kinds = {n.id: n.kind for n in graph.nodes}
    labelled: dict[tuple[str, str], int] = {}  # how many label nodes each pair of ends has
    for e in graph.edges:
        kind = _edge_type(e, kinds)
        style = dict(theme.EDGE_STYLE[kind])
        text = cut_text(e) if kind == "cut" else write_text(e) if kind == "write" else ""
        repeat = drawn.repeats.get(edge_key(e), 1)
        # NOTE: an arrow between two boxes of the same collapsed block, repeated as often as
        # the block, goes without saying; a repeated input, or the loop's way back, does not.
        inside = drawn.runs.get(e.source) == repeat == drawn.runs.get(e.target)
        if repeat > 1 and not inside:
            if kind not in ("cut", "write"):
                style.update(theme.EDGE_STYLE["repeat"])
            text = (text + " " if text else "") + f"{theme.REPEAT_MARK}{repeat}"
        loop = (e.source, e.target) in drawn.loops
        if loop:
            style.update(theme.EDGE_STYLE["loop"])
        if text and kind in ("cut", "write") and not loop and e.source != e.target:
            # NOTE: a loop's way back (or a box's arrow to itself) takes no part in ranking,
            # nor would its label node: that one keeps an edge label.
            k = labelled.get((e.source, e.target), 0)
            labelled[(e.source, e.target)] = k + 1
            ident = label_node_id(e.source, e.target, k)
            labelled_edge(dot, e.source, e.target, ident, text, style)
            continue
        if text:
            style["label"] = label(text)
        if kind == "saved":  # torchviz's direction: the saved box hangs below its node
            dot.edge(e.target, e.source, **style)
        else:
            dot.edge(e.source, e.target, **style)

    if graph.error is not None:
        dot.node(FAILURE_ID, label(failure_text(graph.error)), **theme.FAILURE_STYLE)
        anchor = _anchor(graph)
        if anchor is not None:
            dot.edge(anchor, FAILURE_ID, **theme.EDGE_STYLE["failure"])

    if options.legend:
        _add_legend(dot, legend_entries(drawn))
    # NOTE: no `size` unless asked for: the layout's own size keeps every box's 10 pt text at
    # 10 pt (torchviz's fixed 12 inches squeezed a wide --rankdir LR drawing to 73 px high).
    if options.size is not None:
        dot.graph_attr["size"] = options.size
    return dot
