"""Attaching a node whose edges and saved values are not one per input: pools save their
indices, batch/group norm their batch statistics, embedding its indices, beside edges to the
differentiable inputs only (torch's nodes have no edge for an index tensor). The op then calls
`finish(..., attached=True)` for the forward-AD hook and the trace."""

from __future__ import annotations

from typing import Any

from detachviz.engine import state
from detachviz.engine.node import Node, new_node
from detachviz.engine.tensor import NO_EDGE, Tensor, edge


def _version(t: Any) -> int:
    if not isinstance(t, Tensor):
        return 0
    vc = t._vc
    return 0 if vc is None else vc.v


def attach_saved(
    cls: type[Node],
    out: Tensor,
    edge_ins: tuple[Any, ...],
    saved: tuple[Any, ...],
    attrs: tuple[Any, ...],
) -> Node | None:
    """Give `out` a `cls` node over `edge_ins` (an edge each, None for a missing input) saving
    `saved` in the row's order, when grad is on and an edge input requires grad."""
    if not state.grad_enabled:
        return None
    if not any(isinstance(t, Tensor) and t._requires_grad for t in edge_ins):
        return None
    edges = tuple(
        edge(t) if isinstance(t, Tensor) and t._requires_grad else NO_EDGE for t in edge_ins
    )
    node = new_node(cls, edges, attrs)
    node._saved = tuple(saved)
    node._versions = tuple(_version(t) for t in saved)
    node._shape = out._data.shape
    node._npd = out._data.dtype
    out._grad_fn = node
    out._requires_grad = True
    return node
