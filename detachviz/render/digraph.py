"""The torchviz-compatible `Digraph`: a finished drawing that renders through our backend.

torchviz's `make_dot` returns a `graphviz.Digraph`; scripts then call `.render(...)`,
`.pipe(...)` or `.save(...)`, read `.source`, set `.format`, or display it in a notebook.
This `Digraph` does those itself from the DOT statements it holds, so a script that only
draws never imports the `graphviz` package (30-odd modules). Anything else of
`graphviz.Digraph` — `attr()`, `node()`, `edge()`, `subgraph()`, `edge_attr`, `copy()`,
`view()`, the notebook's `_repr_mimebundle_` — turns the object into a real
`graphviz.Digraph` subclass (`graphviz_digraph.Digraph`, same statements, same renderer)
on first use, and goes on there. Rendering runs through `backend.render_source` either way,
so graphviz-pure is enough.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from typing import Any

from detachviz.render.dotwriter import statements
from detachviz.render.quoting import quote
from detachviz.render.rendering import Rendering

# What a drawing is made with; any other constructor argument makes a graphviz.Digraph.
_OWN_ARGS = frozenset(
    {"name", "filename", "directory", "format", "graph_attr", "node_attr", "body"}
)


class Digraph(Rendering):
    """A drawing's DOT statements, rendered by graphviz-pure (or `program="dot"`, or
    $DETACHVIZ_RENDERER) instead of the system Graphviz; a `graphviz.Digraph` from the
    first use of anything else it has (see the module's docstring)."""

    def __init__(self, *args: Any, program: str | None = None, **kwargs: Any) -> None:
        self.program = program
        if args[1:] or not _OWN_ARGS.issuperset(kwargs):
            from detachviz.render import graphviz_digraph

            self._become(graphviz_digraph.Digraph(*args, program=program, **kwargs))
            return
        name = args[0] if args else kwargs.get("name")
        filename, directory = kwargs.get("filename"), kwargs.get("directory")
        self.name: str | None = name
        self.filename = os.fspath(filename) if filename else f"{name or 'Digraph'}.gv"
        self.directory = os.fspath(directory) if directory is not None else ""
        self.format = kwargs.get("format") or "pdf"
        self.graph_attr: dict[str, str] = dict(kwargs.get("graph_attr") or {})
        self.node_attr: dict[str, str] = dict(kwargs.get("node_attr") or {})
        self.body: list[str] = list(kwargs.get("body") or [])

    def __iter__(self) -> Iterator[str]:
        head = f"digraph {quote(self.name)} " if self.name else "digraph "
        return statements(head, self.graph_attr, self.node_attr, self.body)

    @property
    def source(self) -> str:  # type: ignore[override]
        return "".join(self)

    def __str__(self) -> str:
        return self.source

    @property
    def filepath(self) -> str:
        return os.path.join(self.directory, self.filename)

    def save(
        self, filename: Any = None, directory: Any = None, *, skip_existing: bool = False
    ) -> str:
        """Write the DOT source to `directory`/`filename` (remembered for next time)."""
        if filename is not None:
            self.filename = os.fspath(filename)
        if directory is not None:
            self.directory = os.fspath(directory)
        filepath = self.filepath
        if skip_existing and os.path.exists(filepath):
            return filepath
        if os.path.dirname(filepath):
            os.makedirs(os.path.dirname(filepath), exist_ok=True)
        with open(filepath, "w", encoding="utf-8") as f:
            f.writelines(self)
        return filepath

    def __getattr__(self, name: str) -> Any:
        """The rest of `graphviz.Digraph`'s API: become one (importing graphviz), then look
        `name` up there."""
        if name.startswith("__") or "body" not in self.__dict__:
            raise AttributeError(name)
        self._upgrade()
        return getattr(self, name)

    def _upgrade(self) -> None:
        from detachviz.render import graphviz_digraph

        kept = self.graph_attr, self.node_attr, self.body  # the objects a caller may hold
        self._become(
            graphviz_digraph.Digraph(
                name=self.name,
                filename=self.filename,
                directory=self.directory or None,
                format=self.format,
                program=self.program,
            )
        )
        self.graph_attr, self.node_attr, self.body = kept

    def _become(self, other: object) -> None:
        self.__dict__.clear()
        self.__dict__.update(vars(other))
        self.__class__ = type(other)  # type: ignore[assignment]
