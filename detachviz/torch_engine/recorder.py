"""The torch engine's recorder: trace records (engine/trace.py) of real tensors.

What real torch keeps private is kept here, from what the tracer (tracer.py) saw: which
tensors share a version counter (views share their base's, `detach()` its source's, `.data`
gets a fresh one), the tensors each backward node saved, read from its public `_saved_*`
attributes when the op ran (torch frees them at backward and refuses them after an in-place
change, exactly when diagnosis needs them), and the backward nodes one op made inside
itself (`linear`'s TBackward0), which get that op's line.
"""

from __future__ import annotations

from typing import Any

import torch

from detachviz.engine.trace import Record, Recorder, Ref
from detachviz.graph import vocab

_new = object.__new__
_Tensor = torch.Tensor
_is_grad_enabled = torch.is_grad_enabled
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
        items = self._saved_raw
        if items is None:
            return ()
        node = self._saver
        mine = [r.tensor for r in self.inputs + self.outputs]
        out = []
        for name, value, version in items:
            same = next((t for t in mine if _same_view(t, value)), None)
            if same is None and value.dim() == 0:
                continue  # a python number the op wrapped (`x * 2`): not a tensor of the script
            out.append(Saved(value if same is None else same, name, version, node))
        return tuple(out)

    def saved_values(self) -> dict[str, Any]:
        items = self._saved_raw
        out = {} if items is None else {name: value for name, value, _ in items}
        out.update((sv.name, sv.tensor) for sv in self.saved)  # the script's own objects
        return out


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
        self._inner_alive: list[Any] = []  # the inner nodes, alive while their ids are keys

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
            if rec._saved_raw is None:
                continue
            node = rec._saver
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
                self._inner_alive.append(node)
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
                rec._saved_raw = saved
                rec._saver = fn
            self._inner_nodes(fn, rec)
        records.append(rec)
        return rec
