"""What torch's CPU recurrent layers are made of beyond the common ops: `unsafe_split` /
`unsafe_chunk` (the gate split of every LSTM and GRU step, one `UnsafeSplitBackward0` node with
one output per piece; the pieces are copies, not views) and the fused float32 LSTM layer torch
runs through oneDNN (`MkldnnRnnLayerBackward0`: edges input, w_ih, w_hh, b_ih, b_hh, hx, cx;
outputs output, hy, cy), with its backward through time written out in numpy.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from detachviz.engine import factory, state, trace, transcendental
from detachviz.engine.function import apply, attach, unary
from detachviz.engine.node import MULTI, Node, Saved, node_class
from detachviz.engine.ops import unary as elementwise
from detachviz.engine.ops.join import cat
from detachviz.engine.ops.view import output_grads, split_bounds
from detachviz.engine.tensor import Tensor, init_tensor, wrap

_new = object.__new__


def _multi_result(
    cls: type[Node], name: str, ins: tuple[Any, ...], datas: list[Any], dtype: Any, attrs: tuple
) -> tuple[Tensor, ...]:
    """Fresh (non-view) results of one op with one multi-output node over `ins`."""
    outs = []
    for d in datas:
        out = _new(Tensor)
        init_tensor(out, np.ascontiguousarray(d), dtype)
        outs.append(out)
    if state.grad_enabled and any(isinstance(t, Tensor) and t._requires_grad for t in ins):
        node = attach(cls, outs[0], ins, attrs)
        node._shape = MULTI
        node._npd = tuple((o._data.shape, o._data.dtype) for o in outs)
        for k, out in enumerate(outs):
            out._grad_fn = node
            out._output_nr = k
            out._requires_grad = True
    if trace.RECORDER is not None:
        trace.RECORDER.record(name, tuple(t for t in ins if isinstance(t, Tensor)), tuple(outs))
    return tuple(outs)


# --------------------------------------------------------------------------------------------
# unsafe_split / unsafe_chunk
# --------------------------------------------------------------------------------------------
def _unsafe_split_backward(node: Node, g: Any, tensor_mode: bool) -> list[Any]:
    parts = output_grads(node, g, tensor_mode)
    dim = node._attrs[0]
    if tensor_mode:
        return [cat(parts, dim)]
    return [np.concatenate(parts, axis=dim)]


def _piece_jvp(t: Any, p: Any, out: Any, a: Any) -> Any:
    # NOTE: the op kit's forward-AD hook is called once per piece with the piece's bounds
    # appended to the node's attributes (a[3], a[4]); the node itself keeps torch's three
    dim = a[0] % np.ndim(t)
    return t[(slice(None),) * dim + (slice(a[3], a[4]),)]


UNSAFE_SPLIT = node_class(
    "UnsafeSplitBackward0",
    (None,),
    attrs=("dim", "self_sym_sizes", "split_size"),
    jvp=(_piece_jvp,),
    custom=_unsafe_split_backward,
)


def unsafe_split(x: Tensor, split_size: int, dim: int = 0) -> tuple[Tensor, ...]:
    xd = x._data
    d = dim % xd.ndim
    size = xd.shape[d]
    bounds = split_bounds(size, split_size)
    datas = [xd[(slice(None),) * d + (slice(b, e),)] for b, e in bounds]
    attrs = (dim, xd.shape, split_size)
    outs = _multi_result(UNSAFE_SPLIT, "unsafe_split", (x,), datas, x._dtype, attrs)
    if state.fw_hooks is not None:
        for out, (b, e) in zip(outs, bounds):
            state.fw_hooks.op(UNSAFE_SPLIT, (x,), out, (*attrs, b, e))
    return outs


def unsafe_chunk(x: Tensor, chunks: int, dim: int = 0) -> tuple[Tensor, ...]:
    size = x._data.shape[dim % x._data.ndim]
    return unsafe_split(x, max(-(-size // chunks), 1), dim)


def lstm_gates(i: Tensor, f: Tensor, g: Tensor, o: Tensor) -> tuple[Tensor, Tensor, Tensor, Tensor]:
    """An LSTM step's gate activations `sigmoid(i), sigmoid(f), tanh(g), sigmoid(o)`: the same
    four ops, nodes and values as four calls (in that order), with the three sigmoids'
    values computed together (transcendental.sigmoid_many: one kernel pass for all three)."""
    if not (i._dtype.is_floating_point and f._dtype is i._dtype and o._dtype is i._dtype):
        return (
            elementwise.sigmoid(i),
            elementwise.sigmoid(f),
            elementwise.tanh(g),
            elementwise.sigmoid(o),
        )
    si, sf, so = transcendental.sigmoid_many((i._data, f._data, o._data))
    sig = elementwise.SIGMOID
    return (
        unary(sig, lambda _: si, "sigmoid", i),
        unary(sig, lambda _: sf, "sigmoid", f),
        elementwise.tanh(g),
        unary(sig, lambda _: so, "sigmoid", o),
    )


# --------------------------------------------------------------------------------------------
# the fused float32 LSTM layer (oneDNN's, as torch's CPU LSTM runs it)
# --------------------------------------------------------------------------------------------
def _sigmoid(v: Any) -> Any:
    return 1 / (1 + np.exp(-v))


def _lstm_layer_backward(node: Node, g: Any, tensor_mode: bool) -> list[Any]:
    if tensor_mode:
        raise RuntimeError("derivative for mkldnn_rnn_layer_backward is not implemented")
    node._unpack(False)  # torch's checks: freed (backward twice), modified in place
    g_out, g_hy, g_cy = output_grads(node, g, False)
    reverse, _, cache = node._attrs
    x, w_ih, w_hh, c0, gates, cs, hs = cache
    steps = range(x.shape[0] - 1, -1, -1) if not reverse else range(x.shape[0])
    hidden = w_hh.shape[1]
    dx = np.zeros_like(x)
    dw_ih, dw_hh = np.zeros_like(w_ih), np.zeros_like(w_hh)
    db = np.zeros(w_ih.shape[0], dtype=x.dtype)
    dh, dc = g_hy.copy(), g_cy.copy()
    for t in steps:
        i, f, gg, o = (gates[t][:, k * hidden : (k + 1) * hidden] for k in range(4))
        prev = t - 1 if not reverse else t + 1
        last = prev < 0 or prev >= x.shape[0]
        c_prev = c0 if last else cs[prev]
        h_prev = hs[-1] if last else hs[prev]
        dh = dh + g_out[t]
        tc = np.tanh(cs[t])
        dc = dc + dh * o * (1 - tc * tc)
        dgates = np.concatenate(
            [
                dc * gg * i * (1 - i),
                dc * c_prev * f * (1 - f),
                dc * i * (1 - gg * gg),
                dh * tc * o * (1 - o),
            ],
            axis=1,
        )
        dw_ih += dgates.T @ x[t]
        dw_hh += dgates.T @ h_prev
        db += dgates.sum(0)
        dx[t] = dgates @ w_ih
        dh = dgates @ w_hh
        dc = dc * f
    has_bias = node.next_functions[3][0] is not None or node.next_functions[4][0] is not None
    return [dx, dw_ih, dw_hh, db if has_bias else None, db if has_bias else None, dh, dc]


_EVERY_INPUT = tuple(range(7))
MKLDNN_RNN_LAYER = node_class(
    "MkldnnRnnLayerBackward0",
    (None,) * 7,
    # saved as torch names them; the backward reads its own float cache (`workspace`) but
    # unpacks these first, so an in-place change since the forward raises torch's error
    saved=tuple(
        Saved(name, k, _EVERY_INPUT)
        for k, name in enumerate(
            ("input", "weight0", "weight1", "weight2", "weight3", "hx_", "cx_")
        )
    ),
    attrs=("reverse", "hidden_size", "workspace"),
    custom=_lstm_layer_backward,
)


def mkldnn_lstm_layer(
    x: Tensor,
    w_ih: Tensor,
    w_hh: Tensor,
    b_ih: Tensor | None,
    b_hh: Tensor | None,
    hx: Tensor,
    cx: Tensor,
    reverse: bool,
) -> tuple[Tensor, Tensor, Tensor]:
    """One LSTM layer over a (T, B, I) sequence: (output (T, B, H), hy, cy), one fused node.
    The gate order is torch's (input, forget, cell, output)."""
    xd, wi, wh = x._data, w_ih._data, w_hh._data
    hidden = wh.shape[1]
    bias = 0 if b_ih is None else b_ih._data + b_hh._data  # type: ignore[union-attr]
    pre = xd @ wi.T + bias
    h, c = hx._data, cx._data
    steps = range(xd.shape[0]) if not reverse else range(xd.shape[0] - 1, -1, -1)
    n = xd.shape[0]
    gates: list[Any] = [None] * n
    cs: list[Any] = [None] * n
    hs: list[Any] = [None] * n
    for t in steps:
        z = pre[t] + h @ wh.T
        i = _sigmoid(z[:, :hidden])
        f = _sigmoid(z[:, hidden : 2 * hidden])
        gg = np.tanh(z[:, 2 * hidden : 3 * hidden])
        o = _sigmoid(z[:, 3 * hidden :])
        c = f * c + i * gg
        h = o * np.tanh(c)
        gates[t] = np.concatenate([i, f, gg, o], axis=1)
        cs[t], hs[t] = c, h
    out = np.stack(hs) if xd.shape[0] else np.zeros(xd.shape[:2] + (hidden,), xd.dtype)
    hs.append(hx._data)  # hs[-1]: the initial hidden state, for the backward's first step
    cache = (xd, wi, wh, cx._data, gates, cs, hs)
    dt = x._dtype
    datas = [out.astype(xd.dtype), h.astype(xd.dtype), c.astype(xd.dtype)]
    ins = (x, w_ih, w_hh, b_ih, b_hh, hx, cx)
    if state.fw_hooks is not None and any(
        isinstance(t, Tensor) and t._fw_tangent is not None for t in ins
    ):
        raise NotImplementedError(
            "Trying to use forward AD with mkldnn_rnn_layer that does not support it because it "
            "has not been implemented yet."
        )
    outs = _multi_result(
        MKLDNN_RNN_LAYER, "mkldnn_rnn_layer", ins, datas, dt, (reverse, hidden, cache)
    )
    return outs[0], outs[1], outs[2]


# --------------------------------------------------------------------------------------------
# the in-place batch_first transpose of RNN and GRU outputs
# --------------------------------------------------------------------------------------------
TRANSPOSE_INPLACE = node_class(
    "TransposeBackward1",
    (lambda k, g, s, a: k.transpose(g, a.dim0, a.dim1),),
    attrs=("dim0", "dim1"),
    jvp=(lambda t, p, o, a: np.swapaxes(t, a.dim0, a.dim1),),
)


def transpose_fresh_(x: Tensor, dim0: int, dim1: int) -> Tensor:
    """torch's `output.transpose_(0, 1)` at the end of a batch_first RNN/GRU, on an output no
    one else holds yet: the transposed tensor with TransposeBackward1 and `_version` 1."""
    out = apply(
        TRANSPOSE_INPLACE,
        "transpose_",
        (x,),
        np.swapaxes(x._data, dim0, dim1),
        x._dtype,
        (dim0, dim1),
    )
    out._bump()
    return out


# --------------------------------------------------------------------------------------------
# packed sequences: torch._pack_padded_sequence (PackPaddedSequenceBackward0)
# --------------------------------------------------------------------------------------------
def _packed_rows(sizes: Any, batch_sizes: list[int], batch_first: bool) -> Any:
    """Row k of the packed data is this row of the input flattened to (rows, *features):
    step t's first batch_sizes[t] entries, step after step."""
    steps, batch = (sizes[1], sizes[0]) if batch_first else (sizes[0], sizes[1])
    rows = [
        (b * steps + t) if batch_first else (t * batch + b)
        for t, n in enumerate(batch_sizes)
        for b in range(n)
    ]
    return np.asarray(rows, dtype=np.intp)


def _pack_backward_tensor(g: Tensor, sizes: Any, batch_sizes: list[int], first: bool) -> Tensor:
    """torch's _pack_padded_sequence_backward, composite as in torch (copies into slices of
    zeros, then the transpose back), so a double backward sees torch's nodes."""
    time_major = (sizes[1], sizes[0], *sizes[2:]) if first else tuple(sizes)
    out = factory.zeros(time_major, dtype=g._dtype)
    offset = 0
    for t, n in enumerate(batch_sizes):
        out[t].narrow(0, 0, n).copy_(g.narrow(0, offset, n))
        offset += n
    return out.transpose(0, 1) if first else out


def _pack_vjp(k: Any, g: Any, s: Any, a: Any) -> Any:
    sizes, batch_sizes = a.input_sym_sizes, a.result1.tolist()
    if isinstance(g, Tensor):
        return _pack_backward_tensor(g, sizes, batch_sizes, a.batch_first)
    flat = np.zeros((int(np.prod(sizes[:2])), *sizes[2:]), dtype=g.dtype)
    flat[_packed_rows(sizes, batch_sizes, a.batch_first)] = g
    return flat.reshape(sizes)


PACK_PADDED = node_class(
    "PackPaddedSequenceBackward0",
    (_pack_vjp,),
    attrs=("batch_first", "input_sym_sizes", "result1"),
)


def pack_padded_sequence(x: Tensor, lengths: Tensor, batch_first: bool) -> tuple[Tensor, Tensor]:
    """torch._pack_padded_sequence: (data, batch_sizes) of a padded (T, B, *) input (or
    (B, T, *) with batch_first) whose sequence lengths are `lengths` (int64, decreasing)."""
    xd = x._data
    lens = lengths._data
    if xd.size == 0:
        raise RuntimeError("Cannot pack empty tensors.")
    if lens.ndim != 1 or lengths._dtype.name != "int64":
        raise RuntimeError(
            f"'lengths' argument should be a 1D CPU int64 tensor, but got {lens.ndim}D cpu "
            f"{lengths._dtype.legacy[: -len('Tensor')]} tensor"
        )
    batch = xd.shape[0] if batch_first else xd.shape[1]
    steps = xd.shape[1] if batch_first else xd.shape[0]
    if lens.shape[0] != batch:
        raise RuntimeError(
            f"Expected `len(lengths)` to be equal to batch_size, but got {lens.shape[0]} "
            f"(batch_size={batch})"
        )
    ls = [int(v) for v in lens.tolist()]
    if ls[-1] <= 0:
        raise RuntimeError(
            "Length of all samples has to be greater than 0, but found an element in 'lengths' "
            "that is <= 0"
        )
    if any(a < b for a, b in zip(ls, ls[1:])):
        raise RuntimeError(
            "`lengths` array must be sorted in decreasing order when `enforce_sorted` is True. "
            "You can pass `enforce_sorted=False` to pack_padded_sequence and/or pack_sequence "
            "to sidestep this requirement if you do not need ONNX exportability."
        )
    if ls[0] > steps:  # torch reads past the input here; refused instead
        raise RuntimeError(
            f"pack_padded_sequence: a length ({ls[0]}) exceeds the input's sequence length "
            f"({steps})"
        )
    batch_sizes = [sum(1 for v in ls if v > t) for t in range(ls[0])]
    flat = xd.reshape((xd.shape[0] * xd.shape[1], *xd.shape[2:]))
    data = flat[_packed_rows(xd.shape, batch_sizes, batch_first)]
    sizes_t = wrap(np.asarray(batch_sizes, dtype=np.int64), lengths._dtype)
    if state.fw_hooks is not None and x._fw_tangent is not None:
        raise NotImplementedError(
            "Trying to use forward AD with _pack_padded_sequence that does not support it "
            "because it has not been implemented yet."
        )
    out = apply(
        PACK_PADDED,
        "_pack_padded_sequence",
        (x,),
        data,
        x._dtype,
        (batch_first, tuple(xd.shape), sizes_t),
    )
    return out, sizes_t
