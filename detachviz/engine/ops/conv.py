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
from detachviz.engine.node import Saved, node_class
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
    if not any(padding):
        return x
    return np.pad(x, ((0, 0), (0, 0)) + tuple((p, p) for p in padding))


def conv_np(x: Any, w: Any, stride: Ints, padding: Ints, dilation: Ints, groups: int) -> Any:
    """The plain convolution (cross-correlation, torch's convention) without bias."""
    nd = x.ndim - 2
    kernel = w.shape[2:]
    out = out_size(x.shape[2:], kernel, stride, padding, dilation)
    win = windows(_pad(x, padding), kernel, stride, dilation, out)
    cg, og = x.shape[1] // groups, w.shape[0] // groups
    red = [1] + list(range(2 + nd, 2 + 2 * nd))
    parts = []
    for g in range(groups):
        wg = w[g * og : (g + 1) * og]
        r = np.tensordot(win[:, g * cg : (g + 1) * cg], wg, axes=(red, [1, *range(2, 2 + nd)]))
        parts.append(np.moveaxis(r, -1, 1))  # (N, *out, og) -> (N, og, *out)
    res = parts[0] if groups == 1 else np.concatenate(parts, axis=1)
    return np.ascontiguousarray(res, dtype=x.dtype)


def input_grad_np(
    g: Any, w: Any, in_shape: Ints, stride: Ints, padding: Ints, dilation: Ints, groups: int
) -> Any:
    """The adjoint of `conv_np` in its input: the gradient of an input of `in_shape`."""
    nd = g.ndim - 2
    kernel = w.shape[2:]
    out = g.shape[2:]
    cg, og = in_shape[1] // groups, w.shape[0] // groups
    padded = tuple(in_shape[:2]) + tuple(s + 2 * p for s, p in zip(in_shape[2:], padding))
    gxp = np.zeros(padded, dtype=g.dtype)
    for gi in range(groups):
        # cols: (N, *out, cg, *kernel)
        cols = np.tensordot(
            np.moveaxis(g[:, gi * og : (gi + 1) * og], 1, -1), w[gi * og : (gi + 1) * og], (-1, 0)
        )
        for off in itertools.product(*(range(k) for k in kernel)):
            region = tuple(
                slice(o * d, o * d + s * (n - 1) + 1, s)
                for o, d, s, n in zip(off, dilation, stride, out)
            )
            piece = cols[(slice(None),) * (1 + nd) + (slice(None),) + off]  # (N, *out, cg)
            gxp[(slice(None), slice(gi * cg, (gi + 1) * cg)) + region] += np.moveaxis(piece, -1, 1)
    crop = tuple(slice(p, p + s) for p, s in zip(padding, in_shape[2:]))
    return np.ascontiguousarray(gxp[(slice(None), slice(None)) + crop])


def weight_grad_np(
    g: Any, x: Any, w_shape: Ints, stride: Ints, padding: Ints, dilation: Ints, groups: int
) -> Any:
    """The gradient of the weight of `conv_np(x, w)` for the output gradient `g`."""
    nd = x.ndim - 2
    kernel = tuple(w_shape[2:])
    out = g.shape[2:]
    win = windows(_pad(x, padding), kernel, stride, dilation, out)
    cg, og = x.shape[1] // groups, w_shape[0] // groups
    rows = x.shape[0] * int(np.prod(out, dtype=np.int64))
    parts = []
    for gi in range(groups):
        # im2col rows (N * out positions) against the gradient's: (cg * kernel, og), then .T
        # NOTE: this orientation on purpose: OpenBLAS runs the (og, rows) @ (rows, cg*k)
        # product with its long inner dim 20x slower (measured) than this transposed one
        cols = np.moveaxis(win[:, gi * cg : (gi + 1) * cg], 1, 1 + nd).reshape(rows, -1)
        gm = np.moveaxis(g[:, gi * og : (gi + 1) * og], 1, -1).reshape(rows, og)
        r = (cols.T @ gm).T.reshape((og, cg) + kernel)
        parts.append(r)
    res = parts[0] if groups == 1 else np.concatenate(parts, axis=0)
    return np.ascontiguousarray(res, dtype=x.dtype)


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
    if bias is not None:
        data = data + bias._data.reshape((1, -1) + (1,) * (data.ndim - 2))
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
