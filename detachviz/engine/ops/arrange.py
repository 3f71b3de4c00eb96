"""Shape ops that torch writes as compositions of other ops (so their graphs are the nodes of
the composition, as torch's are): movedim/moveaxis (permute), swapaxes/swapdims (transpose),
ravel (contiguous + view), broadcast_to/broadcast_tensors (expand), unflatten (view), select,
tensor_split/hsplit/vsplit/dsplit (slices), split_with_sizes, hstack/vstack/dstack/
column_stack and atleast_1d/2d/3d (views + cat), fliplr/flipud (flip), meshgrid (view +
expand), take_along_dim (expand + gather), diagflat (view + diag_embed), sum_to_size (sum +
view), diff (narrow + sub), tensordot/inner (permute + reshape + mm), kron (unsafe views and
mul), matrix_power (torch's binary decomposition into matmuls).

The ops with a backward node of their own live at the end: rot90 (Rot90Backward0), unfold
(UnfoldBackward0, a view), take (TakeBackward0), trace (TraceBackward0).
"""

from __future__ import annotations

import builtins
import operator
import warnings
from typing import Any

import numpy as np

from detachviz.engine import function as kit
from detachviz.engine.function import apply
from detachviz.engine.node import Saved, node_class
from detachviz.engine.ops import arith, join, linalg, reduce, view
from detachviz.engine.ops.layout import diag_embed, flip
from detachviz.engine.ops.scatter import dim_index, gather, np_or
from detachviz.engine.ops.unary import clone, clone_np, contiguous
from detachviz.engine.size import Size
from detachviz.engine.tensor import Tensor, init_tensor, wrap


def init_new(data: np.ndarray, dtype: Any) -> Tensor:
    out = object.__new__(Tensor)
    init_tensor(out, data, dtype)
    return out


def _ints(args: tuple[Any, ...]) -> tuple[int, ...]:
    if len(args) == 1 and isinstance(args[0], (tuple, list, Size)):
        args = tuple(args[0])
    return tuple(operator.index(a) for a in args)


def _dims_list(v: Any) -> list[int]:
    return [operator.index(d) for d in v] if isinstance(v, (tuple, list)) else [operator.index(v)]


def _wrap_dim(d: int, nd: int) -> int:
    return dim_index(d, max(nd, 1))


# ------------------------------------------------------------------- permutations and views


def movedim(input: Tensor, source: Any, destination: Any) -> Tensor:  # noqa: A002
    nd = input._data.ndim
    src, dst = _dims_list(source), _dims_list(destination)
    if len(src) != len(dst):
        raise RuntimeError(
            f"movedim: Invalid source or destination dims: source ({src} dims) should contain "
            f"the same number of dims as destination ({dst} dims)"
        )
    if nd == 0:
        return kit.view(view.ALIAS, "alias", input, input._data.view())
    s = [_wrap_dim(d, nd) for d in src]
    t = [_wrap_dim(d, nd) for d in dst]
    if len(set(s)) != len(s):
        raise RuntimeError(f"movedim: repeated dim in `source` ({src})")
    if len(set(t)) != len(t):
        raise RuntimeError(f"movedim: repeated dim in `destination` ({dst})")
    order: list[int | None] = [None] * nd
    for a, b in zip(s, t):
        order[b] = a
    rest = iter(d for d in range(nd) if d not in s)
    perm = [next(rest) if o is None else o for o in order]
    return view.permute(input, perm)


def swapaxes(input: Tensor, axis0: int, axis1: int) -> Tensor:  # noqa: A002
    return view.transpose(input, axis0, axis1)


def ravel(input: Tensor) -> Tensor:  # noqa: A002
    return view.view(contiguous(input), -1)


def unflatten(input: Tensor, dim: int, sizes: Any) -> Tensor:  # noqa: A002
    shp = input._data.shape
    d = _wrap_dim(dim, len(shp))
    sizes = _ints((sizes,))
    if not sizes:
        raise RuntimeError("unflatten: sizes must be non-empty")
    return view.view(input, shp[:d] + sizes + shp[d + 1 :])


def select(input: Tensor, dim: int, index: int) -> Tensor:  # noqa: A002
    shp = input._data.shape
    if not shp:
        raise IndexError("select() cannot be applied to a 0-dim tensor.")
    d = _wrap_dim(dim, len(shp))
    i = operator.index(index)
    size = shp[d]
    if not -size <= i < size:
        raise IndexError(
            f"select(): index {i} out of range for tensor of size {list(shp)} at dimension {d}"
        )
    i = i % size
    data = input._data[(slice(None),) * d + (i, Ellipsis)]
    return kit.view(view.SELECT, "select", input, data, (d, i, shp))


def _slice(x: Tensor, d: int, start: int, end: int) -> Tensor:
    data = x._data[(slice(None),) * d + (slice(start, end),)]
    return kit.view(view.SLICE, "slice", x, data, (d, start, end, 1, x._data.shape))


# ------------------------------------------------------------------------------- broadcasting


def broadcast_shapes(*shapes: Any) -> Size:
    out: list[int] = []
    for k, s in enumerate(shapes):
        shape = (operator.index(s),) if not isinstance(s, (tuple, list, Size)) else _ints((s,))
        if len(shape) > len(out):
            out = [1] * (len(shape) - len(out)) + out
        for i in range(1, len(shape) + 1):
            have, want = shape[-i], out[-i]
            if have == want or have == 1:
                continue
            if want != 1:
                raise RuntimeError(
                    f"Attempting to broadcast a dimension of length {have} at {-i}! Mismatching "
                    f"argument at index {k} had {tuple(shape)}; but expected shape should be "
                    f"broadcastable to {out}"
                )
            out[-i] = have
    return Size(out)


def broadcast_to(input: Tensor, size: Any) -> Tensor:  # noqa: A002
    sizes = _ints((size,))
    shp = input._data.shape
    lead = len(sizes) - len(shp)
    for i, s in enumerate(sizes):
        have = shp[i - lead] if i >= lead else 1
        if i >= lead and s != -1 and have != 1 and have != s:
            raise RuntimeError(
                f"The expanded size of the tensor ({s}) must match the existing size ({have}) at "
                f"non-singleton dimension {i}.  Target sizes: {list(sizes)}.  Tensor sizes: "
                f"{list(shp)}"
            )
    return view.expand(input, sizes)


def _shape_error(a: tuple[int, ...], b: tuple[int, ...]) -> RuntimeError:
    n = max(len(a), len(b))
    pa, pb = (1,) * (n - len(a)) + a, (1,) * (n - len(b)) + b
    for i in range(n - 1, -1, -1):
        if pa[i] != pb[i] and pa[i] != 1 and pb[i] != 1:
            return RuntimeError(
                f"The size of tensor a ({pa[i]}) must match the size of tensor b ({pb[i]}) at "
                f"non-singleton dimension {i}"
            )
    return RuntimeError("shapes cannot be broadcast")


def broadcast_tensors(*tensors: Any) -> tuple[Tensor, ...]:
    if len(tensors) == 1 and isinstance(tensors[0], (tuple, list)):
        tensors = tuple(tensors[0])
    shape: tuple[int, ...] = ()
    for t in tensors:
        try:
            shape = np.broadcast_shapes(shape, t._data.shape)
        except ValueError:
            raise _shape_error(shape, t._data.shape) from None
    # NOTE: torch returns a tensor already of the common shape itself, not a view of it
    return tuple(t if t._data.shape == shape else view.expand(t, shape) for t in tensors)


def meshgrid(*tensors: Any, indexing: str | None = None) -> tuple[Tensor, ...]:
    if len(tensors) == 1 and isinstance(tensors[0], (tuple, list)):
        tensors = tuple(tensors[0])
    if indexing is None:
        warnings.warn(
            "torch.meshgrid: in an upcoming release, it will be required to pass the indexing "
            "argument.",
            UserWarning,
            stacklevel=2,
        )
        indexing = "ij"
    if indexing not in ("ij", "xy"):
        raise RuntimeError(
            f'torch.meshgrid: indexing must be one of "xy" or "ij", but received: {indexing}'
        )
    if not tensors:
        raise RuntimeError("meshgrid expects a non-empty TensorList")
    for t in tensors:
        if t._data.ndim > 1:
            raise RuntimeError(
                f"torch.meshgrid: Expected 0D or 1D tensor in the tensor list but got: {t}"
            )
    ts = list(tensors)
    swap = indexing == "xy" and len(ts) >= 2
    if swap:
        ts[0], ts[1] = ts[1], ts[0]
    shape = tuple(int(t._data.size) for t in ts)
    grids = []
    for i, t in enumerate(ts):
        vs = [1] * len(ts)
        vs[i] = -1
        grids.append(view.expand(view.view(t, tuple(vs)), shape))
    if swap:
        grids[0], grids[1] = grids[1], grids[0]
    return tuple(grids)


def take_along_dim(input: Tensor, indices: Tensor, dim: int | None = None) -> Tensor:  # noqa: A002
    if indices._dtype.name != "int64":
        raise RuntimeError(
            "torch.take_along_dim(): dtype of indices should be Long but got "
            f"{indices._dtype.legacy.replace('Tensor', '')}"
        )
    if dim is None:
        return gather(view.view(input, -1), 0, view.view(indices, -1))
    nd = input._data.ndim
    if nd != indices._data.ndim:
        raise RuntimeError(
            "torch.take_along_dim(): input and indices should have the same number of "
            f"dimensions, but got {nd} dimensions for input, and {indices._data.ndim} "
            "dimensions for indices"
        )
    d = _wrap_dim(dim, nd)
    sizes = list(input._data.shape)
    sizes[d] = indices._data.shape[d]
    try:
        common = list(np.broadcast_shapes(tuple(sizes), indices._data.shape))
    except ValueError:
        raise _shape_error(tuple(sizes), indices._data.shape) from None
    idx = broadcast_to(indices, common)
    common[d] = input._data.shape[d]
    return gather(broadcast_to(input, common), d, idx)


# ------------------------------------------------------------------------------------ splits


def _split_points(name: str, x: Tensor, spec: Any, d: int) -> list[tuple[int, int]]:
    size = x._data.shape[d]
    if isinstance(spec, Tensor):
        if spec._dtype.name != "int64":
            raise RuntimeError(
                f"{name} expected tensor_indices_or_sections to have integer dtype, but got "
                f"{spec._dtype.legacy.replace('Tensor', '')}"
            )
        if spec._data.ndim > 1:
            raise RuntimeError(
                f"{name} expected tensor_indices_or_sections to be a zero-dimensional or "
                f"one-dimensional tensor, but got a tensor with {spec._data.ndim} dims"
            )
        spec = int(spec._data) if spec._data.ndim == 0 else [int(v) for v in spec._data]
    if isinstance(spec, (list, tuple)):
        # torch's slices [prev, i) of each index, as `slice` clamps them (may be empty)
        def clamp(i: int) -> int:
            return min(max(i + size if i < 0 else i, 0), size)

        points = [0] + [operator.index(i) for i in spec] + [size]
        bounds = []
        for a, b in zip(points, points[1:]):
            s0, e0 = clamp(a), clamp(b)
            bounds.append((s0, max(s0, e0)))
        return bounds
    n = operator.index(spec)
    if n <= 0:
        raise RuntimeError(f"number of sections must be larger than 0, got {n}")
    base, extra = divmod(size, n)
    bounds, start = [], 0
    for k in range(n):
        stop = start + base + (1 if k < extra else 0)
        bounds.append((start, stop))
        start = stop
    return bounds


def tensor_split(
    input: Tensor,  # noqa: A002
    indices_or_sections: Any,
    dim: int = 0,
) -> tuple[Tensor, ...]:
    nd = input._data.ndim
    if nd == 0:
        raise RuntimeError(
            "tensor_split expected at least a 1-dimensional tensor, but got a tensor with 0 dims"
        )
    d = _wrap_dim(dim, nd)
    bounds = _split_points("tensor_split", input, indices_or_sections, d)
    return tuple(_slice(input, d, b, e) for b, e in bounds)


def _dir_split(name: str, need: int, dim: int) -> Any:
    def op(input: Tensor, indices_or_sections: Any) -> tuple[Tensor, ...]:  # noqa: A002
        nd = input._data.ndim
        d = dim if nd > 1 or name != "hsplit" else 0
        if nd < need:
            raise RuntimeError(
                f"torch.{name} requires a tensor with at least {need} dimension, but got a "
                f"tensor with {nd} dimensions!"
            )
        if isinstance(indices_or_sections, int):
            size = input._data.shape[d]
            n = indices_or_sections
            if n == 0 or size % n:
                raise RuntimeError(
                    f"torch.{name} attempted to split along dimension {d}, but the size of the "
                    f"dimension {size} is not divisible by the split_size {n}!"
                )
        return tensor_split(input, indices_or_sections, d)

    op.__name__ = name
    return op


hsplit = _dir_split("hsplit", 1, 1)
vsplit = _dir_split("vsplit", 2, 0)
dsplit = _dir_split("dsplit", 3, 2)


def split_with_sizes(input: Tensor, split_sizes: Any, dim: int = 0) -> tuple[Tensor, ...]:  # noqa: A002
    return view.split(input, list(_ints((split_sizes,))), dim)


# ------------------------------------------------------------------------ stacks and atleast


def _atleast(n: int) -> Any:
    def one(t: Tensor) -> Tensor:
        nd = t._data.ndim
        if nd >= n:
            return t
        if nd == 0:
            return view.reshape(t, (1,) * n)
        if n == 2 or nd == 2:  # (k,) -> (1, k); (a, b) -> (a, b, 1)
            return view.unsqueeze(t, 0 if n == 2 else -1)
        return view.unsqueeze(view.unsqueeze(t, 0), -1)  # (k,) -> (1, k, 1)

    def op(*tensors: Any) -> Any:
        if len(tensors) == 1 and isinstance(tensors[0], Tensor):
            return one(tensors[0])
        if len(tensors) == 1 and isinstance(tensors[0], (tuple, list)):
            tensors = tuple(tensors[0])
        return tuple(one(t) for t in tensors)

    op.__name__ = f"atleast_{n}d"
    return op


atleast_1d = _atleast(1)
atleast_2d = _atleast(2)
atleast_3d = _atleast(3)


def _tensor_list(name: str, tensors: Any) -> list[Tensor]:
    if isinstance(tensors, Tensor) or not isinstance(tensors, (tuple, list)):
        raise TypeError(
            f"{name}(): argument 'tensors' (position 1) must be tuple of Tensors, not "
            f"{type(tensors).__name__}"
        )
    if not tensors:
        raise RuntimeError(f"{name} expects a non-empty TensorList")
    return list(tensors)


def hstack(tensors: Any) -> Tensor:
    ts = [atleast_1d(t) for t in _tensor_list("hstack", tensors)]
    return join.cat(ts, 0 if ts[0]._data.ndim == 1 else 1)


def vstack(tensors: Any) -> Tensor:
    return join.cat([atleast_2d(t) for t in _tensor_list("vstack", tensors)], 0)


def dstack(tensors: Any) -> Tensor:
    return join.cat([atleast_3d(t) for t in _tensor_list("dstack", tensors)], 2)


def column_stack(tensors: Any) -> Tensor:
    ts = _tensor_list("column_stack", tensors)
    cols = [view.reshape(t, (t._data.size, 1)) if t._data.ndim <= 1 else t for t in ts]
    return hstack(cols)


# -------------------------------------------------------------------------------- flips


def fliplr(input: Tensor) -> Tensor:  # noqa: A002
    if input._data.ndim < 2:
        raise RuntimeError("Input must be >= 2-d.")
    return flip(input, 1)


def flipud(input: Tensor) -> Tensor:  # noqa: A002
    if input._data.ndim < 1:
        raise RuntimeError("Input must be >= 1-d.")
    return flip(input, 0)


# ------------------------------------------------------------------------- sums and diffs


def diagflat(input: Tensor, offset: int = 0) -> Tensor:  # noqa: A002
    return diag_embed(view.view(contiguous(input), -1), offset)


def sum_to_size(input: Tensor, *size: Any) -> Tensor:  # noqa: A002
    shape = _ints(size)
    shp = input._data.shape
    lead = len(shp) - len(shape)
    ok = lead >= 0 and all(s in (1, shp[lead + i]) for i, s in enumerate(shape))
    if not ok:
        want = ", ".join(map(str, shape))
        have = ", ".join(map(str, shp))
        raise RuntimeError(f"size {{[{want}]}} is not expandable to size {{[{have}]}}.")
    if shape == shp:
        return input
    dims = list(range(lead)) + [
        lead + i for i, s in enumerate(shape) if s == 1 and shp[lead + i] != 1
    ]
    out = reduce.sum(input, dims, True) if dims else input
    return view.view(out, shape) if lead > 0 else out


def diff(
    input: Tensor,  # noqa: A002
    n: int = 1,
    dim: int = -1,
    prepend: Tensor | None = None,
    append: Tensor | None = None,
) -> Tensor:
    nd = input._data.ndim
    if nd == 0:
        raise RuntimeError("diff expects input to be at least one-dimensional")
    if n < 0:
        raise RuntimeError(f"order must be non-negative but got {n}")
    d = _wrap_dim(dim, nd)
    x = input
    if prepend is not None or append is not None:
        parts = [p for p in (prepend, input, append) if p is not None]
        x = join.cat(parts, d)
    if n == 0:
        from detachviz.engine.ops import inplace

        return inplace.copy_(wrap(np.empty_like(x._data), x._dtype), x)
    size = x._data.shape[d]
    n = builtins.min(n, size)
    length = size - 1
    for _ in range(n):
        hi, lo = view.narrow(x, d, 1, length), view.narrow(x, d, 0, length)
        if x._dtype.name == "bool":
            from detachviz.engine.ops import compare

            x = compare.ne(hi, lo)
        else:
            x = arith.sub(hi, lo)
        length -= 1
    return x


# ------------------------------------------------------------------------ products of tensors


def _td_dims(a: Tensor, b: Tensor, dims: Any) -> tuple[list[int], list[int]]:
    if isinstance(dims, Tensor):
        dims = dims.tolist()
    if isinstance(dims, int):
        if dims < 0:
            raise RuntimeError(f"tensordot expects dims >= 0, but got dims={dims}")
        if dims > min(a._data.ndim, b._data.ndim):
            raise RuntimeError(f"tensordot expects dims < ndim_a or ndim_b, but got dims={dims}")
        na = a._data.ndim
        return list(range(na - dims, na)), list(range(dims))
    d1, d2 = dims
    return _dims_list(d1), _dims_list(d2)


def tensordot(a: Tensor, b: Tensor, dims: Any = 2, out: Any = None) -> Tensor:
    da, db = _td_dims(a, b, dims)
    if len(da) != len(db):
        raise RuntimeError("both dimension lists should have same length")
    na, nb = a._data.ndim, b._data.ndim
    da = [_wrap_dim(d, na) for d in da]
    db = [_wrap_dim(d, nb) for d in db]
    t1, t2 = a, b
    csize = 1
    for i, j in zip(da, db):
        s1, s2 = a._data.shape[i], b._data.shape[j]
        if s2 == 1:  # a dim broadcast on one side is summed right away
            t1 = reduce.sum(t1, i, True)
        elif s1 == 1:
            t2 = reduce.sum(t2, j, True)
        else:
            if s1 != s2:
                raise RuntimeError(
                    f"contracted dimensions need to match, but first has size {s1} in dim {i} "
                    f"and second has size {s2} in dim {j}"
                )
            csize *= s1
    p1 = [i for i in range(na) if i not in da] + da
    p2 = db + [j for j in range(nb) if j not in db]
    free1 = [t1._data.shape[i] for i in range(na) if i not in da]
    free2 = [t2._data.shape[j] for j in range(nb) if j not in db]
    size1 = int(np.prod(free1, dtype=np.int64))
    size2 = int(np.prod(free2, dtype=np.int64))
    m1 = view.reshape(view.permute(t1, p1), (size1, csize))
    m2 = view.reshape(view.permute(t2, p2), (csize, size2))
    return view.reshape(linalg.mm(m1, m2), tuple(free1 + free2))


def inner(input: Tensor, other: Tensor) -> Tensor:  # noqa: A002
    if input._data.ndim == 0 or other._data.ndim == 0:
        return arith.mul(input, other)
    if input._data.shape[-1] != other._data.shape[-1]:
        raise RuntimeError(
            "inner() the last dimension must match on both input tensors but got shapes "
            f"{list(input._data.shape)} and {list(other._data.shape)}"
        )
    return tensordot(input, other, ([-1], [-1]))


def unsafe_view(inner: Tensor, shape: tuple[int, ...]) -> Tensor:
    """at::_unsafe_view: shares inner's storage but is no view of it (no _base)."""
    out = init_new(inner._data.reshape(shape), inner._dtype)
    out._storage = inner._storage
    out._vc = inner._share_vc()
    return kit.finish(view.UNSAFE_VIEW, "_unsafe_view", (inner,), out, (inner._data.shape,))


def kron(input: Tensor, other: Tensor) -> Tensor:  # noqa: A002
    n = max(input._data.ndim, other._data.ndim)
    pa, pb = n - input._data.ndim, n - other._data.ndim
    ra: list[int] = []
    rb: list[int] = []
    res: list[int] = []
    for i in range(n):
        sa = input._data.shape[i - pa] if i >= pa else 1
        sb = other._data.shape[i - pb] if i >= pb else 1
        ra += [sa, 1]
        rb += [1, sb]
        res.append(sa * sb)
    prod = arith.mul(unsafe_view(input, tuple(ra)), unsafe_view(other, tuple(rb)))
    return unsafe_view(prod, tuple(res))


def matrix_power(input: Tensor, n: int) -> Tensor:  # noqa: A002
    shp = input._data.shape
    if len(shp) < 2:
        raise RuntimeError(
            "linalg.matrix_power: The input tensor A must have at least 2 dimensions."
        )
    if shp[-1] != shp[-2]:
        raise RuntimeError(
            "linalg.matrix_power: A must be batches of square matrices, but they are "
            f"{shp[-2]} by {shp[-1]} matrices"
        )
    n = operator.index(n)
    if n == 0:
        from detachviz.engine.ops import inplace

        eye = np.broadcast_to(np.eye(shp[-1], dtype=input._data.dtype), shp)
        return inplace.copy_(clone(input), wrap(eye, input._dtype))
    a = input
    if n < 0:
        from detachviz.engine.ops import decomp

        a, n = decomp.inv(input), -n
    if n == 1:
        return clone(a)
    if n == 2:
        return linalg.matmul(a, a)
    if n == 3:
        return linalg.matmul(linalg.matmul(a, a), a)
    z: Tensor | None = None
    result: Tensor | None = None
    while n > 0:  # torch's binary decomposition of n
        bit, n = n % 2, n // 2
        z = a if z is None else linalg.matmul(z, z)
        if bit:
            result = z if result is None else linalg.matmul(result, z)
    assert result is not None
    return result


# --------------------------------------------------------------------------------------------
# ops with a backward node of their own
# --------------------------------------------------------------------------------------------
def _rot90_np(a: np.ndarray, k: int, dims: tuple[int, int]) -> np.ndarray:
    """torch's rot90 with its layout: a flipped copy, transposed in place for odd k (so the
    result is not contiguous then), a plain clone for k % 4 == 0."""
    d0, d1 = dims[0] % a.ndim, dims[1] % a.ndim
    k %= 4
    if k == 1:
        return np.flip(a, d1).copy().swapaxes(d0, d1)
    if k == 2:
        return np.flip(a, (d0, d1)).copy()
    if k == 3:
        return np.flip(a, d0).copy().swapaxes(d0, d1)
    return clone_np(a)


ROT90 = node_class(
    "Rot90Backward0",
    (
        lambda k, g, s, a: np_or(
            k, lambda: _rot90_np(g, -a.k, a.dims), lambda: rot90(g, -a.k, a.dims)
        ),
    ),
    attrs=("dims", "k"),
    jvp=(lambda t, p, o, a: _rot90_np(t, a.k, a.dims),),
)


def rot90(input: Tensor, k: int = 1, dims: Any = (0, 1)) -> Tensor:  # noqa: A002
    ds = _dims_list(dims)
    nd = input._data.ndim
    if len(ds) != 2:
        raise RuntimeError(f"expected total rotation dims == 2, but got dims = {len(ds)}")
    if nd < 2:
        raise RuntimeError(f"expected total dims >= 2, but got total dims = {nd}")
    pair = (_wrap_dim(ds[0], nd), _wrap_dim(ds[1], nd))
    if pair[0] == pair[1]:
        raise RuntimeError(
            f"expected rotation dims to be different, but got dim0 = {pair[0]} and dim1 = {pair[1]}"
        )
    data = _rot90_np(input._data, k, pair)
    return apply(ROT90, "rot90", (input,), data, input._dtype, (tuple(ds), k))


def _unfold_np(a: np.ndarray, d: int, size: int, step: int) -> np.ndarray:
    """The unfold view: windows of `size` every `step` along d, as a new last dim."""
    shp, st = a.shape, a.strides
    if not shp:
        return np.lib.stride_tricks.as_strided(a, (size,), (0,))
    n = (shp[d] - size) // step + 1
    shape = shp[:d] + (n,) + shp[d + 1 :] + (size,)
    strides = st[:d] + (st[d] * step,) + st[d + 1 :] + (st[d],)
    return np.lib.stride_tricks.as_strided(a, shape, strides)


def _unfold_back_np(g: np.ndarray, sizes: Any, d: int, size: int, step: int) -> np.ndarray:
    out = np.zeros(sizes, dtype=g.dtype)
    if not sizes:
        out[()] = g.sum()
        return out
    win = _unfold_np(out, d, size, step)
    n = win.shape[d]
    for j in range(n):  # windows may overlap: add them one by one
        dst = (slice(None),) * d + (slice(j * step, j * step + size),)
        src = np.moveaxis(g[(slice(None),) * d + (j,)], -1, d)
        out[dst] += src
    return out


UNFOLD_BACK = node_class(
    "UnfoldBackwardBackward0",
    (
        lambda k, g, s, a: np_or(
            k,
            lambda: _unfold_np(g, a.dim, a.size, a.step).copy(),
            lambda: unfold(g, a.dim, a.size, a.step),
        ),
    ),
    attrs=("dim", "size", "step"),
    jvp=(lambda t, p, o, a: _unfold_back_np(t, o.shape, a.dim, a.size, a.step),),
)


def unfold_backward(g: Tensor, sizes: Any, d: int, size: int, step: int) -> Tensor:
    data = _unfold_back_np(g._data, tuple(sizes), d, size, step)
    return apply(UNFOLD_BACK, "unfold_backward", (g,), data, g._dtype, (d, size, step))


UNFOLD = node_class(
    "UnfoldBackward0",
    (
        lambda k, g, s, a: np_or(
            k,
            lambda: _unfold_back_np(g, a.self_sym_sizes, a.dimension, a.size, a.step),
            lambda: unfold_backward(g, a.self_sym_sizes, a.dimension, a.size, a.step),
        ),
    ),
    attrs=("dimension", "self_sym_sizes", "size", "step"),
    jvp=(lambda t, p, o, a: _unfold_np(t, a.dimension, a.size, a.step),),
    jvp_view=True,
)


def unfold(input: Tensor, dimension: int, size: int, step: int) -> Tensor:  # noqa: A002
    shp = input._data.shape
    nd = len(shp)
    d = _wrap_dim(dimension, nd)
    extent = shp[d] if nd else 1
    if size > extent:
        raise RuntimeError(
            f"maximum size for tensor at dimension {d} is {extent} but size is {size}"
        )
    if step <= 0:
        raise RuntimeError(f"step is {step} but must be > 0")
    data = _unfold_np(input._data, d, size, step)
    return kit.view(UNFOLD, "unfold", input, data, (d, shp, size, step))


def _take_back_np(g: np.ndarray, sizes: Any, idx: np.ndarray) -> np.ndarray:
    out = np.zeros(int(np.prod(sizes, dtype=np.int64)), dtype=g.dtype)
    np.add.at(out, idx.reshape(-1), g.reshape(-1))
    return out.reshape(sizes)


def _take_back_t(g: Tensor, sizes: Any, idx: Tensor) -> Tensor:
    # torch's zeros_like(self).put_(index, grad, accumulate=True), as a differentiable index_add
    from detachviz.engine.ops.scatter import index_add

    flat = wrap(np.zeros(int(np.prod(sizes, dtype=np.int64)), dtype=g._data.dtype), g._dtype)
    summed = index_add(flat, 0, view.reshape(idx, -1), view.reshape(g, -1))
    return view.reshape(summed, tuple(sizes))


def _take_back(k: Any, g: Any, s: Any, a: Any) -> Any:
    sizes = np.shape(k.data(s[0]))
    return np_or(
        k,
        lambda: _take_back_np(g, sizes, a.index._data),
        lambda: _take_back_t(g, sizes, a.index),
    )


TAKE = node_class(
    "TakeBackward0",
    (_take_back,),
    saved=(Saved("self", 0, (0,)),),
    attrs=("index",),
    jvp=(lambda t, p, o, a: t.reshape(-1)[a.index._data],),
)


def take(input: Tensor, index: Tensor) -> Tensor:  # noqa: A002
    if index._dtype.name != "int64":
        raise RuntimeError(
            "take(): Expected a long tensor for index, but got "
            f"{index._dtype.legacy.replace('Tensor', '')}"
        )
    n = input._data.size
    idx = index._data
    bad = (idx >= n) | (idx < -n)
    if bad.any():
        i = int(idx[bad].reshape(-1)[0])
        raise IndexError(f"out of range: tried to access index {i} on a tensor of {n} elements.")
    idx = idx % max(n, 1)
    data = input._data.reshape(-1)[idx]
    return apply(TAKE, "take", (input,), data, input._dtype, (wrap(idx),))


TRACE = node_class(
    "TraceBackward0",
    (
        lambda k, g, s, a: np_or(
            k,
            lambda: np.eye(*a.self_sym_sizes, dtype=g.dtype) * g,
            lambda: arith.mul(wrap(np.eye(*a.self_sym_sizes, dtype=g._data.dtype), g._dtype), g),
        ),
    ),
    attrs=("self_sym_sizes",),
    jvp=(lambda t, p, o, a: np.trace(t),),
)


def trace(input: Tensor) -> Tensor:  # noqa: A002
    if input._data.ndim != 2:
        raise RuntimeError(f"trace: expected a matrix, but got tensor with dim {input._data.ndim}")
    dt = input._dtype
    if not dt.is_floating_point:
        from detachviz.engine import dtype as dtypes

        dt = dtypes.int64
    data = np.asarray(np.trace(input._data), dtype=dt.np)
    return apply(TRACE, "trace", (input,), data, dt, (input._data.shape,))
