"""The interactive HTML view: one self-contained file holding the svg drawing, with pan and
zoom, hover details, path highlighting, a name search and `×N` groups that expand in place.

`to_html` is a pure function of data (model, svg text, script lines, per-node details);
`render_html` lays the graph out (collapsed and, when small enough, expanded) and calls it.
Script and style are inlined from `html_assets/`: the file needs no network.
"""

from __future__ import annotations

import html
import json
import re
from collections.abc import Mapping, Sequence
from dataclasses import replace
from importlib import resources

from detachviz.graph.model import Edge, Graph, Node
from detachviz.graph.vocab import CUT_BY_NAME, WRITE_BY_NAME
from detachviz.render import backend
from detachviz.render.dot import (
    FAILURE_ID,
    build_dot,
    drawn_graph,
    failure_text,
    size_to_str,
)
from detachviz.render.options import DEFAULT_DRAW, DrawOptions
from detachviz.render.theme import ELIDED_TEXT, REPEAT_MARK

# An expanded drawing is laid out only for graphs up to this many nodes plus edges: collapsing
# exists because a loop's layout grows much faster than its size (graphviz-pure, measured:
# `x = x * w` 75 times, 229 nodes+edges: 2 s; 100 times, 304: 6 s; 200 times, 604: 67 s).
# Larger groups say how to draw them in full.
EXPAND_LIMIT = 300

# What each node kind is, in a tooltip's first row.
KIND_TEXT = {
    "output": "output (a root tensor)",
    "function": "backward function",
    "leaf": "leaf tensor (requires grad)",
    "saved": "tensor saved for backward",
    "base": "the tensor a view output looks into (its _base)",
    "untracked": "untracked: no gradient reaches it from the root",
}
ELIDED_KIND = "elided chain: ops in a row, drawn as one box"
# An elided box's tooltip names at most this many op kinds (the most frequent first).
ELIDED_KINDS_SHOWN = 8

Rows = list[list[str]]

_PROLOG = re.compile(r"\A.*?(?=<svg\b)", re.S)


def svg_element(svg: str) -> str:
    """The `<svg>` element alone: no XML declaration, DOCTYPE or comments before it."""
    return _PROLOG.sub("", svg, count=1).strip()


def _asset(name: str) -> str:
    return resources.files("detachviz.render").joinpath("html_assets", name).read_text("utf-8")


def elided_rows(
    members: Sequence[Node], lines: tuple[int, int] | None, note: str, source: Sequence[str] | None
) -> Rows:
    """The tooltip of an elided chain's box (`… N ops …`): how many ops it stands for, which
    kinds (`op ×count`, most frequent first, ties by name) and the script lines."""
    counts: dict[str, int] = {}
    for n in members:
        counts[n.label] = counts.get(n.label, 0) + 1
    kinds = sorted(counts, key=lambda label: (-counts[label], label))
    shown = [f"{k} {REPEAT_MARK}{counts[k]}" if counts[k] > 1 else k for k in kinds]
    if len(shown) > ELIDED_KINDS_SHOWN:
        rest = len(shown) - ELIDED_KINDS_SHOWN
        shown = [*shown[:ELIDED_KINDS_SHOWN], f"and {rest} more kind{'s' if rest > 1 else ''}"]
    rows: Rows = [
        ["kind", ELIDED_KIND],
        ["ops", f"{len(members):,} ops: " + ", ".join(shown)],
    ]
    if lines is not None:
        first, last = lines
        where = _line_row(first, source) if first == last else None
        rows.append(where or ["lines", f"{first}–{last}"])
    rows.append(["group", note])
    return rows


def _line_row(line: int | None, source: Sequence[str] | None) -> list[str] | None:
    if line is None:
        return None
    code = ""
    if source is not None and 0 < line <= len(source):
        code = source[line - 1].strip()
    return ["line", f"{line}: {code}" if code else str(line)]


def node_rows(
    node: Node, *, source: Sequence[str] | None, details: Mapping[str, str] | None
) -> Rows:
    """The tooltip of one node: what it is, its name and shape, details, and its line."""
    rows: Rows = [["kind", KIND_TEXT.get(node.kind, node.kind)]]
    if node.name:
        rows.append(["name", node.name])
    if node.label and node.label != node.name:
        rows.append(["op" if node.shape is None else "label", node.label])
    if node.shape is not None:
        rows.append(["shape", size_to_str(node.shape)])
    rows.extend([k, v] for k, v in node.attrs.items())
    rows.extend([k, v] for k, v in (details or {}).items())
    where = _line_row(node.line, source)
    if where:
        rows.append(where)
    return rows


# What an arrow that is neither a cut nor a write means, by the kinds at its ends.
EDGE_TEXT = {
    "gradient": "gradient flows back along it",
    "saved": "saved for backward",
    "untracked": "forward only: no gradient flows back along it",
}


def edge_rows(edge: Edge, *, kinds: Mapping[str, str], source: Sequence[str] | None) -> Rows:
    """The tooltip of one model edge: the cut mechanism or write, and where it happened."""
    rows: Rows
    if edge.write is not None:
        write = WRITE_BY_NAME.get(edge.write)
        rows = [["write", write.label.replace("\n", " ") if write else edge.write]]
    elif edge.cut is not None:
        cut = CUT_BY_NAME.get(edge.cut)
        rows = [["cut", cut.spelling if cut else edge.cut], ["edge", "no gradient flows back"]]
    else:
        ends = {kinds.get(edge.source), kinds.get(edge.target)}
        kind = "saved" if "saved" in ends else "untracked" if "untracked" in ends else "gradient"
        rows = [["edge", EDGE_TEXT[kind]]]
    where = _line_row(edge.line, source)
    if where:
        rows.append(where)
    return rows


def _edges_by_ends(
    graph: Graph, moved: Mapping[str, str], source: Sequence[str] | None
) -> dict[str, list[Rows]]:
    """svg edge title ("a->b", through the collapse mapping `moved`) -> each distinct
    model edge's rows drawn there, with `×N` when N model edges share them."""
    out: dict[str, list[Rows]] = {}
    counts: dict[tuple[str, str], int] = {}
    kinds = {n.id: n.kind for n in graph.nodes}
    for e in graph.edges:
        tail, head = moved.get(e.source, e.source), moved.get(e.target, e.target)
        if tail == head and e.source != e.target and e.cut is None:
            continue  # inside one group's box: not drawn (collapse keeps only a cut, as a loop)
        if kinds.get(e.source) == "saved":
            tail, head = head, tail  # drawn from the node to its saved tensor (render/dot.py)
        key = f"{tail}->{head}"
        rows = edge_rows(e, kinds=kinds, source=source)
        sig = (key, json.dumps(rows))
        if sig not in counts:
            out.setdefault(key, []).append(rows)
            counts[sig] = 0
        counts[sig] += 1
    for (key, text), n in counts.items():
        if n > 1:
            for rows in out[key]:
                if json.dumps(rows) == text:
                    rows.append(["repeated", f"{REPEAT_MARK}{n}"])
    return out


def view_data(
    graph: Graph,
    *,
    title: str,
    members: Mapping[str, str] | None = None,
    elided: Mapping[str, tuple[int, int] | None] | None = None,
    expandable: bool = False,
    source: Sequence[str] | None = None,
    details: Mapping[str, Mapping[str, str]] | None = None,
) -> dict[str, object]:
    """Everything the page's script reads, keyed by the ids the svg's `<title>`s carry.

    `edges` is keyed by the expanded drawing's arrows, `collapsedEdges` by the collapsed
    one's (None when nothing collapsed). A page that cannot expand carries only what its one
    drawing shows: the boxes merged into a group, and their arrows, are left out. `elided`
    (drawn box id -> its script lines) marks the groups that are chains of different ops.
    """
    moved = dict(members or {})
    groups: dict[str, list[str]] = {}
    for model_id, drawn_id in moved.items():
        groups.setdefault(drawn_id, []).append(model_id)
    note = "click to expand" if expandable else "too large to expand here: render with --expand"
    elided = elided or {}
    by_id = {n.id: n for n in graph.nodes}
    nodes: dict[str, dict[str, object]] = {}
    for n in graph.nodes:
        if not expandable and moved.get(n.id, n.id) != n.id:
            continue  # merged into a group's box, never drawn on this page
        if n.id in elided:
            chain = [by_id[m] for m in groups[n.id]]
            rows = elided_rows(chain, elided[n.id], note, source)
            label = ELIDED_TEXT.format(count=len(chain))
            nodes[n.id] = {"kind": n.kind, "label": label, "name": "", "rows": rows}
            continue
        rows = node_rows(n, source=source, details=(details or {}).get(n.id))
        if n.id in groups:
            count = len(groups[n.id])
            rows.append(["group", f"{REPEAT_MARK}{count}: stands for {count} nodes, {note}"])
        nodes[n.id] = {"kind": n.kind, "label": n.label, "name": n.name or "", "rows": rows}
    if graph.error is not None:
        rows = [["failure", failure_text(graph.error).replace("\n", " ")]]
        line = graph.error.get("line")
        where = _line_row(line if isinstance(line, int) else None, source)
        rows.extend([where] if where else [])
        nodes[FAILURE_ID] = {"kind": "failure", "label": "", "name": "", "rows": rows}
    return {
        "title": title,
        "roots": list(graph.roots),
        "nodes": nodes,
        "groups": groups,
        "expandable": expandable,
        "edges": _edges_by_ends(graph, {} if expandable else moved, source),
        "collapsedEdges": _edges_by_ends(graph, moved, source) if moved and expandable else None,
    }


def _json_for_script(data: object) -> str:
    # NOTE: inside <script>, "</script>" or "<!--" in a name would end or confuse the
    # element; \u003c keeps the JSON equal and the HTML parser blind to it.
    return json.dumps(data, ensure_ascii=False, separators=(",", ":")).replace("<", "\\u003c")


def to_html(
    graph: Graph,
    svg: str,
    *,
    title: str,
    members: Mapping[str, str] | None = None,
    elided: Mapping[str, tuple[int, int] | None] | None = None,
    expanded_svg: str | None = None,
    source: Sequence[str] | None = None,
    details: Mapping[str, Mapping[str, str]] | None = None,
    page: bool = True,
) -> str:
    """One self-contained HTML page showing `svg`, the drawing of `graph`; with
    page=False, the same view as one `<div>` (style and script inside it) to embed in
    another page, e.g. a notebook's text/html output.

    members       collapsed model node id -> id of the `×N` box standing for it
    elided        the boxes among those that stand for a chain of different ops (`… N ops …`)
                  -> the script lines of its ops
    expanded_svg  the same graph drawn with every group expanded: clicking a group swaps
                  it in, centred on that group (None: groups cannot expand here)
    source        the script's lines, for the code of each node's and cut's line
    details       per model node id, extra rows for its tooltip (dtype, grad, ...)
    page          a whole document (True) or the embeddable `<div>` (False)
    """
    data = view_data(
        graph,
        title=title,
        members=members,
        elided=elided,
        expandable=expanded_svg is not None,
        source=source,
        details=details,
    )
    expanded = (
        f'<template class="dv-expanded">{svg_element(expanded_svg)}</template>\n'
        if expanded_svg is not None
        else ""
    )
    parts = {
        "title": html.escape(title),
        "page": " dv-page" if page else "",
        "style": _asset("view.css"),
        "svg": svg_element(svg),
        "expanded": expanded,
        "data": _json_for_script(data),
        "script": _asset("view.js"),
    }
    view = _fill(_asset("view_fragment.html"), parts)
    return _fill(_asset("view.html"), {"title": parts["title"], "view": view}) if page else view


def _fill(template: str, parts: Mapping[str, str]) -> str:
    # One pass over the template, so text inside a part is never taken for a placeholder.
    return re.sub(r"\{\{(\w+)\}\}", lambda m: parts[m.group(1)], template)


def _svg(graph: Graph, options: DrawOptions) -> str:
    """The svg drawing, made as `render.draw(graph, "svg", options)` makes it."""
    source = build_dot(graph, options).source
    return backend.render_source(source, "svg", renderer=options.renderer).decode("utf-8")


def render_html(
    graph: Graph,
    options: DrawOptions = DEFAULT_DRAW,
    *,
    title: str,
    source: Sequence[str] | None = None,
    details: Mapping[str, Mapping[str, str]] | None = None,
    page: bool = True,
) -> str:
    """Lay `graph` out (collapsed, and expanded when it has groups and is small enough) and
    build the page. Raises what `draw` raises."""
    drawn = drawn_graph(graph, options)
    svg = _svg(graph, options)
    expanded = None
    if drawn.members and len(graph.nodes) + len(graph.edges) <= EXPAND_LIMIT:
        expanded = _svg(graph, replace(options, expand=True))
    return to_html(
        graph,
        svg,
        title=title,
        members=drawn.members,
        elided=drawn.elided,
        expanded_svg=expanded,
        source=source,
        details=details,
        page=page,
    )
