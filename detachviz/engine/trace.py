"""The op recorder: a light trace of every op and every cut, kept only while someone records.

Tracing is separate from differentiation. The engine calls `record()` at each op when
`RECORDER` is set; when nothing records, the cost is one `if RECORDER is not None`.
The recorder knows nothing of drawing: graph capture reads its records afterwards.

A record keeps *snapshots* of its tensors (`Ref`): the tensor object plus its `grad_fn`,
`requires_grad` and producing record as they were at that moment. That is what makes
`y.detach_()` and in-place ops traceable: the tensor object lives on, its history changes.
"""

from __future__ import annotations

import sys
from typing import Any

from detachviz.engine import state
from detachviz.engine.node import SavedVariable
from detachviz.graph import vocab

_new = object.__new__

# The cut mechanisms, as they appear in graph edges and in `detachviz grad` reasons.
CUTS = vocab.CUT_NAMES


class Ref:
    """A tensor as it was when an op used or produced it."""

    __slots__ = ("tensor", "grad_fn", "requires_grad", "producer")

    def __init__(self, tensor: Any, producer: Record | None) -> None:
        self.tensor = tensor
        # NOTE: the engine's slots, not the properties: this runs once per op while recording.
        self.grad_fn = tensor._grad_fn
        self.requires_grad = tensor._requires_grad
        self.producer = producer


class Record:
    """One op: its name, input and output snapshots, and where in the script it ran.

    `op` is the forward name (`pow`, `mul`, `detach`, `data`, `tensor`, `add_`, ...).
    `cut` is one of CUTS when the op severs gradient flow from a value that requires grad
    (`no_grad` is set for any op run with grad mode off on an input that requires grad).
    `inplace` is true for ops that write into their first input (`add_`, `zero_`, `x[i] = v`).
    `backward` and `autograd.grad` are recorded too (inputs: the roots, no outputs), so
    capture knows what the script differentiated.
    """

    __slots__ = (
        "index", "op", "inputs", "outputs", "cut", "line", "inplace", "grad_enabled",
        "_saved_raw",
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
        self.outputs = outputs
        self.cut = cut
        self.line = line
        self.inplace = inplace
        self.grad_enabled = grad_enabled
        # (node, node._saved) as the op left them: the node frees its saved tensors at
        # backward, and diagnosis needs them afterwards. Unpacked by `saved` on demand.
        self._saved_raw: tuple[Any, Any] | None = None

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
        if self._saved_raw is None:
            return ()
        node, raw = self._saved_raw
        out = []
        for k, value in enumerate(raw):
            if value is None or not hasattr(value, "_data"):
                continue  # not saved, or a python scalar
            tensor = self.outputs[0].tensor if node._save_src[k] < 0 else value
            out.append(SavedVariable(tensor, node._save_names[k], node._versions[k], node))
        return tuple(out)

    def __repr__(self) -> str:
        return f"<Record #{self.index} {self.op} line={self.line} cut={self.cut}>"


class Recorder:
    """Collects records for one script run. `script` is the path whose lines we report."""

    def __init__(self, script: str | None = None) -> None:
        self.script = script
        self.records: list[Record] = []
        # id(tensor) -> its latest snapshot (whose `producer` is the record that last wrote
        # it). Ids stay valid: every tensor here is kept alive by the records' Refs.
        self._refs: dict[int, Ref] = {}
        # id(backward node) -> the record of the op that made it as an inner step, not as
        # an output's grad_fn (real torch's linear makes a TBackward0 for its weight).
        # The numpy engine records each step as its own op, so it leaves this empty.
        self.inner: dict[int, Record] = {}

    def producer_of(self, tensor: Any) -> Record | None:
        ref = self._refs.get(id(tensor))
        return ref.producer if ref is not None else None

    def _ref(self, t: Any) -> Ref:
        """The tensor's snapshot, reused while its autograd state is unchanged (most inputs
        are the unchanged output of an earlier op, so this is one dict lookup)."""
        key = id(t)
        old = self._refs.get(key)
        fn = t._grad_fn
        rg = t._requires_grad
        if old is not None and old.grad_fn is fn and old.requires_grad == rg:
            return old
        ref = _new(Ref)
        ref.tensor = t
        ref.grad_fn = fn
        ref.requires_grad = rg
        ref.producer = None if old is None else old.producer
        self._refs[key] = ref
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
        made without __init__ calls, and `_ref` and the line lookup are inlined."""
        refs = self._refs
        ins = []
        for x in inputs:
            if type(x) is not Ref:
                key = id(x)
                old = refs.get(key)
                fn = x._grad_fn
                rg = x._requires_grad
                if old is not None and old.grad_fn is fn and old.requires_grad == rg:
                    x = old
                else:
                    ref = _new(Ref)
                    ref.tensor = x
                    ref.grad_fn = fn
                    ref.requires_grad = rg
                    ref.producer = None if old is None else old.producer
                    refs[key] = x = ref
            ins.append(x)
        ge = state.grad_enabled
        if cut is None and not ge:
            # NOTE: an in-place write into a tensor that requires grad (an optimizer step,
            # nn.init) cuts nothing of the target itself; only what flows in from the others.
            for r in ins[1:] if inplace else ins:
                if r.requires_grad:
                    cut = "no_grad"
                    break
        # the line of the innermost frame that belongs to the script being run
        line = None
        script = self.script
        if script is not None:
            frame: Any = sys._getframe(1)
            while frame is not None:
                if frame.f_code.co_filename == script:
                    line = frame.f_lineno
                    break
                frame = frame.f_back
        records = self.records
        rec = _new(Record)
        rec.index = len(records)
        rec.op = op
        rec.inputs = tuple(ins)
        rec.cut = cut
        rec.line = line
        rec.inplace = inplace
        rec.grad_enabled = ge
        rec._saved_raw = None
        if outputs:
            outs = []
            for t in outputs:
                ref = _new(Ref)
                ref.tensor = t
                ref.grad_fn = t._grad_fn
                ref.requires_grad = t._requires_grad
                ref.producer = rec
                refs[id(t)] = ref
                outs.append(ref)
            rec.outputs = tuple(outs)
            fn = outputs[0]._grad_fn
            if fn is not None and fn._saved:
                rec._saved_raw = (fn, fn._saved)
        else:
            rec.outputs = ()
        records.append(rec)
        return rec

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
        RECORDER = self.recorder
        return self.recorder

    def __exit__(self, *exc: object) -> None:
        global RECORDER
        RECORDER = self._previous
