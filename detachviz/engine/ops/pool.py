"""Pooling with torch's nodes: max_pool2d_with_indices (MaxPool2DWithIndicesBackward0),
avg_pool2d (AvgPool2DBackward0), adaptive_avg_pool2d (AdaptiveAvgPool2DBackward0, or a mean
for a 1x1 output, as torch), adaptive_max_pool2d (AdaptiveMaxPool2DBackward0); the 1-D forms
are torch's composites: unsqueeze(-2), the 2-D op, squeeze(-2).

Max pools save their indices (flat positions in each input plane, as torch's int64 indices):
the gradient is a scatter-add at them, and the gradient of that scatter
(`...BackwardBackward0`, create_graph) a gather. Average pools are linear: the gradient of the
backward is the pool again.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from detachviz.engine.function import apply, finish
from detachviz.engine.node import Saved, node_class
from detachviz.engine.ops.conv import windows
from detachviz.engine.ops.saving import attach_saved
from detachviz.engine.tensor import Tensor, init_tensor, wrap

Ints = tuple[int, ...]


def _pair(v: Any, name: str = "") -> Ints:
    if isinstance(v, (list, tuple)):
        t = tuple(int(i) for i in v)
        return t * 2 if len(t) == 1 else t
    return (int(v), int(v))


def pool_out(size: int, k: int, s: int, p: int, d: int, ceil: bool) -> int:
    """torch's pooling_output_shape."""
    num = size + 2 * p - d * (k - 1) - 1 + (s - 1 if ceil else 0)
    out = num // s + 1
    if ceil and (out - 1) * s >= size + p:
        out -= 1
    return out


def _planes(x: Any) -> tuple[Any, Ints]:
    """x as (planes, H, W) and the leading shape."""
    lead = x.shape[:-2]
    return x.reshape((-1,) + x.shape[-2:]), lead


def _padded(x3: Any, k: Ints, s: Ints, p: Ints, d: Ints, out: Ints, fill: float) -> Any:
    """A plane stack padded with `fill`: p on the left, enough on the right for every window."""
    widths = [(0, 0)]
    for i in range(2):
        need = (out[i] - 1) * s[i] + d[i] * (k[i] - 1) + 1
        widths.append((p[i], max(need - x3.shape[1 + i] - p[i], 0)))
    if not any(lo or hi for lo, hi in widths):
        return x3
    return np.pad(x3, widths, constant_values=fill)


def _check_pool(name: str, x: Tensor, k: Ints, s: Ints, p: Ints, d: Ints, out: Ints) -> None:
    if not x._dtype.is_floating_point:
        kind = {"int64": "Long", "int32": "Int", "bool": "Bool"}.get(str(x._data.dtype), "Long")
        raise RuntimeError(f"\"{name}\" not implemented for '{kind}'")
    if x._data.ndim not in (3, 4):
        raise RuntimeError(
            f"non-empty 3D or 4D (batch mode) tensor expected for input, but got: "
            f"{list(x._data.shape)}"
        )
    if any(v <= 0 for v in k):
        raise RuntimeError("kernel size should be greater than zero, but got kH: "
                           f"{k[0]} kW: {k[1]}")  # fmt: skip
    if any(v <= 0 for v in s):
        raise RuntimeError(f"stride should be greater than zero, but got dH: {s[0]} dW: {s[1]}")
    for kk, pp, dd in zip(k, p, d):
        if pp > ((kk - 1) * dd + 1) // 2:
            raise RuntimeError(
                f"pad should be at most half of effective kernel size, but got pad={pp}, "
                f"kernel_size={kk} and dilation={dd}"
            )
    if any(o < 1 for o in out):
        shp = x._data.shape
        c = shp[-3]
        raise RuntimeError(
            f"Given input size: ({c}x{shp[-2]}x{shp[-1]}). Calculated output size: "
            f"({c}x{out[0]}x{out[1]}). Output size is too small"
        )


# --------------------------------------------------------------------------------------------
# scatter / gather at saved indices (max pools)
# --------------------------------------------------------------------------------------------
def scatter_np(g: Any, idx: Any, in_shape: Ints, disjoint: bool = False) -> Any:
    """Each gradient element added at its plane's flat index: the input gradient. `disjoint`:
    no two indices of a plane are equal (windows that do not overlap), so one `+=` in the
    gradient's dtype gives the bits of the float64 bincount (one addition to 0 each)."""
    hw = in_shape[-2] * in_shape[-1]
    planes = int(np.prod(in_shape[:-2], dtype=np.int64))
    flat = idx.reshape(planes, -1) + (np.arange(planes, dtype=np.int64) * hw)[:, None]
    if disjoint:
        res = np.zeros(planes * hw, dtype=g.dtype)
        # each index once: `0 + g` written there (what `res[flat] += g` adds, without
        # gathering the zeros first)
        res[flat.ravel()] = (g + g.dtype.type(0)).reshape(-1)
        return res.reshape(in_shape)
    out = np.bincount(flat.ravel(), weights=g.reshape(-1), minlength=planes * hw)
    return out.astype(g.dtype).reshape(in_shape)


def gather_np(gg: Any, idx: Any) -> Any:
    """The elements of each plane of `gg` at the flat indices (the scatter's adjoint)."""
    lead = idx.shape[:-2]
    flat = gg.reshape(lead + (-1,))
    return np.take_along_axis(flat, idx.reshape(lead + (-1,)), -1).reshape(idx.shape)


def _max_back_vjp(k: Any, g: Any, s: Any, a: Any) -> Any:
    x, idx = s[0], s[1]
    idx = idx._data if isinstance(idx, Tensor) else idx
    if isinstance(g, Tensor):
        return _scatter(g, x, idx, a, MAXPOOL_BACK)
    stride = a.stride or a.kernel_size
    apart = zip(stride, a.kernel_size, a.dilation)
    return scatter_np(g, idx, x.shape, all(st >= (k - 1) * d + 1 for st, k, d in apart))


def _gather_vjp(k: Any, g: Any, s: Any, a: Any) -> Any:
    idx = s[0]._data if isinstance(s[0], Tensor) else s[0]
    data = gather_np(g._data if isinstance(g, Tensor) else g, idx)
    return wrap(data, g._dtype) if isinstance(g, Tensor) else data


def _zeros(k: Any, g: Any, a: Any) -> Any:
    z = np.zeros(a.self_sym_sizes, dtype=k.data(g).dtype)
    return k.const(z)


# the gradient of the scatter: a gather at the indices (edges: grad_output, self)
MAXPOOL_BACK = node_class(
    "MaxPool2DWithIndicesBackwardBackward0",
    (_gather_vjp, lambda k, g, s, a: _zeros(k, g, a)),
    saved=(Saved("indices", 2, (0,)),),
    attrs=("self_sym_sizes",),
    jvp=(lambda t, p, out, a: scatter_np(t, p[2], out.shape), None, None),
)
ADAPTIVE_MAX_BACK = node_class(
    "AdaptiveMaxPool2DBackwardBackward0",
    MAXPOOL_BACK._vjps,
    saved=(Saved("indices", 2, (0,)),),
    attrs=("self_sym_sizes",),
    jvp=MAXPOOL_BACK._jvp,
)


def _scatter(g: Tensor, x: Tensor, idx: Any, a: Any, cls: Any) -> Tensor:
    """The scatter as an op of its own (create_graph): edges to g and x, as torch's."""
    shape = tuple(x._data.shape)
    it = wrap(idx)
    out = object.__new__(Tensor)
    init_tensor(out, scatter_np(g._data, idx, shape), g._dtype)
    attach_saved(cls, out, (g, x), (it,), (shape,))
    return finish(cls, "max_pool_backward", (g, x, it), out, (shape,), record=(g,), attached=True)


MAXPOOL = node_class(
    "MaxPool2DWithIndicesBackward0",
    (_max_back_vjp,),
    saved=(Saved("self", 0, (0,)), Saved("result1", 1, (0,))),
    attrs=("kernel_size", "stride", "padding", "dilation", "ceil_mode"),
    jvp=(lambda t, p, out, a: gather_np(t, p[1]),),
)
ADAPTIVE_MAX = node_class(
    "AdaptiveMaxPool2DBackward0",
    (lambda k, g, s, a: _adaptive_max_back(k, g, s, a),),
    saved=(Saved("self", 0, (0,)), Saved("result1", 1, (0,))),
    jvp=(lambda t, p, out, a: gather_np(t, p[1]),),
)


def _adaptive_max_back(k: Any, g: Any, s: Any, a: Any) -> Any:
    x, idx = s[0], s[1]
    idx = idx._data if isinstance(idx, Tensor) else idx
    if isinstance(g, Tensor):
        return _scatter(g, x, idx, a, ADAPTIVE_MAX_BACK)
    return scatter_np(g, idx, x.shape)


def _with_indices(cls: Any, name: str, x: Tensor, values: Any, idx: Any, attrs: tuple) -> Any:
    """The (values, indices) pair of a max pool: the node's one edge is x; it saves x and the
    indices (torch's `result1`, the node's second output there, a plain tensor here)."""
    it = wrap(idx)
    out = object.__new__(Tensor)
    init_tensor(out, values, x._dtype)
    attach_saved(cls, out, (x,), (x, it), attrs)
    finish(cls, name, (x, it), out, attrs, record=(x,), attached=True)
    return out, it


def _window_max(xp: Any, k: Ints, s: Ints, d: Ints, out: Ints) -> tuple[Any, Any]:
    """(max, argmax over the flattened kernel window) of each window of the padded planes
    xp (P, H, W): argmax's answer (the first maximum, the first NaN if any). Without NaNs a
    running maximum over the kernel offsets, one whole-plane pass each (many times faster
    than argmax along a strided window axis of a few elements)."""
    if np.isnan(xp).any():
        win = windows(xp[:, None], k, s, d, out)[:, 0]  # (P, OH, OW, KH, KW)
        flatwin = win.reshape(win.shape[:3] + (-1,))
        am = np.argmax(flatwin, axis=-1)
        return np.take_along_axis(flatwin, am[..., None], -1)[..., 0], am
    kk = k[0] * k[1]
    stack = np.empty((kk,) + xp.shape[:1] + tuple(out), dtype=xp.dtype)
    for i in range(k[0]):
        for j in range(k[1]):
            stack[i * k[1] + j] = xp[
                :,
                i * d[0] : i * d[0] + s[0] * (out[0] - 1) + 1 : s[0],
                j * d[1] : j * d[1] + s[1] * (out[1] - 1) + 1 : s[1],
            ]
    top = stack[0].copy()
    for r in range(1, kk):
        np.maximum(top, stack[r], out=top)
    # the first offset holding the maximum, branch-free (np.where with a random mask is
    # several times slower): the minimum over r of r where equal, kk where not
    code = np.uint16 if kk < 2**16 - 1 else np.int64
    am = np.full(top.shape, kk, dtype=code)
    differs = np.empty(top.shape, dtype=bool)
    step = np.empty(top.shape, dtype=code)
    for r in range(kk - 1, -1, -1):
        np.not_equal(stack[r], top, out=differs)
        np.multiply(differs, code(kk), out=step)
        step += code(r)
        np.minimum(am, step, out=am)
    am = am.astype(np.intp)
    # a zero maximum may be -0.0 or 0.0 in np.maximum's choice; argmax's is the first one
    zero = np.flatnonzero(top == 0)
    if zero.size:
        flat = top.reshape(-1)
        flat[zero] = stack.reshape(kk, -1)[am.reshape(-1)[zero], zero]
    return top, am


def max_pool2d_with_indices(
    input: Tensor,
    kernel_size: Any,
    stride: Any = None,
    padding: Any = 0,
    dilation: Any = 1,
    ceil_mode: bool = False,
) -> tuple[Tensor, Tensor]:
    """torch.max_pool2d_with_indices: (values, int64 flat indices per input plane)."""
    k = _pair(kernel_size)
    given_stride = () if stride is None or stride == [] or stride == () else _pair(stride)
    s = given_stride or k
    p, d = _pair(padding), _pair(dilation)
    xd = input._data
    out = tuple(pool_out(xd.shape[-2 + i], k[i], s[i], p[i], d[i], ceil_mode) for i in range(2))
    _check_pool("max_pool2d", input, k, s, p, d, out)
    x3, lead = _planes(xd)
    xp = _padded(x3, k, s, p, d, out, -math.inf)
    values, am = _window_max(xp, k, s, d, out)
    # the input's flat index: the window's first element plus the kernel offset's (a lookup:
    # dividing the offset number back into row and column is integer division, slow)
    width = xd.shape[-1]
    first = (np.arange(out[0], dtype=np.int64) * s[0] - p[0])[:, None] * width + (
        np.arange(out[1], dtype=np.int64) * s[1] - p[1]
    )
    offset = (
        np.arange(k[0], dtype=np.int64)[:, None] * (d[0] * width)
        + np.arange(k[1], dtype=np.int64) * d[1]
    ).reshape(-1)
    idx = np.take(offset, am)
    idx += first
    values = np.ascontiguousarray(values.reshape(lead + out), dtype=xd.dtype)
    idx = idx.reshape(lead + out)
    attrs = (k, given_stride, p, d, bool(ceil_mode))
    return _with_indices(MAXPOOL, "max_pool2d_with_indices", input, values, idx, attrs)


def max_pool2d(
    input: Tensor,
    kernel_size: Any,
    stride: Any = None,
    padding: Any = 0,
    dilation: Any = 1,
    ceil_mode: bool = False,
    return_indices: bool = False,
) -> Any:
    out, idx = max_pool2d_with_indices(input, kernel_size, stride, padding, dilation, ceil_mode)
    return (out, idx) if return_indices else out


def _one(v: Any) -> int:
    if isinstance(v, (list, tuple)):
        return int(v[0])
    return int(v)


def max_pool1d(
    input: Tensor,
    kernel_size: Any,
    stride: Any = None,
    padding: Any = 0,
    dilation: Any = 1,
    ceil_mode: bool = False,
    return_indices: bool = False,
) -> Any:
    """torch's max_pool1d: unsqueeze(-2), the 2-D pool with a (1, k) kernel, squeeze(-2)."""
    if input.dim() not in (2, 3):
        raise RuntimeError(
            f"max_pool1d() Expected 2D or 3D input tensor, but got {list(input._data.shape)}"
        )
    st = () if stride is None or stride == () else (1, _one(stride))
    out, idx = max_pool2d_with_indices(
        input.unsqueeze(-2),
        (1, _one(kernel_size)),
        st,
        (0, _one(padding)),
        (1, _one(dilation)),
        ceil_mode,
    )
    out = out.squeeze(-2)
    idx = wrap(idx._data.squeeze(-2))
    return (out, idx) if return_indices else out


# --------------------------------------------------------------------------------------------
# average pooling
# --------------------------------------------------------------------------------------------
def _divisors(
    size: Ints, k: Ints, s: Ints, p: Ints, out: Ints, include_pad: bool, override: Any
) -> Any:
    """torch's avg_pool2d divisor per output position."""
    if override:
        return np.full(out, float(override))
    lens = []
    for i in range(2):
        start = np.arange(out[i]) * s[i] - p[i]
        end = np.minimum(start + k[i], size[i] + p[i])
        pool = end - start
        clipped = np.minimum(end, size[i]) - np.maximum(start, 0)
        lens.append(pool if include_pad else clipped)
    return np.outer(lens[0], lens[1]).astype(np.float64)


def avg_pool_np(x: Any, a: Any) -> Any:
    k, s, p = a.kernel_size, a.stride or a.kernel_size, a.padding
    out = tuple(pool_out(x.shape[-2 + i], k[i], s[i], p[i], 1, a.ceil_mode) for i in range(2))
    x3, lead = _planes(x)
    xp = _padded(x3, k, s, p, (1, 1), out, 0.0)
    win = windows(xp[:, None], k, s, (1, 1), out)[:, 0]
    sums = win.sum(axis=(-2, -1))
    div = _divisors(x.shape[-2:], k, s, p, out, a.count_include_pad, a.divisor_override)
    return np.ascontiguousarray((sums / div.astype(x.dtype)).reshape(lead + out), dtype=x.dtype)


def avg_pool_back_np(g: Any, in_shape: Ints, a: Any) -> Any:
    k, s, p = a.kernel_size, a.stride or a.kernel_size, a.padding
    out = g.shape[-2:]
    div = _divisors(in_shape[-2:], k, s, p, out, a.count_include_pad, a.divisor_override)
    g3 = (g / div.astype(g.dtype)).reshape((-1,) + tuple(out))
    h = max(in_shape[-2] + 2 * p[0], (out[0] - 1) * s[0] + k[0])
    w = max(in_shape[-1] + 2 * p[1], (out[1] - 1) * s[1] + k[1])
    gp = np.zeros((g3.shape[0], h, w), dtype=g.dtype)
    for i in range(k[0]):
        for j in range(k[1]):
            gp[
                :, i : i + s[0] * (out[0] - 1) + 1 : s[0], j : j + s[1] * (out[1] - 1) + 1 : s[1]
            ] += g3
    crop = gp[:, p[0] : p[0] + in_shape[-2], p[1] : p[1] + in_shape[-1]]
    return np.ascontiguousarray(crop).reshape(in_shape)


def _avg_vjp(k: Any, g: Any, s: Any, a: Any) -> Any:
    x = s[0]
    if isinstance(g, Tensor):
        data = avg_pool_back_np(g._data, tuple(x.shape), a)
        # torch's avg_pool2d_backward(grad_output, self, ...): edges to both
        return apply(AVGPOOL_BACK, "avg_pool2d_backward", (g, x), data, g._dtype, tuple(a))
    return avg_pool_back_np(g, x.shape, a)


_AVG_ATTRS = ("kernel_size", "stride", "padding", "ceil_mode", "count_include_pad",
              "divisor_override")  # fmt: skip
AVGPOOL = node_class(
    "AvgPool2DBackward0",
    (_avg_vjp,),
    saved=(Saved("self", 0, (0,)),),
    attrs=_AVG_ATTRS,
    jvp=(lambda t, p, out, a: avg_pool_np(t, a),),
)


def _avg_back_vjp(k: Any, g: Any, s: Any, a: Any) -> Any:
    geo = _AvgAttrs(*a)
    if isinstance(g, Tensor):
        return apply(AVGPOOL, "avg_pool2d", (g,), avg_pool_np(g._data, geo), g._dtype, tuple(geo))
    return avg_pool_np(g, geo)


_AvgAttrs: Any = AVGPOOL._Attrs  # the pool's geometry by name, as its rules read it
AVGPOOL_BACK = node_class(
    "AvgPool2DBackwardBackward0",
    (_avg_back_vjp, lambda k, g, s, a: None),  # self: torch's zeros_like(self)
    attrs=_AVG_ATTRS,
    jvp=(
        lambda t, p, out, a: avg_pool_back_np(t, out.shape, _AvgAttrs(*a)),
        lambda t, p, out, a: np.zeros(out.shape, dtype=out.dtype),
    ),
)


def avg_pool2d(
    input: Tensor,
    kernel_size: Any,
    stride: Any = None,
    padding: Any = 0,
    ceil_mode: bool = False,
    count_include_pad: bool = True,
    divisor_override: Any = None,
) -> Tensor:
    """torch.nn.functional.avg_pool2d."""
    k = _pair(kernel_size)
    given = () if stride is None or stride == [] or stride == () else _pair(stride)
    s, p = given or k, _pair(padding)
    xd = input._data
    out = tuple(pool_out(xd.shape[-2 + i], k[i], s[i], p[i], 1, ceil_mode) for i in range(2))
    _check_pool("avg_pool2d", input, k, s, p, (1, 1), out)
    if divisor_override is not None and divisor_override == 0:
        raise RuntimeError("divisor must be not zero")
    attrs = (k, given, p, bool(ceil_mode), bool(count_include_pad), divisor_override)
    data = avg_pool_np(xd, _AvgAttrs(*attrs))
    return apply(AVGPOOL, "avg_pool2d", (input,), data, input._dtype, attrs)


def avg_pool1d(
    input: Tensor,
    kernel_size: Any,
    stride: Any = None,
    padding: Any = 0,
    ceil_mode: bool = False,
    count_include_pad: bool = True,
) -> Tensor:
    """torch's avg_pool1d: unsqueeze(-2), avg_pool2d with a (1, k) kernel, squeeze(-2)."""
    if input.dim() not in (2, 3):
        raise RuntimeError(
            f"avg_pool1d() Expected 2D or 3D input tensor, but got {list(input._data.shape)}"
        )
    st = (1, _one(kernel_size)) if stride is None or stride == () else (1, _one(stride))
    out = avg_pool2d(
        input.unsqueeze(-2), (1, _one(kernel_size)), st, (0, _one(padding)), ceil_mode,
        count_include_pad,
    )  # fmt: skip
    return out.squeeze(-2)


# --------------------------------------------------------------------------------------------
# adaptive pools
# --------------------------------------------------------------------------------------------
def _bounds(size: int, out: int) -> tuple[Any, Any]:
    i = np.arange(out)
    return (i * size) // out, -((-(i + 1) * size) // out)


def _indicator(size: int, out: int) -> Any:
    start, end = _bounds(size, out)
    pos = np.arange(size)
    return ((pos[None, :] >= start[:, None]) & (pos[None, :] < end[:, None])).astype(np.float64)


def adaptive_avg_np(x: Any, out: Ints) -> Any:
    ah, aw = (_indicator(x.shape[-2 + i], out[i]).astype(x.dtype) for i in range(2))
    sums = np.einsum("ih,...hw,jw->...ij", ah, x, aw)
    counts = np.outer(ah.sum(1), aw.sum(1)).astype(x.dtype)
    return np.ascontiguousarray(sums / counts, dtype=x.dtype)


def adaptive_avg_back_np(g: Any, in_shape: Ints) -> Any:
    out = g.shape[-2:]
    ah, aw = (_indicator(in_shape[-2 + i], out[i]).astype(g.dtype) for i in range(2))
    counts = np.outer(ah.sum(1), aw.sum(1)).astype(g.dtype)
    res = np.einsum("ih,...ij,jw->...hw", ah, g / counts, aw)
    return np.ascontiguousarray(res, dtype=g.dtype).reshape(in_shape)


def _aap_vjp(k: Any, g: Any, s: Any, a: Any) -> Any:
    x = s[0]
    shape = tuple(x.shape)
    if isinstance(g, Tensor):
        data = adaptive_avg_back_np(g._data, shape)
        return apply(ADAPTIVE_AVG_BACK, "adaptive_avg_pool2d_backward", (g,), data, g._dtype,
                     (shape,))  # fmt: skip
    return adaptive_avg_back_np(g, shape)


def _aap_back_vjp(k: Any, g: Any, s: Any, a: Any) -> Any:
    # NOTE: the output size of the forward is the gradient's incoming shape here
    raise RuntimeError("detachviz: triple backward through adaptive_avg_pool2d is not supported")


ADAPTIVE_AVG = node_class(
    "AdaptiveAvgPool2DBackward0",
    (_aap_vjp,),
    saved=(Saved("self", 0, (0,)),),
    jvp=(lambda t, p, out, a: adaptive_avg_np(t, out.shape[-2:]),),
)
ADAPTIVE_AVG_BACK = node_class(
    "AdaptiveAvgPool2DBackwardBackward0",
    (_aap_back_vjp,),
    attrs=("self_sym_sizes",),
    jvp=(lambda t, p, out, a: adaptive_avg_back_np(t, out.shape),),
)


def _adaptive_size(x: Tensor, output_size: Any) -> Ints:
    sz = _pair(output_size) if not isinstance(output_size, (list, tuple)) else tuple(output_size)
    if len(sz) == 1:
        sz = sz * 2
    shp = x._data.shape
    return tuple(shp[-2 + i] if v is None else int(v) for i, v in enumerate(sz))


def _check_adaptive(name: str, x: Tensor) -> None:
    if x._data.ndim not in (3, 4) or 0 in x._data.shape[-2:]:
        raise RuntimeError(f"{name}(): Expected 3D or 4D tensor, but got {list(x._data.shape)}")


def adaptive_avg_pool2d(input: Tensor, output_size: Any) -> Tensor:
    """torch.nn.functional.adaptive_avg_pool2d; a (1, 1) output is torch's mean over the last
    two dims (MeanBackward1)."""
    _check_adaptive("adaptive_avg_pool2d", input)
    out = _adaptive_size(input, output_size)
    if out == (1, 1):
        return input.mean((-1, -2), keepdim=True)
    data = adaptive_avg_np(input._data, out)
    return apply(ADAPTIVE_AVG, "adaptive_avg_pool2d", (input,), data, input._dtype, ())


def adaptive_avg_pool1d(input: Tensor, output_size: Any) -> Tensor:
    if input.dim() not in (2, 3):
        raise RuntimeError(
            f"adaptive_avg_pool1d() argument 'input' must be 2D or 3D, got {input.dim()}D"
        )
    return adaptive_avg_pool2d(input.unsqueeze(-2), (1, _one(output_size))).squeeze(-2)


def adaptive_max_pool2d(input: Tensor, output_size: Any, return_indices: bool = False) -> Any:
    """torch.nn.functional.adaptive_max_pool2d (indices as max_pool2d's)."""
    _check_adaptive("adaptive_max_pool2d", input)
    out = _adaptive_size(input, output_size)
    xd = input._data
    x3, lead = _planes(xd)
    h, w = xd.shape[-2:]
    hs, he = _bounds(h, out[0])
    ws, we = _bounds(w, out[1])
    values = np.empty((x3.shape[0],) + out, dtype=xd.dtype)
    idx = np.empty((x3.shape[0],) + out, dtype=np.int64)
    for i in range(out[0]):
        for j in range(out[1]):
            win = x3[:, hs[i] : he[i], ws[j] : we[j]].reshape(x3.shape[0], -1)
            am = np.argmax(win, axis=1)
            values[:, i, j] = win[np.arange(win.shape[0]), am]
            rw = we[j] - ws[j]
            idx[:, i, j] = (hs[i] + am // rw) * w + ws[j] + am % rw
    values = values.reshape(lead + out)
    idx = idx.reshape(lead + out)
    res, it = _with_indices(ADAPTIVE_MAX, "adaptive_max_pool2d", input, values, idx, ())
    return (res, it) if return_indices else res


def adaptive_max_pool1d(input: Tensor, output_size: Any, return_indices: bool = False) -> Any:
    out, idx = adaptive_max_pool2d(input.unsqueeze(-2), (1, _one(output_size)), True)
    out = out.squeeze(-2)
    idx = wrap(idx._data.squeeze(-2))
    return (out, idx) if return_indices else out
