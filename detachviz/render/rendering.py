"""Rendering a torchviz-compatible `Digraph` through our backend, for both its classes
(`digraph.Digraph` and the `graphviz.Digraph` it becomes, `graphviz_digraph.Digraph`), and
showing the written file in the desktop's viewer.
"""

from __future__ import annotations

import os
import pathlib
import sys
from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING, Any

from detachviz.render import backend


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
