"""Indexing: `x[idx]` (basic indexing as torch decomposes it into select / slice / unsqueeze
views, advanced indexing as IndexBackward0) and `x[idx] = value` (copy_ into the indexed view,
or index_put_).
"""

from __future__ import annotations

import operator
from typing import Any

import numpy as np

from detachviz.engine import function as kit
from detachviz.engine import rules, trace
from detachviz.engine.function import (
    apply,
    inplace,
)
from detachviz.engine.node import node_class, set_jvp
from detachviz.engine.ops.inplace import COPY, copy_
from detachviz.engine.ops.view import ALIAS, SELECT, SLICE, UNSQUEEZE
from detachviz.engine.rules import install_kernels
from detachviz.engine.tensor import Tensor, wrap

_ndarray = np.ndarray
_new = object.__new__


INDEX = node_class(
    "IndexBackward0",
    (lambda k, g, s, a: k.index_put_zeros(g, a.self_sym_sizes, a.indices),),
    attrs=("indices", "self_sym_sizes"),
)


def _index_put_self(t: Any, p: Any, out: Any, a: Any) -> Any:
    r = np.array(t)
    r[a.indices] = 0
    return r


def _index_put_values(t: Any, p: Any, out: Any, a: Any) -> Any:
    r = np.zeros(out.shape, dtype=out.dtype)
    r[a.indices] = t
    return r


set_jvp(INDEX, (lambda t, p, o, a: t[a.indices],))


def _saved_indices(node: Any) -> Any:
    """`_saved_indices` as torch shows it (torchviz draws each as a saved tensor): a tuple of
    one index tensor per indexed dimension, None for a dimension taken whole. The node's
    own attribute stays the numpy index its rule uses."""
    if not node._attrs:
        return None
    idx = node._attrs[0]
    items = idx if isinstance(idx, tuple) else (idx,)
    return tuple(None if isinstance(i, slice) else wrap(np.asarray(i)) for i in items)


setattr(INDEX, "_saved_indices", property(_saved_indices))  # noqa: B010 - a class made by data


def _u64(v: int) -> int:
    return v if v >= 0 else v + (1 << 64)


_INT64_MAX = (1 << 63) - 1


def getitem(x: Tensor, idx: Any) -> Tensor:
    """Basic indexing as torch decomposes it: one select/slice/unsqueeze per index entry."""
    if (
        isinstance(idx, Tensor)
        or isinstance(idx, list)
        or (isinstance(idx, tuple) and any(isinstance(i, (Tensor, list, np.ndarray)) for i in idx))
        or isinstance(idx, np.ndarray)
    ):
        return _advanced_getitem(x, idx)
    single = not isinstance(idx, tuple)
    items = (idx,) if single else idx
    nd = x._data.ndim
    n_spec = len([i for i in items if i is not None and i is not Ellipsis])
    if single and nd == 0:
        # NOTE: torch checks a lone int or slice index of a 0-dim tensor first
        if isinstance(idx, slice):
            raise IndexError("slice() cannot be applied to a 0-dim tensor.")
        if isinstance(idx, int) and not isinstance(idx, bool):
            raise IndexError(
                "invalid index of a 0-dim tensor. Use `tensor.item()` in Python or "
                "`tensor.item<T>()` in C++ to convert a 0-dim tensor to a number"
            )
    if n_spec > nd:
        raise IndexError(f"too many indices for tensor of dimension {nd}")
    out = x
    dim = 0
    for it in items:
        shp = out._data.shape
        if it is Ellipsis:
            dim += nd - n_spec
        elif it is None:
            data = out._data[(slice(None),) * dim + (None,)]
            out = kit.view(UNSQUEEZE, "unsqueeze", out, data, (dim,))
            dim += 1
        elif isinstance(it, slice):
            start, stop, step = it.start, it.stop, it.step
            size = shp[dim]
            if step is not None and step <= 0:
                raise ValueError("step must be greater than zero")
            full = (start in (None, 0)) and (stop is None or stop >= size) and step in (None, 1)
            if full and not single:
                dim += 1
                continue
            data = out._data[(slice(None),) * dim + (it,)]
            attrs = (
                dim,
                0 if start is None else start,
                _INT64_MAX if stop is None else stop,
                1 if step is None else step,
                shp,
            )
            out = kit.view(SLICE, "slice", out, data, attrs)
            dim += 1
        else:
            i = operator.index(it)
            size = shp[dim]
            if not -size <= i < size:
                raise IndexError(f"index {i} is out of bounds for dimension {dim} with size {size}")
            sl = slice(i, i + 1 if i != -1 else None)
            part = out._data[(slice(None),) * dim + (sl,)]
            data = np.reshape(part, shp[:dim] + shp[dim + 1 :])
            out = kit.view(SELECT, "select", out, data, (dim, i, shp))
    if out is x:
        out = kit.view(ALIAS, "alias", x, x._data.view())
    return out


def _advanced_getitem(x: Tensor, idx: Any) -> Tensor:
    def conv(i: Any) -> Any:
        if isinstance(i, Tensor):
            if i._dtype.is_floating_point:
                raise IndexError("tensors used as indices must be long, int, byte or bool tensors")
            return i._data
        if isinstance(i, list):
            return np.asarray(i)
        return i

    np_idx = tuple(conv(i) for i in idx) if isinstance(idx, tuple) else conv(idx)
    data = x._data[np_idx]
    if type(data) is not _ndarray or not data.flags.owndata:
        data = np.array(data)
    return apply(INDEX, "index", (x,), data, x._dtype, (np_idx, x._data.shape))


def setitem(x: Tensor, idx: Any, value: Any) -> None:
    """`x[idx] = value`: torch's copy_ into the indexed view (CopySlices on x)."""
    rec = trace.RECORDER
    trace.RECORDER = None  # the view and copy below are one traced op: setitem
    try:
        ref = rec.snapshot(x) if rec is not None else None
        adv = isinstance(idx, (Tensor, list, np.ndarray)) or (
            isinstance(idx, tuple) and any(isinstance(i, (Tensor, list, np.ndarray)) for i in idx)
        )
        if adv:
            _index_put(x, idx, value)
        else:
            v = getitem(x, idx)
            if isinstance(value, Tensor):
                copy_(v, value)
            else:
                inplace(v, "copy_", COPY, lambda a: np.full_like(a, value), (value,))
    finally:
        trace.RECORDER = rec
    if rec is not None:
        ins = (ref, value) if isinstance(value, Tensor) else (ref,)
        rec.record("setitem", ins, (x,), inplace=True)


INDEX_PUT = node_class(
    "IndexPutBackward0",
    (
        lambda k, g, s, a: k.where0(~_mask_at(k.data(g), a.indices), g),
        lambda k, g, s, a: k.index(g, a.indices),
    ),
    attrs=("indices",),
)


def _mask_at(g: Any, idx: Any) -> Any:
    m = np.zeros(np.shape(g), dtype=bool)
    m[idx] = True
    return m


def _index_put(x: Tensor, idx: Any, value: Any) -> None:
    def conv(i: Any) -> Any:
        if isinstance(i, Tensor):
            return i._data
        if isinstance(i, list):
            return np.asarray(i)
        return i

    np_idx = tuple(conv(i) for i in idx) if isinstance(idx, tuple) else conv(idx)

    def write(a: Any) -> Any:
        out = a.copy()
        out[np_idx] = value._data if isinstance(value, Tensor) else value
        return out

    others = (value,) if isinstance(value, Tensor) else ()
    cls = INDEX_PUT if others else INDEX_PUT
    inplace(x, "index_put_", cls, write, others, (np_idx,))


set_jvp(INDEX_PUT, (_index_put_self, _index_put_values))
setattr(INDEX_PUT, "_saved_indices", property(_saved_indices))  # noqa: B010
# `x[idx] = v` is index_put_ without accumulate, the only way the engine reaches this node
setattr(INDEX_PUT, "_saved_accumulate", property(lambda node: False))  # noqa: B010


def _index_kernel(g: Tensor, idx: Any) -> Tensor:
    """`g[idx]` for a create_graph rule (index_put's gradient for its values): torch's index
    op, IndexBackward0 in the graph."""
    return apply(INDEX, "index", (g,), np.array(g._data[idx]), g._dtype, (idx, g._data.shape))


install_kernels(index=_index_kernel)

# index's backward under create_graph: torch's `zeros.index_put_(indices, grad, accumulate)`
INDEX_PUT_IMPL = node_class(
    "IndexPutImplBackward0",
    (None, lambda k, g, s, a: k.index(g, a.indices)),
    attrs=("indices", "accumulate"),
    jvp=(None, lambda t, p, o, a: rules.NP.index_put_zeros(t, o.shape, a.indices)),
)
setattr(INDEX_PUT_IMPL, "_saved_indices", property(_saved_indices))  # noqa: B010


def _index_put_zeros_kernel(g: Tensor, shape: Any, idx: Any) -> Tensor:
    zeros = wrap(np.zeros(shape, dtype=g._data.dtype), g._dtype)
    data = rules.NP.index_put_zeros(g._data, shape, idx)
    return apply(INDEX_PUT_IMPL, "index_put", (zeros, g), data, g._dtype, (idx, True))


install_kernels(index_put_zeros=_index_put_zeros_kernel)
