"""Convolution (torch.convolution and conv1d/conv2d/conv3d/conv_transpose1d/2d on it) with
torch's one node, ConvolutionBackward0, for plain and transposed convolutions alike.

The numpy kernels work on any number of spatial dims. The forward is im2col: a strided window
view of the zero-padded input contracted with the weight (one tensordot per group). Its
adjoints are the two backward kernels: `input_grad` (col2im: the weight contracted with the
gradient, scatter-added back one kernel offset at a time) and `weight_grad` (the gradient
contracted with the windows). A transposed convolution is the input adjoint of a plain one, so
its forward is `input_grad` and its input gradient a plain convolution.

Under create_graph the rules are written with `convolution` itself (the weight gradient as a
convolution of the input with the gradient, stride and dilation swapped), so double backward
works; the node torch names ConvolutionBackwardBackward0 is then a graph of
ConvolutionBackward0 nodes here.
"""

from __future__ import annotations

import itertools
import warnings
from typing import Any

import numpy as np

from detachviz.engine.function import apply
from detachviz.engine.node import Saved, named_attrs, node_class
from detachviz.engine.rules import TT, graph_backward, multi_backward_op, needs
from detachviz.engine.tensor import Tensor

Ints = tuple[int, ...]


# --------------------------------------------------------------------------------------------
# numpy kernels (N, C, *spatial) x (O, C/groups, *kernel)
# --------------------------------------------------------------------------------------------
def out_size(size: Ints, kernel: Ints, stride: Ints, padding: Ints, dilation: Ints) -> Ints:
    return tuple(
        (s + 2 * p - d * (k - 1) - 1) // st + 1
        for s, k, st, p, d in zip(size, kernel, stride, padding, dilation)
    )


def windows(xp: Any, kernel: Ints, stride: Ints, dilation: Ints, out: Ints) -> Any:
    """The (N, C, *out, *kernel) window view of a padded input (no copy)."""
    st = xp.strides
    shape = xp.shape[:2] + tuple(out) + tuple(kernel)
    strides = (
        st[:2]
        + tuple(s * k for s, k in zip(st[2:], stride))
        + tuple(s * d for s, d in zip(st[2:], dilation))
    )
    return np.lib.stride_tricks.as_strided(xp, shape, strides, writeable=False)


def _pad(x: Any, padding: Ints) -> Any:
    """x zero-padded in its spatial dims (np.pad's general machinery costs 3x this)."""
    if not any(padding):
        return x
    xp = np.zeros(x.shape[:2] + tuple(s + 2 * p for s, p in zip(x.shape[2:], padding)), x.dtype)
    xp[
        (slice(None), slice(None)) + tuple(slice(p, p + s) for p, s in zip(padding, x.shape[2:]))
    ] = x
    return xp


def _offsets(kernel: Ints, stride: Ints, dilation: Ints, out: Ints) -> Any:
    """(kernel offset, the padded input's region it reads) for every kernel offset."""
    for off in itertools.product(*(range(k) for k in kernel)):
        yield (
            off,
            tuple(
                slice(o * d, o * d + s * (n - 1) + 1, s)
                for o, d, s, n in zip(off, dilation, stride, out)
            ),
        )


def _im2col(xp: Any, kernel: Ints, stride: Ints, dilation: Ints, out: Ints) -> Any:
    """The (N, C * prod(kernel), prod(out)) columns of a padded input: one contiguous copy per
    kernel offset, so each copy runs along the input's rows (a strided window view copied in
    one go walks the kernel dims innermost and is several times slower)."""
    n, c = xp.shape[:2]
    cols = np.empty((n, c) + tuple(kernel) + tuple(out), dtype=xp.dtype)
    every = (slice(None), slice(None))
    for off, region in _offsets(kernel, stride, dilation, out):
        cols[every + off] = xp[every + region]
    return cols.reshape(n, c * int(np.prod(kernel, dtype=np.int64)), -1)


def _blas_ready(g: Any) -> Any:
    """g as one contiguous array. NOTE: the gradient of a `.sum()` arrives as a stride-0
    broadcast, which np.matmul copies into a buffer for every batch item (same values, so
    the same bits); one copy up front does that work once."""
    return g if g.flags.c_contiguous else np.ascontiguousarray(g)


def conv_np(x: Any, w: Any, stride: Ints, padding: Ints, dilation: Ints, groups: int) -> Any:
    """The plain convolution (cross-correlation, torch's convention) without bias: im2col, then
    per group one batched matmul (O/groups, C/groups * k) @ (N, C/groups * k, out), whose
    result is already in (N, O, *out) layout."""
    kernel = w.shape[2:]
    out = out_size(x.shape[2:], kernel, stride, padding, dilation)
    n = x.shape[0]
    cols = _im2col(_pad(x, padding), kernel, stride, dilation, out)
    ck = cols.shape[1] // groups
    og = w.shape[0] // groups
    wm = w.reshape(groups, og, ck)
    res = np.empty((n, groups, og, cols.shape[2]), dtype=x.dtype)
    for g in range(groups):
        np.matmul(wm[g], cols[:, g * ck : (g + 1) * ck], out=res[:, g])
    return res.reshape((n, w.shape[0]) + tuple(out))


def input_grad_np(
    g: Any, w: Any, in_shape: Ints, stride: Ints, padding: Ints, dilation: Ints, groups: int
) -> Any:
    """The adjoint of `conv_np` in its input: the gradient of an input of `in_shape` (the
    columns' gradient by one batched matmul per group, then col2im: one add per kernel
    offset into the padded gradient)."""
    kernel = tuple(w.shape[2:])
    out = tuple(g.shape[2:])
    n = g.shape[0]
    g = _blas_ready(g)
    og = w.shape[0] // groups
    ck = w.shape[1] * int(np.prod(kernel, dtype=np.int64))
    wt = np.ascontiguousarray(w.reshape(groups, og, ck).transpose(0, 2, 1))  # (groups, ck, og)
    gm = g.reshape(n, groups, og, -1)
    cols = np.empty((n, groups, ck, gm.shape[3]), dtype=g.dtype)
    for gi in range(groups):
        np.matmul(wt[gi], gm[:, gi], out=cols[:, gi])
    cols = cols.reshape((n, in_shape[1]) + kernel + out)
    padded = tuple(in_shape[:2]) + tuple(s + 2 * p for s, p in zip(in_shape[2:], padding))
    gxp = np.zeros(padded, dtype=g.dtype)
    every = (slice(None), slice(None))
    for off, region in _offsets(kernel, stride, dilation, out):
        gxp[every + region] += cols[every + off]
    if not any(padding):
        return gxp
    crop = tuple(slice(p, p + s) for p, s in zip(padding, in_shape[2:]))
    return np.ascontiguousarray(gxp[every + crop])


def weight_grad_np(
    g: Any, x: Any, w_shape: Ints, stride: Ints, padding: Ints, dilation: Ints, groups: int
) -> Any:
    """The gradient of the weight of `conv_np(x, w)` for the output gradient `g`: per group
    a batched (O/groups, out) @ (out, C/groups * k) matmul summed over the batch.
    NOTE: per sample on purpose: OpenBLAS runs one (og, N * out) @ (N * out, cg * k) product,
    its inner dim long and its outer ones small, many times slower (measured)."""
    kernel = tuple(w_shape[2:])
    out = tuple(g.shape[2:])
    n = x.shape[0]
    cols = _im2col(_pad(x, padding), kernel, stride, dilation, out)
    ck = cols.shape[1] // groups
    og = w_shape[0] // groups
    g = _blas_ready(g)
    gm = g.reshape(n, groups, og, -1)
    res = np.empty((groups, og, ck), dtype=x.dtype)
    for gi in range(groups):
        res[gi] = np.matmul(gm[:, gi], cols[:, gi * ck : (gi + 1) * ck].transpose(0, 2, 1)).sum(0)
    return res.reshape(w_shape)


def transposed_shape(
    size: Ints, kernel: Ints, stride: Ints, padding: Ints, dilation: Ints, output_padding: Ints
) -> Ints:
    return tuple(
        (s - 1) * st - 2 * p + d * (k - 1) + op + 1
        for s, k, st, p, d, op in zip(size, kernel, stride, padding, dilation, output_padding)
    )


# --------------------------------------------------------------------------------------------
# the node: rules for numpy arrays and (create_graph) Tensors
# --------------------------------------------------------------------------------------------
def _missing_padding(in_spatial: Ints, out_spatial: Ints, a: Any, kernel: Ints) -> Ints:
    """The output_padding a transposed convolution needs to give back `in_spatial`."""
    full = transposed_shape(
        out_spatial, kernel, a.stride, a.padding, a.dilation, (0,) * len(kernel)
    )
    return tuple(i - f for i, f in zip(in_spatial, full))


def _plain_input_grad(g: Any, w: Any, in_shape: Ints, a: Any) -> Any:
    if isinstance(g, Tensor):
        op = _missing_padding(in_shape[2:], tuple(g.shape[2:]), a, tuple(w.shape[2:]))
        return _convolution(g, w, None, a.stride, a.padding, a.dilation, True, op, a.groups)
    return input_grad_np(g, w, in_shape, a.stride, a.padding, a.dilation, a.groups)


def _plain_weight_grad(g: Any, x: Any, w_shape: Ints, a: Any) -> Any:
    """d weight of conv(x, w) for output gradient g: on Tensors a convolution of x (batch as
    channels) with g (batch as input channels), stride and dilation swapped, group by group."""
    if not isinstance(g, Tensor):
        return weight_grad_np(g, x, w_shape, a.stride, a.padding, a.dilation, a.groups)
    groups = a.groups
    cg, og = x.shape[1] // groups, w_shape[0] // groups
    kernel = tuple(w_shape[2:])
    nd = len(kernel)
    parts = []
    for gi in range(groups):
        xg = x.narrow(1, gi * cg, cg).transpose(0, 1)  # (cg, N, *S)
        gg = g.narrow(1, gi * og, og).transpose(0, 1)  # (og, N, *out)
        r = _convolution(xg, gg, None, a.dilation, a.padding, a.stride, False, (0,) * nd, 1)
        for d, k in enumerate(kernel):
            r = r.narrow(2 + d, 0, k)
        parts.append(r.transpose(0, 1))  # (og, cg, *kernel)
    if groups == 1:
        return parts[0]
    from detachviz.engine.ops.join import cat

    return cat(parts, 0)


def _vjp_input(k: Any, g: Any, s: Any, a: Any) -> Any:
    x, w = s[0], s[1]
    if a.transposed:
        return _forward(g, w, a, False)
    return _plain_input_grad(g, w, tuple(x.shape), a)


def _vjp_weight(k: Any, g: Any, s: Any, a: Any) -> Any:
    x, w = s[0], s[1]
    if a.transposed:
        # y = A_w^T x: <y, g> = <x, A_w g>, so the weight sees g as input and x as gradient
        return _plain_weight_grad(x, g, tuple(w.shape), a)
    return _plain_weight_grad(g, x, tuple(w.shape), a)


def _vjp_bias(k: Any, g: Any, s: Any, a: Any) -> Any:
    axes = (0, *range(2, len(g.shape)))
    return g.sum(axes)


CONVOLUTION = node_class(
    "ConvolutionBackward0",
    (_vjp_input, _vjp_weight, _vjp_bias),
    saved=(Saved("input", 0, (0, 1, 2)), Saved("weight", 1, (0, 1, 2))),  # torch saves both
    attrs=(
        "bias_sym_sizes_opt",
        "stride",
        "padding",
        "dilation",
        "transposed",
        "output_padding",
        "groups",
    ),
)


def _forward(x: Any, w: Any, a: Any, transposed: bool) -> Any:
    """The bias-free convolution (transposed or not) of arrays or Tensors with `a`'s geometry."""
    if isinstance(x, Tensor):
        return _convolution(
            x, w, None, a.stride, a.padding, a.dilation, transposed, a.output_padding, a.groups
        )
    if transposed:
        shape = (x.shape[0], w.shape[1] * a.groups) + transposed_shape(
            x.shape[2:], w.shape[2:], a.stride, a.padding, a.dilation, a.output_padding
        )
        return input_grad_np(x, w, shape, a.stride, a.padding, a.dilation, a.groups)
    return conv_np(x, w, a.stride, a.padding, a.dilation, a.groups)


def _jvp_input(t: Any, p: Any, out: Any, a: Any) -> Any:
    return _forward(t, p[1], a, a.transposed)


def _jvp_weight(t: Any, p: Any, out: Any, a: Any) -> Any:
    return _forward(p[0], t, a, a.transposed)


def _jvp_bias(t: Any, p: Any, out: Any, a: Any) -> Any:
    return t.reshape((1, -1) + (1,) * (out.ndim - 2))


CONVOLUTION._jvp = (_jvp_input, _jvp_weight, _jvp_bias)


# --------------------------------------------------------------------------------------------
# the ops
# --------------------------------------------------------------------------------------------
def _tuple(v: Any, n: int) -> Ints:
    if isinstance(v, (list, tuple)):
        t = tuple(int(i) for i in v)
        return t * n if len(t) == 1 and n > 1 else t
    return (int(v),) * n


def _check(
    x: Tensor, w: Tensor, bias: Tensor | None, stride: Ints, padding: Ints, dilation: Ints,
    transposed: bool, output_padding: Ints, groups: int,
) -> None:  # fmt: skip
    if any(s <= 0 for s in stride):
        raise RuntimeError("non-positive stride is not supported")
    if any(p < 0 for p in padding):
        raise RuntimeError("negative padding is not supported")
    if any(d <= 0 for d in dilation):
        raise RuntimeError("dilation should be greater than zero")
    if groups <= 0:
        raise RuntimeError("non-positive groups is not supported")
    if w._dtype is not x._dtype:
        raise RuntimeError(f"expected scalar type {_c_name(x)} but found {_c_name(w)}")
    if bias is not None and bias._dtype is not x._dtype:
        raise RuntimeError(
            f"Input type ({_short(x)}) and bias type ({_short(bias)}) should be the same"
        )
    xs, ws = tuple(x._data.shape), tuple(w._data.shape)
    wsz = "[" + ", ".join(str(s) for s in ws) + "]"
    xsz = "[" + ", ".join(str(s) for s in xs) + "]"
    if len(ws) != len(xs):
        raise RuntimeError(
            f"Expected {len(ws)}-dimensional input for {len(ws)}-dimensional weight {wsz}, but "
            f"got {len(xs)}-dimensional input of size {xsz} instead"
        )
    if transposed:
        if xs[1] != ws[0]:
            raise RuntimeError(
                f"Given transposed=1, weight of size {wsz}, expected input{xsz} to have "
                f"{ws[0]} channels, but got {xs[1]} channels instead"
            )
        if any(op >= max(s, d) for op, s, d in zip(output_padding, stride, dilation)):
            raise RuntimeError(_output_padding_message(output_padding, stride, dilation))
        if bias is not None and bias._data.shape != (ws[1] * groups,):
            raise RuntimeError(
                f"Given transposed=1, weight of size {wsz}, expected bias to be 1-dimensional "
                f"with {ws[1] * groups} elements, but got bias of size "
                f"[{', '.join(str(s) for s in bias._data.shape)}] instead"
            )
        return
    if ws[0] % groups:
        raise RuntimeError(
            f"Given groups={groups}, expected weight to be divisible by {groups} at dimension 0, "
            f"but got weight of size {wsz} instead"
        )
    if xs[1] != ws[1] * groups:
        raise RuntimeError(
            f"Given groups={groups}, weight of size {wsz}, expected input{xsz} to have "
            f"{ws[1] * groups} channels, but got {xs[1]} channels instead"
        )
    if bias is not None and bias._data.shape != (ws[0],):
        raise RuntimeError(
            f"Given weight of size {wsz}, expected bias to be 1-dimensional with {ws[0]} "
            f"elements, but got bias of size [{', '.join(str(s) for s in bias._data.shape)}] "
            "instead"
        )
    padded = tuple(s + 2 * p for s, p in zip(xs[2:], padding))
    eff = tuple(d * (k - 1) + 1 for k, d in zip(ws[2:], dilation))
    if any(e > s for e, s in zip(eff, padded)):
        raise RuntimeError(
            f"Calculated padded input size per channel: ({' x '.join(map(str, padded))}). "
            f"Kernel size: ({' x '.join(map(str, eff))}). Kernel size can't be greater than "
            "actual input size"
        )


def _output_padding_message(output_padding: Ints, stride: Ints, dilation: Ints) -> str:
    names = ("height", "width") if len(stride) == 2 else tuple(f"{i}" for i in range(len(stride)))
    if len(stride) == 1:
        names = ("width",)
    parts = [f"output_padding_{n}: {v}" for n, v in zip(names, output_padding)]
    parts += [f"stride_{n}: {v}" for n, v in zip(names, stride)]
    parts += [f"dilation_{n}: {v}" for n, v in zip(names, dilation)]
    return "output padding must be smaller than either stride or dilation, but got " + " ".join(
        parts
    )


def _c_name(t: Tensor) -> str:
    return {"float32": "Float", "float64": "Double", "float16": "Half"}.get(
        str(t._data.dtype), str(t._data.dtype)
    )


def _short(t: Tensor) -> str:
    return {"float32": "float", "float64": "double", "float16": "half"}.get(
        str(t._data.dtype), str(t._data.dtype)
    )


def _convolution(
    x: Tensor, w: Tensor, bias: Tensor | None, stride: Ints, padding: Ints, dilation: Ints,
    transposed: bool, output_padding: Ints, groups: int,
) -> Tensor:  # fmt: skip
    """The op itself on validated, batched arguments."""
    xd, wd = x._data, w._data
    geometry = (stride, padding, dilation, output_padding, groups)
    s, p, d, op, gr = geometry
    if transposed:
        shape = (xd.shape[0], wd.shape[1] * gr) + transposed_shape(
            xd.shape[2:], wd.shape[2:], s, p, d, op
        )
        data = input_grad_np(xd, wd, shape, s, p, d, gr)
    else:
        data = conv_np(xd, wd, s, p, d, gr)
    if bias is not None:  # in place: `data` is the kernel's own fresh array
        data += bias._data.reshape((1, -1) + (1,) * (data.ndim - 2))
    attrs = (
        None if bias is None else tuple(bias._data.shape),
        s,
        p,
        d,
        transposed,
        op,
        gr,
    )
    ins = (x, w, bias)
    return apply(
        CONVOLUTION, "convolution", ins, data.astype(xd.dtype, copy=False), x._dtype, attrs
    )


def convolution(
    input: Tensor,
    weight: Tensor,
    bias: Tensor | None,
    stride: Any,
    padding: Any,
    dilation: Any,
    transposed: bool,
    output_padding: Any,
    groups: int,
) -> Tensor:
    """torch.convolution: any number of spatial dims, plain or transposed, batched input."""
    nd = weight.dim() - 2
    geo = (
        _tuple(stride, nd),
        _tuple(padding, nd),
        _tuple(dilation, nd),
        bool(transposed),
        _tuple(output_padding, nd),
        int(groups),
    )
    _check(input, weight, bias, *geo)
    return _convolution(input, weight, bias, *geo)


def _batched(name: str, x: Tensor, nd: int) -> bool:
    """Whether x carries a batch dim; raises torch's error for a wrong rank."""
    r = x.dim()
    if r == nd + 2:
        return True
    if r == nd + 1:
        return False
    size = "[" + ", ".join(str(s) for s in x._data.shape) + "]"
    raise RuntimeError(
        f"Expected {nd + 1}D (unbatched) or {nd + 2}D (batched) input to {name}, but got input "
        f"of size: {size}"
    )


def _same_padding(x: Tensor, kernel: Ints, dilation: Ints, stride: Ints) -> tuple[Tensor, Ints]:
    """torch's padding='same': symmetric padding, and for an odd total an extra zero column on
    the right made by an explicit constant pad (ConstantPadNdBackward0 in the graph)."""
    if any(s != 1 for s in stride):
        raise RuntimeError("padding='same' is not supported for strided convolutions")
    total = tuple(d * (k - 1) for k, d in zip(kernel, dilation))
    sym = tuple(t // 2 for t in total)
    extra = tuple(t - 2 * s for t, s in zip(total, sym))
    if any(extra):
        warnings.warn(
            "Using padding='same' with even kernel lengths and odd dilation may require a "
            "zero-padded copy of the input be created (Triggered internally at "
            "/__w/pytorch/pytorch/aten/src/ATen/native/Convolution.cpp:1101.)",
            UserWarning,
            stacklevel=4,
        )
        from detachviz.engine.ops.pad import constant_pad_nd

        pad: list[int] = []
        for e in reversed(extra):
            pad += [0, e]
        x = constant_pad_nd(x, tuple(pad))
    return x, sym


def conv_nd(
    name: str,
    nd: int,
    input: Tensor,
    weight: Tensor,
    bias: Tensor | None = None,
    stride: Any = 1,
    padding: Any = 0,
    dilation: Any = 1,
    groups: int = 1,
) -> Tensor:
    """torch.conv1d/conv2d/conv3d: unbatched inputs are unsqueezed and squeezed back (torch's
    UnsqueezeBackward0 / SqueezeBackward1 around the node); padding 'same' and 'valid'."""
    batched = _batched(name, input, nd)
    x = input if batched else input.unsqueeze(0)
    st, dil = _tuple(stride, nd), _tuple(dilation, nd)
    if isinstance(padding, str):
        if padding == "valid":
            pad = (0,) * nd
        elif padding == "same":
            x, pad = _same_padding(x, tuple(weight._data.shape[2:]), dil, st)
        else:
            raise RuntimeError(f"Invalid padding string: '{padding}'")
    else:
        pad = _tuple(padding, nd)
    out = convolution(x, weight, bias, st, pad, dil, False, (0,) * nd, groups)
    return out if batched else out.squeeze(0)


def conv_transpose_nd(
    name: str,
    nd: int,
    input: Tensor,
    weight: Tensor,
    bias: Tensor | None = None,
    stride: Any = 1,
    padding: Any = 0,
    output_padding: Any = 0,
    groups: int = 1,
    dilation: Any = 1,
) -> Tensor:
    """torch.conv_transpose1d/2d/3d (note torch's argument order: groups before dilation)."""
    if isinstance(padding, str):
        raise RuntimeError(f"{name}: padding must be an int or a tuple of ints, not '{padding}'")
    batched = _batched(name, input, nd)
    x = input if batched else input.unsqueeze(0)
    out = convolution(
        x,
        weight,
        bias,
        _tuple(stride, nd),
        _tuple(padding, nd),
        _tuple(dilation, nd),
        True,
        _tuple(output_padding, nd),
        groups,
    )
    return out if batched else out.squeeze(0)


def conv1d(input: Tensor, weight: Tensor, bias: Tensor | None = None, stride: Any = 1,
           padding: Any = 0, dilation: Any = 1, groups: int = 1) -> Tensor:  # fmt: skip
    return conv_nd("conv1d", 1, input, weight, bias, stride, padding, dilation, groups)


def conv2d(input: Tensor, weight: Tensor, bias: Tensor | None = None, stride: Any = 1,
           padding: Any = 0, dilation: Any = 1, groups: int = 1) -> Tensor:  # fmt: skip
    return conv_nd("conv2d", 2, input, weight, bias, stride, padding, dilation, groups)


def conv3d(input: Tensor, weight: Tensor, bias: Tensor | None = None, stride: Any = 1,
           padding: Any = 0, dilation: Any = 1, groups: int = 1) -> Tensor:  # fmt: skip
    return conv_nd("conv3d", 3, input, weight, bias, stride, padding, dilation, groups)


def conv_transpose1d(input: Tensor, weight: Tensor, bias: Tensor | None = None, stride: Any = 1,
                     padding: Any = 0, output_padding: Any = 0, groups: int = 1,
                     dilation: Any = 1) -> Tensor:  # fmt: skip
    return conv_transpose_nd(
        "conv_transpose1d", 1, input, weight, bias, stride, padding, output_padding, groups,
        dilation,
    )  # fmt: skip


def conv_transpose2d(input: Tensor, weight: Tensor, bias: Tensor | None = None, stride: Any = 1,
                     padding: Any = 0, output_padding: Any = 0, groups: int = 1,
                     dilation: Any = 1) -> Tensor:  # fmt: skip
    return conv_transpose_nd(
        "conv_transpose2d", 2, input, weight, bias, stride, padding, output_padding, groups,
        dilation,
    )  # fmt: skip


# --------------------------------------------------------------------------------------------
# create_graph: torch's convolution_backward as one op (ConvolutionBackwardBackward0)
# --------------------------------------------------------------------------------------------
CONV_ATTRS = ("stride", "padding", "dilation", "transposed", "output_padding", "groups")


def _conv_backward(k: Any, g: Any, x: Any, w: Any, a: Any, mask: Any) -> list[Any]:
    """convolution_backward: the input, weight and bias gradients `mask` asks for."""
    return [
        _vjp_input(k, g, (x, w), a) if mask[0] else None,
        _vjp_weight(k, g, (x, w), a) if mask[1] else None,
        _vjp_bias(k, g, (), a) if mask[2] else None,
    ]


def _conv_double_backward(k: Any, ggs: Any, g: Any, x: Any, w: Any, a: Any) -> list[Any]:
    """torch's _convolution_double_backward: the output of convolution_backward is linear in
    each of g, x, w, so the gradient of g is the forward convolution of the incoming input,
    weight and bias gradients; x's comes from the weight gradient's incoming gradient (its
    input gradient with that as the kernel), w's from the input gradient's."""
    ggi, ggw, ggb = ggs
    gg = None
    if ggi is not None:
        gg = _forward(ggi, w, a, a.transposed)
    if ggw is not None:
        term = _forward(x, ggw, a, a.transposed)
        gg = term if gg is None else gg + term
    if ggb is not None:
        term = ggb.reshape((1, -1) + (1,) * (len(g.shape) - 2))
        gg = term if gg is None else gg + term
    gx = None if ggw is None else _vjp_input(k, g, (x, ggw), a)
    gw = None if ggi is None else _vjp_weight(k, g, (ggi, w), a)
    return [gg, gx, gw]


CONV_BACK = multi_backward_op(
    "ConvolutionBackwardBackward0",
    _conv_backward,
    _conv_double_backward,
    3,
    attrs=CONV_ATTRS,
    saved=("grad_output", "input", "weight"),
    hess=(1, 2, None),
)


def _conv_graph_backward(node: Any, g: Tensor) -> list[Any]:
    x, w = node._unpack(True)
    a = named_attrs(node)
    return CONV_BACK(TT, g, (x, w), tuple(getattr(a, n) for n in CONV_ATTRS), needs(node))


graph_backward(CONVOLUTION, _conv_graph_backward)
