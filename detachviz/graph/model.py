"""The graph model: plain data that capture produces and renderers and `--format json` read.

It is a public interface (see docs/json-format.md): keep field names and meanings stable.
"""

from __future__ import annotations

import gc
import json
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import NamedTuple

from detachviz.graph import vocab

# The words of the model (node kinds, cut mechanisms, writes) are the vocabulary's.
KINDS = vocab.KINDS
CUTS = vocab.CUT_NAMES
WRITES = vocab.WRITE_NAMES


@dataclass(frozen=True)
class Node:
    """One box in the picture.

    id      stable id in traversal order ("n0", "n1", ...), never id()
    kind    one of KINDS
    label   function: torch's backward name (`PowBackward0`, as torchviz shows it);
            untracked: the forward op name (`pow`) for an op run without grad, or torch's
            backward name for a node of a detached history (it is a real backward node,
            just never visited from this root); leaf/output: the tensor's name, or "" when
            it has none; saved: the name the node saved it under (`self`, `result`, ...)
    name    the script variable (or `module.param`) naming the tensor; on function and
            untracked nodes, the variable holding their op's result; or None
    shape   the tensor's shape for tensor nodes and untracked ops, None for function nodes
    line    the script line that created it, when known
    attrs   extra facts shown with --show-attrs: saved non-tensor values by their torch
            name without the `_saved_` prefix (`exponent`: "6", ...)
    """

    id: str
    kind: str
    label: str
    name: str | None = None
    shape: tuple[int, ...] | None = None
    line: int | None = None
    attrs: dict[str, str] = field(default_factory=dict)


def _node_dict(n: Node) -> dict[str, object]:
    return {
        "id": n.id,
        "kind": n.kind,
        "label": n.label,
        "name": n.name,
        "shape": list(n.shape) if n.shape is not None else None,
        "line": n.line,
        "attrs": dict(n.attrs),
    }


class Edge(NamedTuple):
    """An arrow from a value's producer (source) to its consumer (target), like torchviz.

    cut   None for an edge gradients flow along; else the mechanism that cut it
    line  for a cut or write edge, the script line where it happened
    write None; or one of WRITES for an edge from an in-place op to the backward node
          whose saved tensor it changed
    """

    source: str
    target: str
    cut: str | None = None
    line: int | None = None
    write: str | None = None


def _edge_dict(e: Edge) -> dict[str, object]:
    return {"source": e.source, "target": e.target, "cut": e.cut, "line": e.line, "write": e.write}


@dataclass
class Graph:
    """Nodes and edges for one or more roots, plus the script error if it failed part way."""

    nodes: list[Node] = field(default_factory=list)
    edges: list[Edge] = field(default_factory=list)
    roots: list[str] = field(default_factory=list)
    # {"message": str, "line": int | None} and, when a backward node raised it, "node": id
    error: dict[str, object] | None = None

    def node(self, node_id: str) -> Node:
        for n in self.nodes:
            if n.id == node_id:
                return n
        raise KeyError(node_id)

    def to_dict(self) -> dict[str, object]:
        return {
            "version": 1,
            "roots": list(self.roots),
            "nodes": [_node_dict(n) for n in self.nodes],
            "edges": [_edge_dict(e) for e in self.edges],
            "error": self.error,
        }

    def to_json(self) -> str:
        """The model as JSON, one node or edge per line: readable in a diff, and fast to
        write for 100,000-node graphs (no pretty-printer over every field)."""
        d = self.to_dict()
        nodes, edges = [_node_dict(n) for n in self.nodes], [_edge_dict(e) for e in self.edges]

        def block(items: list) -> str:
            if not items:
                return "[]"
            rows = ",\n".join("    " + json.dumps(x, ensure_ascii=False) for x in items)
            return "[\n" + rows + "\n  ]"

        head = ", ".join(f"{json.dumps(k)}: {json.dumps(d[k])}" for k in ("version", "roots"))
        return (
            "{\n  "
            + head.replace(", ", ",\n  ", 1)
            + f',\n  "nodes": {block(nodes)},\n  "edges": {block(edges)}'
            + f',\n  "error": {json.dumps(d["error"], ensure_ascii=False)}\n}}\n'
        )

    @classmethod
    def from_dict(cls, data: dict) -> Graph:
        nodes = [
            Node(
                id=n["id"],
                kind=n["kind"],
                label=n["label"],
                name=n.get("name"),
                shape=tuple(n["shape"]) if n.get("shape") is not None else None,
                line=n.get("line"),
                attrs=dict(n.get("attrs") or {}),
            )
            for n in data["nodes"]
        ]
        edges = [
            Edge(e["source"], e["target"], e.get("cut"), e.get("line"), e.get("write"))
            for e in data["edges"]
        ]
        return cls(nodes, edges, list(data.get("roots", [])), data.get("error"))


@contextmanager
def paused_gc() -> Iterator[None]:
    """The cyclic garbage collector off while a pass over a graph builds its objects.

    Capture, collapse and DOT building each make a few objects per node (at 100,000 nodes
    about a million) and keep most of them, which is what triggers collections; each one
    rescans everything alive, the script's tensors included. Nothing these passes make is
    cyclic garbage (reference counting frees it), so pausing loses nothing."""
    was_on = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was_on:
            gc.enable()
