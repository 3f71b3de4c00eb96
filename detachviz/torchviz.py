"""torchviz's API on detachviz: `make_dot` returns a renderable `Digraph`.

A script's `from torchviz import make_dot` resolves here. The drawing is detachviz's (cuts
included, when the run is recorded), the object has `graphviz.Digraph`'s API (it becomes one
when a script restyles it: `render/digraph.py`), and `.render("attached", format="jpg")`
needs neither system Graphviz nor, unless restyled, the `graphviz` package.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from detachviz import runner
from detachviz.engine import trace
from detachviz.graph.capture import Options, capture
from detachviz.render import DrawOptions, to_digraph
from detachviz.render.dot import resize_like_torchviz

if TYPE_CHECKING:
    from detachviz.render.digraph import Digraph


def _as_roots(var: Any) -> list[tuple[str | None, Any]]:
    if isinstance(var, (tuple, list)):
        return [(None, v) for v in var]
    return [(None, var)]


def make_dot(
    var: Any,
    params: dict[str, Any] | None = None,
    show_attrs: bool = False,
    show_saved: bool = False,
    max_attr_chars: int = 50,
) -> Digraph:
    """Draw the graph behind `var` (a tensor or a tuple of them), like torchviz.

    `params` names tensors as torchviz does (`dict(model.named_parameters())`); without it,
    tensors inside a `detachviz run`/`render` script get the script's own variable names.
    """
    names: dict[int, str] = {}
    if runner.CURRENT is not None:
        names.update(runner.tensor_names(runner.CURRENT.namespace))
    if params is not None:
        names.update({id(t): name for name, t in params.items()})
    graph = capture(
        _as_roots(var),
        trace.RECORDER,
        names,
        Options(show_saved=show_saved, show_attrs=show_attrs, max_attr_chars=max_attr_chars),
    )
    dot = to_digraph(graph, DrawOptions(show_attrs=show_attrs, show_saved=show_saved))
    resize_like_torchviz(dot)
    return dot


def make_dot_from_trace(trace_: Any) -> Digraph:
    raise NotImplementedError(
        "torchviz.make_dot_from_trace is not supported by detachviz (it needs torch.jit)"
    )
