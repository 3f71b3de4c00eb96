"""Writing DOT statements: the few parts of `graphviz.Digraph` a drawing is built with.

The drawing is DOT text handed to the layout program, so building it needs no `graphviz`
package (30-odd modules at start-up). The statements are the ones a `graphviz.Digraph`
writes for the same calls, byte for byte (`quoting` holds the rules), so `render.to_digraph`
can hand the same body to a real `Digraph` where the torchviz API must return one.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

from detachviz.render.quoting import attr_list, quote, quote_endpoint


class DotWriter:
    """A digraph (or, from `subgraph`, a subgraph) as DOT lines: `graph_attr` and
    `node_attr` defaults, then `body`, one statement per line as `graphviz.Digraph` keeps it.
    A `label` (given as an argument or among the attributes) is written first, the other
    attributes sorted by name, as `graphviz.Digraph.node`/`edge` write them."""

    def __init__(
        self,
        *,
        name: str | None = None,
        graph_attr: dict[str, str] | None = None,
        node_attr: dict[str, str] | None = None,
    ) -> None:
        self.name = name
        self.graph_attr = dict(graph_attr or {})
        self.node_attr = dict(node_attr or {})
        self.body: list[str] = []

    def node(self, name: str, label: str | None = None, **attrs: str) -> None:
        self.body.append(f"\t{quote(name)}{attr_list(label, attrs)}\n")

    def edge(self, tail: str, head: str, label: str | None = None, **attrs: str) -> None:
        ends = f"{quote_endpoint(tail)} -> {quote_endpoint(head)}"
        self.body.append(f"\t{ends}{attr_list(label, attrs)}\n")

    @contextmanager
    def subgraph(self, *, name: str, graph_attr: dict[str, str]) -> Iterator[DotWriter]:
        """A subgraph to fill in the `with` block; its lines join the body, indented, when
        the block ends."""
        sub = DotWriter(name=name, graph_attr=graph_attr)
        yield sub
        self.body += [f"\t{line}" for line in sub.lines(head=f"subgraph {quote(name)} ")]

    def lines(self, head: str = "digraph ") -> Iterator[str]:
        return statements(head, self.graph_attr, self.node_attr, self.body)

    @property
    def source(self) -> str:
        return "".join(self.lines())


def statements(
    head: str, graph_attr: dict[str, str], node_attr: dict[str, str], body: list[str]
) -> Iterator[str]:
    """A (sub)graph's lines, as `graphviz.Digraph` iterates them: the head, the graph and
    node defaults, the body, the closing brace."""
    yield head + "{\n"
    for kind, attrs in (("graph", graph_attr), ("node", node_attr)):
        if attrs:
            yield f"\t{kind}{attr_list(None, attrs)}\n"
    yield from body
    yield "}\n"
