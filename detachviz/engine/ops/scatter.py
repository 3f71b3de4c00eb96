"""Index-driven reads and writes along a dim: gather, scatter (tensor or value source),
scatter_add, index_select, index_add, masked_select, masked_scatter, and the in-place forms
scatter_ / scatter_add_ / index_add_ / masked_scatter_. Each backward is another op of this
family (gather's is scatter_add into zeros, index_select's is index_add, ...), so a
create_graph backward builds the graph torch builds.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from detachviz.engine import dtype as dtypes
from detachviz.engine.function import apply, inplace
from detachviz.engine.node import Node, Saved, node_class
from detachviz.engine.ops.join import cat
from detachviz.engine.rules import NP
from detachviz.engine.tensor import Tensor, wrap


def dim_index(dim: Any, nd: int) -> int:
    n = max(nd, 1)
    if not -n <= dim < n:
        raise IndexError(
            f"Dimension out of range (expected to be in range of [{-n}, {n - 1}], but got {dim})"
        )
    return int(dim) % n


def _index_array(index: Any, name: str) -> np.ndarray:
    if not isinstance(index, Tensor):
        raise TypeError(
            f"{name}(): argument 'index' (position 2) must be Tensor, not {type(index).__name__}"
        )
    if index._dtype not in (dtypes.int64, dtypes.int32):
        raise RuntimeError(f"{name}(): Expected dtype int32/int64 for index")
    return index._data.astype(np.intp, copy=False)


def _grid(x_shape: tuple[int, ...], idx: np.ndarray, dim: int) -> tuple[Any, ...]:
    """numpy advanced indices picking, for every position of `idx`, the element of an array of
    `x_shape` at that position with coordinate `dim` replaced by the index value."""
    if idx.ndim != len(x_shape) and not (idx.ndim <= 1 and len(x_shape) <= 1):
        raise RuntimeError("Index tensor must have the same number of dimensions as input tensor")
    if idx.size:
        size = x_shape[dim] if x_shape else 1
        bad = idx[(idx < -size) | (idx >= size)]
        if bad.size:
            raise RuntimeError(
                f"index {int(bad.reshape(-1)[0])} is out of bounds for dimension {dim} with "
                f"size {size}"
            )
    if not x_shape:
        return ()
    grids: list[Any] = list(np.indices(idx.shape, sparse=True)) if idx.ndim else []
    grids[dim] = idx
    return tuple(grids)


def np_or(k: Any, on_arrays: Any, on_tensors: Any) -> Any:
    return on_arrays() if k is NP else on_tensors()


# ----------------------------------------------------------------------------- kernels


def _gather_np(a: np.ndarray, dim: int, idx: np.ndarray) -> np.ndarray:
    if a.ndim == 0:
        return a.copy()
    return np.array(a[_grid(a.shape, idx, dim)])


def scatter_np(a: np.ndarray, dim: int, idx: np.ndarray, src: Any, add: bool) -> np.ndarray:
    out = np.array(a, copy=True)
    grid = _grid(a.shape, idx, dim)
    if isinstance(src, np.ndarray) and src.ndim:
        src = src[tuple(slice(0, n) for n in idx.shape)]
    if add:
        np.add.at(out, grid, src)
    else:
        out[grid] = src
    return out


def _index_add_np(a: np.ndarray, dim: int, idx: np.ndarray, src: np.ndarray) -> np.ndarray:
    out = np.array(a, copy=True)
    view = np.moveaxis(out, dim, 0) if out.ndim else out.reshape(1)
    s = np.moveaxis(src, dim, 0) if src.ndim else src.reshape(1)
    np.add.at(view, idx, s)
    return out


# ------------------------------------------------------------------------------ gather


def _gather_back(k: Any, g: Any, s: Any, a: Any) -> Any:
    sizes = s[0].shape
    idx = a.index._data.astype(np.intp)
    return np_or(
        k,
        lambda: scatter_np(np.zeros(sizes, g.dtype), a.dim, idx, g, True),
        lambda: scatter_add(wrap(np.zeros(sizes, g._data.dtype)), a.dim, a.index, g),
    )


GATHER = node_class(
    "GatherBackward0",
    (_gather_back,),
    saved=(Saved("self", 0, (0,)),),
    attrs=("dim", "index", "sparse_grad"),
    jvp=(lambda t, p, o, a: _gather_np(t, a.dim, a.index._data.astype(np.intp)),),
)


def gather(x: Tensor, dim: int, index: Tensor, *, sparse_grad: bool = False) -> Tensor:
    if sparse_grad:
        raise NotImplementedError("gather(sparse_grad=True) is not supported by detachviz")
    d = dim_index(dim, x._data.ndim)
    data = _gather_np(x._data, d, _index_array(index, "gather"))
    return apply(GATHER, "gather", (x,), data, x._dtype, (dim, index, sparse_grad))


# ----------------------------------------------------------------------------- scatter


def _zero_at(k: Any, g: Any, a: Any) -> Any:
    idx = a.index._data.astype(np.intp)
    return np_or(
        k,
        lambda: scatter_np(g, a.dim, idx, 0, False),
        lambda: scatter(g, a.dim, a.index, 0.0),
    )


def _gather_of(k: Any, g: Any, a: Any) -> Any:
    idx = a.index._data.astype(np.intp)
    return np_or(k, lambda: _gather_np(g, a.dim, idx), lambda: gather(g, a.dim, a.index))


def _jidx(a: Any) -> np.ndarray:
    return a.index._data.astype(np.intp)  # type: ignore[no-any-return]


SCATTER = node_class(
    "ScatterBackward0",
    (lambda k, g, s, a: _zero_at(k, g, a), lambda k, g, s, a: _gather_of(k, g, a)),
    attrs=("dim", "index"),
    jvp=(
        lambda t, p, o, a: scatter_np(t, a.dim, _jidx(a), 0, False),
        lambda t, p, o, a: scatter_np(np.zeros(o.shape, t.dtype), a.dim, _jidx(a), t, False),
    ),
)
SCATTER_VALUE = node_class(
    "ScatterBackward1",
    (lambda k, g, s, a: _zero_at(k, g, a),),
    attrs=("dim", "index"),
    jvp=(lambda t, p, o, a: scatter_np(t, a.dim, _jidx(a), 0, False),),
)
SCATTER_ADD = node_class(
    "ScatterAddBackward0",
    (lambda k, g, s, a: g, lambda k, g, s, a: _gather_of(k, g, a)),
    attrs=("dim", "index"),
    jvp=(
        lambda t, p, o, a: t,
        lambda t, p, o, a: scatter_np(np.zeros(o.shape, t.dtype), a.dim, _jidx(a), t, True),
    ),
)


def _no_reduce(name: str, reduce: Any) -> None:
    if reduce is not None:
        raise NotImplementedError(f"{name}(reduce=...) is not supported by detachviz")


def _scatter_parts(
    x: Tensor, dim: int, index: Tensor, src: Any, name: str
) -> tuple[int, np.ndarray, Any, type[Node], tuple[Any, ...]]:
    d = dim_index(dim, x._data.ndim)
    idx = _index_array(index, name)
    if isinstance(src, Tensor):
        if src._dtype is not x._dtype:
            raise RuntimeError(
                f"{name}(): Expected self.dtype to be equal to src.dtype"
                if name.startswith("scatter")
                else f"{name}(): self and src must have the same dtype"
            )
        return d, idx, src._data, SCATTER, (src,)
    return d, idx, src, SCATTER_VALUE, ()


def scatter(
    x: Tensor,
    dim: int,
    index: Tensor,
    src: Any = None,
    value: Any = None,
    *,
    reduce: Any = None,
) -> Tensor:
    _no_reduce("scatter", reduce)
    src = value if src is None else src
    d, idx, sd, cls, others = _scatter_parts(x, dim, index, src, "scatter")
    data = scatter_np(x._data, d, idx, sd, False)
    return apply(cls, "scatter", (x, *others), data, x._dtype, (dim, index))


def scatter_(
    x: Tensor, dim: int, index: Tensor, src: Any = None, value: Any = None, *, reduce: Any = None
) -> Tensor:
    _no_reduce("scatter_", reduce)
    src = value if src is None else src
    d, idx, sd, cls, others = _scatter_parts(x, dim, index, src, "scatter_")
    return inplace(
        x, "scatter_", cls, lambda a: scatter_np(a, d, idx, sd, False), others, (dim, index)
    )


def scatter_add(x: Tensor, dim: int, index: Tensor, src: Tensor) -> Tensor:
    d, idx, sd, _, _ = _scatter_parts(x, dim, index, src, "scatter_add")
    data = scatter_np(x._data, d, idx, sd, True)
    return apply(SCATTER_ADD, "scatter_add", (x, src), data, x._dtype, (dim, index))


def scatter_add_(x: Tensor, dim: int, index: Tensor, src: Tensor) -> Tensor:
    d, idx, sd, _, _ = _scatter_parts(x, dim, index, src, "scatter_add_")
    return inplace(
        x,
        "scatter_add_",
        SCATTER_ADD,
        lambda a: scatter_np(a, d, idx, sd, True),
        (src,),
        (dim, index),
    )


# ------------------------------------------------------------------------ index_select


def _vector_index(index: Any, name: str, size: int, dim: int) -> np.ndarray:
    idx = _index_array(index, name)
    if idx.ndim > 1:
        raise IndexError(f"{name}(): Index is supposed to be a vector")
    idx = idx.reshape(-1)
    bad = idx[(idx < 0) | (idx >= size)]
    if bad.size:
        raise IndexError("index out of range in self")
    return idx


def _index_select_np(a: np.ndarray, dim: int, idx: np.ndarray) -> np.ndarray:
    if a.ndim == 0:
        return np.array(a)
    return np.take(a, idx, axis=dim)


def _index_select_back(k: Any, g: Any, s: Any, a: Any) -> Any:
    sizes = a.self_sym_sizes
    idx = a.index._data.astype(np.intp).reshape(-1)
    d = a.dim % max(len(sizes), 1)
    return np_or(
        k,
        lambda: _index_add_np(np.zeros(sizes, g.dtype), d, idx, g.reshape(-1) if not sizes else g),
        lambda: index_add(wrap(np.zeros(sizes, g._data.dtype)), a.dim, a.index, g),
    )


INDEX_SELECT = node_class(
    "IndexSelectBackward0",
    (_index_select_back,),
    attrs=("dim", "index", "self_sym_sizes"),
    jvp=(
        lambda t, p, o, a: _index_select_np(
            t, a.dim % max(t.ndim, 1), a.index._data.astype(np.intp).reshape(-1)
        ),
    ),
)


def index_select(x: Tensor, dim: int, index: Tensor) -> Tensor:
    nd = x._data.ndim
    d = dim_index(dim, nd)
    idx = _vector_index(index, "index_select", x._data.shape[d] if nd else 1, d)
    data = _index_select_np(x._data, d, idx)
    if nd == 0:
        data = data.reshape(())
    return apply(INDEX_SELECT, "index_select", (x,), data, x._dtype, (dim, index, x._data.shape))


# --------------------------------------------------------------------------- index_add


def _index_add_source(k: Any, g: Any, s: Any, a: Any) -> Any:
    idx = a.index._data.astype(np.intp).reshape(-1)
    d = a.dim % max(np.ndim(k.data(g)), 1)
    shape = s[0].shape

    def arrays() -> Any:
        r = _index_select_np(g, d, idx) if g.ndim else g
        return (r * a.alpha).reshape(shape)

    def tensors() -> Any:
        r = index_select(g, a.dim, a.index) if g._data.ndim else g
        return (r * a.alpha if a.alpha != 1 else r).reshape(shape)

    return np_or(k, arrays, tensors)


INDEX_ADD = node_class(
    "IndexAddBackward0",
    (lambda k, g, s, a: g, _index_add_source),
    saved=(Saved("source", 1, (1,)),),
    attrs=("alpha", "dim", "index", "source_dim"),
    jvp=(
        lambda t, p, o, a: t,
        lambda t, p, o, a: _index_add_np(
            np.zeros(o.shape, t.dtype),
            a.dim % max(o.ndim, 1),
            a.index._data.astype(np.intp).reshape(-1),
            t * a.alpha,
        ),
    ),
)


def _index_add_args(
    x: Tensor, dim: int, index: Tensor, source: Tensor, name: str
) -> tuple[int, np.ndarray]:
    nd = x._data.ndim
    d = dim_index(dim, nd)
    idx = _vector_index(index, name, x._data.shape[d] if nd else 1, d)
    if not isinstance(source, Tensor):
        raise TypeError(
            f"{name}(): argument 'source' (position 3) must be Tensor, not {type(source).__name__}"
        )
    if source._dtype is not x._dtype:
        raise RuntimeError(
            f"{name}(): self ({x._dtype.name}) and source ({source._dtype.name}) "
            "must have the same scalar type"
        )
    return d, idx


def index_add(x: Tensor, dim: int, index: Tensor, source: Tensor, *, alpha: Any = 1) -> Tensor:
    d, idx = _index_add_args(x, dim, index, source, "index_add")
    sd = source._data * alpha if alpha != 1 else source._data
    data = _index_add_np(x._data, d, idx, sd.astype(x._data.dtype, copy=False))
    attrs = (alpha, dim, index, source._data.ndim)
    return apply(INDEX_ADD, "index_add", (x, source), data, x._dtype, attrs)


def index_add_(x: Tensor, dim: int, index: Tensor, source: Tensor, *, alpha: Any = 1) -> Tensor:
    d, idx = _index_add_args(x, dim, index, source, "index_add_")
    sd = (source._data * alpha if alpha != 1 else source._data).astype(x._data.dtype, copy=False)
    return inplace(
        x,
        "index_add_",
        INDEX_ADD,
        lambda a: _index_add_np(a, d, idx, sd),
        (source,),
        (alpha, dim, index, source._data.ndim),
    )


# ---------------------------------------------------------------- masked_select / scatter


def _mask_of(mask: Any, name: str) -> np.ndarray:
    if not isinstance(mask, Tensor):
        raise TypeError(
            f"{name}(): argument 'mask' (position 1) must be Tensor, not {type(mask).__name__}"
        )
    if mask._dtype is not dtypes.bool_:
        raise RuntimeError(f"{name}: expected BoolTensor for mask")
    return mask._data  # type: ignore[no-any-return]


def _masked_select_back(k: Any, g: Any, s: Any, a: Any) -> Any:
    m = a.mask._data
    shape = np.broadcast_shapes(s[0].shape, m.shape)
    mb = np.broadcast_to(m, shape)

    def arrays() -> Any:
        out = np.zeros(shape, g.dtype)
        out[mb] = g
        return out

    return np_or(
        k, arrays, lambda: masked_scatter(wrap(np.zeros(shape, g._data.dtype)), wrap(mb), g)
    )


MASKED_SELECT = node_class(
    "MaskedSelectBackward0",
    (_masked_select_back,),
    saved=(Saved("self", 0, (0,)),),
    attrs=("mask",),
    jvp=(
        lambda t, p, o, a: np.array(
            np.broadcast_arrays(t, a.mask._data)[0][np.broadcast_arrays(t, a.mask._data)[1]]
        ),
    ),
)


def masked_select(x: Tensor, mask: Tensor) -> Tensor:
    m = _mask_of(mask, "masked_select")
    try:
        xb, mb = np.broadcast_arrays(x._data, m)
    except ValueError:
        raise RuntimeError(
            f"The size of tensor a ({x._data.shape[-1]}) must match the size of tensor b "
            f"({m.shape[-1]}) at non-singleton dimension 0"
        ) from None
    return apply(MASKED_SELECT, "masked_select", (x,), np.array(xb[mb]), x._dtype, (mask,))


def _masked_scatter_np(a: np.ndarray, m: np.ndarray, src: np.ndarray) -> np.ndarray:
    out = np.array(a, copy=True)
    mb = np.broadcast_to(m, out.shape)
    n = int(mb.sum())
    flat = src.reshape(-1)
    if flat.size < n:
        raise RuntimeError(
            "masked_scatter: expected source to have at least as many elements as ones in mask"
        )
    out[mb] = flat[:n]
    return out


def _masked_scatter_source(k: Any, g: Any, s: Any, a: Any) -> Any:
    m = a.mask._data
    size = a.source_sym_sizes

    def arrays() -> Any:
        picked = np.broadcast_to(g, np.broadcast_shapes(g.shape, m.shape))[
            np.broadcast_to(m, np.broadcast_shapes(g.shape, m.shape))
        ]
        flat = np.zeros(int(np.prod(size)), g.dtype)
        flat[: picked.size] = picked
        return flat.reshape(size)

    def tensors() -> Any:
        picked = masked_select(g, a.mask)
        pad = int(np.prod(size)) - picked._data.size
        if pad:
            picked = cat([picked, wrap(np.zeros(pad, g._data.dtype))])
        return picked.reshape(size)

    return np_or(k, arrays, tensors)


def _masked_scatter_self(k: Any, g: Any, s: Any, a: Any) -> Any:
    return k.where0(~a.mask._data, g)


MASKED_SCATTER = node_class(
    "MaskedScatterBackward0",
    (_masked_scatter_self, _masked_scatter_source),
    attrs=("mask", "source_sym_sizes"),
    jvp=(
        lambda t, p, o, a: np.where(a.mask._data, 0, t),
        lambda t, p, o, a: _masked_scatter_np(np.zeros(o.shape, t.dtype), a.mask._data, t),
    ),
)


def masked_scatter(x: Tensor, mask: Tensor, source: Tensor) -> Tensor:
    m = _mask_of(mask, "masked_scatter")
    shape = np.broadcast_shapes(x._data.shape, m.shape)
    data = _masked_scatter_np(np.broadcast_to(x._data, shape), m, source._data)
    attrs = (mask, source._data.shape)
    return apply(MASKED_SCATTER, "masked_scatter", (x, source), data, x._dtype, attrs)


def masked_scatter_(x: Tensor, mask: Tensor, source: Tensor) -> Tensor:
    m = _mask_of(mask, "masked_scatter_")
    return inplace(
        x,
        "masked_scatter_",
        MASKED_SCATTER,
        lambda a: _masked_scatter_np(a, m, source._data),
        (source,),
        (mask, source._data.shape),
    )


# --------------------------------------------------------------------------------------------
# index_fill / index_copy (shapeops helper, round 6), out of place and in place. torch's
# formulas: self's gradient is grad.index_fill(dim, index, 0); a tensor fill value's is
# grad.index_select(dim, unique(index)).sum(); index_copy's source gets
# grad.index_select(dim, index).
# --------------------------------------------------------------------------------------------
def _fill_index(x: Tensor, dim: int, index: Tensor, name: str) -> tuple[int, np.ndarray]:
    if index._dtype.name != "int64":
        if name.startswith("index_copy"):
            raise RuntimeError(
                f"index_copy_(): Expected a long tensor for index, but got "
                f"{index._dtype.legacy.replace('Tensor', '')}"
            )
        raise IndexError("index_fill_(): Expected dtype int64 for index.")
    if index._data.ndim > 1:
        raise RuntimeError("Index has to be a vector/scalar")
    nd = x._data.ndim
    d = dim_index(dim, nd)
    size = x._data.shape[d] if nd else 1
    idx = index._data.reshape(-1)
    bad = idx[(idx < -size) | (idx >= size)]
    if bad.size:
        what = "index_copy_(): index" if name.startswith("index_copy") else "index"
        raise IndexError(
            f"{what} {int(bad[0])} is out of bounds for dimension {d} with size {size}"
        )
    return d, idx % max(size, 1)


def _at(nd: int, d: int, idx: np.ndarray) -> tuple[Any, ...]:
    return (slice(None),) * d + (idx,) if nd else ()


def _filled_np(a: np.ndarray, d: int, idx: np.ndarray, value: Any) -> np.ndarray:
    out = a.copy()
    out[_at(a.ndim, d, idx)] = value
    return out


def _zero_self(k: Any, g: Any, s: Any, a: Any) -> Any:
    def arrays() -> Any:
        d, idx = _fill_index(wrap(g), a.dim, a.index, "index_fill")
        return _filled_np(g, d, idx, 0)

    return np_or(k, arrays, lambda: index_fill(g, a.dim, a.index, 0))


def _fill_value_back(k: Any, g: Any, s: Any, a: Any) -> Any:
    uniq = wrap(np.unique(a.index._data.reshape(-1)))
    return np_or(
        k,
        lambda: np.asarray(np.sum(_index_select_np(g, a.dim % max(g.ndim, 1), uniq._data))),
        lambda: index_select(g, a.dim, uniq).sum(),
    )


def _norm_idx(a: Any, o: np.ndarray) -> tuple[int, np.ndarray]:
    d = a.dim % max(o.ndim, 1)
    return d, a.index._data.reshape(-1) % max(o.shape[d] if o.ndim else 1, 1)


def _fill_jvp(t: Any, p: Any, o: Any, a: Any) -> Any:
    d, idx = _norm_idx(a, o)
    return _filled_np(np.broadcast_to(t, o.shape), d, idx, 0)


def _value_jvp(t: Any, p: Any, o: Any, a: Any) -> Any:
    d, idx = _norm_idx(a, o)
    return _filled_np(np.zeros(o.shape, o.dtype), d, idx, t)


def _source_jvp(t: Any, p: Any, o: Any, a: Any) -> Any:
    d, idx = _norm_idx(a, o)
    return _copy_np(np.zeros(o.shape, o.dtype), d, idx, np.asarray(t))


INDEX_FILL0 = node_class(
    "IndexFillBackward0", (_zero_self,), attrs=("dim", "index"), jvp=(_fill_jvp,)
)
INDEX_FILL1 = node_class(
    "IndexFillBackward1",
    (_zero_self, _fill_value_back),
    attrs=("dim", "index"),
    jvp=(_fill_jvp, _value_jvp),
)


def _fill_parts(x: Tensor, dim: int, index: Tensor, value: Any, name: str) -> Any:
    d, idx = _fill_index(x, dim, index, name)
    if isinstance(value, Tensor):
        if value._data.ndim:
            raise RuntimeError(
                "index_fill_ only supports a 0-dimensional value tensor, but got tensor with "
                f"{value._data.ndim} dimension(s)."
            )
        return d, idx, value._data, INDEX_FILL1, (value,)
    return d, idx, value, INDEX_FILL0, ()


def index_fill(input: Tensor, dim: int, index: Tensor, value: Any) -> Tensor:  # noqa: A002
    d, idx, v, cls, others = _fill_parts(input, dim, index, value, "index_fill")
    data = _filled_np(input._data, d, idx, v)
    return apply(cls, "index_fill", (input, *others), data, input._dtype, (dim, index))


def index_fill_(input: Tensor, dim: int, index: Tensor, value: Any) -> Tensor:  # noqa: A002
    d, idx, v, cls, others = _fill_parts(input, dim, index, value, "index_fill_")
    return inplace(
        input, "index_fill_", cls, lambda a: _filled_np(a, d, idx, v), others, (dim, index)
    )


def _copy_source_back(k: Any, g: Any, s: Any, a: Any) -> Any:
    (src,) = s
    shape = np.shape(k.data(src))

    def arrays() -> Any:
        r = _index_select_np(
            g,
            a.dim % max(g.ndim, 1),
            a.index._data.reshape(-1) % max(g.shape[a.dim] if g.ndim else 1, 1),
        )
        return np.broadcast_to(r, shape).copy() if shape else r.reshape(())

    def tensors() -> Any:
        r = index_select(g, a.dim, a.index.reshape(-1))
        return r.expand(*shape) if shape else r.reshape(())

    return np_or(k, arrays, tensors)


INDEX_COPY = node_class(
    "IndexCopyBackward0",
    (_zero_self, _copy_source_back),
    saved=(Saved("source", 1, (1,)),),
    attrs=("dim", "index", "source_dim"),
    jvp=(_fill_jvp, _source_jvp),
)


def _copy_np(a: np.ndarray, d: int, idx: np.ndarray, src: np.ndarray) -> np.ndarray:
    out = a.copy()
    if not a.ndim:
        out[()] = src.reshape(())
        return out
    out[_at(a.ndim, d, idx % a.shape[d])] = src if src.ndim else src.reshape((1,) * a.ndim)
    return out


def _copy_parts(x: Tensor, dim: int, index: Tensor, source: Tensor) -> tuple[int, np.ndarray]:
    d, idx = _fill_index(x, dim, index, "index_copy_")
    n_src = source._data.shape[d] if source._data.ndim else 1
    if idx.size != n_src:
        raise IndexError(
            f"index_copy_(): Number of indices ({idx.size}) should be equal to source.size(dim) "
            f"({n_src})"
        )
    return d, idx


def index_copy(input: Tensor, dim: int, index: Tensor, source: Tensor) -> Tensor:  # noqa: A002
    d, idx = _copy_parts(input, dim, index, source)
    data = _copy_np(input._data, d, idx, source._data.astype(input._data.dtype))
    attrs = (dim, index, source._data.ndim)
    return apply(INDEX_COPY, "index_copy", (input, source), data, input._dtype, attrs)


def index_copy_(input: Tensor, dim: int, index: Tensor, source: Tensor) -> Tensor:  # noqa: A002
    d, idx = _copy_parts(input, dim, index, source)
    sd = source._data.astype(input._data.dtype)
    return inplace(
        input,
        "index_copy_",
        INDEX_COPY,
        lambda a: _copy_np(a, d, idx, sd),
        (source,),
        (dim, index, source._data.ndim),
    )
