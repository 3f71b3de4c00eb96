"""Tracing real PyTorch into detachviz's trace records (engine/trace.py: Record, Ref).

A `torch.overrides.TorchFunctionMode` sees every torch function a script calls: ops,
`detach`, `detach_`, the `.data` getter (as a descriptor's `__get__`), `torch.tensor` and
`new_tensor` copies, in-place ops, `backward` and `autograd.grad`. Each becomes one
`Record` with the same op name, cut and in-place flag the numpy engine records, so capture,
`grad` and diagnosis read both engines alike. Only the outermost call is seen (torch turns
the mode off while it runs), which is the op the script wrote: `F.linear`, not its kernels.

What real torch keeps private is kept here instead, from what the mode saw: which tensors
share a version counter (views share their base's, `detach()` its source's, `.data` gets a
fresh one), and the tensors each backward node saved, read from its public `_saved_*`
attributes when the op ran (torch frees them at backward and refuses them after an in-place
change, exactly when diagnosis needs them).
"""

from __future__ import annotations

import sys
from typing import Any

import torch
from torch.overrides import TorchFunctionMode

from detachviz.engine.trace import Record, Recorder, Ref
from detachviz.graph import vocab

_new = object.__new__
_Tensor = torch.Tensor
_is_grad_enabled = torch.is_grad_enabled

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
# Names ending in `_` that change no values.
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
_SAVED_ATTRS: dict[type, tuple[str, ...]] = {}  # grad_fn class -> its `_saved_*` names


class Saved:
    """One tensor a backward node saved: the tensor (the script's own object when it is one
    of the op's inputs or outputs), torch's name for it, its version then, and the node."""

    __slots__ = ("tensor", "name", "saved_version", "node")

    def __init__(self, tensor: Any, name: str, saved_version: int, node: Any) -> None:
        self.tensor = tensor
        self.name = name
        self.saved_version = saved_version
        self.node = node


class TorchRecord(Record):
    """A record of a real torch op: `saved` was read from the node when the op ran."""

    __slots__ = ()

    @property
    def saved(self) -> tuple[Any, ...]:
        raw = self._saved_raw
        if raw is None:
            return ()
        node, items = raw
        mine = [r.tensor for r in self.inputs + self.outputs]
        out = []
        for name, value, version in items:
            same = next((t for t in mine if _same_view(t, value)), value)
            out.append(Saved(same, name, version, node))
        return tuple(out)


def _same_view(a: Any, b: Any) -> bool:
    return (
        a.data_ptr() == b.data_ptr()
        and a.shape == b.shape
        and a.dtype == b.dtype
        and a.stride() == b.stride()
    )


def _saved_attrs(fn: Any) -> tuple[str, ...]:
    kind = type(fn)
    names = _SAVED_ATTRS.get(kind)
    if names is None:
        names = tuple(a for a in dir(kind) if a.startswith("_saved_"))
        _SAVED_ATTRS[kind] = names
    return names


def read_saved(fn: Any) -> list[tuple[str, Any, int]]:
    """(name, tensor, version) of every tensor `fn` saved, as torch exposes them now."""
    out = []
    for attr in _saved_attrs(fn):
        try:
            value = getattr(fn, attr)
        except RuntimeError:  # freed by backward, or changed in place since
            continue
        if isinstance(value, _Tensor):
            out.append((attr[7:], value, value._version))
    return out


class TorchRecorder(Recorder):
    """A Recorder fed by the torch function mode, for real tensors."""

    def __init__(self, script: str | None = None) -> None:
        super().__init__(script)
        # id(tensor) -> id of the tensor whose version counter it shares (detach())
        self._counter: dict[int, int] = {}
        # the highest sequence number of a backward node made so far (a probe node's now)
        with torch.enable_grad():
            probe = torch.zeros((), requires_grad=True).exp().grad_fn
        self._last_seq: int = probe._sequence_nr() if probe is not None else -1
        self._keep: list[Any] = []  # the inner nodes, alive while their ids are keys

    # ---- the contract ----------------------------------------------------------------
    def _ref(self, t: Any) -> Ref:
        key = id(t)
        old = self._refs.get(key)
        fn = t.grad_fn
        rg = t.requires_grad
        if old is not None and old.grad_fn is fn and old.requires_grad == rg:
            return old
        ref = _new(Ref)
        ref.tensor = t
        ref.grad_fn = fn
        ref.requires_grad = rg
        ref.producer = None if old is None else old.producer
        self._refs[key] = ref
        return ref

    def shares_version_counter(self, a: Any, b: Any) -> bool:
        return a is b or self._counter_of(a) == self._counter_of(b)

    def _counter_of(self, t: Any) -> int:
        while t._base is not None:  # a view bumps its base's counter
            t = t._base
        key = id(t)
        while key in self._counter:
            key = self._counter[key]
        return key

    def saved_behind(self, error: BaseException) -> tuple[Any, Any]:
        """torch's "modified by an inplace operation" error names only a shape and a node
        name; find the node and the saved tensor it means (newest node first, as backward
        runs them). Remembered on the error as the numpy engine's errors carry them."""
        found = super().saved_behind(error)
        if found[0] is not None or "modified by an inplace operation" not in str(error):
            return found
        for rec in reversed(self.records):
            raw = rec._saved_raw
            if raw is None:
                continue
            node = raw[0]
            for attr in _saved_attrs(node):
                try:
                    getattr(node, attr)
                except RuntimeError as e:
                    if "modified by an inplace operation" not in str(e):
                        continue
                    name = attr[7:]
                    saved = next((s for s in rec.saved if s.name == name), None)
                    if saved is not None:
                        error.saved_variable = saved  # type: ignore[attr-defined]
                        error.node = node  # type: ignore[attr-defined]
                        return saved, node
        return None, None

    def _inner_nodes(self, fn: Any, rec: Record) -> None:
        """Nodes the op made besides its output's (numbered after every node before it)."""
        seq = fn._sequence_nr()
        last, self._last_seq = self._last_seq, max(self._last_seq, seq)
        if seq <= last + 1:
            return  # one new node: the output's own
        stack = [c for c, _ in fn.next_functions if c is not None]
        step = None
        while stack:
            node = stack.pop()
            if hasattr(node, "variable") or node._sequence_nr() <= last:
                continue
            if id(node) not in self.inner:
                if step is None:  # the op's line, and nothing to walk: its inputs are the op's
                    step = _new(TorchRecord)
                    step.index, step.op, step.line, step.cut = rec.index, rec.op, rec.line, None
                    step.inputs = step.outputs = ()
                    step.inplace, step.grad_enabled, step._saved_raw = False, rec.grad_enabled, None
                self.inner[id(node)] = step
                self._keep.append(node)
                stack.extend(c for c, _ in node.next_functions if c is not None)

    # ---- recording -------------------------------------------------------------------
    def add(
        self,
        op: str,
        inputs: list[Any],
        outputs: list[Any],
        cut: str | None,
        inplace: bool,
        frame: Any,
    ) -> Record:
        """One record; `inputs` are Refs or tensors, `frame` where to look for the line."""
        refs = self._refs
        ins_: list[Ref] = []
        for x in inputs:
            if type(x) is not Ref:
                old = refs.get(id(x))
                if (
                    old is None
                    or old.grad_fn is not x.grad_fn
                    or old.requires_grad != x.requires_grad
                ):
                    old = self._ref(x)
                x = old
            ins_.append(x)
        ins = tuple(ins_)
        ge = _is_grad_enabled()
        if cut is None and not ge:
            for r in ins[1:] if inplace else ins:
                if r.requires_grad:
                    cut = vocab.NO_GRAD
                    break
        line = None
        script = self.script
        if script is not None:
            while frame is not None:
                if frame.f_code.co_filename == script:
                    line = frame.f_lineno
                    break
                frame = frame.f_back
        records = self.records
        rec = _new(TorchRecord)
        rec.index = len(records)
        rec.op = op
        rec.inputs = ins
        rec.cut = cut
        rec.line = line
        rec.inplace = inplace
        rec.grad_enabled = ge
        rec._saved_raw = None
        outs = []
        for t in outputs:
            ref = _new(Ref)
            ref.tensor = t
            ref.grad_fn = t.grad_fn
            ref.requires_grad = t.requires_grad
            ref.producer = rec
            refs[id(t)] = ref
            outs.append(ref)
        rec.outputs = tuple(outs)
        fn = outs[0].grad_fn if outs else None
        if fn is not None:
            saved = read_saved(fn)
            if saved:
                rec._saved_raw = (fn, saved)
            self._inner_nodes(fn, rec)
        records.append(rec)
        return rec


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
        rec = self.recorder
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
            if ins:  # factories (ones, randn, empty) are not ops on values: not recorded
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
            rec.add(op, roots, [], None, False, sys._getframe(1))
            return func(*args, **kwargs)
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
_KINDS: dict[Any, tuple[str, str]] = {}


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
    if name.endswith("_") and not name.startswith("_") and name not in NOT_WRITES:
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
