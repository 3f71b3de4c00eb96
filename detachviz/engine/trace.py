"""The op recorder: a light trace of every op and every cut, kept only while someone records.

Tracing is separate from differentiation. The engine calls `record()` at each op when
`RECORDER` is set; when nothing records, the cost is one `if RECORDER is not None`.
The recorder knows nothing of drawing: graph capture reads its records afterwards.

A record keeps *snapshots* of its tensors (`Ref`): the tensor object plus its `grad_fn`,
`requires_grad` and producing record as they were at that moment. That is what makes
`y.detach_()` and in-place ops traceable: the tensor object lives on, its history changes.
"""

from __future__ import annotations

import collections
import gc
import sys
import weakref
from typing import Any

from detachviz.engine import kernels, state, writes
from detachviz.engine.node import MULTI, Node, SavedVariable
from detachviz.graph import vocab

_new = object.__new__
_getframe = sys._getframe
_weakref = weakref.ref
_Weak = weakref.ReferenceType

# The cut mechanisms, as they appear in graph edges and in `detachviz grad` reasons.
CUTS = vocab.CUT_NAMES


class Ref:
    """A tensor as it was when an op used or produced it.

    `tensor`, `grad_fn`, `requires_grad`, `producer` and `shape` are the contract. A Ref
    built by `Recorder.record` holds its tensor and grad_fn *weakly* (the recorder must not
    keep a training loop's dead steps alive); the records that need a value after the script
    dropped it pin it themselves (see Record). Assigning `tensor`/`grad_fn` (as a Recorder
    subclass may) holds them strongly.
    """

    __slots__ = ("_t", "_fn", "requires_grad", "producer", "_shape", "owner", "anchored")
    # NOTE: a tensor's `_trace` is its latest snapshot (None or unset before any); a snapshot
    # passed to `record` as an op's input (an in-place op's target) answers None too: it is
    # one already. A class attribute, not a raised AttributeError: that costs ~0.5 µs an op.
    _trace = None

    def __init__(self, tensor: Any, producer: Record | None) -> None:
        self._t = tensor
        # NOTE: the engine's slots, not the properties: this runs once per op while recording.
        self._fn = tensor._grad_fn
        self.requires_grad = tensor._requires_grad
        self.producer = producer
        self._shape: Any = None
        self.owner: Any = None  # the Recorder that made it (None: made by hand)
        self.anchored: tuple[Any, ...] = ()

    @property
    def tensor(self) -> Any:
        t = self._t
        return t() if type(t) is _Weak else t

    @tensor.setter
    def tensor(self, value: Any) -> None:
        self._t = value

    @property
    def grad_fn(self) -> Any:
        fn = self._fn
        return fn() if type(fn) is _Weak else fn

    @grad_fn.setter
    def grad_fn(self, value: Any) -> None:
        self._fn = value

    @property
    def shape(self) -> tuple[int, ...] | None:
        """The tensor's shape when snapshotted (known even once the tensor is gone)."""
        shape = getattr(self, "_shape", None)
        if shape is None:
            t = self.tensor
            return None if t is None else tuple(int(d) for d in t.shape)
        return tuple(int(d) for d in shape)


class Record(Ref):
    """One op: its name, input and output snapshots, and where in the script it ran.

    A record of an op with one output that writes nothing is also that output's snapshot
    (`outputs` is `(self,)`, `producer` is itself): one object per op, and no cycle
    between a record and its output's snapshot, so a dropped step is freed at once.

    `op` is the forward name (`pow`, `mul`, `detach`, `data`, `tensor`, `add_`, ...).
    `cut` is one of CUTS when the op severs gradient flow from a value that requires grad
    (`no_grad` is set for any op run with grad mode off on an input that requires grad).
    `inplace` is true for ops that write into their first input (`add_`, `zero_`, `x[i] = v`).
    `backward` and `autograd.grad` are recorded too (inputs: the roots, no outputs), so
    capture knows what the script differentiated.

    What keeps a record: the live values it describes. A live backward node keeps the
    record of the op that made it, a live tensor its latest snapshot (whose producer is
    the op that last wrote it), a differentiated tensor its `backward` records, and a record
    the records of its inputs. `_pins` holds what drawing needs after the script dropped
    it: a cut's sources (their untracked history is drawn) and an in-place op's target (to
    find the saved tensor it overwrote).
    """

    __slots__ = (
        "index", "op", "inputs", "cut", "_code", "_at", "inplace", "grad_enabled",
        "_saved_raw", "_saver", "_pins", "_outs", "__weakref__",
    )  # fmt: skip

    def __init__(
        self,
        index: int,
        op: str,
        inputs: tuple[Ref, ...],
        outputs: tuple[Ref, ...],
        cut: str | None,
        line: int | None,
        inplace: bool,
        grad_enabled: bool,
    ) -> None:
        self.index = index
        self.op = op
        self.inputs = inputs
        self._outs: tuple[Ref, ...] | None = outputs
        self.cut = cut
        self._code: Any = None
        self._at: Any = line  # the line, or with `_code` the instruction offset
        self.inplace = inplace
        self.grad_enabled = grad_enabled
        # node._saved as the op left it, and the node (`_saver`): the node frees its saved
        # tensors at backward, and diagnosis needs them afterwards. Unpacked by `saved` on
        # demand. The node may be held weakly (then the record lives only as long as it does).
        self._saved_raw: Any = None
        self._saver: Any = None
        self._pins: tuple[Any, ...] = ()

    @property
    def outputs(self) -> tuple[Ref, ...]:
        """The snapshots of the op's outputs, as the op left them."""
        outs = self._outs
        return (self,) if outs is None else outs

    @outputs.setter
    def outputs(self, value: tuple[Ref, ...]) -> None:
        self._outs = value

    @property
    def producer(self) -> Record | None:  # type: ignore[override]
        """As the output's snapshot, the record is its own producer."""
        return self

    @property
    def line(self) -> int | None:
        """The script line the op ran at (None if it ran outside the script)."""
        # NOTE: `record` keeps the script frame's code and instruction offset; the line
        # number is looked up from them only when asked (most records are never asked).
        code = self._code
        if code is None:
            return self._at  # type: ignore[no-any-return]
        line = _line_at(code, self._at)
        self._code = None
        self._at = line
        return line

    @line.setter
    def line(self, value: int | None) -> None:
        self._code = None
        self._at = value

    @property
    def cut_sources(self) -> tuple[Ref, ...]:
        """The inputs requiring grad whose gradient this op cuts (none if it cuts nothing)."""
        if self.cut is None:
            return ()
        # An in-place write under no_grad (an optimizer step) cuts only what flows in from
        # its other inputs; detach_() cuts its target's own history.
        ins = self.inputs[1:] if self.inplace and self.cut == "no_grad" else self.inputs
        return tuple(r for r in ins if r.requires_grad)

    @property
    def saved(self) -> tuple[Any, ...]:
        """SavedVariable objects for what this op's backward node saved (even after backward)."""
        raw = self._saved_raw
        if raw is None:
            return ()
        node = self._saver
        if type(node) is _Weak:
            node = node()
            if node is None:
                return ()
        out = []
        for k, value in enumerate(raw):
            if value is None or not hasattr(value, "_data"):
                continue  # not saved, or a python scalar
            if node._save_src[k] < 0:  # the op's own output
                tensor = self.outputs[0].tensor
                if tensor is None and shadow_output is not None:
                    tensor = shadow_output(value, node)  # dropped by the script: unpack it
            else:
                tensor = value
            out.append(SavedVariable(tensor, node._save_names[k], node._versions[k], node))
        return tuple(out)

    def saved_values(self) -> dict[str, Any]:
        """Every tensor this op's node saved, by torch's name: `saved`, plus the python
        numbers it saved as the 0-dim tensors `_saved_*` shows them (`x * 3`'s `other`):
        what --show-saved draws after backward freed the node."""
        out = {sv.name: sv.tensor for sv in self.saved}
        raw = self._saved_raw
        if raw is None or scalar_tensor is None:
            return out
        node = self._saver
        if type(node) is _Weak:
            node = node()
            if node is None:
                return out
        for k, value in enumerate(raw):
            name = node._save_names[k]
            if value is not None and not hasattr(value, "_data") and name not in out:
                out[name] = scalar_tensor(value)
        return out

    def __repr__(self) -> str:
        return f"<Record #{self.index} {self.op} line={self.line} cut={self.cut}>"


class _RootCopy(Ref):
    """A differentiated root's snapshot as its backward()/autograd.grad() record holds it:
    the root's producing record held weakly. The root's snapshot keeps the differentiation
    record (`anchored`); a strong producer would close a cycle through it (a one-output
    record is its own output's snapshot), and a training loop's every step would then wait
    for the cyclic collector, its tensors and nodes with it."""

    __slots__ = ("_producer",)
    _producer: Any  # a weak reference to the root's producing record, or None

    @property
    def producer(self) -> Record | None:  # type: ignore[override]
        p = self._producer
        return None if p is None else p()  # type: ignore[no-any-return]


# code object -> {instruction offset: line}, filled as records are asked for their line
_LINES: weakref.WeakKeyDictionary[Any, dict[int, int | None]] = weakref.WeakKeyDictionary()


def _line_at(code: Any, lasti: int) -> int | None:
    """The line of the instruction at byte offset `lasti` of `code` (what the frame's
    `f_lineno` said while it ran there)."""
    lines = _LINES.get(code)
    if lines is None:
        lines = _LINES[code] = {}
    line = lines.get(lasti, -1)
    if line == -1:
        line = None
        for start, end, number in code.co_lines():
            if start <= lasti < end:
                line = number
                break
        lines[lasti] = line
    return line


def saved_attrs(fn: Any) -> dict[str, Any]:
    """A backward node's `_saved_*` attributes by name (without the prefix), those that can
    be read now (torch raises on one backward freed)."""
    out: dict[str, Any] = {}
    for attr in dir(fn):
        if attr.startswith("_saved_") and attr != "_saved_variables":
            try:
                out[attr[len("_saved_") :]] = getattr(fn, attr)
            except RuntimeError:
                continue
    return out


def leaf_grads(roots: Any) -> list[Any]:
    """The `.grad` of every leaf the roots' graph reaches: what `backward(create_graph=True)`
    made (an explicit stack over `next_functions`)."""
    out, seen = [], set()
    stack = [t.grad_fn for t in roots if t.grad_fn is not None]
    while stack:
        fn = stack.pop()
        if id(fn) in seen:
            continue
        seen.add(id(fn))
        if hasattr(fn, "variable"):
            if fn.variable.grad is not None:
                out.append(fn.variable.grad)
            continue
        stack.extend(c for c, _ in fn.next_functions if c is not None)
    return out


class Recorder:
    """Collects records for one script run. `script` is the path whose lines we report.

    `records` lists the records still reachable from the script's live values, in order
    (a training loop's earlier steps drop out as the script drops their tensors). A
    subclass may instead append its own records to `records` and map `_refs` (id(tensor)
    -> latest Ref) itself; those are kept for the whole run.
    """

    # NOTE: what `record` reads and writes on every op are slots, which the compiled record
    # (engine/_record.c) reaches without a lookup; the rest lives in the instance dict.
    __slots__ = ("script", "strong", "_count", "_log", "_compact_at", "_savers", "__dict__")

    def __init__(self, script: str | None = None) -> None:
        self.script = script
        self._list: list[Record] = []  # records a subclass appends, kept strongly
        self._log: list[Any] = []  # weak references to the records `record()` made
        self._count = 0
        self._compact_at = 1024
        self._writes: list[Any] = []  # weak references to the in-place writes, in order
        # (engine/writes.py: what is kept of them, and when they are let go)
        self._compact_writes_at = 4096
        # (index, weak reference to the node) of the records whose node saved something, in
        # order: what engine/writes.py asks whether a live node saved a written tensor
        self._savers: collections.deque[tuple[int, Any]] = collections.deque()
        # Strong mode (a recorder started inside another one): id(tensor) -> its latest
        # snapshot, ids kept valid by `_alive`, as the engine's own slots cannot be shared.
        self._refs: dict[int, Ref] = {}
        # id(backward node) -> the record of the op that made it as an inner step, not as
        # an output's grad_fn (real torch's linear makes a TBackward0 for its weight).
        # The numpy engine records each step as its own op, so it leaves this empty.
        self.inner: dict[int, Record] = {}
        self.strong = False
        self._alive: list[Any] = []
        # the latest backward()/autograd.grad() record and its roots: `render` draws the
        # last loss of a loop even when the script never named it
        self._last: tuple[Any, ...] = ()
        # What the backward nodes of a create_graph differentiation saved (they have no
        # record): per call site (script line), the latest call's id(node) -> (node, its
        # `_saved_*` values), so a gradient penalty's saved tensors are drawn after the
        # backward that frees them. One entry per line keeps a training loop bounded.
        self._derived: dict[int | None, dict[int, tuple[Any, dict[str, Any]]]] = {}

    def keep_derived(self, results: Any, is_new: Any, diff: Record) -> None:
        """Keep the `_saved_*` values of the backward nodes a create_graph differentiation
        (its record `diff`) just made: those reachable from its `results` for which
        `is_new(node)` holds (the walk stops at the forward graph's nodes). They have no
        record of their own: each is dated to the differentiation's line (as an inner step)."""
        kept: dict[int, tuple[Any, dict[str, Any]]] = {}
        stack = [t.grad_fn for t in results if t is not None and t.grad_fn is not None]
        while stack:
            fn = stack.pop()
            if id(fn) in kept or hasattr(fn, "variable") or not is_new(fn):
                continue
            kept[id(fn)] = (fn, saved_attrs(fn))
            stack.extend(c for c, _ in fn.next_functions if c is not None)
        old = self._derived.get(diff.line, {})
        for key in old:  # alive until now (kept holds them), so the ids are still theirs
            self.inner.pop(key, None)
        self._derived[diff.line] = kept
        step = Record(diff.index, diff.op, (), (), None, diff.line, False, diff.grad_enabled)
        for key in kept:
            self.inner.setdefault(key, step)

    def derived_saved(self, fn: Any) -> dict[str, Any]:
        """The `_saved_*` values `keep_derived` kept for `fn` ({} if none)."""
        for kept in self._derived.values():
            found = kept.get(id(fn))
            if found is not None and found[0] is fn:
                return found[1]
        return {}

    @property
    def records(self) -> list[Record]:
        if not self._log:
            return self._list
        live = [r for w in self._log if (r := w()) is not None]
        if len(live) < len(self._log):
            self._log = [_weakref(r) for r in live]
        return live

    def _latest(self, tensor: Any) -> Ref | None:
        if self.strong or self._refs:
            return self._refs.get(id(tensor))
        ref = getattr(tensor, "_trace", None)
        return ref if ref is not None and ref.owner is self else None

    def producer_of(self, tensor: Any) -> Record | None:
        ref = self._latest(tensor)
        return ref.producer if ref is not None else None

    def _ref(self, t: Any) -> Ref:
        """The tensor's snapshot, reused while its autograd state is unchanged (most inputs
        are the unchanged output of an earlier op, so this is one attribute read)."""
        old = self._latest(t)
        fn = t._grad_fn
        rg = t._requires_grad
        if old is not None and old.grad_fn is fn and old.requires_grad == rg:
            return old
        ref = self._new_ref(t, fn, rg, None if old is None else old.producer)
        return ref

    def _new_ref(self, t: Any, fn: Any, rg: bool, producer: Record | None) -> Ref:
        ref = _new(Ref)
        ref.requires_grad = rg
        ref.producer = producer
        ref._shape = t._data.shape
        ref.owner = self
        if self.strong:
            ref._t = t
            ref._fn = fn
            self._refs[id(t)] = ref
            self._alive.append(t)
        else:
            ref._t = _weakref(t)
            ref._fn = None if fn is None else _weakref(fn)
            t._trace = ref
        return ref

    def record(
        self,
        op: str,
        inputs: tuple[Any, ...],
        outputs: tuple[Any, ...],
        cut: str | None = None,
        inplace: bool = False,
    ) -> Record:
        """Record one op. Call *after* the outputs exist; for in-place ops the input
        snapshot must be taken before the write, so call `snapshot()` first and pass Refs.

        NOTE: this runs on every op while recording, so it is written out flat: objects are
        made without __init__ calls, the single-output case builds no lists, and the script
        line is kept as (code, instruction offset), looked up only when asked."""
        if self.strong:
            return self._record_strong(op, inputs, outputs, cut, inplace)
        # NOTE: most inputs are the unchanged output of an earlier op: their latest snapshot
        # is taken here without a call (`_input` is the general case; a tensor with a
        # grad_fn requires grad, so only one without is asked whether it still does)
        ins: Any = []
        for x in inputs:
            try:
                old = x._trace
            except AttributeError:  # a tensor no recorder has seen
                old = None
            if old is None:  # that, or a snapshot (`snapshot()`), maybe a record
                ins.append(
                    x
                    if isinstance(x, Ref)
                    else self._new_ref(x, x._grad_fn, x._requires_grad, None)
                )
                continue
            if old.owner is self:
                ofn = old._fn
                fn = x._grad_fn
                if (
                    ofn is None and old.requires_grad == x._requires_grad
                    if fn is None
                    else ofn is not None and ofn() is fn
                ):
                    ins.append(old)
                    continue
            ins.append(self._input(x))
        ins = tuple(ins)
        ge = state.grad_enabled
        if cut is None and not ge:
            # NOTE: an in-place write into a tensor that requires grad (an optimizer step,
            # nn.init) cuts nothing of the target itself; only what flows in from the others.
            for r in ins[1:] if inplace else ins:
                if r.requires_grad:
                    cut = "no_grad"
                    break
        rec = _new(Record)
        rec.index = self._count
        self._count += 1
        rec.op = op
        rec.inputs = ins
        rec.cut = cut
        rec.inplace = inplace
        rec.grad_enabled = ge
        rec._saved_raw = None
        # where: the innermost frame that belongs to the script being run (not the frame
        # above: it is the engine's op that records itself)
        rec._code = rec._at = None
        script = self.script
        if script is not None:
            frame: Any = _getframe(2)
            while frame is not None:
                code = frame.f_code
                if code.co_filename == script:
                    rec._code = code
                    rec._at = frame.f_lasti
                    break
                frame = frame.f_back
        if len(outputs) == 1 and not inplace:  # the record is its output's snapshot
            t = outputs[0]
            rec._outs = None
            rec.owner = self
            rec._t = _weakref(t)
            t._trace = rec
            fn = t._grad_fn
            if fn is None:
                rec._fn = None
                rec.requires_grad = t._requires_grad
                rec._shape = t._data.shape
            else:
                rec.requires_grad = True
                rec._fn = wfn = _weakref(fn)
                fn._trace = rec
                # NOTE: the node's own shape tuple: `t._data.shape` makes a new one per call
                shape = fn._shape
                rec._shape = t._data.shape if shape is None or shape is MULTI else shape
                if fn._saved:
                    rec._saved_raw = fn._saved
                    rec._saver = wfn
                    self._savers.append((rec.index, wfn))
        elif outputs:
            rec._outs = (
                (self._output(outputs[0], rec),)
                if len(outputs) == 1
                else tuple([self._output(t, rec) for t in outputs])
            )
            fn = outputs[0]._grad_fn
            if fn is not None and fn._saved:
                rec._saved_raw = fn._saved
                rec._saver = wfn = _weakref(fn)
                self._savers.append((rec.index, wfn))
        else:
            rec._outs = ()
        if cut is not None or inplace or not outputs:
            self._keep(rec)
        log = self._log
        log.append(_weakref(rec))
        if len(log) >= self._compact_at:
            self._compact_log()
        return rec

    def _compact_log(self) -> None:
        """Drop the log's and the savers' entries whose record or node is gone; the next
        compaction waits until the log has doubled again."""
        self._log = log = [w for w in self._log if w() is not None]
        self._compact_at = max(1024, 2 * len(log))
        self._savers = collections.deque(s for s in self._savers if s[1]() is not None)

    def _input(self, x: Any) -> Ref:
        """An op's input as a snapshot: the tensor's latest one while its autograd state is
        unchanged (most inputs are the unchanged output of an earlier op)."""
        if isinstance(x, Ref):  # a snapshot (`snapshot()`), maybe a record
            return x
        try:
            old = x._trace
        except AttributeError:  # never seen by a recorder
            old = None
        if old is None:
            return self._new_ref(x, x._grad_fn, x._requires_grad, None)
        fn = x._grad_fn
        if old.owner is self and old.requires_grad == x._requires_grad:
            ofn = old._fn
            if fn is None if ofn is None else ofn() is fn:
                return old  # type: ignore[no-any-return]
        producer = old.producer if old.owner is self else None
        return self._new_ref(x, fn, x._requires_grad, producer)

    def _output(self, t: Any, rec: Record) -> Ref:
        """The snapshot of an op's output `t`, made by `rec`; it becomes `t`'s latest."""
        ref = _new(Ref)
        fn = t._grad_fn
        ref.requires_grad = t._requires_grad
        ref.producer = rec
        ref._shape = t._data.shape
        ref.owner = self
        ref._t = _weakref(t)
        t._trace = ref
        if fn is None:
            ref._fn = None
        else:
            ref._fn = _weakref(fn)
            fn._trace = rec
        return ref

    def _record_strong(
        self,
        op: str,
        inputs: tuple[Any, ...],
        outputs: tuple[Any, ...],
        cut: str | None,
        inplace: bool,
    ) -> Record:
        """`record` for a recorder started inside another: everything is held strongly
        and kept for the whole run."""
        ins = tuple([x if isinstance(x, Ref) else self._ref(x) for x in inputs])
        ge = state.grad_enabled
        if cut is None and not ge:
            for r in ins[1:] if inplace else ins:
                if r.requires_grad:
                    cut = "no_grad"
                    break
        line = None
        script = self.script
        if script is not None:
            frame: Any = _getframe(2)
            while frame is not None:
                if frame.f_code.co_filename == script:
                    line = frame.f_lineno
                    break
                frame = frame.f_back
        rec = Record(self._count, op, ins, (), cut, line, inplace, ge)
        self._count += 1
        outs = []
        for t in outputs:
            ref = _new(Ref)
            ref.requires_grad = t._requires_grad
            ref.producer = rec
            ref._shape = t._data.shape
            ref.owner = self
            ref._t = t
            ref._fn = t._grad_fn
            self._refs[id(t)] = ref
            self._alive.append(t)
            outs.append(ref)
        rec.outputs = tuple(outs)
        if outputs:
            fn = outputs[0]._grad_fn
            if fn is not None and fn._saved:
                rec._saved_raw = fn._saved
                rec._saver = fn
        self._list.append(rec)
        return rec

    def _keep(self, rec: Record) -> None:
        """What a cut, a write or a differentiation needs kept beyond its own outputs."""
        pins: list[Any] = []
        if rec.cut is not None:
            for r in rec.cut_sources:
                pins.append(r.tensor)
                pins.append(r.grad_fn)
        if rec.inplace and rec.inputs:
            target = rec.inputs[0].tensor
            pins.append(target)
            writes.wrote(self, rec, target)
        elif not rec.outputs and rec.op in vocab.DIFFERENTIATIONS:
            self._differentiated(rec)
        rec._pins = tuple(pins)

    def _differentiated(self, rec: Record) -> None:
        """A backward()/autograd.grad() record lives as long as one of its roots does (its
        inputs are copies of their snapshots, so a root's snapshot keeping it makes no
        cycle); the latest one, with its roots, as long as the recorder."""
        copies = []
        for r in rec.inputs:
            c = _new(_RootCopy)
            c._t, c._fn, c.requires_grad = r._t, r._fn, r.requires_grad
            producer = r.producer
            c._producer = None if producer is None else _weakref(producer)
            c._shape, c.owner = r._shape, self
            r.anchored = (*getattr(r, "anchored", ()), rec)
            copies.append(c)
        rec.inputs = tuple(copies)
        self._last = (rec, *(r.tensor for r in copies))

    def snapshot(self, tensor: Any) -> Ref:
        """The tensor as it is now, for an op about to change it in place."""
        return self._ref(tensor)

    # What the graph layer asks of any engine's recorder, beyond the records themselves
    # (the torch engine's recorder answers from what it saw; see torch_engine/tracer.py).
    def shares_version_counter(self, a: Any, b: Any) -> bool:
        """Whether an in-place write to `a` bumps `b`'s version (views and detach() share
        their source's counter; `.data` gets a fresh one)."""
        # NOTE: the engine creates a tensor's counter lazily; None means "not shared yet".
        return a is b or (a._vc is not None and a._vc is b._vc)

    def saved_behind(self, error: BaseException) -> tuple[Any, Any]:
        """(SavedVariable, backward node) behind torch's "modified by an inplace operation"
        error, or (None, None): the engine's error carries them."""
        return getattr(error, "saved_variable", None), getattr(error, "node", None)


# The engine's unpack of a saved output (a tensor aliasing it, the node as its grad_fn):
# `Record.saved` shows a saved output the script dropped through it. Installed by
# engine/tensor.py, which imports this module.
shadow_output: Any = None
# The engine's wrap of a python number a node saved (engine/tensor.py installs it).
scalar_tensor: Any = None


# `Recorder.record` as written above: where engine/_record.c is built, the class's `record`
# is its compiled form instead, which makes the same Record for an op with one output, no cut
# and no write whose inputs are unchanged tensors this recorder has seen (most ops), and
# passes every other op to this function.
python_record = Recorder.record


def use_compiled(tensor_class: type) -> None:
    """Make `Recorder.record` the compiled one, if built (engine/tensor.py calls this once
    it has made the Tensor class whose slots it writes)."""
    module = kernels.compiled("_record")
    if module is not None and hasattr(module, "setup"):  # none before Python 3.11
        compiled = module.setup(
            Recorder, Record, Ref, tensor_class, Node, state, MULTI, python_record
        )
        Recorder.record = compiled  # type: ignore[method-assign]


# The active recorder, or None. Set by the runner (and by tests) through `recording()`.
RECORDER: Recorder | None = None


class recording:  # noqa: N801 - used like a function: `with recording(script) as rec:`
    """Context manager that makes a fresh Recorder active."""

    def __init__(self, script: str | None = None) -> None:
        self.recorder = Recorder(script)
        self._previous: Recorder | None = None

    def __enter__(self) -> Recorder:
        global RECORDER
        self._previous = RECORDER
        # NOTE: a tensor has one slot for its latest snapshot; a recorder started inside
        # another keeps its own map instead (and keeps everything for its whole run).
        self.recorder.strong = RECORDER is not None
        if RECORDER is None:
            # NOTE: what lived before the recording (the interpreter, the imports) is left
            # out of the cyclic collector's passes until it ends: each op's record adds a
            # few objects the collector counts, and its full passes re-scanned the whole
            # heap for them. What the script makes is collected as usual.
            gc.freeze()
        RECORDER = self.recorder
        return self.recorder

    def __exit__(self, *exc: object) -> None:
        global RECORDER
        RECORDER = self._previous
        if RECORDER is None:
            gc.unfreeze()
