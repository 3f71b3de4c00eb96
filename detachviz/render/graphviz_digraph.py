"""The `graphviz.Digraph` a drawing becomes when a script uses more of graphviz's API than
`render.digraph.Digraph` has itself (restyling, subgraphs, copies, viewing, the notebook).

The only module of ours that imports `graphviz` (`render/chart.py` aside). It keeps the
whole `graphviz.Digraph` API but sends rendering through `backend.render_source` (the
`Rendering` mixin), so graphviz-pure is enough.
"""

from __future__ import annotations

from typing import Any

import graphviz

from detachviz.render.rendering import Rendering


class Digraph(Rendering, graphviz.Digraph):  # type: ignore[misc]
    """A `graphviz.Digraph` rendered by graphviz-pure (or `program="dot"`, or
    $DETACHVIZ_RENDERER) instead of the system Graphviz it would need otherwise."""

    def __init__(self, *args: Any, program: str | None = None, **kwargs: Any) -> None:
        graphviz.Digraph.__init__(self, *args, **kwargs)
        self.program = program

    def _copy_kwargs(self, **kwargs: Any) -> dict[str, Any]:
        # NOTE: graphviz.Dot._copy_kwargs drops the kwargs it is given, so add ours after.
        copied = super()._copy_kwargs(**kwargs)
        copied["program"] = self.program
        return copied
