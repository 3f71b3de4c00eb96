"""The torch function mode that traces real PyTorch into detachviz's trace records.

A `torch.overrides.TorchFunctionMode` sees every torch function a script calls: ops,
`detach`, `detach_`, the `.data` getter (as a descriptor's `__get__`), `torch.tensor` and
`new_tensor` copies, in-place ops, `backward` and `autograd.grad`. Each becomes one
`Record` (recorder.py) with the same op name, cut and in-place flag the numpy engine
records, so capture, `grad` and diagnosis read both engines alike. Only the outermost call
is seen (torch turns the mode off while it runs), which is the op the script wrote:
`F.linear`, not its kernels.
"""

from __future__ import annotations

import sys
from typing import Any

import torch
from torch.overrides import TorchFunctionMode

from detachviz.engine.trace import leaf_grads
from detachviz.graph import vocab
from detachviz.torch_engine.recorder import TorchRecorder

_Tensor = torch.Tensor

# Function names as torch reports them -> the numpy engine's record op names.
RENAMED = {"__getitem__": "getitem", "__setitem__": "setitem", "__radd__": "add",
           "__rmul__": "mul", "__rsub__": "rsub", "__rtruediv__": "div", "__rpow__": "pow",
           "__rmatmul__": "matmul", "__truediv__": "div",
           "__floordiv__": "floor_divide"}  # fmt: skip
# Properties that make a tensor: `x.T` is recorded as the op torch runs for it.
PROPERTY_OPS = {"T": "permute", "mT": "transpose", "H": "permute", "mH": "transpose"}
# Copies of a tensor argument: a cut (`torch.tensor(t)`, `t.new_tensor(u)`).
COPIES = {"tensor": 0, "new_tensor": 1}  # op -> position of the copied argument
DIFFERENTIATIONS = {"backward": vocab.BACKWARD, "grad": vocab.AUTOGRAD_GRAD}
# Names ending in `_` that change no values (and return their input: not ops either).
NOT_WRITES = frozenset({"requires_grad_", "share_memory_", "retain_grad_", "set_grad_enabled_"})
INPLACE_DUNDERS = frozenset({"__setitem__", "__iadd__", "__isub__", "__imul__", "__itruediv__",
                             "__ifloordiv__", "__imod__", "__ipow__", "__iand__", "__ior__",
                             "__ixor__", "__ilshift__", "__irshift__", "__imatmul__"})  # fmt: skip


# Ops that read only a tensor's shape and dtype, not its values (and the numpy engine does
# not record): `zeros_like`, `new_zeros`, ...
def _shape_only(name: str) -> bool:
    return name.endswith("_like") or (name.startswith("new_") and name != "new_tensor")


# Calls that return a tensor but compute nothing from their inputs' values.
NOT_VALUES = frozenset({"_set_grad_enabled", "is_grad_enabled", "set_grad_enabled"})


def _tensors(args: Any, kwargs: Any) -> list[Any]:
    """The tensors among a call's arguments (one level into lists and tuples), in order."""
    out = []
    for a in (*args, *kwargs.values()) if kwargs else args:
        if isinstance(a, _Tensor):
            out.append(a)
        elif isinstance(a, (list, tuple)):
            out.extend(x for x in a if isinstance(x, _Tensor))
    return out


def _outputs(value: Any) -> list[Any]:
    if isinstance(value, _Tensor):
        return [value]
    if isinstance(value, (list, tuple)):
        return [x for x in value if isinstance(x, _Tensor)]
    return []


class Tracer(TorchFunctionMode):
    """The torch function mode that turns each call into a record of `recorder`."""

    def __init__(self, recorder: TorchRecorder) -> None:
        super().__init__()
        self.recorder = recorder
        self.depth = 0  # > 0 inside a custom autograd.Function: its steps are not ops

    def apply(self, apply: Any, cls: Any, args: Any, kwargs: Any) -> Any:
        """`MyFunction.apply(x)`: one op named after the class, as the numpy engine has it."""
        if self.depth:
            return apply(cls, *args, **kwargs)
        self.depth += 1
        try:
            out = apply(cls, *args, **kwargs)
        finally:
            self.depth -= 1
        outs = _outputs(out)
        if outs:
            self.recorder.add(cls.__name__, _tensors(args, kwargs), outs, None, False,
                              sys._getframe(2))  # fmt: skip
        return out

    def __torch_function__(self, func: Any, types: Any, args: Any = (), kwargs: Any = None) -> Any:
        if kwargs is None:
            kwargs = {}
        if self.depth:
            return func(*args, **kwargs)
        try:
            kind, op = _KINDS[func]
        except KeyError:
            kind, op = _KINDS[func] = _classify(func)
        except TypeError:  # an unhashable callable: classify it each time
            kind, op = _classify(func)
        if kind is SKIP:
            return func(*args, **kwargs)
        if kind is DECOMPOSED:
            return _CELLS[func](self, *args, **kwargs)
        rec = self.recorder
        if kind is OP and kwargs.get("inplace") is True:  # F.relu(x, inplace=True)
            kind, op = INPLACE, op + "_"
        if kind is OP:
            out = func(*args, **kwargs)
            if type(out) is _Tensor or isinstance(out, _Tensor):
                outs = [out]
            elif isinstance(out, (list, tuple)):
                outs = [x for x in out if isinstance(x, _Tensor)]
                if not outs:
                    return out
            else:
                return out
            ins = _tensors(args, kwargs)
            # factories (ones, randn, empty) are not ops on values, and a call that gives
            # back its input (`x.float()` of a float, `contiguous()`) made nothing: neither
            # is recorded
            if ins and outs[0] is not ins[0]:
                rec.add(op, ins, outs, None, False, sys._getframe(1))
            return out
        if kind is INPLACE:
            tensors = _tensors(args, kwargs)
            if not tensors:
                return func(*args, **kwargs)
            target, ins = tensors[0], tensors[1:]
            if op == "setitem":  # the index is not a value that flows in
                ins = [args[2]] if len(args) > 2 and isinstance(args[2], _Tensor) else []
            before = rec.snapshot(target)
            out = func(*args, **kwargs)
            rec.add(op, [before, *ins], [target], None, True, sys._getframe(1))
            return out
        if kind is PROPERTY:
            out = func(*args, **kwargs)
            if isinstance(out, _Tensor):
                cut = vocab.DATA if op == vocab.DATA else None
                rec.add(op, [args[0]], [out], cut, False, sys._getframe(1))
            return out
        if kind is DIFFERENTIATION:
            roots = _outputs(args[0] if args else kwargs.get("tensors", kwargs.get("outputs")))
            diff = rec.add(op, roots, [], None, False, sys._getframe(1))
            since = rec._last_seq  # the nodes this backward makes get higher numbers
            out = func(*args, **kwargs)
            made = lambda f: f._sequence_nr() > since  # noqa: E731
            # the derivative graph's nodes have no record: keep what they saved
            if op == vocab.AUTOGRAD_GRAD and kwargs.get("create_graph", args[4:5] == (True,)):
                rec.keep_derived(_outputs(out), made, diff)
            elif op == vocab.BACKWARD and kwargs.get("create_graph", args[3:4] == (True,)):
                rec.keep_derived(leaf_grads(roots), made, diff)
            return out
        if kind is DETACH_INPLACE:
            target = args[0]
            before = rec.snapshot(target)
            out = func(*args, **kwargs)
            rec.add(vocab.DETACH_, [before], [target], vocab.DETACH_, True, sys._getframe(1))
            return out
        out = func(*args, **kwargs)
        outs = _outputs(out)
        if not outs:
            return out
        if kind is DETACH:
            rec._counter[id(out)] = rec._counter_of(args[0])
            rec.add(vocab.DETACH, [args[0]], outs, vocab.DETACH, False, sys._getframe(1))
        elif kind is GETITEM:
            rec.add(_getitem_op(args[1]), [args[0]], outs, None, False, sys._getframe(1))
        else:  # COPY
            at = COPIES[op]
            data = args[at] if len(args) > at else kwargs.get("data")
            if isinstance(data, _Tensor):
                rec.add(op, [data], outs, vocab.COPY, False, sys._getframe(1))
            elif _tensors(args, kwargs):
                rec.add(op, _tensors(args, kwargs), outs, None, False, sys._getframe(1))
        return out


# How the mode treats each torch function, decided once per function (`_classify`).
SKIP, OP, INPLACE, PROPERTY, DIFFERENTIATION = "skip", "op", "inplace", "property", "diff"
DETACH, DETACH_INPLACE, GETITEM, COPY = "detach", "detach_", "getitem", "copy"
DECOMPOSED = "decomposed"
_KINDS: dict[Any, tuple[str, str]] = {}


def _simple_cell(nonlinearity: Any) -> Any:
    """nn.RNNCell's fused kernel (torch's SimpleCell: nonlinearity(linear_hh(hx) +
    linear_ih(input))) run as those calls through the mode, so each is its own record, as
    the numpy engine's RNNCell records them: a cut into hx is drawn into the linear that
    reads it, on either engine. Same kernels, same values, same backward nodes."""

    def run(mode: Tracer, input: Any, hx: Any, w_ih: Any, w_hh: Any, b_ih: Any = None,
            b_hh: Any = None) -> Any:  # fmt: skip
        tf = mode.__torch_function__
        linear = torch.nn.functional.linear
        hh = tf(linear, (), (hx, w_hh, b_hh))
        z = tf(_Tensor.add, (), (hh, tf(linear, (), (input, w_ih, b_ih))))
        return tf(nonlinearity, (), (z,))

    return run


_CELLS = {
    torch.rnn_tanh_cell: _simple_cell(torch.tanh),
    torch.rnn_relu_cell: _simple_cell(torch.relu),
}
for _cell in _CELLS:
    _KINDS[_cell] = (DECOMPOSED, "")


def _classify(func: Any) -> tuple[str, str]:
    """(kind, record op name) of a torch function, by its name."""
    name = getattr(func, "__name__", "")
    if name == "__get__":  # a property: only `.data` and the view properties make values
        attr = getattr(getattr(func, "__self__", None), "__name__", "")
        if attr == "data":
            return PROPERTY, vocab.DATA
        if attr in PROPERTY_OPS:
            return PROPERTY, PROPERTY_OPS[attr]
        return SKIP, ""
    if name in DIFFERENTIATIONS:
        return DIFFERENTIATION, DIFFERENTIATIONS[name]
    if name == "detach_":
        return DETACH_INPLACE, vocab.DETACH_
    if name in INPLACE_DUNDERS:
        return INPLACE, RENAMED.get(name) or name[3:-2] + "_"
    if name in NOT_WRITES:
        return SKIP, ""
    if name.endswith("_") and not name.startswith("_"):
        return INPLACE, name
    if name == "detach":
        return DETACH, vocab.DETACH
    if name == "__getitem__":
        return GETITEM, "getitem"
    if name in COPIES:
        return COPY, name
    if _shape_only(name) or name in NOT_VALUES:
        return SKIP, ""
    return OP, RENAMED.get(name) or name.strip("_")


def _getitem_op(index: Any) -> str:
    """The numpy engine's name for `x[index]` (torch's own steps: select, slice, ...)."""
    items = index if isinstance(index, tuple) else (index,)
    if any(isinstance(i, (_Tensor, list)) or hasattr(i, "__array__") for i in items):
        return "index"
    op = "alias"
    for it in items:
        if it is None:
            op = "unsqueeze"
        elif isinstance(it, slice):
            full = it.start in (None, 0) and it.stop is None and it.step in (None, 1)
            if not (full and isinstance(index, tuple)):
                op = "slice"
        elif it is not Ellipsis:
            op = "select"
    return op
