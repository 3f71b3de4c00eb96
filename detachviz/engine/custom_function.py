"""torch.autograd.Function: user-defined forward/backward pairs as one graph node.

A subclass gets (once, by its metaclass) a backward node class named `<ClassName>Backward`,
as torch names it. `apply` makes that node first and passes it to `forward` as `ctx` (in
torch the ctx *is* the grad_fn), runs `forward` under no_grad with the trace paused (the ops
inside are the function's business, not cuts), then wraps the outputs as the node's results.
Forward AD needs a user `jvp`, which detachviz does not run yet (torch's error when absent).
The node's backward calls the user's `backward(ctx, *grads)` with grad mode on only when a
graph is being built (create_graph=True), so a backward written with tensor ops is itself
differentiable.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from detachviz.engine import errors, grad_mode, state, trace
from detachviz.engine.graph_hooks import pack_node
from detachviz.engine.node import MULTI, Node, new_node
from detachviz.engine.tensor import NO_EDGE, Tensor, edge, wrap


class BackwardCFunction(Node):
    """The grad_fn (and ctx) of a custom Function call. Not slotted: ctx takes attributes."""

    _name = "BackwardCFunction"
    _forward_cls: Any = None

    # -- the ctx API ------------------------------------------------------------------------
    def save_for_backward(self, *tensors: Any) -> None:
        for t in tensors:
            if t is not None and not isinstance(t, Tensor):
                raise TypeError(
                    "save_for_backward can only save variables, but argument "
                    f"{tensors.index(t)} is of type {type(t).__name__}"
                )
        self._to_save = tensors

    @property
    def saved_tensors(self) -> tuple[Any, ...]:
        # NOTE: _unpack raises torch's errors (freed after backward, modified in place)
        return tuple(self._unpack(True))

    def mark_dirty(self, *tensors: Tensor) -> None:
        self._dirty = tensors

    def mark_non_differentiable(self, *tensors: Tensor) -> None:
        self._non_diff = tensors

    def set_materialize_grads(self, value: bool) -> None:
        self._materialize = value

    def _value_of_saved(self, k: int) -> Any:
        # NOTE: a saved output already has this node as grad_fn; anything else is as saved
        return self._saved[k]


def _custom_backward(node: Any, g: Any, tensor_mode: bool) -> list[Any]:
    """Run the user's backward; one gradient per edge (numpy arrays unless tensor_mode)."""
    metas = node._out_meta
    grads_in = g.grads if len(metas) > 1 else [g]
    args = []
    for gi, (shape, npd, dt) in zip(grads_in, metas):
        if gi is None:
            args.append(wrap(np.zeros(shape, npd), dt) if node._materialize else None)
        else:
            args.append(gi if tensor_mode else wrap(np.asarray(gi), dt))
    res = node._forward_cls.backward(node, *args)
    if not isinstance(res, tuple):
        res = (res,)
    n_args = len(node._arg_edge)
    if len(res) != n_args:
        # NOTE: torch accepts extra trailing Nones
        if len(res) < n_args or any(r is not None for r in res[n_args:]):
            raise RuntimeError(
                f"function {type(node).__name__} returned an incorrect number of gradients "
                f"(expected {n_args}, got {len(res)})"
            )
    out: list[Any] = [None] * len(node.next_functions)
    for i, k in enumerate(node._arg_edge):
        r = res[i]
        if k < 0 or r is None:
            continue
        if not isinstance(r, Tensor):
            raise TypeError(
                f"function {type(node).__name__} returned a gradient different than None at "
                f"position {i + 1}, but the corresponding forward input was not a Variable"
            )
        out[k] = r if tensor_mode else r._data
    return out


BackwardCFunction._custom = staticmethod(_custom_backward)


class FunctionMeta(type):
    """Gives every Function subclass its `<Name>Backward` node class."""

    def __init__(cls, name: str, bases: tuple[type, ...], ns: dict[str, Any]) -> None:
        backward_cls: Any = type(name + "Backward", (BackwardCFunction,), {"_forward_cls": cls})
        backward_cls._name = name + "Backward"
        backward_cls.__module__ = "torch.autograd.function"
        cls._backward_cls = backward_cls
        super().__init__(name, bases, ns)


class Function(metaclass=FunctionMeta):
    """torch.autograd.Function: subclass with static `forward(ctx, ...)` and
    `backward(ctx, *grad_outputs)`, call with `.apply(...)`."""

    _backward_cls: Any

    @staticmethod
    def forward(ctx: Any, *args: Any, **kwargs: Any) -> Any:
        raise NotImplementedError(
            "You must implement the forward function for custom autograd.Function."
        )

    @staticmethod
    def backward(ctx: Any, *grad_outputs: Any) -> Any:
        raise NotImplementedError(
            "You must implement either the backward or vjp method for your custom "
            "autograd.Function to use it with backward mode AD."
        )

    vjp = backward

    @staticmethod
    def jvp(ctx: Any, *grad_inputs: Any) -> Any:
        raise NotImplementedError(
            "You must implement the jvp function for custom autograd.Function to use it with "
            "forward mode AD."
        )

    @classmethod
    def apply(cls, *args: Any, **kwargs: Any) -> Any:
        tensors = [a for a in args if isinstance(a, Tensor)]
        if any(t._fw_tangent is not None for t in tensors) and cls.jvp is Function.jvp:
            Function.jvp(None)
        grad_on = state.grad_enabled and any(t._requires_grad for t in tensors)
        ctx: Any = new_node(cls._backward_cls, ())
        ctx._to_save = ()
        ctx._dirty = ()
        ctx._non_diff = ()
        ctx._materialize = True
        ctx.needs_input_grad = tuple(
            isinstance(a, Tensor) and a._requires_grad and grad_on for a in args
        )
        recorder = trace.RECORDER
        trace.RECORDER = None
        prev = state.grad_enabled
        grad_mode.set_mode(False)
        try:
            result = cls.forward(ctx, *args, **kwargs)
        finally:
            grad_mode.set_mode(prev)
            trace.RECORDER = recorder
        single = not isinstance(result, tuple)
        outs = (result,) if single else result
        wrapped = tuple(_output(o, args, ctx) for o in outs)
        out_tensors = tuple(o for o in wrapped if isinstance(o, Tensor))
        if grad_on:
            _connect(ctx, args, wrapped)
        if recorder is not None:
            recorder.record(cls.__name__, tuple(tensors), out_tensors)
        return wrapped[0] if single else wrapped


def _output(o: Any, args: tuple[Any, ...], ctx: Any) -> Any:
    """A forward output as the call's result: an input returned as is (and not marked dirty)
    becomes a new tensor sharing its data, as torch returns a view of it."""
    if not isinstance(o, Tensor):
        return o
    if any(o is a for a in args) and not any(o is d for d in ctx._dirty):
        return wrap(o._data, o._dtype)
    return o


def _connect(ctx: Any, args: tuple[Any, ...], outs: tuple[Any, ...]) -> None:
    """Give the node its edges (one per tensor argument), saved tensors and outputs."""
    edges: list[Any] = []
    arg_edge = []
    for a in args:
        if isinstance(a, Tensor):
            arg_edge.append(len(edges))
            edges.append(edge(a) if a._requires_grad else NO_EDGE)
        else:
            arg_edge.append(-1)
    ctx.next_functions = tuple(edges)
    ctx._arg_edge = tuple(arg_edge)
    saved = tuple(ctx._to_save)
    ctx._saved = saved
    ctx._versions = tuple(0 if t is None or t._vc is None else t._vc.v for t in saved)
    # instance-level: every saved tensor counts as an input of this node for _unpack's checks
    ctx._save_src = tuple(_src(t, args, edges) for t in saved)
    ctx._save_names = tuple(f"saved_{k}" for k in range(len(saved)))
    ctx._save_need = tuple(-1 for _ in saved)
    if state.saved_hooks:
        pack_node(ctx)
    metas = []
    nr = 0
    tensor_outs = [o for o in outs if isinstance(o, Tensor)]
    for o in tensor_outs:
        metas.append((o._data.shape, o._data.dtype, o._dtype))
        if not o._dtype.is_floating_point or any(o is d for d in ctx._non_diff):
            nr += 1
            continue
        if o._grad_fn is not None and not any(o is d for d in ctx._dirty):
            raise RuntimeError(errors.BACKWARD_TWICE)  # pragma: no cover - forward ran no_grad
        o._grad_fn = ctx
        o._output_nr = nr
        o._requires_grad = True
        nr += 1
    ctx._out_meta = tuple(metas)
    if len(metas) == 1:
        ctx._shape, ctx._npd = metas[0][0], metas[0][1]
    else:
        ctx._shape = MULTI
        ctx._npd = tuple((m[0], m[1]) for m in metas)


def _src(t: Any, args: tuple[Any, ...], edges: list[Any]) -> int:
    """The edge index of a saved input (for _unpack's checks), -1 for anything else."""
    if t is None:
        return -1
    k = 0
    for a in args:
        if isinstance(a, Tensor):
            if a is t:
                return k
            k += 1
    return -1


class FunctionCtx:
    """torch.autograd.function.FunctionCtx, for isinstance checks and annotations."""


class _FunctionModule:
    """torch.autograd.function, as far as scripts reach into it."""

    Function = Function
    FunctionCtx = FunctionCtx
    BackwardCFunction = BackwardCFunction
    FunctionMeta = FunctionMeta
    once_differentiable = staticmethod(lambda fn: fn)


function = _FunctionModule()
