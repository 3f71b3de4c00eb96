"""Batch and group normalisation with torch's nodes: NativeBatchNormBackward0 (torch.batch_norm,
training or eval, running statistics updated in place) and NativeGroupNormBackward0.

Statistics are accumulated in float64 and the output computed as torch's CPU kernels do
(`x * scale + shift` with scale = invstd * weight), to stay close to torch's float32 bits.
The backward is one formula for both (`_normalized_grad`, written for numpy arrays and
Tensors alike); under create_graph the batch statistics are recomputed from the input with
Tensor ops, so double backward differentiates through them too.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from detachviz.engine.function import finish
from detachviz.engine.node import Saved, named_attrs, node_class
from detachviz.engine.ops import inplace
from detachviz.engine.ops.saving import attach_saved
from detachviz.engine.rules import NP, TT, graph_backward, multi_backward_op, needs
from detachviz.engine.tensor import Tensor, init_tensor, wrap


def _sum(v: Any, axes: tuple[int, ...]) -> Any:
    if isinstance(v, Tensor):
        return v.sum(axes, keepdim=True)
    return v.sum(axes, keepdims=True)


def _mean(v: Any, axes: tuple[int, ...]) -> Any:
    if isinstance(v, Tensor):
        return v.mean(axes, keepdim=True)
    return v.mean(axes, keepdims=True)


def _normalized_grad(gh: Any, xc: Any, invstd: Any, axes: tuple[int, ...]) -> Any:
    """d loss / d x for xhat = xc * invstd with batch statistics over `axes`, given
    gh = d loss / d xhat (torch's batch_norm_backward formula)."""
    return (gh - _mean(gh, axes) - xc * (invstd * invstd) * _mean(gh * xc, axes)) * invstd


def _bshape(nd: int) -> tuple[int, ...]:
    return (1, -1) + (1,) * (nd - 2)


def _stats_of(x: Any, axes: tuple[int, ...], eps: float) -> tuple[Any, Any]:
    """(x - mean, invstd) as Tensors built from x (create_graph: differentiable)."""
    xc = x - _mean(x, axes)
    return xc, (_mean(xc * xc, axes) + eps) ** -0.5


# --------------------------------------------------------------------------------------------
# batch norm
# --------------------------------------------------------------------------------------------
def _bn_parts(s: Any, a: Any) -> tuple[Any, Any, Any, tuple[int, ...]]:
    """(x - mean, invstd, weight-or-None, axes) for the rules, kept at the input's rank."""
    x, w, rm, rv, mean, invstd = s
    nd = len(x.shape)
    axes = (0, *range(2, nd))
    bs = _bshape(nd)
    if a.training:
        if isinstance(x, Tensor):
            xc, inv = _stats_of(x, axes, a.eps)
        else:
            xc, inv = x - mean.reshape(bs), invstd.reshape(bs)
    else:
        rmv = rm._data if isinstance(rm, Tensor) else rm
        rvv = rv._data if isinstance(rv, Tensor) else rv
        dt = (x._data if isinstance(x, Tensor) else x).dtype
        inv_np = (1.0 / np.sqrt(rvv.astype(np.float64) + a.eps)).astype(dt).reshape(bs)
        mean_np = rmv.astype(dt).reshape(bs)
        xc = x - (wrap(mean_np) if isinstance(x, Tensor) else mean_np)
        inv = wrap(inv_np) if isinstance(x, Tensor) else inv_np
    wb = None if w is None else w.reshape(bs)
    return xc, inv, wb, axes


def _rows(v: Any) -> tuple[Any, tuple[int, ...], tuple[int, ...]]:
    """An (N, C, rest) view of a numpy array (N, C) left as is, with the (1, C, 1)-style shape
    of a per-channel value and the reduction axes. NOTE: numpy runs a broadcast op along its
    innermost dim, so (N, C, H, W) against (1, C, 1, 1) loops W elements at a time; the flat
    view makes that H * W (several times faster at CNN sizes)."""
    if v.ndim == 2:
        return v, (1, -1), (0,)
    return v.reshape(v.shape[0], v.shape[1], -1), (1, -1, 1), (0, 2)


def _centred_rows(x: Any, mean: Any) -> Any:
    """x - mean on the (N, C, rest) view (a fresh array the training gradients may consume)."""
    x3, b3, _ = _rows(x)
    return x3 - mean.reshape(b3)


def _bn_train_input_grad_np(g: Any, s: Any, xc: Any) -> Any:
    """d input in training mode from numpy arrays: `_normalized_grad`'s formula, on the flat
    view and with fewer temporaries; `xc` (`_centred_rows`) is overwritten."""
    x, w, _, _, _, invstd = s
    _, b3, red = _rows(x)
    g3 = _rows(g)[0]
    inv = invstd.reshape(b3)
    gh = g3 if w is None else g3 * w.reshape(b3)
    n = xc.size // xc.shape[1]
    mean_g = np.add.reduce(gh, axis=red, keepdims=True) / n
    mean_gx = np.add.reduce(gh * xc, axis=red, keepdims=True) / n
    xc *= inv * inv
    xc *= mean_gx
    # NOTE: in place where the array is ours (fewer large temporaries alive at once)
    gx = gh - mean_g if w is None else np.subtract(gh, mean_g, out=gh)
    gx -= xc
    gx *= inv
    return gx.reshape(x.shape)


def _bn_train_weight_grad_np(g: Any, s: Any, xc: Any) -> Any:
    """d weight in training mode: sum of g * (x - mean) * invstd per channel (`xc` kept)."""
    _, b3, red = _rows(s[0])
    t = np.multiply(_rows(g)[0], xc)
    t *= s[5].reshape(b3)
    return np.add.reduce(t, axis=red)


def _bn_input(k: Any, g: Any, s: Any, a: Any) -> Any:
    if a.training and not isinstance(g, Tensor):
        return _bn_train_input_grad_np(g, s, _centred_rows(s[0], s[4]))
    xc, inv, wb, axes = _bn_parts(s, a)
    gh = g if wb is None else g * wb
    if a.training:
        return _normalized_grad(gh, xc, inv, axes)
    return gh * inv


def _bn_weight(k: Any, g: Any, s: Any, a: Any) -> Any:
    if a.training and not isinstance(g, Tensor):
        return _bn_train_weight_grad_np(g, s, _centred_rows(s[0], s[4]))
    xc, inv, _, axes = _bn_parts(s, a)
    return (g * xc * inv).sum(axes)


def _channel_sum(k: Any, g: Any, s: Any, a: Any) -> Any:
    return g.sum((0, *range(2, len(g.shape))))


def _bn_jvp_input(t: Any, p: Any, out: Any, a: Any) -> Any:
    x, w, _, rm, rv = p
    nd = x.ndim
    axes, bs = (0, *range(2, nd)), _bshape(nd)
    if a.training:
        xc = x - x.mean(axes, keepdims=True)
        inv = 1.0 / np.sqrt((xc * xc).mean(axes, keepdims=True) + a.eps)
        d = t - t.mean(axes, keepdims=True) - xc * inv * inv * (t * xc).mean(axes, keepdims=True)
        d = d * inv
    else:
        d = t / np.sqrt(rv.reshape(bs) + a.eps)
    return d if w is None else d * w.reshape(bs)


def _bn_jvp_weight(t: Any, p: Any, out: Any, a: Any) -> Any:
    x, _, _, rm, rv = p
    nd = x.ndim
    axes, bs = (0, *range(2, nd)), _bshape(nd)
    if a.training:
        xc = x - x.mean(axes, keepdims=True)
        xh = xc / np.sqrt((xc * xc).mean(axes, keepdims=True) + a.eps)
    else:
        xh = (x - rm.reshape(bs)) / np.sqrt(rv.reshape(bs) + a.eps)
    return xh * t.reshape(bs)


def _bias_jvp(t: Any, p: Any, out: Any, a: Any) -> Any:
    return t.reshape(_bshape(out.ndim))


BATCH_NORM = node_class(
    "NativeBatchNormBackward0",
    (_bn_input, _bn_weight, _channel_sum),
    saved=(
        Saved("input", 0, (0, 1)),
        Saved("weight", 1, (0,)),
        Saved("running_mean", 3, (0, 1)),
        Saved("running_var", 4, (0, 1)),
        Saved("result1", 5, (0, 1)),
        Saved("result2", 6, (0, 1)),
    ),
    attrs=("training", "eps"),
    jvp=(_bn_jvp_input, _bn_jvp_weight, _bias_jvp, None, None),
)


def _values(t: Tensor | None) -> Any:
    return None if t is None else t._data


def batch_norm(
    input: Tensor,
    weight: Tensor | None,
    bias: Tensor | None,
    running_mean: Tensor | None,
    running_var: Tensor | None,
    training: bool,
    momentum: float,
    eps: float,
    cudnn_enabled: bool = False,
) -> Tensor:
    """torch.batch_norm: normalise over every dim but 1; in training with batch statistics
    (and the running ones updated in place: mean with momentum, var unbiased), else with the
    running statistics."""
    xd = input._data
    if xd.ndim < 2:
        raise ValueError(f"Expected 2D or 3D input (got {xd.ndim}D input)")
    c = xd.shape[1]
    for name, t in (("running_mean", running_mean), ("running_var", running_var),
                    ("weight", weight), ("bias", bias)):  # fmt: skip
        if t is not None and t._data.size != c:
            raise RuntimeError(f"{name} should contain {c} elements not {t._data.size}")
    if not training and (running_mean is None or running_var is None):
        raise RuntimeError("running_mean and running_var must be defined in evaluation mode")
    dt = xd.dtype
    if training:
        x3, b3, red = _rows(xd)
        n = xd.size // c
        # NOTE: x - mean and its square in place, in the float64 copy (one large temporary)
        d64 = x3.astype(np.float64)
        mean64 = np.add.reduce(d64, axis=red) / n
        d64 -= mean64.reshape(b3)
        var_sum = np.add.reduce(np.multiply(d64, d64, out=d64), axis=red)
        del d64
        invstd64 = 1.0 / np.sqrt(var_sum / n + eps)
        mean, invstd = mean64.astype(dt), invstd64.astype(dt)
        # NOTE: the running statistics are written in place (their _version moves), as torch's
        if running_mean is not None:
            rmd = running_mean._data
            new = momentum * mean64 + (1 - momentum) * rmd.astype(np.float64)
            inplace.copy_(running_mean, wrap(new.astype(rmd.dtype)))
        if running_var is not None:
            rvd = running_var._data
            unbiased = var_sum / (n - 1) if n > 1 else np.full(c, np.nan)
            new = momentum * unbiased + (1 - momentum) * rvd.astype(np.float64)
            inplace.copy_(running_var, wrap(new.astype(rvd.dtype)))
        saved_mean, saved_invstd = wrap(mean), wrap(invstd)
    else:
        mean = running_mean._data.astype(dt)  # type: ignore[union-attr]
        invstd = (1.0 / np.sqrt(running_var._data.astype(np.float64) + eps)).astype(dt)  # type: ignore[union-attr]
        saved_mean, saved_invstd = wrap(np.zeros(0, dt)), wrap(np.zeros(0, dt))
    scale = invstd if weight is None else invstd * weight._data
    shift = -mean * scale if bias is None else bias._data - mean * scale
    x3, b3, _ = _rows(xd)
    data = x3 * scale.reshape(b3)
    data += shift.reshape(b3)
    data = data.astype(dt, copy=False).reshape(xd.shape)
    out = object.__new__(Tensor)
    init_tensor(out, data, input._dtype)
    attrs = (bool(training), float(eps))
    saved = (input, weight, running_mean, running_var, saved_mean, saved_invstd)
    attach_saved(BATCH_NORM, out, (input, weight, bias), saved, attrs)
    ins = (input, weight, bias, running_mean, running_var)
    shown = tuple(t for t in (input, weight, bias) if t is not None)
    return finish(BATCH_NORM, "native_batch_norm", ins, out, attrs, record=shown, attached=True)


# --------------------------------------------------------------------------------------------
# group norm
# --------------------------------------------------------------------------------------------
def _gn_parts(s: Any, a: Any) -> tuple[Any, Any, Any, tuple[int, ...]]:
    """(x - mean, invstd) at shape (N, G, D), the weight at (1, C, 1...) and the input shape."""
    x, w, mean, rstd = s
    shape = tuple(x.shape)
    grouped = (a.N, a.group, -1)
    if isinstance(x, Tensor):
        xc, inv = _stats_of(x.reshape(grouped), (2,), a.eps)
    else:
        xc = x.reshape(grouped) - mean.reshape(a.N, a.group, 1)
        inv = rstd.reshape(a.N, a.group, 1)
    wb = None if w is None else w.reshape(_bshape(len(shape)))
    return xc, inv, wb, shape


def _gn_input(k: Any, g: Any, s: Any, a: Any) -> Any:
    xc, inv, wb, shape = _gn_parts(s, a)
    gh = g if wb is None else g * wb
    return _normalized_grad(gh.reshape((a.N, a.group, -1)), xc, inv, (2,)).reshape(shape)


def _gn_weight(k: Any, g: Any, s: Any, a: Any) -> Any:
    xc, inv, _, shape = _gn_parts(s, a)
    xh = (xc * inv).reshape(shape)
    return (g * xh).sum((0, *range(2, len(shape))))


def _gn_xhat(x: Any, a: Any) -> Any:
    xg = x.reshape(a.N, a.group, -1)
    xc = xg - xg.mean(2, keepdims=True)
    return xc, 1.0 / np.sqrt((xc * xc).mean(2, keepdims=True) + a.eps)


def _gn_jvp_input(t: Any, p: Any, out: Any, a: Any) -> Any:
    x, w = p[0], p[1]
    xc, inv = _gn_xhat(x, a)
    tg = t.reshape(a.N, a.group, -1)
    d = (tg - tg.mean(2, keepdims=True) - xc * inv * inv * (tg * xc).mean(2, keepdims=True)) * inv
    d = d.reshape(x.shape)
    return d if w is None else d * w.reshape(_bshape(x.ndim))


def _gn_jvp_weight(t: Any, p: Any, out: Any, a: Any) -> Any:
    xc, inv = _gn_xhat(p[0], a)
    return (xc * inv).reshape(p[0].shape) * t.reshape(_bshape(p[0].ndim))


GROUP_NORM = node_class(
    "NativeGroupNormBackward0",
    (_gn_input, _gn_weight, _channel_sum),
    saved=(
        Saved("input", 0, (0, 1)),
        Saved("weight", 1, (0,)),
        Saved("result1", 3, (0, 1)),
        Saved("result2", 4, (0, 1)),
    ),
    attrs=("N", "C", "HxW", "group", "eps"),
    jvp=(_gn_jvp_input, _gn_jvp_weight, _bias_jvp),
)


def group_norm(
    input: Tensor,
    num_groups: int,
    weight: Tensor | None = None,
    bias: Tensor | None = None,
    eps: float = 1e-5,
    cudnn_enabled: bool = True,
) -> Tensor:
    """torch.group_norm: normalise each of `num_groups` channel groups per sample."""
    xd = input._data
    if xd.ndim < 2:
        raise RuntimeError(
            f"Expected at least 2 dimensions for input tensor but received {xd.ndim}"
        )
    n, c = xd.shape[:2]
    if c % num_groups:
        raise RuntimeError(
            "Expected number of channels in input to be divisible by num_groups, but got input "
            f"of shape {list(xd.shape)} and num_groups={num_groups}"
        )
    for name, t in (("weight", weight), ("bias", bias)):
        if t is not None and (t._data.ndim != 1 or t._data.size != c):
            raise RuntimeError(
                f"Expected {name} to be a vector of size equal to the number of channels in "
                f"input, but got {name} of shape {list(t._data.shape)} and input of shape "
                f"{list(xd.shape)}"
            )
    hxw = xd.size // max(n * c, 1)
    dt = xd.dtype
    xg = xd.astype(np.float64).reshape(n, num_groups, -1)
    mean64 = xg.mean(2)
    var64 = ((xg - mean64[..., None]) ** 2).mean(2)
    rstd64 = 1.0 / np.sqrt(var64 + eps)
    mean, rstd = mean64.astype(dt), rstd64.astype(dt)
    per = c // num_groups
    # torch's kernel: per (n, c) scale = rstd * gamma, shift = beta - scale * mean
    scale = np.repeat(rstd, per, axis=1)
    if weight is not None:
        scale = scale * weight._data[None, :]
    shift = -scale * np.repeat(mean, per, axis=1)
    if bias is not None:
        shift = shift + bias._data[None, :]
    tail = (1,) * (xd.ndim - 2)
    data = np.ascontiguousarray(
        xd * scale.reshape((n, c) + tail) + shift.reshape((n, c) + tail), dtype=dt
    )
    out = object.__new__(Tensor)
    init_tensor(out, data, input._dtype)
    attrs = (n, c, hxw, int(num_groups), float(eps))
    saved = (input, weight, wrap(mean), wrap(rstd))
    attach_saved(GROUP_NORM, out, (input, weight, bias), saved, attrs)
    shown = tuple(t for t in (input, weight, bias) if t is not None)
    return finish(
        GROUP_NORM, "native_group_norm", (input, weight, bias), out, attrs, record=shown,
        attached=True,
    )  # fmt: skip


# --------------------------------------------------------------------------------------------
# create_graph: torch's native_batch_norm_backward as one op (NativeBatchNormBackwardBackward0)
# --------------------------------------------------------------------------------------------
def _full(v: Any, shape: tuple[int, ...]) -> Any:
    if isinstance(v, Tensor):
        return v.expand(shape)
    return np.broadcast_to(v, shape)


def _bn_backward(k: Any, g: Any, x: Any, w: Any, mean: Any, invstd: Any, rm: Any, rv: Any,
                 a: Any, mask: Any) -> list[Any]:  # fmt: skip
    """native_batch_norm_backward on arrays: the input, weight and bias gradients."""
    s = (x, w, rm, rv, mean, invstd)
    fa = tuple.__new__(BATCH_NORM._Attrs, (a.train, a.eps))
    return [
        _bn_input(k, g, s, fa) if mask[0] else None,
        _bn_weight(k, g, s, fa) if mask[1] else None,
        _channel_sum(k, g, s, fa) if mask[2] else None,
    ]


def _bn_double_backward(k: Any, ggs: Any, g: Any, x: Any, w: Any, mean: Any, invstd: Any,
                        rm: Any, rv: Any, a: Any) -> list[Any]:  # fmt: skip
    """The gradients of native_batch_norm_backward's (input, weight, bias) gradients for its
    grad_out, input and weight, written out (as torch's batchnorm_double_backward, with the
    batch statistics the forward saved). With xh = (x - mean) * r and the per-channel
    projection P(v) = r (v - E v - xh E[v xh]) (the input gradient for d xhat = v):
    d/d grad_out = w P(ggI) + ggW xh + ggB; d/d w = sum(grad_out P(ggI));
    d/d x = ggW P(grad_out) + r^2 (-xh (E[ggI gh] - E gh E ggI - 3 m t) - t (gh - E gh)
    - m (ggI - E ggI)) with gh = grad_out w, m = E[gh xh], t = E[ggI xh]."""
    shape = tuple(g.shape)
    nd = len(shape)
    axes, bs = (0, *range(2, nd)), _bshape(nd)
    tensor = isinstance(g, Tensor)
    if a.train:
        mu, r = mean.reshape(bs), invstd.reshape(bs)
    else:
        rmv = rm._data if isinstance(rm, Tensor) else rm
        rvv = rv._data if isinstance(rv, Tensor) else rv
        dt = (g._data if tensor else g).dtype
        mu_np = rmv.astype(dt).reshape(bs)
        r_np = (1.0 / np.sqrt(rvv.astype(np.float64) + a.eps)).astype(dt).reshape(bs)
        mu, r = (wrap(mu_np), wrap(r_np)) if tensor else (mu_np, r_np)
    d_g, d_x, d_w = normalization_double_backward(
        ggs, g, (x - mu) * r, r, w, bs, axes if a.train else None, axes
    )
    return [d_g, d_x, d_w, None, None]


def normalization_double_backward(
    ggs: Any, g: Any, xh: Any, r: Any, w: Any, wshape: Any, stat_axes: Any, param_axes: Any
) -> tuple[Any, Any, Any]:
    """The gradients of a normalisation's backward function (batch norm's, layer norm's) for
    its grad_out, input and weight, from `ggs`, the gradients arriving at its (input, weight,
    bias) results; `xh` is the normalised input, `r` the inverse std (both from the saved
    statistics, as torch's double backward takes them), `w` the weight (None: 1), seen at
    the input's rank as `wshape`; statistics over `stat_axes` (None: fixed statistics, eval
    batch norm), the weight's gradient summed over `param_axes`. With E over `stat_axes` and
    P(v) = r (v - E v - xh E[v xh]) (the input gradient for d xhat = v):
    d/d grad_out = w P(ggI) + ggW xh + ggB; d/d w = sum(grad_out P(ggI));
    d/d x = P(grad_out ggW) + r^2 (-xh (E[ggI gh] - E gh E ggI - 3 m t) - t (gh - E gh)
    - m (ggI - E ggI)), with gh = grad_out w, m = E[gh xh], t = E[ggI xh]."""
    ggi, ggw, ggb = ggs
    shape = tuple(g.shape)
    wb = None if w is None else w.reshape(wshape)

    def project(v: Any) -> Any:
        if stat_axes is None:
            return v * r
        return (v - _mean(v, stat_axes) - xh * _mean(v * xh, stat_axes)) * r

    d_g = d_x = d_w = None
    if ggi is not None:
        pi = project(ggi)
        d_g = pi if wb is None else pi * wb
        if w is not None:
            d_w = (g * pi).sum(param_axes).reshape(tuple(w.shape))
        if stat_axes is not None:
            gh = g if wb is None else g * wb
            mg, m = _mean(gh, stat_axes), _mean(gh * xh, stat_axes)
            mi, t = _mean(ggi, stat_axes), _mean(ggi * xh, stat_axes)
            inner = _mean(ggi * gh, stat_axes) - mg * mi - 3 * (m * t)
            d_x = (r * r) * (-(xh * inner) - t * (gh - mg) - m * (ggi - mi))
    if ggw is not None:
        gw = ggw.reshape(wshape)
        term = gw * xh
        d_g = term if d_g is None else d_g + term
        term = project(g * gw)
        d_x = term if d_x is None else d_x + term
    if ggb is not None:
        term = _full(ggb.reshape(wshape), shape)
        d_g = term if d_g is None else d_g + term
    return d_g, d_x, d_w


BN_BACK = multi_backward_op(
    "NativeBatchNormBackwardBackward0",
    _bn_backward,
    _bn_double_backward,
    3,
    attrs=("train", "eps"),
    saved=(
        "grad_out", "input", "weight", "save_mean", "save_invstd", "running_mean", "running_var"
    ),
    edges=5,
    hess=(1, 2, None),
)  # fmt: skip


def _bn_graph_backward(node: Any, g: Tensor) -> list[Any]:
    x, w, rm, rv, mean, invstd = node._unpack(True)
    a = named_attrs(node)
    return BN_BACK(TT, g, (x, w, mean, invstd, rm, rv), (a.training, a.eps), needs(node))


def _bn_plain_backward(node: Any, g: Any) -> list[Any]:
    """The three vjps on arrays; in training mode the input's and the weight's gradient share
    one `x - mean` (the weight's is taken first: the input's consumes it)."""
    s = node._unpack(False)
    a = named_attrs(node)
    mask = needs(node)
    if not a.training or not (mask[0] and mask[1]):
        vjps = (_bn_input, _bn_weight, _channel_sum)
        return [vjp(NP, g, s, a) if m else None for vjp, m in zip(vjps, mask)]
    xc = _centred_rows(s[0], s[4])
    gw = _bn_train_weight_grad_np(g, s, xc)
    return [_bn_train_input_grad_np(g, s, xc), gw, _channel_sum(NP, g, s, a) if mask[2] else None]


graph_backward(BATCH_NORM, _bn_graph_backward, _bn_plain_backward)
