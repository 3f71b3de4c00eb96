"""The op table: forward numpy kernels beside their torch-named backward nodes and vjp rules.

How to add an op (one row, one small function):

1. Make its node class with `node_class(torch_name, vjps, saved, attrs)`. Each vjp is
   `lambda F, g, s, a: ...` and returns the gradient for one input, written with Python
   operators and `F.*` helpers so the same rule runs on numpy arrays (fast path, `F = NP`)
   and on Tensors (`create_graph=True`, `F = TT`). `s` holds the saved values in `saved`
   order, `a` the attributes. Never unbroadcast or cast inside a rule: the engine sums a
   gradient down to its input's shape and casts it to its dtype, once, for every rule.
   `saved` rows are `(torch_name, source, need)`: source = input index or -1 for the result;
   need = bitmask of the inputs whose vjp reads it (torch saves only what is needed).
   Torch-style `_saved_<name>` attributes are generated from `saved` and `attrs`.
   A backward that is not one vjp per input (several outputs, CopySlices) sets
   `cls._custom = staticmethod(fn)` with `fn(node, g, tensor_mode) -> [grad per input]`.
2. Write the forward with `_unary(cls, np_fn, "name", x, attrs)`, `_binary(cls, np_fn,
   "name", x, y, attrs)` or `_apply(cls, "name", inputs, data, dtype, attrs)` for anything
   else (views use `_view`, several views `_multi_view`). They compute, attach the node when
   grad is on, call the forward-AD hook and record the op in the trace. Non-differentiable
   ops pass `cls=None`. In-place ops go through `_inplace(x, "name_", cls, new_values,
   others, attrs)`: checks, version bump, history rebase (CopySlices for views), trace.
3. Install it: `Tensor.method = ...` in `_install()` and, if torch has it, a module function
   in `detachviz/torch/__init__.py`.

Forward mode: a node class carries its JVP rules as `_jvp` (see engine/forward_ad.py, which
points `_FW` at its hooks while a dual level is active); detach()/detach_()/.data drop
`Tensor._fw_tangent`.

Reading what a node saved: `node._saved_variables` (SavedVariable: tensor, name,
saved_version, node) or the torch-style `node._saved_self` / `_saved_other` / ... .
"""

from __future__ import annotations

import builtins
import functools
import math
import operator
import warnings
from typing import Any

import numpy as np

from detachviz.engine import dtype as dtypes
from detachviz.engine import errors, grad_mode, summation, trace
from detachviz.engine.node import (
    MULTI,
    Node,
    SavedOutput,
    _RetainGradHook,
    _seq,
    new_node,
    node_class,
)
from detachviz.engine.tensor import (
    _BY_NP,
    _NO_EDGE,
    Tensor,
    VersionCounter,
    _edge,
    _init,
    _sync_views,
    _track_view,
    _wrap,
)

_ndarray = np.ndarray
_new = object.__new__
_f32 = dtypes.float32
_PY_SCALARS = (float, int, bool)
_next_seq = _seq.__next__
# forward AD: engine/forward_ad.py points this at its hooks while a dual level is active
_FW: Any = None


# --------------------------------------------------------------------------------------------
# type promotion (torch's result_type: dimensioned tensors > 0-dim tensors > python numbers)
# --------------------------------------------------------------------------------------------
def _category(d: dtypes.dtype) -> int:
    return 2 if d.is_floating_point else (0 if d is dtypes.bool_ else 1)


def _promote_pair(a: dtypes.dtype, b: dtypes.dtype) -> dtypes.dtype:
    if a is b:
        return a
    ca, cb = _category(a), _category(b)
    if ca != cb:
        return a if ca > cb else b
    return _BY_NP[np.promote_types(a.np, b.np)]


def _scalar_dtype(v: Any) -> dtypes.dtype:
    if isinstance(v, bool):
        return dtypes.bool_
    if isinstance(v, int):
        return dtypes.int64
    return dtypes.DEFAULT  # NOTE: a python float joins as the default dtype


def result_type(*operands: Any) -> dtypes.dtype:
    """torch.result_type over tensors and python numbers."""
    groups: list[dtypes.dtype | None] = [None, None, None]
    for v in operands:
        if isinstance(v, Tensor):
            d, k = v._dtype, (0 if v._data.ndim else 1)
        else:
            d, k = _scalar_dtype(v), 2
        groups[k] = d if groups[k] is None else _promote_pair(groups[k], d)
    out = None
    for d in groups:
        if d is None:
            continue
        if out is None:
            out = d
        elif _category(d) > _category(out):
            # a lower-priority operand only wins by category, and then brings its own dtype,
            # except python numbers, which bring the default dtype of their category
            out = d
    assert out is not None
    return out


def _as_scalar(v: Any) -> Any:
    if isinstance(v, np.generic):
        return v.item()
    return v


def _operands(x: Tensor, y: Any, floating: bool = False) -> tuple[Any, Any, dtypes.dtype]:
    """The numpy operands of a binary op and the torch result dtype (slow path)."""
    if isinstance(y, Tensor):
        dt = result_type(x, y)
        if floating and not dt.is_floating_point:
            dt = dtypes.DEFAULT
        xd = x._data if x._dtype is dt else x._data.astype(dt.np)
        yd = y._data if y._dtype is dt else y._data.astype(dt.np)
        return xd, yd, dt
    y = _as_scalar(y)
    if not isinstance(y, _PY_SCALARS):
        raise TypeError(f"unsupported operand type: {type(y).__name__}")
    dt = result_type(x, y)
    if floating and not dt.is_floating_point:
        dt = dtypes.DEFAULT
    xd = x._data if x._dtype is dt else x._data.astype(dt.np)
    return xd, dt.np.type(y), dt


# --------------------------------------------------------------------------------------------
# attaching nodes and recording
# --------------------------------------------------------------------------------------------
def _save_plan(cls: type[Node], mask: int) -> tuple[int | None, ...]:
    """For each saved slot of `cls`, its source (input index, -1 result) or None when no
    input that needs it requires grad."""
    return tuple(src if need & mask else None for src, need in zip(cls._save_src, cls._save_need))


def _compile_saver(plan: tuple[int | None, ...]) -> Any:
    """A function `saver(node, ins, out)` that fills `node._saved` / `node._versions` for one
    save plan. Generated once per (node class, input mask), like dataclasses generate
    __init__: saving runs on every op, and a loop over the plan costs more than the op."""
    lines = ["def saver(node, ins, out):"]
    names = []
    for k, src in enumerate(plan):
        if src is None:
            names.append(("None", "0"))
            continue
        if src < 0:
            # objects made without __init__ calls: this runs for every exp/tanh/relu/...
            lines += [
                "    vc = out._vc",
                "    if vc is None:",
                "        vc = out._vc = NEW(VC)",
                "        vc.v = 0",
                f"    t{k} = so = NEW(SO)",
                "    so._data = out._data",
                "    so._vc = vc",
                "    so._dtype = out._dtype",
                "    so._storage = out._storage",
                f"    v{k} = vc.v",
            ]
        else:
            lines += [
                f"    t{k} = ins[{src}]",
                f"    if t{k}.__class__ in SCALARS:",
                f"        v{k} = 0",
                "    else:",
                f"        vc = t{k}._vc",
                f"        v{k} = 0 if vc is None else vc.v",
                f"        if t{k}._x is not None and t{k}._x.inference:",
                "            raise RuntimeError(INFERENCE_SAVED)",
            ]
        names.append((f"t{k}", f"v{k}"))
    lines.append(f"    node._saved = ({', '.join(n for n, _ in names)},)")
    lines.append(f"    node._versions = ({', '.join(v for _, v in names)},)")
    ns: dict[str, Any] = {
        "VC": VersionCounter,
        "SO": SavedOutput,
        "NEW": _new,
        "SCALARS": _PY_SCALARS,
        "INFERENCE_SAVED": errors.INFERENCE_SAVED,
    }
    exec("\n".join(lines), ns)  # noqa: S102 - generated from the plan above only
    return ns["saver"]


def _saver(cls: type[Node], mask: int) -> Any:
    savers = cls.__dict__.get("_savers")
    if savers is None:
        savers = {}
        cls._savers = savers  # type: ignore[attr-defined]
    fn = savers[mask] = _compile_saver(_save_plan(cls, mask))
    return fn


def _save(node: Node, cls: type[Node], mask: int, ins: tuple[Any, ...], out: Tensor) -> None:
    fn = cls._savers.get(mask)  # type: ignore[attr-defined]
    if fn is None:
        fn = _saver(cls, mask)
    fn(node, ins, out)


def _attach(cls: type[Node], out: Tensor, ins: tuple[Any, ...], attrs: tuple[Any, ...]) -> Node:
    """Give `out` a grad_fn of class `cls` over inputs `ins` (tensors or python numbers)."""
    edges = []
    mask = 0
    bit = 1
    for t in ins:
        if isinstance(t, Tensor) and t._requires_grad:
            edges.append(_edge(t))
            mask |= bit
        else:
            edges.append(_NO_EDGE)
        bit <<= 1
    node = new_node(cls, tuple(edges), attrs)
    if cls._save_src:
        _save(node, cls, mask, ins, out)
    d = out._data
    node._shape = d.shape
    node._npd = d.dtype
    out._grad_fn = node
    out._requires_grad = True
    return node


def _attach1(cls: type[Node], out: Tensor, x: Tensor, attrs: tuple) -> None:
    """`_attach` unrolled for one input that requires grad."""
    node = _new(cls)
    if x._base is not None:
        node.next_functions = (_edge(x),)  # views: torch's rules (regenerated, no accumulator)
    else:
        fn = x._grad_fn
        node.next_functions = ((fn, x._output_nr) if fn is not None else (x._accumulator(), 0),)
    node._attrs = attrs
    node._pre_hooks = node._hooks = node._meta = None
    node._seq = _next_seq()
    if cls._save_src:
        fn = cls._savers.get(1)
        if fn is None:
            fn = _saver(cls, 1)
        fn(node, (x,), out)
    else:
        node._saved = node._versions = ()
    d = out._data
    node._shape = d.shape
    node._npd = d.dtype
    out._grad_fn = node
    out._requires_grad = True


def _attach2(cls: type[Node], out: Tensor, x: Tensor, y: Any, yrg: bool, attrs: tuple) -> None:
    """`_attach` unrolled for the binary fast path (x is a Tensor)."""
    node = _new(cls)
    if x._requires_grad:
        if x._base is not None:
            ex = _edge(x)
        else:
            fn = x._grad_fn
            ex = (fn, x._output_nr) if fn is not None else (x._accumulator(), 0)
        mask = 3 if yrg else 1
    else:
        ex = _NO_EDGE
        mask = 2
    if yrg:
        if y._base is not None:
            ey = _edge(y)
        else:
            fn = y._grad_fn
            ey = (fn, y._output_nr) if fn is not None else (y._accumulator(), 0)
    else:
        ey = _NO_EDGE
    node.next_functions = (ex, ey)
    node._attrs = attrs
    node._pre_hooks = node._hooks = node._meta = None
    node._seq = _next_seq()
    if cls._save_src:
        fn = cls._savers.get(mask)
        if fn is None:
            fn = _saver(cls, mask)
        fn(node, (x, y), out)
    else:
        node._saved = node._versions = ()
    d = out._data
    node._shape = d.shape
    node._npd = d.dtype
    out._grad_fn = node
    out._requires_grad = True


def _apply(
    cls: type[Node] | None,
    name: str,
    ins: tuple[Any, ...],
    data: Any,
    dtype: dtypes.dtype | None = None,
    attrs: tuple[Any, ...] = (),
) -> Tensor:
    """Wrap `data` as the result of op `name` on `ins`; attach `cls` if grad flows."""
    if type(data) is not _ndarray:
        data = np.asarray(data)
    out = _new(Tensor)
    _init(out, data, _BY_NP[data.dtype] if dtype is None else dtype)
    if cls is not None and grad_mode._enabled:
        if len(ins) == 1:
            if ins[0]._requires_grad:
                _attach1(cls, out, ins[0], attrs)
            if _FW is not None:
                _FW.op(cls, ins, out, attrs)
            if trace.RECORDER is not None:
                trace.RECORDER.record(name, ins, (out,))
            return out
        if len(ins) == 2 and ins[0].__class__ is Tensor and ins[1].__class__ is Tensor:
            x, y = ins
            if x._requires_grad or y._requires_grad:
                _attach2(cls, out, x, y, y._requires_grad, attrs)
        else:
            for t in ins:
                if isinstance(t, Tensor) and t._requires_grad:
                    _attach(cls, out, ins, attrs)
                    break
    if _FW is not None:
        _FW.op(cls, ins, out, attrs)
    if trace.RECORDER is not None:
        trace.RECORDER.record(name, tuple(t for t in ins if isinstance(t, Tensor)), (out,))
    return out


def _unary(cls: type[Node], fn: Any, name: str, x: Tensor, attrs: tuple[Any, ...] = ()) -> Tensor:
    data = fn(x._data)
    if type(data) is not _ndarray:
        data = np.asarray(data)
    out = _new(Tensor)
    _init(out, data, x._dtype if data.dtype is x._data.dtype else _BY_NP[data.dtype])
    if x._requires_grad and grad_mode._enabled:
        _attach1(cls, out, x, attrs)
    if _FW is not None:
        _FW.op(cls, (x,), out, attrs)
    if trace.RECORDER is not None:
        trace.RECORDER.record(name, (x,), (out,))
    return out


def _float_unary(cls: type[Node], fn: Any, name: str, x: Tensor) -> Tensor:
    """A unary op whose integer inputs promote to the default float dtype (exp, log, ...)."""
    if not x._dtype.is_floating_point:
        dt = dtypes.DEFAULT
        return _apply(cls, name, (x,), fn(x._data.astype(dt.np)), dt)
    return _unary(cls, fn, name, x)


def _broadcast_error(a: tuple[int, ...], b: tuple[int, ...]) -> RuntimeError:
    """torch's infer_size error for shapes that do not broadcast."""
    n = max(len(a), len(b))
    for i in range(n - 1, -1, -1):
        da = a[i - n + len(a)] if i - n + len(a) >= 0 else 1
        db = b[i - n + len(b)] if i - n + len(b) >= 0 else 1
        if da != db and da != 1 and db != 1:
            return RuntimeError(
                f"The size of tensor a ({da}) must match the size of tensor b ({db}) at "
                f"non-singleton dimension {i}"
            )
    return RuntimeError(f"shapes {a} and {b} cannot be broadcast")


def _safe(fn: Any, x: Any, y: Any) -> Any:
    """fn(x, y) with numpy's broadcast ValueError turned into torch's RuntimeError."""
    try:
        return fn(x, y)
    except ValueError:
        raise _broadcast_error(np.shape(x), np.shape(y)) from None


def _binary(
    cls: type[Node] | None,
    fn: Any,
    name: str,
    x: Tensor,
    y: Any,
    attrs: tuple[Any, ...] = (),
    floating: bool = False,
) -> Tensor:
    """A broadcasting binary op with torch's type promotion (fast path: equal dtypes)."""
    xdt = x._dtype
    if isinstance(y, Tensor):
        try:
            if y._dtype is xdt and (not floating or xdt.is_floating_point):
                data = fn(x._data, y._data)
                dt = xdt
            else:
                xd, yd, dt = _operands(x, y, floating)
                data = fn(xd, yd)
        except ValueError:
            raise _broadcast_error(x._data.shape, y._data.shape) from None
        yrg = y._requires_grad
    else:
        if isinstance(y, np.generic):
            y = y.item()
        ty = type(y)
        if (ty is float and xdt.is_floating_point) or (
            ty is int and xdt is not dtypes.bool_ and (not floating or xdt.is_floating_point)
        ):
            data = fn(x._data, y)
            dt = xdt
        else:
            xd, yd, dt = _operands(x, y, floating)
            data = fn(xd, yd)
        yrg = False
    if type(data) is not _ndarray:
        data = np.asarray(data)
    elif data.dtype is not dt.np:
        if cls is None:
            dt = _BY_NP[data.dtype]
        else:
            data = data.astype(dt.np)
    out = _new(Tensor)
    _init(out, data, dt)
    if cls is not None and (x._requires_grad or yrg) and grad_mode._enabled:
        _attach2(cls, out, x, y, yrg, attrs)
    if _FW is not None:
        _FW.op(cls, (x, y), out, attrs)
    if trace.RECORDER is not None:
        trace.RECORDER.record(name, (x, y) if isinstance(y, Tensor) else (x,), (out,))
    return out


# --------------------------------------------------------------------------------------------
# helpers the rules use, in two flavours: NP (numpy arrays) and TT (tensors, create_graph)
# --------------------------------------------------------------------------------------------
# NOTE: numpy 2 converts a python scalar operand on every ufunc call, which on a 20-element
# array costs more than the arithmetic; hot paths use these read-only 0-d constants of the
# array's own dtype instead (same values, same result dtype, same rounding)
def _consts(value: int) -> dict[Any, np.ndarray]:
    out = {}
    for t in (np.float16, np.float32, np.float64):
        c = np.full((), value, dtype=t)
        c.flags.writeable = False
        out[np.dtype(t)] = c
    return out


_ZERO = _consts(0)
_ONE = _consts(1)
_add_reduce = np.add.reduce


def _broadcast(a: np.ndarray, shape: tuple[int, ...]) -> np.ndarray:
    """`np.broadcast_to(a, shape)` (a read-only view with 0 strides on the broadcast dims),
    built directly for a C-contiguous `a`: np.broadcast_to's Python wrapper costs several
    times the op on small tensors."""
    lead = len(shape) - a.ndim
    if lead < 0 or not a.flags.c_contiguous:
        return np.broadcast_to(a, shape)
    strides = [0] * lead
    k = lead
    for d, st in zip(a.shape, a.strides):
        t = shape[k]
        k += 1
        if d == t:
            strides.append(st)
        elif d == 1 and t >= 0:
            strides.append(0)
        else:
            return np.broadcast_to(a, shape)  # raises numpy's error
    try:
        # NOTE: positional arguments: ndarray() parses keywords slowly
        out = _ndarray(shape, a.dtype, a, 0, tuple(strides))
    except (TypeError, ValueError, BufferError):
        return np.broadcast_to(a, shape)
    out.setflags(write=False)
    return out


def _sum_to_np(g: Any, shape: tuple[int, ...]) -> Any:
    if g.shape == shape:
        return g
    try:
        axes = _sum_axes(g.shape, shape)
    except TypeError:  # unhashable shape (a list)
        axes = _sum_axes.__wrapped__(g.shape, shape)
    if axes and math.prod(shape) == 1:  # NOTE: to one value, as torch's sum_to adds it
        return np.asarray(_total(g), dtype=g.dtype).reshape(shape)
    g = _add_reduce(g, axis=axes, keepdims=True) if axes else g
    return g.reshape(shape)


@functools.lru_cache(maxsize=1024)
def _sum_axes(have: tuple[int, ...], shape: tuple[int, ...]) -> tuple[int, ...]:
    """The axes to sum a gradient of shape `have` over to undo broadcasting to `shape`."""
    lead = len(have) - len(shape)
    return tuple(range(lead)) + tuple(
        i + lead for i, d in enumerate(shape) if d == 1 and have[i + lead] != 1
    )


def _keep_dims(shape: tuple[int, ...], dims: tuple[int, ...]) -> tuple[int, ...]:
    try:
        return _keep_dims_cached(shape, dims)
    except TypeError:  # unhashable dims (a list)
        return _keep_dims_cached.__wrapped__(shape, dims)


# NOTE: reduction backward asks this for the same few (shape, dims) over and over
@functools.lru_cache(maxsize=1024)
def _keep_dims_cached(shape: tuple[int, ...], dims: tuple[int, ...]) -> tuple[int, ...]:
    nd = len(shape)
    ds = {d % nd for d in dims} if nd else set()
    return tuple(1 if i in ds else s for i, s in enumerate(shape))


class NP:
    """Rule helpers on numpy arrays (no graph): the fast backward path."""

    @staticmethod
    def data(x: Any) -> Any:
        return x

    @staticmethod
    def const(a: Any) -> Any:
        return a

    @staticmethod
    def where0(mask: Any, g: Any) -> Any:
        return np.where(mask, g, _ZERO.get(g.dtype, 0))

    @staticmethod
    def relu_back(g: Any, y: Any) -> Any:
        z = _ZERO.get(y.dtype, 0)
        return np.where(y > z, g, z)

    @staticmethod
    def tanh_back(g: Any, y: Any) -> Any:
        return g * (_ONE.get(y.dtype, 1) - y * y)

    @staticmethod
    def sigmoid_back(g: Any, y: Any) -> Any:
        return g * (_ONE.get(y.dtype, 1) - y) * y

    expand = staticmethod(_broadcast)

    @staticmethod
    def reshape(g: Any, shape: tuple[int, ...]) -> Any:
        return g.reshape(shape)

    sum_to = staticmethod(_sum_to_np)

    @staticmethod
    def transpose(g: Any, d0: int, d1: int) -> Any:
        return g.swapaxes(d0, d1)

    @staticmethod
    def permute(g: Any, dims: tuple[int, ...]) -> Any:
        return np.transpose(g, dims)

    @staticmethod
    def t(g: Any) -> Any:
        return g.T

    @staticmethod
    def squeeze(g: Any, dim: int) -> Any:
        return g.squeeze(dim % g.ndim)

    @staticmethod
    def mm(a: Any, b: Any) -> Any:
        return np.matmul(a, b)

    @staticmethod
    def outer(a: Any, b: Any) -> Any:
        return np.outer(a, b)

    exp = staticmethod(np.exp)
    log = staticmethod(np.log)
    sin = staticmethod(np.sin)
    cos = staticmethod(np.cos)
    sign = staticmethod(np.sign)

    @staticmethod
    def zeros_like(x: Any) -> Any:
        return np.zeros_like(x)

    @staticmethod
    def embed(g: Any, shape: tuple[int, ...], index: Any) -> Any:
        """Zeros of `shape` with `g` written at `index` (select/slice backward)."""
        out = np.zeros(shape, dtype=g.dtype)
        out[index] = g
        return out

    @staticmethod
    def as_strided_backward(g: Any, base_shape: Any, size: Any, stride: Any, offset: int) -> Any:
        out = np.zeros(base_shape, dtype=g.dtype)
        # NOTE: the window may cover a memory location several times (a stride-0 expand):
        # each covering element adds its gradient there, so scatter-add by flat index
        # (np.add on an overlapping view would keep only one of them)
        flat = np.arange(out.size, dtype=np.intp)
        where = np.lib.stride_tricks.as_strided(
            flat[offset:], size, tuple(s * flat.itemsize for s in stride)
        )
        np.add.at(out.reshape(-1), where, np.broadcast_to(g, size))
        return out


class TT:
    """Rule helpers on tensors: the same rules build a differentiable graph."""

    @staticmethod
    def data(x: Tensor) -> Any:
        return x._data

    @staticmethod
    def const(a: Any) -> Tensor:
        return _wrap(np.array(a))

    @staticmethod
    def where0(mask: Any, g: Tensor) -> Tensor:
        return g * _wrap(np.asarray(mask).astype(g._data.dtype))

    @staticmethod
    def relu_back(g: Tensor, y: Tensor) -> Tensor:
        return TT.where0(y._data > 0, g)

    @staticmethod
    def tanh_back(g: Tensor, y: Tensor) -> Tensor:
        return g * (1 - y * y)

    @staticmethod
    def sigmoid_back(g: Tensor, y: Tensor) -> Tensor:
        return g * (1 - y) * y

    @staticmethod
    def expand(g: Tensor, shape: tuple[int, ...]) -> Tensor:
        return g.expand(*shape)

    @staticmethod
    def reshape(g: Tensor, shape: tuple[int, ...]) -> Tensor:
        return g.reshape(shape)

    @staticmethod
    def sum_to(g: Tensor, shape: tuple[int, ...]) -> Tensor:
        gs = g._data.shape
        if gs == tuple(shape):
            return g
        lead = len(gs) - len(shape)
        axes = tuple(range(lead)) + tuple(
            i + lead for i, d in enumerate(shape) if d == 1 and gs[i + lead] != 1
        )
        if axes:
            g = g.sum(axes, keepdim=True)
        return g.reshape(shape)

    @staticmethod
    def transpose(g: Tensor, d0: int, d1: int) -> Tensor:
        return g.transpose(d0, d1)

    @staticmethod
    def permute(g: Tensor, dims: tuple[int, ...]) -> Tensor:
        return g.permute(*dims)

    @staticmethod
    def t(g: Tensor) -> Tensor:
        return g.t()

    @staticmethod
    def squeeze(g: Tensor, dim: int) -> Tensor:
        return g.squeeze(dim)

    @staticmethod
    def mm(a: Tensor, b: Tensor) -> Tensor:
        return a @ b

    @staticmethod
    def outer(a: Tensor, b: Tensor) -> Tensor:
        return a.unsqueeze(1) * b.unsqueeze(0)

    @staticmethod
    def exp(x: Tensor) -> Tensor:
        return x.exp()

    @staticmethod
    def log(x: Tensor) -> Tensor:
        return x.log()

    @staticmethod
    def sin(x: Tensor) -> Tensor:
        return x.sin()

    @staticmethod
    def cos(x: Tensor) -> Tensor:
        return x.cos()

    @staticmethod
    def sign(x: Tensor) -> Tensor:
        return _wrap(np.sign(x._data))

    @staticmethod
    def zeros_like(x: Tensor) -> Tensor:
        return _wrap(np.zeros_like(x._data))

    @staticmethod
    def embed(g: Tensor, shape: tuple[int, ...], index: Any) -> Tensor:
        return _apply(EMBED, "embed", (g,), NP.embed(g._data, shape, index), g._dtype, (index,))

    @staticmethod
    def as_strided_backward(g: Tensor, base_shape: Any, size: Any, stride: Any, offset: int) -> Any:
        data = NP.as_strided_backward(g._data, base_shape, size, stride, offset)
        return _apply(
            AS_STRIDED_BACK,
            "as_strided_backward",
            (g,),
            data,
            g._dtype,
            (tuple(size), tuple(stride), offset),
        )


# the backward of `embed` (select/slice backward) is indexing again
EMBED = node_class("SliceBackwardBackward0", (lambda F, g, s, a: F.index(g, a[0]),))
NP.index = staticmethod(lambda g, idx: g[idx])  # type: ignore[attr-defined]
TT.index = staticmethod(lambda g, idx: _index_tensor(g, idx))  # type: ignore[attr-defined]


def _index_tensor(g: Tensor, idx: Any) -> Tensor:
    return _apply(EMBED_BACK, "index", (g,), g._data[idx], g._dtype, (g._data.shape, idx))


EMBED_BACK = node_class("SelectBackwardBackward0", (lambda F, g, s, a: F.embed(g, a[0], a[1]),))


# --------------------------------------------------------------------------------------------
# the table: arithmetic
# --------------------------------------------------------------------------------------------
def _alpha(g: Any, alpha: Any) -> Any:
    return g if alpha == 1 else g * alpha


ADD = node_class(
    "AddBackward0", (lambda F, g, s, a: g, lambda F, g, s, a: _alpha(g, a[0])), attrs=("alpha",)
)
SUB = node_class(
    "SubBackward0", (lambda F, g, s, a: g, lambda F, g, s, a: _alpha(-g, a[0])), attrs=("alpha",)
)
RSUB = node_class("RsubBackward1", (lambda F, g, s, a: _alpha(-g, a[0]),), attrs=("alpha",))
MUL = node_class(
    "MulBackward0",
    (lambda F, g, s, a: g * s[0], lambda F, g, s, a: g * s[1]),
    saved=(("other", 1, 1), ("self", 0, 2)),
)
DIV = node_class(
    "DivBackward0",
    (lambda F, g, s, a: g / s[0], lambda F, g, s, a: -g * ((s[1] / s[0]) / s[0])),
    saved=(("other", 1, 3), ("self", 0, 2)),
)
NEG = node_class("NegBackward0", (lambda F, g, s, a: -g,))
RECIPROCAL = node_class(
    "ReciprocalBackward0", (lambda F, g, s, a: g * -(s[0] * s[0]),), saved=(("result", -1, 1),)
)


def _pow0(F: Any, g: Any, s: Any, a: Any) -> Any:
    e = a[0]
    if e == 0:
        return F.zeros_like(s[0])
    x = s[0]
    return g * (e * (_pow_np(x, e - 1) if isinstance(x, np.ndarray) else x ** (e - 1)))


def _pow1_self(F: Any, g: Any, s: Any, a: Any) -> Any:
    x, e = s[0], s[1]
    return F.where0(F.data(e) != 0, g * (e * x ** (e - 1)))


def _pow_exponent(F: Any, g: Any, base: Any, e: Any, result: Any) -> Any:
    # NOTE: torch defines d/de base**e as 0 where base == 0 and e >= 0 (not nan)
    if isinstance(base, _PY_SCALARS):
        cond = (base == 0) & (F.data(e) >= 0)
        logb = math.log(base) if base > 0 else (float("-inf") if base == 0 else float("nan"))
        return g * F.where0(~cond, result * logb)
    cond = (F.data(base) == 0) & (F.data(e) >= 0)
    return g * F.where0(~cond, result * F.log(base))


POW0 = node_class("PowBackward0", (_pow0,), saved=(("self", 0, 1),), attrs=("exponent",))
POW1 = node_class(
    "PowBackward1",
    (_pow1_self, lambda F, g, s, a: _pow_exponent(F, g, s[0], s[1], s[2])),
    saved=(("self", 0, 3), ("exponent", 1, 3), ("result", -1, 3)),
)
POW2 = node_class(
    "PowBackward2",
    (lambda F, g, s, a: _pow_exponent(F, g, a[0], s[0], s[1]),),
    saved=(("exponent", 0, 1), ("result", -1, 1)),
    attrs=("self",),
)

# --------------------------------------------------------------------------------------------
# the table: unary math
# --------------------------------------------------------------------------------------------
ABS = node_class("AbsBackward0", (lambda F, g, s, a: g * F.sign(s[0]),), saved=(("self", 0, 1),))
EXP = node_class("ExpBackward0", (lambda F, g, s, a: g * s[0],), saved=(("result", -1, 1),))
LOG = node_class("LogBackward0", (lambda F, g, s, a: g / s[0],), saved=(("self", 0, 1),))
SQRT = node_class("SqrtBackward0", (lambda F, g, s, a: g / (2 * s[0]),), saved=(("result", -1, 1),))
SIN = node_class("SinBackward0", (lambda F, g, s, a: g * F.cos(s[0]),), saved=(("self", 0, 1),))
COS = node_class("CosBackward0", (lambda F, g, s, a: g * -F.sin(s[0]),), saved=(("self", 0, 1),))
# g * (1 - y*y), g * (1 - y) * y and where(y > 0, g, 0), as F helpers (numpy constants)
TANH = node_class(
    "TanhBackward0", (lambda F, g, s, a: F.tanh_back(g, s[0]),), saved=(("result", -1, 1),)
)
SIGMOID = node_class(
    "SigmoidBackward0", (lambda F, g, s, a: F.sigmoid_back(g, s[0]),), saved=(("result", -1, 1),)
)
RELU = node_class(
    "ReluBackward0", (lambda F, g, s, a: F.relu_back(g, s[0]),), saved=(("result", -1, 1),)
)


def _clamp_mask(x: Any, lo: Any, hi: Any) -> Any:
    m = np.ones(np.shape(x), dtype=bool)
    if lo is not None:
        m &= x >= lo
    if hi is not None:
        m &= x <= hi
    return m


CLAMP = node_class(
    "ClampBackward1",
    (lambda F, g, s, a: F.where0(_clamp_mask(F.data(s[0]), a[0], a[1]), g),),
    saved=(("self", 0, 1),),
    attrs=("min", "max"),
)
CLONE = node_class("CloneBackward0", (lambda F, g, s, a: g,))
TOCOPY = node_class("ToCopyBackward0", (lambda F, g, s, a: g,))
ALIAS = node_class("AliasBackward0", (lambda F, g, s, a: g,))
COPY = node_class(
    "torch::autograd::CopyBackwards",
    (lambda F, g, s, a: F.zeros_like(g), lambda F, g, s, a: g),
    cls_name="CopyBackwards",
)


# --------------------------------------------------------------------------------------------
# the table: reductions and linear algebra
# --------------------------------------------------------------------------------------------
def _sum_back(F: Any, g: Any, sizes: tuple[int, ...], dims: Any, keepdim: bool) -> Any:
    if dims is not None and not keepdim and len(sizes):
        g = F.reshape(g, _keep_dims(sizes, dims))
    return F.expand(g, sizes)


SUM0 = node_class(
    "SumBackward0", (lambda F, g, s, a: F.expand(g, a[0]),), attrs=("self_sym_sizes",)
)
SUM1 = node_class(
    "SumBackward1",
    (lambda F, g, s, a: _sum_back(F, g, a[2], a[0], a[1]),),
    attrs=("dim", "keepdim", "self_sym_sizes"),
)
MEAN0 = node_class(
    "MeanBackward0",
    (lambda F, g, s, a: F.expand(g, a[1]) / a[0],),
    attrs=("self_sym_numel", "self_sym_sizes"),
)


def _reduced(sizes: tuple[int, ...], dims: tuple[int, ...]) -> int:
    try:
        return _reduced_cached(sizes, dims)
    except TypeError:  # unhashable dims (a list)
        return _reduced_cached.__wrapped__(sizes, dims)


@functools.lru_cache(maxsize=1024)
def _reduced_cached(sizes: tuple[int, ...], dims: tuple[int, ...]) -> int:
    k = 1
    for d in {d % len(sizes) for d in dims} if sizes else ():
        k *= sizes[d]
    return k


MEAN1 = node_class(
    "MeanBackward1",
    (lambda F, g, s, a: _sum_back(F, g, a[3], a[0], a[1]) / _reduced(a[3], a[0]),),
    attrs=("dim", "keepdim", "self_sym_numel", "self_sym_sizes"),
)
MM = node_class(
    "MmBackward0",
    (lambda F, g, s, a: F.mm(g, F.t(s[1])), lambda F, g, s, a: F.mm(F.t(s[0]), g)),
    saved=(("self", 0, 2), ("mat2", 1, 1)),
    attrs=("mat2_sym_sizes", "mat2_sym_strides", "self_sym_sizes", "self_sym_strides"),
)
ADDMM = node_class(
    "AddmmBackward0",
    (
        lambda F, g, s, a: _alpha(g, a[1]),
        lambda F, g, s, a: _alpha(F.mm(g, F.t(s[1])), a[0]),
        lambda F, g, s, a: _alpha(F.mm(F.t(s[0]), g), a[0]),
    ),
    saved=(("mat1", 1, 4), ("mat2", 2, 2)),
    attrs=(
        "alpha",
        "beta",
        "mat1_sym_sizes",
        "mat1_sym_strides",
        "mat2_sym_sizes",
        "mat2_sym_strides",
    ),
)
MV = node_class(
    "MvBackward0",
    (lambda F, g, s, a: F.outer(g, s[1]), lambda F, g, s, a: F.mm(F.t(s[0]), g)),
    saved=(("self", 0, 2), ("vec", 1, 1)),
)
DOT = node_class(
    "DotBackward0",
    (lambda F, g, s, a: g * s[1], lambda F, g, s, a: g * s[0]),
    saved=(("self", 0, 2), ("tensor", 1, 1)),
)
BMM = node_class(
    "BmmBackward0",
    (
        lambda F, g, s, a: F.mm(g, F.transpose(s[1], -1, -2)),
        lambda F, g, s, a: F.mm(F.transpose(s[0], -1, -2), g),
    ),
    saved=(("self", 0, 2), ("mat2", 1, 1)),
)

# --------------------------------------------------------------------------------------------
# the table: views (their rules only move the gradient back to the input's layout)
# --------------------------------------------------------------------------------------------
VIEW = node_class(
    "ViewBackward0", (lambda F, g, s, a: F.reshape(g, a[0]),), attrs=("self_sym_sizes",)
)
UNSAFE_VIEW = node_class(
    "UnsafeViewBackward0", (lambda F, g, s, a: F.reshape(g, a[0]),), attrs=("self_sym_sizes",)
)
# torch's reshape of a non-contiguous tensor that can still be viewed (_reshape_alias)
RESHAPE_ALIAS = node_class(
    "ReshapeAliasBackward0", (lambda F, g, s, a: F.reshape(g, a[0]),), attrs=("self_sym_sizes",)
)
T = node_class("TBackward0", (lambda F, g, s, a: F.t(g),))
TRANSPOSE = node_class(
    "TransposeBackward0",
    (lambda F, g, s, a: F.transpose(g, a[0], a[1]),),
    attrs=("dim0", "dim1"),
)
PERMUTE = node_class(
    "PermuteBackward0",
    (lambda F, g, s, a: F.permute(g, tuple(np.argsort([d % len(a[0]) for d in a[0]]))),),
    attrs=("dims",),
)
EXPAND = node_class(
    "ExpandBackward0", (lambda F, g, s, a: F.sum_to(g, a[0]),), attrs=("self_sym_sizes",)
)
UNSQUEEZE = node_class(
    "UnsqueezeBackward0", (lambda F, g, s, a: F.squeeze(g, a[0]),), attrs=("dim",)
)
SQUEEZE0 = node_class(
    "SqueezeBackward0", (lambda F, g, s, a: F.reshape(g, a[0]),), attrs=("self_sym_sizes",)
)
SQUEEZE1 = node_class(
    "SqueezeBackward1", (lambda F, g, s, a: F.reshape(g, a[1]),), attrs=("dim", "self_sym_sizes")
)
SQUEEZE4 = node_class(
    "SqueezeBackward4", (lambda F, g, s, a: F.reshape(g, a[1]),), attrs=("dim", "self_sym_sizes")
)
SELECT = node_class(
    "SelectBackward0",
    (lambda F, g, s, a: F.embed(g, a[2], (slice(None),) * (a[0] % len(a[2])) + (a[1],)),),
    attrs=("dim", "index", "self_sym_sizes"),
)
SLICE = node_class(
    "SliceBackward0",
    (
        lambda F, g, s, a: F.embed(
            g, a[4], (slice(None),) * (a[0] % len(a[4])) + (slice(a[1], a[2], a[3]),)
        ),
    ),
    attrs=("dim", "start", "end", "step", "self_sym_sizes"),
)
AS_STRIDED = node_class(
    "AsStridedBackward0",
    (lambda F, g, s, a: F.as_strided_backward(g, a[3], a[0], a[1], a[2]),),
    attrs=("size", "stride", "storage_offset", "self_sym_sizes"),
)
INDEX = node_class(
    "IndexBackward0",
    (lambda F, g, s, a: F.index_put_zeros(g, a[1], a[0]),),
    attrs=("indices", "self_sym_sizes"),
)


def _index_put_np(g: Any, shape: Any, idx: Any) -> Any:
    out = np.zeros(shape, dtype=g.dtype)
    np.add.at(out, idx, g)
    return out


NP.index_put_zeros = staticmethod(_index_put_np)  # type: ignore[attr-defined]
TT.index_put_zeros = staticmethod(  # type: ignore[attr-defined]
    lambda g, shape, idx: _wrap(_index_put_np(g._data, shape, idx))
)


# --------------------------------------------------------------------------------------------
# forward functions
# --------------------------------------------------------------------------------------------
def _fast_binary(cls: type[Node], fn: Any, name: str, attrs: tuple[Any, ...] = ()) -> Any:
    """The hot path of a broadcasting binary op (tensor-tensor of one dtype, or a float
    tensor and a python float) with everything bound locally; other cases go to `_binary`.
    Same semantics as `_binary`, only fewer lookups."""
    gm = grad_mode
    tr = trace
    new = _new
    T_ = Tensor

    def op(x: Any, y: Any) -> Tensor:
        if x.__class__ is T_:
            yc = y.__class__
            if yc is T_:
                xdt = x._dtype
                if y._dtype is xdt:
                    try:
                        data = fn(x._data, y._data)
                    except ValueError:
                        raise _broadcast_error(x._data.shape, y._data.shape) from None
                    yrg = y._requires_grad
                    ins = (x, y)
                else:
                    return _binary(cls, fn, name, x, y, attrs)
            elif yc is float and x._dtype.is_floating_point:
                xdt = x._dtype
                data = fn(x._data, y)
                yrg = False
                ins = (x,)
            else:
                return _binary(cls, fn, name, x, y, attrs)
            if data.__class__ is not _ndarray:
                data = np.asarray(data)
            out = new(T_)
            out._data = data
            out._storage = data
            out._vc = None
            out._dtype = xdt
            out._requires_grad = False
            out._grad_fn = None
            out._output_nr = 0
            out._base = None
            out._grad = None
            out._x = None
            out._fw_tangent = None
            if gm._inference:
                out._meta().inference = True
            if (x._requires_grad or yrg) and gm._enabled:
                _attach2(cls, out, x, y, yrg, attrs)
            if _FW is not None:
                _FW.op(cls, (x, y), out, attrs)
            if tr.RECORDER is not None:
                tr.RECORDER.record(name, ins, (out,))
            return out
        return _binary(cls, fn, name, x, y, attrs)

    op.__name__ = name
    return op


def add(x: Tensor, y: Any, *, alpha: Any = 1) -> Tensor:
    if alpha != 1:
        return _binary(ADD, lambda a, b: a + b * alpha, "add", x, y, (alpha,))
    return _binary(ADD, np.add, "add", x, y, (1,))


def sub(x: Tensor, y: Any, *, alpha: Any = 1) -> Tensor:
    if alpha != 1:
        return _binary(SUB, lambda a, b: a - b * alpha, "sub", x, y, (alpha,))
    return _binary(SUB, np.subtract, "sub", x, y, (1,))


def _radd(x: Tensor, y: Any) -> Tensor:
    return _binary(ADD, _flip(np.add), "add", x, y, (1,))


def _flip(fn: Any) -> Any:
    return lambda a, b: fn(b, a)


_rsub_fn = _flip(np.subtract)


def _rsub(x: Tensor, y: Any) -> Tensor:
    if isinstance(y, Tensor):
        return sub(y, x)
    return _scalar_op(RSUB, _rsub_fn, "rsub", x, _as_scalar(y), (1,))


def mul(x: Tensor, y: Any) -> Tensor:
    return _binary(MUL, np.multiply, "mul", x, y)


_mul_fast = _fast_binary(MUL, np.multiply, "mul")
_add_fast = _fast_binary(ADD, np.add, "add", (1,))
_sub_fast = _fast_binary(SUB, np.subtract, "sub", (1,))
_div_fast_any = _fast_binary(DIV, np.true_divide, "div")


def _div_fast(x: Any, y: Any) -> Tensor:
    # NOTE: integer true division promotes to float32: leave that to the general path
    if x.__class__ is Tensor and x._dtype.is_floating_point:
        return _div_fast_any(x, y)
    return div(x, y)


def _rmul(x: Tensor, y: Any) -> Tensor:
    return _binary(MUL, _flip(np.multiply), "mul", x, y)


def div(x: Tensor, y: Any, *, rounding_mode: str | None = None) -> Tensor:
    if rounding_mode is not None:
        fn = np.floor_divide if rounding_mode == "floor" else _trunc_div
        return _binary(None, fn, "div", x, y)
    return _binary(DIV, np.true_divide, "div", x, y, floating=True)


def _trunc_div(a: Any, b: Any) -> Any:
    return np.trunc(np.true_divide(a, b)).astype(np.result_type(a, b))


def _rdiv(x: Tensor, y: Any) -> Tensor:
    if isinstance(y, Tensor):
        return div(y, x)
    # NOTE: torch computes `2 / x` as reciprocal(x) * 2 (MulBackward0 over ReciprocalBackward0)
    return mul(reciprocal(x), y)


def reciprocal(x: Tensor) -> Tensor:
    return _float_unary(RECIPROCAL, np.reciprocal, "reciprocal", x)


def _pow_np(a: Any, e: Any) -> Any:
    """a ** e with torch's special cases for float tensors, so values match it bit for bit:
    x*x*x for 3, 1/(x*x) for -2, 1/sqrt(x) for -0.5 (numpy's ** covers 2, -1, 1, 0)."""
    if e == 3:
        return a * a * a
    if e == -2:
        return 1 / (a * a)
    if e == -0.5:
        return 1 / np.sqrt(a)
    return a**e


def _scalar_op(
    cls: type[Node], fn: Any, name: str, x: Tensor, y: Any, attrs: tuple[Any, ...]
) -> Tensor:
    """An op of a tensor and a python number whose node has the tensor as its only input
    (`x ** 2` PowBackward0, `2 - x` RsubBackward1, `2 ** x` PowBackward2)."""
    xd, yd, dt = _operands(x, y)
    data = fn(xd, yd)
    if type(data) is _ndarray and data.dtype is not dt.np:
        data = data.astype(dt.np)
    return _apply(cls, name, (x,), data, dt, attrs)


def pow(x: Tensor, e: Any) -> Tensor:  # noqa: A001 - torch's name
    if isinstance(e, Tensor):
        return _binary(POW1, np.power, "pow", x, e)
    e = _as_scalar(e)
    if x._dtype.is_floating_point and e.__class__ in (float, int):
        return _apply(POW0, "pow", (x,), _pow_np(x._data, e), x._dtype, (e,))
    if isinstance(e, int) and not x._dtype.is_floating_point and e < 0:
        raise RuntimeError("Integers to negative integer powers are not allowed.")
    return _scalar_op(POW0, np.power, "pow", x, e, (e,))


def _rpow(x: Tensor, base: Any) -> Tensor:
    if isinstance(base, Tensor):
        return pow(base, x)
    base = _as_scalar(base)
    return _scalar_op(POW2, _flip(np.power), "pow", x, base, (base,))


def neg(x: Tensor) -> Tensor:
    if x._dtype is dtypes.bool_:
        raise RuntimeError(
            "Negation, the `-` operator, on a bool tensor is not supported. If you are trying "
            "to invert a mask, use the `~` or `logical_not()` operator instead."
        )
    return _unary(NEG, np.negative, "neg", x)


def _math(cls: type[Node], fn: Any, name: str) -> Any:
    def op(x: Tensor) -> Tensor:
        if x._dtype.is_floating_point:  # the common case, one call less
            return _unary(cls, fn, name, x)
        return _float_unary(cls, fn, name, x)

    op.__name__ = name
    return op


exp = _math(EXP, np.exp, "exp")
log = _math(LOG, np.log, "log")
sqrt = _math(SQRT, np.sqrt, "sqrt")
sin = _math(SIN, np.sin, "sin")
cos = _math(COS, np.cos, "cos")
tanh = _math(TANH, np.tanh, "tanh")


def _sigmoid_np(a: Any) -> Any:
    # 1 / (1 + exp(-a)), as torch computes it
    one = _ONE.get(a.dtype, 1)
    return one / (one + np.exp(-a))


sigmoid = _math(SIGMOID, _sigmoid_np, "sigmoid")


def abs(x: Tensor) -> Tensor:  # noqa: A001 - torch's name
    return _unary(ABS, np.abs, "abs", x)


def _relu_np(a: Any) -> Any:
    return np.maximum(a, _ZERO.get(a.dtype, 0))


def relu(x: Tensor) -> Tensor:
    return _unary(RELU, _relu_np, "relu", x)


def clamp(x: Tensor, min: Any = None, max: Any = None) -> Tensor:  # noqa: A002
    if min is None and max is None:
        raise RuntimeError("torch.clamp: At least one of 'min' or 'max' must not be None")
    if isinstance(min, Tensor) or isinstance(max, Tensor):
        raise NotImplementedError("clamp with tensor bounds is not supported by detachviz yet")
    return _unary(
        CLAMP, lambda a: np.clip(a, min, max).astype(a.dtype, copy=False), "clamp", x, (min, max)
    )


def _clone_np(a: np.ndarray) -> np.ndarray:
    # NOTE: torch's clone preserves a dense layout (a transposed clone stays transposed) but
    # makes overlapping (expanded) tensors contiguous
    if a.flags.c_contiguous or 0 in a.strides:
        return np.array(a, order="C")
    return np.array(a, order="K")


def clone(x: Tensor, *, memory_format: Any = None) -> Tensor:
    return _unary(CLONE, _clone_np, "clone", x)


def _norm_dims(dim: Any, nd: int) -> tuple[int, ...]:
    dims = (dim,) if isinstance(dim, int) else tuple(dim)
    for d in dims:
        if not -max(nd, 1) <= d < max(nd, 1):
            raise IndexError(
                f"Dimension out of range (expected to be in range of [{-max(nd, 1)}, "
                f"{max(nd, 1) - 1}], but got {d})"
            )
    return dims


def sum(x: Tensor, dim: Any = None, keepdim: bool = False, *, dtype: Any = None) -> Tensor:  # noqa: A001
    xd = x._data
    if dtype is not None:
        xd = xd.astype(dtype.np)
    elif not x._dtype.is_floating_point:
        xd = xd.astype(np.int64)  # NOTE: torch sums bool/int tensors as int64
    if dim is None:
        return _apply(SUM0, "sum", (x,), _total(xd), None, (xd.shape,))
    dims = _norm_dims(dim, xd.ndim)
    axes = tuple(d % xd.ndim for d in dims) if xd.ndim else None
    data = xd.sum(axis=axes, keepdims=keepdim)
    if data.size == 1 and xd.size > 1:  # every element into one: the whole-tensor order
        data = np.asarray(_total(xd), dtype=data.dtype).reshape(data.shape)
    return _apply(SUM1, "sum", (x,), data, None, (dims, keepdim, xd.shape))


def mean(x: Tensor, dim: Any = None, keepdim: bool = False, *, dtype: Any = None) -> Tensor:
    if not x._dtype.is_floating_point and dtype is None:
        raise RuntimeError(
            "mean(): could not infer output dtype. Input dtype must be either a floating point "
            f"or complex dtype. Got: {x._dtype.legacy.replace('Tensor', '')}"
        )
    xd = x._data if dtype is None else x._data.astype(dtype.np)
    n = xd.size
    if dim is None:
        data = _total(xd) / n if n and xd.dtype.kind == "f" else _mean_np(xd, None, False)
        return _apply(MEAN0, "mean", (x,), data, None, (n, xd.shape))
    dims = _norm_dims(dim, xd.ndim)
    axes = tuple(d % xd.ndim for d in dims) if xd.ndim else None
    data = _mean_np(xd, axes, keepdim)
    return _apply(MEAN1, "mean", (x,), data, None, (dims, keepdim, n, xd.shape))


def _total(xd: np.ndarray) -> Any:
    """A whole-tensor sum; float ones in torch's addition order where that is cheap."""
    if xd.dtype.kind == "f" and xd.dtype.itemsize >= 4 and summation.exact(xd.size):
        return summation.total(xd)
    return xd.sum()


def _mean_np(xd: np.ndarray, axes: tuple[int, ...] | None, keepdim: bool) -> Any:
    """`xd.mean(axis=axes, keepdims=keepdim, dtype=xd.dtype)` without numpy's Python layer:
    the same sum divided by the count (numpy divides in float64 and rounds once; dividing
    in the array's float dtype rounds to the same value)."""
    count = xd.size if axes is None else _reduced(xd.shape, axes)
    if count == 0 or xd.dtype.kind != "f":
        return xd.mean(axis=axes, keepdims=keepdim, dtype=xd.dtype)  # nan + numpy's warning
    return _add_reduce(xd, axis=axes, dtype=xd.dtype, keepdims=keepdim) / count


def _strides(a: np.ndarray) -> tuple[int, ...]:
    return tuple(s // a.itemsize for s in a.strides)


def matmul(x: Tensor, y: Tensor) -> Tensor:
    if not isinstance(y, Tensor):
        raise TypeError(f"matmul(): argument 'other' must be Tensor, not {type(y).__name__}")
    if x._dtype is not y._dtype:
        raise RuntimeError(
            "expected m1 and m2 to have the same dtype, but got: "
            f"{x._dtype.name} != {y._dtype.name}".replace("float32", "float")
            .replace("float64", "double")
            .replace("int64", "long int")
        )
    nx, ny = x._data.ndim, y._data.ndim
    if nx == 0 or ny == 0:
        raise RuntimeError(
            f"both arguments to matmul need to be at least 1D, but they are {nx}D and {ny}D"
        )
    if nx == 1 and ny == 1:
        return _apply(DOT, "matmul", (x, y), np.dot(x._data, y._data), x._dtype)
    if nx == 2 and ny == 1:
        return _apply(MV, "matmul", (x, y), np.matmul(x._data, y._data), x._dtype)
    if nx == 1 and ny == 2:
        # NOTE: torch computes vector @ matrix as mm(unsqueeze(v, 0), M).squeeze(0)
        r = mm(unsqueeze(x, 0), y)
        out = _view(SQUEEZE4, "squeeze", r, r._data[0], (0, r._data.shape))
        # NOTE: torch squeezes in place (squeeze_): the result is no view, at _version 1
        out._base = None
        out._view_ver = None
        out._bump()
        return out
    if nx == 2 and ny == 2:
        return mm(x, y)
    # batched, as torch decomposes it: expand the batch dims, fold them into one, bmm, then
    # an unsafe view back (UnsafeViewBackward0 over BmmBackward0 over View/Expand)
    xs, ys = x._data.shape, y._data.shape
    if ny == 1:
        return squeeze(matmul(x, unsqueeze(y, -1)), -1)
    if nx == 1:
        return squeeze(matmul(unsqueeze(x, 0), y), -2)
    batch = np.broadcast_shapes(xs[:-2], ys[:-2])
    nb = 1
    for b in batch:
        nb *= b
    x3 = reshape(expand(x, batch + xs[-2:]), (nb,) + xs[-2:])
    y3 = reshape(expand(y, batch + ys[-2:]), (nb,) + ys[-2:])
    inner = _apply(BMM, "bmm", (x3, y3), np.matmul(x3._data, y3._data), x._dtype)
    out = _new(Tensor)
    _init(out, inner._data.reshape(batch + (xs[-2], ys[-1])), inner._dtype)
    out._storage = inner._storage
    out._vc = inner._share_vc()
    if inner._grad_fn is not None:
        _attach(UNSAFE_VIEW, out, (inner,), (inner._data.shape,))
    if _FW is not None:
        _FW.op(UNSAFE_VIEW, (inner,), out, (inner._data.shape,))
    if trace.RECORDER is not None:
        trace.RECORDER.record("_unsafe_view", (inner,), (out,))
    return out


def mm(x: Tensor, y: Tensor) -> Tensor:
    xd, yd = x._data, y._data
    if xd.ndim != 2 or yd.ndim != 2:
        raise RuntimeError("self must be a matrix")
    if xd.shape[1] != yd.shape[0]:
        raise RuntimeError(
            f"mat1 and mat2 shapes cannot be multiplied ({xd.shape[0]}x{xd.shape[1]} and "
            f"{yd.shape[0]}x{yd.shape[1]})"
        )
    attrs = (
        yd.shape,
        _strides(yd) if y._requires_grad else (),
        xd.shape,
        _strides(xd) if x._requires_grad else (),
    )
    return _apply(MM, "mm", (x, y), np.matmul(xd, yd), x._dtype, attrs)


def addmm(inp: Tensor, mat1: Tensor, mat2: Tensor, *, beta: Any = 1, alpha: Any = 1) -> Tensor:
    """beta * inp + alpha * (mat1 @ mat2), one AddmmBackward0 node (what nn.Linear uses)."""
    xd, yd = mat1._data, mat2._data
    if xd.ndim != 2 or yd.ndim != 2 or xd.shape[1] != yd.shape[0]:
        raise RuntimeError(
            f"mat1 and mat2 shapes cannot be multiplied ({xd.shape[0]}x{xd.shape[-1]} and "
            f"{yd.shape[0]}x{yd.shape[-1]})"
        )
    prod = np.matmul(xd, yd)
    if alpha != 1:
        prod = prod * alpha
    data = prod + (inp._data if beta == 1 else inp._data * beta)
    attrs = (
        alpha,
        beta,
        xd.shape,
        _strides(xd) if mat1._requires_grad else (),
        yd.shape,
        _strides(yd) if mat2._requires_grad else (),
    )
    return _apply(
        ADDMM, "addmm", (inp, mat1, mat2), data.astype(xd.dtype, copy=False), mat1._dtype, attrs
    )


def _to_dtype(x: Tensor, dt: dtypes.dtype, name: str = "to", copy: bool = False) -> Tensor:
    if dt is x._dtype and not copy:
        return x
    # NOTE: a cast to an integer or bool dtype is not differentiable: no grad_fn
    cls = TOCOPY if dt.is_floating_point else None
    return _apply(cls, name, (x,), x._data.astype(dt.np), dt)


# --------------------------------------------------------------------------------------------
# views: share storage and version counter, `_base` points at the root
# --------------------------------------------------------------------------------------------
def _view(
    cls: type[Node] | None, name: str, x: Tensor, data: np.ndarray, attrs: tuple = ()
) -> Tensor:
    out = _new(Tensor)
    _init(out, data, x._dtype)
    out._storage = x._storage
    vc = x._vc
    if vc is None:
        vc = x._vc = VersionCounter()
    out._vc = vc
    base = x._base
    out._base = x if base is None else base
    out._view_ver = vc.v
    if x._requires_grad:
        if grad_mode._enabled:
            _attach1(cls, out, x, attrs)  # reads x's (maybe regenerated) history
            xm = x._x
            if xm is not None and xm.no_grad_view:
                out._meta().no_grad_view = True  # NOTE: torch propagates the CreationMeta
        else:
            # NOTE: torch marks views made under no_grad; they report their base's
            # requires_grad (False when the root base was detach_()'ed since)
            out._requires_grad = out._base._requires_grad
            out._meta().no_grad_view = True
            _track_view(out._base, out)
    else:
        _track_view(out._base, out)
        # NOTE: torch's CreationMeta does not look at requires_grad: a view made in no_grad
        # mode (or a view of one) is a no_grad view even of a tensor that needs no grad
        if not grad_mode._enabled:
            out._meta().no_grad_view = True
        elif base is not None:
            xm = x._x
            if xm is not None and xm.no_grad_view:
                out._meta().no_grad_view = True
    if _FW is not None:
        _FW.op(cls, (x,), out, attrs)
    if trace.RECORDER is not None:
        trace.RECORDER.record(name, (x,), (out,))
    return out


def _view_shape(x: Tensor, shape: tuple[Any, ...]) -> tuple[int, ...]:
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
    shape = _view_shape(x, shape)
    data = _try_view(x._data, shape)
    if data is None:
        raise RuntimeError(
            "view size is not compatible with input tensor's size and stride (at least one "
            "dimension spans across two contiguous subspaces). Use .reshape(...) instead."
        )
    return _view(VIEW, "view", x, data, (x._data.shape,))


def reshape(x: Tensor, *shape: Any) -> Tensor:
    shape = _view_shape(x, shape)
    data = _try_view(x._data, shape)
    if data is not None:
        cls = VIEW if x._data.flags.c_contiguous else RESHAPE_ALIAS
        return _view(cls, "reshape", x, data, (x._data.shape,))
    c = clone(x)
    out = _new(Tensor)
    _init(out, c._data.reshape(shape), x._dtype)
    out._storage = c._storage
    out._vc = c._share_vc()
    if c._grad_fn is not None:
        _attach(UNSAFE_VIEW, out, (c,), (x._data.shape,))
    if _FW is not None:
        _FW.op(UNSAFE_VIEW, (c,), out, (x._data.shape,))
    if trace.RECORDER is not None:
        trace.RECORDER.record("reshape", (c,), (out,))
    return out


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
    return _view(T, "t", x, x._data.T)


def transpose(x: Tensor, dim0: int, dim1: int) -> Tensor:
    return _view(TRANSPOSE, "transpose", x, x._data.swapaxes(dim0, dim1), (dim0, dim1))


def permute(x: Tensor, *dims: Any) -> Tensor:
    if len(dims) == 1 and isinstance(dims[0], (tuple, list)):
        dims = tuple(dims[0])
    return _view(PERMUTE, "permute", x, np.transpose(x._data, dims), (tuple(dims),))


def _T(x: Tensor) -> Tensor:
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
    return _view(PERMUTE, "permute", x, np.transpose(x._data, dims), (dims,))


def _mT(x: Tensor) -> Tensor:
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
    target = tuple(shp[i - lead] if s == -1 else s for i, s in enumerate(sizes))
    try:
        data = _broadcast(x._data, target)
    except ValueError:
        raise RuntimeError(
            "The expanded size of the tensor must match the existing size at non-singleton "
            "dimension"
        ) from None
    return _view(EXPAND, "expand", x, data, (shp,))


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
    return _view(UNSQUEEZE, "unsqueeze", x, data, (dim,))


def squeeze(x: Tensor, dim: Any = None) -> Tensor:
    shp = x._data.shape
    if dim is None:
        data = np.reshape(x._data, tuple(s for s in shp if s != 1))
        return _view(SQUEEZE0, "squeeze", x, data, (shp,))
    nd = max(len(shp), 1)
    d = dim % nd
    data = np.squeeze(x._data, d) if len(shp) and shp[d] == 1 else x._data.view()
    return _view(SQUEEZE1, "squeeze", x, data, (dim, shp))


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
            out = _view(UNSQUEEZE, "unsqueeze", out, data, (dim,))
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
            out = _view(SLICE, "slice", out, data, attrs)
            dim += 1
        else:
            i = operator.index(it)
            size = shp[dim]
            if not -size <= i < size:
                raise IndexError(f"index {i} is out of bounds for dimension {dim} with size {size}")
            sl = slice(i, i + 1 if i != -1 else None)
            part = out._data[(slice(None),) * dim + (sl,)]
            data = np.reshape(part, shp[:dim] + shp[dim + 1 :])
            out = _view(SELECT, "select", out, data, (dim, i, shp))
    if out is x:
        out = _view(ALIAS, "alias", x, x._data.view())
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
    return _apply(INDEX, "index", (x,), data, x._dtype, (np_idx, x._data.shape))


# --------------------------------------------------------------------------------------------
# in-place ops: bump the shared version counter, rebase history (CopySlices for views)
# --------------------------------------------------------------------------------------------
class CopySlices(Node):
    """torch's CopySlices: the base's new history after an in-place op on one of its views."""

    __slots__ = ("_fn", "_view_args")
    _name = "torch::autograd::CopySlices"


CopySlices.__module__ = "torch.autograd.graph"


def _region(a: np.ndarray, size: Any, stride: Any, offset: int) -> np.ndarray:
    """The strided window of a C-contiguous array that a view covered in its base."""
    return np.lib.stride_tricks.as_strided(
        a.reshape(-1)[offset:], size, tuple(st * a.itemsize for st in stride)
    )


def _copy_slices_backward(node: CopySlices, g: Any, tensor_mode: bool) -> list[Any]:
    """Base gradient = g with the view's window replaced by the in-place op's gradient for
    its self; the op's other inputs get theirs from the window of g."""
    from detachviz.engine.autograd import _call_rule

    if node._saved is None:
        raise RuntimeError(errors.BACKWARD_TWICE)
    size, stride, offset, base_shape = node._view_args
    fn = node._fn
    if tensor_mode:
        gt = g.expand(*base_shape).contiguous() if g._data.shape != base_shape else g
        gslice = _as_strided(gt, size, stride, offset)
        grads = _call_rule(fn, gslice, True)
        keep = np.ones(base_shape, dtype=gt._data.dtype)
        _region(keep, size, stride, offset)[...] = 0
        result = gt * _wrap(keep)
        if grads[0] is not None:
            result = result + TT.as_strided_backward(
                grads[0].expand(*size), base_shape, size, stride, offset
            )
        return [result, *grads[1:]]
    result = np.array(np.broadcast_to(g, base_shape), copy=True)
    region = _region(result, size, stride, offset)
    grads = _call_rule(fn, region.copy(), False)
    region[...] = 0 if grads[0] is None else np.broadcast_to(grads[0], size)
    return [result, *grads[1:]]


AS_STRIDED_BACK = node_class(
    "AsStridedBackwardBackward0",
    (lambda F, g, s, a: F.as_strided(g, a[0], a[1], a[2]),),
    attrs=("size", "stride", "storage_offset"),
)


def _as_strided(t: Tensor, size: Any, stride: Any, offset: int) -> Tensor:
    """A strided window of a contiguous tensor as a differentiable op (AsStridedBackward0)."""
    data = np.array(_region(t._data, size, stride, offset))
    return _apply(
        AS_STRIDED,
        "as_strided",
        (t,),
        data,
        t._dtype,
        (tuple(size), tuple(stride), offset, t._data.shape),
    )


NP.as_strided = staticmethod(  # type: ignore[attr-defined]
    lambda g, size, stride, offset: np.array(_region(np.ascontiguousarray(g), size, stride, offset))
)
TT.as_strided = staticmethod(  # type: ignore[attr-defined]
    lambda g, size, stride, offset: _as_strided(g.contiguous(), size, stride, offset)
)


CopySlices._custom = staticmethod(_copy_slices_backward)  # type: ignore[assignment]


def _view_geometry(v: Tensor) -> tuple[tuple[int, ...], tuple[int, ...], int, tuple[int, ...]]:
    """(size, stride, offset, base shape) of view `v` inside its base, in the coordinates of
    a C-contiguous array of the base's shape (what the backward rules build)."""
    base = v._base
    bd = base._data
    item = bd.itemsize
    ptr = v._data.__array_interface__["data"][0]
    bptr = bd.__array_interface__["data"][0]
    size = v._data.shape
    stride = tuple(s // item for s in v._data.strides)
    offset = (ptr - bptr) // item
    if not bd.flags.c_contiguous:
        # NOTE: a base with another dense layout (a transposed result: `x.t() + 2` keeps it)
        geo = _c_order_geometry(bd, size, stride, offset)
        if geo is not None:
            stride, offset = geo
    return size, stride, offset, bd.shape


def _c_order_geometry(
    bd: np.ndarray, size: tuple[int, ...], stride: tuple[int, ...], offset: int
) -> tuple[tuple[int, ...], int] | None:
    """A memory-order window of dense `bd` as (stride, offset) over the C-order flat index of
    the same elements, or None when that is not one strided window."""
    n = bd.size
    if n == 0 or 0 in size or not _dense(bd) or any(s < 0 for s in bd.strides):
        return None
    item = bd.itemsize
    # memory position -> C-order flat index of the element stored there
    where = np.empty(n, dtype=np.intp)
    wi = where.itemsize
    np.lib.stride_tricks.as_strided(where, bd.shape, tuple(s // item * wi for s in bd.strides))[
        ...
    ] = np.arange(n).reshape(bd.shape)
    idx = np.lib.stride_tricks.as_strided(where[offset:], size, tuple(s * wi for s in stride))
    nd = len(size)
    start = int(idx[(0,) * nd])
    cstride = []
    grid = np.full(size, start, dtype=np.intp)
    for k in range(nd):
        st = int(idx[tuple(1 if d == k else 0 for d in range(nd))]) - start if size[k] > 1 else 0
        cstride.append(st)
        grid += st * np.arange(size[k]).reshape([-1 if d == k else 1 for d in range(nd)])
    if not np.array_equal(grid, idx):
        return None
    return tuple(cstride), start


def _check_inplace(x: Tensor, will_require_grad: bool) -> None:
    if not grad_mode._enabled:
        return
    fn = x._grad_fn
    if fn is not None and fn._shape is MULTI and x._base is not None:
        raise RuntimeError(
            f"Output {x._output_nr} of {errors.short_node_name(fn._name)} is a view and is being "
            "modified inplace. This view is the output of a function that returns multiple "
            "views. Such functions do not allow the output views to be modified inplace. You "
            "should replace the inplace operation by an out-of-place one."
        )
    if will_require_grad and x._x is not None and x._x.no_grad_view:
        raise RuntimeError(errors.no_grad_view_message(x, errors.NO_GRAD_VIEW_INPLACE))
    if x._requires_grad:
        base = x._base
        if base is None:
            if x._grad_fn is None:
                raise RuntimeError(errors.LEAF_INPLACE)
        elif base._grad_fn is None:
            # NOTE: torch asks only whether the base is a leaf: a view made to require grad
            # itself (requires_grad_() on a view of a plain tensor) is refused too
            raise RuntimeError(errors.VIEW_OF_LEAF_INPLACE)


# in-place ops whose torch kernel skips the internal-overlap check (fill kernels,
# masked_fill_, index_put_): they may write into an expanded tensor
_NO_INTERNAL_OVERLAP_CHECK = frozenset(
    {
        "ZeroBackward0",
        "FillBackward2",
        "MaskedFillBackward0",
        "MaskedFillBackward1",
        "IndexPutBackward0",
    }
)


def _dense(a: np.ndarray) -> bool:
    """torch's is_non_overlapping_and_dense: some permutation of the dims is contiguous."""
    if a.flags.c_contiguous or a.flags.f_contiguous:
        return True
    expected = a.itemsize
    for st, n in sorted((st, n) for n, st in zip(a.shape, a.strides) if n != 1):
        if st != expected:
            return False
        expected *= n
    return True


def _partial_overlap(a: np.ndarray, b: np.ndarray) -> bool:
    """torch's get_overlap_status(a, b) == Partial for two arrays over one storage."""
    if a.size == 0 or b.size == 0 or not _dense(a) or not _dense(b):
        return False  # NOTE: torch calls non-dense layouts "too hard" and lets them through
    ab = a.__array_interface__["data"][0]
    bb = b.__array_interface__["data"][0]
    ae = ab + a.nbytes
    be = bb + b.nbytes
    if ab == bb and ae == be:
        return a.strides != b.strides
    return ab < be and bb < ae


def _same_data(x: Tensor, src: Any) -> bool:
    """torch's copy_ early exit: `src` is x's data seen the same way (x.detach(), ...)."""
    if src is x:
        return True
    if not isinstance(src, Tensor) or src._storage is not x._storage:
        return False
    a, b = x._data, src._data
    return (
        a.__array_interface__["data"][0] == b.__array_interface__["data"][0]
        and a.shape == b.shape
        and a.strides == b.strides
        and a.dtype == b.dtype
    )


def _write_target(
    x: Tensor, cls: type[Node] | None, others: tuple[Any, ...], attrs: tuple[Any, ...]
) -> np.ndarray:
    """The array an in-place op writes into, after torch's memory-overlap checks (the
    written-to tensor must not repeat a location; an input must not partly overlap it)."""
    d = x._data
    if not d.flags.writeable:
        # numpy marks stride-0 (expanded) arrays and their slices read-only; torch refuses
        # only a written-to tensor with a stride-0 dim of size > 1 (self-copy returns early)
        self_copy = cls is COPY and bool(others) and _same_data(x, others[0])
        if not self_copy and getattr(cls, "_name", None) not in _NO_INTERNAL_OVERLAP_CHECK:
            for n, st in zip(d.shape, d.strides):
                if st == 0 and n > 1:
                    raise RuntimeError(errors.INTERNAL_OVERLAP)
        st_ = x._storage
        try:
            d = np.ndarray(
                d.shape,
                d.dtype,
                buffer=st_,
                offset=d.__array_interface__["data"][0] - st_.__array_interface__["data"][0],
                strides=d.strides,
            )
        except (TypeError, ValueError, BufferError):
            pass  # not a plain buffer: the write below reports it
    storage = x._storage
    for o in others + attrs if attrs else others:
        if isinstance(o, Tensor) and o._storage is storage and o is not x:
            if _partial_overlap(d, o._data):
                raise RuntimeError(errors.PARTIAL_OVERLAP)
    return d


def _inplace(
    x: Tensor,
    name: str,
    cls: type[Node] | None,
    new_values: Any,
    others: tuple[Any, ...] = (),
    attrs: tuple[Any, ...] = (),
) -> Tensor:
    """Write `new_values(x_data)` into x, then give x (or its base) the op's history."""
    rec = trace.RECORDER
    ref = rec.snapshot(x) if rec is not None else None
    needs = False
    if cls is not None and grad_mode._enabled:
        needs = x._requires_grad
        if not needs:
            for o in others:
                if isinstance(o, Tensor) and o._requires_grad:
                    needs = True
                    break
    _check_inplace(x, needs)
    target = _write_target(x, cls, others, attrs)
    keep_self = needs and 0 in cls._save_src
    orig = _wrap(x._data.copy(), x._dtype) if keep_self else x
    new = new_values(x._data)
    if _FW is not None:
        _FW.inplace(x, cls, others, attrs, new)  # before the write: x._data is the old primal
    try:
        if target is x._data:
            np.copyto(target, new, casting="same_kind")
        else:
            # NOTE: a write-allowed expanded tensor: write only what changes, so a location
            # seen through several elements keeps torch's value (index_put_, masked_fill_)
            np.copyto(target, new, casting="same_kind", where=np.not_equal(new, x._data))
    except TypeError:
        raise RuntimeError(
            f"result type {_BY_NP[np.asarray(new).dtype].name.capitalize().replace('32', '')} "
            f"can't be cast to the desired output type {x._dtype.legacy.replace('Tensor', '')}"
        ) from None
    except ValueError as e:
        if "read-only" in str(e):
            raise RuntimeError(errors.INTERNAL_OVERLAP) from None
        raise
    if needs:
        # NOTE: inputs are saved at their version before the write (torch saves them before
        # the kernel runs), so `v.mul_(v)` fails at backward as in torch; a saved result is
        # at the version after it.
        x._share_vc()
        fn = _rebase(x, cls, (orig, *others), attrs)
        x._bump()
        if fn._saved and -1 in cls._save_src:
            v = x._vc.v
            fn._versions = tuple(
                v if src < 0 and t is not None else ver
                for src, t, ver in zip(cls._save_src, fn._saved, fn._versions)
            )
    else:
        x._bump()
    if rec is not None:
        rec.record(name, (ref, *(o for o in others if isinstance(o, Tensor))), (x,), inplace=True)
    return x


def _rebase(x: Tensor, cls: type[Node], ins: tuple[Any, ...], attrs: tuple[Any, ...]) -> Node:
    """Attach the in-place op's node to x; for a view, wrap it in CopySlices on the base."""
    base = x._base
    if ins[0] is x:
        # save against x's state after the write for "result"; inputs saved as they are now
        probe = x
    else:
        probe = ins[0]
        probe._requires_grad = x._requires_grad
        probe._grad_fn = x._grad_fn
        probe._output_nr = x._output_nr
        if x._grad_fn is None and x._requires_grad:
            probe._x = x._x  # share the leaf's accumulator
    tmp = _new(Tensor)
    _init(tmp, x._data, x._dtype)
    tmp._vc = x._vc
    tmp._storage = x._storage
    fn = _attach(cls, tmp, (probe, *ins[1:]), attrs)
    # NOTE: the saved copy of the original self keeps x's old history (torch's original_self):
    # a double backward through it reaches x's old graph.
    old_fn = x._grad_fn
    moved = []
    if old_fn is not None and old_fn._pre_hooks and x._x is not None and x._x.retains_grad:
        # NOTE: torch moves retain_grad to the new history (other hooks stay with the old)
        moved = [h for h in old_fn._pre_hooks if type(h) is _RetainGradHook and h.ref() is x]
        for h in moved:
            old_fn._pre_hooks.remove(h)
    if base is None:
        if moved:
            fn._pre_hooks = (fn._pre_hooks or []) + moved
        x._grad_fn = fn
        x._requires_grad = True
        x._output_nr = 0
        _sync_views(x)
        return fn
    size, stride, offset, base_shape = _view_geometry(x)
    cs = new_node(CopySlices, (_edge(base), *fn.next_functions[1:]))
    cs._fn = fn
    # NOTE: torch's CopySlices frees its op's node after a backward without retain_graph and
    # then refuses a second one; a non-empty `_saved` has the engine release it (-> None)
    cs._saved = (None,)
    cs._view_args = (size, stride, offset, base_shape)
    cs._shape = base._data.shape
    cs._npd = base._data.dtype
    base._grad_fn = cs
    base._requires_grad = True
    base._output_nr = 0
    _sync_views(base)
    # the view's own history is regenerated as a strided view of the new base history
    asn = new_node(AS_STRIDED, ((cs, 0),), (size, stride, offset, base_shape))
    asn._shape = x._data.shape
    asn._npd = x._data.dtype
    if moved:
        asn._pre_hooks = moved
    x._grad_fn = asn
    x._requires_grad = True
    x._output_nr = 0
    x._view_ver = x._vc.v + 1  # the version after the write that follows
    return fn


def regen_view(t: Tensor) -> None:
    """Give view `t` a fresh AsStridedBackward0 over its base's current history."""
    base = t._base
    t._view_ver = t._vc.v
    if not base._requires_grad and t._grad_fn is None:
        return
    # NOTE: a view with a history gets one even if its base no longer requires grad (base
    # detach_()'ed): torch's AsStridedBackward0 then has no next edge
    size, stride, offset, base_shape = _view_geometry(t)
    node = new_node(AS_STRIDED, (_edge(base),), (size, stride, offset, base_shape))
    node._shape = t._data.shape
    node._npd = t._data.dtype
    t._grad_fn = node
    t._output_nr = 0


def _inplace_binary(cls: type[Node] | None, fn: Any, name: str, floating: bool = False) -> Any:
    def op(x: Tensor, y: Any, **kw: Any) -> Tensor:
        alpha = kw.get("alpha", 1)
        if isinstance(y, Tensor):
            yd = y._data
        else:
            yd = _as_scalar(y)
        if alpha != 1:
            return _inplace(x, name, cls, lambda a: fn(a, yd * alpha), (y,), (alpha,))
        attrs = (1,) if cls in (ADD, SUB) else ()
        return _inplace(x, name, cls, lambda a: fn(a, yd), (y,), attrs)

    op.__name__ = name
    return op


add_ = _inplace_binary(ADD, np.add, "add_")
sub_ = _inplace_binary(SUB, np.subtract, "sub_")
mul_ = _inplace_binary(MUL, np.multiply, "mul_")
div_ = _inplace_binary(DIV, np.true_divide, "div_")


def pow_(x: Tensor, e: Any) -> Tensor:
    if isinstance(e, Tensor):
        return _inplace(x, "pow_", POW1, lambda a: np.power(a, e._data), (e,))
    return _inplace(x, "pow_", POW0, lambda a: np.power(a, e), (), (e,))


ZERO = node_class("ZeroBackward0", (lambda F, g, s, a: F.zeros_like(g),))
FILL = node_class("FillBackward2", (lambda F, g, s, a: F.zeros_like(g),))
FILL3 = node_class(
    "FillBackward3",
    (lambda F, g, s, a: F.zeros_like(g), lambda F, g, s, a: F.reshape(F.sum_to(g, ()), ())),
)


def zero_(x: Tensor) -> Tensor:
    return _inplace(x, "zero_", ZERO, lambda a: np.zeros_like(a))


def fill_(x: Tensor, value: Any) -> Tensor:
    if isinstance(value, Tensor):
        return _inplace(x, "fill_", FILL3, lambda a: np.full_like(a, value._data), (value,))
    return _inplace(x, "fill_", FILL, lambda a: np.full_like(a, value))


def clamp_(x: Tensor, min: Any = None, max: Any = None) -> Tensor:  # noqa: A002
    return _inplace(x, "clamp_", CLAMP, lambda a: np.clip(a, min, max), (), (min, max))


def _unary_inplace(cls: type[Node], fn: Any, name: str) -> Any:
    def op(x: Tensor) -> Tensor:
        return _inplace(x, name, cls, fn)

    op.__name__ = name
    return op


exp_ = _unary_inplace(EXP, np.exp, "exp_")
log_ = _unary_inplace(LOG, np.log, "log_")
sqrt_ = _unary_inplace(SQRT, np.sqrt, "sqrt_")
neg_ = _unary_inplace(NEG, np.negative, "neg_")
tanh_ = _unary_inplace(TANH, np.tanh, "tanh_")
sigmoid_ = _unary_inplace(SIGMOID, _sigmoid_np, "sigmoid_")
relu_ = _unary_inplace(RELU, _relu_np, "relu_")
abs_ = _unary_inplace(ABS, np.abs, "abs_")


def copy_(x: Tensor, src: Any, non_blocking: bool = False) -> Tensor:
    if not isinstance(src, Tensor):
        raise TypeError(
            f"copy_(): argument 'other' (position 1) must be Tensor, not {type(src).__name__}"
        )
    sd = src._data

    def values(a: np.ndarray) -> np.ndarray:
        # NOTE: the common same-shape copy writes src's array straight in (np.copyto copes
        # with overlap); other shapes broadcast, as torch's copy_ does
        if sd.shape == a.shape:
            return sd if sd.dtype == a.dtype else sd.astype(a.dtype)
        return _broadcast(sd, a.shape).astype(a.dtype)

    return _inplace(x, "copy_", COPY, values, (src,))


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
                _inplace(v, "copy_", COPY, lambda a: np.full_like(a, value), (value,))
    finally:
        trace.RECORDER = rec
    if rec is not None:
        ins = (ref, value) if isinstance(value, Tensor) else (ref,)
        rec.record("setitem", ins, (x,), inplace=True)


INDEX_PUT = node_class(
    "IndexPutBackward0",
    (
        lambda F, g, s, a: F.where0(~_mask_at(F.data(g), a[0]), g),
        lambda F, g, s, a: F.index(g, a[0]),
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
    _inplace(x, "index_put_", cls, write, others, (np_idx,))


# --------------------------------------------------------------------------------------------
# multi-output views: split, chunk, unbind (one node, one output_nr per piece)
# --------------------------------------------------------------------------------------------
def _pieces(g: Any, node: Node, tensor_mode: bool) -> list[Any]:
    """The per-output gradients of a multi-output node, zeros where none arrived."""
    slots = g.grads if hasattr(g, "grads") else [g]
    out = []
    for k, (shape, npd) in enumerate(node._npd):
        gk = slots[k] if k < len(slots) else None
        if gk is None:
            gk = np.zeros(shape, dtype=npd)
            if tensor_mode:
                gk = _wrap(gk)
        out.append(gk)
    return out


def _split_backward(node: Node, g: Any, tensor_mode: bool) -> list[Any]:
    parts = _pieces(g, node, tensor_mode)
    if tensor_mode:  # differentiable again: torch.cat
        from detachviz.engine.joining import cat

        return [cat(parts, node._attrs[0])]
    return [np.concatenate(parts, axis=node._attrs[0])]


def _unbind_backward(node: Node, g: Any, tensor_mode: bool) -> list[Any]:
    parts = _pieces(g, node, tensor_mode)
    if tensor_mode:
        from detachviz.engine.joining import stack

        return [stack(parts, node._attrs[0])]
    return [np.stack(parts, axis=node._attrs[0])]


SPLIT = node_class("SplitBackward0", (None,), attrs=("dim", "self_sym_sizes", "split_size"))
SPLIT_SIZES = node_class(
    "SplitWithSizesBackward0", (None,), attrs=("dim", "self_sym_sizes", "split_sizes")
)
UNBIND = node_class("UnbindBackward0", (None,), attrs=("dim",))
SPLIT._custom = SPLIT_SIZES._custom = staticmethod(_split_backward)  # type: ignore[assignment]
UNBIND._custom = staticmethod(_unbind_backward)  # type: ignore[assignment]


def _multi_view(cls: type[Node], name: str, x: Tensor, datas: list[Any], attrs: tuple) -> tuple:
    node = None
    if x._requires_grad and grad_mode._enabled:
        node = new_node(cls, (_edge(x),), attrs)
        node._shape = MULTI
        node._npd = tuple((d.shape, d.dtype) for d in datas)
    vc = x._share_vc()
    base = x if x._base is None else x._base
    outs = []
    for k, d in enumerate(datas):
        out = _new(Tensor)
        _init(out, d, x._dtype)
        out._storage = x._storage
        out._vc = vc
        out._base = base
        out._view_ver = vc.v  # NOTE: never regenerated: reading them after a write raises
        if node is not None:
            out._grad_fn = node
            out._output_nr = k
            out._requires_grad = True
        elif x._requires_grad:
            out._requires_grad = base._requires_grad
            out._meta().no_grad_view = True
            _track_view(base, out)
        else:
            _track_view(base, out)
            if not grad_mode._enabled:
                out._meta().no_grad_view = True
        outs.append(out)
    if _FW is not None:
        _FW.views(x, outs)
    if trace.RECORDER is not None:
        trace.RECORDER.record(name, (x,), tuple(outs))
    return tuple(outs)


def split(x: Tensor, split_size_or_sections: Any, dim: int = 0) -> tuple[Tensor, ...]:
    nd = x._data.ndim
    d = dim % nd
    size = x._data.shape[d]
    if isinstance(split_size_or_sections, int):
        step = split_size_or_sections
        bounds = list(range(0, size, step)) or [0]
        datas = [x._data[(slice(None),) * d + (slice(b, b + step),)] for b in bounds]
        return _multi_view(SPLIT, "split", x, datas, (dim, x._data.shape, step))
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
    return _multi_view(SPLIT_SIZES, "split", x, datas, (dim, x._data.shape, sizes))


def chunk(x: Tensor, chunks: int, dim: int = 0) -> tuple[Tensor, ...]:
    size = x._data.shape[dim % x._data.ndim]
    return split(x, max(-(-size // chunks), 1), dim)


def unbind(x: Tensor, dim: int = 0) -> tuple[Tensor, ...]:
    d = dim % x._data.ndim
    datas = [x._data[(slice(None),) * d + (i,)] for i in range(x._data.shape[d])]
    datas = [a if type(a) is _ndarray else np.asarray(a) for a in datas]
    return _multi_view(UNBIND, "unbind", x, datas, (dim,))


def narrow(x: Tensor, dim: int, start: int, length: int) -> Tensor:
    d = dim % x._data.ndim
    shp = x._data.shape
    s0 = start % shp[d] if start < 0 else start
    data = x._data[(slice(None),) * d + (slice(s0, s0 + length),)]
    return _view(SLICE, "narrow", x, data, (dim, s0, s0 + length, 1, shp))


# --------------------------------------------------------------------------------------------
# comparisons and other non-differentiable ops
# --------------------------------------------------------------------------------------------
def _compare(fn: Any, name: str) -> Any:
    def op(x: Tensor, y: Any) -> Tensor:
        if y is None:
            return NotImplemented if name in ("eq", "ne") else _type_error(name, y)
        return _binary(None, fn, name, x, y)

    op.__name__ = name
    return op


def _type_error(name: str, y: Any) -> Any:
    raise TypeError(f"'{name}' not supported between 'Tensor' and '{type(y).__name__}'")


eq = _compare(np.equal, "eq")
ne = _compare(np.not_equal, "ne")
lt = _compare(np.less, "lt")
le = _compare(np.less_equal, "le")
gt = _compare(np.greater, "gt")
ge = _compare(np.greater_equal, "ge")


def _bool_or_int(fn: Any, name: str) -> Any:
    def op(x: Tensor, y: Any) -> Tensor:
        if x._dtype.is_floating_point or (isinstance(y, Tensor) and y._dtype.is_floating_point):
            raise RuntimeError(f"\"{name}_cpu\" not implemented for 'Float'")
        return _binary(None, fn, name, x, y)

    return op


_and = _bool_or_int(np.bitwise_and, "bitwise_and")
_or = _bool_or_int(np.bitwise_or, "bitwise_or")
_xor = _bool_or_int(np.bitwise_xor, "bitwise_xor")


def _invert(x: Tensor) -> Tensor:
    if x._dtype.is_floating_point:
        raise TypeError(
            "~ (operator.invert) is only implemented on integer and Boolean-type tensors"
        )
    return _apply(None, "bitwise_not", (x,), np.invert(x._data), x._dtype)


def _floordiv(x: Tensor, y: Any) -> Tensor:
    return _binary(None, np.floor_divide, "floor_divide", x, y)


def _mod(x: Tensor, y: Any) -> Tensor:
    return _binary(None, np.mod, "remainder", x, y)


def _predicate(fn: Any, name: str) -> Any:
    def op(x: Tensor) -> Tensor:
        return _apply(None, name, (x,), fn(x._data), dtypes.bool_)

    op.__name__ = name
    return op


isnan = _predicate(np.isnan, "isnan")
isinf = _predicate(np.isinf, "isinf")
isfinite = _predicate(np.isfinite, "isfinite")
logical_not = _predicate(np.logical_not, "logical_not")


def _reduce_bool(fn: Any, name: str) -> Any:
    def op(x: Tensor, dim: Any = None, keepdim: bool = False) -> Tensor:
        if dim is None:
            return _apply(None, name, (x,), fn(x._data), dtypes.bool_)
        return _apply(None, name, (x,), fn(x._data, axis=dim, keepdims=keepdim), dtypes.bool_)

    op.__name__ = name
    return op


any_ = _reduce_bool(np.any, "any")
all_ = _reduce_bool(np.all, "all")


def equal(x: Tensor, y: Tensor) -> bool:
    return x._data.shape == y._data.shape and bool(np.array_equal(x._data, y._data))


def allclose(
    x: Tensor, y: Tensor, rtol: float = 1e-05, atol: float = 1e-08, equal_nan: bool = False
) -> bool:
    return bool(np.allclose(x._data, y._data, rtol=rtol, atol=atol, equal_nan=equal_nan))


def resize_(x: Tensor, *sizes: Any) -> Tensor:
    if x._requires_grad:
        raise RuntimeError("cannot resize variables that require grad")
    if x._fw_tangent is not None:
        raise RuntimeError("cannot resize variables that has a forward grad")
    if len(sizes) == 1 and isinstance(sizes[0], (tuple, list)):
        sizes = tuple(sizes[0])
    n = 1
    for d in sizes:
        n *= d
    flat = x._data.reshape(-1)
    if n <= flat.size:
        x._data = flat[:n].reshape(sizes)
    else:
        # NOTE: growing allocates new storage (torch leaves the new tail uninitialised: zeros)
        new = np.zeros(n, dtype=x._data.dtype)
        new[: flat.size] = flat
        x._storage = new
        x._data = new.reshape(sizes)
    x._bump()
    return x


def _rmatmul(x: Tensor, y: Any) -> Tensor:
    return matmul(y, x)


# --------------------------------------------------------------------------------------------
# install on Tensor
# --------------------------------------------------------------------------------------------
def _install() -> None:
    T_ = Tensor
    T_.__add__ = _add_fast
    T_.__radd__ = _radd
    T_.__iadd__ = lambda x, y: add_(x, y)
    T_.__sub__ = _sub_fast
    T_.__rsub__ = _rsub
    T_.__isub__ = lambda x, y: sub_(x, y)
    T_.__mul__ = _mul_fast
    T_.__rmul__ = _rmul
    T_.__imul__ = lambda x, y: mul_(x, y)
    T_.__truediv__ = _div_fast
    T_.__rtruediv__ = _rdiv
    T_.__itruediv__ = lambda x, y: div_(x, y)
    T_.__pow__ = pow
    T_.__rpow__ = _rpow
    T_.__ipow__ = pow_
    T_.__matmul__ = matmul
    T_.__rmatmul__ = _rmatmul
    T_.__neg__ = neg
    T_.__pos__ = lambda x: x
    T_.__abs__ = abs
    T_.__eq__ = eq
    T_.__ne__ = ne
    T_.__lt__ = lt
    T_.__le__ = le
    T_.__gt__ = gt
    T_.__ge__ = ge
    T_.__and__ = _and
    T_.__or__ = _or
    T_.__xor__ = _xor
    T_.__invert__ = _invert
    T_.__floordiv__ = _floordiv
    T_.__mod__ = _mod
    T_.__getitem__ = getitem
    T_.__setitem__ = setitem
    methods = dict(
        add=add,
        sub=sub,
        mul=mul,
        div=div,
        pow=pow,
        neg=neg,
        abs=abs,
        exp=exp,
        log=log,
        sqrt=sqrt,
        sin=sin,
        cos=cos,
        tanh=tanh,
        sigmoid=sigmoid,
        relu=relu,
        clamp=clamp,
        clip=clamp,
        clone=clone,
        sum=sum,
        mean=mean,
        matmul=matmul,
        mm=mm,
        view=view,
        reshape=reshape,
        flatten=flatten,
        t=t,
        transpose=transpose,
        permute=permute,
        expand=expand,
        expand_as=expand_as,
        unsqueeze=unsqueeze,
        squeeze=squeeze,
        reciprocal=reciprocal,
        add_=add_,
        sub_=sub_,
        mul_=mul_,
        div_=div_,
        pow_=pow_,
        zero_=zero_,
        fill_=fill_,
        clamp_=clamp_,
        copy_=copy_,
        exp_=exp_,
        log_=log_,
        sqrt_=sqrt_,
        neg_=neg_,
        tanh_=tanh_,
        sigmoid_=sigmoid_,
        relu_=relu_,
        abs_=abs_,
        eq=eq,
        ne=ne,
        lt=lt,
        le=le,
        gt=gt,
        ge=ge,
        multiply=mul,
        subtract=sub,
        divide=div,
        true_divide=div,
        negative=neg,
        absolute=abs,
        dot=lambda x, y: matmul(x, y),
        mv=lambda x, y: matmul(x, y),
        split=split,
        chunk=chunk,
        unbind=unbind,
        narrow=narrow,
        isnan=isnan,
        isinf=isinf,
        isfinite=isfinite,
        logical_not=logical_not,
        any=any_,
        all=all_,
        equal=equal,
        allclose=allclose,
        resize_=resize_,
        addmm=lambda inp, m1, m2, *, beta=1, alpha=1: addmm(inp, m1, m2, beta=beta, alpha=alpha),
    )
    for k, v in methods.items():
        setattr(T_, k, v)
    T_.T = property(_T)
    T_.mT = property(_mT)
    T_.view_as = lambda x, other: view(x, other._data.shape)
    T_.reshape_as = lambda x, other: reshape(x, other._data.shape)
    T_.float = lambda x, memory_format=None: _to_dtype(x, dtypes.float32)
    T_.double = lambda x, memory_format=None: _to_dtype(x, dtypes.float64)
    T_.half = lambda x, memory_format=None: _to_dtype(x, dtypes.float16)
    T_.long = lambda x, memory_format=None: _to_dtype(x, dtypes.int64)
    T_.int = lambda x, memory_format=None: _to_dtype(x, dtypes.int32)
    T_.bool = lambda x, memory_format=None: _to_dtype(x, dtypes.bool_)
    T_.to = _to
    T_.type = _type
    T_.type_as = lambda x, other: _to_dtype(x, other._dtype)
    T_.contiguous = _contiguous
    T_.cpu = lambda x, memory_format=None: x
    T_.new_tensor = _new_tensor
    T_.new_zeros = lambda x, *size, dtype=None, requires_grad=False: _new_full(
        x, size, 0, dtype, requires_grad
    )
    T_.new_ones = lambda x, *size, dtype=None, requires_grad=False: _new_full(
        x, size, 1, dtype, requires_grad
    )
    T_.new_full = lambda x, size, fill_value, dtype=None, requires_grad=False: _new_full(
        x, (size,), fill_value, dtype, requires_grad
    )
    T_.new_empty = lambda x, *size, dtype=None, requires_grad=False: _new_full(
        x, size, 0, dtype, requires_grad
    )


def _contiguous(x: Tensor, memory_format: Any = None) -> Tensor:
    if x._data.flags.c_contiguous:
        return x
    return _unary(CLONE, np.ascontiguousarray, "contiguous", x)


def _to(x: Tensor, *args: Any, **kwargs: Any) -> Tensor:
    dt = kwargs.get("dtype")
    copy = kwargs.get("copy", False)
    for a in args:
        if isinstance(a, dtypes.dtype):
            dt = a
        elif isinstance(a, Tensor):
            dt = a._dtype
    if dt is None:
        return clone(x) if copy else x
    return _to_dtype(x, dt, copy=copy)


_TYPE_NAMES = {f"torch.{d.legacy}": d for d in dtypes.ALL}


def _type(x: Tensor, dtype: Any = None, non_blocking: bool = False) -> Any:
    if dtype is None:
        return f"torch.{x._dtype.legacy}"
    if isinstance(dtype, str):
        dtype = _TYPE_NAMES[dtype]
    elif not isinstance(dtype, dtypes.dtype):
        dtype = getattr(dtype, "_legacy_dtype", dtype)
    return _to_dtype(x, dtype)


def _new_tensor(x: Tensor, data: Any, dtype: Any = None, requires_grad: bool = False) -> Tensor:
    from detachviz.engine.factory import _copy_construct

    return _copy_construct(
        data,
        dtype or x._dtype,
        requires_grad,
        "tensor.new_tensor",
        "new_tensor",
        default_dtype=dtype or x._dtype,
    )


def _new_full(x: Tensor, size: Any, value: Any, dtype: Any, requires_grad: bool) -> Tensor:
    if len(size) == 1 and isinstance(size[0], (tuple, list)):
        size = tuple(size[0])
    dt = dtype or x._dtype
    t = _wrap(np.full(size, value, dtype=dt.np), dt)
    if requires_grad:
        t.requires_grad_(True)
    return t


_install()

# op modules written on top of this one install their methods when imported; load them here
# (after everything above exists) so any import of the engine sees the whole op surface
from detachviz.engine import joining as _joining  # noqa: E402,F401
from detachviz.engine import reductions as _reductions  # noqa: E402,F401
