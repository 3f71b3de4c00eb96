"""Ops that rearrange or repeat elements: tril/triu, repeat/tile, repeat_interleave, flip,
roll, diagonal (a view), diag, diag_embed, outer. Each backward is the matching op on the
gradient (flip's is flip, diagonal's writes into zeros, repeat's sums the copies), so a
create_graph backward stays differentiable; repeat_interleave and outer are compositions, as
in torch (their grad_fn is the last op of the composition).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from detachviz.engine import function as kit
from detachviz.engine.function import apply
from detachviz.engine.node import node_class
from detachviz.engine.ops.scatter import dim_index, index_select, np_or
from detachviz.engine.ops.view import reshape
from detachviz.engine.tensor import Tensor, wrap


def _ints(args: tuple[Any, ...]) -> tuple[int, ...]:
    if len(args) == 1 and isinstance(args[0], (tuple, list)):
        args = tuple(args[0])
    return tuple(int(a) for a in args)


# -------------------------------------------------------------------------- tril / triu


def _tri(name: str, fn: Any) -> tuple[Any, Any]:
    cls = node_class(
        f"{name.capitalize()}Backward0",
        (lambda k, g, s, a: np_or(k, lambda: fn(g, a.diagonal), lambda: op(g, a.diagonal)),),
        attrs=("diagonal",),
        jvp=(lambda t, p, o, a: fn(t, a.diagonal),),
    )

    def op(x: Tensor, diagonal: int = 0) -> Tensor:
        if x._data.ndim < 2:
            raise RuntimeError(f"{name}: input tensor must have at least 2 dimensions")
        return apply(cls, name, (x,), fn(x._data, diagonal), x._dtype, (diagonal,))

    op.__name__ = name
    return cls, op


TRIL, tril = _tri("tril", np.tril)
TRIU, triu = _tri("triu", np.triu)


# ------------------------------------------------------------------------ repeat / tile


def _repeat_back(k: Any, g: Any, s: Any, a: Any) -> Any:
    reps, sizes = a.repeats, a.self_sym_sizes
    padded = (1,) * (len(reps) - len(sizes)) + tuple(sizes)
    split: list[int] = []
    for r, n in zip(reps, padded):
        split += [r, n]
    axes = tuple(range(0, 2 * len(reps), 2))
    gr = k.reshape(g, tuple(split))
    summed = np_or(k, lambda: gr.sum(axis=axes), lambda: gr.sum(axes))
    return k.reshape(summed, tuple(sizes))


REPEAT = node_class(
    "RepeatBackward0",
    (_repeat_back,),
    attrs=("repeats", "self_sym_sizes"),
    jvp=(lambda t, p, o, a: np.tile(t, a.repeats),),
)


def repeat(x: Tensor, *sizes: Any) -> Tensor:
    reps = _ints(sizes)
    if len(reps) < x._data.ndim:
        raise RuntimeError(
            "Number of dimensions of repeat dims can not be smaller than number of dimensions of "
            "tensor"
        )
    data = np.tile(x._data, reps) if reps else x._data.copy()
    return apply(REPEAT, "repeat", (x,), data, x._dtype, (reps, x._data.shape))


def tile(x: Tensor, *dims: Any) -> Tensor:
    reps = _ints(dims)
    reps = (1,) * (x._data.ndim - len(reps)) + reps
    return repeat(x, reps)


def repeat_interleave(
    x: Tensor, repeats: Any = None, dim: Any = None, *, output_size: Any = None
) -> Tensor:
    """Torch's composition: int repeats unsqueeze, expand, clone and view; tensor repeats
    index_select with the repeated positions; no dim flattens first."""
    if repeats is None:  # torch.repeat_interleave(repeats): the repeated positions themselves
        counts = x._data.astype(np.int64)
        return apply(None, "repeat_interleave", (x,), np.repeat(np.arange(counts.size), counts))
    if dim is None:
        x = reshape(x, -1)
        dim = 0
    d = dim_index(dim, x._data.ndim)
    if isinstance(repeats, Tensor) and repeats._data.size != 1:
        counts = repeats._data.astype(np.int64).reshape(-1)
        if counts.size != x._data.shape[d]:
            raise RuntimeError("repeats must have the same size as input along dim")
        pos = wrap(np.repeat(np.arange(counts.size, dtype=np.int64), counts))
        return index_select(x, d, pos)
    r = int(repeats.item() if isinstance(repeats, Tensor) else repeats)
    shp = x._data.shape if x._data.ndim else (1,)
    if not x._data.ndim:
        x = reshape(x, 1)
    u = x.unsqueeze(d + 1)
    e = u.expand(*shp[: d + 1], r, *shp[d + 1 :])
    c = e.clone()
    return c.view(*shp[:d], shp[d] * r, *shp[d + 1 :])


# --------------------------------------------------------------------------- flip / roll


def _dims_of(dims: tuple[Any, ...], nd: int) -> tuple[int, ...]:
    return tuple(dim_index(d, nd) for d in _ints(dims))


FLIP = node_class(
    "FlipBackward0",
    (lambda k, g, s, a: np_or(k, lambda: np.flip(g, a.dims).copy(), lambda: flip(g, a.dims)),),
    attrs=("dims",),
    jvp=(lambda t, p, o, a: np.flip(t, a.dims).copy(),),
)


def flip(x: Tensor, *dims: Any) -> Tensor:
    ds = _dims_of(dims, x._data.ndim)
    data = np.flip(x._data, ds).copy() if x._data.ndim else x._data.copy()
    return apply(FLIP, "flip", (x,), data, x._dtype, (_ints(dims),))


def _roll_np(a: np.ndarray, shifts: tuple[int, ...], dims: tuple[int, ...]) -> np.ndarray:
    if not dims:
        return np.roll(a.reshape(-1), shifts[0]).reshape(a.shape)
    return np.roll(a, shifts, dims)


def _unroll(a: Any) -> tuple[int, ...]:
    return tuple(-s for s in a.shifts)


ROLL = node_class(
    "RollBackward0",
    (
        lambda k, g, s, a: np_or(
            k, lambda: _roll_np(g, _unroll(a), a.dims), lambda: roll(g, _unroll(a), a.dims)
        ),
    ),
    attrs=("dims", "shifts"),
    jvp=(lambda t, p, o, a: _roll_np(t, a.shifts, a.dims),),
)


def roll(x: Tensor, shifts: Any, dims: Any = None) -> Tensor:
    sh = _ints((shifts,)) if isinstance(shifts, (tuple, list)) else (int(shifts),)
    ds = () if dims is None else (_ints((dims,)) if isinstance(dims, (tuple, list)) else (dims,))
    if ds and len(ds) != len(sh):
        raise RuntimeError(f"shifts and dimensions must align. shifts: {len(sh)}, dims:{len(ds)}")
    if not ds and len(sh) != 1:
        raise RuntimeError(f"shifts and dimensions must align. shifts: {len(sh)}, dims:0")
    nd = x._data.ndim
    data = _roll_np(x._data, sh, tuple(dim_index(d, nd) for d in ds))
    return apply(ROLL, "roll", (x,), data, x._dtype, (tuple(ds), sh))


# ----------------------------------------------------------------- diagonal / diag_embed


def _diag_view(a: np.ndarray, offset: int, d1: int, d2: int) -> np.ndarray:
    """The writeable strided view of `a`'s diagonal (np.diagonal's is read-only)."""
    b = np.moveaxis(a, (d1, d2), (-2, -1))
    b = b[..., :, offset:] if offset >= 0 else b[..., -offset:, :]
    n = max(0, min(b.shape[-2], b.shape[-1]))
    st = b.strides
    return np.lib.stride_tricks.as_strided(
        b, b.shape[:-2] + (n,), st[:-2] + (st[-2] + st[-1],), writeable=a.flags.writeable
    )


def _diag_embed_np(g: np.ndarray, sizes: tuple[int, ...], offset: int, d1: int, d2: int) -> Any:
    out = np.zeros(sizes, dtype=g.dtype)
    _diag_view(out, offset, d1, d2)[...] = g
    return out


def _diagonal_back(k: Any, g: Any, s: Any, a: Any) -> Any:
    sizes = tuple(a.self_sym_sizes)
    nd = len(sizes)
    d1, d2 = a.dim1 % nd, a.dim2 % nd
    return np_or(
        k,
        lambda: _diag_embed_np(g, sizes, a.offset, d1, d2),
        lambda: diagonal_backward(g, sizes, a.offset, d1, d2),
    )


_DIAG_ATTRS = ("dim1", "dim2", "offset", "self_sym_sizes")


def _diagonal_jvp(t: Any, p: Any, o: Any, a: Any) -> Any:
    nd = t.ndim
    return _diag_view(t, a.offset, a.dim1 % nd, a.dim2 % nd)


DIAGONAL = node_class(
    "DiagonalBackward0", (_diagonal_back,), attrs=_DIAG_ATTRS, jvp=(_diagonal_jvp,)
)
DIAGONAL_COPY = node_class(
    "DiagonalBackward0_copy",
    (_diagonal_back,),
    attrs=_DIAG_ATTRS,
    jvp=(lambda t, p, o, a: np.array(_diagonal_jvp(t, p, o, a)),),
)
DIAGONAL_BACK = node_class(
    "DiagonalBackwardBackward0",
    (
        lambda k, g, s, a: np_or(
            k,
            lambda: np.array(_diag_view(g, a.offset, a.dim1, a.dim2)),
            lambda: diagonal(g, a.offset, a.dim1, a.dim2),
        ),
    ),
    attrs=("dim1", "dim2", "offset"),
    jvp=(lambda t, p, o, a: _diag_embed_np(t, o.shape, a.offset, a.dim1, a.dim2),),
)


def diagonal_backward(g: Tensor, sizes: tuple[int, ...], offset: int, d1: int, d2: int) -> Tensor:
    data = _diag_embed_np(g._data, sizes, offset, d1, d2)
    return apply(DIAGONAL_BACK, "diagonal_backward", (g,), data, g._dtype, (d1, d2, offset))


def _diag_dims(x: Tensor, dim1: int, dim2: int) -> tuple[int, int]:
    nd = x._data.ndim
    d1, d2 = dim_index(dim1, nd), dim_index(dim2, nd)
    if d1 == d2:
        raise RuntimeError(f"diagonal dimensions cannot be identical {dim1}, {dim2}")
    return d1, d2


def diagonal(x: Tensor, offset: int = 0, dim1: int = 0, dim2: int = 1) -> Tensor:
    d1, d2 = _diag_dims(x, dim1, dim2)
    data = _diag_view(x._data, offset, d1, d2)
    return kit.view(DIAGONAL, "diagonal", x, data, (dim1, dim2, offset, x._data.shape))


def _embed_back(k: Any, g: Any, s: Any, a: Any) -> Any:
    nd = np.ndim(k.data(g))
    d1, d2 = a.dim1 % nd, a.dim2 % nd
    return np_or(
        k,
        lambda: np.array(_diag_view(g, a.offset, d1, d2)),
        lambda: diagonal(g, a.offset, d1, d2),
    )


DIAG_EMBED = node_class(
    "DiagEmbedBackward0",
    (_embed_back,),
    attrs=("dim1", "dim2", "offset"),
    jvp=(
        lambda t, p, o, a: _diag_embed_np(t, o.shape, a.offset, a.dim1 % o.ndim, a.dim2 % o.ndim),
    ),
)


def diag_embed(x: Tensor, offset: int = 0, dim1: int = -2, dim2: int = -1) -> Tensor:
    nd = x._data.ndim + 1
    d1, d2 = dim_index(dim1, nd), dim_index(dim2, nd)
    if d1 == d2:
        raise RuntimeError(f"diagonal dimensions cannot be identical {dim1}, {dim2}")
    n = (x._data.shape[-1] if x._data.ndim else 1) + abs(offset)
    rest = list(x._data.shape[:-1])
    sizes: list[int] = []
    for i in range(nd):
        sizes.append(n if i in (d1, d2) else rest.pop(0))
    src = x._data if x._data.ndim else x._data.reshape(1)
    data = _diag_embed_np(src, tuple(sizes), offset, d1, d2)
    return apply(DIAG_EMBED, "diag_embed", (x,), data, x._dtype, (dim1, dim2, offset))


def diag(x: Tensor, diagonal: int = 0) -> Tensor:
    nd = x._data.ndim
    if nd == 1:
        n = x._data.shape[0] + abs(diagonal)
        data = _diag_embed_np(x._data, (n, n), diagonal, 0, 1)
        return apply(DIAG_EMBED, "diag", (x,), data, x._dtype, (0, 1, diagonal))
    if nd != 2:
        raise RuntimeError("diag(): Supports 1D or 2D tensors. Got " + f"{nd}D")
    data = np.array(_diag_view(x._data, diagonal, 0, 1))
    return apply(DIAGONAL_COPY, "diag", (x,), data, x._dtype, (0, 1, diagonal, x._data.shape))


# ---------------------------------------------------------------------------------- outer


def outer(x: Tensor, vec2: Tensor) -> Tensor:
    for name, t in (("self", x), ("vec2", vec2)):
        if t._data.ndim != 1:
            raise RuntimeError(f"outer: Expected 1-D argument {name}, but got {t._data.ndim}-D")
    return reshape(x, x._data.shape[0], 1) * vec2
