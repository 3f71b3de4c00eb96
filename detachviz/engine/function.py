"""The op kit: what every forward is written with. Each helper computes nothing itself; given
the result's values it wraps them as a tensor, attaches the backward node when grad flows
(saving what the node's `Saved` rows ask for), calls the forward-AD hook while a dual level is
active and records the op in the trace: once, here, for every op.

- `apply(cls, name, ins, data, dtype, attrs)`: any op; `unary` / `float_unary` / `binary` /
  `fast_binary` / `scalar_op`: the common shapes, with torch's type promotion (`promote.py`);
- `view` / `multi_view`: results sharing storage and version counter (`_base` the root);
- `inplace(x, name, cls, new_values, others, attrs)`: checks, the write, version bump,
  history rebase (CopySlices for a view);
- `finish(cls, name, ins, out, attrs)`: the tail alone, for a result made another way.

`cls=None` marks an op that is not differentiable. The fast paths (`attach1`, `attach2`,
`fast_binary`, the generated savers) are unrolled copies of `attach` and `binary`; the tests
in tests/engine/test_fast_paths.py keep them in step.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from detachviz.engine import dtype as dtypes
from detachviz.engine import errors, state, trace
from detachviz.engine.arrays import partial_overlap, view_geometry
from detachviz.engine.node import (
    MULTI,
    NODE_CLASSES,
    CopySlices,
    Node,
    RetainGradHook,
    new_node,
    next_seq,
)
from detachviz.engine.promote import (
    as_scalar,
    broadcast_error,
    is_operand,
    operands,
)
from detachviz.engine.savers import saver
from detachviz.engine.tensor import (
    AS_STRIDED,
    BY_NP,
    NO_EDGE,
    Tensor,
    VersionCounter,
    edge,
    init_tensor,
    sync_views,
    track_view,
    wrap,
)

_ndarray = np.ndarray
_new = object.__new__


# --------------------------------------------------------------------------------------------
# attaching nodes and recording
# --------------------------------------------------------------------------------------------
def _save(node: Node, cls: type[Node], mask: int, ins: tuple[Any, ...], out: Tensor) -> None:
    fn = cls._savers.get(mask)
    if fn is None:
        fn = saver(cls, mask)
    fn(node, ins, out)


def attach(cls: type[Node], out: Tensor, ins: tuple[Any, ...], attrs: tuple[Any, ...]) -> Node:
    """Give `out` a grad_fn of class `cls` over inputs `ins` (tensors or python numbers)."""
    edges = []
    mask = 0
    bit = 1
    for t in ins:
        if isinstance(t, Tensor) and t._requires_grad:
            edges.append(edge(t))
            mask |= bit
        else:
            edges.append(NO_EDGE)
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


def attach1(cls: type[Node], out: Tensor, x: Tensor, attrs: tuple) -> None:
    """`attach` unrolled for one input that requires grad."""
    node = _new(cls)
    if x._base is not None:
        fn = x._grad_fn
        vc = x._vc
        if fn is not None and vc is not None and x._view_ver == vc.v:
            node.next_functions = ((fn, x._output_nr),)  # a view whose history is current
        else:
            node.next_functions = (edge(x),)  # views: torch's rules (regenerated, no accumulator)
    else:
        fn = x._grad_fn
        node.next_functions = ((fn, x._output_nr) if fn is not None else (x._accumulator(), 0),)
    node._attrs = attrs
    node._pre_hooks = node._hooks = node._meta = None
    node._seq = next_seq()
    if cls._save_src:
        fn = cls._savers.get(1)
        if fn is None:
            fn = saver(cls, 1)
        fn(node, (x,), out)
    else:
        node._saved = node._versions = ()
    d = out._data
    node._shape = d.shape
    node._npd = d.dtype
    out._grad_fn = node
    out._requires_grad = True


def attach2(cls: type[Node], out: Tensor, x: Tensor, y: Any, yrg: bool, attrs: tuple) -> None:
    """`attach` unrolled for the binary fast path (x is a Tensor)."""
    node = _new(cls)
    if x._requires_grad:
        if x._base is not None:
            ex = edge(x)
        else:
            fn = x._grad_fn
            ex = (fn, x._output_nr) if fn is not None else (x._accumulator(), 0)
        mask = 3 if yrg else 1
    else:
        ex = NO_EDGE
        mask = 2
    if yrg:
        if y._base is not None:
            ey = edge(y)
        else:
            fn = y._grad_fn
            ey = (fn, y._output_nr) if fn is not None else (y._accumulator(), 0)
    else:
        ey = NO_EDGE
    node.next_functions = (ex, ey)
    node._attrs = attrs
    node._pre_hooks = node._hooks = node._meta = None
    node._seq = next_seq()
    if cls._save_src:
        fn = cls._savers.get(mask)
        if fn is None:
            fn = saver(cls, mask)
        fn(node, (x, y), out)
    else:
        node._saved = node._versions = ()
    d = out._data
    node._shape = d.shape
    node._npd = d.dtype
    out._grad_fn = node
    out._requires_grad = True


def apply(
    cls: type[Node] | None,
    name: str,
    ins: tuple[Any, ...],
    data: Any,
    dtype: dtypes.dtype | None = None,
    attrs: tuple[Any, ...] = (),
) -> Tensor:
    """Wrap `data` as the result of op `name` on `ins`; attach `cls` if grad flows."""
    if data.__class__ is not _ndarray:
        data = np.asarray(data)
    out = _new(Tensor)
    init_tensor(out, data, BY_NP[data.dtype] if dtype is None else dtype)
    if cls is not None and state.grad_enabled:
        if len(ins) == 1:
            if ins[0]._requires_grad:
                attach1(cls, out, ins[0], attrs)
            if state.fw_hooks is not None:
                state.fw_hooks.op(cls, ins, out, attrs)
            if trace.RECORDER is not None:
                trace.RECORDER.record(name, ins, (out,))
            return out
        if len(ins) == 2 and ins[0].__class__ is Tensor and ins[1].__class__ is Tensor:
            x, y = ins
            if x._requires_grad or y._requires_grad:
                attach2(cls, out, x, y, y._requires_grad, attrs)
            if state.fw_hooks is not None:
                state.fw_hooks.op(cls, ins, out, attrs)
            if trace.RECORDER is not None:
                trace.RECORDER.record(name, ins, (out,))  # both are tensors: no filtering
            return out
        else:
            for t in ins:
                if isinstance(t, Tensor) and t._requires_grad:
                    attach(cls, out, ins, attrs)
                    break
    if state.fw_hooks is not None:
        state.fw_hooks.op(cls, ins, out, attrs)
    if trace.RECORDER is not None:
        trace.RECORDER.record(name, tuple(t for t in ins if isinstance(t, Tensor)), (out,))
    return out


def finish(
    cls: type[Node] | None,
    name: str,
    ins: tuple[Any, ...],
    out: Tensor,
    attrs: tuple[Any, ...] = (),
    record: tuple[Any, ...] | None = None,
    attached: bool = False,
) -> Tensor:
    """The tail of every op, for a result `out` made another way (an alias of another
    result, a fused loss): attach `cls` over `ins` when grad flows (unless the caller
    `attached` a node of its own, as the fused losses do: torch's edges there are not one
    per input), run the forward-AD hook, record the op (`record`: the inputs the trace
    shows, default the tensors of `ins`)."""
    if cls is not None and not attached and state.grad_enabled:
        for t in ins:
            if isinstance(t, Tensor) and t._requires_grad:
                attach(cls, out, ins, attrs)
                break
    if state.fw_hooks is not None:
        state.fw_hooks.op(cls, ins, out, attrs)
    if trace.RECORDER is not None:
        if record is None:
            record = tuple(t for t in ins if isinstance(t, Tensor))
        trace.RECORDER.record(name, record, (out,))
    return out


def unary(cls: type[Node], fn: Any, name: str, x: Tensor, attrs: tuple[Any, ...] = ()) -> Tensor:
    xd = x._data
    data = fn(xd)
    if data.__class__ is not _ndarray:
        data = np.asarray(data)
    out = _new(Tensor)
    init_tensor(out, data, x._dtype if data.dtype is xd.dtype else BY_NP[data.dtype])
    if x._requires_grad and state.grad_enabled:
        attach1(cls, out, x, attrs)
    if state.fw_hooks is not None:
        state.fw_hooks.op(cls, (x,), out, attrs)
    if trace.RECORDER is not None:
        trace.RECORDER.record(name, (x,), (out,))
    return out


def float_unary(cls: type[Node], fn: Any, name: str, x: Tensor) -> Tensor:
    """A unary op whose integer inputs promote to the default float dtype (exp, log, ...)."""
    if not x._dtype.is_floating_point:
        dt = state.default_dtype
        return apply(cls, name, (x,), fn(x._data.astype(dt.np)), dt)
    return unary(cls, fn, name, x)


def binary(
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
                xd, yd, dt = operands(x, y, floating)
                data = fn(xd, yd)
        except ValueError:
            raise broadcast_error(x._data.shape, y._data.shape) from None
        yrg = y._requires_grad
    else:
        try:
            y = as_scalar(y)
        except TypeError as e:
            raise TypeError(f"{name}(): {e}") from None
        ty = type(y)
        if (ty is float and xdt.is_floating_point) or (
            ty is int and xdt is not dtypes.bool_ and (not floating or xdt.is_floating_point)
        ):
            data = fn(x._data, y)
            dt = xdt
        else:
            xd, yd, dt = operands(x, y, floating)
            data = fn(xd, yd)
        yrg = False
    if type(data) is not _ndarray:
        data = np.asarray(data)  # a 0-d result comes back as a numpy scalar
    if data.dtype is not dt.np:
        if cls is None:
            dt = BY_NP[data.dtype]
        else:
            data = data.astype(dt.np)
    out = _new(Tensor)
    init_tensor(out, data, dt)
    if cls is not None and (x._requires_grad or yrg) and state.grad_enabled:
        attach2(cls, out, x, y, yrg, attrs)
    if state.fw_hooks is not None:
        state.fw_hooks.op(cls, (x, y), out, attrs)
    if trace.RECORDER is not None:
        trace.RECORDER.record(name, (x, y) if isinstance(y, Tensor) else (x,), (out,))
    return out


# --------------------------------------------------------------------------------------------
# forward functions
# --------------------------------------------------------------------------------------------
def operator_form(
    fn: Callable[[Tensor, Any], Tensor], takes: Callable[[Any], bool] = is_operand
) -> Callable[[Tensor, Any], Any]:
    """A binary op as a Python operator: NotImplemented when it raises TypeError for an operand
    it does not `take` (by default anything but a tensor or a number: `promote.is_operand`),
    so Python tries the other operand's reflected operator, as torch's operators turn their
    argument parser's TypeError into NotImplemented.
    With an ndarray on the right numpy then computes (`Tensor.__array_wrap__` makes its result
    a tensor); on the left numpy defers to `__array_priority__`, so `ndarray * tensor` is a
    TypeError, as in torch."""

    def op(x: Tensor, y: Any) -> Any:
        try:
            return fn(x, y)
        except TypeError:
            if takes(y):
                raise
            return NotImplemented

    op.__name__ = getattr(fn, "__name__", "op")
    return op


def fast_binary(cls: type[Node], fn: Any, name: str, attrs: tuple[Any, ...] = ()) -> Any:
    """The hot path of a broadcasting binary op (tensor-tensor of one dtype, or a float
    tensor and a python float) with everything bound locally; other cases go to `binary`.
    Same semantics as `binary`, only fewer lookups; as a Python operator it answers
    NotImplemented to an operand that is no tensor or number (`operator_form`)."""
    st = state
    tr = trace
    new = _new
    T_ = Tensor

    def op(x: Any, y: Any) -> Tensor:
        ins: tuple[Any, ...]
        data = None
        if x.__class__ is T_:
            yc = y.__class__
            if yc is T_:
                xdt = x._dtype
                if y._dtype is xdt:
                    try:
                        data = fn(x._data, y._data)
                    except ValueError:
                        raise broadcast_error(x._data.shape, y._data.shape) from None
                    yrg = y._requires_grad
                    ins = (x, y)
            elif yc is float and x._dtype.is_floating_point:
                xdt = x._dtype
                data = fn(x._data, y)
                yrg = False
                ins = (x,)
        if data is not None:
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
            if st.inference:
                out._meta().inference = True
            xrg = x._requires_grad
            if (xrg or yrg) and st.grad_enabled:
                attach2(cls, out, x, y, yrg, attrs)
            if state.fw_hooks is not None:
                state.fw_hooks.op(cls, (x, y), out, attrs)
            if tr.RECORDER is not None:
                tr.RECORDER.record(name, ins, (out,))
            return out
        try:
            return binary(cls, fn, name, x, y, attrs)
        except TypeError:
            if is_operand(y):
                raise
            return NotImplemented  # type: ignore[no-any-return]

    op.__name__ = name
    return op


def scalar_op(
    cls: type[Node], fn: Any, name: str, x: Tensor, y: Any, attrs: tuple[Any, ...]
) -> Tensor:
    """An op of a tensor and a python number whose node has the tensor as its only input
    (`x ** 2` PowBackward0, `2 - x` RsubBackward1, `2 ** x` PowBackward2)."""
    xd, yd, dt = operands(x, y)
    data = fn(xd, yd)
    if type(data) is _ndarray and data.dtype is not dt.np:
        data = data.astype(dt.np)
    return apply(cls, name, (x,), data, dt, attrs)


# --------------------------------------------------------------------------------------------
# views: share storage and version counter, `_base` points at the root
# --------------------------------------------------------------------------------------------
def view(cls: type[Node], name: str, x: Tensor, data: np.ndarray, attrs: tuple = ()) -> Tensor:
    out = _new(Tensor)
    init_tensor(out, data, x._dtype)
    out._storage = x._storage
    vc = x._vc
    if vc is None:
        vc = x._vc = VersionCounter()
    out._vc = vc
    base = x._base
    out._base = x if base is None else base
    out._view_ver = vc.v
    if x._requires_grad:
        if state.grad_enabled:
            attach1(cls, out, x, attrs)  # reads x's (maybe regenerated) history
            xm = x._x
            if xm is not None and xm.no_grad_view:
                out._meta().no_grad_view = True  # NOTE: torch propagates the CreationMeta
        else:
            # NOTE: torch marks views made under no_grad; they report their base's
            # requires_grad (False when the root base was detach_()'ed since)
            out._requires_grad = out._base._requires_grad
            out._meta().no_grad_view = True
            track_view(out._base, out)
    else:
        track_view(out._base, out)
        if x._x is not None and x._x.inference:
            out._meta().inference = True  # a view of an inference tensor is one too
        # NOTE: torch's CreationMeta does not look at requires_grad: a view made in no_grad
        # mode (or a view of one) is a no_grad view even of a tensor that needs no grad
        if not state.grad_enabled:
            out._meta().no_grad_view = True
        elif base is not None:
            xm = x._x
            if xm is not None and xm.no_grad_view:
                out._meta().no_grad_view = True
    if state.fw_hooks is not None:
        state.fw_hooks.op(cls, (x,), out, attrs)
    if trace.RECORDER is not None:
        trace.RECORDER.record(name, (x,), (out,))
    return out


def multi_view(cls: type[Node], name: str, x: Tensor, datas: list[Any], attrs: tuple) -> tuple:
    node = None
    if x._requires_grad and state.grad_enabled:
        node = new_node(cls, (edge(x),), attrs)
        node._shape = MULTI
        node._npd = tuple((d.shape, d.dtype) for d in datas)
    vc = x._share_vc()
    base = x if x._base is None else x._base
    outs = []
    for k, d in enumerate(datas):
        out = _new(Tensor)
        init_tensor(out, d, x._dtype)
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
            track_view(base, out)
        else:
            track_view(base, out)
            if not state.grad_enabled:
                out._meta().no_grad_view = True
        outs.append(out)
    if state.fw_hooks is not None:
        state.fw_hooks.views(cls, x, outs)
    if trace.RECORDER is not None:
        trace.RECORDER.record(name, (x,), tuple(outs))
    return tuple(outs)


def check_inplace(x: Tensor, will_require_grad: bool) -> None:
    if x._x is not None and x._x.inference and not state.inference:
        raise RuntimeError(errors.INFERENCE_INPLACE)
    if not state.grad_enabled:
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
_COPY = "torch::autograd::CopyBackwards"  # copy_'s node: a copy onto itself returns early
_NO_INTERNAL_OVERLAP_CHECK = frozenset(
    {
        "ZeroBackward0",
        "FillBackward2",
        "MaskedFillBackward0",
        "MaskedFillBackward1",
        "IndexPutBackward0",
    }
)


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
        self_copy = cls is not None and cls._name == _COPY and bool(others)
        self_copy = self_copy and _same_data(x, others[0])
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
            if partial_overlap(d, o._data):
                raise RuntimeError(errors.PARTIAL_OVERLAP)
    return d


def inplace(
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
    if cls is not None and state.grad_enabled:
        needs = x._requires_grad
        if not needs:
            for o in others:
                if isinstance(o, Tensor) and o._requires_grad:
                    needs = True
                    break
    check_inplace(x, needs)
    target = _write_target(x, cls, others, attrs)
    keep_self = needs and cls is not None and 0 in cls._save_src
    orig = wrap(x._data.copy(), x._dtype) if keep_self else x
    new = new_values(x._data)
    if state.fw_hooks is not None:
        state.fw_hooks.inplace(
            x, cls, others, attrs, new
        )  # before the write: x._data is the old primal
    try:
        if target is x._data:
            np.copyto(target, new, casting="same_kind")
        else:
            # NOTE: a write-allowed expanded tensor: write only what changes, so a location
            # seen through several elements keeps torch's value (index_put_, masked_fill_)
            np.copyto(target, new, casting="same_kind", where=np.not_equal(new, x._data))
    except TypeError:
        raise RuntimeError(
            f"result type {BY_NP[np.asarray(new).dtype].name.capitalize().replace('32', '')} "
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
        assert cls is not None  # `needs` implies a node class
        vc = x._share_vc()
        fn = rebase(x, cls, (orig, *others), attrs)
        if keep_self:
            _clone_history(orig)
        x._bump()
        if fn._saved and -1 in cls._save_src:
            v = vc.v
            fn._versions = tuple(
                v if src < 0 and t is not None else ver
                for src, t, ver in zip(cls._save_src, fn._saved, fn._versions)
            )
    else:
        x._bump()
    if rec is not None:
        rec.record(name, (ref, *(o for o in others if isinstance(o, Tensor))), (x,), inplace=True)
    return x


def _clone_history(orig: Tensor) -> None:
    """torch saves an in-place op's original self as `self.clone()`: a create_graph backward
    that unpacks it reaches x's old history through a CloneBackward0 (the op's own edge still
    goes to the old history directly)."""
    old = orig._grad_fn
    if old is None:
        return
    node = new_node(NODE_CLASSES["CloneBackward0"], ((old, orig._output_nr),))
    node._shape = orig._data.shape
    node._npd = orig._data.dtype
    orig._grad_fn = node
    orig._output_nr = 0


def rebase(x: Tensor, cls: type[Node], ins: tuple[Any, ...], attrs: tuple[Any, ...]) -> Node:
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
    init_tensor(tmp, x._data, x._dtype)
    tmp._vc = x._vc
    tmp._storage = x._storage
    fn = attach(cls, tmp, (probe, *ins[1:]), attrs)
    # NOTE: the saved copy of the original self keeps x's old history (torch's original_self):
    # a double backward through it reaches x's old graph.
    old_fn = x._grad_fn
    moved = []
    if old_fn is not None and old_fn._pre_hooks and x._x is not None and x._x.retains_grad:
        # NOTE: torch moves retain_grad to the new history (other hooks stay with the old)
        moved = [h for h in old_fn._pre_hooks if type(h) is RetainGradHook and h.ref() is x]
        for h in moved:
            old_fn._pre_hooks.remove(h)
    if base is None:
        if moved:
            fn._pre_hooks = (fn._pre_hooks or []) + moved
        x._grad_fn = fn
        x._requires_grad = True
        x._output_nr = 0
        sync_views(x)
        return fn
    size, stride, offset, base_shape = view_geometry(x)
    cs = new_node(CopySlices, (edge(base), *fn.next_functions[1:]))
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
    sync_views(base)
    # the view's own history is regenerated as a strided view of the new base history
    asn = new_node(AS_STRIDED, ((cs, 0),), (size, stride, offset, base_shape))
    asn._shape = x._data.shape
    asn._npd = x._data.dtype
    if moved:
        asn._pre_hooks = moved
    x._grad_fn = asn
    x._requires_grad = True
    x._output_nr = 0
    x._view_ver = x._share_vc().v + 1  # the version after the write that follows
    return fn
