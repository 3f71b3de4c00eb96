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
import pathlib
import sys
from collections.abc import Callable, Iterator, Mapping
from typing import TYPE_CHECKING, Any

from detachviz.render import backend
from detachviz.render.dotwriter import statements
from detachviz.render.quoting import quote

# What a drawing is made with; any other constructor argument makes a graphviz.Digraph.
_OWN_ARGS = frozenset(
    {"name", "filename", "directory", "format", "graph_attr", "node_attr", "body"}
)


class Rendering:
    """`render` and `pipe` through `backend.render_source`, for both Digraph classes."""

    program: str | None
    format: str
    directory: str
    source: str
    if TYPE_CHECKING:  # each class's own (graphviz's for the graphviz subclass)

        def save(self, filename: Any = None, directory: Any = None) -> str: ...
        def _view(self, filepath: str, *, format: str, quiet: bool) -> None: ...

    def pipe(
        self,
        format: str | None = None,
        renderer: str | None = None,
        formatter: str | None = None,
        neato_no_op: bool | int | None = None,
        quiet: bool = False,
        *,
        engine: str | None = None,
        encoding: str | None = None,
    ) -> bytes | str:
        """The drawing as bytes (or str when `encoding` is given), like graphviz's pipe.

        `renderer`/`formatter`/`engine` select Graphviz plugins in the graphviz package;
        they are accepted for compatibility and ignored (only the dot layout is used).
        """
        data = backend.render_source(self.source, format or self.format, renderer=self.program)
        return data.decode(encoding) if encoding is not None else data

    def render(
        self,
        filename: str | os.PathLike[str] | None = None,
        directory: str | os.PathLike[str] | None = None,
        view: bool = False,
        cleanup: bool = False,
        format: str | None = None,
        renderer: str | None = None,
        formatter: str | None = None,
        neato_no_op: bool | int | None = None,
        quiet: bool = False,
        quiet_view: bool = False,
        *,
        outfile: str | os.PathLike[str] | None = None,
        engine: str | None = None,
        raise_if_result_exists: bool = False,
        overwrite_source: bool = False,
    ) -> str:
        """Save the DOT source to `filename` and the drawing beside it, like graphviz.

        `make_dot(y).render("attached", format="jpg")` writes `attached` (the DOT source)
        and `attached.jpg`, and returns "attached.jpg". With `outfile`, the drawing goes
        there and its suffix gives the format.
        """
        if outfile is not None:
            given = pathlib.Path(outfile)
            if format is None:
                format = given.suffix.lstrip(".") or None
            if filename is None:  # graphviz saves the source beside the outfile
                filename = str(given.with_suffix(".gv"))
            outfile = pathlib.Path(self.directory, given) if directory is None else given
        fmt = format or self.format
        filepath = self.save(filename, directory=directory)
        target = str(outfile) if outfile is not None else f"{filepath}.{fmt}"
        if not overwrite_source and os.path.abspath(target) == os.path.abspath(filepath):
            raise ValueError(f"outfile {target!r} must be different from input file")
        if raise_if_result_exists and os.path.exists(target):
            import graphviz

            raise graphviz.FileExistsError(f"output file exists: {target!r}")
        data = backend.render_source(self.source, fmt, renderer=self.program)
        with open(target, "wb") as f:
            f.write(data)
        if cleanup:
            os.remove(filepath)
        if view or quiet_view:
            show(target, lambda: self._view(target, format=fmt, quiet=quiet_view))
        return target


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


def show(path: str, opener: Callable[[], object], env: Mapping[str, str] | None = None) -> bool:
    """Open `path` in the desktop's viewer, or say in one line on stderr why it cannot be
    (no display, no xdg-open): the file is written either way, so the script goes on."""
    environ = os.environ if env is None else env
    reason = ""
    if sys.platform.startswith("linux") and not (
        environ.get("DISPLAY") or environ.get("WAYLAND_DISPLAY")
    ):
        reason = "no display (DISPLAY is not set)"
    else:
        try:
            opener()
        except (OSError, RuntimeError) as e:  # FileNotFoundError: no xdg-open / open / start
            reason = f"no viewer ({getattr(e, 'strerror', None) or e})"
    if reason:
        sys.stderr.write(f"detachviz: wrote {path} but cannot show it: {reason}\n")
        return False
    return True
