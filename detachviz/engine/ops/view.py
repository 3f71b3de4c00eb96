"""Views: view, reshape, flatten, t, transpose, permute, expand, unsqueeze, squeeze, narrow,
and the multi-output views split, chunk, unbind. Their rules only move the gradient back to
the input's layout; their JVP results stay views of the input's tangent.
"""

from __future__ import annotations

import builtins
import operator
import warnings
from typing import Any

import numpy as np

from detachviz.engine import dtype as dtypes
from detachviz.engine import function as kit
from detachviz.engine.arrays import (
    broadcast,
)
from detachviz.engine.function import (
    finish,
    multi_view,
)
from detachviz.engine.node import Node, node_class, set_jvp
from detachviz.engine.ops.join import cat, stack
from detachviz.engine.ops.unary import clone
from detachviz.engine.rules import NP
from detachviz.engine.tensor import Tensor, init_tensor, wrap

_ndarray = np.ndarray
_new = object.__new__


VIEW = node_class(
    "ViewBackward0",
    # plain backward: the array's own reshape (what NP.reshape calls), one call fewer
    (
        lambda k, g, s, a: (
            g.reshape(a.self_sym_sizes) if k is NP else k.reshape(g, a.self_sym_sizes)
        ),
    ),
    attrs=("self_sym_sizes",),
)
UNSAFE_VIEW = node_class(
    "UnsafeViewBackward0",
    (lambda k, g, s, a: k.reshape(g, a.self_sym_sizes),),
    attrs=("self_sym_sizes",),
)
# torch's reshape of a non-contiguous tensor that can still be viewed (_reshape_alias)
RESHAPE_ALIAS = node_class(
    "ReshapeAliasBackward0",
    (lambda k, g, s, a: k.reshape(g, a.self_sym_sizes),),
    attrs=("self_sym_sizes",),
)
T = node_class("TBackward0", (lambda k, g, s, a: k.t(g),))
TRANSPOSE = node_class(
    "TransposeBackward0",
    (lambda k, g, s, a: k.transpose(g, a.dim0, a.dim1),),
    attrs=("dim0", "dim1"),
)
PERMUTE = node_class(
    "PermuteBackward0",
    (lambda k, g, s, a: k.permute(g, tuple(np.argsort([d % len(a.dims) for d in a.dims]))),),
    attrs=("dims",),
)
EXPAND = node_class(
    "ExpandBackward0",
    (lambda k, g, s, a: k.sum_to(g, a.self_sym_sizes),),
    attrs=("self_sym_sizes",),
)
UNSQUEEZE = node_class(
    "UnsqueezeBackward0", (lambda k, g, s, a: k.squeeze(g, a.dim),), attrs=("dim",)
)
SQUEEZE0 = node_class(
    "SqueezeBackward0",
    (lambda k, g, s, a: k.reshape(g, a.self_sym_sizes),),
    attrs=("self_sym_sizes",),
)
SQUEEZE1 = node_class(
    "SqueezeBackward1",
    (lambda k, g, s, a: k.reshape(g, a.self_sym_sizes),),
    attrs=("dim", "self_sym_sizes"),
)
SQUEEZE4 = node_class(
    "SqueezeBackward4",
    (lambda k, g, s, a: k.reshape(g, a.self_sym_sizes),),
    attrs=("dim", "self_sym_sizes"),
)
SELECT = node_class(
    "SelectBackward0",
    (
        lambda k, g, s, a: k.embed(
            g, a.self_sym_sizes, (slice(None),) * (a.dim % len(a.self_sym_sizes)) + (a.index,)
        ),
    ),
    attrs=("dim", "index", "self_sym_sizes"),
)
SLICE = node_class(
    "SliceBackward0",
    (
        lambda k, g, s, a: k.embed(
            g,
            a.self_sym_sizes,
            (slice(None),) * (a.dim % len(a.self_sym_sizes)) + (slice(a.start, a.end, a.step),),
        ),
    ),
    attrs=("dim", "start", "end", "step", "self_sym_sizes"),
)

ALIAS = node_class("AliasBackward0", (lambda k, g, s, a: g,))


def _reshape(t: Any, p: Any, out: Any, a: Any) -> Any:
    return np.reshape(t, out.shape)


def _slice_index(dim: int, nd: int, item: Any) -> tuple[Any, ...]:
    # the trailing Ellipsis keeps an integer index a (0-d) view instead of a numpy scalar copy
    return (slice(None),) * (dim % nd) + (item, Ellipsis)


set_jvp(VIEW, (_reshape,), view=True)
set_jvp(UNSAFE_VIEW, (_reshape,), view=True)
set_jvp(RESHAPE_ALIAS, (_reshape,), view=True)
set_jvp(SQUEEZE0, (_reshape,), view=True)
set_jvp(SQUEEZE1, (_reshape,), view=True)
set_jvp(SQUEEZE4, (_reshape,), view=True)
set_jvp(T, (lambda t, p, o, a: t.T,), view=True)
set_jvp(TRANSPOSE, (lambda t, p, o, a: np.swapaxes(t, a.dim0, a.dim1),), view=True)
set_jvp(PERMUTE, (lambda t, p, o, a: np.transpose(t, a.dims),), view=True)
set_jvp(EXPAND, (lambda t, p, o, a: np.broadcast_to(t, o.shape),), view=True)
set_jvp(UNSQUEEZE, (lambda t, p, o, a: np.expand_dims(t, a.dim % o.ndim),), view=True)
set_jvp(SELECT, (lambda t, p, o, a: t[_slice_index(a.dim, t.ndim, a.index)],), view=True)
set_jvp(
    SLICE,
    (lambda t, p, o, a: t[_slice_index(a.dim, t.ndim, slice(a.start, a.end, a.step))],),
    view=True,
)
set_jvp(ALIAS, (lambda t, p, o, a: t.view(),), view=True)


def view_shape(x: Tensor, shape: tuple[Any, ...]) -> tuple[int, ...]:
    if len(shape) == 1 and isinstance(shape[0], (tuple, list)):
        shape = tuple(shape[0])
    n = 1
    for s in shape:
        if s.__class__ is not int or s < 0:
            break
        n *= s
    else:
        if n == x._data.size:
            return shape
    shape = tuple(operator.index(s) for s in shape)
    n = x._data.size
    known = 1
    for s in shape:
        if s != -1:
            known *= s
    if shape.count(-1) > 1:
        raise RuntimeError("only one dimension can be inferred")
    if (-1 in shape and (known == 0 or n % known)) or (-1 not in shape and known != n):
        raise RuntimeError(
            f"shape '[{', '.join(map(str, shape))}]' is invalid for input of size {n}"
        )
    if -1 in shape:
        shape = tuple(n // known if s == -1 else s for s in shape)
    return shape


def _try_view(a: np.ndarray, shape: tuple[int, ...]) -> np.ndarray | None:
    if a.flags.c_contiguous:
        return a.reshape(shape)  # always a view for a contiguous array
    try:
        return np.reshape(a, shape, copy=False)
    except ValueError:
        return None


def view(x: Tensor, *shape: Any) -> Tensor:
    if len(shape) == 1 and isinstance(shape[0], dtypes.dtype):
        raise NotImplementedError("view(dtype) is not supported by detachviz")
    shape = view_shape(x, shape)
    data = _try_view(x._data, shape)
    if data is None:
        raise RuntimeError(
            "view size is not compatible with input tensor's size and stride (at least one "
            "dimension spans across two contiguous subspaces). Use .reshape(...) instead."
        )
    return kit.view(VIEW, "view", x, data, (x._data.shape,))


def reshape(x: Tensor, *shape: Any) -> Tensor:
    shape = view_shape(x, shape)
    data = _try_view(x._data, shape)
    if data is not None:
        cls = VIEW if x._data.flags.c_contiguous else RESHAPE_ALIAS
        return kit.view(cls, "reshape", x, data, (x._data.shape,))
    c = clone(x)
    out = _new(Tensor)
    init_tensor(out, c._data.reshape(shape), x._dtype)
    out._storage = c._storage
    out._vc = c._share_vc()
    return finish(UNSAFE_VIEW, "reshape", (c,), out, (x._data.shape,))


def flatten(x: Tensor, start_dim: int = 0, end_dim: int = -1) -> Tensor:
    nd = x._data.ndim
    if nd == 0:
        return reshape(x, 1)
    s, e = start_dim % nd, end_dim % nd
    if s == e:
        return x
    shp = x._data.shape
    k = 1
    for d in shp[s : e + 1]:
        k *= d
    return reshape(x, shp[:s] + (k,) + shp[e + 1 :])


def t(x: Tensor) -> Tensor:
    if x._data.ndim > 2:
        raise RuntimeError(
            f"t() expects a tensor with <= 2 dimensions, but self is {x._data.ndim}D"
        )
    return kit.view(T, "t", x, x._data.T)


def transpose(x: Tensor, dim0: int, dim1: int) -> Tensor:
    return kit.view(TRANSPOSE, "transpose", x, x._data.swapaxes(dim0, dim1), (dim0, dim1))


def permute(x: Tensor, *dims: Any) -> Tensor:
    if len(dims) == 1 and isinstance(dims[0], (tuple, list)):
        dims = tuple(dims[0])
    return kit.view(PERMUTE, "permute", x, np.transpose(x._data, dims), (tuple(dims),))


def tensor_T(x: Tensor) -> Tensor:
    nd = x._data.ndim
    if nd != 2:
        warnings.warn(
            "The use of `x.T` on tensors of dimension other than 2 to reverse their shape is "
            "deprecated and it will throw an error in a future release. Consider `x.mT` to "
            "transpose batches of matrices or `x.permute(*torch.arange(x.ndim - 1, -1, -1))` to "
            "reverse the dimensions of a tensor.",
            UserWarning,
            stacklevel=3,
        )
    dims = tuple(range(nd - 1, -1, -1))
    return kit.view(PERMUTE, "permute", x, np.transpose(x._data, dims), (dims,))


def tensor_mT(x: Tensor) -> Tensor:
    return transpose(x, -2, -1)


def expand(x: Tensor, *sizes: Any) -> Tensor:
    if len(sizes) == 1 and isinstance(sizes[0], (tuple, list)):
        sizes = tuple(sizes[0])
    shp = x._data.shape
    lead = len(sizes) - len(shp)
    if lead < 0:
        dims = ", ".join(map(str, shp))
        want = ", ".join(map(str, sizes))
        raise RuntimeError(
            f"expand(torch.{x._dtype.legacy}{{[{dims}]}}, size=[{want}]): the number of sizes "
            "provided must be greater or equal to the number of dimensions in the tensor"
        )
    if -1 in sizes:
        target = tuple(shp[i - lead] if s == -1 else s for i, s in enumerate(sizes))
    else:
        target = tuple(sizes)
    try:
        data = broadcast(x._data, target)
    except ValueError:
        raise RuntimeError(
            "The expanded size of the tensor must match the existing size at non-singleton "
            "dimension"
        ) from None
    return kit.view(EXPAND, "expand", x, data, (shp,))


def expand_as(x: Tensor, other: Tensor) -> Tensor:
    return expand(x, other._data.shape)


def unsqueeze(x: Tensor, dim: int) -> Tensor:
    nd = x._data.ndim + 1
    d = dim % nd
    a = x._data
    if a.flags.c_contiguous:
        data = a.reshape(a.shape[:d] + (1,) + a.shape[d:])  # torch's strides for the new dim
    else:
        data = np.expand_dims(a, d)
    return kit.view(UNSQUEEZE, "unsqueeze", x, data, (dim,))


def squeeze(x: Tensor, dim: Any = None) -> Tensor:
    shp = x._data.shape
    if dim is None:
        data = np.reshape(x._data, tuple(s for s in shp if s != 1))
        return kit.view(SQUEEZE0, "squeeze", x, data, (shp,))
    nd = max(len(shp), 1)
    d = dim % nd
    data = np.squeeze(x._data, d) if len(shp) and shp[d] == 1 else x._data.view()
    return kit.view(SQUEEZE1, "squeeze", x, data, (dim, shp))


def output_grads(node: Node, g: Any, tensor_mode: bool) -> list[Any]:
    """The per-output gradients of a multi-output node, zeros where none arrived."""
    slots = g.grads if hasattr(g, "grads") else [g]
    out = []
    for k, (shape, npd) in enumerate(node._npd):
        gk = slots[k] if k < len(slots) else None
        if gk is None:
            gk = np.zeros(shape, dtype=npd)
            if tensor_mode:
                gk = wrap(gk)
        out.append(gk)
    return out


def _split_backward(node: Node, g: Any, tensor_mode: bool) -> list[Any]:
    parts = output_grads(node, g, tensor_mode)
    if tensor_mode:  # differentiable again: torch.cat
        return [cat(parts, node._attrs[0])]
    return [np.concatenate(parts, axis=node._attrs[0])]


def _unbind_backward(node: Node, g: Any, tensor_mode: bool) -> list[Any]:
    parts = output_grads(node, g, tensor_mode)
    if tensor_mode:
        return [stack(parts, node._attrs[0])]
    return [np.stack(parts, axis=node._attrs[0])]


# multi-output views: each output's tangent is the same view of the input's (jvp_view)
SPLIT = node_class(
    "SplitBackward0",
    (None,),
    attrs=("dim", "self_sym_sizes", "split_size"),
    jvp_view=True,
    custom=_split_backward,
)
SPLIT_SIZES = node_class(
    "SplitWithSizesBackward0",
    (None,),
    attrs=("dim", "self_sym_sizes", "split_sizes"),
    jvp_view=True,
    custom=_split_backward,
)
UNBIND = node_class(
    "UnbindBackward0", (None,), attrs=("dim",), jvp_view=True, custom=_unbind_backward
)


def split_bounds(size: int, step: int) -> list[tuple[int, int]]:
    """torch's split geometry along a dim of `size`: (start, stop) of each piece of `step`
    (the last may be shorter; an empty dim gives one empty piece). unsafe_split's too."""
    return [(b, min(b + step, size)) for b in range(0, size, step)] or [(0, 0)]


def split(x: Tensor, split_size_or_sections: Any, dim: int = 0) -> tuple[Tensor, ...]:
    nd = x._data.ndim
    d = dim % nd
    size = x._data.shape[d]
    if isinstance(split_size_or_sections, int):
        step = split_size_or_sections
        datas = [x._data[(slice(None),) * d + (slice(b, e),)] for b, e in split_bounds(size, step)]
        return multi_view(SPLIT, "split", x, datas, (dim, x._data.shape, step))
    sizes = tuple(split_size_or_sections)
    if builtins.sum(sizes) != size:
        raise RuntimeError(
            f"split_with_sizes expects split_sizes to sum exactly to {size} (input tensor's size "
            f"at dimension {dim}), but got split_sizes={list(sizes)}"
        )
    datas, start = [], 0
    for n in sizes:
        datas.append(x._data[(slice(None),) * d + (slice(start, start + n),)])
        start += n
    return multi_view(SPLIT_SIZES, "split", x, datas, (dim, x._data.shape, sizes))


def chunk(x: Tensor, chunks: int, dim: int = 0) -> tuple[Tensor, ...]:
    size = x._data.shape[dim % x._data.ndim]
    return split(x, max(-(-size // chunks), 1), dim)


def unbind(x: Tensor, dim: int = 0) -> tuple[Tensor, ...]:
    d = dim % x._data.ndim
    datas = [x._data[(slice(None),) * d + (i,)] for i in range(x._data.shape[d])]
    datas = [a if type(a) is _ndarray else np.asarray(a) for a in datas]
    return multi_view(UNBIND, "unbind", x, datas, (dim,))


def narrow(x: Tensor, dim: int, start: int, length: int) -> Tensor:
    d = dim % x._data.ndim
    shp = x._data.shape
    s0 = start % shp[d] if start < 0 else start
    data = x._data[(slice(None),) * d + (slice(s0, s0 + length),)]
    return kit.view(SLICE, "narrow", x, data, (dim, s0, s0 + length, 1, shp))
