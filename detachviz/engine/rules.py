"""The kernels a backward rule is written with, in two flavours that share every rule:
`NP` on numpy arrays (the fast path: plain backward) and `TT` on Tensors (create_graph: the
rule's own ops build a differentiable graph). A rule receives one of them as its first
argument `k` and writes `k.expand(g, shape)`, `k.mm(a, b)`, ... beside Python operators.

Also here: `call_rule` (one node's gradients), the nodes of the backward-of-backward ops
the `TT` kernels create (select/slice backward and its backward, as_strided backward), and
`backward_op`: torch's named backward functions (`tanh_backward`, `threshold_backward`, ...),
one op each, so a create_graph backward draws torch's `TanhBackwardBackward0` node where a
formula written out in ops would draw `MulBackward0 -> RsubBackward1 -> MulBackward0`;
`multi_backward_op` the same for one with several results (`convolution_backward`:
`ConvolutionBackwardBackward0`), which a node uses under create_graph via `graph_backward`.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from detachviz.engine import blas, kernels, state, transcendental
from detachviz.engine.arrays import ONE_OF, ZERO_OF, broadcast, region, sum_to
from detachviz.engine.fma import fma64, one_minus_square32
from detachviz.engine.function import apply
from detachviz.engine.node import MULTI, Node, Saved, named_attrs, new_node, node_class
from detachviz.engine.tensor import AS_STRIDED, NO_EDGE, Tensor, edge, wrap

_F32, _F64 = np.dtype(np.float32), np.dtype(np.float64)
# NOTE: np.where is an __array_function__ dispatcher; on 20-element arrays the dispatch costs
# more than the work. The rules pass only ndarrays, so they call the implementation behind
# the dispatcher (the same function without the override lookup); a numpy without the
# attribute keeps the public function. (engine/blas.py does the same for np.dot.)
_where = getattr(np.where, "_implementation", np.where)


def call_rule(node: Node, g: Any, tensor_mode: bool) -> list[Any]:
    """The gradients a node sends along each of its next_functions (None where no grad)."""
    custom = node._custom
    if custom is not None:
        return custom(node, g, tensor_mode)
    k = TT if tensor_mode else NP
    s = node._unpack(tensor_mode)
    a = named_attrs(node)
    vjps = node._vjps
    out: list[Any] = []
    for i, e in enumerate(node.next_functions):
        if e[0] is None:
            out.append(None)
        else:
            vjp = vjps[i]
            out.append(None if vjp is None else vjp(k, g, s, a))
    return out


def _index_put_np(g: Any, shape: Any, idx: Any) -> Any:
    out = np.zeros(shape, dtype=g.dtype)
    np.add.at(out, idx, g)
    return out


class NP:
    """Rule helpers on numpy arrays (no graph): the fast backward path."""

    @staticmethod
    def mul_scalar(g: Any, c: Any) -> Any:
        return g * c

    @staticmethod
    def div_scalar(g: Any, c: Any) -> Any:
        return g / c

    @staticmethod
    def add_scalar(x: Any, c: Any) -> Any:
        return x + c

    @staticmethod
    def rsub_scalar(c: Any, x: Any) -> Any:
        return c - x

    @staticmethod
    def square(x: Any) -> Any:
        return x * x

    @staticmethod
    def cube(x: Any) -> Any:
        return x * x * x

    @staticmethod
    def unsqueeze_multiple(g: Any, axes: tuple[int, ...], keep: tuple[int, ...]) -> Any:
        return g.reshape(keep)

    @staticmethod
    def data(x: Any) -> Any:
        return x

    @staticmethod
    def const(a: Any) -> Any:
        return a

    @staticmethod
    def where0(mask: Any, g: Any) -> Any:
        return _where(mask, g, ZERO_OF.get(g.dtype, 0))

    @staticmethod
    def zero_where(mask: Any, g: Any) -> Any:
        return _where(mask, ZERO_OF.get(g.dtype, 0), g)

    @staticmethod
    def relu_back(g: Any, y: Any) -> Any:
        if kernels.dense_f32(g, y):
            return kernels.relu_back(g, y)  # the same values, one call
        z = ZERO_OF.get(y.dtype, 0)
        return _where(y <= z, z, g)  # threshold_backward: `y <= 0 ? 0 : g` (a nan y passes g)

    @staticmethod
    def tanh_back(g: Any, y: Any) -> Any:
        """torch's tanh_backward: `g * (1 - y * y)` with `1 - y * y` one fused multiply-add
        (GCC contracts it in the AVX2 kernel; rounding twice differs in ~70% of elements)."""
        if kernels.dense_f32(g, y):
            return kernels.tanh_back(g, y)  # the same bits, one call
        if y.dtype == _F32:
            return g * one_minus_square32(y)  # = fma32(-y, y, 1), in three numpy calls
        if y.dtype == _F64:
            return g * fma64(-y, y, 1.0)
        return g * (ONE_OF.get(y.dtype, 1) - y * y)

    @staticmethod
    def sigmoid_back(g: Any, y: Any) -> Any:
        if kernels.dense_f32(g, y):
            return kernels.sigmoid_back(g, y)  # the same bits, one call
        return g * (ONE_OF.get(y.dtype, 1) - y) * y

    expand = staticmethod(broadcast)

    @staticmethod
    def reshape(g: Any, shape: tuple[int, ...]) -> Any:
        return g.reshape(shape)

    sum_to = staticmethod(sum_to)

    @staticmethod
    def transpose(g: Any, d0: int, d1: int) -> Any:
        return g.swapaxes(d0, d1)

    @staticmethod
    def permute(g: Any, dims: tuple[int, ...]) -> Any:
        return np.transpose(g, dims)

    @staticmethod
    def t(g: Any) -> Any:
        return g.T

    @staticmethod
    def squeeze(g: Any, dim: int) -> Any:
        return g.squeeze(dim % g.ndim)

    @staticmethod
    def mm(a: Any, b: Any) -> Any:
        return blas.matmul(a, b)

    @staticmethod
    def outer(a: Any, b: Any) -> Any:
        return np.outer(a, b)

    # the forward ops' own kernels, so a backward's cos(x) is the bits torch's cos(x) has
    exp = staticmethod(transcendental.exp)
    log = staticmethod(transcendental.log)
    sin = staticmethod(transcendental.sin)
    cos = staticmethod(transcendental.cos)
    sign = staticmethod(np.sign)

    @staticmethod
    def zeros_like(x: Any) -> Any:
        return np.zeros_like(x)

    @staticmethod
    def embed(g: Any, shape: tuple[int, ...], index: Any) -> Any:
        """Zeros of `shape` with `g` written at `index` (select/slice backward)."""
        out = np.zeros(shape, dtype=g.dtype)
        out[index] = g
        return out

    @staticmethod
    def as_strided_backward(g: Any, base_shape: Any, size: Any, stride: Any, offset: int) -> Any:
        out = np.zeros(base_shape, dtype=g.dtype)
        # NOTE: the window may cover a memory location several times (a stride-0 expand):
        # each covering element adds its gradient there, so scatter-add by flat index
        # (np.add on an overlapping view would keep only one of them)
        flat = np.arange(out.size, dtype=np.intp)
        where = np.lib.stride_tricks.as_strided(
            flat[offset:], size, tuple(s * flat.itemsize for s in stride)
        )
        np.add.at(out.reshape(-1), where, np.broadcast_to(g, size))
        return out

    @staticmethod
    def index(g: Any, idx: Any) -> Any:
        return g[idx]

    index_put_zeros = staticmethod(_index_put_np)

    @staticmethod
    def as_strided(g: Any, size: Any, stride: Any, offset: int) -> Any:
        return np.array(region(np.ascontiguousarray(g), size, stride, offset))


class TT:
    """Rule helpers on tensors: the same rules build a differentiable graph."""

    # a formula's product with a number is torch's mul.Scalar (MulBackward1), its quotient
    # div.Scalar (DivBackward1), `x + 1` add.Scalar (AddBackward1) (a Python `g * 2` would be
    # mul.Tensor, MulBackward0); masks are at::where (WhereBackward0). Those ops live in their
    # families (ops/arith.py, ops/join.py), which install them here (install_kernels).
    mul_scalar: Callable[[Tensor, Any], Tensor]
    div_scalar: Callable[[Tensor, Any], Tensor]
    add_scalar: Callable[[Tensor, Any], Tensor]
    where: Callable[[Tensor, Any, Any], Tensor]

    @staticmethod
    def rsub_scalar(c: Any, x: Tensor) -> Tensor:
        return wrap(np.array(c)) - x

    @staticmethod
    def square(x: Tensor) -> Tensor:
        return x.pow(2)

    @staticmethod
    def cube(x: Tensor) -> Tensor:
        return x.pow(3)

    @staticmethod
    def unsqueeze_multiple(g: Tensor, axes: tuple[int, ...], keep: tuple[int, ...]) -> Tensor:
        """A reduction's gradient with its reduced dims (`axes`, sorted) back, as torch's
        formulas restore them: one UnsqueezeBackward0 per dim."""
        for d in axes:
            g = g.unsqueeze(d)
        return g

    @staticmethod
    def data(x: Tensor) -> Any:
        return x._data

    @staticmethod
    def const(a: Any) -> Tensor:
        return wrap(np.array(a))

    @staticmethod
    def where0(mask: Any, g: Tensor) -> Tensor:
        # torch's formulas mask a gradient as at::where(mask, grad, 0): WhereBackward0
        return TT.where(wrap(np.asarray(mask, dtype=bool)), g, 0)

    @staticmethod
    def zero_where(mask: Any, g: Tensor) -> Tensor:
        return TT.where(wrap(np.asarray(mask, dtype=bool)), 0, g)

    @staticmethod
    def expand(g: Tensor, shape: tuple[int, ...]) -> Tensor:
        return g.expand(*shape)

    @staticmethod
    def reshape(g: Tensor, shape: tuple[int, ...]) -> Tensor:
        return g.reshape(shape)

    @staticmethod
    def sum_to(g: Tensor, shape: tuple[int, ...]) -> Tensor:
        gs = g._data.shape
        if gs == tuple(shape):
            return g
        if not shape:
            return g.sum()  # as at::sum_to to a 0-dim shape: SumBackward0
        lead = len(gs) - len(shape)
        axes = tuple(range(lead)) + tuple(
            i + lead for i, d in enumerate(shape) if d == 1 and gs[i + lead] != 1
        )
        if axes:
            g = g.sum(axes, keepdim=True)
        # as at::sum_to: a view only to drop leading dims (else the keepdim sum is the shape)
        return g.view(shape) if lead else g

    @staticmethod
    def transpose(g: Tensor, d0: int, d1: int) -> Tensor:
        return g.transpose(d0, d1)

    @staticmethod
    def permute(g: Tensor, dims: tuple[int, ...]) -> Tensor:
        return g.permute(*dims)

    @staticmethod
    def t(g: Tensor) -> Tensor:
        return g.t()

    @staticmethod
    def squeeze(g: Tensor, dim: int) -> Tensor:
        return g.squeeze(dim)

    @staticmethod
    def mm(a: Tensor, b: Tensor) -> Tensor:
        return a @ b

    @staticmethod
    def outer(a: Tensor, b: Tensor) -> Tensor:
        return a.unsqueeze(1) * b.unsqueeze(0)

    @staticmethod
    def exp(x: Tensor) -> Tensor:
        return x.exp()

    @staticmethod
    def log(x: Tensor) -> Tensor:
        return x.log()

    @staticmethod
    def sin(x: Tensor) -> Tensor:
        return x.sin()

    @staticmethod
    def cos(x: Tensor) -> Tensor:
        return x.cos()

    @staticmethod
    def sign(x: Tensor) -> Tensor:
        return apply(SGN, "sgn", (x,), np.sign(x._data), x._dtype)

    @staticmethod
    def zeros_like(x: Tensor) -> Tensor:
        return wrap(np.zeros_like(x._data))

    @staticmethod
    def embed(g: Tensor, shape: tuple[int, ...], index: Any) -> Tensor:
        """select_backward (an integer last in `index`) or slice_backward, as torch's op."""
        data = NP.embed(g._data, shape, index)
        dim, last = len(index) - 1, index[-1]
        if isinstance(last, slice):
            attrs = (dim, last.start, last.stop, last.step)
            return apply(SLICE_BACK, "slice_backward", (g,), data, g._dtype, attrs)
        return apply(SELECT_BACK, "select_backward", (g,), data, g._dtype, (dim, last))

    @staticmethod
    def as_strided_backward(g: Tensor, base_shape: Any, size: Any, stride: Any, offset: int) -> Any:
        data = NP.as_strided_backward(g._data, base_shape, size, stride, offset)
        return apply(
            AS_STRIDED_BACK,
            "as_strided_backward",
            (g,),
            data,
            g._dtype,
            (tuple(size), tuple(stride), offset),
        )

    @staticmethod
    def as_strided(g: Tensor, size: Any, stride: Any, offset: int) -> Tensor:
        return as_strided(g.contiguous(), size, stride, offset)


def install_kernels(**ops: Callable[..., Tensor]) -> None:
    """An op family gives the create_graph kernels their ops (TT.mul_scalar, TT.where, ...)."""
    for name, op in ops.items():
        setattr(TT, name, staticmethod(op))


def as_strided(t: Tensor, size: Any, stride: Any, offset: int) -> Tensor:
    """A strided window of a contiguous tensor as a differentiable op (AsStridedBackward0)."""
    data = np.array(region(t._data, size, stride, offset))
    return apply(
        AS_STRIDED,
        "as_strided",
        (t,),
        data,
        t._dtype,
        (tuple(size), tuple(stride), offset, t._data.shape),
    )


def _embed(t: Any, out: Any, index: Any) -> Any:
    r = np.zeros(out.shape, dtype=out.dtype)
    r[index] = t
    return r


def _select_at(a: Any) -> tuple[Any, ...]:
    return (slice(None),) * a.dim + (a.index,)


def _slice_at(a: Any) -> tuple[Any, ...]:
    return (slice(None),) * a.dim + (slice(a.start, a.end, a.step),)


# select/slice backward (`TT.embed`); their own backward is the select/slice view again
SELECT_BACK = node_class(
    "SelectBackwardBackward0",
    (lambda k, g, s, a: g[_select_at(a)],),
    attrs=("dim", "index"),
    jvp=(lambda t, p, o, a: _embed(t, o, _select_at(a)),),
)
SLICE_BACK = node_class(
    "SliceBackwardBackward0",
    (lambda k, g, s, a: g[_slice_at(a)],),
    attrs=("dim", "start", "end", "step"),
    jvp=(lambda t, p, o, a: _embed(t, o, _slice_at(a)),),
)
AS_STRIDED_BACK = node_class(
    "AsStridedBackwardBackward0",
    (lambda k, g, s, a: k.as_strided(g, a.size, a.stride, a.storage_offset),),
    attrs=("size", "stride", "storage_offset"),
    jvp=(
        lambda t, p, o, a: NP.as_strided_backward(t, o.shape, a.size, a.stride, a.storage_offset),
    ),
)


def zero_vjp(k: Any, g: Any, s: Any, a: Any) -> Any:
    """A zero gradient (torch's `zeros_like(grad)`), for ops that are flat almost everywhere."""
    return k.zeros_like(g)


def zero_jvp(t: Any, p: Any, o: Any, a: Any) -> Any:
    return np.zeros_like(o)


# torch's `sgn`, as the formulas use it (abs: `grad * self.sgn()`): in the graph, zero gradient
SGN = node_class(
    "SgnBackward0",
    (zero_vjp,),
    jvp=(lambda t, p, o, a: np.zeros_like(t),),
)

Rule = Callable[..., Any]


def backward_op(
    name: str,
    back: Rule,
    d_inputs: Rule | tuple[Rule, ...],
    attrs: tuple[str, ...] = (),
    saved: tuple[str | None, ...] = ("grad_output", "self"),
    d_grad: Rule | None = None,
    jvp_inputs: Rule | tuple[Rule, ...] | None = None,
    summed: bool = False,
) -> Rule:
    """torch's named backward function `back(k, g, *xs, a)` (linear in the incoming gradient
    `g`; `xs` the inputs or result the forward node saved; `a` its attributes, named `attrs`)
    as one op. A rule calls the returned `op(k, g, *xs, a)`: with `NP` it is `back` on arrays,
    with `TT` (create_graph) one node `name` on `(g, *xs)`, whose own backward is
    `d_grad(k, gg, go, *xs, a)` for the gradient (default: `op` again, as torch's elementwise
    backward functions are their own adjoint in `g`) and `d_inputs[i](k, gg, go, *xs, a)` for
    `xs[i]`. `saved`: torch's names of `(g, *xs)` as the node saves them (`_saved_self`); None
    for one torch does not save (its rules then see None there: grad_output, when the
    derivative for the input is zero).
    Forward AD: `back` on the gradient's tangent, and `jvp_inputs[i](NP, t, go, *xs, a)` on
    an input's (default `d_inputs`: the same for an elementwise function). `summed`: `g`
    is broadcast (a loss's grad_output, 0-d for a reduction), so `d_grad` is `back` of the
    incoming gradient summed to g's shape."""
    wrt_inputs = d_inputs if isinstance(d_inputs, tuple) else (d_inputs,)
    jvps = jvp_inputs or wrt_inputs
    jvps = jvps if isinstance(jvps, tuple) else (jvps,)
    n = len(wrt_inputs)

    def op(k: Any, g: Any, *rest: Any) -> Any:
        if k is not TT:
            return back(k, g, *rest)
        xs, a = rest[:-1], rest[-1]
        data = back(NP, g._data, *(x._data for x in xs), a)
        return apply(cls, name, (g, *xs), data, g._dtype, tuple(a))

    kept = tuple(i for i in range(n + 1) if saved[i] is not None)

    def wrt(rule: Rule) -> Rule:
        if len(kept) == n + 1:
            return lambda k, gg, s, a: rule(k, gg, *s, a)

        def at_positions(k: Any, gg: Any, s: Any, a: Any) -> Any:
            full: list[Any] = [None] * (n + 1)
            for j, i in enumerate(kept):
                full[i] = s[j]
            return rule(k, gg, *full, a)

        return at_positions

    def tangent(rule: Rule) -> Rule:
        return lambda t, p, o, a: rule(NP, t, *p, a)

    def summed_grad(k: Any, gg: Any, go: Any, *rest: Any) -> Any:
        return k.sum_to(back(k, gg, *rest), k.data(go).shape)

    wrt_grad = d_grad or (summed_grad if summed else lambda k, gg, go, *rest: op(k, gg, *rest))
    cls = node_class(
        name,
        (wrt(wrt_grad), *map(wrt, wrt_inputs)),
        saved=tuple(Saved(str(saved[i]), i, tuple(range(n + 1))) for i in kept),
        attrs=attrs,
        jvp=(lambda t, p, o, a: back(NP, t, *p[1:], a), *map(tangent, jvps)),
    )
    return op


def zero_input(k: Any, gg: Any, go: Any, x: Any, a: Any) -> Any:
    """`d_input` of a backward function that is piecewise constant in `x` (threshold, leaky
    relu, hardtanh): torch's `zeros_like(grad)`."""
    return k.zeros_like(gg)


def _vjps_backward(node: Node, g: Any, tensor_mode: bool) -> list[Any]:
    """A node's backward as its per-input vjps (call_rule without the custom hook)."""
    k = TT if tensor_mode else NP
    s = node._unpack(tensor_mode)
    a = named_attrs(node)
    vjps = node._vjps
    return [
        None if e[0] is None or vjps[i] is None else vjps[i](k, g, s, a)
        for i, e in enumerate(node.next_functions)
    ]


def graph_backward(
    cls: type[Node],
    rule: Callable[[Node, Tensor], list[Any]],
    plain: Callable[[Node, Any], list[Any]] | None = None,
) -> None:
    """Under create_graph, `cls`'s backward is `rule(node, g)` -> the gradient per
    next_functions entry (one call of a `multi_backward_op`, as torch computes all of a
    node's input gradients with one backward function); plain backward keeps the node's
    per-input vjps on arrays, or is `plain(node, g)` on arrays when given (all the
    gradients in one pass, sharing what the vjps would each recompute; None where
    `needs(node)` says no gradient is taken)."""

    def custom(node: Node, g: Any, tensor_mode: bool) -> list[Any]:
        if tensor_mode:
            return rule(node, g)
        if plain is not None:
            return plain(node, g)
        return _vjps_backward(node, g, tensor_mode)

    cls._custom = staticmethod(custom)


def needs(node: Node) -> tuple[bool, ...]:
    """torch's output_mask: which of a node's inputs take a gradient."""
    return tuple(e[0] is not None for e in node.next_functions)


def multi_backward_op(
    name: str,
    back: Rule,
    second: Rule,
    n_out: int,
    attrs: tuple[str, ...] = (),
    saved: tuple[str, ...] = (),
    edges: int | None = None,
    hess: tuple[int | None, ...] = (),
) -> Rule:
    """torch's named backward function with several results, `back(k, g, *xs, a, mask)` ->
    one gradient per input of the forward op (None where `mask` says none is needed), as one
    op. `op(k, g, xs, a, mask)`: with `NP` it is `back` on arrays; with `TT` one node `name`
    with an edge to each of the first `edges` of `(g, *xs)` (default all: torch's
    differentiable arguments), saving the first `len(saved)` (torch's names), attributes `a`
    named `attrs`; its outputs are the gradients (output_nr = input position). Its own
    backward is `second(k, ggs, g, *xs, a)` -> the gradient for each edge, from `ggs` (the
    gradient arriving at each output, None where none did). `a` is given as a plain tuple in
    `attrs` order; `back` and `second` read it by name.
    Forward AD: output i is the gradient of <g, y> for the forward's input at position
    `hess[i]` of `(g, *xs)` (None: a bias, which no gradient depends on); the Hessian of
    <g, y> is symmetric, so the tangent of the outputs along the inputs' tangents is
    `second` applied to those tangents, plus `back` of g's tangent (it is linear in g)."""
    n_in = len(saved)
    n_edges = n_in if edges is None else edges
    n_all = max(n_in, n_edges)

    def backward(node: Node, gg: Any, tensor_mode: bool) -> list[Any]:
        ggs = list(gg.grads) if hasattr(gg, "grads") else [gg]
        ggs += [None] * (n_out - len(ggs))
        k = TT if tensor_mode else NP
        grads = second(k, ggs, *node._unpack(tensor_mode), named_attrs(node))
        grads = list(grads) + [None] * (n_all - len(grads))
        return [None if e[0] is None else d for e, d in zip(node.next_functions, grads)]

    cls = node_class(
        name,
        (None,) * n_edges,
        saved=tuple(Saved(saved[i], i, tuple(range(n_edges))) for i in range(n_in)),
        attrs=attrs,
        custom=backward,
    )

    def output_jvp(i: int) -> Rule:
        def rule(tans: Any, p: Any, out: Any, a: Any) -> Any:
            res = None
            if tans[0] is not None:
                res = back(NP, tans[0], *p[1:], a, (True,) * n_out)[i]
            ggs = [None if h is None else tans[h] for h in hess]
            if hess[i] is not None and any(t is not None for t in ggs):
                term = second(NP, ggs, *p[:n_in], a)[hess[i]]
                if term is not None:
                    res = term if res is None else res + term
            return res

        return rule

    cls._jvp = tuple(output_jvp(i) for i in range(n_out)) if hess else None
    per_output = [_OutputJvp(cls, rule) for rule in cls._jvp or ()]

    def op(k: Any, g: Any, xs: tuple[Any, ...], a: tuple, mask: tuple[bool, ...]) -> list[Any]:
        named = tuple.__new__(cls._Attrs, a) if attrs else a
        if k is not TT:
            return list(back(k, g, *xs, named, mask))
        datas = back(NP, g._data, *(None if x is None else x._data for x in xs), named, mask)
        outs = [None if d is None else wrap(np.ascontiguousarray(d), g._dtype) for d in datas]
        ins = (g, *xs)
        wants = [isinstance(t, Tensor) and t._requires_grad for t in ins[:n_edges]]
        if state.grad_enabled and any(wants):
            node = new_node(cls, tuple(edge(t) if w else NO_EDGE for t, w in zip(ins, wants)), a)
            kept = ins[:n_in]
            node._saved = kept
            node._versions = tuple(0 if t is None or t._vc is None else t._vc.v for t in kept)
            node._shape = MULTI
            node._npd = tuple(
                ((0,), g._data.dtype) if o is None else (o._data.shape, o._data.dtype) for o in outs
            )
            for nr, o in enumerate(outs):
                if o is not None:
                    o._grad_fn = node
                    o._output_nr = nr
                    o._requires_grad = True
        if state.fw_hooks is not None and per_output:
            for o, rule in zip(outs, per_output):
                if o is not None:
                    state.fw_hooks.op(rule, ins, o, a)  # type: ignore[arg-type]
        return outs

    return op


class _OutputJvp:
    """What forward AD reads of a node class, for one output of a multi-output op."""

    def __init__(self, cls: type[Node], rule: Rule) -> None:
        self._name = cls._name
        self._jvp = rule
        self._jvp_view = False
        self._Attrs = cls._Attrs
